package org.rowkey.hbase.demo;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;

import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * Seed 000's statistics beside Phoenix's SQL aggregates, in {@code cargo make bench-peer}: ours
 * ({@link RowKeyTable#aggregate}, folded inside the regions) on the plain table with our covered
 * index on (sdate, code), and Phoenix's {@code GROUP BY} / {@code COUNT(*)} on its plain table with
 * its covered and uncovered indexes on (sdate, code): its default plan and {@code NO_INDEX}. After
 * the queries, with Phoenix's metadata cached. Each statistic: 1 warm-up run, then {@code --runs}
 * measured runs, the ways interleaved; every run of every way must give ours' answer (else the
 * benchmark stops, exit code 1).
 */
final class PeerAggregates {
    /** A statistic: our query and aggregation, the same in SQL, and the key fields it groups by. */
    private static final class Statistic {
        final String name;
        final RowKeyQuery query;
        final Aggregation aggregation;
        /** Phoenix's statement with {@code %s} for the table name: the group columns first, then the aggregates. */
        final String sql;
        final String[] groups;
        /** Top-N by count: groups of a tied count may differ between the ways, the counts may not. */
        final boolean top;

        Statistic(String name, RowKeyQuery query, Aggregation aggregation, String sql, boolean top, String... groups) {
            this.name = name;
            this.query = query;
            this.aggregation = aggregation;
            this.sql = sql;
            this.top = top;
            this.groups = groups;
        }
    }

    /** One way of computing a statistic and its figures. */
    private static final class Way {
        final String name;
        final String side;
        final List<TableName> tables;
        final String explain;
        final double[] millis;
        final long[] rowsRead;

        Way(String name, String side, List<TableName> tables, String explain, int runs) {
            this.name = name;
            this.side = side;
            this.tables = tables;
            this.explain = explain;
            millis = new double[runs];
            rowsRead = new long[runs];
        }
    }

    private final java.sql.Connection jdbc;
    private final RegionReads reads;
    private final int runs;
    private final RowKeyTable ours;
    private final List<TableName> oursPhysical;
    private final PhoenixTables.Table phoenix;
    private final List<Statistic> statistics = new ArrayList<>();
    private final List<String> json = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    /** Bytes to the client and rows read inside the regions, as ours reports them, per statistic. */
    private final Map<String, long[]> oursReported = new LinkedHashMap<>();

    PeerAggregates(Connection connection, java.sql.Connection jdbc, RegionReads reads, int runs, OurIndexedTable ourIndexed,
            RowKeySchema schema, PhoenixTables.Table phoenix) throws java.io.IOException {
        this.jdbc = jdbc;
        this.reads = reads;
        this.runs = runs;
        this.ours = RowKeyTable.open(connection, ourIndexed.name);
        this.oursPhysical = ourIndexed.physical();
        this.phoenix = phoenix;
        statistics.add(new Statistic("count(*) WHERE sdate = 20161209 AND code = 404",
                RowKeyQuery.on(schema).eq("sdate", 20161209).eq("code", 404), Aggregation.on(schema).count(),
                "SELECT %s COUNT(*) FROM %s WHERE \"sdate\" = 20161209 AND \"code\" = 404", false));
        statistics.add(new Statistic("sdate, code, count(*) GROUP BY sdate, code (whole table)",
                RowKeyQuery.on(schema), Aggregation.on(schema).groupBy("sdate").groupBy("code").count(),
                "SELECT %s \"sdate\", \"code\", COUNT(*) FROM %s GROUP BY \"sdate\", \"code\"", false, "sdate", "code"));
        statistics.add(new Statistic("count(*) (whole table)", RowKeyQuery.on(schema), Aggregation.on(schema).count(),
                "SELECT %s COUNT(*) FROM %s", false));
        statistics.add(new Statistic(
                "code, count(*), min(queue), max(type) WHERE sdate BETWEEN 20161201 AND 20161215 GROUP BY code",
                RowKeyQuery.on(schema).between("sdate", 20161201, 20161215),
                Aggregation.on(schema).groupBy("code").count().min("queue").max("type"),
                "SELECT %s \"code\", COUNT(*), MIN(\"queue\"), MAX(\"type\") FROM %s"
                        + " WHERE \"sdate\" BETWEEN 20161201 AND 20161215 GROUP BY \"code\"", false, "code"));
        statistics.add(new Statistic("sum(type), min(queue), max(scantype) WHERE code = 503 (no leading field)",
                RowKeyQuery.on(schema).eq("code", 503), Aggregation.on(schema).sum("type").min("queue").max("scantype"),
                "SELECT %s SUM(\"type\"), MIN(\"queue\"), MAX(\"scantype\") FROM %s WHERE \"code\" = 503", false));
        statistics.add(new Statistic("sitecode, count(*) WHERE code = 404 GROUP BY sitecode, top 10 by count",
                RowKeyQuery.on(schema).eq("code", 404),
                Aggregation.on(schema).groupBy("sitecode").count().orderByDescending(0).limit(10),
                "SELECT %s \"sitecode\", COUNT(*) FROM %s WHERE \"code\" = 404 GROUP BY \"sitecode\""
                        + " ORDER BY COUNT(*) DESC LIMIT 10", true, "sitecode"));
    }

    /** Measures every statistic; throws on the first answer that differs from ours. */
    void measure() throws Exception {
        for (Statistic s : statistics) {
            List<Way> ways = new ArrayList<>();
            ways.add(new Way("ours (RowKeyTable.aggregate)", "ours", oursPhysical, ours.explain(s.query, s.aggregation).trim(), runs));
            ways.add(new Way("Phoenix", "phoenix", phoenix.physical(), explain(sql(s, null)), runs));
            ways.add(new Way("Phoenix NO_INDEX", "phoenix", phoenix.physical(), explain(sql(s, "NO_INDEX")), runs));
            Map<String, List<Long>> expected = null;
            for (int run = -1; run < runs; run++) { // run -1: the warm-up, not recorded
                for (Way way : ways) {
                    long before = reads.total(way.tables);
                    long start = System.nanoTime();
                    Map<String, List<Long>> answer;
                    if (way.side.equals("ours")) {
                        AggregationResult r = ours.aggregate(s.query, s.aggregation);
                        double ms = Demo.millisSince(start);
                        answer = answer(r, s);
                        oursReported.put(s.name, new long[] {r.rowsReadOnServers(), r.bytesToClient()});
                        record(way, run, ms, reads.total(way.tables) - before);
                    } else {
                        answer = phoenix(s, way.name.endsWith("NO_INDEX") ? "NO_INDEX" : null, start, way, run, before);
                    }
                    if (expected == null) {
                        expected = answer;
                    } else if (!same(expected, answer, s.top)) {
                        throw new IllegalStateException(String.format(Locale.ROOT, "MISMATCH, %s, %s, %s: %s, ours %s",
                                s.name, way.name, run < 0 ? "warm-up run" : "run " + (run + 1), answer, expected));
                    }
                }
            }
            report(s, ways, expected.size());
        }
    }

    private void record(Way way, int run, double millis, long rowsRead) {
        if (run >= 0) {
            way.millis[run] = millis;
            way.rowsRead[run] = rowsRead;
        }
    }

    private String sql(Statistic s, String hint) {
        return String.format(Locale.ROOT, s.sql, hint == null ? "" : "/*+ " + hint + " */", phoenix.name);
    }

    /** Phoenix's statement, timed from preparing it to the last row read; its answer. */
    private Map<String, List<Long>> phoenix(Statistic s, String hint, long start, Way way, int run, long before)
            throws SQLException, java.io.IOException {
        List<Object[]> raw = new ArrayList<>();
        try (PreparedStatement statement = jdbc.prepareStatement(sql(s, hint)); ResultSet rs = statement.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Object[] row = new Object[columns];
                for (int c = 0; c < columns; c++) {
                    row[c] = rs.getObject(c + 1);
                }
                raw.add(row);
            }
        }
        record(way, run, Demo.millisSince(start), reads.total(way.tables) - before);
        Map<String, List<Long>> answer = new LinkedHashMap<>();
        for (Object[] row : raw) {
            Map<String, Object> groups = new LinkedHashMap<>();
            for (int g = 0; g < s.groups.length; g++) {
                groups.put(s.groups[g], row[g]);
            }
            List<Long> values = new ArrayList<>();
            for (int c = s.groups.length; c < row.length; c++) {
                values.add(((Number) row[c]).longValue());
            }
            answer.put(Demo.groupKey(groups, s.groups), values);
        }
        return answer;
    }

    private static Map<String, List<Long>> answer(AggregationResult result, Statistic s) {
        Map<String, List<Long>> answer = new LinkedHashMap<>();
        for (AggregationResult.Row row : result.rows()) {
            List<Long> values = new ArrayList<>();
            for (int i = 0; i < row.values().size(); i++) {
                values.add(row.longValue(i));
            }
            answer.put(Demo.groupKey(row.groups(), s.groups), values);
        }
        return answer;
    }

    /**
     * Equal answers; for a top-N the same counts in the same order, and a group both ways name has
     * the same count (a tie at the cut may keep other groups).
     */
    private static boolean same(Map<String, List<Long>> ours, Map<String, List<Long>> theirs, boolean top) {
        if (!top) {
            return new java.util.TreeMap<>(ours).equals(new java.util.TreeMap<>(theirs));
        }
        boolean same = new ArrayList<>(ours.values()).equals(new ArrayList<>(theirs.values()));
        for (Map.Entry<String, List<Long>> e : ours.entrySet()) {
            same &= !theirs.containsKey(e.getKey()) || theirs.get(e.getKey()).equals(e.getValue());
        }
        return same;
    }

    private String explain(String sql) throws SQLException {
        List<String> explain = new ArrayList<>();
        try (PreparedStatement statement = jdbc.prepareStatement("EXPLAIN " + sql); ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                explain.add(rs.getString(1));
            }
        }
        return sql + "\n" + String.join("\n", explain);
    }

    private void report(Statistic s, List<Way> ways, int groups) {
        double ours = EndToEnd.median(ways.get(0).millis);
        lines.add(String.format(Locale.ROOT, "%s  (%,d group(s))", s.name, groups));
        List<String> waysJson = new ArrayList<>();
        for (Way w : ways) {
            double ms = EndToEnd.median(w.millis);
            long read = Math.round(EndToEnd.median(Arrays.stream(w.rowsRead).asDoubleStream().toArray()));
            lines.add(String.format(Locale.ROOT, "    %-40s %9.1f ms %,12d read  %5.2fx ours", w.name, ms, read, ms / Math.max(ours, 0.01)));
            waysJson.add("{\"name\": " + EndToEnd.Json.string(w.name) + ", \"side\": " + EndToEnd.Json.string(w.side)
                    + ", \"wall_ms\": " + EndToEnd.Json.array(w.millis) + ", \"median_ms\": " + EndToEnd.Json.number(ms)
                    + ", \"rows_read\": " + EndToEnd.Json.array(w.rowsRead) + ", \"median_rows_read\": " + read
                    + ", \"explain\": " + EndToEnd.Json.string(w.explain) + "}");
        }
        long[] reported = oursReported.get(s.name);
        json.add("    {\"name\": " + EndToEnd.Json.string(s.name) + ", \"groups\": " + groups
                + ", \"same_answer\": true, \"ours_rows_read_on_servers\": " + reported[0]
                + ", \"ours_bytes_to_client\": " + reported[1]
                + ",\n     \"ways\": [\n       " + String.join(",\n       ", waysJson) + "\n     ]}");
    }

    /** The printed table, a statistic and its ways a few lines each. */
    List<String> lines() {
        return lines;
    }

    /** The JSON array's entries. */
    String json() {
        return String.join(",\n", json);
    }
}
