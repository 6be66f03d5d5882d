package org.rowkey.hbase;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;

import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The one plan of a query on a {@link RowKeyTable}, made once: {@link #open} reads it and
 * {@link #explain} shows it, so what is read and what is shown cannot differ. Either a single
 * read (the data table's ranges, or an index's and the data rows they point to) or joins of key
 * streams (an {@code anyOf}, a limit, reversed, the leapfrog, or a relay of several streams).
 */
@RunsIn(RunsIn.Where.CLIENT)
final class QueryPlan {
    private final Connection connection;
    private final TableName table;
    private final Catalog catalog;
    private final RowKeyQuery query;
    /** The single read; null for joins. */
    private final TablePlan single;
    /** The joins; null for a single read. */
    private final JoinPlan joins;

    private QueryPlan(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, TablePlan single,
            JoinPlan joins) {
        this.connection = connection;
        this.table = table;
        this.catalog = catalog;
        this.query = query;
        this.single = single;
        this.joins = joins;
    }

    static QueryPlan single(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, TablePlan plan) {
        return new QueryPlan(connection, table, catalog, query, plan, null);
    }

    static QueryPlan joins(Connection connection, TableName table, Catalog catalog, RowKeyQuery query, JoinPlan plan) {
        return new QueryPlan(connection, table, catalog, query, null, plan);
    }

    /** Whether the plan reads an index table (joins read key streams, mostly indexes'). */
    boolean readsIndex() {
        return joins != null || !single.getIndex().isEmpty();
    }

    /** The rows of the query, read as planned. */
    ResultScanner open() throws IOException {
        if (joins != null) {
            return new JoinScanner(connection, table, catalog, joins, ReadShape.of(query), readers());
        }
        List<RowRange> ranges = ScanPlanner.ranges(single.getPlan());
        Filter rows = ScanPlanner.rowsFilter(single.getPlan(), query.toPredicateComparatorSpec());
        ParallelScanner.Order order = query.isUnordered() ? ParallelScanner.Order.ANY : ParallelScanner.Order.KEY;
        if (single.getIndex().isEmpty()) {
            ReadShape shape = ReadShape.of(query);
            return ParallelScanner.open(connection, table, ranges,
                    r -> shape.shape(ScanPlanner.scan(single.getPlan(), rows, r).setScanMetricsEnabled(true)), parallelism(), order);
        }
        int index = catalog.indexNumber(single.getIndex());
        TableName indexTable = RowKeyTable.indexTableName(table, single.getIndex());
        IndexResultScanner.Entries entries = new IndexResultScanner.Entries(catalog, index, single, ReadShape.of(query));
        ParallelScanner<IndexResultScanner.Entry> indexRows = ParallelScanner.open(connection, indexTable, ranges,
                r -> ScanPlanner.scan(single.getPlan(), rows, r).setScanMetricsEnabled(true), parallelism(), order, entries);
        return new IndexResultScanner(connection, table, entries, indexRows);
    }

    /** The plan in words: what is read, what is filtered where, every alternative's estimate, how reads run. */
    String explain() {
        if (joins != null) {
            int threads = ParallelScanner.threads(connection);
            return query + "\n" + joins.explain() + "\nreads: "
                    + (query.isSerial() || threads == 1 ? "serial: one range after another"
                            : "the ranges of a stream (salt buckets, IN values) that need a read at once, up to " + threads + "-way");
        }
        TableName source = single.getIndex().isEmpty() ? table : RowKeyTable.indexTableName(table, single.getIndex());
        String reads = ParallelScanner.describe(connection, source, ScanPlanner.ranges(single.getPlan()), parallelism());
        return query + "\n" + single.getExplain() + "\nreads: " + reads
                + (query.isUnordered() && !reads.startsWith("serial") ? ", rows in the order chunks deliver them" : "");
    }

    private int parallelism() {
        return query.isSerial() ? 1 : ParallelScanner.threads(connection);
    }

    /** Where a join's ranges are read at once: the connection's pool, or none for a serial query. */
    private Executor readers() {
        return parallelism() == 1 ? null : ParallelScanner.pool(connection);
    }
}
