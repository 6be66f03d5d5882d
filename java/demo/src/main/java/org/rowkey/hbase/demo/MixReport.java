package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The load test's report: a progress line a minute, and at the end a markdown file (throughput and
 * latency per kind of operation, each RegionServer's figures, the chaos, the errors by kind, the
 * checks and any wrong answer) beside an SVG chart of throughput and p99 latency over time with the
 * chaos marked on it.
 */
final class MixReport {
    private static final Set<MixKind.Group> READS = EnumSet.of(MixKind.Group.READ);
    private static final Set<MixKind.Group> AGGREGATES = EnumSet.of(MixKind.Group.AGGREGATE);
    private static final Set<MixKind.Group> WRITES = EnumSet.of(MixKind.Group.WRITE);

    private final LoadMix.Options options;
    private final String loadSummary;
    private final MixStats stats;
    private final ServerMetrics metrics;
    private final MixOracle oracle;
    private final MixChaos chaos;
    private final MixBulkLoads bulk;
    private final DayLocks locks;
    private final long endMillis;
    /** The RegionServers' calls over 2 s during the mix, or null without their logs. */
    private final List<SlowCalls.Call> slowCalls;

    MixReport(LoadMix.Options options, String loadSummary, MixStats stats, ServerMetrics metrics, MixOracle oracle, MixChaos chaos,
            MixBulkLoads bulk, DayLocks locks, long endMillis, List<SlowCalls.Call> slowCalls) {
        this.options = options;
        this.loadSummary = loadSummary;
        this.stats = stats;
        this.metrics = metrics;
        this.oracle = oracle;
        this.chaos = chaos;
        this.bulk = bulk;
        this.locks = locks;
        this.endMillis = endMillis;
        this.slowCalls = slowCalls;
    }

    static Path chartPath(Path markdown) {
        String name = markdown.getFileName().toString().replaceFirst("\\.md$", "");
        return markdown.resolveSibling(name + ".svg");
    }

