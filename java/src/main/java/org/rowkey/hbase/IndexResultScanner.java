package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The data rows of a query read through an index: the index rows in the plan's key ranges (read
 * with the residual filter or the skip scan, either the whole query, natively, since an index key
 * holds every field),
 * then, in batches, the data rows they stand for. A VERIFIED index row of a covered plan answers
 * alone (its covered cells, or its key); otherwise its data row is read, so a row whose index entry
 * outlived it (a failed write, a partial delete) is never returned. An UNVERIFIED index row whose
 * data row exists is repaired: its covered cells made the data row's, its status VERIFIED at its
 * timestamp.
 */
final class IndexResultScanner implements ResultScanner {
    /** Index rows whose data rows are read with one multi-get. */
    private static final int BATCH = 128;

    private final Table indexTable;
    private final Table dataTable;
    private final ResultScanner indexRows;
    private final Catalog catalog;
    private final int index;
    private final boolean covered;
    private final List<Column> columns;
    private final boolean keysOnly;
    private final List<Column> included;
    private final ArrayDeque<Result> ready = new ArrayDeque<>();
    private boolean exhausted;

    IndexResultScanner(Connection connection, TableName data, TableName indexName, Catalog catalog, int index,
            TablePlan plan, Scan indexScan, List<Column> columns, boolean keysOnly) throws IOException {
        this.catalog = catalog;
        this.index = index;
        this.covered = plan.getCovered();
        this.columns = columns;
        this.keysOnly = keysOnly;
        this.included = catalog.indexes().get(index).getIncludeList();
        this.indexTable = connection.getTable(indexName);
        this.dataTable = connection.getTable(data);
        try {
            this.indexRows = indexTable.getScanner(indexScan.setCaching(BATCH).setScanMetricsEnabled(true));
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

    /** Reads up to {@link #BATCH} index rows and the data rows they need, in index order. */
    private void fill() throws IOException {
        List<Result> entries = new ArrayList<>(BATCH);
        List<byte[]> dataKeys = new ArrayList<>(BATCH);
        List<Get> gets = new ArrayList<>();
        for (Result r; entries.size() < BATCH && (r = indexRows.next()) != null;) {
            byte[] dataKey = catalog.dataKey(index, r.getRow());
            entries.add(r);
            dataKeys.add(dataKey);
            if (!(covered && isVerified(r))) {
                gets.add(new Get(dataKey)); // the whole row: it may be needed to repair the entry
            }
        }
        if (entries.size() < BATCH) {
            exhausted = true;
        }
        Result[] rows = gets.isEmpty() ? new Result[0] : dataTable.get(gets);
        List<RowMutations> repairs = new ArrayList<>();
        int next = 0;
        for (int i = 0; i < entries.size(); i++) {
            Result entry = entries.get(i);
            Result answer;
            if (covered && isVerified(entry)) {
                answer = fromIndex(entry, dataKeys.get(i));
            } else {
                Result row = rows[next++];
                if (row.isEmpty()) {
                    continue; // the index row outlived its data row (or it is a write in flight): not a row
                }
                if (!isVerified(entry)) {
                    repairs.add(repair(entry, row));
                }
                answer = selected(row);
            }
            if (answer != null) {
                ready.add(answer);
            }
        }
        for (RowMutations repair : repairs) {
            indexTable.mutateRow(repair);
        }
    }

    private static boolean isVerified(Result indexRow) {
        return Arrays.equals(RowKeyIndexObserver.VERIFIED,
                indexRow.getValue(RowKeyIndexObserver.STATUS_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER));
    }

    /** The answer from a verified index row of a covered plan: its key, or its selected covered cells. */
    private Result fromIndex(Result indexRow, byte[] dataKey) {
        if (keysOnly) {
            Cell status = indexRow.getColumnLatestCell(RowKeyIndexObserver.STATUS_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER);
            return Result.create(new Cell[] {CellUtil.createCell(dataKey, RowKeyIndexObserver.STATUS_FAMILY,
                    RowKeyIndexObserver.STATUS_QUALIFIER, status.getTimestamp(), KeyValue.Type.Put.getCode(), new byte[0])});
        }
        List<Cell> cells = new ArrayList<>();
        for (Column c : columns) {
            Cell cell = indexRow.getColumnLatestCell(c.getFamily().toByteArray(), c.getQualifier().toByteArray());
            if (cell != null) {
                cells.add(CellUtil.createCell(dataKey, CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
                        cell.getTimestamp(), KeyValue.Type.Put.getCode(), CellUtil.cloneValue(cell)));
            }
        }
        return cells.isEmpty() ? null : Result.create(cells);
    }

    /** A data row cut to what the query asks: the selected columns, or its first cell without its value. */
    private Result selected(Result row) {
        if (keysOnly) {
            Cell first = row.rawCells()[0];
            return Result.create(new Cell[] {CellUtil.createCell(row.getRow(), CellUtil.cloneFamily(first),
                    CellUtil.cloneQualifier(first), first.getTimestamp(), KeyValue.Type.Put.getCode(), new byte[0])});
        }
        if (columns.isEmpty()) {
            return row;
        }
        List<Cell> cells = new ArrayList<>();
        for (Cell cell : row.rawCells()) {
            for (Column c : columns) {
                if (CellUtil.matchingColumn(cell, c.getFamily().toByteArray(), c.getQualifier().toByteArray())) {
                    cells.add(cell);
                }
            }
        }
        return cells.isEmpty() ? null : Result.create(cells);
    }

    /**
     * Makes an unverified index row whose data row exists right: each covered cell that is not the
     * data row's (a failed write's value) is deleted at its exact timestamp and the data's written,
     * then the status becomes VERIFIED at its own timestamp; one atomic row mutation.
     */
    private RowMutations repair(Result indexRow, Result dataRow) throws IOException {
        RowMutations mutations = new RowMutations(indexRow.getRow());
        Cell status = indexRow.getColumnLatestCell(RowKeyIndexObserver.STATUS_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER);
        Put put = new Put(indexRow.getRow()).addColumn(RowKeyIndexObserver.STATUS_FAMILY,
                RowKeyIndexObserver.STATUS_QUALIFIER, status.getTimestamp(), RowKeyIndexObserver.VERIFIED);
        Delete stale = new Delete(indexRow.getRow());
        for (Column c : included) {
            byte[] family = c.getFamily().toByteArray();
            byte[] qualifier = c.getQualifier().toByteArray();
            Cell inIndex = indexRow.getColumnLatestCell(family, qualifier);
            Cell inData = dataRow.getColumnLatestCell(family, qualifier);
            boolean same = inIndex != null && inData != null && inIndex.getTimestamp() == inData.getTimestamp()
                    && CellUtil.matchingValue(inIndex, inData);
            // (At the data cell's own timestamp a put replaces the value; a version delete there would mask it.)
            if (inIndex != null && !same && (inData == null || inData.getTimestamp() != inIndex.getTimestamp())) {
                stale.addColumn(family, qualifier, inIndex.getTimestamp());
            }
            if (inData != null && !same) {
                put.addColumn(family, qualifier, inData.getTimestamp(), CellUtil.cloneValue(inData));
            }
        }
        if (!stale.isEmpty()) {
            mutations.add(stale);
        }
        mutations.add(put);
        return mutations;
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
