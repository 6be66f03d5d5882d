package org.rowkey.hbase.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.EqualComparator;
import org.rowkey.hbase.RangeComparator;
import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;
import org.rowkey.hbase.SkipScanFilter;

/**
 * The client half of the real-process test: from its own JVM, against an HBase running in
 * another process (java/cluster/hbase.sh), it writes a small table and runs each {@link Check}:
 * our comparators, a planned scan, the skip-scan filter and a table with an index maintained
 * by our coprocessor, every answer compared with an in-memory oracle. The server rebuilds the
 * comparators and filters from their bytes with its own class loader and loads the coprocessor
 * itself, so a pass proves the jar works from HBase's lib/ or hbase.dynamic.jars.dir.
 *
 * <p>To check something more, add one {@code checks.add(new Check("name", () -> ...))} in
 * {@link #checks()}.
 *
 * <p>Usage: {@code ClusterCheck --zookeeper host:port [--jar-via lib|dynamic]} (how the server
 * got our jar; default lib). Exit code 0 when every check passed.
 */
public final class ClusterCheck {
    static final TableName TABLE = TableName.valueOf("rowkey_cluster_check");
    static final TableName INDEXED = TableName.valueOf("rowkey_cluster_check_indexed");
    /** The index table {@link RowKeyTable#create} makes for index by_code_day. */
    static final TableName INDEX_TABLE = TableName.valueOf("rowkey_cluster_check_indexed__idx_by_code_day");
    /** The index table of index by_day, the second stream of the relayed query. */
    static final TableName DAY_INDEX_TABLE = TableName.valueOf("rowkey_cluster_check_indexed__idx_by_day");
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("q");

    /** One named check; {@link Body#run()} returns what it saw, or throws on a wrong answer. */
    static final class Check {
        final String name;
        final Body body;

        Check(String name, Body body) {
            this.name = name;
            this.body = body;
        }
    }

    interface Body {
        String run() throws Exception;
    }

    private final Connection connection;
    private final RowKeySchema schema = RowKeySchema.builder().salt(4, "user").fixedString("user", 8)
            .int32("day").int32("code").bool("free").build();
    private final List<Map<String, Object>> rows = new ArrayList<>();

    /** Whether our jar is on the server's class path (lib/), not only in hbase.dynamic.jars.dir. */
    private final boolean jarInLib;

    ClusterCheck(Connection connection, boolean jarInLib) {
        this.connection = connection;
        this.jarInLib = jarInLib;
    }

