package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.SkipScanFilter;

/**
 * The skip scan benchmark ({@code cargo make bench-skip}): on an embedded HBase, one table per
 * leading-field cardinality (10, 1,000, 100,000 distinct values), keys
 * {@code tenant, lead, sel, seq} (int32 each, two tenants), and queries
 * {@code tenant = 1 AND sel IN (...)} keeping 1 %, 10 % and 50 % of the tenant's rows: the
 * condition on {@code sel} sits behind the free {@code lead}. Each cell is read five ways, side
 * by side: a full scan with the native filter, the planned key ranges with the filter, the skip
 * scan, HBase's {@code FuzzyRowFilter} (one fuzzy key per {@code sel} value), and whatever
 * {@code RowKeyQuery.toScan()} chose; rows read on the server and the median time of
 * {@code --runs} runs after a warm-up, the ways taking turns. Every way must return the same
 * rows. The last columns say whether the planner's choice was the fastest or within 10 % of it.
 *
 * <p>Options: {@code --rows N} per table (default 300,000), {@code --runs N} (default 5),
 * {@code --cell LEAD:PERCENT} (one cell of the grid only, e.g. {@code --cell 1000:1}, to
 * measure it with many runs).
 */
public final class SkipScanBench {
    static final byte[] FAMILY = Bytes.toBytes("f");
    static final byte[] QUALIFIER = Bytes.toBytes("q");
    static final int[] CARDINALITIES = {10, 1_000, 100_000};
    static final int[] PERCENTS = {1, 10, 50};
    static final String[] WAYS = {"full scan + filter", "ranges + filter", "skip scan", "FuzzyRowFilter"};
    /** The scan {@code RowKeyQuery.toScan()} makes, measured with the ways (its rows are checked against theirs). */
    static final String PLANNED = "toScan()";

    private final Connection connection;
    private final int rows;
    private final int runs;
    /** The one cell to measure ({@code --cell}), or null for the whole grid. */
    private final int[] onlyCell;
    private final RowKeySchema schema = RowKeySchema.builder().int32("tenant").int32("lead").int32("sel").int32("seq").build();

