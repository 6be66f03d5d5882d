package org.rowkey.hbase;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.ClassSize;

/**
 * A data cell answered from a covered cell of an index row ({@link IndexRowFormat#dataCell}) without
 * copying it: its row is the data key, its family, qualifier and value the covered cell's own bytes,
 * kept as long as the answer is. A covered read makes one a cell; a copy of each into a new
 * {@link KeyValue} was about a third of an answer's cost. Equal to and hashed like the
 * {@code KeyValue} of the same cell.
 */
@RunsIn(RunsIn.Where.SHARED)
final class CoveredDataCell implements Cell {
    private static final long HEAP_SIZE = ClassSize.align(ClassSize.OBJECT + 3 * ClassSize.REFERENCE
            + Bytes.SIZEOF_LONG + 4 * Bytes.SIZEOF_INT + Bytes.SIZEOF_BYTE);

    private final byte[] row;
    private final byte[] names;
    private final int familyOffset;
    private final byte familyLength;
    private final int qualifierLength;
    private final long timestamp;
    private final byte[] value;
    private final int valueOffset;
    private final int valueLength;

    CoveredDataCell(byte[] row, byte[] names, int familyOffset, int familyLength, int qualifierLength, long timestamp,
            byte[] value, int valueOffset, int valueLength) {
        this.row = row;
        this.names = names;
        this.familyOffset = familyOffset;
        this.familyLength = (byte) familyLength;
        this.qualifierLength = qualifierLength;
        this.timestamp = timestamp;
        this.value = value;
        this.valueOffset = valueOffset;
        this.valueLength = valueLength;
    }

    @Override
    public byte[] getRowArray() {
        return row;
    }

    @Override
    public int getRowOffset() {
        return 0;
    }

    @Override
    public short getRowLength() {
        return (short) row.length;
    }

    @Override
    public byte[] getFamilyArray() {
        return names;
    }

    @Override
    public int getFamilyOffset() {
        return familyOffset;
    }

    @Override
    public byte getFamilyLength() {
        return familyLength;
    }

    @Override
    public byte[] getQualifierArray() {
        return names;
    }

    @Override
    public int getQualifierOffset() {
        return familyOffset + familyLength;
    }

    @Override
    public int getQualifierLength() {
        return qualifierLength;
    }

    @Override
    public long getTimestamp() {
        return timestamp;
    }

    @Override
    public byte getTypeByte() {
        return KeyValue.Type.Put.getCode();
    }

    @Override
    public long getSequenceId() {
        return 0;
    }

    @Override
    public byte[] getValueArray() {
        return value;
    }

    @Override
    public int getValueOffset() {
        return valueOffset;
    }

    @Override
    public int getValueLength() {
        return valueLength;
    }

    @Override
    public byte[] getTagsArray() {
        return HConstants.EMPTY_BYTE_ARRAY;
    }

    @Override
    public int getTagsOffset() {
        return 0;
    }

    @Override
    public int getTagsLength() {
        return 0;
    }

    @Override
    public int getSerializedSize() {
        return (int) KeyValue.getKeyValueDataStructureSize(row.length, familyLength, qualifierLength, valueLength, 0);
    }

    @Override
    public long heapSize() {
        return HEAP_SIZE; // the arrays are the index read's, counted there
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Cell && CellUtil.equals(this, (Cell) other);
    }

    @Override
    public int hashCode() {
        int hash = 31 * Bytes.hashCode(row, 0, row.length) + Bytes.hashCode(names, familyOffset, familyLength);
        hash = 31 * hash + Bytes.hashCode(names, familyOffset + familyLength, qualifierLength);
        hash = 31 * hash + (int) timestamp;
        return 31 * hash + getTypeByte();
    }

    @Override
    public String toString() {
        return CellUtil.toString(this, false);
    }
}
