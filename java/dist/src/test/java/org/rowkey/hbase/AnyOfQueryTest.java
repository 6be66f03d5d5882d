package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;

/** An {@link RowKeyQuery#anyOf} query as one OR comparator, one union plan and one scan; no cluster. */
class AnyOfQueryTest {
    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").build();

    private byte[] key(int a, int b) {
        Map<String, Object> row = new HashMap<>();
        row.put("a", a);
        row.put("b", b);
        return schema.encode(row);
    }

    private RowKeyQuery aIs1OrBIs7() {
        return RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("a", 1), RowKeyQuery.on(schema).eq("b", 7).ge("a", 5));
    }

    @Test
    void theSpecHoldsEachBranchAndTheComparatorMatchesAnyOfThem() throws Exception {
        PredicateComparatorSpec spec = aIs1OrBIs7().toComparatorSpec().getPredicate();
        assertFalse(spec.hasPredicate(), "the branches alone");
        assertEquals(2, spec.getAnyOfCount());
        assertEquals(2, spec.getAnyOf(1).getConditionsCount());
        try (PredicateComparator or = aIs1OrBIs7().toComparator()) {
            for (int a = -2; a < 9; a++) {
                for (int b = 5; b < 9; b++) {
                    byte[] k = key(a, b);
                    boolean expected = a == 1 || b == 7 && a >= 5;
                    assertEquals(expected ? 0 : 1, or.compareTo(k, 0, k.length), a + ", " + b);
                }
            }
            try (PredicateComparator again = PredicateComparator.parseFrom(or.toByteArray())) {
                assertArrayEquals(or.toByteArray(), again.toByteArray());
                assertEquals(ComparatorSpec.KindCase.PREDICATE, ComparatorSpec.parseFrom(again.toByteArray()).getKindCase());
            }
            assertTrue(or.toString().contains("(a = 1) OR (b = 7 AND a >= 5)"), or.toString());
        }
        // anyOf of one query is that query's predicate.
        assertTrue(RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("a", 1)).toComparatorSpec().getPredicate().hasPredicate());
    }

    @Test
    void explainShowsTheBranchesAndTheirUnion() {
        String explain = aIs1OrBIs7().explain();
        assertTrue(explain.contains("UNION of 2 AND-branches, read by one scan"), explain);
        assertTrue(explain.contains("branch 1: a = 1: 1 range(s)"), explain);
        assertTrue(explain.contains("branch 2: b = 7 AND a >= 5: 1 range(s)"), explain);
        assertTrue(explain.contains("RANGE SCAN over 2 key range(s)"), explain);
        assertTrue(explain.contains("estimated rows read: at most"), explain);
    }

    @Test
    void toScanReadsTheUnionOfTheRangesWithOneFilter() {
        Scan scan = aIs1OrBIs7().toScan();
        assertArrayEquals(java.util.Arrays.copyOf(key(1, 0), 4), scan.getStartRow(), "from the prefix a = 1");
        assertEquals(0, scan.getStopRow().length, "a >= 5 runs to the end of the table");
        Filter filter = scan.getFilter();
        assertInstanceOf(FilterList.class, filter);
        List<Filter> filters = ((FilterList) filter).getFilters();
        assertInstanceOf(MultiRowRangeFilter.class, filters.get(0));
        assertTrue(filters.get(1) instanceof SkipScanFilter || filters.get(1) instanceof RowFilter, filters.toString());
        List<MultiRowRangeFilter.RowRange> ranges = aIs1OrBIs7().toRanges();
        assertEquals(2, ranges.size());
        // A branch with no condition on the leading field makes the union the whole table.
        List<MultiRowRangeFilter.RowRange> full = RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("a", 1),
                RowKeyQuery.on(schema).eq("b", 7)).toRanges();
        assertEquals(1, full.size());
        assertEquals(0, full.get(0).getStartRow().length);
        assertEquals(0, full.get(0).getStopRow().length);
    }
}
