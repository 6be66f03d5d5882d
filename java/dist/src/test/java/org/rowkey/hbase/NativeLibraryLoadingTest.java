package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.junit.jupiter.api.Test;
import org.rowkey.hbase.RobustnessFixtures.Case;

/**
 * The native library loaded from many threads and class loaders at once, as on a RegionServer
 * whose handler threads first meet our comparator concurrently, possibly through HBase's
 * DynamicClassLoader: 16 threads triggering the first use in a fresh class loader load the
 * library once for it, and two fresh class loaders racing each load and use their own copy. The
 * loaders read our classes from this class path entry: target/classes here, the built jar in
 * {@code NativeLibraryLoadingIT}.
 */
class NativeLibraryLoadingTest {
    static final int THREADS = 16;

    /** Where our classes come from in this test execution (target/classes or the jar). */
    static URL ourClassPathEntry() {
        return NativeLoader.class.getProtectionDomain().getCodeSource().getLocation();
    }

    /** Comparators of every kind (in this loader), rows, and what they answer here. */
    static final class Reference {
        final List<String> classNames = new ArrayList<>();
        final List<byte[]> specs = new ArrayList<>();
        final List<byte[]> rows = new ArrayList<>();
        final List<int[]> answers = new ArrayList<>();

        Reference() {
            List<Case> cases = RobustnessFixtures.cases();
            java.util.Random random = new java.util.Random(5);
            try {
                for (Case c : cases) {
                    classNames.add(c.comparator.getClass().getName());
                    specs.add(c.comparator.toByteArray());
                    int[] expected = new int[8];
                    for (int i = 0; i < expected.length; i++) {
                        byte[] row = RobustnessFixtures.arbitraryRow(c, random);
                        rows.add(row);
                        expected[i] = c.comparator.compareTo(row, 0, row.length);
                    }
                    answers.add(expected);
                }
            } finally {
                RobustnessFixtures.closeAll(cases);
            }
        }

        /** Parses every comparator through {@code loader}'s classes and checks its answers; returns how many. */
        int checkThrough(ClassLoader loader) throws Exception {
            for (int c = 0; c < specs.size(); c++) {
                Class<?> type = Class.forName(classNames.get(c), true, loader);
                if (type.getClassLoader() != loader) {
                    throw new AssertionError(type + " was not loaded by the fresh loader");
                }
                ByteArrayComparable cmp = (ByteArrayComparable) type.getMethod("parseFrom", byte[].class)
                        .invoke(null, (Object) specs.get(c));
                int[] expected = answers.get(c);
                for (int i = 0; i < expected.length; i++) {
                    byte[] row = rows.get(c * expected.length + i);
                    int got = cmp.compareTo(row, 0, row.length);
                    if (got != expected[i]) {
                        throw new AssertionError(classNames.get(c) + " from " + loader + " answered " + got + ", expected " + expected[i]);
                    }
                }
                ((AutoCloseable) cmp).close();
            }
            return specs.size();
        }
    }

    /** Runs {@code work} on {@code THREADS} threads released at once by one barrier. */
    static List<Integer> atOnce(List<Callable<Integer>> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(work.size());
        CyclicBarrier start = new CyclicBarrier(work.size());
        try {
            List<Future<Integer>> futures = new ArrayList<>();
            for (Callable<Integer> w : work) {
                futures.add(pool.submit(() -> {
                    start.await(60, TimeUnit.SECONDS);
                    return w.call();
                }));
            }
            List<Integer> out = new ArrayList<>();
            for (Future<Integer> f : futures) {
                out.add(f.get(120, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void sixteenThreadsTriggerTheFirstUseInAFreshClassLoader() throws Throwable {
        Reference ref = new Reference();
        Set<String> before = FreshLoaders.mappedLibraries();
        try (URLClassLoader loader = FreshLoaders.over(ourClassPathEntry())) {
            List<Callable<Integer>> work = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                work.add(() -> ref.checkThrough(loader));
            }
            for (int checked : atOnce(work)) {
                assertEquals(ref.specs.size(), checked);
            }
            Class<?> nativeLoader = Class.forName("org.rowkey.hbase.NativeLoader", true, loader);
            assertNotSame(NativeLoader.class, nativeLoader);
            assertNotNull(FreshLoaders.invokeStatic(loader, "org.rowkey.hbase.NativeLoader", "loadedFrom", new Class<?>[0]));
            List<String> mapped = FreshLoaders.newlyMapped(before);
            assertEquals(1, mapped.size(), "16 racing threads, one library copy for the loader: " + mapped);
        }
    }

    @Test
    void twoClassLoadersAtOnceEachLoadAndUseTheirOwnCopy() throws Throwable {
        Reference ref = new Reference();
        Set<String> before = FreshLoaders.mappedLibraries();
        try (URLClassLoader first = FreshLoaders.over(ourClassPathEntry());
             URLClassLoader second = FreshLoaders.over(ourClassPathEntry())) {
            List<Callable<Integer>> work = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                ClassLoader loader = t % 2 == 0 ? first : second;
                work.add(() -> ref.checkThrough(loader));
            }
            for (int checked : atOnce(work)) {
                assertEquals(ref.specs.size(), checked);
            }
            List<String> mapped = FreshLoaders.newlyMapped(before);
            assertEquals(2, mapped.size(), "one library copy per class loader: " + mapped);
            assertNotEquals(mapped.get(0), mapped.get(1));
            // Each copy has its own live-object count: the two loaders share no native state.
            Object liveFirst = FreshLoaders.invokeStatic(first, "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]);
            Object liveSecond = FreshLoaders.invokeStatic(second, "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]);
            assertTrue((Long) liveFirst >= 0 && (Long) liveSecond >= 0);
        }
        // and the main loader's copy still works
        assertEquals(ref.specs.size(), ref.checkThrough(NativeLibraryLoadingTest.class.getClassLoader()));
    }
}
