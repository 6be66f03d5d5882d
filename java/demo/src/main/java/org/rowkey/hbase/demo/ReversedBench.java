package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeyTable;

/**
 * {@code cargo make bench-reversed}: each of the demo's queries read forward and reversed through
 * {@link RowKeyTable#scan} (whole, and its first 10 rows: "the last 10" reversed), and those an
 * index on (sdate, code) serves again through it ({@link OurIndexedTable}: covered, salted like
 * the table), beside HBase's own floor in both directions, a plain scan of the whole table with no
 * filter. Medians of {@code --runs} runs after a warm-up, the ways taking turns. Every reversed read must return the
 * forward read's rows in the opposite order (else it stops, exit code 1). A limited reversed read is
 * asked again on a connection that keeps no density of the reads before it: what the first read of
 * its keys costs (its repeats start from the density the last read found).
 */
public final class ReversedBench {
    private ReversedBench() {}

    private static final int LAST = 10;

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("REVERSED READS BENCHMARK", options, connection -> run(connection, options));
    }

    /** One measured read: its rows in the order read. */
    private interface Read {
        Rows rows() throws IOException;
    }

    /** A read's rows in the order read, with the rows its scans looked at and their round trips (scan metrics). */
    private static final class Rows {
        final List<String> keys = new ArrayList<>();
        long looked;
        long trips;
    }

    private static int run(Connection connection, Demo.Options options) throws Exception {
        Demo demo = new Demo(connection, options, false);
        DataSet data = demo.load();
        Configuration keepsNone = new Configuration(connection.getConfiguration());
        keepsNone.setInt("rowkey.descending.priors", 0);
        try (Connection cold = ConnectionFactory.createConnection(keepsNone)) {
            return run(connection, cold, demo, data, options);
        }
    }

    /**
     * Every read on {@code connection}; a limited reversed read also on {@code cold}, which keeps no
     * density of the reads before it (each read's first read is a sample, as the first of its keys is).
     */
    private static int run(Connection connection, Connection cold, Demo demo, DataSet data, Demo.Options options) throws Exception {
        System.out.printf(Locale.ROOT, "%n%,d rows; each way 1 warm-up run, then %d measured, forward and reversed taking turns;"
                + " median ms; a limited reversed read also on a connection keeping no density (its first read a"
                + " sample each time, as the first read of its keys)%n", data.size(), options.runs);
        System.out.println("| read | rows | forward, ms | reversed, ms | reversed / forward | rows looked at, forward / reversed"
                + " | round trips, forward / reversed | reversed keeping no density, ms / rows looked / round trips |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        measure(options.runs, "floor: HBase's plain scan of the whole table, no filter",
                () -> plain(connection, Demo.PLAIN_TABLE, false), () -> plain(connection, Demo.PLAIN_TABLE, true), null, null);
        for (DemoQuery q : DemoQuery.all(data)) {
            TableName name = q.salted ? Demo.SALTED_TABLE : Demo.PLAIN_TABLE;
            RowKeyTable table = demo.table(name);
            RowKeyTable coldTable = RowKeyTable.open(cold, name);
            List<String> all = measure(options.runs, q.name, () -> rows(table.scan(demo.planned(q))),
                    () -> rows(table.scan(demo.planned(q).reversed())), null, null);
            measure(options.runs, q.name + ", first " + LAST + " / reversed: the last " + LAST,
                    () -> rows(table.scan(demo.planned(q).limit(LAST))), () -> rows(table.scan(demo.planned(q).reversed().limit(LAST))),
                    () -> rows(coldTable.scan(demo.planned(q).reversed().limit(LAST))), all);
        }
        OurIndexedTable[] indexed = {new OurIndexedTable(connection, demo, false), new OurIndexedTable(connection, demo, true)};
        for (OurIndexedTable t : indexed) {
            t.createAndLoad(data);
        }
        for (DemoQuery q : DemoQuery.all(data)) {
            if (!q.indexServes()) {
                continue;
            }
            OurIndexedTable t = indexed[q.salted ? 1 : 0];
            String name = q.name + ", through the index" + (q.salted ? " (salted)" : "");
            RowKeyTable coldTable = RowKeyTable.open(cold, t.name);
            List<String> all = measure(options.runs, name, () -> rows(t.table().scan(t.query(q, false))),
                    () -> rows(t.table().scan(t.query(q, false).reversed())), null, null);
            measure(options.runs, name + ", first " + LAST + " / reversed: the last " + LAST,
                    () -> rows(t.table().scan(t.query(q, false).limit(LAST))),
                    () -> rows(t.table().scan(t.query(q, false).reversed().limit(LAST))),
                    () -> rows(coldTable.scan(t.query(q, false).reversed().limit(LAST))), all);
        }
        for (OurIndexedTable t : indexed) {
            t.drop();
        }
        return 0;
    }

    /**
     * Times both reads, checks them and returns the forward read's rows in key order. {@code whole}:
     * null when both read every row of the query (the reversed read must be the forward one's rows,
     * in descending key order), else every
     * row of the query, of which the forward read must be the first and the reversed the last, backwards.
     */
    private static List<String> measure(int runs, String name, Read forward, Read reversed, Read reversedCold, List<String> whole)
            throws IOException {
        double[][] millis = new double[3][runs];
        List<String> rows = null;
        String cost = null;
        String coldCost = "";
        for (int run = -1; run < runs; run++) {
            long start = System.nanoTime();
            Rows aheadRead = forward.rows();
            double forwardMillis = Demo.millisSince(start);
            start = System.nanoTime();
            Rows backRead = reversed.rows();
            double reversedMillis = Demo.millisSince(start);
            if (reversedCold != null) {
                start = System.nanoTime();
                Rows coldRead = reversedCold.rows();
                millis[2][Math.max(0, run)] = Demo.millisSince(start);
                if (!coldRead.keys.equals(backRead.keys)) {
                    throw new IllegalStateException("MISMATCH, " + name + ": the reversed reads keeping a density and none differ");
                }
                coldCost = String.format(Locale.ROOT, " / %,d / %,d", coldRead.looked, coldRead.trips);
            }
            List<String> ahead = aheadRead.keys;
            List<String> back = backRead.keys;
            cost = String.format(Locale.ROOT, "%,d / %,d | %,d / %,d", aheadRead.looked, backRead.looked, aheadRead.trips,
                    backRead.trips);
            Collections.reverse(back);
            if (whole == null) {
                // A forward read of a salted index is in its key order: the rows checked in the data's.
                ahead = new ArrayList<>(ahead);
                Collections.sort(ahead); // hex sorts as the bytes do
            }
            int n = whole == null ? 0 : Math.min(LAST, whole.size());
            List<String> wantAhead = whole == null ? back : whole.subList(0, n);
            List<String> wantBack = whole == null ? ahead : whole.subList(whole.size() - n, whole.size());
            if (!ahead.equals(wantAhead) || !back.equals(wantBack)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "MISMATCH, %s: %,d rows forward, %,d reversed,"
                        + " not the query's rows in the opposite orders", name, ahead.size(), back.size()));
            }
            rows = ahead;
            if (run >= 0) {
                millis[0][run] = forwardMillis;
                millis[1][run] = reversedMillis;
            }
        }
        double f = EndToEnd.median(millis[0]);
        double r = EndToEnd.median(millis[1]);
        String cold = reversedCold == null ? "" : String.format(Locale.ROOT, "%.1f", EndToEnd.median(millis[2])) + coldCost;
        System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f | %s | %s |%n", name, rows.size(), f, r, r / f, cost, cold);
        return rows;
    }

    private static Rows plain(Connection connection, TableName name, boolean reversed) throws IOException {
        try (Table table = connection.getTable(name)) {
            return rows(table.getScanner(new Scan().setCaching(1000).setReversed(reversed).setScanMetricsEnabled(true)));
        }
    }

    private static Rows rows(ResultScanner scanner) throws IOException {
        Rows rows = new Rows();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                rows.keys.add(Bytes.toHex(r.getRow()));
            }
            ScanMetrics metrics = s.getScanMetrics();
            if (metrics != null) {
                rows.looked = metrics.countOfRowsScanned.get();
                rows.trips = metrics.countOfRPCcalls.get();
            }
        }
        return rows;
    }
}
