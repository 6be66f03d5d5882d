package org.rowkey.hbase.demo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;

/**
 * The peer, measured ({@code cargo make bench-peer}, also run by {@code cargo make bench}): the
 * demo's data and queries in Apache Phoenix and ours, on one embedded HBase with Phoenix's server
 * side loaded, in one JVM with the same flags.
 *
 * <ol>
 *   <li>Loads: ours the demo's way ({@link Demo#load()}), Phoenix through UPSERT with batched
 *       commits (no index, then a third table that has one covered index); rows/s each. Ours
 *       with one index: the plain and the salted table made by
 *       {@link org.rowkey.hbase.RowKeyTable#create} with an index on (sdate, code) covering the URL
 *       ({@link OurIndexedTable}), loaded the demo's way.
 *   <li>Phoenix's covered and uncovered indexes on (sdate, code) are built on both Phoenix
 *       tables (timed).
 *   <li>Each of the demo's queries, in two passes: Phoenix's tables with its default metadata
 *       lookups (UPDATE_CACHE_FREQUENCY=ALWAYS), then with the lookups cached (NEVER). In each
 *       pass 1 warm-up run + {@code --runs} measured runs (default 5) of every way, the ways
 *       interleaved run by run: the seed's way and ours (the demo's own runs), Phoenix's default
 *       plan (which may use an index), Phoenix on its data table alone (NO_INDEX), Phoenix with
 *       SKIP_SCAN, and, for the queries without the leading key field that
 *       an (sdate, code) index serves, Phoenix forced onto its covered and its uncovered index,
 *       and ours through our index ({@link org.rowkey.hbase.RowKeyTable#scan}; plain table only);
 *       for the queries on the leading key field, the floor of returning their rows by scans
 *       ({@link ResultRowsFloor}). Reversed, every query: ours {@code reversed()} through the
 *       indexed table (the order checked) beside Phoenix's {@code ORDER BY} every key column
 *       {@code DESC}, its default plan and NO_INDEX. Every run of every way must return the seed
 *       way's rows (else it stops, exit code 1).
 *   <li>Seed 000's statistics, ours inside the regions beside Phoenix's SQL aggregates
 *       ({@link PeerAggregates}).
 * </ol>
 *
 * <p>{@code --bulk-only} ({@code cargo make bench-peer-bulk}, on Hadoop 3) runs the MapReduce bulk
 * loads side by side instead ({@link #bulkLoads}).
 *
 * <p>Wall time: from building the scan or preparing the statement to the last row; median of
 * the measured runs. Rows read: the regions' read counters ({@link RegionReads}) over the tables
 * a way touches (Phoenix: the data table and its indexes), before and after each run. Writes
 * every figure, the EXPLAINs and the settings to {@code --json} (default target/bench/peer.json),
 * which java/bench/report.py turns into report.md and peer.png.
 */
public final class Peer {
    /** Phoenix's server side, as its documentation sets up a RegionServer (and its tests a minicluster). */
    static final Map<String, String> PHOENIX_SERVER_SETTINGS = new LinkedHashMap<>();

