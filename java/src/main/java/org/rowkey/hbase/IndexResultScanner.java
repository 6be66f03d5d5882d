package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The data rows of a query read through an index: the index rows in the plan's key ranges (the
 * residual filter on them is the whole query, natively, since an index key holds every field),
 * then, in batches, the data rows they stand for. Every index row's data row is read, so a row
 * whose index entry outlived it (a failed write, a partial delete) is never returned; an
 * UNVERIFIED index row whose data row exists is repaired (marked VERIFIED at its timestamp).
 */
final class IndexResultScanner implements ResultScanner {
    /** Index rows whose data rows are read with one multi-get. */
    private static final int BATCH = 128;

    private final Table indexTable;
    private final Table dataTable;
    private final ResultScanner indexRows;
    private final Catalog catalog;
    private final int index;
    private final ArrayDeque<Result> ready = new ArrayDeque<>();
    private boolean exhausted;

    IndexResultScanner(Connection connection, TableName data, TableName indexName, Catalog catalog, int index,
            TablePlan plan) throws IOException {
        this.catalog = catalog;
        this.index = index;
        this.indexTable = connection.getTable(indexName);
        this.dataTable = connection.getTable(data);
        try {
            this.indexRows = indexTable.getScanner(ScanPlanner.scan(plan.getPlan()).setCaching(BATCH));
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    @Override
    public Result next() throws IOException {
        while (ready.isEmpty() && !exhausted) {
            fill();
        }
        return ready.poll();
    }

    /** Reads up to {@link #BATCH} index rows and their data rows, in index order. */
    private void fill() throws IOException {
        List<Result> entries = new ArrayList<>(BATCH);
        List<Get> gets = new ArrayList<>(BATCH);
        for (Result r; entries.size() < BATCH && (r = indexRows.next()) != null;) {
            entries.add(r);
            gets.add(new Get(catalog.dataKey(index, r.getRow())));
        }
        if (entries.size() < BATCH) {
            exhausted = true;
        }
        if (entries.isEmpty()) {
            return;
        }
        Result[] rows = dataTable.get(gets);
        List<Put> repairs = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            if (rows[i].isEmpty()) {
                continue; // the index row outlived its data row (or it is a write in flight): not a row
            }
            ready.add(rows[i]);
            Cell status = entries.get(i).getColumnLatestCell(RowKeyIndexObserver.STATUS_FAMILY,
                    RowKeyIndexObserver.STATUS_QUALIFIER);
            if (status != null && !Arrays.equals(RowKeyIndexObserver.VERIFIED, cloneValue(status))) {
                repairs.add(new Put(entries.get(i).getRow()).addColumn(RowKeyIndexObserver.STATUS_FAMILY,
                        RowKeyIndexObserver.STATUS_QUALIFIER, status.getTimestamp(), RowKeyIndexObserver.VERIFIED));
            }
        }
        if (!repairs.isEmpty()) {
            indexTable.put(repairs);
        }
    }

    private static byte[] cloneValue(Cell cell) {
        return Arrays.copyOfRange(cell.getValueArray(), cell.getValueOffset(), cell.getValueOffset() + cell.getValueLength());
    }

    @Override
    public void close() {
        if (indexRows != null) {
            indexRows.close();
        }
        closeQuietly();
    }

    private void closeQuietly() {
        for (Table t : new Table[] {indexTable, dataTable}) {
            try {
                if (t != null) {
                    t.close();
                }
            } catch (IOException ignored) {
                // nothing is buffered: a table of a shared connection
            }
        }
    }

    @Override
    public boolean renewLease() {
        return indexRows.renewLease();
    }

    /** The index scan's metrics (rows read from the index). */
    @Override
    public ScanMetrics getScanMetrics() {
        return indexRows.getScanMetrics();
    }

    /** A data table scanner that also closes its table. */
    static final class Closing implements ResultScanner {
        private final ResultScanner scanner;
        private final Table table;

        Closing(ResultScanner scanner, Table table) {
            this.scanner = scanner;
            this.table = table;
        }

        @Override
        public Result next() throws IOException {
            return scanner.next();
        }

        @Override
        public void close() {
            scanner.close();
            try {
                table.close();
            } catch (IOException ignored) {
                // nothing is buffered: a table of a shared connection
            }
        }

        @Override
        public boolean renewLease() {
            return scanner.renewLease();
        }

        @Override
        public ScanMetrics getScanMetrics() {
            return scanner.getScanMetrics();
        }
    }
}
