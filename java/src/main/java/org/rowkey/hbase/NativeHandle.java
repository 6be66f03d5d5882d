package org.rowkey.hbase;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Owns one native object: its pointer and the function that frees it. {@link #close()} frees it
 * once (later calls do nothing); a handle that is never closed is freed by {@link NativeCleaner}
 * after it becomes unreachable. Use after close is an {@link IllegalStateException}.
 *
 * <p>Closing while another thread still uses the handle is the caller's bug (as with any
 * resource); the cleaner never frees a handle that is still reachable.
 */
final class NativeHandle implements AutoCloseable {
    private final String what;
    private final AtomicLong pointer;
    private final Runnable release;

    /**
     * @param what what the object is, for messages ("EqualComparator", "RowKeySchema")
     * @param pointer the native pointer, not 0
     * @param free frees a pointer; called at most once, from {@link #close()} or the cleaner
     */
    NativeHandle(String what, long pointer, LongConsumer free) {
        if (pointer == 0) {
            throw new IllegalStateException("native core returned a null " + what + " handle");
        }
        this.what = what;
        this.pointer = new AtomicLong(pointer);
        // The action holds the pointer cell and the free function, never this handle.
        this.release = NativeCleaner.register(this, new Free(this.pointer, free));
    }

    /** The live pointer; {@link IllegalStateException} once closed. */
    long get() {
        long p = pointer.get();
        if (p == 0) {
            throw new IllegalStateException(what + " is closed");
        }
        return p;
    }

    boolean isClosed() {
        return pointer.get() == 0;
    }

    /** Frees the native object now; idempotent. */
    @Override
    public void close() {
        release.run();
    }

    @Override
    public String toString() {
        return what + (isClosed() ? " (closed)" : "");
    }

    /** The cleaning action: swaps the pointer to 0 so it is freed exactly once. */
    private static final class Free implements Runnable {
        private final AtomicLong pointer;
        private final LongConsumer free;

        Free(AtomicLong pointer, LongConsumer free) {
            this.pointer = pointer;
            this.free = free;
        }

        @Override
        public void run() {
            long p = pointer.getAndSet(0);
            if (p != 0) {
                free.accept(p);
            }
        }
    }
}
