package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.util.ToolRunner;
import org.rowkey.hbase.BulkLoad;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * {@code cargo make bench-load-mix}: the load test against a real cluster (java/cluster/hbase.sh,
 * pseudo-distributed: a process per RegionServer). The demo's table and indexes at 1,000,000 rows,
 * loaded once; then for a set time client threads mixing point queries, seed 2, index reads
 * covered and not, aggregates (selective, whole-table, many groups) and writes of every kind,
 * beside small bulk loads ({@link MixBulkLoads}), a chaos thread that splits and moves regions and
 * restarts RegionServers ({@link MixChaos}), a checker comparing sampled answers with the data
 * table ({@link MixOracle}) and a monitor sampling each RegionServer's metrics ({@link ServerMetrics}).
 * A line of progress a minute; at the end target/bench/load-mix.md and load-mix.svg ({@link MixReport}).
 * No figure is asserted: the exit code is 1 only for a wrong answer or a server that died unasked.
 */
public final class LoadMix {
    /** The command line. */
    static final class Options {
        String zookeeper;
        String clusterScript;
        double minutes = 30;
        int threads = 8;
        int rows = 1_000_000;
        long seed = 42;
        int regions = 2;
        String load = "bulk";
        int bulkEverySeconds = 120;
        int bulkRows = 2_000;
        int splitEverySeconds = 60;
        int moveEverySeconds = 45;
        int restartEverySeconds = 150;
        int checkEverySeconds = 5;
        int wholeTableCheckEverySeconds = 300;
        int rpcTimeoutMillis = 10_000;
        String out = "target/bench/load-mix.md";
        /** The task's: its cluster ("2 RegionServers of 1g heap") and its options as typed, for the report. */
        String clusterSaid;
        String command;
        boolean keep;
        final List<String> args = new ArrayList<>();

        static final String USAGE = "usage: LoadMix --zookeeper HOST:PORT [--cluster PATH/hbase.sh] [--minutes M] [--threads N]"
                + " [--rows R] [--seed S] [--regions N] [--load bulk|mutator] [--bulk-every SECONDS] [--bulk-rows N]"
                + " [--split-every SECONDS] [--move-every SECONDS] [--restart-every SECONDS] [--check-every SECONDS]"
                + " [--whole-check-every SECONDS] [--rpc-timeout MS] [--out FILE.md] [--keep]  (0 seconds: never)";

        static Options parse(String[] argv) {
            Options o = new Options();
            List<String> list = new ArrayList<>(Arrays.asList(argv));
            list.removeIf(String::isEmpty);
            o.args.addAll(list);
            for (int i = 0; i < list.size(); i++) {
                String a = list.get(i);
                if (a.equals("--keep")) {
                    o.keep = true;
                    continue;
                }
                if (i + 1 == list.size()) {
                    throw new IllegalArgumentException(a + " needs a value; " + USAGE);
                }
                String v = list.get(++i);
                switch (a) {
                    case "--zookeeper": o.zookeeper = v; break;
                    case "--cluster": o.clusterScript = v; break;
                    case "--minutes": o.minutes = Double.parseDouble(v); break;
                    case "--threads": o.threads = Integer.parseInt(v); break;
                    case "--rows": o.rows = Integer.parseInt(v.replace("_", "").replace(",", "")); break;
                    case "--seed": o.seed = Long.parseLong(v); break;
                    case "--regions": o.regions = Integer.parseInt(v); break;
                    case "--load": o.load = v; break;
                    case "--bulk-every": o.bulkEverySeconds = Integer.parseInt(v); break;
                    case "--bulk-rows": o.bulkRows = Integer.parseInt(v); break;
                    case "--split-every": o.splitEverySeconds = Integer.parseInt(v); break;
                    case "--move-every": o.moveEverySeconds = Integer.parseInt(v); break;
                    case "--restart-every": o.restartEverySeconds = Integer.parseInt(v); break;
                    case "--check-every": o.checkEverySeconds = Integer.parseInt(v); break;
                    case "--whole-check-every": o.wholeTableCheckEverySeconds = Integer.parseInt(v); break;
                    case "--rpc-timeout": o.rpcTimeoutMillis = Integer.parseInt(v); break;
                    case "--out": o.out = v; break;
                    case "--cluster-said": o.clusterSaid = v; break;
                    case "--command": o.command = v; break;
                    default: throw new IllegalArgumentException("unknown option " + a + "; " + USAGE);
                }
            }
            if (o.zookeeper == null) {
                throw new IllegalArgumentException("--zookeeper is required (the task passes its cluster's); " + USAGE);
            }
            if (!o.load.equals("bulk") && !o.load.equals("mutator")) {
                throw new IllegalArgumentException("--load is bulk or mutator, not " + o.load);
            }
            if (o.rows < 10 * DataSet.DAYS || o.threads < 1 || o.minutes <= 0 || o.regions < 1 || o.regions > 128
                    || o.bulkRows < 2 || o.checkEverySeconds < 1 || o.rpcTimeoutMillis < 1000) {
                throw new IllegalArgumentException("--rows at least " + 10 * DataSet.DAYS + ", --threads and --regions (at most 128)"
                        + " at least 1, --minutes above 0, --bulk-rows at least 2, --check-every at least 1, --rpc-timeout at least 1000");
            }
            return o;
        }
    }

