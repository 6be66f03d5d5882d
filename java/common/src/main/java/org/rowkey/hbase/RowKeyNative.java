package org.rowkey.hbase;

import java.nio.ByteBuffer;

/**
 * The seam between the Java shim and the native core: every native entry point, nothing else.
 * Handles are opaque pointers owned by {@link NativeHandle}. Errors arrive as
 * {@link IllegalArgumentException} (bad input, corrupt bytes, a limit exceeded) or
 * {@link IllegalStateException} (a bug in the native core, e.g. a caught panic).
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
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
    /** Encodes a row's values in key order, in the form {@link FlatValues} writes, into a row key. */
    static native byte[] schemaEncode(long schema, byte[] values);
    /** Decodes key[offset, offset+length) into a serialized {@code Row}. */
    static native byte[] schemaDecode(long schema, byte[] key, int offset, int length);
    static native void schemaFree(long schema);

    // ---- comparators ----
    /** Parses, validates and compiles a serialized {@code ComparatorSpec}; returns a comparator handle. */
    static native long comparatorParse(byte[] spec);
    /** The canonical serialized {@code ComparatorSpec}: equal comparators give equal bytes. */
    static native byte[] comparatorCanonical(long comparator);
    /** Row key length of the comparator's schema. */
    static native int comparatorKeyLength(long comparator);
    /** The comparator's kind: the number of its field in {@code ComparatorSpec.kind} ({@code KindCase.forNumber}). */
    static native int comparatorKind(long comparator);
    /** What compareTo returns for a row of the wrong length: rows of other lengths need no native call. */
    static native int comparatorWrongLengthResult(long comparator);
    /** compareTo over row[offset, offset+length); bounds already checked by the caller. */
    static native int compareArray(long comparator, byte[] row, int offset, int length);
    /** compareTo over a direct buffer's [offset, offset+length) (absolute); bounds already checked. */
    static native int compareDirect(long comparator, ByteBuffer direct, int offset, int length);
    static native void comparatorFree(long comparator);
    /**
     * compareTo over the first {@code length} bytes at {@code address}, the start of a live direct
     * buffer of at least that many bytes; no JNI call inside. {@link RowCalls#FFI_ERROR} when it
     * cannot answer (closed handle...): repeat with compareArray, which throws.
     */
    static native int compareAddress(long comparator, long address, int length);
    /** The address of a direct buffer. */
    static native long directAddress(ByteBuffer direct);
    /** The conditions of a serialized {@code ComparatorSpec} as text (SQL-like), for toString and explain. */
    static native String describeComparator(byte[] spec);

    // ---- text (src/text.rs; texts travel as UTF-8) ----
    /** A where clause on a serialized {@code SchemaSpec}, as a serialized {@code PredicateComparatorSpec}. */
    static native byte[] parseWhere(byte[] schema, byte[] text);
    /** A schema's text form as a canonical serialized {@code SchemaSpec}. */
    static native byte[] parseSchemaText(byte[] text);
    /** The text form of a serialized {@code SchemaSpec}. */
    static native String describeSchema(byte[] spec);

    // ---- scan planning ----
    /** Plans a serialized {@code ScanPlanRequest}; returns a serialized {@code ScanPlan}. */
    static native byte[] planScan(byte[] request);

    // ---- table catalogs and their indexes ----
    /** Parses and validates a serialized {@code TableCatalog}; returns a catalog handle. */
    static native long catalogParse(byte[] catalog);
    /** The canonical serialized {@code TableCatalog}. */
    static native byte[] catalogCanonical(long catalog);
    /** The canonical serialized {@code SchemaSpec} of the catalog's index number {@code index}. */
    static native byte[] catalogIndexSchema(long catalog, int index);
    /** The key in index number {@code index} of a data key. */
    static native byte[] catalogIndexKey(long catalog, int index, byte[] dataKey);

    /**
     * Where a read of index number {@code index} meets the data keys from well-formed seek position
     * {@code position} on: the index key to start at, its salt byte and indexed fields for the
     * caller to set.
     */
    static native byte[] catalogIndexSeekKey(long catalog, int index, byte[] position);
    /** The data key an index key of index number {@code index} stands for. */
    static native byte[] catalogDataKey(long catalog, int index, byte[] indexKey);
    /** The data keys of {@code count} index keys laid end to end, end to end. */
    static native byte[] catalogDataKeys(long catalog, int index, byte[] indexKeys, int count);
    static native void catalogFree(long catalog);
    /** Plans a serialized {@code QueryPlanRequest} over a catalog handle; returns a serialized {@code PlannedQuery}. */
    static native byte[] catalogPlanQuery(long catalog, byte[] request);

    // ---- limits and diagnostics ----
    /** The longest row key a schema may have ({@code limits::MAX_KEY_BYTES}). */
    static native int maxKeyBytes();

    /** The bytes the native library holds now (its allocations not yet freed); -1 for a library built without counting them. */
    static native long nativeBytesInUse();
    /** Native schemas and comparators currently alive (created and not yet freed). */
    static native long liveObjects();
}
