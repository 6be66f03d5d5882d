package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.rowkey.hbase.RobustnessFixtures.Case;

/**
 * Arbitrary rows, as a RegionServer may hand them to a comparator (foreign keys, truncated keys,
 * any bytes): random keys of 0..4096 bytes at random offsets, through every entry point —
 * {@code compareTo(byte[], int, int)}, a heap {@link ByteBuffer} (and a slice of one), a direct
 * buffer, a read-only heap buffer and a read-only direct buffer. Every answer is defined (0/1 for
 * equality and predicate comparators, -1/0/1 for ranges), the same on every path, and the
 * oracle's whenever the row is a canonical key of the schema. Bad offsets and lengths are
 * {@link IndexOutOfBoundsException}s on every path, also when the Java checks are bypassed and the
 * natives (and the per-row seam, JNI or FFM) are called directly. The {@code jni-check} execution runs this class under {@code -Xcheck:jni}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArbitraryRowsTest {
    static final int ROWS_PER_COMPARATOR = 4_000;

    private final List<Case> cases = RobustnessFixtures.cases();

    @AfterAll
    void close() {
        RobustnessFixtures.closeAll(cases);
    }

    /** compareTo of {@code row} placed at a random offset, through every path; all answers must agree. */
    private static int everyPath(Case c, byte[] row, Random random) {
        NativeComparator cmp = c.comparator;
        int pad = random.nextInt(64);
        byte[] array = new byte[pad + row.length + random.nextInt(64)];
        random.nextBytes(array);
        System.arraycopy(row, 0, array, pad, row.length);

        int viaArray = cmp.compareTo(array, pad, row.length);
        if (!c.kind.allows(viaArray)) {
            throw new AssertionError("undefined result " + viaArray + ": " + RobustnessFixtures.describe(c, row));
        }
        if (pad == 0 && array.length == row.length) {
            check(c, row, "compareTo(byte[])", viaArray, cmp.compareTo(array));
        }
        ByteBuffer heap = ByteBuffer.wrap(array);
        heap.position(random.nextInt(array.length + 1)); // position and limit are ignored
        check(c, row, "heap buffer", viaArray, cmp.compareTo(heap, pad, row.length));
        int cut = Math.min(pad, random.nextInt(8));
        heap.clear().position(cut);
        check(c, row, "heap slice", viaArray, cmp.compareTo(heap.slice(), pad - cut, row.length));
        check(c, row, "read-only heap buffer", viaArray, cmp.compareTo(ByteBuffer.wrap(array).asReadOnlyBuffer(), pad, row.length));
        ByteBuffer direct = ByteBuffer.allocateDirect(array.length);
        direct.put(array);
        direct.position(random.nextInt(array.length + 1));
        check(c, row, "direct buffer", viaArray, cmp.compareTo(direct, pad, row.length));
        check(c, row, "read-only direct buffer", viaArray, cmp.compareTo(direct.asReadOnlyBuffer(), pad, row.length));
        return viaArray;
    }

    private static void check(Case c, byte[] row, String path, int expected, int actual) {
        if (expected != actual) {
            throw new AssertionError(path + " gave " + actual + ", byte[] gave " + expected + ": " + RobustnessFixtures.describe(c, row));
        }
    }

    @Test
    void randomRowsGiveDefinedAndIdenticalAnswersOnEveryPath() {
        Random random = new Random(20161209);
        long t0 = System.nanoTime();
        int rows = 0;
        int oracleChecked = 0;
        int[] histogram = new int[3];
        for (Case c : cases) {
            for (int i = 0; i < ROWS_PER_COMPARATOR; i++) {
                byte[] row = RobustnessFixtures.arbitraryRow(c, random);
                int result = everyPath(c, row, random);
                histogram[result + 1]++;
                rows++;
                Integer expected = RobustnessFixtures.oracle(c, row);
                if (expected != null) {
                    oracleChecked++;
                    if (expected != result) {
                        throw new AssertionError("oracle says " + expected + ", comparator " + result + ": "
                                + RobustnessFixtures.describe(c, row));
                    }
                }
            }
        }
        // Both answers actually happen (the rows are not all trivially rejected).
        assertTrue(histogram[1] > rows / 50 && histogram[2] > rows / 50, java.util.Arrays.toString(histogram));
        assertTrue(histogram[0] > 0, "ranges also answer -1");
        assertTrue(oracleChecked > rows / 2, oracleChecked + " of " + rows);
        System.out.printf("%d arbitrary rows x 6 paths over %d comparators in %d ms (%d checked against the oracle; -1/0/1: %s)%n",
                rows, cases.size(), (System.nanoTime() - t0) / 1_000_000, oracleChecked, java.util.Arrays.toString(histogram));
    }

    @Test
    void everyLengthFromZeroTo4096() {
        Random random = new Random(4096);
        for (Case c : cases) {
            for (int length = 0; length <= 4096; length += (length < 64 ? 1 : 1 + random.nextInt(97))) {
                byte[] row = RobustnessFixtures.randomBytes(random, length);
                int result = everyPath(c, row, random);
                if (length != c.schema.keyLength()) {
                    check(c, row, "wrong length", 1, result);
                }
            }
            // the key length itself, all zeros and all ones
            everyPath(c, new byte[c.schema.keyLength()], random);
            byte[] ones = new byte[c.schema.keyLength()];
            java.util.Arrays.fill(ones, (byte) -1);
            everyPath(c, ones, random);
        }
    }

    @Test
    void badOffsetsAndLengthsAreIndexOutOfBoundsOnEveryPath() {
        int[][] bad = {{-1, 0}, {0, -1}, {-1, -1}, {1, 37}, {37, 1}, {38, 0}, {0, 38}, {Integer.MIN_VALUE, 37},
                {0, Integer.MIN_VALUE}, {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
                {-37, 74}, {36, Integer.MAX_VALUE - 35}};
        int tried = 0;
        for (Case c : cases) {
            NativeComparator cmp = c.comparator;
            byte[] row = new byte[37];
            ByteBuffer heap = ByteBuffer.wrap(row);
            ByteBuffer direct = ByteBuffer.allocateDirect(37);
            List<ByteBuffer> buffers = new ArrayList<>();
            buffers.add(heap);
            buffers.add(heap.asReadOnlyBuffer());
            buffers.add(direct);
            buffers.add(direct.asReadOnlyBuffer());
            for (int[] ol : bad) {
                assertThrows(IndexOutOfBoundsException.class, () -> cmp.compareTo(row, ol[0], ol[1]), c + " " + ol[0] + "," + ol[1]);
                tried++;
                for (ByteBuffer b : buffers) {
                    assertThrows(IndexOutOfBoundsException.class, () -> cmp.compareTo(b, ol[0], ol[1]),
                            c + " " + b + " " + ol[0] + "," + ol[1]);
                    tried++;
                }
            }
            // a slice's bounds are its own, not those of the array behind it
            ByteBuffer slice = ByteBuffer.wrap(new byte[100], 10, 50).slice();
            assertThrows(IndexOutOfBoundsException.class, () -> cmp.compareTo(slice, 0, 51));
            assertThrows(IndexOutOfBoundsException.class, () -> cmp.compareTo(slice, -10, 37));
            assertThrows(NullPointerException.class, () -> cmp.compareTo((byte[]) null, 0, 0));
            assertThrows(NullPointerException.class, () -> cmp.compareTo((ByteBuffer) null, 0, 0));
            // empty regions at the very end are fine
            assertEquals(1, cmp.compareTo(row, 37, 0));
            assertEquals(1, cmp.compareTo(direct, 37, 0));
        }
        System.out.println(tried + " bad offset/length pairs refused");
    }

    /**
     * The natives themselves stay defined when the Java bounds checks are bypassed (a caller bug, a
     * future call path): a region outside the array or buffer is an IndexOutOfBoundsException (or the
     * wrong-length answer for negative or oversized lengths that read nothing), never a read out of bounds.
     */
    @Test
    void nativesCalledDirectlyWithBadRegionsNeverReadOutOfBounds() {
        Random random = new Random(99);
        int exceptions = 0;
        int answers = 0;
        for (Case c : cases) {
            long handle = c.comparator.nativeHandle();
            for (int i = 0; i < 2_000; i++) {
                int size = random.nextInt(5000);
                byte[] array = RobustnessFixtures.randomBytes(random, size);
                ByteBuffer direct = ByteBuffer.allocateDirect(size);
                int offset = wild(random, size);
                int length = wild(random, size);
                // the JNI natives, and the per-row seam in use (JNI, or FFM on Java 22+)
                for (int path = 0; path < 4; path++) {
                    try {
                        int r = path == 0 ? RowKeyNative.compareArray(handle, array, offset, length)
                                : path == 1 ? RowKeyNative.compareDirect(handle, direct, offset, length)
                                : path == 2 ? RowCalls.get().compareArray(handle, array, offset, length)
                                : RowCalls.get().compareDirect(handle, direct, offset, length);
                        if (!c.kind.allows(r)) {
                            throw new AssertionError("undefined result " + r + " for offset " + offset + ", length " + length);
                        }
                        boolean inside = offset >= 0 && length >= 0 && (long) offset + length <= size;
                        if (!inside && !(offset < 0 || length < 0 || length > 4096)) {
                            throw new AssertionError("region [" + offset + ", +" + length + ") outside " + size
                                    + " bytes was read (path " + path + ")");
                        }
                        answers++;
                    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                        exceptions++;
                    }
                }
            }
        }
        assertTrue(exceptions > 1000 && answers > 1000, exceptions + " exceptions, " + answers + " answers");
        // a heap buffer given to the direct-buffer native is refused, not read
        long handle = cases.get(0).comparator.nativeHandle();
        assertThrows(IllegalArgumentException.class, () -> RowKeyNative.compareDirect(handle, ByteBuffer.allocate(37), 0, 37));
        assertThrows(NullPointerException.class, () -> RowKeyNative.compareArray(handle, null, 0, 37));
        assertThrows(NullPointerException.class, () -> RowKeyNative.compareDirect(handle, null, 0, 37));
        // the null handle (a closed comparator) is an IllegalStateException, never a dereference
        assertThrows(IllegalStateException.class, () -> RowKeyNative.compareArray(0, new byte[37], 0, 37));
        assertThrows(IllegalStateException.class, () -> RowKeyNative.compareDirect(0, ByteBuffer.allocateDirect(37), 0, 37));
        assertThrows(IllegalStateException.class, () -> RowCalls.get().compareArray(0, new byte[37], 0, 37));
        assertThrows(IllegalStateException.class, () -> RowCalls.get().compareDirect(0, ByteBuffer.allocateDirect(37), 0, 37));
    }

    /** Offsets and lengths around the interesting edges. */
    private static int wild(Random random, int size) {
        switch (random.nextInt(7)) {
            case 0: return -1 - random.nextInt(100);
            case 1: return Integer.MIN_VALUE + random.nextInt(3);
            case 2: return Integer.MAX_VALUE - random.nextInt(3);
            case 3: return size + random.nextInt(3) - 1;
            case 4: return 4096 + random.nextInt(3) - 1;
            default: return random.nextInt(size + 1);
        }
    }

}
