package org.rowkey.hbase;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;

/**
 * Runs a cleaning action once an owner object has become unreachable, unless it was run
 * explicitly before. Java 9+ version (META-INF/versions/9 of the multi-release jar): one shared
 * {@link Cleaner}. Same package-private API as the Java 8 version.
 *
 * <p>The action must not reference the owner, or the owner never becomes unreachable.
 */
final class NativeCleaner {
    private NativeCleaner() {}

    private static final Cleaner CLEANER = Cleaner.create();

    /**
     * Registers {@code action} to run when {@code owner} becomes phantom reachable. Returns a
     * {@link Runnable} that runs the action now instead; either way it runs at most once.
     */
    static Runnable register(Object owner, Runnable action) {
        Cleaner.Cleanable cleanable = CLEANER.register(owner, action);
        return cleanable::clean;
    }

    /**
     * Keeps {@code o} reachable up to this call: put it after a native call that uses memory
     * the owner's cleaning action frees.
     */
    static void keepAlive(Object o) {
        Reference.reachabilityFence(o);
    }

    /** Which implementation is in use. */
    static String implementation() {
        return "java.lang.ref.Cleaner";
    }
}
