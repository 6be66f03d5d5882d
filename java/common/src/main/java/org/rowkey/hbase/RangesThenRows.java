package org.rowkey.hbase;

import java.io.IOException;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;

/**
 * The planned key ranges AND the rows' filter, for {@link RowKeyWhere} on the RegionServer: what
 * {@code FilterList(MUST_PASS_ALL, ranges, rows)} does, except that a row outside the ranges always
 * ends in the ranges' seek hint, whatever the rows' filter says of it. HBase's FilterListWithAND
 * before HBASE-28622 (2.5.8 and older; fixed in 2.5.10 and 2.6.1) returns from filterRowKey as
 * soon as one filter rejects the row, so the range filter's hint is never asked for and the scanner
 * steps row by row up to the next range. Never serialized: {@link RowKeyWhere} sends its where
 * clause and builds this on the RegionServer.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
final class RangesThenRows extends FilterBase {
    private final MultiRowRangeFilter ranges;
    private final Filter rows;
    /** The current row is outside the ranges: the next cell call answers with the ranges' hint. */
    private boolean seekToRange;

    RangesThenRows(MultiRowRangeFilter ranges, Filter rows) {
        this.ranges = ranges;
        this.rows = rows;
    }

    @Override
    public boolean filterAllRemaining() throws IOException {
        return ranges.filterAllRemaining() || rows.filterAllRemaining();
    }

    @Override
    public boolean filterRowKey(Cell firstRowCell) throws IOException {
        if (ranges.filterRowKey(firstRowCell)) {
            return true;
        }
        // MultiRowRangeFilter decides in filterRowKey and its filterCell returns that decision
        // (INCLUDE in a range, SEEK_NEXT_USING_HINT outside), whatever the cell.
        seekToRange = ranges.filterCell(firstRowCell) == ReturnCode.SEEK_NEXT_USING_HINT;
        return !seekToRange && rows.filterRowKey(firstRowCell);
    }

    @Override
    public ReturnCode filterCell(Cell c) throws IOException {
        return seekToRange ? ReturnCode.SEEK_NEXT_USING_HINT : rows.filterCell(c);
    }

    @Override
    public Cell getNextCellHint(Cell currentCell) throws IOException {
        return seekToRange ? ranges.getNextCellHint(currentCell) : rows.getNextCellHint(currentCell);
    }

    @Override
    public Cell transformCell(Cell c) throws IOException {
        return rows.transformCell(c);
    }

    @Override
    public boolean hasFilterRow() {
        return rows.hasFilterRow();
    }

    @Override
    public void filterRowCells(List<Cell> cells) throws IOException {
        if (seekToRange) {
            cells.clear();
        } else {
            rows.filterRowCells(cells);
        }
    }

    @Override
    public boolean filterRow() throws IOException {
        // A row outside the ranges was never shown to the rows' filter, whose state is another row's.
        return seekToRange || rows.filterRow();
    }

    @Override
    public boolean isFamilyEssential(byte[] name) throws IOException {
        return ranges.isFamilyEssential(name) || rows.isFamilyEssential(name);
    }

    @Override
    public void reset() throws IOException {
        ranges.reset();
        rows.reset();
    }

    @Override
    public void setReversed(boolean reversed) {
        super.setReversed(reversed);
        ranges.setReversed(reversed);
        rows.setReversed(reversed);
    }

    @Override
    public String toString() {
        return "RangesThenRows(" + ranges + ", " + rows + ")";
    }
}
