package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.filter.RandomRowFilter;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * {@code cargo make bench-agg}: seed 000's statistics on the demo's plain table, three ways side by
 * side in one run, taking turns in a shuffled order, medians after a warm-up:
 * <ul>
 *   <li>ours: {@link RowKeyTable#aggregate}, folded inside the regions, partial states to the client;
 *       the regions read at once (the default) and one after another ({@link RowKeyQuery#serial});</li>
 *   <li>the client-side way: the same plan through {@link RowKeyTable#scan}, keys only, every key
 *       decoded and counted on the client (what the rows-to-the-client way costs at best);</li>
 *   <li>the floor of any server-side way: the regions merely reading the plan's rows, a scan of the
 *       same table and key ranges that returns nothing (a filter drops every row on the server), one
 *       scan per region read at once by as many threads as ours uses, and one scan of them all.</li>
 * </ul>
 * Every way's answer is checked: ours against the client's counts. Rows read on the servers and
 * bytes sent to the client are printed for each.
 */
public final class AggregateBench {
    private static final String[] WAYS = {"ours: inside the regions, regions at once",
        "ours, serial: one region after another", "client-side: keys counted on the client",
        "floor: the regions reading the rows at once, nothing returned",
        "floor, serial: one region after another, nothing returned"};
    private static final int OURS = 0;
    private static final int OURS_SERIAL = 1;
    private static final int CLIENT = 2;
    private static final int FLOOR = 3;

    private final Connection connection;
    private final Demo.Options options;
    private final Demo demo;
    /** The floor's readers: as many threads as ours reads regions with (rowkey.scan.threads). */
    private final ExecutorService floorReaders;

    private AggregateBench(Connection connection, Demo.Options options) {
        this.connection = connection;
        this.options = options;
        this.demo = new Demo(connection, options, true);
        this.floorReaders = Executors.newFixedThreadPool(connection.getConfiguration().getInt("rowkey.scan.threads", 16), r -> {
            Thread t = new Thread(r, "floor-reader");
            t.setDaemon(true);
            return t;
        });
    }

    public static void main(String[] args) {
        Demo.Options options = Demo.Options.parse(args, true);
        Demo.benchmarkMain("AGGREGATE BENCHMARK", options, connection -> new AggregateBench(connection, options).run());
    }

    /** A statistic: a query, its aggregation, the key fields it groups by, the top groups kept (0: all). */
    private static final class Statistic {
        final String name;
        final RowKeyQuery query;
        final RowKeyQuery serialQuery;
        final Aggregation aggregation;
        final String[] groups;

        Statistic(String name, Supplier<RowKeyQuery> query, Aggregation aggregation, String... groups) {
            this.name = name;
            this.query = query.get();
            this.serialQuery = query.get().serial();
            this.aggregation = aggregation;
            this.groups = groups;
        }
    }

    private int run() throws Exception {
        demo.load();
        RowKeySchema schema = demo.schema(false);
        RowKeyTable table = RowKeyTable.open(connection, Demo.PLAIN_TABLE);
        List<Statistic> statistics = new ArrayList<>();
        statistics.add(new Statistic("count(*) WHERE sdate = 20161209 AND code = 404",
                () -> RowKeyQuery.on(schema).eq("sdate", 20161209).eq("code", 404), Aggregation.on(schema).count()));
        statistics.add(new Statistic("sdate, code, count(*) GROUP BY sdate, code (whole table)",
                () -> RowKeyQuery.on(schema), Aggregation.on(schema).groupBy("sdate").groupBy("code").count(), "sdate", "code"));
        statistics.add(new Statistic("count(*) (whole table)", () -> RowKeyQuery.on(schema), Aggregation.on(schema).count()));
        statistics.add(new Statistic("code, count(*), min(queue), max(type) WHERE sdate BETWEEN 20161201 AND 20161215 GROUP BY code",
                () -> RowKeyQuery.on(schema).between("sdate", 20161201, 20161215),
                Aggregation.on(schema).groupBy("code").count().min("queue").max("type"), "code"));
        statistics.add(new Statistic("sitecode, count(*) WHERE code = 404 GROUP BY sitecode, top 10 by count",
                () -> RowKeyQuery.on(schema).eq("code", 404),
                Aggregation.on(schema).groupBy("sitecode").count().orderByDescending(0).limit(10), "sitecode"));
        Random order = new Random(options.seed);
        boolean allSame = true;
        System.out.printf(Locale.ROOT, "%n%,d rows; %d measured runs per way after a warm-up, the ways taking turns in a"
                + " shuffled order; medians%n", options.rows, options.runs);
        System.out.println("| statistic | way | median ms | rows read on the servers | bytes to the client | / ours |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (Statistic s : statistics) {
            double[][] millis = new double[WAYS.length][options.runs];
            long[] rowsRead = new long[WAYS.length];
            long[] bytes = new long[WAYS.length];
            boolean same = true;
            List<Integer> ways = new ArrayList<>();
            for (int w = 0; w < WAYS.length; w++) {
                ways.add(w);
            }
            for (int run = -1; run < options.runs; run++) {
                Collections.shuffle(ways, order);
                Map<String, Long> ours = null;
                Map<String, Long> serial = null;
                Map<String, Long> theirs = null;
                for (int w : ways) {
                    long start = System.nanoTime();
                    if (w == OURS || w == OURS_SERIAL) {
                        AggregationResult r = table.aggregate(w == OURS ? s.query : s.serialQuery, s.aggregation);
                        millis[w][Math.max(run, 0)] = Demo.millisSince(start);
                        Map<String, Long> counts = new LinkedHashMap<>();
                        for (AggregationResult.Row row : r.rows()) {
                            counts.put(Demo.groupKey(row.groups(), s.groups), row.longValue(0));
                        }
                        if (w == OURS) {
                            ours = counts;
                        } else {
                            serial = counts;
                        }
                        rowsRead[w] = r.rowsReadOnServers();
                        bytes[w] = r.bytesToClient();
                    } else if (w == CLIENT) {
                        long[] shipped = new long[1];
                        theirs = demo.countOnClient(table, s.query, s.groups, shipped);
                        millis[w][Math.max(run, 0)] = Demo.millisSince(start);
                        rowsRead[w] = shipped[0];
                    } else {
                        long[] metrics = floor(table, s.query, w == FLOOR);
                        millis[w][Math.max(run, 0)] = Demo.millisSince(start);
                        rowsRead[w] = metrics[0];
                        bytes[w] = metrics[1];
                    }
                }
                same &= sameCounts(ours, theirs) && sameCounts(serial, theirs);
            }
            allSame &= same;
            double oursMs = EndToEnd.median(millis[0]);
            for (int w = 0; w < WAYS.length; w++) {
                double ms = EndToEnd.median(millis[w]);
                System.out.printf(Locale.ROOT, "| %s | %s | %.1f | %s | %s | %.2fx |%n", w == 0 ? s.name : "", WAYS[w], ms,
                        Report.count(rowsRead[w]), w == CLIENT ? "every key" : Report.count(bytes[w]), ms / Math.max(oursMs, 0.01));
            }
            if (!same) {
                System.out.println("| MISMATCH | " + s.name + ": ours differs from the client's counts | | | | |");
            }
        }
        System.out.println();
        System.out.println(allSame ? "Every statistic: ours equals the client's counts in every run."
                : "MISMATCH: some statistic differs from the client's counts.");
        demo.dropTablesUnlessKept();
        return allSame ? 0 : 1;
    }

    /** Ours against the client's counts; a top-N may pick other groups of a tied count. */
    private static boolean sameCounts(Map<String, Long> ours, Map<String, Long> theirs) {
        if (ours.size() == theirs.size()) {
            return ours.equals(theirs);
        }
        List<Long> top = new ArrayList<>(theirs.values());
        top.sort(Collections.reverseOrder());
        boolean same = new ArrayList<>(ours.values()).equals(top.subList(0, Math.min(ours.size(), top.size())));
        for (Map.Entry<String, Long> e : ours.entrySet()) {
            same &= e.getValue().equals(theirs.get(e.getKey()));
        }
        return same;
    }

    /**
     * The regions reading the rows the plan reads and returning none: the plan's table (the data
     * table or the index, from {@code explain()}) and key ranges, every row dropped on the server;
     * {@code atOnce}: one scan per region, read by as many threads as ours reads regions with.
     * Returns the rows read there (HBase's scan metrics) and the bytes returned.
     */
    private long[] floor(RowKeyTable table, RowKeyQuery query, boolean atOnce) throws Exception {
        String explain = table.explain(query);
        TableName source = FloorBench.readsIndex(explain) ? FloorBench.indexTable(explain) : Demo.PLAIN_TABLE;
        List<RowRange> ranges = explain.contains(" FULL SCAN")
                ? Collections.singletonList(new RowRange(HConstants.EMPTY_START_ROW, true, HConstants.EMPTY_END_ROW, false))
                : FloorBench.chosenRanges(explain);
        List<List<RowRange>> pieces = atOnce ? regionPieces(source, ranges) : Collections.singletonList(ranges);
        List<Future<long[]>> reads = new ArrayList<>();
        for (List<RowRange> piece : pieces) {
            reads.add(floorReaders.submit(() -> readNothing(source, piece)));
        }
        long[] sum = new long[2];
        for (Future<long[]> read : reads) {
            long[] m = read.get();
            sum[0] += m[0];
            sum[1] += m[1];
        }
        return sum;
    }

    /** The ranges cut at the regions' boundaries, one list per region they touch. */
    private List<List<RowRange>> regionPieces(TableName source, List<RowRange> ranges) throws IOException {
        List<List<RowRange>> pieces = new ArrayList<>();
        try (RegionLocator locator = connection.getRegionLocator(source)) {
            for (HRegionLocation region : locator.getAllRegionLocations()) {
                byte[] regionStart = region.getRegion().getStartKey();
                byte[] regionEnd = region.getRegion().getEndKey();
                List<RowRange> piece = new ArrayList<>();
                for (RowRange r : ranges) {
                    byte[] start = Bytes.compareTo(r.getStartRow(), regionStart) >= 0 ? r.getStartRow() : regionStart;
                    byte[] stop = r.getStopRow().length == 0 ? regionEnd
                            : regionEnd.length == 0 || Bytes.compareTo(r.getStopRow(), regionEnd) <= 0 ? r.getStopRow()
                            : regionEnd;
                    if (stop.length == 0 || Bytes.compareTo(start, stop) < 0) {
                        piece.add(new RowRange(start, true, stop, false));
                    }
                }
                if (!piece.isEmpty()) {
                    pieces.add(piece);
                }
            }
        }
        return pieces;
    }

    /** One scan of {@code ranges} that drops every row on the server: its rows read and bytes returned. */
    private long[] readNothing(TableName source, List<RowRange> ranges) throws IOException {
        Scan scan = new Scan().setScanMetricsEnabled(true).withStartRow(ranges.get(0).getStartRow());
        byte[] stop = ranges.get(ranges.size() - 1).getStopRow();
        if (stop.length > 0) {
            scan.withStopRow(stop);
        }
        RandomRowFilter none = new RandomRowFilter(0f);
        scan.setFilter(ranges.size() > 1 ? new FilterList(new MultiRowRangeFilter(new ArrayList<>(ranges)), none) : none);
        try (Table t = connection.getTable(source); ResultScanner scanner = t.getScanner(scan)) {
            for (Result ignored : scanner) {
                throw new IllegalStateException("the floor's scan returned a row");
            }
            ScanMetrics m = scanner.getScanMetrics();
            return new long[] {m.countOfRowsScanned.get(), m.countOfBytesInResults.get()};
        }
    }
}
