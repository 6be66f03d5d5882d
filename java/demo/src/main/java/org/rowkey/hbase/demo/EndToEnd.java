package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeyTable;

/**
 * The end-to-end benchmark ({@code cargo make bench-e2e}, also run by {@code cargo make bench}):
 * the demo's tables (with their indexes) and queries ({@link Demo}, {@link DemoQuery}) on the
 * same embedded HBase. Each query runs four ways: the seed's (a full scan with one RowFilter per
 * condition), planned on the data table ({@link RowKeyQuery#toScan()}), through
 * {@link RowKeyTable#scan} (the planner picks the data table or an index), and the same asking
 * only for the URL (an index that covers it answers alone): one warm-up run each, then
 * {@code --runs} measured runs, the ways alternating. Every run of every way must return the same
 * rows (else it stops, exit code 1). Before the queries it measures the write cost of indexes (the
 * same rows loaded with 0, 1 and 3 indexes); after them, the backfill rate of
 * {@link RowKeyTable#addIndex}'s MapReduce job. Writes every figure, the medians and the targets
 * to {@code --json} (default target/bench/end_to_end.json), which java/bench/report.py turns into
 * report.md and end_to_end.png.
 *
 * <p>Options: the demo's ({@code --rows N}, {@code --seed S}, {@code --zookeeper host:port},
 * {@code --keep}) and {@code --runs N} (default 5), {@code --json FILE}.
 *
 * <p>The targets. Queries that fix the key's leading field (md5url): the planned scan's median at
 * least {@value #TARGET_SPEEDUP}× below the seed's full scan, reading at most <i>rows returned +
 * ranges</i> rows on the RegionServer (HBase's scan metric {@code ROWS_SCANNED}). Rows inside the
 * ranges that the residual per-row filter drops count as extra reads, so the benchmark also counts
 * the rows inside the ranges (once, untimed, without the residual filter). Queries read through an
 * index: at least {@value #TARGET_SPEEDUP}× below the seed's full scan, index rows read at most
 * <i>rows returned + ranges + regions</i>, data rows read at most the rows returned (none when the
 * index covers the query). Writes: one index costs less than {@value #TARGET_INDEX_WRITE_COST}× the
 * load without.
 */
