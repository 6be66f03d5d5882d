package org.rowkey.hbase.demo;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.RowKeySchema;

/**
 * The demo's tables in Apache Phoenix, through its JDBC driver: the same ten key fields as the
 * primary key, in the same order, with the SQL types of the same values (BINARY for the hashed
 * fields' digest bytes, INTEGER, BOOLEAN), the URL as the one other column; loaded through
 * Phoenix's normal UPSERT path; the demo's queries as SQL.
 *
 * <p>The values written and bound come from our schema itself: a row's key fields are
 * {@code schema.decode(schema.encode(row))} (the md5 and javaHash fields as their digest bytes),
 * so both sides store the same bytes; a row Phoenix returns is turned back into our key with
 * {@code schema.encode}, so "the same rows" is checked on the key bytes.
 */
final class PhoenixTables {
    /** Phoenix's guide to bulk UPSERTs: auto-commit off, commit in batches of about 1,000 rows. */
    static final int COMMIT_EVERY = 1000;
    static final int SALT_BUCKETS = 16;
    /** Phoenix's cached-metadata setting, measured with its default (ALWAYS: look up on every statement) and this. */
    static final String CACHED = "NEVER";
    static final String URL_COLUMN = "\"f\".\"url\"";

    /** One Phoenix table: its name, whether salted, and the indexes made on it. */
    static final class Table {
        final String name;
        final boolean salted;
        final List<String> indexes = new ArrayList<>();

        Table(String name, boolean salted) {
            this.name = name;
            this.salted = salted;
        }

        String coveredIndex() {
            return name + "_BY_DATE_CODE";
        }

        String uncoveredIndex() {
            return name + "_BY_DATE_CODE_UNCOVERED";
        }

        /** The HBase tables behind it (without namespace mapping, each Phoenix table is one of the same name). */
        List<TableName> physical() {
            List<TableName> all = new ArrayList<>();
            all.add(TableName.valueOf(name));
            for (String index : indexes) {
                all.add(TableName.valueOf(index));
            }
            return all;
        }
    }

    private final Connection jdbc;
    private final org.apache.hadoop.hbase.client.Connection hbase;
    private final RowKeySchema plain;
    /** A row whose field values are overwritten one at a time to turn a query value into key-field form. */
    private final Map<String, Object> template;

    PhoenixTables(Connection jdbc, org.apache.hadoop.hbase.client.Connection hbase, Demo demo, DataSet data)
            throws SQLException {
        this.jdbc = jdbc;
        this.hbase = hbase;
        this.plain = demo.schema(false);
        this.template = new LinkedHashMap<>(data.row(0));
        jdbc.setAutoCommit(false);
    }

    /** The key fields of data row {@code i} as Phoenix stores them (digest bytes for hashed fields). */
    private Map<String, Object> keyFields(Map<String, Object> row) {
        return plain.decode(plain.encode(row));
    }

    /** A query value in the form of its key field (the md5 of a URL: its 8 digest bytes). */
    private Object keyValue(String field, Object value) {
        Map<String, Object> row = new LinkedHashMap<>(template);
        row.put(field, value);
        return keyFields(row).get(field);
    }

    private static String sqlType(Object value) {
        if (value instanceof byte[]) {
            return "BINARY(" + ((byte[]) value).length + ")";
        } else if (value instanceof Integer) {
            return "INTEGER";
        } else if (value instanceof Long) {
            return "BIGINT";
        } else if (value instanceof Boolean) {
            return "BOOLEAN";
        }
        throw new IllegalArgumentException("no SQL type for a key value of " + value.getClass());
    }

    private static void bind(PreparedStatement statement, int index, Object value) throws SQLException {
        if (value instanceof byte[]) {
            statement.setBytes(index, (byte[]) value);
        } else {
            statement.setObject(index, value);
        }
    }

    private static String quoted(String field) {
        return '"' + field + '"';
    }

    private static String keyColumns() {
        List<String> columns = new ArrayList<>();
        for (String f : DataSet.FIELDS) {
            columns.add(quoted(f));
        }
        return String.join(", ", columns);
    }

    /**
     * Creates {@code table}: the plain one split like ours (8 regions at the same first bytes of
     * md5url), the salted one with Phoenix's SALT_BUCKETS (one region per bucket). The WAL is off,
     * as our load's {@code Durability.SKIP_WAL} has it, so both sides load with the same durability.
     */
    void create(Table table) throws SQLException {
        execute("DROP TABLE IF EXISTS " + table.name + " CASCADE");
        Map<String, Object> sample = keyFields(template);
        StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(table.name).append(" (");
        for (String f : DataSet.FIELDS) {
            ddl.append(quoted(f)).append(' ').append(sqlType(sample.get(f))).append(" NOT NULL, ");
        }
        ddl.append(URL_COLUMN).append(" VARCHAR CONSTRAINT pk PRIMARY KEY (").append(keyColumns()).append(")) DISABLE_WAL=true");
        List<byte[]> splits = new ArrayList<>();
        if (table.salted) {
            ddl.append(", SALT_BUCKETS=").append(SALT_BUCKETS);
        } else {
            for (byte[] split : Demo.splits(false)) {
                splits.add(split);
            }
            ddl.append(" SPLIT ON (").append(String.join(", ", Collections.nCopies(splits.size(), "?"))).append(")");
        }
        try (PreparedStatement statement = jdbc.prepareStatement(ddl.toString())) {
            for (int i = 0; i < splits.size(); i++) {
                statement.setBytes(i + 1, splits.get(i));
            }
            statement.execute();
        }
        jdbc.commit();
    }

