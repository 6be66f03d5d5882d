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
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * The index intersection benchmark ({@code cargo make bench-join}): on an embedded HBase, a table of
 * {@code --rows} rows (default 1,000,000) keyed {@code id, a, b} with an index on {@code a} and one
 * on {@code b}; {@code a = 1} holds 1,000 rows (|A|) and {@code b = 1} 100,000 (|B|), independently
 * spread (and {@code a = 2} 100 rows, {@code b = 2} 500,000: a second query whose sizes are 5,000
 * times apart; and {@code a = 2000} on 100,000 rows, {@code b = 2000} on 1,000: scenario 1 mirrored,
 * where the tied estimates put the larger index first). Each query {@code a = v AND b = v} is
 * answered five ways, side by side: the planner's choice (the relay of both indexes, each filtered
 * with the whole query on the server, taking turns with a row budget), the leapfrog join
 * ({@code query.leapfrog()}), reading both indexes in full and merging the keys, and each single
 * index with the native per-row filter on its index rows (one of them is what a planner with a
 * wrong estimate reads). Rows read are the index rows the server read; time
 * is the median of {@code --runs} runs after a warm-up, data rows fetched included, the ways taking
 * turns in a shuffled order. Every way must
 * return the same rows. Scenario 3: an anyOf of two branches no index answers, read by one scan of
 * the union of their ranges with the OR program, against each branch read by its own scan and merged.
 */
public final class JoinBench {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("q");

    private final Connection connection;
    private final int rows;
    private final int runs;
    private final RowKeySchema schema = RowKeySchema.builder().int64("id").int32("a").int32("b").build();
    private RowKeyTable table;

    /** Where the intersection scenarios' figures go, for java/bench/report.py's table and chart. */
    private final Path json;
    /** Each intersection scenario's figures, as JSON objects. */
    private final List<String> scenarios = new ArrayList<>();

    JoinBench(Connection connection, int rows, int runs, Path json) {
        this.connection = connection;
        this.json = json;
        this.rows = rows;
        this.runs = runs;
    }

    public static void main(String[] args) throws Exception {
        Demo.Options options = Demo.Options.parse(args, true);
        // Beside --json's file (target/bench by default): java/bench/report.py reads it.
        Path json = Paths.get(options.json).toAbsolutePath().resolveSibling("join.json");
        System.exit(Demo.withCluster(options, c -> new JoinBench(c, options.rows, options.runs, json).run()));
    }

    /** One run of one way: the rows (hex keys) and the index rows read. */
    static final class Outcome {
        final List<String> keys;
        final long rowsRead;
        /** Scan requests ({@code countOfRPCcalls}) of the index reads. */
        final long scans;

        Outcome(List<String> keys, long rowsRead, long scans) {
            this.keys = keys;
            this.rowsRead = rowsRead;
            this.scans = scans;
        }
    }

    interface Way {
        Outcome run() throws IOException;
    }

    /** The values of scenarios 1, 2 and 4 (outside the others' 3..1002). */
    static final int[] SCENARIO_VALUES = {1, 2, 2000};

    int run() throws IOException {
        // Scenario 1 (the issue's): a = 1 on rows/1000, b = 1 on rows/10. Scenario 2: a = 2 on
        // rows/10000, b = 2 on rows/2, sizes 5,000 times apart, where the leapfrog should beat
        // the wrong single index. Scenario 4, scenario 1 mirrored: a = 2000 on rows/10, b = 2000 on
        // rows/1000; the estimates tie, so by_a (declared first) is read first: the wrong way round.
        int[] sizes = {Math.max(1, rows / 1000), Math.max(1, rows / 10), Math.max(1, rows / 10_000), Math.max(1, rows / 2)};
        load(sizes);
        System.out.printf(Locale.ROOT, "%n%,d rows, %d runs per way (median), HBase %s%n", rows, runs,
                org.apache.hadoop.hbase.util.VersionInfo.getVersion());
        int failed = scenario(1, sizes[0], sizes[1]) + scenario(2, sizes[2], sizes[3]) + anyOfScenario()
                + scenario(SCENARIO_VALUES[2], sizes[1], sizes[0]);
        Files.createDirectories(json.getParent());
        Files.write(json, ("{\n  \"benchmark\": \"join\",\n  \"date\": "
                + EndToEnd.Json.string(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()) + ",\n  \"hbase\": "
                + EndToEnd.Json.string(org.apache.hadoop.hbase.util.VersionInfo.getVersion()) + ",\n  \"cores\": "
                + Runtime.getRuntime().availableProcessors() + ",\n  \"rows\": " + rows + ",\n  \"runs\": " + runs
                + ",\n  \"scenarios\": [\n" + String.join(",\n", scenarios) + "\n  ]\n}\n").getBytes(StandardCharsets.UTF_8));
        System.out.println("Wrote " + json);
        return failed;
    }

