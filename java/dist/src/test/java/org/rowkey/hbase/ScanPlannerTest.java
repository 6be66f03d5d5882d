package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;

/**
 * The scans of a planned query's chunks share one row filter, built once per query: each chunk
 * sends exactly the scan it sent when every chunk built its own filter.
 */
class ScanPlannerTest {
    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").int32("c").build();

    @Test
    void chunksOfASkipScanPlanShareOneFilterAndSendTheSameScans() throws IOException {
        RowKeyQuery query = RowKeyQuery.on(schema).in("a", 1, 3, 5, 7).eq("c", 7);
        ScanPlan plan = ScanPlanner.plan(query, 1000);
        assertEquals(true, plan.getSkipScan(), "the plan of a condition after a free field skip-scans");
        assertChunksAsBefore(query, plan);
    }

    @Test
    void chunksOfAResidualPlanShareOneFilterAndSendTheSameScans() throws IOException {
        RowKeyQuery query = RowKeyQuery.on(schema).in("a", 1, 3, 5, 7).eq("b", 5);
        ScanPlan plan = ScanPlanner.plan(query, 1000);
        assertEquals(false, plan.getSkipScan(), "the ranges enforce every condition: the residual checks the key length");
        assertEquals(false, plan.getNoResidual());
        assertChunksAsBefore(query, plan);
    }

    @Test
    void aPlanWithoutResidualHasNoRowFilter() throws IOException {
        RowKeyQuery query = RowKeyQuery.on(schema).in("a", 1, 3, 5, 7);
        // An aggregate's plan: the fold checks the key length, so no residual filter is left.
        ScanPlan plan = Catalog.of(schema, java.util.Collections.emptyList(), IndexState.ACTIVE)
                .plan(QueryPlan.request(query, java.util.Collections.emptyList(), true, java.util.Collections.emptyList(), false,
                        false, true))
                .getSingle().getPlan();
        assertEquals(true, plan.getNoResidual());
        assertNull(ScanPlanner.rowsFilter(plan, query.toPredicateComparatorSpec()));
        assertChunksAsBefore(query, plan);
    }

    /** Two chunks (the first range; the rest): the shared filter's scans equal per-chunk-built ones. */
    private void assertChunksAsBefore(RowKeyQuery query, ScanPlan plan) throws IOException {
        List<RowRange> ranges = ScanPlanner.ranges(plan);
        assertEquals(4, ranges.size());
        Filter rows = ScanPlanner.rowsFilter(plan, query.toPredicateComparatorSpec());
        Scan first = null;
        for (List<RowRange> chunk : Arrays.asList(ranges.subList(0, 1), ranges.subList(1, ranges.size()))) {
            Scan shared = ScanPlanner.scan(plan, rows, chunk);
            Scan own = ScanPlanner.scan(plan, query.toPredicateComparatorSpec(), chunk);
            assertArrayEquals(ProtobufUtil.toScan(own).toByteArray(), ProtobufUtil.toScan(shared).toByteArray());
            if (first == null) {
                first = shared;
            } else if (rows != null) {
                assertSame(rowsOf(first), rowsOf(shared), "one filter instance for every chunk");
            }
        }
        if (rows != null) {
            assertNotNull(rowsOf(first));
        }
    }

    /** The row filter of a chunk's scan: the filter itself, or the last of its FilterList (after the ranges). */
    private static Filter rowsOf(Scan scan) {
        Filter f = scan.getFilter();
        return f instanceof FilterList ? ((FilterList) f).getFilters().get(((FilterList) f).getFilters().size() - 1) : f;
    }
}