    /** The covered index on (sdate, code), INCLUDE the URL: every column the queries select. */
    void createCoveredIndex(Table table) throws SQLException {
        execute("CREATE INDEX " + table.coveredIndex() + " ON " + table.name + " (\"sdate\", \"code\") INCLUDE (" + URL_COLUMN + ")");
        table.indexes.add(table.coveredIndex());
    }

    /** Phoenix 5.2's uncovered global index on (sdate, code): data rows are read from the data table. */
    void createUncoveredIndex(Table table) throws SQLException {
        execute("CREATE UNCOVERED INDEX " + table.uncoveredIndex() + " ON " + table.name + " (\"sdate\", \"code\")");
        table.indexes.add(table.uncoveredIndex());
    }

    /** Sets UPDATE_CACHE_FREQUENCY on the table (and, as Phoenix propagates it, on its indexes). */
    void cacheMetadata(Table table, String frequency) throws SQLException {
        execute("ALTER TABLE " + table.name + " SET UPDATE_CACHE_FREQUENCY=" + frequency);
    }

    /**
     * Loads the data set with Phoenix's own bulk loader, {@code CsvBulkLoadTool}: one MapReduce job
     * (here on the LocalJobRunner, with {@code localJobs}' settings) writing HFiles of the table and
     * every index it has, then loading them, from a CSV file of the rows written first (not timed;
     * binary key fields in Base64, the tool's default). Returns the seconds of the tool's run.
     */
    double csvBulkLoad(Table table, DataSet data, java.nio.file.Path dir, org.apache.hadoop.conf.Configuration localJobs)
            throws Exception {
        java.nio.file.Path csv = dir.resolve(table.name + ".csv");
        try (java.io.BufferedWriter w = java.nio.file.Files.newBufferedWriter(csv, java.nio.charset.StandardCharsets.UTF_8)) {
            for (int i = 0; i < data.size(); i++) {
                Map<String, Object> key = keyFields(data.row(i));
                for (String field : DataSet.FIELDS) {
                    Object v = key.get(field);
                    w.write(v instanceof byte[] ? java.util.Base64.getEncoder().encodeToString((byte[]) v) : String.valueOf(v));
                    w.write(',');
                }
                w.write(LoadBench.csvField(data.url(i)) + "\n");
            }
        }
        long start = System.nanoTime();
        int exit = org.apache.hadoop.util.ToolRunner.run(new org.apache.hadoop.conf.Configuration(localJobs),
                new org.apache.phoenix.mapreduce.CsvBulkLoadTool(), new String[] {"--table", table.name, "--input", csv.toUri().toString()});
        double seconds = Demo.seconds(start);
        if (exit != 0) {
            throw new IllegalStateException("CsvBulkLoadTool exited with " + exit);
        }
        return seconds;
    }

