package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import com.google.protobuf.ByteString;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Which data cells an index covers, asked of one place by the coprocessor, the backfill, the readers
 * and the repair: a named column, and every cell of a wholly covered family.
 */
class IndexCoverageTest {
    private static final byte[] ROW = Bytes.toBytes("row");
    private static final byte[] INDEX_ROW = Bytes.toBytes("index-row");

    /** Covers family f whole and g:q alone. */
    private static IndexCoverage coverage() {
        return IndexCoverage.of(IndexSpec.newBuilder().setName("ix").addFields("a")
                .addIncludeFamilies(ByteString.copyFromUtf8("f"))
                .addInclude(Column.newBuilder().setFamily(ByteString.copyFromUtf8("g")).setQualifier(ByteString.copyFromUtf8("q")))
                .build());
    }

    private static Put dataPut() {
        return new Put(ROW).addColumn(Bytes.toBytes("f"), Bytes.toBytes("zz"), 5, Bytes.toBytes("v1"))
                .addColumn(Bytes.toBytes("f"), Bytes.toBytes("a"), 6, Bytes.toBytes("v2"))
                .addColumn(Bytes.toBytes("g"), Bytes.toBytes("q"), 7, Bytes.toBytes("v3"))
                .addColumn(Bytes.toBytes("g"), Bytes.toBytes("other"), 8, Bytes.toBytes("not covered"))
                .addColumn(Bytes.toBytes("h"), Bytes.toBytes("q"), 9, Bytes.toBytes("not covered"));
    }

    /** The index row the coprocessor would write for {@link #dataPut()}, read back as a Result. */
    private static Result indexRow(IndexCoverage coverage, Put data, byte[] status) {
        Put index = new Put(INDEX_ROW).addColumn(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER, 9, status);
        coverage.copy(IndexCoverage.cells(data), index);
        List<Cell> cells = new ArrayList<>();
        index.getFamilyCellMap().values().forEach(cells::addAll);
        cells.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
        return Result.create(cells);
    }

    private static List<String> describe(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Bytes.toString(CellUtil.cloneRow(c)) + "/" + Bytes.toString(CellUtil.cloneFamily(c)) + ":"
                    + Bytes.toString(CellUtil.cloneQualifier(c)) + "@" + c.getTimestamp() + "=" + Bytes.toString(CellUtil.cloneValue(c)));
        }
        return out;
    }

    @Test
    void aWholeFamilyIsCoveredCellByCellAndReadBackAsDataCellsInDataOrder() {
        IndexCoverage coverage = coverage();
        assertTrue(coverage.covers(Bytes.toBytes("f"), Bytes.toBytes("anything")));
        assertTrue(coverage.covers(Bytes.toBytes("g"), Bytes.toBytes("q")));
        assertFalse(coverage.covers(Bytes.toBytes("g"), Bytes.toBytes("other")));
        assertFalse(coverage.covers(Bytes.toBytes("h"), Bytes.toBytes("q")));
        assertTrue(coverage.coversAll(Arrays.asList(Bytes.toBytes("f"))));
        assertFalse(coverage.coversAll(Arrays.asList(Bytes.toBytes("f"), Bytes.toBytes("g"))), "g is covered by one column only");
        assertFalse(coverage.coversAll(new ArrayList<>()));

        Result index = indexRow(coverage, dataPut(), RowKeyIndexObserver.VERIFIED);
        assertEquals(4, index.rawCells().length, "the status and three covered cells");
        assertEquals(Arrays.asList("row/f:a@6=v2", "row/f:zz@5=v1", "row/g:q@7=v3"), describe(coverage.dataCells(index, ROW)));
        // A Result of them answers lookups as a data row's would.
        Result answer = Result.create(coverage.dataCells(index, ROW));
        assertEquals("v1", Bytes.toString(CellUtil.cloneValue(answer.getColumnLatestCell(Bytes.toBytes("f"), Bytes.toBytes("zz")))));
        // Only covered columns are decoded: another index cell of the family is not a data cell.
        assertTrue(IndexCoverage.of(IndexSpec.newBuilder().setName("ix").addFields("a").build()).dataCells(index, ROW).isEmpty());
    }

    @Test
    void theRepairComparesEveryColumnOfACoveredFamilyThatEitherRowHolds() {
        IndexCoverage coverage = coverage();
        IndexRowRepair repair = new IndexRowRepair(coverage, new Configuration(false));
        Put data = dataPut();
        byte[] unverified = RowKeyIndexObserver.unverified(System.currentTimeMillis());
        // The index row lacks f:zz (its write was cut short) and holds an older f:a: both copied.
        Put partial = new Put(ROW).addColumn(Bytes.toBytes("f"), Bytes.toBytes("a"), 2, Bytes.toBytes("old"))
                .addColumn(Bytes.toBytes("g"), Bytes.toBytes("q"), 7, Bytes.toBytes("v3"));
        Result index = indexRow(coverage, partial, unverified);
        Result dataRow = Result.create(new ArrayList<>(sorted(IndexCoverage.cells(data))));
        Optional<Put> fix = repair.repair(index, IndexRowRepair.status(index), dataRow);
        assertTrue(fix.isPresent());
        List<String> written = new ArrayList<>();
        for (Cell c : sorted(IndexCoverage.cells(fix.get()))) {
            written.add(Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + "@" + c.getTimestamp());
        }
        assertEquals(Arrays.asList("\\x01fa@6", "\\x01fzz@5", "s@9"), written);
        // A covered cell only the index holds (a failed write's): no repair by puts.
        Put extra = dataPut().addColumn(Bytes.toBytes("f"), Bytes.toBytes("ghost"), 4, Bytes.toBytes("x"));
        assertFalse(repair.repair(indexRow(coverage, extra, unverified), IndexRowRepair.status(index), dataRow).isPresent());
    }

    private static List<Cell> sorted(List<Cell> cells) {
        List<Cell> out = new ArrayList<>(cells);
        out.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
        return out;
    }
}
