package org.rowkey.hbase;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The command line in the jar, for people at a terminal:
 *
 * <pre>
 * java -cp hbase-rowkey.jar:$(hbase classpath) org.rowkey.hbase.RowKeyCli query|explain \
 *     --zookeeper host:port --table T [--schema 'md5url md5(8), code int32'] [--json] [--limit N] [--reversed] \
 *     "sdate = 20161209 AND code = 404"
 * </pre>
 *
 * {@code status} prints what state the table is in ({@link TableStatus}; {@code --json} for scripts).
 * {@code verify} checks the table's indexes (or {@code --index}'s) against its data rows with a
 * MapReduce job ({@link IndexVerify}), {@code --repair} mending what differs; it prints each index's
 * counts and sample keys ({@code --samples N} of each kind, default 10), and exits 1 when it found
 * a difference (repaired or not), so that a second run's 0 says the index is right.
 * {@code query} prints the rows: a header, then one line per row, the key's fields then each cell
 * as {@code family:qualifier=value}, tab-separated ({@code --json}: one JSON object per line,
 * {@code {"key": {...}, "cells": {...}}}); a progress line on stderr while a scan runs longer than
 * a second. {@code explain} prints the plan. The schema is the table's catalog (a table made by
 * {@link RowKeyTable#create}, whose indexes the query may use) or {@code --schema} in text form.
 * Exit status 0, or 2 with the reason on stderr for bad arguments, a bad where clause or schema, a
 * {@code --schema} that is not the catalog's of a table made by {@link RowKeyTable#create}, or one
 * that found no row on a table whose first key is of another width (the schema is not the table's).
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class RowKeyCli {
    private static final String USAGE = "usage: RowKeyCli query|explain --zookeeper host:port --table T"
            + " [--schema '<schema text>'] [--json] [--limit N] [--reversed] \"<where clause>\"\n"
            + "       RowKeyCli status --zookeeper host:port --table T [--json]\n"
            + "       RowKeyCli verify --zookeeper host:port --table T [--index I] [--repair] [--samples N] [--json]";

    private RowKeyCli() {}

    public static void main(String[] args) throws IOException {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        Options o = parsed(args, err);
        if (o == null) {
            return 2;
        }
        Configuration conf = HBaseConfiguration.create();
        if (o.zookeeper != null) {
            int colon = o.zookeeper.lastIndexOf(':');
            conf.set("hbase.zookeeper.quorum", colon < 0 ? o.zookeeper : o.zookeeper.substring(0, colon));
            if (colon >= 0) {
                conf.set("hbase.zookeeper.property.clientPort", o.zookeeper.substring(colon + 1));
            }
        }
        try (Connection connection = ConnectionFactory.createConnection(conf)) {
            return run(connection, o, out, err);
        }
    }

    /**
     * Runs one command on {@code connection}'s cluster ({@code --zookeeper} is ignored): what the
     * command line does, for a program that holds a connection (a benchmark, a scheduler); returns
     * the exit status.
     */
    public static int run(Connection connection, String[] args, PrintStream out, PrintStream err) throws IOException {
        Options o = parsed(args, err);
        return o == null ? 2 : run(connection, o, out, err);
    }

    /** The options of {@code args}, or null when they are bad (the reason and the usage on {@code err}). */
    private static Options parsed(String[] args, PrintStream err) {
        try {
            return Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println(USAGE);
            return null;
        }
    }

    static int run(Connection connection, Options o, PrintStream out, PrintStream err) throws IOException {
        TableName name = TableName.valueOf(o.table);
        if (o.status) {
            TableStatus status;
            try {
                status = TableStatus.read(connection, name);
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                return 2;
            }
            out.print(o.json ? status.toJson() + "\n" : status.toText());
            return 0;
        }
        if (o.verify) {
            IndexVerify.Report report;
            try {
                report = RowKeyTable.open(connection, name).verify(new IndexVerify.Request(name, o.index, o.repair, o.samples),
                        o.json ? null : err);
            } catch (IllegalArgumentException | IllegalStateException e) {
                err.println(e.getMessage());
                return 2;
            }
            out.print(o.json ? report.toJson() + "\n" : report.toText());
            return report.differences() == 0 ? 0 : 1;
        }
        RowKeyTable catalogTable;
        RowKeySchema schema;
        RowKeyQuery query;
        try {
            try {
                catalogTable = RowKeyTable.open(connection, name);
            } catch (IllegalArgumentException noCatalog) {
                if (o.schema == null) {
                    throw noCatalog;
                }
                catalogTable = null; // a table of another making, read by --schema
            }
            schema = o.schema == null ? catalogTable.schema() : RowKeySchema.parse(o.schema);
            if (catalogTable != null && !catalogTable.schema().equals(schema)) {
                // It would read the table's keys by another layout: nothing, or nonsense.
                err.println("--schema '" + o.schema + "' is not the schema of table " + name + ", whose catalog says '"
                        + catalogTable.schema().toText() + "': leave --schema out on a table made by RowKeyTable.create");
                return 2;
            }
            query = RowKeyQuery.parse(schema, o.where);
            if (o.limit > 0) {
                query.limit(o.limit);
            }
            if (o.reversed) {
                query.reversed();
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        if (o.explain) {
            out.println(catalogTable != null ? catalogTable.explain(query) : query.explain());
            return 0;
        }
        long count;
        try (Table table = connection.getTable(name);
                ResultScanner rows = catalogTable != null ? catalogTable.scan(query) : table.getScanner(plainScan(query))) {
            count = print(schema, rows, o, out, err);
        }
        if (count == 0 && o.schema != null) {
            byte[] first = firstRowKey(connection, name);
            if (first != null && first.length != schema.keyLength()) {
                err.println("table " + name + ": its first row key has " + first.length + " bytes, the --schema makes keys of "
                        + schema.keyLength() + ": the schema is not this table's");
                return 2;
            }
        }
        return 0;
    }

    private static byte[] firstRowKey(Connection connection, TableName name) throws IOException {
        org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan().setLimit(1).setCaching(1)
                .setFilter(new org.apache.hadoop.hbase.filter.FilterList(new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter(),
                        new org.apache.hadoop.hbase.filter.KeyOnlyFilter()));
        try (Table table = connection.getTable(name); ResultScanner rows = table.getScanner(scan)) {
            Result first = rows.next();
            return first == null ? null : first.getRow();
        }
    }

    private static org.apache.hadoop.hbase.client.Scan plainScan(RowKeyQuery query) {
        if (query.isReversed()) {
            // toScan seeks forward only: the filter plans inside each region, in either direction.
            return new org.apache.hadoop.hbase.client.Scan().setReversed(true).setFilter(new RowKeyWhere(query))
                    .setLimit(query.limit());
        }
        org.apache.hadoop.hbase.client.Scan scan = query.toScan();
        return query.limit() > 0 ? scan.setLimit(query.limit()) : scan;
    }

    /** Prints the rows; returns how many. */
    private static long print(RowKeySchema schema, ResultScanner rows, Options o, PrintStream out, PrintStream err) {
        long start = System.nanoTime();
        long lastProgress = start;
        long count = 0;
        if (!o.json) {
            out.println(String.join("\t", schema.fieldNames()) + "\tcells");
        }
        for (Result r : rows) {
            out.println(o.json ? json(schema, r) : tsv(schema, r));
            count++;
            long now = System.nanoTime();
            if (now - lastProgress > 1_000_000_000L) {
                err.printf("\r%,d rows, %.1f s", count, (now - start) / 1e9);
                lastProgress = now;
            }
        }
        if (lastProgress != start) {
            err.println();
        }
        err.printf("%,d rows in %.2f s%n", count, (System.nanoTime() - start) / 1e9);
        return count;
    }

    private static String tsv(RowKeySchema schema, Result r) {
        List<String> columns = new ArrayList<>();
        for (Object v : key(schema, r).values()) {
            columns.add(text(v).replace('\t', ' ').replace('\n', ' '));
        }
        List<String> cells = new ArrayList<>();
        for (Cell c : r.rawCells()) {
            cells.add(Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":" + Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + "="
                    + Bytes.toStringBinary(CellUtil.cloneValue(c)));
        }
        columns.add(String.join(" ", cells));
        return String.join("\t", columns);
    }

    private static String json(RowKeySchema schema, Result r) {
        StringBuilder s = new StringBuilder("{\"key\": {");
        boolean first = true;
        for (Map.Entry<String, Object> e : key(schema, r).entrySet()) {
            Object v = e.getValue();
            s.append(first ? "" : ", ").append(Json.of(e.getKey())).append(": ")
                    .append(v instanceof Number || v instanceof Boolean ? v.toString() : Json.of(text(v)));
            first = false;
        }
        s.append("}, \"cells\": {");
        first = true;
        for (Cell c : r.rawCells()) {
            s.append(first ? "" : ", ").append(Json.of(Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
                    + Bytes.toStringBinary(CellUtil.cloneQualifier(c)))).append(": ").append(Json.of(Bytes.toStringBinary(CellUtil.cloneValue(c))));
            first = false;
        }
        return s.append("}}").toString();
    }

    /** The key's fields; a key that is not of the schema's shows as its bytes. */
    private static Map<String, Object> key(RowKeySchema schema, Result r) {
        try {
            return schema.decode(r.getRow());
        } catch (IllegalArgumentException e) {
            Map<String, Object> raw = new java.util.LinkedHashMap<>();
            raw.put("row", Bytes.toStringBinary(r.getRow()));
            return raw;
        }
    }

    private static String text(Object v) {
        return v instanceof byte[] ? "x'" + Bytes.toHex((byte[]) v) + "'" : String.valueOf(v);
    }

    /** The parsed command line. */
    static final class Options {
        boolean explain;
        boolean status;
        boolean verify;
        String index;
        boolean repair;
        int samples = 10;
        String zookeeper;
        String table;
        String schema;
        boolean json;
        int limit;
        boolean reversed;
        String where;

        static Options parse(String[] args) {
            Options o = new Options();
            List<String> commands = java.util.Arrays.asList("query", "explain", "status", "verify");
            if (args.length == 0 || !commands.contains(args[0])) {
                throw new IllegalArgumentException("the first argument is query, explain, status or verify");
            }
            o.explain = args[0].equals("explain");
            o.status = args[0].equals("status");
            o.verify = args[0].equals("verify");
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--zookeeper": o.zookeeper = value(args, ++i, a); break;
                    case "--table": o.table = value(args, ++i, a); break;
                    case "--schema": o.schema = value(args, ++i, a); break;
                    case "--json": o.json = true; break;
                    case "--tsv": o.json = false; break;
                    case "--reversed": o.reversed = true; break;
                    case "--index": o.index = value(args, ++i, a); break;
                    case "--repair": o.repair = true; break;
                    case "--samples": o.samples = number(value(args, ++i, a), a); break;
                    case "--limit": o.limit = number(value(args, ++i, a), a); break;
                    default:
                        if (a.startsWith("--") || o.where != null) {
                            throw new IllegalArgumentException("unexpected argument: " + a);
                        }
                        o.where = a;
                }
            }
            if (o.table == null) {
                throw new IllegalArgumentException("--table is required");
            }
            boolean queryOnly = o.where != null || o.schema != null || o.limit != 0 || o.reversed;
            if (o.status && queryOnly) {
                throw new IllegalArgumentException("status takes --table, --zookeeper and --json only");
            }
            if (o.verify && queryOnly) {
                throw new IllegalArgumentException("verify takes --table, --zookeeper, --index, --repair, --samples and --json only");
            }
            if (!o.verify && (o.index != null || o.repair)) {
                throw new IllegalArgumentException("--index and --repair are verify's");
            }
            if (o.where == null) {
                o.where = "TRUE";
            }
            return o;
        }

        private static int number(String text, String option) {
            try {
                int n = Integer.parseInt(text);
                if (n < 0) {
                    throw new NumberFormatException("negative: " + text);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a number of 0 or more: " + e.getMessage());
            }
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
