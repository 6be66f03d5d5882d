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
@RunsIn(RunsIn.Where.SHARED)
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

    /** Adds the data row whose cells are {@code cells} (its key of {@link #keyLength()} bytes). */
    void add(List<Cell> cells) {
        add(cells, -1);
    }

    /**
     * Adds a VERIFIED index row (IndexRowFormat): its covered cells written with its status at
     * {@code stamp}, each the data cell's timestamp then its value, an empty one a column the data
     * row does not have; a cell of another stamp is not the row's (a column an earlier write had).
     */
    void addIndexRow(List<Cell> cells, long stamp) {
        add(cells, stamp);
    }

    private void add(List<Cell> cells, long indexStamp) {
        Cell first = cells.get(0);
        int at = rows * stride;
        CellUtil.copyRowTo(first, buffer, at); // on-heap or off-heap cells alike
        at += keyLength;
        int skip = indexStamp < 0 ? 0 : Long.BYTES;
        for (int c = 0; c < families.length; c++, at += SLOT_BYTES) {
            Cell cell = find(cells, c, indexStamp);
            if (cell == null || cell.getValueLength() < skip || (skip > 0 && cell.getValueLength() == 0)) {
                buffer[at] = 0;
                Arrays.fill(buffer, at + 1, at + SLOT_BYTES, (byte) 0);
                continue;
            }
            int length = cell.getValueLength() - skip;
            buffer[at] = (byte) Math.min(length + 1, 255);
            // A longer value is refused natively by its length alone: none of it is copied.
            int copied = 0;
            if (length <= 8) {
                byte[] value = CellUtil.cloneValue(cell);
                System.arraycopy(value, skip, buffer, at + 1, length);
                copied = length;
            }
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

    /**
     * The newest cell of column {@code c} in a row's cells (sorted, newest version first), of
     * timestamp {@code stamp} unless it is negative; or null.
     */
    private Cell find(List<Cell> cells, int c, long stamp) {
        for (Cell cell : cells) {
            if (CellUtil.matchingQualifier(cell, qualifiers[c]) && CellUtil.matchingFamily(cell, families[c])) {
                if (stamp < 0 || cell.getTimestamp() == stamp) {
                    return cell;
                }
            }
        }
        return null;
    }
}
