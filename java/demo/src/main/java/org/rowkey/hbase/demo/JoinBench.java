package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * The index intersection benchmark ({@code cargo make bench-join}): on an embedded HBase, a table of
 * {@code --rows} rows (default 1,000,000) keyed {@code id, a, b} with an index on {@code a} and one
 * on {@code b}; {@code a = 1} holds 1,000 rows (|A|) and {@code b = 1} 100,000 (|B|), independently
 * spread. The query {@code a = 1 AND b = 1} is answered four ways, side by side: the leapfrog join
 * ({@code query.leapfrog()}), reading both indexes in full and merging the keys, the best single
 * index (on a) with the native per-row filter on its index rows, and the other single index (on b,
 * what a planner with a wrong estimate reads). Rows read are the index rows the server read; time
 * is the median of {@code --runs} runs after a warm-up, data rows fetched included. Every way must
 * return the same rows.
 */
public final class JoinBench {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("q");

    private final Connection connection;
    private final int rows;
    private final int runs;
    private final RowKeySchema schema = RowKeySchema.builder().int64("id").int32("a").int32("b").build();
    private RowKeyTable table;

    JoinBench(Connection connection, int rows, int runs) {
        this.connection = connection;
        this.rows = rows;
        this.runs = runs;
    }

    public static void main(String[] args) throws Exception {
        Demo.Options options = Demo.Options.parse(args, true);
        System.exit(Demo.withCluster(options, c -> new JoinBench(c, options.rows, options.runs).run()));
    }

    /** One run of one way: the rows (hex keys) and the index rows read. */
    static final class Outcome {
        final List<String> keys;
        final long rowsRead;

        Outcome(List<String> keys, long rowsRead) {
            this.keys = keys;
            this.rowsRead = rowsRead;
        }
    }

    interface Way {
        Outcome run() throws IOException;
    }

    int run() throws IOException {
        int sizeA = Math.max(1, rows / 1000);
        int sizeB = Math.max(1, rows / 10);
        load(sizeA, sizeB);
        RowKeyQuery both = RowKeyQuery.on(schema).eq("a", 1).eq("b", 1).leapfrog();
        String explain = table.explain(both);
        System.out.println(explain);
        if (!explain.contains("follow INDEX")) {
            System.err.println("no leapfrog intersection for " + both);
            return 1;
        }
        String[] names = {"leapfrog join (query.leapfrog())", "both indexes in full + merge",
            "best single index (a) + per-row filter", "other single index (b) + per-row filter"};
        Way[] ways = {
            () -> scan(both),
            this::bothInFullAndMerge,
            () -> scan(RowKeyQuery.on(schema).eq("a", 1).eq("b", 1).useIndex("by_a")),
            () -> scan(RowKeyQuery.on(schema).eq("a", 1).eq("b", 1).useIndex("by_b")),
        };
        System.out.printf(Locale.ROOT, "%n%,d rows, |A| = %,d (a = 1), |B| = %,d (b = 1), %d runs per way (median), HBase %s%n%n",
                rows, sizeA, sizeB, runs, org.apache.hadoop.hbase.util.VersionInfo.getVersion());
        System.out.println("| way | rows returned | index rows read | read / abs(A) | median ms | ms / leapfrog's |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        List<String> expected = null;
        double leapfrogMillis = 0;
        long leapfrogRead = 0;
        double fastestOther = Double.MAX_VALUE;
        for (int w = 0; w < ways.length; w++) {
            Outcome first = ways[w].run(); // warm-up, and the rows to compare
            double[] millis = new double[runs];
            for (int r = 0; r < runs; r++) {
                long t0 = System.nanoTime();
                ways[w].run();
                millis[r] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(millis);
            double median = millis[runs / 2];
            if (expected == null) {
                expected = first.keys;
                leapfrogMillis = median;
                leapfrogRead = first.rowsRead;
            } else {
                if (!expected.equals(first.keys)) {
                    System.err.println(names[w] + " returned other rows than the join: " + first.keys.size() + " vs "
                            + expected.size());
                    return 1;
                }
                fastestOther = Math.min(fastestOther, median);
            }
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.2f | %.1f | %.2f |%n", names[w], first.keys.size(),
                    first.rowsRead, first.rowsRead / (double) sizeA, median, median / leapfrogMillis);
        }
        System.out.printf(Locale.ROOT, "%nleapfrog: %,d index rows read = %.2f x |A| (target <= 3); fastest of all: %s%n",
                leapfrogRead, leapfrogRead / (double) sizeA, leapfrogMillis <= fastestOther ? "yes" : "no");
        return 0;
    }

    private Outcome scan(RowKeyQuery query) throws IOException {
        List<String> keys = new ArrayList<>();
        long read;
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r; (r = scanner.next()) != null;) {
                keys.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = scanner.getScanMetrics();
            read = metrics == null ? -1 : metrics.countOfRowsScanned.get();
        }
        Collections.sort(keys);
        return new Outcome(keys, read);
    }

