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
        final String source;
        final List<Condition> conditions;
        final List<Point> points;
        final double estimatedRows;

        Stream(int index, String source, List<Condition> conditions, List<Point> points, double estimatedRows) {
            this.index = index;
            this.source = source;
            this.conditions = conditions;
            this.points = points;
            this.estimatedRows = estimatedRows;
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
         * In lead order: the smallest estimate first. Empty: {@link #dataPlan} is read. Without the
         * leapfrog hint, the streams are relayed, each filtered with the whole branch.
         */
        final List<Stream> streams;
        /** Streams not used (their conditions are checked on the others' rows), for explain. */
        final List<Stream> leftOut;
        /** The data table's plan of the branch, when it has no stream. */
        final ScanPlan dataPlan;
        /** The streams are intersected by the leapfrog (the hint), not relayed. */
        final boolean leapfrog;

        /**
         * Whether the streams' scans filter with the whole branch: a relay's do (index keys hold
         * every key field), a leapfrog's do not (their keys are what the followers seek among).
         */
        boolean filtersOnServer() {
            return !leapfrog || streams.size() == 1;
        }

        /** Whether the streams are relayed with row budgets (more than one, no leapfrog hint). */
        boolean relays() {
            return !leapfrog && streams.size() > 1;
        }

        /** Estimated rows read, each data-row lookup counted as {@code source_choice::LOOKUP_COST} rows. */
        final double cost;

        Branch(List<Condition> conditions, List<Stream> streams, List<Stream> leftOut, ScanPlan dataPlan, boolean leapfrog,
                double cost) {
            this.conditions = conditions;
            this.leapfrog = leapfrog;
            this.streams = Collections.unmodifiableList(streams);
            this.leftOut = Collections.unmodifiableList(leftOut);
            this.dataPlan = dataPlan;
            this.cost = cost;
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

    private static void describe(StringBuilder s, String role, Stream st, RowKeySchema schema) {
        s.append("    ").append(role).append(' ').append(st.source).append(' ').append(RowKeyQuery.of(schema, st.conditions))
                .append(String.format(": ~%.0f keys, %d range(s)%n", st.estimatedRows, st.ranges()));
    }

    final List<Branch> branches;
    /** 0: every row. */
    final int limit;
    /** Descending data-key order (reversed scans): the limit keeps the last rows by key. */
    final boolean reversed;
    /** The scan of the branches with no stream; null when every branch has streams. */
    final DataScan dataScan;

    JoinPlan(List<Branch> branches, int limit, boolean reversed, DataScan dataScan) {
        this.branches = Collections.unmodifiableList(branches);
        this.limit = limit;
        this.reversed = reversed;
        this.dataScan = dataScan;
    }

    double cost() {
        double cost = 0;
        for (Branch b : branches) {
            cost += b.cost;
        }
        return cost;
    }

    /** What {@link RowKeyTable#explain} shows: each branch's streams in lead order with their estimates. */
    String explain(RowKeySchema schema) {
        StringBuilder s = new StringBuilder("JOIN: ");
        s.append(branches.size() == 1 ? "one AND-branch" : "union of " + branches.size() + " AND-branches (keys deduplicated)")
                .append(reversed ? ", rows in descending data-key order (reversed scans)" : ", rows in data-key order").append(limit > 0 ? ", stops after " + limit + " rows" : "")
                .append(String.format(" (estimated rows read: %.0f)%n", cost()));
        for (int i = 0; i < branches.size(); i++) {
            Branch b = branches.get(i);
            s.append("  branch ").append(i + 1).append(": ").append(RowKeyQuery.of(schema, b.conditions))
                    .append(String.format(" (estimated %.0f)%n", b.cost));
            if (b.streams.isEmpty()) {
                s.append("    no index or data-table prefix fixes a condition: ");
                if (dataScan.branches.size() == 1) {
                    s.append("DATA TABLE ").append(b.dataPlan.getExplain().trim().replace("\n", "\n      ")).append('\n');
                } else {
                    s.append("read by the one data-table scan below\n");
                }
                continue;
            }
            if (b.relays()) {
                s.append("    relay: each stream holds every match; in turn from the first, each reads on from where the last\n")
                        .append("    stopped (the server looking at a bounded number of rows per read) until one reaches its end:\n");
            } else if (b.streams.size() > 1) {
                s.append("    leapfrog intersection, in turn from the lead each seeks to the highest key:\n");
            }
            for (int j = 0; j < b.streams.size(); j++) {
                String role = b.streams.size() == 1 ? "stream" : b.relays() ? "turn " + (j + 1) : j == 0 ? "lead  " : "follow";
                describe(s, role, b.streams.get(j), schema);
            }
            if (b.filtersOnServer()) {
                s.append("    its index rows filtered with the whole branch on the server (they hold every key field)\n");
            }
            for (Stream st : b.leftOut) {
                describe(s, "not used (checked on the other streams' rows):", st, schema);
            }
            s.append("    each key is checked against the whole branch, then its data row read\n");
        }
        if (dataScan != null && dataScan.branches.size() > 1) {
            s.append("  one DATA TABLE scan for branches");
            for (int i : dataScan.branches) {
                s.append(' ').append(i + 1);
            }
            s.append(": ").append(dataScan.plan.getExplain().trim().replace("\n", "\n    ")).append('\n');
        }
        return s.toString();
    }
}
