package org.rowkey.hbase.spark;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * What a {@code spark.read.format("rowkey")} was given, in a form every executor can rebuild its
 * connection from: the table, the HBase settings ({@code zookeeper}, and any {@code hbase.*} option
 * as it is) and the cells mapped to columns ({@code columns}).
 */
final class SourceOptions implements Serializable {
    private static final long serialVersionUID = 1L;
    /** One connection per set of settings and JVM (driver or executor), shared by its tasks, as HBase's own connectors keep it. */
    private static final Map<Map<String, String>, Connection> CONNECTIONS = new ConcurrentHashMap<>();

    final String table;
    /** The HBase settings, sorted (the key of the shared connection). */
    final TreeMap<String, String> hbase;
    final List<CellColumn> cells;
    /** Whether a GROUP BY may be folded in the regions (option {@code pushAggregates}, default true). */
    final boolean pushAggregates;
    /** The most groups a folded GROUP BY may have (option {@code maxGroups}: {@code Aggregation.maxGroups}), 0 for its default. */
    final int maxGroups;

    private SourceOptions(String table, TreeMap<String, String> hbase, List<CellColumn> cells, boolean pushAggregates,
            int maxGroups) {
        this.table = table;
        this.hbase = hbase;
        this.cells = cells;
        this.pushAggregates = pushAggregates;
        this.maxGroups = maxGroups;
    }

    /**
     * Reads the options (names compared ignoring case, as Spark gives them).
     *
     * @throws IllegalArgumentException naming a missing {@code table} or a malformed {@code columns}
     */
    static SourceOptions of(Map<String, String> options) {
        String table = null;
        String columns = null;
        boolean pushAggregates = true;
        int maxGroups = 0;
        TreeMap<String, String> hbase = new TreeMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey().toLowerCase(java.util.Locale.ROOT);
            if (key.equals("table")) {
                table = e.getValue();
            } else if (key.equals("zookeeper")) {
                hbase.put("hbase.zookeeper.quorum", e.getValue());
            } else if (key.equals("columns")) {
                columns = e.getValue();
            } else if (key.equals("pushaggregates")) {
                if (!e.getValue().equalsIgnoreCase("true") && !e.getValue().equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException("option pushAggregates is true or false, not '" + e.getValue() + "'");
                }
                pushAggregates = Boolean.parseBoolean(e.getValue());
            } else if (key.equals("maxgroups")) {
                try {
                    maxGroups = Integer.parseInt(e.getValue().trim());
                } catch (NumberFormatException notANumber) {
                    maxGroups = -1;
                }
                if (maxGroups < 1 || maxGroups > 1_000_000) {
                    throw new IllegalArgumentException("option maxGroups is a number of groups from 1 to 1,000,000, not '"
                            + e.getValue() + "'");
                }
            } else if (key.startsWith("hbase.") || key.startsWith("zookeeper.") || key.startsWith("rowkey.")) {
                hbase.put(e.getKey(), e.getValue());
            }
        }
        if (table == null || table.trim().isEmpty()) {
            throw new IllegalArgumentException("the rowkey source needs option(\"table\", <HBase table>)");
        }
        return new SourceOptions(table.trim(), hbase, CellColumn.parseAll(columns), pushAggregates, maxGroups);
    }

    TableName tableName() {
        return TableName.valueOf(table);
    }

    /** This JVM's connection for these settings, made on first use and kept for the JVM's life. */
    Connection connection() throws IOException {
        Connection existing = CONNECTIONS.get(hbase);
        if (existing != null && !existing.isClosed()) {
            return existing;
        }
        synchronized (CONNECTIONS) {
            existing = CONNECTIONS.get(hbase);
            if (existing != null && !existing.isClosed()) {
                return existing;
            }
            Configuration conf = HBaseConfiguration.create();
            hbase.forEach(conf::set);
            Connection made = ConnectionFactory.createConnection(conf);
            CONNECTIONS.put(new TreeMap<>(hbase), made);
            return made;
        }
    }

    /** The mapped cell called {@code name}, or null. */
    CellColumn cell(String name) {
        for (CellColumn c : cells) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        return null;
    }

    static List<String> names(List<CellColumn> cells) {
        List<String> names = new ArrayList<>();
        for (CellColumn c : cells) {
            names.add(c.name);
        }
        return Collections.unmodifiableList(names);
    }
}
