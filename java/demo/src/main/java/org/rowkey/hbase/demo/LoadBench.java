package org.rowkey.hbase.demo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;

import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.BulkLoad;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * {@code cargo make bench-load}: the demo's rows (seed 000's shape, the demo's three indexes, one
 * covering the URL) into two tables on one embedded HBase, side by side: the row-by-row path the
 * demo uses ({@code BufferedMutator}, the coprocessor writing every index row, then a flush) and
 * the bulk load ({@link BulkLoad}: a MapReduce job on the LocalJobRunner writing HFiles for the
 * data table and every index, then loaded). Prints rows per second of each and the ratio, and
 * checks both tables answer the demo's queries with the same rows.
 *
 * <p>{@code cargo make bench-scale} ({@code --scale}): the bulk load at 1,000,000 rows and at
 * {@code --rows}, then the demo's queries on each, side by side: time and rows read, and the seed's
 * own filtered full scan of {@code sdate = ? AND code = 404} beside ours.
 */
public final class LoadBench {
    private static final int INPUT_FILES = 2;

    private final Connection connection;
    private final Demo.Options options;
    private final RowKeySchema schema = Demo.seedSchema().build();

    private LoadBench(Connection connection, Demo.Options options) {
        this.connection = connection;
        this.options = options;
    }