    SkipScanBench(Connection connection, int rows, int runs, int[] onlyCell) {
        this.connection = connection;
        this.rows = rows;
        this.runs = runs;
        this.onlyCell = onlyCell;
    }

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        int[] onlyCell = takeCell(rest);
        boolean rowsGiven = rest.contains("--rows");
        Demo.Options options = Demo.Options.parse(rest.toArray(new String[0]), true);
        int rows = rowsGiven ? options.rows : 300_000;
        System.exit(Demo.withCluster(options, c -> new SkipScanBench(c, rows, options.runs, onlyCell).run()));
    }

    /** Removes {@code --cell LEAD:PERCENT} from {@code args}; the cell, or null when not given. */
    private static int[] takeCell(List<String> args) {
        int at = args.indexOf("--cell");
        if (at < 0) {
            return null;
        }
        String value = at + 1 < args.size() ? args.remove(at + 1) : "";
        args.remove(at);
        String[] parts = value.replace(",", "").replace("_", "").split(":");
        try {
            int[] cell = {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
            if (Arrays.stream(CARDINALITIES).anyMatch(c -> c == cell[0]) && Arrays.stream(PERCENTS).anyMatch(p -> p == cell[1])) {
                return cell;
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            // reported below
        }
        System.err.println("--cell needs LEAD:PERCENT with LEAD one of " + Arrays.toString(CARDINALITIES) + " and PERCENT one of "
                + Arrays.toString(PERCENTS) + ", e.g. --cell 1000:1; got '" + value + "'");
        System.exit(2);
        return null;
    }

    /** One measured way: rows returned (hex, for the check), rows read, median ms. */
    static final class Measured {
        final List<String> keys;
        final long rowsRead;
        final double millis;

        Measured(List<String> keys, long rowsRead, double millis) {
            this.keys = keys;
            this.rowsRead = rowsRead;
            this.millis = millis;
        }
    }

    int run() throws IOException {
        System.out.printf(Locale.ROOT, "%n%d rows per table (two tenants), %d runs per way, taking turns (median), HBase %s%n%n", rows, runs,
                org.apache.hadoop.hbase.util.VersionInfo.getVersion());
        System.out.println("| lead values | kept | rows | full scan + filter: read / ms | ranges + filter: read / ms "
                + "| skip scan: read / ms | FuzzyRowFilter: read / ms | planner chose | fastest | choice within 10 % |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---|---|---|");
        int cells = 0;
        int good = 0;
        boolean allSame = true;
        for (int cardinality : CARDINALITIES) {
            if (onlyCell != null && onlyCell[0] != cardinality) {
                continue;
            }
            TableName table = load(cardinality);
            for (int percent : PERCENTS) {
                if (onlyCell != null && onlyCell[1] != percent) {
                    continue;
                }
                Object[] sels = new Object[percent];
                for (int i = 0; i < percent; i++) {
                    sels[i] = i;
                }
                RowKeyQuery q = RowKeyQuery.on(schema).eq("tenant", 1).in("sel", sels);
                Map<String, ScanMaker> makers = new LinkedHashMap<>();
                makers.put(WAYS[0], () -> new Scan().setFilter(new RowFilter(CompareOperator.EQUAL, q.toComparator())));
                makers.put(WAYS[1], () -> rangesAndFilter(q));
                makers.put(WAYS[2], () -> skipScan(q));
                makers.put(WAYS[3], () -> fuzzy(sels));
                makers.put(PLANNED, q::toScan);
                Map<String, Measured> byWay = measure(table, makers);
                boolean chosenSkip = q.explain().contains("SKIP SCAN");
                String chosen = chosenSkip ? WAYS[2] : WAYS[1];
                Measured planned = byWay.get(PLANNED);
                String fastest = WAYS[0];
                for (String way : WAYS) {
                    if (byWay.get(way).millis < byWay.get(fastest).millis) {
                        fastest = way;
                    }
                    allSame &= byWay.get(way).keys.equals(planned.keys);
                }
                boolean ok = byWay.get(chosen).millis <= 1.10 * byWay.get(fastest).millis;
                cells++;
                good += ok ? 1 : 0;
                System.out.printf(Locale.ROOT, "| %,d | %d %% | %,d | %s | %s | %s | %s | %s | %s | %s |%n", cardinality, percent,
                        planned.keys.size(), cell(byWay.get(WAYS[0])), cell(byWay.get(WAYS[1])), cell(byWay.get(WAYS[2])),
                        cell(byWay.get(WAYS[3])), chosen, fastest, ok ? "yes" : "no");
            }
        }
        System.out.printf(Locale.ROOT, "%nThe planner's choice was the fastest or within 10 %% of it in %d of %d cells (%d %%; target 90 %%).%n",
                good, cells, 100 * good / cells);
        System.out.println(allSame ? "Every way returned the same rows." : "MISMATCH: the ways returned different rows!");
        return allSame ? 0 : 1;
    }

    private static String cell(Measured m) {
        return String.format(Locale.ROOT, m.millis < 100 ? "%,d / %.1f" : "%,d / %.0f", m.rowsRead, m.millis);
    }

    /** A table of {@code rows} rows whose lead field takes {@code cardinality} values; flushed to files. */
    private TableName load(int cardinality) throws IOException {
        TableName name = TableName.valueOf("skip_bench_" + cardinality);
        long t0 = System.nanoTime();
        try (Admin admin = connection.getAdmin()) {
            if (admin.tableExists(name)) {
                admin.disableTable(name);
                admin.deleteTable(name);
            }
            admin.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
            try (Table t = connection.getTable(name)) {
                List<Put> batch = new ArrayList<>();
                for (int i = 0; i < rows; i++) {
                    int tenant = 1 + (i & 1);
                    int j = i >>> 1;
                    // sel: a scrambled 0..99, so each IN keeps its share of every lead value's rows.
                    int sel = (int) (((j * 2654435761L) >>> 7) % 100);
                    byte[] key = schema.encode(row(tenant, j % cardinality, sel, j / cardinality));
                    batch.add(new Put(key).addColumn(FAMILY, QUALIFIER, new byte[8]));
                    if (batch.size() == 5_000) {
                        t.put(batch);
                        batch.clear();
                    }
                }
                t.put(batch);
            }
            admin.flush(name);
        }
        System.err.printf(Locale.ROOT, "loaded %s (%,d rows) in %.1f s%n", name, rows, (System.nanoTime() - t0) / 1e9);
        return name;
    }

    private static Map<String, Object> row(int tenant, int lead, int sel, int seq) {
        Map<String, Object> m = new TreeMap<>();
        m.put("tenant", tenant);
        m.put("lead", lead);
        m.put("sel", sel);
        m.put("seq", seq);
        return m;
    }

    /** The planned ranges read in full, the conditions filtered per row. */
    private static Scan rangesAndFilter(RowKeyQuery q) {
        List<MultiRowRangeFilter.RowRange> ranges = q.toRanges();
        Scan scan = new Scan().withStartRow(ranges.get(0).getStartRow());
        byte[] stop = ranges.get(ranges.size() - 1).getStopRow();
        if (stop.length > 0) {
            scan.withStopRow(stop);
        }
        Filter filter = new RowFilter(CompareOperator.EQUAL, q.toComparator());
        return scan.setFilter(ranges.size() == 1 ? filter
                : new FilterList(FilterList.Operator.MUST_PASS_ALL, new MultiRowRangeFilter(ranges), filter));
    }

    /** The planned ranges' bounds, the skip scan inside them. */
    private static Scan skipScan(RowKeyQuery q) {
        List<MultiRowRangeFilter.RowRange> ranges = q.toRanges();
        Scan scan = new Scan().withStartRow(ranges.get(0).getStartRow());
        byte[] stop = ranges.get(ranges.size() - 1).getStopRow();
        if (stop.length > 0) {
            scan.withStopRow(stop);
        }
        return scan.setFilter(new SkipScanFilter(q));
    }

    /** tenant = 1, lead any, sel = v, seq any: one fuzzy key per value (0 = fixed byte, 1 = any). */
    private Scan fuzzy(Object[] sels) {
        List<Pair<byte[], byte[]>> keys = new ArrayList<>();
        byte[] mask = new byte[16];
        Arrays.fill(mask, 4, 8, (byte) 1);
        Arrays.fill(mask, 12, 16, (byte) 1);
        for (Object sel : sels) {
            byte[] key = schema.encode(row(1, 0, (Integer) sel, 0));
            for (int i = 0; i < key.length; i++) {
                key[i] = mask[i] == 0 ? key[i] : 0;
            }
            keys.add(new Pair<>(key, mask.clone()));
        }
        return new Scan().setFilter(new FuzzyRowFilter(keys));
    }

    interface ScanMaker {
        Scan make();
    }

    /**
     * Each way once per round, {@code runs} rounds after a warm-up one, and each way's median:
     * the ways take turns, each round in a new (seeded) random order, so load from other
     * processes, garbage collection, the JIT and the wake of a long scan just before weigh on all
     * of them alike rather than on whichever way was being measured when they struck.
     */
    private Map<String, Measured> measure(TableName table, Map<String, ScanMaker> makers) throws IOException {
        Map<String, double[]> millis = new LinkedHashMap<>();
        Map<String, List<String>> keys = new HashMap<>();
        Map<String, Long> read = new HashMap<>();
        makers.keySet().forEach(way -> millis.put(way, new double[runs]));
        List<Map.Entry<String, ScanMaker>> ways = new ArrayList<>(makers.entrySet());
        Random order = new Random(42);
        for (int r = -1; r < runs; r++) {
            // A new order each round, so no way always follows the same one (or a long scan).
            Collections.shuffle(ways, order);
            for (Map.Entry<String, ScanMaker> way : ways) {
                Scan scan = way.getValue().make().setScanMetricsEnabled(true).setCaching(10_000);
                List<String> got = new ArrayList<>();
                long t0 = System.nanoTime();
                try (Table t = connection.getTable(table); ResultScanner scanner = t.getScanner(scan)) {
                    for (Result result : scanner) {
                        got.add(Bytes.toHex(result.getRow()));
                    }
                    read.put(way.getKey(), scanner.getScanMetrics().countOfRowsScanned.get());
                }
                if (r >= 0) {
                    millis.get(way.getKey())[r] = (System.nanoTime() - t0) / 1e6;
                }
                keys.put(way.getKey(), got);
            }
        }
        Map<String, Measured> measured = new TreeMap<>();
        millis.forEach((way, m) -> {
            Arrays.sort(m);
            measured.put(way, new Measured(keys.get(way), read.get(way), m[runs / 2]));
        });
        return measured;
    }
}
