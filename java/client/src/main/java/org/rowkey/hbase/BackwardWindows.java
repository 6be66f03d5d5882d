package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The rows of sorted, disjoint key ranges in descending key order, read in forward windows from
 * the top down: HBase's reversed scan seeks back to each row's start and costs about 10 times its
 * forward twin (docs/performance.md, reversed reads), where a forward scan reads on in the block.
 * Each window is the ranges cut to a width of the key space below what was handed out, read by the
 * forward scan the read makes of those ranges, its rows handed out backwards. Windows partition the
 * keys, so the rows are those of one reversed scan whatever the windows' sizes, which only decide
 * the cost ({@link KeyWindows}). The first read is a forward read from the bottom, of one region,
 * until it holds {@code keep} rows or {@value #KEEP_BYTES} bytes of them: it answers a chunk that
 * fits whole, as its forward twin reads it, and of a larger one it tells the density and keeps the
 * rows, handed out last. (Every row of the chunk is wanted, so it reads none in vain.) A window
 * keeps at most {@code keep} rows and {@value #KEEP_BYTES} bytes of them (the top ones; the rest are
 * read again by the next window), so a chunk holds at most twice that, bounded by rows and by bytes,
 * as a scanner's caching and its result size are.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class BackwardWindows {
    /** Rows a limited read's sample ({@link TableKeyRangeReader}) looks at, at most, by default. */
    static final int SAMPLE_LOOKED = 1024;
    /**
     * The connection's setting of the rows a descending read's first read looks at (a limited read's
     * default {@value #SAMPLE_LOOKED}, a whole chunk's none: it reads to its {@code keep} bounds):
     * smaller, the reads after it run on small tables too (the oracle harness).
     */
    static final String SAMPLE_ROWS_KEY = "rowkey.descending.sample.rows";

    /**
     * The rows a descending read's first read over {@code table} looks at, at most: {@link #SAMPLE_ROWS_KEY},
     * {@code unset} when the connection does not set it (0: no budget).
     */
    static int sampleLooked(Table table, int unset) {
        return Math.max(0, table.getConfiguration().getInt(SAMPLE_ROWS_KEY, unset));
    }

    private final Table table;
    private final List<RowRange> ranges;
    private final Function<List<RowRange>, Scan> scanOf;
    private final Consumer<ScanMetrics> metrics;
    /** Rows a window keeps, at most; what a window aims at is half of it (or of {@link #keepBytes}). */
    private final int keep;
    /** Bytes of rows a window keeps, at most, and the sample holds: {@link #KEEP_BYTES}, or a share of it. */
    private final long keepBytes;
    /**
     * Bytes of rows a window keeps, at most, and the sample holds (it stops there): twice what HBase's
     * client returns a round trip by default ({@code hbase.client.scanner.max.result.size}, 2 MB), so
     * wide rows are bounded as a scanner's cache is.
     */
    static final long KEEP_BYTES = 4L << 20;
    /** The mean size of the rows the last window kept; 0 before a window. */
    private long rowBytes;
    /** Rows the sample looks at, at most ({@link #SAMPLE_ROWS_KEY}); 0: up to its {@code keep} bounds. */
    private final int sampleLooked;
    private final KeyWindows windows = new KeyWindows();
    /** Every row of the ranges at or above it was handed out; empty: none was (the end of the table). */
    private byte[] top;
    /**
     * Where the windows stop: every row of the ranges below it is in {@link #sampleRows}; null
     * before the sample, and when the sample held the whole chunk.
     */
    private byte[] windowStart;
    /** The rows of the sample, in key order, handed out when the windows reach them. */
    private List<Result> sampleRows = Collections.emptyList();
    private boolean ended;

    /**
     * {@code ranges} of {@code table}, each window read by the scan {@code scanOf} makes of its
     * ranges, each scan's metrics given to {@code metrics}; at most {@code keep} rows a window, of
     * at most {@code keepBytes} (at least a 64th of {@link #KEEP_BYTES}).
     */
    BackwardWindows(Table table, List<RowRange> ranges, Function<List<RowRange>, Scan> scanOf, Consumer<ScanMetrics> metrics,
            int keep, long keepBytes) {
        this.table = table;
        this.ranges = ranges;
        this.scanOf = scanOf;
        this.metrics = metrics;
        this.keep = Math.max(2, keep);
        this.keepBytes = Math.max(KEEP_BYTES / 64, keepBytes);
        this.sampleLooked = sampleLooked(table, 0);
        this.top = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1).getStopRow();
        this.ended = ranges.isEmpty();
    }

    /**
     * Adds the next rows in descending order to {@code rows} (at least one unless none is left);
     * true when no row is left. It stops early, true, once {@code released}.
     */
    boolean read(List<Result> rows, BooleanSupplier released) throws IOException {
        byte[] start = ranges.isEmpty() ? null : ranges.get(0).getStartRow();
        while (!ended && rows.isEmpty() && !released.getAsBoolean()) {
            top = topBelow(ranges, top);
            if (top == null || windowStart != null && top.length > 0 && Bytes.compareTo(top, windowStart) <= 0) {
                handOutSample(rows);
                break;
            }
            boolean sample = windowStart == null;
            byte[] bottom = sample ? start : windows.bottom(windowStart, top);
            byte[] sampleTop = sample ? sampleTop(table, start, top) : null;
            Scan scan = scanOf.apply(cut(ranges, bottom, sampleTop != null ? sampleTop : top));
            if (sample) {
                scan.setLimit(keep);
                if (sampleLooked > 0) {
                    scan.setFilter(new RowBudgetFilter(scan.getFilter() == null ? new FilterList() : scan.getFilter(), sampleLooked));
                }
            }
            Window window = Window.read(table, scan, sample, keep, keepBytes, released, metrics);
            if (released.getAsBoolean()) {
                return true;
            }
            // The rows just read size the next windows: sized from an earlier window's rows, a window
            // of wide rows after narrow ones would be cut by its bytes and read twice.
            if (!window.last.isEmpty()) {
                rowBytes = Math.max(1, window.bytes / window.last.size());
            }
            // A window aims at twice that: half of what it keeps, in rows and in bytes.
            int wanted = rowBytes == 0 ? keep / 4 : (int) Math.max(1, Math.min(keep / 4, keepBytes / 4 / rowBytes));
            byte[] sampled = sample ? window.sampledBelow(sampleTop) : null;
            if (sampled != null) {
                // More rows than a window looks at or keeps, or a region of several: the rows below
                // where it ended are known (kept for last), and the density up to there sizes the windows.
                windowStart = sampled;
                windows.sampled(start, windowStart, window.held, window.looked, wanted, 0);
                sampleRows = new ArrayList<>(window.last);
                continue;
            }
            if (!sample) {
                windows.held(window.held, window.looked, wanted, 0);
            }
            window.handOutDescending(rows::add);
            top = window.nextTop(bottom);
            if (!window.dropped() && Bytes.equals(bottom, sample ? start : windowStart)) {
                handOutSample(rows);
            }
        }
        return ended;
    }

    /** The windows reached the sample: its rows, the chunk's lowest, go last. */
    private void handOutSample(List<Result> rows) {
        for (int i = sampleRows.size() - 1; i >= 0; i--) {
            rows.add(sampleRows.get(i));
        }
        sampleRows = Collections.emptyList();
        ended = true;
    }

    /**
     * One forward read of a window: its last {@code keep} rows in key order, the rows it held and
     * looked at, and, of a sample, the row where its look ended. Both descending reads (the
     * chunks' and the joins' leaves', {@link TableKeyRangeReader}) read their windows with it.
     */
    static final class Window {
        /**
         * The window's top rows, in key order: at most {@code keep}, of at most {@code keepBytes} (or
         * one row); a sample's bottom rows, up to the first that reaches either bound.
         */
        final ArrayDeque<Result> last = new ArrayDeque<>();
        /** The size of the cells of the rows in {@link #last}. */
        long bytes;
        long held;
        long looked;
        /** The end marker of a read whose look is bounded: no row at or above it was looked at; null when its look did not end. */
        byte[] sampleEnd;
        /** A sample stopped at its {@code keep} rows or its {@code keepBytes}: rows above its last are not read. */
        boolean full;

        /**
         * Reads {@code scan} whole (up to its {@link RowBudgetFilter}'s end marker when it has one; a
         * {@code sample} up to its bounds too), its metrics given to {@code metrics}, until {@code released}.
         */
        static Window read(Table table, Scan scan, boolean sample, int keep, long keepBytes, BooleanSupplier released,
                Consumer<ScanMetrics> metrics) throws IOException {
            Window w = new Window();
            try (ResultScanner scanner = table.getScanner(scan.setScanMetricsEnabled(true))) {
                ScanMetrics scanMetrics = scanner.getScanMetrics();
                if (scanMetrics != null) {
                    metrics.accept(scanMetrics);
                }
                boolean budgeted = scan.getFilter() instanceof RowBudgetFilter;
                for (Result r; !released.getAsBoolean() && (r = scanner.next()) != null;) {
                    if (budgeted && RowBudgetFilter.isEnd(r)) {
                        w.sampleEnd = r.getRow();
                        break;
                    }
                    w.held++;
                    w.last.addLast(r);
                    w.bytes += Result.getTotalSizeOfCells(r);
                    if (sample && (w.held >= keep || w.bytes >= keepBytes)) {
                        w.full = true;
                        break;
                    }
                    while (w.last.size() > keep || w.bytes > keepBytes && w.last.size() > 1) {
                        w.bytes -= Result.getTotalSizeOfCells(w.last.removeFirst());
                    }
                }
                w.looked = scanMetrics == null ? w.held : Math.max(w.held, scanMetrics.countOfRowsScanned.get());
            }
            return w;
        }

        /**
         * Of a sample stopped at {@code sampleTop} (null: not stopped), the key below which it holds
         * every row, when it did not read all it was given (its look ended, it reached its bounds, or
         * it stopped at a region's end); else null.
         */
        byte[] sampledBelow(byte[] sampleTop) {
            return sampleEnd != null ? sampleEnd : full ? Bytes.add(last.peekLast().getRow(), new byte[1]) : sampleTop;
        }

        /** Rows held below those kept: read again by the next window. */
        boolean dropped() {
            return held > last.size();
        }

        /** The rows kept, from the highest down. */
        void handOutDescending(Consumer<Result> to) {
            for (Iterator<Result> down = last.descendingIterator(); down.hasNext();) {
                to.accept(down.next());
            }
        }

        /**
         * Every row of the window at or above the lowest kept is known: the next window's top is
         * that row, or the window's {@code bottom} when every row was kept.
         */
        byte[] nextTop(byte[] bottom) {
            return dropped() ? last.peekFirst().getRow() : bottom;
        }
    }

    /**
     * Where a sample from {@code start} stops: the end of the region holding {@code start} when it is
     * below {@code top}, else null. A scanner fills its caching from the next regions, and each region
     * looks at a fresh budget, so a sample of several regions would look at a budget in each. The
     * region is the connection's cached one: a stale end only moves where the sample stops.
     */
    static byte[] sampleTop(Table table, byte[] start, byte[] top) throws IOException {
        byte[] end;
        try (RegionLocator locator = table.getRegionLocator()) {
            end = locator.getRegionLocation(start).getRegion().getEndKey();
        }
        boolean within = end.length > 0 && Bytes.compareTo(end, start) > 0 && (top.length == 0 || Bytes.compareTo(end, top) < 0);
        return within ? end : null;
    }

    /**
     * The top of what is left of {@code ranges} below {@code top} (empty: the end of the table):
     * {@code top} itself, or the stop of the highest range below it when {@code top} is between
     * ranges; null when no range is below it. A window below this top holds keys of a range.
     */
    static byte[] topBelow(List<RowRange> ranges, byte[] top) {
        for (int i = ranges.size() - 1; i >= 0; i--) {
            RowRange r = ranges.get(i);
            if (top.length == 0 || Bytes.compareTo(r.getStartRow(), top) < 0) {
                byte[] stop = r.getStopRow();
                return top.length == 0 || stop.length > 0 && Bytes.compareTo(stop, top) < 0 ? stop : top;
            }
        }
        return null;
    }

    /**
     * {@code ranges} cut to the keys at or above {@code bottom} and below {@code top} (empty: no
     * bound): never empty below a {@link #topBelow}, as the window's bottom is below its top.
     */
    static List<RowRange> cut(List<RowRange> ranges, byte[] bottom, byte[] top) {
        List<RowRange> out = new ArrayList<>(ranges.size());
        for (RowRange r : ranges) {
            byte[] from = Bytes.compareTo(r.getStartRow(), bottom) >= 0 ? r.getStartRow() : bottom;
            byte[] to = r.getStopRow();
            if (top.length > 0 && (to.length == 0 || Bytes.compareTo(to, top) > 0)) {
                to = top;
            }
            if (to.length == 0 || Bytes.compareTo(from, to) < 0) {
                out.add(new RowRange(from, true, to, false));
            }
        }
        return out;
    }
}
