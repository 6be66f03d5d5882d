package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.testing.TestingHBaseCluster;
import org.apache.hadoop.hbase.testing.TestingHBaseClusterOption;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.EqualComparator;
import org.rowkey.hbase.RangeComparator;
import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * The main job: loads seed 000's URL-scan table into HBase, with secondary indexes, and runs the
 * seed's queries three ways: the seed's way (a full scan with one RowFilter per condition),
 * planned on the data table alone ({@link RowKeyQuery#toScan()}), and through
 * {@link RowKeyTable#scan}, which reads an index where that reads fewer rows; checks all return
 * the same rows and prints what each read.
 *
 * <pre>
 *   --rows N               rows to generate (default 1,000,000)
 *   --seed S               data generator seed (default 42)
 *   --zookeeper host:port  use an existing cluster instead of the embedded one
 *   --keep                 keep (and reuse) the tables on an existing cluster
 *   --no-explain           do not print each planned scan's explain()
 * </pre>
 */
public final class Demo {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] URL = Bytes.toBytes("url");
    static final TableName PLAIN_TABLE = TableName.valueOf("urlscan");
    static final TableName SALTED_TABLE = TableName.valueOf("urlscan_salted");

    /**
     * The plain table's indexes: one for each demo query that does not fix md5url (the first
     * covers family f whole, the table's only one, as Phoenix's covered index does: it answers a
     * query of every column alone), and one that no demo query reads, since a table's writes pay
     * for every index it has.
     */
    static List<RowKeyIndex> plainIndexes() {
        return List.of(RowKeyIndex.of("by_date_code", "sdate", "code").include("f"),
                RowKeyIndex.of("by_type_queue_free", "type", "queue", "free"),
                RowKeyIndex.of("by_site_date", "sitecode", "sdate"));
    }

    /**
     * The salted table's index: salted too, since an index leading with a date is a write hot spot
     * (seed 001), and covering family f whole.
     */
    static List<RowKeyIndex> saltedIndexes() {
        return List.of(RowKeyIndex.of("by_date_code", "sdate", "code").salt(16).include("f"));
    }

    /** Seed 000's key: every queried column, fixed width, 37 bytes. */
    static RowKeySchema.Builder seedSchema() {
        return RowKeySchema.builder()
                .md5("md5url", 8).javaHash("sitecode").int32("status").int32("code").int32("sdate")
                .int32("type").bool("free").bool("close").int32("queue").int32("scantype");
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args, false);
        System.exit(withCluster(options, connection -> new Demo(connection, options, true).run()));
    }

    /** What runs against the cluster; returns the process's exit code. */
    interface Job {
        int run(Connection connection) throws Exception;
    }

    /**
     * A benchmark's main: {@code job} {@link #withCluster with a cluster}, a failure reported loudly
     * as {@code what} FAILED, then the JVM's exit without waiting for the minicluster's leftover threads.
     */
    static void benchmarkMain(String what, Options options, Job job) {
        int exit;
        try {
            exit = withCluster(options, job);
        } catch (Exception e) {
            System.err.println();
            System.err.println(what + " FAILED: " + e.getMessage());
            e.printStackTrace();
            exit = 1;
        }
        System.exit(exit);
    }

    /**
     * Runs {@code job} on an embedded, in-process HBase (started here and stopped after), or on
     * the existing cluster of {@code --zookeeper}; prints the total time. Returns the job's exit code.
     */
    static int withCluster(Options options, Job job) throws Exception {
        return withCluster(options, HBaseConfiguration.create(), job);
    }

    /**
     * The same, the embedded cluster started with {@code base}'s settings (the peer benchmark's
     * Phoenix server side); ignored on an existing cluster, which has its own.
     */
    static int withCluster(Options options, Configuration base, Job job) throws Exception {
        TestingHBaseCluster embedded = null;
        Configuration conf;
        long started = System.nanoTime();
        if (options.zookeeper == null) {
            System.out.println("Starting an embedded HBase (in-process minicluster)...");
            base.setInt("hbase.master.info.port", -1);
            base.setInt("hbase.regionserver.info.port", -1);
            embedded = TestingHBaseCluster.create(TestingHBaseClusterOption.builder().conf(base)
                    .numMasters(1).numRegionServers(1).numDataNodes(1).build());
            embedded.start();
            conf = embedded.getConf();
            System.out.printf(Locale.ROOT, "  HBase %s up in %.1f s%n",
                    org.apache.hadoop.hbase.util.VersionInfo.getVersion(), seconds(started));
        } else {
            conf = HBaseConfiguration.create();
            String[] hostPort = options.zookeeper.split(":");
            conf.set(HConstants.ZOOKEEPER_QUORUM, hostPort[0]);
            if (hostPort.length > 1) {
                conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, hostPort[1]);
            }
        }
        int exit;
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            exit = job.run(connection);
        } finally {
            if (embedded != null) {
                embedded.stop();
            }
        }
        System.out.printf(Locale.ROOT, "Total %.1f s%n", seconds(started));
        return exit;
    }

    private final Connection connection;
    private final Options options;
    private final RowKeySchema plain;
    private final RowKeySchema salted;
    /** Whether the tables are created with their indexes ({@link #plainIndexes()}, {@link #saltedIndexes()}). */
    private final boolean indexed;
    /** Each table's load time (writes and flush) in seconds, as {@link #load()} measured it. */
    final Map<TableName, Double> loadSeconds = new LinkedHashMap<>();
    private final Map<TableName, RowKeyTable> tables = new LinkedHashMap<>();

    Demo(Connection connection, Options options, boolean indexed) {
        this.connection = connection;
        this.options = options;
        this.indexed = indexed;
        this.plain = seedSchema().build();
        this.salted = seedSchema().salt(16, "md5url").build();
    }

    int run() throws IOException {
        DataSet data = load();
        System.out.println();
        System.out.println(Report.header());
        boolean allMatch = true;
        StringBuilder plans = new StringBuilder();
        for (DemoQuery q : DemoQuery.all(data)) {
            // A warm-up of every way (JIT, region locations, block cache), so no way pays for
            // being first; then each is timed once.
            runSeedWay(q);
            runPlanned(q);
            runTable(q, false);
            Outcome seed = runSeedWay(q);
            Outcome planned = runPlanned(q);
            Outcome table = runTable(q, false);
            boolean same = seed.rows.equals(planned.rows) && seed.rows.equals(table.rows);
            allMatch &= same;
            System.out.println(Report.row(q.name, seed, planned, table, same));
            plans.append(q.name).append('\n').append(indent(explain(q))).append('\n');
        }
        System.out.println();
        System.out.println("rows: rows returned; read: rows the RegionServers read (HBase scan metrics; through an index:"
                + " index rows + data rows read by Gets); ms: wall time of one run, after one untimed warm-up run of"
                + " every way; speedup: seed's ms / table.scan's ms.");
        if (options.explain) {
            System.out.println();
            System.out.println("How RowKeyTable.scan reads each query (RowKeyTable.explain(): the plan chosen, then every alternative):");
            System.out.print(plans);
        }
        System.out.println();
        System.out.println(allMatch ? "All queries: the planned scan and RowKeyTable.scan returned exactly the seed's rows."
                : "MISMATCH: some planned scan returned other rows than the seed's full scan.");
        boolean statisticsMatch = statistics();
        dropTablesUnlessKept();
        return allMatch && statisticsMatch ? 0 : 1;
    }

    /**
     * Seed 000's data as statistics, each computed inside the regions ({@link RowKeyTable#aggregate})
     * beside the rows-to-the-client way (the same planned read, keys only, every key decoded and
     * counted on the client), checked equal. Returns whether every one matched.
     */
    private boolean statistics() throws IOException {
        RowKeyTable table = table(PLAIN_TABLE);
        RowKeyQuery december = RowKeyQuery.on(plain).eq("status", -1).between("sdate", 20161201, 20161231);
        RowKeyQuery seed2 = RowKeyQuery.on(plain).eq("sdate", 20161209).eq("code", 404);
        RowKeyQuery notFound = RowKeyQuery.on(plain).eq("code", 404);
        System.out.println();
        System.out.println("Statistics inside the regions (RowKeyTable.aggregate) beside the rows-to-the-client way"
                + " (the same plan, keys only, counted on the client); one run each after a warm-up:");
        boolean same = statistic(table, "failed scans per day in December 2016, by code", december,
                Aggregation.on(plain).groupBy("sdate").groupBy("code").count(), new String[] {"sdate", "code"}, -1);
        same &= statistic(table, "count of sdate = 20161209 AND code = 404", seed2, Aggregation.on(plain).count(),
                new String[0], -1);
        same &= statistic(table, "the top 10 sites (sitecode: its stored hash) by 404s", notFound,
                Aggregation.on(plain).groupBy("sitecode").count().orderByDescending(0).limit(10), new String[] {"sitecode"}, 10);
        System.out.println(same ? "All statistics: the regions' answers equal the client's counts."
                : "MISMATCH: some statistic differs from the client's count.");
        return same;
    }

    /**
     * One statistic both ways: {@code aggregation} (a count, grouped by {@code groups}, the top
     * {@code top} groups when positive) inside the regions, and the keys of {@code query} counted
     * on the client.
     */
    private boolean statistic(RowKeyTable table, String name, RowKeyQuery query, Aggregation aggregation, String[] groups,
            int top) throws IOException {
        table.aggregate(query, aggregation);
        long start = System.nanoTime();
        AggregationResult inRegions = table.aggregate(query, aggregation);
        double regionsMs = millisSince(start);
        countOnClient(table, query, groups);
        start = System.nanoTime();
        long[] shipped = new long[1];
        Map<String, Long> onClient = countOnClient(table, query, groups, shipped);
        double clientMs = millisSince(start);
        Map<String, Long> fromRegions = new java.util.LinkedHashMap<>();
        for (AggregationResult.Row r : inRegions.rows()) {
            fromRegions.put(groupKey(r.groups(), groups), r.longValue(0));
        }
        boolean same;
        if (top > 0) {
            // Ties may pick other groups of the same count: the counts must be the client's top
            // counts, and each group's count the client's.
            List<Long> counts = new ArrayList<>(onClient.values());
            counts.sort(java.util.Comparator.reverseOrder());
            List<Long> got = new ArrayList<>(fromRegions.values());
            same = got.equals(counts.subList(0, Math.min(top, counts.size())));
            for (Map.Entry<String, Long> e : fromRegions.entrySet()) {
                same &= e.getValue().equals(onClient.get(e.getKey()));
            }
        } else {
            same = fromRegions.equals(onClient);
        }
        System.out.printf(Locale.ROOT, "  %s: %,d group(s); in the regions %.1f ms (%,d rows read there, %,d bytes to the"
                + " client); rows to the client %.1f ms (%,d keys shipped); %.1fx; %s%n", name, fromRegions.size(),
                regionsMs, inRegions.rowsReadOnServers(), inRegions.bytesToClient(), clientMs, shipped[0],
                clientMs / Math.max(regionsMs, 0.01), same ? "same counts" : "MISMATCH");
        int shown = 0;
        for (Map.Entry<String, Long> e : fromRegions.entrySet()) {
            if (shown++ == 5) {
                System.out.printf(Locale.ROOT, "      ... %,d more%n", fromRegions.size() - 5);
                break;
            }
            System.out.printf(Locale.ROOT, "      %s%s%n", e.getKey().isEmpty() ? "" : e.getKey() + ": ", Report.count(e.getValue()));
        }
        return same;
    }

    Map<String, Long> countOnClient(RowKeyTable table, RowKeyQuery query, String[] groups) throws IOException {
        return countOnClient(table, query, groups, new long[1]);
    }

    /** The keys of {@code query} read to the client and counted there by their {@code groups} fields. */
    Map<String, Long> countOnClient(RowKeyTable table, RowKeyQuery query, String[] groups, long[] shipped)
            throws IOException {
        Map<String, Long> counts = new java.util.TreeMap<>();
        try (ResultScanner scanner = table.scan(query.keysOnly())) {
            for (Result r : scanner) {
                shipped[0]++;
                counts.merge(groupKey(plain.decode(r.getRow()), groups), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** A group's fields as text ({@code sdate=20161209 code=404}; bytes in hex), the same from either way. */
    static String groupKey(Map<String, Object> values, String[] groups) {
        StringBuilder key = new StringBuilder();
        for (String g : groups) {
            Object v = values.get(g);
            key.append(key.length() == 0 ? "" : " ").append(g).append('=')
                    .append(v instanceof byte[] ? Bytes.toHex((byte[]) v) : String.valueOf(v));
        }
        return key.toString();
    }

    /** Generates the rows of {@code --rows} and {@code --seed} and loads them into both tables. */
    DataSet load() throws IOException {
        DataSet data = new DataSet(options.rows, options.seed);
        load(PLAIN_TABLE, plain, false, data);
        load(SALTED_TABLE, salted, true, data);
        return data;
    }

    /** Generates the rows of {@code --rows} and {@code --seed} and loads them into the plain table only. */
    DataSet loadPlain() throws IOException {
        DataSet data = new DataSet(options.rows, options.seed);
        load(PLAIN_TABLE, plain, false, data);
        return data;
    }

    /** On an existing cluster, the tables go unless {@code --keep}; the embedded one goes anyway. */
    void dropTablesUnlessKept() throws IOException {
        if (!options.keep && options.zookeeper != null) {
            dropTable(PLAIN_TABLE);
            dropTable(SALTED_TABLE);
        }
    }

    /** The key schema of the salted or the plain table. */
    RowKeySchema schema(boolean isSalted) {
        return isSalted ? salted : plain;
    }

    /** The query on its table's schema, for {@link RowKeyQuery#toScan()} and explain(). */
    RowKeyQuery planned(DemoQuery q) {
        return q.build(RowKeyQuery.on(schema(q.salted)));
    }

    /** The query the seed's way: a full scan of its table; timed from building the scan to the last row. */
    Outcome runSeedWay(DemoQuery q) throws IOException {
        long start = System.nanoTime();
        return scan(q, seedWayScan(schema(q.salted), q), start);
    }

    /** The table of {@code name}, opened once (its catalog read). */
    RowKeyTable table(TableName name) throws IOException {
        RowKeyTable table = tables.get(name);
        if (table == null) {
            table = RowKeyTable.open(connection, name);
            tables.put(name, table);
        }
        return table;
    }

    /** How {@link RowKeyTable#scan} reads the query: the plan chosen and every alternative's estimate. */
    String explain(DemoQuery q) throws IOException {
        return table(q.salted ? SALTED_TABLE : PLAIN_TABLE).explain(planned(q));
    }

    /**
     * The query through {@link RowKeyTable#scan} (an index where it reads fewer rows), with every
     * cell or only the URL ({@code urlOnly}: an index that covers it answers alone); timed from
     * building the query to the last row.
     */
    Outcome runTable(DemoQuery q, boolean urlOnly) throws IOException {
        return runTable(q, urlOnly, false);
    }

    /** {@link #runTable(DemoQuery, boolean)}, its regions read one after another when {@code serial}. */
    Outcome runTable(DemoQuery q, boolean urlOnly, boolean serial) throws IOException {
        long start = System.nanoTime();
        RowKeyQuery query = planned(q);
        if (urlOnly) {
            query.select(FAMILY, URL);
        }
        if (serial) {
            query.serial();
        }
        TreeSet<String> rows = new TreeSet<>();
        try (ResultScanner scanner = table(q.salted ? SALTED_TABLE : PLAIN_TABLE).scan(query)) {
            for (Result r : scanner) {
                rows.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            long scanned = metrics.countOfRowsScanned.get();
            java.util.concurrent.atomic.AtomicLong gets = metrics.getCounter(RowKeyTable.DATA_ROWS_READ_METRIC);
            // Through an index, the scan read index rows and the Gets read data rows.
            return gets == null ? new Outcome(rows, scanned, -1, metrics.countOfRegions.get(), millisSince(start))
                    : new Outcome(rows, gets.get(), scanned, metrics.countOfRegions.get(), millisSince(start));
        }
    }

    static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    /** The query planned ({@link RowKeyQuery#toScan()}); timed from building the query to the last row. */
    Outcome runPlanned(DemoQuery q) throws IOException {
        long start = System.nanoTime();
        return scan(q, planned(q).toScan(), start);
    }

    /** Any scan on the query's table, with scan metrics, timed from {@code startNanos}. */
    Outcome scan(DemoQuery q, Scan scan, long startNanos) throws IOException {
        return scan(q.salted ? SALTED_TABLE : PLAIN_TABLE, scan, startNanos);
    }

    /** The seed's way: a full scan, equalities in one EqualComparator, one RowFilter per range. */
    static Scan seedWayScan(RowKeySchema schema, DemoQuery q) {
        FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL);
        Map<String, Object> equalities = new LinkedHashMap<>();
        for (DemoQuery.Condition c : q.conditions) {
            switch (c.op) {
                case "=": equalities.put(c.field, c.values[0]); break;
                case "!=": all.addFilter(new RowFilter(CompareOperator.NOT_EQUAL,
                        new EqualComparator(schema, Map.of(c.field, c.values[0])))); break;
                case "<": all.addFilter(range(schema, CompareOperator.LESS, c)); break;
                case "<=": all.addFilter(range(schema, CompareOperator.LESS_OR_EQUAL, c)); break;
                case ">": all.addFilter(range(schema, CompareOperator.GREATER, c)); break;
                case ">=": all.addFilter(range(schema, CompareOperator.GREATER_OR_EQUAL, c)); break;
                case "in": {
                    FilterList any = new FilterList(FilterList.Operator.MUST_PASS_ONE);
                    for (Object v : c.values) {
                        any.addFilter(new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, Map.of(c.field, v))));
                    }
                    all.addFilter(any);
                    break;
                }
                default: throw new IllegalArgumentException(c.op);
            }
        }
        if (!equalities.isEmpty()) {
            all.addFilter(new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, equalities)));
        }
        return new Scan().setFilter(all);
    }

    private static Filter range(RowKeySchema schema, CompareOperator op, DemoQuery.Condition c) {
        return new RowFilter(op, new RangeComparator(schema, c.field, c.values[0]));
    }

    private Outcome scan(TableName name, Scan scan, long start) throws IOException {
        scan.setScanMetricsEnabled(true);
        scan.setCaching(1000);
        TreeSet<String> rows = new TreeSet<>();
        long rowsRead;
        long regions;
        try (Table table = connection.getTable(name); ResultScanner scanner = table.getScanner(scan)) {
            for (Result r : scanner) {
                rows.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            rowsRead = metrics.countOfRowsScanned.get();
            regions = metrics.countOfRegions.get();
        }
        return new Outcome(rows, rowsRead, -1, regions, millisSince(start));
    }

    private void load(TableName name, RowKeySchema schema, boolean isSalted, DataSet data) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(name)) {
                if (options.keep) {
                    System.out.println("Reusing table " + name);
                    return;
                }
                dropTable(name);
            }
        }
        loadSeconds.put(name, createAndLoad(name, schema, isSalted, indexed ? (isSalted ? saltedIndexes() : plainIndexes())
                : List.of(), data));
    }

    /**
     * Creates a table of the schema with its indexes ({@link RowKeyTable#create}; without indexes
     * it is a plain HBase table with the catalog in its descriptor, no coprocessor) and loads the
     * rows; returns the seconds taken by the writes and the flushes.
     */
    double createAndLoad(TableName name, RowKeySchema schema, boolean isSalted, List<RowKeyIndex> indexes, DataSet data)
            throws IOException {
        try (Admin admin = connection.getAdmin()) {
            RowKeyTable.create(admin, name, schema, indexes, splits(isSalted), FAMILY);
        }
        long start = System.nanoTime();
        write(name, schema, data);
        double seconds = seconds(start);
        System.out.printf(Locale.ROOT, "  %,d rows in %.1f s (%s)%n", data.size(), seconds,
                indexes.isEmpty() ? "no index" : indexes.size() + (indexes.size() == 1 ? " index" : " indexes"));
        return seconds;
    }

    /**
     * Writes the rows into an existing table, the demo's way (a BufferedMutator, no WAL), and flushes
     * it and its index tables (whose rows the coprocessor writes, with the WAL).
     */
    void write(TableName name, RowKeySchema schema, DataSet data) throws IOException {
        Progress progress = new Progress("Loading " + name, data.size());
        BufferedMutatorParams params = new BufferedMutatorParams(name).writeBufferSize(8 << 20);
        try (BufferedMutator mutator = connection.getBufferedMutator(params)) {
            for (int i = 0; i < data.size(); i++) {
                Map<String, Object> row = data.row(i);
                Put put = new Put(schema.encode(row)).setDurability(Durability.SKIP_WAL);
                put.addColumn(FAMILY, URL, Bytes.toBytes(data.url(i)));
                mutator.mutate(put);
                progress.step();
            }
        }
        progress.done();
        try (Admin admin = connection.getAdmin()) {
            admin.flush(name);
            for (TableName index : indexTables(admin, name)) {
                admin.flush(index);
            }
        }
    }

    /** The index tables of a data table: {@code <table>__idx_<index>}. */
    static List<TableName> indexTables(Admin admin, TableName name) throws IOException {
        return Arrays.asList(admin.listTableNames(Pattern.compile(Pattern.quote(name.getNameAsString() + "__idx_") + ".*")));
    }

    /** 8 regions: by salt bucket (2 of the 16 each) for the salted table, by md5 prefix otherwise. */
    static byte[][] splits(boolean isSalted) {
        byte[][] splits = new byte[7][];
        for (int i = 1; i < 8; i++) {
            splits[i - 1] = new byte[] {(byte) (i * (isSalted ? 2 : 32))};
        }
        return splits;
    }

    /** Drops a table and its index tables. */
    void dropTable(TableName name) throws IOException {
        tables.remove(name);
        try (Admin admin = connection.getAdmin()) {
            List<TableName> all = new ArrayList<>(indexTables(admin, name));
            all.add(name);
            for (TableName t : all) {
                if (admin.tableExists(t)) {
                    admin.disableTable(t);
                    admin.deleteTable(t);
                }
            }
        }
    }

    static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static String indent(String text) {
        return "      " + text.trim().replace("\n", "\n      ");
    }

    /**
     * Rows returned (by identity), data rows the servers read, index rows read (-1 when no index was
     * read), regions scanned, wall time.
     */
    static final class Outcome {
        final TreeSet<String> rows;
        final long rowsRead;
        final long indexRowsRead;
        final long regions;
        final double millis;

        Outcome(TreeSet<String> rows, long rowsRead, long indexRowsRead, long regions, double millis) {
            this.rows = rows;
            this.rowsRead = rowsRead;
            this.indexRowsRead = indexRowsRead;
            this.regions = regions;
            this.millis = millis;
        }

        /** Every row read, index and data. */
        long allRowsRead() {
            return rowsRead + Math.max(indexRowsRead, 0);
        }
    }

    /** The command line of the demo and of the end-to-end benchmark ({@link EndToEnd}), which adds two. */
    static final class Options {
        int rows = 1_000_000;
        long seed = 42;
        String zookeeper;
        boolean keep;
        boolean explain = true;
        /** {@link EndToEnd}: measured runs per query and way, and where the results go. */
        int runs = 5;
        String json = "target/bench/end_to_end.json";

        static Options parse(String[] args, boolean bench) {
            Options o = new Options();
            String usage = "use --rows N, --seed S, --zookeeper host:port, --keep, "
                    + (bench ? "--runs N, --json FILE" : "--no-explain");
            List<String> list = new ArrayList<>(Arrays.asList(args));
            list.removeIf(String::isEmpty);
            for (int i = 0; i < list.size(); i++) {
                String a = list.get(i);
                if (i + 1 == list.size() && Arrays.asList("--rows", "--seed", "--zookeeper", "--runs", "--json").contains(a)) {
                    fail(a + " needs a value; " + usage);
                }
                switch (a) {
                    case "--rows": o.rows = Integer.parseInt(list.get(++i).replace("_", "").replace(",", "")); break;
                    case "--seed": o.seed = Long.parseLong(list.get(++i)); break;
                    case "--zookeeper": o.zookeeper = list.get(++i); break;
                    case "--keep": o.keep = true; break;
                    case "--no-explain": o.explain = false; break;
                    case "--runs":
                    case "--json":
                        if (!bench) {
                            fail("unknown option " + a + " (an option of the end-to-end benchmark, cargo make bench-e2e); " + usage);
                        }
                        if (a.equals("--runs")) {
                            o.runs = Integer.parseInt(list.get(++i));
                        } else {
                            o.json = list.get(++i);
                        }
                        break;
                    default:
                        fail("unknown option " + a + "; " + usage);
                }
            }
            if (o.rows < 10) {
                fail("--rows must be at least 10 (the seed's sample rows)");
            }
            if (o.runs < 1) {
                fail("--runs must be at least 1");
            }
            return o;
        }

        private static void fail(String message) {
            System.err.println(message);
            System.exit(2);
        }
    }

    /** A one-line progress bar on stderr. */
    static final class Progress {
        private final String label;
        private final long total;
        private long done;
        private int lastPercent = -1;

        Progress(String label, long total) {
            this.label = label;
            this.total = total;
        }

        void step() {
            done++;
            int percent = (int) (done * 100 / total);
            // In a log (no terminal) a line every 10%, not a hundred carriage returns.
            int step = System.console() == null ? 10 : 1;
            if (percent != lastPercent && percent % step == 0) {
                lastPercent = percent;
                int bars = percent / 4;
                System.err.printf(Locale.ROOT, System.console() == null ? "%-24s [%-25s] %3d%%%n" : "\r%-24s [%-25s] %3d%%",
                        label, "#".repeat(bars), percent);
            }
        }

        void done() {
            System.err.println();
        }
    }
}
