package org.rowkey.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

/** Batches of a read's rows, prepared where they are read: one read ({@link ParallelScanner}) or several merged ({@link MergedBatches}). */
@RunsIn(RunsIn.Where.CLIENT)
interface RowBatches<T> extends Closeable {
    /**
     * Starts reading, before the first batch is asked for (a read through an index, while its
     * catalog check runs). What {@link #next} would start itself; nothing it starts writes.
     */
    void start();

    /** The next batch (empty when its rows made nothing); null when no row is left. */
    List<T> next() throws IOException;

    /** Renews the leases of the scanners no task is reading. */
    boolean renewLease();

    /** The sum of the reads' scan metrics. */
    ScanMetrics getScanMetrics();

    @Override
    void close();
}
