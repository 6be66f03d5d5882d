package org.rowkey.hbase.demo;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.mapreduce.RowCounter;
import org.apache.hadoop.mapreduce.Job;

import org.rowkey.hbase.RowKeyCli;
import org.rowkey.hbase.RowKeyIndex;

/**
 * {@code cargo make bench-verify}: {@code RowKeyCli verify} over the demo's plain table (1,000,000
 * rows; {@code --rows N}) and its three indexes on the LocalJobRunner, beside the floor of reading
 * those tables with MapReduce: HBase's own {@link RowCounter} over the data table and each index
 * table, on the same runner with as many map tasks at once. Prints both times, rows per second and
 * the ratio; fails when verify finds a difference or checks another number of rows than there are.
 */
public final class VerifyBench {
    private VerifyBench() {}

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("VERIFY BENCHMARK", options, connection -> run(connection, options));
    }

    private static int run(Connection connection, Demo.Options options) throws Exception {
        new Demo(connection, options, true).loadPlain();
        List<TableName> tables = new ArrayList<>();
        tables.add(Demo.PLAIN_TABLE);
        for (RowKeyIndex index : Demo.plainIndexes()) {
            tables.add(TableName.valueOf(Demo.PLAIN_TABLE.getNameAsString() + "__idx_" + index.name()));
        }
        Configuration conf = new Configuration(connection.getConfiguration());
        int cores = Runtime.getRuntime().availableProcessors();
        conf.setInt("mapreduce.local.map.tasks.maximum", cores);

        long floorRows = 0;
        long start = System.nanoTime();
        for (TableName t : tables) {
            Job job = RowCounter.createSubmittableJob(new Configuration(conf), new String[] {t.getNameAsString()});
            if (!job.waitForCompletion(false)) {
                throw new IllegalStateException("RowCounter of " + t + " failed");
            }
            floorRows += job.getCounters().findCounter("org.apache.hadoop.hbase.mapreduce.RowCounter$RowCounterMapper$Counters",
                    "ROWS").getValue();
        }
        double floorSeconds = (System.nanoTime() - start) / 1e9;

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        start = System.nanoTime();
        int status = RowKeyCli.run(connection, new String[] {"verify", "--table", Demo.PLAIN_TABLE.getNameAsString(), "--json"},
                new PrintStream(out, true, "UTF-8"), System.err);
        double verifySeconds = (System.nanoTime() - start) / 1e9;
        String report = new String(out.toByteArray(), StandardCharsets.UTF_8);
        long checked = 0;
        Matcher m = Pattern.compile("\"checked\": (\\d+)").matcher(report);
        while (m.find()) {
            checked += Long.parseLong(m.group(1));
        }
        long dataRows = Long.parseLong(field(report, "rows"));
        long verifyRows = dataRows + checked;

        System.out.printf(Locale.ROOT, "%n%,d data rows, %d indexes, LocalJobRunner with %d map tasks at once; one run each%n",
                dataRows, tables.size() - 1, cores);
        System.out.println("| job | seconds | rows read | rows/s | / floor |");
        System.out.println("|---|---:|---:|---:|---:|");
        System.out.printf(Locale.ROOT, "| floor: RowCounter over the data table and each index table | %.1f | %,d | %,.0f | 1.00 |%n",
                floorSeconds, floorRows, floorRows / floorSeconds);
        System.out.printf(Locale.ROOT, "| RowKeyCli verify (every index) | %.1f | %,d | %,.0f | %.2f |%n", verifySeconds, verifyRows,
                verifyRows / verifySeconds, verifySeconds / floorSeconds);
        if (status != 0 || !field(report.substring(report.lastIndexOf("\"differences\"")), "differences").equals("0")) {
            System.out.println("verify found differences on a table loaded through the coprocessor:\n" + report);
            return 1;
        }
        if (verifyRows != floorRows) {
            System.out.println("verify read " + verifyRows + " rows, RowCounter counted " + floorRows + ":\n" + report);
            return 1;
        }
        return 0;
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in the report: " + json);
        }
        return m.group(1);
    }
}
