package org.rowkey.hbase;

import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;

import org.rowkey.hbase.proto.RowKeyProtos.Column;

/**
 * Rows laid end to end for one native fold call: each row's key, then one 9-byte slot per column
 * of the aggregation (a tag, 0 when the row has no such cell, else the value's length plus one,
 * 255 for 254 bytes or more; then the value's first 8 bytes). The native side checks each value's
 * length against its type. Flushes into the aggregator when full, so a call folds many rows.
 */
final class FoldBatch {
    /** Bytes of one cell slot (src/aggregate.rs: CELL_SLOT_BYTES). */
    static final int SLOT_BYTES = 9;
    /** Bytes of a batch: under the native message cap (1 MiB), large enough to make a call cheap per row. */
    private static final int BATCH_BYTES = 256 * 1024;

    private final NativeAggregator aggregator;
    private final int keyLength;
    private final byte[][] families;
    private final byte[][] qualifiers;
    private final int stride;
    private final byte[] buffer;
    private int rows;
    private long folded;

    FoldBatch(NativeAggregator aggregator) {
        this.aggregator = aggregator;
        this.keyLength = aggregator.keyLength();
        List<Column> columns = aggregator.columns();
        this.families = new byte[columns.size()][];
        this.qualifiers = new byte[columns.size()][];
        for (int i = 0; i < families.length; i++) {
            families[i] = columns.get(i).getFamily().toByteArray();
            qualifiers[i] = columns.get(i).getQualifier().toByteArray();
        }
        this.stride = keyLength + families.length * SLOT_BYTES;
        this.buffer = new byte[Math.max(stride, BATCH_BYTES / stride * stride)];
    }

    /** Whether the aggregation reads cells (else a row's key is all it needs). */
    boolean readsCells() {
        return families.length > 0;
    }

    /** The row key length of the aggregation's schema: rows of other lengths are not its rows. */
    int keyLength() {
        return keyLength;
    }

    /** Whether {@code cells} holds the newest version of every column the aggregation reads. */
    boolean hasEveryColumn(List<Cell> cells) {
        for (int c = 0; c < families.length; c++) {
            if (find(cells, c) == null) {
                return false;
            }
        }
        return true;
    }

    /** Adds the row whose cells are {@code cells} (its key of {@link #keyLength()} bytes). */
    void add(List<Cell> cells) {
        Cell first = cells.get(0);
        int at = rows * stride;
        CellUtil.copyRowTo(first, buffer, at); // on-heap or off-heap cells alike
        at += keyLength;
        for (int c = 0; c < families.length; c++, at += SLOT_BYTES) {
            Cell cell = find(cells, c);
            if (cell == null) {
                buffer[at] = 0;
                continue;
            }
            int length = cell.getValueLength();
            buffer[at] = (byte) Math.min(length + 1, 255);
            // A longer value is refused natively by its length alone: none of it is copied.
            int copied = length <= 8 ? CellUtil.copyValueTo(cell, buffer, at + 1) - (at + 1) : 0;
            Arrays.fill(buffer, at + 1 + copied, at + SLOT_BYTES, (byte) 0);
        }
        if (++rows * stride + stride > buffer.length) {
            flush();
        }
    }

    /** Folds the rows added since the last flush. */
    void flush() {
        if (rows > 0) {
            aggregator.fold(rows == buffer.length / stride ? buffer : Arrays.copyOf(buffer, rows * stride), rows);
            folded += rows;
            rows = 0;
        }
    }

    /** Rows folded so far. */
    long folded() {
        return folded;
    }

    /** The newest cell of column {@code c} in a row's cells (sorted, newest version first), or null. */
    private Cell find(List<Cell> cells, int c) {
        for (Cell cell : cells) {
            if (CellUtil.matchingQualifier(cell, qualifiers[c]) && CellUtil.matchingFamily(cell, families[c])) {
                return cell;
            }
        }
        return null;
    }
}
