package org.rowkey.hbase;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * Owns one native object: its pointer and the function that frees it. After {@link #close()},
 * {@link #get()} is an {@link IllegalStateException}; the object is freed exactly once, by
 * {@code close()} or by {@link NativeCleaner} after the handle becomes unreachable.
 *
 * <p>{@code close()} may race calls on other threads (a comparator shared by threads, one of
 * them closing it): a thread that got the pointer from {@link #get()} may still be inside a
 * native call with it. So {@code close()} frees at once only when no other thread has ever
 * used the handle; otherwise it only marks the handle closed and leaves the free to the
 * cleaner, which runs once the handle is unreachable, i.e. after every caller has passed its
 * {@link NativeCleaner#keepAlive} fence. Freeing at once in that case was a use-after-free
 * (wrong answers, or a crash of the JVM). The check costs {@code get()} one volatile read.
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class NativeHandle implements AutoCloseable {
    /** {@link #user} once more than one thread has called {@link #get()}. */
    private static final Object SHARED = new Object();

    private final String what;
    /** The pointer, 0 once closed. */
    private final AtomicLong pointer;
    /** Runs the free action now (at most once in all, with the cleaner's run). */
    private final Runnable release;
    /** null before any {@link #get()}, then the one thread that called it, then {@link #SHARED}. */
    private final AtomicReference<Object> user = new AtomicReference<>();

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
        // The action holds the pointer value and the free function, never this handle.
        this.release = NativeCleaner.register(this, new Free(pointer, free));
    }

    /**
     * The live pointer; {@link IllegalStateException} once closed. The caller keeps this handle
     * reachable until its native call returns ({@link NativeCleaner#keepAlive}).
     */
    long get() {
        Object u = user.get();
        if (u != SHARED && u != Thread.currentThread()) {
            noteUser(u);
        }
        // Read after recording the user: close() zeroes the pointer before it reads the user,
        // so either close() sees this thread and leaves the free to the cleaner, or this read
        // sees 0 (volatile accesses are sequentially consistent).
        long p = pointer.get();
        if (p == 0) {
            throw new IllegalStateException(what + " is closed");
        }
        return p;
    }

    /** The first call from this thread: it becomes the user, or the handle becomes shared. */
    private void noteUser(Object seen) {
        if (seen == null && user.compareAndSet(null, Thread.currentThread())) {
            return;
        }
        user.set(SHARED);
    }

    boolean isClosed() {
        return pointer.get() == 0;
    }

    /**
     * Closes the handle; idempotent. Frees the native object now when no other thread has used
     * the handle (none can be inside a native call with it), else once it is unreachable.
     */
    @Override
    public void close() {
        if (pointer.getAndSet(0) == 0) {
            return;
        }
        Object u = user.get();
        if (u == null || u == Thread.currentThread()) {
            release.run();
        }
        // else: another thread may still be inside a native call with the pointer; the cleaner
        // frees it once this handle is unreachable.
    }

    @Override
    public String toString() {
        return what + (isClosed() ? " (closed)" : "");
    }

    /** The cleaning action: frees the pointer exactly once. */
    private static final class Free implements Runnable {
        private final long pointer;
        private final LongConsumer free;
        private final AtomicBoolean done = new AtomicBoolean();

        Free(long pointer, LongConsumer free) {
            this.pointer = pointer;
            this.free = free;
        }

        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                free.accept(pointer);
            }
        }
    }
}
