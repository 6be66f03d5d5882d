package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@link RowBudgetFilter} decided as a RegionServer decides a region's rows, against an oracle: the
 * wrapped filter's rows among the first {@code budget}, then one marker row (the next row with a
 * cell) when rows are left, then nothing.
 */
class RowBudgetFilterTest {
    private static final byte[] FAMILY = Bytes.toBytes("f");

    /** A row of {@code cells} cells (0: a row whose cells are all deleted; the scanner shows none). */
    private static List<Cell> row(int key, int cells) {
        List<Cell> out = new ArrayList<>();
        for (int q = 0; q < cells; q++) {
            out.add(new KeyValue(Bytes.toBytes(key), FAMILY, Bytes.toBytes("q" + q), 1L, Bytes.toBytes(q)));
        }
        return out;
    }

    /**
     * The rows a region scan returns through {@code filter}, the calls made as RegionScannerImpl and
     * StoreScanner make them: reset per row, filterAllRemaining, filterRowKey, filterCell (for a
     * dropped row too, its first cell) and transformCell of what is included, filterRow.
     */
    static List<Result> scan(Filter filter, List<List<Cell>> rows) throws IOException {
        List<Result> out = new ArrayList<>();
        for (List<Cell> cells : rows) {
            filter.reset();
            if (filter.filterAllRemaining()) {
                break;
            }
            Cell first = cells.isEmpty() ? new KeyValue(rowOf(rows, cells), FAMILY, null, 1L, KeyValue.Type.Delete) : cells.get(0);
            if (filter.filterRowKey(first)) {
                if (!cells.isEmpty()) {
                    filter.filterCell(first); // what HBase does with a dropped row's first cell
                }
                continue;
            }
            List<Cell> kept = new ArrayList<>();
            for (Cell c : cells) {
                ReturnCode rc = filter.filterCell(c);
                if (rc == ReturnCode.INCLUDE || rc == ReturnCode.INCLUDE_AND_NEXT_COL || rc == ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW) {
                    kept.add(filter.transformCell(c));
                }
                if (rc == ReturnCode.NEXT_ROW || rc == ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW || rc == ReturnCode.SEEK_NEXT_USING_HINT) {
                    break;
                }
            }
            if (filter.hasFilterRow()) {
                filter.filterRowCells(kept);
            }
            if (!kept.isEmpty() && !filter.filterRow()) {
                out.add(Result.create(kept));
            }
        }
        return out;
    }

    private static byte[] rowOf(List<List<Cell>> rows, List<Cell> cells) {
        return Bytes.toBytes(rows.indexOf(cells) * 1000 + 999_999); // a deleted row's key; never compared here
    }

