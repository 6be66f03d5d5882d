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
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.EqualComparator;
import org.rowkey.hbase.RangeComparator;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;

/**
 * The client half of the real-process test: from its own JVM, against an HBase running in
 * another process (java/cluster/hbase.sh), it writes a small table and runs each {@link Check}:
 * our comparators and a planned scan, every answer compared with an in-memory oracle. The
 * server rebuilds the comparators from their bytes with its own class loader, so a pass proves
 * the jar works from HBase's lib/ or hbase.dynamic.jars.dir.
 *
 * <p>To check something more (the index coprocessor, the skip-scan filter), add one
 * {@code checks.add(new Check("name", () -> ...))} in {@link #checks()}.
 *
 * <p>Usage: {@code ClusterCheck --zookeeper host:port}. Exit code 0 when every check passed.
 */
public final class ClusterCheck {
    static final TableName TABLE = TableName.valueOf("rowkey_cluster_check");
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

    ClusterCheck(Connection connection) {
        this.connection = connection;
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
        return checks;
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
        if (at < 0 || at + 1 >= args.length) {
            System.err.println("usage: ClusterCheck --zookeeper host:port");
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
            failed = new ClusterCheck(connection).runAll();
        }
        System.out.println(failed == 0 ? "ClusterCheck: every check passed" : "ClusterCheck: " + failed + " check(s) FAILED");
        System.exit(failed == 0 ? 0 : 1);
    }
}
