package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@code RowKeyCli status} on a table whose state is known: its schema, two indexes (one covered,
 * one salted) with their keys, states and tables, the coprocessors named and loaded, the version each
 * RegionServer answers (this build's), and a bulk-load window opened by hand.
 */
class TableStatusIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");

    /** No warning, and every server reported with both observers loaded. */
    @SuppressWarnings("unchecked")
    private static boolean bothLoaded(Map<String, Object> status) {
        if (!status.get("warnings").toString().equals("[]")) {
            return false;
        }
        for (Object server : (List<Object>) status.get("regionservers")) {
            if (!((List<String>) ((Map<String, Object>) server).get("loaded"))
                    .containsAll(Arrays.asList("RowKeyIndexObserver", "RowKeyScanObserver"))) {
                return false;
            }
        }
        return true;
    }

    @Test
    @SuppressWarnings("unchecked")
    void statusReportsTheTablesKnownState() throws Exception {
        TableName name = TableName.valueOf("status_t");
        RowKeySchema schema = TestData.seedSchema();
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").include("f"),
                    RowKeyIndex.of("by_type", "type").salt(4)), new byte[][] {{(byte) 0x80}}, F);
        }
        try (Table table = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                puts.add(new Put(schema.encode(TestData.seedRow("http://a/" + i, 404, 20161201 + i % 31, 1 + i % 4, false)))
                        .addColumn(F, Bytes.toBytes("url"), Bytes.toBytes("http://a/" + i)));
            }
            table.put(puts);
        }
        try (Admin admin = connection().getAdmin()) {
            admin.flush(name);
        }

        // The master learns what each server has loaded from its reports (every 500 ms here): one
        // that names one observer of ours is enough to end the warning, so both are waited for.
        Map<String, Object> s = TableStatus.read(connection(), name).asMap();
        for (long deadline = System.nanoTime() + 30_000_000_000L; !bothLoaded(s) && System.nanoTime() < deadline;) {
            Thread.sleep(200);
            s = TableStatus.read(connection(), name).asMap();
        }
        assertEquals("status_t", s.get("table"));
        assertEquals(schema.toText(), s.get("schema"));
        assertEquals(37, s.get("key_bytes"));
        Map<String, Object> data = (Map<String, Object>) s.get("data_table");
        assertEquals(2, data.get("regions"));
        assertTrue((Long) data.get("store_file_bytes") > 500 * 37, data.toString());
        assertTrue(((List<String>) data.get("coprocessors")).containsAll(Arrays.asList(CoprocessorWire.INDEX_OBSERVER,
                CoprocessorWire.SCAN_OBSERVER)), data.toString());
        List<Object> indexes = (List<Object>) s.get("indexes");
        assertEquals(2, indexes.size());
        Map<String, Object> byDate = (Map<String, Object>) indexes.get(0);
        assertEquals("by_date_code", byDate.get("name"));
        assertEquals("ACTIVE", byDate.get("state"));
        assertEquals(Arrays.asList("sdate", "code"), byDate.get("fields"));
        assertEquals(Arrays.asList("f:*"), byDate.get("covered"));
        assertTrue(((String) byDate.get("key")).startsWith("sdate int32, code int32, "), (String) byDate.get("key"));
        assertEquals("status_t__idx_by_date_code", ((Map<String, Object>) byDate.get("table")).get("name"));
        Map<String, Object> byType = (Map<String, Object>) indexes.get(1);
        assertEquals(4, byType.get("salt_buckets"));
        assertEquals(4, ((Map<String, Object>) byType.get("table")).get("regions")); // pre-split at its buckets
        assertNull(s.get("bulk_load_window"));
        assertEquals(RowKeyVersion.describe(), s.get("client_version"));
        assertTrue(RowKeyVersion.VERSION.matches("\\d+\\.\\d+\\.\\d+.*"), RowKeyVersion.VERSION);
        List<Object> servers = (List<Object>) s.get("regionservers");
        assertEquals(1, servers.size());
        Map<String, Object> server = (Map<String, Object>) servers.get(0);
        assertEquals(RowKeyVersion.describe(), server.get("version"));
        assertTrue(((List<String>) server.get("loaded")).containsAll(Arrays.asList("RowKeyIndexObserver", "RowKeyScanObserver")),
                server.toString());
        assertEquals(new ArrayList<>(), s.get("warnings"));
        // The observers' metrics, from the one RegionServer's answer to the metrics probe, summed.
        Map<String, Long> metrics = (Map<String, Long>) s.get("metrics");
        assertEquals(metrics, server.get("metrics"), "one server: the sum is its own");
        assertTrue(metrics.get("IndexedRows") >= 500, metrics.toString());
        assertTrue(metrics.get("IndexMarkMicros_num_ops") >= 1, metrics.toString());
        assertTrue(metrics.containsKey("AggregateRequests"), metrics.toString());

        // A load window, as BulkLoad opens it: reported with its time and load, and warned about.
        try (Admin admin = connection().getAdmin()) {
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setValue(IndexRowFormat.LOAD_WINDOW_KEY, "1481241600000").setValue(BulkLoad.WINDOW_LOAD_KEY, "load-7 /tmp/work")
                    .build());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"status", "--table", "status_t", "--json"}),
                new PrintStream(out, true, "UTF-8"), new PrintStream(new ByteArrayOutputStream(), true, "UTF-8")));
        String json = out.toString("UTF-8");
        assertTrue(json.startsWith("{\"table\": \"status_t\", \"schema\": \"md5url md5(8), "), json);
        assertTrue(json.contains("\"bulk_load_window\": {\"timestamp\": \"1481241600000\", \"at\": \"2016-12-09T00:00:00Z\","
                + " \"load\": \"load-7 /tmp/work\"}"), json);
        assertTrue(json.contains("\"warnings\": [\"a bulk-load window is open (2016-12-09T00:00:00Z)"), json);
        out.reset();
        assertEquals(0, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"status", "--table", "status_t"}),
                new PrintStream(out, true, "UTF-8"), new PrintStream(new ByteArrayOutputStream(), true, "UTF-8")));
        String text = out.toString("UTF-8");
        assertTrue(text.contains("  index by_type: ACTIVE, key salt 4 buckets"), text);
        assertTrue(text.contains("  bulk-load window: open at 2016-12-09T00:00:00Z (load load-7 /tmp/work)"), text);
        assertTrue(text.contains(": hbase-rowkey " + RowKeyVersion.describe() + ", loaded "), text);
        // The descriptor change reopened every region: the observers' counts started again (the probes count).
        assertTrue(text.contains("  metrics, summed over the RegionServers:\n    ") && text.contains("VersionRequests "), text);

        // A table without a catalog: refused, naming why.
        createTable("status_plain");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"status", "--table", "status_plain"}),
                new PrintStream(new ByteArrayOutputStream(), true, "UTF-8"), new PrintStream(err, true, "UTF-8")));
        assertTrue(err.toString("UTF-8").contains("has no hbase-rowkey catalog"), err.toString("UTF-8"));
    }
}
