package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Reads each in descending key order (a salted index's buckets, each of whose rows sort as their
 * data rows do), merged into one descending order: every read started at once, then the highest
 * head taken until a batch is full ({@link ParallelScanner#openMerged}). A read whose rows come out
 * of that order fails the merge with an error naming the keys: its rows would be answered out of
 * order, and a reader of the last rows would stop too early.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class MergedBatches<T> implements RowBatches<T> {
    /** Rows of a merged batch, at most. */
    static final int BATCH = ParallelScanner.BATCH;

    private final List<ParallelScanner<T>> reads;
    private final Function<T, byte[]> keyOf;
    /** The reads with a row left, the highest head first; null before the first batch. */
    private PriorityQueue<Head> heads;

    MergedBatches(List<ParallelScanner<T>> reads, Function<T, byte[]> keyOf) {
        this.reads = reads;
        this.keyOf = keyOf;
    }

    /** One read's current batch and where the merge is in it. */
    private final class Head {
        final ParallelScanner<T> read;
        List<T> batch;
        int next;
        /** The key last taken from this read: the next must not be above it. */
        byte[] last;

        Head(ParallelScanner<T> read) {
            this.read = read;
        }

        byte[] key() {
            return keyOf.apply(batch.get(next));
        }

        /** Whether a row is left, reading the next non-empty batch when this one is taken. */
        boolean holds() throws IOException {
            while (batch == null || next == batch.size()) {
                batch = read.next();
                next = 0;
                if (batch == null) {
                    return false;
                }
            }
            return true;
        }

        T take() throws IOException {
            byte[] key = key();
            if (last != null && Bytes.compareTo(key, last) > 0) {
                throw new IOException("a merged read's rows are out of descending order: " + Bytes.toStringBinary(key)
                        + " after " + Bytes.toStringBinary(last));
            }
            last = key;
            return batch.get(next++);
        }
    }

    @Override
    public void whenAllRead(Runnable allRead) {
        AtomicInteger reading = new AtomicInteger(reads.size());
        for (ParallelScanner<T> read : reads) {
            read.whenAllRead(() -> {
                if (reading.decrementAndGet() == 0) {
                    allRead.run();
                }
            });
        }
    }

    @Override
    public void start() {
        reads.forEach(ParallelScanner::start);
    }

    @Override
    public List<T> next() throws IOException {
        if (heads == null) {
            reads.forEach(ParallelScanner::start);
            heads = new PriorityQueue<>(Math.max(1, reads.size()), (a, b) -> Bytes.compareTo(b.key(), a.key()));
            for (ParallelScanner<T> read : reads) {
                Head head = new Head(read);
                if (head.holds()) {
                    heads.add(head);
                }
            }
        }
        if (heads.isEmpty()) {
            return null;
        }
        List<T> batch = new ArrayList<>(BATCH);
        while (batch.size() < BATCH && !heads.isEmpty()) {
            Head head = heads.poll();
            batch.add(head.take());
            if (head.holds()) {
                heads.add(head);
            }
        }
        return batch;
    }

    @Override
    public boolean renewLease() {
        boolean renewed = true;
        for (ParallelScanner<T> read : reads) {
            renewed &= read.renewLease();
        }
        return renewed;
    }

    @Override
    public boolean readOnlyRegionsCut() {
        for (ParallelScanner<T> read : reads) {
            if (!read.readOnlyRegionsCut()) {
                return false;
            }
        }
        return true;
    }

    /** The sum of the reads' scan metrics. */
    @Override
    public ScanMetrics getScanMetrics() {
        List<ScanMetrics> each = new ArrayList<>(reads.size());
        for (ParallelScanner<T> read : reads) {
            each.add(read.getScanMetrics());
        }
        return ParallelScanner.sum(each);
    }

    @Override
    public void close() {
        reads.forEach(ParallelScanner::close);
    }
}
