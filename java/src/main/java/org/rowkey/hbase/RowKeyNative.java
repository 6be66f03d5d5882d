package org.rowkey.hbase;

import java.nio.ByteBuffer;

/**
 * The seam between the Java shim and the native core: every native entry point, nothing else.
 * Handles are opaque pointers owned by {@link NativeHandle}. Errors arrive as
 * {@link IllegalArgumentException} (bad input, corrupt bytes, a limit exceeded) or
 * {@link IllegalStateException} (a bug in the native core, e.g. a caught panic).
 */
final class RowKeyNative {
    private RowKeyNative() {}

    static {
        NativeLoader.load();
    }

    /** Ensures the library is loaded (the static initializer does the work). */
    static void ensureLoaded() {}

    // ---- schema ----
    /** Parses and validates a serialized {@code SchemaSpec}; returns a schema handle. */
    static native long schemaParse(byte[] spec);
    /** The canonical serialized {@code SchemaSpec} of a schema. */
    static native byte[] schemaCanonical(long schema);
    static native int schemaKeyLength(long schema);
    /** Encodes a serialized {@code Row} into a row key. */
    static native byte[] schemaEncode(long schema, byte[] row);
    /** Decodes key[offset, offset+length) into a serialized {@code Row}. */
    static native byte[] schemaDecode(long schema, byte[] key, int offset, int length);
    static native void schemaFree(long schema);

    // ---- comparators ----
    /** Parses, validates and compiles a serialized {@code ComparatorSpec}; returns a comparator handle. */
    static native long comparatorParse(byte[] spec);
    /** The canonical serialized {@code ComparatorSpec}: equal comparators give equal bytes. */
    static native byte[] comparatorCanonical(long comparator);
    /**
     * What compareTo returns for a row of the wrong length without looking at it, or
     * {@code Integer.MIN_VALUE} when rows of any length must be passed to the native compare.
     */
    static native int comparatorWrongLengthResult(long comparator);
    /** compareTo over row[offset, offset+length); bounds already checked by the caller. */
    static native int compareArray(long comparator, byte[] row, int offset, int length);
    /** compareTo over a direct buffer's [offset, offset+length) (absolute); bounds already checked. */
    static native int compareDirect(long comparator, ByteBuffer direct, int offset, int length);
    static native void comparatorFree(long comparator);
    /**
     * compareTo over the first {@code length} bytes at {@code address}, the start of a live direct
     * buffer of at least that many bytes; no JNI call inside. {@code Integer.MIN_VALUE} when it
     * cannot answer (closed handle...): repeat with compareArray, which throws.
     */
    static native int compareAddress(long comparator, long address, int length);
    /** The address of a direct buffer. */
    static native long directAddress(ByteBuffer direct);
    /** Benchmarks: an empty native method with compareArray's arguments (the JNI call floor); 0. */
    static native int callFloor(long comparator, byte[] row, int offset, int length);

    // ---- scan planning ----
    /** Plans a serialized {@code ScanPlanRequest}; returns a serialized {@code ScanPlan}. */
    static native byte[] planScan(byte[] request);

    // ---- diagnostics ----
    /** Native schemas and comparators currently alive (created and not yet freed). */
    static native long liveObjects();
    /** Test only: panics inside native code; must surface as IllegalStateException. */
    static native void selfTestPanic();
}
