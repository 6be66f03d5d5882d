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

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * {@code cargo make bench-query-cost}: where a small query's time goes, on the demo's plain table
 * (row by row loaded, its indexes): for each query on the key's leading field, the median of many
 * runs of (1) {@code RowKeyTable.explain} (the plan and its text: an upper bound of planning), (2)
 * ours through {@code RowKeyTable.scan}, serial and parallel, (3) the plan's key ranges read by
 * plain scans with no row filter, one per region at once (every row any filter-based way reads, with
 * none of our machinery), and (4) the floor: the result rows alone, keys known in advance, one
 * plain scan per region, the regions at once. The ways take turns.
 * With {@code --index}, the queries the (sdate, code) index answers instead (seed 2 and the salted
 * covered query, on tables with the demo's indexes); their floor is the plan's index key ranges
 * read plainly, one scan per region at once (every index row in them is a result row), and beside
 * it the floor of an exact read: the same read with the data table's descriptor asked for at its
 * start, as the catalog check of a read through an index asks, the time to both.
 * With {@code --limit}, the queries on the key's leading field whole and their first 10 rows,
 * beside the floor of those 10 rows.
 * Run the JVM with {@code -XX:StartFlightRecording} to profile it.
 */
public final class QueryCost {
    private static final int THREADS = 16;

    /** The rows a limited read asks for ({@code --limit}). */
    private static final int FIRST = 10;

    public static void main(String[] args) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean indexQueries = rest.remove("--index");
        boolean limited = rest.remove("--limit");
        Demo.Options options = Demo.Options.parse(rest.toArray(new String[0]), true);
        Demo.benchmarkMain("bench-query-cost", options,
                connection -> limited ? new QueryCost().runLimited(connection, options) : new QueryCost().run(connection, options, indexQueries));
    }

    /** What every mode starts from: the demo's tables loaded, the floor's reader, the runs (header printed). */
    private static final class Setup {
        final DataSet data;
        final Demo demo;
        final ResultRowsFloor floor;
        final int runs;

        Setup(Connection connection, Demo.Options options, boolean saltedToo) throws Exception {
            data = new DataSet(options.rows, options.seed);
            demo = new Demo(connection, options, true);
            demo.createAndLoad(Demo.PLAIN_TABLE, demo.schema(false), false, Demo.plainIndexes(), data);
            if (saltedToo) {
                demo.createAndLoad(Demo.SALTED_TABLE, demo.schema(true), true, Demo.saltedIndexes(), data);
            }
            floor = new ResultRowsFloor(connection, THREADS);
            runs = Math.max(options.runs, 200);
            System.out.printf(Locale.ROOT, "%n%,d rows; median of %d runs after %d warm-up runs, the ways taking turns%n",
                    data.size(), runs, runs / 4);
        }
    }

    /**
     * {@code --limit}: each query on the key's leading field whole and its first {@value #FIRST}
     * rows ({@code limit}), beside the floor of those rows (their keys known in advance, read
     * plainly, one scan per region at once), the ways taking turns.
     */
    private int runLimited(Connection connection, Demo.Options options) throws Exception {
        Setup setup = new Setup(connection, options, false);
        Demo demo = setup.demo;
        ResultRowsFloor plain = setup.floor;
        int runs = setup.runs;
        System.out.println("| query | rows | ours whole, ms | ours first " + FIRST + ", ms | first " + FIRST + " / whole"
                + " | floor of the first " + FIRST + ", ms | first " + FIRST + " / its floor |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        boolean same = true;
        for (DemoQuery q : DemoQuery.all(setup.data)) {
            if (q.salted || !q.name.contains("md5url")) {
                continue;
            }
            TreeSet<String> expected = demo.runTable(q, false).rows;
            TreeSet<String> first = new TreeSet<>();
            for (String key : expected) {
                if (first.size() == FIRST) {
                    break;
                }
                first.add(key);
            }
            double[] whole = new double[runs];
            double[] limited = new double[runs];
            double[] floor = new double[runs];
            for (int run = -runs / 4; run < runs; run++) {
                Demo.Outcome o = demo.runTable(q, false);
                long start = System.nanoTime();
                TreeSet<String> rows = new TreeSet<>();
                try (ResultScanner scanner = demo.table(Demo.PLAIN_TABLE).scan(demo.planned(q).limit(FIRST))) {
                    for (Result r : scanner) {
                        rows.add(Bytes.toHex(r.getRow()));
                    }
                }
                double l = Demo.millisSince(start);
                Demo.Outcome f = plain.read(Demo.PLAIN_TABLE, first);
                same &= o.rows.equals(expected) && rows.equals(first) && f.rows.equals(first);
                if (run >= 0) {
                    whole[run] = o.millis;
                    limited[run] = l;
                    floor[run] = f.millis;
                }
            }
            double w = EndToEnd.median(whole);
            double l = EndToEnd.median(limited);
            double f = EndToEnd.median(floor);
            System.out.printf(Locale.ROOT, "| %s | %,d | %.2f | %.2f | %.2fx | %.2f | %.2fx |%n", q.name, first.size(), w, l, l / w, f,
                    l / f);
        }
        System.out.println(same ? "Every way returned the same rows." : "MISMATCH: a way returned other rows.");
        return same ? 0 : 1;
    }

    /** One call for the plain table's descriptor, as the catalog check makes it. */
    private static double descriptorMillis(Connection connection) throws IOException {
        return descriptorMillis(connection, Demo.PLAIN_TABLE);
    }

    private static double descriptorMillis(Connection connection, TableName table) throws IOException {
        long start = System.nanoTime();
        try (Admin admin = connection.getAdmin()) {
            admin.getDescriptor(table);
        }
        return Demo.millisSince(start);
    }

    /**
     * The floor of an exact read through an index: {@code ranges} of {@code indexTable} read as
     * the floor reads them while {@code dataTable}'s descriptor is asked for on another thread,
     * started together (a read through an index must know the catalog and the TTLs are as planned
     * before it answers: RowKeyTable's catalog check), timed to both.
     */
    private static Demo.Outcome checkedFloor(Connection connection, ResultRowsFloor plain, ExecutorService checks,
            TableName dataTable, TableName indexTable, List<RowRange> ranges) throws Exception {
        long start = System.nanoTime();
        Future<Double> check = checks.submit(() -> descriptorMillis(connection, dataTable));
        Demo.Outcome read = plain.read(indexTable, ranges, start);
        check.get();
        return new Demo.Outcome(read.rows, read.rowsRead, read.indexRowsRead, read.regions, Demo.millisSince(start));
    }

    private int run(Connection connection, Demo.Options options, boolean indexQueries) throws Exception {
        Setup setup = new Setup(connection, options, indexQueries);
        Demo demo = setup.demo;
        ResultRowsFloor plain = setup.floor;
        int runs = setup.runs;
        System.out.println("| query | rows | plan + explain text, ms | ours serial, ms | ours parallel, ms"
                + " | the plan's ranges, plain scans at once: rows / ms | floor, ms | ours / floor"
                + (indexQueries ? " | floor with the catalog check beside it, ms | ours / that |" : " |"));
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|" + (indexQueries ? "---:|---:|" : ""));
        ExecutorService checks = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "floor-catalog-check");
            t.setDaemon(true);
            return t;
        });
        boolean same = true;
        List<Double> descriptorAfterARead = new ArrayList<>();
        for (DemoQuery q : DemoQuery.all(setup.data)) {
            // The queries on the key's leading field, or those the (sdate, code) index answers.
            if (indexQueries ? !q.name.contains("sdate = ? AND code") : q.salted || !q.name.contains("md5url")) {
                continue;
            }
            String explain = demo.explain(q);
            boolean throughIndex = FloorBench.readsIndex(explain);
            TreeSet<String> expected = demo.runTable(q, false).rows;
            // The table the plan's ranges are in: the data table, or the index table it reads.
            TableName rangesTable = throughIndex ? FloorBench.indexTable(q.salted ? Demo.SALTED_TABLE : Demo.PLAIN_TABLE, explain) : Demo.PLAIN_TABLE;
            List<RowRange> planRanges = FloorBench.chosenRanges(explain);
            int rangeRows = plain.read(rangesTable, planRanges, System.nanoTime()).rows.size();
            double[] plan = new double[runs];
            double[] serial = new double[runs];
            double[] parallel = new double[runs];
            double[] ranges = new double[runs];
            double[] floor = new double[runs];
            double[] checkedFloor = new double[runs];
            TableName dataTable = q.salted ? Demo.SALTED_TABLE : Demo.PLAIN_TABLE;
            for (int run = -runs / 4; run < runs; run++) {
                long start = System.nanoTime();
                demo.explain(q);
                double p = Demo.millisSince(start);
                Demo.Outcome s = demo.runTable(q, false, true);
                Demo.Outcome o = demo.runTable(q, false);
                Demo.Outcome r = plain.read(rangesTable, planRanges, System.nanoTime());
                double descriptor = descriptorMillis(connection);
                // Through an index, the plan's ranges hold exactly the result rows: they are its floor.
                Demo.Outcome f = throughIndex ? r : plain.read(Demo.PLAIN_TABLE, expected);
                Demo.Outcome c = throughIndex ? checkedFloor(connection, plain, checks, dataTable, rangesTable, planRanges) : f;
                same &= s.rows.equals(expected) && o.rows.equals(expected)
                        && (throughIndex ? r.rows.size() == expected.size() && c.rows.size() == expected.size() : f.rows.equals(expected));
                if (run >= 0) {
                    plan[run] = p;
                    serial[run] = s.millis;
                    parallel[run] = o.millis;
                    ranges[run] = r.millis;
                    floor[run] = f.millis;
                    checkedFloor[run] = c.millis;
                    descriptorAfterARead.add(descriptor);
                }
            }
            double ours = EndToEnd.median(parallel);
            double least = EndToEnd.median(floor);
            double checked = EndToEnd.median(checkedFloor);
            System.out.printf(Locale.ROOT, "| %s | %,d | %.2f | %.2f | %.2f | %,d / %.2f | %.2f | %.2fx |%s%n", q.name,
                    expected.size(), EndToEnd.median(plan), EndToEnd.median(serial), ours, rangeRows, EndToEnd.median(ranges),
                    least, ours / least, indexQueries ? String.format(Locale.ROOT, " %.2f | %.2fx |", checked, ours / checked) : "");
        }
        checks.shutdown();
        // A plan through an index reads the catalog from the master before and after its rows
        // (RowKeyTable's catalog check); a read of the data table alone asks nothing. Back to back
        // the master's threads are warm; a query meets it right after its rows, as measured above.
        double[] catalog = new double[runs];
        for (int run = 0; run < runs; run++) {
            catalog[run] = descriptorMillis(connection);
        }
        System.out.printf(Locale.ROOT, "%nThe catalog check: one table descriptor from the master, %.2f ms back to back,"
                + " %.2f ms right after a read (medians of %d and %d; a read through an index asks for it before its rows,"
                + " and after them unless it read at once only regions it was cut at; the explain text once).%n",
                EndToEnd.median(catalog),
                EndToEnd.median(descriptorAfterARead.stream().mapToDouble(Double::doubleValue).toArray()), runs,
                descriptorAfterARead.size());
        System.out.println(same ? "Every way returned the same rows." : "MISMATCH: a way returned other rows.");
        return same ? 0 : 1;
    }
}
