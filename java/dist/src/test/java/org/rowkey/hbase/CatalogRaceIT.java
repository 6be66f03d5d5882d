package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Catalog changes are atomic against other clients (issue 35, item 6): clients on connections of
 * their own add and drop indexes of one table at once, and no change is lost. Before the fix each
 * change read the descriptor, changed it and wrote it back, so a change another client made in
 * between was lost (an index added, its table left behind without a catalog entry) or undone (a
 * dropped index back in the catalog, its table gone: every write to the table failed). And the
 * lease ({@link CatalogLock}) that makes them atomic: a dead client's is taken over once it expires,
 * a held one blocks no data read or write, and a holder that lost its lease writes nothing.
 */
class CatalogRaceIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final int ROWS = 200;
    private static final int CLIENTS = 3;
    private static final int ROUNDS = 2;
    /** The fields each client indexes, by client. */
    private static final String[][] FIELDS = {{"code"}, {"day"}, {"day", "code"}};

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();

    private TableName createWithRows(String table) throws IOException {
        TableName name = TableName.valueOf(table);
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.emptyList(), F);
        }
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int user = 0; user < ROWS; user++) {
                puts.add(new Put(key(user)).addColumn(F, Q, Bytes.toBytes("v" + user)));
            }
            t.put(puts);
        }
        return name;
    }

    private byte[] key(int user) {
        return schema.encode(TestData.map("user", user, "code", user % 4, "day", user % 7));
    }

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void clientsAddingAndDroppingIndexesAtOnceLoseNothing() throws Exception {
        TableName name = createWithRows("catalog_race");
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<String>>> lost = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                lost.add(clients.submit(() -> {
                    start.await();
                    return addAndDrop(name, client);
                }));
            }
            start.countDown();
            List<String> problems = new ArrayList<>();
            for (Future<List<String>> f : lost) {
                problems.addAll(f.get(600, TimeUnit.SECONDS));
            }
            List<String> indexes = RowKeyTable.open(connection(), name).indexNames();
            List<String> expected = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                expected.add("c" + c + "_kept");
            }
            TreeSet<String> indexTables = new TreeSet<>();
            try (Admin admin = connection().getAdmin()) {
                for (TableName t : admin.listTableNames()) {
                    if (t.getNameAsString().startsWith(name.getNameAsString() + "__idx_")) {
                        indexTables.add(t.getNameAsString().substring(name.getNameAsString().length() + "__idx_".length()));
                    }
                }
            }
            String writes = writeAndRead(name);
            System.out.printf("CatalogRaceIT: %d clients x %d rounds of addIndex + dropIndex, then one addIndex each, in %d ms:"
                    + " %d changes lost or failed %s; catalog at the end %s, index tables %s; a write then: %s%n", CLIENTS, ROUNDS,
                    (System.nanoTime() - t0) / 1_000_000, problems.size(), problems, indexes, indexTables, writes);
            assertEquals(Collections.emptyList(), problems, "changes lost or failed");
            assertEquals(new TreeSet<>(expected), new TreeSet<>(indexes), "the catalog holds every index added and not dropped");
            assertEquals(new TreeSet<>(expected), indexTables, "an index table exists for each index of the catalog, no other");
            assertEquals("ok", writes);
            // Every change stored exactly once, one after another: two per addIndex, two per dropIndex.
            try (Admin admin = connection().getAdmin()) {
                assertEquals(CLIENTS * (ROUNDS * 4 + 2), RowKeyTable.catalogVersion(name, admin.getDescriptor(name)));
            }
            RowKeyTable table = RowKeyTable.open(connection(), name);
            for (int c = 0; c < CLIENTS; c++) {
                assertEquals(truth(name, 1, 3), users(table.scan(RowKeyQuery.on(schema).eq("code", 1).eq("day", 3)
                        .useIndex("c" + c + "_kept"))), "through c" + c + "_kept");
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theLeaseOfAClientThatDiedIsTakenOverOnceItExpires() throws Exception {
        TableName name = createWithRows("dead_holder");
        long expiry = System.currentTimeMillis() + 5_000;
        holdLease(name, expiry, "client 999@gone 0badf00d: addIndex 'by_day': its table, BUILDING");
        Configuration impatient = new Configuration(conf());
        impatient.setLong(CatalogLock.WAIT_MS_KEY, 1_000);
        try (Connection own = ConnectionFactory.createConnection(impatient)) {
            IOException refused = assertThrows(IOException.class,
                    () -> RowKeyTable.open(own, name).addIndex(RowKeyIndex.of("by_code", "code")));
            System.out.println("CatalogRaceIT: while a dead client's lease lasts: " + refused.getMessage());
            assertTrue(refused.getMessage().startsWith("table dead_holder's catalog is being changed by client 999@gone"
                    + " 0badf00d: addIndex 'by_day': its table, BUILDING until " + Instant.ofEpochMilli(expiry)), refused.getMessage());
        }
        try (Admin admin = connection().getAdmin()) {
            assertEquals(0, RowKeyTable.catalogVersion(name, admin.getDescriptor(name)), "nothing was changed");
            assertFalse(admin.tableExists(RowKeyTable.indexTableName(name, "by_code")), "no index table was made");
        }
        long t0 = System.currentTimeMillis();
        RowKeyTable.open(connection(), name).addIndex(RowKeyIndex.of("by_code", "code")); // waits for the expiry
        long waited = System.currentTimeMillis() - t0;
        System.out.println("CatalogRaceIT: addIndex started " + (expiry - t0) + " ms before the dead client's lease expired,"
                + " took it over and was done after " + waited + " ms");
        assertTrue(waited >= expiry - t0 - 100, "addIndex waited for the lease to expire: " + waited + " ms");
        assertEquals(Collections.singletonList("by_code"), RowKeyTable.open(connection(), name).indexNames());
        assertEquals(null, lease(name), "the lease was released");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void dataReadsAndWritesAreNeverBlockedByTheLease() throws Exception {
        TableName name = TableName.valueOf("held_lease");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.singletonList(RowKeyIndex.of("by_code", "code")), F);
        }
        holdLease(name, System.currentTimeMillis() + 600_000, "client 999@gone 0badf00d: dropIndex 'by_code': DROPPING");
        long t0 = System.nanoTime();
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int user = 0; user < ROWS; user++) {
                puts.add(new Put(key(user)).addColumn(F, Q, Bytes.toBytes("v" + user)));
            }
            t.put(puts);
            assertEquals("v7", Bytes.toString(t.get(new Get(key(7))).getValue(F, Q)));
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        assertEquals(truth(name, 1, 3), users(table.scan(RowKeyQuery.on(schema).eq("code", 1).eq("day", 3).useIndex("by_code"))));
        assertEquals(ROWS / 4, table.aggregate(RowKeyQuery.on(schema).eq("code", 2), Aggregation.on(schema).count()).rows().get(0)
                .longValue(0));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("CatalogRaceIT: writes, a get, an index read and an aggregate beside a held lease: " + millis + " ms");
        assertTrue(millis < 60_000, "data reads and writes took " + millis + " ms");
        assertEquals("client 999@gone 0badf00d: dropIndex 'by_code': DROPPING", CatalogLock.describe(lease(name))
                .replaceAll(" until .*", ""), "the lease is still held");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHolderWhoseLeaseWasTakenOverChangesNothingAndLeavesTheNewLease() throws Exception {
        TableName name = TableName.valueOf("taken_over");
        CatalogLock mine = CatalogLock.acquire(connection(), name, "a test");
        mine.check(); // renewed: still its own
        byte[] other = CatalogLock.leaseValue(System.currentTimeMillis() + 60_000, "client 1@elsewhere 12345678: addIndex 'x'");
        try (Table locks = CatalogLock.lockTable(connection())) {
            locks.put(new Put(Bytes.toBytes("taken_over")).addColumn(CatalogLock.FAMILY, CatalogLock.LEASE, other));
        }
        IOException lost = assertThrows(IOException.class, mine::check);
        assertTrue(lost.getMessage().contains("was lost: it was taken over by client 1@elsewhere 12345678: addIndex 'x' until"),
                lost.getMessage());
        mine.close();
        assertArrayEquals(other, lease(name), "releasing a lost lease leaves the new holder's");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLeaseTakenWhereAReleaseLeftADeleteMarkerAsNewAsItIsHeld() throws Exception {
        // Regression: a release deletes the lease cell, and a put no newer than that delete marker
        // is hidden by it. A check-and-put in the same millisecond of the server's clock as the last
        // release "succeeded" without a lease being there, and the holder's next step failed with
        // "its row was deleted" (CatalogChangesIT, dropIndex followed at once by addIndex). A marker
        // 300 ms ahead of the clock makes that millisecond last 300 ms.
        TableName name = TableName.valueOf("masked_lease");
        long ahead;
        try (Table locks = CatalogLock.lockTable(connection())) {
            ahead = System.currentTimeMillis() + 300;
            locks.delete(new Delete(Bytes.toBytes(name.getNameAsString())).addColumns(CatalogLock.FAMILY, CatalogLock.LEASE,
                    ahead));
        }
        try (CatalogLock lease = CatalogLock.acquire(connection(), name, "a test")) {
            assertTrue(System.currentTimeMillis() > ahead, "taken only once its cell can be seen");
            lease.check();
            assertTrue(CatalogLock.describe(lease(name)).startsWith("client "), CatalogLock.describe(lease(name)));
        }
        assertEquals(null, lease(name), "released");
    }

    /** Writes a lease on {@code name}'s catalog by hand, as a client that then died would have left it. */
    private void holdLease(TableName name, long expiry, String holder) throws IOException {
        try (Table locks = CatalogLock.lockTable(connection())) {
            locks.put(new Put(Bytes.toBytes(name.getNameAsString())).addColumn(CatalogLock.FAMILY, CatalogLock.LEASE,
                    CatalogLock.leaseValue(expiry, holder)));
        }
    }

    private byte[] lease(TableName name) throws IOException {
        try (Table locks = CatalogLock.lockTable(connection())) {
            return locks.get(new Get(Bytes.toBytes(name.getNameAsString()))).getValue(CatalogLock.FAMILY, CatalogLock.LEASE);
        }
    }

    /**
     * One client on a connection of its own: {@value #ROUNDS} rounds of adding an index and dropping
     * it, then one index it keeps. Returns each change found lost or failed.
     */
    private List<String> addAndDrop(TableName name, int client) throws IOException {
        List<String> problems = new ArrayList<>();
        try (Connection own = ConnectionFactory.createConnection(conf())) {
            RowKeyTable table = RowKeyTable.open(own, name);
            for (int round = 0; round <= ROUNDS; round++) {
                String index = round == ROUNDS ? "c" + client + "_kept" : "c" + client + "_r" + round;
                try {
                    table.addIndex(RowKeyIndex.of(index, FIELDS[client]));
                } catch (IOException | RuntimeException e) {
                    problems.add("addIndex(" + index + ") failed: " + e);
                    continue;
                }
                if (!RowKeyTable.open(own, name).indexNames().contains(index)) {
                    problems.add("addIndex(" + index + ") lost");
                }
                if (round == ROUNDS) {
                    break;
                }
                try {
                    table.dropIndex(index);
                } catch (IOException | RuntimeException e) {
                    problems.add("dropIndex(" + index + ") failed: " + e);
                    continue;
                }
                if (RowKeyTable.open(own, name).indexNames().contains(index)) {
                    problems.add("dropIndex(" + index + ") undone");
                }
            }
        }
        return problems;
    }

    /** "ok" when a row can be written and read back, else the error. */
    private String writeAndRead(TableName name) {
        try (Table t = connection().getTable(name)) {
            t.put(new Put(key(ROWS)).addColumn(F, Q, Bytes.toBytes("new")));
            return Bytes.toString(t.get(new Get(key(ROWS))).getValue(F, Q)).equals("new") ? "ok"
                    : "read back another value";
        } catch (IOException | RuntimeException e) {
            return "failed: " + e.toString().split("\n")[0];
        }
    }

    private TreeSet<Integer> truth(TableName name, int code, int day) throws IOException {
        TreeSet<Integer> users = new TreeSet<>();
        try (Table t = connection().getTable(name); ResultScanner rows = t.getScanner(new Scan())) {
            for (Result r : rows) {
                java.util.Map<String, Object> row = schema.decode(r.getRow());
                if (((Number) row.get("code")).intValue() == code && ((Number) row.get("day")).intValue() == day) {
                    users.add(((Number) row.get("user")).intValue());
                }
            }
        }
        assertTrue(!users.isEmpty(), "some rows match");
        return users;
    }

    private TreeSet<Integer> users(ResultScanner scanner) throws IOException {
        TreeSet<Integer> users = new TreeSet<>();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                users.add(((Number) schema.decode(r.getRow()).get("user")).intValue());
            }
        }
        return users;
    }
}