    /**
     * Scenario 3: an anyOf of two branches that each need a data-table scan (an id range with a
     * range condition no index answers, each keeping about 1 % of its rows; the ranges overlap by
     * half), side by side: one scan of the union of the branches' ranges with the OR program as the
     * per-row filter, against each branch read by its own scan (its ranges, its own program) and the
     * keys merged, as an anyOf query was read before; both filter every row ({@code RowFilter}), so
     * the rows read are every row of the ranges. Then {@code toScan()}, the planner's choice (here
     * the skip scan over the OR: HBase does not count the rows it seeks past), and
     * {@code RowKeyTable.scan} (the same one data-table scan, its rows returned as read).
     */
    private int anyOfScenario() throws IOException {
        long tenth = rows / 10;
        RowKeyQuery first = RowKeyQuery.on(schema).between("id", tenth, 3 * tenth - 1).between("a", 10, 12);
        RowKeyQuery second = RowKeyQuery.on(schema).between("id", 2 * tenth, 4 * tenth - 1).between("b", 10, 20);
        RowKeyQuery union = RowKeyQuery.anyOf(first, second);
        System.out.println();
        System.out.println(union.explain());
        String[] names = {"one scan of the union, OR program per row", "each branch its own scan + merge (before)",
            "toScan() (skip scan over the OR)", "RowKeyTable.scan (one data-table scan, rows as read)"};
        Way[] ways = {
            () -> dataScan(filtered(union)),
            () -> {
                Outcome a = dataScan(filtered(first));
                Outcome b = dataScan(filtered(second));
                TreeSet<String> merged = new TreeSet<>(a.keys);
                merged.addAll(b.keys);
                return new Outcome(new ArrayList<>(merged), a.rowsRead + b.rowsRead, a.scans + b.scans);
            },
            () -> dataScan(union.toScan()),
            () -> scan(union),
        };
        System.out.printf(Locale.ROOT, "anyOf(id in [%,d, %,d) AND a BETWEEN 10 AND 12, id in [%,d, %,d) AND b BETWEEN 10"
                + " AND 20): %,d rows in the union of the ranges, %,d in the two%n%n", tenth, 3 * tenth, 2 * tenth,
                4 * tenth, 3 * tenth, 4 * tenth);
        System.out.println("| way | rows returned | data rows read | read / union's rows | median ms | ms / one scan's |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        Outcome[] outcomes = warmUp(ways, names);
        if (outcomes == null) {
            return 1;
        }
        double[] medians = medians(ways);
        for (int w = 0; w < ways.length; w++) {
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.2f | %.1f | %.2f |%n", names[w], outcomes[w].keys.size(),
                    outcomes[w].rowsRead, outcomes[w].rowsRead / (3.0 * tenth), medians[w], medians[w] / medians[0]);
        }
        return 0;
    }

    /** A scan of {@code query}'s planned ranges, every row of them filtered with its comparator (no skip scan). */
    private static org.apache.hadoop.hbase.client.Scan filtered(RowKeyQuery query) {
        List<MultiRowRangeFilter.RowRange> ranges = query.toRanges();
        org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan()
                .withStartRow(ranges.get(0).getStartRow(), true);
        if (ranges.get(ranges.size() - 1).getStopRow().length > 0) {
            scan.withStopRow(ranges.get(ranges.size() - 1).getStopRow(), false);
        }
        Filter rows = new RowFilter(CompareOperator.EQUAL, query.toComparator());
        return scan.setFilter(ranges.size() == 1 ? rows
                : new FilterList(FilterList.Operator.MUST_PASS_ALL, new MultiRowRangeFilter(ranges), rows));
    }

    /** One run of each way (the warm-up), and the rows they returned; null when a way's rows differ from the first's. */
    private static Outcome[] warmUp(Way[] ways, String[] names) throws IOException {
        Outcome[] outcomes = new Outcome[ways.length];
        for (int w = 0; w < ways.length; w++) {
            outcomes[w] = ways[w].run();
            if (!outcomes[0].keys.equals(outcomes[w].keys)) {
                System.err.println(names[w] + " returned other rows than " + names[0] + ": " + outcomes[w].keys.size()
                        + " vs " + outcomes[0].keys.size());
                return null;
            }
        }
        return outcomes;
    }