    public static void main(String[] args) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean scale = rest.remove("--scale");
        Demo.Options options = Demo.Options.parse(rest.toArray(new String[0]), false);
        Demo.benchmarkMain(scale ? "bench-scale" : "bench-load", options, connection -> {
            LoadBench bench = new LoadBench(connection, options);
            return scale ? bench.scale() : bench.compare();
        });
    }

    /** bench-load: the row-by-row path, then the bulk load, of the same rows. */
    private int compare() throws Exception {
        DataSet data = new DataSet(options.rows, options.seed);
        Path dir = Files.createTempDirectory("bench-load");
        try {
            List<String> inputs = writeExport(data, dir);
            Demo demo = new Demo(connection, options, true);
            TableName mutator = TableName.valueOf("load_mutator");
            System.out.println("Row by row (BufferedMutator, the coprocessor writing the 3 indexes, then a flush):");
            double mutatorSeconds = demo.createAndLoad(mutator, schema, false, Demo.plainIndexes(), data);
            TableName bulk = TableName.valueOf("load_bulk");
            System.out.println("Bulk load (MapReduce on the LocalJobRunner: HFiles for the data table and the 3 indexes, loaded):");
            double bulkSeconds = bulkLoad(bulk, inputs);

            boolean same = true;
            for (DemoQuery q : DemoQuery.all(data)) {
                if (!q.salted) {
                    same &= keys(mutator, q).equals(keys(bulk, q));
                }
            }
            for (String index : Arrays.asList("", "__idx_by_date_code", "__idx_by_type_queue_free", "__idx_by_site_date")) {
                same &= count(TableName.valueOf(mutator.getNameAsString() + index))
                        == count(TableName.valueOf(bulk.getNameAsString() + index));
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "%-52s %10s %12s %8s%n", "load of " + String.format(Locale.ROOT, "%,d", data.size())
                    + " rows, 3 indexes", "seconds", "rows/s", "ratio");
            System.out.printf(Locale.ROOT, "%-52s %10.1f %,12.0f %8s%n", "BufferedMutator + coprocessor (+ flush)",
                    mutatorSeconds, data.size() / mutatorSeconds, "1.0x");
            System.out.printf(Locale.ROOT, "%-52s %10.1f %,12.0f %7.1fx%n", "bulk load (MapReduce job + 3-step load)",
                    bulkSeconds, data.size() / bulkSeconds, mutatorSeconds / bulkSeconds);
            System.out.println(same ? "Both tables: the same rows in the data table and every index, and the same answers"
                    + " to the demo's queries." : "MISMATCH: the two tables differ.");
            return same ? 0 : 1;
        } finally {
            deleteAll(dir);
        }
    }

    /** bench-scale: the bulk load and the demo's plain-table queries at 1,000,000 rows and at --rows. */
    private int scale() throws Exception {
        int[] sizes = options.rows > 1_000_000 ? new int[] {1_000_000, options.rows} : new int[] {options.rows};
        List<Map<String, Demo.Outcome>> results = new ArrayList<>();
        List<Double> loadSeconds = new ArrayList<>();
        boolean same = true;
        for (int size : sizes) {
            DataSet data = new DataSet(size, options.seed);
            Path dir = Files.createTempDirectory("bench-scale");
            Demo demo = new Demo(connection, options, true);
            try {
                List<String> inputs = writeExport(data, dir);
                demo.dropTable(Demo.PLAIN_TABLE);
                System.out.printf(Locale.ROOT, "Bulk load of %,d rows into %s with the demo's 3 indexes:%n", size, Demo.PLAIN_TABLE);
                loadSeconds.add(bulkLoad(Demo.PLAIN_TABLE, inputs));
            } finally {
                deleteAll(dir);
            }
            Map<String, Demo.Outcome> outcomes = new java.util.LinkedHashMap<>();
            for (DemoQuery q : DemoQuery.all(data)) {
                if (q.salted) {
                    continue;
                }
                demo.runTable(q, false); // warm-up
                Demo.Outcome best = null;
                for (int run = 0; run < 3; run++) {
                    Demo.Outcome o = demo.runTable(q, false);
                    best = best == null || o.millis < best.millis ? o : best;
                }
                outcomes.put(q.name, best);
                if (q.name.startsWith("seed 2")) {
                    // The URL alone: the covering index answers without reading the data table.
                    demo.runTable(q, true);
                    Demo.Outcome covered = null;
                    for (int run = 0; run < 3; run++) {
                        Demo.Outcome o = demo.runTable(q, true);
                        covered = covered == null || o.millis < covered.millis ? o : covered;
                    }
                    same &= covered.rows.equals(best.rows);
                    outcomes.put("seed 2, the URL only (covered by the index)", covered);
                    Demo.Outcome seedWay = demo.runSeedWay(q);
                    same &= seedWay.rows.equals(best.rows);
                    outcomes.put("seed 2 the seed's way (filtered full scan)", seedWay);
                    Demo.Outcome floor = floor(demo, q);
                    same &= floor.rows.size() == best.rows.size();
                    outcomes.put("seed 2 floor: a plain scan of the plan's index rows", floor);
                    Demo.Outcome counted = count(demo, q);
                    same &= counted.rows.first().equals("count " + best.rows.size());
                    outcomes.put("seed 2 count(*) in the regions (1 row returned)", counted);
                }
            }
            results.add(outcomes);
        }
        System.out.println();
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-62s", "query (best of 3 after a warm-up)"));
        for (int size : sizes) {
            head.append(String.format(Locale.ROOT, " | %,12d rows: %9s %12s %10s", size, "returned", "read", "ms"));
        }
        System.out.println(head.append(sizes.length > 1 ? " | time ratio" : ""));
        for (String query : results.get(0).keySet()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-62s", query));
            for (Map<String, Demo.Outcome> r : results) {
                Demo.Outcome o = r.get(query);
                line.append(String.format(Locale.ROOT, " | %18s %9s %12s %10.1f", "", Report.count(o.rows.size()),
                        Report.count(o.allRowsRead()), o.millis));
            }
            if (sizes.length > 1) {
                line.append(String.format(Locale.ROOT, " | %.2fx", results.get(1).get(query).millis
                        / Math.max(results.get(0).get(query).millis, 0.01)));
            }
            System.out.println(line);
        }
        for (int i = 0; i < sizes.length; i++) {
            System.out.printf(Locale.ROOT, "Bulk load of %,d rows with 3 indexes: %.1f s (%,.0f rows/s)%n", sizes[i],
                    loadSeconds.get(i), sizes[i] / loadSeconds.get(i));
        }
        System.out.println(same ? "seed 2: our rows equal the seed's full scan's" : "MISMATCH: seed 2 differs from the full scan");
        return same ? 0 : 1;
    }

    /**
     * The floor of any index reader for {@code q}: a plain HBase scan of exactly the index rows its
     * plan reads, nothing else (best of 3 after a warm-up).
     */
    private Demo.Outcome floor(Demo demo, DemoQuery q) throws IOException {
        String explain = demo.explain(q);
        TableName index = FloorBench.indexTable(explain);
        List<RowRange> ranges = FloorBench.chosenRanges(explain);
        Demo.Outcome best = null;
        for (int run = -1; run < 3; run++) {
            long start = System.nanoTime();
            TreeSet<String> rows = FloorBench.rawScanRows(connection, index, ranges);
            Demo.Outcome o = new Demo.Outcome(rows, rows.size(), -1, -1, Demo.millisSince(start));
            best = run < 0 ? null : best == null || o.millis < best.millis ? o : best;
        }
        return best;
    }

    /**
     * {@code count(*)} of {@code q}'s rows computed inside the regions ({@link RowKeyTable#aggregate}):
     * one row returned (the count, checked against the query's rows), and the rows the regions read.
     */
    private Demo.Outcome count(Demo demo, DemoQuery q) throws IOException {
        RowKeyTable table = RowKeyTable.open(connection, Demo.PLAIN_TABLE);
        Aggregation count = Aggregation.on(schema).count();
        Demo.Outcome best = null;
        for (int run = -1; run < 3; run++) {
            long start = System.nanoTime();
            AggregationResult result = table.aggregate(q.build(RowKeyQuery.on(schema)), count);
            long n = result.rows().isEmpty() ? 0 : result.rows().get(0).longValue(0);
            TreeSet<String> one = new TreeSet<>(Arrays.asList("count " + n));
            Demo.Outcome o = new Demo.Outcome(one, result.rowsReadOnServers(), -1, -1, Demo.millisSince(start));
            best = run < 0 ? null : best == null || o.millis < best.millis ? o : best;
        }
        return best;
    }

    /** Creates {@code table} as the demo does and bulk-loads the inputs; returns the seconds the load took. */
    private double bulkLoad(TableName table, List<String> inputs) throws Exception {
        try (Admin admin = connection.getAdmin()) {
            RowKeyTable.create(admin, table, schema, Demo.plainIndexes(), Demo.splits(false), Demo.FAMILY);
        }
        List<String> args = new ArrayList<>(Arrays.asList("--table", table.getNameAsString(), "--column", "f:url=url",
                "--work", "/tmp/bench-load/" + table.getNameAsString()));
        for (String input : inputs) {
            args.add("--input");
            args.add(input);
        }
        long start = System.nanoTime();
        int exit = ToolRunner.run(new Configuration(connection.getConfiguration()), new BulkLoad(), args.toArray(new String[0]));
        double seconds = Demo.seconds(start);
        if (exit != 0) {
            throw new IllegalStateException("the bulk load exited with " + exit);
        }
        System.out.printf(Locale.ROOT, "  bulk load in %.1f s%n", seconds);
        return seconds;
    }

    /** The rows as seed 000's MongoDB export lines ($oid, $date, 0/1 flags), in {@link #INPUT_FILES} files. */
    private static List<String> writeExport(DataSet data, Path dir) throws IOException {
        long start = System.nanoTime();
        List<String> files = new ArrayList<>();
        List<BufferedWriter> writers = new ArrayList<>();
        for (int f = 0; f < INPUT_FILES; f++) {
            Path file = dir.resolve("export-" + f + ".json");
            files.add(file.toUri().toString());
            writers.add(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
        }
        try {
            for (int i = 0; i < data.size(); i++) {
                Map<String, Object> row = data.row(i);
                StringBuilder line = new StringBuilder(256).append(String.format(Locale.ROOT,
                        "{ \"_id\" : { \"$oid\" : \"%024x\"} , \"url\" : \"%s\"", i, data.url(i)));
                for (Map.Entry<String, Object> e : row.entrySet()) {
                    Object v = e.getValue();
                    line.append(" , \"").append(e.getKey()).append("\" : ").append(v instanceof String ? "\"" + v + "\""
                            : v instanceof Boolean ? ((Boolean) v ? "1" : "0") : v.toString());
                }
                line.append(" , \"intime\" : { \"$date\" : ").append(1481272835222L + i).append("}}\n");
                writers.get(i % INPUT_FILES).write(line.toString());
            }
        } finally {
            for (BufferedWriter w : writers) {
                w.close();
            }
        }
        System.out.printf(Locale.ROOT, "Input: %,d JSON lines in the shape of seed 000's export, %d files, written in %.1f s%n",
                data.size(), INPUT_FILES, Demo.seconds(start));
        return files;
    }

    private TreeSet<String> keys(TableName table, DemoQuery q) throws IOException {
        TreeSet<String> keys = new TreeSet<>();
        try (ResultScanner s = RowKeyTable.open(connection, table).scan(q.build(RowKeyQuery.on(schema)))) {
            for (Result r : s) {
                keys.add(Bytes.toHex(r.getRow()));
            }
        }
        return keys;
    }

    private long count(TableName table) throws IOException {
        long n = 0;
        try (Table t = connection.getTable(table);
                ResultScanner s = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(10_000))) {
            for (Result ignored : s) {
                n++;
            }
        }
        return n;
    }

    private static void deleteAll(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
