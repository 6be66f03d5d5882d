package org.rowkey.hbase;

/**
 * The native side of aggregates (Rust module {@code src/jni/aggregate.rs}, core in
 * {@code src/aggregate.rs}): an aggregator folds batches of rows into groups, gives its partial
 * state, merges partial states and gives the answer. One call per batch of rows, never one per
 * row. Handles are owned by {@link NativeHandle}; errors arrive as {@link IllegalArgumentException}
 * (bad input, a limit such as the group cap) or {@link IllegalStateException} (a bug).
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class AggregateNative {
    private AggregateNative() {}

    static {
        RowKeyNative.ensureLoaded();
    }

    /** Parses and compiles a serialized {@code AggregationSpec}; returns an empty aggregator's handle. */
    static native long create(byte[] spec);

    /** The distinct cells the aggregation reads, in batch slot order: a serialized {@code ColumnList}. */
    static native byte[] columns(long aggregator);

    /** Bytes of a row key of the aggregation's schema. */
    static native int keyLength(long aggregator);

    /**
     * Folds {@code rows} rows laid end to end in {@code batch}: each its key, then one 9-byte slot
     * per column (see {@link FoldBatch}).
     */
    static native void fold(long aggregator, byte[] batch, int rows);

    /** The partial state of every group so far; the aggregator is empty after. */
    static native byte[] takePartial(long aggregator);

    /** Merges a partial state of the same aggregation. */
    static native void merge(long aggregator, byte[] partial);

    /** The answer, groups in value order: a serialized {@code AggregateResult}. */
    static native byte[] finish(long aggregator);

    static native void free(long aggregator);
}
