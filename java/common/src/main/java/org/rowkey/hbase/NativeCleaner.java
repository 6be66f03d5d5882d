package org.rowkey.hbase;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Runs a cleaning action once an owner object has become unreachable, unless it was run
 * explicitly before. Java 8 version: a {@link PhantomReference} per owner and one daemon thread
 * draining the {@link ReferenceQueue}. The multi-release jar replaces this class on Java 9+ with
 * one built on {@code java.lang.ref.Cleaner} (same package-private API).
 *
 * <p>The action must not reference the owner, or the owner never becomes unreachable.
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class NativeCleaner {
    private NativeCleaner() {}

    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    /** Keeps the registered references themselves reachable until they are cleaned. */
    private static final Set<Registration> PENDING =
            Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    static {
        Thread t = new Thread(NativeCleaner::drain, "hbase-rowkey-cleaner");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Registers {@code action} to run when {@code owner} becomes phantom reachable. Returns a
     * {@link Runnable} that runs the action now instead; either way it runs at most once.
     */
    static Runnable register(Object owner, Runnable action) {
        Registration r = new Registration(owner, action);
        PENDING.add(r);
        return r::clean;
    }

    /**
     * Keeps {@code o} reachable up to this call: put it after a native call that uses memory
     * the owner's cleaning action frees. (Java 9+: {@code Reference.reachabilityFence}.)
     */
    static void keepAlive(Object o) {
        // Java 8 has no reachability fence; a lock on the object cannot be removed by the JIT
        // for an object that escapes, so the object stays reachable until here.
        synchronized (o) {
            // nothing
        }
    }

    /** Which implementation is in use: "phantom-reference" here, "java.lang.ref.Cleaner" on 9+. */
    static String implementation() {
        return "phantom-reference";
    }

    private static void drain() {
        while (true) {
            try {
                Reference<?> ref = QUEUE.remove();
                ((Registration) ref).clean();
            } catch (InterruptedException e) {
                // A daemon thread of ours: keep going.
            } catch (Throwable t) {
                // An action must not kill the cleaner thread.
            }
        }
    }

    private static final class Registration extends PhantomReference<Object> {
        private Runnable action;

        Registration(Object owner, Runnable action) {
            super(owner, QUEUE);
            this.action = action;
        }

        void clean() {
            Runnable a;
            synchronized (this) {
                a = action;
                action = null;
            }
            if (a != null) {
                PENDING.remove(this);
                clear();
                a.run();
            }
        }
    }
}
