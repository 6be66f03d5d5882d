package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.junit.jupiter.api.Test;

/** What the bulk load's map tasks send its reducers: a row's cells without the row, and the line's place. */
class BulkLoadShuffleTest {
    private static byte[] b(String s) {
        return Bytes.toBytes(s);
    }

    @Test
    void aLinesRowCrossesTheShuffleWhole() throws Exception {
        byte[] row = {0, 1, (byte) 0xff, 7};
        List<Cell> cells = Arrays.asList(
                new KeyValue(row, b("f"), b("url"), 1_480_000_000_000L, KeyValue.Type.Put, b("http://www.example.gov.cn/")),
                new KeyValue(row, IndexRowFormat.FAMILY, IndexRowFormat.STATUS, Long.MAX_VALUE - 5, KeyValue.Type.Put, new byte[0]),
                new KeyValue(row, b("a-long-family-name"), new byte[300], 0L, KeyValue.Type.DeleteColumn, new byte[70_000]));
        BulkLoad.LineRow sent = new BulkLoad.LineRow().set(3, 4_000_000_000L, cells);
        DataOutputBuffer wire = new DataOutputBuffer();
        sent.write(wire);
        // Two records back to back, read into one reused object, as the reducer's iterator does.
        new BulkLoad.LineRow().set(0, 1, cells.subList(0, 1)).write(wire);
        DataInputBuffer in = new DataInputBuffer();
        in.reset(wire.getData(), wire.getLength());
        BulkLoad.LineRow received = new BulkLoad.LineRow();
        received.readFields(in);
        List<Cell> first = received.cells(row);
        received.readFields(in);
        assertEquals(1, received.cells(row).size(), "the second record's one cell");
        assertEquals(wire.getLength(), in.getPosition(), "every byte read");
        assertEquals(cells.size(), first.size());
        // A row's cells reused for a smaller row: only the smaller row's cells.
        BulkLoad.LineRow reused = new BulkLoad.LineRow().set(0, 0, cells);
        assertEquals(1, reused.set(0, 0, cells.subList(0, 1)).cells(row).size());
        for (int i = 0; i < cells.size(); i++) {
            assertTrue(CellUtil.equals(cells.get(i), first.get(i)), "cell " + i + ": " + first.get(i));
            assertArrayEquals(CellUtil.cloneValue(cells.get(i)), CellUtil.cloneValue(first.get(i)), "value " + i);
        }
        assertEquals("3:4000000000", sent.place());
        assertTrue(sent.after(received), "a later file's line comes after");
        assertFalse(received.after(sent));
        BulkLoad.LineRow laterLine = new BulkLoad.LineRow().set(3, 4_000_000_001L, cells);
        assertTrue(laterLine.after(sent), "a later line of the same file comes after");
    }

    @Test
    void aShuffleKeyIsTheTablesPlaceThenTheRow() {
        assertArrayEquals(new byte[] {2, 9, 8}, ReducePartitions.shuffleKey(2, new byte[] {9, 8}));
        assertArrayEquals(new byte[] {(byte) 254}, ReducePartitions.shuffleKey(254, new byte[0]));
    }
}
