package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Abortable;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import org.rowkey.hbase.SeedTableIT.Condition;

/**
 * Parallel region reads ({@link ParallelScanner}) and whole-family covered indexes on a minicluster
 * whose data tables have 16 regions: an unsalted table split on its md5 prefix and a salted one split
 * at its buckets, each with a 16-bucket salted index covering family f whole and an unsalted index.
 * Random queries (through the planner's choice, each index and the data table; every column, one
 * column, keys only; with limits and reversed) give the same rows in the same order with parallel
 * reads on and off, and the oracle's rows; a region split under a parallel scan loses and repeats
 * nothing; hundreds of scans (thousands of chunks) abandoned after one row leave no thread and no server scanner behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ParallelReadIT extends HBaseMiniClusterBase {
    private static final int ROWS = 6_000;
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final byte[] R = Bytes.toBytes("r");

    private final RowKeySchema plain = TestData.seedSchema();
    private final RowKeySchema salted = RowKeySchema.builder().md5("md5url", 8).javaHash("sitecode").int32("status")
            .int32("code").int32("sdate").int32("type").bool("free").bool("close").int32("queue").int32("scantype")
            .salt(16, "md5url").build();
    /** Per table: hex key -> the row's values, and hex key -> its cells as "f:q=value" strings. */
    private final Map<String, Map<String, Map<String, Object>>> live = new LinkedHashMap<>();
    private final List<Map<String, Object>> sample = new ArrayList<>();
    private final Map<String, RowKeyTable> tables = new LinkedHashMap<>();

    @Override
    protected int numRegionServers() {
        return 2;
    }

    private static List<RowKeyIndex> indexes() {
        return Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").salt(16).include("f"),
                RowKeyIndex.of("by_type_queue", "type", "queue"));
    }

    @BeforeAll
    void createAndWrite() throws IOException {
        Random random = new Random(23);
        for (int i = 0; i < ROWS; i++) {
            sample.add(SeedTableIT.randomRow(random, i));
        }
        byte[][] splits = new byte[15][];
        for (int b = 1; b < 16; b++) {
            splits[b - 1] = new byte[] {(byte) b};
        }
        byte[][] md5Splits = new byte[15][];
        for (int b = 1; b < 16; b++) {
            md5Splits[b - 1] = new byte[] {(byte) (b * 16)};
        }
        write("par_plain", plain, md5Splits);
        write("par_salted", salted, splits);
    }

    private void write(String tableName, RowKeySchema schema, byte[][] splits) throws IOException {
        TableName name = TableName.valueOf(tableName);
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, indexes(), splits, F);
        }
        Map<String, Map<String, Object>> rows = new TreeMap<>();
        List<byte[]> keys = new ArrayList<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                byte[] key = schema.encode(sample.get(i));
                keys.add(key);
                rows.put(Bytes.toHex(key), sample.get(i));
                Put put = new Put(key).addColumn(F, Q, Bytes.toBytes(i));
                if (i % 3 == 0) {
                    put.addColumn(F, R, Bytes.toBytes("r" + i));
                }
                batch.add(put);
            }
            t.put(batch);
            // Updates of covered cells (a new value, a new column), whole-row deletes, column deletes.
            for (int i = 0; i < ROWS; i += 7) {
                t.put(new Put(keys.get(i)).addColumn(F, Q, Bytes.toBytes(-i)).addColumn(F, Bytes.toBytes("z" + i % 5),
                        Bytes.toBytes("new")));
            }
            for (int i = 2; i < ROWS; i += 11) {
                t.delete(new Delete(keys.get(i)));
                rows.remove(Bytes.toHex(keys.get(i)));
            }
            // Column deletes of covered cells: the index's copies of them must go too.
            for (int i = 0; i < ROWS; i += 9) {
                t.delete(new Delete(keys.get(i)).addColumns(F, R).addColumns(F, Bytes.toBytes("z" + i % 5)));
            }
        }
        live.put(tableName, rows);
        tables.put(tableName, RowKeyTable.open(connection(), name));
    }

    private RowKeyQuery query(RowKeySchema schema, Condition[] where) {
        RowKeyQuery q = RowKeyQuery.on(schema);
        for (Condition c : where) {
            c.addTo(q);
        }
        return q;
    }

    /** Each row as key and cells ("f:q=hex@ts"), in the order the scan returns them. */
    private static List<String> read(RowKeyTable table, RowKeyQuery query) throws IOException {
        List<String> out = new ArrayList<>();
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                StringBuilder row = new StringBuilder(Bytes.toHex(r.getRow()));
                for (Cell c : r.rawCells()) {
                    row.append(' ').append(Bytes.toString(CellUtil.cloneFamily(c))).append(':')
                            .append(Bytes.toString(CellUtil.cloneQualifier(c))).append('=')
                            .append(Bytes.toHex(CellUtil.cloneValue(c))).append('@').append(c.getTimestamp());
                }
                out.add(row.toString());
            }
        }
        return out;
    }

    private static TreeSet<String> keys(List<String> rows) {
        TreeSet<String> out = new TreeSet<>();
        for (String r : rows) {
            out.add(r.split(" ", 2)[0]);
        }
        return out;
    }

    private TreeSet<String> oracle(String table, Condition[] where, int limit, boolean reversed) {
        TreeSet<String> all = new TreeSet<>();
        for (Map.Entry<String, Map<String, Object>> e : live.get(table).entrySet()) {
            boolean holds = true;
            for (Condition c : where) {
                holds &= c.holds(e.getValue());
            }
            if (holds) {
                all.add(e.getKey());
            }
        }
        if (limit == 0) {
            return all;
        }
        TreeSet<String> first = new TreeSet<>();
        for (String k : reversed ? all.descendingSet() : all) {
            if (first.size() == limit) {
                break;
            }
            first.add(k);
        }
        return first;
    }

    /** One random way to ask: a source, columns, a limit, an order. */
    private RowKeyQuery variant(RowKeySchema schema, Condition[] where, int way, int limit, boolean reversed) {
        RowKeyQuery q = query(schema, where);
        switch (way % 4) {
            case 1: q.noIndex(); break;
            case 2: q.useIndex("by_date_code"); break;
            case 3: q.useIndex("by_type_queue"); break;
            default: break;
        }
        switch (way / 4) {
            case 1: q.select(F, Q); break;
            case 2: q.keysOnly(); break;
            default: break;
        }
        if (limit > 0) {
            q.limit(limit);
        }
        if (reversed) {
            q.reversed();
        }
        return q;
    }

    @Test
    void randomQueriesGiveTheSameRowsInTheSameOrderWithParallelReadsOnAndOff() throws IOException {
        Random random = new Random(2311);
        int parallelPlans = 0;
        for (Map.Entry<String, RowKeyTable> e : tables.entrySet()) {
            RowKeyTable table = e.getValue();
            for (int q = 0; q < 36; q++) {
                Condition[] where = q == 0 ? new Condition[] {new Condition("sdate", "=", 20161209), new Condition("code", "=", 404)}
                        : SeedTableIT.randomQuery(random, sample);
                int way = random.nextInt(12);
                int limit = random.nextInt(3) == 0 ? 1 + random.nextInt(40) : 0;
                boolean reversed = random.nextInt(4) == 0;
                String label = e.getKey() + " query " + q + " " + Arrays.toString(where) + " way " + way + " limit " + limit
                        + (reversed ? " reversed" : "");
                RowKeyQuery parallel = variant(table.schema(), where, way, limit, reversed);
                String explain = table.explain(parallel);
                parallelPlans += explain.contains("parallel") ? 1 : 0;
                List<String> got = read(table, parallel);
                List<String> serial = read(table, variant(table.schema(), where, way, limit, reversed).serial());
                assertEquals(serial, got, label + "\n" + explain);
                assertEquals(oracle(e.getKey(), where, limit, reversed), keys(got), label + "\n" + explain);
                if (limit == 0 && !reversed) {
                    List<String> unordered = read(table, variant(table.schema(), where, way, 0, false).unordered());
                    assertEquals(new TreeSet<>(got), new TreeSet<>(unordered), label + ", unordered");
                    assertEquals(got.size(), unordered.size(), label + ", unordered");
                }
            }
        }
        assertTrue(parallelPlans > 10, parallelPlans + " plans read in parallel");
    }

    @Test
    void aWholeFamilyCoveredIndexAnswersEveryColumnFromTheIndexAlone() throws IOException {
        for (Map.Entry<String, RowKeyTable> e : tables.entrySet()) {
            RowKeyTable table = e.getValue();
            Condition[] seed2 = {new Condition("sdate", "=", 20161209), new Condition("code", "=", 404)};
            RowKeyQuery all = query(table.schema(), seed2);
            String explain = table.explain(all);
            assertTrue(explain.contains("INDEX by_date_code") && explain.contains("covered"), explain);
            assertTrue(explain.contains("parallel 16-way"), explain);
            List<String> fromIndex;
            long dataRowsRead;
            try (ResultScanner scanner = table.scan(query(table.schema(), seed2))) {
                fromIndex = new ArrayList<>();
                for (Result r : scanner) {
                    fromIndex.add(describe(r));
                    // A Result's lookups work on it: its cells are in a data row's order.
                    assertNotNull(r.getColumnLatestCell(F, Q), describe(r));
                }
                dataRowsRead = scanner.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get();
            }
            assertEquals(0, dataRowsRead, "no data row read");
            assertTrue(fromIndex.size() > 20, fromIndex.size() + " rows");
            // Every cell (updated, added) as the data table has it, in the same order of rows.
            List<String> fromData = new ArrayList<>();
            try (Table t = connection().getTable(TableName.valueOf(e.getKey()))) {
                for (String row : fromIndex) {
                    fromData.add(describe(t.get(new Get(Bytes.fromHex(row.split(" ", 2)[0])))));
                }
            }
            assertEquals(fromData, fromIndex, e.getKey());
            assertEquals(oracle(e.getKey(), seed2, 0, false), keys(fromIndex));
            assertEquals(read(table, query(table.schema(), seed2).noIndex()).size(), fromIndex.size());
            // Any column of the family is covered too; keys only as before.
            RowKeyQuery one = query(table.schema(), seed2).select(F, Bytes.toBytes("z3"));
            assertTrue(table.explain(one).contains("covered"), table.explain(one));
        }
    }

    /**
     * A reversed read through a salted index each of whose fields has one value reads every bucket
     * at once, each from its top down, and merges them by data key: the rows of the forward read in
     * descending data-key order, cells and all, with a bucket split across two regions and two
     * buckets in one region; and so with 2 reading threads (16 buckets: the windows share their
     * bounds) whose first reads look at 2 rows (each bucket then read in many windows), and serial.
     */
    @Test
    void aReversedReadThroughASaltedIndexMergesItsBucketsByDataKey() throws Exception {
        TableName name = TableName.valueOf("par_merged");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, salted, Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").salt(16)
                    .include("f")), F);
        }
        Random random = new Random(41);
        Condition[] where = {new Condition("sdate", "=", 20161209), new Condition("code", "=", 404)};
        TreeMap<String, Map<String, Object>> matching = new TreeMap<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < 4_000; i++) {
                Map<String, Object> row = SeedTableIT.randomRow(random, i);
                if (i % 4 != 0) {
                    row.put("sdate", 20161209);
                    row.put("code", 404);
                }
                byte[] key = salted.encode(row);
                if (where[0].holds(row) && where[1].holds(row)) {
                    matching.put(Bytes.toHex(key), row);
                }
                batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(i)).addColumn(F, R, Bytes.toBytes("r" + i)));
            }
            t.put(batch);
        }
        TableName index = RowKeyTable.indexTableName(name, "by_date_code");
        try (Admin admin = connection().getAdmin(); Table t = connection().getTable(index)) {
            // Bucket 5 in two regions: split at the middle of its rows.
            List<byte[]> bucket5 = new ArrayList<>();
            try (ResultScanner s = t.getScanner(new org.apache.hadoop.hbase.client.Scan().withStartRow(new byte[] {5})
                    .withStopRow(new byte[] {6}))) {
                for (Result r : s) {
                    bucket5.add(r.getRow());
                }
            }
            assertTrue(bucket5.size() > 100, bucket5.size() + " index rows in bucket 5");
            int before = admin.getRegions(index).size();
            admin.split(index, bucket5.get(bucket5.size() / 2));
            for (int i = 0; i < 300 && admin.getRegions(index).size() <= before; i++) {
                Thread.sleep(100);
            }
            assertTrue(admin.getRegions(index).size() > before, "bucket 5's region split");
            // Buckets 7 and 8 in one region.
            List<org.apache.hadoop.hbase.client.RegionInfo> regions = new ArrayList<>(admin.getRegions(index));
            regions.sort((x, y) -> Bytes.compareTo(x.getStartKey(), y.getStartKey()));
            org.apache.hadoop.hbase.client.RegionInfo seven = null;
            org.apache.hadoop.hbase.client.RegionInfo eight = null;
            for (org.apache.hadoop.hbase.client.RegionInfo r : regions) {
                seven = Bytes.equals(r.getStartKey(), new byte[] {7}) ? r : seven;
                eight = Bytes.equals(r.getStartKey(), new byte[] {8}) ? r : eight;
            }
            assertNotNull(seven, "bucket 7's region");
            assertNotNull(eight, "bucket 8's region");
            admin.mergeRegionsAsync(new byte[][] {seven.getEncodedNameAsBytes(), eight.getEncodedNameAsBytes()}, false)
                    .get(60, TimeUnit.SECONDS);
        }
        List<String> descending = new ArrayList<>(matching.descendingKeySet());
        Configuration small = new Configuration(conf());
        small.setInt(ParallelScanner.THREADS_KEY, 2);
        small.setInt(BackwardWindows.SAMPLE_ROWS_KEY, 2);
        try (Connection fresh = ConnectionFactory.createConnection(conf()); Connection twoThreads = ConnectionFactory.createConnection(small);
                Table data = connection().getTable(name)) {
            List<String> whole = new ArrayList<>();
            for (String key : descending) {
                whole.add(describe(data.get(new Get(Bytes.fromHex(key)))));
            }
            for (Connection c : Arrays.asList(fresh, twoThreads)) {
                RowKeyTable table = RowKeyTable.open(c, name);
                for (boolean serial : new boolean[] {false, true}) {
                    RowKeyQuery reversed = query(salted, where).reversed();
                    if (serial) {
                        reversed.serial();
                    }
                    String explain = table.explain(reversed);
                    assertTrue(explain.contains("INDEX by_date_code") && explain.contains("merged by data key"), explain);
                    List<String> got = new ArrayList<>();
                    try (ResultScanner scanner = table.scan(reversed)) {
                        for (Result r : scanner) {
                            got.add(describe(r));
                        }
                        assertEquals(0, scanner.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get(),
                                "covered: no data row read");
                    }
                    String label = (c == fresh ? "16 threads" : "2 threads, first reads of 2 rows") + (serial ? ", serial" : "");
                    assertEquals(whole.size(), got.size(), label);
                    assertEquals(whole, got, label);
                }
                // The last 10 (the joins): each bucket's first read, from its top, holds the few rows
                // it may give; 64 round trips when each read a sample from its bottom, then a window.
                List<String> last = new ArrayList<>();
                long trips;
                try (ResultScanner scanner = table.scan(query(salted, where).reversed().limit(10))) {
                    for (Result r : scanner) {
                        last.add(describe(r));
                    }
                    trips = scanner.getScanMetrics().countOfRPCcalls.get();
                }
                assertEquals(whole.subList(0, 10), last, "the last 10");
                if (c == fresh) {
                    assertTrue(trips <= 20, trips + " round trips for the last 10 of 16 buckets");
                }
            }
        }
    }

    /**
     * "The last 10" of a data-table scan whose matches are sparse (1 row in 155), asked again on its
     * connection: the first read samples the range's start, then reads windows from the top; asked
     * again, its first window is sized by the density the last read found ({@link DensityPriors}),
     * in fewer round trips. A connection that keeps no density takes what the first read took each
     * time. Then rows that match are written densely at the top, where the density read last no
     * longer holds (the primed window's look ends early): still the last 10, exactly.
     */
    @Test
    void theLast10AskedAgainStartFromTheDensityTheLastReadFound() throws IOException {
        TableName name = TableName.valueOf("par_last_ten");
        byte[][] splits = new byte[15][];
        for (int b = 1; b < 16; b++) {
            splits[b - 1] = new byte[] {(byte) (b * 16)};
        }
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, plain, new ArrayList<>(), splits, F);
        }
        TreeSet<String> matching = new TreeSet<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (Map<String, Object> row : sample) {
                byte[] key = plain.encode(row);
                batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(1)));
                if (row.get("sdate").equals(20161205) && row.get("code").equals(404)) {
                    matching.add(Bytes.toHex(key));
                }
            }
            t.put(batch);
        }
        assertTrue(matching.size() > 20, matching.size() + " matches");
        RowKeyQuery lastTen = RowKeyQuery.on(plain).eq("sdate", 20161205).eq("code", 404).noIndex().reversed().limit(10);
        Configuration none = new Configuration(conf());
        none.setInt(DensityPriors.ENTRIES_KEY, 0);
        try (Connection keeps = ConnectionFactory.createConnection(conf()); Connection keepsNone = ConnectionFactory.createConnection(none)) {
            long[] trips = new long[3];
            long[] tripsKeepingNone = new long[3];
            for (int ask = 0; ask < 3; ask++) {
                trips[ask] = lastTenTrips(RowKeyTable.open(keeps, name), lastTen, matching);
                tripsKeepingNone[ask] = lastTenTrips(RowKeyTable.open(keepsNone, name), lastTen, matching);
            }
            String figures = "round trips asked 3 times: " + Arrays.toString(trips) + ", keeping no density "
                    + Arrays.toString(tripsKeepingNone);
            System.out.println("the last 10, " + figures);
            assertTrue(trips[1] < trips[0] && trips[2] < trips[0], figures);
            assertEquals(tripsKeepingNone[0], tripsKeepingNone[2], figures);
            assertEquals(trips[0], tripsKeepingNone[0], figures);

            // Many rows at the top, 1 in 8 of them a match: four times the rows the window sized by the
            // last read's density looks at, so its look ends below its top.
            try (Table t = connection().getTable(name)) {
                List<Put> batch = new ArrayList<>();
                for (int i = 0; batch.size() < 24_000; i++) {
                    Map<String, Object> row = new LinkedHashMap<>(sample.get(0));
                    row.put("md5url", "top-" + i);
                    row.put("sdate", 20161205);
                    row.put("code", i % 8 == 0 ? 404 : 200);
                    byte[] key = plain.encode(row);
                    if ((key[0] & 0xff) >= 0xf0) {
                        batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(2)));
                        if (i % 8 == 0) {
                            matching.add(Bytes.toHex(key));
                        }
                    }
                }
                t.put(batch);
            }
            lastTenTrips(RowKeyTable.open(keeps, name), lastTen, matching);
            lastTenTrips(RowKeyTable.open(keepsNone, name), lastTen, matching);
        }
    }

    /**
     * A limit on an IN of the key's leading field (5 ranges of the data table): its keys come one
     * range after another, so the first 10 (or the last) are read from the range that holds them,
     * in one round trip: forward by the single read stopped at the limit, reversed by the joins'
     * sequence of the ranges (5 round trips when every range was read at once, 6 when the first
     * was read for a fifth of the limit and then again).
     */
    @Test
    void aLimitOnAnInOfTheLeadingFieldReadsOnlyTheRangeItsRowsAreIn() throws IOException {
        TableName name = TableName.valueOf("par_in_limit");
        RowKeySchema groups = RowKeySchema.builder().int32("group").int32("seq").int32("code").build();
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, groups, new ArrayList<>(), new byte[][] {groups.encode(TestData.map("group", 3, "seq", 0, "code", 0))}, F);
        }
        TreeSet<String> matching = new TreeSet<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int group = 0; group < 7; group++) {
                for (int seq = 0; seq < 200; seq++) {
                    byte[] key = groups.encode(TestData.map("group", group, "seq", seq, "code", seq % 3));
                    batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(seq)));
                    if (group >= 1 && group <= 5 && seq % 3 == 0) {
                        matching.add(Bytes.toHex(key));
                    }
                }
            }
            t.put(batch);
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        for (boolean reversed : new boolean[] {false, true}) {
            RowKeyQuery first = RowKeyQuery.on(groups).in("group", 1, 2, 3, 4, 5).eq("code", 0).limit(10);
            if (reversed) {
                first.reversed();
            }
            String explain = table.explain(first);
            // Forward, the whole query's single read stopped at the limit; reversed, the joins.
            assertTrue(reversed ? explain.contains("\nJOIN") && explain.contains("5 range(s)") : explain.contains("stops after 10 rows: one scan in key order"),
                    explain);
            List<String> inOrder = new ArrayList<>(reversed ? matching.descendingSet() : matching);
            long trips = tripsReading(table, first, inOrder.subList(0, 10), reversed ? "the last 10" : "the first 10");
            assertEquals(1, trips, "round trips for the " + (reversed ? "last" : "first") + " 10 of an IN of 5");
        }
    }

    /** Reads {@code lastTen}: the last 10 of {@code matching} (hex keys), backwards; its round trips. */
    private static long lastTenTrips(RowKeyTable table, RowKeyQuery lastTen, TreeSet<String> matching) throws IOException {
        return tripsReading(table, lastTen, new ArrayList<>(matching.descendingSet()).subList(0, 10), "the last 10");
    }

    /** Reads {@code query}, whose rows must be {@code expected} (hex keys, in order); its round trips. */
    private static long tripsReading(RowKeyTable table, RowKeyQuery query, List<String> expected, String what) throws IOException {
        List<String> got = new ArrayList<>();
        long trips;
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                got.add(Bytes.toHex(r.getRow()));
            }
            trips = scanner.getScanMetrics().countOfRPCcalls.get();
        }
        assertEquals(expected, got, what);
        return trips;
    }

    /** A connection whose descending reads' first reads look at 100 rows at most. */
    private Connection firstReadOf100Rows() throws IOException {
        Configuration budgeted = new Configuration(conf());
        budgeted.setInt(BackwardWindows.SAMPLE_ROWS_KEY, 100);
        return ConnectionFactory.createConnection(budgeted);
    }

    private static String describe(Result r) {
        StringBuilder row = new StringBuilder(Bytes.toHex(r.getRow()));
        for (Cell c : r.rawCells()) {
            row.append(' ').append(Bytes.toString(CellUtil.cloneQualifier(c))).append('=')
                    .append(Bytes.toHex(CellUtil.cloneValue(c))).append('@').append(c.getTimestamp());
        }
        return row.toString();
    }

    /**
     * A descending read's first read looks at a budget of rows, its end marked by one row. In a
     * table of two families that row had a marker cell in each, was taken for a row of the table,
     * and the read ended there: the rows above it in the region were lost (the oracle harness found
     * it with a small budget).
     */
    @Test
    void aReversedReadOfTwoFamiliesWithMoreRowsThanItsFirstReadLooksAtLosesNoRow() throws IOException {
        TableName name = TableName.valueOf("par_two_families");
        byte[] g = Bytes.toBytes("g");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, plain, new ArrayList<>(), F, g);
        }
        TreeSet<String> keys = new TreeSet<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < 3 * BackwardWindows.SAMPLE_LOOKED; i++) {
                byte[] key = plain.encode(sample.get(i));
                keys.add(Bytes.toHex(key));
                batch.add(new Put(key).addColumn(F, Q, Bytes.toBytes(i)).addColumn(g, Q, Bytes.toBytes(i)));
            }
            t.put(batch);
        }
        List<String> descending = new ArrayList<>(keys.descendingSet());
        int limit = descending.size() - 1;
        Object[][] queries = {{RowKeyQuery.on(plain).reversed(), descending},
            {RowKeyQuery.on(plain).reversed().serial(), descending}, {RowKeyQuery.on(plain).ne("code", -7).reversed(), descending},
            {RowKeyQuery.on(plain).reversed().limit(limit), descending.subList(0, limit)}};
        // A whole chunk's first read reads up to its bounds by default: with a budget set, it looks
        // at 100 rows and ends with the marker row.
        try (Connection budgeted = firstReadOf100Rows()) {
            for (Connection c : Arrays.asList(connection(), budgeted)) {
                RowKeyTable table = RowKeyTable.open(c, name);
                for (Object[] q : queries) {
                    List<String> got = new ArrayList<>();
                    for (String row : read(table, (RowKeyQuery) q[0])) {
                        got.add(row.split(" ", 2)[0]);
                        assertTrue(row.contains(" f:q=") && row.contains(" g:q="), q[0] + ": a row without its cells: " + row);
                    }
                    assertEquals(q[1], got, q[0].toString());
                }
            }
        }
    }

    /**
     * A descending read's windows keep at most {@link BackwardWindows#KEEP_BYTES} of rows, and so does
     * its first read: above a thousand narrow rows, 500 of 16 KB. Read whole by default, the first
     * read stops at its bytes; read with a first read of 100 narrow rows, the window sized by them
     * keeps a few hundred wide ones, drops the rest and reads them again in the next window. Every
     * row comes once, in descending order, with its cell, and rows were read again (the bound held).
     */
    @Test
    void aReversedReadOfWideRowsKeepsItsWindowsToTheirBytesAndLosesNoRow() throws IOException {
        TableName name = TableName.valueOf("par_wide_rows");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, plain, new ArrayList<>(), F);
        }
        int rows = 1500;
        int wideRows = 500;
        byte[] wide = new byte[16 << 10];
        // The lowest keys narrow, the top third 16 KB: the sample (read from the bottom) sizes the
        // first window by narrow rows, and that window of wide rows is cut by its bytes.
        TreeSet<String> keys = new TreeSet<>();
        for (int i = 0; i < rows; i++) {
            keys.add(Bytes.toHex(plain.encode(sample.get(i))));
        }
        Set<String> wideKeys = new HashSet<>(new ArrayList<>(keys.descendingSet()).subList(0, wideRows));
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (String key : keys) {
                batch.add(new Put(Bytes.fromHex(key)).addColumn(F, Q, wideKeys.contains(key) ? wide : Bytes.toBytes(key)));
                if (batch.size() == 100) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
        }
        assertTrue((long) wideRows * wide.length > 3 * BackwardWindows.KEEP_BYTES / 2, "wide rows beyond a window's bytes");
        try (Connection narrow = firstReadOf100Rows()) {
            for (Connection c : Arrays.asList(connection(), narrow)) {
                RowKeyTable table = RowKeyTable.open(c, name);
                List<String> got = new ArrayList<>();
                long looked;
                try (ResultScanner scanner = table.scan(RowKeyQuery.on(plain).reversed())) {
                    for (Result r; (r = scanner.next()) != null;) {
                        String key = Bytes.toHex(r.getRow());
                        got.add(key);
                        assertArrayEquals(wideKeys.contains(key) ? wide : Bytes.toBytes(key), r.getValue(F, Q), "the row's cell");
                    }
                    looked = scanner.getScanMetrics().countOfRowsScanned.get();
                }
                assertEquals(new ArrayList<>(keys.descendingSet()), got);
                boolean sampledNarrow = c == narrow;
                System.out.println("ParallelReadIT: " + rows + " rows, the top " + wideRows + " of 16 KB, reversed"
                        + (sampledNarrow ? " after a first read of 100 rows: " : ": ") + looked + " rows looked at");
                if (sampledNarrow) {
                    // The first window after the sample holds the wide rows above it, more bytes than a
                    // window keeps: those it dropped are read again.
                    assertTrue(looked > rows + 100, looked + " rows looked at: no window dropped a row");
                }
            }
        }
    }

    @Test
    void aClosedConnectionsReadersEndWhenTheNextPoolIsAskedFor() throws Exception {
        ThreadPoolExecutor closedPool;
        try (Connection other = ConnectionFactory.createConnection(conf())) {
            RowKeyTable table = RowKeyTable.open(other, TableName.valueOf("par_salted"));
            try (ResultScanner scanner = table.scan(query(salted, new Condition[] {new Condition("sdate", ">=", 20161201)}).noIndex())) {
                assertNotNull(scanner.next());
            }
            closedPool = (ThreadPoolExecutor) ParallelScanner.pool(other);
            assertTrue(closedPool.getPoolSize() > 1, closedPool.getPoolSize() + " readers: the read ran in the pool");
        }
        ParallelScanner.pool(connection());
        assertTrue(closedPool.awaitTermination(10, TimeUnit.SECONDS),
                closedPool.getPoolSize() + " readers of a closed connection still alive 10 s after the next pool was asked for");
    }

    @Test
    void aRegionSplitUnderAParallelScanLosesAndRepeatsNoRow() throws Exception {
        String tableName = "par_plain";
        RowKeyTable table = tables.get(tableName);
        Condition[] where = {new Condition("code", "in", 200, 404, 503)};
        TreeSet<String> expected = oracle(tableName, where, 0, false);
        List<String> got = new ArrayList<>();
        TableName name = TableName.valueOf(tableName);
        try (ResultScanner scanner = table.scan(query(plain, where).noIndex())) {
            for (Result r; (r = scanner.next()) != null;) {
                got.add(Bytes.toHex(r.getRow()));
                if (got.size() == 10) {
                    // Split the region the scan reads and the one after it (read ahead).
                    try (Admin admin = connection().getAdmin()) {
                        admin.split(name, r.getRow());
                        admin.split(name, new byte[] {(byte) 0x55, 0x55});
                    }
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (connection().getRegionLocator(name).getAllRegionLocations().size() < 18
                            && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                }
            }
        }
        assertEquals(18, connection().getRegionLocator(name).getAllRegionLocations().size(), "regions after the splits");
        assertEquals(new ArrayList<>(expected), got, "every row once, in key order");
    }

    @Test
    void hundredsOfAbandonedScansOfThousandsOfChunksLeaveNoThreadAndNoServerScanner() throws Exception {
        RowKeyTable table = tables.get("par_salted");
        int most = ParallelScanner.threads(connection()) + Math.max(0, otherPoolsReaderThreads());
        for (int i = 0; i < 120; i++) {
            RowKeyQuery q = i % 2 == 0 ? query(salted, new Condition[] {new Condition("sdate", ">=", 20161201)}).noIndex()
                    : query(salted, new Condition[] {new Condition("code", "=", 404)}).useIndex("by_date_code");
            try (ResultScanner scanner = table.scan(q)) {
                assertNotNull(scanner.next());
            }
            assertTrue(readerThreads() <= most, readerThreads() + " reader threads, at most " + most);
        }
        // The last batches in flight end and close their scanners.
        assertNoServerScannerStaysOpen();
        assertTrue(readerThreads() <= most, readerThreads() + " reader threads, at most " + most);
    }

    @Test
    void aFailingChunkFailsTheScanWithItsExceptionAndClosesTheOthers() throws Exception {
        TableName name = TableName.valueOf("par_plain");
        List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange> all = Arrays.asList(
                new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(new byte[0], true, new byte[0], false));
        assertTrue(ParallelScanner.regionPieces(connection(), name, all).size() >= 16, "one chunk per region");
        int[] made = {0};
        // The 9th chunk asks for a family the table does not have: its region refuses the scan.
        try (ResultScanner scanner = ParallelScanner.open(connection(), name, all, ranges -> {
            org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan()
                    .withStartRow(ranges.get(0).getStartRow()).withStopRow(ranges.get(0).getStopRow());
            return ++made[0] == 9 ? scan.addFamily(Bytes.toBytes("no_such_family")) : scan;
        }, 4, ParallelScanner.Order.KEY)) {
            IOException failed = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> {
                while (scanner.next() != null) {
                    // read on until the failure
                }
            });
            assertTrue(String.valueOf(failed).contains("no_such_family"), String.valueOf(failed));
            assertEquals(null, scanner.next(), "a failed scan is closed");
        }
        assertNoServerScannerStaysOpen();
    }

    @Test
    void batchesPreparedWhereTheyAreReadComeInKeyOrderAndAPreparingFailureFailsTheScan() throws Exception {
        TableName name = TableName.valueOf("par_plain");
        List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange> all = Arrays.asList(
                new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(new byte[0], true, new byte[0], false));
        java.util.function.Function<List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange>,
                org.apache.hadoop.hbase.client.Scan> scanOf = ranges -> new org.apache.hadoop.hbase.client.Scan()
                        .withStartRow(ranges.get(0).getStartRow()).withStopRow(ranges.get(0).getStopRow());
        List<String> expected = new ArrayList<>(new TreeSet<>(live.get("par_plain").keySet()));
        for (int parallelism : new int[] {1, 4}) {
            // Each row made its key in hex, by the thread that read it.
            Set<String> preparedBy = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<String> got = new ArrayList<>();
            try (ParallelScanner<String> keys = ParallelScanner.open(connection(), name, all, scanOf, parallelism,
                    ParallelScanner.Order.KEY, rows -> {
                        preparedBy.add(Thread.currentThread().getName());
                        List<String> hex = new ArrayList<>();
                        rows.forEach(r -> hex.add(Bytes.toHex(r.getRow())));
                        return hex;
                    })) {
                for (List<String> batch; (batch = keys.next()) != null;) {
                    got.addAll(batch);
                }
            }
            assertEquals(expected, got, parallelism + "-way: every row once, in key order");
            assertEquals(java.util.Collections.singleton(parallelism == 1 ? Thread.currentThread().getName() : ParallelScanner.THREAD_NAME),
                    preparedBy, parallelism + "-way: where the batches were prepared");

            // The 3rd batch prepared throws: the scan fails with that exception, as it is, and closes.
            java.util.concurrent.atomic.AtomicInteger batches = new java.util.concurrent.atomic.AtomicInteger();
            IllegalStateException thrown = new IllegalStateException("the third batch cannot be prepared");
            try (ParallelScanner<Result> rows = ParallelScanner.open(connection(), name, all, scanOf, parallelism,
                    ParallelScanner.Order.KEY, read -> {
                        if (batches.incrementAndGet() == 3) {
                            throw thrown;
                        }
                        return read;
                    })) {
                RuntimeException failed = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> {
                    while (rows.next() != null) {
                        // read on until the failure
                    }
                });
                assertTrue(failed == thrown, parallelism + "-way: " + failed);
                assertEquals(null, rows.next(), "a failed scan is closed");
            }
        }
        assertNoServerScannerStaysOpen();
    }

    @Test
    @Order(Integer.MAX_VALUE)
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aRegionServerAbortedUnderAParallelScanLosesAndRepeatsNoRow() throws Exception {
        String tableName = "par_salted";
        TableName name = TableName.valueOf(tableName);
        Condition[] where = {new Condition("sdate", ">=", 20161203)};
        TreeSet<String> expected = oracle(tableName, where, 0, false);
        Set<ServerName> hosts = new HashSet<>();
        for (HRegionLocation l : connection().getRegionLocator(name).getAllRegionLocations()) {
            hosts.add(l.getServerName());
        }
        assertEquals(2, hosts.size(), "the table's regions on both servers");
        Configuration patient = patientConf();
        // 10 rows a round trip, so a chunk reads 10 rows ahead: the regions are still being read.
        patient.setInt("hbase.client.scanner.caching", 10);
        List<String> got = new ArrayList<>();
        ServerName killed = null;
        long t0 = System.nanoTime();
        try (Connection conn = ConnectionFactory.createConnection(patient);
             RegionLocator locator = conn.getRegionLocator(name)) {
            RowKeyTable table = RowKeyTable.open(conn, name);
            RowKeyQuery query = query(salted, where).noIndex();
            assertTrue(table.explain(query).contains("parallel 16-way"), table.explain(query));
            try (ResultScanner scanner = table.scan(query)) {
                for (Result r; (r = scanner.next()) != null;) {
                    got.add(Bytes.toHex(r.getRow()));
                    if (got.size() == 100) {
                        // The server of a region read later (rows of the first are read): its chunk
                        // may have read ahead, or not yet started.
                        killed = locator.getRegionLocation(new byte[] {(byte) 12}, true).getServerName();
                        ((Abortable) cluster().getOnlineRegionsInterface(killed)
                                .orElseThrow(() -> new AssertionError("no RegionServer object")))
                                .abort("ParallelReadIT: killed under a parallel scan", null);
                    }
                }
            }
        }
        assertNotNull(killed, "the scan reached row 100");
        assertEquals(new ArrayList<>(expected), got, "every row once, in key order, after " + killed + " was aborted");
        System.out.printf("ParallelReadIT: %s aborted after 100 of %d rows; the parallel scan ended in %d ms with every row once%n",
                killed, expected.size(), (System.nanoTime() - t0) / 1_000_000);
    }

    private static int readerThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            n += t.getName().equals(ParallelScanner.THREAD_NAME) ? 1 : 0;
        }
        return n;
    }

    /**
     * Reader threads of other connections' pools: those of connections closed before this class (an
     * earlier IT class's) stay idle until they time out (30 s), and no new one starts meanwhile.
     */
    private int otherPoolsReaderThreads() {
        return readerThreads() - ((ThreadPoolExecutor) ParallelScanner.pool(connection())).getPoolSize();
    }

    /**
     * Waits until no scanner is open on the RegionServers, and stays so for a second: a chunk whose
     * read was under way when the scan closed opens its scanner (and closes it when its read ends)
     * after {@code close()} returned, so a first zero is not the end. A scanner left open stays
     * until its lease expires (a minute): past the 30 s this waits, it fails.
     */
    private void assertNoServerScannerStaysOpen() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline && System.nanoTime() - quietSince < 1_000_000_000L) {
            if (serverScanners() > 0) {
                quietSince = System.nanoTime();
            }
            Thread.sleep(50);
        }
        assertEquals(0, serverScanners(), "scanners left open on the RegionServer");
    }

    private int serverScanners() {
        int open = 0;
        for (ServerName server : cluster().getRegionServerAddresses()) {
            HRegionServer rs = (HRegionServer) cluster().getOnlineRegionsInterface(server)
                    .orElseThrow(() -> new AssertionError("no RegionServer object for " + server));
            open += rs.getRSRpcServices().getScannersCount();
        }
        return open;
    }
}