    /**
     * The median ms of {@code runs} runs of each way (after the caller's warm-up run of each), the
     * ways taking turns in a new shuffled order each round, so that none pays alone for what the
     * RegionServer does meanwhile (compactions after the load, JIT).
     */
    private double[] medians(Way[] ways) throws IOException {
        double[][] millis = new double[ways.length][runs];
        List<Integer> order = new ArrayList<>();
        for (int w = 0; w < ways.length; w++) {
            order.add(w);
        }
        Random shuffle = new Random(runs);
        for (int r = 0; r < runs; r++) {
            Collections.shuffle(order, shuffle);
            for (int w : order) {
                long t0 = System.nanoTime();
                ways[w].run();
                millis[w][r] = (System.nanoTime() - t0) / 1e6;
            }
        }
        double[] medians = new double[ways.length];
        for (int w = 0; w < ways.length; w++) {
            Arrays.sort(millis[w]);
            medians[w] = millis[w][runs / 2];
        }
        return medians;
    }

    /** The rows of {@code scan} on the data table, and the rows the server read. */
    private Outcome dataScan(org.apache.hadoop.hbase.client.Scan scan) throws IOException {
        List<String> keys = new ArrayList<>();
        try (Table data = connection.getTable(TableName.valueOf("join_bench"));
             ResultScanner scanner = data.getScanner(scan.setScanMetricsEnabled(true))) {
            for (Result r; (r = scanner.next()) != null;) {
                keys.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            return new Outcome(keys, metrics.countOfRowsScanned.get(), metrics.countOfRPCcalls.get());
        }
    }

    /** The five ways of {@code a = value AND b = value}, side by side; 0 when they agree. */
    private int scenario(int value, int sizeA, int sizeB) throws IOException {
        RowKeyQuery plain = RowKeyQuery.on(schema).eq("a", value).eq("b", value);
        RowKeyQuery both = RowKeyQuery.on(schema).eq("a", value).eq("b", value).leapfrog();
        String explain = table.explain(plain);
        System.out.println();
        System.out.println(explain);
        if (!explain.contains("relay")) {
            System.err.println("the planner did not relay " + plain);
            return 1;
        }
        String[] names = {"the planner's choice: relay of both indexes (no hint)", "leapfrog join (query.leapfrog())",
            "both indexes in full + merge", "single index a + per-row filter", "single index b + per-row filter"};
        Way[] ways = {
            () -> scan(plain),
            () -> scan(both),
            () -> bothInFullAndMerge(value),
            () -> scan(RowKeyQuery.on(schema).eq("a", value).eq("b", value).useIndex("by_a")),
            () -> scan(RowKeyQuery.on(schema).eq("a", value).eq("b", value).useIndex("by_b")),
        };
        int smallest = Math.min(sizeA, sizeB);
        System.out.printf(Locale.ROOT, "a = %d AND b = %d: |A| = %,d, |B| = %,d%n%n", value, value, sizeA, sizeB);
        System.out.println("| way | rows returned | index rows read | read / smaller input | index scans | median ms | ms / relay's |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        Outcome[] outcomes = warmUp(ways, names);
        if (outcomes == null) {
            return 1;
        }
        double[] medians = medians(ways);
        StringBuilder figures = new StringBuilder();
        for (int w = 0; w < ways.length; w++) {
            Outcome o = outcomes[w];
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.2f | %,d | %.1f | %.2f |%n", names[w], o.keys.size(),
                    o.rowsRead, o.rowsRead / (double) smallest, o.scans, medians[w], medians[w] / medians[0]);
            figures.append(w == 0 ? "" : ",\n").append("      {\"name\": ").append(EndToEnd.Json.string(names[w]))
                    .append(", \"rows_returned\": ").append(o.keys.size()).append(", \"index_rows_read\": ").append(o.rowsRead)
                    .append(", \"index_scans\": ").append(o.scans).append(", \"median_ms\": ")
                    .append(EndToEnd.Json.number(medians[w])).append('}');
        }
        long relayRead = outcomes[0].rowsRead;
        scenarios.add("    {\"query\": " + EndToEnd.Json.string("a = " + value + " AND b = " + value) + ", \"size_a\": " + sizeA
                + ", \"size_b\": " + sizeB + ", \"ways\": [\n" + figures + "\n    ]}");
        double bestSingle = Math.min(medians[3], medians[4]);
        double fastestOther = Math.min(Math.min(medians[1], medians[2]), bestSingle);
        System.out.printf(Locale.ROOT, "%nrelay: %,d index rows read = %.2f x the smaller input (target <= 3); %.2f x the"
                + " best single index's time; fastest of all: %s%n", relayRead, relayRead / (double) smallest,
                medians[0] / bestSingle, medians[0] <= fastestOther ? "yes" : "no");
        return 0;
    }

    private Outcome scan(RowKeyQuery query) throws IOException {
        List<String> keys = new ArrayList<>();
        long read;
        long scans;
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r; (r = scanner.next()) != null;) {
                keys.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            read = metrics == null ? -1 : metrics.countOfRowsScanned.get();
            scans = metrics == null ? -1 : metrics.countOfRPCcalls.get();
        }
        Collections.sort(keys);
        return new Outcome(keys, read, scans);
    }