    static final TableName TABLE = Demo.PLAIN_TABLE;

    public static void main(String[] argv) {
        int exit;
        try {
            exit = new LoadMix(Options.parse(argv)).run();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            exit = 2;
        } catch (Exception e) {
            System.err.println("bench-load-mix FAILED: " + e);
            e.printStackTrace();
            exit = 1;
        }
        System.exit(exit);
    }

    private final Options options;
    private final RowKeySchema schema = Demo.seedSchema().build();

    private LoadMix(Options options) {
        this.options = options;
    }

    /**
     * Standard error joins the client's log file (-Dloadmix.log, where log4j writes): the bulk
     * loader's step lines and the HBase client's stack traces of scans it retries (its prefetching
     * scanner prints them) would bury the progress lines; this class prints what matters to standard output.
     */
    private static void quietStandardError() throws IOException {
        String log = System.getProperty("loadmix.log");
        if (log != null) {
            System.setErr(new java.io.PrintStream(new java.io.FileOutputStream(log, true), true, "UTF-8"));
        }
    }

    /** mm:ss since the run began. */
    static String clock(long millis) {
        long s = millis / 1000;
        return String.format(Locale.ROOT, "%02d:%02d", s / 60, s % 60);
    }

    private int run() throws Exception {
        quietStandardError();
        Configuration conf = HBaseConfiguration.create();
        String[] hostPort = options.zookeeper.split(":");
        conf.set(HConstants.ZOOKEEPER_QUORUM, hostPort[0]);
        if (hostPort.length > 1) {
            conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, hostPort[1]);
        }
        // An operation may wait out a RegionServer's restart (its regions reassigned in ~10-30 s here),
        // not HBase's default 20 minutes: a call stuck longer counts as an error.
        conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 90_000);
        // HBase ends a scan call at half the client's RPC timeout (a heartbeat when no row is ready):
        // 5 s at 10 s, where its default 60 s would let any filtered scan hold a handler 30 s.
        conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, options.rpcTimeoutMillis);
        // The oracle's own full scans, kept to ~1 s a call, so that the RegionServers' slowest calls are the product's.
        Configuration oracleConf = new Configuration(conf);
        oracleConf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, 2_000);
        try (Connection connection = ConnectionFactory.createConnection(conf);
                Connection oracleConnection = ConnectionFactory.createConnection(oracleConf)) {
            DataSet data = new DataSet(options.rows, options.seed);
            String loadSummary = prepareTable(connection, data);
            return runMix(connection, oracleConnection, data, loadSummary);
        }
    }

    /** Creates the demo's table and indexes and loads the rows (or reuses them with --keep); returns what it did and how long it took. */
    private String prepareTable(Connection connection, DataSet data) throws Exception {
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(TABLE)) {
                if (options.keep) {
                    return "reused the table " + TABLE + " (--keep)";
                }
                new Demo(connection, new Demo.Options(), true).dropTable(TABLE);
            }
            RowKeyTable.create(admin, TABLE, schema, Demo.plainIndexes(), splits(options.regions), Demo.FAMILY);
        }
        System.out.printf(Locale.ROOT, "Loading %,d rows into %s (%d regions, the demo's 3 indexes) with %s...%n", data.size(), TABLE,
                options.regions, options.load.equals("bulk") ? "the bulk loader" : "a BufferedMutator");
        long start = System.nanoTime();
        if (options.load.equals("bulk")) {
            Path dir = Files.createTempDirectory("load-mix-input");
            try {
                List<String> inputs = LoadBench.writeExport(data, dir);
                List<String> args = new ArrayList<>(List.of("--table", TABLE.getNameAsString(), "--column", "f:url=url", "--work",
                        dir.resolve("work").toUri().toString(), "--quiet"));
                for (String input : inputs) {
                    args.add("--input");
                    args.add(input);
                }
                int exit = ToolRunner.run(bulkLoadConf(connection), new BulkLoad(), args.toArray(new String[0]));
                if (exit != 0) {
                    throw new IllegalStateException("the initial bulk load exited with " + exit);
                }
            } finally {
                try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } else {
            new Demo(connection, new Demo.Options(), true).write(TABLE, schema, data);
        }
        double seconds = Demo.seconds(start);
        String summary = String.format(Locale.ROOT, "%,d rows loaded with %s in %.1f s (%,.0f rows/s), data table pre-split into %d"
                + " regions", data.size(), options.load.equals("bulk") ? "the bulk loader (BulkLoad, LocalJobRunner in the driver's JVM)"
                : "a BufferedMutator (the index coprocessor writing the index rows) and a flush", seconds, data.size() / seconds,
                options.regions);
        System.out.println(summary);
        return summary;
    }

    /**
     * The bulk loader's configuration: the client's, with HBase's default RPC timeout again (a
     * RegionServer moving a large HFile into a region is no call of the latency the mix measures).
     */
    static Configuration bulkLoadConf(Connection connection) {
        Configuration conf = new Configuration(connection.getConfiguration());
        conf.setInt(HConstants.HBASE_RPC_TIMEOUT_KEY, HConstants.DEFAULT_HBASE_RPC_TIMEOUT);
        return conf;
    }

    /** {@code n} regions, split evenly on the key's first byte (the md5 of the URL). */
    static byte[][] splits(int n) {
        byte[][] splits = new byte[n - 1][];
        for (int i = 1; i < n; i++) {
            splits[i - 1] = new byte[] {(byte) (i * 256 / n)};
        }
        return splits;
    }

    private int runMix(Connection connection, Connection oracleConnection, DataSet data, String loadSummary) throws Exception {
        RowKeyTable table = RowKeyTable.open(connection, TABLE);
        MixQuestions questions = new MixQuestions(schema, data);
        DayLocks locks = new DayLocks();
        MixStats stats = new MixStats();
        AtomicBoolean stop = new AtomicBoolean();
        // New rows take URL numbers after the loaded ones.
        AtomicLong nextNewUrl = new AtomicLong(questions.urls);
        ClusterProcesses cluster = options.clusterScript == null ? null : new ClusterProcesses(options.clusterScript);
        Path logs = options.clusterScript == null ? null : Paths.get(options.clusterScript).toAbsolutePath().getParent()
                .resolve("target/hbase/logs");
        ServerMetrics metrics = cluster == null ? null : new ServerMetrics(cluster, stats);
        MixChaos chaos = new MixChaos(connection, TABLE, cluster, logs, stats, stop, options.splitEverySeconds * 1000L,
                options.moveEverySeconds * 1000L, options.restartEverySeconds * 1000L, options.seed + 1);
        MixOracle oracle = new MixOracle(oracleConnection, TABLE, table, questions, locks, stats, stop, options.checkEverySeconds * 1000L,
                options.wholeTableCheckEverySeconds * 1000L, options.seed + 2);
        Path work = Paths.get(options.out).toAbsolutePath().resolveSibling("load-mix-work");
        deleteTree(work);
        MixBulkLoads bulk = new MixBulkLoads(connection, TABLE, questions, locks, stats, stop, nextNewUrl,
                options.bulkEverySeconds * 1000L, options.bulkRows, work, options.seed + 3);

        long durationMillis = (long) (options.minutes * 60_000);
        System.out.printf(Locale.ROOT, "Running the mix for %s: %d client threads, bulk loads every %d s, a split every %d s, a move"
                + " every %d s, a RegionServer restart every %d s%s, a check every %d s and of the whole table every %d s%n",
                minutes(options.minutes), options.threads, options.bulkEverySeconds, options.splitEverySeconds,
                options.moveEverySeconds, options.restartEverySeconds, cluster == null ? " (none: no --cluster)" : "",
                options.checkEverySeconds, options.wholeTableCheckEverySeconds);
        // The servers' logs say when in their clock's seconds: the slow calls from here on are the mix's.
        java.time.LocalDateTime mixStarted = java.time.LocalDateTime.now().withNano(0);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < options.threads; i++) {
            threads.add(start("client-" + i, new MixWorkload(connection, TABLE, table, questions, locks, stats, stop, nextNewUrl,
                    options.seed * 1_000 + i)));
        }
        Thread checker = start("checker", oracle);
        Thread loader = options.bulkEverySeconds > 0 ? start("bulk-loads", bulk) : null;
        Thread chaosThread = start("chaos", chaos);

        long nextProgress = 60_000;
        long nextSample = 0;
        while (stats.nowMillis() < durationMillis) {
            Thread.sleep(500);
            if (cluster != null && stats.nowMillis() >= nextSample) {
                nextSample = stats.nowMillis() + 10_000;
                monitor(chaos, metrics, stats);
            }
            if (stats.nowMillis() >= nextProgress) {
                System.out.println(MixReport.progressLine(stats, metrics, oracle, nextProgress - 60_000, nextProgress));
                nextProgress += 60_000;
            }
        }
        long end = stats.nowMillis();
        stop.set(true);
        System.out.println("Time is up: waiting for the operations in flight...");
        for (Thread t : threads) {
            t.join(150_000);
        }
        checker.join(150_000);
        chaosThread.join(600_000);
        if (loader != null) {
            loader.join(600_000);
        }
        if (cluster != null) {
            monitor(chaos, metrics, stats);
        }
        List<SlowCalls.Call> slowCalls = logs == null ? null : SlowCalls.read(logs, mixStarted);
        MixReport report = new MixReport(options, loadSummary, stats, metrics, oracle, chaos, bulk, locks, end, slowCalls);
        Path out = Paths.get(options.out);
        report.write(out);
        System.out.println();
        System.out.println(Files.readString(out));
        System.out.println("Wrote " + out.toAbsolutePath() + " and " + MixReport.chartPath(out).toAbsolutePath());
        deleteTree(work);
        return oracle.wrongAnswers().isEmpty() && chaos.unplannedDeaths() == 0 ? 0 : 1;
    }

    /** The monitor's turn: deaths noticed (and RegionServers started again), then every RegionServer sampled. */
    private static void monitor(MixChaos chaos, ServerMetrics metrics, MixStats stats) {
        try {
            List<ClusterProcesses.Process> processes = chaos.watch();
            List<ClusterProcesses.Process> regionServers = new ArrayList<>();
            for (ClusterProcesses.Process p : processes) {
                if (p.isRegionServer()) {
                    regionServers.add(p);
                }
            }
            metrics.sampleAll(regionServers);
        } catch (IOException e) {
            stats.countError("monitor", e);
        }
    }

    static String minutes(double minutes) {
        return minutes == Math.rint(minutes) ? String.format(Locale.ROOT, "%.0f min", minutes)
                : String.format(Locale.ROOT, "%.1f min", minutes);
    }

    private static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
