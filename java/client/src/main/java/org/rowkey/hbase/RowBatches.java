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

    /**
     * Runs {@code allRead} once every row of the read has reached the client: on the thread that
     * read the last of them, or at once when they all have; never for a read closed before. (The
     * check that ends a read through an index needs no more: it then runs while the last rows are
     * answered.)
     */
    void whenAllRead(Runnable allRead);

    /** The next batch (empty when its rows made nothing); null when no row is left. */
    List<T> next() throws IOException;

    /** Renews the leases of the scanners no task is reading. */
    boolean renewLease();

    /** The sum of the reads' scan metrics. */
    ScanMetrics getScanMetrics();

    /**
     * Whether every region the reads read rows from is one their chunks were cut at
     * ({@link ParallelScanner#readOnlyRegionsCut}); asked once every row was read.
     */
    boolean readOnlyRegionsCut();

    @Override
    void close();
}
