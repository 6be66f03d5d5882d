package org.rowkey.hbase.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Random;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;
import org.rowkey.hbase.RowKeyWhere;

/**
 * {@code cargo make bench-metrics}: what the observers' metrics cost, in one run on one cluster: two
 * tables alike (an index, a covered column), one with {@code rowkey.metrics.enabled=false} in its
 * descriptor, taking turns in a shuffled order: indexed writes (batches of 500), a text query over
 * the whole table ({@code RowKeyWhere}, bound in each region) and an aggregate folded in the regions.
 * Medians of {@code --runs} rounds after a warm-up, and metrics-on over metrics-off for each.
 */
public final class MetricsCostBench {
    private MetricsCostBench() {}

    private static final byte[] F = Bytes.toBytes("f");
    private static final int BATCH = 500;
    private static final String[] WORK = {"indexed writes (batches of 500)", "text query over every row", "aggregate in the regions"};

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("METRICS COST BENCHMARK", options, connection -> run(connection, options));
    }

    private static int run(Connection connection, Demo.Options options) throws Exception {
        RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();
        TableName[] tables = {TableName.valueOf("metrics_on"), TableName.valueOf("metrics_off")};
        int rows = Math.min(options.rows, 200_000);
        try (Admin admin = connection.getAdmin()) {
            for (TableName t : tables) {
                if (admin.tableExists(t)) {
                    RowKeyTable.open(connection, t).dropIndex("by_code");
                    admin.disableTable(t);
                    admin.deleteTable(t);
                }
                RowKeyTable.create(admin, t, schema, Arrays.asList(RowKeyIndex.of("by_code", "code").include("f", "url")),
                        new byte[][] {schema.encode(Map.of("user", rows / 2, "code", 0, "day", 0))}, F);
            }
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(tables[1]))
                    .setValue("rowkey.metrics.enabled", "false").build());
        }
        RowKeyWhere.register();
        Random order = new Random(options.seed);
        int runs = options.runs;
        double[][][] millis = new double[WORK.length][2][runs];
        int[] written = new int[2];
        for (int run = -1; run < runs; run++) {
            List<Integer> turns = new ArrayList<>(Arrays.asList(0, 1));
            Collections.shuffle(turns, order);
            for (int t : turns) {
                long start = System.nanoTime();
                try (Table table = connection.getTable(tables[t])) {
                    List<Put> batch = new ArrayList<>(BATCH);
                    for (int i = 0; i < rows / (runs + 1); i++) {
                        int user = written[t]++;
                        batch.add(new Put(schema.encode(Map.of("user", user, "code", user % 97, "day", 20160101 + user % 31)))
                                .addColumn(F, Bytes.toBytes("url"), Bytes.toBytes("http://" + user)));
                        if (batch.size() == BATCH) {
                            table.put(batch);
                            batch.clear();
                        }
                    }
                    table.put(batch);
                }
                millis[0][t][Math.max(run, 0)] = Demo.millisSince(start);

                start = System.nanoTime();
                long matched = 0;
                try (Table table = connection.getTable(tables[t]); ResultScanner rs = table.getScanner(new Scan().setCaching(1000)
                        .setFilter(new ParseFilter().parseFilterString(RowKeyWhere.filterString("code = 5", null))))) {
                    for (Result ignored : rs) {
                        matched++;
                    }
                }
                millis[1][t][Math.max(run, 0)] = Demo.millisSince(start);

                start = System.nanoTime();
                long counted = RowKeyTable.open(connection, tables[t]).aggregate(RowKeyQuery.on(schema).noIndex(),
                        Aggregation.on(schema).count()).rows().get(0).longValue(0);
                millis[2][t][Math.max(run, 0)] = Demo.millisSince(start);
                if (counted != written[t]) {
                    System.out.println("the aggregate counted " + counted + " rows of " + written[t] + " written to " + tables[t]);
                    return 1;
                }
                if (matched == 0) {
                    System.out.println("the text query matched no row of " + tables[t]);
                    return 1;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%n%,d rows written to each table over %d measured rounds after a warm-up, the tables taking"
                + " turns in a shuffled order; medians%n", written[0], runs);
        System.out.println("| work | metrics on, ms | metrics off, ms | on / off |");
        System.out.println("|---|---:|---:|---:|");
        for (int w = 0; w < WORK.length; w++) {
            double on = EndToEnd.median(millis[w][0]);
            double off = EndToEnd.median(millis[w][1]);
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.3f |%n", WORK[w], on, off, on / off);
        }
        return 0;
    }
}
