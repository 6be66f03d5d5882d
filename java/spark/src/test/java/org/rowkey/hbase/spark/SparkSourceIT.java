package org.rowkey.hbase.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.testing.TestingHBaseCluster;
import org.apache.hadoop.hbase.testing.TestingHBaseClusterOption;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * The Spark source on a real HBase (minicluster) and Spark's local mode, checked against an oracle:
 * every random query runs twice in Spark, on our source and on the rows of a plain full scan of the
 * same table (a DataFrame made from them), and the answers must be the same. Between rounds rows are
 * written, regions split and the table read again, so the tasks' regions change under the source.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkSourceIT {
    private static final byte[] F = Bytes.toBytes("f");
    private static final RowKeySchema SCHEMA = RowKeySchema.builder().int32("day").int32("code").fixedString("tag", 3)
            .int64("user").build();
    private static final String[] TAGS = {"a", "ab", "abc", "b", "zz"};
    private static final TableName NAME = TableName.valueOf("spark_urls");
    /** The same fields salted in four buckets by user: the planner fans every range out to the buckets. */
    private static final RowKeySchema SALTED_SCHEMA = RowKeySchema.builder().int32("day").int32("code").fixedString("tag", 3)
            .int64("user").salt(4, "user").build();
    private static final TableName SALTED = TableName.valueOf("spark_salted");
    private static final long SEED = Long.getLong("rowkey.spark.seed", System.nanoTime());

    private TestingHBaseCluster cluster;
    private Connection connection;
    private SparkSession spark;
    private final Map<String, String> options = new TreeMap<>();
    private long nextUser;

    @BeforeAll
    void start() throws Exception {
        Configuration conf = HBaseConfiguration.create();
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
        cluster = TestingHBaseCluster.create(TestingHBaseClusterOption.builder().conf(conf).numMasters(1)
                .numRegionServers(1).numDataNodes(1).build());
        cluster.start();
        connection = ConnectionFactory.createConnection(cluster.getConf());
        options.put("table", NAME.getNameAsString());
        options.put("zookeeper", cluster.getConf().get("hbase.zookeeper.quorum") + ":"
                + cluster.getConf().get("hbase.zookeeper.property.clientPort"));
        options.put("columns", "v f:v long, s f:s string");
        spark = SparkSession.builder().master("local[2]").appName("SparkSourceIT").config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4").getOrCreate();
        try (Admin admin = connection.getAdmin()) {
            byte[][] splits = new byte[3][];
            for (int i = 0; i < 3; i++) {
                Map<String, Object> at = new TreeMap<>();
                at.put("day", 5 * (i + 1));
                at.put("code", 0);
                at.put("tag", "");
                at.put("user", 0L);
                splits[i] = SCHEMA.encode(at);
            }
            RowKeyTable.create(admin, NAME, SCHEMA, Arrays.asList(RowKeyIndex.of("by_code", "code"),
                    RowKeyIndex.of("by_tag", "tag", "code").include("f", "v")), splits, F);
            RowKeyTable.create(admin, SALTED, SALTED_SCHEMA, Arrays.asList(RowKeyIndex.of("by_code", "code"),
                    RowKeyIndex.of("by_tag", "tag").salt(2).include("f", "v")), new byte[][] {{1}, {2}, {3}}, F);
        }
        System.out.println("SparkSourceIT: seed " + SEED + " (-Drowkey.spark.seed=" + SEED + " replays it)");
    }

    @AfterAll
    void stop() throws Exception {
        if (spark != null) {
            spark.stop();
        }
        if (connection != null) {
            connection.close();
        }
        if (cluster != null) {
            cluster.stop();
        }
    }

    private static RowKeySchema schemaOf(TableName table) {
        return table.equals(SALTED) ? SALTED_SCHEMA : SCHEMA;
    }

    private Map<String, String> optionsOf(TableName table) {
        Map<String, String> o = new TreeMap<>(options);
        o.put("table", table.getNameAsString());
        return o;
    }

    private void write(Random random, int n) throws Exception {
        write(NAME, random, n);
    }

    /** Writes {@code n} random rows: a fifth without cell v, a third without s. */
    private void write(TableName table, Random random, int n) throws Exception {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, Object> key = new TreeMap<>();
            key.put("day", random.nextInt(20));
            key.put("code", random.nextInt(10));
            key.put("tag", TAGS[random.nextInt(TAGS.length)]);
            key.put("user", nextUser++);
            Put put = new Put(schemaOf(table).encode(key));
            if (random.nextInt(5) > 0) {
                put.addColumn(F, Bytes.toBytes("v"), Bytes.toBytes((long) random.nextInt(1000) - 200));
            }
            if (random.nextInt(3) > 0) {
                put.addColumn(F, Bytes.toBytes("s"), Bytes.toBytes("s" + random.nextInt(7)));
            }
            if (put.isEmpty()) {
                put.addColumn(F, Bytes.toBytes("x"), new byte[0]); // a row needs a cell
            }
            puts.add(put);
        }
        try (Table t = connection.getTable(table)) {
            t.put(puts);
        }
    }

    /** Writes {@code n} random rows through the source ({@code mode("append")}): the indexes must follow them. */
    private void writeThroughSpark(TableName table, Random random, int n) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(RowFactory.create(random.nextInt(20), random.nextInt(10), TAGS[random.nextInt(TAGS.length)], nextUser++,
                    (long) random.nextInt(1000) - 200, random.nextBoolean() ? null : "s" + random.nextInt(7)));
        }
        StructType schema = spark.read().format("rowkey").options(optionsOf(table)).load().schema();
        spark.createDataFrame(rows, schema).repartition(3).write().format("rowkey").options(optionsOf(table)).mode("append")
                .save();
    }

    /** The oracle: the table read by a plain full scan, as a DataFrame of the same columns. */
    private Dataset<Row> plain(TableName table, StructType schema) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Table t = connection.getTable(table); ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                Map<String, Object> key = schemaOf(table).decode(r.getRow());
                byte[] v = r.getValue(F, Bytes.toBytes("v"));
                byte[] str = r.getValue(F, Bytes.toBytes("s"));
                rows.add(RowFactory.create(key.get("day"), key.get("code"), key.get("tag"), key.get("user"),
                        v == null ? null : Bytes.toLong(v), str == null ? null : Bytes.toString(str)));
            }
        }
        return spark.createDataFrame(rows, schema);
    }

    @ParameterizedTest
    @ValueSource(strings = {"spark_urls", "spark_salted"})
    void randomQueriesAnswerAsSparkDoesOnAPlainScan(String tableName) throws Exception {
        TableName table = TableName.valueOf(tableName);
        Random random = new Random(SEED + tableName.hashCode());
        write(table, random, 1500);
        int queries = 0;
        int pushedAggregates = 0;
        int regionReads = 0;
        int clientReads = 0;
        int orderedReads = 0;
        int orderedAfterFixed = 0;
        for (int round = 0; round < 4; round++) {
            Dataset<Row> ours = spark.read().format("rowkey").options(optionsOf(table)).load();
            assertEquals(Arrays.asList("day", "code", "tag", "user", "v", "s"), Arrays.asList(ours.schema().fieldNames()));
            ours.createOrReplaceTempView("rk");
            plain(table, ours.schema()).createOrReplaceTempView("plain");
            for (int i = 0; i < 30; i++) {
                String where = predicate(random, 2);
                String sql;
                int kind = random.nextInt(4);
                if (kind == 0 && random.nextInt(4) == 0) {
                    sql = random.nextBoolean() ? "SELECT DISTINCT day, code FROM %s WHERE " + where // Spark's to group
                            : "SELECT code, count(DISTINCT day), max(v) FROM %s WHERE " + where + " GROUP BY code";
                } else if (kind == 0) {
                    String groups = Arrays.asList("", "day", "code", "day, code", "tag").get(random.nextInt(5));
                    sql = "SELECT " + (groups.isEmpty() ? "" : groups + ", ") + "count(*), sum(v), min(user), max(v), avg(v),"
                            + " count(v), sum(code), avg(day) FROM %s WHERE " + where + (groups.isEmpty() ? "" : " GROUP BY " + groups);
                } else if (kind == 1) {
                    sql = "SELECT user, s FROM %s WHERE " + where;
                } else {
                    sql = "SELECT * FROM %s WHERE " + where;
                }
                String plan = spark.sql(String.format(sql, "rk")).queryExecution().executedPlan().toString();
                pushedAggregates += plan.contains("(in the regions)") ? 1 : 0;
                regionReads += plan.contains("one task per region") ? 1 : 0;
                clientReads += plan.contains("through our client") ? 1 : 0;
                List<String> expected = rows(spark.sql(String.format(sql, "plain")));
                List<String> got = rows(spark.sql(String.format(sql, "rk")));
                assertEquals(expected, got, "seed " + SEED + ", round " + round + ": " + String.format(sql, "rk") + "\n" + plan);
                if (kind == 3) {
                    int limit = random.nextInt(5) * 7;
                    List<String> limited = rows(spark.sql(String.format(sql, "rk") + " LIMIT " + limit));
                    assertEquals(Math.min(limit, expected.size()), limited.size(), sql + " LIMIT " + limit);
                    assertTrue(expected.containsAll(limited), sql + " LIMIT " + limit + " gave rows outside the answer");
                    // A third of them with the first key field fixed, so that a later one may lead the order.
                    boolean dayFixed = random.nextInt(3) == 0;
                    String orderWhere = dayFixed ? "day = " + random.nextInt(20) + " AND (" + where + ")" : where;
                    List<String> orderAnswer = dayFixed ? rows(spark.sql("SELECT * FROM plain WHERE " + orderWhere)) : expected;
                    String orderBy = orderBy(random, dayFixed);
                    String ordered = "SELECT * FROM %s WHERE " + orderWhere + " ORDER BY " + orderBy + " LIMIT " + limit;
                    String orderedPlan = spark.sql(String.format(ordered, "rk")).queryExecution().executedPlan().toString();
                    boolean inKeyOrder = orderedPlan.contains("in key order to the limit");
                    orderedReads += inKeyOrder ? 1 : 0;
                    orderedAfterFixed += inKeyOrder && dayFixed && !orderBy.startsWith("day") ? 1 : 0;
                    assertTopN(spark.sql(String.format(ordered, "plain")), spark.sql(String.format(ordered, "rk")), orderBy, orderAnswer,
                            "seed " + SEED + ", round " + round + ": " + String.format(ordered, "rk") + "\n" + orderedPlan);
                }
                queries++;
            }
            write(table, random, 150);
            writeThroughSpark(table, random, 150);
            try (Admin admin = connection.getAdmin()) {
                List<RegionInfo> regions = new ArrayList<>(admin.getRegions(table));
                regions.sort(RegionInfo.COMPARATOR);
                Map<String, Object> at = new TreeMap<>();
                at.put("day", random.nextInt(20));
                at.put("code", random.nextInt(10));
                at.put("tag", "");
                at.put("user", 0L);
                byte[] splitAt = schemaOf(table).encode(at);
                if (round % 2 == 1 && regions.size() > 2) {
                    // two neighbours merged, not waited for either
                    RegionInfo a = regions.get(random.nextInt(regions.size() - 1));
                    RegionInfo b = regions.stream().filter(r -> Bytes.equals(r.getStartKey(), a.getEndKey())).findFirst().get();
                    try {
                        admin.mergeRegionsAsync(new byte[][] {a.getRegionName(), b.getRegionName()}, false);
                    } catch (java.io.IOException notNow) {
                        System.out.println("SparkSourceIT: no merge this round: " + notNow.getMessage().split("\n")[0]);
                    }
                } else if (regions.stream().noneMatch(r -> Bytes.equals(r.getStartKey(), splitAt))) {
                    admin.flush(table);
                    try {
                        admin.split(table, splitAt); // not waited for: the next round may plan while it happens
                    } catch (org.apache.hadoop.hbase.DoNotRetryIOException notYet) {
                        // a daughter of the last split keeps references to its parent's files until compacted
                        System.out.println("SparkSourceIT: no split this round: " + notYet.getMessage().split("\n")[0]);
                    }
                }
                System.out.println("SparkSourceIT: " + tableName + " round " + round + ", " + regions.size() + " regions before a " + (round % 2 == 1 ? "merge" : "split"));
            }
        }
        System.out.println("SparkSourceIT: " + tableName + ": " + queries + " queries, " + pushedAggregates + " aggregates folded in the regions, "
                + regionReads + " read one task per region, " + clientReads + " through our client, " + orderedReads + " in key order to a limit (" + orderedAfterFixed + " led by a field after the fixed day)");
        assertTrue(pushedAggregates > 0 && regionReads > 0 && clientReads > 0, "every way of reading was checked");
        // A salted table sorts by bucket first: its ORDER BY is Spark's.
        assertTrue(schemaOf(table).isSalted() ? orderedReads == 0 : orderedReads > 0, orderedReads + " ORDER BY reads in key order");
    }

    /**
     * An ORDER BY of key fields: mostly the first ones (after day when the conditions fix it, day
     * itself sometimes still first), each direction random (often all one way), sometimes another.
     */
    private static String orderBy(Random random, boolean dayFixed) {
        if (random.nextInt(5) == 0) {
            return Arrays.asList("code", "user DESC", "v DESC, day", "tag, day").get(random.nextInt(4));
        }
        String[] fields = dayFixed && random.nextInt(3) > 0 ? new String[] {"code", "tag", "user"} : new String[] {"day", "code", "tag", "user"};
        int n = 1 + random.nextInt(fields.length);
        boolean oneWay = random.nextInt(3) > 0;
        boolean descending = random.nextBoolean();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(fields[i] + ((oneWay ? descending : random.nextBoolean()) ? " DESC" : ""));
        }
        return String.join(", ", out);
    }

    /**
     * The first rows of an ORDER BY ... LIMIT, which may break ties in the ordered columns either
     * way: the same number of rows, the ordered columns' values row by row as the plain scan's
     * of {@code orderBy}, and every row one of the query's answer.
     */
    private static void assertTopN(Dataset<Row> plain, Dataset<Row> ours, String orderBy, List<String> answer, String what) {
        List<Row> want = plain.collectAsList();
        List<Row> got = ours.collectAsList();
        assertEquals(want.size(), got.size(), what);
        String[] ordered = Arrays.stream(orderBy.split(",")).map(c -> c.trim().split(" ")[0]).toArray(String[]::new);
        for (int i = 0; i < want.size(); i++) {
            for (String c : ordered) {
                assertEquals(want.get(i).get(want.get(i).fieldIndex(c)), got.get(i).get(got.get(i).fieldIndex(c)), what + ": row " + i + ", " + c);
            }
            assertTrue(answer.contains(got.get(i).toString()), what + ": row " + got.get(i) + " is not an answer");
        }
        assertEquals(got.size(), new java.util.HashSet<>(got).size(), what + ": a row twice");
    }

    private static List<String> rows(Dataset<Row> df) {
        List<String> out = new ArrayList<>();
        for (Row r : df.collectAsList()) {
            out.add(r.toString());
        }
        Collections.sort(out);
        return out;
    }

    /** A random WHERE clause: key-field and cell conditions, AND, OR, NOT, either side literal. */
    private static String predicate(Random random, int depth) {
        if (depth > 0 && random.nextInt(3) == 0) {
            String a = predicate(random, depth - 1);
            String b = predicate(random, depth - 1);
            switch (random.nextInt(3)) {
                case 0: return "(" + a + " AND " + b + ")";
                case 1: return "(" + a + " OR " + b + ")";
                default: return "NOT (" + a + ")";
            }
        }
        String[] ops = {"=", "<>", "<", "<=", ">", ">="};
        String op = ops[random.nextInt(ops.length)];
        switch (random.nextInt(9)) {
            case 0: return "day " + op + " " + (random.nextInt(24) - 2);
            case 1: return random.nextBoolean() ? "code " + op + " " + random.nextInt(11) : random.nextInt(11) + " " + op + " code";
            case 2: return "tag " + op + " '" + Arrays.asList("a", "ab", "abc", "abcd", "b", "", "zz").get(random.nextInt(7)) + "'";
            case 3: return "user " + op + " " + random.nextInt(2400);
            case 4: return "code IN (" + random.nextInt(10) + ", " + random.nextInt(10) + ", " + random.nextInt(12) + ")";
            case 5: return "day BETWEEN " + random.nextInt(20) + " AND " + random.nextInt(20);
            case 6: return "v " + op + " " + (random.nextInt(1200) - 200);
            case 7: return random.nextBoolean() ? "s = 's" + random.nextInt(7) + "'" : "v IS NULL";
            default: return random.nextBoolean() ? "TRUE" : "code NOT IN (" + random.nextInt(10) + ", " + random.nextInt(10) + ")";
        }
    }

    @Test
    void aWriteWithoutAKeyFieldOrWithAColumnOfAnotherTypeIsRefusedNamingIt() {
        Dataset<Row> ours = spark.read().format("rowkey").options(options).load();
        Exception missing = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> ours.limit(3).drop("tag").write().format("rowkey").options(options).mode("append").save());
        assertTrue(String.valueOf(rootCause(missing).getMessage()).contains("key field 'tag' has no column"), missing.toString());
        Exception typed = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> ours.limit(3)
                .withColumn("code", ours.col("code").cast("long")).write().format("rowkey").options(options).mode("append").save());
        assertTrue(String.valueOf(rootCause(typed).getMessage()).contains("column 'code' is bigint, the table's is int"),
                typed.toString());
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    @Test
    void docsSparkMdShowsSparkDemosOwnCode() throws Exception {
        String doc = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("../../docs/spark.md")),
                java.nio.charset.StandardCharsets.UTF_8);
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("(?s)```java\n(.*?)```").matcher(doc);
        assertTrue(block.find(), "docs/spark.md has no java block");
        List<String> demo = new ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("src/test/java/org/rowkey/hbase/spark/SparkDemo.java"))) {
            demo.add(line.trim());
        }
        for (String line : block.group(1).split("\n")) {
            assertTrue(demo.contains(line.trim()), "docs/spark.md shows a line SparkDemo does not run: " + line.trim());
        }
        // The spark-submit block: cargo make spark-demo runs SparkSubmit with the same arguments.
        java.util.regex.Matcher submit = java.util.regex.Pattern.compile("(?s)```sh\nspark-submit (.*?)```").matcher(doc);
        assertTrue(submit.find(), "docs/spark.md has no spark-submit block");
        String task = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("../../Makefile.toml")),
                java.nio.charset.StandardCharsets.UTF_8);
        task = task.substring(task.indexOf("[tasks.spark-demo]"), task.indexOf("[tasks.bench-spark]"));
        for (String line : submit.group(1).split("\n")) {
            String arguments = line.trim().replaceAll("\\\\$", "").trim();
            assertTrue(task.contains(arguments), "docs/spark.md's spark-submit has arguments the spark-demo task does not run: " + arguments);
        }
        assertTrue(task.contains("org.apache.spark.deploy.SparkSubmit --master 'local[2]'"), "spark-demo runs SparkSubmit");
    }

    @Test
    void aGroupByOfMoreGroupsThanMaxGroupsFailsNamingItAndPushAggregatesFalseLeavesItToSpark() throws Exception {
        write(new Random(SEED + 1), 200); // every code, whichever test runs first
        Map<String, String> capped = new TreeMap<>(options);
        capped.put("maxGroups", "3");
        String sql = "SELECT code, count(*) FROM capped GROUP BY code";
        spark.read().format("rowkey").options(capped).load().createOrReplaceTempView("capped");
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> spark.sql(sql).collectAsList());
        assertTrue(String.valueOf(rootCause(refused).getMessage()).contains("group"), rootCause(refused).toString());
        capped.put("pushAggregates", "false");
        Dataset<Row> bySpark = spark.read().format("rowkey").options(capped).load();
        bySpark.createOrReplaceTempView("capped");
        String plan = spark.sql(sql).queryExecution().executedPlan().toString();
        assertTrue(!plan.contains("(in the regions)") && plan.contains("HashAggregate"), plan);
        assertEquals(10, spark.sql(sql).collectAsList().size());
    }

    @Test
    void explainShowsWhatWasPushed() throws Exception {
        Dataset<Row> ours = spark.read().format("rowkey").options(options).load();
        String plan = ours.where("code = 3 AND day >= 4 AND s = 's1'").select("user").queryExecution().executedPlan().toString();
        System.out.println("SparkSourceIT: " + plan);
        assertTrue(plan.contains("WHERE code EQ 3 AND day GE 4"), plan);
        RowKeyTable table = RowKeyTable.open(connection, NAME);
        assertTrue(table.readsIndex(RowKeyQuery.on(SCHEMA).eq("code", 3)), table.explain(RowKeyQuery.on(SCHEMA).eq("code", 3)));
        String last = ours.where("code = 3").orderBy(col("day").desc(), col("code").desc()).limit(5).queryExecution().executedPlan().toString();
        assertTrue(last.contains("WHERE code EQ 3 ORDER BY day DESC, code DESC LIMIT 5") && last.contains("in key order to the limit"), last);
        String mixed = ours.orderBy(col("day").desc(), col("code")).limit(5).queryExecution().executedPlan().toString();
        assertFalse(mixed.contains("ORDER BY"), "an order against the key in one field and with it in the next is Spark's: " + mixed);
        StructType counted = ours.groupBy("code").count().queryExecution().executedPlan().schema();
        assertEquals(DataTypes.LongType, counted.fields()[1].dataType());
    }
}