public final class EndToEnd {
    static final double TARGET_SPEEDUP = 50;
    static final double TARGET_INDEX_WRITE_COST = 2;
    /** The rows of the untimed warm-up load that precedes the timed ones. */
    private static final int WARMUP_LOAD_ROWS = 50_000;

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("END-TO-END BENCHMARK", options, connection -> new EndToEnd(connection, options).run());
    }

    private final Connection connection;
    private final Demo demo;
    private final Demo.Options options;
    private final String cluster;
    private final List<Load> loads = new ArrayList<>();
    private Backfill backfill;

    private EndToEnd(Connection connection, Demo.Options options) {
        this.connection = connection;
        this.demo = new Demo(connection, options, true);
        this.options = options;
        this.cluster = options.zookeeper == null
                ? "embedded minicluster in the benchmark's JVM (1 master, 1 RegionServer, 1 DataNode)"
                : "existing cluster, ZooKeeper " + options.zookeeper;
    }

    private static final TableName NO_INDEX = TableName.valueOf("urlscan_no_index");
    private static final TableName ONE_INDEX = TableName.valueOf("urlscan_one_index");

    private int run() throws IOException {
        DataSet data = new DataSet(options.rows, options.seed);
        measureWriteCost(data);
        demo.load();
        loads.add(new Load(Demo.PLAIN_TABLE, Demo.plainIndexes().size(), data.size(), demo.loadSeconds.get(Demo.PLAIN_TABLE)));
        List<DemoQuery> queries = DemoQuery.all(data);
        System.out.println();
        System.out.println("Loads (writes and flushes; the same rows, the demo's way: BufferedMutator, no WAL on the data):");
        for (Load l : loads) {
            System.out.println("  " + l.line(loads.get(0)));
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%,d rows; each query each way: 1 warm-up run, then %d measured run%s (the ways alternate).%n",
                data.size(), options.runs, options.runs == 1 ? "" : "s");
        System.out.println(header());
        List<Measured> results = new ArrayList<>();
        for (DemoQuery q : queries) {
            Measured m = measure(q);
            results.add(m);
            System.out.println(m.line());
        }
        System.out.println();
        System.out.println("ms: median wall time (building the scan to the last row); read: rows the RegionServer read"
                + " (scan metrics; through an index: index rows + data rows read by Gets); ranges: key ranges of the"
                + " plan; url only: the query asking for f:url alone.");
        System.out.println("Targets: leading field: speedup >= " + (int) TARGET_SPEEDUP + " and planned read <= rows + ranges;"
                + " through an index: speedup >= " + (int) TARGET_SPEEDUP + ", index read <= rows + ranges + regions,"
                + " data read <= rows (0 when covered).");
        System.out.println("All runs: every way returned exactly the seed's rows.");
        measureParallelReads(queries);
        measureBackfill(data, queries);
        Path json = Paths.get(options.json);
        if (json.toAbsolutePath().getParent() != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
        }
        Files.write(json, json(data.size(), results).getBytes(StandardCharsets.UTF_8));
        System.out.println("Wrote " + json);
        demo.dropTablesUnlessKept();
        return 0;
    }

    /**
     * Loads the rows into the plain schema without an index and with one (the covered index on
     * (sdate, code)), after an untimed warm-up load; the demo's own load adds the 3-index figure.
     * The table without an index stays for the backfill.
     */
    private void measureWriteCost(DataSet data) throws IOException {
        TableName warmup = TableName.valueOf("urlscan_warmup");
        System.out.println("Warm-up load (untimed):");
        demo.dropTable(warmup);
        demo.createAndLoad(warmup, demo.schema(false), false, Demo.plainIndexes(),
                new DataSet(Math.min(WARMUP_LOAD_ROWS, data.size()), options.seed + 1));
        demo.dropTable(warmup);
        demo.dropTable(NO_INDEX);
        demo.dropTable(ONE_INDEX);
        loads.add(new Load(NO_INDEX, 0, data.size(), demo.createAndLoad(NO_INDEX, demo.schema(false), false, List.of(), data)));
        loads.add(new Load(ONE_INDEX, 1, data.size(),
                demo.createAndLoad(ONE_INDEX, demo.schema(false), false, Demo.plainIndexes().subList(0, 1), data)));
        demo.dropTable(ONE_INDEX);
    }

    /**
     * Adds the covered index on (sdate, code) to the loaded table without one, by the MapReduce
     * backfill ({@link RowKeyTable#addIndex}, the LocalJobRunner here), times it, and checks that
     * seed 2 through the new index returns the seed way's rows.
     */
    private void measureBackfill(DataSet data, List<DemoQuery> queries) throws IOException {
        System.out.println();
        RowKeyTable table = RowKeyTable.open(connection, NO_INDEX);
        Demo.Progress progress = new Demo.Progress("Backfilling " + NO_INDEX, 100);
        int[] shown = {0};
        long start = System.nanoTime();
        table.addIndex(Demo.plainIndexes().get(0), p -> {
            while (shown[0] < (int) (p * 100)) {
                shown[0]++;
                progress.step();
            }
        });
        double seconds = Demo.seconds(start);
        progress.done();
        DemoQuery seed2 = queries.get(1);
        TreeSet<String> rows = new TreeSet<>();
        try (ResultScanner scanner = table.scan(demo.planned(seed2).useIndex("by_date_code"))) {
            for (Result r : scanner) {
                rows.add(Bytes.toHex(r.getRow()));
            }
        }
        TreeSet<String> expected = demo.runSeedWay(seed2).rows;
        if (!rows.equals(expected)) {
            throw new IllegalStateException(String.format(Locale.ROOT, "MISMATCH after the backfill: %s through the new"
                    + " index returned %,d rows, the seed's full scan %,d", seed2.name, rows.size(), expected.size()));
        }
        backfill = new Backfill(data.size(), seconds);
        System.out.printf(Locale.ROOT, "Backfill (RowKeyTable.addIndex, MapReduce, LocalJobRunner): %,d rows in %.1f s,"
                + " %,.0f rows/s; %s through the new index returned the seed's %,d rows.%n",
                data.size(), seconds, data.size() / seconds, seed2.name, rows.size());
        demo.dropTable(NO_INDEX);
    }

    /** One query: warm-up, measured runs, the check that every way returns the same rows every time. */
    private Measured measure(DemoQuery q) throws IOException {
        RowKeyQuery query = demo.planned(q);
        String explain = demo.explain(q);
        Measured m = new Measured(q, query.toRanges().size(), rowsInRanges(q, query), rangesOf(explain), options.runs);
        TreeSet<String> first = null;
        for (int run = -1; run < options.runs; run++) { // run -1: the warm-up, not recorded
            Demo.Outcome[] outcomes = {demo.runSeedWay(q), demo.runPlanned(q), demo.runTable(q, false), demo.runTable(q, true)};
            String which = run < 0 ? "warm-up run" : "run " + (run + 1);
            if (first == null) {
                first = outcomes[0].rows;
            }
            for (int w = 0; w < outcomes.length; w++) {
                if (!first.equals(outcomes[w].rows)) {
                    throw new IllegalStateException(String.format(Locale.ROOT,
                            "MISMATCH, %s, %s, %s: %,d rows, the seed's first run %,d; only in the seed's: %s; only in this way's: %s",
                            q.name, which, WAYS[w], outcomes[w].rows.size(), first.size(),
                            firstMissing(first, outcomes[w].rows), firstMissing(outcomes[w].rows, first)));
                }
                if (run >= 0) {
                    m.ways[w].record(run, outcomes[w]);
                }
            }
        }
        m.rowsReturned = first.size();
        return m;
    }

    /**
     * What parallel region reads change: each query through {@link RowKeyTable#scan} with its
     * chunks (the plan's ranges cut at region boundaries) read at once and one after another
     * ({@link RowKeyQuery#serial()}), side by side: a warm-up of both, then {@code --runs} runs
     * alternating, medians; every run's rows the same.
     */
    private void measureParallelReads(List<DemoQuery> queries) throws IOException {
        System.out.println();
        System.out.println("Parallel region reads (RowKeyTable.scan, every column; median ms of " + options.runs
                + " runs after a warm-up, alternating):");
        String format = "  %-58s %9s | %9s %9s %8s | %s";
        System.out.println(String.format(Locale.ROOT, format, "query", "rows", "serial ms", "parallel", "speedup", "how"));
        for (DemoQuery q : queries) {
            double[] serial = new double[options.runs];
            double[] parallel = new double[options.runs];
            TreeSet<String> rows = null;
            for (int run = -1; run < options.runs; run++) {
                Demo.Outcome one = demo.runTable(q, false, true);
                Demo.Outcome many = demo.runTable(q, false, false);
                if (!one.rows.equals(many.rows) || (rows != null && !rows.equals(one.rows))) {
                    throw new IllegalStateException("MISMATCH, " + q.name + ": parallel and serial reads differ");
                }
                rows = one.rows;
                if (run >= 0) {
                    serial[run] = one.millis;
                    parallel[run] = many.millis;
                }
            }
            String explain = demo.explain(q);
            Matcher how = Pattern.compile("reads: ([^\n]*)").matcher(explain);
            double s = median(serial);
            double p = median(parallel);
            System.out.println(String.format(Locale.ROOT, format, q.name, Report.count(rows.size()),
                    String.format(Locale.ROOT, "%.1f", s), String.format(Locale.ROOT, "%.1f", p),
                    String.format(Locale.ROOT, "%.1fx", s / Math.max(p, 0.01)),
                    how.find() ? how.group(1) : "joins of key streams (serial)"));
        }
    }

    /** The ways, in the order of {@link Measured#ways} and of the JSON. */
    static final String[] WAYS = {"seed", "planned", "table", "table_url"};

    private static String firstMissing(TreeSet<String> a, TreeSet<String> b) {
        for (String row : a) {
            if (!b.contains(row)) {
                return row;
            }
        }
        return "none";
    }

    /** The key ranges of the plan {@link RowKeyTable#explain} shows first (the chosen one). */
    static int rangesOf(String explain) {
        Matcher m = Pattern.compile("RANGE SCAN over (\\d+) key range").matcher(explain);
        return m.find() ? Integer.parseInt(m.group(1)) : 1;
    }

    /**
     * The rows inside the plan's key ranges: the planned scan without its residual per-row
     * filter (its start/stop rows, and the MultiRowRangeFilter when there are several ranges).
     */
    private long rowsInRanges(DemoQuery q, RowKeyQuery query) throws IOException {
        List<MultiRowRangeFilter.RowRange> ranges = query.toRanges();
        if (ranges.isEmpty()) {
            return 0;
        }
        Scan scan = query.toScan();
        scan.setFilter(ranges.size() > 1 ? new MultiRowRangeFilter(ranges) : null);
        return demo.scan(q, scan, System.nanoTime()).rows.size();
    }

    /** A load's figures. */
    private static final class Load {
        final TableName table;
        final int indexes;
        final int rows;
        final double seconds;

        Load(TableName table, int indexes, int rows, double seconds) {
            this.table = table;
            this.indexes = indexes;
            this.rows = rows;
            this.seconds = seconds;
        }

        String line(Load none) {
            return String.format(Locale.ROOT, "%-22s %d index%s: %6.1f s, %,9.0f rows/s, %.2fx the load without an index",
                    table, indexes, indexes == 1 ? "  " : "es", seconds, rows / seconds, seconds / none.seconds);
        }
    }

    /** The backfill's figures. */
    private static final class Backfill {
        final int rows;
        final double seconds;

        Backfill(int rows, double seconds) {
            this.rows = rows;
            this.seconds = seconds;
        }
    }

    /** A query's figures. */
    private static final class Measured {
        final DemoQuery query;
        final int ranges;
        final long rowsInRanges;
        /** The key ranges of the plan RowKeyTable.scan chose (the index's, through an index). */
        final int tableRanges;
        /** Seed, planned, table, table_url: as {@link #WAYS}. */
        final Way[] ways;
        long rowsReturned;

        Measured(DemoQuery query, int ranges, long rowsInRanges, int tableRanges, int runs) {
            this.query = query;
            this.ranges = ranges;
            this.rowsInRanges = rowsInRanges;
            this.tableRanges = tableRanges;
            this.ways = new Way[] {new Way(runs), new Way(runs), new Way(runs), new Way(runs)};
        }

        Way seed() {
            return ways[0];
        }

        Way planned() {
            return ways[1];
        }

        double speedup(Way way) {
            return seed().medianMillis() / way.medianMillis();
        }

        /** Whether RowKeyTable.scan read an index for this query. */
        boolean throughIndex() {
            return ways[2].medianIndexRowsRead() >= 0;
        }

        long readBound() {
            return rowsReturned + ranges;
        }

        boolean speedupMet() {
            return speedup(planned()) >= TARGET_SPEEDUP;
        }

        boolean readMet() {
            return planned().medianRowsRead() <= readBound();
        }

        long indexReadBound(Way way) {
            return rowsReturned + tableRanges + way.maxRegions();
        }

        /** The targets of a way through an index: speedup, index rows read, data rows read. */
        boolean indexTargetsMet(Way way, boolean covered) {
            return speedup(way) >= TARGET_SPEEDUP && way.medianIndexRowsRead() <= indexReadBound(way)
                    && way.medianRowsRead() <= (covered ? 0 : rowsReturned);
        }

        String line() {
            String target;
            if (query.onLeadingField()) {
                target = speedupMet() && readMet() ? "met"
                        : "NOT met (" + (speedupMet() ? "" : "speedup < " + (int) TARGET_SPEEDUP + "x")
                                + (speedupMet() || readMet() ? "" : ", ") + (readMet() ? "" : "read > " + readBound()) + ")";
            } else if (throughIndex()) {
                target = (indexTargetsMet(ways[2], false) ? "met" : "NOT met") + " / url only "
                        + (indexTargetsMet(ways[3], ways[3].medianRowsRead() == 0) ? "met" : "NOT met");
            } else {
                target = "-";
            }
            return String.format(Locale.ROOT, FORMAT, query.name, Report.count(rowsReturned),
                    Report.count(seed().medianRowsRead()), millis(seed()),
                    Report.count(planned().medianRowsRead()), millis(planned()),
                    ways[2].read(), millis(ways[2]), ways[3].read(), millis(ways[3]),
                    String.format(Locale.ROOT, "%.1fx", speedup(ways[2])), target);
        }
    }

    private static String millis(Way way) {
        return String.format(Locale.ROOT, "%.1f", way.medianMillis());
    }

    private static final String FORMAT = "%-58s %7s | %9s %6s | %9s %6s | %17s %6s | %17s %6s | %7s  %s";

    private static String header() {
        return String.format(Locale.ROOT, FORMAT, "query", "rows", "seed: read", "ms", "toScan: read", "ms",
                "table.scan: read", "ms", "url only: read", "ms", "speedup", "target") + "\n" + "-".repeat(170);
    }

    /** One way's measured runs. */
    private static final class Way {
        final double[] millis;
        final long[] rowsRead;
        final long[] indexRowsRead;
        final long[] rowsReturned;
        final long[] regions;

        Way(int runs) {
            millis = new double[runs];
            rowsRead = new long[runs];
            indexRowsRead = new long[runs];
            rowsReturned = new long[runs];
            regions = new long[runs];
        }

        void record(int run, Demo.Outcome o) {
            millis[run] = o.millis;
            rowsRead[run] = o.rowsRead;
            indexRowsRead[run] = o.indexRowsRead;
            rowsReturned[run] = o.rows.size();
            regions[run] = o.regions;
        }

        double medianMillis() {
            return median(millis);
        }

        long medianRowsRead() {
            return Math.round(median(Arrays.stream(rowsRead).asDoubleStream().toArray()));
        }

        /** Index rows read; -1 when no index was read. */
        long medianIndexRowsRead() {
            return Math.round(median(Arrays.stream(indexRowsRead).asDoubleStream().toArray()));
        }

        long maxRegions() {
            return Arrays.stream(regions).max().orElse(0);
        }

        /** Rows read as "index + data", or the data rows alone. */
        String read() {
            long index = medianIndexRowsRead();
            return index < 0 ? Report.count(medianRowsRead()) : Report.count(index) + " + " + Report.count(medianRowsRead());
        }

        String json() {
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            return "{\"wall_ms\": " + Json.array(millis) + ", \"rows_read\": " + Json.array(rowsRead)
                    + ", \"index_rows_read\": " + Json.array(indexRowsRead)
                    + ", \"rows_returned\": " + Json.array(rowsReturned) + ", \"regions\": " + Json.array(regions)
                    + ", \"median_ms\": " + Json.number(medianMillis()) + ", \"min_ms\": " + Json.number(sorted[0])
                    + ", \"max_ms\": " + Json.number(sorted[sorted.length - 1])
                    + ", \"median_rows_read\": " + medianRowsRead()
                    + ", \"median_index_rows_read\": " + medianIndexRowsRead() + "}";
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private String json(int rows, List<Measured> results) {
        StringBuilder b = new StringBuilder("{\n");
        b.append("  \"benchmark\": \"end_to_end\",\n");
        b.append("  \"date\": ").append(Json.string(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())).append(",\n");
        b.append("  \"jdk\": ").append(Json.string(System.getProperty("java.runtime.version"))).append(",\n");
        b.append("  \"jdk_vendor\": ").append(Json.string(System.getProperty("java.vendor"))).append(",\n");
        b.append("  \"jvm\": ").append(Json.string(System.getProperty("java.vm.name"))).append(",\n");
        b.append("  \"max_heap_mb\": ").append(Runtime.getRuntime().maxMemory() >> 20).append(",\n");
        b.append("  \"hbase\": ").append(Json.string(org.apache.hadoop.hbase.util.VersionInfo.getVersion())).append(",\n");
        b.append("  \"cluster\": ").append(Json.string(cluster)).append(",\n");
        b.append("  \"machine\": {\"cpu\": ").append(Json.string(Machine.cpu()))
                .append(", \"cores\": ").append(Runtime.getRuntime().availableProcessors())
                .append(", \"memory_mb\": ").append(Machine.memoryMb())
                .append(", \"os\": ").append(Json.string(System.getProperty("os.name") + " " + System.getProperty("os.version")
                        + " " + System.getProperty("os.arch"))).append("},\n");
        b.append("  \"rows\": ").append(rows).append(",\n");
        b.append("  \"seed\": ").append(options.seed).append(",\n");
        b.append("  \"tables\": \"urlscan (plain, 8 regions; indexes ").append(Demo.plainIndexes())
                .append(") and urlscan_salted (16 salt buckets, 8 regions; index ").append(Demo.saltedIndexes()).append(")\",\n");
        b.append("  \"warmup_runs\": 1,\n");
        b.append("  \"runs\": ").append(options.runs).append(",\n");
        b.append("  \"target\": {\"speedup\": ").append(Json.number(TARGET_SPEEDUP))
                .append(", \"read_bound\": \"planned rows read <= rows returned + ranges\"")
                .append(", \"applies_to\": ").append(Json.string("queries with an equality or IN-list on "
                        + DemoQuery.LEADING_FIELD + ", the key's leading field"))
                .append(", \"index_read_bound\": \"index rows read <= rows returned + ranges + regions; data rows read <= rows returned, 0 when covered\"")
                .append(", \"index_write_cost\": ").append(Json.number(TARGET_INDEX_WRITE_COST)).append("},\n");
        b.append("  \"loads\": [");
        for (int i = 0; i < loads.size(); i++) {
            Load l = loads.get(i);
            b.append(i == 0 ? "" : ", ").append("{\"table\": ").append(Json.string(l.table.getNameAsString()))
                    .append(", \"indexes\": ").append(l.indexes).append(", \"rows\": ").append(l.rows)
                    .append(", \"seconds\": ").append(Json.number(l.seconds))
                    .append(", \"cost\": ").append(Json.number(l.seconds / loads.get(0).seconds)).append("}");
        }
        b.append("],\n");
        b.append("  \"backfill\": {\"rows\": ").append(backfill.rows).append(", \"seconds\": ")
                .append(Json.number(backfill.seconds)).append(", \"rows_per_s\": ")
                .append(Json.number(backfill.rows / backfill.seconds)).append("},\n");
        b.append("  \"queries\": [\n");
        for (int i = 0; i < results.size(); i++) {
            Measured m = results.get(i);
            boolean leading = m.query.onLeadingField();
            boolean index = !leading && m.throughIndex();
            b.append("    {\"name\": ").append(Json.string(m.query.name))
                    .append(", \"table\": ").append(Json.string(m.query.salted ? "urlscan_salted" : "urlscan"))
                    .append(", \"leading_field\": ").append(leading)
                    .append(", \"through_index\": ").append(m.throughIndex())
                    .append(", \"same_rows\": true")
                    .append(", \"rows_returned\": ").append(m.rowsReturned)
                    .append(", \"ranges\": ").append(m.ranges)
                    .append(", \"rows_in_ranges\": ").append(m.rowsInRanges)
                    .append(", \"table_ranges\": ").append(m.tableRanges);
            for (int w = 0; w < WAYS.length; w++) {
                b.append(",\n     \"").append(WAYS[w]).append("\": ").append(m.ways[w].json());
            }
            b.append(",\n     \"speedup\": ").append(Json.number(m.speedup(m.planned())))
                    .append(", \"table_speedup\": ").append(Json.number(m.speedup(m.ways[2])))
                    .append(", \"table_url_speedup\": ").append(Json.number(m.speedup(m.ways[3])))
                    .append(", \"read_bound\": ").append(m.readBound())
                    .append(", \"index_read_bound\": ").append(index ? String.valueOf(m.indexReadBound(m.ways[2])) : "null")
                    .append(", \"speedup_met\": ").append(leading ? String.valueOf(m.speedupMet()) : "null")
                    .append(", \"read_met\": ").append(leading ? String.valueOf(m.readMet()) : "null")
                    .append(", \"target_met\": ").append(leading ? String.valueOf(m.speedupMet() && m.readMet())
                            : index ? String.valueOf(m.indexTargetsMet(m.ways[2], false)) : "null")
                    .append(", \"url_target_met\": ").append(index
                            ? String.valueOf(m.indexTargetsMet(m.ways[3], m.ways[3].medianRowsRead() == 0)) : "null")
                    .append("}").append(i + 1 < results.size() ? "," : "").append('\n');
        }
        b.append("  ]\n}\n");
        return b.toString();
    }

    /** Just enough JSON writing for the results (no JSON library on the demo's class path). */
    static final class Json {
        private Json() {}

        static String string(String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : (s == null ? "" : s).toCharArray()) {
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20) {
                    b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.append('"').toString();
        }

        static String number(double v) {
            return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "null";
        }

        static String array(double[] values) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < values.length; i++) {
                b.append(i == 0 ? "" : ", ").append(number(values[i]));
            }
            return b.append(']').toString();
        }

        static String array(long[] values) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < values.length; i++) {
                b.append(i == 0 ? "" : ", ").append(values[i]);
            }
            return b.append(']').toString();
        }
    }

    /** The machine, from /proc on Linux ("unknown" elsewhere). */
    static final class Machine {
        private Machine() {}

        static String cpu() {
            return procLine("/proc/cpuinfo", "model name", "unknown CPU");
        }

        static long memoryMb() {
            String kb = procLine("/proc/meminfo", "MemTotal", "0 kB").replace("kB", "").trim();
            try {
                return Long.parseLong(kb) / 1024;
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        private static String procLine(String file, String key, String otherwise) {
            try {
                for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
                    if (line.startsWith(key) && line.contains(":")) {
                        return line.substring(line.indexOf(':') + 1).trim();
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux
            }
            return otherwise;
        }
    }
}
