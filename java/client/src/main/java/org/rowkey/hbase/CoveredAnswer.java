package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;

import org.rowkey.hbase.IndexRowFormat.CoveredColumn;

/**
 * What an index row of an index that covers the query answers for its data row, from the index
 * row alone: the one rule for every reader of covered index rows (an index's single read, a
 * join's covered stream).
 */
@RunsIn(RunsIn.Where.CLIENT)
final class CoveredAnswer {
    /** The answer of an index row whose data row has none of the selected columns: no row. */
    static final Result NO_ROW = Result.create(new Cell[0]);

    private final IndexCoverage coverage;
    private final ReadShape shape;

    CoveredAnswer(Catalog catalog, int index, ReadShape shape) {
        this.coverage = catalog.coverage(index);
        this.shape = shape;
    }

    /**
     * The answer of a VERIFIED index row: its key, or the covered cells the query selects (every one
     * it holds when the query selects every column); null when it does not answer alone: not
     * VERIFIED, or not telling whether the data row has a selected column (a named column's cell
     * missing: the row was not written whole), and answered from its data row. A row none of whose
     * selected columns exist is no answer ({@link #NO_ROW}).
     */
    Result of(Result indexRow, Cell status, byte[] dataKey) {
        if (!IndexRowFormat.isStatus(status, IndexRowFormat.VERIFIED)) {
            return null;
        }
        if (shape.keysOnly) {
            return Result.create(new Cell[] {CellUtil.createCell(dataKey, IndexRowFormat.FAMILY,
                    IndexRowFormat.STATUS, status.getTimestamp() / 1_000, KeyValue.Type.Put.getCode(), new byte[0])});
        }
        if (shape.columns.isEmpty()) {
            // Every column, the table's families all covered: a row has a cell, so its copy must.
            List<Cell> all = coverage.dataCells(indexRow, status, dataKey);
            return all.isEmpty() ? null : Result.create(all);
        }
        List<Cell> cells = new ArrayList<>(shape.columns.size());
        for (CoveredColumn c : shape.columns) {
            if (!coverage.tells(indexRow, c)) {
                return null;
            }
            Cell cell = coverage.dataCell(indexRow, status, dataKey, c);
            if (cell != null) {
                cells.add(cell);
            }
        }
        return cells.isEmpty() ? NO_ROW : Result.create(cells);
    }
}
