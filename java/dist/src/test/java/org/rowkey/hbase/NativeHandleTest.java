package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Handle ownership and the cleaner, with a Java free function (no native code). */
class NativeHandleTest {

    @Test
    void closeFreesExactlyOnce() {
        List<Long> freed = new ArrayList<>();
        NativeHandle h = new NativeHandle("Thing", 42, freed::add);
        assertEquals(42, h.get());
        assertFalse(h.isClosed());
        h.close();
        h.close();
        assertTrue(h.isClosed());
        assertEquals(1, freed.size());
        assertEquals(42L, (long) freed.get(0));
    }

    @Test
    void useAfterCloseIsIllegalState() {
        NativeHandle h = new NativeHandle("EqualComparator", 7, p -> { });
        h.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, h::get);
        assertEquals("EqualComparator is closed", e.getMessage());
        assertEquals("EqualComparator (closed)", h.toString());
    }

    @Test
    void nullPointerIsRefused() {
        assertThrows(IllegalStateException.class, () -> new NativeHandle("Thing", 0, p -> { }));
    }

    @Test
    void concurrentClosesFreeOnce() throws Exception {
        for (int round = 0; round < 200; round++) {
            AtomicInteger frees = new AtomicInteger();
            NativeHandle h = new NativeHandle("Thing", 1, p -> frees.incrementAndGet());
            CountDownLatch go = new CountDownLatch(1);
            Thread[] threads = new Thread[4];
            for (int i = 0; i < threads.length; i++) {
                threads[i] = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    h.close();
                });
                threads[i].start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(1, frees.get());
        }
    }

    @Test
    void forgottenHandlesAreFreedByTheCleaner() throws Exception {
        ConcurrentLinkedQueue<Long> freed = new ConcurrentLinkedQueue<>();
        int n = 1000;
        for (int i = 1; i <= n; i++) {
            new NativeHandle("Thing", i, freed::add); // dropped at once
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (freed.size() < n && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(n, freed.size());
        assertEquals(n, freed.stream().distinct().count());
    }

    @Test
    void cleanerRunsAnActionOnceAndNotAfterAnExplicitRun() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Object owner = new Object();
        Runnable clean = NativeCleaner.register(owner, runs::incrementAndGet);
        clean.run();
        clean.run();
        owner = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(1, runs.get());
        NativeCleaner.keepAlive(new Object());
        // target/classes is not a multi-release jar: the Java 8 implementation is in use here.
        assertEquals("phantom-reference", NativeCleaner.implementation());
    }
}