    static {
        PHOENIX_SERVER_SETTINGS.put("hbase.regionserver.wal.codec", "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
        PHOENIX_SERVER_SETTINGS.put("hbase.region.server.rpc.scheduler.factory.class", "org.apache.hadoop.hbase.ipc.PhoenixRpcSchedulerFactory");
        PHOENIX_SERVER_SETTINGS.put("hbase.rpc.controllerfactory.class", "org.apache.hadoop.hbase.ipc.controller.ServerRpcControllerFactory");
    }

    public static void main(String[] args) {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean bulkOnly = rest.remove("--bulk-only");
        args = rest.toArray(new String[0]);
        Demo.Options options = Demo.Options.parse(args, true);
        if (!Arrays.asList(args).contains("--json")) {
            options.json = "target/bench/peer.json";
        }
        Configuration base = HBaseConfiguration.create();
        PHOENIX_SERVER_SETTINGS.forEach(base::set);
        int exit;
        try {
            exit = Demo.withCluster(options, base, connection -> bulkOnly ? new Peer(connection, options).runBulkLoads()
                    : new Peer(connection, options).run());
        } catch (Exception e) {
            System.err.println();
            System.err.println("PEER BENCHMARK FAILED: " + e.getMessage());
            e.printStackTrace();
            exit = 1;
        }
        System.exit(exit);
    }

    private final Connection connection;
    private final Demo.Options options;
    private final Demo demo;
    private final RegionReads reads;
    /** Ours with an index on (sdate, code): the plain table's and the salted table's. */
    private final OurIndexedTable ourIndexed;
    private final OurIndexedTable ourSaltedIndexed;
    private final ResultRowsFloor floor;
    private final List<String> loadJson = new ArrayList<>();
    private final List<String> loadLines = new ArrayList<>();

    private Peer(Connection connection, Demo.Options options) {
        this.connection = connection;
        this.options = options;
        this.demo = new Demo(connection, options, false);
        this.reads = new RegionReads(connection);
        this.ourIndexed = new OurIndexedTable(connection, demo, false);
        this.ourSaltedIndexed = new OurIndexedTable(connection, demo, true);
        this.floor = new ResultRowsFloor(connection, connection.getConfiguration().getInt("rowkey.scan.threads", 16));
    }

    /** The Phoenix JDBC URL of the cluster the HBase connection talks to. */
    private String jdbcUrl() {
        Configuration conf = connection.getConfiguration();
        return "jdbc:phoenix:" + conf.get(HConstants.ZOOKEEPER_QUORUM) + ":" + conf.get(HConstants.ZOOKEEPER_CLIENT_PORT)
                + ":" + conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT);
    }

    /**
     * {@code --bulk-only} ({@code cargo make bench-peer-bulk}): the bulk loads side by side alone
     * ({@link #bulkLoads}), on the cluster this JVM runs (Hadoop 3: Phoenix's loader needs it).
     */
    private int runBulkLoads() throws Exception {
        DataSet data = new DataSet(options.rows, options.seed);
        try (java.sql.Connection jdbc = DriverManager.getConnection(jdbcUrl(), new Properties())) {
            bulkLoads(new PhoenixTables(jdbc, connection, demo, data), data);
        }
        System.out.println();
        System.out.println("Bulk loads (rows/s; the MapReduce job and the load of its HFiles):");
        loadLines.forEach(System.out::println);
        return 0;
    }

