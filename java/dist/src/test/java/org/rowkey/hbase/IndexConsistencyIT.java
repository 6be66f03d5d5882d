package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The index's consistency promise on a real 2-RegionServer cluster: after any acknowledged write,
 * and after any failure of the write path, a query through an index returns exactly what a full
 * scan of the data table returns.
 *
 * <ol>
 *   <li>8 writers (puts, re-puts, whole-row deletes) and 4 readers at once: every read through the
 *       index holds every row written before it began and not touched since, no deleted one, and
 *       only rows that exist or are in flight;</li>
 *   <li>a fault at each step of the write path (before the index write, between index and data,
 *       after the data, during the verify step) x (insert, delete): afterwards queries through the
 *       index equal the data table's full scan and unverified index rows get repaired; a Delete
 *       whose verify step comes after a newer Put of the row leaves the index row the Put's copy;</li>
 *   <li>a RegionServer aborted while batches are written: the same.</li>
 * </ol>
 * After each, every VERIFIED index row is its data row's copy. Faults and held steps come from
 * {@link FaultInjector}, a test coprocessor installed before or after ours.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IndexConsistencyIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final int USERS = 400;

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("group").int32("day").build();
    private final TableName name = TableName.valueOf("consistency");
    private RowKeyTable table;

    @Override
    protected int numRegionServers() {
        return 2;
    }

    @Override
    protected void configure(Configuration conf) {
        super.configure(conf);
        // Few handlers: index writes from handlers must not wait for handlers (priority pool).
        conf.setInt("hbase.regionserver.handler.count", 3);
        conf.setInt("hbase.client.retries.number", 10);
    }

    @BeforeAll
    void create() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema,
                    Collections.singletonList(RowKeyIndex.of("by_group", "group", "day").include(F, Q)), F);
            admin.split(name, schema.encode(TestData.map("user", USERS / 2, "group", 0, "day", 0)));
        }
        table = RowKeyTable.open(connection(), name);
    }

    private byte[] key(int user, int group, int day) {
        return schema.encode(TestData.map("user", user, "group", group, "day", day));
    }

    private RowKeyQuery byGroup(int group) {
        return RowKeyQuery.on(schema).eq("group", group).useIndex("by_group");
    }

    /**
     * Through the index (every row, and the covered f:q values answered from the index alone), and
     * by a full scan of the data table with the same predicate: equal, for every group.
     */
    private void indexEqualsFullScan(String label) throws IOException {
        for (int group = 0; group < 4; group++) {
            TreeSet<String> fromIndex = keys(table.scan(byGroup(group)));
            Map<String, String> coveredFromIndex = values(table.scan(byGroup(group).select(F, Q)));
            Map<String, String> fullScan;
            try (Table t = connection().getTable(name)) {
                fullScan = values(t.getScanner(new Scan().setFilter(new org.apache.hadoop.hbase.filter.RowFilter(
                        org.apache.hadoop.hbase.CompareOperator.EQUAL, RowKeyQuery.on(schema).eq("group", group).toComparator()))));
            }
            assertEquals(new TreeSet<>(fullScan.keySet()), fromIndex, label + ", group " + group);
            // The covered read returns the rows that have f:q (as a data-table read of f:q does).
            Map<String, String> withQ = new java.util.TreeMap<>(fullScan);
            withQ.values().removeIf(String::isEmpty);
            assertEquals(withQ, coveredFromIndex, label + ", group " + group + ", covered values");
        }
    }

    /** Row key -> f:q value. */
    private static Map<String, String> values(ResultScanner scanner) throws IOException {
        Map<String, String> out = new java.util.TreeMap<>();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                byte[] v = r.getValue(F, Q);
                out.put(Bytes.toHex(r.getRow()), v == null ? "" : Bytes.toHex(v));
            }
        }
        return out;
    }

    private static final byte[] NOTE = Bytes.toBytes("note");
    private static final byte[] HITS = Bytes.toBytes("hits");

    /**
     * The writes the tests make: the covered column written or not, a column deleted, a counter
     * incremented, a row deleted. Every kind but DELETE_ROW leaves the row with a cell (f:note).
     */
    enum Kind {
        PUT_COVERED, PUT_UNCOVERED, DELETE_COVERED_COLUMN, INCREMENT, DELETE_ROW;

        Row mutation(byte[] key, long value) throws IOException {
            switch (this) {
                case PUT_COVERED:
                    return new Put(key).addColumn(F, Q, Bytes.toBytes(value)).addColumn(F, NOTE, Bytes.toBytes(value));
                case PUT_UNCOVERED:
                    return new Put(key).addColumn(F, NOTE, Bytes.toBytes(value));
                case DELETE_COVERED_COLUMN:
                    return new RowMutations(key).add((Mutation) new Put(key).addColumn(F, NOTE, Bytes.toBytes(value)))
                            .add((Mutation) new Delete(key).addColumns(F, Q));
                case INCREMENT:
                    return new Increment(key).addColumn(F, HITS, 1).addColumn(F, NOTE, 0);
                default:
                    return new Delete(key);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 1. concurrent writers and readers

    @Test
    @Order(1)
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void eightWritersAndFourReadersSeeOnlyTheTruth() throws Exception {
        // Each user's row: group = user % 4, day = user % 7; writers own disjoint users.
        // user -> {present 0/1, end of the last change (nanos), in flight 0/1, puts begun}
        Map<Integer, long[]> state = new ConcurrentHashMap<>();
        for (int u = 0; u < USERS; u++) {
            state.put(u, new long[] {0, 0, 0, 0});
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(12);
        List<Future<?>> tasks = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            final int writer = w;
            tasks.add(pool.submit(() -> {
                Random random = new Random(writer);
                try (Table t = connection().getTable(name)) {
                    while (!stop.get()) {
                        int user = writer + 8 * random.nextInt(USERS / 8);
                        long[] s = state.get(user);
                        byte[] key = key(user, user % 4, user % 7);
                        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
                        boolean put = kind != Kind.DELETE_ROW;
                        synchronized (s) {
                            s[2] = 1;
                            s[3] += put ? 1 : 0;
                        }
                        t.batch(Collections.singletonList(kind.mutation(key, random.nextLong())), new Object[1]);
                        synchronized (s) {
                            s[0] = put ? 1 : 0;
                            s[1] = System.nanoTime();
                            s[2] = 0;
                        }
                        writes.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (int r = 0; r < 4; r++) {
            final int reader = r;
            tasks.add(pool.submit(() -> {
                while (!stop.get()) {
                    int group = reader;
                    // Users settled before the read: neither in flight nor changed since it began.
                    long began = System.nanoTime();
                    Map<Integer, long[]> before = snapshot(state);
                    TreeSet<String> got = keys(table.scan(byGroup(group)));
                    Map<Integer, long[]> after = snapshot(state);
                    for (int u = group; u < USERS; u += 4) {
                        long[] b = before.get(u);
                        long[] a = after.get(u);
                        boolean settled = b[2] == 0 && a[2] == 0 && a[1] == b[1] && b[1] < began;
                        boolean returned = got.contains(Bytes.toHex(key(u, u % 4, u % 7)));
                        if (settled) {
                            assertEquals(b[0] == 1, returned, "user " + u + " (settled, present=" + b[0] + ")");
                        } else if (returned) {
                            assertTrue(a[3] > 0, "user " + u + " was returned but never written");
                        }
                    }
                    reads.incrementAndGet();
                }
                return null;
            }));
        }
        Thread.sleep(30_000);
        stop.set(true);
        for (Future<?> f : tasks) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        System.out.println("IndexConsistencyIT: " + writes.get() + " writes and " + reads.get()
                + " index reads in 30 s with 3 handlers per RegionServer");
        assertTrue(writes.get() > 100 && reads.get() > 10, writes + " writes, " + reads + " reads");
        indexEqualsFullScan("after the concurrent run");
        assertIndexRowsCopyTheirDataRows("after the concurrent run");
    }

    private static Map<Integer, long[]> snapshot(Map<Integer, long[]> state) {
        Map<Integer, long[]> copy = new java.util.HashMap<>();
        for (Map.Entry<Integer, long[]> e : state.entrySet()) {
            synchronized (e.getValue()) {
                copy.put(e.getKey(), e.getValue().clone());
            }
        }
        return copy;
    }

    // ---------------------------------------------------------------------------------------------
    // 2. faults at each step of the write path

    /** Where a fault strikes. */
    enum Step { BEFORE_INDEX, BETWEEN_INDEX_AND_DATA, AFTER_DATA, DURING_VERIFY }

    /**
     * A test coprocessor that throws an IOException at one step of a write, for rows whose key is
     * {@link #target}: installed on the data table before ours (BEFORE_INDEX), after ours
     * (BETWEEN_INDEX_AND_DATA in preBatchMutate, AFTER_DATA in postBatchMutate), and on the index
     * table (DURING_VERIFY: the post phase's VERIFIED status write or index row delete).
     */
    public static class FaultInjector implements RegionCoprocessor, RegionObserver {
        static volatile Step step;
        static volatile byte[] target;
        static final AtomicLong STRUCK = new AtomicLong();

        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        private static boolean hits(MiniBatchOperationInProgress<Mutation> batch, Step at, boolean indexTable) {
            if (step != at || target == null) {
                return false;
            }
            for (int i = 0; i < batch.size(); i++) {
                Mutation m = batch.getOperation(i);
                if (!indexTable && Arrays.equals(m.getRow(), target)) {
                    return true;
                }
                if (indexTable && m instanceof Delete) {
                    return true; // the post phase's delete of an index row
                }
                if (indexTable && m instanceof Put) {
                    for (Cell c : ((Put) m).get(IndexRowFormat.FAMILY, IndexRowFormat.STATUS)) {
                        if (Arrays.equals(IndexRowFormat.VERIFIED, CellUtil.cloneValue(c))) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }

        @Override
        public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
                MiniBatchOperationInProgress<Mutation> batch) throws IOException {
            boolean indexTable = c.getEnvironment().getRegion().getTableDescriptor().getValue("rowkey.index.of") != null;
            int priority = c.getEnvironment().getPriority();
            Step here = indexTable ? Step.DURING_VERIFY
                    : priority < org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER ? Step.BEFORE_INDEX : Step.BETWEEN_INDEX_AND_DATA;
            if (hits(batch, here, indexTable)) {
                STRUCK.incrementAndGet();
                throw new IOException("injected fault " + here);
            }
        }

        /** The row whose writes {@link #HELD} holds. */
        static volatile byte[] heldRow;
        /**
         * Mutation class -> {reached, released}: the next write of that class to {@link #heldRow}
         * waits in its post step, before ours runs (the data written, the index not verified yet),
         * until released.
         */
        static final Map<Class<?>, CountDownLatch[]> HELD = new ConcurrentHashMap<>();

        @Override
        public void postBatchMutateIndispensably(ObserverContext<RegionCoprocessorEnvironment> c,
                MiniBatchOperationInProgress<Mutation> batch, boolean success) {
            if (heldRow == null || c.getEnvironment().getPriority() >= org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER) {
                return; // only the instance that runs before ours on the data table holds
            }
            for (int i = 0; i < batch.size(); i++) {
                Mutation m = batch.getOperation(i);
                CountDownLatch[] gate = Arrays.equals(m.getRow(), heldRow) ? HELD.remove(m.getClass()) : null;
                if (gate != null) {
                    gate[0].countDown();
                    try {
                        gate[1].await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }

        @Override
        public void postBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
                MiniBatchOperationInProgress<Mutation> batch) throws IOException {
            boolean indexTable = c.getEnvironment().getRegion().getTableDescriptor().getValue("rowkey.index.of") != null;
            if (!indexTable && c.getEnvironment().getPriority() > org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER
                    && hits(batch, Step.AFTER_DATA, false)) {
                STRUCK.incrementAndGet();
                throw new IOException("injected fault AFTER_DATA");
            }
        }
    }

    private void installInjectors() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            if (admin.getDescriptor(name).hasCoprocessor(FaultInjector.class.getName())) {
                return;
            }
            int user = org.apache.hadoop.hbase.Coprocessor.PRIORITY_USER;
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(FaultInjector.class.getName()).setPriority(user - 1).build())
                    .build());
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(AfterOurs.class.getName()).setPriority(user + 1).build())
                    .build());
            TableName index = RowKeyTable.indexTableName(name, "by_group");
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(index))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(FaultInjector.class.getName()).build())
                    .build());
        }
    }

    /** The injector again, with a priority after ours (HBase loads a class once per table). */
    public static final class AfterOurs extends FaultInjector {}

    @Test
    @Order(2)
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aFaultAtEveryStepOfTheWritePathLeavesTheIndexEqualToTheData() throws Exception {
        installInjectors();
        int user = 1000;
        // A client that gives up soon: a fault strikes every retry of its write.
        Configuration impatient = new Configuration(conf());
        impatient.setInt("hbase.client.retries.number", 1);
        impatient.setInt("hbase.client.pause", 50);
        try (org.apache.hadoop.hbase.client.Connection conn = org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(impatient);
             Table t = conn.getTable(name)) {
            for (Step step : Step.values()) {
                for (Kind kind : Kind.values()) {
                    user++;
                    byte[] key = key(user, user % 4, 3);
                    boolean insert = kind == Kind.PUT_COVERED;
                    if (!insert) {
                        t.put(new Put(key).addColumn(F, Q, Bytes.toBytes(1L)).addColumn(F, NOTE, Bytes.toBytes(1L)));
                    }
                    FaultInjector.target = key;
                    FaultInjector.step = step;
                    long struck = FaultInjector.STRUCK.get();
                    try {
                        t.batch(Collections.singletonList(kind.mutation(key, 2)), new Object[1]);
                        if (step != Step.DURING_VERIFY) {
                            fail(step + ", " + kind + ": the write was acknowledged despite the fault");
                        }
                    } catch (IOException expected) {
                        // the client sees the fault (after its retries)
                    } finally {
                        FaultInjector.step = null;
                        FaultInjector.target = null;
                    }
                    assertTrue(FaultInjector.STRUCK.get() > struck, step + ", " + kind + ": the fault did not strike");
                    indexEqualsFullScan(step + ", " + kind);
                }
            }
        }
        assertIndexRowsCopyTheirDataRows("after the faults");
    }

    /**
     * After reads through the index, every index row stands for its data row. A VERIFIED one is its
     * data row's copy: the data row exists and its f:q cell is the one the index row holds for it
     * (value and data timestamp, or absent in both). No other one stands for an existing data row:
     * the reads repaired them.
     */
    private void assertIndexRowsCopyTheirDataRows(String label) throws IOException {
        Catalog catalog = Catalog.parse(connection().getAdmin().getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        IndexRowFormat.CoveredColumn fq = IndexRowFormat.CoveredColumn.of(catalog.indexes().get(0).getIncludeList()).get(0);
        int verified = 0;
        try (Table index = connection().getTable(RowKeyTable.indexTableName(name, "by_group"));
             Table data = connection().getTable(name);
             ResultScanner rows = index.getScanner(new Scan())) {
            for (Result r : rows) {
                byte[] dataKey = catalog.dataKey(0, r.getRow());
                Result dataRow = data.get(new org.apache.hadoop.hbase.client.Get(dataKey));
                String where = label + ": " + Bytes.toHex(dataKey) + ", index " + r + ", data " + dataRow;
                if (IndexRowFormat.isStatus(IndexRowFormat.status(r), IndexRowFormat.VERIFIED)) {
                    verified++;
                    assertTrue(!dataRow.isEmpty(), "a VERIFIED index row of a missing data row: " + where);
                    assertCopies(dataRow, r, fq, where);
                } else {
                    assertTrue(dataRow.isEmpty(), "an unverified index row for an existing data row was not repaired: " + where);
                }
            }
        }
        assertTrue(verified > 0, label + ": no VERIFIED index row to check");
        System.out.println("IndexConsistencyIT: " + label + ": " + verified + " VERIFIED index rows, each its data row's copy");
    }

    /** The index row holds the data row's covered cell {@code column}: value and data timestamp, or absent in both. */
    static void assertCopies(Result dataRow, Result indexRow, IndexRowFormat.CoveredColumn column, String where) {
        Cell inData = dataRow.getColumnLatestCell(column.family, column.qualifier);
        Cell copy = IndexRowFormat.indexCell(indexRow, column.inIndex);
        assertTrue(copy != null, "a VERIFIED index row without the covered column: " + where);
        Cell inIndex = IndexRowFormat.dataCell(copy, dataRow.getRow(), column);
        assertTrue(inData == null ? inIndex == null
                : inIndex != null && CellUtil.matchingValue(inIndex, inData) && inIndex.getTimestamp() == inData.getTimestamp(),
                "a VERIFIED index row that is not its data row's copy: " + where);
    }

    /** Whether a region of {@code table} is still located (in hbase:meta) on {@code server}, or not yet placed. */
    private boolean stillOn(org.apache.hadoop.hbase.ServerName server, TableName table) throws IOException {
        try (org.apache.hadoop.hbase.client.RegionLocator locator = connection().getRegionLocator(table)) {
            locator.clearRegionLocationCache();
            for (org.apache.hadoop.hbase.HRegionLocation l : locator.getAllRegionLocations()) {
                if (l == null || l.getServerName() == null || l.getServerName().equals(server)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The state the abort test once left (a VERIFIED index row whose covered cell a newer delete
     * marker of the index row hides), made deterministic: a whole-row Delete whose index step comes
     * late (as it does while the index region moves after an abort), a Put of the same row written
     * in between, which verifies after it. The data table shows the Put, newer than the Delete; the
     * index row must be its copy: VERIFIED, with the covered cell.
     */
    @Test
    @Order(3)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLateIndexDeleteMasksNoNewerWriteOfTheRow() throws Exception {
        installInjectors();
        int user = 1100;
        byte[] key = key(user, user % 4, 5);
        try (Table t = connection().getTable(name)) {
            t.put(new Put(key).addColumn(F, Q, Bytes.toBytes(1)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            FaultInjector.heldRow = key;
            CountDownLatch[] deleteHeld = hold(Delete.class);
            Future<?> delete = pool.submit(() -> write(new Delete(key)));
            assertTrue(deleteHeld[0].await(60, TimeUnit.SECONDS), "the delete never reached its post step");
            Thread.sleep(5); // the Put's timestamp newer than the Delete's
            CountDownLatch[] putHeld = hold(Put.class);
            Future<?> put = pool.submit(() -> write(new Put(key).addColumn(F, Q, Bytes.toBytes(2))));
            assertTrue(putHeld[0].await(60, TimeUnit.SECONDS), "the put never reached its post step");
            Thread.sleep(5);
            deleteHeld[1].countDown();
            delete.get(60, TimeUnit.SECONDS);
            Thread.sleep(5); // the Put's verify step later than the index delete
            putHeld[1].countDown();
            put.get(60, TimeUnit.SECONDS);
        } finally {
            FaultInjector.heldRow = null;
            FaultInjector.HELD.clear();
            pool.shutdownNow();
        }
        Result dataRow;
        Result indexRow;
        Catalog catalog = Catalog.parse(connection().getAdmin().getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        try (Table data = connection().getTable(name);
             Table index = connection().getTable(RowKeyTable.indexTableName(name, "by_group"))) {
            dataRow = data.get(new org.apache.hadoop.hbase.client.Get(key));
            indexRow = index.get(new org.apache.hadoop.hbase.client.Get(catalog.indexKey(0, key)));
        }
        Cell inData = dataRow.getColumnLatestCell(F, Q);
        assertEquals(2, Bytes.toInt(CellUtil.cloneValue(inData)), "the data row shows the Put");
        assertTrue(IndexRowFormat.isStatus(IndexRowFormat.status(indexRow), IndexRowFormat.VERIFIED), "the index row is VERIFIED: " + indexRow);
        assertCopies(dataRow, indexRow, IndexRowFormat.CoveredColumn.of(catalog.indexes().get(0).getIncludeList()).get(0),
                "the index row holds the data's covered cell " + inData + ": " + indexRow);
        indexEqualsFullScan("a late index delete");
        assertIndexRowsCopyTheirDataRows("a late index delete");
    }

    private static CountDownLatch[] hold(Class<? extends Mutation> kind) {
        CountDownLatch[] gate = {new CountDownLatch(1), new CountDownLatch(1)};
        FaultInjector.HELD.put(kind, gate);
        return gate;
    }

    /** One write through its own Table (a Table is not shared between threads). */
    private Void write(Mutation m) throws IOException {
        try (Table t = connection().getTable(name)) {
            if (m instanceof Put) {
                t.put((Put) m);
            } else {
                t.delete((Delete) m);
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------
    // 3. a RegionServer aborted while batches are written

    @Test
    @Order(4)
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void aRegionServerAbortedMidBatchLeavesTheIndexEqualToTheData() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> writer = pool.submit(() -> {
            long written = 0;
            Random random = new Random(3);
            try (Table t = connection().getTable(name)) {
                while (!stop.get()) {
                    List<Row> batch = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        int user = 2000 + random.nextInt(USERS);
                        byte[] key = key(user, user % 4, user % 7);
                        batch.add(Kind.values()[random.nextInt(Kind.values().length)].mutation(key, i));
                    }
                    try {
                        t.batch(batch, new Object[batch.size()]);
                    } catch (IOException e) {
                        // a batch caught by the abort may fail after its retries: the data decides
                    }
                    written += batch.size();
                }
            }
            return written;
        });
        Thread.sleep(5_000);
        org.apache.hadoop.hbase.ServerName victim = cluster().getRegionServerAddresses().get(0);
        ((org.apache.hadoop.hbase.Abortable) cluster().getOnlineRegionsInterface(victim)
                .orElseThrow(() -> new AssertionError("no RegionServer object")))
                .abort("IndexConsistencyIT: aborted while batches are written", null);
        Thread.sleep(15_000);
        stop.set(true);
        long written = writer.get(200, TimeUnit.SECONDS);
        pool.shutdown();
        System.out.println("IndexConsistencyIT: " + written + " mutations written around a RegionServer abort");
        // "Afterwards" is once the cluster has recovered: reads during recovery may fail (after their
        // retries), never answer wrongly, and a slow machine may still be reopening regions here.
        RegionServerFaultIT.waitFor(() -> {
            try (Admin admin = connection().getAdmin()) {
                return !admin.getRegionServers().contains(victim)
                        && admin.getClusterMetrics().getRegionStatesInTransition().isEmpty()
                        && !stillOn(victim, name) && !stillOn(victim, RowKeyTable.indexTableName(name, "by_group"));
            }
        }, 180, "every region of the data and index tables reopened on the surviving server");
        indexEqualsFullScan("after a RegionServer abort");
        // A batch that failed after its retries may leave a newer covered value in the index.
        assertIndexRowsCopyTheirDataRows("after a RegionServer abort");
    }
}
