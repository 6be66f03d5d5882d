package org.rowkey.hbase.demo;

import java.io.IOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.thrift.ThriftServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyWhere;

/**
 * {@code cargo make thrift-test}: the demo's tables (seed 000's sample rows and generated ones; the
 * plain table with its three indexes, the salted one, both made by {@code RowKeyTable.create}, and a
 * plain HBase table of the same rows without a catalog) on an embedded HBase; HBase's Thrift1
 * gateway ({@link ThriftServer}, the API happybase speaks) started in this JVM with only
 * {@code hbase.thrift.filters = RowKeyWhere:org.rowkey.hbase.RowKeyWhere} to know the filter; the
 * rows each query returns in Java ({@code RowKeyTable.scan} and {@code toScan()}, which must agree)
 * and the reason each bad where clause is refused ({@code RowKeyQuery.parse}) written to a JSON
 * file; then the Python script (happybase from PyPI, in the task's virtualenv) runs against the
 * gateway and its exit code is this JVM's. Afterwards the RegionServer must still answer here too.
 *
 * <pre>
 *   --rows N          rows to generate (default 20,000)
 *   --python PATH     the virtualenv's python
 *   --script PATH     the happybase script
 *   --out FILE        where the expected rows go (default target/thrift/expected.json)
 *   --readme FILE     the README whose happybase block the script runs (default README.md)
 * </pre>
 */
public final class ThriftCheck {
    static final TableName NO_CATALOG_TABLE = TableName.valueOf("urlscan_plain");
    static final int RANDOM_QUERIES = 40;

