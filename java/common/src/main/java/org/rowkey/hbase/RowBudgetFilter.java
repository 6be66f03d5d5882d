package org.rowkey.hbase;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Bounds the rows a region scan looks at: the wrapped filter decides the first {@code budget} rows,
 * and the row after them is returned whatever that filter would say, as a marker cell in each
 * family read ({@link #isEnd}), and ends the scan of the region. A client that reads a range
 * through a selective filter thus learns how far the server got: every row before the marker row was looked
 * at and, when it is not returned, failed the filter. The relay of docs/joins.md reads its streams
 * this way, so that a stream turning out large costs a bounded read before another takes its turn.
 *
 * <p>The budget counts {@code filterRowKey} calls, so a row decided twice counts twice (the scan
 * only ends sooner). A row whose cells are all deleted or skipped cannot carry the marker; the next
 * row that has a cell does. Each region (and each reopened scanner) starts a fresh budget: a client
 * stops reading at the first marker. It runs in the RegionServer: it throws nothing of its own, and
 * {@link #parseFrom} reports any bad input as a {@link DeserializationException}.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class RowBudgetFilter extends FilterBase {
    /** The qualifier of the marker cell: a NUL first, which no column of this library's tables uses. */
    static final byte[] END_QUALIFIER = Bytes.toBytes("\u0000rowkey.budget.end");
    private static final byte FORMAT = 1;

    private final Filter filter;
    private final int budget;
    private int looked;
    /** The current row carries the marker (the budget ran out before it). */
    private boolean atEnd;
    private boolean markerGiven;
    /** The marker row was returned: nothing more. */
    private boolean ended;

    /** At most {@code budget} rows (at least 1) decided by {@code filter}. */
    public RowBudgetFilter(Filter filter, int budget) {
        if (filter == null) {
            throw new IllegalArgumentException("RowBudgetFilter: the filter is null");
        }
        if (budget < 1) {
            throw new IllegalArgumentException("RowBudgetFilter: a budget of at least one row, not " + budget);
        }
        this.filter = filter;
        this.budget = budget;
    }

    /**
     * Whether {@code row} is the marker row of a read that ran out of budget (its row was not
     * decided): every cell a marker, one per family the scan reads (each family's first cell of
     * the row is turned into one).
     */
    public static boolean isEnd(Result row) {
        Cell[] cells = row.rawCells();
        if (cells == null || cells.length == 0) {
            return false;
        }
        for (Cell c : cells) {
            if (!CellUtil.matchingQualifier(c, END_QUALIFIER)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean filterRowKey(Cell firstRowCell) throws IOException {
        if (ended) {
            return true;
        }
        if (atEnd || ++looked > budget) {
            atEnd = true;
            return false;
        }
        return filter.filterRowKey(firstRowCell);
    }

    @Override
    public ReturnCode filterCell(Cell c) throws IOException {
        if (ended) {
            return ReturnCode.NEXT_ROW;
        }
        return atEnd ? ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW : filter.filterCell(c);
    }

    @Override
    public Cell transformCell(Cell c) throws IOException {
        if (!atEnd) {
            return filter.transformCell(c);
        }
        markerGiven = true;
        return new KeyValue(CellUtil.cloneRow(c), CellUtil.cloneFamily(c), END_QUALIFIER, c.getTimestamp(),
                KeyValue.Type.Put);
    }

    @Override
    public void filterRowCells(List<Cell> cells) throws IOException {
        if (!atEnd) {
            filter.filterRowCells(cells);
        }
    }

    @Override
    public boolean hasFilterRow() {
        return filter.hasFilterRow();
    }

    @Override
    public boolean filterRow() throws IOException {
        return !atEnd && filter.filterRow();
    }

    @Override
    public void reset() throws IOException {
        if (markerGiven) {
            ended = true;
        }
        filter.reset();
    }

    @Override
    public boolean filterAllRemaining() throws IOException {
        return ended || filter.filterAllRemaining();
    }

    @Override
    public Cell getNextCellHint(Cell currentCell) throws IOException {
        return atEnd ? null : filter.getNextCellHint(currentCell);
    }

    @Override
    public boolean isFamilyEssential(byte[] name) throws IOException {
        return filter.isFamilyEssential(name);
    }

    @Override
    public void setReversed(boolean reversed) {
        super.setReversed(reversed);
        filter.setReversed(reversed);
    }

    /** A format byte, the budget, then the wrapped filter as HBase serializes a filter (class name and bytes). */
    @Override
    public byte[] toByteArray() throws IOException {
        byte[] inner = ProtobufUtil.toFilter(filter).toByteArray();
        return ByteBuffer.allocate(1 + Integer.BYTES + inner.length).put(FORMAT).putInt(budget).put(inner).array();
    }

    /**
     * The filter serialized by {@link #toByteArray()}, as the RegionServer rebuilds it.
     *
     * @throws DeserializationException for any bad input: null or truncated bytes, an unknown
     *     format, a budget below one row, a wrapped filter HBase cannot rebuild
     */
    public static RowBudgetFilter parseFrom(byte[] bytes) throws DeserializationException {
        if (bytes == null) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: bytes are null");
        }
        if (bytes.length < 1 + Integer.BYTES) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: " + bytes.length + " bytes, fewer than its header");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        byte format = in.get();
        if (format != FORMAT) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: unknown format " + format);
        }
        int budget = in.getInt();
        if (budget < 1) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: a budget of " + budget + " rows");
        }
        Filter filter;
        try {
            filter = ProtobufUtil.toFilter(FilterProtos.Filter.parseFrom(
                    Bytes.copy(bytes, in.position(), bytes.length - in.position())));
        } catch (IOException | RuntimeException e) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: the wrapped filter: " + e, e);
        }
        if (filter == null) {
            throw new DeserializationException("RowBudgetFilter.parseFrom: no wrapped filter");
        }
        return new RowBudgetFilter(filter, budget);
    }

    @Override
    public String toString() {
        return "RowBudgetFilter(" + budget + " rows, " + filter + ")";
    }
}
