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

import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.rowkey.hbase.RowKeyQuery;

/**
 * The end-to-end benchmark ({@code cargo make bench-e2e}, also run by {@code cargo make bench}):
 * the demo's tables and queries ({@link Demo}, {@link DemoQuery}) on the same embedded HBase,
 * each query run the seed's way (a full scan with one RowFilter per condition) and planned
 * ({@link RowKeyQuery#toScan()}): one warm-up run each way, then {@code --runs} measured runs,
 * the two ways alternating. Every run of both ways must return the same rows (else it stops,
 * exit code 1). Writes every run's figures, their medians and the targets to {@code --json}
 * (default target/bench/end_to_end.json), which java/bench/report.py turns into report.md and
 * end_to_end.png.
 *
 * <p>Options: the demo's ({@code --rows N}, {@code --seed S}, {@code --zookeeper host:port},
 * {@code --keep}) and {@code --runs N} (default 5), {@code --json FILE}.
 *
 * <p>The target, for the queries that fix the key's leading field (md5url): the
 * median wall time at least {@value #TARGET_SPEEDUP}× below the seed's full scan, and the
 * planned scan reading at most <i>rows returned + ranges</i> rows on the RegionServer (HBase's
 * scan metric {@code ROWS_SCANNED}): every row read is a row returned, except at most one per
 * key range. Rows inside the ranges that the residual per-row filter drops count as extra
 * reads, so the benchmark also counts the rows inside the ranges (once, untimed, a scan of the
 * ranges without the residual filter) to show where reads above the bound come from.
 */
