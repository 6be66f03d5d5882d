package org.rowkey.hbase.demo;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;

/**
 * A reusable cell whose row is one key of the benchmark array: the filters see a row exactly as
 * a RegionServer shows it (array, offset, length), without a Cell allocated per row.
 */
final class RowCell implements Cell {
    private static final byte[] EMPTY = HConstants.EMPTY_BYTE_ARRAY;
    private final byte[] rows;
    private int offset;

    RowCell(byte[] rows) {
        this.rows = rows;
    }

    RowCell at(int offset) {
        this.offset = offset;
        return this;
    }

    @Override public byte[] getRowArray() { return rows; }
    @Override public int getRowOffset() { return offset; }
    @Override public short getRowLength() { return BenchData.KEY; }
    @Override public byte[] getFamilyArray() { return EMPTY; }
    @Override public int getFamilyOffset() { return 0; }
    @Override public byte getFamilyLength() { return 0; }
    @Override public byte[] getQualifierArray() { return EMPTY; }
    @Override public int getQualifierOffset() { return 0; }
    @Override public int getQualifierLength() { return 0; }
    @Override public long getTimestamp() { return 1L; }
    @Override public byte getTypeByte() { return KeyValue.Type.Put.getCode(); }
    @Override public long getSequenceId() { return 0; }
    @Override public byte[] getValueArray() { return EMPTY; }
    @Override public int getValueOffset() { return 0; }
    @Override public int getValueLength() { return 0; }
    @Override public int getSerializedSize() { return BenchData.KEY; }
    @Override public byte[] getTagsArray() { return EMPTY; }
    @Override public int getTagsOffset() { return 0; }
    @Override public int getTagsLength() { return 0; }
    @Override public long heapSize() { return 64; }
}
