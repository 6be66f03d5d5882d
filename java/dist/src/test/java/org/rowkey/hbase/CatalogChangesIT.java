package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.codahale.metrics.Counter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ClusterConnection;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.MetricsConnection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Regressions of a {@link RowKeyTable} whose catalog another client changed after it was opened
 * (issue 34): an index dropped and added again under the same name on other fields (0 rows and a
 * count of 0 where the answer was 75, before the fix), an index dropped (its aggregate failed with
 * TableNotFoundException), and a family TTL set by {@code alter} (covered reads answered rows whose
 * cells had expired). Each answer is checked against a plain scan of the data table.
 */
class CatalogChangesIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");
    private static final int ROWS = 300;

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();

    private RowKeyTable create(String table, long[] timestamps, RowKeyIndex... indexes) throws IOException {
        return create(table, ROWS, timestamps, indexes);
    }

    private RowKeyTable create(String table, int rows, long[] timestamps, RowKeyIndex... indexes) throws IOException {
        TableName name = TableName.valueOf(table);
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(indexes), F);
        }
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int user = 0; user < rows; user++) {
                puts.add(new Put(schema.encode(TestData.map("user", user, "code", user % 4, "day", user % 7)))
                        .addColumn(F, Q, timestamps[user % timestamps.length], Bytes.toBytes("v" + user)));
            }
            t.put(puts);
        }
        return RowKeyTable.open(connection(), name);
    }

    /** The users of the data table's rows with {@code field = value}, read with a plain scan. */
    private TreeSet<Integer> truth(String table, String field, int value) throws IOException {
        TreeSet<Integer> users = new TreeSet<>();
        try (Table t = connection().getTable(TableName.valueOf(table)); ResultScanner rows = t.getScanner(new Scan())) {
            for (Result r : rows) {
                java.util.Map<String, Object> row = schema.decode(r.getRow());
                if (((Number) row.get(field)).intValue() == value) {
                    users.add(((Number) row.get("user")).intValue());
                }
            }
        }
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

    private long count(RowKeyTable table, RowKeyQuery query) throws IOException {
        return table.aggregate(query, Aggregation.on(schema).count()).rows().get(0).longValue(0);
    }

    @Test
    void anIndexAnotherClientReplacedIsNeverReadAsTheOneItReplaced() throws IOException {
        RowKeyTable stale = create("replaced_index", new long[] {HConstants.LATEST_TIMESTAMP}, RowKeyIndex.of("by_code", "code"));
        RowKeyTable other = RowKeyTable.open(connection(), TableName.valueOf("replaced_index"));
        other.dropIndex("by_code");
        other.addIndex(RowKeyIndex.of("by_code", "day"));
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 1);
        TreeSet<Integer> expected = truth("replaced_index", "code", 1);
        assertEquals(ROWS / 4, expected.size());
        assertEquals(expected, users(stale.scan(query)));
        assertEquals(expected.size(), count(stale, query));
        assertEquals(truth("replaced_index", "day", 3), users(stale.scan(RowKeyQuery.on(schema).eq("day", 3))));
    }

    @Test
    void aClientThatReadTheCatalogBeforeAnIndexWasActiveReadsItByNameOnceItIs() throws Exception {
        // Found by OracleIT's index changes during reads: a client whose catalog had the index
        // BUILDING (read while another client built it) refused every query naming it ("still
        // BUILDING") after it was ACTIVE, as did one opened before the index was added ("no index of
        // this name"), until opened again.
        TableName name = TableName.valueOf("named_once_active");
        RowKeyTable before = create(name.getNameAsString(), new long[] {HConstants.LATEST_TIMESTAMP});
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread adding = new Thread(() -> {
            try {
                RowKeyTable.open(connection(), name).addIndex(RowKeyIndex.of("by_code", "code"));
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        adding.start();
        RowKeyTable whileBuilding = null;
        while (whileBuilding == null && adding.isAlive()) {
            Catalog catalog = OracleWrites.catalog(connection(), name);
            int at = catalog.indexNumber("by_code");
            if (at >= 0 && catalog.indexes().get(at).getState() == org.rowkey.hbase.proto.RowKeyProtos.IndexState.BUILDING) {
                whileBuilding = RowKeyTable.open(connection(), name);
            }
            Thread.sleep(5);
        }
        adding.join();
        assertEquals(null, failed.get());
        assertTrue(whileBuilding != null, "the index was never seen BUILDING");
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 1).useIndex("by_code");
        TreeSet<Integer> expected = truth(name.getNameAsString(), "code", 1);
        assertEquals(ROWS / 4, expected.size());
        for (RowKeyTable client : new RowKeyTable[] {whileBuilding, before}) {
            assertTrue(client.explain(query).contains("INDEX by_code"), client.explain(query));
            assertEquals(expected, users(client.scan(query)));
            assertEquals(expected.size(), count(client, query));
        }
    }

    @Test
    void theIndexRowsAReadStartedBeforeItsCatalogCheckAreThrownAwayWhenTheIndexWasReplaced() throws IOException {
        // A salted index's buckets are regions read at once: the stale object's read starts them in the
        // pool while it asks the master, meets the new index's table under the same name, and throws
        // those rows away once the catalog says the index changed. Covered (keys only) and not.
        RowKeyTable stale = create("replaced_salted_index", new long[] {HConstants.LATEST_TIMESTAMP},
                RowKeyIndex.of("by_code", "code").salt(4));
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 1);
        assertTrue(stale.explain(query).contains("parallel 4-way"), stale.explain(query));
        RowKeyTable staleKeysOnly = RowKeyTable.open(connection(), TableName.valueOf("replaced_salted_index"));
        RowKeyTable other = RowKeyTable.open(connection(), TableName.valueOf("replaced_salted_index"));
        other.dropIndex("by_code");
        other.addIndex(RowKeyIndex.of("by_code", "day").salt(4));
        TreeSet<Integer> expected = truth("replaced_salted_index", "code", 1);
        assertEquals(expected, users(stale.scan(query)));
        assertEquals(expected, users(staleKeysOnly.scan(RowKeyQuery.on(schema).eq("code", 1).keysOnly())));
    }

    @Test
    void aLimitedJoinThroughAnIndexAnotherClientReplacedIsNeverReadAsTheOneItReplaced() throws IOException {
        // A limit is read by joins of key streams; the catalog check is skipped only for streams of
        // the data table alone, never for an index's.
        RowKeyTable stale = create("replaced_under_limit", new long[] {HConstants.LATEST_TIMESTAMP}, RowKeyIndex.of("by_code", "code"));
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 1).limit(10);
        String explain = stale.explain(query);
        assertTrue(explain.contains("\nJOIN") && explain.contains("by_code"), explain);
        RowKeyTable other = RowKeyTable.open(connection(), TableName.valueOf("replaced_under_limit"));
        other.dropIndex("by_code");
        other.addIndex(RowKeyIndex.of("by_code", "day"));
        List<Integer> truth = new ArrayList<>(truth("replaced_under_limit", "code", 1));
        assertEquals(new TreeSet<>(truth.subList(0, 10)), users(stale.scan(query)));
        assertEquals(new TreeSet<>(truth.subList(truth.size() - 10, truth.size())),
                users(stale.scan(RowKeyQuery.on(schema).eq("code", 1).reversed().limit(10))));
    }

    @Test
    void aReadOfTheDataTableAloneAsksTheMasterNothingAReadOfAnIndexAsksTwice() throws IOException {
        // Regression: a limit on a query no index serves is a join of data-table streams; it asked
        // the master for the descriptor before and after its read as an index read must (4 round
        // trips: 2-3x the cost of its whole query on small reads).
        create("catalog_calls", new long[] {HConstants.LATEST_TIMESTAMP}, RowKeyIndex.of("by_code", "code"));
        Configuration counted = new Configuration(conf());
        counted.setBoolean(MetricsConnection.CLIENT_SIDE_METRICS_ENABLED_KEY, true);
        try (Connection reader = ConnectionFactory.createConnection(counted)) {
            RowKeyTable table = RowKeyTable.open(reader, TableName.valueOf("catalog_calls"));
            // Reversed: a forward limit on the data table alone is its single read, not a join.
            RowKeyQuery dataOnly = RowKeyQuery.on(schema).eq("day", 3).reversed().limit(10);
            RowKeyQuery throughIndex = RowKeyQuery.on(schema).eq("code", 3).limit(10);
            assertTrue(table.explain(dataOnly).contains("\nJOIN") && !table.explain(dataOnly).contains("by_code"), table.explain(dataOnly));
            long before = descriptorCalls(reader);
            List<Integer> days = new ArrayList<>(truth("catalog_calls", "day", 3));
            assertEquals(new TreeSet<>(days.subList(days.size() - 10, days.size())), users(table.scan(dataOnly)));
            assertEquals(0, descriptorCalls(reader) - before, "descriptors asked for by a read of the data table alone");
            before = descriptorCalls(reader);
            assertEquals(new TreeSet<>(new ArrayList<>(truth("catalog_calls", "code", 3)).subList(0, 10)), users(table.scan(throughIndex)));
            assertEquals(2, descriptorCalls(reader) - before, "descriptors asked for by a read of an index (the catalog before and after)");
        }
    }

    /**
     * The descriptors {@code connection} asked the master for so far (its client metrics must be on).
     * Each is two round trips: HBase's connection asks whether the master runs before every call.
     */
    private static long descriptorCalls(Connection connection) {
        long calls = 0;
        for (Map.Entry<String, Counter> c : ((ClusterConnection) connection).getConnectionMetrics().getRpcCounters().entrySet()) {
            if (c.getKey().endsWith("MasterService_GetTableDescriptors")) {
                calls += c.getValue().getCount();
            }
        }
        return calls;
    }

    /** What a scan of an index answered across a change of the catalog: its users, and how it ended. */
    private static final class AcrossAChange {
        final TreeSet<Integer> expected;
        final TreeSet<Integer> got = new TreeSet<>();
        IOException failure;
        /** The descriptors the scan asked the master for (before it failed, if it did). */
        long descriptorCalls;

        AcrossAChange(TreeSet<Integer> expected) {
            this.expected = expected;
        }

        void assertExactOrFailed(String what) {
            System.out.println("CatalogChangesIT: a scan " + what + ": " + got.size() + " of " + expected.size() + " rows, "
                    + (failure == null ? "no error" : failure.toString()));
            assertTrue(failure != null || got.equals(expected), "the scan answered " + got.size() + " rows of "
                    + expected.size() + " with no error");
        }
    }

    /**
     * {@code code = 1} on table {@code table} (24,000 rows, by_code(code)) read serially through the
     * index, on a connection whose scans fetch 5 rows a round trip; {@code change} runs after its
     * first 10 rows, then the scan reads on. 6,000 rows of code 1: more than the two batches of index
     * rows a read holds (IndexResultScanner, 1,024 each), so the read goes back to the index after it.
     */
    private AcrossAChange scanAcross(String table, IoRunnable change) throws IOException {
        return scanAcross(table, RowKeyIndex.of("by_code", "code"), true, false, change);
    }

    /**
     * {@link #scanAcross(String, IoRunnable)} through {@code index}, its regions read at once unless
     * {@code serial}, in descending key order when {@code reversed}.
     */
    private AcrossAChange scanAcross(String table, RowKeyIndex index, boolean serial, boolean reversed, IoRunnable change)
            throws IOException {
        create(table, 24_000, new long[] {HConstants.LATEST_TIMESTAMP}, index);
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 1);
        if (serial) {
            query.serial();
        }
        if (reversed) {
            query.reversed();
        }
        AcrossAChange read = new AcrossAChange(truth(table, "code", 1));
        Configuration smallTurns = new Configuration(conf());
        smallTurns.setInt(HConstants.HBASE_CLIENT_SCANNER_CACHING, 5);
        smallTurns.setBoolean(MetricsConnection.CLIENT_SIDE_METRICS_ENABLED_KEY, true);
        try (Connection reader = ConnectionFactory.createConnection(smallTurns)) {
            RowKeyTable rows = RowKeyTable.open(reader, TableName.valueOf(table));
            String explain = rows.explain(query);
            assertTrue(explain.contains("by_code") && (serial || explain.contains("parallel 4-way")), explain);
            long before = descriptorCalls(reader);
            try (ResultScanner scanner = rows.scan(query)) {
                for (int i = 0; i < 10; i++) {
                    read.got.add(((Number) schema.decode(scanner.next().getRow()).get("user")).intValue());
                }
                change.run();
                for (Result r = scanner.next(); r != null; r = scanner.next()) {
                    read.got.add(((Number) schema.decode(r.getRow()).get("user")).intValue());
                }
            } catch (IOException e) {
                read.failure = e;
            }
            read.descriptorCalls = descriptorCalls(reader) - before;
            if (read.failure instanceof IndexChangedException) {
                // Read again, it answers from the catalog as it is now, exactly.
                assertEquals(read.expected, users(rows.scan(query)));
                assertEquals(read.expected.size(), count(rows, RowKeyQuery.on(schema).eq("code", 1))); // aggregates read forward
            }
        }
        return read;
    }

    private interface IoRunnable {
        void run() throws IOException;
    }

    @Test
    void anIndexDroppedAndAddedAgainWhileAScanReadsItFailsTheScanInsteadOfAnsweringFromTheNewOne() throws IOException {
        // Regression (issue 34): a read planned on by_code(code) went on into the new by_code(day)
        // after the swap, and answered from its rows without an error.
        TableName name = TableName.valueOf("swapped_mid_read");
        AcrossAChange read = scanAcross("swapped_mid_read", () -> {
            RowKeyTable other = RowKeyTable.open(connection(), name);
            other.dropIndex("by_code");
            other.addIndex(RowKeyIndex.of("by_code", "day"));
        });
        read.assertExactOrFailed("across a drop and re-add of its index");
        // The read meets the new index's rows here, so it fails.
        assertTrue(read.failure instanceof IndexChangedException, String.valueOf(read.failure));
        assertTrue(read.failure.getMessage().contains("'by_code'"), read.failure.getMessage());
    }

    @Test
    void aScanThatResumesInAnIndexTableMadeAgainBeforeTheCatalogNamesItFailsInsteadOfMissingRows() throws IOException {
        // Regression: addIndex makes the index's table before its catalog names it (BUILDING). A read
        // of the dropped index whose scanner resumed in the new, empty table in that window, and ended
        // there, found the index absent from the catalog and took it for a plain drop: it answered
        // the rows of its first round trips alone (2,054 of 6,000), with no error.
        TableName name = TableName.valueOf("remade_mid_read");
        AcrossAChange read = scanAcross("remade_mid_read", () -> {
            RowKeyTable.open(connection(), name).dropIndex("by_code");
            // addIndex's first step, as another client's addIndex takes it: the table, not yet in the catalog.
            try (Admin admin = connection().getAdmin()) {
                admin.createTable(TableDescriptorBuilder.newBuilder(IndexRowFormat.indexTableName(name, "by_code"))
                        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(IndexRowFormat.FAMILY)).build());
            }
        });
        read.assertExactOrFailed("that resumed in a remade index table");
        assertTrue(read.failure == null || read.failure instanceof IndexChangedException, String.valueOf(read.failure));
    }

    @Test
    void aParallelScanChecksTheCatalogOnlyOnceItsLastIndexRowIsRead() throws IOException {
        // The end's check runs on the pool thread that reads a parallel read's last index row, while
        // the rows before it are still answered: run earlier, it would pass before the change, and
        // the scan resumed in the remade table would answer part of its rows with no error. Forward
        // (one read of the buckets' regions) and reversed (each bucket read backwards, merged).
        for (boolean reversed : new boolean[] {false, true}) {
            String table = reversed ? "remade_mid_reversed_read" : "remade_mid_parallel_read";
            TableName name = TableName.valueOf(table);
            AcrossAChange read = scanAcross(table, RowKeyIndex.of("by_code", "code").salt(4), false, reversed, () -> {
                RowKeyTable.open(connection(), name).dropIndex("by_code");
                try (Admin admin = connection().getAdmin()) {
                    admin.createTable(TableDescriptorBuilder.newBuilder(IndexRowFormat.indexTableName(name, "by_code"))
                            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(IndexRowFormat.FAMILY)).build());
                }
            });
            read.assertExactOrFailed((reversed ? "reversed" : "forward") + ", read at once, that resumed in a remade index table");
            assertTrue(read.failure instanceof IndexChangedException, String.valueOf(read.failure));
        }
    }

    @Test
    void aReadAtOnceAsksTheMasterAgainAfterItsRowsOnlyWhenItReadARegionItWasNotCutAt() throws IOException {
        // The check before the rows vouches for the index regions the read's chunks were cut at
        // before it: a table made again under the index's name after it has none of them. A read
        // that read only those needs no check after its rows (one descriptor: the check before);
        // one that resumed in a region cut at none of them (here a daughter of a split, as it would
        // be a region of a table made again) checks after its rows too. Forward and reversed (each
        // bucket read backwards, merged). An HBase client that does not name the regions a scan
        // read (before 2.6.3) always checks after.
        for (boolean reversed : new boolean[] {false, true}) {
            String table = reversed ? "regions_stayed_reversed" : "regions_stayed";
            AcrossAChange still = scanAcross(table, RowKeyIndex.of("by_code", "code").salt(4), false, reversed, () -> { });
            assertNull(still.failure, String.valueOf(still.failure));
            assertEquals(still.expected, still.got);
            assertEquals(ParallelScanner.REGIONS_NAMED ? 1 : 2, still.descriptorCalls, table + ": descriptors asked for");

            String splitTable = reversed ? "regions_split_reversed" : "regions_split";
            TableName index = IndexRowFormat.indexTableName(TableName.valueOf(splitTable), "by_code");
            AcrossAChange split = scanAcross(splitTable, RowKeyIndex.of("by_code", "code").salt(4), false, reversed,
                    () -> splitEveryRegion(index));
            assertNull(split.failure, String.valueOf(split.failure));
            assertEquals(split.expected, split.got);
            assertEquals(2, split.descriptorCalls, splitTable + ": descriptors asked for by a read that resumed in daughters");
        }
    }

    /**
     * Splits every region of {@code table} (flushed first: a region holding no file has no split
     * point) and waits for the daughters.
     */
    private void splitEveryRegion(TableName table) throws IOException {
        try (Admin admin = connection().getAdmin()) {
            int regions = admin.getRegions(table).size();
            admin.flush(table);
            admin.split(table);
            long deadline = System.currentTimeMillis() + 60_000;
            while (admin.getRegions(table).size() < 2 * regions) {
                assertTrue(System.currentTimeMillis() < deadline, table + " did not split: " + admin.getRegions(table));
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException();
                }
            }
        }
    }

    @Test
    void aScanThatReturnedNoRowWhenItsIndexChangedPlansAgainInsteadOfFailing() throws IOException {
        // Nothing handed over yet: the end's catalog check reads again from the fresh catalog.
        RowKeyTable table = create("swapped_before_a_row", new long[] {HConstants.LATEST_TIMESTAMP},
                RowKeyIndex.of("by_code", "code"));
        RowKeyQuery none = RowKeyQuery.on(schema).eq("code", 99);
        assertTrue(table.explain(none).contains("by_code"), table.explain(none));
        try (ResultScanner scanner = table.scan(none)) { // planned on by_code(code); HBase reads on the first next()
            RowKeyTable other = RowKeyTable.open(connection(), TableName.valueOf("swapped_before_a_row"));
            other.dropIndex("by_code");
            other.addIndex(RowKeyIndex.of("by_code", "day"));
            assertEquals(null, scanner.next());
        }
        assertEquals(new TreeSet<Integer>(), users(table.scan(none)));
    }

    @Test
    void indexChangesOfAnotherClientSurviveThisOnesOwn() throws IOException {
        // Regression (issue 35): addIndex and dropIndex rebuilt the catalog from this object's copy,
        // so another client's index added since was lost from the catalog (its table left behind).
        RowKeyTable one = create("two_clients", new long[] {HConstants.LATEST_TIMESTAMP}, RowKeyIndex.of("by_code", "code"));
        RowKeyTable other = RowKeyTable.open(connection(), TableName.valueOf("two_clients"));
        other.addIndex(RowKeyIndex.of("by_day", "day"));
        one.addIndex(RowKeyIndex.of("by_day_code", "day", "code"));
        one.dropIndex("by_code");
        assertEquals(Arrays.asList("by_day", "by_day_code"),
                RowKeyTable.open(connection(), TableName.valueOf("two_clients")).indexNames());
        assertEquals(truth("two_clients", "day", 2), users(other.scan(RowKeyQuery.on(schema).eq("day", 2).useIndex("by_day"))));
    }

    @Test
    void anIndexAnotherClientDroppedIsNotAggregated() throws IOException {
        RowKeyTable stale = create("dropped_index", new long[] {HConstants.LATEST_TIMESTAMP}, RowKeyIndex.of("by_code", "code"));
        RowKeyTable.open(connection(), TableName.valueOf("dropped_index")).dropIndex("by_code");
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 2);
        assertEquals(truth("dropped_index", "code", 2).size(), count(stale, query));
        assertEquals(truth("dropped_index", "code", 2), users(stale.scan(query)));
    }

    @Test
    void aFamilyTtlSetAfterOpeningIsHonouredByCoveredReadsAndAggregates() throws IOException {
        long now = System.currentTimeMillis();
        // A third of the rows written two hours ago: a TTL of one hour hides them.
        RowKeyTable stale = create("ttl_after_open", new long[] {now, now - 7_200_000L, now},
                RowKeyIndex.of("by_code", "code").include("f", "q"));
        RowKeyQuery covered = RowKeyQuery.on(schema).eq("code", 3).select(F, Q);
        assertEquals(truth("ttl_after_open", "code", 3), users(stale.scan(covered)));
        try (Admin admin = connection().getAdmin()) {
            TableName name = TableName.valueOf("ttl_after_open");
            admin.modifyColumnFamily(name, ColumnFamilyDescriptorBuilder.newBuilder(admin.getDescriptor(name).getColumnFamily(F))
                    .setTimeToLive(3600).build());
        }
        TreeSet<Integer> expected = truth("ttl_after_open", "code", 3);
        assertEquals(ROWS / 4 - ROWS / 4 / 3, expected.size(), "the TTL hides a third of the rows");
        assertEquals(expected, users(stale.scan(covered)));
        assertEquals(expected, users(stale.scan(RowKeyQuery.on(schema).eq("code", 3).keysOnly())));
        assertEquals(expected.size(), count(stale, RowKeyQuery.on(schema).eq("code", 3)));
    }
}
