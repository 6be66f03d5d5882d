package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.hadoop.hbase.ByteBufferKeyValue;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;
import org.apache.hadoop.hbase.filter.HintingFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@link SkipScanFilter} without a cluster: its decisions row by row, both directions, and the
 * {@code HintingFilter} marker: present on the filter the RegionServer rebuilds where HBase has
 * the interface (2.6.1+), absent, with the filter still loading and seeking, where it does not
 * (2.4, 2.5: simulated by a class loader that hides the interface).
 */
class SkipScanFilterTest {
    private static final String MARKER = "org.apache.hadoop.hbase.filter.HintingFilter";
    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").build();

    private byte[] key(int a, int b) {
        return schema.encode(TestData.map("a", a, "b", b));
    }

    private static KeyValue cell(byte[] row) {
        return new KeyValue(row, Bytes.toBytes("f"), Bytes.toBytes("q"), row);
    }

    @Test
    void keepsMatchesAndSeeksPastRunsOfFailingRows() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5))) {
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(3, 5))));
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(3, 5))), "every cell of a kept row");
            // The first failing row short of (7, 5) moves on by a row, the second seeks there.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(3, 6))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(4, 0))));
            assertEquals(Bytes.toHex(key(7, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
            assertFalse(f.filterAllRemaining());
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(7, 6))), "nothing can match after it");
            assertTrue(f.filterAllRemaining());
            assertTrue(f.filterRowKey(cell(key(8, 0))));
        }
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5))) {
            // Foreign keys of other lengths are rows like any other.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(new byte[] {1})));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9})));
            assertEquals(Bytes.toHex(key(3, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
        }
    }

    @Test
    void filtersParsedFromTheSameBytesShareOneCompiledStateAndKeepTheirOwnScanState() throws Exception {
        byte[] bytes;
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5))) {
            bytes = f.toByteArray();
        }
        SkipScanFilter first = SkipScanFilter.parseFrom(bytes);
        SkipScanFilter second = SkipScanFilter.parseFrom(bytes.clone());
        assertSame(first.seeker(), second.seeker(), "one compile for every region scan of the same bytes");
        // Each filter has its own run of failing rows: the first seeks from its second, the other does not yet.
        assertEquals(ReturnCode.NEXT_ROW, first.filterCell(cell(key(3, 6))));
        assertEquals(ReturnCode.INCLUDE, second.filterCell(cell(key(3, 5))));
        assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, first.filterCell(cell(key(4, 0))));
        assertEquals(ReturnCode.NEXT_ROW, second.filterCell(cell(key(4, 0))));
        first.close();
        assertEquals(ReturnCode.INCLUDE, second.filterCell(cell(key(7, 5))), "closing one leaves the others working");
        assertSame(second.seeker(), SkipScanFilter.parseFrom(bytes).seeker());
    }

    @Test
    void aFilterMadeToBeSentParsesToTheSameFilterAndCompilesHereOnlyWhenUsed() throws Exception {
        RowKeyQuery q = RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5);
        SkipScanFilter sent = SkipScanFilter.toSend(schema.spec(), q.toPredicateComparatorSpec());
        assertTrue(sent.toString().contains("to send"), sent.toString());
        try (SkipScanFilter compiled = new SkipScanFilter(q)) {
            assertArrayEquals(compiled.toByteArray(), SkipScanFilter.parseFrom(sent.toByteArray()).toByteArray());
        }
        assertEquals(ReturnCode.INCLUDE, sent.filterCell(cell(key(3, 5))));
        assertEquals(ReturnCode.NEXT_ROW, sent.filterCell(cell(key(3, 6))));
        assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, sent.filterCell(cell(key(4, 0))));
        assertEquals(Bytes.toHex(key(7, 5)), Bytes.toHex(CellUtil.cloneRow(sent.getNextCellHint(null))));
        sent.close();
    }

    @Test
    void theSharedCompiledStatesAreBounded() throws Exception {
        for (int i = 0; i < KeySeeker.PARSED_KEPT + 10; i++) {
            try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("a", 1000 + i))) {
                assertEquals(ReturnCode.INCLUDE, SkipScanFilter.parseFrom(f.toByteArray()).filterCell(cell(key(1000 + i, 0))));
            }
        }
        assertTrue(KeySeeker.parsedKept() <= KeySeeker.PARSED_KEPT, KeySeeker.parsedKept() + " kept");
        assertThrows(DeserializationException.class, () -> SkipScanFilter.parseFrom(new byte[] {1, 2, 3}));
    }

    @Test
    void aNewNextKeyStartsANewRun() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5))) {
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(3, 6))));
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(7, 5))), "a kept row ends the run");
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(2, 9))), "an earlier row is not part of the run");
        }
    }

    @Test
    void rowsThatEachFailTowardsTheirOwnNextKeyStopTheNativeCallsForAWhile() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            // (i, 6) fails towards (i + 1, 5), which the next row already passes: no seek pays.
            int a = 0;
            for (; a < SeekPolicy.USELESS_TARGETS + 1; a++) {
                assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "row " + a);
            }
            // Backing off for one row: a run short of (100, 5) seeks only from its third row on.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(100, 0))));
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(100, 1))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(100, 2))));
            assertEquals(Bytes.toHex(key(100, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
        }
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            int a = 0;
            for (; a < SeekPolicy.USELESS_TARGETS + 2; a++) {
                assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "row " + a); // backs off for one row
            }
            // The probe after the back-off: one more useless next key starts a back-off of two rows.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))));
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a + 1, 6))));
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(100, 0))), "backing off");
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(100, 1))), "backing off");
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(100, 2))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(100, 3))));
            assertEquals(Bytes.toHex(key(100, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
        }
    }

    /**
     * One row as a RegionServer reads it: reset, filterRowKey, then filterCell on its first cell
     * even when filterRowKey dropped the row (HBase's cell matcher still sees that cell while it
     * moves past the row). The filterCell answer, or null when the row was dropped.
     */
    private static ReturnCode asHBaseReads(SkipScanFilter f, byte[] row) {
        f.reset();
        boolean dropped = f.filterRowKey(cell(row));
        ReturnCode code = f.filterCell(cell(row));
        if (dropped) {
            assertEquals(ReturnCode.NEXT_ROW, code, "a dropped row's cells");
            return null;
        }
        return code;
    }

    @Test
    void aRowDroppedByFilterRowKeyIsNotDecidedAgainForItsCells() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            int a = 0;
            for (; a < SeekPolicy.USELESS_TARGETS + 1; a++) {
                assertEquals(null, asHBaseReads(f, key(a, 6)), "row " + a);
            }
            // Backing off for one row, as when only filterCell is asked (above): the second cell
            // call of a dropped row does not use the back-off up, nor decide the row again.
            assertEquals(null, asHBaseReads(f, key(100, 0)));
            assertEquals(null, asHBaseReads(f, key(100, 1)));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, asHBaseReads(f, key(100, 2)));
            assertEquals(Bytes.toHex(key(100, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
            assertEquals(ReturnCode.INCLUDE, asHBaseReads(f, key(100, 5)));
        }
    }

    @Test
    void longRunsSeekFromTheFirstFailingRowUntilAProbeFindsShortOnes() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            int a = 0;
            // Runs of failing rows short of (a, 5): the second row of each seeks.
            for (; a < SeekPolicy.USEFUL_TARGETS; a++) {
                assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 0))), "row " + a);
                assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 1))), "row " + a);
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
            }
            // Runs proved long: the first failing row seeks.
            for (int t = 1; t < SeekPolicy.PROBE_EVERY; t++, a++) {
                assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 0))), "row " + a);
                assertEquals(Bytes.toHex(key(a, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
            }
            // A probe waits for a second failing row; here the next row already reaches (a + 1, 5).
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "the probe");
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a + 1, 5))));
            // Runs are short again: the first failing row moves on by a row.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a + 1, 6))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a + 2, 0))));
        }
    }

    @Test
    void probesGetRarerWhileTheyFindRunsLongAndFrequentAgainOnceOneFindsThemShort() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            int a = 0;
            for (int t = 0; t < SeekPolicy.USEFUL_TARGETS; t++, a++) {
                longRunSeekingFromTheSecondRow(f, a);
            }
            // Each probe that finds the run long doubles the interval, up to MAX_PROBE_EVERY.
            int every = SeekPolicy.PROBE_EVERY;
            for (int probe = 0; probe < 6; probe++) {
                for (int t = 1; t < every; t++, a++) {
                    assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 0))), "row " + a + ", interval " + every);
                    assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
                }
                assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 0))), "the probe after " + every + " next keys");
                assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 1))));
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
                a++;
                every = Math.min(SeekPolicy.MAX_PROBE_EVERY, 2 * every);
            }
            assertEquals(SeekPolicy.MAX_PROBE_EVERY, every);
            for (int t = 1; t < every; t++, a++) {
                assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 0))), "row " + a);
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
            }
            // A probe that finds a short run: seeking from the second row again, and once runs
            // prove long again, the first probe comes after PROBE_EVERY next keys.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "the probe");
            a++;
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
            a++;
            for (int t = 0; t < SeekPolicy.USEFUL_TARGETS; t++, a++) {
                longRunSeekingFromTheSecondRow(f, a);
            }
            for (int t = 1; t < SeekPolicy.PROBE_EVERY; t++, a++) {
                assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 0))), "row " + a);
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
            }
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 0))), "the probe, PROBE_EVERY next keys on");
        }
    }

    /** A run of failing rows short of (a, 5) before seeking from the first is proved worth it. */
    private void longRunSeekingFromTheSecondRow(SkipScanFilter f, int a) {
        assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 0))), "row " + a);
        assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a, 1))), "row " + a);
        assertEquals(Bytes.toHex(key(a, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
        assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a, 5))));
    }

    @Test
    void theNativeSeekWritesTheKeyIntoTheCallersArrayAndRefusesBadArgumentsWithExceptions() {
        long handle = KeySeeker.nativeParse(new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5)).toByteArray());
        try {
            byte[] out = new byte[8];
            byte[] row = Bytes.add(new byte[] {9}, key(3, 6), new byte[] {9});
            assertEquals(8, KeySeeker.nativeSeekInto(handle, row, 1, 8, false, out));
            assertEquals(Bytes.toHex(key(7, 5)), Bytes.toHex(out));
            assertEquals(8, KeySeeker.nativeSeekInto(handle, row, 1, 8, true, out));
            assertEquals(Bytes.toHex(key(3, 5)), Bytes.toHex(out));
            assertEquals(-1, KeySeeker.nativeSeekInto(handle, key(7, 5), 0, 8, false, out), "nothing after the last match");
            // A row longer than a key: its first 8 bytes and its being longer decide.
            assertEquals(8, KeySeeker.nativeSeekInto(handle, row, 1, 9, true, out));
            assertEquals(Bytes.toHex(key(3, 5)), Bytes.toHex(out));
            assertEquals(8, KeySeeker.nativeSeekInto(handle, Bytes.add(key(3, 5), new byte[] {0}), 0, 9, false, out));
            assertEquals(Bytes.toHex(key(7, 5)), Bytes.toHex(out));

            assertThrows(ArrayIndexOutOfBoundsException.class, () -> KeySeeker.nativeSeekInto(handle, row, 0, 8, false, new byte[7]));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> KeySeeker.nativeSeekInto(handle, row, 3, 8, false, out));
            assertThrows(NullPointerException.class, () -> KeySeeker.nativeSeekInto(handle, null, 0, 8, false, out));
            assertThrows(NullPointerException.class, () -> KeySeeker.nativeSeekInto(handle, row, 0, 8, false, null));
            assertThrows(IllegalArgumentException.class, () -> KeySeeker.nativeSeekInto(handle, row, -1, 8, false, out));
            assertThrows(IllegalArgumentException.class, () -> KeySeeker.nativeSeekInto(handle, row, 0, -1, false, out));
            assertThrows(IllegalStateException.class, () -> KeySeeker.nativeSeekInto(0, row, 0, 8, false, out), "a closed filter");
        } finally {
            KeySeeker.nativeFree(handle);
        }
    }

    @Test
    void keptRowsBetweenFailingRowsDoNotHideThatSeeksDoNotPay() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            // Alternating kept and failing rows, one per leading value: each failing row's next
            // key is the next row's. After USELESS_TARGETS of them the filter stops asking.
            int a = 0;
            for (int t = 0; t < SeekPolicy.USELESS_TARGETS; t++, a += 2) {
                assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "row " + a);
                assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(a + 1, 5))));
            }
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a, 6))), "backing off");
            // Backing off for one row: a run short of (a + 1, 5) seeks only from its third row on.
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a + 1, 0))));
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(a + 1, 1))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(a + 1, 2))));
        }
    }

    /** {@code row}'s cell in a direct buffer, at an offset: how HBase hands out off-heap cells. */
    private static ByteBufferKeyValue offHeapCell(byte[] row) {
        byte[] kv = cell(row).getBuffer();
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocateDirect(kv.length + 7);
        buf.position(7);
        buf.put(kv);
        return new ByteBufferKeyValue(buf, 7, kv.length);
    }

    @Test
    void backingOffDecidesInPlaceTheSameForHeapAndOffHeapCells() {
        // One row per leading value, b <= 5, 1 in 6 kept: each failing row's next key is the next
        // row's or before it, so no seek ever pays and the filter backs off, deciding rows in place.
        Random random = new Random(11);
        List<byte[]> rows = new ArrayList<>();
        for (int a = 0; a < 5_000; a++) {
            rows.add(key(a, random.nextInt(6)));
        }
        try (SkipScanFilter heap = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5));
             SkipScanFilter offHeap = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 5))) {
            int kept = 0;
            for (byte[] row : rows) {
                boolean wanted = Bytes.equals(row, 4, 4, key(0, 5), 4, 4);
                // As HBase asks: filterRowKey first, then filterCell for each cell of a row it keeps.
                boolean droppedHeap = heap.filterRowKey(cell(row));
                assertEquals(droppedHeap, offHeap.filterRowKey(offHeapCell(row)), Bytes.toHex(row));
                if (!droppedHeap) {
                    for (int c = 0; c < 2; c++) {
                        ReturnCode code = heap.filterCell(cell(row));
                        assertEquals(code, offHeap.filterCell(offHeapCell(row)), Bytes.toHex(row));
                        assertEquals(wanted, code == ReturnCode.INCLUDE, Bytes.toHex(row));
                    }
                }
                assertTrue(!wanted || !droppedHeap, Bytes.toHex(row));
                kept += wanted ? 1 : 0;
            }
            assertTrue(kept > 600, kept + " rows kept");
        }
    }

    @Test
    void rowsSharingAKeptRowsDecidingBytesAreKeptAndOnlyThose() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("a", 3))) {
            // Only a is constrained: a kept row's first 4 bytes decide the rows after it.
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(3, -5))));
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(3, 7))));
            byte[] longer = Bytes.add(key(3, 8), new byte[] {0});
            assertTrue(f.filterCell(cell(longer)) != ReturnCode.INCLUDE, "a key of another length");
            assertTrue(f.filterCell(cell(key(4, 0))) != ReturnCode.INCLUDE);
            assertTrue(f.filterAllRemaining(), "no key after (4, 0) can match");
        }
    }

    @Test
    void reversedSeeksToThePreviousKeyThatCanMatch() {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).in("a", 3, 7).eq("b", 5))) {
            f.setReversed(true);
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(7, 4))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, f.filterCell(cell(key(6, 9))));
            assertEquals(Bytes.toHex(key(3, 5)), Bytes.toHex(CellUtil.cloneRow(f.getNextCellHint(null))));
            assertEquals(ReturnCode.INCLUDE, f.filterCell(cell(key(3, 5))));
            assertEquals(ReturnCode.NEXT_ROW, f.filterCell(cell(key(3, 4))));
            assertTrue(f.filterAllRemaining());
        }
    }

    @Test
    void theRebuiltFilterCarriesTheMarkerWhereHBaseHasIt() throws Exception {
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 1));
             SkipScanFilter parsed = SkipScanFilter.parseFrom(f.toByteArray())) {
            // The client's instance serializes under the public class name, which loads everywhere.
            assertEquals(SkipScanFilter.class, f.getClass());
            assertTrue(parsed instanceof HintingFilter, parsed.getClass().getName());
            assertEquals(Bytes.toHex(f.toByteArray()), Bytes.toHex(parsed.toByteArray()));
            assertEquals(f.toString(), parsed.toString());
        }
    }

    @Test
    void loadsAndSeeksOnAnHBaseWithoutTheMarker() throws Throwable {
        byte[] bytes;
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(schema).eq("b", 1))) {
            bytes = f.toByteArray();
        }
        try (URLClassLoader loader = new URLClassLoader(
                new java.net.URL[] {NativeLibraryLoadingTest.ourClassPathEntry()},
                new FreshLoaders.Hiding(getClass().getClassLoader(), "org.rowkey.hbase.", "native.", MARKER))) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(MARKER, false, loader));
            Method parseFrom = Class.forName("org.rowkey.hbase.SkipScanFilter", true, loader).getMethod("parseFrom", byte[].class);
            Filter parsed = (Filter) parseFrom.invoke(null, (Object) bytes);
            assertEquals("org.rowkey.hbase.SkipScanFilter", parsed.getClass().getName());
            assertEquals(ReturnCode.NEXT_ROW, parsed.filterCell(cell(key(2, 2))));
            assertEquals(ReturnCode.SEEK_NEXT_USING_HINT, parsed.filterCell(cell(key(2, 3))));
            assertEquals(Bytes.toHex(key(3, 1)), Bytes.toHex(CellUtil.cloneRow(parsed.getNextCellHint(null))));
            assertEquals(ReturnCode.INCLUDE, parsed.filterCell(cell(key(3, 1))));
            ((AutoCloseable) parsed).close();
        }
    }
}
