package org.rowkey.hbase.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeyTable;

/**
 * {@code cargo make spark-demo}: docs/spark.md's queries in Spark's local mode on the demo's table
 * {@code urlscan} in a running HBase ({@code --zookeeper host:port}), each answer checked against
 * the same question asked of {@link RowKeyTable}; then an append through the source, read back
 * through its index. Exits non-zero on any difference.
 */
public final class SparkDemo {
    public static void main(String[] args) throws Exception {
        String zookeeper = args.length == 2 && args[0].equals("--zookeeper") ? args[1] : "127.0.0.1:2181";
        SparkSession spark = SparkSession.builder().master("local[2]").appName("rowkey spark-demo")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate();
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", zookeeper);
        int failures = 0;
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            RowKeyTable table = RowKeyTable.open(connection, TableName.valueOf("urlscan"));
            // docs/spark.md: reading
            Dataset<Row> df = spark.read().format("rowkey").option("table", "urlscan").option("zookeeper", zookeeper)
                    .option("columns", "url f:url string").load();
            df.createOrReplaceTempView("urlscan");

            Dataset<Row> q1 = df.where(col("sdate").equalTo(20161209).and(col("code").equalTo(404))).select("md5url", "url");
            q1.explain();
            long spark1 = q1.count();
            long ours1 = count(table.scan(RowKeyQuery.on(table.schema()).eq("sdate", 20161209).eq("code", 404)));
            failures += report("sdate = 20161209 AND code = 404", spark1, ours1);

            Map<String, Long> spark2 = new HashMap<>();
            for (Row r : df.groupBy("sdate", "code").count().collectAsList()) {
                spark2.put(r.get(0) + " " + r.get(1), r.getLong(2));
            }
            Map<String, Long> ours2 = new HashMap<>();
            for (AggregationResult.Row r : table.aggregate(RowKeyQuery.on(table.schema()),
                    Aggregation.on(table.schema()).groupBy("sdate", "code").count()).rows()) {
                ours2.put(r.group("sdate") + " " + r.group("code"), r.longValue(0));
            }
            failures += report("groupBy(sdate, code).count(): " + spark2.size() + " groups", spark2, ours2);

            Dataset<Row> q3 = spark.sql("SELECT code, count(*) FROM urlscan WHERE sdate BETWEEN 20161201 AND 20161231 GROUP BY code");
            q3.explain();
            Map<String, Long> spark3 = new HashMap<>();
            for (Row r : q3.collectAsList()) {
                spark3.put(String.valueOf(r.get(0)), r.getLong(1));
            }
            Map<String, Long> ours3 = new HashMap<>();
            for (AggregationResult.Row r : table.aggregate(RowKeyQuery.on(table.schema()).between("sdate", 20161201, 20161231),
                    Aggregation.on(table.schema()).groupBy("code").count()).rows()) {
                ours3.put(String.valueOf(r.group("code")), r.longValue(0));
            }
            failures += report("code, count(*) ... sdate BETWEEN ... GROUP BY code", spark3, ours3);

            // docs/spark.md: writing (puts through the HBase client: the coprocessor keeps the indexes)
            df.where("sdate = 20161209 AND code = 404").limit(50).withColumn("sdate", lit(20170101))
                    .write().format("rowkey").option("table", "urlscan").option("zookeeper", zookeeper)
                    .option("columns", "url f:url string").mode("append").save();
            long spark4 = df.where("sdate = 20170101 AND code = 404").count();
            long ours4 = count(table.scan(RowKeyQuery.on(table.schema()).eq("sdate", 20170101).eq("code", 404).useIndex("by_date_code")));
            failures += report("50 rows appended, read back", spark4, ours4) + (spark4 == 50 ? 0 : 1);
        } finally {
            spark.stop();
        }
        System.out.println(failures == 0 ? "spark-demo: every answer is RowKeyTable's" : "spark-demo: " + failures + " differences");
        System.exit(failures == 0 ? 0 : 1);
    }

    /** The rows a scanner gives (closing it); SparkBench counts with it too. */
    static long count(ResultScanner scanner) throws java.io.IOException {
        long n = 0;
        try (ResultScanner s = scanner) {
            for (Result r = s.next(); r != null; r = s.next()) {
                n++;
            }
        }
        return n;
    }

    private static int report(String what, Object spark, Object ours) {
        boolean same = spark.equals(ours);
        System.out.println("spark-demo: " + what + ": Spark " + (spark instanceof Map ? "" : spark + " ") + (same ? "= " : "!= ")
                + "RowKeyTable" + (spark instanceof Map ? "" : " " + ours));
        return same ? 0 : 1;
    }

    private SparkDemo() {}
}
