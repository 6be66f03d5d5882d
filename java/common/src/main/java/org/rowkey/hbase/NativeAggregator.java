package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.google.protobuf.InvalidProtocolBufferException;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateResult;
import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.ColumnList;

/**
 * One native aggregator of an {@code AggregationSpec}: folded from batches of rows (in a region, or
 * on the client for the index rows it checks), merged from partial states, finished into the
 * answer. Not thread-safe: one scanner or one client call uses it. Closed once, or freed by the
 * cleaner.
 */
@RunsIn(RunsIn.Where.SHARED)
final class NativeAggregator implements AutoCloseable {
    private final NativeHandle handle;
    private final int keyLength;
    private final List<Column> columns;

    /**
     * @param maxBytes the bytes its groups may hold ({@link CoprocessorWire#AGGREGATE_MAX_BYTES};
     *     0: the default), or fewer if the spec asks
     * @throws IllegalArgumentException naming what is wrong with the spec
     */
    NativeAggregator(byte[] spec, long maxBytes) {
        long pointer = nativeCreate(spec, maxBytes);
        this.handle = new NativeHandle("aggregator", pointer, NativeAggregator::nativeFree);
        try {
            this.keyLength = nativeKeyLength(pointer);
            this.columns = Collections.unmodifiableList(new ArrayList<>(
                    ColumnList.parseFrom(nativeColumns(pointer)).getColumnsList()));
        } catch (InvalidProtocolBufferException e) {
            handle.close();
            throw new IllegalStateException("native core returned an unreadable column list", e);
        } catch (RuntimeException | Error e) {
            handle.close();
            throw e;
        }
    }

    int keyLength() {
        return keyLength;
    }

    /** The cells each row's batch slots hold, in order. */
    List<Column> columns() {
        return columns;
    }

    void fold(byte[] batch, int rows) {
        try {
            nativeFold(handle.get(), batch, rows);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    byte[] takePartial() {
        try {
            return nativeTakePartial(handle.get());
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /** Merges the partial state in {@code array[offset, offset + length)} (a cell's value, not copied). */
    void merge(byte[] array, int offset, int length) {
        try {
            nativeMerge(handle.get(), array, offset, length);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    AggregateResult finish() {
        try {
            return AggregateResult.parseFrom(nativeFinish(handle.get()));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("native core returned an unreadable aggregate result", e);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    @Override
    public void close() {
        handle.close();
    }

    // ---- natives (src/jni/native_aggregator.rs) ----
    static {
        RowKeyNative.ensureLoaded();
    }

    /**
     * Parses and compiles a serialized {@code AggregationSpec}; returns an empty aggregator's handle,
     * whose groups may hold {@code maxBytes} (0 or less: the default), or fewer if the spec asks.
     */
    static native long nativeCreate(byte[] spec, long maxBytes);

    /** The distinct cells the aggregation reads, in batch slot order: a serialized {@code ColumnList}. */
    static native byte[] nativeColumns(long aggregator);

    /** Bytes of a row key of the aggregation's schema. */
    static native int nativeKeyLength(long aggregator);

    /**
     * Folds {@code rows} rows laid end to end in {@code batch}: each its key, then one 9-byte slot
     * per column (see {@link FoldBatch}).
     */
    static native void nativeFold(long aggregator, byte[] batch, int rows);

    /** The partial state of every group so far; the aggregator is empty after. */
    static native byte[] nativeTakePartial(long aggregator);

    /**
     * Merges the partial state of the same aggregation in {@code array[offset, offset + length)};
     * refused naming the byte limit past it.
     */
    static native void nativeMerge(long aggregator, byte[] array, int offset, int length);

    /** The answer, groups in value order: a serialized {@code AggregateResult}. */
    static native byte[] nativeFinish(long aggregator);

    static native void nativeFree(long aggregator);
}
