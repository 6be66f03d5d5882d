package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import org.rowkey.hbase.IndexRowFormat.CoveredColumn;
import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The data rows of a query read through an index: the index rows in the plan's key ranges (read
 * with the residual filter or the skip scan, either the whole query, natively, since an index key
 * holds every field),
 * then, in batches, the data rows they stand for. A VERIFIED index row of a covered plan answers
 * alone (its covered cells, or its key); otherwise its data row is read, so a row whose index entry
 * outlived it (a failed write, a partial delete) is never returned. An UNVERIFIED index row is
 * repaired when its data row exists, marked STALE after the grace period when it does not
 * ({@link IndexRowRepair}), and STALE rows are skipped without reading the data table.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class IndexResultScanner implements ResultScanner {
    /** Index rows whose data rows are read with one multi-get. */
    private static final int BATCH = 1024;
    /** Multi-gets of one batch read at once, and the fewest Gets worth a multi-get of their own. */
    private static final int PARALLEL_GETS = 4;
    private static final int PARALLEL_GETS_MIN = 128;
    /** Reads the data rows of batches, shared by every scanner; when all are busy the caller reads. */
    private static final ExecutorService GETS = BoundedPool.create("rowkey-index-data-reader", 16);

    private final Connection connection;
    private final Table indexTable;
    private final TableName dataTable;
    private final Entries entries;
    /** The index rows in the plan's ranges, made entries where they are read. */
    private final ParallelScanner<Entry> indexRows;
    /** Made when a batch first needs a repair: most reads of VERIFIED rows never do. */
    private IndexRowRepair repair;
    private final ArrayDeque<Result> ready = new ArrayDeque<>();
    /** The next batch, its data rows being read while the one before is answered. */
    private Batch pending;
    /** The index scan has no row left. */
    private boolean indexDone;
    private boolean exhausted;
    private long dataRowsRead;

    IndexResultScanner(Connection connection, TableName data, TableName indexName, Entries entries,
            ParallelScanner<Entry> indexRows) throws IOException {
        this.entries = entries;
        this.connection = connection;
        this.indexTable = connection.getTable(indexName);
        this.dataTable = data;
        this.indexRows = indexRows;
    }

    @Override
    public Result next() throws IOException {
        while (ready.isEmpty() && !exhausted) {
            fill();
        }
        return ready.poll();
    }

    /**
     * Answers the next batch of index rows, in index order. The index rows of the batch after it are
     * read while its data rows are being read: the scan and the Gets overlap (a batch answered by
     * the index alone has nothing to overlap with, and reads nothing ahead).
     */
    private void fill() throws IOException {
        Batch current = pending != null ? pending : readBatch();
        pending = indexDone || current.gets == 0 ? null : readBatch();
        answer(current);
        exhausted = pending == null && indexDone;
    }

    /** Index rows read, and the reads of the data rows they need, under way in {@link #GETS}. */
    private static final class Batch {
        final List<Entry> entries;
        final List<Future<Result[]>> dataRows;
        final int gets;

        Batch(List<Entry> entries, List<Future<Result[]>> dataRows, int gets) {
            this.entries = entries;
            this.dataRows = dataRows;
            this.gets = gets;
        }
    }

    /** Takes at least {@link #BATCH} index rows' entries (or the last) and starts reading the data rows they need. */
    private Batch readBatch() throws IOException {
        List<Entry> batch = new ArrayList<>();
        List<Entry> more = Collections.emptyList();
        while (batch.size() < BATCH && (more = indexRows.next()) != null) {
            batch.addAll(more);
        }
        indexDone = more == null;
        List<Get> gets = new ArrayList<>();
        for (Entry entry : batch) {
            if (entry.fromIndex == null) {
                Get get = new Get(entry.dataKey); // the whole row: it may be needed to repair the entry
                if (!entry.verified) {
                    get.setAttribute(IndexRowFormat.DATA_ROW_PROBE, new byte[] {1});
                }
                gets.add(get);
            }
        }
        dataRowsRead += gets.size();
        return new Batch(batch, startReading(gets), gets.size());
    }

    /**
     * Makes index rows entries, on the thread that read them: each row's status and data key (the
     * batch's with one native call), and a covered plan's answers from the index alone. Every
     * field is fixed when it is made, so the reading threads share it.
     */
    static final class Entries implements ParallelScanner.Prepare<Entry> {
        private final Catalog catalog;
        private final int index;
        private final boolean covered;
        private final boolean keysOnly;
        /** The columns the query selects (all when none). */
        private final List<CoveredColumn> selectedColumns;

        Entries(Catalog catalog, int index, TablePlan plan, List<Column> columns, boolean keysOnly) {
            this.catalog = catalog;
            this.index = index;
            this.covered = plan.getCovered();
            this.keysOnly = keysOnly;
            this.selectedColumns = CoveredColumn.of(columns);
        }

        @Override
        public List<Entry> apply(List<Result> read) {
            List<Result> rows = new ArrayList<>(read.size());
            List<Cell> statuses = new ArrayList<>(read.size());
            List<byte[]> indexKeys = new ArrayList<>(read.size());
            for (Result r : read) {
                Cell status = IndexRowFormat.status(r);
                if (IndexRowFormat.isStatus(status, IndexRowFormat.STALE)) {
                    continue; // its write never reached the data table
                }
                rows.add(r);
                statuses.add(status);
                indexKeys.add(r.getRow());
            }
            byte[][] dataKeys = catalog.dataKeys(index, indexKeys);
            List<Entry> made = new ArrayList<>(rows.size());
            for (int i = 0; i < dataKeys.length; i++) {
                if (dataKeys[i] != null) { // null: not a row the index wrote (Catalog.dataKeyOrNull)
                    made.add(new Entry(rows.get(i), dataKeys[i], statuses.get(i),
                            covered ? answerAlone(rows.get(i), statuses.get(i), dataKeys[i]) : null));
                }
            }
            return made;
        }

        String indexName() {
            return catalog.indexes().get(index).getName();
        }

        /**
         * The answer of a VERIFIED index row of a covered plan, from it alone: its key, or the covered
         * cells the query selects (every one it holds when the query selects every column); null when it
         * does not answer alone: not VERIFIED, or not telling whether the data row has a selected column
         * (a named column's cell missing: the row was not written whole), and answered from its data row.
         * A row none of whose selected columns exist is no answer ({@link #NO_ROW}).
         */
        private Result answerAlone(Result indexRow, Cell status, byte[] dataKey) {
            if (!IndexRowFormat.isStatus(status, IndexRowFormat.VERIFIED)) {
                return null;
            }
            if (keysOnly) {
                return Result.create(new Cell[] {CellUtil.createCell(dataKey, IndexRowFormat.FAMILY,
                        IndexRowFormat.STATUS, status.getTimestamp() / 1_000, KeyValue.Type.Put.getCode(), new byte[0])});
            }
            IndexCoverage coverage = catalog.coverage(index);
            if (selectedColumns.isEmpty()) {
                // Every column, the table's families all covered: a row has a cell, so its copy must.
                List<Cell> all = coverage.dataCells(indexRow, status, dataKey);
                return all.isEmpty() ? null : Result.create(all);
            }
            List<Cell> cells = new ArrayList<>(selectedColumns.size());
            for (CoveredColumn c : selectedColumns) {
                if (!coverage.tells(indexRow, c)) {
                    return null;
                }
                Cell cell = coverage.dataCell(indexRow, status, dataKey, c);
                if (cell != null) {
                    cells.add(cell);
                }
            }
            return cells.isEmpty() ? NO_ROW : Result.create(cells);
        }

        /** A data row cut to what the query asks: the selected columns, or its first cell without its value. */
        Result selected(Result row) {
            if (keysOnly) {
                Cell first = row.rawCells()[0];
                return Result.create(new Cell[] {CellUtil.createCell(row.getRow(), CellUtil.cloneFamily(first),
                        CellUtil.cloneQualifier(first), first.getTimestamp(), KeyValue.Type.Put.getCode(), new byte[0])});
            }
            if (selectedColumns.isEmpty()) {
                return row;
            }
            List<Cell> cells = new ArrayList<>();
            for (Cell cell : row.rawCells()) {
                for (CoveredColumn c : selectedColumns) {
                    if (CellUtil.matchingColumn(cell, c.family, c.qualifier)) {
                        cells.add(cell);
                    }
                }
            }
            return cells.isEmpty() ? null : Result.create(cells);
        }
    }

    /** The answer of an index row whose data row has none of the selected columns: no row. */
    private static final Result NO_ROW = Result.create(new Cell[0]);

    /** The answers of a batch: from the index alone, or from the data rows, repairing what it can. */
    private void answer(Batch batch) throws IOException {
        Result[] rows = dataRows(batch);
        List<CheckAndMutate> repairs = new ArrayList<>();
        int next = 0;
        for (Entry entry : batch.entries) {
            Result answer;
            if (entry.fromIndex != null) {
                answer = entry.fromIndex == NO_ROW ? null : entry.fromIndex;
            } else {
                Result probed = rows[next++];
                // A row with a write in flight is answered as read, and its index row left to that write.
                boolean settled = !IndexRowFormat.inFlight(probed);
                Result row = IndexRowFormat.withoutProbeMarker(probed);
                if (row.isEmpty()) {
                    // The index row outlived its data row, or it is a write in flight: not a row.
                    if (settled) {
                        repair().staleMark(entry.row.getRow(), entry.status).ifPresent(repairs::add);
                    }
                    continue;
                }
                if (!entry.verified && settled) {
                    repair().repair(entry.row.getRow(), entry.status, probed).ifPresent(repairs::add);
                }
                answer = entries.selected(row);
            }
            if (answer != null) {
                ready.add(answer);
            }
        }
        if (!repairs.isEmpty()) {
            indexTable.checkAndMutate(repairs);
        }
    }

    private IndexRowRepair repair() {
        if (repair == null) {
            repair = new IndexRowRepair(entries.catalog.coverage(entries.index), connection.getConfiguration());
        }
        return repair;
    }

    /**
     * Starts reading the data rows of {@code gets} in {@link #GETS} (the caller reads them itself
     * when the pool is busy). A large batch is read as a few multi-gets at once: a RegionServer
     * serves one multi-get in one handler, region after region.
     */
    private List<Future<Result[]>> startReading(List<Get> gets) {
        List<Future<Result[]>> reads = new ArrayList<>();
        if (gets.isEmpty()) {
            return reads;
        }
        int parts = Math.max(1, Math.min(PARALLEL_GETS, gets.size() / PARALLEL_GETS_MIN));
        for (int p = 0; p < parts; p++) {
            List<Get> part = gets.subList(p * gets.size() / parts, (p + 1) * gets.size() / parts);
            reads.add(GETS.submit(() -> {
                try (Table table = connection.getTable(dataTable)) {
                    return table.get(part);
                }
            }));
        }
        return reads;
    }

    /** The data rows of a batch, in the order of its Gets. */
    private Result[] dataRows(Batch batch) throws IOException {
        Result[] rows = new Result[batch.gets];
        int at = 0;
        for (Future<Result[]> read : batch.dataRows) {
            try {
                Result[] part = read.get();
                System.arraycopy(part, 0, rows, at, part.length);
                at += part.length;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException ? (IOException) e.getCause()
                        : new IOException("reading the data rows of index " + entries.indexName(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while reading data rows");
            }
        }
        return rows;
    }

    /** An index row read, its data key and its status cell (null when it has none), looked up once. */
    static final class Entry {
        final Result row;
        final byte[] dataKey;
        final Cell status;
        final boolean verified;
        /** The answer from the index row alone ({@link #answerAlone}), or null: its data row is read. */
        final Result fromIndex;

        Entry(Result row, byte[] dataKey, Cell status, Result fromIndex) {
            this.row = row;
            this.dataKey = dataKey;
            this.status = status;
            this.verified = IndexRowFormat.isStatus(status, IndexRowFormat.VERIFIED);
            this.fromIndex = fromIndex;
        }
    }

    @Override
    public void close() {
        indexRows.close();
        try {
            indexTable.close();
        } catch (IOException ignored) {
            // nothing is buffered: a table of a shared connection
        }
    }

    @Override
    public boolean renewLease() {
        return indexRows.renewLease();
    }

    /**
     * The index scan's metrics ({@code countOfRowsScanned}: index rows read) and the data rows read
     * by Gets so far (the counter {@link RowKeyTable#DATA_ROWS_READ_METRIC}).
     */
    @Override
    public ScanMetrics getScanMetrics() {
        Metrics metrics = new Metrics();
        ScanMetrics index = indexRows.getScanMetrics();
        if (index != null) {
            index.getMetricsMap().forEach(metrics::setCounter);
        }
        metrics.dataRowsRead.set(dataRowsRead);
        return metrics;
    }

    /** HBase's scan metrics and one counter of ours. */
    static final class Metrics extends ScanMetrics {
        final AtomicLong dataRowsRead = createCounter(RowKeyTable.DATA_ROWS_READ_METRIC);
    }
}
