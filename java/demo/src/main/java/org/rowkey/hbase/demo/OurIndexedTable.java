package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;
import org.rowkey.hbase.BulkLoad;
import org.rowkey.hbase.RowKeyIndex;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeyTable;

/**
 * Our side with a secondary index (issue 10): the demo's plain or salted table created by
 * {@link RowKeyTable#create} with one index on (sdate, code) covering family f whole (the URL,
 * the table's only column: every column, so a query of every cell is answered alone), as Phoenix's
 * covered index (salted like the table for the salted one, as Phoenix's index of a salted table
 * is); loaded the demo's way (the coprocessor writes the index rows); queried through
 * {@link RowKeyTable#scan}, which picks the index or the data table itself.
 */
final class OurIndexedTable {
    static final String INDEX = "by_date_code";

    private final Connection connection;
    private final Demo demo;
    private final boolean salted;
    final TableName name;
    private RowKeyTable table;

    OurIndexedTable(Connection connection, Demo demo, boolean salted) {
        this(connection, demo, salted, TableName.valueOf(salted ? "urlscan_salted_indexed" : "urlscan_indexed"));
    }

    OurIndexedTable(Connection connection, Demo demo, boolean salted, TableName name) {
        this.connection = connection;
        this.demo = demo;
        this.salted = salted;
        this.name = name;
    }

    /** The data table and its index table, for the region read counters. */
    List<TableName> physical() {
        return List.of(name, TableName.valueOf(name.getNameAsString() + "__idx_" + INDEX));
    }

    /** Creates the table with its index and loads the rows; returns the seconds (writes and flush, both tables). */
    double createAndLoad(DataSet data) throws IOException {
        create();
        long start = System.nanoTime();
        demo.write(name, demo.schema(salted), data);
        double seconds = Demo.seconds(start);
        table = RowKeyTable.open(connection, name);
        return seconds;
    }

    /** Creates the table with its index, dropping them first if they exist. */
    private void create() throws IOException {
        drop();
        try (Admin admin = connection.getAdmin()) {
            RowKeyIndex index = RowKeyIndex.of(INDEX, "sdate", "code").include("f");
            RowKeyTable.create(admin, name, demo.schema(salted), List.of(salted ? index.salt(16) : index),
                    Demo.splits(salted), Demo.FAMILY);
        }
    }

    /** Drops the table and its index, if they exist. */
    void drop() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            for (TableName t : physical()) {
                if (admin.tableExists(t)) {
                    admin.disableTable(t);
                    admin.deleteTable(t);
                }
            }
        }
    }

    /**
     * Creates the table with its index and bulk-loads {@code inputs} (CSV files under a header) with
     * {@link BulkLoad} in {@code localJobs}' settings; returns the seconds of the job and the load.
     */
    double bulkLoad(List<String> inputs, Configuration localJobs) throws Exception {
        create();
        List<String> args = new ArrayList<>(List.of("--table", name.getNameAsString(), "--column", "f:url=url",
                "--format", "csv", "--work", "/tmp/bench-peer-bulk/" + name.getNameAsString()));
        for (String input : inputs) {
            args.add("--input");
            args.add(input);
        }
        long start = System.nanoTime();
        int exit = ToolRunner.run(new Configuration(localJobs), new BulkLoad(), args.toArray(new String[0]));
        double seconds = Demo.seconds(start);
        if (exit != 0) {
            throw new IllegalStateException("the bulk load exited with " + exit);
        }
        table = RowKeyTable.open(connection, name);
        return seconds;
    }

    /** The rows of the table and of its index (key-only scans). */
    List<Long> rowCounts() throws IOException {
        List<Long> counts = new ArrayList<>();
        for (TableName t : physical()) {
            long n = 0;
            try (Table hTable = connection.getTable(t); ResultScanner s = hTable.getScanner(
                    new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(10_000))) {
                for (Result ignored : s) {
                    n++;
                }
            }
            counts.add(n);
        }
        return counts;
    }

    /** The cells of the table and its index, every version (a plain scan of each). */
    long cellCount() throws IOException {
        long n = 0;
        for (TableName t : physical()) {
            try (Table hTable = connection.getTable(t);
                    ResultScanner s = hTable.getScanner(new Scan().readAllVersions().setCaching(10_000))) {
                for (Result r : s) {
                    n += r.size();
                }
            }
        }
        return n;
    }

    /** The plan's explain; a read of the table's descriptor that fails ends the benchmark. */
    String explain(DemoQuery q, boolean urlOnly) {
        return explain(q, urlOnly, false);
    }

    /** {@code reversed}: of the query read in descending key order. */
    String explain(DemoQuery q, boolean urlOnly, boolean reversed) {
        try {
            RowKeyQuery query = query(q, urlOnly);
            return table.explain(reversed ? query.reversed() : query).trim();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The query, with every cell or ({@code urlOnly}) the URL alone, which the index covers. */
    RowKeyQuery query(DemoQuery q, boolean urlOnly) {
        RowKeyQuery query = demo.planned(q);
        return urlOnly ? query.select(Demo.FAMILY, Demo.URL) : query;
    }

    /** The table, opened once it is loaded. */
    RowKeyTable table() {
        return table;
    }

    /** The query through {@link RowKeyTable#scan}, timed from building the query to the last row. */
    Demo.Outcome run(DemoQuery q, boolean urlOnly) throws IOException {
        return run(q, urlOnly, false);
    }

    /**
     * {@code reversed}: the query read in descending key order, the order checked after the
     * timing (a row out of order ends the benchmark).
     */
    Demo.Outcome run(DemoQuery q, boolean urlOnly, boolean reversed) throws IOException {
        long start = System.nanoTime();
        RowKeyQuery query = query(q, urlOnly);
        List<byte[]> keys = new ArrayList<>();
        try (ResultScanner scanner = table.scan(reversed ? query.reversed() : query)) {
            for (Result r : scanner) {
                keys.add(r.getRow());
            }
        }
        double millis = (System.nanoTime() - start) / 1e6;
        TreeSet<String> rows = new TreeSet<>();
        for (int i = 0; i < keys.size(); i++) {
            if (reversed && i > 0 && Bytes.compareTo(keys.get(i - 1), keys.get(i)) <= 0) {
                throw new IllegalStateException("MISMATCH, " + q.name + " reversed: row " + i + " is not below the one before it");
            }
            rows.add(Bytes.toHex(keys.get(i)));
        }
        return new Demo.Outcome(rows, -1, -1, -1, millis);
    }
}
