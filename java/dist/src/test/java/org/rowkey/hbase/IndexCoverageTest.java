package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.google.protobuf.ByteString;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Which data cells an index covers, asked of one place by the coprocessor, the backfill, the readers
 * and the repair: a named column, and every cell of a wholly covered family, written whole at one
 * stamp and read back as the data cells.
 */
class IndexCoverageTest {
    private static final byte[] ROW = Bytes.toBytes("row");
    private static final byte[] INDEX_ROW = Bytes.toBytes("index-row");
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] G = Bytes.toBytes("g");

    /** Covers family f whole, and g:q and g:gone alone. */
    private static IndexCoverage coverage() {
        return IndexCoverage.of(IndexSpec.newBuilder().setName("ix").addFields("a")
                .addIncludeFamilies(ByteString.copyFromUtf8("f"))
                .addInclude(Column.newBuilder().setFamily(ByteString.copyFromUtf8("g")).setQualifier(ByteString.copyFromUtf8("q")))
                .addInclude(Column.newBuilder().setFamily(ByteString.copyFromUtf8("g")).setQualifier(ByteString.copyFromUtf8("gone")))
                .build());
    }

    private static Result row(byte[] key, Put put) {
        List<Cell> cells = new ArrayList<>();
        put.getFamilyCellMap().values().forEach(cells::addAll);
        cells.sort(CellComparator.getInstance());
        return Result.create(cells);
    }

    private static Result dataRow() {
        return row(ROW, new Put(ROW).addColumn(F, Bytes.toBytes("zz"), 5, Bytes.toBytes("v1"))
                .addColumn(F, Bytes.toBytes("a"), 6, Bytes.toBytes("v2"))
                .addColumn(G, Bytes.toBytes("q"), 7, Bytes.toBytes("v3"))
                .addColumn(G, Bytes.toBytes("other"), 8, Bytes.toBytes("not covered"))
                .addColumn(Bytes.toBytes("h"), Bytes.toBytes("q"), 9, Bytes.toBytes("not covered")));
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
    void aWholeFamilyIsCoveredCellByCellAndReadBackAsTheDataCells() {
        IndexCoverage coverage = coverage();
        assertTrue(coverage.covers(F, Bytes.toBytes("anything")));
        assertTrue(coverage.covers(G, Bytes.toBytes("q")));
        assertFalse(coverage.covers(G, Bytes.toBytes("other")));
        assertFalse(coverage.covers(Bytes.toBytes("h"), Bytes.toBytes("q")));
        assertTrue(coverage.coversAll(Arrays.asList(F)));
        assertFalse(coverage.coversAll(Arrays.asList(F, G)), "g is covered by named columns only");
        assertFalse(coverage.coversAll(new ArrayList<>()));

        Put write = IndexRowFormat.wholeRow(INDEX_ROW, 100, IndexRowFormat.VERIFIED, coverage, dataRow());
        Result index = row(INDEX_ROW, write);
        assertEquals(5, index.rawCells().length, "the status, g:q, the mark of g:gone's absence, f:a and f:zz");
        Cell status = IndexRowFormat.status(index);
        assertEquals(Arrays.asList("row/f:a@6=v2", "row/f:zz@5=v1", "row/g:q@7=v3"),
                describe(coverage.dataCells(index, status, ROW)));
        // A Result of them answers lookups as a data row's would.
        Result answer = Result.create(coverage.dataCells(index, status, ROW));
        assertEquals("v1", Bytes.toString(CellUtil.cloneValue(answer.getColumnLatestCell(F, Bytes.toBytes("zz")))));

        IndexRowFormat.CoveredColumn zz = new IndexRowFormat.CoveredColumn(F, Bytes.toBytes("zz"));
        IndexRowFormat.CoveredColumn none = new IndexRowFormat.CoveredColumn(F, Bytes.toBytes("none"));
        IndexRowFormat.CoveredColumn gone = new IndexRowFormat.CoveredColumn(G, Bytes.toBytes("gone"));
        assertEquals("row/f:zz@5=v1", describe(Arrays.asList(coverage.dataCell(index, status, ROW, zz))).get(0));
        assertTrue(coverage.tells(index, none), "a family's whole-row write lists all its cells");
        assertNull(coverage.dataCell(index, status, ROW, none));
        assertTrue(coverage.tells(index, gone), "the mark of its absence");
        assertNull(coverage.dataCell(index, status, ROW, gone));
        assertFalse(coverage.tells(Result.create(new Cell[] {status}), gone), "a row not written whole");
    }

    @Test
    void aFamilyColumnTheDataRowNoLongerHasIsNotReadFromAnOlderWrite() {
        IndexCoverage coverage = coverage();
        // The row written at stamp 100 with f:a and f:zz, then at 200 with f:a alone (f:zz deleted).
        List<Cell> cells = new ArrayList<>();
        IndexRowFormat.wholeRow(INDEX_ROW, 100, IndexRowFormat.VERIFIED, coverage, dataRow()).getFamilyCellMap().values()
                .forEach(cells::addAll);
        Result later = row(ROW, new Put(ROW).addColumn(F, Bytes.toBytes("a"), 16, Bytes.toBytes("v4")));
        List<Cell> newer = new ArrayList<>();
        IndexRowFormat.wholeRow(INDEX_ROW, 200, IndexRowFormat.VERIFIED, coverage, later).getFamilyCellMap().values()
                .forEach(newer::addAll);
        // What the index table keeps (one version per column): the newer write's, and f:zz's older copy.
        List<Cell> kept = new ArrayList<>(newer);
        for (Cell c : cells) {
            boolean replaced = false;
            for (Cell n : newer) {
                replaced |= CellUtil.matchingColumn(c, n);
            }
            if (!replaced) {
                kept.add(c);
            }
        }
        kept.sort(CellComparator.getInstance());
        Result index = Result.create(kept);
        assertEquals(Arrays.asList("row/f:a@16=v4"), describe(coverage.dataCells(index, IndexRowFormat.status(index), ROW)));
        assertNull(coverage.dataCell(index, IndexRowFormat.status(index), ROW,
                new IndexRowFormat.CoveredColumn(F, Bytes.toBytes("zz"))));
    }

    @Test
    void theWritePathReadsCoveredFamiliesWholeAndNamedColumnsOfOtherFamilies() {
        IndexCoverage whole = coverage();
        IndexCoverage named = IndexCoverage.of(IndexSpec.newBuilder().setName("other").addFields("a")
                .addInclude(Column.newBuilder().setFamily(ByteString.copyFromUtf8("f")).setQualifier(ByteString.copyFromUtf8("x")))
                .build());
        Scan scan = new Scan();
        assertTrue(IndexCoverage.addTo(scan, Arrays.asList(named, whole)));
        assertNull(scan.getFamilyMap().get(F), "f whole, though another index names a column of it");
        assertEquals(2, scan.getFamilyMap().get(G).size(), "g:q and g:gone");
        assertFalse(IndexCoverage.addTo(new Scan(), Arrays.asList(IndexCoverage.of(IndexSpec.newBuilder().setName("none").build()))));
    }
}
