package org.rowkey.hbase.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableInputFormat;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

import scala.Tuple2;

/**
 * {@code cargo make bench-spark}: the same Spark SQL on the demo's table {@code urlscan} read two
 * ways in Spark's local mode: through the source {@code rowkey} (filters and aggregates pushed), and
 * as a Spark job reads an HBase table without it, {@code TableInputFormat} (one task per region, a
 * plain scan of every row, its key decoded, the filter and aggregate in Spark). Same answers
 * (checked), median of {@code --runs} after one warm-up each, and their ratio; beside them the
 * floor under the source: the same question asked of {@link RowKeyTable} in this JVM, without Spark.
 */
public final class SparkBench {
    /** A query's SQL, and the same question asked of RowKeyTable without Spark (the floor under the source). */
    private static final class Query {
        final String name;
        final String sql;
        final Direct direct;

        Query(String name, String sql, Direct direct) {
            this.name = name;
            this.sql = sql;
            this.direct = direct;
        }
    }

    @FunctionalInterface
    private interface Direct {
        long run(RowKeyTable table) throws java.io.IOException;
    }

    /** The demo's key fields in key order: an ORDER BY of all of them has one answer (no ties). */
    private static final List<String> KEY = Arrays.asList("md5url", "sitecode", "status", "code", "sdate", "type", "free",
            "close", "queue", "scantype");

    private static final List<Query> QUERIES = Arrays.asList(
            new Query("seed 2: sdate = 20161209 AND code = 404", "SELECT md5url, url FROM %s WHERE sdate = 20161209 AND code = 404",
                    t -> SparkDemo.count(t.scan(RowKeyQuery.on(t.schema()).eq("sdate", 20161209).eq("code", 404)))),
            new Query("whole table: groupBy(sdate, code).count()", "SELECT sdate, code, count(*) FROM %s GROUP BY sdate, code",
                    t -> t.aggregate(RowKeyQuery.on(t.schema()), Aggregation.on(t.schema()).groupBy("sdate", "code").count())
                            .rows().size()),
            new Query("no leading field: type IN (1,2) AND queue = 0 AND free",
                    "SELECT md5url, url FROM %s WHERE type IN (1, 2) AND queue = 0 AND free",
                    t -> SparkDemo.count(t.scan(RowKeyQuery.on(t.schema()).in("type", 1, 2).eq("queue", 0).eq("free", true)))),
            new Query("the last 10 by key: ORDER BY <every key field> DESC LIMIT 10",
                    "SELECT md5url, sdate, code, url FROM %s ORDER BY " + String.join(" DESC, ", KEY) + " DESC LIMIT 10",
                    t -> SparkDemo.count(t.scan(RowKeyQuery.on(t.schema()).limit(10).reversed()))),
            new Query("grouped, half a month: code, count(*) WHERE sdate BETWEEN",
                    "SELECT code, count(*) FROM %s WHERE sdate BETWEEN 20161201 AND 20161215 GROUP BY code",
                    t -> t.aggregate(RowKeyQuery.on(t.schema()).between("sdate", 20161201, 20161215),
                            Aggregation.on(t.schema()).groupBy("code").count()).rows().size()));

    public static void main(String[] args) throws Exception {
        String zookeeper = "127.0.0.1:2181";
        int runs = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--zookeeper")) {
                zookeeper = args[i + 1];
            } else if (args[i].equals("--runs")) {
                runs = Integer.parseInt(args[i + 1]);
            }
        }
        SparkSession spark = SparkSession.builder().master("local[2]").appName("rowkey bench-spark")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate();
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", zookeeper);
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            RowKeyTable table = RowKeyTable.open(connection, TableName.valueOf("urlscan"));
            Dataset<Row> ours = spark.read().format("rowkey").option("table", "urlscan").option("zookeeper", zookeeper)
                    .option("columns", "url f:url string").load();
            ours.createOrReplaceTempView("ours");
            plain(spark, conf, table.schema(), ours.schema()).createOrReplaceTempView("plain");
            System.out.printf("%-58s %12s %12s %8s %14s %8s %8s%n", "query (" + runs + " runs, median ms)", "rowkey", "plain scan",
                    "ratio", "RowKeyTable", "at most", "rows");
            for (Query q : QUERIES) {
                List<String> a = rows(spark.sql(String.format(q.sql, "ours")));
                List<String> b = rows(spark.sql(String.format(q.sql, "plain")));
                if (!a.equals(b) || q.direct.run(table) != a.size()) {
                    throw new IllegalStateException(q.name + ": the answers differ: " + a.size() + " rows against " + b.size()
                            + " (plain), " + q.direct.run(table) + " (RowKeyTable)");
                }
                double oursMs = median(() -> spark.sql(String.format(q.sql, "ours")).collectAsList(), runs);
                double plainMs = median(() -> spark.sql(String.format(q.sql, "plain")).collectAsList(), runs);
                double directMs = median(() -> q.direct.run(table), runs);
                System.out.printf("%-58s %12.1f %12.1f %7.1fx %14.1f %7.1fx %8d%n", q.name, oursMs, plainMs, plainMs / oursMs,
                        directMs, plainMs / directMs, a.size());
            }
        } finally {
            spark.stop();
        }
    }

    /** The table as a Spark job reads it without the source: TableInputFormat, every row's key decoded in the tasks. */
    private static Dataset<Row> plain(SparkSession spark, Configuration conf, RowKeySchema schema, StructType columns) {
        Configuration job = new Configuration(conf);
        job.set(TableInputFormat.INPUT_TABLE, "urlscan");
        JavaRDD<Tuple2<ImmutableBytesWritable, Result>> regions = JavaSparkContext.fromSparkContext(spark.sparkContext())
                .newAPIHadoopRDD(job, TableInputFormat.class, ImmutableBytesWritable.class, Result.class).rdd().toJavaRDD();
        byte[] schemaBytes = schema.toByteArray();
        String[] names = columns.fieldNames();
        JavaRDD<Row> rows = regions.mapPartitions((Iterator<Tuple2<ImmutableBytesWritable, Result>> it) -> {
            RowKeySchema s = RowKeySchema.parseFrom(schemaBytes);
            List<Row> out = new ArrayList<>();
            while (it.hasNext()) {
                Result r = it.next()._2();
                Map<String, Object> key = s.decode(r.getRow());
                Object[] values = new Object[names.length];
                for (int i = 0; i < names.length; i++) {
                    values[i] = names[i].equals("url") ? Bytes.toString(r.getValue(Bytes.toBytes("f"), Bytes.toBytes("url")))
                            : key.get(names[i]);
                }
                out.add(RowFactory.create(values));
            }
            return out.iterator();
        });
        return spark.createDataFrame(rows, columns);
    }

    @FunctionalInterface
    private interface Run {
        Object run() throws Exception;
    }

    /** The median ms of {@code runs} runs after one warm-up. */
    private static double median(Run run, int runs) throws Exception {
        run.run();
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            run.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return ms[runs / 2];
    }

    private static List<String> rows(Dataset<Row> df) {
        List<String> out = new ArrayList<>();
        for (Row r : df.collectAsList()) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.size(); i++) {
                Object v = r.get(i);
                line.append(v instanceof byte[] ? Bytes.toHex((byte[]) v) : String.valueOf(v)).append('|');
            }
            out.add(line.toString());
        }
        Collections.sort(out);
        return out;
    }

    private SparkBench() {}
}
