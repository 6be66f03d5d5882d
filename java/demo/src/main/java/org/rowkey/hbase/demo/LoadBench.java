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
import java.util.function.IntFunction;

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
        boolean loadOnly = rest.remove("--load-only");
        Demo.Options options = Demo.Options.parse(rest.toArray(new String[0]), false);
        Demo.benchmarkMain(scale ? "bench-scale" : loadOnly ? "bulk load" : "bench-load", options, connection -> {
            LoadBench bench = new LoadBench(connection, options);
            return scale ? bench.scale() : loadOnly ? bench.loadOnly() : bench.compare();
        });
    }

    /**
     * {@code --load-only} (bench-spark's {@code --bulk}): the demo's table {@code urlscan} with its 3
     * indexes, {@code --rows} of it bulk-loaded and kept; at 10,000,000 rows the demo's row-by-row
     * load would take most of an hour.
     */
    private int loadOnly() throws Exception {
        DataSet data = new DataSet(options.rows, options.seed);
        Path dir = Files.createTempDirectory("bench-load");
        try {
            new Demo(connection, options, true).dropTable(Demo.PLAIN_TABLE);
            System.out.printf(Locale.ROOT, "Bulk load of %,d rows into %s with the demo's 3 indexes:%n", data.size(), Demo.PLAIN_TABLE);
            bulkLoad(Demo.PLAIN_TABLE, writeExport(data, dir));
        } finally {
            deleteAll(dir);
        }
        return 0;
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

            System.out.println("HBase's own ImportTsv + BulkLoadHFiles of one-cell rows, no index: the data table alone,"
                    + " then as many rows as the data table and its 3 indexes get (what any MapReduce bulk load costs at least):");
            TableName standard = TableName.valueOf("load_importtsv");
            double standardSeconds = importTsv(connection, standard, data, 1, dir);
            TableName standard4 = TableName.valueOf("load_importtsv_4x");
            double standard4Seconds = importTsv(connection, standard4, data, 4, dir);

            boolean same = count(standard) == data.size() && count(standard4) == 4L * data.size();
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
            System.out.printf(Locale.ROOT, "%-52s %10.1f %,12.0f %7.1fx%n", "floor: ImportTsv + load, the data table's rows",
                    standardSeconds, data.size() / standardSeconds, mutatorSeconds / standardSeconds);
            System.out.printf(Locale.ROOT, "%-52s %10.1f %,12.0f %7.1fx%n", "floor: ImportTsv + load, 4 one-cell rows a record",
                    standard4Seconds, data.size() / standard4Seconds, mutatorSeconds / standard4Seconds);
            System.out.printf(Locale.ROOT, "The 4x goal is %.1f s; ours takes %.2fx the time of HBase's own job writing 4 one-cell rows"
                    + " a record (the least a load of a data row and 3 index rows writes).%n", mutatorSeconds / 4,
                    bulkSeconds / standard4Seconds);
            System.out.println(same ? "Both tables: the same rows in the data table and every index, and the same answers"
                    + " to the demo's queries." : "MISMATCH: the two tables differ.");
            return same ? 0 : 1;
        } finally {
            deleteAll(dir);
        }
    }

    /**
     * bench-scale: the bulk load and the demo's plain-table queries at 1,000,000 rows, at --rows and
     * half-way between on a log scale (three points for the chart of time against table size).
     */
    private int scale() throws Exception {
        int[] sizes = scaleSizes(options.rows);
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
                Demo.Outcome best = bestOf3(() -> demo.runTable(q, false));
                outcomes.put(q.name, best);
                if (q.name.startsWith("seed 2")) {
                    // The URL alone: the covering index answers without reading the data table.
                    Demo.Outcome covered = bestOf3(() -> demo.runTable(q, true));
                    same &= covered.rows.equals(best.rows);
                    outcomes.put(COVERED, covered);
                    Demo.Outcome seedWay = demo.runSeedWay(q);
                    same &= seedWay.rows.equals(best.rows);
                    outcomes.put(SEED_WAY, seedWay);
                    Demo.Outcome floor = bestOf3(() -> floor(demo, q));
                    same &= floor.rows.size() == best.rows.size();
                    outcomes.put("seed 2 floor: a plain scan of the plan's index rows", floor);
                    Demo.Outcome counted = bestOf3(() -> aggregate(q.build(RowKeyQuery.on(schema)), Aggregation.on(schema).count()));
                    same &= counted.rows.equals(new TreeSet<>(Arrays.asList("[" + best.rows.size() + "]")));
                    outcomes.put(COUNT, counted);
                }
            }
            outcomes.put("count(*) GROUP BY sdate (whole table, 1 row a day)",
                    bestOf3(() -> aggregate(RowKeyQuery.on(schema), Aggregation.on(schema).groupBy("sdate").count())));
            results.add(outcomes);
        }
        System.out.println();
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-62s", "query (best of 3 after a warm-up)"));
        for (int size : sizes) {
            head.append(String.format(Locale.ROOT, " | %,12d rows: %9s %12s %10s", size, "returned", "read", "ms"));
        }
        System.out.println(head.append(sizes.length > 1 ? " | time ratio" : ""));
        Map<String, Demo.Outcome> smallest = results.get(0);
        Map<String, Demo.Outcome> largest = results.get(results.size() - 1);
        for (String query : smallest.keySet()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-62s", query));
            for (Map<String, Demo.Outcome> r : results) {
                Demo.Outcome o = r.get(query);
                line.append(String.format(Locale.ROOT, " | %18s %9s %12s %10.1f", "", Report.count(o.rows.size()),
                        Report.count(o.allRowsRead()), o.millis));
            }
            if (sizes.length > 1) {
                line.append(String.format(Locale.ROOT, " | %.2fx", largest.get(query).millis / Math.max(smallest.get(query).millis, 0.01)));
            }
            System.out.println(line);
        }
        for (int i = 0; i < sizes.length; i++) {
            System.out.printf(Locale.ROOT, "Bulk load of %,d rows with 3 indexes: %.1f s (%,.0f rows/s)%n", sizes[i],
                    loadSeconds.get(i), sizes[i] / loadSeconds.get(i));
        }
        System.out.printf(Locale.ROOT, "At %,d rows the seed's filtered full scan takes %.0fx the index read of seed 2 (every"
                + " cell), %.0fx the covered read, %.0fx the count in the regions%n", sizes[sizes.length - 1],
                largest.get(SEED_WAY).millis / largest.get(SEED_2).millis, largest.get(SEED_WAY).millis / largest.get(COVERED).millis,
                largest.get(SEED_WAY).millis / largest.get(COUNT).millis);
        writeScaleJson(sizes, loadSeconds, results);
        System.out.println(same ? "seed 2: our rows equal the seed's full scan's" : "MISMATCH: seed 2 differs from the full scan");
        return same ? 0 : 1;
    }

    private static final String SEED_2 = "seed 2: sdate = ? AND code = 404";
    private static final String COVERED = "seed 2, the URL only (covered by the index)";
    private static final String SEED_WAY = "seed 2 the seed's way (filtered full scan)";
    private static final String COUNT = "seed 2 count(*) in the regions (1 row returned)";

    /** 1,000,000, {@code rows} and their geometric mean rounded to 100,000: evenly spaced on a log axis. */
    static int[] scaleSizes(int rows) {
        if (rows <= 1_000_000) {
            return new int[] {rows};
        }
        int middle = (int) Math.round(Math.sqrt(1_000_000.0 * rows) / 100_000) * 100_000;
        return middle > 1_000_000 && middle < rows ? new int[] {1_000_000, middle, rows} : new int[] {1_000_000, rows};
    }

    private interface Measurement {
        Demo.Outcome run() throws IOException;
    }

    /** The fastest of three runs after one warm-up. */
    private static Demo.Outcome bestOf3(Measurement measurement) throws IOException {
        measurement.run();
        Demo.Outcome best = null;
        for (int run = 0; run < 3; run++) {
            Demo.Outcome o = measurement.run();
            best = best == null || o.millis < best.millis ? o : best;
        }
        return best;
    }

    /** target/bench/scale.json, which java/bench/report.py turns into a table and the chart of time against size. */
    private void writeScaleJson(int[] sizes, List<Double> loadSeconds, List<Map<String, Demo.Outcome>> results) throws IOException {
        StringBuilder b = new StringBuilder("{\n  \"benchmark\": \"scale\",\n");
        b.append("  \"date\": ").append(EndToEnd.Json.string(java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString())).append(",\n");
        b.append("  \"hbase\": ").append(EndToEnd.Json.string(org.apache.hadoop.hbase.util.VersionInfo.getVersion())).append(",\n");
        b.append("  \"jdk\": ").append(EndToEnd.Json.string(System.getProperty("java.runtime.version"))).append(",\n");
        b.append("  \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n");
        b.append("  \"sizes\": [");
        for (int i = 0; i < sizes.length; i++) {
            b.append(i == 0 ? "" : ", ").append("{\"rows\": ").append(sizes[i]).append(", \"load_seconds\": ")
                    .append(EndToEnd.Json.number(loadSeconds.get(i))).append("}");
        }
        b.append("],\n  \"queries\": [");
        boolean firstQuery = true;
        for (String query : results.get(0).keySet()) {
            b.append(firstQuery ? "\n" : ",\n").append("    {\"query\": ").append(EndToEnd.Json.string(query)).append(", \"at\": [");
            firstQuery = false;
            for (int i = 0; i < results.size(); i++) {
                Demo.Outcome o = results.get(i).get(query);
                b.append(i == 0 ? "" : ", ").append("{\"returned\": ").append(o.rows.size()).append(", \"read\": ")
                        .append(o.allRowsRead()).append(", \"ms\": ").append(EndToEnd.Json.number(o.millis)).append("}");
            }
            b.append("]}");
        }
        b.append("\n  ]\n}\n");
        Path json = java.nio.file.Paths.get(options.json).toAbsolutePath().resolveSibling("scale.json");
        Files.createDirectories(json.getParent());
        Files.write(json, b.toString().getBytes(StandardCharsets.UTF_8));
        System.out.println("Wrote " + json);
    }

    /**
     * The floor of any index reader for {@code q}: a plain HBase scan of exactly the index rows its
     * plan reads, nothing else.
     */
    private Demo.Outcome floor(Demo demo, DemoQuery q) throws IOException {
        String explain = demo.explain(q);
        TableName index = FloorBench.indexTable(explain);
        List<RowRange> ranges = FloorBench.chosenRanges(explain);
        long start = System.nanoTime();
        TreeSet<String> rows = FloorBench.rawScanRows(connection, index, ranges);
        return new Demo.Outcome(rows, rows.size(), -1, -1, Demo.millisSince(start));
    }

    /**
     * {@code aggregation} of {@code query}'s rows computed inside the regions ({@link RowKeyTable#aggregate}):
     * its rows as text, and the rows the regions read.
     */
    private Demo.Outcome aggregate(RowKeyQuery query, Aggregation aggregation) throws IOException {
        long start = System.nanoTime();
        AggregationResult result = RowKeyTable.open(connection, Demo.PLAIN_TABLE).aggregate(query, aggregation);
        double millis = Demo.millisSince(start);
        TreeSet<String> rows = new TreeSet<>();
        for (AggregationResult.Row row : result.rows()) {
            rows.add(row.toString());
        }
        return new Demo.Outcome(rows, result.rowsReadOnServers(), -1, -1, millis);
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

    /**
     * The floor of any MapReduce bulk load of these rows: HBase's own {@code ImportTsv} writing HFiles
     * of {@code copies} one-cell rows per record (a 37-byte key, the URL) in the job's LocalJobRunner
     * settings, then {@code BulkLoadHFiles}; no index. The keys are printable (TSV has no binary
     * escapes) and in a random order, as ours are. Returns the seconds of the job and the load (the
     * TSV written before).
     */
    static double importTsv(Connection connection, TableName table, DataSet data, int copies, Path dir) throws Exception {
        Path input = Files.createDirectories(dir.resolve("tsv-" + copies));
        try (BufferedWriter w = Files.newBufferedWriter(input.resolve("rows.tsv"), StandardCharsets.UTF_8)) {
            for (long i = 0; i < (long) copies * data.size(); i++) {
                long mixed = i * 0x9E3779B97F4A7C15L;
                w.write(String.format(Locale.ROOT, "%016x%021d\t%s%n", mixed ^ (mixed >>> 31), i, data.url((int) (i % data.size()))));
            }
        }
        byte[][] splits = new byte[7][];
        for (int i = 0; i < splits.length; i++) {
            splits[i] = Bytes.toBytes(Integer.toHexString(2 * (i + 1)));
        }
        try (Admin admin = connection.getAdmin()) {
            admin.createTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(table)
                    .setColumnFamily(org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of(Demo.FAMILY)).build(), splits);
        }
        Configuration conf = new Configuration(connection.getConfiguration());
        int cores = Runtime.getRuntime().availableProcessors();
        conf.setInt("mapreduce.local.map.tasks.maximum", cores);
        conf.setInt("mapreduce.local.reduce.tasks.maximum", cores);
        conf.setBoolean(org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2.LOCALITY_SENSITIVE_CONF_KEY, false);
        String hfiles = "/tmp/bench-load/" + table.getNameAsString() + "-hfiles";
        long start = System.nanoTime();
        int exit = ToolRunner.run(conf, new org.apache.hadoop.hbase.mapreduce.ImportTsv(), new String[] {
            "-D" + org.apache.hadoop.hbase.mapreduce.ImportTsv.COLUMNS_CONF_KEY + "=HBASE_ROW_KEY," + Bytes.toString(Demo.FAMILY) + ":url",
            "-D" + org.apache.hadoop.hbase.mapreduce.ImportTsv.BULK_OUTPUT_CONF_KEY + "=" + hfiles,
            table.getNameAsString(), input.toUri().toString()});
        if (exit != 0) {
            throw new IllegalStateException("ImportTsv exited with " + exit);
        }
        org.apache.hadoop.hbase.tool.BulkLoadHFiles.create(conf).bulkLoad(table, new org.apache.hadoop.fs.Path(hfiles));
        double seconds = Demo.seconds(start);
        System.out.printf(Locale.ROOT, "  ImportTsv + load in %.1f s%n", seconds);
        return seconds;
    }

    /** The rows as seed 000's MongoDB export lines ($oid, $date, 0/1 flags), in {@link #INPUT_FILES} files. */
    static List<String> writeExport(DataSet data, Path dir) throws IOException {
        long start = System.nanoTime();
        List<String> files = writeFiles(data, dir, "export-%d.json", "", i -> exportLine(i, data.row(i), data.url(i)));
        System.out.printf(Locale.ROOT, "Input: %,d JSON lines in the shape of seed 000's export, %d files, written in %.1f s%n",
                data.size(), INPUT_FILES, Demo.seconds(start));
        return files;
    }

    /**
     * The rows as CSV under a header line (the key fields' input values, then the URL), in
     * {@link #INPUT_FILES} files: the input {@code --format csv} reads, as Phoenix's CSV loader reads its own.
     */
    static List<String> writeCsv(DataSet data, Path dir) throws IOException {
        return writeFiles(data, dir, "rows-%d.csv", String.join(",", data.row(0).keySet()) + ",url\n", i -> {
            StringBuilder line = new StringBuilder(160);
            for (Object v : data.row(i).values()) {
                line.append(csvField(String.valueOf(v))).append(',');
            }
            return line.append(csvField(data.url(i))).append('\n').toString();
        });
    }

    /**
     * Row {@code i}'s {@code line} (ending in a newline) for each row, the rows dealt in turn to
     * {@link #INPUT_FILES} files named by {@code pattern} (the file's number), each starting with
     * {@code header}; returns the files' URIs.
     */
    private static List<String> writeFiles(DataSet data, Path dir, String pattern, String header, IntFunction<String> line)
            throws IOException {
        List<String> files = new ArrayList<>();
        List<BufferedWriter> writers = new ArrayList<>();
        try {
            for (int f = 0; f < INPUT_FILES; f++) {
                Path file = dir.resolve(String.format(Locale.ROOT, pattern, f));
                files.add(file.toUri().toString());
                writers.add(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
                writers.get(f).write(header);
            }
            for (int i = 0; i < data.size(); i++) {
                writers.get(i % INPUT_FILES).write(line.apply(i));
            }
        } finally {
            for (BufferedWriter w : writers) {
                w.close();
            }
        }
        return files;
    }

    /** A CSV field: quoted, its quotes doubled, when it holds a comma or a quote. */
    static String csvField(String text) {
        return text.indexOf(',') < 0 && text.indexOf('"') < 0 ? text : '"' + text.replace("\"", "\"\"") + '"';
    }

    /** Row {@code i} as a line of seed 000's MongoDB export ($oid, $date, 0/1 flags), with {@code url}, ending in a newline. */
    static String exportLine(int i, Map<String, Object> row, String url) {
        StringBuilder line = new StringBuilder(256).append(String.format(Locale.ROOT,
                "{ \"_id\" : { \"$oid\" : \"%024x\"} , \"url\" : \"%s\"", i, url));
        for (Map.Entry<String, Object> e : row.entrySet()) {
            Object v = e.getValue();
            line.append(" , \"").append(e.getKey()).append("\" : ").append(v instanceof String ? "\"" + v + "\""
                    : v instanceof Boolean ? ((Boolean) v ? "1" : "0") : v.toString());
        }
        return line.append(" , \"intime\" : { \"$date\" : ").append(1481272835222L + i).append("}}\n").toString();
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

    static void deleteAll(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
