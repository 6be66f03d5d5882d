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
 * {@code cargo make bench-metrics}: what the observers' metrics cost, in one run on one cluster: three
 * tables alike (an index, a covered column) taking turns in a shuffled order, each round: indexed
 * writes (batches of 500), a text query over the whole table ({@code RowKeyWhere}, bound in each region)
 * and an aggregate folded in the regions. One table has the metrics on, two have them off
 * ({@code rowkey.metrics.enabled=false} in their descriptors); which one is on changes each third of the
 * rounds, so that each table is measured in each role. Per round, the cost is the table with them on
 * against one with them off, the control the other table with them off against that same one: both
 * ratios are of tables of one size, with the same noise, so a cost is told from noise by comparing them.
 * Medians over the rounds, with a bootstrap 90 % interval of each.
 */
public final class MetricsCostBench {
    private MetricsCostBench() {}

    private static final byte[] F = Bytes.toBytes("f");
    private static final int BATCH = 500;
    private static final int REPEATS = 5;
    private static final int TABLES = 3;
    private static final String[] WORK = {"indexed writes (batches of 500)", "text query over every row, 5 times",
        "aggregate in the regions, 5 times"};

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("METRICS COST BENCHMARK", options, connection -> run(connection, options));
    }

    /** Sets {@code rowkey.metrics.enabled} in each table's descriptor (its regions reopen with it): on in {@code on}'s alone. */
    private static void metricsOn(Admin admin, TableName[] tables, int on) throws java.io.IOException {
        for (int t = 0; t < tables.length; t++) {
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(tables[t]))
                    .setValue("rowkey.metrics.enabled", Boolean.toString(t == on)).build());
        }
    }

    private static int run(Connection connection, Demo.Options options) throws Exception {
        RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();
        TableName[] tables = new TableName[TABLES];
        int rows = Math.min(options.rows, 1_000_000);
        int runs = Math.max(TABLES, options.runs / TABLES * TABLES);
        try (Admin admin = connection.getAdmin()) {
            for (int t = 0; t < TABLES; t++) {
                tables[t] = TableName.valueOf("metrics_" + (char) ('a' + t));
                if (admin.tableExists(tables[t])) {
                    RowKeyTable.open(connection, tables[t]).dropIndex("by_code");
                    admin.disableTable(tables[t]);
                    admin.deleteTable(tables[t]);
                }
                RowKeyTable.create(admin, tables[t], schema, Arrays.asList(RowKeyIndex.of("by_code", "code").include("f", "url")),
                        new byte[][] {schema.encode(Map.of("user", rows / 2, "code", 0, "day", 0))}, F);
            }
        }
        RowKeyWhere.register();
        Random order = new Random(options.seed);
        // [work][table][round]: each table's time in each round (a warm-up round first, not kept).
        double[][][] millis = new double[WORK.length][TABLES][runs];
        int[] on = new int[runs];
        int[] written = new int[TABLES];
        int phase = -1;
        for (int run = -1; run < runs; run++) {
            int round = Math.max(run, 0);
            on[round] = round * TABLES / runs;
            if (on[round] != phase) {
                phase = on[round];
                try (Admin admin = connection.getAdmin()) {
                    metricsOn(admin, tables, phase);
                }
            }
            List<Integer> turns = new ArrayList<>();
            for (int t = 0; t < TABLES; t++) {
                turns.add(t);
            }
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
                millis[0][t][round] = Demo.millisSince(start);

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
                millis[1][t][round] = Demo.millisSince(start);

                start = System.nanoTime();
                long counted = 0;
                for (int r = 0; r < REPEATS; r++) {
                    counted = RowKeyTable.open(connection, tables[t]).aggregate(RowKeyQuery.on(schema).noIndex(),
                            Aggregation.on(schema).count()).rows().get(0).longValue(0);
                }
                millis[2][t][round] = Demo.millisSince(start);
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
        System.out.printf(Locale.ROOT, "%n%,d rows written to each of %d tables over %d measured rounds after a warm-up, the tables"
                + " taking turns in a shuffled order, the metrics on in one table (a third of the rounds each); medians, and a"
                + " bootstrap 90 %% interval of the median ratio%n", written[0], TABLES, runs);
        System.out.println("| work | metrics on, ms | off, ms | off (control), ms | cost: on / off | control: off (control) / off |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        Random resample = new Random(options.seed);
        for (int w = 0; w < WORK.length; w++) {
            double[] onMs = new double[runs];
            double[] offMs = new double[runs];
            double[] controlMs = new double[runs];
            double[] cost = new double[runs];
            double[] control = new double[runs];
            for (int k = 0; k < runs; k++) {
                // The two tables off are taken in the same order in every phase: the one after the table on, then the other.
                onMs[k] = millis[w][on[k]][k];
                offMs[k] = millis[w][(on[k] + 1) % TABLES][k];
                controlMs[k] = millis[w][(on[k] + 2) % TABLES][k];
                cost[k] = onMs[k] / offMs[k];
                control[k] = controlMs[k] / offMs[k];
            }
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %s | %s |%n", WORK[w], EndToEnd.median(onMs),
                    EndToEnd.median(offMs), EndToEnd.median(controlMs), withInterval(cost, resample),
                    withInterval(control, resample));
        }
        directCost(written[0] / BATCH, EndToEnd.median(millis[0][0]) * (runs + 1) / written[0] * BATCH);
        return 0;
    }

    /** The median of {@code ratios} and a bootstrap 90 % interval of it (rounds resampled 10,000 times). */
    private static String withInterval(double[] ratios, Random random) {
        int n = ratios.length;
        double[] medians = new double[10_000];
        double[] sample = new double[n];
        for (int b = 0; b < medians.length; b++) {
            for (int i = 0; i < n; i++) {
                sample[i] = ratios[random.nextInt(n)];
            }
            medians[b] = EndToEnd.median(sample);
        }
        Arrays.sort(medians);
        return String.format(Locale.ROOT, "%.3f (%.3f–%.3f)", EndToEnd.median(ratios), medians[medians.length / 20],
                medians[medians.length - 1 - medians.length / 20]);
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
