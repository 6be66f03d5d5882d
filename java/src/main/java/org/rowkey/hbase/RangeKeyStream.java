package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.UnaryOperator;

import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;

/**
 * A leaf {@link KeyStream}: the data keys of one key range of a table (the data table or an index)
 * whose rows are in data-key order (docs/joins.md). Reads key-only rows with scans bounded by a
 * row limit: one row after a seek, then twice as many each time it is read on in order. A seek
 * past the rows already read opens a new scan at the target: the rows in between are never read.
 */
final class RangeKeyStream implements KeyStream {
    private static final int MAX_BATCH = 1024;

    private final Table table;
    private final byte[] start;
    /** Exclusive; empty: the end of the table. */
    private final byte[] stop;
    /** Extra filter of the rows (a data-table plan's residual), or null. */
    private final Filter filter;
    /** The data key of a row of the range. */
    private final UnaryOperator<byte[]> dataKeyOf;
    /** The row where the first data key at or after a target can be, or null when none can. */
    private final UnaryOperator<byte[]> rowAtOrAfter;

    private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
    /** Where the next scan starts (inclusive). */
    private byte[] resume;
    /** No row after {@link #resume}. */
    private boolean exhausted;
    private int batch = 1;
    private long rowsRead;
    private long scans;

    RangeKeyStream(Table table, byte[] start, byte[] stop, Filter filter, UnaryOperator<byte[]> dataKeyOf,
            UnaryOperator<byte[]> rowAtOrAfter) {
        this.table = table;
        this.start = start;
        this.stop = stop;
        this.filter = filter;
        this.dataKeyOf = dataKeyOf;
        this.rowAtOrAfter = rowAtOrAfter;
    }

    @Override
    public byte[] key() throws IOException {
        if (resume == null) {
            resume = start;
            fetch();
        }
        return buffered.peek();
    }

    @Override
    public void advance() throws IOException {
        byte[] current = key();
        if (current == null) {
            return;
        }
        while (!buffered.isEmpty() && KeyStreams.compare(buffered.peek(), current) == 0) {
            buffered.poll();
        }
        if (buffered.isEmpty() && !exhausted) {
            batch = Math.min(MAX_BATCH, batch * 2);
            fetch();
        }
    }

    @Override
    public void seek(byte[] target) throws IOException {
        if (resume != null) {
            while (!buffered.isEmpty() && KeyStreams.compare(buffered.peek(), target) < 0) {
                buffered.poll();
            }
            if (!buffered.isEmpty() || exhausted) {
                return; // already there, or nothing left: no scan
            }
        }
        byte[] row = rowAtOrAfter.apply(target);
        if (row == null || (stop.length > 0 && KeyStreams.compare(row, stop) >= 0)) {
            resume = stop;
            exhausted = true;
            return;
        }
        resume = resume == null || KeyStreams.compare(row, resume) > 0 ? row : resume;
        if (KeyStreams.compare(resume, start) < 0) {
            resume = start;
        }
        batch = 1;
        fetch();
    }

    /** Reads up to {@link #batch} rows from {@link #resume}. */
    private void fetch() throws IOException {
        Filter keysOnly = new FilterList(FilterList.Operator.MUST_PASS_ALL, new FirstKeyOnlyFilter(), new KeyOnlyFilter());
        Scan scan = new Scan().withStartRow(resume, true).setLimit(batch).setCaching(batch)
                .setFilter(filter == null ? keysOnly : new FilterList(FilterList.Operator.MUST_PASS_ALL, filter, keysOnly))
                .setScanMetricsEnabled(true);
        if (stop.length > 0) {
            scan.withStopRow(stop, false);
        }
        int count = 0;
        byte[] last = null;
        try (ResultScanner rows = table.getScanner(scan)) {
            for (Result r; (r = rows.next()) != null;) {
                last = r.getRow();
                buffered.add(dataKeyOf.apply(last));
                count++;
            }
            ScanMetrics metrics = rows.getScanMetrics();
            rowsRead += metrics == null ? count : Math.max(count, metrics.countOfRowsScanned.get());
        }
        scans++;
        if (count < batch) {
            exhausted = true;
        } else {
            resume = Arrays.copyOf(last, last.length + 1); // the first row after the last one read
        }
    }

    /** Rows the server read for this stream (key-only). */
    long rowsRead() {
        return rowsRead;
    }

    /** Scans opened (the first read, each seek beyond the rows read, each next batch). */
    long scans() {
        return scans;
    }
}
