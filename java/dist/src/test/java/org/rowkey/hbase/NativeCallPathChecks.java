package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The per-row seam ({@link RowCalls}): which mechanism is active, and that it answers and fails
 * exactly like the JNI reference. Run as a unit test ({@link NativeCallPathTest}: classes from
 * target/classes plus META-INF/versions/22) and as an integration test ({@link NativeCallPathIT}:
 * classes from the multi-release jar), on every JDK the build runs on.
 *
 * <p>System property {@code rowkey.test.expect.call} (jni|ffm), set by the build, is the mechanism
 * that must be active; when empty, the one the automatic choice must make on this JVM.
 */
abstract class NativeCallPathChecks {
    static String expectedMechanism() {
        String expected = System.getProperty("rowkey.test.expect.call", "").trim();
        if (!expected.isEmpty()) {
            return expected;
        }
        String forced = System.getProperty(RowCalls.PROPERTY, "").trim();
        if (!forced.isEmpty() && !forced.equals("auto")) {
            return forced;
        }
        return RowCalls.javaFeatureVersion() >= 22 && ffmClassPresent() ? RowCalls.FFM : RowCalls.JNI;
    }

    private static boolean ffmClassPresent() {
        return RowCalls.class.getClassLoader().getResource(RowCalls.FFM_CLASS.replace('.', '/') + ".class") != null
                || RowCalls.class.getClassLoader().getResource(
                        "META-INF/versions/22/" + RowCalls.FFM_CLASS.replace('.', '/') + ".class") != null;
    }

    @Test
    void theExpectedMechanismIsActive() {
        assertEquals(expectedMechanism(), RowCalls.get().mechanism(), RowCalls.describe());
        if (RowCalls.get().mechanism().equals(RowCalls.JNI) && RowCalls.javaFeatureVersion() < 24) {
            // Else the JNI fast paths (rows as words, direct buffers by address) would go untested.
            assertTrue(RowMemory.AVAILABLE, RowCalls.describe());
        }
    }

    /**
     * Every byte of rows of every length up to 80 (and the scratch-copy sizes beyond), at any
     * offset, reaches the native compare intact on every path: an equality on the whole key
     * matches the row itself and no row with any one byte changed. (The words path splits a row
     * into overlapping 8-byte words; the last word's overlap is where a slip would show.)
     */
    @Test
    void everyByteOfEveryRowLengthReachesNativeCode() {
        java.util.Random random = new java.util.Random(37);
        int[] lengths = new int[84];
        for (int i = 0; i < 81; i++) {
            lengths[i] = i + 1;
        }
        lengths[81] = 100;
        lengths[82] = 1000;
        lengths[83] = 4096;
        for (int length : lengths) {
            // Fixed-bytes fields are at most 1024 bytes wide: longer keys take several.
            RowKeySchema.Builder builder = RowKeySchema.builder();
            byte[] key = new byte[length];
            random.nextBytes(key);
            java.util.Map<String, Object> whole = new java.util.LinkedHashMap<>();
            for (int from = 0, field = 0; from < length; from += 1024, field++) {
                int width = Math.min(1024, length - from);
                builder.fixedBytes("k" + field, width);
                whole.put("k" + field, java.util.Arrays.copyOfRange(key, from, from + width));
            }
            try (EqualComparator eq = new EqualComparator(builder.build(), whole)) {
                long h = eq.nativeHandle();
                for (int offset = 0; offset < 9; offset++) {
                    byte[] array = new byte[offset + length + random.nextInt(9)];
                    random.nextBytes(array);
                    System.arraycopy(key, 0, array, offset, length);
                    ByteBuffer direct = ByteBuffer.allocateDirect(array.length).put(array);
                    String where = "length " + length + ", offset " + offset;
                    assertEquals(0, eq.compareTo(array, offset, length), where);
                    assertEquals(0, eq.compareTo(direct, offset, length), where + ", direct");
                    for (int at = 0; at < length; at += length > 100 ? 97 : 1) {
                        array[offset + at] ^= (byte) (1 << random.nextInt(8));
                        direct.put(offset + at, array[offset + at]);
                        int expected = RowKeyNative.compareArray(h, array, offset, length);
                        assertEquals(1, expected, where + ", byte " + at + " changed");
                        assertEquals(expected, eq.compareTo(array, offset, length), where + ", byte " + at);
                        assertEquals(expected, eq.compareTo(direct, offset, length), where + ", byte " + at + ", direct");
                        array[offset + at] = key[at];
                        direct.put(offset + at, key[at]);
                    }
                }
            }
        }
    }