    /** Every key of a = 1 and of b = 1 (key-only, from the indexes alone), merged; then the data rows. */
    private Outcome bothInFullAndMerge() throws IOException {
        Outcome a = scan(RowKeyQuery.on(schema).eq("a", 1).useIndex("by_a").keysOnly());
        Outcome b = scan(RowKeyQuery.on(schema).eq("b", 1).useIndex("by_b").keysOnly());
        TreeSet<String> common = new TreeSet<>(a.keys);
        common.retainAll(new TreeSet<>(b.keys));
        List<Get> gets = new ArrayList<>();
        for (String key : common) {
            gets.add(new Get(Bytes.fromHex(key)));
        }
        List<String> keys = new ArrayList<>();
        try (Table data = connection.getTable(TableName.valueOf("join_bench"))) {
            for (Result r : data.get(gets)) {
                if (!r.isEmpty()) {
                    keys.add(Bytes.toHex(r.getRow()));
                }
            }
        }
        return new Outcome(keys, a.rowsRead + b.rowsRead);
    }

    private void load(int sizeA, int sizeB) throws IOException {
        TableName name = TableName.valueOf("join_bench");
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(name)) {
                System.err.println("table join_bench exists: reusing it");
                table = RowKeyTable.open(connection, name);
                return;
            }
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_a", "a"), RowKeyIndex.of("by_b", "b")),
                    FAMILY);
        }
        table = RowKeyTable.open(connection, name);
        // a = 1 on sizeA rows, b = 1 on sizeB rows, chosen at random; other values spread over 2..1000.
        Random random = new Random(12);
        boolean[] inA = choose(random, sizeA);
        boolean[] inB = choose(random, sizeB);
        long t0 = System.nanoTime();
        try (Table t = connection.getTable(name)) {
            List<Put> batch = new ArrayList<>();
            java.util.Map<String, Object> row = new java.util.HashMap<>();
            for (int i = 0; i < rows; i++) {
                row.put("id", (long) i);
                row.put("a", inA[i] ? 1 : 2 + random.nextInt(999));
                row.put("b", inB[i] ? 1 : 2 + random.nextInt(999));
                batch.add(new Put(schema.encode(row)).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(i)));
                if (batch.size() == 5000) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
        }
        try (Admin admin = connection.getAdmin()) {
            for (TableName n : new TableName[] {name, TableName.valueOf("join_bench__idx_by_a"), TableName.valueOf("join_bench__idx_by_b")}) {
                admin.flush(n);
            }
        }
        System.err.printf(Locale.ROOT, "loaded %,d rows in %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);
    }

    private boolean[] choose(Random random, int count) {
        boolean[] chosen = new boolean[rows];
        for (int n = 0; n < count;) {
            int i = random.nextInt(rows);
            if (!chosen[i]) {
                chosen[i] = true;
                n++;
            }
        }
        return chosen;
    }
}
