package org.rowkey.hbase;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.Size;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.CoprocessorDescriptor;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * What state a table made by {@link RowKeyTable#create} is in, for {@code RowKeyCli status}: its
 * schema, each index (state, key, covered columns, table, size), an open bulk-load window, the
 * coprocessors its descriptors name and those each RegionServer holding its regions has loaded, and
 * the hbase-rowkey version each of those RegionServers runs beside this client's.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class TableStatus {
    /** Table name → (regions, bytes on disk and in memstores) → text and JSON. */
    private final Map<String, Object> status = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    /** The observers' metrics summed over the RegionServers that answered the probe. */
    private final Map<String, Long> summed = new TreeMap<>();

    private TableStatus() {
    }

    static TableStatus read(Connection connection, TableName name) throws IOException {
        TableStatus s = new TableStatus();
        try (Admin admin = connection.getAdmin()) {
            TableDescriptor data = admin.getDescriptor(name);
            byte[] bytes = data.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
            if (bytes == null) {
                throw new IllegalArgumentException("table " + name + " has no hbase-rowkey catalog (it was not made by RowKeyTable.create)");
            }
            Catalog catalog = Catalog.parse(bytes);
            ClusterMetrics cluster = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
            s.status.put("table", name.getNameAsString());
            s.status.put("schema", catalog.schema().toText());
            s.status.put("key_bytes", catalog.schema().keyLength());
            String version = data.getValue(Catalog.VERSION_KEY);
            s.status.put("catalog_version", version == null ? 0L : Long.parseLong(version));
            Set<ServerName> servers = new TreeSet<>();
            s.status.put("data_table", s.tableStatus(connection, admin, cluster, data, servers));
            List<Object> indexes = new ArrayList<>();
            for (int i = 0; i < catalog.indexes().size(); i++) {
                IndexSpec spec = catalog.indexes().get(i);
                Map<String, Object> index = new LinkedHashMap<>();
                index.put("name", spec.getName());
                index.put("state", spec.getState().name());
                index.put("fields", new ArrayList<>(spec.getFieldsList()));
                index.put("key", catalog.indexSchema(i).toText());
                index.put("salt_buckets", spec.getSaltBuckets());
                List<String> covered = new ArrayList<>();
                for (com.google.protobuf.ByteString family : spec.getIncludeFamiliesList()) {
                    covered.add(Bytes.toStringBinary(family.toByteArray()) + ":*");
                }
                for (Column c : spec.getIncludeList()) {
                    covered.add(Bytes.toStringBinary(c.getFamily().toByteArray()) + ":" + Bytes.toStringBinary(c.getQualifier().toByteArray()));
                }
                index.put("covered", covered);
                TableName table = IndexRowFormat.indexTableName(name, spec.getName());
                if (admin.tableExists(table)) {
                    index.put("table", s.tableStatus(connection, admin, cluster, admin.getDescriptor(table), servers));
                } else {
                    index.put("table", null);
                    s.warnings.add("index " + spec.getName() + ": its table " + table + " does not exist");
                }
                indexes.add(index);
            }
            s.status.put("indexes", indexes);
            String window = data.getValue(IndexRowFormat.LOAD_WINDOW_KEY);
            if (window != null) {
                Map<String, Object> load = new LinkedHashMap<>();
                load.put("timestamp", window);
                load.put("at", instant(window));
                load.put("load", data.getValue(BulkLoad.WINDOW_LOAD_KEY));
                s.status.put("bulk_load_window", load);
                s.warnings.add("a bulk-load window is open (" + instant(window) + "): live writes mark index rows UNVERIFIED until it closes");
            } else {
                s.status.put("bulk_load_window", null);
            }
            s.status.put("client_version", RowKeyVersion.describe());
            s.status.put("regionservers", s.serverStatus(connection, name, cluster, servers));
            s.status.put("metrics", s.summed);
            s.status.put("warnings", s.warnings);
        }
        return s;
    }

    private static String instant(String millis) {
        try {
            return Instant.ofEpochMilli(Long.parseLong(millis)).toString();
        } catch (NumberFormatException e) {
            return "not a time: " + millis;
        }
    }

    /** A table's coprocessors, regions and sizes; adds the servers holding its regions to {@code servers}. */
    private Map<String, Object> tableStatus(Connection connection, Admin admin, ClusterMetrics cluster, TableDescriptor descriptor,
            Set<ServerName> servers) throws IOException {
        Map<String, Object> t = new LinkedHashMap<>();
        TableName name = descriptor.getTableName();
        t.put("name", name.getNameAsString());
        List<String> coprocessors = new ArrayList<>();
        for (CoprocessorDescriptor c : descriptor.getCoprocessorDescriptors()) {
            coprocessors.add(c.getClassName());
        }
        t.put("coprocessors", coprocessors);
        if (!coprocessors.contains(CoprocessorWire.SCAN_OBSERVER) && !coprocessors.contains(CoprocessorWire.SCAN_OBSERVER_BEFORE)) {
            warnings.add(name + ": its descriptor does not name " + CoprocessorWire.SCAN_OBSERVER);
        }
        long disk = 0;
        long memory = 0;
        int regions = 0;
        Map<ServerName, Integer> byServer = new TreeMap<>();
        try (RegionLocator locator = connection.getRegionLocator(name)) {
            for (HRegionLocation location : locator.getAllRegionLocations()) {
                regions++;
                if (location.getServerName() != null) {
                    byServer.merge(location.getServerName(), 1, Integer::sum);
                }
            }
        }
        for (ServerName server : byServer.keySet()) {
            servers.add(server);
            if (!cluster.getLiveServerMetrics().containsKey(server)) {
                continue;
            }
            for (RegionMetrics r : admin.getRegionMetrics(server, name)) {
                disk += (long) r.getStoreFileSize().get(Size.Unit.BYTE);
                memory += (long) r.getMemStoreSize().get(Size.Unit.BYTE);
            }
        }
        t.put("regions", regions);
        t.put("store_file_bytes", disk);
        t.put("memstore_bytes", memory);
        return t;
    }

    /**
     * Each RegionServer holding the tables' regions: the coprocessors it has loaded and the version it
     * answers a probe of one of the data table's regions there with (RowKeyScanObserver).
     */
    private List<Object> serverStatus(Connection connection, TableName name, ClusterMetrics cluster, Set<ServerName> servers)
            throws IOException {
        Map<ServerName, byte[]> probeRow = new TreeMap<>();
        try (RegionLocator locator = connection.getRegionLocator(name)) {
            for (HRegionLocation location : locator.getAllRegionLocations()) {
                if (location.getServerName() != null) {
                    probeRow.putIfAbsent(location.getServerName(), location.getRegion().getStartKey());
                }
            }
        }
        List<Object> out = new ArrayList<>();
        for (ServerName server : servers) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("server", server.toString());
            ServerMetrics metrics = cluster.getLiveServerMetrics().get(server);
            List<String> loaded = new ArrayList<>();
            if (metrics != null) {
                for (String c : metrics.getCoprocessorNames()) {
                    // HBase reports each loaded coprocessor by its class's simple name.
                    if (c.startsWith("RowKey") || c.startsWith("org.rowkey.hbase.")) {
                        loaded.add(c);
                    }
                }
            }
            s.put("loaded", loaded);
            if (loaded.isEmpty()) {
                warnings.add(server + " has loaded no hbase-rowkey coprocessor, by its last report to the master");
            }
            String version = probeRow.containsKey(server)
                    ? probe(connection, name, probeRow.get(server), CoprocessorWire.VERSION_REQUEST, CoprocessorWire.VERSION_QUALIFIER)
                    : null;
            String counts = version == null ? null
                    : probe(connection, name, probeRow.get(server), CoprocessorWire.METRICS_REQUEST, CoprocessorWire.METRICS_QUALIFIER);
            Map<String, Long> serverMetrics = new TreeMap<>();
            for (String line : counts == null ? new String[0] : counts.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    try {
                        serverMetrics.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
                        summed.merge(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)), Long::sum);
                    } catch (NumberFormatException newerFormat) {
                        // a line this client does not read: left out
                    }
                }
            }
            s.put("metrics", serverMetrics);
            s.put("version", version);
            if (version != null && !version.equals(RowKeyVersion.describe())) {
                warnings.add(server + " runs hbase-rowkey " + version + ", this client " + RowKeyVersion.describe());
            } else if (version == null && probeRow.containsKey(server)) {
                warnings.add(server + " did not answer the version probe: its RowKeyScanObserver is not loaded, or is older than"
                        + " the probe");
            }
            out.add(s);
        }
        return out;
    }

    /**
     * What the RegionServer of the region starting at {@code start} answers a probe scan with
     * {@code attribute} with (the cell of {@code qualifier}), or null.
     */
    private static String probe(Connection connection, TableName name, byte[] start, String attribute, byte[] qualifier)
            throws IOException {
        Scan scan = new Scan().withStartRow(start).setAttribute(attribute, new byte[] {1}).setCaching(1).setLimit(1);
        try (Table table = connection.getTable(name); ResultScanner rows = table.getScanner(scan)) {
            Result r = rows.next();
            if (r == null) {
                return null;
            }
            for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
                if (org.apache.hadoop.hbase.CellUtil.matchingQualifier(c, qualifier)) {
                    return Bytes.toString(org.apache.hadoop.hbase.CellUtil.cloneValue(c));
                }
            }
            return null;
        }
    }

    /** The warnings: an index table missing, an open load window, a version mismatch, an observer not loaded. */
    List<String> warnings() {
        return warnings;
    }

    Map<String, Object> asMap() {
        return status;
    }

    String toJson() {
        return Json.of(status);
    }

    @SuppressWarnings("unchecked")
    String toText() {
        StringBuilder b = new StringBuilder();
        b.append("table ").append(status.get("table")).append(" (catalog version ").append(status.get("catalog_version")).append(")\n");
        b.append("  schema: ").append(status.get("schema")).append(" (").append(status.get("key_bytes")).append("-byte keys)\n");
        b.append("  data table: ").append(table((Map<String, Object>) status.get("data_table"))).append('\n');
        for (Object o : (List<Object>) status.get("indexes")) {
            Map<String, Object> i = (Map<String, Object>) o;
            b.append("  index ").append(i.get("name")).append(": ").append(i.get("state")).append(", key ").append(i.get("key"));
            List<String> covered = (List<String>) i.get("covered");
            b.append(covered.isEmpty() ? ", covers nothing" : ", covers " + String.join(" ", covered)).append('\n');
            b.append("    ").append(i.get("table") == null ? "no table" : table((Map<String, Object>) i.get("table"))).append('\n');
        }
        Map<String, Object> window = (Map<String, Object>) status.get("bulk_load_window");
        b.append("  bulk-load window: ").append(window == null ? "closed" : "open at " + window.get("at") + " (load " + window.get("load") + ")")
                .append('\n');
        b.append("  this client: hbase-rowkey ").append(status.get("client_version")).append('\n');
        for (Object o : (List<Object>) status.get("regionservers")) {
            Map<String, Object> s = (Map<String, Object>) o;
            b.append("  regionserver ").append(s.get("server")).append(": hbase-rowkey ")
                    .append(s.get("version") == null ? "(no answer)" : s.get("version")).append(", loaded ")
                    .append(String.join(", ", (List<String>) s.get("loaded"))).append('\n');
        }
        b.append("  metrics, summed over the RegionServers:");
        int column = 0;
        for (Map.Entry<String, Long> m : summed.entrySet()) {
            if (m.getValue() != 0) {
                b.append(column++ % 4 == 0 ? "\n    " : ", ").append(m.getKey()).append(' ').append(m.getValue());
            }
        }
        b.append(column == 0 ? " none counted\n" : "\n");
        for (String w : warnings) {
            b.append("  WARNING: ").append(w).append('\n');
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static String table(Map<String, Object> t) {
        return t.get("name") + ": " + t.get("regions") + " regions, " + t.get("store_file_bytes") + " bytes in store files, "
                + t.get("memstore_bytes") + " in memstores; coprocessors " + String.join(", ", (List<String>) t.get("coprocessors"));
    }
}