    @Test
    void everyPathAnswersLikeTheJniReference() {
        RowKeySchema schema = TestData.seedSchema();
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            rows.add(schema.encode(TestData.seedRow("u" + (i % 5), i % 2 == 0 ? 404 : 200, 20161200 + i % 12, i % 4, i % 3 == 0)));
        }
        List<NativeComparator> comparators = new ArrayList<>();
        comparators.add(new EqualComparator(schema, TestData.map("md5url", "u1", "sdate", 20161201)));
        comparators.add(new RangeComparator(schema, "sdate", 20161205));
        comparators.add(RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2).toComparator());
        try {
            for (NativeComparator c : comparators) {
                long h = c.nativeHandle();
                for (byte[] row : rows) {
                    int expected = RowKeyNative.compareArray(h, row, 0, row.length);
                    assertEquals(expected, c.compareTo(row, 0, row.length), c.toString());
                    assertEquals(expected, RowCalls.get().compareArray(h, row, 0, row.length));
                    byte[] padded = new byte[row.length + 7];
                    System.arraycopy(row, 0, padded, 4, row.length);
                    assertEquals(expected, c.compareTo(padded, 4, row.length));
                    ByteBuffer direct = ByteBuffer.allocateDirect(padded.length).put(padded);
                    direct.position(2);
                    assertEquals(expected, c.compareTo(direct, 4, row.length));
                    assertEquals(expected, c.compareTo(direct.slice(), 2, row.length));
                    assertEquals(expected, c.compareTo(direct.asReadOnlyBuffer(), 4, row.length));
                    assertEquals(expected, RowKeyNative.compareDirect(h, direct, 4, row.length));
                    assertEquals(expected, RowCalls.get().compareDirect(h, direct, 4, row.length));
                }
                // Rows of another length, also the ones the Java side does not short-cut.
                for (int length : new int[] {0, 1, 36, 38, 4096, 4097}) {
                    byte[] row = new byte[length];
                    assertEquals(RowKeyNative.compareArray(h, row, 0, length), RowCalls.get().compareArray(h, row, 0, length));
                    assertEquals(RowKeyNative.compareArray(h, row, 0, length), c.compareTo(row, 0, length));
                    ByteBuffer direct = ByteBuffer.allocateDirect(Math.max(length, 1));
                    assertEquals(RowKeyNative.compareDirect(h, direct, 0, length), RowCalls.get().compareDirect(h, direct, 0, length));
                }
            }
        } finally {
            comparators.forEach(NativeComparator::close);
        }
    }

    @Test
    void failuresAreTheJniExceptions() {
        RowKeySchema schema = TestData.seedSchema();
        EqualComparator eq = new EqualComparator(schema, TestData.map("sdate", 20161201));
        long h = eq.nativeHandle();
        byte[] row = new byte[37];
        RowCalls calls = RowCalls.get();
        // Arguments only a buggy caller passes: the seam stays defined and throws like JNI.
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> calls.compareArray(h, row, 1, 37));
        assertThrows(NullPointerException.class, () -> calls.compareArray(h, null, 0, 37));
        assertEquals(1, calls.compareArray(h, row, -1, 37));
        assertThrows(IndexOutOfBoundsException.class, () -> calls.compareDirect(h, ByteBuffer.allocateDirect(10), 5, 6));
        assertThrows(IllegalArgumentException.class, () -> calls.compareDirect(h, ByteBuffer.allocate(37), 0, 37));
        assertThrows(IllegalStateException.class, () -> calls.compareArray(0, row, 0, 37));
        assertThrows(IllegalStateException.class, () -> calls.compareDirect(0, ByteBuffer.allocateDirect(37), 0, 37));
        eq.close();
        assertThrows(IllegalStateException.class, () -> eq.compareTo(row, 0, 37));
        assertThrows(IllegalStateException.class, () -> eq.compareTo(ByteBuffer.allocateDirect(37), 0, 37));
    }

}
