package org.rowkey.hbase;

import org.apache.hadoop.hbase.filter.ByteArrayComparable;

/** Benchmarks only: the package-private per-row seam of hbase-rowkey. */
public final class BenchAccess {
    private BenchAccess() {}

    /** "jni" or "ffm": the mechanism compareTo uses in this JVM. */
    public static String mechanism() {
        return RowCalls.get().mechanism();
    }

    public static String describe() {
        return RowCalls.describe();
    }

    /** An empty JNI native method with compareArray's arguments. */
    public static int jniFloor(long comparator, byte[] row, int offset, int length) {
        return NativeTestHooks.callFloor(comparator, row, offset, length);
    }

    /** An empty FFM critical downcall with compareArray's arguments (FFM path only). */
    public static int ffmFloor(long comparator, byte[] row, int offset, int length) {
        return NativeTestHooks.mechanismFloor(comparator, row, offset, length);
    }

    /** The per-row seam (JNI or FFM, as chosen at load) without NativeComparator's own checks. */
    public static int seamCompare(long comparator, byte[] row, int offset, int length) {
        return RowCalls.get().compareArray(comparator, row, offset, length);
    }

    /** JNI compareArray, whatever the active mechanism. */
    public static int jniCompare(long comparator, byte[] row, int offset, int length) {
        return RowKeyNative.compareArray(comparator, row, offset, length);
    }

    /** The native handle of one of our comparators. */
    public static long handle(ByteArrayComparable comparator) {
        return ((NativeComparator) comparator).nativeHandle();
    }
}
