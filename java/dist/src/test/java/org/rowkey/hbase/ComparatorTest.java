package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;

import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.junit.jupiter.api.Test;

class ComparatorTest {
    private final RowKeySchema schema = TestData.seedSchema();

    private byte[] row(String url, int code, int sdate, int type, boolean free) {
        return schema.encode(TestData.seedRow(url, code, sdate, type, free));
    }

    @Test
    void equalComparatorMatchesGivenFieldsOnly() {
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("sdate", 20161209, "code", 404))) {
            assertEquals(0, eq.compareTo(row("a", 404, 20161209, 1, false)));
            assertEquals(0, eq.compareTo(row("b", 404, 20161209, 2, true)));
            assertEquals(1, eq.compareTo(row("a", 404, 20161208, 1, false)));
            assertEquals(1, eq.compareTo(row("a", 500, 20161209, 1, false)));
            // wrong length never matches
            assertEquals(1, eq.compareTo(new byte[36]));
            assertEquals(1, eq.compareTo(new byte[0]));
        }
    }

    @Test
    void zeroNegativeAndFalseAreNotWildcards() {
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("type", 0, "free", false))) {
            assertEquals(0, eq.compareTo(row("a", 404, 1, 0, false)));
            assertEquals(1, eq.compareTo(row("a", 404, 1, 3, false)));
            assertEquals(1, eq.compareTo(row("a", 404, 1, 0, true)));
        }
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("sdate", -1))) {
            assertEquals(0, eq.compareTo(row("a", 404, -1, 0, false)));
            assertEquals(1, eq.compareTo(row("a", 404, 1, 0, false)));
        }
        try (EqualComparator any = new EqualComparator(schema, Collections.<String, Object>emptyMap())) {
            assertEquals(0, any.compareTo(row("a", 404, 1, 0, false)));
        }
    }

    @Test
    void equalityOnHashedFields() {
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("md5url", "http://x", "sitecode", "site-5"))) {
            assertEquals(0, eq.compareTo(row("http://x", 404, 1, 0, false))); // 404 % 7 == 5
            assertEquals(1, eq.compareTo(row("http://y", 404, 1, 0, false)));
        }
    }

    @Test
    void rangeComparatorIsSignOfValueMinusField() {
        int[] values = {Integer.MIN_VALUE, -100, -1, 0, 1, 20161201, Integer.MAX_VALUE};
        for (int c : values) {
            try (RangeComparator r = new RangeComparator(schema, "sdate", c)) {
                for (int f : values) {
                    assertEquals(Integer.signum(Integer.compare(c, f)), Integer.signum(r.compareTo(row("a", 1, f, 0, false))),
                            "value " + c + " vs field " + f);
                }
                // wrong length: as if below every value
                assertEquals(1, r.compareTo(new byte[3]));
            }
        }
    }

    @Test
    void rangeOnDescendingFieldIsInValueOrder() {
        RowKeySchema desc = RowKeySchema.builder().int64("n").descending().build();
        try (RangeComparator r = new RangeComparator(desc, "n", 10L)) {
            assertTrue(r.compareTo(desc.encode(TestData.map("n", 5L))) > 0);
            assertEquals(0, r.compareTo(desc.encode(TestData.map("n", 10L))));
            assertTrue(r.compareTo(desc.encode(TestData.map("n", Long.MAX_VALUE))) < 0);
            assertTrue(r.compareTo(desc.encode(TestData.map("n", Long.MIN_VALUE))) > 0);
        }
    }

    @Test
    void rangeOnHashedOrBoolFieldIsRefused() {
        for (String f : new String[] {"md5url", "sitecode", "free"}) {
            Object v = "free".equals(f) ? (Object) true : "x";
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RangeComparator(schema, f, v));
            assertTrue(e.getMessage().contains(f), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new RangeComparator(schema, "nope", 1))
                .getMessage().startsWith("unknown field 'nope'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new EqualComparator(schema, TestData.map("code", "x")))
                .getMessage().startsWith("field 'code': expected an integer number"));
    }

    @Test
    void predicateComparatorMatchesTheWholeQuery() {
        RowKeyQuery q = RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2);
        try (PredicateComparator p = q.toComparator()) {
            assertEquals(0, p.compareTo(row("a", 404, 20161201, 1, false)));
            assertEquals(0, p.compareTo(row("a", 404, 20161209, 2, false)));
            assertEquals(1, p.compareTo(row("a", 404, 20161210, 2, false)));
            assertEquals(1, p.compareTo(row("a", 404, 20161205, 3, false)));
            assertEquals(1, p.compareTo(row("a", 403, 20161205, 1, false)));
            assertEquals(1, p.compareTo(new byte[37 + 1]));
            assertEquals(p, new PredicateComparator(q));
        }
    }

    @Test
    void byteBufferOverloadReadsEveryKindOfBuffer() {
        byte[] match = row("a", 404, 20161209, 1, false);
        byte[] other = row("a", 404, 20161208, 1, false);
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("sdate", 20161209))) {
            for (byte[] r : new byte[][] {match, other}) {
                int expected = eq.compareTo(r);
                int pad = 5;
                byte[] padded = new byte[r.length + 2 * pad];
                System.arraycopy(r, 0, padded, pad, r.length);
                assertEquals(expected, eq.compareTo(padded, pad, r.length));

                ByteBuffer heap = ByteBuffer.wrap(padded);
                assertEquals(expected, eq.compareTo(heap, pad, r.length));
                // a slice: array offset != 0, positions relative to the slice
                heap.position(2);
                ByteBuffer slice = heap.slice();
                assertEquals(expected, eq.compareTo(slice, pad - 2, r.length));
                assertEquals(expected, eq.compareTo(heap.asReadOnlyBuffer(), pad, r.length));

                ByteBuffer direct = ByteBuffer.allocateDirect(padded.length);
                direct.put(padded);
                direct.flip();
                direct.position(3); // position and limit are ignored
                assertEquals(expected, eq.compareTo(direct, pad, r.length));
                assertEquals(expected, eq.compareTo(direct.asReadOnlyBuffer(), pad, r.length));
            }
        }
    }

    @Test
    void boundsAreChecked() {
        try (RangeComparator r = new RangeComparator(schema, "code", 1)) {
            byte[] row = new byte[37];
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(row, -1, 37));
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(row, 1, 37));
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(row, 0, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(row, Integer.MAX_VALUE, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(ByteBuffer.allocateDirect(10), 5, 6));
            assertThrows(IndexOutOfBoundsException.class, () -> r.compareTo(ByteBuffer.allocate(10), 0, 11));
            assertThrows(NullPointerException.class, () -> r.compareTo((byte[]) null, 0, 0));
        }
    }

    @Test
    void serializedFormRoundTrips() throws Exception {
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404));
             RangeComparator range = new RangeComparator(schema, "sdate", 20161201);
             PredicateComparator pred = RowKeyQuery.on(schema).ge("code", 400).lt("code", 500).toComparator()) {
            EqualComparator eq2 = EqualComparator.parseFrom(eq.toByteArray());
            RangeComparator range2 = RangeComparator.parseFrom(range.toByteArray());
            PredicateComparator pred2 = PredicateComparator.parseFrom(pred.toByteArray());
            assertEquals(eq, eq2);
            assertEquals(range, range2);
            assertEquals(pred, pred2);
            assertEquals(eq.hashCode(), eq2.hashCode());
            assertArrayEquals(eq.getValue(), eq.toByteArray());
            assertArrayEquals(eq.toByteArray(), eq2.toByteArray());
            assertNotSame(eq.getValue(), null);
            byte[] r = row("a", 404, 20161209, 1, false);
            assertEquals(eq.compareTo(r), eq2.compareTo(r));
            assertEquals(range.compareTo(r), range2.compareTo(r));
            assertEquals(pred.compareTo(r), pred2.compareTo(r));
            // same spec from a different map order: same canonical bytes
            assertEquals(new EqualComparator(schema, TestData.map("code", 404, "sdate", 1)),
                    new EqualComparator(schema, TestData.map("sdate", 1, "code", 404)));
            assertNotEquals(eq, new EqualComparator(schema, TestData.map("code", 405)));
            assertTrue(eq.toString().startsWith("EqualComparator{code = 404"), eq.toString());
            assertTrue(range.toString().contains("sdate"), range.toString());
            assertTrue(pred.toString().contains("code >= 400 AND code < 500"), pred.toString());
        }
    }

    @Test
    void parseFromGarbageIsAlwaysDeserializationException() throws Exception {
        byte[] valid;
        try (EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404, "free", true))) {
            valid = eq.toByteArray();
        }
        assertDeserialization(null, "EqualComparator");
        assertDeserialization(new byte[0], "EqualComparator");
        for (int n = 0; n < valid.length; n++) {
            assertDeserialization(Arrays.copyOf(valid, n), "EqualComparator");
        }
        // the wrong kind
        DeserializationException e = assertThrows(DeserializationException.class, () -> RangeComparator.parseFrom(valid));
        assertTrue(e.getMessage().contains("RangeComparator") && e.getMessage().contains("EqualComparator"), e.getMessage());
        assertThrows(DeserializationException.class, () -> PredicateComparator.parseFrom(valid));
        // random bytes and bit flips: a DeserializationException or a valid comparator, nothing else
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] junk;
            if (i % 2 == 0) {
                junk = new byte[random.nextInt(80)];
                random.nextBytes(junk);
            } else {
                junk = valid.clone();
                junk[random.nextInt(junk.length)] ^= (byte) (1 << random.nextInt(8));
            }
            try {
                EqualComparator.parseFrom(junk).close();
            } catch (DeserializationException expected) {
                // fine
            }
            try {
                RangeComparator.parseFrom(junk).close();
            } catch (DeserializationException expected) {
                // fine
            }
        }
    }

    private static void assertDeserialization(byte[] bytes, String what) {
        DeserializationException e = assertThrows(DeserializationException.class, () -> EqualComparator.parseFrom(bytes));
        assertTrue(e.getMessage().startsWith(what + ".parseFrom: "), e.getMessage());
    }

    @Test
    void closeOnceAndUseAfterClose() {
        long before = RowKeyNative.liveObjects();
        EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404));
        assertEquals(before + 1, RowKeyNative.liveObjects());
        eq.close();
        assertEquals(before, RowKeyNative.liveObjects());
        eq.close();
        assertEquals(before, RowKeyNative.liveObjects());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> eq.compareTo(new byte[37]));
        assertEquals("EqualComparator is closed", e.getMessage());
        assertThrows(IllegalStateException.class, () -> eq.compareTo(ByteBuffer.allocateDirect(37), 0, 37));
        // what needs no native call still works
        assertEquals(1, eq.compareTo(new byte[3]));
        assertTrue(eq.toString().endsWith(", closed}"), eq.toString());
        assertTrue(eq.toByteArray().length > 0);
    }

    @Test
    void queryToStringIsSqlLike() {
        RowKeyQuery q = RowKeyQuery.on(schema).eq("md5url", "it's").ne("code", 200).between("sdate", 1, 9)
                .in("type", Arrays.asList(1, 2)).le("queue", -1).gt("scantype", 0).eq("free", false).in("status");
        assertEquals("RowKeyQuery[md5url = 'it''s' AND code <> 200 AND sdate BETWEEN 1 AND 9 AND type IN (1, 2)"
                + " AND queue <= -1 AND scantype > 0 AND free = false AND status IN ()]", q.toString());
        assertEquals("RowKeyQuery[TRUE]", RowKeyQuery.on(schema).toString());
        RowKeyQuery base = RowKeyQuery.on(schema).eq("code", 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> base.in("type", 1, "x")).getMessage()
                .startsWith("field 'type': expected an integer number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> base.lt("nope", 1)).getMessage()
                .startsWith("unknown field 'nope'"));
        assertEquals("RowKeyQuery[code = 1]", base.toString()); // failed calls add nothing
        assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.on(schema).lt("md5url", "x").toComparator());
        assertEquals(schema, base.schema());
    }

    @Test
    void queryIsABuilderAndComparatorsSnapshotIt() {
        RowKeyQuery q = RowKeyQuery.on(schema);
        q.eq("code", 404); // the return value need not be used
        q.in("type", 1, 2);
        assertEquals("RowKeyQuery[code = 404 AND type IN (1, 2)]", q.toString());
        try (PredicateComparator before = q.toComparator()) {
            q.eq("sdate", 5);
            try (PredicateComparator after = q.toComparator()) {
                byte[] r = row("a", 404, 20161209, 1, false);
                assertEquals(0, before.compareTo(r));
                assertEquals(1, after.compareTo(r));
                assertNotEquals(before, after);
            }
        }
    }

    @Test
    void emptyInMatchesNothing() {
        try (PredicateComparator p = RowKeyQuery.on(schema).in("type").toComparator()) {
            assertEquals(1, p.compareTo(row("a", 1, 1, 1, false)));
        }
        Map<String, Object> none = Collections.emptyMap();
        try (PredicateComparator p = RowKeyQuery.on(schema).toComparator()) {
            assertEquals(0, p.compareTo(row("a", 1, 1, 1, false)));
            assertEquals(0, none.size());
        }
    }
}
