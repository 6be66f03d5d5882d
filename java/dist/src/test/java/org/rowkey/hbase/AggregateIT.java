package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Abortable;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateFunction;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateRequest;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.AggregationSpec;

/**
 * Aggregates inside the regions (docs/aggregates.md) on a real minicluster with two RegionServers:
 * differential against an oracle computed from the rows on the client, on a table split into four
 * regions, through the data table and through each index (covered and not), with groupings,
 * truncated timestamps, orderings and limits; index rows that are not VERIFIED counted exactly once;
 * a split and moves while aggregations run; writers beside aggregations through an index, each
 * acknowledged row counted once; a RegionServer aborted under aggregations; hostile requests refused
 * while the server keeps serving.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AggregateIT extends HBaseMiniClusterBase {
    private static final int ROWS = 6_000;
    private static final byte[] F = Bytes.toBytes("f");
    private static final Aggregation.Cell N = Aggregation.Cell.ofLong(F, Bytes.toBytes("n"));
    private static final Aggregation.Cell D = Aggregation.Cell.ofDouble(F, Bytes.toBytes("d"));
    private static final long DAY = 86_400_000L;
    private static final long T0 = 1_480_550_400_000L; // 2016-12-01 UTC

    private final RowKeySchema schema = RowKeySchema.builder().md5("url", 4).int32("code").timestamp("ts")
            .int32("queue").descending().bool("free").reversedTimestamp("seen").build();
    private final TableName name = TableName.valueOf("aggregated");
    /** The rows written: key -> decoded values plus "n" and "d" (absent when the row has no such cell). */
    private final Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    private RowKeyTable table;

    @Override
    protected int numRegionServers() {
        return 2;
    }

    @BeforeAll
    void createAndWrite() throws IOException {
        byte[][] splits = {{0x40}, {(byte) 0x80}, {(byte) 0xc0}};
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(
                    RowKeyIndex.of("by_code_ts", "code", "ts").include("f", "n"),
                    RowKeyIndex.of("by_queue", "queue").salt(3)), splits, F);
        }
        table = RowKeyTable.open(connection(), name);
        Random random = new Random(22);
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                long ts = T0 + random.nextInt(20) * DAY + random.nextInt(86_400) * 1000L;
                Map<String, Object> row = TestData.map("url", "u" + i, "code", new int[] {200, 301, 404, 500}[random.nextInt(4)],
                        "ts", ts, "queue", random.nextInt(9) - 4, "free", random.nextBoolean(), "seen", ts - random.nextInt(5000));
                byte[] key = schema.encode(row);
                Map<String, Object> stored = schema.decode(key);
                Put put = new Put(key).addColumn(F, Bytes.toBytes("x"), Bytes.toBytes(i));
                if (random.nextInt(4) != 0) {
                    long n = random.nextInt(1000) - 100;
                    put.addColumn(F, Bytes.toBytes("n"), Bytes.toBytes(n));
                    stored.put("n", n);
                }
                if (random.nextInt(3) != 0) {
                    double d = random.nextInt(64) * 0.25; // exact in any order of addition
                    put.addColumn(F, Bytes.toBytes("d"), Bytes.toBytes(d));
                    stored.put("d", d);
                }
                rows.put(Bytes.toHex(key), stored);
                batch.add(put);
            }
            t.put(batch);
        }
    }

    // ------------------------------------------------------------------ the oracle

    /** What an aggregate reads from an oracle row: a field, a cell, or null for count(*). */
    private static final class Agg {
        final AggregateFunction function;
        final String input;
        final boolean cell;

        Agg(AggregateFunction function, String input, boolean cell) {
            this.function = function;
            this.input = input;
            this.cell = cell;
        }

        void addTo(Aggregation a) {
            Aggregation.Cell c = "n".equals(input) ? N : D;
            switch (function) {
                case COUNT: if (input == null) { a.count(); } else { a.count(c); } break;
                case SUM: if (cell) { a.sum(c); } else { a.sum(input); } break;
                case MIN: if (cell) { a.min(c); } else { a.min(input); } break;
                case MAX: if (cell) { a.max(c); } else { a.max(input); } break;
                default: if (cell) { a.avg(c); } else { a.avg(input); } break;
            }
        }
    }

    /** The answer from the rows themselves: groups in value order, then ordered and limited. */
    private List<AggregationResult.Row> oracle(List<SeedTableIT.Condition> where, List<String> groups, Map<String, Long> units,
            List<Agg> aggs, int orderBy, boolean descending, int limit) {
        TreeMap<List<Object>, List<Map<String, Object>>> byGroup = new TreeMap<>(AggregateIT::compareKeys);
        for (Map<String, Object> row : rows.values()) {
            boolean all = true;
            for (SeedTableIT.Condition c : where) {
                all &= holds(c, row);
            }
            if (!all) {
                continue;
            }
            List<Object> key = new ArrayList<>();
            for (String g : groups) {
                Object v = row.get(g);
                key.add(units.containsKey(g) ? Math.floorDiv((Long) v, units.get(g)) * units.get(g) : v);
            }
            byGroup.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
        }
        if (groups.isEmpty() && byGroup.isEmpty()) {
            byGroup.put(new ArrayList<>(), new ArrayList<>());
        }
        List<AggregationResult.Row> out = new ArrayList<>();
        for (Map.Entry<List<Object>, List<Map<String, Object>>> e : byGroup.entrySet()) {
            Map<String, Object> g = new LinkedHashMap<>();
            for (int i = 0; i < groups.size(); i++) {
                g.put(groups.get(i), e.getKey().get(i));
            }
            List<Object> values = new ArrayList<>();
            for (Agg a : aggs) {
                values.add(value(a, e.getValue()));
            }
            out.add(new AggregationResult.Row(g, values));
        }
        if (orderBy >= 0) {
            Comparator<Object> byValue = (x, y) -> Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue());
            Comparator<Object> order = Comparator.nullsLast(descending ? byValue.reversed() : byValue);
            out.sort((x, y) -> order.compare(x.value(orderBy), y.value(orderBy)));
        }
        return limit > 0 && out.size() > limit ? out.subList(0, limit) : out;
    }

    /** A condition on the decoded row (ints, longs and booleans here). */
    private static boolean holds(SeedTableIT.Condition c, Map<String, Object> row) {
        Object v = row.get(c.field);
        Comparator<Object> order = (x, y) -> x instanceof Boolean ? Boolean.compare((Boolean) x, (Boolean) y)
                : Long.compare(((Number) x).longValue(), ((Number) y).longValue());
        switch (c.op) {
            case "=": return order.compare(v, c.values[0]) == 0;
            case "!=": return order.compare(v, c.values[0]) != 0;
            case ">=": return order.compare(v, c.values[0]) >= 0;
            case "between": return order.compare(v, c.values[0]) >= 0 && order.compare(v, c.values[1]) <= 0;
            case "in": return Arrays.stream(c.values).anyMatch(x -> order.compare(v, x) == 0);
            default: throw new IllegalArgumentException(c.op);
        }
    }

    private static Object value(Agg a, List<Map<String, Object>> group) {
        List<Object> inputs = new ArrayList<>();
        for (Map<String, Object> row : group) {
            Object v = a.input == null ? 1 : row.get(a.input);
            if (v != null) {
                inputs.add(v);
            }
        }
        if (a.function == AggregateFunction.COUNT) {
            return (long) inputs.size();
        }
        if (inputs.isEmpty()) {
            return null;
        }
        boolean dbl = inputs.get(0) instanceof Double;
        double sum = 0;
        long longSum = 0;
        for (Object v : inputs) {
            sum += ((Number) v).doubleValue();
            longSum += ((Number) v).longValue();
        }
        Comparator<Object> numeric = Comparator.comparingDouble(v -> ((Number) v).doubleValue());
        switch (a.function) {
            case SUM: return dbl ? (Object) sum : (Object) longSum;
            case AVG: return dbl ? sum / inputs.size() : (double) longSum / inputs.size();
            case MIN: return inputs.stream().min(numeric).get();
            default: return inputs.stream().max(numeric).get();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(List<Object> x, List<Object> y) {
        for (int i = 0; i < x.size(); i++) {
            Object a = x.get(i);
            Object b = y.get(i);
            int c = a instanceof byte[] ? Bytes.compareTo((byte[]) a, (byte[]) b) : ((Comparable) a).compareTo(b);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------ tests

    private static final List<List<SeedTableIT.Condition>> QUERIES = Arrays.asList(
            Arrays.asList(),
            Arrays.asList(new SeedTableIT.Condition("code", "=", 404)),
            Arrays.asList(new SeedTableIT.Condition("code", "=", 404), new SeedTableIT.Condition("ts", ">=", T0 + 5 * DAY)),
            Arrays.asList(new SeedTableIT.Condition("queue", "in", -1, 2)),
            Arrays.asList(new SeedTableIT.Condition("free", "=", true), new SeedTableIT.Condition("code", "!=", 200)),
            Arrays.asList(new SeedTableIT.Condition("ts", "between", T0 + 3 * DAY, T0 + 9 * DAY)),
            Arrays.asList(new SeedTableIT.Condition("code", "=", 999)));

    @Test
    void aggregatesEqualTheOracleThroughEveryWay() throws IOException {
        Random random = new Random(7);
        String[] groupable = {"code", "ts", "queue", "free", "url", "seen"};
        List<Agg> choices = Arrays.asList(new Agg(AggregateFunction.COUNT, null, false),
                new Agg(AggregateFunction.COUNT, "n", true), new Agg(AggregateFunction.SUM, "queue", false),
                new Agg(AggregateFunction.MIN, "ts", false), new Agg(AggregateFunction.MAX, "seen", false),
                new Agg(AggregateFunction.AVG, "code", false), new Agg(AggregateFunction.SUM, "n", true),
                new Agg(AggregateFunction.MAX, "n", true), new Agg(AggregateFunction.SUM, "d", true),
                new Agg(AggregateFunction.MIN, "d", true), new Agg(AggregateFunction.AVG, "n", true));
        int checks = 0;
        for (int round = 0; round < 16; round++) {
            List<SeedTableIT.Condition> where = QUERIES.get(round % QUERIES.size());
            List<String> groups = new ArrayList<>();
            Map<String, Long> units = new LinkedHashMap<>();
            Aggregation a = Aggregation.on(schema);
            for (String g : groupable) {
                // url groups every row apart: rarely, and never with another field
                if (random.nextInt(g.equals("url") ? 12 : 3) == 0 && (groups.isEmpty() || !g.equals("url"))) {
                    groups.add(g);
                    if ((g.equals("ts") || g.equals("seen")) && random.nextBoolean()) {
                        Aggregation.Unit unit = random.nextBoolean() ? Aggregation.Unit.DAY : Aggregation.Unit.HOUR;
                        units.put(g, unit == Aggregation.Unit.DAY ? DAY : 3_600_000L);
                        a.groupBy(g, unit);
                    } else {
                        a.groupBy(g);
                    }
                }
            }
            List<Agg> aggs = new ArrayList<>();
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                Agg agg = choices.get(random.nextInt(choices.size()));
                agg.addTo(a);
                aggs.add(agg);
            }
            int orderBy = random.nextInt(3) == 0 ? random.nextInt(aggs.size()) : -1;
            boolean descending = random.nextBoolean();
            int limit = orderBy >= 0 && random.nextBoolean() ? 1 + random.nextInt(5) : 0;
            if (orderBy >= 0) {
                if (descending) {
                    a.orderByDescending(orderBy);
                } else {
                    a.orderBy(orderBy);
                }
            }
            if (limit > 0) {
                a.limit(limit);
            }
            if (random.nextBoolean()) {
                a.budget(50 + random.nextInt(700), 1000); // many partials per region
            }
            List<AggregationResult.Row> expected = oracle(where, groups, units, aggs, orderBy, descending, limit);
            String label = a + " of " + where;
            Function<RowKeyQuery, RowKeyQuery> noChange = q -> q;
            for (Function<RowKeyQuery, RowKeyQuery> way : Arrays.<Function<RowKeyQuery, RowKeyQuery>>asList(noChange,
                    RowKeyQuery::noIndex, q -> q.useIndex("by_code_ts"), q -> q.useIndex("by_queue"), RowKeyQuery::serial)) {
                RowKeyQuery q = way.apply(query(where));
                AggregationResult got = table.aggregate(q, a);
                assertEquals(expected, got.rows(), label + "\n" + table.explain(q, a));
                checks++;
            }
        }
        assertEquals(80, checks);
    }

    private RowKeyQuery query(List<SeedTableIT.Condition> where) {
        RowKeyQuery q = RowKeyQuery.on(schema);
        for (SeedTableIT.Condition c : where) {
            c.addTo(q);
        }
        return q;
    }

    @Test
    void onlyPartialStatesCrossTheNetwork() throws IOException {
        Aggregation a = Aggregation.on(schema).groupBy("code").count().sum(N);
        AggregationResult result = table.aggregate(RowKeyQuery.on(schema).noIndex(), a);
        assertEquals(4, result.rows().size());
        assertEquals(ROWS, result.rowsReadOnServers(), "every row read once, on the servers");
        assertTrue(result.bytesToClient() < 4 * 1024, "partials only: " + result.bytesToClient() + " bytes");
        String regions = table.explain(RowKeyQuery.on(schema).noIndex(), a);
        assertTrue(regions.contains("parallel 4-way: 4 chunk(s), one per region"), regions);
        assertTrue(table.explain(RowKeyQuery.on(schema).noIndex().serial(), a).contains("serial: 4 chunk(s)"), regions);
        String explain = table.explain(RowKeyQuery.on(schema).eq("code", 404), Aggregation.on(schema).groupBy("url").count());
        assertTrue(explain.contains("RowKeyScanObserver folds every row read natively"), explain);
        assertTrue(explain.contains("group field url (md5(4)) is hashed"), explain);
    }

    @Test
    @Order(Integer.MAX_VALUE - 1) // after the tests that count rows read: deleted rows are still read
    void rowsOfAnotherKeyLengthAreNotAggregated() throws IOException {
        // Regression: whole-table aggregates read with no per-row filter; the fold alone must skip these.
        byte[][] foreign = {Bytes.toBytes("short"), new byte[schema.keyLength() + 2], new byte[schema.keyLength() - 1]};
        try (Table t = connection().getTable(name)) {
            for (byte[] key : foreign) {
                t.put(new Put(key).addColumn(F, Bytes.toBytes("n"), Bytes.toBytes(1_000_000L)));
            }
            try {
                Agg count = new Agg(AggregateFunction.COUNT, null, false);
                Agg sum = new Agg(AggregateFunction.SUM, "n", true);
                // count(*) alone reads one cell of each row; with a sum, every cell
                for (List<Agg> aggs : Arrays.asList(Arrays.asList(count), Arrays.asList(count, sum))) {
                    for (List<String> groups : Arrays.asList(Collections.<String>emptyList(), Arrays.asList("code"))) {
                        Aggregation a = Aggregation.on(schema);
                        groups.forEach(a::groupBy);
                        aggs.forEach(agg -> agg.addTo(a));
                        RowKeyQuery all = RowKeyQuery.on(schema).noIndex();
                        String explain = table.explain(all, a);
                        assertTrue(explain.contains("the fold skips rows of another key length"), explain);
                        assertEquals(oracle(Collections.emptyList(), groups, Collections.emptyMap(), aggs, -1, false, 0), table.aggregate(all, a).rows(),
                                a.toString());
                    }
                }
            } finally {
                for (byte[] key : foreign) {
                    t.delete(new Delete(key));
                }
            }
        }
    }

    @Test
    void unverifiedIndexRowsAreCheckedAgainstTheirDataRowsOnce() throws IOException {
        Catalog catalog;
        try (Admin admin = connection().getAdmin()) {
            catalog = Catalog.parse(admin.getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        }
        int index = catalog.indexNumber("by_code_ts");
        TableName indexTable = RowKeyTable.indexTableName(name, "by_code_ts");
        // A data row whose index row is turned UNVERIFIED (counted once), and an UNVERIFIED index row
        // whose data row was never written (not counted).
        byte[] existing = Bytes.fromHex(rows.keySet().iterator().next());
        Map<String, Object> ghost = TestData.map("url", "ghost", "code", 404, "ts", T0 + DAY, "queue", 0, "free", true,
                "seen", T0);
        long stamp = System.currentTimeMillis() * 1_000; // an index timestamp, newer than the rows' own
        byte[] unverified = IndexRowFormat.unverified(stamp);
        try (Table t = connection().getTable(indexTable)) {
            for (byte[] dataKey : Arrays.asList(existing, schema.encode(ghost))) {
                t.put(new Put(catalog.indexKey(index, dataKey)).addColumn(IndexRowFormat.FAMILY,
                        IndexRowFormat.STATUS, stamp, unverified));
            }
        }
        Aggregation a = Aggregation.on(schema).groupBy("code").count().sum(N).max("ts");
        List<AggregationResult.Row> expected = oracle(Arrays.asList(), Arrays.asList("code"), new LinkedHashMap<>(),
                Arrays.asList(new Agg(AggregateFunction.COUNT, null, false), new Agg(AggregateFunction.SUM, "n", true),
                        new Agg(AggregateFunction.MAX, "ts", false)), -1, false, 0);
        AggregationResult through = table.aggregate(RowKeyQuery.on(schema).useIndex("by_code_ts"), a);
        assertEquals(expected, through.rows());
        // The two UNVERIFIED rows and only those: a VERIFIED index row is its data row's copy, a
        // covered cell marked absent included (IndexRowFormat).
        assertEquals(2, through.indexRowsChecked());
        // Counting rows alone reads only the statuses: the two UNVERIFIED rows are all that is checked.
        AggregationResult counted = table.aggregate(RowKeyQuery.on(schema).useIndex("by_code_ts"), Aggregation.on(schema).count());
        assertEquals((long) ROWS, counted.rows().get(0).value(0));
        assertEquals(2, counted.indexRowsChecked());
        // Not covered (by_queue holds no cells): every index row is checked, with the same answer.
        AggregationResult uncovered = table.aggregate(RowKeyQuery.on(schema).useIndex("by_queue"), a);
        assertEquals(expected, uncovered.rows());
        assertEquals(ROWS, uncovered.indexRowsChecked());
    }

    @Test
    void indexRowsTheIndexCouldNotHaveWrittenAreNotAggregated() throws IOException {
        // Regression (issue 34): a hand-made row of by_queue (salted) with a wrong salt byte, VERIFIED,
        // was skipped by scans but counted by aggregates (+1); without a status it made every count
        // through the index fail ("Row buffer is null": its data key was looked up as null).
        Catalog catalog;
        try (Admin admin = connection().getAdmin()) {
            catalog = Catalog.parse(admin.getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        }
        byte[] own = catalog.indexKey(catalog.indexNumber("by_queue"), Bytes.fromHex(rows.keySet().iterator().next()));
        byte[] verifiedForeign = own.clone();
        verifiedForeign[0] = (byte) ((verifiedForeign[0] + 1) % 3);
        byte[] bareForeign = own.clone();
        bareForeign[0] = (byte) ((bareForeign[0] + 2) % 3);
        TableName indexTable = RowKeyTable.indexTableName(name, "by_queue");
        long stamp = System.currentTimeMillis() * 1_000;
        try (Table t = connection().getTable(indexTable)) {
            t.put(new Put(verifiedForeign).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp, IndexRowFormat.VERIFIED));
            t.put(new Put(bareForeign).addColumn(IndexRowFormat.FAMILY, Bytes.toBytes("x"), stamp, new byte[0]));
            try {
                RowKeyQuery throughIndex = RowKeyQuery.on(schema).useIndex("by_queue");
                for (Aggregation a : Arrays.asList(Aggregation.on(schema).count(), Aggregation.on(schema).groupBy("queue").count().max("ts"),
                        Aggregation.on(schema).count().sum(N))) {
                    assertEquals(table.aggregate(RowKeyQuery.on(schema).noIndex(), a).rows(), table.aggregate(throughIndex, a).rows(),
                            a.toString());
                }
                assertEquals(table.aggregate(RowKeyQuery.on(schema).noIndex(), Aggregation.on(schema).count()).rows(),
                        table.aggregate(throughIndex.serial(), Aggregation.on(schema).count()).rows());
            } finally {
                t.delete(new Delete(verifiedForeign));
                t.delete(new Delete(bareForeign));
            }
        }
    }

    @Test
    void splitsAndMovesDuringAggregationsLoseAndRepeatNothing() throws Exception {
        Aggregation a = Aggregation.on(schema).groupBy("code").count().sum("queue").sum(N).budget(40, 1000);
        List<AggregationResult.Row> expected = oracle(Arrays.asList(), Arrays.asList("code"), new LinkedHashMap<>(),
                Arrays.asList(new Agg(AggregateFunction.COUNT, null, false), new Agg(AggregateFunction.SUM, "queue", false),
                        new Agg(AggregateFunction.SUM, "n", true)), -1, false, 0);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        AtomicBoolean stop = new AtomicBoolean();
        try (Admin admin = connection().getAdmin()) {
            Future<Integer> runs = pool.submit(() -> {
                int n = 0;
                while (!stop.get()) {
                    assertEquals(expected, table.aggregate(RowKeyQuery.on(schema).noIndex(), a).rows(), "run " + n);
                    n++;
                }
                return n;
            });
            Thread.sleep(200);
            admin.split(name, new byte[] {0x20});
            waitForRegions(admin, 5);
            List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
            try (RegionLocator locator = connection().getRegionLocator(name)) {
                for (HRegionLocation at : locator.getAllRegionLocations()) {
                    // each region to the other server
                    ServerName other = servers.get(0).equals(at.getServerName()) ? servers.get(1) : servers.get(0);
                    admin.move(at.getRegion().getEncodedNameAsBytes(), other);
                }
            }
            Thread.sleep(200);
            stop.set(true);
            assertTrue(runs.get() > 2, "aggregations ran across the split and the moves: " + runs.get());
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    /**
     * Writers beside aggregations through an index: one inserts new rows (code 700, n = 1), one
     * puts the cell again on rows already written (each index row UNVERIFIED while in flight). Every
     * aggregation of code 700, grouped by url, counts each row once (a group of 2 would be a row
     * counted twice), at least the rows acknowledged before it started and at most those begun
     * before it ended; once the writers stop, exactly the acknowledged rows.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void writersBesideAggregationsThroughAnIndexCountEachRowOnce() throws Exception {
        TableName live = TableName.valueOf("aggregated_live");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, live, schema, Arrays.asList(RowKeyIndex.of("by_code_ts", "code", "ts").include("f", "n")),
                    new byte[][] {{0x40}, {(byte) 0x80}, {(byte) 0xc0}}, F);
        }
        RowKeyTable liveTable = RowKeyTable.open(connection(), live);
        List<byte[]> acknowledgedKeys = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong begun = new AtomicLong();
        AtomicLong acknowledged = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writers = Executors.newFixedThreadPool(2);
        Future<?> inserts = writers.submit(() -> {
            try (Table t = connection().getTable(live)) {
                for (int i = 0; !stop.get(); i++) {
                    byte[] key = schema.encode(TestData.map("url", "w" + i, "code", 700, "ts", T0 + i * 1000L, "queue", i % 9 - 4,
                            "free", i % 2 == 0, "seen", T0));
                    begun.incrementAndGet();
                    t.put(new Put(key).addColumn(F, Bytes.toBytes("n"), Bytes.toBytes(1L)));
                    acknowledgedKeys.add(key);
                    acknowledged.incrementAndGet();
                }
            }
            return null;
        });
        Future<?> rewrites = writers.submit(() -> {
            Random random = new Random(5);
            try (Table t = connection().getTable(live)) {
                while (!stop.get()) {
                    if (acknowledgedKeys.isEmpty()) {
                        Thread.sleep(1);
                        continue;
                    }
                    byte[] key = acknowledgedKeys.get(random.nextInt(acknowledgedKeys.size()));
                    t.put(new Put(key).addColumn(F, Bytes.toBytes("n"), Bytes.toBytes(1L)));
                }
            }
            return null;
        });
        Aggregation perUrl = Aggregation.on(schema).groupBy("url").count().sum(N).budget(64, 1000);
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 700).useIndex("by_code_ts");
        int runs = 0;
        try {
            long until = System.nanoTime() + 8_000_000_000L;
            while (System.nanoTime() < until) {
                long before = acknowledged.get();
                AggregationResult got = liveTable.aggregate(query, perUrl);
                long after = begun.get();
                for (AggregationResult.Row r : got.rows()) {
                    assertEquals(1, r.longValue(0), "run " + runs + ": a row counted more than once: " + r);
                    assertEquals(1, r.longValue(1), "run " + runs + ": its covered cell: " + r);
                }
                int rowsCounted = got.rows().size();
                assertTrue(before <= rowsCounted && rowsCounted <= after,
                        "run " + runs + ": " + rowsCounted + " rows, " + before + " acknowledged before, " + after + " begun after");
                runs++;
            }
        } finally {
            stop.set(true);
            writers.shutdown();
        }
        inserts.get(60, TimeUnit.SECONDS);
        rewrites.get(60, TimeUnit.SECONDS);
        assertTrue(runs >= 3 && acknowledged.get() > 100, runs + " aggregations beside " + acknowledged.get() + " inserts");
        AggregationResult settled = liveTable.aggregate(query, Aggregation.on(schema).count().sum(N));
        assertEquals(acknowledged.get(), settled.rows().get(0).longValue(0), "every acknowledged row, once");
        assertEquals(acknowledged.get(), settled.rows().get(0).longValue(1));
        System.out.printf("AggregateIT: %d aggregations through the index beside %d inserts and their rewrites%n", runs,
                acknowledged.get());
    }

    /**
     * A RegionServer aborted while aggregations run through the data table and through an index
     * (many partial states per region: a small row budget): every aggregation, before, across and
     * after the abort, equals the oracle once its regions are reassigned. Runs last: the cluster
     * keeps one RegionServer.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aRegionServerAbortedUnderAggregationsLosesAndRepeatsNothing() throws Exception {
        Aggregation a = Aggregation.on(schema).groupBy("code").count().sum("queue").sum(N).budget(40, 1000);
        List<AggregationResult.Row> expected = oracle(Arrays.asList(), Arrays.asList("code"), new LinkedHashMap<>(),
                Arrays.asList(new Agg(AggregateFunction.COUNT, null, false), new Agg(AggregateFunction.SUM, "queue", false),
                        new Agg(AggregateFunction.SUM, "n", true)), -1, false, 0);
        Configuration patient = patientConf();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong abortedAt = new AtomicLong(Long.MAX_VALUE);
        try (Connection conn = ConnectionFactory.createConnection(patient)) {
            RowKeyTable patientTable = RowKeyTable.open(conn, name);
            Future<int[]> runs = pool.submit(() -> {
                int n = 0;
                int across = 0;
                while (!stop.get()) {
                    long started = System.nanoTime();
                    RowKeyQuery q = n % 2 == 0 ? RowKeyQuery.on(schema).noIndex() : RowKeyQuery.on(schema).useIndex("by_code_ts");
                    assertEquals(expected, patientTable.aggregate(q, a).rows(), "run " + n + " (" + q + ")");
                    across += started < abortedAt.get() && System.nanoTime() > abortedAt.get() ? 1 : 0;
                    n++;
                }
                return new int[] {n, across};
            });
            Thread.sleep(300);
            ServerName victim;
            try (RegionLocator locator = conn.getRegionLocator(name)) {
                victim = locator.getRegionLocation(new byte[] {(byte) 0x90}, true).getServerName();
            }
            abortedAt.set(System.nanoTime());
            ((Abortable) cluster().getOnlineRegionsInterface(victim)
                    .orElseThrow(() -> new AssertionError("no RegionServer object for " + victim)))
                    .abort("AggregateIT: killed under aggregations", null);
            long until = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < until && !runs.isDone()) {
                Thread.sleep(500);
                if (System.nanoTime() - abortedAt.get() > 5_000_000_000L) {
                    stop.set(true);
                }
            }
            stop.set(true);
            int[] counts = runs.get(240, TimeUnit.SECONDS);
            assertTrue(counts[1] >= 1, "an aggregation ran across the abort: " + counts[0] + " runs, " + counts[1] + " across");
            System.out.printf("AggregateIT: %s aborted; %d aggregations equal the oracle, %d of them across the abort%n",
                    victim, counts[0], counts[1]);
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    private void waitForRegions(Admin admin, int count) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (admin.getRegions(name).size() < count) {
            assertTrue(System.nanoTime() < deadline, "the split did not finish in 60 s");
            Thread.sleep(50);
        }
    }

    @Test
    void hostileRequestsAreRefusedAndTheServerKeepsServing() throws IOException {
        AggregationSpec sumOfHash = AggregationSpec.newBuilder().setSchema(schema.spec())
                .addAggregates(AggregateSpec.newBuilder().setFunction(AggregateFunction.SUM).setField("url")).build();
        byte[] unknownField = Bytes.add(AggregateRequest.newBuilder().setAggregation(AggregationSpec.newBuilder()
                .setSchema(schema.spec()).addAggregates(AggregateSpec.newBuilder().setFunction(AggregateFunction.COUNT)))
                .build().toByteArray(), new byte[] {0x12, 0x02, 0x78, 0x01});
        Map<byte[], String> hostile = new LinkedHashMap<>();
        hostile.put(new byte[] {1, 2, 3, (byte) 0xff}, "corrupt aggregate request");
        hostile.put(AggregateRequest.newBuilder().setAggregation(sumOfHash).build().toByteArray(), "sum of a md5 field");
        hostile.put(unknownField, "field number 15 of AggregationSpec is unknown");
        hostile.put(AggregateRequest.newBuilder().setFormatVersion(7).build().toByteArray(), "unsupported format version 7");
        hostile.put(AggregateRequest.newBuilder().setAggregation(AggregationSpec.newBuilder().setSchema(schema.spec())
                .setMaxGroups(50_000_000).addAggregates(AggregateSpec.newBuilder().setFunction(AggregateFunction.COUNT)))
                .build().toByteArray(), "max_groups of an aggregation is 50000000");
        hostile.put(new byte[2 << 20], "at most 1048576 allowed");
        // Each refusal is counted by its reason in the RegionServer's metrics.
        String observer = CoprocessorWire.SCAN_OBSERVER;
        String[] reasons = {CoprocessorMetrics.AGGREGATE_REFUSED_CORRUPT, CoprocessorMetrics.AGGREGATE_REFUSED_SPEC,
            CoprocessorMetrics.AGGREGATE_REFUSED_NEWER_FORMAT, CoprocessorMetrics.AGGREGATE_REFUSED_TOO_LARGE};
        long[] before = new long[reasons.length];
        for (int i = 0; i < reasons.length; i++) {
            before[i] = CoprocessorMetricsIT.registryCount(observer, reasons[i]);
        }
        try (Table t = connection().getTable(name)) {
            for (Map.Entry<byte[], String> h : hostile.entrySet()) {
                Scan scan = new Scan().setAttribute(RowKeyScanObserver.REQUEST_ATTRIBUTE, h.getKey());
                IOException e = assertThrows(IOException.class, () -> {
                    try (ResultScanner s = t.getScanner(scan)) {
                        for (Result r = s.next(); r != null; r = s.next()) {
                            assertTrue(r.size() > 0);
                        }
                    }
                });
                assertTrue(causes(e).contains(h.getValue()), h.getValue() + " in " + causes(e));
                assertTrue(causes(e).contains(DoNotRetryIOException.class.getSimpleName()), causes(e));
            }
        }
        long[] want = {1, 3, 1, 1}; // the spec's: a sum of a md5 field, an unknown field, a max_groups too high
        for (int i = 0; i < reasons.length; i++) {
            assertTrue(CoprocessorMetricsIT.registryCount(observer, reasons[i]) - before[i] >= want[i], reasons[i]);
        }
        // The group cap, reached in a region, is an error naming it.
        IOException cap = assertThrows(IOException.class, () -> table.aggregate(RowKeyQuery.on(schema).noIndex(),
                Aggregation.on(schema).groupBy("url").count().maxGroups(10)));
        assertTrue(causes(cap).contains("number of groups of the aggregation (its max_groups cap) is 11, at most 10"), causes(cap));
        // The servers still serve.
        assertEquals((long) ROWS, table.aggregate(RowKeyQuery.on(schema), Aggregation.on(schema).count()).rows().get(0).value(0));
    }

    private static String causes(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" / ");
        }
        return s.toString();
    }

    @Test
    void badAggregationsFailWhenBuilt() {
        Aggregation a = Aggregation.on(schema);
        assertMessage(() -> a.sum("url"), "field 'url': sum of a md5 field");
        assertMessage(() -> a.max("free"), "field 'free': max of a bool field");
        assertMessage(() -> a.groupBy("nope"), "unknown field 'nope'");
        assertMessage(() -> a.groupBy("code", Aggregation.Unit.DAY), "only a timestamp field can be truncated");
        assertMessage(() -> a.limit(3), "limit(3) without an order");
        assertMessage(() -> a.orderBy(0), "orderBy(0): there are 0 aggregates");
        assertMessage(() -> a.maxGroups(2_000_000), "max_groups of an aggregation is 2000000");
        assertMessage(() -> a.count().sum(Aggregation.Cell.ofInt(F, Bytes.toBytes("n"))).max(N),
                "read as two different types");
        assertMessage(() -> table.aggregate(RowKeyQuery.on(schema).limit(3), Aggregation.on(schema).count()),
                "answered by joins of key streams");
        assertMessage(() -> table.aggregate(RowKeyQuery.on(schema), Aggregation.on(schema)), "needs at least one aggregate");
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void assertMessage(Call call, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage() + " (expected " + expected + ")");
    }
}
