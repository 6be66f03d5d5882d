package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.util.Bytes;
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
        this.connection = connection;
        this.demo = demo;
        this.salted = salted;
        this.name = TableName.valueOf(salted ? "urlscan_salted_indexed" : "urlscan_indexed");
    }

    /** The data table and its index table, for the region read counters. */
    List<TableName> physical() {
        return List.of(name, TableName.valueOf(name.getNameAsString() + "__idx_" + INDEX));
    }

    /** Creates the table with its index and loads the rows; returns the seconds (writes and flush, both tables). */
    double createAndLoad(DataSet data) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            for (TableName t : physical()) {
                if (admin.tableExists(t)) {
                    admin.disableTable(t);
                    admin.deleteTable(t);
                }
            }
            RowKeyIndex index = RowKeyIndex.of(INDEX, "sdate", "code").include("f");
            RowKeyTable.create(admin, name, demo.schema(salted), List.of(salted ? index.salt(16) : index),
                    Demo.splits(salted), Demo.FAMILY);
        }
        long start = System.nanoTime();
        demo.write(name, demo.schema(salted), data);
        double seconds = Demo.seconds(start);
        table = RowKeyTable.open(connection, name);
        return seconds;
    }

    /** The plan's explain; a read of the table's descriptor that fails ends the benchmark. */
    String explain(DemoQuery q, boolean urlOnly) {
        try {
            return table.explain(query(q, urlOnly)).trim();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The query, with every cell or ({@code urlOnly}) the URL alone, which the index covers. */
    private RowKeyQuery query(DemoQuery q, boolean urlOnly) {
        RowKeyQuery query = demo.planned(q);
        return urlOnly ? query.select(Demo.FAMILY, Demo.URL) : query;
    }

    /** The query through {@link RowKeyTable#scan}, timed from building the query to the last row. */
    Demo.Outcome run(DemoQuery q, boolean urlOnly) throws IOException {
        long start = System.nanoTime();
        RowKeyQuery query = query(q, urlOnly);
        TreeSet<String> rows = new TreeSet<>();
        try (ResultScanner scanner = table.scan(query)) {
            for (Result r : scanner) {
                rows.add(Bytes.toHex(r.getRow()));
            }
        }
        return new Demo.Outcome(rows, -1, -1, -1, (System.nanoTime() - start) / 1e6);
    }
}
