package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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

import org.rowkey.hbase.RowKeyQuery;

/**
 * {@code cargo make bench-query-cost}: where a small query's time goes, on the demo's plain table
 * (row by row loaded, its indexes): for each query on the key's leading field, the median of many
 * runs of (1) {@code RowKeyTable.explain} (the plan and its text: an upper bound of planning), (2)
 * ours through {@code RowKeyTable.scan}, serial and parallel, (3) the plan's key ranges read by
 * plain scans with no row filter, one per region at once (every row any filter-based way reads, with
 * none of our machinery), and (4) the floor: the result rows alone, keys known in advance, one
 * plain scan per region, the regions at once. The ways take turns.
 * Run the JVM with {@code -XX:StartFlightRecording} to profile it.
 */
public final class QueryCost {
    private static final int THREADS = 16;

    public static void main(String[] args) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Demo.Options options = Demo.Options.parse(rest.toArray(new String[0]), true);
        Demo.benchmarkMain("bench-query-cost", options, connection -> new QueryCost().run(connection, options));
    }

    private int run(Connection connection, Demo.Options options) throws Exception {
        DataSet data = new DataSet(options.rows, options.seed);
        Demo demo = new Demo(connection, options, true);
        demo.createAndLoad(Demo.PLAIN_TABLE, Demo.seedSchema().build(), false, Demo.plainIndexes(), data);
        ExecutorService readers = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "floor-read");
            t.setDaemon(true);
            return t;
        });
        int runs = Math.max(options.runs, 200);
        System.out.printf(Locale.ROOT, "%n%,d rows; median of %d runs after %d warm-up runs, the ways taking turns%n",
                data.size(), runs, runs / 4);
        System.out.println("| query | rows | plan + explain text, ms | ours serial, ms | ours parallel, ms"
                + " | the plan's ranges, plain scans at once: rows / ms | floor, ms | ours / floor |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        boolean same = true;
        for (DemoQuery q : DemoQuery.all(data)) {
            if (q.salted || !q.name.contains("md5url")) {
                continue;
            }
            TreeSet<String> expected = demo.runTable(q, false).rows;
            List<List<RowRange>> planRanges = byRegion(connection, FloorBench.chosenRanges(demo.explain(q)));
            int rangeRows = read(connection, readers, planRanges).size();
            double[] plan = new double[runs];
            double[] serial = new double[runs];
            double[] parallel = new double[runs];
            double[] ranges = new double[runs];
            double[] floor = new double[runs];
            for (int run = -runs / 4; run < runs; run++) {
                long start = System.nanoTime();
                demo.explain(q);
                double p = Demo.millisSince(start);
                Demo.Outcome s = demo.runTable(q, false, true);
                Demo.Outcome o = demo.runTable(q, false);
                start = System.nanoTime();
                read(connection, readers, planRanges);
                double r = Demo.millisSince(start);
                start = System.nanoTime();
                TreeSet<String> f = read(connection, readers, byRegion(connection, pointRanges(expected)));
                double fl = Demo.millisSince(start);
                same &= s.rows.equals(expected) && o.rows.equals(expected) && f.equals(expected);
                if (run >= 0) {
                    plan[run] = p;
                    serial[run] = s.millis;
                    parallel[run] = o.millis;
                    ranges[run] = r;
                    floor[run] = fl;
                }
            }
            System.out.printf(Locale.ROOT, "| %s | %,d | %.2f | %.2f | %.2f | %,d / %.2f | %.2f | %.2fx |%n", q.name,
                    expected.size(), median(plan), median(serial), median(parallel), rangeRows, median(ranges), median(floor),
                    median(parallel) / median(floor));
        }
        readers.shutdown();
        System.out.println(same ? "Every way returned the same rows." : "MISMATCH: a way returned other rows.");
        return same ? 0 : 1;
    }

    private static List<RowRange> pointRanges(TreeSet<String> rowsHex) {
        List<RowRange> points = new ArrayList<>();
        for (String hex : rowsHex) {
            byte[] row = Bytes.fromHex(hex);
            points.add(new RowRange(row, true, row, true));
        }
        return points;
    }

    /** {@code ranges} (sorted, disjoint, each within one region) grouped by the region that holds them. */
    private static List<List<RowRange>> byRegion(Connection connection, List<RowRange> ranges) throws IOException {
        List<List<RowRange>> pieces = new ArrayList<>();
        try (RegionLocator locator = connection.getRegionLocator(Demo.PLAIN_TABLE)) {
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
        return pieces;
    }

    /** The rows of {@code pieces}, one plain scan per piece, the pieces at once. */
    private static TreeSet<String> read(Connection connection, ExecutorService readers, List<List<RowRange>> pieces)
            throws Exception {
        List<Future<TreeSet<String>>> reads = new ArrayList<>();
        for (List<RowRange> piece : pieces) {
            reads.add(readers.submit(() -> scan(connection, piece)));
        }
        TreeSet<String> rows = new TreeSet<>();
        for (Future<TreeSet<String>> read : reads) {
            rows.addAll(read.get());
        }
        return rows;
    }

    private static TreeSet<String> scan(Connection connection, List<RowRange> ranges) throws IOException {
        RowRange last = ranges.get(ranges.size() - 1);
        Scan scan = new Scan().withStartRow(ranges.get(0).getStartRow()).withStopRow(last.getStopRow(), last.isStopRowInclusive());
        if (ranges.size() > 1) {
            scan.setFilter(new MultiRowRangeFilter(new ArrayList<>(ranges)));
        }
        TreeSet<String> rows = new TreeSet<>();
        try (Table table = connection.getTable(Demo.PLAIN_TABLE); ResultScanner scanner = table.getScanner(scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toHex(r.getRow()));
            }
        }
        return rows;
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