    /** Every key of a = value and of b = value (key-only, from the indexes alone), merged; then the data rows. */
    private Outcome bothInFullAndMerge(int value) throws IOException {
        Outcome a = scan(RowKeyQuery.on(schema).eq("a", value).useIndex("by_a").keysOnly());
        Outcome b = scan(RowKeyQuery.on(schema).eq("b", value).useIndex("by_b").keysOnly());
        TreeSet<String> common = new TreeSet<>(a.keys);
        common.retainAll(new TreeSet<>(b.keys));
        List<Get> gets = new ArrayList<>();
        for (String key : common) {
            gets.add(new Get(Bytes.fromHex(key)));
        }
        List<String> keys = new ArrayList<>();
        try (Table data = connection.getTable(TableName.valueOf("join_bench"))) {
            for (Result r : data.get(gets)) {
                if (!r.isEmpty()) {
                    keys.add(Bytes.toHex(r.getRow()));
                }
            }
        }
        return new Outcome(keys, a.rowsRead + b.rowsRead, a.scans + b.scans);
    }

    /** {@code sizes}: rows with a = 1, b = 1, a = 2, b = 2; every other row gets a and b in 3..1002. */
    private void load(int[] sizes) throws IOException {
        TableName name = TableName.valueOf("join_bench");
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(name)) {
                System.err.println("table join_bench exists: reusing it");
                table = RowKeyTable.open(connection, name);
                return;
            }
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_a", "a"), RowKeyIndex.of("by_b", "b")),
                    FAMILY);
        }
        table = RowKeyTable.open(connection, name);
        Random random = new Random(12);
        int[] a = values(random, sizes[0], sizes[2], sizes[1]);
        int[] b = values(random, sizes[1], sizes[3], sizes[0]);
        long t0 = System.nanoTime();
        try (Table t = connection.getTable(name)) {
            List<Put> batch = new ArrayList<>();
            java.util.Map<String, Object> row = new java.util.HashMap<>();
            for (int i = 0; i < rows; i++) {
                row.put("id", (long) i);
                row.put("a", a[i] != 0 ? a[i] : 3 + random.nextInt(1000));
                row.put("b", b[i] != 0 ? b[i] : 3 + random.nextInt(1000));
                batch.add(new Put(schema.encode(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(i)));
                if (batch.size() == 5000) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
        }
        try (Admin admin = connection.getAdmin()) {
            for (TableName n : new TableName[] {name, TableName.valueOf("join_bench__idx_by_a"), TableName.valueOf("join_bench__idx_by_b")}) {
                admin.flush(n);
            }
        }
        System.err.printf(Locale.ROOT, "loaded %,d rows in %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);
    }

    /** Value 1 on {@code ones} rows and 2 on {@code twos} rows chosen at random, 0 elsewhere. */
    /** {@code counts[k]} rows (at random) of the value {@code SCENARIO_VALUES[k]}, the others 0. */
    private int[] values(Random random, int... counts) {
        int[] values = new int[rows];
        for (int k = 0; k < counts.length; k++) {
            for (int n = 0; n < counts[k];) {
                int i = random.nextInt(rows);
                if (values[i] == 0) {
                    values[i] = SCENARIO_VALUES[k];
                    n++;
                }
            }
        }
        return values;
    }
}
