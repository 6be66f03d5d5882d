package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every kind of mutation HBase can send to a region keeps every index equal to the data table,
 * covered cells included (docs/indexes.md, "How the index follows each mutation"). After each
 * mutation, every query is answered through each index (forced) and through the data table alone,
 * as rows and cells: keys only, the covered columns, and every cell.
 *
 * <p>The table: {@code id, code, sdate}; {@code by_code} on code (covers nothing); {@code by_date_cov}
 * on sdate covering {@code f:q} and {@code g:c}. Families f and g keep 3 versions, so deletes of one
 * version show the one before. Only the public API is used, so the same test runs on any version of
 * the write path.
 */
class IndexFollowsEveryMutationIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] G = Bytes.toBytes("g");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final byte[] C = Bytes.toBytes("c");
    private static final byte[] NOTE = Bytes.toBytes("note");
    private static final byte[] HITS = Bytes.toBytes("hits");
    private static final int ROWS = 240;
    private static final int CODES = 4;
    private static final int DATES = 6;

    private final RowKeySchema schema = RowKeySchema.builder().int32("id").int32("code").int32("sdate").build();
    private final TableName name = TableName.valueOf("every_mutation");
    private RowKeyTable table;
    private Table data;

    @BeforeAll
    void create() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_code", "code"),
                    RowKeyIndex.of("by_date_cov", "sdate").include(F, Q).include(G, C)), F, G);
            for (byte[] family : new byte[][] {F, G}) {
                admin.modifyColumnFamily(name, ColumnFamilyDescriptorBuilder.newBuilder(family).setMaxVersions(3).build());
            }
            admin.split(name, key(ROWS / 2));
        }
        table = RowKeyTable.open(connection(), name);
        data = connection().getTable(name);
        List<Put> puts = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            puts.add(new Put(key(id)).addColumn(F, Q, Bytes.toBytes((long) id)).addColumn(F, NOTE, Bytes.toBytes("n" + id))
                    .addColumn(G, C, Bytes.toBytes("c" + id)));
        }
        data.put(puts);
        assertIndexesEqualData("after the load", range(0, ROWS));
    }

    private byte[] key(int id) {
        return schema.encode(TestData.map("id", id, "code", id % CODES, "sdate", id % DATES));
    }

    /**
     * Every index (forced) against the data table alone, for every code and date, in every shape of
     * answer, on the rows {@code ids} (each test writes its own rows, so a test fails for its own).
     */
    private void assertIndexesEqualData(String label, int... ids) throws IOException {
        java.util.Set<String> rows = new java.util.HashSet<>();
        for (int id : ids) {
            rows.add(Bytes.toHex(key(id)));
        }
        for (int code = 0; code < CODES; code++) {
            int value = code;
            assertSame(label + ", code " + code, () -> RowKeyQuery.on(schema).eq("code", value), "by_code", rows);
        }
        for (int date = 0; date < DATES; date++) {
            int value = date;
            assertSame(label + ", date " + date, () -> RowKeyQuery.on(schema).eq("sdate", value), "by_date_cov", rows);
        }
    }

    private static int[] range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).toArray();
    }

    private void assertSame(String label, Supplier<RowKeyQuery> query, String index, java.util.Set<String> rows)
            throws IOException {
        List<UnaryOperator<RowKeyQuery>> shapes = Arrays.asList(
                q -> q,
                RowKeyQuery::keysOnly,
                q -> q.select(F, Q),
                q -> q.select(F, Q).select(G, C),
                q -> q.select(F, NOTE));
        for (int s = 0; s < shapes.size(); s++) {
            Map<String, String> through = cells(shapes.get(s).apply(query.get()).useIndex(index), s == 1);
            Map<String, String> alone = cells(shapes.get(s).apply(query.get()).noIndex(), s == 1);
            through.keySet().retainAll(rows);
            alone.keySet().retainAll(rows);
            assertEquals(alone, through, label + ", shape " + s + ", through " + index);
        }
    }

    /** Row -> its cells (family:qualifier=value@timestamp), or its key alone for a key-only answer. */
    private Map<String, String> cells(RowKeyQuery query, boolean keysOnly) throws IOException {
        return cells(table, query, keysOnly);
    }

    private static Map<String, String> cells(RowKeyTable table, RowKeyQuery query, boolean keysOnly) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                StringBuilder sb = new StringBuilder();
                if (!keysOnly) {
                    for (Cell c : r.rawCells()) {
                        sb.append(Bytes.toString(CellUtil.cloneFamily(c))).append(':').append(Bytes.toString(CellUtil.cloneQualifier(c)))
                                .append('=').append(Bytes.toHex(CellUtil.cloneValue(c))).append('@').append(c.getTimestamp()).append(' ');
                    }
                }
                assertTrue(out.put(Bytes.toHex(r.getRow()), sb.toString()) == null, "a row returned twice: " + r);
            }
        }
        return out;
    }

    @Test
    void incrementsOfAnUncoveredColumnKeepTheRowInEveryIndex() throws IOException {
        data.increment(new Increment(key(1)).addColumn(F, HITS, 1));
        data.incrementColumnValue(key(2), F, HITS, 5);
        assertIndexesEqualData("increments of f:hits", 1, 2);
    }

    @Test
    void anIncrementOfACoveredColumnIsCopiedWithTheValueHBaseComputed() throws IOException {
        data.incrementColumnValue(key(3), F, Q, 7);
        data.increment(new Increment(key(3)).addColumn(F, Q, 10).addColumn(F, HITS, 1));
        assertEquals(3 + 17, Bytes.toLong(data.get(new org.apache.hadoop.hbase.client.Get(key(3))).getValue(F, Q)));
        assertIndexesEqualData("increments of the covered f:q", 3);
    }

    @Test
    void appendsKeepTheRowAndTheirCoveredValues() throws IOException {
        data.append(new Append(key(4)).addColumn(F, NOTE, Bytes.toBytes("+a")));
        data.append(new Append(key(5)).addColumn(G, C, Bytes.toBytes("+b")));
        assertIndexesEqualData("appends", 4, 5);
    }

    @Test
    void aDeleteOfACoveredColumnLeavesTheIndexWithoutIt() throws IOException {
        data.delete(new Delete(key(6)).addColumns(F, Q));
        data.mutateRow(new RowMutations(key(7)).add((Mutation) new Delete(key(7)).addColumns(G, C)));
        assertIndexesEqualData("deletes of covered columns, the rows keep f:note", 6, 7);
    }

    @Test
    void deletesOfOneVersionShowTheVersionBefore() throws IOException {
        long t0 = System.currentTimeMillis();
        data.put(new Put(key(8)).addColumn(F, Q, t0 + 1, Bytes.toBytes(100L)));
        data.put(new Put(key(8)).addColumn(F, Q, t0 + 2, Bytes.toBytes(200L)));
        data.delete(new Delete(key(8)).addColumn(F, Q, t0 + 2)); // that version: t0 + 1's shows
        data.put(new Put(key(9)).addColumn(F, Q, t0 + 3, Bytes.toBytes(300L)));
        data.delete(new Delete(key(9)).addColumn(F, Q)); // the newest version, timestamp found by HBase
        assertIndexesEqualData("deletes of one version", 8, 9);
    }

    @Test
    void familyDeletesWithDifferentTimestampsOnEveryFamily() throws IOException {
        long t = System.currentTimeMillis();
        data.put(new Put(key(10)).addColumn(F, Q, t + 10, Bytes.toBytes(1L)).addColumn(G, C, t + 10, Bytes.toBytes("new")));
        // f deleted up to t + 20 (all of it), g only up to t - 1: g:c at t + 10 stays.
        data.delete(new Delete(key(10)).addFamily(F, t + 20).addFamily(G, t - 1));
        data.delete(new Delete(key(11)).addFamily(F).addFamily(G)); // the whole row
        data.delete(new Delete(key(12)).addFamilyVersion(F, t - 1_000_000)); // a version with no cell
        assertIndexesEqualData("family deletes", 10, 11, 12);
    }

    @Test
    void putsWithTimestampsOlderThanTheRowsCellsAndThanItsDelete() throws IOException {
        long old = System.currentTimeMillis() - 3_600_000;
        data.put(new Put(key(13)).addColumn(F, Q, old, Bytes.toBytes(-1L))); // older than f:q's cell: hidden
        data.put(new Put(key(14)).addColumn(F, HITS, old, Bytes.toBytes(-1L))); // a new column, old timestamp
        data.delete(new Delete(key(15)));
        data.put(new Put(key(15)).addColumn(F, Q, old, Bytes.toBytes(-2L))); // masked by the row delete
        data.put(new Put(key(16), old).addColumn(G, C, Bytes.toBytes("old"))); // the Put's own timestamp
        assertIndexesEqualData("puts at old timestamps", 13, 14, 15, 16);
    }

    @Test
    void aPartialDeleteThatEmptiesTheRowRemovesItAndALaterWriteBringsItBack() throws IOException {
        data.delete(new Delete(key(17)).addFamily(F));
        data.delete(new Delete(key(17)).addColumns(G, C)); // the row's last cell
        assertIndexesEqualData("a row emptied by partial deletes", 17);
        data.put(new Put(key(17)).addColumn(G, C, Bytes.toBytes("back")));
        assertIndexesEqualData("the emptied row written again", 17);
    }

    @Test
    void checkAndMutateAppliedOrNotWithAPutADeleteOrRowMutations() throws IOException {
        byte[] k = key(18);
        assertTrue(data.checkAndMutate(CheckAndMutate.newBuilder(k).ifEquals(G, C, Bytes.toBytes("c18"))
                .build(new Put(k).addColumn(G, C, Bytes.toBytes("swapped")))).isSuccess());
        assertFalse(data.checkAndMutate(CheckAndMutate.newBuilder(k).ifEquals(G, C, Bytes.toBytes("no"))
                .build(new Put(k).addColumn(G, C, Bytes.toBytes("not written")))).isSuccess());
        assertTrue(data.checkAndMutate(CheckAndMutate.newBuilder(key(19)).ifNotExists(F, HITS)
                .build(new Delete(key(19)).addColumns(F, Q))).isSuccess());
        assertFalse(data.checkAndMutate(CheckAndMutate.newBuilder(key(20)).ifNotExists(F, Q)
                .build(new Delete(key(20)))).isSuccess());
        assertTrue(data.checkAndMutate(CheckAndMutate.newBuilder(key(21)).ifMatches(F, Q, CompareOperator.EQUAL, Bytes.toBytes(21L))
                .build(new RowMutations(key(21)).add((Mutation) new Put(key(21)).addColumn(F, Q, Bytes.toBytes(2121L)))
                        .add((Mutation) new Delete(key(21)).addColumns(G, C)))).isSuccess());
        assertIndexesEqualData("checkAndMutate", 18, 19, 20, 21);
    }

    @Test
    void aBatchMixingEveryKindWithSeveralMutationsOfOneRow() throws IOException, InterruptedException {
        List<Row> batch = Arrays.asList(
                new Increment(key(22)).addColumn(F, HITS, 1),
                new Put(key(22)).addColumn(G, C, Bytes.toBytes("in batch")),
                new Append(key(23)).addColumn(G, C, Bytes.toBytes("!")),
                new Delete(key(23)).addColumns(F, Q),
                new Delete(key(24)),
                new Put(key(25)).addColumn(F, Q, Bytes.toBytes(25_25L)),
                new Increment(key(25)).addColumn(F, Q, 1),
                new RowMutations(key(26)).add((Mutation) new Put(key(26)).addColumn(F, NOTE, Bytes.toBytes("rm")))
                        .add((Mutation) new Delete(key(26)).addColumns(F, Q)));
        data.batch(batch, new Object[batch.size()]);
        assertIndexesEqualData("a mixed batch", 22, 23, 24, 25, 26);
    }

    @Test
    void aRowWhoseKeyIsNotTheSchemasIsRefusedAndBreaksNoQuery() throws IOException {
        RowKeySchema salted = RowKeySchema.builder().int32("a").int32("b").salt(4, "a").build();
        TableName saltedName = TableName.valueOf("mis_salted");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, saltedName, salted, Arrays.asList(RowKeyIndex.of("by_b", "b").include(F, Q)), F);
        }
        Catalog catalog = Catalog.of(salted, Arrays.asList(RowKeyIndex.of("by_b", "b").include(F, Q)),
                org.rowkey.hbase.proto.RowKeyProtos.IndexState.ACTIVE);
        try (Table t = connection().getTable(saltedName);
             Table index = connection().getTable(RowKeyTable.indexTableName(saltedName, "by_b"))) {
            for (int a = 0; a < 20; a++) {
                t.put(new Put(salted.encode(TestData.map("a", a, "b", a % 2))).addColumn(F, Q, Bytes.toBytes(a)));
            }
            byte[] wrong = salted.encode(TestData.map("a", 99, "b", 1));
            wrong[0] = (byte) ((wrong[0] + 1) % 4);
            IOException refused = assertThrows(IOException.class, () -> t.put(new Put(wrong).addColumn(F, Q, Bytes.toBytes(0))));
            assertTrue(String.valueOf(refused.getMessage()).contains("is not a key of its schema"), refused.toString());
            // A row put into the index table by hand whose data salt byte (after b) is wrong: skipped.
            byte[] indexKey = catalog.indexKey(0, salted.encode(TestData.map("a", 98, "b", 1)));
            indexKey[4] = (byte) ((indexKey[4] + 1) % 4);
            index.put(new Put(indexKey).addColumn(Bytes.toBytes("_i"), Bytes.toBytes("s"), new byte[] {1}));
        }
        RowKeyTable saltedTable = RowKeyTable.open(connection(), saltedName);
        for (int b = 0; b < 2; b++) {
            RowKeyQuery q = RowKeyQuery.on(salted).eq("b", b);
            assertEquals(10, cells(saltedTable, q.useIndex("by_b"), false).size());
            assertEquals(cells(saltedTable, RowKeyQuery.on(salted).eq("b", b).noIndex(), false),
                    cells(saltedTable, RowKeyQuery.on(salted).eq("b", b).useIndex("by_b").select(F, Q), false));
        }
    }

    @Test
    void aTableWithATtlAnswersOnlyLiveCellsThroughItsIndexes() throws IOException {
        TableName ttlName = TableName.valueOf("with_ttl");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, ttlName, schema, Arrays.asList(RowKeyIndex.of("by_date_cov", "sdate").include(F, Q)), F, G);
            admin.modifyColumnFamily(ttlName, ColumnFamilyDescriptorBuilder.newBuilder(F).setTimeToLive(3_600).build());
        }
        RowKeyTable ttl = RowKeyTable.open(connection(), ttlName);
        long expired = System.currentTimeMillis() - 2 * 3_600_000L;
        try (Table t = connection().getTable(ttlName)) {
            for (int id = 0; id < 12; id++) {
                Put put = new Put(key(id));
                if (id % 3 == 0) {
                    put.addColumn(F, Q, expired, Bytes.toBytes((long) id)); // expired at once: the row has none
                } else if (id % 3 == 1) {
                    put.addColumn(F, Q, expired, Bytes.toBytes((long) id)).addColumn(G, C, Bytes.toBytes("live"));
                } else {
                    put.addColumn(F, Q, Bytes.toBytes((long) id));
                }
                t.put(put);
            }
        }
        for (int date = 0; date < DATES; date++) {
            for (boolean covered : new boolean[] {false, true}) {
                RowKeyQuery through = RowKeyQuery.on(schema).eq("sdate", date).useIndex("by_date_cov");
                RowKeyQuery alone = RowKeyQuery.on(schema).eq("sdate", date).noIndex();
                if (covered) {
                    through.select(F, Q);
                    alone.select(F, Q);
                }
                assertEquals(cells(ttl, alone, false), cells(ttl, through, false), "date " + date + ", covered " + covered);
            }
        }
    }

    /**
     * Thousands of random mutations of every kind, several per batch, from four threads over a few
     * hundred rows (some rows in several batches at once), then every index equals the data table.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void randomMutationsOfEveryKindFromFourThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            final int writer = w;
            writers.add(pool.submit(() -> {
                Random random = new Random(100 + writer);
                int sent = 0;
                try (Table t = connection().getTable(name)) {
                    while (sent < 600) {
                        List<Row> batch = new ArrayList<>();
                        int size = 1 + random.nextInt(6);
                        for (int i = 0; i < size; i++) {
                            batch.add(randomMutation(random, key(30 + random.nextInt(ROWS - 30))));
                        }
                        t.batch(batch, new Object[batch.size()]);
                        sent += size;
                    }
                }
                return sent;
            }));
        }
        int sent = 0;
        for (Future<Integer> f : writers) {
            sent += f.get(200, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(sent >= 2_000, sent + " mutations");
        assertIndexesEqualData("after " + sent + " random mutations from 4 threads", range(30, ROWS));
    }

    /**
     * With a bulk load's window open on the table (docs/bulk-load.md), mutations of every kind, in
     * mixed batches and by checkAndMutate, leave each touched index row UNVERIFIED with the load's
     * timestamp (never VERIFIED, never deleted), readers do not repair them (no data cell is at the
     * load's timestamp), every index still equals the data table, and once the window closes a
     * write is VERIFIED again.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void mutationsOfEveryKindDuringALoadWindowAreMarkedNotTrusted() throws Exception {
        long load = System.currentTimeMillis() - 86_400_000L; // no mutation here writes a cell at it
        int[] ids = range(200, ROWS);
        try (Admin admin = connection().getAdmin()) {
            setWindow(admin, Long.toString(load));
            try {
                Random random = new Random(7);
                List<Row> batch = new ArrayList<>();
                for (int i = 0; i < 4 * ids.length; i++) {
                    batch.add(randomMutation(random, key(ids[i % ids.length])));
                    if (batch.size() == 1 + random.nextInt(6)) {
                        data.batch(batch, new Object[batch.size()]);
                        batch.clear();
                    }
                }
                data.batch(batch, new Object[batch.size()]);
                data.checkAndMutate(CheckAndMutate.newBuilder(key(200)).ifNotExists(F, Bytes.toBytes("absent"))
                        .build(new RowMutations(key(200)).add((Mutation) new Put(key(200)).addColumn(G, C, Bytes.toBytes("cm")))
                                .add((Mutation) new Delete(key(200)).addColumns(F, NOTE))));
                assertMarkedDuringLoad(ids, load);
                assertIndexesEqualData("during a load window", ids);
                assertMarkedDuringLoad(ids, load); // the reads above repaired nothing
            } finally {
                setWindow(admin, null);
            }
        }
        assertIndexesEqualData("after the load window", ids);
        data.put(new Put(key(201)).addColumn(F, Q, Bytes.toBytes(201L)));
        Catalog catalog = catalog();
        for (int i = 0; i < catalog.indexes().size(); i++) {
            assertTrue(IndexRowFormat.isStatus(indexStatus(catalog, i, key(201)), IndexRowFormat.VERIFIED),
                    "a write after the window is VERIFIED");
        }
    }

    /** Sets (or, with null, removes) the load window of the table; its regions reopen with it. */
    private void setWindow(Admin admin, String value) throws IOException {
        org.apache.hadoop.hbase.client.TableDescriptorBuilder b =
                org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(admin.getDescriptor(name));
        byte[] key = Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY);
        admin.modifyTable(value == null ? b.removeValue(key).build() : b.setValue(key, Bytes.toBytes(value)).build());
    }

    private Catalog catalog() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            return Catalog.parse(admin.getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        }
    }

    /** The newest status of the row of data key {@code dataKey} in index {@code index}, or null. */
    private Cell indexStatus(Catalog catalog, int index, byte[] dataKey) throws IOException {
        TableName indexTable = IndexRowFormat.indexTableName(name, catalog.indexes().get(index).getName());
        try (Table t = connection().getTable(indexTable)) {
            return IndexRowFormat.status(t.get(new org.apache.hadoop.hbase.client.Get(catalog.indexKey(index, dataKey))
                    .addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)));
        }
    }

    private void assertMarkedDuringLoad(int[] ids, long load) throws IOException {
        Catalog catalog = catalog();
        for (int id : ids) {
            for (int i = 0; i < catalog.indexes().size(); i++) {
                Cell status = indexStatus(catalog, i, key(id));
                assertTrue(status != null && IndexRowFormat.loadOf(CellUtil.cloneValue(status)) == load,
                        "row " + id + " in index " + i + ": " + status);
            }
        }
    }

    /** One random mutation of {@code row}: of every kind HBase has, with and without timestamps. */
    static Row randomMutation(Random random, byte[] row) throws IOException {
        long now = System.currentTimeMillis();
        long ts = random.nextBoolean() ? now - random.nextInt(100_000) : now + random.nextInt(50);
        byte[] family = random.nextBoolean() ? F : G;
        byte[] qualifier = family == F ? (random.nextBoolean() ? Q : NOTE) : C;
        switch (random.nextInt(12)) {
            case 0:
                return new Put(row).addColumn(F, Q, Bytes.toBytes(random.nextLong()));
            case 1:
                return new Put(row).addColumn(family, qualifier, ts, Bytes.toBytes(random.nextLong()));
            case 2:
                return new Increment(row).addColumn(F, HITS, 1 + random.nextInt(3));
            case 3:
                return new Append(row).addColumn(G, C, Bytes.toBytes("+" + random.nextInt(10)));
            case 4:
                return new Delete(row).addColumns(family, qualifier);
            case 5:
                return new Delete(row).addColumn(family, qualifier);
            case 6:
                return new Delete(row).addColumns(family, qualifier, ts);
            case 7:
                return new Delete(row).addFamily(family, random.nextBoolean() ? ts : now);
            case 8:
                return new Delete(row);
            case 9:
                return new Delete(row, ts);
            case 10:
                return new RowMutations(row).add((Mutation) new Put(row).addColumn(G, C, Bytes.toBytes("rm" + random.nextInt(9))))
                        .add((Mutation) new Delete(row).addColumns(F, NOTE));
            default:
                return new Put(row, ts).addColumn(F, NOTE, Bytes.toBytes("n")).addColumn(G, C, Bytes.toBytes("g"));
        }
    }
}