    public static void main(String[] args) {
        int rows = 20_000;
        String python = null;
        String script = null;
        String out = "target/thrift/expected.json";
        String readme = "README.md";
        for (int i = 0; i < args.length; i++) {
            if (i + 1 == args.length) {
                usage(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--rows": rows = Integer.parseInt(args[++i].replace(",", "").replace("_", "")); break;
                case "--python": python = args[++i]; break;
                case "--script": script = args[++i]; break;
                case "--out": out = args[++i]; break;
                case "--readme": readme = args[++i]; break;
                default: usage("unknown option " + args[i]);
            }
        }
        if (python == null || script == null) {
            usage("--python and --script are required");
        }
        Demo.Options options = Demo.Options.parse(new String[] {"--rows", String.valueOf(rows), "--no-explain"}, false);
        String py = python;
        String sc = script;
        Path expected = Paths.get(out);
        String md = readme;
        Demo.benchmarkMain("thrift-test", options, connection -> new ThriftCheck(connection, options).run(py, sc, expected, md));
    }

    private static void usage(String why) {
        System.err.println(why + "; use --rows N --python PATH --script PATH [--out FILE] [--readme FILE]");
        System.exit(2);
    }

    private final Connection connection;
    private final Demo demo;

    private ThriftCheck(Connection connection, Demo.Options options) {
        this.connection = connection;
        this.demo = new Demo(connection, options, true);
    }

    /** One scan the script makes: a where clause on a table, its schema inline or from the catalog. */
    private static final class Query {
        final String name;
        final TableName table;
        final String where;
        /** Null: the table's catalog gives the schema. */
        final RowKeySchema schema;
        final List<String> keys = new ArrayList<>();
        final List<String> urls = new ArrayList<>();
        /** For a bad one: the reason Java's parser gives, or a part of the RegionServer's. */
        String reason;

        Query(String name, TableName table, String where, RowKeySchema schema) {
            this.name = name;
            this.table = table;
            this.where = where;
            this.schema = schema;
        }
    }

    int run(String python, String script, Path expectedFile, String readme) throws Exception {
        DataSet data = demo.load();
        RowKeySchema plain = demo.schema(false);
        loadWithoutCatalog(data, plain);

        List<Query> queries = new ArrayList<>();
        for (DemoQuery q : DemoQuery.all(data)) {
            String where = demo.planned(q).toWhereClause();
            queries.add(new Query(q.name, q.salted ? Demo.SALTED_TABLE : Demo.PLAIN_TABLE, where, null));
            if (!q.salted) {
                queries.add(new Query(q.name + " (schema inline)", NO_CATALOG_TABLE, where, plain));
            }
        }
        Random random = new Random(20161209);
        for (int i = 0; i < RANDOM_QUERIES; i++) {
            String where = randomWhere(random, data);
            queries.add(i % 2 == 0 ? new Query("random " + i, Demo.PLAIN_TABLE, where, null)
                    : new Query("random " + i + " (schema inline)", NO_CATALOG_TABLE, where, plain));
        }
        int nonEmpty = 0;
        for (Query q : queries) {
            expectRows(q);
            nonEmpty += q.keys.isEmpty() ? 0 : 1;
        }
        System.out.printf(Locale.ROOT, "%d queries, %d of them with rows, expected rows computed in Java%n", queries.size(), nonEmpty);

        List<Query> bad = badQueries(plain);
        int port = freePort();
        ThriftServer gateway = startGateway(port);
        try {
            writeExpected(expectedFile, port, queries, bad);
            System.out.println("Thrift1 gateway on 127.0.0.1:" + port + "; running " + script);
            Path stderr = expectedFile.resolveSibling("happybase.stderr");
            Process p = new ProcessBuilder(python, script, expectedFile.toString(), readme).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(stderr.toFile()).start();
            int status = p.waitFor();
            if (status != 0) {
                System.out.print(new String(Files.readAllBytes(stderr), StandardCharsets.UTF_8));
            }
            // The RegionServer still serves this JVM's client after the bad filters.
            Query again = queries.get(1);
            List<String> before = new ArrayList<>(again.keys);
            again.keys.clear();
            again.urls.clear();
            expectRows(again);
            if (!before.equals(again.keys)) {
                System.err.println("After the script, Java's scan of " + again.name + " returned other rows");
                return 1;
            }
            System.out.println("After the script, the RegionServer still answers Java's client (" + again.keys.size() + " rows of "
                    + again.name + ")");
            System.out.println(status == 0 ? "thrift-test PASSED" : "thrift-test FAILED: the happybase script exited " + status);
            return status;
        } finally {
            gateway.stop();
        }
    }

    /** The demo's plain rows again, in a plain HBase table: no catalog, no coprocessor. */
    private void loadWithoutCatalog(DataSet data, RowKeySchema schema) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            admin.createTable(TableDescriptorBuilder.newBuilder(NO_CATALOG_TABLE)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Demo.FAMILY)).build(), Demo.splits(false));
        }
        try (BufferedMutator mutator = connection.getBufferedMutator(NO_CATALOG_TABLE)) {
            for (int i = 0; i < data.size(); i++) {
                Put put = new Put(schema.encode(data.row(i))).setDurability(Durability.SKIP_WAL);
                put.addColumn(Demo.FAMILY, Demo.URL, Bytes.toBytes(data.url(i)));
                mutator.mutate(put);
            }
        }
        try (Admin admin = connection.getAdmin()) {
            admin.flush(NO_CATALOG_TABLE);
        }
    }

    /**
     * The query's rows in key order: through {@code RowKeyTable.scan} on a table with a catalog (an
     * index where that reads less), and through {@code toScan()}; both must agree.
     */
    private void expectRows(Query q) throws IOException {
        RowKeySchema schema = q.schema != null ? q.schema : demo.schema(q.table.equals(Demo.SALTED_TABLE));
        RowKeyQuery query = RowKeyQuery.parse(schema, q.where);
        List<String> planned = new ArrayList<>();
        try (Table table = connection.getTable(q.table); ResultScanner scanner = table.getScanner(query.toScan())) {
            for (Result r : scanner) {
                planned.add(Bytes.toHex(r.getRow()));
                q.keys.add(Bytes.toHex(r.getRow()));
                q.urls.add(Bytes.toString(r.getValue(Demo.FAMILY, Demo.URL)));
            }
        }
        if (q.schema == null) {
            List<String> viaTable = new ArrayList<>();
            try (ResultScanner scanner = demo.table(q.table).scan(RowKeyQuery.parse(schema, q.where))) {
                for (Result r : scanner) {
                    viaTable.add(Bytes.toHex(r.getRow()));
                }
            }
            viaTable.sort(null);
            if (!viaTable.equals(planned)) {
                throw new IllegalStateException("RowKeyTable.scan and toScan() disagree on " + q.name + ": " + q.where);
            }
        }
    }

    /** Where clauses on the demo's schema, in the text syntax, values taken from the data. */
    private static String randomWhere(Random random, DataSet data) {
        int branches = random.nextInt(4) == 0 ? 2 : 1;
        List<String> ors = new ArrayList<>();
        for (int b = 0; b < branches; b++) {
            Map<String, Object> row = data.row(random.nextInt(data.size()));
            List<String> and = new ArrayList<>();
            int conditions = 1 + random.nextInt(3);
            for (int c = 0; c < conditions; c++) {
                switch (random.nextInt(9)) {
                    case 0: and.add("md5url = '" + row.get("md5url") + "'"); break;
                    case 1: and.add("md5url IN ('" + row.get("md5url") + "', '"
                            + data.row(random.nextInt(data.size())).get("md5url") + "')"); break;
                    case 2: {
                        int from = DataSet.FIRST_DAY + random.nextInt(DataSet.DAYS);
                        and.add("sdate BETWEEN " + from + " AND " + (from + random.nextInt(5))); break;
                    }
                    case 3: and.add("sdate " + (random.nextBoolean() ? ">= " : "< ") + row.get("sdate")); break;
                    case 4: and.add(random.nextBoolean() ? "code IN (404, 503)" : "code " + (random.nextBoolean() ? "= " : "<> ")
                            + row.get("code")); break;
                    case 5: and.add(random.nextBoolean() ? "NOT free" : "close"); break;
                    case 6: and.add("type IN (" + row.get("type") + ", " + (1 + random.nextInt(4)) + ")"); break;
                    case 7: and.add("sitecode = '" + row.get("sitecode") + "'"); break;
                    default: and.add("status != " + row.get("status") + " AND queue <= " + row.get("queue")); break;
                }
            }
            String joined = String.join(" AND ", and);
            ors.add(branches > 1 ? "(" + joined + ")" : joined);
        }
        return String.join(" OR ", ors);
    }

    /** Filter strings the gateway must refuse with their reason, the reason found by Java's parser. */
    private static List<Query> badQueries(RowKeySchema plain) {
        List<Query> bad = new ArrayList<>();
        bad.add(new Query("syntax error", Demo.PLAIN_TABLE, "code = = 404", null));
        bad.add(new Query("unknown field", Demo.PLAIN_TABLE, "nope = 1 AND code = 404", null));
        bad.add(new Query("wrong type (a string for an int32 field)", Demo.PLAIN_TABLE, "code = 'abc'", null));
        bad.add(new Query("wrong type (an int for a bool field)", NO_CATALOG_TABLE, "free = 5", plain));
        bad.add(new Query("a range on an md5 field", Demo.PLAIN_TABLE, "md5url > 'a'", null));
        StringBuilder longest = new StringBuilder("code = 404");
        while (longest.length() <= (1 << 20)) {
            longest.append(" AND sdate >= 20161201");
        }
        bad.add(new Query("too long (over 1 MiB)", Demo.PLAIN_TABLE, longest.toString(), null));
        StringBuilder ors = new StringBuilder("code = 0");
        for (int i = 1; i <= 64; i++) {
            ors.append(" OR code = ").append(i);
        }
        bad.add(new Query("too many OR branches", NO_CATALOG_TABLE, ors.toString(), plain));
        for (Query q : bad) {
            try {
                RowKeyQuery.parse(q.schema != null ? q.schema : plain, q.where);
                throw new IllegalStateException("Java's parser accepts the bad where clause of " + q.name);
            } catch (IllegalArgumentException e) {
                q.reason = e.getMessage();
            }
        }
        Query badSchema = new Query("bad schema text", NO_CATALOG_TABLE, "code = 1", null);
        try {
            RowKeySchema.parse("code int33");
            throw new IllegalStateException("Java's parser accepts the schema 'code int33'");
        } catch (IllegalArgumentException e) {
            badSchema.reason = e.getMessage();
        }
        bad.add(badSchema);
        Query noSchema = new Query("no schema on a table without a catalog", NO_CATALOG_TABLE, "code = 404", null);
        noSchema.reason = "has no schema: the table was not made by RowKeyTable.create";
        bad.add(noSchema);
        return bad;
    }

    /**
     * HBase's Thrift1 gateway in this JVM, on the embedded cluster, RowKeyWhere known to it only
     * through its configuration, as a gateway's hbase-site.xml would give it.
     */
    private ThriftServer startGateway(int port) throws Exception {
        Configuration conf = HBaseConfiguration.create(connection.getConfiguration());
        conf.set("hbase.thrift.filters", RowKeyWhere.NAME + ":" + RowKeyWhere.class.getName());
        conf.set("hbase.regionserver.thrift.ipaddress", "127.0.0.1");
        conf.setInt("hbase.regionserver.thrift.port", port);
        conf.setInt("hbase.thrift.info.port", -1);
        ThriftServer server = new ThriftServer(conf);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread serving = new Thread(() -> {
            try {
                server.run(null);
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "thrift-gateway");
        serving.setDaemon(true);
        serving.start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            if (failed.get() != null) {
                throw new IllegalStateException("the Thrift gateway failed to start", failed.get());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return server;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Thrift gateway did not listen on port " + port + " within 60 s", e);
                }
                Thread.sleep(200);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void writeExpected(Path file, int port, List<Query> queries, List<Query> bad) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("{\"host\": \"127.0.0.1\", \"port\": " + port + ",\n \"queries\": [\n");
            for (int i = 0; i < queries.size(); i++) {
                writeQuery(w, queries.get(i));
                w.write(i + 1 < queries.size() ? ",\n" : "\n");
            }
            w.write("],\n \"bad\": [\n");
            for (int i = 0; i < bad.size(); i++) {
                writeQuery(w, bad.get(i));
                w.write(i + 1 < bad.size() ? ",\n" : "\n");
            }
            w.write("]}\n");
        }
    }

    private static void writeQuery(Writer w, Query q) throws IOException {
        String schemaText = q.name.equals("bad schema text") ? "code int33" : q.schema == null ? null : q.schema.toText();
        w.write("  {\"name\": " + json(q.name) + ", \"table\": " + json(q.table.getNameAsString()) + ", \"where\": " + json(q.where)
                + ", \"schema\": " + json(schemaText));
        if (q.reason != null) {
            w.write(", \"reason\": " + json(q.reason));
        } else {
            // What RowKeyWhere.filterString writes, for the script to check its own quoting against.
            w.write(", \"filter\": " + json(RowKeyWhere.filterString(q.where, q.schema)));
            w.write(", \"keys\": [" + String.join(", ", q.keys.stream().map(ThriftCheck::json).toArray(String[]::new)) + "]");
            w.write(", \"urls\": [" + String.join(", ", q.urls.stream().map(ThriftCheck::json).toArray(String[]::new)) + "]");
        }
        w.write("}");
    }

    private static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }
}