    private int run() throws Exception {
        DataSet data = demo.load();
        for (TableName ours : List.of(Demo.PLAIN_TABLE, Demo.SALTED_TABLE)) {
            recordLoad("ours", ours.getNameAsString(), "none", data.size(), demo.loadSeconds.get(ours), "reused, not loaded (--keep)");
        }
        recordLoad("ours", ourIndexed.name + " (8 regions, RowKeyTable.create)", "one covered index on (sdate, code)",
                data.size(), ourIndexed.createAndLoad(data), null);
        recordLoad("ours", ourSaltedIndexed.name + " (16 salt buckets, 8 regions, RowKeyTable.create)",
                "one covered index on (sdate, code), salted (16)", data.size(), ourSaltedIndexed.createAndLoad(data), null);

        long connecting = System.nanoTime();
        System.out.println("Connecting Phoenix (the first connection creates its SYSTEM tables)...");
        try (java.sql.Connection jdbc = DriverManager.getConnection(jdbcUrl(), new Properties())) {
            // The jar's full version (5.2.1); the driver itself reports only major.minor.
            String phoenixVersion = Optional.ofNullable(org.apache.phoenix.jdbc.PhoenixDriver.class.getPackage()
                    .getImplementationVersion()).orElse(jdbc.getMetaData().getDriverVersion());
            System.out.printf(Locale.ROOT, "  Phoenix %s connected in %.1f s%n", phoenixVersion, Demo.seconds(connecting));
            PhoenixTables phoenix = new PhoenixTables(jdbc, connection, demo, data);
            PhoenixTables.Table plain = new PhoenixTables.Table("URLSCAN_PHOENIX", false);
            PhoenixTables.Table salted = new PhoenixTables.Table("URLSCAN_PHOENIX_SALTED", true);
            loadPhoenix(phoenix, plain, salted, data);
            System.out.println();
            System.out.println("Loads (rows/s; writes and flush):");
            loadLines.forEach(System.out::println);

            List<Query> queries = new ArrayList<>();
            for (DemoQuery q : DemoQuery.all(data)) {
                queries.add(new Query(q, q.salted ? salted : plain, phoenix));
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "%,d rows; each way of each query: 1 warm-up run, then %d measured, the ways interleaved.%n",
                    data.size(), options.runs);
            for (Pass pass : Pass.values()) {
                for (PhoenixTables.Table t : List.of(plain, salted)) {
                    phoenix.cacheMetadata(t, pass.updateCacheFrequency);
                }
                System.out.println();
                System.out.println("Pass " + (pass.ordinal() + 1) + ": Phoenix tables at UPDATE_CACHE_FREQUENCY=" + pass.updateCacheFrequency);
                for (Query query : queries) {
                    query.measure(pass);
                    System.out.println(query.lines(pass));
                }
            }
            // The statistics after both passes: Phoenix's metadata cached, as the second pass left it.
            System.out.println();
            System.out.println("Aggregates (seed 000's statistics; Phoenix at UPDATE_CACHE_FREQUENCY=" + PhoenixTables.CACHED + "):");
            PeerAggregates aggregates = new PeerAggregates(connection, jdbc, reads, options.runs, ourIndexed, demo.schema(false), plain);
            aggregates.measure();
            aggregates.lines().forEach(System.out::println);
            System.out.println();
            System.out.println("ms: median wall time to the last row; read: rows the RegionServer read (region read counters,"
                    + " data + index tables); scanned: HBase's scan metric ROWS_SCANNED of our client's scans;"
                    + " every run of every way returned exactly the seed way's rows.");
            System.out.println();
            System.out.println("Plans:");
            for (Query query : queries) {
                System.out.println(query.explains());
            }
            writeJson(data.size(), phoenixVersion, queries, aggregates);
            if (!options.keep && options.zookeeper != null) { // as the demo's own tables go
                phoenix.drop(plain);
                phoenix.drop(salted);
            }
        }
        demo.dropTablesUnlessKept();
        return 0;
    }

    /**
     * Phoenix's loads: both tables without an index, then a third table that has the covered
     * index before its rows go in (dropped after), then both indexes built on both tables.
     */
    private void loadPhoenix(PhoenixTables phoenix, PhoenixTables.Table plain, PhoenixTables.Table salted, DataSet data)
            throws Exception {
        for (PhoenixTables.Table t : List.of(plain, salted)) {
            phoenix.create(t);
            recordLoad("phoenix", PhoenixTables.describe(t), "none", data.size(), phoenix.load(t, data), null);
        }
        PhoenixTables.Table indexed = new PhoenixTables.Table("URLSCAN_PHOENIX_ONE_INDEX", false);
        phoenix.create(indexed);
        phoenix.createCoveredIndex(indexed);
        recordLoad("phoenix", PhoenixTables.describe(indexed), "one covered index on (sdate, code)", data.size(),
                phoenix.load(indexed, data), null);
        phoenix.drop(indexed);
        for (PhoenixTables.Table t : List.of(plain, salted)) {
            buildIndex(phoenix, t, true, data.size());
            buildIndex(phoenix, t, false, data.size());
        }
    }

