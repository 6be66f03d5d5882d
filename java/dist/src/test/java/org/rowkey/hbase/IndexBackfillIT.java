package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An index added to a loaded table: the MapReduce backfill (LocalJobRunner) runs while writers keep
 * writing; afterwards queries through the index equal the data table's full scan, one index row
 * per data row; dropping it removes it. And a table whose catalog is corrupt: its regions still open,
 * writes fail naming the catalog, reads work, the RegionServer keeps serving.
 */
class IndexBackfillIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] Q = Bytes.toBytes("q");

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("group").int32("day").build();

    private byte[] key(int user) {
        return schema.encode(TestData.map("user", user, "group", user % 13, "day", user % 31));
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void anIndexAddedToALoadedTableIsFilledWhileWritesGoOnThenDropped() throws Exception {
        TableName name = TableName.valueOf("backfill");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.<RowKeyIndex>emptyList(), F);
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int user = 0; user < 30_000; user++) {
                batch.add(new Put(key(user)).addColumn(F, Q, Bytes.toBytes(user)));
            }
            t.put(batch);
        }
        // Writers go on during the backfill: new rows and deletes.
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Integer> writer = pool.submit(() -> {
            Random random = new Random(5);
            int writes = 0;
            try (Table t = connection().getTable(name)) {
                while (!stop.get()) {
                    int user = random.nextInt(40_000);
                    if (random.nextInt(3) == 0) {
                        t.delete(new Delete(key(user)));
                    } else {
                        t.put(new Put(key(user)).addColumn(F, Q, Bytes.toBytes(-user)));
                    }
                    writes++;
                }
            }
            return writes;
        });
        List<Double> progress = Collections.synchronizedList(new ArrayList<Double>());
        long t0 = System.nanoTime();
        table.addIndex(RowKeyIndex.of("by_group_day", "group", "day").salt(3).include("f"), progress::add);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        stop.set(true);
        int writes = writer.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        System.out.println("IndexBackfillIT: index of 30,000 rows added in " + ms + " ms beside " + writes
                + " live writes; progress reports " + progress);
        assertFalse(progress.isEmpty());
        assertEquals(1.0, progress.get(progress.size() - 1), 0.0);
        assertTrue(table.indexNames().contains("by_group_day"));

        // Through the index (this RowKeyTable and a newly opened one): the data table's rows.
        RowKeyTable reopened = RowKeyTable.open(connection(), name);
        for (int group = 0; group < 13; group += 4) {
            RowKeyQuery query = RowKeyQuery.on(schema).eq("group", group).between("day", 3, 20);
            TreeSet<String> fullScan = keys(reopened.scan(RowKeyQuery.on(schema).eq("group", group).between("day", 3, 20).noIndex()));
            assertEquals(fullScan, keys(reopened.scan(query.useIndex("by_group_day"))), "group " + group);
            assertTrue(reopened.explain(RowKeyQuery.on(schema).eq("group", group)).contains("INDEX by_group_day"));
        }
        assertIndexRowsStandForDataRows(name, "by_group_day");
        // It covers family f, the table's only one: every column from the index alone, as the data table has it.
        RowKeyQuery every = RowKeyQuery.on(schema).eq("group", 5).between("day", 3, 20);
        assertTrue(reopened.explain(every).contains("covered"), reopened.explain(every));
        try (ResultScanner viaIndex = reopened.scan(every)) {
            assertEquals(cells(reopened.scan(RowKeyQuery.on(schema).eq("group", 5).between("day", 3, 20).noIndex())),
                    cells(viaIndex));
            assertEquals(0, viaIndex.getScanMetrics().getCounter(RowKeyTable.DATA_ROWS_READ_METRIC).get());
        }

        table.dropIndex("by_group_day");
        try (Admin admin = connection().getAdmin()) {
            assertFalse(admin.tableExists(RowKeyTable.indexTableName(name, "by_group_day")));
        }
        RowKeyTable dropped = RowKeyTable.open(connection(), name);
        IllegalArgumentException gone = assertThrows(IllegalArgumentException.class,
                () -> dropped.scan(RowKeyQuery.on(schema).eq("group", 1).useIndex("by_group_day")));
        assertTrue(gone.getMessage().contains("has no index of this name"), gone.getMessage());
        // Writes go on without the index.
        try (Table t = connection().getTable(name)) {
            t.put(new Put(key(99_999)).addColumn(F, Q, Bytes.toBytes(1)));
        }
        // A RowKeyTable opened before the drop plans the index, reads the catalog again before it reads
        // an index, and answers from the data table: never rows of an index no longer maintained.
        RowKeyQuery byGroup = RowKeyQuery.on(schema).eq("group", 1).between("day", 3, 20);
        assertEquals(keys(dropped.scan(RowKeyQuery.on(schema).eq("group", 1).between("day", 3, 20).noIndex())),
                keys(reopened.scan(byGroup)));
        assertFalse(reopened.explain(byGroup).contains("by_group_day"), "it has read the catalog again");
        assertThrows(IllegalArgumentException.class, () -> table.dropIndex("by_group_day"));
    }

    /** Row key -> its cells (qualifier, value, timestamp), of every row a scanner returns. */
    private static Map<String, String> cells(ResultScanner scanner) throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (Result r : scanner) {
            StringBuilder cells = new StringBuilder();
            for (Cell c : r.rawCells()) {
                cells.append(Bytes.toString(CellUtil.cloneQualifier(c))).append('=')
                        .append(Bytes.toHex(CellUtil.cloneValue(c))).append('@').append(c.getTimestamp()).append(' ');
            }
            out.put(Bytes.toHex(r.getRow()), cells.toString());
        }
        assertFalse(out.isEmpty());
        return out;
    }

    /**
     * One index row for every data row, and no VERIFIED one for a row that is gone. An index row of
     * a gone row may stay UNVERIFIED (readers skip it): a write whose region was closing (the
     * catalog change reopens the regions) cannot read its row back, and leaves its mark.
     */
    private void assertIndexRowsStandForDataRows(TableName name, String index) throws IOException {
        Catalog catalog;
        try (Admin admin = connection().getAdmin()) {
            catalog = Catalog.parse(admin.getDescriptor(name).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        }
        int number = catalog.indexNumber(index);
        java.util.Set<String> data = new java.util.HashSet<>();
        try (Table t = connection().getTable(name); ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                data.add(Bytes.toHex(r.getRow()));
            }
        }
        java.util.Set<String> indexed = new java.util.HashSet<>();
        int marksOfGoneRows = 0;
        try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index)); ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                String dataKey = Bytes.toHex(catalog.dataKey(number, r.getRow()));
                if (data.contains(dataKey)) {
                    indexed.add(dataKey);
                } else {
                    assertFalse(IndexRowFormat.isStatus(IndexRowFormat.status(r), IndexRowFormat.VERIFIED),
                            "a VERIFIED index row of a gone data row: " + r);
                    marksOfGoneRows++;
                }
            }
        }
        assertEquals(data, indexed, "index rows of the data rows");
        System.out.println("IndexBackfillIT: " + data.size() + " data rows, each with its index row; "
                + marksOfGoneRows + " UNVERIFIED index rows of gone rows");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aCorruptCatalogRefusesWritesByNameWithoutTakingTheServerDown() throws Exception {
        TableName name = TableName.valueOf("corrupt_catalog");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.singletonList(RowKeyIndex.of("by_day", "day")), F);
            try (Table t = connection().getTable(name)) {
                t.put(new Put(key(1)).addColumn(F, Q, Bytes.toBytes(1)));
            }
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY), new byte[] {0x12, 0x7f, 0x01})
                    .build());
            assertTrue(admin.isTableAvailable(name), "the regions opened despite the corrupt catalog");
        }
        try (Table t = connection().getTable(name)) {
            IOException refused = assertThrows(IOException.class,
                    () -> t.put(new Put(key(2)).addColumn(F, Q, Bytes.toBytes(2))));
            assertTrue(causes(refused, DoNotRetryIOException.class), String.valueOf(refused));
            assertTrue(String.valueOf(refused).contains("index catalog of table"), String.valueOf(refused));
            assertEquals(1, keys(t.getScanner(new Scan())).size(), "reads still work");
        }
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class,
                () -> RowKeyTable.open(connection(), name));
        assertTrue(open.getMessage().contains("catalog is unreadable"), open.getMessage());
        // The RegionServer keeps serving other tables.
        TableName other = createTable("still_serving");
        try (Table t = connection().getTable(other)) {
            t.put(new Put(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(1)));
            assertEquals(1, keys(t.getScanner(new Scan())).size());
        }
        // A coprocessor descriptor that names our observer on a table with no catalog at all: the same.
        TableName bare = createTable("no_catalog");
        try (Admin admin = connection().getAdmin()) {
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(bare))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(RowKeyIndexObserver.class.getName()).build())
                    .build());
        }
        try (Table t = connection().getTable(bare)) {
            IOException refused = assertThrows(IOException.class,
                    () -> t.put(new Put(Bytes.toBytes("r")).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(1))));
            assertTrue(String.valueOf(refused).contains("index catalog of table"), String.valueOf(refused));
        }
    }

    private static boolean causes(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return String.valueOf(e).contains(type.getSimpleName());
    }
}
