package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * Seed 002's people table (100,000 rows keyed by user id; indexes on birthplace, salted, on age
 * and on vip) on a real minicluster: "born in Hangzhou, aged 20, the first 10 by user id" through
 * one filtered stream and through the leapfrog join, and random two- and three-way intersections
 * and unions, with and without limits and the leapfrog hint, equal to an in-memory oracle in
 * data-key order. Index rows whose data rows do not exist are never returned.
 */
class JoinIT extends HBaseMiniClusterBase {
    private static final int ROWS = 100_000;
    private static final String[] CITIES = {"Hangzhou", "Beijing", "Shanghai", "Shenzhen", "Chengdu", "Wuhan",
        "Xian", "Nanjing", "Suzhou", "Tianjin", "Harbin", "Kunming", "Xiamen", "Qingdao", "Dalian", "Lhasa"};
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");

    private final RowKeySchema schema = RowKeySchema.builder().int64("user_id").fixedString("birthplace", 12)
            .int32("age").bool("vip").build();
    /** The live rows in data-key order: key -> values. */
    private final TreeMap<byte[], Map<String, Object>> live = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    private final TableName name = TableName.valueOf("people");
    private RowKeyTable table;

    private static List<RowKeyIndex> indexes() {
        return Arrays.asList(RowKeyIndex.of("by_birthplace", "birthplace").salt(4), RowKeyIndex.of("by_age", "age"),
                RowKeyIndex.of("by_vip", "vip"));
    }

