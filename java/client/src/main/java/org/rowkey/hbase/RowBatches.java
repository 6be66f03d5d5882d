package org.rowkey.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

import org.apache.hadoop.hbase.client.metrics.ScanMetrics;

/** Batches of a read's rows, prepared where they are read: one read ({@link ParallelScanner}) or several merged ({@link MergedBatches}). */
@RunsIn(RunsIn.Where.CLIENT)
interface RowBatches<T> extends Closeable {
    /** The next batch (empty when its rows made nothing); null when no row is left. */
    List<T> next() throws IOException;

    /** Renews the leases of the scanners no task is reading. */
    boolean renewLease();

    /** The sum of the reads' scan metrics. */
    ScanMetrics getScanMetrics();

    @Override
    void close();
}
