package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.rowkey.hbase.join.KeyRangeReader;

/**
 * A {@link KeyRangeReader} over an HBase table: each read is one scan bounded by {@code setLimit},
 * key-only ({@code FirstKeyOnlyFilter} + {@code KeyOnlyFilter}), or for an index table each row's
 * first cell and status cell, so that the UNVERIFIED rows read go to an {@link Unverified} sink
 * (STALE rows are dropped on the server);
 * points are a {@code MultiRowRangeFilter} of single rows (a server-side seek to each) followed by
 * the range from {@code from} on. A descending reader makes reversed scans.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class TableKeyRangeReader implements KeyRangeReader {
    private final Table table;
    private final byte[] start;
    private final byte[] stop;
    /** Extra filter of the rows (a data-table plan's residual, or the branch's predicate), or null. */
    private final Filter filter;
    private final boolean descending;
    /** Where an index table's UNVERIFIED rows go; null for the data table (key-only reads). */
    private final Unverified unverified;
    /** Where a data-table read hands the rows it reads whole; null: key-only reads. */
    private final DataRows dataRows;
    private long rowsRead;
    private long reads;

    /** Told of each UNVERIFIED index row a read returns, with its status cell. */
    interface Unverified {
        void met(byte[] row, Cell status);
    }

    /**
     * Rows of a data-table read that are the query's answer (its filter keeps only matches), read
     * as the query's {@code Get}s would read them so that they need no {@code Get}.
     */
    interface DataRows {
        /** Adds the query's columns to {@code scan}, or key-only filters to {@code filters}. */
        void shape(Scan scan, List<Filter> filters);

        /** Told of each row a read returns. */
        void read(Result row);
    }

    /** {@code unverified}: null for the data table (its reads are key-only). */
    TableKeyRangeReader(Table table, byte[] start, byte[] stop, Filter filter, boolean descending, Unverified unverified) {
        this(table, start, stop, filter, descending, unverified, null);
    }

    /** A data-table reader that reads its rows as {@code dataRows} shapes them and hands them over. */
    TableKeyRangeReader(Table table, byte[] start, byte[] stop, Filter filter, boolean descending, Unverified unverified,
            DataRows dataRows) {
        this.table = table;
        this.unverified = unverified;
        this.dataRows = dataRows;
        this.start = start;
        this.stop = stop;
        this.filter = filter;
        this.descending = descending;
    }

    @Override
    public boolean descending() {
        return descending;
    }

    @Override
    public byte[] start() {
        return start;
    }

    @Override
    public byte[] stop() {
        return stop;
    }

    @Override
    public Read read(List<byte[]> points, byte[] from, boolean inclusive, int limit, int budget) throws IOException {
        List<Filter> filters = new ArrayList<>();
        Scan scan = new Scan().setLimit(limit).setCaching(limit).setScanMetricsEnabled(true).setReversed(descending);
        // Scan bounds in reading order: a reversed scan starts at its highest row.
        byte[] first = points.isEmpty() ? from : points.get(0);
        boolean firstInclusive = !points.isEmpty() || inclusive;
        if (first.length > 0) {
            scan.withStartRow(first, firstInclusive);
        }
        byte[] last = from == null ? points.get(points.size() - 1) : descending ? start : stop;
        if (last.length > 0) {
            scan.withStopRow(last, from == null || descending);
        }
        if (!points.isEmpty()) {
            List<RowRange> ranges = new ArrayList<>();
            for (byte[] p : points) {
                ranges.add(new RowRange(p, true, p, true));
            }
            if (from != null && descending) {
                ranges.add(new RowRange(start, true, from.length == 0 ? HConstants.EMPTY_END_ROW : from, from.length > 0 && inclusive));
            } else if (from != null) {
                ranges.add(new RowRange(from, inclusive, stop.length == 0 ? HConstants.EMPTY_END_ROW : stop, false));
            }
            filters.add(new MultiRowRangeFilter(ranges));
        }
        if (filter != null) {
            filters.add(filter);
        }
        if (dataRows != null) {
            dataRows.shape(scan, filters);
        } else if (unverified == null) {
            filters.add(ReadShape.keyOnly());
        } else {
            // A STALE row (its data row was found missing) is dropped on the server, first so that it
            // sees the status cell: no key, so no Get for it.
            SingleColumnValueFilter notStale = new SingleColumnValueFilter(IndexRowFormat.FAMILY,
                    IndexRowFormat.STATUS, CompareOperator.NOT_EQUAL, IndexRowFormat.STALE);
            notStale.setFilterIfMissing(false);
            notStale.setLatestVersionOnly(true);
            filters.add(0, notStale);
            // The first cell keeps a row without a status; the status cell tells an UNVERIFIED one.
            filters.add(new FilterList(FilterList.Operator.MUST_PASS_ONE, new FirstKeyOnlyFilter(), new QualifierFilter(
                    CompareOperator.EQUAL, new BinaryComparator(IndexRowFormat.STATUS))));
        }
        Filter all = new FilterList(FilterList.Operator.MUST_PASS_ALL, filters);
        scan.setFilter(budget > 0 ? new RowBudgetFilter(all, budget) : all);
        List<byte[]> rows = new ArrayList<>();
        boolean cut = false;
        try (ResultScanner scanner = table.getScanner(scan)) {
            for (Result r; (r = scanner.next()) != null;) {
                rows.add(r.getRow());
                if (budget > 0 && RowBudgetFilter.isEnd(r)) {
                    cut = true; // what follows, from a next region, starts after rows never looked at
                    break;
                }
                if (dataRows != null) {
                    dataRows.read(r);
                }
                Cell status = unverified == null ? null : IndexRowFormat.status(r);
                if (IndexRowFormat.isUnverified(status)) {
                    unverified.met(r.getRow(), status);
                }
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            rowsRead += metrics == null ? rows.size() : Math.max(rows.size(), metrics.countOfRowsScanned.get());
        }
        reads++;
        return new Read(rows, cut);
    }

    @Override
    public long rowsRead() {
        return rowsRead;
    }

    @Override
    public long reads() {
        return reads;
    }
}
