package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * Regression test: {@code close()} on one thread while another thread is inside a native call
 * with the handle's pointer must not free the native object under that call (it did: a
 * use-after-free that {@link ConcurrencyTest#closeRacingCompareToGivesAResultOrClosed} saw as wrong
 * compare answers). Deterministic, with a Java "free" function: a handle only ever used by the
 * closing thread is still freed at once; one another thread has used is freed by the cleaner
 * once unreachable, exactly once.
 */
class NativeHandleCloseRaceTest {

    private static void awaitFreed(ConcurrentLinkedQueue<Long> freed, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (freed.size() < n && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
    }

    @Test
    void closeDoesNotFreeUnderACallOnAnotherThread() throws Exception {
        ConcurrentLinkedQueue<Long> freed = new ConcurrentLinkedQueue<>();
        NativeHandle[] holder = {new NativeHandle("Thing", 42, freed::add)};
        CountDownLatch gotPointer = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicLong seenAfterClose = new AtomicLong(-1);
        Thread caller = new Thread(() -> {
            NativeHandle h = holder[0];
            long p = h.get(); // "enters a native call" with p
            gotPointer.countDown();
            try {
                closed.await();
            } catch (InterruptedException e) {
                return;
            }
            // still "inside the call": the object behind p must not be freed yet
            seenAfterClose.set(freed.contains(p) ? 1 : 0);
            NativeCleaner.keepAlive(h); // the call returns
        });
        caller.start();
        assertTrue(gotPointer.await(30, TimeUnit.SECONDS));
        holder[0].get(); // this thread uses it too
        holder[0].close();
        assertTrue(holder[0].isClosed());
        assertThrows(IllegalStateException.class, holder[0]::get);
        closed.countDown();
        caller.join(30_000);
        assertEquals(0, seenAfterClose.get(), "freed while another thread was inside a call with it");
        holder[0].close(); // idempotent
        holder[0] = null;
        awaitFreed(freed, 1);
        assertEquals(1, freed.size(), "freed once the handle became unreachable");
        Thread.sleep(50);
        System.gc();
        assertEquals(1, freed.size(), "freed exactly once");
    }

    @Test
    void aHandleUsedOnlyByTheClosingThreadIsFreedAtOnce() {
        ConcurrentLinkedQueue<Long> freed = new ConcurrentLinkedQueue<>();
        NativeHandle h = new NativeHandle("Thing", 7, freed::add);
        h.get();
        h.get();
        h.close();
        assertEquals(1, freed.size());
        h.close();
        assertEquals(1, freed.size());
        NativeHandle unused = new NativeHandle("Thing", 8, freed::add);
        unused.close();
        assertEquals(2, freed.size(), "never used: freed at once");
    }

    @Test
    void closingFromAnotherThreadThanTheOneUserWaitsForTheCleaner() throws Exception {
        ConcurrentLinkedQueue<Long> freed = new ConcurrentLinkedQueue<>();
        NativeHandle[] holder = {new NativeHandle("Thing", 9, freed::add)};
        Thread user = new Thread(() -> holder[0].get());
        user.start();
        user.join(30_000);
        holder[0].close(); // the user thread might have been inside a call: no free now
        assertEquals(0, freed.size());
        assertThrows(IllegalStateException.class, holder[0]::get);
        holder[0] = null;
        awaitFreed(freed, 1);
        assertEquals(1, freed.size());
    }

    @Test
    void comparatorsClosedWhileSharedAreFreedOnceUnreachable() throws Exception {
        RowKeySchema schema = TestData.seedSchema();
        byte[] row = schema.encode(TestData.seedRow("http://a", 404, 20161209, 1, true));
        long before = TestData.settledLiveObjects();
        EqualComparator[] shared = {new EqualComparator(schema, TestData.map("code", 404))};
        int[] otherResult = {-2};
        Thread other = new Thread(() -> otherResult[0] = shared[0].compareTo(row));
        other.start();
        other.join(30_000);
        assertEquals(0, otherResult[0]);
        assertEquals(0, shared[0].compareTo(row));
        assertEquals(before + 1, RowKeyNative.liveObjects());
        shared[0].close();
        assertThrows(IllegalStateException.class, () -> shared[0].compareTo(row));
        shared[0] = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (RowKeyNative.liveObjects() > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(RowKeyNative.liveObjects() <= before, "native object freed by the cleaner");
    }
}
