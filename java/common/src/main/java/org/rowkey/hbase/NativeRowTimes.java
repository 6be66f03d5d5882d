package org.rowkey.hbase;

import java.util.concurrent.atomic.LongAdder;

/**
 * The per-row native compares' time, sampled: each comparator times one compare in
 * {@value #SAMPLE_EVERY} of its own (a count of its own, so no two scans share a counter), and the
 * samples add up here, for the whole JVM. The RegionServer's metrics show them
 * ({@code NativeRowSamples}, {@code NativeRowSampleNanos}: their mean is the time of one compare,
 * the call included).
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
final class NativeRowTimes {
    private NativeRowTimes() {}

    /** A power of two: a compare is sampled when its count's low bits are all 0. */
    static final int SAMPLE_EVERY = 1024;

    private static final LongAdder SAMPLES = new LongAdder();
    private static final LongAdder NANOS = new LongAdder();

    /** The start of compare number {@code count} of a comparator when it is to be timed, else 0. */
    static long startIfSampled(int count) {
        return (count & (SAMPLE_EVERY - 1)) == 0 ? System.nanoTime() : 0;
    }

    /** A timed compare that started at {@code startNanos} (0: not timed). */
    static void endIfSampled(long startNanos) {
        if (startNanos != 0) {
            NANOS.add(System.nanoTime() - startNanos);
            SAMPLES.increment();
        }
    }

    static long samples() {
        return SAMPLES.sum();
    }

    static long nanos() {
        return NANOS.sum();
    }
}
