package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class RowKeySchemaTest {

    private static String iae(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void seedSchemaLayout() {
        RowKeySchema schema = TestData.seedSchema();
        assertEquals(37, schema.keyLength());
        assertEquals(Arrays.asList("md5url", "sitecode", "status", "code", "sdate", "type", "free", "close",
                "queue", "scantype"), schema.fieldNames());
        assertTrue(schema.toString().startsWith("RowKeySchema[md5url md5(8), sitecode javaHash, status int32"),
                schema.toString());
        assertTrue(schema.toString().endsWith("; 37 bytes]"), schema.toString());
    }

    @Test
    void encodeDecodeRoundTrip() {
        RowKeySchema schema = RowKeySchema.builder().int32("a").descending().int64("b").timestamp("t")
                .reversedTimestamp("rt").bool("f").fixedString("s", 6).fixedBytes("raw", 2).md5("m", 4)
                .javaHash("h").build();
        Map<String, Object> row = TestData.map("a", -5, "b", Long.MIN_VALUE, "t", Instant.ofEpochMilli(1000),
                "rt", 1481241600000L, "f", true, "s", "h\u00e9", "raw", new byte[] {1, -1}, "m", "x", "h", "ab");
        byte[] key = schema.encode(row);
        assertEquals(schema.keyLength(), key.length);
        Map<String, Object> back = schema.decode(key);
        assertEquals(schema.fieldNames(), Arrays.asList(back.keySet().toArray()));
        assertEquals(-5, back.get("a"));
        assertEquals(Long.MIN_VALUE, back.get("b"));
        assertEquals(1000L, back.get("t"));
        assertEquals(1481241600000L, back.get("rt"));
        assertEquals(true, back.get("f"));
        assertEquals("h\u00e9", back.get("s"));
        assertArrayEquals(new byte[] {1, -1}, (byte[]) back.get("raw"));
        assertEquals(4, ((byte[]) back.get("m")).length);
        // javaHash gives String.hashCode() big-endian.
        int h = "ab".hashCode();
        assertArrayEquals(new byte[] {(byte) (h >>> 24), (byte) (h >>> 16), (byte) (h >>> 8), (byte) h},
                (byte[]) back.get("h"));
        // decoded values (digests included) encode back to the same key
        assertArrayEquals(key, schema.encode(back));
    }

    @Test
    void eachFieldsClassIsTheClassDecodeGivesIt() {
        RowKeySchema schema = RowKeySchema.builder().int32("a").descending().int64("b").timestamp("t")
                .reversedTimestamp("rt").bool("f").fixedString("s", 6).fixedBytes("raw", 2).md5("m", 4)
                .javaHash("h").build();
        Map<String, Object> back = schema.decode(schema.encode(TestData.map("a", -5, "b", 7L, "t", 1000L, "rt", 5L,
                "f", true, "s", "x", "raw", new byte[] {1, 2}, "m", "x", "h", "ab")));
        for (String field : schema.fieldNames()) {
            assertEquals(back.get(field).getClass(), schema.fieldClass(field), field);
            assertEquals(field.equals("m") || field.equals("h"), schema.isHashed(field), field);
        }
        assertTrue(iae(() -> schema.fieldClass("nope")).startsWith("unknown field 'nope' (fields: a, b, t"));
    }

    /**
     * {@link RowKeySchema#ascendsWithKey}: for random pairs of values of every type, plain and
     * descending, the keys compare (unsigned) as the decoded values do, or exactly against them.
     */
    @Test
    void eachFieldsValuesSortWithItsKeyOrAgainstItAsItSays() {
        Random random = new Random(7);
        String[] letters = {"", "a", "ab", "b", "\u00e9", "z", "\u0001"};
        for (boolean descending : new boolean[] {false, true}) {
            for (int type = 0; type < 9; type++) {
                RowKeySchema.Builder b = RowKeySchema.builder();
                b = type == 0 ? b.int32("v") : type == 1 ? b.int64("v") : type == 2 ? b.timestamp("v")
                        : type == 3 ? b.reversedTimestamp("v") : type == 4 ? b.bool("v") : type == 5 ? b.fixedString("v", 4)
                        : type == 6 ? b.fixedBytes("v", 2) : type == 7 ? b.md5("v", 4) : b.javaHash("v");
                RowKeySchema schema = (descending ? b.descending() : b).build();
                for (int i = 0; i < 200; i++) {
                    Object[] v = new Object[2];
                    for (int j = 0; j < 2; j++) {
                        v[j] = type == 0 ? (Object) (random.nextInt(7) - 3 + (random.nextBoolean() ? 0 : random.nextInt()))
                                : type <= 3 ? (Object) (long) random.nextInt(1 << 20) : type == 4 ? (Object) random.nextBoolean()
                                : type == 6 ? new byte[] {(byte) random.nextInt(256), (byte) random.nextInt(256)}
                                : (Object) (letters[random.nextInt(letters.length)] + letters[random.nextInt(letters.length)]);
                    }
                    byte[][] keys = {schema.encode(TestData.map("v", v[0])), schema.encode(TestData.map("v", v[1]))};
                    Object a = schema.decode(keys[0]).get("v");
                    Object c = schema.decode(keys[1]).get("v");
                    int values = Integer.signum(compare(a, c));
                    int bytes = Integer.signum(Bytes.compareTo(keys[0], keys[1]));
                    assertEquals(schema.ascendsWithKey("v") ? values : -values, bytes, schema + ": " + a + " vs " + c);
                }
            }
        }
        assertTrue(RowKeySchema.builder().int32("a").int64("u").salt(4, "u").build().isSalted());
        assertEquals(false, RowKeySchema.builder().int32("a").int64("u").build().isSalted());
    }

    /** Decoded values compared as a reader sorts them: numbers, strings by UTF-8 bytes, byte arrays unsigned. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        if (a instanceof byte[]) {
            return Bytes.compareTo((byte[]) a, (byte[]) b);
        }
        if (a instanceof String) {
            return Bytes.compareTo(Bytes.toBytes((String) a), Bytes.toBytes((String) b));
        }
        return ((Comparable) a).compareTo(b);
    }

    @Test
    void encodingIsDeterministicAndKeysDiffer() {
        RowKeySchema schema = TestData.seedSchema();
        byte[] a = schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, false));
        assertArrayEquals(a, schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, false)));
        assertNotEquals(Arrays.toString(a), Arrays.toString(schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, true))));
    }

    @Test
    void builderErrors() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RowKeySchema.builder().descending());
        assertTrue(e.getMessage().contains("descending()"));
        assertTrue(iae(() -> RowKeySchema.builder().md5("m", 0).build()).contains("m"));
        assertTrue(iae(() -> RowKeySchema.builder().md5("m", 17).build()).contains("m"));
        iae(() -> RowKeySchema.builder().int32("a").salt(0).build());
        iae(() -> RowKeySchema.builder().int32("a").salt(257).build());
        iae(() -> RowKeySchema.builder().int32("a").salt(-1).build());
        iae(() -> RowKeySchema.builder().int32("a").salt(4, "nope").build());
        assertTrue(iae(() -> RowKeySchema.builder().int32("a").int64("a").build()).contains("'a'"));
        iae(() -> RowKeySchema.builder().fixedString("s", -1));
        assertThrows(NullPointerException.class, () -> RowKeySchema.builder().int32(null));
        RowKeySchema salted = RowKeySchema.builder().int32("a").int32("b").salt(256, "a").build();
        assertEquals(9, salted.keyLength());
        assertTrue(salted.toString().contains("salt 256 buckets of (a)"), salted.toString());
        assertEquals(5, RowKeySchema.builder().int32("a").salt(1).build().keyLength());
    }

    @Test
    void encodeErrorsNameTheField() {
        RowKeySchema schema = TestData.seedSchema();
        Map<String, Object> row = TestData.seedRow("u", 404, 20161209, 1, false);
        row.put("code", "404");
        assertEquals("field 'code': expected an integer number, got java.lang.String", iae(() -> schema.encode(row)));
        row.put("code", 1L << 40);
        assertTrue(iae(() -> schema.encode(row)).startsWith("field 'code': 1099511627776 is out of range"));
        row.put("code", 404);
        row.put("nope", 1);
        assertTrue(iae(() -> schema.encode(row)).startsWith("unknown field 'nope'"));
        row.remove("nope");
        row.remove("sdate");
        assertEquals("field 'sdate' is missing", iae(() -> schema.encode(row)));
        row.remove("md5url");
        row.put("code", "404"); // a given value's own error comes before a missing field's, wherever each is
        assertEquals("field 'code': expected an integer number, got java.lang.String", iae(() -> schema.encode(row)));

        RowKeySchema s = RowKeySchema.builder().fixedString("name", 3).build();
        assertTrue(iae(() -> s.encode(TestData.map("name", "abcd"))).contains("'name'"));
        assertEquals("abc", s.decode(s.encode(TestData.map("name", "abc"))).get("name"));
    }

    @Test
    void decodeRefusesWrongLength() {
        RowKeySchema schema = TestData.seedSchema();
        iae(() -> schema.decode(new byte[36]));
        iae(() -> schema.decode(new byte[38]));
    }

    @Test
    void serializedFormRoundTrips() {
        RowKeySchema schema = TestData.seedSchema();
        RowKeySchema back = RowKeySchema.parseFrom(schema.toByteArray());
        assertEquals(schema, back);
        assertEquals(schema.hashCode(), back.hashCode());
        assertArrayEquals(schema.toByteArray(), back.toByteArray());
        assertEquals(schema.keyLength(), back.keyLength());
        assertNotEquals(schema, RowKeySchema.builder().int32("a").build());
        byte[] copy = schema.toByteArray();
        copy[0] ^= 1;
        assertEquals(schema, RowKeySchema.parseFrom(schema.toByteArray())); // toByteArray is a copy
    }

    @Test
    void parseFromGarbageIsIllegalArgument() {
        assertTrue(iae(() -> RowKeySchema.parseFrom(null)).contains("null"));
        iae(() -> RowKeySchema.parseFrom(new byte[0]));
        byte[] valid = TestData.seedSchema().toByteArray();
        for (int n = 0; n < valid.length; n++) {
            byte[] truncated = Arrays.copyOf(valid, n);
            try {
                RowKeySchema.parseFrom(truncated);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage().startsWith("RowKeySchema.parseFrom: "), expected.getMessage());
            }
        }
        Random random = new Random(1);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[random.nextInt(64)];
            random.nextBytes(junk);
            try {
                RowKeySchema.parseFrom(junk);
            } catch (IllegalArgumentException expected) {
                // the only acceptable failure
            }
        }
    }
}
