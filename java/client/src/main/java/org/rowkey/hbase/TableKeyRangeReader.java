package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
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
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.join.KeyRangeReader;

/**
 * A {@link KeyRangeReader} over an HBase table: each read is one scan bounded by {@code setLimit},
 * key-only ({@code FirstKeyOnlyFilter} + {@code KeyOnlyFilter}), or for an index table each row's
 * first cell and status cell, so that the UNVERIFIED rows read go to an {@link Unverified} sink
 * (STALE rows are dropped on the server), or rows read whole for a {@link DataRows} sink;
 * points are a {@code MultiRowRangeFilter} of single rows (a server-side seek to each) followed by
 * the range from {@code from} on. A descending reader reads its range in forward windows from the
 * top down ({@link #readBackwards}), its points with reversed scans.
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
    /** A descending reader's window sizes ({@link #readBackwards}). */
    private final KeyWindows windows = new KeyWindows();
    /** Rows a window's scan returns a round trip. */
    private static final int WINDOW_CACHING = 1000;
    /** Rows a descending read's sample looks at per row the read needs (at most its budget). */
    private static final int SAMPLE_PER_ROW_NEEDED = 16;
    /**
     * A small descending read first reads from the top ({@link #probeFromTop}): for a stream's range
     * under the branch's row filter, not for the data-table scan of the branches no stream serves
     * (the skip scan or a residual filter over sparse matches), where a reversed scan cost more than
     * its windows (seed 2's last 10 took 21.8 ms probing, 7.7 not).
     */
    private final boolean probesFromTop;
    /** Rows a descending read's first read (a sample, or a probe from the top) looks at, at most. */
    private final int firstReadLooks;
    /** {@link DensityPriors}: null when none is kept. */
    private final DensityPriors.Slot density;
    /** {@link BackwardWindows#SAMPLE_ROWS_KEY}, 0 when the connection does not set it. */
    private final int firstReadLooksSet;
    /**
     * A first window sized from an earlier read's density looks at this many times what it would
     * look at were the density unchanged, at least a first read's look; what the connection sets a
     * first read's look to, when it does ({@link BackwardWindows#SAMPLE_ROWS_KEY}).
     */
    private static final int PRIMED_LOOKS_MORE = 4;
    /** A descending read needing at most this many rows first reads them from the top ({@link #probeFromTop}). */
    private static final int PROBE_MOST_NEEDED = 64;
    /** Rows a probe from the top looks at per row it needs, and more. */
    private static final int PROBE_LOOKS_PER_ROW = 8;
    private static final int PROBE_LOOKS_MORE = 16;
    /** Rows of a window kept beyond a descending read's limit, for the next read. */
    static final int SPARE = 2048;
    /**
     * A descending reader's rows read and not handed out yet, in descending order: with
     * {@link #frontier}, every row of the range in [frontier, resumeBelow), the last row returned
     * excluded; the next window ends at the frontier ({@link #frontierInclusive}: with it).
     */
    private final ArrayDeque<Result> spare = new ArrayDeque<>();
    private byte[] frontier;
    private boolean frontierInclusive;
    /** Every row of the range below the frontier was read (an empty frontier is then the table's start, not its end). */
    private boolean reachedStart;
    /** The last row a descending read returned when it reached its limit: where the next read may go on; else null. */
    private byte[] resumeBelow;

    /** Told of each UNVERIFIED index row a read returns, with its status cell. */
    interface Unverified {
        void met(byte[] row, Cell status);
    }

    /**
     * Rows a read hands over whole so that their keys need no {@code Get}: a data-table read's (its
     * filter keeps only matches), read as the query's {@code Get}s would read them, or a covered
     * index's, each VERIFIED one answering for its data row.
     */
    interface DataRows {
        /** Adds the query's columns to {@code scan}, or key-only filters to {@code filters} (nothing: whole rows). */
        void shape(Scan scan, List<Filter> filters);

        /** Told of each row a read returns. */
        void read(Result row);
    }

    /**
     * A reader of {@code table}'s range: an index table's when {@code unverified} is given (null: the
     * data table's, key-only), its rows read as {@code dataRows} shapes them and handed over (null:
     * keys); {@code probesFromTop}: see {@link #probesFromTop}; {@code density}: where a descending
     * read finds what the last read of the same keys found, and leaves what it finds (null: none).
     */
    TableKeyRangeReader(Table table, byte[] start, byte[] stop, Filter filter, boolean descending, Unverified unverified,
            DataRows dataRows, boolean probesFromTop, DensityPriors.Slot density) {
        this.probesFromTop = probesFromTop;
        this.density = density;
        this.firstReadLooks = Math.max(1, BackwardWindows.sampleLooked(table, BackwardWindows.SAMPLE_LOOKED));
        this.firstReadLooksSet = BackwardWindows.sampleLooked(table, 0);
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
        if (descending && points.isEmpty()) {
            return readBackwards(from, inclusive, limit, budget);
        }
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
        shape(scan, filters);
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
                handOver(r);
            }
            countRead(scanner, rows.size());
        }
        return new Read(rows, cut);
    }

    /**
     * The reader's filter and what its rows are read as (whole data rows or keys; index rows whole
     * or with their status alone).
     */
    private void shape(Scan scan, List<Filter> filters) {
        if (filter != null) {
            filters.add(filter);
        }
        if (unverified != null) {
            // A STALE row (its data row was found missing) is dropped on the server, first so that it
            // sees the status cell: no key, so no Get for it.
            SingleColumnValueFilter notStale = new SingleColumnValueFilter(IndexRowFormat.FAMILY,
                    IndexRowFormat.STATUS, CompareOperator.NOT_EQUAL, IndexRowFormat.STALE);
            notStale.setFilterIfMissing(false);
            notStale.setLatestVersionOnly(true);
            filters.add(0, notStale);
        }
        if (dataRows != null) {
            dataRows.shape(scan, filters);
        } else if (unverified == null) {
            filters.add(ScanPlanner.keyOnly());
        } else {
            // The first cell keeps a row without a status; the status cell tells an UNVERIFIED one.
            filters.add(new FilterList(FilterList.Operator.MUST_PASS_ONE, new FirstKeyOnlyFilter(), new QualifierFilter(
                    CompareOperator.EQUAL, new BinaryComparator(IndexRowFormat.STATUS))));
        }
    }

    /** A row the read returns, handed to whoever wants it whole ({@link DataRows}, {@link Unverified}). */
    private void handOver(Result r) {
        if (dataRows != null) {
            dataRows.read(r);
        }
        Cell status = unverified == null ? null : IndexRowFormat.status(r);
        if (IndexRowFormat.isUnverified(status)) {
            unverified.met(r.getRow(), status);
        }
    }

    /** Counts a scan's rows looked at (at least the {@code returned}) and the read; returns the rows looked at. */
    private long countRead(ResultScanner scanner, long returned) {
        ScanMetrics metrics = scanner.getScanMetrics();
        long looked = metrics == null ? returned : Math.max(returned, metrics.countOfRowsScanned.get());
        counted(looked);
        return looked;
    }

    /** Counts a read that looked at {@code looked} rows. */
    private void counted(long looked) {
        rowsRead += looked;
        reads++;
    }

    /**
     * A descending read of the range below {@code from}, made of forward scans: HBase reads a
     * reversed scan row by row with a seek back to each row's start, about 10 times its forward
     * twin (docs/performance.md, reversed reads), where a forward scan reads on in the block. So the
     * key space below {@code from} is cut into windows from the top down, each read forward whole,
     * and its rows handed out backwards. Windows partition the keys exactly, so the rows are those a
     * reversed scan returns whatever the windows' sizes; sizes only decide the cost ({@link KeyWindows}).
     * The rows of a window beyond the read's limit are kept, up to {@value #SPARE} of them, for the
     * next read if it goes on where this one stopped (as a scanner's caching does). A stream's read
     * needing at most {@value #PROBE_MOST_NEEDED} rows first probes from the top with a reversed scan that
     * looks at a few rows per row needed ({@link #probeFromTop}): it answers where the filter keeps
     * most rows, and else its rows size the windows. Otherwise the first read of the reader reads
     * the range forward up to that many rows, looking at {@value #SAMPLE_PER_ROW_NEEDED}
     * rows per row it needs (at least {@value KeyWindows#LEAST_AIM}, at most
     * {@value BackwardWindows#SAMPLE_LOOKED}: {@link BackwardWindows#SAMPLE_ROWS_KEY}), which answers a
     * small range whole and tells a large one's density. (A reversed scan from the top that reads on
     * until it holds the rows needed was measured: one round trip for the last 10, but where the
     * filter keeps few it looks at every row it passes, without the skip scan's seeks, 10 times the
     * rows, and was no faster: docs/performance.md. The probe's look is bounded for that.)
     * A budget is kept as a reversed scan keeps it: once the windows read have looked at
     * {@code budget} rows, the read ends with the next row below them, undecided ({@link Read#cut}).
     */
    private Read readBackwards(byte[] from, boolean inclusive, int limit, int budget) throws IOException {
        if (resumeBelow == null || inclusive || !Bytes.equals(from, resumeBelow)) {
            spare.clear(); // a seek elsewhere: what was kept is not where this read starts
            frontier = from.length > 0 ? from : stop;
            frontierInclusive = from.length > 0 && inclusive;
            int below = frontier.length == 0 ? 1 : Bytes.compareTo(frontier, start);
            reachedStart = below < 0 || below == 0 && !frontierInclusive;
        }
        List<byte[]> rows = new ArrayList<>();
        List<Result> handed = new ArrayList<>();
        long looked = 0;
        boolean cut = false;
        boolean probed = false;
        while (rows.size() < limit && (!spare.isEmpty() || !reachedStart)) {
            if (!spare.isEmpty()) {
                Result r = spare.pollFirst();
                rows.add(r.getRow());
                handed.add(r);
                continue;
            }
            if (budget > 0 && looked >= budget) {
                byte[] next = rowBelow(frontier, frontierInclusive);
                cut = next != null;
                if (cut) {
                    frontier = next;
                    frontierInclusive = false;
                    rows.add(next);
                }
                break;
            }
            int need = limit - rows.size();
            // The rows a first window sized from an earlier read's density may look at; 0: no such window.
            long primedLook = 0;
            if (!windows.sized() && density != null) {
                KeyWindows.Density earlier = density.get();
                if (earlier != null) {
                    windows.prime(earlier, need);
                    primedLook = firstReadLooksSet > 0 ? firstReadLooksSet
                            : Math.max(firstReadLooks, PRIMED_LOOKS_MORE * earlier.looksFor(need));
                }
            }
            boolean sample = !windows.sized();
            if (sample && probesFromTop && !probed && need <= PROBE_MOST_NEEDED) {
                probed = true;
                looked += probeFromTop(need, budget > 0 ? (int) Math.max(1, budget - looked) : 0, rows, handed);
                continue;
            }
            byte[] bottom = sample ? start : windows.bottom(start, frontier);
            byte[] sampleTop = sample ? BackwardWindows.sampleTop(table, start, frontier) : null;
            Scan scan = new Scan().setCaching(WINDOW_CACHING).withStartRow(bottom, true);
            if (sampleTop != null) {
                scan.withStopRow(sampleTop, false);
            } else if (frontier.length > 0) {
                scan.withStopRow(frontier, frontierInclusive);
            }
            if (sample) {
                scan.setLimit(need + SPARE);
            }
            List<Filter> filters = new ArrayList<>();
            shape(scan, filters);
            Filter all = new FilterList(FilterList.Operator.MUST_PASS_ALL, filters);
            // A sample only sizes the windows of a large range: in proportion to the rows needed.
            long look = sample ? Math.min(firstReadLooks, Math.max(KeyWindows.LEAST_AIM, SAMPLE_PER_ROW_NEEDED * need)) : primedLook;
            scan.setFilter(look > 0 ? new RowBudgetFilter(all, (int) Math.min(budget > 0 ? budget : Integer.MAX_VALUE, look)) : all);
            // The window's last rows, in key order: at most what this read needs and the spare.
            BackwardWindows.Window window = BackwardWindows.Window.read(table, scan, sample, need + SPARE, Long.MAX_VALUE, () -> false,
                    m -> { });
            counted(window.looked);
            looked += window.looked;
            byte[] sampled = sample ? window.sampledBelow(sampleTop) : null;
            if (sampled != null) {
                // More rows than one read looks at or keeps, or a region of several: from the bottom up to here, the density.
                windows.sampled(start, sampled, window.held, window.looked, need, budget);
                continue;
            }
            if (!sample && window.sampleEnd != null) {
                // The earlier read's density no longer holds: its look ended below the window's top.
                // The rows from the bottom up to there size the next windows; none is kept.
                windows.sampled(bottom, window.sampleEnd, window.held, window.looked, need, budget);
                continue;
            }
            if (sample) {
                windows.sampled(start, frontier, window.held, window.looked, need, budget);
            } else {
                windows.held(window.held, window.looked, need, budget);
            }
            window.handOutDescending(spare::addLast);
            frontier = window.nextTop(bottom);
            frontierInclusive = false;
            reachedStart = !window.dropped() && Bytes.equals(bottom, start);
        }
        handed.forEach(this::handOver);
        resumeBelow = cut || rows.size() == limit ? rows.get(rows.size() - 1) : null;
        if (density != null && windows.measured() != null) {
            density.put(windows.measured());
        }
        return new Read(rows, cut);
    }

    /**
     * The first read of a small descending read: one reversed scan from the frontier down, looking at
     * {@value #PROBE_LOOKS_PER_ROW} rows per row needed and {@value #PROBE_LOOKS_MORE} more (at most
     * {@code budget}, 0: no bound). Where the filter keeps most rows (an index range whose fields
     * are all fixed, a bucket of a salted one) it finds them in one round trip, where a sample from
     * the range's start and a window from the top took two; a reversed scan costs about ten times
     * a forward one per row, so it looks at few. Its rows, the highest of the range, are handed out
     * ({@code rows}, {@code handed}); when its look ended first, the rows it looked at size the
     * windows below it in place of a sample. Returns the rows looked at.
     */
    private long probeFromTop(int need, int budget, List<byte[]> rows, List<Result> handed) throws IOException {
        // At most what a first read looks at (BackwardWindows.SAMPLE_ROWS_KEY: the oracle harness sets a few rows).
        int look = Math.min(firstReadLooks, PROBE_LOOKS_PER_ROW * need + PROBE_LOOKS_MORE);
        Scan scan = new Scan().setReversed(true).setLimit(need + 1).setCaching(need + 1).setScanMetricsEnabled(true);
        if (frontier.length > 0) {
            scan.withStartRow(frontier, frontierInclusive);
        }
        if (start.length > 0) {
            scan.withStopRow(start, true);
        }
        List<Filter> filters = new ArrayList<>();
        shape(scan, filters);
        scan.setFilter(new RowBudgetFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, filters),
                budget > 0 ? Math.min(budget, look) : look));
        byte[] marker = null;
        int held = 0;
        long looked;
        try (ResultScanner scanner = table.getScanner(scan)) {
            for (Result r; held < need && (r = scanner.next()) != null;) {
                if (RowBudgetFilter.isEnd(r)) {
                    marker = r.getRow();
                    break;
                }
                rows.add(r.getRow());
                handed.add(r);
                held++;
            }
            looked = countRead(scanner, held);
        }
        if (marker != null) {
            // Every row above the marker was looked at: the windows go on from it, sized by the rows
            // up to the highest held (the frontier when none was, unless it is the table's end: the
            // key space above the rows would thin the density, and a sample from the start sizes them).
            byte[] highest = held > 0 ? rows.get(rows.size() - held) : frontier;
            if (highest.length > 0) {
                windows.sampled(marker, highest, held, looked, need - held, 0);
            }
            frontier = marker;
            frontierInclusive = true;
        } else if (held == need) {
            frontier = rows.get(rows.size() - 1);
            frontierInclusive = false;
        } else {
            reachedStart = true; // the scan reached the range's start
        }
        return looked;
    }

    /** The first row of the range below {@code top} ({@code inclusive}: at or below), whatever it holds (one row of a reversed scan), or null. */
    private byte[] rowBelow(byte[] top, boolean inclusive) throws IOException {
        Scan scan = new Scan().setReversed(true).setLimit(1).setCaching(1).setScanMetricsEnabled(true)
                .withStopRow(start, true).setFilter(ScanPlanner.keyOnly());
        if (top.length > 0) {
            scan.withStartRow(top, inclusive);
        }
        try (ResultScanner scanner = table.getScanner(scan)) {
            Result r = scanner.next();
            countRead(scanner, r == null ? 0 : 1);
            return r == null ? null : r.getRow();
        }
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
