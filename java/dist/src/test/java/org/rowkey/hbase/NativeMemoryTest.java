package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * Native memory over a RegionServer's lifetime: 1,000,000 comparators created and closed, and
 * 1,000,000 left to the garbage collector (as HBase does: it never closes a filter's comparator),
 * of every kind, some made by {@code parseFrom} as on a RegionServer. The native count of live
 * objects ({@code RowKeyNative.liveObjects()}) must return to its baseline, and stay bounded on
 * the way. Here (target/classes) the Java 8 phantom-reference cleaner runs; {@code NativeCleanupIT}
 * checks the Java 9+ {@code java.lang.ref.Cleaner} variant of the jar.
 */
class NativeMemoryTest {
    static final int N = 1_000_000;

    private final RowKeySchema schema = RowKeySchema.builder().int32("a").bool("b").build();
    private final byte[] row = schema.encode(TestData.map("a", 7, "b", true));
    private final byte[] parsedSpec = new EqualComparator(schema, TestData.map("b", true)).toByteArray();


    /** Polls with System.gc() until at most {@code target} objects are alive or the time is up; returns the count. */
    static long awaitLiveAtMost(long target, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long live = RowKeyNative.liveObjects();
        while (live > target && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(25);
            live = RowKeyNative.liveObjects();
        }
        return live;
    }

    /**
     * Producers faster than the (single) cleaner thread wait above 400,000 live objects until it
     * is back under 200,000, so memory stays sane on machines with many cores.
     */
    private static void throttle(long baseline) throws InterruptedException {
        if (RowKeyNative.liveObjects() - baseline <= 400_000) {
            return;
        }
        synchronized (NativeMemoryTest.class) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; RowKeyNative.liveObjects() - baseline > 200_000 && System.nanoTime() < deadline; i++) {
                if (i % 20 == 0) {
                    System.gc(); // the producers are waiting: nothing else allocates
                }
                Thread.sleep(25);
            }
        }
    }

    private NativeComparator make(int i) throws Exception {
        switch (i % 4) {
            case 0: return new EqualComparator(schema, TestData.map("a", i));
            case 1: return new RangeComparator(schema, "a", i);
            case 2: return RowKeyQuery.on(schema).eq("b", true).ge("a", i).toComparator();
            default: return EqualComparator.parseFrom(parsedSpec);
        }
    }

    /** Runs {@code work(from, to)} over [0, N) split between a few threads (each closes what it made). */
    private static void split(Slice work) throws Exception {
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int from = (int) ((long) N * t / threads);
                int to = (int) ((long) N * (t + 1) / threads);
                futures.add(pool.submit(() -> {
                    work.run(from, to);
                    return null;
                }));
            }
            for (Future<Void> f : futures) {
                f.get(600, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
    }

    interface Slice {
        void run(int from, int to) throws Exception;
    }

    @Test
    void aMillionClosedAndAMillionForgottenReturnToTheBaseline() throws Exception {
        long baseline = TestData.settledLiveObjects();
        long rss0 = rssKb();
        long t0 = System.nanoTime();
        split((from, to) -> {
            for (int i = from; i < to; i++) {
                NativeComparator c = make(i);
                if (i % 1000 == 0) {
                    int r = c.compareTo(row);
                    assertTrue(r >= -1 && r <= 1);
                }
                c.close();
            }
        });
        long closedMs = (System.nanoTime() - t0) / 1_000_000;
        // Each was closed on the thread that made (and used) it: freed at once, nothing left.
        assertTrue(RowKeyNative.liveObjects() <= baseline, "closed comparators left " + (RowKeyNative.liveObjects() - baseline));

        long t1 = System.nanoTime();
        AtomicLong peak = new AtomicLong();
        split((from, to) -> {
            for (int i = from; i < to; i++) {
                NativeComparator c = make(i); // dropped: the cleaner frees it
                if (i % 1000 == 0) {
                    c.compareTo(row);
                }
                if (i % 10_000 == 0) {
                    peak.accumulateAndGet(RowKeyNative.liveObjects() - baseline, Math::max);
                    throttle(baseline);
                }
            }
        });
        long live = awaitLiveAtMost(baseline, 120);
        long forgottenMs = (System.nanoTime() - t1) / 1_000_000;
        assertTrue(live <= baseline, "forgotten comparators never freed: " + (live - baseline) + " of " + N);
        // Freed along the way, not only at the end.
        assertTrue(peak.get() <= 600_000, "live objects peaked at " + peak);
        System.out.printf("%d comparators closed in %d ms; %d forgotten ones freed by the cleaner in %d ms (peak %d alive);"
                + " live objects back to %d (baseline %d); RSS %d MB -> %d MB%n", N, closedMs, N, forgottenMs, peak.get(),
                RowKeyNative.liveObjects(), baseline, rss0 / 1024, rssKb() / 1024);
        assertEquals("phantom-reference", NativeCleaner.implementation());
    }

    /** Resident set size of this process in kB (Linux), or -1. */
    static long rssKb() {
        try {
            for (String line : new String(Files.readAllBytes(Paths.get("/proc/self/status")), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
