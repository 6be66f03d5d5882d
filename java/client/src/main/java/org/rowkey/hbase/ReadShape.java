package org.rowkey.hbase;

import java.util.Collections;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;

import org.rowkey.hbase.IndexRowFormat.CoveredColumn;
import org.rowkey.hbase.proto.RowKeyProtos.Column;

/**
 * What a read returns of each data row: the columns a query selects (every column when it names
 * none), or its key alone. The one owner of that shape for every way a data row is read: a scan of
 * the data table, a {@code Get} for an index row's key, and a whole row read for a repair cut down
 * to what the query asked.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class ReadShape {
    /** Every column of the row: what a repair of an index row needs, and what a query naming none gets. */
    static final ReadShape WHOLE_ROW = new ReadShape(Collections.emptyList(), false);
    /** The key alone (one cell of the row, without its value): a count, or a query asking keys only. */
    static final ReadShape KEYS_ONLY = new ReadShape(Collections.emptyList(), true);

    /** The selected columns, as byte arrays made once per read, not per row; empty: every column. */
    final List<CoveredColumn> columns;
    final boolean keysOnly;

    private ReadShape(List<CoveredColumn> columns, boolean keysOnly) {
        this.columns = columns;
        this.keysOnly = keysOnly;
    }

    static ReadShape of(List<Column> columns, boolean keysOnly) {
        return new ReadShape(CoveredColumn.of(columns), keysOnly);
    }

    static ReadShape of(RowKeyQuery query) {
        return of(query.columns(), query.isKeysOnly());
    }

    /** {@code scan} reading this shape: its columns, or the key only after the scan's own filter. */
    Scan shape(Scan scan) {
        for (CoveredColumn c : columns) {
            scan.addColumn(c.family, c.qualifier);
        }
        if (keysOnly) {
            scan.setFilter(scan.getFilter() == null ? ScanPlanner.keyOnly()
                    : new FilterList(FilterList.Operator.MUST_PASS_ALL, scan.getFilter(), ScanPlanner.keyOnly()));
        }
        return scan;
    }

    /** A read of the data row {@code key} in this shape. */
    Get get(byte[] key) {
        Get get = new Get(key);
        for (CoveredColumn c : columns) {
            get.addColumn(c.family, c.qualifier);
        }
        if (keysOnly) {
            get.setFilter(ScanPlanner.keyOnly());
        }
        return get;
    }

    /**
     * A data row read whole, cut to this shape: the selected columns (null when it has none of them),
     * or its first cell without its value.
     */
    Result cut(Result row) {
        if (keysOnly) {
            Cell first = row.rawCells()[0];
            return Result.create(new Cell[] {CellUtil.createCell(row.getRow(), CellUtil.cloneFamily(first),
                    CellUtil.cloneQualifier(first), first.getTimestamp(), KeyValue.Type.Put.getCode(), new byte[0])});
        }
        if (columns.isEmpty()) {
            return row;
        }
        List<Cell> cells = new java.util.ArrayList<>();
        for (Cell cell : row.rawCells()) {
            for (CoveredColumn c : columns) {
                if (CellUtil.matchingColumn(cell, c.family, c.qualifier)) {
                    cells.add(cell);
                }
            }
        }
        return cells.isEmpty() ? null : Result.create(cells);
    }
}
