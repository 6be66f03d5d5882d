package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 34): cells written with a TTL of their own ({@code Put.setTTL}) expire in the
 * data table, and an index row that copied them must not outlive them. Before the fix, 3 s after
 * the TTL a covered read answered rows and values the data table no longer had, and counts through
 * the index were too high. Every read through the index is checked against a plain scan.
 */
class CellTtlIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] URL = Bytes.toBytes("url");
    private static final byte[] N = Bytes.toBytes("n");

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").build();

    @Test
    void indexRowsDoNotOutliveCellsThatExpire() throws Exception {
        TableName name = TableName.valueOf("cell_ttl");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_code", "code").include("f", "url")), F);
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int user = 0; user < 40; user++) {
                Put put = new Put(schema.encode(TestData.map("user", user, "code", user % 2)));
                switch (user % 4) {
                    case 0: // the whole row expires
                        put.addColumn(F, URL, Bytes.toBytes("gone" + user)).addColumn(F, N, Bytes.toBytes(1L)).setTTL(1_000);
                        break;
                    case 1: // the covered cell expires, the row stays
                        t.put(new Put(put.getRow()).addColumn(F, N, Bytes.toBytes(2L)));
                        put.addColumn(F, URL, Bytes.toBytes("gone" + user)).setTTL(1_000);
                        break;
                    default: // nothing expires
                        put.addColumn(F, URL, Bytes.toBytes("kept" + user)).addColumn(F, N, Bytes.toBytes(3L));
                }
                puts.add(put);
            }
            t.put(puts);
        }
        Thread.sleep(3_000);
        assertEquals(30, truth(name, 0).size() + truth(name, 1).size(), "the rows whose every cell had a TTL expired");
        assertTrue(truth(name, 1).containsValue(""), "rows whose url alone expired stay");
        for (int code = 0; code < 2; code++) {
            Map<String, String> truth = truth(name, code);
            RowKeyQuery query = RowKeyQuery.on(schema).eq("code", code).useIndex("by_code");
            Map<String, String> withUrl = new TreeMap<>(truth);
            withUrl.values().removeIf(String::isEmpty); // a read of url alone returns only rows that have one
            assertEquals(withUrl, read(table.scan(query.select(F, URL))), "covered read of code " + code);
            assertEquals(truth.keySet(), read(table.scan(query.keysOnly())).keySet(), "keys-only read of code " + code);
            assertEquals((long) truth.size(), table.aggregate(query, Aggregation.on(schema).count()).rows().get(0).value(0));
            assertEquals(truth.keySet(), read(table.scan(query)).keySet(), "uncovered read of code " + code);
        }
    }

    /**
     * Regression: a reader repaired an UNVERIFIED index row (its write's post step lost) whose data
     * row has an older covered cell with a TTL of its own as VERIFIED, since a client's read does
     * not see TTL tags; once the cell expired, covered reads answered it. Now the data region's
     * probe tells the reader, which repairs the row EXPIRING.
     */
    @Test
    void aRepairOfARowWithACellTtlIsExpiringNotVerified() throws Exception {
        TableName name = TableName.valueOf("cell_ttl_repair");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_code", "code").include("f", "url")), F);
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        try (Table t = connection().getTable(name)) {
            for (int user = 0; user < 10; user++) {
                byte[] key = schema.encode(TestData.map("user", user, "code", 0));
                t.put(new Put(key).addColumn(F, URL, Bytes.toBytes("gone" + user)).setTTL(4_000));
                t.put(new Put(key).addColumn(F, N, Bytes.toBytes(3L))); // written again, without a TTL
            }
        }
        int marked = markUnverified(name, "by_code"); // as the lost post steps leave them
        assertEquals(10, marked);
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 0).useIndex("by_code").select(F, URL);
        assertEquals(truth(name, 0), read(table.scan(query)), "the read that repairs");
        assertEquals(java.util.Collections.nCopies(10, (int) IndexRowFormat.EXPIRING), statuses(name, "by_code"), "statuses after the repair");
        Thread.sleep(5_000);
        Map<String, String> withUrl = new TreeMap<>(truth(name, 0));
        withUrl.values().removeIf(String::isEmpty);
        assertEquals(withUrl, read(table.scan(query)), "covered read after the url expired");
    }

    /**
     * Regression: the backfill of a new index copied rows with cells of their own TTL VERIFIED (a
     * MapReduce scan does not see TTL tags); once the cells expired, covered reads through the new
     * index answered them. Now its scan is probed, and such rows are copied EXPIRING.
     */
    @Test
    void aBackfillCopiesRowsWithCellTtlsExpiring() throws Exception {
        TableName name = TableName.valueOf("cell_ttl_backfill");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, new ArrayList<>(), F);
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        long ttl = 20_000; // longer than the backfill job takes to read the rows
        long written = System.currentTimeMillis();
        try (Table t = connection().getTable(name)) {
            for (int user = 0; user < 20; user++) {
                Put put = new Put(schema.encode(TestData.map("user", user, "code", 0))).addColumn(F, N, Bytes.toBytes(1L));
                put.addColumn(F, URL, Bytes.toBytes((user % 2 == 0 ? "gone" : "kept") + user));
                t.put(user % 2 == 0 ? put.setTTL(ttl) : put);
            }
        }
        table.addIndex(RowKeyIndex.of("by_code", "code").include("f", "url"));
        assertTrue(System.currentTimeMillis() - written < ttl, "the TTL passed before the backfill read the rows");
        List<Integer> statuses = statuses(name, "by_code");
        assertEquals(20, statuses.size());
        assertEquals(10, statuses.stream().filter(s -> s == IndexRowFormat.EXPIRING).count(), "EXPIRING copies: " + statuses);
        Thread.sleep(Math.max(0, written + ttl + 1_000 - System.currentTimeMillis()));
        RowKeyQuery query = RowKeyQuery.on(schema).eq("code", 0).useIndex("by_code");
        Map<String, String> withUrl = new TreeMap<>(truth(name, 0));
        withUrl.values().removeIf(String::isEmpty);
        assertEquals(withUrl, read(table.scan(query.select(F, URL))), "covered read after the urls expired");
        assertEquals((long) truth(name, 0).size(), table.aggregate(query, Aggregation.on(schema).count()).rows().get(0).value(0));
    }

    /** Marks every row of index {@code index} UNVERIFIED at its status's timestamp; returns how many. */
    private int markUnverified(TableName name, String index) throws IOException {
        int marked = 0;
        try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index));
                ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                long stamp = IndexRowFormat.status(r).getTimestamp();
                t.put(new Put(r.getRow()).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp,
                        IndexRowFormat.unverified(stamp)));
                marked++;
            }
        }
        return marked;
    }

    /** The first byte of the status of each row of index {@code index}, in row order. */
    private List<Integer> statuses(TableName name, String index) throws IOException {
        List<Integer> out = new ArrayList<>();
        try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index));
                ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                out.add((int) CellUtil.cloneValue(IndexRowFormat.status(r))[0]);
            }
        }
        return out;
    }

    /** Row key (hex) -> its url ("" without one), of the data table's rows of {@code code}, by a plain scan. */
    private Map<String, String> truth(TableName name, int code) throws IOException {
        Map<String, String> rows = new TreeMap<>();
        try (Table t = connection().getTable(name); ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                if (((Number) schema.decode(r.getRow()).get("code")).intValue() == code) {
                    byte[] url = r.getValue(F, URL);
                    if (url != null) {
                        rows.put(Bytes.toHex(r.getRow()), Bytes.toString(url));
                    } else {
                        rows.put(Bytes.toHex(r.getRow()), "");
                    }
                }
            }
        }
        return rows;
    }

    private static Map<String, String> read(ResultScanner scanner) throws IOException {
        Map<String, String> rows = new TreeMap<>();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                String url = "";
                for (Cell c : r.rawCells()) {
                    if (CellUtil.matchingQualifier(c, URL)) {
                        url = Bytes.toString(CellUtil.cloneValue(c));
                    }
                }
                rows.put(Bytes.toHex(r.getRow()), url);
            }
        }
        return rows;
    }
}