    /** The minute's line: throughput by group, p99 of each group, errors, checks, each RegionServer's heap, RSS and slowest call. */
    static String progressLine(MixStats stats, ServerMetrics metrics, MixOracle oracle, long from, long to) {
        double seconds = (to - from) / 1000.0;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "[%s] %,.1f ops/s (reads %.1f, aggregates %.1f, writes %.1f)",
                LoadMix.clock(to), count(stats, null, from, to) / seconds, count(stats, READS, from, to) / seconds,
                count(stats, AGGREGATES, from, to) / seconds, count(stats, WRITES, from, to) / seconds));
        b.append(String.format(Locale.ROOT, " | p99 ms: reads %s, aggregates %s, writes %s", MixStats.millis(p(stats, READS, from, to, 99)),
                MixStats.millis(p(stats, AGGREGATES, from, to, 99)), MixStats.millis(p(stats, WRITES, from, to, 99))));
        int wrong = oracle.wrongAnswers().size();
        int checked = 0;
        for (MixOracle.Tally t : oracle.tallies().values()) {
            checked += t.checked;
        }
        b.append(String.format(Locale.ROOT, " | errors %,d | checks %,d, wrong %d", stats.errorCount(), checked, wrong));
        if (metrics != null) {
            for (Map.Entry<String, ServerMetrics.Sample> e : metrics.latest().entrySet()) {
                ServerMetrics.Sample s = e.getValue();
                b.append(String.format(Locale.ROOT, " | %s heap %s RSS %s", e.getKey(), mb(s.get("heapUsed")), mb(s.get("VmRSS") * 1024)));
            }
            b.append(String.format(Locale.ROOT, " | slowest call %s ms", dash(metrics.max("ProcessCallTime_max", from, to))));
        }
        return b.toString();
    }

    void write(Path markdown) throws IOException {
        Files.createDirectories(markdown.toAbsolutePath().getParent());
        Path chart = chartPath(markdown);
        Files.write(chart, svg().getBytes(StandardCharsets.UTF_8));
        Files.write(markdown, markdown(chart.getFileName().toString()).getBytes(StandardCharsets.UTF_8));
    }

    private String markdown(String chartFile) {
        StringBuilder b = new StringBuilder();
        b.append("# Load test: the demo's table under a mixed load, against a real cluster\n\n");
        b.append("Command: `cargo make bench-load-mix ").append(options.command != null ? options.command : passedOptions())
                .append("` (").append(java.time.LocalDate.now()).append("); ").append(LoadMix.minutes(endMillis / 60_000.0))
                .append(" of mix, ").append(options.threads).append(" client threads; ")
                .append(options.clusterSaid != null ? options.clusterSaid + ", each its own process (hbase.sh), HBase " : "HBase client ")
                .append(org.apache.hadoop.hbase.util.VersionInfo.getVersion()).append(", Java ")
                .append(System.getProperty("java.specification.version")).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores.\n\n");
        b.append("Load: ").append(loadSummary).append(".\n\n");
        b.append(String.format(Locale.ROOT, "Client: hbase.rpc.timeout %,d ms (HBase ends a scan call at half of it, with a heartbeat"
                + " if no row is ready), operation timeout 90 s, HBase's retries; the oracle's scans on a connection of its own"
                + " with a 2 s RPC timeout.%n%n", options.rpcTimeoutMillis));

        b.append("## Throughput and latency\n\n");
        double seconds = endMillis / 1000.0;
        double threadSeconds = options.threads * seconds;
        b.append("| operation | ops | ops/s | p50 ms | p99 ms | max ms | errors | client time |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (MixKind k : MixKind.values()) {
            MixStats.Series s = stats.series(k);
            int[] lat = s.latencies(0, Long.MAX_VALUE);
            b.append(String.format(Locale.ROOT, "| %s | %,d | %.2f | %s | %s | %s | %,d | %s |%n", k.label, s.size(), s.size() / seconds,
                    MixStats.millis(MixStats.percentileMillis(lat, 50)), MixStats.millis(MixStats.percentileMillis(lat, 99)),
                    MixStats.millis(MixStats.percentileMillis(lat, 100)), s.errors(),
                    k.group == MixKind.Group.BULK ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * s.totalSeconds() / threadSeconds)));
        }
        for (String[] group : new String[][] {{"all reads", "READ"}, {"all aggregates", "AGGREGATE"}, {"all writes", "WRITE"}}) {
            Set<MixKind.Group> g = EnumSet.of(MixKind.Group.valueOf(group[1]));
            double busy = 0;
            for (MixKind k : MixKind.values()) {
                busy += g.contains(k.group) ? stats.series(k).totalSeconds() : 0;
            }
            b.append(String.format(Locale.ROOT, "| **%s** | %,d | %.2f | %s | %s | %s | %,d | %.0f%% |%n", group[0],
                    count(stats, g, 0, Long.MAX_VALUE), count(stats, g, 0, Long.MAX_VALUE) / seconds,
                    MixStats.millis(p(stats, g, 0, Long.MAX_VALUE, 50)), MixStats.millis(p(stats, g, 0, Long.MAX_VALUE, 99)),
                    MixStats.millis(p(stats, g, 0, Long.MAX_VALUE, 100)), errors(g), 100 * busy / threadSeconds));
        }
        long total = count(stats, null, 0, Long.MAX_VALUE);
        b.append(String.format(Locale.ROOT, "| **everything** | %,d | %.2f | | | | %,d | |%n%n", total, total / seconds, errors(null)));
        b.append("ms: from the call to the last row read (an aggregate: to its result), on the client, operations that"
                + " succeeded; a failed one counts in errors only. A write's wait for its day (while the checker holds it) is"
                + " not in its time. Client time: the share of the client threads' time the operations took, failed ones too."
                + " Bulk loads: ").append(bulk.summary()).append(".\n\n");
        b.append("![throughput and p99 latency over time](").append(chartFile).append(")\n\n");

        b.append("## RegionServers\n\n");
        if (metrics == null) {
            b.append("No figures: the run had no `--cluster` (hbase.sh) to find the processes.\n\n");
        } else {
            b.append("| | handler time per call, max (ms) | queue time, max (ms) | scan call (ms) | get (ms) | put, batch, delete,"
                    + " increment, append, checkAndMutate (ms) | bulk load (ms) | GC pause (ms) | heap used, max | heap used, end"
                    + " | RSS, max | RSS, end |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            Map<String, ServerMetrics.Sample> latest = metrics.latest();
            for (String server : latest.keySet()) {
                ServerMetrics.Sample end = latest.get(server);
                long mutate = -1;
                for (String m : new String[] {"Put_max", "PutBatch_max", "Delete_max", "DeleteBatch_max", "Increment_max", "Append_max",
                    "CheckAndMutate_max", "CheckAndPut_max"}) {
                    mutate = Math.max(mutate, metrics.maxByServer(m, 0, Long.MAX_VALUE).getOrDefault(server, -1L));
                }
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", server,
                        dash(max(server, "ProcessCallTime_max")), dash(max(server, "QueueCallTime_max")), dash(max(server, "ScanTime_max")),
                        dash(max(server, "Get_max")), dash(mutate), dash(max(server, "Bulkload_max")), dash(max(server, "PauseTimeWithGc_max")),
                        mb(max(server, "heapUsed")), mb(end.get("heapUsed")), mb(max(server, "VmHWM") * 1024), mb(end.get("VmRSS") * 1024)));
            }
            b.append("\nFrom each RegionServer's `/jmx` every 10 s (HBase's IPC bean: ProcessCallTime, the handler's time on one call;"
                    + " QueueCallTime, its wait for a handler; the Server bean: the other columns, per call) and `/proc/<pid>/status`"
                    + " (VmHWM, the peak resident set of the process now running; VmRSS). HBase's `_max` is the largest since its"
                    + " previous sample, so these are the largest of the run, but for the calls of a RegionServer killed before"
                    + " its next sample. A restarted RegionServer's figures start again from its new process.\n\n");
        }

        if (slowCalls != null) {
            b.append(String.format(Locale.ROOT, "### Calls a handler held over 2 s: %,d%n%n", slowCalls.size()));
            if (!slowCalls.isEmpty()) {
                b.append("| method on table | calls | longest (ms) |\n|---|---:|---:|\n");
                for (Map.Entry<String, long[]> e : SlowCalls.byMethodAndTable(slowCalls).entrySet()) {
                    b.append(String.format(Locale.ROOT, "| %s | %,d | %,d |%n", e.getKey(), e.getValue()[0], e.getValue()[1]));
                }
                List<SlowCalls.Call> slowest = new ArrayList<>(slowCalls);
                slowest.sort((x, y) -> Long.compare(y.millis, x.millis));
                b.append("\nThe slowest:\n\n");
                for (SlowCalls.Call c : slowest.subList(0, Math.min(5, slowest.size()))) {
                    b.append(String.format(Locale.ROOT, "- %s %s, %s, %,d ms: `%s`%n", c.server, c.at.toLocalTime(), c.method, c.millis,
                            c.param.replace("`", "'")));
                }
            }
            b.append("\nFrom HBase's own `(responseTooSlow)` lines in the RegionServers' logs (hbase.ipc.warn.response.time ="
                    + " 2000 in hbase.sh's pseudo-distributed mode), from the mix's start; a scan or aggregate call is one RPC of"
                    + " a query, not the query.\n\n");
        }

        b.append("## Chaos\n\n");
        List<MixChaos.Event> events = chaos.events();
        int[] counts = new int[4];
        for (MixChaos.Event e : events) {
            counts[e.action.equals("split") ? 0 : e.action.equals("move") ? 1 : e.action.equals("restart") ? 2 : 3]++;
        }
        b.append(String.format(Locale.ROOT, "%d splits, %d moves, %d RegionServer restarts (kill -9 and start), %d unplanned"
                + " deaths.%n%n", counts[0], counts[1], counts[2], chaos.unplannedDeaths()));
        if (!events.isEmpty()) {
            b.append("| at | what | detail | s |\n|---|---|---|---:|\n");
            for (MixChaos.Event e : events) {
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %.1f |%n", LoadMix.clock(e.atMillis), e.action,
                        e.detail.replace("|", "\\|"), e.seconds));
            }
            b.append('\n');
        }

        b.append("## Errors by kind\n\n");
        List<Map.Entry<String, MixStats.ErrorCount>> errorList = stats.errorsByCount();
        if (errorList.isEmpty()) {
            b.append("None.\n\n");
        } else {
            b.append("| where | error (numbers, servers and regions blanked) | count | first at |\n|---|---|---:|---|\n");
            for (Map.Entry<String, MixStats.ErrorCount> e : errorList) {
                String[] whereKind = e.getKey().split("\t", 2);
                b.append(String.format(Locale.ROOT, "| %s | %s | %,d | %s |%n", whereKind[0], whereKind[1].replace("|", "\\|"),
                        e.getValue().count.sum(), LoadMix.clock(e.getValue().firstMillis)));
            }
            b.append("\nOne full message of each:\n\n");
            for (Map.Entry<String, MixStats.ErrorCount> e : errorList) {
                b.append("- ").append(e.getKey().split("\t", 2)[0]).append(": `").append(e.getValue().example.replace("`", "'"))
                        .append("`\n");
            }
            b.append('\n');
        }

        b.append("## Answers checked against the data table\n\n");
        b.append("| question | checked | agreed | wrong | wrong once (right on re-ask) | skipped (days busy) | check errors | rows or"
                + " groups compared |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        int wrong = 0;
        for (Map.Entry<MixKind, MixOracle.Tally> e : oracle.tallies().entrySet()) {
            MixOracle.Tally t = e.getValue();
            wrong += t.wrong + t.wrongOnce;
            b.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,d | %,d | %,d |%n", e.getKey().label, t.checked, t.agreed,
                    t.wrong, t.wrongOnce, t.skippedBusy, t.errors, t.rowsCompared));
        }
        b.append(String.format(Locale.ROOT, "%n%s. Questions of a few days are checked while those days are quiet (writes"
                + " go on to the others); the whole table's %d time(s), every day quiet for %.0f s in all (writers waited %.0f s for a"
                + " day). The truth: a plain HBase scan of the data table (a key prefix, or the whole table with HBase's own"
                + " BinaryComponentComparator on the day's bytes), keys decoded on the client, conditions and aggregates in plain"
                + " Java; rows compared with every cell (family, qualifier, timestamp, value).%n%n", wrong == 0 ? "No wrong answer"
                : "**" + wrong + " wrong answer(s)**", oracle.wholeTableChecks(), oracle.quietSeconds(), locks.writerWaitSeconds()));
        for (MixOracle.WrongAnswer w : oracle.wrongAnswers()) {
            b.append(String.format(Locale.ROOT, "- %s %s `%s`: %s%s%n", LoadMix.clock(w.atMillis), w.kind.label, w.question,
                    w.detail.replace("|", "\\|"), w.rightOnReask ? " (right on re-ask)" : " (wrong again on re-ask)"));
        }

        b.append("\n## The mix\n\n| operation | share of the client threads' operations | what |\n|---|---:|---|\n");
        for (MixKind k : MixKind.values()) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", k.label,
                    k.group == MixKind.Group.BULK ? "every " + options.bulkEverySeconds + " s, its own thread"
                            : String.format(Locale.ROOT, "%.1f%%", 100 * MixWorkload.share(k)), k.description));
        }
        return b.toString();
    }

    /** The options as given after the task's name, cluster ones first as the task took them. */
    private String passedOptions() {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < options.args.size(); i++) {
            String a = options.args.get(i);
            // The task's own: a random ZooKeeper port, the script's path, what it says of itself.
            if (a.equals("--zookeeper") || a.equals("--cluster") || a.equals("--cluster-said") || a.equals("--command")) {
                i++;
                continue;
            }
            shown.add(a);
        }
        return String.join(" ", shown);
    }

    private long max(String server, String key) {
        return metrics.maxByServer(key, 0, Long.MAX_VALUE).getOrDefault(server, -1L);
    }

    private long errors(Set<MixKind.Group> groups) {
        long n = 0;
        for (MixKind k : MixKind.values()) {
            if (groups == null || groups.contains(k.group)) {
                n += stats.series(k).errors();
            }
        }
        return n;
    }

    /** Operations of the groups (null: all but bulk loads) started in [from, to). */
    private static long count(MixStats stats, Set<MixKind.Group> groups, long from, long to) {
        long n = 0;
        for (MixKind k : MixKind.values()) {
            if (groups == null ? k.group != MixKind.Group.BULK : groups.contains(k.group)) {
                n += stats.series(k).count(from, to);
            }
        }
        return n;
    }

    /** The p-th percentile in ms of the groups' successful operations started in [from, to). */
    private static double p(MixStats stats, Set<MixKind.Group> groups, long from, long to, double percentile) {
        List<int[]> parts = new ArrayList<>();
        int size = 0;
        for (MixKind k : MixKind.values()) {
            if (groups.contains(k.group)) {
                int[] l = stats.series(k).latencies(from, to);
                parts.add(l);
                size += l.length;
            }
        }
        int[] all = new int[size];
        int at = 0;
        for (int[] l : parts) {
            System.arraycopy(l, 0, all, at, l.length);
            at += l.length;
        }
        java.util.Arrays.sort(all);
        return MixStats.percentileMillis(all, percentile);
    }

    private static String mb(long bytes) {
        if (bytes < 0) {
            return "-";
        }
        return bytes >= 1L << 30 ? String.format(Locale.ROOT, "%.2f GB", bytes / (double) (1L << 30))
                : String.format(Locale.ROOT, "%,d MB", bytes >> 20);
    }

    private static String dash(long v) {
        return v < 0 ? "-" : String.format(Locale.ROOT, "%,d", v);
    }

    // ---- the chart ----

    private static final int WIDTH = 900;
    private static final int PANEL = 220;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 30;
    private static final int GAP = 60;
    /** Restart, split, move, bulk load, unplanned death: apart from the lines' colours. */
    private static final String[] MARKER_COLORS = {"#d62728", "#9467bd", "#999999", "#17becf", "#000000"};
    private static final String[] MARKER_DASHES = {"none", "none", "2,3", "6,3", "none"};

    /** Two panels over time: ops/s (all, reads, aggregates, writes) and p99 ms (log scale), chaos events as vertical lines. */
    private String svg() {
        long bucket = Math.max(10_000, (endMillis / 60 + 9_999) / 10_000 * 10_000);
        int n = (int) Math.max(1, (endMillis + bucket - 1) / bucket);
        String[] names = {"all", "reads", "aggregates", "writes"};
        String[] colors = {"#222222", "#1f77b4", "#ff7f0e", "#2ca02c"};
        List<Set<MixKind.Group>> groups = List.of(EnumSet.of(MixKind.Group.READ, MixKind.Group.AGGREGATE, MixKind.Group.WRITE), READS,
                AGGREGATES, WRITES);
        double[][] rate = new double[4][n];
        double[][] p99 = new double[4][n];
        double maxRate = 1;
        double maxP99 = 10;
        for (int g = 0; g < 4; g++) {
            for (int i = 0; i < n; i++) {
                long from = i * bucket;
                long to = Math.min(endMillis, from + bucket);
                rate[g][i] = count(stats, groups.get(g), from, to) / Math.max(1.0, (to - from) / 1000.0);
                p99[g][i] = p(stats, groups.get(g), from, to, 99);
                maxRate = Math.max(maxRate, rate[g][i]);
                if (!Double.isNaN(p99[g][i])) {
                    maxP99 = Math.max(maxP99, p99[g][i]);
                }
            }
        }
        int height = TOP + 2 * PANEL + GAP + 50;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", WIDTH, height));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Throughput (ops/s) and p99 latency (ms, log"
                + " scale) of the operations started in each %d s</text>%n", LEFT, bucket / 1000));
        int top2 = TOP + PANEL + GAP;
        double niceRate = niceCeiling(maxRate);
        double logMax = Math.ceil(Math.log10(maxP99));
        axes(b, TOP, "ops/s", niceRate, false);
        axes(b, top2, "p99 ms", logMax, true);
        markers(b, TOP, top2);
        for (int g = 0; g < 4; g++) {
            StringBuilder line = new StringBuilder();
            StringBuilder line2 = new StringBuilder();
            for (int i = 0; i < n; i++) {
                double x = x(i * bucket + bucket / 2.0);
                line.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, TOP + PANEL - rate[g][i] / niceRate * PANEL));
                if (!Double.isNaN(p99[g][i]) && g > 0) {
                    double y = top2 + PANEL - Math.max(0, Math.log10(Math.max(1, p99[g][i]))) / logMax * PANEL;
                    line2.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                }
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n", colors[g], line));
            if (line2.length() > 0) {
                b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n", colors[g],
                        line2));
            }
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>%n", LEFT + g * 90, height - 12,
                    colors[g], names[g]));
        }
        String[] markerNames = {"restart", "split", "move", "bulk load", "unplanned death"};
        for (int m = 0; m < markerNames.length; m++) {
            int x = LEFT + 330 + m * 90;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
                    + " stroke-dasharray=\"%s\"/>%n", x, x, height - 24, height - 8, MARKER_COLORS[m], MARKER_DASHES[m]));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 5, height - 12, markerNames[m]));
        }
        return b.append("</svg>\n").toString();
    }

    private double x(double millis) {
        return LEFT + millis / Math.max(1, endMillis) * (WIDTH - LEFT - RIGHT);
    }

    private void axes(StringBuilder b, int top, String label, double max, boolean log) {
        int plotWidth = WIDTH - LEFT - RIGHT;
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n", LEFT, top,
                plotWidth, PANEL));
        int ticks = log ? (int) max : 5;
        for (int t = 0; t <= ticks; t++) {
            double y = top + PANEL - (double) t / ticks * PANEL;
            String text = log ? String.format(Locale.ROOT, "%,.0f", Math.pow(10, t)) : String.format(Locale.ROOT, "%,.0f", max * t / ticks);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>%n", LEFT, LEFT + plotWidth,
                    y, y));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 5, y + 4, text));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>%n",
                top + PANEL / 2, top + PANEL / 2, label));
        long minutes = Math.max(1, endMillis / 60_000);
        long step = minutes <= 10 ? 1 : minutes <= 30 ? 5 : 10;
        for (long m = 0; m * 60_000 <= endMillis; m += step) {
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d min</text>%n", x(m * 60_000), top + PANEL + 15,
                    m));
        }
    }

    private void markers(StringBuilder b, int top1, int top2) {
        List<long[]> marks = new ArrayList<>();
        for (MixChaos.Event e : chaos.events()) {
            int kind = e.action.equals("restart") ? 0 : e.action.equals("split") ? 1 : e.action.equals("move") ? 2 : 4;
            marks.add(new long[] {e.atMillis, kind});
        }
        for (long start : stats.series(MixKind.BULK_LOAD).starts()) {
            marks.add(new long[] {start, 3});
        }
        for (long[] m : marks) {
            double x = x(m[0]);
            for (int top : new int[] {top1, top2}) {
                b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\""
                        + " stroke-dasharray=\"%s\"/>%n", x, x, top, top + PANEL, MARKER_COLORS[(int) m[1]],
                        m[1] == 0 || m[1] == 4 ? "2" : "1", MARKER_DASHES[(int) m[1]]));
            }
        }
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten at or above {@code v}: five ticks of round numbers. */
    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * magnitude >= v) {
                return m * magnitude;
            }
        }
        return 10 * magnitude;
    }
}
