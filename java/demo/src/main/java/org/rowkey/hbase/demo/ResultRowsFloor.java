package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The floor of returning a query's rows by scans: its result rows, keys known in advance, read as
 * one plain HBase scan per region that holds any (exactly those rows: a point range each, no other
 * filter), the regions at once. Any way that finds the rows by scanning reads at least these rows
 * from these regions; Phoenix's parallel chunks and ours do this plus finding them. Any key
 * ranges can be read the same way ({@link QueryCost}: the plan's ranges with no row filter). The
 * rows are handed to the one consuming thread, which does with each what the benchmarks do with a
 * row of ours (its key in hex into a sorted set), so the floor and ours differ only in the reading.
 */
final class ResultRowsFloor {
    private final Connection connection;
    private final ExecutorService readers;

    ResultRowsFloor(Connection connection, int threads) {
        this.connection = connection;
        this.readers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "result-rows-floor");
            t.setDaemon(true);
            return t;
        });
    }

    /** Reads {@code rowsHex} (sorted) from {@code table}, timed from the start. */
    Demo.Outcome read(TableName table, TreeSet<String> rowsHex) throws Exception {
        long start = System.nanoTime();
        List<RowRange> points = new ArrayList<>();
        for (String hex : rowsHex) {
            byte[] row = Bytes.fromHex(hex);
            points.add(new RowRange(row, true, row, true));
        }
        return read(table, points, start);
    }

    /**
     * Reads {@code ranges} (sorted, disjoint, each within one region) from {@code table}: one plain
     * scan per region, the regions at once; timed from {@code startNanos}.
     */
    Demo.Outcome read(TableName table, List<RowRange> ranges, long startNanos) throws Exception {
        List<List<RowRange>> pieces = new ArrayList<>();
        try (RegionLocator locator = connection.getRegionLocator(table)) {
            byte[] pieceEnd = null;
            for (RowRange range : ranges) {
                HRegionLocation region = locator.getRegionLocation(range.getStartRow(), false);
                byte[] end = region.getRegion().getEndKey();
                if (pieceEnd == null || !Bytes.equals(end, pieceEnd)) {
                    pieces.add(new ArrayList<>());
                    pieceEnd = end;
                }
                pieces.get(pieces.size() - 1).add(range);
            }
        }
        List<Future<List<Result>>> reads = new ArrayList<>();
        for (List<RowRange> piece : pieces) {
            reads.add(readers.submit(() -> scan(table, piece)));
        }
        TreeSet<String> rows = new TreeSet<>();
        for (Future<List<Result>> read : reads) {
            for (Result r : read.get()) {
                rows.add(Bytes.toHex(r.getRow()));
            }
        }
        return new Demo.Outcome(rows, rows.size(), -1, pieces.size(), Demo.millisSince(startNanos));
    }

    private List<Result> scan(TableName name, List<RowRange> ranges) throws IOException {
        RowRange last = ranges.get(ranges.size() - 1);
        Scan scan = new Scan().withStartRow(ranges.get(0).getStartRow())
                .withStopRow(last.getStopRow(), last.isStopRowInclusive()).setCaching(1000);
        if (ranges.size() > 1) {
            scan.setFilter(new MultiRowRangeFilter(new ArrayList<>(ranges)));
        }
        List<Result> rows = new ArrayList<>();
        try (Table table = connection.getTable(name); ResultScanner scanner = table.getScanner(scan)) {
            for (Result r : scanner) {
                rows.add(r);
            }
        }
        return rows;
    }
}
