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
 * descriptor (which one swaps halfway), taking turns in a shuffled order: indexed writes (batches of 500), a text query over
 * the whole table ({@code RowKeyWhere}, bound in each region) and an aggregate folded in the regions.
 * Medians of {@code --runs} rounds after a warm-up, and the median of the rounds' on / off ratios
 * (the tables grow round by round: within a round both are of one size).
 */
public final class MetricsCostBench {
    private MetricsCostBench() {}

    private static final byte[] F = Bytes.toBytes("f");
    private static final int BATCH = 500;
    private static final int REPEATS = 5;
    private static final String[] WORK = {"indexed writes (batches of 500)", "text query over every row, 5 times",
        "aggregate in the regions, 5 times"};

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("METRICS COST BENCHMARK", options, connection -> run(connection, options));
    }

    /** Sets {@code rowkey.metrics.enabled} in the table's descriptor (its regions reopen with it). */
    private static void metricsOff(Admin admin, TableName table, boolean off) throws java.io.IOException {
        // ROWKEY_BENCH_CONTROL=1: both tables off throughout, the same steps: the gap the tables alone make.
        off |= "1".equals(System.getenv("ROWKEY_BENCH_CONTROL"));
        admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(table))
                .setValue("rowkey.metrics.enabled", Boolean.toString(!off)).build());
    }

    private static int run(Connection connection, Demo.Options options) throws Exception {
        RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();
        TableName[] tables = {TableName.valueOf("metrics_on"), TableName.valueOf("metrics_off")};
        int rows = Math.min(options.rows, 1_000_000);
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
            metricsOff(admin, tables[1], true);
        }
        RowKeyWhere.register();
        Random order = new Random(options.seed);
        int runs = options.runs;
        // [work][0: metrics on, 1: off][measurement]: each table has them on for half the rounds,
        // off for the other half, so that what tells the tables apart (their regions' histories)
        // weighs on both sides alike.
        double[][][] millis = new double[WORK.length][2][runs];
        int[] written = new int[2];
        boolean swapped = false;
        for (int run = -1; run < runs; run++) {
            if (!swapped && run >= runs / 2) {
                try (Admin admin = connection.getAdmin()) {
                    metricsOff(admin, tables[0], true);
                    metricsOff(admin, tables[1], false);
                }
                swapped = true;
            }
            List<Integer> turns = new ArrayList<>(Arrays.asList(0, 1));
            Collections.shuffle(turns, order);
            for (int t : turns) {
                int off = (t == 1) != swapped ? 1 : 0;
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
                millis[0][off][Math.max(run, 0)] = Demo.millisSince(start);

                // The reads are short: each is repeated, their sum timed, so that noise does not swamp it.
                start = System.nanoTime();
                long matched = 0;
                for (int r = 0; r < REPEATS; r++) {
                    try (Table table = connection.getTable(tables[t]); ResultScanner rs = table.getScanner(new Scan().setCaching(1000)
                            .setFilter(new ParseFilter().parseFilterString(RowKeyWhere.filterString("code = 5", null))))) {
                        for (Result ignored : rs) {
                            matched++;
                        }
                    }
                }
                millis[1][off][Math.max(run, 0)] = Demo.millisSince(start);

                start = System.nanoTime();
                long counted = 0;
                for (int r = 0; r < REPEATS; r++) {
                    counted = RowKeyTable.open(connection, tables[t]).aggregate(RowKeyQuery.on(schema).noIndex(),
                            Aggregation.on(schema).count()).rows().get(0).longValue(0);
                }
                millis[2][off][Math.max(run, 0)] = Demo.millisSince(start);
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
        System.out.println("| work | metrics on, ms | metrics off, ms | on / off, the median of the rounds' |");
        System.out.println("|---|---:|---:|---:|");
        for (int w = 0; w < WORK.length; w++) {
            // Each round's two measurements are of tables of one size: their ratio, not the medians', is the cost.
            double[] ratios = new double[runs];
            for (int k = 0; k < runs; k++) {
                ratios[k] = millis[w][0][k] / millis[w][1][k];
            }
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.3f |%n", WORK[w], EndToEnd.median(millis[w][0]),
                    EndToEnd.median(millis[w][1]), EndToEnd.median(ratios));
        }
        directCost(written[0] / BATCH, EndToEnd.median(millis[0][0]) * (runs + 1) / written[0] * BATCH);
        return 0;
    }

    /**
     * The metrics' own work, timed alone on a registry of HBase's: what the index observer records
     * per mini-batch (a counter, two histograms, the clock read twice), beside the mini-batch it rides
     * on. The end-to-end rounds above cannot resolve a cost below this machine's noise (a few percent
     * from round to round); this is that cost.
     */
    private static void directCost(long batches, double batchMillis) {
        org.apache.hadoop.hbase.metrics.MetricRegistry registry = org.apache.hadoop.hbase.metrics.MetricRegistries.global()
                .create(new org.apache.hadoop.hbase.metrics.MetricRegistryInfo("bench", "the metrics' own cost", "bench", "bench",
                        false));
        int n = 2_000_000;
        double nanos = 0;
        for (int round = 0; round < 3; round++) { // the first warms the JIT up
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                registry.counter("indexedRows").increment(BATCH);
                registry.histogram("indexMarkMicros").update((System.nanoTime() - t0) / 1_000);
                long t1 = System.nanoTime();
                registry.histogram("indexVerifyMicros").update((System.nanoTime() - t1) / 1_000);
            }
            nanos = (double) (System.nanoTime() - start) / n;
        }
        System.out.printf(Locale.ROOT, "%nThe metrics' own work per mini-batch of %d rows, timed alone (%,d times): %.0f ns, against"
                + " %.2f ms per mini-batch of indexed writes above: %.4f %%%n", BATCH, n, nanos, batchMillis,
                nanos / (batchMillis * 1e6) * 100);
    }
}
