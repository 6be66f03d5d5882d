package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchPlan;
import org.rowkey.hbase.proto.RowKeyProtos.JoinPlan;
import org.rowkey.hbase.proto.RowKeyProtos.KeyStreamSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PlannedQuery;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.QueryPlanRequest;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The one plan of a query's rows on a {@link RowKeyTable}, one kind per way of reading them, as
 * the native planner decided ({@code PlannedQuery}; Phoenix's {@code QueryPlan} with its scan and
 * union plans is the model): the data table's ranges ({@link DataTableRead}), an index's ranges and
 * the data rows they point to ({@link IndexRead}), or joins of key streams ({@link Joins}: an
 * {@code anyOf}, a limit but a forward one on the data table, reversed through an index, the leapfrog, or the relay
 * of several streams). Each kind reads
 * ({@link #open}) and explains ({@link #explain}) itself from the same reply, so what is read and
 * what is shown cannot differ; {@link AggregatePlan} is the fourth kind, the regions folding.
 */
@RunsIn(RunsIn.Where.CLIENT)
abstract class QueryPlan {
    final Connection connection;
    final TableName table;
    final Catalog catalog;
    final RowKeyQuery query;

    private QueryPlan(Connection connection, TableName table, Catalog catalog, RowKeyQuery query) {
        this.connection = connection;
        this.table = table;
        this.catalog = catalog;
        this.query = query;
    }

    /** The plan of {@code planned}, the native planner's reply for {@code query}: the one place that turns a reply into a reader. */
    static QueryPlan of(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, PlannedQuery planned) {
        switch (planned.getReadCase()) {
            case JOINS:
                return new Joins(connection, table, catalog, query, planned.getJoins());
            case SINGLE:
                TablePlan single = planned.getSingle();
                return single.getIndexNumber() < 0 ? new DataTableRead(connection, table, catalog, query, single)
                        : new IndexRead(connection, table, catalog, query, single);
            default:
                throw new IllegalStateException("the native planner returned no read for " + query);
        }
    }

    /**
     * The native planner's request for {@code query}, reading {@code columns} (or keys only), for a
     * scan and an aggregate ({@code aggregate}) and their explain alike: the planner, not the
     * client, decides from it how the query is read. {@code families}: the data table's;
     * {@code dataCellsExpire}: one of them has a TTL (no index row answers alone). Its explain text
     * only when it is {@code toShow} (the text is a third of the native planner's work).
     */
    static QueryPlanRequest request(RowKeyQuery query, List<Column> columns, boolean keysOnly, List<ByteString> families,
            boolean dataCellsExpire, boolean toShow, boolean aggregate) {
        QueryPlanRequest.Builder request = QueryPlanRequest.newBuilder().setMaxRanges(query.maxRanges())
                .setNoExplain(!toShow).setAnyOf(query.isUnion()).setLimit(query.limit()).setReversed(query.isReversed())
                .setLeapfrog(query.isLeapfrog()).setAggregate(aggregate).addAllColumns(columns).setKeyOnly(keysOnly)
                .addAllFamilies(families).setDataCellsExpire(dataCellsExpire);
        for (List<Condition> branch : query.disjuncts()) {
            request.addBranches(PredicateSpec.newBuilder().addAllConditions(branch));
        }
        if (query.indexHint() != null) {
            request.setHint(query.indexHintKind()).setHintIndex(query.indexHint());
        }
        return request.build();
    }

    /** The rows of the query, read as planned. */
    abstract ResultScanner open() throws IOException;

    /**
     * The rows of the query, their reading already started where that reads the index rows alone
     * (no data row, nothing written, until the first {@code next}); else null. Rows read so may be
     * thrown away unread: {@link RowKeyTable#scan} starts them while it checks the catalog.
     */
    IndexResultScanner openReadingAhead() throws IOException {
        return null;
    }

    /** The plan in words: what is read, what is filtered where, every alternative's estimate, how reads run. */
    abstract String explain();

    /** Whether the plan reads an index table or joins key streams ({@link RowKeyTable#readsIndex}). */
    abstract boolean readsIndex();

    /**
     * Whether a table the plan reads is an index's: only then may another client's change of the
     * catalog (an index dropped, replaced, or a TTL set) change its rows, and only then is the
     * descriptor read again before and after the read (a call to the master each).
     */
    boolean readsIndexTable() {
        return readsIndex();
    }

    int parallelism() {
        return query.isSerial() ? 1 : ParallelScanner.threads(connection);
    }

    /** A single read: its ranges over its source, read a chunk of regions at a time by {@link ParallelScanner}. */
    private abstract static class SingleRead extends QueryPlan {
        final TablePlan plan;
        final List<RowRange> ranges;
        final ParallelScanner.Order order;

        SingleRead(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, TablePlan plan) {
            super(connection, table, catalog, query);
            this.plan = plan;
            this.ranges = ScanPlanner.ranges(plan.getPlan());
            // Reversed single reads are in data-key order (the planner's choice: the data table, or
            // an index whose keys sort as its data keys do, in each salt bucket of a salted one,
            // whose buckets are merged), descending, kept even when unordered, as the joins keep it.
            this.order = query.isReversed() ? ParallelScanner.Order.DESCENDING
                    : query.isUnordered() ? ParallelScanner.Order.ANY : ParallelScanner.Order.KEY;
        }

        /** The table the ranges are over. */
        abstract TableName source();

        /** A forward limit's read (the planner's): one scan, its regions one after another, stopped at the limit. */
        @Override
        int parallelism() {
            return plan.getLimit() > 0 ? 1 : super.parallelism();
        }

        /** The rows' filter of the plan (its skip scan, or its residual): made for a read, not for explain. */
        Filter rows() {
            return ScanPlanner.rowsFilter(plan.getPlan(), query.toPredicateComparatorSpec());
        }

        @Override
        final String explain() {
            String reads = ParallelScanner.describe(connection, source(), ranges, parallelism());
            return query + "\n" + plan.getExplain() + "\nreads: " + reads
                    + (query.isUnordered() && !reads.startsWith("serial") ? ", rows in the order chunks deliver them" : "");
        }
    }

    /** The data table's ranges, each row shaped as the query asks. */
    static final class DataTableRead extends SingleRead {
        DataTableRead(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, TablePlan plan) {
            super(connection, table, catalog, query, plan);
        }

        @Override
        ResultScanner open() throws IOException {
            ReadShape shape = ReadShape.of(query);
            Filter rows = rows();
            int limit = plan.getLimit();
            return ParallelScanner.open(connection, table, ranges, r -> {
                Scan scan = ScanPlanner.scan(plan.getPlan(), rows, r).setScanMetricsEnabled(true);
                return shape.shape(limit > 0 ? scan.setLimit(limit) : scan);
            }, parallelism(), order);
        }

        @Override
        TableName source() {
            return table;
        }

        @Override
        boolean readsIndex() {
            return false;
        }
    }

    /** An index's ranges, and the data rows its rows stand for (or the index rows alone, covered). */
    static final class IndexRead extends SingleRead {
        IndexRead(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, TablePlan plan) {
            super(connection, table, catalog, query, plan);
        }

        @Override
        ResultScanner open() throws IOException {
            IndexResultScanner.Entries entries = new IndexResultScanner.Entries(catalog, plan.getIndexNumber(), plan,
                    ReadShape.of(query));
            Filter rows = rows();
            Function<List<RowRange>, Scan> scanOf = r -> ScanPlanner.scan(plan.getPlan(), rows, r).setScanMetricsEnabled(true);
            RowBatches<IndexResultScanner.Entry> indexRows = plan.getMergeSaltBuckets()
                    ? ParallelScanner.openMerged(connection, source(), bySaltByte(ranges), scanOf, parallelism(), entries,
                            entry -> entry.dataKey)
                    : ParallelScanner.open(connection, source(), ranges, scanOf, parallelism(), order, entries);
            return new IndexResultScanner(connection, table, entries, indexRows);
        }

        @Override
        IndexResultScanner openReadingAhead() throws IOException {
            IndexResultScanner rows = (IndexResultScanner) open();
            rows.startReading();
            return rows;
        }

        /** {@code ranges} grouped by their first byte, a salted index's bucket (a range from the table's start alone). */
        static List<List<RowRange>> bySaltByte(List<RowRange> ranges) {
            List<List<RowRange>> buckets = new ArrayList<>();
            int bucket = -2;
            for (RowRange r : ranges) {
                byte[] start = r.getStartRow();
                int b = start.length == 0 ? -1 : start[0] & 0xff;
                if (b != bucket || b == -1) {
                    buckets.add(new ArrayList<>());
                    bucket = b;
                }
                buckets.get(buckets.size() - 1).add(r);
            }
            return buckets;
        }

        @Override
        TableName source() {
            return RowKeyTable.indexTableName(table, plan.getIndex());
        }

        @Override
        boolean readsIndex() {
            return true;
        }
    }

    /** Joins of key streams, each key's data row read ({@link JoinScanner}). */
    static final class Joins extends QueryPlan {
        private final JoinPlan plan;

        Joins(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, JoinPlan plan) {
            super(connection, table, catalog, query);
            this.plan = plan;
        }

        @Override
        ResultScanner open() throws IOException {
            return new JoinScanner(connection, table, catalog, query, plan, ReadShape.of(query), readers());
        }

        @Override
        String explain() {
            int threads = ParallelScanner.threads(connection);
            return query + "\n" + plan.getExplain() + "\nreads: "
                    + (query.isSerial() || threads == 1 ? "serial: one range after another"
                            : "the ranges of a stream (salt buckets, IN values) that need a read at once, up to " + threads + "-way");
        }

        @Override
        boolean readsIndex() {
            return true;
        }

        /** A join of data-table streams alone (a limit on a query no index serves) needs no catalog check. */
        @Override
        boolean readsIndexTable() {
            for (JoinBranchPlan b : plan.getBranchesList()) {
                for (KeyStreamSpec s : b.getStreamsList()) {
                    if (s.getIndexNumber() >= 0) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Where a join's ranges are read at once: the connection's pool, or none for a serial query. */
        private Executor readers() {
            return parallelism() == 1 ? null : ParallelScanner.pool(connection);
        }
    }
}
