package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * A panic in native code never crosses the JNI boundary: {@code NativeTestHooks.selfTestPanic()}
 * (a test-only export that panics) surfaces as an {@link IllegalStateException} carrying the
 * panic message, every time, and the JVM and the native library keep working afterwards.
 *
 * <p>The 10,000 sequential panics and the 16 threads panicking at once run in a child JVM under
 * {@code -Xcheck:jni} ({@link Harness}), so that the JVM's own output can be read: no JNI
 * warning, exactly one "panicked at" line per panic from the library's panic hook (told to log
 * them all, where by default it logs 10), a clean exit.
 */
class NativePanicTest {
    static final String EXPECTED = "panic in native hbase-rowkey code (please report): self-test panic";
    static final int SEQUENTIAL = 10_000;
    static final int THREADS = 16;
    static final int PER_THREAD = 1_000;

    /** Calls the panicking native once; returns the exception's message or fails. */
    static String panicOnce() {
        try {
            NativeTestHooks.selfTestPanic();
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
        throw new AssertionError("selfTestPanic returned normally");
    }

    @Test
    void aPanicIsAnIllegalStateExceptionWithThePanicMessage() {
        RowKeySchema schema = TestData.seedSchema();
        byte[] row = schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, true));
        for (int i = 0; i < 10; i++) {
            IllegalStateException e = assertThrows(IllegalStateException.class, NativeTestHooks::selfTestPanic);
            assertEquals(EXPECTED, e.getMessage());
            assertNull(e.getCause(), "no Java exception was pending, so there is no cause");
            // Not left pending: the next native call works.
            try (EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404))) {
                assertEquals(0, eq.compareTo(row));
            }
        }
    }

    @Test
    void tensOfThousandsOfPanicsFromManyThreadsInAChildJvmUnderCheckJni() throws Exception {
        long t0 = System.nanoTime();
        ChildJvm.Outcome out = ChildJvm.run("native-panics", Harness.class,
                Arrays.asList("-Xcheck:jni", "-Xmx512m"),
                // The library's panic hook logs the first 10 panics only, unless told otherwise:
                // here every panic gets its line, so that they can be counted.
                Collections.singletonMap("HBASE_ROWKEY_MAX_PANIC_LINES", "1000000"), 300);
        assertEquals(0, out.exitCode, out.describe());
        Matcher m = Pattern.compile("OK sequential=(\\d+) concurrent=(\\d+) compares=(\\d+)").matcher(out.stdout);
        assertTrue(m.find(), out.describe());
        int sequential = Integer.parseInt(m.group(1));
        int concurrent = Integer.parseInt(m.group(2));
        assertEquals(SEQUENTIAL, sequential);
        assertEquals(THREADS / 2 * PER_THREAD + THREADS / 2 * PER_THREAD / 2, concurrent);
        assertEquals(THREADS * PER_THREAD, Integer.parseInt(m.group(3)));
        // Every panic was a real Rust panic, seen once by the library's panic hook (one stderr line each), and caught.
        int total = sequential + concurrent + Harness.AFTER;
        assertEquals(total, out.count("panicked at"), "panic lines on stderr\n" + out.describe());
        assertEquals(Collections.emptyList(), out.lines(ChildJvm.JNI_PROBLEM), out.describe());
        assertTrue(out.lines(Pattern.compile("(?i)fatal|hs_err|SIGSEGV|abort")).isEmpty(), out.describe());
        System.out.printf("child JVM (-Xcheck:jni): %d panics surfaced as IllegalStateException, %d ms in all%n", total,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** The child JVM's work; prints "OK ..." and exits 0, or prints the failure and exits 1. */
    static final class Harness {
        static final int AFTER = 100;

        public static void main(String[] args) {
            try {
                RowKeySchema schema = TestData.seedSchema();
                byte[] row = schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, true));
                long live = RowKeyNative.liveObjects();
                int sequential = sequential(schema, row);
                int[] concurrent = concurrent(schema, row);
                afterwards(schema, row);
                // Comparators closed after use on other threads, and schemas, are freed by the cleaner.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (RowKeyNative.liveObjects() > live && System.nanoTime() < deadline) {
                    System.gc();
                    Thread.sleep(20);
                }
                if (RowKeyNative.liveObjects() > live) {
                    throw new AssertionError("panics leaked native objects: " + RowKeyNative.liveObjects() + " > " + live);
                }
                System.out.println("OK sequential=" + sequential + " concurrent=" + concurrent[0] + " compares=" + concurrent[1]);
                System.out.flush();
                System.exit(0);
            } catch (Throwable t) {
                t.printStackTrace(System.out);
                System.out.flush();
                System.exit(1);
            }
        }

        static int sequential(RowKeySchema schema, byte[] row) {
            int surfaced = 0;
            try (EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404))) {
                for (int i = 0; i < SEQUENTIAL; i++) {
                    String message = panicOnce();
                    if (!EXPECTED.equals(message)) {
                        throw new AssertionError("panic " + i + ": " + message);
                    }
                    surfaced++;
                    if (i % 100 == 0 && eq.compareTo(row) != 0) {
                        throw new AssertionError("wrong compare after panic " + i);
                    }
                }
            }
            return surfaced;
        }

        /** Half of the threads panic on every call, the others every second call, all comparing in between. */
        static int[] concurrent(RowKeySchema schema, byte[] row) throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CyclicBarrier start = new CyclicBarrier(THREADS);
            try (EqualComparator eq = new EqualComparator(schema, TestData.map("code", 404));
                 RangeComparator range = new RangeComparator(schema, "sdate", 20161210)) {
                List<Future<int[]>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    final int id = t;
                    futures.add(pool.submit((Callable<int[]>) () -> {
                        start.await(60, TimeUnit.SECONDS);
                        int panics = 0;
                        int compares = 0;
                        ByteBuffer direct = ByteBuffer.allocateDirect(row.length).put(row);
                        for (int i = 0; i < PER_THREAD; i++) {
                            if (id % 2 == 0 || i % 2 == 0) {
                                String message = panicOnce();
                                if (!EXPECTED.equals(message)) {
                                    throw new AssertionError("thread " + id + ", panic " + i + ": " + message);
                                }
                                panics++;
                            }
                            if (eq.compareTo(row) != 0 || range.compareTo(direct, 0, row.length) != 1) {
                                throw new AssertionError("thread " + id + ": wrong compare after a panic");
                            }
                            compares++;
                        }
                        return new int[] {panics, compares};
                    }));
                }
                int[] total = new int[2];
                for (Future<int[]> f : futures) {
                    int[] counts = f.get(240, TimeUnit.SECONDS);
                    total[0] += counts[0];
                    total[1] += counts[1];
                }
                return total;
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(60, TimeUnit.SECONDS);
            }
        }

        /** After all the panics: every kind of native call works, on this thread and a new one, and panics still surface. */
        static void afterwards(RowKeySchema schema, byte[] row) throws Exception {
            Runnable work = () -> {
                RowKeySchema s = RowKeySchema.parseFrom(schema.toByteArray());
                check(s.keyLength() == 37, "key length");
                check(Integer.valueOf(404).equals(s.decode(row).get("code")), "decode");
                try (PredicateComparator p = RowKeyQuery.on(s).eq("code", 404).between("sdate", 20161201, 20161209).toComparator();
                     PredicateComparator again = PredicateComparator.parseFrom(p.toByteArray())) {
                    check(p.compareTo(row) == 0, "predicate");
                    check(again.compareTo(ByteBuffer.allocateDirect(37).put(row), 0, 37) == 0, "parsed predicate, direct");
                } catch (org.apache.hadoop.hbase.exceptions.DeserializationException e) {
                    throw new AssertionError(e);
                }
                check(!RowKeyQuery.on(s).eq("md5url", "http://a").toRanges().isEmpty(), "scan planning");
            };
            work.run();
            Throwable[] failure = {null};
            Thread t = new Thread(work, "after-panics");
            t.setUncaughtExceptionHandler((thread, e) -> failure[0] = e);
            t.start();
            t.join(60_000);
            if (failure[0] != null) {
                throw new AssertionError("native calls after the panics failed", failure[0]);
            }
            for (int i = 0; i < AFTER; i++) {
                check(EXPECTED.equals(panicOnce()), "panic after the work");
            }
        }

        static void check(boolean ok, String what) {
            if (!ok) {
                throw new AssertionError(what);
            }
        }
    }
}
