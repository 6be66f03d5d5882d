package org.rowkey.hbase;

import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;

/**
 * The per-row seam: how {@code compareTo} reaches the native compare, chosen once when the class
 * loads. On Java 8–21 it is JNI ({@link JniRowCalls}); on Java 22 and newer it is a foreign-function
 * downcall with {@code Linker.Option.critical(true)} ({@code FfmRowCalls}, in the multi-release
 * jar's {@code META-INF/versions/22}), which passes a heap {@code byte[]} without copying it.
 * Construction, parsing and errors stay on JNI ({@link RowKeyNative}).
 *
 * <p>System property {@value #PROPERTY} = {@code jni} or {@code ffm} forces one mechanism
 * ({@code auto} or unset: FFM where available, else JNI). A forced mechanism that cannot be used
 * is an error, so a test or benchmark never measures the other one by mistake.
 *
 * <p>Implementations: the bounds are already checked by the caller, and the handle is live
 * (its owner keeps it reachable across the call); every failure becomes the same Java exception
 * as the JNI path throws.
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
abstract class RowCalls {
    static final String PROPERTY = "rowkey.native.call";
    static final String JNI = "jni";
    static final String FFM = "ffm";
    /** Where the FFM implementation lives: only in the jar's META-INF/versions/22. */
    static final String FFM_CLASS = "org.rowkey.hbase.FfmRowCalls";
    /**
     * What a per-row native function returns when it could not answer ({@code ffi::FFI_ERROR}):
     * the call is then repeated through JNI, which answers or throws. No comparator answers it.
     */
    static final int FFI_ERROR = Integer.MIN_VALUE;

    private static final RowCalls INSTANCE;
    /** Why the automatic choice is not FFM, for diagnostics; null when it is. */
    private static final String FALLBACK_REASON;

    static {
        RowKeyNative.ensureLoaded();
        String forced = System.getProperty(PROPERTY, "").trim().toLowerCase(java.util.Locale.ROOT);
        RowCalls chosen;
        String reason = null;
        if (forced.equals(JNI)) {
            chosen = new JniRowCalls();
            reason = "forced by -D" + PROPERTY + "=" + JNI;
        } else if (forced.equals(FFM)) {
            try {
                chosen = loadFfm();
            } catch (Throwable t) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + FFM + " but the FFM path is unavailable"
                        + " (Java 22+ and the multi-release jar are needed): " + t, t);
            }
        } else if (!forced.isEmpty() && !forced.equals("auto")) {
            throw new IllegalArgumentException("-D" + PROPERTY + " must be jni, ffm or auto, not " + forced);
        } else if (javaFeatureVersion() < 22) {
            chosen = new JniRowCalls();
            reason = "Java " + javaFeatureVersion() + " has no FFM critical downcalls";
        } else {
            RowCalls ffm;
            try {
                ffm = loadFfm();
            } catch (Throwable t) {
                ffm = null;
                reason = "FFM unavailable: " + t;
            }
            chosen = ffm != null ? ffm : new JniRowCalls();
        }
        INSTANCE = chosen;
        FALLBACK_REASON = reason;
    }

    /** The mechanism in use. */
    static RowCalls get() {
        return INSTANCE;
    }

    /** "jni" or "ffm". */
    abstract String mechanism();

    /** compareTo over row[offset, offset+length); bounds checked by the caller. */
    abstract int compareArray(long comparator, byte[] row, int offset, int length);

    /** compareTo over a direct buffer's absolute [offset, offset+length); bounds checked by the caller. */
    abstract int compareDirect(long comparator, ByteBuffer direct, int offset, int length);

    /** The mechanism and, when it is not FFM, why. */
    static String describe() {
        String described = INSTANCE.mechanism() + (FALLBACK_REASON == null ? "" : " (" + FALLBACK_REASON + ")");
        if (INSTANCE instanceof JniRowCalls && !RowMemory.AVAILABLE) {
            described += "; rows reach native code through JNI copies: " + RowMemory.UNAVAILABLE_REASON;
        }
        return described;
    }

    /** 8 for "1.8", else the leading number of java.specification.version ("17", "25"). */
    static int javaFeatureVersion() {
        String v = System.getProperty("java.specification.version", "1.8");
        if (v.startsWith("1.")) {
            v = v.substring(2);
        }
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        try {
            return Integer.parseInt(v.substring(0, end));
        } catch (NumberFormatException e) {
            return 8;
        }
    }

    private static RowCalls loadFfm() throws ReflectiveOperationException {
        Class<?> type = Class.forName(FFM_CLASS, true, RowCalls.class.getClassLoader());
        Constructor<?> constructor = type.getDeclaredConstructor();
        return (RowCalls) constructor.newInstance();
    }

    /**
     * Java 8 and newer: JNI, with no JNI call inside the native method on the usual paths. A heap
     * row is copied in Java into this thread's direct scratch buffer, 8 bytes at a time
     * ({@link RowMemory}), and compared there by address ({@code compareAddress}); a direct buffer
     * is compared in place by its address. A JNI {@code GetByteArrayRegion} or
     * {@code GetDirectBufferAddress} enters the VM and would cost more than the whole compare.
     * Without {@link RowMemory}, the copy is a {@code ByteBuffer.put} and direct buffers go
     * through {@code compareDirect}. Rows longer than the scratch buffer and failures (the native
     * side answers {@code FFI_ERROR}) go through {@code compareArray} / {@code compareDirect},
     * which answer or throw.
     */
    static final class JniRowCalls extends RowCalls {
        /** The longest key a schema may have: longer rows never match and are answered by compareArray. */
        static final int SCRATCH_BYTES = RowKeyNative.maxKeyBytes();

        private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<Scratch>() {
            @Override
            protected Scratch initialValue() {
                return new Scratch();
            }
        };

        /**
         * The scratch buffers last used, by thread id modulo the size: found here, a thread's
         * buffer costs a few loads instead of a {@code ThreadLocal} lookup (about 3 ns, as much as
         * the compare). A slot may hold another thread's buffer (same slot, or a race on the plain
         * array): its owner says so, and the thread then takes its own from the ThreadLocal. A hit
         * is always the thread's own buffer, which its ThreadLocal keeps reachable during the call.
         * Holds at most this many 4 KB buffers (and their threads, until the slot is reused).
         */
        private static final Scratch[] RECENT = new Scratch[64];

        /** One thread's copy of the row: a direct buffer, its address, and its thread. */
        static final class Scratch {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(SCRATCH_BYTES);
            final long address = RowKeyNative.directAddress(buffer);
            /** Final, so a thread that reads this object from {@link #RECENT} sees its fields set. */
            final Thread owner = Thread.currentThread();
        }

        @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
        private static Scratch scratch() {
            Thread current = Thread.currentThread();
            int slot = (int) current.getId() & (RECENT.length - 1);
            Scratch recent = RECENT[slot];
            if (recent != null && recent.owner == current) {
                return recent;
            }
            Scratch own = SCRATCH.get();
            RECENT[slot] = own;
            return own;
        }

        @Override
        String mechanism() {
            return JNI;
        }

        @Override
        int compareArray(long comparator, byte[] row, int offset, int length) {
            if (row == null || offset < 0 || length < 0 || length > SCRATCH_BYTES || offset > row.length - length) {
                return RowKeyNative.compareArray(comparator, row, offset, length);
            }
            Scratch scratch = scratch();
            if (RowMemory.AVAILABLE) {
                RowMemory.copy(row, offset, length, scratch.address);
            } else {
                scratch.buffer.clear();
                scratch.buffer.put(row, offset, length);
            }
            // The scratch buffer stays reachable through the static ThreadLocal: no fence needed.
            int result = RowKeyNative.compareAddress(comparator, scratch.address, length);
            if (result == FFI_ERROR) {
                return RowKeyNative.compareArray(comparator, row, offset, length);
            }
            return result;
        }

        @Override
        int compareDirect(long comparator, ByteBuffer direct, int offset, int length) {
            if (RowMemory.AVAILABLE && direct != null && direct.isDirect() && offset >= 0 && length >= 0
                    && offset <= direct.capacity() - length) {
                int result;
                try {
                    result = RowKeyNative.compareAddress(comparator, RowMemory.address(direct) + offset, length);
                } finally {
                    // The buffer's memory must outlive the call, which only sees its address.
                    NativeCleaner.keepAlive(direct);
                }
                if (result != FFI_ERROR) {
                    return result;
                }
            }
            return RowKeyNative.compareDirect(comparator, direct, offset, length);
        }
    }
}