    /**
     * The MapReduce bulk loads of both, side by side, with the same LocalJobRunner settings (a map
     * and a reduce slot per core): ours ({@link org.rowkey.hbase.BulkLoad}) and Phoenix's
     * {@code CsvBulkLoadTool}, each from CSV (written first, not timed) and into a new table (8 regions)
     * with one covered index on (sdate, code), HFiles of both tables written by the one job and
     * loaded. Each table then holds every row, and its index one row per row.
     */
    private void bulkLoads(PhoenixTables phoenix, DataSet data) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bench-peer-bulk");
        Configuration localJobs = new Configuration(connection.getConfiguration());
        int cores = Runtime.getRuntime().availableProcessors();
        localJobs.setInt("mapreduce.local.map.tasks.maximum", cores);
        localJobs.setInt("mapreduce.local.reduce.tasks.maximum", cores);
        localJobs.setBoolean(org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2.LOCALITY_SENSITIVE_CONF_KEY, false);
        try {
            OurIndexedTable ours = new OurIndexedTable(connection, demo, false, TableName.valueOf("urlscan_bulk_indexed"));
            double oursSeconds = ours.bulkLoad(LoadBench.writeCsv(data, dir), localJobs);
            check("ours", ours.rowCounts(), data.size());
            recordLoad("ours", ours.name + " (8 regions, bulk load: MapReduce, LocalJobRunner)", "one covered index on (sdate, code)",
                    data.size(), oursSeconds, null);
            PhoenixTables.Table bulk = new PhoenixTables.Table("URLSCAN_PHOENIX_BULK", false);
            phoenix.create(bulk);
            phoenix.createCoveredIndex(bulk);
            double phoenixSeconds = phoenix.csvBulkLoad(bulk, data, dir, localJobs);
            check("Phoenix", phoenix.counts(bulk), data.size());
            recordLoad("phoenix", PhoenixTables.describe(bulk) + ", CsvBulkLoadTool (MapReduce, LocalJobRunner)",
                    "one covered index on (sdate, code)", data.size(), phoenixSeconds, null);
            // The floor of any MapReduce bulk load writing these cells: HBase's ImportTsv writing as many one-cell rows.
            long cells = ours.cellCount();
            int copies = (int) Math.round((double) cells / data.size());
            TableName importTsv = TableName.valueOf("urlscan_bulk_importtsv");
            double floorSeconds = LoadBench.importTsv(connection, importTsv, data, copies, dir);
            recordLoad("floor", "ImportTsv + BulkLoadHFiles, " + copies + " one-cell rows a record (" + String.format(Locale.ROOT,
                    "%,d", cells) + " cells: ours' data and index cells)", "none", data.size(), floorSeconds, null);
            System.out.printf(Locale.ROOT, "  bulk loads with a covered index: ours %.1f s, CsvBulkLoadTool %.1f s (%.2fx ours),"
                    + " ImportTsv of as many cells %.1f s (ours %.2fx it)%n", oursSeconds, phoenixSeconds, phoenixSeconds / oursSeconds,
                    floorSeconds, oursSeconds / floorSeconds);
            phoenix.drop(bulk);
            ours.drop();
            try (org.apache.hadoop.hbase.client.Admin admin = connection.getAdmin()) {
                admin.disableTable(importTsv);
                admin.deleteTable(importTsv);
            }
        } finally {
            LoadBench.deleteAll(dir);
        }
    }

    /** A bulk-loaded table and its index each hold every row: else the benchmark ends. */
    private static void check(String way, List<Long> counts, int rows) {
        for (long n : counts) {
            if (n != rows) {
                throw new IllegalStateException("MISMATCH, " + way + "'s bulk load: " + counts + " rows in the table and its index, not "
                        + rows + " in each");
            }
        }
    }

    private void buildIndex(PhoenixTables phoenix, PhoenixTables.Table table, boolean covered, int rows) throws Exception {
        long start = System.nanoTime();
        if (covered) {
            phoenix.createCoveredIndex(table);
        } else {
            phoenix.createUncoveredIndex(table);
        }
        phoenix.flush(table);
        recordLoad("phoenix", PhoenixTables.describe(table), "build of its " + (covered ? "covered" : "uncovered")
                + " index on (sdate, code) over the loaded rows (CREATE INDEX)", rows, Demo.seconds(start), null);
    }

    /** One load's figures; {@code seconds} null when there are none, and {@code why} says why. */
    private void recordLoad(String way, String table, String index, int rows, Double seconds, String why) {
        String figures = seconds == null ? why
                : String.format(Locale.ROOT, "%,.0f rows/s (%.1f s)", rows / seconds, seconds);
        loadLines.add(String.format(Locale.ROOT, "  %-8s %-52s %-40s %s", way, table, index, figures));
        loadJson.add("{\"way\": " + EndToEnd.Json.string(way) + ", \"table\": " + EndToEnd.Json.string(table)
                + ", \"index\": " + EndToEnd.Json.string(index) + ", \"rows\": " + rows
                + ", \"seconds\": " + (seconds == null ? "null" : EndToEnd.Json.number(seconds))
                + ", \"rows_per_s\": " + (seconds == null ? "null" : EndToEnd.Json.number(rows / seconds))
                + (seconds == null ? ", \"note\": " + EndToEnd.Json.string(why) : "") + "}");
    }

    /** The two passes: Phoenix's default metadata lookups, then cached (its documented setting for this). */
    enum Pass {
        DEFAULT("ALWAYS"), CACHED(PhoenixTables.CACHED);

        final String updateCacheFrequency;

        Pass(String updateCacheFrequency) {
            this.updateCacheFrequency = updateCacheFrequency;
        }
    }

    /** A run of one way: the query's rows, timed. */
    private interface Runner {
        Demo.Outcome run() throws Exception;
    }

    /** One way of running a query, and its figures. */
    private final class Way {
        final String name;
        final String side;
        final Pass pass;
        final List<TableName> tables;
        final Runner runner;
        final String explain;
        final double[] millis;
        final long[] rowsRead;
        /** Ours and the seed's: HBase's scan metric ROWS_SCANNED too, beside the region counters. */
        final long[] scanMetricRows;

        Way(String name, String side, Pass pass, List<TableName> tables, String explain, Runner runner) {
            this.name = name;
            this.side = side;
            this.pass = pass;
            this.tables = tables;
            this.runner = runner;
            this.explain = explain;
            millis = new double[options.runs];
            rowsRead = new long[options.runs];
            scanMetricRows = new long[options.runs];
        }

        double medianMillis() {
            return EndToEnd.median(millis);
        }

        long medianRowsRead() {
            return Math.round(EndToEnd.median(Arrays.stream(rowsRead).asDoubleStream().toArray()));
        }

        /** The seed's way and our toScan() have HBase's scan metric; Phoenix and our index scan do not. */
        boolean hasScanMetric() {
            return side.equals("seed") || side.equals("ours");
        }

        long medianScanMetricRows() {
            return Math.round(EndToEnd.median(Arrays.stream(scanMetricRows).asDoubleStream().toArray()));
        }

        String json() {
            return "{\"name\": " + EndToEnd.Json.string(name) + ", \"side\": " + EndToEnd.Json.string(side)
                    + ", \"update_cache_frequency\": " + (side.equals("phoenix") ? EndToEnd.Json.string(pass.updateCacheFrequency) : "null")
                    + ", \"pass\": " + (pass.ordinal() + 1)
                    + ", \"wall_ms\": " + EndToEnd.Json.array(millis) + ", \"median_ms\": " + EndToEnd.Json.number(medianMillis())
                    + ", \"rows_read\": " + EndToEnd.Json.array(rowsRead) + ", \"median_rows_read\": " + medianRowsRead()
                    + (!hasScanMetric() ? "" : ", \"scan_metrics_rows_read\": " + EndToEnd.Json.array(scanMetricRows)
                            + ", \"median_scan_metrics_rows_read\": " + medianScanMetricRows())
                    + ", \"explain\": " + EndToEnd.Json.string(explain) + "}";
        }
    }

    /** One of the demo's queries and its ways in both passes. */
    private final class Query {
        final DemoQuery q;
        final PhoenixTables.Table table;
        final PhoenixTables phoenix;
        final List<Way> ways = new ArrayList<>();
        TreeSet<String> expected;

        Query(DemoQuery q, PhoenixTables.Table table, PhoenixTables phoenix) {
            this.q = q;
            this.table = table;
            this.phoenix = phoenix;
        }

        List<Way> ways(Pass pass) throws SQLException {
            List<TableName> ours = List.of(q.salted ? Demo.SALTED_TABLE : Demo.PLAIN_TABLE);
            List<Way> list = new ArrayList<>();
            if (pass == Pass.DEFAULT) {
                list.add(new Way("seed's way (full scan + FilterList)", "seed", pass, ours,
                        "full scan of the table, one RowFilter per condition", () -> demo.runSeedWay(q)));
            }
            list.add(new Way(pass == Pass.DEFAULT ? "ours (toScan)" : "ours (toScan), pass 2", "ours", pass, ours,
                    demo.planned(q).explain().trim(), () -> demo.runPlanned(q)));
            // RowKeyTable.scan on the table with the index, for every query: the index where it
            // serves, else the data table's planned ranges, each region's read at once.
            OurIndexedTable indexed = q.salted ? ourSaltedIndexed : ourIndexed;
            list.add(new Way("ours (RowKeyTable.scan)" + (pass == Pass.DEFAULT ? "" : ", pass 2"), "ours-index", pass,
                    indexed.physical(), indexed.explain(q, false), () -> indexed.run(q, false)));
            list.add(new Way("ours reversed (RowKeyTable.scan, descending key order)" + (pass == Pass.DEFAULT ? "" : ", pass 2"),
                    "ours-reversed", pass, indexed.physical(), indexed.explain(q, false, true), () -> indexed.run(q, false, true)));
            if (q.indexServes()) {
                // Phoenix's covered index answers SELECT * alone (it knows every column); ours when
                // the query asks only for covered columns.
                list.add(new Way("ours via index, URL only (covered)" + (pass == Pass.DEFAULT ? "" : ", pass 2"),
                        "ours-index-covered", pass, indexed.physical(), indexed.explain(q, true),
                        () -> indexed.run(q, true)));
            }
            if (q.onLeadingField()) {
                list.add(new Way("floor: the result rows alone, one scan per region at once"
                        + (pass == Pass.DEFAULT ? "" : ", pass 2"), "floor", pass, ours,
                        "point ranges of the result rows, keys known in advance, grouped by region; no other filter",
                        () -> floor.read(ours.get(0), expected)));
            }
            if (q.indexServes()) {
                // Every index row in the plan's ranges is a result row: reading them plainly, the
                // regions at once, is the floor of any way through this index.
                TableName indexTable = indexed.physical().get(1);
                List<RowRange> indexRanges = FloorBench.chosenRanges(indexed.explain(q, false));
                list.add(new Way("floor: the index's key ranges read plainly, one scan per region at once"
                        + (pass == Pass.DEFAULT ? "" : ", pass 2"), "floor", pass, List.of(indexTable),
                        "the plan's " + indexRanges.size() + " index key range(s), every row in them a result row; no filter",
                        () -> indexRowsFloor(indexTable, indexRanges)));
            }
            list.add(phoenixWay("Phoenix", null, pass));
            list.add(phoenixWay("Phoenix ORDER BY key DESC", null, pass, true));
            list.add(phoenixWay("Phoenix NO_INDEX ORDER BY key DESC", "NO_INDEX", pass, true));
            list.add(phoenixWay("Phoenix NO_INDEX", "NO_INDEX", pass));
            list.add(phoenixWay("Phoenix SKIP_SCAN", "SKIP_SCAN", pass));
            if (q.indexServes()) {
                list.add(phoenixWay("Phoenix INDEX covered", "INDEX(" + table.name + " " + table.coveredIndex() + ")", pass));
                list.add(phoenixWay("Phoenix INDEX uncovered", "INDEX(" + table.name + " " + table.uncoveredIndex() + ")", pass));
            }
            return list;
        }

        /** The index rows of {@code ranges}, read plainly; as many as the query's rows (their keys are index keys). */
        private Demo.Outcome indexRowsFloor(TableName indexTable, List<RowRange> ranges) throws Exception {
            Demo.Outcome read = floor.read(indexTable, ranges, System.nanoTime());
            if (read.rows.size() != expected.size()) {
                throw new IllegalStateException(String.format(Locale.ROOT, "MISMATCH, %s, index floor: %,d index rows, the seed's way %,d rows",
                        q.name, read.rows.size(), expected.size()));
            }
            return new Demo.Outcome(expected, read.rowsRead, -1, read.regions, read.millis);
        }

        private Way phoenixWay(String name, String hint, Pass pass) throws SQLException {
            return phoenixWay(name, hint, pass, false);
        }

        /** {@code descending}: the rows in descending primary-key order, Phoenix's reversed read. */
        private Way phoenixWay(String name, String hint, Pass pass, boolean descending) throws SQLException {
            PhoenixTables.Sql sql = phoenix.new Sql(table, q, hint, descending);
            String label = name + (pass == Pass.CACHED ? ", UPDATE_CACHE_FREQUENCY=" + pass.updateCacheFrequency : "");
            return new Way(label, descending ? "phoenix-reversed" : "phoenix", pass, table.physical(), sql.shown() + "\n" + sql.explain(),
                    () -> sql.run(demo.schema(q.salted)));
        }

        void measure(Pass pass) throws Exception {
            List<Way> current = ways(pass);
            for (int run = -1; run < options.runs; run++) { // run -1: the warm-up, not recorded
                for (Way way : current) {
                    long before = reads.total(way.tables);
                    Demo.Outcome o = way.runner.run();
                    long read = reads.total(way.tables) - before;
                    if (expected == null) {
                        expected = o.rows; // the seed's way, first of the first pass
                    } else if (!expected.equals(o.rows)) {
                        throw new IllegalStateException(String.format(Locale.ROOT,
                                "MISMATCH, %s, %s, %s: %,d rows, the seed's way %,d", q.name, way.name,
                                run < 0 ? "warm-up run" : "run " + (run + 1), o.rows.size(), expected.size()));
                    }
                    if (run >= 0) {
                        way.millis[run] = o.millis;
                        way.rowsRead[run] = read;
                        way.scanMetricRows[run] = o.rowsRead;
                    }
                }
            }
            ways.addAll(current);
        }

        String lines(Pass pass) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s  (%,d rows)%n", q.name, expected.size()));
            for (Way w : ways) {
                if (w.pass == pass) {
                    b.append(String.format(Locale.ROOT, "    %-60s %9.1f ms %,12d read %12s scanned%n", w.name, w.medianMillis(),
                            w.medianRowsRead(), !w.hasScanMetric() ? "-" : String.format(Locale.ROOT, "%,d", w.medianScanMetricRows())));
                }
            }
            return b.toString().stripTrailing();
        }

        String explains() {
            StringBuilder b = new StringBuilder(q.name).append('\n');
            for (Way w : ways) {
                if (w.pass == Pass.DEFAULT) {
                    b.append("  ").append(w.name).append(":\n      ").append(w.explain.replace("\n", "\n      ")).append('\n');
                }
            }
            return b.toString();
        }

        String json() {
            StringBuilder b = new StringBuilder();
            b.append("    {\"name\": ").append(EndToEnd.Json.string(q.name))
                    .append(", \"table\": ").append(EndToEnd.Json.string(q.salted ? "salted" : "plain"))
                    .append(", \"phoenix_table\": ").append(EndToEnd.Json.string(table.name))
                    .append(", \"leading_field\": ").append(q.onLeadingField())
                    .append(", \"same_rows\": true, \"rows_returned\": ").append(expected.size())
                    .append(",\n     \"ways\": [\n");
            for (int i = 0; i < ways.size(); i++) {
                b.append("       ").append(ways.get(i).json()).append(i + 1 < ways.size() ? ",\n" : "\n");
            }
            return b.append("     ]}").toString();
        }
    }

    private void writeJson(int rows, String phoenixVersion, List<Query> queries, PeerAggregates aggregates)
            throws java.io.IOException {
        Path json = Paths.get(options.json);
        if (json.toAbsolutePath().getParent() != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
        }
        Files.write(json, json(rows, phoenixVersion, queries, aggregates).getBytes(StandardCharsets.UTF_8));
        System.out.println("Wrote " + json);
    }

    private String json(int rows, String phoenixVersion, List<Query> queries, PeerAggregates aggregates) {
        StringBuilder b = new StringBuilder("{\n");
        b.append("  \"benchmark\": \"peer\",\n");
        b.append("  \"date\": ").append(EndToEnd.Json.string(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())).append(",\n");
        b.append("  \"jdk\": ").append(EndToEnd.Json.string(System.getProperty("java.runtime.version"))).append(",\n");
        b.append("  \"max_heap_mb\": ").append(Runtime.getRuntime().maxMemory() >> 20).append(",\n");
        b.append("  \"hbase\": ").append(EndToEnd.Json.string(org.apache.hadoop.hbase.util.VersionInfo.getVersion())).append(",\n");
        b.append("  \"phoenix\": ").append(EndToEnd.Json.string(phoenixVersion)).append(",\n");
        b.append("  \"cluster\": ").append(EndToEnd.Json.string(options.zookeeper == null
                ? "embedded minicluster in the benchmark's JVM (1 master, 1 RegionServer, 1 DataNode), Phoenix's server side loaded"
                : "existing cluster, ZooKeeper " + options.zookeeper)).append(",\n");
        b.append("  \"phoenix_server_settings\": {");
        int s = 0;
        for (Map.Entry<String, String> e : PHOENIX_SERVER_SETTINGS.entrySet()) {
            b.append(s++ == 0 ? "" : ", ").append(EndToEnd.Json.string(e.getKey())).append(": ").append(EndToEnd.Json.string(e.getValue()));
        }
        b.append("},\n");
        b.append("  \"machine\": {\"cpu\": ").append(EndToEnd.Json.string(EndToEnd.Machine.cpu()))
                .append(", \"cores\": ").append(Runtime.getRuntime().availableProcessors())
                .append(", \"memory_mb\": ").append(EndToEnd.Machine.memoryMb()).append("},\n");
        b.append("  \"rows\": ").append(rows).append(",\n");
        b.append("  \"seed\": ").append(options.seed).append(",\n");
        b.append("  \"warmup_runs\": 1,\n");
        b.append("  \"runs\": ").append(options.runs).append(",\n");
        b.append("  \"tables\": ").append(EndToEnd.Json.string("ours: urlscan (8 regions) and urlscan_salted (16 salt buckets,"
                + " 8 regions), and the same two with a covered index on (sdate, code) (urlscan_indexed,"
                + " urlscan_salted_indexed, the latter's index salted too), loaded with a BufferedMutator, SKIP_WAL; Phoenix: URLSCAN_PHOENIX (8 regions, split at the same"
                + " bytes) and URLSCAN_PHOENIX_SALTED (SALT_BUCKETS=16: 16 regions), UPSERT with a commit every "
                + PhoenixTables.COMMIT_EVERY + " rows, DISABLE_WAL=true; each Phoenix table with a covered and an uncovered"
                + " index on (sdate, code)")).append(",\n");
        b.append("  \"loads\": [\n    ").append(String.join(",\n    ", loadJson)).append("\n  ],\n");
        b.append("  \"queries\": [\n");
        for (int i = 0; i < queries.size(); i++) {
            b.append(queries.get(i).json()).append(i + 1 < queries.size() ? ",\n" : "\n");
        }
        b.append("  ],\n");
        b.append("  \"aggregates\": [\n").append(aggregates.json()).append("\n  ]\n}\n");
        return b.toString();
    }
}