    /** Every check, in order. */
    List<Check> checks() {
        List<Check> checks = new ArrayList<>();
        checks.add(new Check("EqualComparator, RowFilter EQUAL and NOT_EQUAL", () -> {
            Map<String, Object> fields = map("code", 404, "free", true);
            EqualComparator eq = new EqualComparator(schema, fields);
            Predicate<Map<String, Object>> matches = r -> r.get("code").equals(404) && r.get("free").equals(true);
            int n = expectRows(new RowFilter(CompareOperator.EQUAL, eq), matches);
            expectRows(new RowFilter(CompareOperator.NOT_EQUAL, eq), matches.negate());
            return n + " rows";
        }));
        checks.add(new Check("RangeComparator, all six operators", () -> {
            int day = 15;
            StringBuilder seen = new StringBuilder();
            for (CompareOperator op : new CompareOperator[] {CompareOperator.LESS, CompareOperator.LESS_OR_EQUAL,
                    CompareOperator.EQUAL, CompareOperator.NOT_EQUAL, CompareOperator.GREATER_OR_EQUAL,
                    CompareOperator.GREATER}) {
                int n = expectRows(new RowFilter(op, new RangeComparator(schema, "day", day)),
                        r -> holds(op, Integer.compare((Integer) r.get("day"), day)));
                seen.append(op).append('=').append(n).append(' ');
            }
            return seen.toString().trim();
        }));
        checks.add(new Check("PredicateComparator (query.toComparator())", () -> {
            RowKeyQuery query = RowKeyQuery.on(schema).between("day", 3, 9).in("code", 200, 503);
            int n = expectRows(new RowFilter(CompareOperator.EQUAL, query.toComparator()), r -> {
                int d = (Integer) r.get("day");
                Object code = r.get("code");
                return d >= 3 && d <= 9 && (code.equals(200) || code.equals(503));
            });
            return n + " rows";
        }));
        checks.add(new Check("planned scan (query.toScan()): exact rows, fewer read", () -> {
            RowKeyQuery query = RowKeyQuery.on(schema).in("user", "user3", "user7").between("day", 10, 12)
                    .eq("free", false);
            Scan scan = query.toScan();
            scan.setScanMetricsEnabled(true);
            List<String> got = new ArrayList<>();
            long read;
            try (Table t = connection.getTable(TABLE); ResultScanner scanner = t.getScanner(scan)) {
                for (Result r : scanner) {
                    got.add(Bytes.toStringBinary(r.getRow()));
                }
                read = scanner.getScanMetrics().countOfRowsScanned.get();
            }
            List<String> want = oracle(r -> (r.get("user").equals("user3") || r.get("user").equals("user7"))
                    && (Integer) r.get("day") >= 10 && (Integer) r.get("day") <= 12 && r.get("free").equals(false));
            require(new TreeSet<>(got).equals(new TreeSet<>(want)) && got.size() == want.size(),
                    "planned scan returned " + got.size() + " rows, the oracle " + want.size());
            require(read < rows.size() / 4, "planned scan read " + read + " of " + rows.size() + " rows");
            return got.size() + " rows, " + read + " read of " + rows.size();
        }));
        checks.add(new Check("SkipScanFilter alone, reversed, inside a FilterList", () -> {
            // No user: every bucket and user vary before day; the filter seeks from run to run.
            RowKeyQuery query = RowKeyQuery.on(schema).between("day", 10, 12).eq("code", 404);
            Predicate<Map<String, Object>> matches = r -> (Integer) r.get("day") >= 10 && (Integer) r.get("day") <= 12
                    && r.get("code").equals(404);
            Outcome alone = scan(new Scan().setFilter(new SkipScanFilter(query)));
            List<String> want = oracle(matches);
            require(alone.keys.equals(want), "skip scan: " + alone.keys.size() + " rows, the oracle " + want.size());
            require(alone.read < rows.size() / 4, "skip scan read " + alone.read + " of " + rows.size() + " rows");
            Outcome reversed = scan(new Scan().setReversed(true).setFilter(new SkipScanFilter(query)));
            List<String> backwards = new ArrayList<>(want);
            java.util.Collections.reverse(backwards);
            require(reversed.keys.equals(backwards), "reversed skip scan: " + reversed.keys.size() + " rows");
            // Another filter first; exact rows on every version (the read bound needs HBASE-28622's marker).
            RowKeyQuery free = RowKeyQuery.on(schema).eq("free", true);
            Outcome both = scan(new Scan().setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL,
                    new RowFilter(CompareOperator.EQUAL, free.toComparator()), new SkipScanFilter(query))));
            List<String> wantBoth = oracle(matches.and(r -> r.get("free").equals(true)));
            require(both.keys.equals(wantBoth), "skip scan in a FilterList: " + both.keys.size() + " rows, the oracle "
                    + wantBoth.size());
            return want.size() + " rows, " + alone.read + " read of " + rows.size() + "; reversed "
                    + reversed.read + " read; in a FilterList " + both.keys.size() + " rows, " + both.read + " read";
        }));
        if (jarInLib) {
            checks.add(new Check("index coprocessor: plain puts and deletes, a scan through the index", this::indexCheck));
        } else {
            checks.add(new Check("index coprocessor refused, nothing left, without our jar in lib/", this::indexRefused));
        }
        return checks;
    }

    /** Rows a scan returned (in scan order) and read on the server. */
    static final class Outcome {
        final List<String> keys = new ArrayList<>();
        long read;
    }

    private Outcome scan(Scan scan) throws IOException {
        Outcome out = new Outcome();
        scan.setScanMetricsEnabled(true);
        try (Table t = connection.getTable(TABLE); ResultScanner scanner = t.getScanner(scan)) {
            for (Result r : scanner) {
                out.keys.add(Bytes.toStringBinary(r.getRow()));
            }
            out.read = scanner.getScanMetrics().countOfRowsScanned.get();
        }
        return out;
    }

    /**
     * A table made with {@link RowKeyTable#create} with an index on (code, day), written with the
     * plain client (the coprocessor, loaded by the RegionServer from our jar, writes the index
     * rows), some rows deleted, then queries through the index equal to the live rows.
     */
    private String indexCheck() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            dropIfExists(admin, INDEXED);
            dropIfExists(admin, INDEX_TABLE);
            dropIfExists(admin, DAY_INDEX_TABLE);
            RowKeyTable.create(admin, INDEXED, schema, Arrays.asList(RowKeyIndex.of("by_code_day", "code", "day"),
                    RowKeyIndex.of("by_day", "day")), FAMILY);
        }
        List<Map<String, Object>> live = new ArrayList<>();
        try (Table t = connection.getTable(INDEXED)) {
            List<Put> puts = new ArrayList<>();
            List<Delete> deletes = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                byte[] key = schema.encode(rows.get(i));
                puts.add(new Put(key).addColumn(FAMILY, QUALIFIER, key));
                if (i % 7 == 0) {
                    deletes.add(new Delete(key));
                } else {
                    live.add(rows.get(i));
                }
            }
            t.put(puts);
            t.delete(deletes);
        }
        RowKeyTable table = RowKeyTable.open(connection, INDEXED);
        StringBuilder seen = new StringBuilder();
        RowKeyQuery[] queries = {RowKeyQuery.on(schema).eq("code", 404).between("day", 10, 12),
                RowKeyQuery.on(schema).eq("code", 503).eq("free", true)};
        List<Predicate<Map<String, Object>>> oracles = Arrays.asList(
                r -> r.get("code").equals(404) && (Integer) r.get("day") >= 10 && (Integer) r.get("day") <= 12,
                r -> r.get("code").equals(503) && r.get("free").equals(true));
        // What the index key ranges hold (index rows of deleted data rows still count as read: their
        // tombstones are walked); free lies behind the free user, so the second query reads all of it.
        List<Predicate<Map<String, Object>>> inRanges = Arrays.asList(oracles.get(0), r -> r.get("code").equals(503));
        for (int q = 0; q < queries.length; q++) {
            RowKeyQuery query = queries[q];
            String explain = table.explain(query);
            require(explain.contains("INDEX by_code_day"), "not read through the index:\n" + explain);
            TreeSet<String> got = new TreeSet<>();
            long read = scanLive(table, query, live, oracles.get(q), got).countOfRowsScanned.get();
            long ranges = rows.stream().filter(inRanges.get(q)).count();
            require(read <= ranges && ranges <= rows.size() / 4, query + " read " + read + " index rows, its index ranges hold "
                    + ranges + " of " + rows.size());
            seen.append(got.size()).append(" rows, ").append(read).append(" index rows read")
                    .append(explain.contains("SKIP SCAN") ? " (skip scan); " : "; ");
        }
        seen.append(relayCheck(live));
        try (Admin admin = connection.getAdmin()) {
            dropIfExists(admin, INDEXED);
            dropIfExists(admin, INDEX_TABLE);
            dropIfExists(admin, DAY_INDEX_TABLE);
        }
        return seen.toString();
    }

    /**
     * Scans {@code query} into {@code got}, requiring each row once and exactly the {@code live}
     * rows that pass {@code oracle}; the scanner's metrics.
     */
    private ScanMetrics scanLive(RowKeyTable table, RowKeyQuery query, List<Map<String, Object>> live,
            Predicate<Map<String, Object>> oracle, TreeSet<String> got) throws IOException {
        ScanMetrics metrics;
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                require(got.add(Bytes.toStringBinary(r.getRow())), "a row twice: " + Bytes.toStringBinary(r.getRow()));
            }
            metrics = scanner.getScanMetrics();
        }
        TreeSet<String> want = new TreeSet<>();
        for (Map<String, Object> row : live) {
            if (oracle.test(row)) {
                want.add(Bytes.toStringBinary(schema.encode(row)));
            }
        }
        require(got.equals(want), query + ": " + got.size() + " rows, the oracle " + want.size());
        return metrics;
    }

    /**
     * A query both indexes fix conditions of is relayed, each index read under a row budget
     * ({@code RowBudgetFilter}, in the RegionServer); a budget of 8 rows makes the reads stop early
     * and the turn pass: the rows equal the live rows.
     */
    private String relayCheck(List<Map<String, Object>> live) throws IOException {
        Configuration small = new Configuration(connection.getConfiguration());
        small.setInt("rowkey.join.relay.budget.rows", 8);
        try (Connection c = ConnectionFactory.createConnection(small)) {
            RowKeyTable table = RowKeyTable.open(c, INDEXED);
            RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 404).eq("day", 11);
            String explain = table.explain(query);
            require(explain.contains("relay"), "not relayed:\n" + explain);
            TreeSet<String> got = new TreeSet<>();
            long scans = scanLive(table, query, live, r -> r.get("code").equals(404) && r.get("day").equals(11), got)
                    .countOfRPCcalls.get();
            require(scans > 1, query + " relayed in " + scans + " index scan(s): the budget never cut a read");
            return "relayed: " + got.size() + " rows in " + scans + " index scans; ";
        }
    }

    /**
     * With our jar only in hbase.dynamic.jars.dir: HBase loads table coprocessors from its class
     * path (or a jar path in the descriptor), never from there, so the table with an index is
     * refused at creation, with an error naming one of our coprocessors (HBase checks them in the
     * descriptor's order and names the first it cannot load), and no index table is left.
     */
    private String indexRefused() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            dropIfExists(admin, INDEXED);
            dropIfExists(admin, INDEX_TABLE);
            try {
                RowKeyTable.create(admin, INDEXED, schema, Arrays.asList(RowKeyIndex.of("by_code_day", "code", "day")), FAMILY);
            } catch (IOException e) {
                String message = String.valueOf(e.getMessage());
                require(message.contains("RowKeyIndexObserver") || message.contains("RowKeyScanObserver"),
                        "an error that does not name our coprocessor: " + e);
                require(!admin.tableExists(INDEXED) && !admin.tableExists(INDEX_TABLE), "a table was left behind");
                return "refused: " + e.getClass().getSimpleName();
            }
            throw new AssertionError("a RegionServer without our jar on its class path accepted the index coprocessor");
        }
    }

    private static void dropIfExists(Admin admin, TableName name) throws IOException {
        if (admin.tableExists(name)) {
            admin.disableTable(name);
            admin.deleteTable(name);
        }
    }

    /** Creates the table (4 regions, one per salt bucket) with 30 users x 30 days x 4 codes. */
    void load() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(TABLE)) {
                admin.disableTable(TABLE);
                admin.deleteTable(TABLE);
            }
            admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build(),
                    new byte[][] {{1}, {2}, {3}});
        }
        int[] codes = {200, 301, 404, 503};
        List<Put> puts = new ArrayList<>();
        for (int u = 0; u < 30; u++) {
            for (int day = 1; day <= 30; day++) {
                for (int c = 0; c < codes.length; c++) {
                    Map<String, Object> row = map("user", "user" + u, "day", day, "code", codes[c],
                            "free", (u + day + c) % 3 == 0);
                    rows.add(row);
                    byte[] key = schema.encode(row);
                    puts.add(new Put(key).addColumn(FAMILY, QUALIFIER, key));
                }
            }
        }
        try (Table t = connection.getTable(TABLE)) {
            t.put(puts);
        }
    }

    void dropTable() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            admin.disableTable(TABLE);
            admin.deleteTable(TABLE);
        }
    }

    /** Scans the whole table with {@code filter}; fails unless it returns exactly the oracle's rows. */
    private int expectRows(Filter filter, Predicate<Map<String, Object>> oracle) throws IOException {
        List<String> got = new ArrayList<>();
        try (Table t = connection.getTable(TABLE); ResultScanner scanner = t.getScanner(new Scan().setFilter(filter))) {
            for (Result r : scanner) {
                got.add(Bytes.toStringBinary(r.getRow()));
            }
        }
        List<String> want = oracle(oracle);
        require(got.equals(want), filter + ": " + got.size() + " rows, the oracle " + want.size());
        return got.size();
    }

    /** The oracle's row keys, in key order. */
    private List<String> oracle(Predicate<Map<String, Object>> keep) {
        List<byte[]> keys = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            if (keep.test(row)) {
                keys.add(schema.encode(row));
            }
        }
        keys.sort(Bytes.BYTES_COMPARATOR);
        List<String> out = new ArrayList<>();
        for (byte[] k : keys) {
            out.add(Bytes.toStringBinary(k));
        }
        return out;
    }

    /** Whether {@code row op constant} holds, given the sign of row - constant. */
    static boolean holds(CompareOperator op, int rowVsConstant) {
        switch (op) {
            case LESS: return rowVsConstant < 0;
            case LESS_OR_EQUAL: return rowVsConstant <= 0;
            case EQUAL: return rowVsConstant == 0;
            case NOT_EQUAL: return rowVsConstant != 0;
            case GREATER_OR_EQUAL: return rowVsConstant >= 0;
            case GREATER: return rowVsConstant > 0;
            default: throw new IllegalArgumentException(op.toString());
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Runs every check, prints one line each; the number that failed. */
    int runAll() throws IOException {
        load();
        int failed = 0;
        for (Check check : checks()) {
            long t0 = System.nanoTime();
            try {
                String seen = check.body.run();
                System.out.printf(Locale.ROOT, "PASS  %-55s %s (%d ms)%n", check.name, seen,
                        (System.nanoTime() - t0) / 1_000_000);
            } catch (Exception | AssertionError e) {
                failed++;
                System.out.printf(Locale.ROOT, "FAIL  %-55s %s%n", check.name, e);
                e.printStackTrace(System.out);
            }
        }
        dropTable();
        return failed;
    }

    public static void main(String[] args) throws Exception {
        List<String> argv = Arrays.asList(args);
        int at = argv.indexOf("--zookeeper");
        int via = argv.indexOf("--jar-via");
        String jarVia = via >= 0 && via + 1 < args.length ? args[via + 1] : "lib";
        if (at < 0 || at + 1 >= args.length || !(jarVia.equals("lib") || jarVia.equals("dynamic"))) {
            System.err.println("usage: ClusterCheck --zookeeper host:port [--jar-via lib|dynamic]");
            System.exit(2);
        }
        String[] hostPort = args[at + 1].split(":");
        Configuration conf = HBaseConfiguration.create();
        conf.set(HConstants.ZOOKEEPER_QUORUM, hostPort[0]);
        if (hostPort.length > 1) {
            conf.set(HConstants.ZOOKEEPER_CLIENT_PORT, hostPort[1]);
        }
        conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 5);
        int failed;
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            String server;
            try (Admin admin = connection.getAdmin()) {
                server = admin.getClusterMetrics().getHBaseVersion();
            }
            System.out.println("ClusterCheck: client Java " + System.getProperty("java.version") + ", HBase client "
                    + org.apache.hadoop.hbase.util.VersionInfo.getVersion() + "; server HBase " + server
                    + " at " + args[at + 1]);
            failed = new ClusterCheck(connection, jarVia.equals("lib")).runAll();
        }
        System.out.println(failed == 0 ? "ClusterCheck: every check passed" : "ClusterCheck: " + failed + " check(s) FAILED");
        System.exit(failed == 0 ? 0 : 1);
    }
}
