package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.SeedTableIT.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * Seed 000's table with two indexes on a real minicluster, written with the plain HBase client
 * (puts, re-puts, whole-row deletes, a partial delete that empties rows): through every index, the
 * data table alone and the planner's own choice, every query returns exactly the oracle's rows.
 */
class IndexedTableIT extends HBaseMiniClusterBase {
    private static final int ROWS = 20_000;
    private static final byte[] FAMILY_F = Bytes.toBytes("f");
    private static final byte[] QUAL_Q = Bytes.toBytes("q");
    private static final byte[] QUAL_R = Bytes.toBytes("r");

    private final RowKeySchema schema = TestData.seedSchema();
    /** The live rows: hex key -> values. */
    private final Map<String, Map<String, Object>> live = new LinkedHashMap<>();
    private final List<Map<String, Object>> sample = new ArrayList<>();
    private final TableName name = TableName.valueOf("indexed");
    private RowKeyTable table;

    @BeforeAll
    void createAndWrite() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, indexes(), FAMILY_F);
        }
        table = RowKeyTable.open(connection(), name);
        Random random = new Random(42);
        List<byte[]> keys = new ArrayList<>();
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                Map<String, Object> row = SeedTableIT.randomRow(random, i);
                byte[] key = schema.encode(row);
                keys.add(key);
                live.put(Bytes.toHex(key), row);
                sample.add(row);
                batch.add(new Put(key).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes(i)));
                if (batch.size() == 1000) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
            // Re-puts (another column, same keys: the index keys do not move).
            for (int i = 0; i < ROWS; i += 20) {
                t.put(new Put(keys.get(i)).addColumn(FAMILY_F, QUAL_R, Bytes.toBytes("again")));
            }
            // Whole-row deletes.
            for (int i = 1; i < ROWS; i += 10) {
                t.delete(new Delete(keys.get(i)));
                live.remove(Bytes.toHex(keys.get(i)));
            }
            // Partial deletes that leave the row empty (its only column), and one that does not.
            for (int i = 3; i < ROWS; i += 50) {
                t.delete(new Delete(keys.get(i)).addColumns(FAMILY_F, QUAL_Q));
                live.remove(Bytes.toHex(keys.get(i)));
            }
            t.delete(new Delete(keys.get(0)).addColumns(FAMILY_F, QUAL_Q)); // row 0 keeps f:r
        }
    }

    private void compactAway(TableName table) throws IOException {
        try (Admin admin = connection().getAdmin()) {
            admin.flush(table);
            long before = admin.getLastMajorCompactionTimestamp(table);
            admin.majorCompact(table);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                if (admin.getLastMajorCompactionTimestamp(table) > before
                        && admin.getCompactionState(table) == CompactionState.NONE) {
                    return;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("the major compaction of " + table + " did not end in 60 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static List<RowKeyIndex> indexes() {
        return Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").salt(4).include("f", "q"),
                RowKeyIndex.of("by_type_queue", "type", "queue"));
    }

    private TreeSet<String> oracle(Condition[] where) {
        TreeSet<String> out = new TreeSet<>();
        for (Map.Entry<String, Map<String, Object>> e : live.entrySet()) {
            boolean all = true;
            for (Condition c : where) {
                all &= c.holds(e.getValue());
            }
            if (all) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    private TreeSet<String> rows(RowKeyQuery query) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                assertTrue(out.add(Bytes.toHex(r.getRow())), "a row twice: " + Bytes.toHex(r.getRow()));
            }
        }
        return out;
    }

    private RowKeyQuery query(Condition[] where) {
        RowKeyQuery q = RowKeyQuery.on(schema);
        for (Condition c : where) {
            c.addTo(q);
        }
        return q;
    }

    /** The query through the planner's choice, the data table alone and each index. */
    private void checkEveryWay(Condition[] where, String label) throws IOException {
        TreeSet<String> expected = oracle(where);
        assertEquals(expected, rows(query(where)), label + "\n" + table.explain(query(where)));
        assertEquals(expected, rows(query(where).noIndex()), label + ", no index");
        for (String index : table.indexNames()) {
            assertEquals(expected, rows(query(where).useIndex(index)), label + ", index " + index);
        }
    }

    @Test
    void seedQueriesAndRandomQueriesEqualTheOracleThroughEveryIndex() throws IOException {
        Map<String, Object> some = sample.get(5);
        checkEveryWay(new Condition[] {new Condition("md5url", "=", some.get("md5url")),
                new Condition("sdate", "=", some.get("sdate"))}, "seed 1");
        Condition[] seed2 = {new Condition("sdate", "=", 20161209), new Condition("code", "=", 404)};
        checkEveryWay(seed2, "seed 2");
        assertTrue(table.explain(query(seed2)).contains("INDEX by_date_code"), table.explain(query(seed2)));
        checkEveryWay(new Condition[] {new Condition("md5url", "=", some.get("md5url")),
                new Condition("sdate", "between", 20161201, 20161210)}, "seed 3");
        checkEveryWay(new Condition[] {new Condition("type", "in", 1, 2), new Condition("queue", "=", 0),
                new Condition("free", "=", true)}, "type, queue, free");
        Random random = new Random(7);
        for (int q = 0; q < 60; q++) {
            Condition[] where = SeedTableIT.randomQuery(random, sample);
            checkEveryWay(where, "random query " + q + ": " + Arrays.toString(where));
        }
    }

    /** Row key -> value of f:q (or "" for keys only), as {@link RowKeyTable#scan} returns them. */
    private Map<String, String> cells(RowKeyQuery query) throws IOException {
        return cells(query, table);
    }

    /** Each row's f:q as "value@timestamp" (hex), "" without one. */
    private static Map<String, String> cells(RowKeyQuery query, RowKeyTable from) throws IOException {
        Map<String, String> out = new java.util.TreeMap<>();
        try (ResultScanner scanner = from.scan(query)) {
            for (Result r : scanner) {
                org.apache.hadoop.hbase.Cell c = r.getColumnLatestCell(FAMILY_F, QUAL_Q);
                out.put(Bytes.toHex(r.getRow()), c == null ? ""
                        : Bytes.toHex(org.apache.hadoop.hbase.CellUtil.cloneValue(c)) + "@" + c.getTimestamp());
            }
        }
        return out;
    }

    @Test
    void coveredAndKeyOnlyQueriesAreAnsweredFromTheIndexAloneAndEqualTheDataTable() throws IOException {
        Random random = new Random(9);
        for (int q = 0; q < 20; q++) {
            Condition[] where = {new Condition("sdate", "=", 20161201 + random.nextInt(31)),
                    new Condition("code", "in", 404, 503)};
            RowKeyQuery covered = query(where).select(FAMILY_F, QUAL_Q);
            assertTrue(table.explain(covered).contains("covered: the index rows answer alone"), table.explain(covered));
            assertEquals(cells(query(where).select(FAMILY_F, QUAL_Q).noIndex()), cells(covered), "covered " + q);
            RowKeyQuery keys = query(where).keysOnly();
            assertTrue(table.explain(keys).contains("covered"), table.explain(keys));
            assertEquals(oracle(where), new TreeSet<>(cells(keys).keySet()), "keys only " + q);
            assertEquals(oracle(where), new TreeSet<>(cells(query(where).keysOnly().noIndex()).keySet()), "keys only, no index");
            // f:r is not covered: read from the data rows.
            RowKeyQuery other = query(where).select(FAMILY_F, QUAL_R);
            assertTrue(!table.explain(other).contains("answer alone"), table.explain(other));
        }
    }

    @Test
    void anIndexScanSkipsToTheNextIndexKeyThatCanMatch() throws IOException {
        // by_date_code's keys: salt (4 buckets), sdate, code, the data key. code = 404 alone fixes
        // no bucket and no date: its rows are one run per (bucket, date), and the skip scan seeks
        // from one run to the next instead of reading every index row.
        Condition[] where = {new Condition("code", "=", 404)};
        TableName indexTable = RowKeyTable.indexTableName(name, "by_date_code");
        // The deleted rows' index rows leave tombstones the RegionServer walks (and counts as rows
        // read) without showing them to any filter: compacted away first, so what is counted is
        // the skip scan's walk.
        compactAway(indexTable);
        // The index's own keys and regions, and the same conditions over its schema: the replay.
        List<byte[]> indexKeys = new ArrayList<>();
        try (Table t = connection().getTable(indexTable)) {
            for (String hex : keys(t.getScanner(new Scan()))) {
                indexKeys.add(Bytes.fromHex(hex));
            }
        }
        byte[][] regionStarts = connection().getRegionLocator(indexTable).getStartKeys();
        Arrays.sort(regionStarts, Bytes.BYTES_COMPARATOR);
        RowKeyQuery onIndex = RowKeyQuery.on(Catalog.of(schema, indexes(), IndexState.ACTIVE).indexSchema(0));
        for (Condition c : where) {
            c.addTo(onIndex);
        }
        SkipScanReplay replay = SkipScanReplay.of(indexKeys, regionStarts, onIndex, false);
        TreeSet<String> expected = oracle(where);
        for (boolean keysOnly : new boolean[] {false, true}) {
            RowKeyQuery q = query(where).useIndex("by_date_code");
            if (keysOnly) {
                q.keysOnly(); // covered: the index rows answer alone, no data row is read
            }
            String explain = table.explain(q);
            assertTrue(explain.contains("INDEX by_date_code") && explain.contains("SKIP SCAN"), explain);
            TreeSet<String> got = new TreeSet<>();
            long read;
            try (ResultScanner scanner = table.scan(q)) {
                for (Result r : scanner) {
                    assertTrue(got.add(Bytes.toHex(r.getRow())), "a row twice: " + Bytes.toHex(r.getRow()));
                }
                read = scanner.getScanMetrics().countOfRowsScanned.get();
            }
            assertEquals(expected, got, explain);
            assertEquals(expected.size(), replay.keys.size(), "index rows the replay kept");
            assertTrue(read <= replay.readBound(), "read " + read + " index rows, more than " + replay);
            assertTrue(read < live.size() / 3, "read " + read + " of " + live.size() + " index rows");
        }
    }

    @Test
    void indexRowsFollowTheDataRows() throws IOException {
        // One index row per live data row: deleted rows (whole or emptied) left no index row.
        for (String index : table.indexNames()) {
            int count = 0;
            try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index));
                 ResultScanner s = t.getScanner(new Scan())) {
                for (Result r : s) {
                    count++;
                    assertTrue(Arrays.equals(IndexRowFormat.VERIFIED,
                            r.getValue(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)),
                            "index " + index + ": an unverified row after acknowledged writes");
                }
            }
            assertEquals(live.size(), count, "index " + index + " rows");
        }
    }

    @Test
    void tablesWithoutOrWithABadCatalogAreRefusedByName() throws IOException {
        TableName plain = createTable("plain");
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> RowKeyTable.open(connection(), plain));
        assertTrue(none.getMessage().contains("has no hbase-rowkey catalog"), none.getMessage());
        try (Admin admin = connection().getAdmin()) {
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> RowKeyTable.create(
                    admin, TableName.valueOf("bad"), schema, Arrays.asList(RowKeyIndex.of("ix", "nope")), FAMILY_F));
            assertTrue(unknown.getMessage().contains("unknown field 'nope'"), unknown.getMessage());
            IllegalArgumentException family = assertThrows(IllegalArgumentException.class, () -> RowKeyTable.create(
                    admin, TableName.valueOf("bad"), schema, Arrays.asList(RowKeyIndex.of("ix", "code").include("g", "q")),
                    FAMILY_F));
            assertTrue(family.getMessage().contains("does not have"), family.getMessage());
            assertTrue(!admin.tableExists(TableName.valueOf("bad")));
        }
        // The cluster keeps serving.
        assertEquals(oracle(new Condition[] {new Condition("code", "=", 404)}),
                rows(query(new Condition[] {new Condition("code", "=", 404)})));
    }

    @Test
    void staleUnverifiedIndexRowsAreMarkedAfterTheGracePeriodAndRecentOnesStay() throws IOException {
        TableName staleTable = TableName.valueOf("stale");
        List<RowKeyIndex> indexes = Arrays.asList(RowKeyIndex.of("by_code", "code", "sdate").salt(3));
        TableName indexTable = RowKeyTable.indexTableName(staleTable, "by_code");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, staleTable, schema, indexes, new byte[][] {{0x40}, {(byte) 0x80}}, FAMILY_F);
            assertEquals(3, admin.getRegions(staleTable).size(), "the data table at its split keys");
            assertEquals(3, admin.getRegions(indexTable).size(), "the salted index table at its buckets");
        }
        Catalog catalog = Catalog.of(schema, indexes, org.rowkey.hbase.proto.RowKeyProtos.IndexState.ACTIVE);
        byte[][] keys = keysWithCode(4, 404, new Random(3));
        long now = System.currentTimeMillis();
        try (Table data = connection().getTable(staleTable); Table index = connection().getTable(indexTable)) {
            data.put(new Put(keys[0]).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes(0)));
            // Index rows of writes that never reached the data table: written two hours ago, just now,
            // and with a status that does not say when.
            byte[][] statuses = {IndexRowFormat.unverified((now - 7_200_000) * 1_000), IndexRowFormat.unverified(now * 1_000),
                    {IndexRowFormat.UNVERIFIED}};
            for (int i = 1; i < keys.length; i++) {
                index.put(new Put(catalog.indexKey(0, keys[i])).addColumn(IndexRowFormat.FAMILY,
                        IndexRowFormat.STATUS, now - 7_200_000, statuses[i - 1]));
            }
            RowKeyTable stale = RowKeyTable.open(connection(), staleTable);
            RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 404).useIndex("by_code");
            TreeSet<String> expected = new TreeSet<>(Arrays.asList(Bytes.toHex(keys[0])));
            // The first read: one Get per index row (none is verified and covered); the second: the
            // row marked STALE by the first is skipped without a Get.
            for (long gets : new long[] {4, 3}) {
                TreeSet<String> found = new TreeSet<>();
                try (ResultScanner scanner = stale.scan(query)) {
                    for (Result r : scanner) {
                        found.add(Bytes.toHex(r.getRow()));
                    }
                    assertEquals(4, scanner.getScanMetrics().countOfRowsScanned.get(), "index rows read");
                    assertEquals(gets, scanner.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get(),
                            "data rows read");
                }
                assertEquals(expected, found);
            }
            assertArrayEquals(IndexRowFormat.STALE, status(index, catalog.indexKey(0, keys[1])), "the stale row");
            // A join (a limit; the rows' dates make the index a stream) drops the STALE row on the
            // server: a Get for each other key (3), and one more for each UNVERIFIED row's repair
            // (2), none for the STALE one.
            Object[] dates = new Object[keys.length];
            for (int i = 0; i < keys.length; i++) {
                dates[i] = schema.decode(keys[i]).get("sdate");
            }
            RowKeyQuery join = RowKeyQuery.on(schema).eq("code", 404).in("sdate", dates).useIndex("by_code").limit(10);
            assertTrue(stale.explain(join).contains("stream INDEX by_code"), stale.explain(join));
            try (ResultScanner scanner = stale.scan(join)) {
                TreeSet<String> found = new TreeSet<>();
                for (Result r : scanner) {
                    found.add(Bytes.toHex(r.getRow()));
                }
                assertEquals(expected, found);
                assertEquals(5, scanner.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get(),
                        "data rows read by the join");
            }
            assertArrayEquals(statuses[1], status(index, catalog.indexKey(0, keys[2])), "a write in flight");
            assertArrayEquals(statuses[2], status(index, catalog.indexKey(0, keys[3])), "a row of unknown age");
            // A later write of the stale row at its timestamp replaces the mark: the row is back.
            data.put(new Put(keys[1], now - 7_200_000).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes(1)));
            expected.add(Bytes.toHex(keys[1]));
            TreeSet<String> found = new TreeSet<>();
            try (ResultScanner scanner = stale.scan(query)) {
                for (Result r : scanner) {
                    found.add(Bytes.toHex(r.getRow()));
                }
            }
            assertEquals(expected, found, "the row written again over its stale index row");
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, catalog.indexKey(0, keys[1])));
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, catalog.indexKey(0, keys[0])), "the live row");
        }
    }

    @Test
    void anUnverifiedRowIsRepairedToItsDataRowsCopyAndAReplayedWriteIsIndexed() throws IOException {
        TableName repairTable = TableName.valueOf("repaired");
        Catalog catalog = createWithCoveredIndexByCode(repairTable);
        byte[][] keys = keysWithCode(2, 503, new Random(4));
        long t0 = System.currentTimeMillis() - 10_000;
        long t1 = t0 + 5_000;
        RowKeyTable repaired = RowKeyTable.open(connection(), repairTable);
        RowKeyQuery covered = RowKeyQuery.on(schema).eq("code", 503).select(FAMILY_F, QUAL_Q);
        assertTrue(repaired.explain(covered).contains("answer alone"), repaired.explain(covered));
        try (Table data = connection().getTable(repairTable);
             Table index = connection().getTable(RowKeyTable.indexTableName(repairTable, "by_code"))) {
            for (byte[] key : keys) {
                data.put(new Put(key, t0).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v0")));
            }
            long stamp = System.currentTimeMillis() * 1_000;
            byte[] unverified = IndexRowFormat.unverified(stamp);
            // Row 0: a write at t1 of a new covered value reached the index, not the data table.
            index.put(new Put(catalog.indexKey(0, keys[0]), stamp)
                    .addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, unverified)
                    .addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(FAMILY_F, QUAL_Q),
                            IndexRowFormat.coveredValue(CellUtil.createCell(keys[0], FAMILY_F, QUAL_Q, t1,
                                    org.apache.hadoop.hbase.KeyValue.Type.Put.getCode(), Bytes.toBytes("v1")))));
            // Row 1: a write of an uncovered column reached the index alone.
            index.put(new Put(catalog.indexKey(0, keys[1]), stamp)
                    .addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, unverified));
            for (int read = 0; read < 2; read++) {
                assertEquals(cells(RowKeyQuery.on(schema).eq("code", 503).select(FAMILY_F, QUAL_Q).noIndex(), repaired),
                        cells(covered, repaired), "read " + read + ": the data table's cells, v0 at t0");
            }
            // Both rewritten as their data rows' copies, the failed write's value gone from the index.
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, catalog.indexKey(0, keys[0])), "repaired");
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, catalog.indexKey(0, keys[1])), "repaired");
            assertEquals(Bytes.toHex(Bytes.toBytes("v0")) + "@" + t0, cells(covered, repaired).get(Bytes.toHex(keys[0])));
            // The failed write, replayed at its own timestamp, is indexed.
            data.put(new Put(keys[0], t1).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v1")));
            Map<String, String> after = cells(covered, repaired);
            assertEquals(cells(RowKeyQuery.on(schema).eq("code", 503).select(FAMILY_F, QUAL_Q).noIndex(), repaired), after);
            assertEquals(Bytes.toHex(Bytes.toBytes("v1")) + "@" + t1, after.get(Bytes.toHex(keys[0])));
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, catalog.indexKey(0, keys[0])));
        }
    }

    /**
     * A reader's repairs are advice: when the index's table is gone by the time they are sent
     * (another client dropped the index while the read answered rows it had read), the read goes
     * on (OracleIT seed 7663128520898403545 failed a reversed read with the repairs' exception).
     */
    @Test
    void repairsNotSentBecauseTheIndexTableIsGoneDoNotFailTheRead() throws IOException {
        TableName goneTable = TableName.valueOf("repairs_gone");
        Catalog catalog = createWithCoveredIndexByCode(goneTable);
        byte[] key = keysWithCode(1, 404, new Random(8))[0];
        byte[] indexKey = catalog.indexKey(0, key);
        TableName indexTable = RowKeyTable.indexTableName(goneTable, "by_code");
        try (Table data = connection().getTable(goneTable); Table index = connection().getTable(indexTable);
             IndexRowResolver resolver = new IndexRowResolver(connection(), goneTable, catalog)) {
            data.put(new Put(key).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v0")));
            // A write whose post step was lost: its index row UNVERIFIED over its VERIFIED status.
            long stamp = index.get(new Get(indexKey)).getColumnLatestCell(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)
                    .getTimestamp() + 1;
            index.put(new Put(indexKey).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp, IndexRowFormat.unverified(stamp)));
            Cell status = index.get(new Get(indexKey)).getColumnLatestCell(IndexRowFormat.FAMILY, IndexRowFormat.STATUS);
            assertTrue(IndexRowFormat.isUnverified(status), "the case made: the index row UNVERIFIED");
            Result probed = resolver.get(Collections.singletonList(IndexRowFormat.probe(key)))[0];
            resolver.settle(0, indexKey, status, probed); // a repair decided
            try (Admin admin = connection().getAdmin()) {
                admin.disableTable(indexTable);
                admin.deleteTable(indexTable);
            }
            resolver.flush(); // threw RetriesExhaustedWithDetailsException before
        }
    }

    @Test
    void aVerifiedIndexRowWhoseCoveredCellIsHiddenIsAnsweredFromItsDataRow() throws IOException {
        TableName hiddenTable = TableName.valueOf("hidden_covered");
        Catalog catalog = createWithCoveredIndexByCode(hiddenTable);
        byte[][] keys = keysWithCode(2, 404, new Random(5));
        long t0 = System.currentTimeMillis() - 10_000;
        RowKeyTable table = RowKeyTable.open(connection(), hiddenTable);
        RowKeyQuery covered = RowKeyQuery.on(schema).eq("code", 404).select(FAMILY_F, QUAL_Q);
        try (Table data = connection().getTable(hiddenTable);
             Table index = connection().getTable(RowKeyTable.indexTableName(hiddenTable, "by_code"))) {
            for (byte[] key : keys) {
                data.put(new Put(key, t0).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v0")));
            }
            // Row 0's covered cell hidden by a delete marker of the index row newer than it (a row
            // not written whole: the write path never leaves one); its status stays VERIFIED.
            // The marker at the row's own stamp: index cells are stamped in microseconds, so one at
            // the server's clock (milliseconds) would lie under the cell and hide nothing.
            byte[] row0 = catalog.indexKey(0, keys[0]);
            byte[] coveredQualifier = IndexRowFormat.coveredQualifier(FAMILY_F, QUAL_Q);
            long stamp = index.get(new Get(row0)).getColumnLatestCell(IndexRowFormat.FAMILY, IndexRowFormat.STATUS).getTimestamp();
            index.delete(new Delete(row0).addColumns(IndexRowFormat.FAMILY, coveredQualifier, stamp));
            assertFalse(index.get(new Get(row0)).containsColumn(IndexRowFormat.FAMILY, coveredQualifier), "the covered cell hidden");
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, row0));
            Map<String, String> expected = cells(RowKeyQuery.on(schema).eq("code", 404).select(FAMILY_F, QUAL_Q).noIndex(), table);
            assertEquals(2, expected.size());
            assertEquals(expected, cells(covered, table), "the data table's rows, row 0 read from its data row");
        }
    }

    @Test
    void aDeleteThatEmptiesTheRowRemovesItsIndexRowPastEveryEarlierWrite() throws IOException, InterruptedException {
        TableName emptiedTable = TableName.valueOf("emptied");
        Catalog catalog = createWithCoveredIndexByCode(emptiedTable);
        byte[] key = keysWithCode(1, 505, new Random(6))[0];
        byte[] indexKey = catalog.indexKey(0, key);
        long t0 = System.currentTimeMillis() - 10_000;
        RowKeyTable emptied = RowKeyTable.open(connection(), emptiedTable);
        RowKeyQuery covered = RowKeyQuery.on(schema).eq("code", 505).select(FAMILY_F, QUAL_Q);
        try (Table data = connection().getTable(emptiedTable);
             Table index = connection().getTable(RowKeyTable.indexTableName(emptiedTable, "by_code"))) {
            // One write of f:q at t0 and f:r at t0 + 1: the index row's status is at t0 + 1.
            data.put(new Put(key).addColumn(FAMILY_F, QUAL_Q, t0, Bytes.toBytes("v0")).addColumn(FAMILY_F, QUAL_R, t0 + 1, Bytes.toBytes("r")));
            data.delete(new Delete(key).addColumns(FAMILY_F, QUAL_R));
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, indexKey), "the row keeps f:q");
            // The newest version of f:q, the row's last cell: this delete's marker is at t0, older
            // than the index row's status; the index row goes all the same.
            data.delete(new Delete(key).addColumn(FAMILY_F, QUAL_Q));
            assertTrue(data.get(new Get(key)).isEmpty());
            assertTrue(index.get(new Get(indexKey)).isEmpty(), "the emptied row's index row: " + index.get(new Get(indexKey)));
            // A later write of the row is indexed again (its timestamp newer than every marker).
            Thread.sleep(2);
            data.put(new Put(key).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v1")));
            Map<String, String> expected = cells(RowKeyQuery.on(schema).eq("code", 505).select(FAMILY_F, QUAL_Q).noIndex(), emptied);
            assertEquals(1, expected.size());
            assertEquals(expected, cells(covered, emptied));
            assertArrayEquals(IndexRowFormat.VERIFIED, status(index, indexKey));
        }
    }

    @Test
    void aPutOlderThanTheRowsDeleteIsMaskedInTheIndexAsInTheData() throws IOException {
        TableName olderTable = TableName.valueOf("older_put");
        createWithCoveredIndexByCode(olderTable);
        byte[] key = keysWithCode(1, 506, new Random(7))[0];
        RowKeyTable older = RowKeyTable.open(connection(), olderTable);
        try (Table data = connection().getTable(olderTable)) {
            data.put(new Put(key).addColumn(FAMILY_F, QUAL_Q, Bytes.toBytes("v0")));
            data.delete(new Delete(key));
            // Its cells' timestamp set, not the Put's own (which stays LATEST_TIMESTAMP): masked.
            data.put(new Put(key).addColumn(FAMILY_F, QUAL_Q, System.currentTimeMillis() - 60_000, Bytes.toBytes("v1")));
            assertTrue(data.get(new Get(key)).isEmpty());
        }
        Map<String, String> keysOnly = cells(RowKeyQuery.on(schema).eq("code", 506).keysOnly().useIndex("by_code"), older);
        assertTrue(keysOnly.isEmpty(), "key-only through the index: " + keysOnly);
        Map<String, String> covered = cells(RowKeyQuery.on(schema).eq("code", 506).select(FAMILY_F, QUAL_Q).useIndex("by_code"), older);
        assertTrue(covered.isEmpty(), "covered through the index: " + covered);
    }

    /** Creates {@code table} with one index, by_code on (code, sdate) covering f:q; its catalog. */
    private Catalog createWithCoveredIndexByCode(TableName table) throws IOException {
        List<RowKeyIndex> indexes = Arrays.asList(RowKeyIndex.of("by_code", "code", "sdate").include("f", "q"));
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, table, schema, indexes, FAMILY_F);
        }
        return Catalog.of(schema, indexes, org.rowkey.hbase.proto.RowKeyProtos.IndexState.ACTIVE);
    }

    /** Keys of random rows whose code is {@code code}. */
    private byte[][] keysWithCode(int count, int code, Random random) {
        byte[][] keys = new byte[count][];
        for (int i = 0; i < count; i++) {
            Map<String, Object> row = SeedTableIT.randomRow(random, i);
            row.put("code", code);
            keys[i] = schema.encode(row);
        }
        return keys;
    }

    private static byte[] status(Table index, byte[] indexKey) throws IOException {
        return index.get(new Get(indexKey)).getValue(IndexRowFormat.FAMILY, IndexRowFormat.STATUS);
    }
}
