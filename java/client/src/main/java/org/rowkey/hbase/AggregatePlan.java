package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.google.protobuf.ByteString;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateRequest;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateResult;
import org.rowkey.hbase.proto.RowKeyProtos.AggregationSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexRowsOf;
import org.rowkey.hbase.proto.RowKeyProtos.NumericCell;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The plan of {@link RowKeyTable#aggregate} (docs/aggregates.md), the fourth kind of
 * {@link QueryPlan}: the regions fold what the native planner's single read gives them (the data
 * table's ranges, or an index's; what they read of each row, whether the client checks each index
 * row, all decided there), and this class runs it ({@link #run}) and explains it ({@link #explain}).
 * One scan of the planned source carries the aggregation; its every result is a partial state
 * covering the rows up to its row key; the partials are merged natively. Through an index, the keys
 * of index rows the regions did not trust come back with the partials, and their data rows are
 * read here (in batches) and folded by the same native code, each exactly once.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class AggregatePlan {
    /** Index rows whose data rows are read with one multi-get. */
    private static final int CHECK_BATCH = 1024;

    private final Connection connection;
    private final TableName dataTable;
    private final Catalog catalog;
    /** The native planner's plan of the read the regions fold: its source, ranges and filter, what they read of each row. */
    private final TablePlan plan;
    private final RowKeyQuery query;
    private final Aggregation aggregation;

    AggregatePlan(Connection connection, TableName dataTable, Catalog catalog, TablePlan plan, RowKeyQuery query,
            Aggregation aggregation) {
        this.connection = connection;
        this.dataTable = dataTable;
        this.catalog = catalog;
        this.plan = plan;
        this.query = query;
        this.aggregation = aggregation;
    }

    /** Whether the plan reads an index table. */
    boolean readsIndex() {
        return plan.getIndexNumber() >= 0;
    }

    AggregationResult run() throws IOException {
        AggregationSpec dataSpec = aggregation.toSpecFor(catalog.schema());
        boolean throughIndex = readsIndex();
        int index = plan.getIndexNumber();
        // Through an index, the regions fold only rows the index could have written, as its readers do.
        AggregationSpec regionSpec = throughIndex
                ? aggregation.toSpec(catalog.indexSchema(index), AggregatePlan::asCovered).toBuilder()
                        .setIndexRowsOf(IndexRowsOf.newBuilder().setCatalog(catalog.spec()).setIndex(index)).build()
                : dataSpec;
        AggregateRequest.Builder request = AggregateRequest.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setAggregation(regionSpec).setIndexRows(throughIndex).setCheckEveryRow(plan.getCheckEveryRow())
                .setRowBudget(aggregation.rowBudget()).setTimeBudgetMs(aggregation.timeBudgetMs());
        byte[] requestBytes = request.build().toByteArray();
        ScanPlan regionPlan = plan.getPlan();
        Filter rows = ScanPlanner.rowsFilter(regionPlan, query.toPredicateComparatorSpec());
        TableName source = source();
        // Partial states merge in any order: the regions are folded at once, each chunk one region's
        // ranges, and each partial is merged by the task that read it, as it arrives (one partial a
        // turn of the connection's fair pool): the client holds the merged groups, bounded by its own
        // byte limit, and at most one partial per region being read, never a region's worth of them.
        long maxBytes = connection.getConfiguration().getLong(CoprocessorWire.AGGREGATE_MAX_BYTES, 0);
        int indexKeyLength = throughIndex ? catalog.indexSchema(index).keyLength() : 0;
        try (IndexRowResolver resolver = new IndexRowResolver(connection, dataTable, catalog);
                NativeAggregator merged = new NativeAggregator(dataSpec.toByteArray(), maxBytes);
                ParallelScanner<byte[]> partials = ParallelScanner.open(connection, source, ScanPlanner.ranges(regionPlan),
                        ranges -> regionScan(regionPlan, rows, ranges, requestBytes), parallelism(),
                        ParallelScanner.Order.ANY, read -> mergeEach(read, merged, source, indexKeyLength))) {
            FoldBatch checkedRows = new FoldBatch(merged);
            List<byte[]> toCheck = new ArrayList<>();
            long checked = 0;
            for (List<byte[]> keys = partials.next(); keys != null; keys = partials.next()) { // its IOException as it is
                toCheck.addAll(keys);
                if (toCheck.size() >= CHECK_BATCH) {
                    checked += checkDataRows(resolver, index, toCheck, checkedRows, merged);
                }
            }
            checked += checkDataRows(resolver, index, toCheck, checkedRows, merged);
            ScanMetrics metrics = partials.getScanMetrics();
            long rowsRead = metrics.countOfRowsScanned.get();
            long bytes = metrics.countOfBytesInResults.get();
            AggregateResult finished;
            synchronized (merged) {
                finished = merged.finish();
            }
            return new AggregationResult(AggregationResult.rowsOf(aggregation, finished.getRowsList()), rowsRead, bytes,
                    checked);
        }
    }

    /**
     * Merges the partial state of each result into {@code merged} (shared by the tasks reading the
     * regions, hence the lock) and returns the index keys that came with them, for the client to
     * check.
     */
    private static List<byte[]> mergeEach(List<Result> read, NativeAggregator merged, TableName source, int indexKeyLength) {
        List<byte[]> toCheck = new ArrayList<>();
        for (Result r : read) {
            Cell partial = cell(r, CoprocessorWire.PARTIAL_QUALIFIER);
            if (partial == null) {
                throw new IllegalStateException("table " + source + " does not aggregate in its regions: it has no "
                        + CoprocessorWire.SCAN_OBSERVER + " coprocessor (RowKeyTable.create installs it; add it"
                        + " to the descriptor of a table made otherwise, docs/aggregates.md)");
            }
            synchronized (merged) {
                merged.merge(partial.getValueArray(), partial.getValueOffset(), partial.getValueLength());
            }
            Cell check = cell(r, CoprocessorWire.CHECK_QUALIFIER);
            if (check != null) {
                byte[] keys = CellUtil.cloneValue(check);
                for (int at = 0; at + indexKeyLength <= keys.length; at += indexKeyLength) {
                    toCheck.add(Arrays.copyOfRange(keys, at, at + indexKeyLength));
                }
            }
        }
        return toCheck;
    }

    /** The scan of one chunk: its ranges, filtered as a scan, each RPC returning one partial state. */
    private Scan regionScan(ScanPlan regionPlan, Filter rows, List<RowRange> ranges, byte[] request) {
        Scan scan = ScanPlanner.scan(regionPlan, rows, ranges);
        if (plan.getFirstCellOnly()) {
            // The keys answer alone: one cell of each row is all the region reads. Its value never
            // leaves the region, so a KeyOnlyFilter would only copy each cell.
            Filter first = new FirstKeyOnlyFilter();
            scan.setFilter(scan.getFilter() == null ? first
                    : new FilterList(FilterList.Operator.MUST_PASS_ALL, scan.getFilter(), first));
        }
        // One partial per call: each RPC folds one budget's worth of rows.
        return scan.setAttribute(CoprocessorWire.AGGREGATE_REQUEST, request).setCaching(1).setScanMetricsEnabled(true);
    }

    /** Where each part runs: the ranges or index read and its filter, what the regions fold, what the client does. */
    String explain() {
        StringBuilder s = new StringBuilder("aggregate ").append(aggregation).append(" of ").append(query).append('\n')
                .append(plan.getExplain()).append('\n');
        s.append("in the regions of ").append(source()).append(" (")
                .append(ParallelScanner.describe(connection, source(), ScanPlanner.ranges(plan.getPlan()), parallelism()))
                .append("): RowKeyScanObserver folds every row read natively (a batch of rows per native call), ");
        if (plan.getCheckEveryRow()) {
            s.append("none: the index does not hold the cells aggregated, so every index row's key is returned");
        } else {
            s.append(aggregation.cells().isEmpty() ? "decoding the key fields from each row key"
                    : "decoding the key fields from each row key and the cells " + aggregation.cells());
            if (readsIndex()) {
                s.append("; VERIFIED index rows only, the keys of the others are returned");
            }
        }
        s.append("; one partial state per call, every ")
                .append(aggregation.rowBudget() > 0 ? aggregation.rowBudget() : CoprocessorWire.DEFAULT_ROW_BUDGET)
                .append(" rows or ").append(aggregation.timeBudgetMs() > 0 ? aggregation.timeBudgetMs()
                        : CoprocessorWire.DEFAULT_TIME_BUDGET_MS).append(" ms\n");
        s.append("on the client: partial states merged");
        if (readsIndex()) {
            s.append("; the data rows of returned index keys read and folded (a row that does not exist is not counted)");
        }
        if (aggregation.orderBy() >= 0) {
            s.append("; ordered").append(aggregation.limit() > 0 ? " and limited" : "");
        }
        for (String hashed : aggregation.hashedGroups()) {
            s.append("\ngroup field ").append(hashed).append(" is hashed: grouped by its stored digest, returned as bytes");
        }
        return s.toString();
    }

    /** The table the regions fold: the data table, or the index the plan reads. */
    private TableName source() {
        return readsIndex() ? RowKeyTable.indexTableName(dataTable, plan.getIndex()) : dataTable;
    }

    /** The regions folded at once: the connection's parallel reads unless the query is serial. */
    private int parallelism() {
        return query.isSerial() ? 1 : ParallelScanner.threads(connection);
    }

    /**
     * Folds the data rows of index keys the regions did not trust (each read once; an index row whose
     * data row does not exist is not a row, nor one the index could not have written), then forgets
     * the keys. Returns how many were checked.
     */
    private int checkDataRows(IndexRowResolver resolver, int index, List<byte[]> indexKeys, FoldBatch into,
            NativeAggregator merged) throws IOException {
        if (indexKeys.isEmpty()) {
            return 0;
        }
        byte[][] dataKeys = resolver.dataKeys(index, indexKeys);
        // The whole row when cells are read: a row lacking them still counts.
        ReadShape shape = aggregation.cells().isEmpty() ? ReadShape.KEYS_ONLY : ReadShape.WHOLE_ROW;
        List<Get> gets = new ArrayList<>(dataKeys.length);
        for (byte[] key : dataKeys) {
            if (key != null) { // null: a row put into the index table by hand (Catalog.dataKeyOrNull)
                gets.add(shape.get(key));
            }
        }
        Result[] rows = resolver.get(gets);
        synchronized (merged) { // into folds into merged, which the reading tasks merge partials into meanwhile
            for (Result row : rows) {
                if (!row.isEmpty()) {
                    into.add(row.listCells());
                }
            }
            into.flush();
        }
        int n = indexKeys.size();
        indexKeys.clear();
        return n;
    }

    /** Where an index row holds a data cell: its covered copy. */
    private static NumericCell asCovered(NumericCell cell) {
        return cell.toBuilder().setFamily(ByteString.copyFrom(IndexRowFormat.FAMILY))
                .setQualifier(ByteString.copyFrom(IndexRowFormat.coveredQualifier(cell.getFamily().toByteArray(),
                        cell.getQualifier().toByteArray())))
                .build();
    }

    private static Cell cell(Result r, byte[] qualifier) {
        Cell[] cells = r.rawCells();
        if (cells != null) {
            for (Cell c : cells) {
                if (CellUtil.matchingQualifier(c, qualifier)) {
                    return c;
                }
            }
        }
        return null;
    }
}
