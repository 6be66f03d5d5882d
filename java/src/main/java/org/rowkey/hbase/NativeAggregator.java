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

    /** @throws IllegalArgumentException naming what is wrong with the spec */
    NativeAggregator(byte[] spec) {
        long pointer = AggregateNative.create(spec);
        this.handle = new NativeHandle("aggregator", pointer, AggregateNative::free);
        try {
            this.keyLength = AggregateNative.keyLength(pointer);
            this.columns = Collections.unmodifiableList(new ArrayList<>(
                    ColumnList.parseFrom(AggregateNative.columns(pointer)).getColumnsList()));
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
            AggregateNative.fold(handle.get(), batch, rows);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    byte[] takePartial() {
        try {
            return AggregateNative.takePartial(handle.get());
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    void merge(byte[] partial) {
        try {
            AggregateNative.merge(handle.get(), partial);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    AggregateResult finish() {
        try {
            return AggregateResult.parseFrom(AggregateNative.finish(handle.get()));
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
}
