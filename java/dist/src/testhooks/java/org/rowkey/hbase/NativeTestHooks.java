package org.rowkey.hbase;

import java.lang.invoke.MethodHandle;

/**
 * The native test hooks: exports that only the library built with the {@code test-hooks} cargo
 * feature has (the tests and benchmarks load that one; the jar's library has none of them, which
 * {@code JarLoadingIT} checks). Compiled into the tests and the benchmarks, never into the jar.
 */
public final class NativeTestHooks {
    private NativeTestHooks() {}

    static {
        RowKeyNative.ensureLoaded();
    }

    /** Panics inside native code; must surface as {@link IllegalStateException}. */
    public static native void selfTestPanic();

    /** An empty JNI native method with compareArray's arguments (the JNI call floor); 0. */
    public static native int callFloor(long comparator, byte[] row, int offset, int length);

    /** The FFM per-row downcall of the empty {@code rowkey_call_floor} (Java 22+ only). */
    private static final class FfmFloor {
        static final MethodHandle FLOOR;

        static {
            try {
                FLOOR = (MethodHandle) Class.forName(RowCalls.FFM_CLASS)
                        .getDeclaredMethod("arrayRowCall", String.class)
                        .invoke(null, "rowkey_call_floor");
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the FFM call floor needs Java 22+: " + e, e);
            }
        }
    }

    /** An empty call with compareArray's arguments through the mechanism compareTo uses in this JVM. */
    public static int mechanismFloor(long comparator, byte[] row, int offset, int length) {
        if (!RowCalls.get().mechanism().equals(RowCalls.FFM)) {
            return callFloor(comparator, row, offset, length);
        }
        try {
            return (int) FfmFloor.FLOOR.invokeExact(comparator, row, (long) offset, (long) length);
        } catch (Throwable t) {
            throw new IllegalStateException("FFM call floor failed", t);
        }
    }
}