    @BeforeAll
    void createAndWrite() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, indexes(), F);
        }
        table = RowKeyTable.open(connection(), name);
        Random random = new Random(2);
        List<byte[]> keys = new ArrayList<>();
        long t0 = System.nanoTime();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("user_id", 1000L + 7L * i);
                // Hangzhou one in 16; ages 18..67.
                row.put("birthplace", CITIES[random.nextInt(CITIES.length)]);
                row.put("age", 18 + random.nextInt(50));
                row.put("vip", random.nextInt(10) == 0);
                byte[] key = schema.encode(row);
                keys.add(key);
                live.put(key, row);
                batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(i)));
                if (batch.size() == 2000) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
            for (int i = 5; i < ROWS; i += 97) {
                t.delete(new Delete(keys.get(i)));
                live.remove(keys.get(i));
            }
        }
        System.out.println("JoinIT: " + ROWS + " rows written in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    private List<String> oracle(Predicate<Map<String, Object>> where, int limit) {
        return oracle(where, limit, false);
    }

    /** The keys of the live rows that pass {@code where}, in data-key order or its reverse, the first {@code limit} (0: all). */
    private List<String> oracle(Predicate<Map<String, Object>> where, int limit, boolean reversed) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<byte[], Map<String, Object>> e : (reversed ? live.descendingMap() : live).entrySet()) {
            if (where.test(e.getValue()) && (limit == 0 || out.size() < limit)) {
                out.add(Bytes.toHex(e.getKey()));
            }
        }
        return out;
    }

    private List<String> rows(RowKeyQuery query, long[] rowsRead) throws IOException {
        List<String> out = new ArrayList<>();
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r; (r = scanner.next()) != null;) {
                out.add(Bytes.toHex(r.getRow()));
            }
            if (rowsRead != null) {
                rowsRead[0] = scanner.getScanMetrics().countOfRowsScanned.get();
                rowsRead[rowsRead.length - 1] = scanner.getScanMetrics().countOfRPCcalls.get();
            }
        }
        return out;
    }

    @Test
    void hangzhouAgedTwentyFirstTenByUserId() throws IOException {
        Predicate<Map<String, Object>> both = r -> "Hangzhou".equals(r.get("birthplace")) && (int) r.get("age") == 20;
        long hangzhou = oracle(r -> "Hangzhou".equals(r.get("birthplace")), 0).size();
        long twenty = oracle(r -> (int) r.get("age") == 20, 0).size();
        long[] read = new long[2]; // index rows read, scans

        // The planner: both streams relayed, each filtered on the server; the first by estimate
        // (Hangzhou) reads on until it ends within its budget, stopping at 10.
        RowKeyQuery firstTen = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10);
        String explain = table.explain(firstTen);
        System.out.println(explain);
        assertTrue(explain.contains("relay"), explain);
        assertTrue(explain.contains("turn 1 INDEX by_birthplace"), explain);
        assertTrue(explain.contains("turn 2 INDEX by_age"), explain);
        List<String> ten = oracle(both, 10);
        assertEquals(ten, rows(firstTen, read));
        // The Hangzhou rows up to the tenth match: what any plan from the Hangzhou index must look at.
        byte[] tenth = Bytes.fromHex(ten.get(ten.size() - 1));
        long needed = live.headMap(tenth, true).values().stream().filter(r -> "Hangzhou".equals(r.get("birthplace"))).count();
        System.out.println("JoinIT: first 10, relay: " + read[0] + " index rows read, " + read[1] + " scans; Hangzhou "
                + hangzhou + " (" + needed + " up to the tenth match), aged 20 " + twenty);
        // Each salt bucket's first read is sized from the limit, then doubles: not a 1,024-row batch.
        assertTrue(read[0] <= 2 * needed, read[0] + " rows read");

        // A plain query is relayed too, in data-key order; a covered one (keys only) or a hinted one
        // keeps its single plan.
        RowKeyQuery plain = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20);
        assertTrue(table.explain(plain).contains("relay"), table.explain(plain));
        assertEquals(oracle(both, 0), rows(plain, null));
        for (RowKeyQuery single : new RowKeyQuery[] {RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).keysOnly(),
                RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).useIndex("by_age")}) {
            explain = table.explain(single);
            assertTrue(!explain.contains("relay") && explain.contains("INDEX by_"), explain);
            assertEquals(new java.util.TreeSet<>(oracle(both, 0)), new java.util.TreeSet<>(rows(single, null)));
        }

        // The leapfrog join of both indexes.
        RowKeyQuery leapfrog = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10).leapfrog();
        explain = table.explain(leapfrog);
        System.out.println(explain);
        assertTrue(explain.contains("leapfrog intersection"), explain);
        assertTrue(explain.contains("lead   INDEX by_birthplace"), explain);
        assertTrue(explain.contains("follow INDEX by_age"), explain);
        assertEquals(ten, rows(leapfrog, read));
        System.out.println("JoinIT: first 10, leapfrog: " + read[0] + " index rows read, " + read[1] + " scans");
        // The lead reads a few times the limit per bucket, then doubles; the follower probes its keys.
        assertTrue(read[0] <= 2 * needed, read[0] + " rows read");

        // Every match. The lead (Hangzhou, by estimate) is read in batches, each resolved in the
        // other index with one scan: rows read follow the lead, scans far fewer than the smaller
        // index's keys (a seek each, before).
        List<String> every = rows(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).leapfrog(), read);
        assertEquals(oracle(both, 0), every);
        System.out.println("JoinIT: all " + every.size() + ", leapfrog: " + read[0] + " index rows read, " + read[1]
                + " scans");
        assertTrue(read[0] <= 3L * hangzhou, read[0] + " rows read for " + every.size());
        assertTrue(read[1] <= twenty / 16, read[1] + " scans for " + every.size());
    }

    /**
     * With a small row budget the relay passes the turn: Hangzhou (6,000-odd keys, first by estimate)
     * reads a budget per salt bucket, then "aged 20" (2,000-odd) reads on from there, and so on; the
     * rows read follow the smaller stream, the answer equals the oracle, forwards and reversed, with
     * and without a limit.
     */
    /**
     * Reversed reads of the data table read forward windows from the top down (TableKeyRangeReader):
     * the whole table (its range's ends empty) and a range of it, sparse and dense, each row once
     * and in descending order, whatever the limit. The windows once read the table again from its
     * top when the last window had reached the (empty) start with rows still kept for the next read.
     */
    @Test
    void reversedReadsOfTheDataTableReturnEachRowOnceInDescendingOrder() throws IOException {
        long middle = 1000L + 7L * (ROWS / 2);
        for (int limit : new int[] {0, 1, 10, 150, 3000}) {
            for (int shape = 0; shape < 4; shape++) {
                RowKeyQuery q = RowKeyQuery.on(schema).noIndex().reversed();
                Predicate<Map<String, Object>> where;
                switch (shape) {
                    case 0: q.eq("age", 20); where = r -> (int) r.get("age") == 20; break;
                    case 1: q.ne("age", 0); where = r -> true; break;
                    case 2: q.lt("user_id", middle).eq("vip", true); where = r -> (long) r.get("user_id") < middle && (boolean) r.get("vip"); break;
                    default: q.ge("user_id", middle).eq("age", 30); where = r -> (long) r.get("user_id") >= middle && (int) r.get("age") == 30;
                }
                if (limit > 0) {
                    q.limit(limit);
                }
                assertEquals(oracle(where, limit, true), rows(q, null), q + ", limit " + limit);
            }
        }
    }

    @Test
    void aRelayWithASmallBudgetTakesTurnsAndFollowsTheSmallerStream() throws IOException {
        Predicate<Map<String, Object>> both = r -> "Hangzhou".equals(r.get("birthplace")) && (int) r.get("age") == 20;
        long twenty = oracle(r -> (int) r.get("age") == 20, 0).size();
        org.apache.hadoop.conf.Configuration small = new org.apache.hadoop.conf.Configuration(conf());
        int budget = 256;
        small.setInt(JoinScanner.RELAY_BUDGET_KEY, budget);
        try (org.apache.hadoop.hbase.client.Connection c = org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(small)) {
            RowKeyTable relayed = RowKeyTable.open(c, name);
            for (boolean reversed : new boolean[] {false, true}) {
                for (int limit : new int[] {0, 10, 150}) {
                    RowKeyQuery q = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20);
                    if (limit > 0) {
                        q.limit(limit);
                    }
                    if (reversed) {
                        q.reversed();
                    }
                    List<String> got = new ArrayList<>();
                    long rowsRead;
                    long scans;
                    try (ResultScanner scanner = relayed.scan(q)) {
                        for (Result r; (r = scanner.next()) != null;) {
                            got.add(Bytes.toHex(r.getRow()));
                        }
                        rowsRead = scanner.getScanMetrics().countOfRowsScanned.get();
                        scans = scanner.getScanMetrics().countOfRPCcalls.get();
                    }
                    assertEquals(oracle(both, limit, reversed), got, "reversed " + reversed + ", limit " + limit);
                    System.out.println("JoinIT: relay, budget " + budget + ", reversed " + reversed + ", limit " + limit + ": "
                            + got.size() + " rows, " + rowsRead + " index rows read in " + scans + " scans (aged 20: " + twenty
                            + ")");
                    if (limit == 0) {
                        // Each stream's turns: a budget per read, doubling; the smaller one's reach the end.
                        assertTrue(rowsRead <= 3 * (twenty + 4L * budget), rowsRead + " rows read");
                        assertTrue(scans >= 4, scans + " scans: the turn passed");
                    }
                }
            }
        }
    }

    /**
     * {@link RowBudgetFilter} on a real RegionServer: an index range read through a filter that keeps
     * no row looks at the budget's rows, then returns the next row as the marker, and stops.
     */
    @Test
    void aRowBudgetBoundsTheRowsARegionScanLooksAt() throws IOException {
        TableName index = RowKeyTable.indexTableName(name, "by_age");
        int budget = 500;
        org.apache.hadoop.hbase.filter.Filter none = new org.apache.hadoop.hbase.filter.RowFilter(
                org.apache.hadoop.hbase.CompareOperator.EQUAL, new org.apache.hadoop.hbase.filter.BinaryComparator(new byte[] {0}));
        // Every row the region scan meets, deleted ones too (JoinIT deleted some people): each counts.
        List<String> met = new ArrayList<>();
        java.util.Set<String> live = new java.util.HashSet<>();
        try (Table t = connection().getTable(index)) {
            for (boolean raw : new boolean[] {true, false}) {
                try (ResultScanner s = t.getScanner(new org.apache.hadoop.hbase.client.Scan().setRaw(raw).setLimit(2 * budget)
                        .setFilter(new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter()))) {
                    for (Result r; (r = s.next()) != null;) {
                        (raw ? met : new ArrayList<String>()).add(Bytes.toHex(r.getRow()));
                        if (!raw) {
                            live.add(Bytes.toHex(r.getRow()));
                        }
                    }
                }
            }
            for (boolean reversed : new boolean[] {false, true}) {
                org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan().setScanMetricsEnabled(true)
                        .setFilter(new RowBudgetFilter(none, budget)).setReversed(reversed);
                List<Result> got = new ArrayList<>();
                long looked;
                try (ResultScanner s = t.getScanner(scan)) {
                    for (Result r; (r = s.next()) != null;) {
                        got.add(r);
                        if (RowBudgetFilter.isEnd(r)) {
                            break;
                        }
                    }
                    looked = s.getScanMetrics().countOfRowsScanned.get();
                }
                assertEquals(1, got.size(), "only the marker row, reversed " + reversed);
                assertTrue(RowBudgetFilter.isEnd(got.get(0)));
                if (!reversed) {
                    // The first live row after the budget's rows.
                    int at = met.indexOf(Bytes.toHex(got.get(0).getRow()));
                    assertTrue(at >= budget, "the marker is row " + at + " of those met");
                    for (String skipped : met.subList(budget, at)) {
                        assertTrue(!live.contains(skipped), "a live row before the marker, after the budget: " + skipped);
                    }
                }
                assertTrue(looked <= budget + 2, looked + " rows looked at");
            }
        }
    }

    @Test
    void reversedLastTenByUserIdAndRandomReversedQueries() throws IOException {
        Predicate<Map<String, Object>> both = r -> "Hangzhou".equals(r.get("birthplace")) && (int) r.get("age") == 20;
        RowKeyQuery lastTen = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).reversed().limit(10);
        String explain = table.explain(lastTen);
        System.out.println(explain);
        assertTrue(explain.contains("descending data-key order"), explain);
        assertEquals(oracle(both, 10, true), rows(lastTen, null));
        assertEquals(oracle(both, 10, true), rows(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20)
                .reversed().limit(10).leapfrog(), null));
        assertEquals(oracle(both, 0, true), rows(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20)
                .reversed().leapfrog(), null));
        // No stream: the data table's own range, read backwards.
        assertEquals(oracle(r -> (long) r.get("user_id") >= 5000 && (long) r.get("user_id") <= 90_000 && !(boolean) r.get("vip"), 25, true),
                rows(RowKeyQuery.on(schema).between("user_id", 5000L, 90_000L).eq("vip", false).noIndex().reversed()
                        .limit(25), null));
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RowKeyQuery.on(schema).eq("age", 20).reversed().toScan());
        assertTrue(refused.getMessage().contains("reversed"), refused.getMessage());

        Random random = new Random(21);
        for (int c = 0; c < 10; c++) {
            int branchCount = c < 5 ? 1 : 2;
            RandomQuery q = randomQuery(random, branchCount);
            RowKeyQuery query = q.query;
            Predicate<Map<String, Object>> any = q.holds;
            String text = q.text;
            query.reversed();
            int limit = random.nextBoolean() ? 1 + random.nextInt(50) : 0;
            if (limit > 0) {
                query.limit(limit);
            }
            if (random.nextBoolean()) {
                query.leapfrog();
            }
            assertEquals(oracle(any, limit, true), rows(query, null), "case " + c + ": " + text + "limit " + limit + "\n"
                    + table.explain(query));
        }
    }

    /**
     * A limit on an IN of the leading field (the data table's ranges, one per value, read one after
     * another) intersected with an index by the leapfrog: the index's keys make the data table's
     * stream seek across its ranges, forward and reversed; each answer is the oracle's.
     */
    @Test
    void aLimitedLeapfrogSeeksAcrossTheDataTablesRanges() throws IOException {
        Random random = new Random(23);
        List<Map<String, Object>> rows = new ArrayList<>(live.values());
        for (int c = 0; c < 16; c++) {
            int age = 18 + random.nextInt(50);
            // Ids of the age and others, so that the streams meet and miss.
            TreeSet<Long> ids = new TreeSet<>();
            while (ids.size() < 4) {
                Map<String, Object> r = rows.get(random.nextInt(rows.size()));
                if (((int) r.get("age") == age) == (ids.size() % 2 == 0)) {
                    ids.add((long) r.get("user_id"));
                }
            }
            boolean reversed = random.nextBoolean();
            int limit = 1 + random.nextInt(10);
            RowKeyQuery query = RowKeyQuery.on(schema).in("user_id", ids.toArray()).eq("age", age).leapfrog().limit(limit);
            if (reversed) {
                query.reversed();
            }
            String explain = table.explain(query);
            assertTrue(explain.contains("DATA TABLE") && explain.contains("INDEX by_age"), explain);
            assertEquals(oracle(r -> ids.contains((long) r.get("user_id")) && (int) r.get("age") == age, limit, reversed),
                    rows(query, null), "case " + c + (reversed ? ", reversed" : "") + "\n" + explain);
        }
    }

    /** The key of a Hangzhou row aged 20 that is not written ({@code userId} not 1000 + 7i). */
    private byte[] ghost(long userId) {
        Map<String, Object> ghost = new LinkedHashMap<>();
        ghost.put("user_id", userId);
        ghost.put("birthplace", "Hangzhou");
        ghost.put("age", 20);
        ghost.put("vip", false);
        return schema.encode(ghost);
    }

    @Test
    void indexRowsWithoutDataRowsAreNeverReturned() throws IOException {
        byte[] key = ghost(1001L);
        Catalog catalog = Catalog.of(schema, indexes(), IndexState.ACTIVE);
        for (String index : new String[] {"by_birthplace", "by_age"}) {
            for (byte[] status : new byte[][] {IndexRowFormat.VERIFIED, {IndexRowFormat.UNVERIFIED}, IndexRowFormat.STALE}) {
                try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index))) {
                    t.put(new Put(catalog.indexKey(catalog.indexNumber(index), key)).addColumn(
                            IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status));
                }
                for (RowKeyQuery q : new RowKeyQuery[] {RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(3),
                    RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(3).leapfrog()}) {
                    assertEquals(oracle(r -> "Hangzhou".equals(r.get("birthplace")) && (int) r.get("age") == 20, 3), rows(q, null), q.toString());
                }
            }
        }
    }

    /**
     * A join meets UNVERIFIED index rows as the index reader does: one whose data row exists is
     * repaired (VERIFIED), one whose data row does not exist and that is older than the grace period
     * is marked STALE; neither changes the answer.
     */
    @Test
    void unverifiedIndexRowsMetByAJoinAreRepairedOrMarkedStale() throws IOException {
        Predicate<Map<String, Object>> both = r -> "Hangzhou".equals(r.get("birthplace")) && (int) r.get("age") == 20;
        Catalog catalog = Catalog.of(schema, indexes(), IndexState.ACTIVE);
        byte[] ghostKey = ghost(1002L);
        byte[] liveKey = Bytes.fromHex(oracle(both, 1).get(0));
        byte[] longAgo = IndexRowFormat.unverified((System.currentTimeMillis() - 2 * IndexRowRepair.STALE_GRACE_DEFAULT) * 1_000);
        for (boolean leapfrog : new boolean[] {false, true}) {
            RowKeyQuery q = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(3);
            // One stream reads the Hangzhou index alone; the leapfrog reads both.
            String[] indexes = leapfrog ? new String[] {"by_birthplace", "by_age"} : new String[] {"by_birthplace"};
            if (leapfrog) {
                q.leapfrog();
            }
            for (String index : indexes) {
                try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index))) {
                    int n = catalog.indexNumber(index);
                    t.put(new Put(catalog.indexKey(n, ghostKey)).addColumn(IndexRowFormat.FAMILY,
                            IndexRowFormat.STATUS, longAgo));
                    // Over the live row's status: index cells are stamped in microseconds, so a Put
                    // at the server's clock (milliseconds) would lie under it, unseen.
                    byte[] live = catalog.indexKey(n, liveKey);
                    long newer = IndexRowFormat.status(t.get(new Get(live))).getTimestamp() + 1;
                    t.put(new Put(live).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, newer, longAgo));
                    assertEquals(Bytes.toHex(longAgo), Bytes.toHex(t.get(new Get(live)).getValue(IndexRowFormat.FAMILY,
                            IndexRowFormat.STATUS)), index + ": the live row's index row marked UNVERIFIED");
                }
            }
            assertEquals(oracle(both, 3), rows(q, null), table.explain(q));
            for (String index : indexes) {
                try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index))) {
                    int n = catalog.indexNumber(index);
                    assertEquals(Bytes.toHex(IndexRowFormat.STALE), Bytes.toHex(t.get(new Get(
                            catalog.indexKey(n, ghostKey))).getValue(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)),
                            index + ": the ghost's index row");
                    assertEquals(Bytes.toHex(IndexRowFormat.VERIFIED), Bytes.toHex(t.get(new Get(
                            catalog.indexKey(n, liveKey))).getValue(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)),
                            index + ": the live row's index row");
                }
            }
        }
        for (String index : new String[] {"by_birthplace", "by_age"}) { // the other tests' figures without the ghost
            try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index))) {
                t.delete(new Delete(catalog.indexKey(catalog.indexNumber(index), ghostKey)));
            }
        }
    }

    /** A random condition: its query form and its oracle. */
    private static final class Cond {
        final java.util.function.UnaryOperator<RowKeyQuery> add;
        final Predicate<Map<String, Object>> holds;
        final String text;

        Cond(java.util.function.UnaryOperator<RowKeyQuery> add, Predicate<Map<String, Object>> holds, String text) {
            this.add = add;
            this.holds = holds;
            this.text = text;
        }
    }

    private Cond randomCondition(Random random, String field) {
        switch (field) {
            case "birthplace": {
                String a = CITIES[random.nextInt(CITIES.length)];
                String b = CITIES[random.nextInt(CITIES.length)];
                return random.nextBoolean()
                        ? new Cond(q -> q.eq("birthplace", a), r -> a.equals(r.get("birthplace")), "birthplace=" + a)
                        : new Cond(q -> q.in("birthplace", a, b), r -> a.equals(r.get("birthplace")) || b.equals(r.get("birthplace")),
                                "birthplace in " + a + "," + b);
            }
            case "age": {
                int a = 18 + random.nextInt(50);
                int b = 18 + random.nextInt(50);
                return random.nextBoolean()
                        ? new Cond(q -> q.eq("age", a), r -> (int) r.get("age") == a, "age=" + a)
                        : new Cond(q -> q.in("age", a, b), r -> (int) r.get("age") == a || (int) r.get("age") == b,
                                "age in " + a + "," + b);
            }
            case "vip": {
                boolean v = random.nextBoolean();
                return new Cond(q -> q.eq("vip", v), r -> (boolean) r.get("vip") == v, "vip=" + v);
            }
            default: {
                long low = 1000L + random.nextInt(7 * ROWS);
                long high = low + random.nextInt(7 * ROWS / 4);
                return new Cond(q -> q.between("user_id", low, high),
                        r -> (long) r.get("user_id") >= low && (long) r.get("user_id") <= high, "user_id " + low + ".." + high);
            }
        }
    }

    /** One AND-branch of two or three of the indexed conditions, sometimes with a user-id range. */
    private List<Cond> randomBranch(Random random) {
        List<String> fields = new ArrayList<>(Arrays.asList("birthplace", "age", "vip"));
        java.util.Collections.shuffle(fields, random);
        List<Cond> branch = new ArrayList<>();
        int n = 2 + random.nextInt(2);
        for (String f : fields.subList(0, n)) {
            branch.add(randomCondition(random, f));
        }
        if (random.nextInt(3) == 0) {
            branch.add(randomCondition(random, "user_id"));
        }
        return branch;
    }

    /** A random query, its oracle and its text. */
    private static final class RandomQuery {
        final RowKeyQuery query;
        final Predicate<Map<String, Object>> holds;
        final String text;

        RandomQuery(RowKeyQuery query, Predicate<Map<String, Object>> holds, String text) {
            this.query = query;
            this.holds = holds;
            this.text = text;
        }
    }

    /** An OR of {@code branchCount} random AND-branches (one: the branch itself). */
    private RandomQuery randomQuery(Random random, int branchCount) {
        return randomQuery(random, branchCount, b -> randomBranch(random));
    }

    /** An OR of {@code branchCount} AND-branches, branch {@code b} made by {@code branchOf.apply(b)} (one: the branch itself). */
    private RandomQuery randomQuery(Random random, int branchCount, java.util.function.IntFunction<List<Cond>> branchOf) {
        List<RowKeyQuery> queries = new ArrayList<>();
        List<Predicate<Map<String, Object>>> tests = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (int b = 0; b < branchCount; b++) {
            RowKeyQuery q = RowKeyQuery.on(schema);
            Predicate<Map<String, Object>> test = r -> true;
            for (Cond cond : branchOf.apply(b)) {
                q = cond.add.apply(q);
                test = test.and(cond.holds);
                text.append(cond.text).append(' ');
            }
            queries.add(q);
            tests.add(test);
            text.append("| ");
        }
        RowKeyQuery query = branchCount == 1 ? queries.get(0) : RowKeyQuery.anyOf(queries.toArray(new RowKeyQuery[0]));
        return new RandomQuery(query, r -> tests.stream().anyMatch(t -> t.test(r)), text.toString());
    }

    @Test
    void randomIntersectionsAndUnionsEqualTheOracle() throws IOException {
        Random random = new Random(20);
        for (int c = 0; c < 18; c++) {
            int branchCount = c < 7 ? 1 : 2 + random.nextInt(2);
            RandomQuery q = randomQuery(random, branchCount);
            RowKeyQuery query = q.query;
            Predicate<Map<String, Object>> any = q.holds;
            String text = q.text;
            int limit = random.nextInt(3) == 0 ? 1 + random.nextInt(50) : 0;
            if (limit > 0) {
                query.limit(limit);
            }
            List<String> got = rows(query, null);
            if (branchCount == 1 && limit == 0) {
                java.util.Collections.sort(got); // a single index plan gives index-key order
            }
            assertEquals(oracle(any, limit), got, "case " + c + ": " + text + "limit " + limit + "\n" + table.explain(query));
            if (c % 2 == 0) {
                query.leapfrog();
                assertEquals(oracle(any, limit), rows(query, null), "case " + c + ", leapfrog: " + text + "limit " + limit
                        + "\n" + table.explain(query));
            }
        }
    }

    /** A branch no index answers: a user-id range with a per-row condition, or a bare age range. */
    private Cond randomScannedBranch(Random random) {
        Cond range = randomCondition(random, "user_id");
        int a = 18 + random.nextInt(50);
        switch (random.nextInt(3)) {
            case 0:
                return new Cond(q -> range.add.apply(q).ne("age", a), range.holds.and(r -> (int) r.get("age") != a),
                        range.text + " age<>" + a);
            case 1:
                return new Cond(q -> range.add.apply(q).between("age", a, a + 5),
                        range.holds.and(r -> (int) r.get("age") >= a && (int) r.get("age") <= a + 5),
                        range.text + " age " + a + ".." + (a + 5));
            default:
                return new Cond(q -> q.between("age", a, a + 1).ne("vip", true),
                        r -> (int) r.get("age") >= a && (int) r.get("age") <= a + 1 && !(boolean) r.get("vip"),
                        "age " + a + ".." + (a + 1) + " vip<>true");
        }
    }

    /** The keys {@code scan} reads from the data table, in order, and its server-side rows scanned in {@code read[0]}. */
    private List<String> scanned(org.apache.hadoop.hbase.client.Scan scan, long[] read) throws IOException {
        List<String> out = new ArrayList<>();
        try (Table t = connection().getTable(name); ResultScanner scanner = t.getScanner(scan.setScanMetricsEnabled(true))) {
            for (Result r; (r = scanner.next()) != null;) {
                out.add(Bytes.toHex(r.getRow()));
            }
            read[0] = scanner.getScanMetrics().countOfRowsScanned.get();
        }
        return out;
    }

    /**
     * anyOf queries of two or three branches, some answered by an index and some by the data table
     * (ranges of the leading field, per-row conditions, a branch that needs the whole table),
     * through {@code toScan()} (one scan with the OR program) and {@link RowKeyTable#scan} (the
     * branches with no index read by one data-table scan), forward and reversed, with and without
     * limits: equal to the oracle.
     */
    @Test
    void anyOfQueriesThroughOneScanEqualTheOracle() throws IOException {
        Random random = new Random(12);
        long[] read = new long[1];
        for (int c = 0; c < 8; c++) {
            // The first branch, and about half of the others, no index answers.
            RandomQuery q = randomQuery(random, 2 + random.nextInt(2), b -> b == 0 || random.nextBoolean()
                    ? Arrays.asList(randomScannedBranch(random)) : randomBranch(random));
            Predicate<Map<String, Object>> any = q.holds;
            String text = q.text;
            RowKeyQuery union = q.query;
            assertEquals(oracle(any, 0), scanned(union.toScan(), read), "toScan, case " + c + ": " + text + "\n"
                    + union.explain());
            boolean reversed = c % 2 == 1;
            int limit = random.nextBoolean() ? 1 + random.nextInt(40) : 0;
            if (reversed) {
                union.reversed();
            }
            if (limit > 0) {
                union.limit(limit);
            }
            assertEquals(oracle(any, limit, reversed), rows(union, null), "scan, case " + c + ": " + text + "limit "
                    + limit + (reversed ? " reversed" : "") + "\n" + table.explain(union));
        }
    }

    /** How many rows were written with user ids in [low, high] (ids 1000 + 7i). */
    private static long written(long low, long high) {
        long first = Math.max(0, (low - 1000 + 6) / 7);
        long last = Math.min(ROWS - 1, (high - 1000) / 7);
        return Math.max(0, last - first + 1);
    }

    /**
     * Two branches no index answers, whose user-id ranges overlap: one data-table scan reads the
     * rows of the union of the ranges once (at most), where reading each branch on its own reads
     * the overlap twice (checked too). Through {@code toScan()} and through {@link RowKeyTable#scan}.
     */
    @Test
    void twoScannedBranchesAreReadByOneScanOfTheirUnion() throws IOException {
        RowKeyQuery a = RowKeyQuery.on(schema).between("user_id", 10_000L, 300_000L).ne("age", 30);
        RowKeyQuery b = RowKeyQuery.on(schema).between("user_id", 150_000L, 450_000L).ne("age", 31);
        Predicate<Map<String, Object>> inA = r -> (long) r.get("user_id") >= 10_000L && (long) r.get("user_id") <= 300_000L;
        Predicate<Map<String, Object>> inB = r -> (long) r.get("user_id") >= 150_000L && (long) r.get("user_id") <= 450_000L;
        Predicate<Map<String, Object>> any = r -> inA.test(r) && (int) r.get("age") != 30
                || inB.test(r) && (int) r.get("age") != 31;
        // Rows written (deleted ones too: the server reads their tombstones) with ids in the ranges.
        long unionRows = written(10_000L, 450_000L);
        long separateRows = written(10_000L, 300_000L) + written(150_000L, 450_000L);
        RowKeyQuery union = RowKeyQuery.anyOf(a, b);
        String explain = table.explain(union);
        assertTrue(explain.contains("one DATA TABLE scan for branches 1 2"), explain);
        long[] read = new long[2];
        assertEquals(oracle(any, 0), rows(union, read));
        long scans = read[1];
        long[] viaToScan = new long[1];
        assertEquals(oracle(any, 0), scanned(RowKeyQuery.anyOf(a, b).toScan(), viaToScan));
        System.out.println("JoinIT: anyOf of two scanned branches: " + unionRows + " rows in the union of their ranges, "
                + separateRows + " in the two ranges; RowKeyTable.scan read " + read[0] + " in " + scans
                + " scan(s), toScan read " + viaToScan[0]);
        assertTrue(read[0] <= unionRows + scans, read[0] + " rows read, the union holds " + unionRows);
        assertTrue(viaToScan[0] <= unionRows + 1, viaToScan[0] + " rows read, the union holds " + unionRows);
        assertTrue(separateRows > unionRows * 6 / 5, "the ranges overlap: " + separateRows + " vs " + unionRows);
        // Read apart, as an anyOf was read before, the branches read the overlap twice (most rows
        // pass their filters, so HBase counts them: it does not count rows a skip scan seeks past).
        long[] apart = new long[2];
        rows(a, apart);
        long readApart = apart[0];
        rows(b, apart);
        readApart += apart[0];
        System.out.println("JoinIT: the two branches read apart: " + readApart + " rows");
        assertTrue(readApart > unionRows + scans, readApart + " rows read apart, the union holds " + unionRows);
    }

    /**
     * The data-table scan's rows are returned as read (no {@code Get}): whole, with the selected
     * columns, or keys only, exactly what a {@code Get} of each reads.
     */
    @Test
    void rowsOfTheDataTableScanAreTheRowsAGetReads() throws IOException {
        RowKeyQuery a = RowKeyQuery.on(schema).between("user_id", 10_000L, 30_000L).ne("age", 30);
        RowKeyQuery b = RowKeyQuery.on(schema).between("user_id", 20_000L, 40_000L).ne("age", 31);
        try (Table t = connection().getTable(name)) {
            for (RowKeyQuery q : Arrays.asList(RowKeyQuery.anyOf(a, b).limit(40), RowKeyQuery.anyOf(a, b).select(F, Q),
                    RowKeyQuery.anyOf(a, b).keysOnly().reversed().limit(40))) {
                int n = 0;
                try (ResultScanner scanner = table.scan(q)) {
                    for (Result r; (r = scanner.next()) != null; n++) {
                        org.apache.hadoop.hbase.client.Get get = new org.apache.hadoop.hbase.client.Get(r.getRow());
                        if (q.isKeysOnly()) {
                            get.setFilter(new org.apache.hadoop.hbase.filter.FilterList(
                                    new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter(),
                                    new org.apache.hadoop.hbase.filter.KeyOnlyFilter()));
                        }
                        Result expected = t.get(get);
                        assertEquals(expected.rawCells().length, r.rawCells().length, q + ": " + r);
                        org.junit.jupiter.api.Assertions.assertArrayEquals(expected.getValue(F, Q), r.getValue(F, Q), q.toString());
                    }
                }
                assertTrue(n >= 40, q + ": " + n + " rows");
            }
        }
    }
    /**
     * A join read by one stream of a salted index that covers the query (a limit, forward or
     * reversed), and the index's own reversed read (its buckets merged by data key), answer from the
     * VERIFIED index rows: no data row is read, the rows are the oracle's in order, each with its
     * cell as a Get reads it. An UNVERIFIED index row (a write whose post step was lost) is answered
     * from its data row instead, and repaired.
     */
    @Test
    void aCoveredStreamAnswersFromItsIndexRowsAndAnUnverifiedOneFromItsDataRow() throws IOException {
        TableName coveredName = TableName.valueOf("people_covered");
        List<RowKeyIndex> coveredIndexes = Arrays.asList(RowKeyIndex.of("by_birthplace", "birthplace").salt(4).include("f"));
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, coveredName, schema, coveredIndexes, F);
        }
        RowKeyTable covered = RowKeyTable.open(connection(), coveredName);
        Predicate<Map<String, Object>> hangzhou = r -> "Hangzhou".equals(r.get("birthplace"));
        try (Table t = connection().getTable(coveredName); Table data = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (byte[] key : live.keySet()) {
                if (hangzhou.test(live.get(key)) || live.get(key).get("age").equals(20)) {
                    puts.add(new Put(key).addColumn(F, Q, data.get(new Get(key)).getValue(F, Q)));
                }
            }
            t.put(puts);
            List<String> expected = oracle(hangzhou.and(r -> (int) r.get("age") < 40), 0, true);
            byte[] unverified = Bytes.fromHex(expected.get(expected.size() / 2));
            for (int round = 0; round < 2; round++) {
                int asked = 0;
                for (RowKeyQuery q : Arrays.asList(
                        RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").lt("age", 40).reversed(),
                        RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").lt("age", 40).reversed().select(F, Q).limit(25),
                        RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").lt("age", 40).keysOnly().limit(25))) {
                    String explain = covered.explain(q);
                    assertTrue(explain.contains(q.limit() > 0 ? "covered stream" : "covered: the index rows answer alone")
                            && (q.limit() > 0 || explain.contains("their rows merged by data key")), explain);
                    List<String> want = q.isReversed() ? expected : oracle(hangzhou.and(r -> (int) r.get("age") < 40), 0);
                    want = q.limit() > 0 ? want.subList(0, q.limit()) : want;
                    List<String> got = new ArrayList<>();
                    long getsRead;
                    try (ResultScanner scanner = covered.scan(q)) {
                        for (Result r; (r = scanner.next()) != null;) {
                            got.add(Bytes.toHex(r.getRow()));
                            if (!q.isKeysOnly()) {
                                org.junit.jupiter.api.Assertions.assertArrayEquals(t.get(new Get(r.getRow())).getValue(F, Q),
                                        r.getValue(F, Q), q + ": " + r);
                            }
                        }
                        getsRead = scanner.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get();
                    }
                    assertEquals(want, got, q.toString());
                    // The first query after the mark reads that row's data row (and the repair's whole
                    // row); it is VERIFIED again for the next.
                    if (round == 1 && asked++ == 0) {
                        assertTrue(getsRead >= 1, q + ": " + getsRead + " data rows read");
                    } else {
                        assertEquals(0, getsRead, q + ": data rows read");
                    }
                }
                if (round == 0) {
                    // A write whose post step was lost: its index row marked UNVERIFIED, nothing after.
                    Catalog catalog = Catalog.of(schema, coveredIndexes, IndexState.ACTIVE);
                    long stamp = System.currentTimeMillis() * 1000;
                    try (Table index = connection().getTable(RowKeyTable.indexTableName(coveredName, "by_birthplace"))) {
                        index.put(new Put(catalog.indexKey(0, unverified)).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS,
                                stamp, IndexRowFormat.unverified(stamp)));
                    }
                }
            }
        }
    }
}
