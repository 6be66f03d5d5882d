package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexRowRepairTest {
    private static final byte[] ROW = Bytes.toBytes("row");

    private static Cell cell(byte[] family, byte[] qualifier, long timestamp, String value) {
        return CellUtil.createCell(ROW, family, qualifier, timestamp, KeyValue.Type.Put.getCode(), Bytes.toBytes(value));
    }

    @Test
    void anIndexRowsCellIsItsNewestUnderTheQualifierInTheIndexFamilyAsResultFindsIt() {
        byte[] covered = RowKeyIndexObserver.coveredQualifier(Bytes.toBytes("f"), Bytes.toBytes("url"));
        byte[] other = RowKeyIndexObserver.coveredQualifier(Bytes.toBytes("f"), Bytes.toBytes("q"));
        Cell[] cells = {
            cell(RowKeyIndexObserver.INDEX_FAMILY, covered, 9, "newest"),
            cell(RowKeyIndexObserver.INDEX_FAMILY, covered, 5, "older"),
            cell(RowKeyIndexObserver.INDEX_FAMILY, other, 7, "other"),
            cell(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER, 9, "s"),
            cell(Bytes.toBytes("z"), RowKeyIndexObserver.STATUS_QUALIFIER, 9, "another family"),
        };
        Arrays.sort(cells, org.apache.hadoop.hbase.CellComparator.getInstance());
        Result row = Result.create(cells);
        for (byte[] qualifier : new byte[][] {covered, other, RowKeyIndexObserver.STATUS_QUALIFIER, Bytes.toBytes("none")}) {
            assertEquals(row.getColumnLatestCell(RowKeyIndexObserver.INDEX_FAMILY, qualifier),
                    IndexRowRepair.indexCell(row, qualifier), Bytes.toStringBinary(qualifier));
        }
        assertEquals("newest", Bytes.toString(CellUtil.cloneValue(IndexRowRepair.indexCell(row, covered))));
        assertEquals("s", Bytes.toString(CellUtil.cloneValue(IndexRowRepair.status(row))));
        assertNull(IndexRowRepair.status(Result.EMPTY_RESULT));
        assertNull(IndexRowRepair.status(Result.create(new Cell[0])));
    }
}