    /** The rows of the table and of each of its indexes (a count of each through Phoenix). */
    List<Long> counts(Table table) throws SQLException {
        List<Long> counts = new ArrayList<>();
        for (String name : table.physical().stream().map(TableName::getNameAsString).toArray(String[]::new)) {
            try (Statement st = jdbc.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + name)) {
                rs.next();
                counts.add(rs.getLong(1));
            }
        }
        return counts;
    }

    void drop(Table table) throws SQLException {
        execute("DROP TABLE IF EXISTS " + table.name + " CASCADE");
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = jdbc.createStatement()) {
            statement.execute(sql);
        }
        jdbc.commit();
    }

    /**
     * Loads the data set with UPSERTs, committing every {@value #COMMIT_EVERY} rows, then flushes
     * the table and its indexes region by region (a whole-table flush of a large index table has
     * hung here). Returns the seconds, writes and flush, as ours is timed.
     */
    double load(Table table, DataSet data) throws SQLException, IOException {
        String upsert = "UPSERT INTO " + table.name + " (" + keyColumns() + ", " + URL_COLUMN + ") VALUES ("
                + String.join(", ", Collections.nCopies(DataSet.FIELDS.length + 1, "?")) + ")";
        long start = System.nanoTime();
        Demo.Progress progress = new Demo.Progress("Loading " + table.name, data.size());
        try (PreparedStatement statement = jdbc.prepareStatement(upsert)) {
            for (int i = 0; i < data.size(); i++) {
                Map<String, Object> key = keyFields(data.row(i));
                int column = 1;
                for (String f : DataSet.FIELDS) {
                    bind(statement, column++, key.get(f));
                }
                statement.setString(column, data.url(i));
                statement.executeUpdate();
                if ((i + 1) % COMMIT_EVERY == 0) {
                    jdbc.commit();
                }
                progress.step();
            }
        }
        jdbc.commit();
        progress.done();
        flush(table);
        return Demo.seconds(start);
    }

    /** Flushes every region of the table and of its indexes, one region at a time. */
    void flush(Table table) throws IOException {
        try (Admin admin = hbase.getAdmin()) {
            for (TableName name : table.physical()) {
                for (RegionInfo region : admin.getRegions(name)) {
                    admin.flushRegion(region.getRegionName());
                }
            }
        }
    }

    /** A query in SQL: its text with placeholders and the values to bind. */
    final class Sql {
        final String text;
        final List<Object> values = new ArrayList<>();

        Sql(Table table, DemoQuery q, String hint) {
            this(table, q, hint, false);
        }

        /** {@code descending}: {@code ORDER BY} every primary-key column {@code DESC}, Phoenix's reversed read. */
        Sql(Table table, DemoQuery q, String hint, boolean descending) {
            StringBuilder where = new StringBuilder();
            for (DemoQuery.Condition c : q.conditions) {
                where.append(where.length() == 0 ? " WHERE " : " AND ").append(quoted(c.field));
                if (c.op.equals("in")) {
                    where.append(" IN (").append(String.join(", ", Collections.nCopies(c.values.length, "?"))).append(')');
                } else {
                    where.append(' ').append(c.op).append(" ?");
                }
                for (Object v : c.values) {
                    values.add(keyValue(c.field, v));
                }
            }
            text = "SELECT " + (hint == null ? "" : "/*+ " + hint + " */ ") + keyColumns() + ", " + URL_COLUMN
                    + " FROM " + table.name + where + (descending ? " ORDER BY " + keyColumns().replace(",", " DESC,") + " DESC" : "");
        }

        /** {@code text} with the values written in, for the report. */
        String shown() {
            StringBuilder b = new StringBuilder();
            int next = 0;
            for (char ch : text.toCharArray()) {
                if (ch == '?' && next < values.size()) {
                    Object v = values.get(next++);
                    b.append(v instanceof byte[] ? "X'" + Bytes.toHex((byte[]) v) + "'" : String.valueOf(v));
                } else {
                    b.append(ch);
                }
            }
            return b.toString();
        }

        private PreparedStatement prepare(String prefix) throws SQLException {
            PreparedStatement statement = jdbc.prepareStatement(prefix + text);
            for (int i = 0; i < values.size(); i++) {
                bind(statement, i + 1, values.get(i));
            }
            return statement;
        }

        /**
         * Runs the query, timed from preparing the statement to the last row, as ours is from
         * building the scan. Inside the timing only Phoenix's work and reading each row's
         * columns; turning the rows into our keys (for the same-rows check) comes after.
         */
        Demo.Outcome run(RowKeySchema schema) throws SQLException {
            long start = System.nanoTime();
            List<Object[]> raw = new ArrayList<>();
            try (PreparedStatement statement = prepare(""); ResultSet rs = statement.executeQuery()) {
                int columns = DataSet.FIELDS.length + 1;
                while (rs.next()) {
                    Object[] row = new Object[columns];
                    for (int c = 0; c < columns; c++) {
                        row[c] = rs.getObject(c + 1);
                    }
                    raw.add(row);
                }
            }
            double millis = (System.nanoTime() - start) / 1e6;
            TreeSet<String> rows = new TreeSet<>();
            for (Object[] row : raw) {
                Map<String, Object> key = new LinkedHashMap<>();
                for (int f = 0; f < DataSet.FIELDS.length; f++) {
                    key.put(DataSet.FIELDS[f], row[f]);
                }
                rows.add(Bytes.toHex(schema.encode(key)));
            }
            // Rows read come from the region counters (RegionReads): Phoenix's request metrics
            // reported 0 for COUNT_ROWS_SCANNED here, so there is no scan metric to give.
            return new Demo.Outcome(rows, -1, -1, -1, millis);
        }

        /** Phoenix's EXPLAIN of the query, one line per step. */
        String explain() throws SQLException {
            List<String> lines = new ArrayList<>();
            try (PreparedStatement statement = prepare("EXPLAIN "); ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    lines.add(rs.getString(1));
                }
            }
            return String.join("\n", lines);
        }
    }

    static String describe(Table table) {
        return String.format(Locale.ROOT, "%s (%s)", table.name,
                table.salted ? "SALT_BUCKETS=" + SALT_BUCKETS : "split like ours, 8 regions");
    }
}
