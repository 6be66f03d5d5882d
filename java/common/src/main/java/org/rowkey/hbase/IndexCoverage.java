package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.IndexRowFormat.CoveredColumn;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Which data cells an index covers: its named columns ({@code include(family, qualifier...)}) and
 * every cell of its wholly covered families ({@code include(family)}). The one place the
 * coprocessor (what it reads back and writes), the backfill, the readers (what an index row
 * answers) and the repair ask; the cells' format is {@link IndexRowFormat}'s.
 *
 * <p>A whole-row write ({@link IndexRowFormat#wholeRow}) writes, at its stamp, a cell for every named
 * column (the data cell, or the mark of its absence) and one for every cell the data row has in a
 * covered family. A family's column the data row no longer has keeps no mark: its copy from an
 * older write is older than the row's status, and readers take a family's cells at the status's
 * timestamp only.
 */
@RunsIn(RunsIn.Where.SHARED)
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
        return coversFamily(family, 0, family.length);
    }

    /** Whether the index rows hold the data column {@code family:qualifier}. */
    boolean covers(byte[] family, byte[] qualifier) {
        return coversFamily(family) || coversColumn(family, 0, family.length, qualifier, 0, qualifier.length);
    }

    /** The covered families and the named columns' families (to check them against a table's). */
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

    /**
     * Asks {@code scan} for what whole-row writes of {@code indexes} need of a data row: their
     * covered families whole, and their named columns of the other families. False when they cover
     * nothing (the scan is left as it is).
     */
    static boolean addTo(Scan scan, List<IndexCoverage> indexes) {
        boolean any = false;
        for (IndexCoverage index : indexes) {
            for (byte[] f : index.families) {
                scan.addFamily(f); // before any column: a family asked whole stays whole
                any = true;
            }
        }
        for (IndexCoverage index : indexes) {
            for (CoveredColumn c : index.columns) {
                boolean whole = false;
                for (IndexCoverage other : indexes) {
                    whole |= other.coversFamily(c.family);
                }
                if (!whole) {
                    scan.addColumn(c.family, c.qualifier);
                    any = true;
                }
            }
        }
        return any;
    }

    /**
     * The covered cells of a whole-row write at {@code stamp} of data row {@code dataRow}: each named
     * column's newest cell (or the mark of its absence), and the newest cell of every column the row
     * has in a covered family.
     */
    void copy(Result dataRow, long stamp, Put put) {
        for (CoveredColumn c : columns) {
            Cell cell = dataRow.getColumnLatestCell(c.family, c.qualifier);
            put.addColumn(IndexRowFormat.FAMILY, c.inIndex, stamp,
                    cell == null ? IndexRowFormat.ABSENT : IndexRowFormat.coveredValue(cell));
        }
        if (families.isEmpty()) {
            return;
        }
        Cell[] cells = dataRow.rawCells();
        Cell previous = null;
        for (Cell cell : cells == null ? new Cell[0] : cells) {
            // A row's versions of a column come newest first: the first of each column.
            boolean newest = previous == null || !CellUtil.matchingColumn(cell, previous);
            previous = cell;
            if (newest && familyOf(cell)) {
                put.addColumn(IndexRowFormat.FAMILY,
                        IndexRowFormat.coveredQualifier(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell)), stamp,
                        IndexRowFormat.coveredValue(cell));
            }
        }
    }

    private boolean familyOf(Cell cell) {
        for (byte[] f : families) {
            if (CellUtil.matchingFamily(cell, f)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a VERIFIED index row says whether the data row has column {@code c}: a covered
     * family's whole-row write lists every cell of it; a named column needs its cell (the data cell
     * or the mark of its absence), which a row not written whole lacks.
     */
    boolean tells(Result indexRow, CoveredColumn c) {
        return coversFamily(c.family) || IndexRowFormat.indexCell(indexRow, c.inIndex) != null;
    }

    /**
     * The data cell of column {@code c} that a VERIFIED index row (status {@code status}) holds a copy
     * of, under {@code dataKey}, or null when the data row has no such column.
     */
    Cell dataCell(Result indexRow, Cell status, byte[] dataKey, CoveredColumn c) {
        Cell copy = IndexRowFormat.indexCell(indexRow, c.inIndex);
        if (copy != null && coversFamily(c.family) && copy.getTimestamp() != status.getTimestamp()) {
            return null; // a copy from an older write: the data row no longer had the column
        }
        return IndexRowFormat.dataCell(copy, dataKey, c);
    }

    /**
     * Every data cell a VERIFIED index row (status {@code status}) holds a copy of, as data cells of
     * row {@code dataKey}, in a data row's cell order (a Result's lookups need it).
     */
    List<Cell> dataCells(Result indexRow, Cell status, byte[] dataKey) {
        Cell[] raw = indexRow.rawCells();
        if (raw == null) {
            return new ArrayList<>(0);
        }
        List<Cell> cells = new ArrayList<>(raw.length);
        for (Cell copy : raw) {
            int familyLength = IndexRowFormat.coveredFamilyLength(copy);
            if (familyLength == 0) {
                continue;
            }
            byte[] names = copy.getQualifierArray();
            int family = IndexRowFormat.coveredFamilyOffset(copy);
            boolean wholeFamily = coversFamily(names, family, familyLength);
            if (wholeFamily ? copy.getTimestamp() != status.getTimestamp()
                    : !coversColumn(names, family, familyLength, names, family + familyLength,
                            IndexRowFormat.coveredQualifierLength(copy, familyLength))) {
                continue;
            }
            Cell cell = IndexRowFormat.dataCell(copy, familyLength, dataKey);
            if (cell != null) {
                cells.add(cell);
            }
        }
        if (cells.size() > 1) {
            cells.sort(CellComparator.getInstance());
        }
        return cells;
    }

    /** Whether every cell of the family of {@code length} bytes at {@code at} is covered. */
    private boolean coversFamily(byte[] names, int at, int length) {
        for (byte[] f : families) {
            if (Bytes.equals(f, 0, f.length, names, at, length)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the column of the family and qualifier at these places is one of the named columns. */
    private boolean coversColumn(byte[] family, int familyAt, int familyLength, byte[] qualifier, int qualifierAt,
            int qualifierLength) {
        for (CoveredColumn c : columns) {
            if (Bytes.equals(c.family, 0, c.family.length, family, familyAt, familyLength)
                    && Bytes.equals(c.qualifier, 0, c.qualifier.length, qualifier, qualifierAt, qualifierLength)) {
                return true;
            }
        }
        return false;
    }
}