    /** Keeps exactly the rows of {@code keys}: the wrapped filter of the tests. */
    private static Filter keeping(TreeSet<Integer> keys) {
        List<Filter> rows = new ArrayList<>();
        for (int k : keys) {
            rows.add(new RowFilter(CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes(k))));
        }
        rows.add(new RowFilter(CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes("none"))));
        return new FilterList(FilterList.Operator.MUST_PASS_ALL,
                new FilterList(FilterList.Operator.MUST_PASS_ONE, rows), new FirstKeyOnlyFilter());
    }

    @Test
    void aRegionsRowsAreTheKeptOnesWithinTheBudgetThenOneMarkerRow() throws Exception {
        Random random = new Random(42);
        for (int trial = 0; trial < 2000; trial++) {
            int size = random.nextInt(40);
            List<List<Cell>> rows = new ArrayList<>();
            List<Integer> keys = new ArrayList<>();
            TreeSet<Integer> kept = new TreeSet<>();
            for (int i = 0; i < size; i++) {
                int cells = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(3);
                rows.add(row(i, cells));
                keys.add(cells == 0 ? -1 : i);
                if (cells > 0 && random.nextInt(4) == 0) {
                    kept.add(i);
                }
            }
            int budget = 1 + random.nextInt(30);
            boolean twice = random.nextBoolean();
            RowBudgetFilter filter = new RowBudgetFilter(keeping(kept), budget);
            Filter under = twice ? RowBudgetFilter.parseFrom(filter.toByteArray()) : filter;

            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < Math.min(budget, size); i++) {
                if (kept.contains(i)) {
                    expected.add(i);
                }
            }
            Integer marker = null;
            for (int i = budget; i < size && marker == null; i++) {
                if (keys.get(i) >= 0) {
                    marker = i;
                }
            }
            List<Result> got = scan(under, rows);
            String what = "trial " + trial + ": budget " + budget + ", rows " + keys + ", kept " + kept;
            List<Integer> plain = new ArrayList<>();
            for (Result r : got) {
                if (!RowBudgetFilter.isEnd(r)) {
                    plain.add(Bytes.toInt(r.getRow()));
                }
            }
            assertEquals(expected, plain, what);
            if (marker == null) {
                assertTrue(got.isEmpty() || !RowBudgetFilter.isEnd(got.get(got.size() - 1)), what + ": no marker");
            } else {
                Result last = got.get(got.size() - 1);
                assertTrue(RowBudgetFilter.isEnd(last), what + ": the last row is the marker");
                assertEquals((int) marker, Bytes.toInt(last.getRow()), what);
                assertEquals(1, last.rawCells().length, what);
            }
        }
    }

    @Test
    void aKeptRowIsNeverTakenForTheMarker() throws IOException {
        Result kept = scan(new RowBudgetFilter(keeping(new TreeSet<>(Arrays.asList(0))), 5), Arrays.asList(row(0, 2))).get(0);
        assertFalse(RowBudgetFilter.isEnd(kept));
    }

    @Test
    void reversedReachesTheWrappedFilter() {
        Filter inner = new FirstKeyOnlyFilter();
        new RowBudgetFilter(inner, 3).setReversed(true);
        assertTrue(inner.isReversed());
    }

    @Test
    void badArgumentsAreRefusedByName() {
        assertThrows(IllegalArgumentException.class, () -> new RowBudgetFilter(null, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RowBudgetFilter(new FirstKeyOnlyFilter(), 0));
        assertTrue(e.getMessage().contains("budget"), e.getMessage());
    }

    @Test
    void corruptBytesAreADeserializationExceptionNeverAnythingElse() throws Exception {
        byte[] good = new RowBudgetFilter(keeping(new TreeSet<>(Arrays.asList(1, 5))), 100).toByteArray();
        assertThrows(DeserializationException.class, () -> RowBudgetFilter.parseFrom(null));
        for (int length = 0; length < good.length; length++) {
            parsesOrRefuses(Arrays.copyOf(good, length), length < 5);
        }
        for (int bit = 0; bit < good.length * 8; bit++) {
            byte[] flipped = good.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            parsesOrRefuses(flipped, bit < 8);
        }
        byte[] zeroBudget = good.clone();
        Arrays.fill(zeroBudget, 1, 5, (byte) 0);
        DeserializationException e = assertThrows(DeserializationException.class, () -> RowBudgetFilter.parseFrom(zeroBudget));
        assertTrue(e.getMessage().contains("budget"), e.getMessage());
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] noise = new byte[random.nextInt(64)];
            random.nextBytes(noise);
            parsesOrRefuses(noise, false);
        }
        RowBudgetFilter back = RowBudgetFilter.parseFrom(good);
        assertArrayEquals(good, back.toByteArray());
    }

    /** Either a filter that decides rows, or a DeserializationException; {@code mustRefuse}: the latter. */
    private static void parsesOrRefuses(byte[] bytes, boolean mustRefuse) throws IOException {
        RowBudgetFilter f;
        try {
            f = RowBudgetFilter.parseFrom(bytes);
        } catch (DeserializationException expected) {
            return;
        }
        assertFalse(mustRefuse, "accepted " + Bytes.toStringBinary(bytes));
        try {
            scan(f, Arrays.asList(row(1, 1), row(2, 1)));
        } catch (IOException | RuntimeException e) {
            // a wrapped filter HBase rebuilt may refuse rows its own way; never an Error
        }
    }
}
