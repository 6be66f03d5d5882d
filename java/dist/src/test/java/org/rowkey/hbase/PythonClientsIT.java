package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every documented client path that is not Java, on a real HBase: HBase's Thrift1 gateway started
 * by {@code java/thrift/gateway.sh} ({@code cargo make thrift start}) in its own JVM against this
 * minicluster, the Python package (the wheel {@code cargo make python} installs in
 * {@code target/python/venv}, with happybase) and its pytest suite against that gateway, the README's
 * Python block and the docs' command lines run as written (only the gateway's and ZooKeeper's
 * addresses and the class path replaced). The tables are seed 000's (its sample rows and generated
 * ones): {@code urlscan} and {@code urlscan_salted} made by {@link RowKeyTable#create} with indexes,
 * and {@code urlscan_plain}, the same rows without a catalog. Java's client gives every expected
 * answer: the rows of each query ({@link RowKeyTable#scan} and {@code toScan()}, which must agree),
 * the parser's reason for each bad one, aggregates, and keys of random rows of every field type.
 *
 * <p>The server-side refusals that stop a text query from answering nothing without an error
 * (a schema that is not the catalog's; one whose keys are of another width) are checked here from
 * Java too.
 */
class PythonClientsIT extends HBaseMiniClusterBase {
    static final TableName PLAIN = TableName.valueOf("urlscan");
    static final TableName SALTED = TableName.valueOf("urlscan_salted");
    static final TableName NO_CATALOG = TableName.valueOf("urlscan_plain");
    static final byte[] F = Bytes.toBytes("f");
    static final byte[] URL = Bytes.toBytes("url");
    static final RowKeySchema SCHEMA = TestData.seedSchema();
    static final RowKeySchema SALTED_SCHEMA = RowKeySchema.parse("salt 16 buckets of (md5url), " + SCHEMA.toText());
    /** The README's partial schema: narrower than the tables' 37-byte keys. */
    static final String NARROW = "md5url md5(8), code int32, free bool";
    static final int ROWS = Integer.getInteger("rowkey.python.rows", 3_000);
    static final int DAYS = 31;
    static final int FIRST_DAY = 20161201;
    /** Seed 000's sample rows with their URLs, which md5url hashes (SeedTableIT's give the MD5s' hex). */
    static final Object[][] SAMPLES = {
        {"http://www.nmlc.gov.cn/zsyz.htm", "1509250008", -1, 404, 20161209, 2, false, false, 1, 1},
        {"http://www.xzxzzx.gov.cn:8000/wbsprj/indexlogin.do", "3203000002", -1, 503, 20161209, 2, false, false, 1, 0},
        {"http://www.nmds.gov.cn/portal/bsfw/nsfd/list_1.shtml", "15BM010001", -1, 404, 20161209, 2, false, false, 0, 0},
        {"http://beijing.customs.gov.cn/publish/portal159/tab60561/", "bm28020001", -1, 503, 20161209, 2, false, false, 1, 0},
        {"http://www.nss184.com/web2/newlist_index.aspx?classid=1", "BT10000001", -1, 404, 20161210, 2, false, true, 1, 0},
        {"http://cgw.bjdch.gov.cn/n1569/n4860273/n9719314/index.html", "1101010059", -1, 503, 20161208, 2, true, false, 1, 0},
        {"http://www.qdn.gov.cn/zwdt/ztfw/shbzfw.htm", "5226000038", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.caac.gov.cn/E1/E2/", "bm70000001", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.ny.xwie.com/Thought/", "4408250003", -1, 404, 20161209, 2, false, false, 1, 0},
        {"http://www.guoluo.gov.cn/html/1746/List.html", "6326000004", -1, 404, 20161209, 2, false, false, 1, 0},
    };

    private Path repo;
    private Path work;
    private String python;
    private int port;
    private final List<String> urls = new ArrayList<>();
    private final List<Map<String, Object>> rows = new ArrayList<>();

    @BeforeAll
    void loadTablesAndStartTheGateway() throws Exception {
        repo = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (!Files.exists(repo.resolve("Makefile.toml"))) {
            repo = repo.getParent();
            assertNotNull(repo, "no Makefile.toml above " + System.getProperty("user.dir"));
        }
        work = repo.resolve("java/dist/target/python-clients");
        Files.createDirectories(work);
        python = repo.resolve("target/python/venv/bin/python").toString();
        if (!Files.isExecutable(Paths.get(python))) {
            fail("no Python with the hbase_rowkey wheel at " + python + ": run `cargo make python` first");
        }
        for (int i = 0; i < ROWS; i++) {
            rows.add(row(i));
        }
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, PLAIN, SCHEMA, Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").include("f"),
                    RowKeyIndex.of("by_type_queue_free", "type", "queue", "free")), splits(64), F);
            RowKeyTable.create(admin, SALTED, SALTED_SCHEMA, Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").salt(4)
                    .include("f")), splits(4), F);
            admin.createTable(TableDescriptorBuilder.newBuilder(NO_CATALOG).setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
                    .build(), splits(64));
        }
        load(PLAIN, SCHEMA);
        load(SALTED, SALTED_SCHEMA);
        load(NO_CATALOG, SCHEMA);
        port = freePort();
        gateway("start", "--zookeeper", "127.0.0.1:" + conf().get("hbase.zookeeper.property.clientPort"), "--port",
                String.valueOf(port));
    }

    @AfterAll
    void stopTheGateway() throws Exception {
        if (work != null) {
            gateway("stop");
        }
    }

    /** Runs java/thrift/gateway.sh with this test's own state directory; fails on a non-zero exit. */
    private void gateway(String... args) throws Exception {
        List<String> command = new ArrayList<>(Arrays.asList("bash", repo.resolve("java/thrift/gateway.sh").toString()));
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("gateway-" + args[0] + ".out").toFile());
        pb.environment().put("ROWKEY_GATEWAY_DIR", work.resolve("gateway").toString());
        pb.environment().put("ROWKEY_JAR", System.getProperty("rowkey.test.jar"));
        Process p = pb.start();
        boolean done = p.waitFor(300, TimeUnit.SECONDS);
        String out = read(work.resolve("gateway-" + args[0] + ".out"));
        System.out.print(out);
        if (!done || p.exitValue() != 0) {
            p.destroyForcibly();
            fail("gateway.sh " + String.join(" ", args) + " failed: " + out);
        }
    }

    /** 4 regions: by the first key byte (the md5 prefix), or by salt bucket. */
    private static byte[][] splits(int step) {
        return new byte[][] {{(byte) step}, {(byte) (2 * step)}, {(byte) (3 * step)}};
    }

    /** Row {@code i}: a sample, else generated (31 days of each URL), md5url the URL that the key hashes. */
    static Map<String, Object> row(int i) {
        Map<String, Object> row = new LinkedHashMap<>();
        if (i < SAMPLES.length) {
            for (int f = 0; f < SeedTableIT.FIELDS.length; f++) {
                row.put(SeedTableIT.FIELDS[f], SAMPLES[i][f]);
            }
            return row;
        }
        int u = (i - SAMPLES.length) / DAYS;
        SplittableRandom r = new SplittableRandom(1_000_003L * i);
        row.put("md5url", url(u));
        row.put("sitecode", String.format(Locale.ROOT, "%04d%06d", u % 20, u % 2000));
        row.put("status", r.nextInt(10) < 8 ? -1 : r.nextInt(2));
        int c = r.nextInt(100);
        row.put("code", c < 40 ? 404 : c < 60 ? 503 : c < 90 ? 200 : 301);
        row.put("sdate", FIRST_DAY + (i - SAMPLES.length) % DAYS);
        row.put("type", 1 + r.nextInt(4));
        row.put("free", r.nextInt(10) == 0);
        row.put("close", r.nextInt(20) == 0);
        row.put("queue", r.nextInt(4));
        row.put("scantype", r.nextInt(3));
        return row;
    }

    static String url(int u) {
        return "http://www.site" + (u % 200) + ".gov.cn/page/" + u + ".html";
    }

    private void load(TableName name, RowKeySchema schema) throws IOException {
        try (Table table = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (Map<String, Object> r : rows) {
                batch.add(new Put(schema.encode(r)).addColumn(F, URL, Bytes.toBytes((String) r.get("md5url"))));
                if (batch.size() == 500) {
                    table.put(batch);
                    batch.clear();
                }
            }
            table.put(batch);
        }
    }

    // ---------------------------------------------------------------- the Python package's suite

    /** One scan the Python suite makes: a where clause on a table, its schema given or the catalog's. */
    private static final class Query {
        final String name;
        final TableName table;
        final String where;
        /** Null: the table's catalog. */
        final RowKeySchema schema;
        final List<Result> results = new ArrayList<>();

        Query(String name, TableName table, String where, RowKeySchema schema) {
            this.name = name;
            this.table = table;
            this.where = where;
            this.schema = schema;
        }

        RowKeySchema schemaOn() {
            return schema != null ? schema : table.equals(SALTED) ? SALTED_SCHEMA : SCHEMA;
        }
    }

    @Test
    void thePythonPackagesSuitePassesThroughTheGateway() throws Exception {
        List<Query> queries = queries();
        for (Query q : queries) {
            expectRows(q);
        }
        Path expected = work.resolve("expected.json");
        Files.write(expected, HexJson.of(expectations(queries)).getBytes(StandardCharsets.UTF_8));
        Path log = work.resolve("pytest.out");
        ProcessBuilder pb = new ProcessBuilder(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests")
                .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("ROWKEY_GATEWAY_EXPECTED", expected.toString());
        Process p = pb.start();
        boolean done = p.waitFor(600, TimeUnit.SECONDS);
        String out = read(log);
        System.out.print(out);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done && p.exitValue() == 0, "pytest python/tests through the gateway failed:\n" + out);
        assertTrue(out.contains(" passed"), out);
    }

    private List<Query> queries() {
        List<Query> q = new ArrayList<>();
        String seed1 = "md5url = 'http://cgw.bjdch.gov.cn/n1569/n4860273/n9719314/index.html' AND sdate = 20161208";
        String[] someUrls = new String[5];
        for (int i = 0; i < someUrls.length; i++) {
            someUrls[i] = "'" + url((i * 37) % ((ROWS - SAMPLES.length) / DAYS)) + "'";
        }
        String in5 = "md5url IN (" + String.join(", ", someUrls) + ")";
        String[][] fixed = {
            {"seed 1", seed1},
            {"seed 2", "sdate = 20161209 AND code = 404"},
            {"seed 3", "md5url = '" + url(7) + "' AND sdate > 20161203 AND sdate < 20161215"},
            {"IN (5) AND code", in5 + " AND code = 404"},
            {"IN (5) AND status AND code IN", in5 + " AND status = -1 AND code IN (404, 503)"},
            {"no leading field", "type IN (1, 2) AND queue = 0 AND free"},
            {"quotes in a value", "md5url = 'http://it''s/' OR sitecode = 'bm70000001'"},
            {"int32 extremes", "status BETWEEN -2147483648 AND 2147483647 AND code <> 200"},
            {"everything", "TRUE"},
        };
        for (String[] f : fixed) {
            q.add(new Query(f[0], PLAIN, f[1], null));
            q.add(new Query(f[0] + " (schema given)", NO_CATALOG, f[1], SCHEMA));
        }
        q.add(new Query("salted: md5url AND sdate >=", SALTED, "md5url = '" + url(7) + "' AND sdate >= 20161220", null));
        q.add(new Query("salted: sdate AND code", SALTED, "sdate = 20161209 AND code = 503", null));
        Random random = new Random(20161209);
        for (int i = 0; i < 30; i++) {
            String where = randomWhere(random);
            q.add(i % 3 == 0 ? new Query("random " + i + " (schema given)", NO_CATALOG, where, SCHEMA)
                    : new Query("random " + i, i % 3 == 1 ? PLAIN : SALTED, where, null));
        }
        return q;
    }

    /** Where clauses in the text syntax, values taken from the rows. */
    private String randomWhere(Random random) {
        int branches = random.nextInt(4) == 0 ? 2 : 1;
        List<String> ors = new ArrayList<>();
        for (int b = 0; b < branches; b++) {
            Map<String, Object> row = rows.get(random.nextInt(rows.size()));
            List<String> and = new ArrayList<>();
            int conditions = 1 + random.nextInt(3);
            for (int c = 0; c < conditions; c++) {
                switch (random.nextInt(9)) {
                    case 0: and.add("md5url = '" + row.get("md5url") + "'"); break;
                    case 1: and.add("md5url IN ('" + row.get("md5url") + "', '" + rows.get(random.nextInt(rows.size())).get("md5url") + "')"); break;
                    case 2: {
                        int from = FIRST_DAY + random.nextInt(DAYS);
                        and.add("sdate BETWEEN " + from + " AND " + (from + random.nextInt(5)));
                        break;
                    }
                    case 3: and.add("sdate " + (random.nextBoolean() ? ">= " : "< ") + row.get("sdate")); break;
                    case 4: and.add(random.nextBoolean() ? "code IN (404, 503)" : "code " + (random.nextBoolean() ? "= " : "<> ") + row.get("code")); break;
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

    /** The query's rows in key order, through {@code toScan()}; on a table with a catalog {@code RowKeyTable.scan} must agree. */
    private void expectRows(Query q) throws IOException {
        RowKeyQuery query = RowKeyQuery.parse(q.schemaOn(), q.where);
        try (Table table = connection().getTable(q.table); ResultScanner scanner = table.getScanner(query.toScan())) {
            for (Result r : scanner) {
                q.results.add(r);
            }
        }
        if (q.schema == null) {
            List<String> planned = new ArrayList<>();
            for (Result r : q.results) {
                planned.add(Bytes.toHex(r.getRow()));
            }
            List<String> viaTable = new ArrayList<>();
            try (ResultScanner scanner = RowKeyTable.open(connection(), q.table).scan(query)) {
                for (Result r : scanner) {
                    viaTable.add(Bytes.toHex(r.getRow()));
                }
            }
            viaTable.sort(null);
            assertEquals(planned, viaTable, "RowKeyTable.scan and toScan() disagree on " + q.name + ": " + q.where);
        }
    }

    private Map<String, Object> expectations(List<Query> queries) throws IOException {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("host", "127.0.0.1");
        e.put("port", port);
        e.put("schema", SCHEMA.toText());
        e.put("salted_schema", SALTED_SCHEMA.toText());
        e.put("narrow_schema", NARROW);
        e.put("no_catalog_table", NO_CATALOG.getNameAsString());
        List<Object> qs = new ArrayList<>();
        for (Query q : queries) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", q.name);
            m.put("table", q.table.getNameAsString());
            m.put("where", q.where);
            m.put("schema", q.schema == null ? null : q.schema.toText());
            m.put("filter", RowKeyWhere.filterString(q.where, q.schema));
            List<Object> found = new ArrayList<>();
            for (Result r : q.results) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("key", Bytes.toHex(r.getRow()));
                row.put("url", Bytes.toString(r.getValue(F, URL)));
                row.put("fields", q.schemaOn().decode(r.getRow()));
                found.add(row);
            }
            m.put("rows", found);
            qs.add(m);
        }
        e.put("queries", qs);
        e.put("bad", badQueries());
        e.put("aggregates", aggregates());
        e.put("vectors", vectors());
        return e;
    }

    /** Where clauses the parser refuses, each with Java's reason; Python must refuse them with the same. */
    private static List<Object> badQueries() {
        List<Object> bad = new ArrayList<>();
        StringBuilder longest = new StringBuilder("code = 404");
        while (longest.length() <= (1 << 20)) {
            longest.append(" AND sdate >= 20161201");
        }
        StringBuilder ors = new StringBuilder("code = 0");
        for (int i = 1; i <= 64; i++) {
            ors.append(" OR code = ").append(i);
        }
        Object[][] cases = {
            {"syntax error", PLAIN, "code = = 404", null},
            {"unknown field", PLAIN, "nope = 1 AND code = 404", null},
            {"a string for an int32 field", PLAIN, "code = 'abc'", null},
            {"an int for a bool field", NO_CATALOG, "free = 5", SCHEMA},
            {"a range on an md5 field", PLAIN, "md5url > 'a'", null},
            {"over 1 MiB of text", PLAIN, longest.toString(), null},
            {"65 OR branches", NO_CATALOG, ors.toString(), SCHEMA},
        };
        for (Object[] c : cases) {
            RowKeySchema schema = c[3] != null ? (RowKeySchema) c[3] : SCHEMA;
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.parse(schema, (String) c[2]),
                    "Java's parser accepts " + c[0]);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c[0]);
            m.put("table", ((TableName) c[1]).getNameAsString());
            m.put("where", c[2]);
            m.put("schema", c[3] == null ? null : schema.toText());
            m.put("reason", refused.getMessage());
            bad.add(m);
        }
        return bad;
    }

    /** Aggregates of the data tables, answered by Java's {@code RowKeyTable.aggregate} (which may read an index). */
    private List<Object> aggregates() throws IOException {
        Object[][] cases = {
            {PLAIN, "sdate BETWEEN 20161201 AND 20161231", new String[] {"code"}},
            {PLAIN, "TRUE", new String[] {"sdate", "code"}},
            {PLAIN, "code = 404 AND NOT free", new String[0]},
            {SALTED, "sdate >= 20161215", new String[] {"type", "free"}},
            {PLAIN, "code = 999", new String[0]},
        };
        List<Object> out = new ArrayList<>();
        for (Object[] c : cases) {
            TableName name = (TableName) c[0];
            RowKeySchema schema = name.equals(SALTED) ? SALTED_SCHEMA : SCHEMA;
            String[] groups = (String[]) c[2];
            Aggregation a = Aggregation.on(schema).groupBy(groups).count().sum("queue").min("sdate").max("queue").avg("queue");
            AggregationResult result = RowKeyTable.open(connection(), name).aggregate(RowKeyQuery.parse(schema, (String) c[1]), a);
            List<String> columns = new ArrayList<>(Arrays.asList(groups));
            columns.addAll(Arrays.asList("count", "sum(queue)", "min(sdate)", "max(queue)", "avg(queue)"));
            List<Object> answer = new ArrayList<>();
            for (AggregationResult.Row r : result.rows()) {
                List<Object> values = new ArrayList<>(r.groups().values());
                values.addAll(r.values());
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    row.put(columns.get(i), values.get(i));
                }
                answer.add(row);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("table", name.getNameAsString());
            m.put("where", c[1]);
            m.put("group_by", Arrays.asList(groups));
            m.put("aggregates", columns.subList(groups.length, columns.size()));
            m.put("rows", answer);
            out.add(m);
        }
        return out;
    }

    /** Random rows of a schema of every field type and encoding, with the keys Java's RowKeySchema makes. */
    private static Map<String, Object> vectors() {
        RowKeySchema every = RowKeySchema.parse("salt 7 buckets of (s, h), i int32, l int64 DESC, t timestamp, r reversedTimestamp,"
                + " b bool, c bool DESC, s fixedString(6), d fixedString(3) DESC, x fixedBytes(3), m md5(5), h javaHash");
        SplittableRandom r = new SplittableRandom(37);
        String[] texts = {"", "a", "héllo", "zzzzzz", "€", "it's", "\uD83D\uDE00", "ab\u00e9"};
        List<Object> out = new ArrayList<>();
        for (int n = 0; n < 300; n++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("i", n % 7 == 0 ? Integer.MIN_VALUE : n % 7 == 1 ? Integer.MAX_VALUE : r.nextInt());
            row.put("l", n % 5 == 0 ? Long.MIN_VALUE : n % 5 == 1 ? Long.MAX_VALUE : r.nextLong());
            row.put("t", r.nextLong());
            row.put("r", n % 3 == 0 ? 0L : r.nextLong(Long.MAX_VALUE));
            row.put("b", r.nextBoolean());
            row.put("c", r.nextBoolean());
            String s = texts[r.nextInt(texts.length)];
            row.put("s", s.getBytes(StandardCharsets.UTF_8).length <= 6 ? s : "x");
            row.put("d", new String[] {"", "a", "ab", "\u20ac", "zzz"}[r.nextInt(5)]);
            byte[] x = new byte[3];
            for (int i = 0; i < 3; i++) {
                x[i] = (byte) r.nextInt(256);
            }
            row.put("x", x);
            row.put("m", texts[r.nextInt(texts.length)] + n);
            row.put("h", texts[r.nextInt(texts.length)] + (n % 11));
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("row", row);
            byte[] key = every.encode(row);
            v.put("key", Bytes.toHex(key));
            v.put("fields", every.decode(key));
            out.add(v);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("schema", every.toText());
        m.put("rows", out);
        return m;
    }

    // ---------------------------------------------------------------- the README and the command lines, as written

    @Test
    void theReadmesPythonBlockRunsAsWritten() throws Exception {
        String readme = read(repo.resolve("README.md"));
        Matcher block = Pattern.compile("(?s)```python\n(.*?)```").matcher(readme);
        assertTrue(block.find(), "README.md has no ```python block");
        String code = block.group(1);
        String address = "happybase.Connection(\"localhost\", 9090)";
        assertTrue(code.contains(address), "the README's Python block must connect with " + address);
        code = code.replace(address, "happybase.Connection(\"127.0.0.1\", " + port + ")");
        Path script = work.resolve("readme_block.py");
        Files.write(script, (code).getBytes(StandardCharsets.UTF_8));
        Process p = new ProcessBuilder(python, script.toString()).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("readme_block.out").toFile()).start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the README's Python block still runs after 300 s");
        String out = read(work.resolve("readme_block.out"));
        System.out.print(out);
        assertEquals(0, p.exitValue(), "the README's Python block failed:\n" + out);

        // What it prints: seed 2's rows without free ones, the counts per code, then the parser's reason.
        RowKeyQuery seed2 = RowKeyQuery.parse(SCHEMA, "sdate = 20161209 AND code = 404 AND NOT free");
        List<String> want = new ArrayList<>();
        try (ResultScanner rs = RowKeyTable.open(connection(), PLAIN).scan(seed2)) {
            for (Result r : rs) {
                Map<String, Object> key = SCHEMA.decode(r.getRow());
                want.add(key.get("sdate") + " " + key.get("code") + " " + Bytes.toString(r.getValue(F, URL)));
            }
        }
        want.sort(null);
        AggregationResult perCode = RowKeyTable.open(connection(), PLAIN).aggregate(
                RowKeyQuery.parse(SCHEMA, "sdate BETWEEN 20161201 AND 20161231"), Aggregation.on(SCHEMA).groupBy("code").count());
        List<String> counts = new ArrayList<>();
        for (AggregationResult.Row r : perCode.rows()) {
            counts.add(r.group("code") + " " + r.value(0));
        }
        List<String> lines = Arrays.asList(out.split("\n"));
        assertTrue(lines.size() == want.size() + counts.size() + 1, "printed " + lines.size() + " lines, want " + want.size()
                + " rows, " + counts.size() + " counts and the error:\n" + out);
        List<String> printedRows = new ArrayList<>(lines.subList(0, want.size()));
        printedRows.sort(null);
        assertEquals(want, printedRows);
        assertEquals(counts, lines.subList(want.size(), want.size() + counts.size()));
        assertTrue(lines.get(lines.size() - 1).contains("syntax error at character 8"), lines.get(lines.size() - 1));
    }

    @Test
    void theDocumentedCommandLinesRunAsWritten() throws Exception {
        Pattern command = Pattern.compile("(?m)^java -cp hbase-rowkey\\.jar:\\$\\(hbase classpath\\) org\\.rowkey\\.hbase\\.RowKeyCli (?:[^\n]*\\\\\n)*[^\n]*$");
        int ran = 0;
        for (String doc : Arrays.asList("README.md", "docs/text-queries.md", "docs/operations.md")) {
            Matcher m = command.matcher(read(repo.resolve(doc)));
            while (m.find()) {
                String line = m.group().replace("hbase-rowkey.jar:$(hbase classpath)", "'" + System.getProperty("java.class.path") + "'")
                        .replace("zk1:2181", "127.0.0.1:" + conf().get("hbase.zookeeper.property.clientPort"));
                Process p = new ProcessBuilder("bash", "-c", line).directory(work.toFile())
                        .redirectOutput(work.resolve("cli.out").toFile()).redirectError(work.resolve("cli.err").toFile()).start();
                assertTrue(p.waitFor(180, TimeUnit.SECONDS), doc + ": still running after 180 s: " + m.group());
                String out = read(work.resolve("cli.out"));
                String err = read(work.resolve("cli.err"));
                assertEquals(0, p.exitValue(), doc + ": " + m.group() + "\nexited " + p.exitValue() + ":\n" + out + err);
                String where = m.group().substring(m.group().lastIndexOf(" \"") + 2, m.group().length() - 1);
                if (m.group().contains("RowKeyCli status")) {
                    assertTrue(out.contains("table urlscan (catalog version 0)\n  schema: " + SCHEMA.toText()), out); // a client log may precede it
                } else if (m.group().contains("RowKeyCli verify")) {
                    assertTrue(out.contains("  index by_date_code: ") && out.contains(" 0 differences, 0 repaired"), out);
                } else if (m.group().contains("RowKeyCli query")) {
                    // The header, then a row a line (its md5url first, as x'...'); a client's log may
                    // share stdout.
                    long want = count(PLAIN, SCHEMA, where);
                    long printed = Arrays.stream(out.split("\n")).filter(l -> l.startsWith("x'")).count();
                    assertTrue(out.contains(String.join("\t", SCHEMA.fieldNames()) + "\tcells\n"), out);
                    assertEquals(want, printed, doc + ": " + m.group() + " printed:\n" + out);
                } else {
                    assertTrue(out.contains(where) || out.contains("RANGE") || out.contains("INDEX"), doc + ": " + m.group() + ":\n" + out);
                }
                System.out.println(doc + ": ran as written: " + m.group().replace("\\\n", " ") + "\n  " + out.split("\n").length
                        + " lines out; " + err.trim());
                ran++;
            }
        }
        assertTrue(ran >= 5, "the README, docs/text-queries.md and docs/operations.md show " + ran + " RowKeyCli command lines,"
                + " at least 5 expected");
    }

    /**
     * The shell's lines: {@code scan 't', {FILTER => "..."}} is {@code ParseFilter.parseFilterString}
     * and a scan (what FilterLanguageIT runs for the shell); the rows must be Java's own.
     */
    @Test
    void theDocumentedShellScansReturnJavasRows() throws Exception {
        RowKeyWhere.register();
        Pattern scan = Pattern.compile("(?m)^hbase> scan '([^']+)', \\{FILTER => \"(RowKeyWhere\\('((?:[^']|'')*)'(?:, '((?:[^']|'')*)')?\\))\"\\}$");
        int ran = 0;
        for (String doc : Arrays.asList("README.md", "docs/text-queries.md")) {
            Matcher m = scan.matcher(read(repo.resolve(doc)));
            while (m.find()) {
                TableName name = TableName.valueOf(m.group(1));
                String where = m.group(3).replace("''", "'");
                RowKeySchema schema = m.group(4) != null ? RowKeySchema.parse(m.group(4).replace("''", "'")) : SCHEMA;
                List<byte[]> got = scanRowKeys(name, new ParseFilter().parseFilterString(m.group(2)));
                assertEquals(count(name, schema, where), got.size(), doc + ": " + m.group());
                assertTrue(got.size() > 0, doc + ": " + m.group() + " returns no row on the tables it names");
                ran++;
            }
        }
        assertTrue(ran >= 4, "the README and docs/text-queries.md show " + ran + " shell scans, at least 4 expected");
    }

    private long count(TableName name, RowKeySchema schema, String where) throws IOException {
        long n = 0;
        try (Table table = connection().getTable(name);
                ResultScanner rs = table.getScanner(RowKeyQuery.parse(schema, where).toScan())) {
            for (Result ignored : rs) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- no silent zero rows

    @Test
    void aSchemaGivenOnATableWithACatalogMustBeTheCatalogs() throws Exception {
        RowKeyWhere.register();
        Scan narrow = new Scan().setFilter(new ParseFilter().parseFilterString(
                RowKeyWhere.filterString("code = 404", RowKeySchema.parse(NARROW))));
        Exception e = assertThrows(Exception.class, () -> scanRowKeys(PLAIN, narrow));
        assertTrue(String.valueOf(e.getMessage()).contains("the schema given is not the table's, whose catalog says"), e.toString());
        // The catalog's own schema, given: the same rows as without it.
        List<byte[]> given = scanRowKeys(PLAIN, new ParseFilter().parseFilterString(RowKeyWhere.filterString("code = 404", SCHEMA)));
        List<byte[]> catalogs = scanRowKeys(PLAIN, new ParseFilter().parseFilterString(RowKeyWhere.filterString("code = 404", null)));
        assertEquals(catalogs.size(), given.size());
        assertTrue(given.size() > 0);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"query", "--table", PLAIN.getNameAsString(),
            "--schema", NARROW, "code = 404"}), new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8")));
        assertTrue(err.toString("UTF-8").contains("is not the schema of table urlscan"), err.toString("UTF-8"));
    }

    @Test
    void aSchemaOfAnotherKeyWidthIsAnErrorNotZeroRows() throws Exception {
        RowKeyWhere.register();
        // Every row of the region is read and none has the schema's width: the scan fails.
        Scan scan = new Scan().setFilter(new ParseFilter().parseFilterString(
                RowKeyWhere.filterString("code = 404 AND NOT free", RowKeySchema.parse(NARROW))));
        Exception e = assertThrows(Exception.class, () -> scanRowKeys(NO_CATALOG, scan));
        assertTrue(String.valueOf(e.getMessage()).contains("rows read have keys of other widths"), e.toString());
        // Too few rows in the ranges for the filter to tell: the command line reads the first key.
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"query", "--table",
            NO_CATALOG.getNameAsString(), "--schema", NARROW, "md5url = 'http://nowhere/' AND code = 404"}),
                new PrintStream(new ByteArrayOutputStream(), true, "UTF-8"), new PrintStream(err, true, "UTF-8")));
        assertTrue(err.toString("UTF-8").contains("its first row key has 37 bytes"), err.toString("UTF-8"));
        // The table's own schema finds its rows, and a query that matches nothing is 0 rows, no error.
        assertEquals(0, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"query", "--table",
            NO_CATALOG.getNameAsString(), "--schema", SCHEMA.toText(), "code = 999"}),
                new PrintStream(new ByteArrayOutputStream(), true, "UTF-8"), new PrintStream(new ByteArrayOutputStream(), true, "UTF-8")));
    }

    @Test
    void aScanWithTheCatalogAttributeReturnsTheCatalogInOneRow() throws Exception {
        Scan scan = new Scan().setAttribute(CoprocessorWire.CATALOG_REQUEST, new byte[] {1}).setCaching(1).setLimit(1);
        try (Table table = connection().getTable(PLAIN); ResultScanner rs = table.getScanner(scan)) {
            Result r = rs.next();
            assertNotNull(r);
            Cell cell = r.getColumnLatestCell(F, CoprocessorWire.CATALOG_QUALIFIER);
            assertNotNull(cell, r.toString());
            byte[] stored;
            try (Admin admin = connection().getAdmin()) {
                stored = admin.getDescriptor(PLAIN).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
            }
            assertTrue(Bytes.equals(stored, CellUtil.cloneValue(cell)));
            assertEquals(SCHEMA, Catalog.parse(CellUtil.cloneValue(cell)).schema());
        }
        // A table without the observer returns its rows: the client sees no catalog cell.
        try (Table table = connection().getTable(NO_CATALOG); ResultScanner rs = table.getScanner(scan)) {
            Result r = rs.next();
            assertNull(r.getColumnLatestCell(F, CoprocessorWire.CATALOG_QUALIFIER));
        }
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The expectations as JSON ({@link Json}), bytes as {"hex": ...}. */
    static final class HexJson {
        static String of(Object value) {
            return Json.of(hexBytes(value));
        }

        private static Object hexBytes(Object v) {
            if (v instanceof byte[]) {
                Map<String, Object> hex = new LinkedHashMap<>();
                hex.put("hex", Bytes.toHex((byte[]) v));
                return hex;
            } else if (v instanceof Map) {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    m.put(e.getKey(), hexBytes(e.getValue()));
                }
                return m;
            } else if (v instanceof List) {
                List<Object> l = new ArrayList<>();
                for (Object o : (List<?>) v) {
                    l.add(hexBytes(o));
                }
                return l;
            }
            return v;
        }
    }
}
