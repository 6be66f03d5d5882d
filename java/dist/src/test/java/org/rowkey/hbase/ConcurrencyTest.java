package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.rowkey.hbase.RobustnessFixtures.Case;

/**
 * Comparators shared by many threads, as a RegionServer's handler threads may share one filter:
 * 16 threads x 200,000 compares give exactly the single-threaded reference answers; 16 threads
 * parsing the same bytes at once get equal, working comparators; {@code close()} racing
 * {@code compareTo} gives a result or "... is closed", never a crash. (Loading the native library
 * from many threads and class loaders at once: {@link NativeLoadingTest}, {@code NativeLoadingIT}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrencyTest {
    static final int THREADS = 16;
    static final int COMPARES_PER_THREAD = 200_000;
    static final int ROWS = 2_048;

    private final List<Case> cases = RobustnessFixtures.cases();
    private ExecutorService pool;

    @BeforeEach
    void startPool() {
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS), "worker threads ended");
    }

    @AfterAll
    void close() {
        RobustnessFixtures.closeAll(cases);
    }

    /** Runs {@code task(threadIndex)} on every pool thread at once; returns their results. */
    private <T> List<T> onAllThreads(ThreadTask<T> task) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<T>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            futures.add(pool.submit((Callable<T>) () -> {
                start.await(60, TimeUnit.SECONDS);
                return task.run(id);
            }));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(300, TimeUnit.SECONDS));
        }
        return results;
    }

    interface ThreadTask<T> {
        T run(int thread) throws Exception;
    }

    @Test
    void sixteenThreadsSharingComparatorsGiveTheReferenceAnswers() throws Exception {
        Random random = new Random(16);
        int n = cases.size();
        byte[][][] rows = new byte[n][ROWS][];
        ByteBuffer[][] directs = new ByteBuffer[n][ROWS];
        int[][] reference = new int[n][ROWS];
        for (int c = 0; c < n; c++) {
            for (int i = 0; i < ROWS; i++) {
                byte[] row = RobustnessFixtures.arbitraryRow(cases.get(c), random);
                rows[c][i] = row;
                directs[c][i] = ByteBuffer.allocateDirect(row.length).put(row);
                reference[c][i] = cases.get(c).comparator.compareTo(row, 0, row.length); // single-threaded
            }
        }
        long t0 = System.nanoTime();
        List<long[]> counts = onAllThreads(id -> {
            long compares = 0;
            long mismatches = 0;
            Random r = new Random(id);
            for (int i = 0; i < COMPARES_PER_THREAD; i++) {
                int c = r.nextInt(n);
                int row = r.nextInt(ROWS);
                ByteArrayComparable cmp = cases.get(c).comparator;
                byte[] bytes = rows[c][row];
                int result = (i & 1) == 0 ? cmp.compareTo(bytes, 0, bytes.length) : cmp.compareTo(directs[c][row], 0, bytes.length);
                if (result != reference[c][row]) {
                    mismatches++;
                }
                compares++;
            }
            return new long[] {compares, mismatches};
        });
        long compares = 0;
        long mismatches = 0;
        for (long[] c : counts) {
            compares += c[0];
            mismatches += c[1];
        }
        assertEquals((long) THREADS * COMPARES_PER_THREAD, compares);
        assertEquals(0, mismatches, "answers differing from the single-threaded reference");
        System.out.printf("%d threads x %d compares over %d shared comparators in %d ms, all equal to the reference%n",
                THREADS, COMPARES_PER_THREAD, n, (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * More threads than the JNI path's slots of recently used scratch buffers (64), in two
     * rounds of fresh threads, so slots collide and hold buffers of threads that have ended:
     * every answer is still the single-threaded reference (a row copied into a buffer another
     * thread writes at the same time would give wrong answers: without the owner check, thousands
     * of them here).
     */
    @Test
    void moreThreadsThanScratchSlotsGiveTheReferenceAnswers() throws Exception {
        // Half the rows are the comparator's key, half differ from it in one byte: a row read from
        // a buffer another thread has just overwritten flips the answer.
        Random random = new Random(130);
        byte[] key = new byte[37];
        random.nextBytes(key);
        byte[][] rows = new byte[ROWS][];
        for (int i = 0; i < ROWS; i++) {
            rows[i] = key.clone();
            if (i % 2 == 1) {
                rows[i][random.nextInt(key.length)] ^= 1;
            }
        }
        java.util.concurrent.atomic.AtomicLong mismatches = new java.util.concurrent.atomic.AtomicLong();
        try (EqualComparator eq = new EqualComparator(RowKeySchema.builder().fixedBytes("k", key.length).build(),
                TestData.map("k", key))) {
            for (int round = 0; round < 2; round++) {
                CyclicBarrier start = new CyclicBarrier(130);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 130; t++) {
                    final int seed = 1000 * round + t;
                    Thread thread = new Thread(() -> {
                        Random r = new Random(seed);
                        try {
                            start.await(60, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        for (int i = 0; i < 400_000; i++) {
                            int row = r.nextInt(ROWS);
                            if (eq.compareTo(rows[row], 0, rows[row].length) != row % 2) {
                                mismatches.incrementAndGet();
                            }
                        }
                    });
                    threads.add(thread);
                    thread.start();
                }
                for (Thread thread : threads) {
                    thread.join(TimeUnit.SECONDS.toMillis(120));
                    assertTrue(!thread.isAlive(), "worker thread ended");
                }
            }
        }
        assertEquals(0, mismatches.get(), "answers differing from the single-threaded reference");
    }

    @Test
    void sixteenThreadsParsingTheSameBytes() throws Exception {
        Random random = new Random(17);
        List<byte[]> rows = new ArrayList<>();
        List<int[]> reference = new ArrayList<>();
        for (Case c : cases) {
            int[] expected = new int[32];
            for (int i = 0; i < expected.length; i++) {
                byte[] row = RobustnessFixtures.arbitraryRow(c, random);
                rows.add(row);
                expected[i] = c.comparator.compareTo(row, 0, row.length);
            }
            reference.add(expected);
        }
        final int rounds = 40;
        long t0 = System.nanoTime();
        List<Integer> parsed = onAllThreads(id -> {
            int count = 0;
            for (int round = 0; round < rounds; round++) {
                for (int c = 0; c < cases.size(); c++) {
                    NativeComparator original = cases.get(c).comparator;
                    byte[] bytes = original.toByteArray();
                    NativeComparator copy = original instanceof EqualComparator ? EqualComparator.parseFrom(bytes)
                            : original instanceof RangeComparator ? RangeComparator.parseFrom(bytes)
                            : PredicateComparator.parseFrom(bytes);
                    try {
                        if (!copy.equals(original)) {
                            throw new AssertionError("parsed " + copy + " differs from " + original);
                        }
                        int[] expected = reference.get(c);
                        for (int i = 0; i < expected.length; i++) {
                            byte[] row = rows.get(c * 32 + i);
                            if (copy.compareTo(row, 0, row.length) != expected[i]) {
                                throw new AssertionError("parsed comparator " + copy + " answers differently");
                            }
                        }
                    } finally {
                        copy.close();
                    }
                    count++;
                }
            }
            return count;
        });
        int total = 0;
        for (int p : parsed) {
            total += p;
        }
        assertEquals(THREADS * rounds * cases.size(), total);
        // schemas too
        RowKeySchema schema = RobustnessFixtures.salted();
        List<byte[]> canonical = onAllThreads(id -> RowKeySchema.parseFrom(schema.toByteArray()).toByteArray());
        for (byte[] c : canonical) {
            assertArrayEquals(schema.toByteArray(), c);
        }
        System.out.printf("%d concurrent parseFrom calls of the same bytes in %d ms%n", total, (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * close() racing compareTo on other threads: every compare gives the reference answer or an
     * IllegalStateException saying the comparator is closed; never a crash, never another answer.
     * (Before NativeHandle's fix, close() freed the native program under compares still running
     * on other threads: wrong answers within a second here, and a possible JVM crash.)
     */
    @Test
    void closeRacingCompareToGivesAResultOrClosed() throws Exception {
        RowKeySchema schema = RobustnessFixtures.seed();
        byte[] spec = RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2)
                .toComparator().toByteArray();
        Random random = new Random(18);
        byte[][] rows = new byte[64][];
        ByteBuffer[] directs = new ByteBuffer[rows.length];
        int[] reference = new int[rows.length];
        try (PredicateComparator p = PredicateComparator.parseFrom(spec)) {
            for (int i = 0; i < rows.length; i++) {
                rows[i] = schema.encode(RobustnessFixtures.seedRow(random));
                directs[i] = ByteBuffer.allocateDirect(rows[i].length).put(rows[i]);
                reference[i] = p.compareTo(rows[i]);
            }
        }
        final int rounds = 1_000;
        AtomicLong answered = new AtomicLong();
        AtomicLong closedSeen = new AtomicLong();
        long t0 = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
            PredicateComparator shared = PredicateComparator.parseFrom(spec);
            AtomicBoolean done = new AtomicBoolean();
            CyclicBarrier start = new CyclicBarrier(THREADS / 4 + 1);
            List<Future<Void>> racers = new ArrayList<>();
            for (int t = 0; t < THREADS / 4; t++) {
                final int id = t;
                racers.add(pool.submit((Callable<Void>) () -> {
                    start.await(60, TimeUnit.SECONDS);
                    for (int i = 0; i < 20_000 && !done.get(); i++) {
                        int row = (i + id) % rows.length;
                        try {
                            int r = (i & 1) == 0 ? shared.compareTo(rows[row], 0, rows[row].length)
                                    : shared.compareTo(directs[row], 0, rows[row].length);
                            if (r != reference[row]) {
                                throw new AssertionError("compare racing close() answered " + r + ", expected " + reference[row]);
                            }
                            answered.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().endsWith("closed")) {
                                throw new AssertionError("unexpected: " + e, e);
                            }
                            closedSeen.incrementAndGet();
                            return null;
                        }
                    }
                    return null;
                }));
            }
            start.await(60, TimeUnit.SECONDS);
            if (round % 2 == 1) {
                Thread.yield();
            }
            shared.close();
            // Reuse the freed memory at once, so that a compare still reading it would see garbage.
            for (int i = 0; i < 4; i++) {
                PredicateComparator.parseFrom(spec).close();
            }
            done.set(true);
            for (Future<Void> f : racers) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        assertTrue(closedSeen.get() > 0, "some compares saw the comparator closed");
        System.out.printf("close() racing compareTo: %d rounds, %d answers (all correct), %d 'closed' exceptions, %d ms%n",
                rounds, answered.get(), closedSeen.get(), (System.nanoTime() - t0) / 1_000_000);
    }
}
