package org.rowkey.hbase.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;

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
        ResultRowsFloor plain = new ResultRowsFloor(connection, THREADS);
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
            List<RowRange> planRanges = FloorBench.chosenRanges(demo.explain(q));
            int rangeRows = plain.read(Demo.PLAIN_TABLE, planRanges, System.nanoTime()).rows.size();
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
                double r = plain.read(Demo.PLAIN_TABLE, planRanges, System.nanoTime()).millis;
                Demo.Outcome f = plain.read(Demo.PLAIN_TABLE, expected);
                same &= s.rows.equals(expected) && o.rows.equals(expected) && f.rows.equals(expected);
                if (run >= 0) {
                    plan[run] = p;
                    serial[run] = s.millis;
                    parallel[run] = o.millis;
                    ranges[run] = r;
                    floor[run] = f.millis;
                }
            }
            double ours = EndToEnd.median(parallel);
            double least = EndToEnd.median(floor);
            System.out.printf(Locale.ROOT, "| %s | %,d | %.2f | %.2f | %.2f | %,d / %.2f | %.2f | %.2fx |%n", q.name,
                    expected.size(), EndToEnd.median(plan), EndToEnd.median(serial), ours, rangeRows, EndToEnd.median(ranges),
                    least, ours / least);
        }
        System.out.println(same ? "Every way returned the same rows." : "MISMATCH: a way returned other rows.");
        return same ? 0 : 1;
    }
}
