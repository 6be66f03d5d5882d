package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;

/**
 * The data rows of a query read through an index: the index rows in the plan's key ranges (read
 * with the residual filter or the skip scan, either the whole query, natively, since an index key
 * holds every field),
 * then, in batches, the data rows they stand for. A VERIFIED index row of a covered plan answers
 * alone (its covered cells, or its key); otherwise its data row is read, so a row whose index entry
 * outlived it (a failed write, a partial delete) is never returned. An UNVERIFIED index row is
 * repaired when its data row exists, marked STALE after the grace period when it does not
 * ({@link IndexRowResolver#settle}), and STALE rows are skipped without reading the data table.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class IndexResultScanner implements ResultScanner {
    /** Index rows whose data rows are read with one multi-get. */
    private static final int BATCH = 1024;

    private final Entries entries;
    /** The index rows in the plan's ranges, made entries where they are read. */
    private final RowBatches<Entry> indexRows;
    /** Reads the data rows and settles the index rows that need it. */
    private final IndexRowResolver resolver;
    private final ArrayDeque<Result> ready = new ArrayDeque<>();
    /** The next batch, its data rows being read while the one before is answered. */
    private Batch pending;
    /** The index scan has no row left. */
    private boolean indexDone;
    private boolean exhausted;

    IndexResultScanner(Connection connection, TableName data, Entries entries, RowBatches<Entry> indexRows) {
        this.entries = entries;
        this.indexRows = indexRows;
        this.resolver = new IndexRowResolver(connection, data, entries.catalog);
    }

    /**
     * Starts reading the index rows in the pool (a parallel read; a serial one reads when asked):
     * they and their entries are all that is read before the first {@link #next}, which reads the
     * data rows and repairs what needs it.
     */
    void startReading() {
        indexRows.start();
    }

    /** Runs {@code allRead} once every index row has reached the client ({@link RowBatches#whenAllRead}). */
    void whenIndexRowsRead(Runnable allRead) {
        indexRows.whenAllRead(allRead);
    }

    /**
     * Whether every index region read is one the read's chunks were cut at
     * ({@link RowBatches#readOnlyRegionsCut}): asked once every index row was read.
     */
    boolean readOnlyRegionsCut() {
        return indexRows.readOnlyRegionsCut();
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
        pending = indexDone || current.dataRows.size() == 0 ? null : readBatch();
        answer(current);
        exhausted = pending == null && indexDone;
    }

    /** Index rows read, and the reads of the data rows they need, under way. */
    private static final class Batch {
        final List<Entry> entries;
        final IndexRowResolver.Reading dataRows;

        Batch(List<Entry> entries, IndexRowResolver.Reading dataRows) {
            this.entries = entries;
            this.dataRows = dataRows;
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
                // The whole row: it may be needed to repair the entry.
                gets.add(entry.verified ? new Get(entry.dataKey) : IndexRowFormat.probe(entry.dataKey));
            }
        }
        return new Batch(batch, resolver.read(gets));
    }

    /**
     * Makes index rows entries, on the thread that read them: each row's status and data key (the
     * batch's with one native call), and a covered plan's answers from the index alone. Every
     * field is fixed when it is made, so the reading threads share it.
     */
    static final class Entries implements ParallelScanner.Prepare<Entry> {
        private final Catalog catalog;
        private final int index;
        /** A covered plan's answers from the index rows; null: every data row is read. */
        private final CoveredAnswer covered;
        private final ReadShape shape;

        Entries(Catalog catalog, int index, TablePlan plan, ReadShape shape) {
            this.catalog = catalog;
            this.index = index;
            this.covered = plan.getCovered() ? new CoveredAnswer(catalog, index, shape) : null;
            this.shape = shape;
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
                            covered != null ? covered.of(rows.get(i), statuses.get(i), dataKeys[i]) : null));
                }
            }
            return made;
        }
    }

    /** The answers of a batch: from the index alone, or from the data rows, settling the index rows that need it. */
    private void answer(Batch batch) throws IOException {
        Result[] rows = batch.dataRows.rows();
        int next = 0;
        for (Entry entry : batch.entries) {
            Result answer;
            if (entry.fromIndex != null) {
                answer = entry.fromIndex == CoveredAnswer.NO_ROW ? null : entry.fromIndex;
            } else {
                Result probed = rows[next++];
                resolver.settle(entries.index, entry.row.getRow(), entry.status, probed);
                // A row with a write in flight is answered as read, and its index row left to that write.
                Result row = IndexRowFormat.withoutProbeMarker(probed);
                // Empty: the index row outlived its data row, or it is a write in flight: not a row.
                answer = row.isEmpty() ? null : entries.shape.cut(row);
            }
            if (answer != null) {
                ready.add(answer);
            }
        }
        resolver.flush();
    }

    /** An index row read, its data key and its status cell (null when it has none), looked up once. */
    static final class Entry {
        final Result row;
        final byte[] dataKey;
        final Cell status;
        final boolean verified;
        /** The answer from the index row alone ({@link CoveredAnswer#of}), or null: its data row is read. */
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
        resolver.close();
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
        metrics.dataRowsRead.set(resolver.dataRowsRead());
        return metrics;
    }

    /** HBase's scan metrics and one counter of ours. */
    static final class Metrics extends ScanMetrics {
        final AtomicLong dataRowsRead = createCounter(RowKeyTable.DATA_ROWS_READ_METRIC);
    }
}