public final class EndToEnd {
    static final double TARGET_SPEEDUP = 50;

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        int exit;
        try {
            exit = Demo.withCluster(options, connection -> new EndToEnd(connection, options).run());
        } catch (Exception e) {
            // Loudly, and without waiting for the minicluster's leftover threads.
            System.err.println();
            System.err.println("END-TO-END BENCHMARK FAILED: " + e.getMessage());
            e.printStackTrace();
            exit = 1;
        }
        System.exit(exit);
    }

    private final Demo demo;
    private final Demo.Options options;
    private final String cluster;

    private EndToEnd(Connection connection, Demo.Options options) {
        this.demo = new Demo(connection, options);
        this.options = options;
        this.cluster = options.zookeeper == null
                ? "embedded minicluster in the benchmark's JVM (1 master, 1 RegionServer, 1 DataNode)"
                : "existing cluster, ZooKeeper " + options.zookeeper;
    }

    private int run() throws IOException {
        DataSet data = demo.load();
        List<DemoQuery> queries = DemoQuery.all(data);
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
                + " (scan metrics); ranges: key ranges of the plan; target (leading field): speedup >= "
                + (int) TARGET_SPEEDUP + " and planned read <= rows + ranges.");
        System.out.println("All runs: the planned scan returned exactly the seed's rows.");
        Path json = Paths.get(options.json);
        if (json.toAbsolutePath().getParent() != null) {
            Files.createDirectories(json.toAbsolutePath().getParent());
        }
        Files.write(json, json(data.size(), results).getBytes(StandardCharsets.UTF_8));
        System.out.println("Wrote " + json);
        demo.dropTablesUnlessKept();
        return 0;
    }

    /** One query: warm-up, measured runs, the check that both ways return the same rows every time. */
    private Measured measure(DemoQuery q) throws IOException {
        RowKeyQuery query = demo.planned(q);
        Measured m = new Measured(q, query.toRanges().size(), rowsInRanges(q, query), options.runs);
        Demo.Outcome first = null;
        for (int run = -1; run < options.runs; run++) { // run -1: the warm-up, not recorded
            Demo.Outcome seed = demo.runSeedWay(q);
            Demo.Outcome planned = demo.runPlanned(q);
            String which = run < 0 ? "warm-up run" : "run " + (run + 1);
            if (!seed.rows.equals(planned.rows)) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "MISMATCH, %s, %s: the seed's full scan returned %,d rows, the planned scan %,d; "
                                + "only in the seed's: %s; only in the planned: %s",
                        q.name, which, seed.rows.size(), planned.rows.size(),
                        firstMissing(seed, planned), firstMissing(planned, seed)));
            }
            if (first == null) {
                first = seed;
            } else if (!first.rows.equals(seed.rows)) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "MISMATCH, %s, %s: %,d rows, other rows than the first run's %,d", q.name, which,
                        seed.rows.size(), first.rows.size()));
            }
            if (run >= 0) {
                m.seed.record(run, seed);
                m.planned.record(run, planned);
            }
        }
        m.rowsReturned = first.rows.size();
        return m;
    }

    private static String firstMissing(Demo.Outcome a, Demo.Outcome b) {
        for (String row : a.rows) {
            if (!b.rows.contains(row)) {
                return row;
            }
        }
        return "none";
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

    /** A query's figures. */
    private static final class Measured {
        final DemoQuery query;
        final int ranges;
        final long rowsInRanges;
        final Way seed;
        final Way planned;
        long rowsReturned;

        Measured(DemoQuery query, int ranges, long rowsInRanges, int runs) {
            this.query = query;
            this.ranges = ranges;
            this.rowsInRanges = rowsInRanges;
            this.seed = new Way(runs);
            this.planned = new Way(runs);
        }

        double speedup() {
            return seed.medianMillis() / planned.medianMillis();
        }

        long readBound() {
            return rowsReturned + ranges;
        }

        boolean speedupMet() {
            return speedup() >= TARGET_SPEEDUP;
        }

        boolean readMet() {
            return planned.medianRowsRead() <= readBound();
        }

        String line() {
            return String.format(Locale.ROOT, FORMAT, query.name, String.format(Locale.ROOT, "%,d", rowsReturned),
                    String.format(Locale.ROOT, "%,d", seed.medianRowsRead()), String.format(Locale.ROOT, "%.1f", seed.medianMillis()),
                    String.format(Locale.ROOT, "%,d", planned.medianRowsRead()), String.format(Locale.ROOT, "%.1f", planned.medianMillis()),
                    String.format(Locale.ROOT, "%,d", ranges), String.format(Locale.ROOT, "%.1fx", speedup()),
                    !query.onLeadingField() ? "-" : speedupMet() && readMet() ? "met"
                            : "NOT met (" + (speedupMet() ? "" : "speedup < " + (int) TARGET_SPEEDUP + "x") + (speedupMet() || readMet() ? "" : ", ")
                                    + (readMet() ? "" : "read > " + readBound()) + ")");
        }
    }

    private static final String FORMAT = "%-58s %9s | %11s %9s | %11s %9s %7s | %9s  %s";

    private static String header() {
        return String.format(Locale.ROOT, FORMAT, "query", "rows", "seed: read", "ms", "planned: read", "ms", "ranges",
                "speedup", "target") + "\n" + "-".repeat(150);
    }

    /** One way's measured runs. */
    private static final class Way {
        final double[] millis;
        final long[] rowsRead;
        final long[] rowsReturned;
        final long[] regions;

        Way(int runs) {
            millis = new double[runs];
            rowsRead = new long[runs];
            rowsReturned = new long[runs];
            regions = new long[runs];
        }

        void record(int run, Demo.Outcome o) {
            millis[run] = o.millis;
            rowsRead[run] = o.rowsRead;
            rowsReturned[run] = o.rows.size();
            regions[run] = o.regions;
        }

        double medianMillis() {
            return median(millis);
        }

        long medianRowsRead() {
            return Math.round(median(Arrays.stream(rowsRead).asDoubleStream().toArray()));
        }

        String json() {
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            return "{\"wall_ms\": " + Json.array(millis) + ", \"rows_read\": " + Json.array(rowsRead)
                    + ", \"rows_returned\": " + Json.array(rowsReturned) + ", \"regions\": " + Json.array(regions)
                    + ", \"median_ms\": " + Json.number(medianMillis()) + ", \"min_ms\": " + Json.number(sorted[0])
                    + ", \"max_ms\": " + Json.number(sorted[sorted.length - 1])
                    + ", \"median_rows_read\": " + medianRowsRead() + "}";
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
        b.append("  \"tables\": \"urlscan (plain) and urlscan_salted (16 salt buckets), 8 regions each\",\n");
        b.append("  \"warmup_runs\": 1,\n");
        b.append("  \"runs\": ").append(options.runs).append(",\n");
        b.append("  \"target\": {\"speedup\": ").append(Json.number(TARGET_SPEEDUP))
                .append(", \"read_bound\": \"planned rows read <= rows returned + ranges\"")
                .append(", \"applies_to\": ").append(Json.string("queries with an equality or IN-list on "
                        + DemoQuery.LEADING_FIELD + ", the key's leading field")).append("},\n");
        b.append("  \"queries\": [\n");
        for (int i = 0; i < results.size(); i++) {
            Measured m = results.get(i);
            boolean leading = m.query.onLeadingField();
            b.append("    {\"name\": ").append(Json.string(m.query.name))
                    .append(", \"table\": ").append(Json.string(m.query.salted ? "urlscan_salted" : "urlscan"))
                    .append(", \"leading_field\": ").append(leading)
                    .append(", \"same_rows\": true")
                    .append(", \"rows_returned\": ").append(m.rowsReturned)
                    .append(", \"ranges\": ").append(m.ranges)
                    .append(", \"rows_in_ranges\": ").append(m.rowsInRanges)
                    .append(",\n     \"seed\": ").append(m.seed.json())
                    .append(",\n     \"planned\": ").append(m.planned.json())
                    .append(",\n     \"speedup\": ").append(Json.number(m.speedup()))
                    .append(", \"read_bound\": ").append(m.readBound())
                    .append(", \"speedup_met\": ").append(leading ? String.valueOf(m.speedupMet()) : "null")
                    .append(", \"read_met\": ").append(leading ? String.valueOf(m.readMet()) : "null")
                    .append(", \"target_met\": ").append(leading ? String.valueOf(m.speedupMet() && m.readMet()) : "null")
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
