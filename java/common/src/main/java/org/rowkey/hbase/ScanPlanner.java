package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.InvalidProtocolBufferException;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.client.Scan;

import org.rowkey.hbase.proto.RowKeyProtos.KeyRange;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlanRequest;

/**
 * Turns a query into the key ranges that can hold its rows (planned natively, see
 * {@code src/ranges/key_ranges.rs}) and a {@link Scan} that reads only those: one range as start/stop rows,
 * several through a {@link MultiRowRangeFilter} that seeks between them, and for what the ranges
 * do not enforce either the residual {@link PredicateComparator} or, where the plan says so, a
 * {@link SkipScanFilter} of the whole query, so the answer is exact.
 */
@RunsIn(RunsIn.Where.SHARED)
final class ScanPlanner {
    private ScanPlanner() {}

    /** A row key no schema's rows can equal: a scan of [{0}, {0, 0}) reads at most that one row. */
    private static final byte[] NOTHING_START = {0};
    private static final byte[] NOTHING_STOP = {0, 0};

    /** The filters that leave a row's first cell without its value: enough to tell the row exists. */
    static Filter keyOnly() {
        return new FilterList(FilterList.Operator.MUST_PASS_ALL, new FirstKeyOnlyFilter(), new KeyOnlyFilter());
    }

    /** The plan of {@code query}: of an {@code anyOf} query, the union of its branches' plans. */
    static ScanPlan plan(RowKeyQuery query, int maxRanges) {
        ScanPlanRequest request = ScanPlanRequest.newBuilder()
                .setQuery(query.toComparatorSpec())
                .setMaxRanges(maxRanges)
                .build();
        byte[] plan = RowKeyNative.planScan(request.toByteArray());
        try {
            return ScanPlan.parseFrom(plan);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the native planner returned an unreadable plan", e);
        }
    }

    static List<RowRange> ranges(ScanPlan plan) {
        List<RowRange> ranges = new ArrayList<>(plan.getRangesCount());
        for (KeyRange r : plan.getRangesList()) {
            ranges.add(new RowRange(r.getStart().toByteArray(), true, r.getStop().toByteArray(), false));
        }
        return ranges;
    }

    /**
     * The scan of a plan of {@code predicate} (the whole query, conditions by field name; an OR of
     * AND-branches for an {@code anyOf} query): with the
     * skip scan of the query over the plan's keys (the data table's, or an index's) when the plan
     * says so, else with the residual filter; with no filter where the plan needs none (an index
     * table's ranges that enforce every condition).
     */
    static Scan scan(ScanPlan plan, PredicateComparatorSpec predicate) {
        return scan(plan, predicate, ranges(plan));
    }

    /**
     * {@link #scan(ScanPlan, PredicateComparatorSpec)} of some of the plan's ranges ({@code ranges},
     * sorted, disjoint, within the plan's): one chunk of a {@link ParallelScanner}.
     */
    static Scan scan(ScanPlan plan, PredicateComparatorSpec predicate, List<RowRange> ranges) {
        return scan(plan, rowsFilter(plan, predicate), ranges);
    }

    /**
     * The filter every scan of {@code plan} checks rows with: the skip scan of {@code predicate}
     * or the residual filter; null where the ranges enforce every condition. Built once per
     * query and shared by the scans of its chunks: only its bytes leave the client (the skip scan
     * is not even compiled here, {@link SkipScanFilter#toSend}).
     */
    static Filter rowsFilter(ScanPlan plan, PredicateComparatorSpec predicate) {
        return plan.getNoResidual() ? null
                : plan.getSkipScan() ? SkipScanFilter.toSend(plan.getResidual().getSchema(), predicate)
                : new RowFilter(CompareOperator.EQUAL, residual(plan));
    }

    /** {@link #scan(ScanPlan, PredicateComparatorSpec, List)} with the plan's {@link #rowsFilter}, {@code rows}. */
    static Scan scan(ScanPlan plan, Filter rows, List<RowRange> ranges) {
        Scan scan = new Scan();
        if (ranges.isEmpty()) {
            // Nothing can match: read (at most) one row, which the residual filter drops.
            return scan.withStartRow(NOTHING_START, true).withStopRow(NOTHING_STOP, false)
                    .setFilter(new RowFilter(CompareOperator.EQUAL, residual(plan)));
        }
        scan.withStartRow(ranges.get(0).getStartRow(), true);
        byte[] stop = ranges.get(ranges.size() - 1).getStopRow();
        if (stop.length > 0) {
            scan.withStopRow(stop, false);
        }
        // The skip scan holds every condition, the ranges' too; MultiRowRangeFilter still seeks
        // from the first row after a range, where the skip scan would read one more.
        Filter between = ranges.size() == 1 ? null : new MultiRowRangeFilter(new ArrayList<>(ranges));
        return scan.setFilter(between == null ? rows
                : rows == null ? between : new FilterList(FilterList.Operator.MUST_PASS_ALL, between, rows));
    }

    /**
     * The plan of {@code predicate} as one filter for a scan that gives no start or stop row (a
     * filter-language scan, {@link RowKeyWhere}): what {@link #scan} reads, with the ranges as a
     * {@link MultiRowRangeFilter} that seeks to the first range of each region and between them,
     * and the rows filtered as there (the skip scan in the variant a RegionServer builds). Null
     * when no row can match.
     */
    static Filter regionFilter(ScanPlan plan, PredicateComparatorSpec predicate) {
        List<KeyRange> ranges = plan.getRangesList();
        if (ranges.isEmpty()) {
            return null;
        }
        Filter rows = plan.getNoResidual() ? null
                : plan.getSkipScan() ? serverSkipScan(plan, predicate)
                : new RowFilter(CompareOperator.EQUAL, residual(plan));
        boolean whole = ranges.size() == 1 && ranges.get(0).getStart().isEmpty() && ranges.get(0).getStop().isEmpty();
        MultiRowRangeFilter between = whole ? null : new MultiRowRangeFilter(ranges(plan));
        if (between == null || rows == null) {
            return between != null ? between : rows != null ? rows : new FilterList(FilterList.Operator.MUST_PASS_ALL);
        }
        // Not a FilterList: before HBASE-28622 (HBase 2.5.8) its AND drops the ranges' seek hint
        // when the rows' filter rejects a row outside the ranges (RangesThenRows).
        return new RangesThenRows(between, rows);
    }

    private static Filter serverSkipScan(ScanPlan plan, PredicateComparatorSpec predicate) {
        try {
            return SkipScanFilter.parseFrom(KeySeeker.spec(plan.getResidual().getSchema(), predicate));
        } catch (DeserializationException e) {
            throw new IllegalStateException("a skip scan filter does not read its own bytes", e);
        }
    }

    private static PredicateComparator residual(ScanPlan plan) {
        try {
            return PredicateComparator.parseFrom(plan.getResidual().toByteArray());
        } catch (DeserializationException e) {
            throw new IllegalStateException("the native planner returned an unreadable residual predicate", e);
        }
    }
}
