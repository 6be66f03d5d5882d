package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.IndexRowRepair.CoveredColumn;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Which data cells an index covers: its named columns ({@code include(family, qualifier...)}) and
 * every cell of its wholly covered families ({@code include(family)}). The one place the
 * coprocessor (what it copies), the backfill, the readers (what an index row answers) and the
 * repair (what it compares) ask. A covered cell lives in the index row under
 * {@link RowKeyIndexObserver#coveredQualifier}.
 */
final class IndexCoverage {
    private final List<CoveredColumn> columns;
    private final List<byte[]> families;

    private IndexCoverage(List<CoveredColumn> columns, List<byte[]> families) {
        this.columns = columns;
        this.families = families;
    }

    static IndexCoverage of(IndexSpec index) {
        List<byte[]> families = new ArrayList<>(index.getIncludeFamiliesCount());
        index.getIncludeFamiliesList().forEach(f -> families.add(f.toByteArray()));
        return new IndexCoverage(CoveredColumn.of(index.getIncludeList()), families);
    }

    /** Whether the index covers nothing. */
    boolean isEmpty() {
        return columns.isEmpty() && families.isEmpty();
    }

    /** Whether every cell of {@code family} is covered. */
    boolean coversFamily(byte[] family) {
        for (byte[] f : families) {
            if (Bytes.equals(f, family)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the index rows hold the data column {@code family:qualifier}. */
    boolean covers(byte[] family, byte[] qualifier) {
        if (coversFamily(family)) {
            return true;
        }
        for (CoveredColumn c : columns) {
            if (Bytes.equals(c.family, family) && Bytes.equals(c.qualifier, qualifier)) {
                return true;
            }
        }
        return false;
    }

    /** {@link #covers(byte[], byte[])} of a cell's column, without copying its names. */
    private boolean covers(Cell cell) {
        for (byte[] f : families) {
            if (CellUtil.matchingFamily(cell, f)) {
                return true;
            }
        }
        for (CoveredColumn c : columns) {
            if (CellUtil.matchingColumn(cell, c.family, c.qualifier)) {
                return true;
            }
        }
        return false;
    }

    /** The covered families and columns' families, by name (for checking them against a table's). */
    List<byte[]> familiesNamed() {
        List<byte[]> named = new ArrayList<>(families);
        for (CoveredColumn c : columns) {
            named.add(c.family);
        }
        return named;
    }

    /** Whether a table of {@code tableFamilies} has no cell the index does not cover. */
    boolean coversAll(Collection<byte[]> tableFamilies) {
        for (byte[] f : tableFamilies) {
            if (!coversFamily(f)) {
                return false;
            }
        }
        return !tableFamilies.isEmpty();
    }

    /** Copies the covered ones of {@code dataCells} into {@code indexPut}, each at its own timestamp. */
    void copy(Iterable<Cell> dataCells, Put indexPut) {
        if (isEmpty()) {
            return;
        }
        for (Cell cell : dataCells) {
            if (covers(cell)) {
                indexPut.addColumn(RowKeyIndexObserver.INDEX_FAMILY,
                        RowKeyIndexObserver.coveredQualifier(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell)),
                        cell.getTimestamp(), CellUtil.cloneValue(cell));
            }
        }
    }

    /** Every cell of a data Put (all families). */
    static List<Cell> cells(Put put) {
        List<Cell> cells = new ArrayList<>();
        put.getFamilyCellMap().values().forEach(cells::addAll);
        return cells;
    }

    /**
     * The data cells an index row holds copies of, as data cells of row {@code dataKey}, in a data
     * row's cell order (a Result's lookups need it).
     */
    List<Cell> dataCells(Result indexRow, byte[] dataKey) {
        List<Cell> cells = new ArrayList<>();
        Cell[] raw = indexRow.rawCells();
        if (raw == null) {
            return cells;
        }
        for (Cell cell : raw) {
            byte[][] column = column(cell);
            if (column != null && covers(column[0], column[1])) {
                cells.add(CellUtil.createCell(dataKey, column[0], column[1], cell.getTimestamp(), KeyValue.Type.Put.getCode(),
                        CellUtil.cloneValue(cell)));
            }
        }
        if (cells.size() > 1) {
            cells.sort(CellComparator.getInstance());
        }
        return cells;
    }

    /** The data column (family, qualifier) an index cell is the copy of, or null (the status, or no copy). */
    private static byte[][] column(Cell indexCell) {
        if (!CellUtil.matchingFamily(indexCell, RowKeyIndexObserver.INDEX_FAMILY)) {
            return null;
        }
        byte[] q = CellUtil.cloneQualifier(indexCell);
        if (q.length < 2 || q[0] < 1 || 1 + q[0] > q.length) {
            return null; // the status cell (one byte), or not a copy
        }
        return new byte[][] {Arrays.copyOfRange(q, 1, 1 + q[0]), Arrays.copyOfRange(q, 1 + q[0], q.length)};
    }

    /**
     * The covered columns a repair compares for one index row and its data row: the named ones, and
     * those of wholly covered families that either row holds.
     */
    List<CoveredColumn> columnsOf(Result indexRow, Result dataRow) {
        if (families.isEmpty()) {
            return columns;
        }
        Map<String, CoveredColumn> all = new LinkedHashMap<>();
        for (CoveredColumn c : columns) {
            all.put(Bytes.toStringBinary(c.inIndex), c);
        }
        for (Cell cell : dataCells(indexRow, indexRow.getRow())) {
            addFamilyColumn(all, CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell));
        }
        Cell[] data = dataRow.rawCells();
        for (Cell cell : data == null ? new Cell[0] : data) {
            addFamilyColumn(all, CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell));
        }
        return new ArrayList<>(all.values());
    }

    private void addFamilyColumn(Map<String, CoveredColumn> all, byte[] family, byte[] qualifier) {
        if (coversFamily(family)) {
            CoveredColumn c = new CoveredColumn(family, qualifier);
            all.putIfAbsent(Bytes.toStringBinary(c.inIndex), c);
        }
    }
}
