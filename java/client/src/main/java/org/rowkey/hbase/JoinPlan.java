package org.rowkey.hbase;

import java.util.Collections;
import java.util.List;

import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.KeyRange;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;

/**
 * How {@link RowKeyTable#scan} answers a query with {@link KeyStream}s (docs/joins.md): a union of
 * AND-branches, each the relay of its streams (each filtered with the whole branch, taking turns) or,
 * under {@link RowKeyQuery#leapfrog()}, their leapfrog intersection (smallest estimate first: it leads),
 * and the one data-table scan ({@link #dataScan}) of the branches no stream fixes a condition of,
 * each row matched against their OR; then the first {@link #limit}
 * keys, in data-key order or, {@link #reversed}, its reverse. Made by {@link JoinPlanner}; immutable.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class JoinPlan {
    /** One combination of the stream fields' values: its key ranges (one per salt bucket). */
    static final class Point {
        final List<Condition> equalities;
        final List<KeyRange> ranges;

        Point(List<Condition> equalities, List<KeyRange> ranges) {
            this.equalities = equalities;
            this.ranges = ranges;
        }
    }

    /** A source whose fixed fields make each of its ranges a run of data keys in data-key order. */
    static final class Stream {
        /** The index number, or -1 for the data table. */
        final int index;
        final List<Point> points;

        Stream(int index, List<Point> points) {
            this.index = index;
            this.points = points;
        }

        int ranges() {
            int n = 0;
            for (Point p : points) {
                n += p.ranges.size();
            }
            return n;
        }
    }

    static final class Branch {
        /** The branch's whole predicate, checked on every key the streams give. */
        final List<Condition> conditions;
        /**
         * In lead order: the smallest estimate first. Empty: the branch is read by {@link JoinPlan#dataScan}.
         * Without the leapfrog hint, the streams are relayed, each filtered with the whole branch.
         */
        final List<Stream> streams;
        /**
         * The streams are relayed with row budgets (the native planner's choice: two or more, no
         * leapfrog hint); else one stream, or the leapfrog intersection of several.
         */
        private final boolean relay;

        /**
         * Whether the streams' scans filter with the whole branch: a relay's do (index keys hold
         * every key field), a leapfrog's do not (their keys are what the followers seek among).
         */
        boolean filtersOnServer() {
            return relay || streams.size() == 1;
        }

        boolean relays() {
            return relay;
        }

        Branch(List<Condition> conditions, List<Stream> streams, boolean relay) {
            this.conditions = conditions;
            this.relay = relay;
            this.streams = Collections.unmodifiableList(streams);
        }
    }

    /**
     * The one data-table scan that reads every branch with no stream: the union of their plans'
     * ranges, each row matched against the OR of those branches in one native call (a single
     * such branch: its own plan and predicate).
     */
    static final class DataScan {
        /** The numbers (from 0) of the branches it reads. */
        final List<Integer> branches;
        /** Those branches' OR (one branch: that branch), for the scan's filter and the per-key check. */
        final RowKeyQuery query;
        final ScanPlan plan;

        DataScan(List<Integer> branches, RowKeyQuery query, ScanPlan plan) {
            this.branches = Collections.unmodifiableList(branches);
            this.query = query;
            this.plan = plan;
        }
    }

    final List<Branch> branches;
    /** 0: every row. */
    final int limit;
    /** Descending data-key order (reversed scans): the limit keeps the last rows by key. */
    final boolean reversed;
    /** The scan of the branches with no stream; null when every branch has streams. */
    final DataScan dataScan;
    private final String explain;

    JoinPlan(List<Branch> branches, int limit, boolean reversed, DataScan dataScan, String explain) {
        this.branches = Collections.unmodifiableList(branches);
        this.limit = limit;
        this.reversed = reversed;
        this.dataScan = dataScan;
        this.explain = explain;
    }

    /** What {@link RowKeyTable#explain} shows, written by the native planner: empty unless asked for. */
    String explain() {
        return explain;
    }
}
