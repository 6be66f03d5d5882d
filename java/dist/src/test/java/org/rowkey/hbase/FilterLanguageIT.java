package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Queries as HBase filter-language strings ({@link RowKeyWhere}) on a real HBase: seed 000's three
 * queries and 44 random ones (some OR-ed), through {@code ParseFilter.parseFilterString}, forward
 * and reversed, on a table made by {@link RowKeyTable#create} (the schema from its catalog) and on
 * a plain table (the schema inline), equal the oracle; the rows the RegionServers read stay within
 * 1.25x of {@link RowKeyQuery#toScan()}'s for the same query, plus the row each region reads
 * before the filter's first seek and after its last range.
 */
class FilterLanguageIT extends HBaseMiniClusterBase {
    private static final int GENERATED = 20_000;
    private final RowKeySchema schema = TestData.seedSchema();
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private TableName catalogTable;
    private TableName plainTable;

    @BeforeAll
    void load() throws IOException {
        for (Object[] sample : SeedTableIT.SAMPLES) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int f = 0; f < SeedTableIT.FIELDS.length; f++) {
                row.put(SeedTableIT.FIELDS[f], sample[f]);
            }
            rows.add(row);
        }
        Random random = new Random(20161209);
        for (int i = 0; i < GENERATED; i++) {
            rows.add(SeedTableIT.randomRow(random, i));
        }
        for (Map<String, Object> row : rows) {
            keys.add(schema.encode(row));
        }
        byte[][] splits = {{0x40}, {(byte) 0x80}, {(byte) 0xc0}};
        catalogTable = TableName.valueOf("urlscan_catalog");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, catalogTable, schema, Collections.emptyList(), splits, FAMILY);
        }
        plainTable = createTable("urlscan_plain", splits);
        putRows(catalogTable, keys, 5000);
        putRows(plainTable, keys, 5000);
        RowKeyWhere.register();
    }

    @Test
    void seedAndRandomQueriesEqualTheOracleWithinTheReadBound() throws IOException {
        List<SeedTableIT.Condition[][]> queries = new ArrayList<>();
        queries.add(new SeedTableIT.Condition[][] {{new SeedTableIT.Condition("md5url", "=", "00a18048ed95f1c057fccc8928ddf610"),
                new SeedTableIT.Condition("sdate", "=", 20161208)}});
        queries.add(new SeedTableIT.Condition[][] {{new SeedTableIT.Condition("sdate", "=", 20161209),
                new SeedTableIT.Condition("code", "=", 404)}});
        queries.add(new SeedTableIT.Condition[][] {{new SeedTableIT.Condition("md5url", "=", "cbc2c0571464621024c89aa019cd09ef"),
                new SeedTableIT.Condition("sdate", ">", 20161208), new SeedTableIT.Condition("sdate", "<", 20161211)}});
        Random random = new Random(24);
        for (int q = 0; q < 44; q++) {
            SeedTableIT.Condition[][] branches = new SeedTableIT.Condition[q % 4 == 3 ? 2 : 1][];
            for (int b = 0; b < branches.length; b++) {
                List<SeedTableIT.Condition> where = new ArrayList<>();
                if (q % 2 == 0) {
                    // A leading-field condition, so the plan has ranges to seek to.
                    where.add(new SeedTableIT.Condition("md5url", "in", rows.get(random.nextInt(rows.size())).get("md5url"),
                            rows.get(random.nextInt(rows.size())).get("md5url")));
                }
                Collections.addAll(where, SeedTableIT.randomQuery(random, rows));
                branches[b] = where.toArray(new SeedTableIT.Condition[0]);
            }
            queries.add(branches);
        }
        int regions = connection().getRegionLocator(plainTable).getAllRegionLocations().size();
        long plannedRows = 0;
        long filterRows = 0;
        int nonEmpty = 0;
        for (SeedTableIT.Condition[][] branches : queries) {
            RowKeyQuery query = query(branches);
            List<String> expected = oracle(branches);
            nonEmpty += expected.isEmpty() ? 0 : 1;
            String where = query.toWhereClause();
            ScanOutcome planned = scanWithMetrics(plainTable, query.toScan());
            assertEquals(expected, SeedTableIT.hexes(planned.keys), "toScan: " + where);
            for (boolean catalog : new boolean[] {true, false}) {
                String filter = RowKeyWhere.filterString(where, catalog ? null : schema);
                TableName table = catalog ? catalogTable : plainTable;
                for (boolean reversed : new boolean[] {false, true}) {
                    Scan scan = new Scan().setFilter(new ParseFilter().parseFilterString(filter)).setReversed(reversed);
                    ScanOutcome got = scanWithMetrics(table, scan);
                    List<String> want = new ArrayList<>(expected);
                    if (reversed) {
                        Collections.reverse(want);
                    }
                    String label = filter + (reversed ? " reversed" : "") + "\n" + query.explain();
                    assertEquals(want, SeedTableIT.hexes(got.keys), label);
                    assertTrue(got.rowsRead <= planned.rowsRead * 5 / 4 + 2L * regions,
                            "read " + got.rowsRead + " rows, toScan " + planned.rowsRead + ": " + label);
                    plannedRows += planned.rowsRead;
                    filterRows += got.rowsRead;
                }
            }
        }
        assertTrue(nonEmpty >= 15, "queries with answers: " + nonEmpty);
        System.out.printf("FilterLanguageIT: %d queries x 4 scans: rows read by RowKeyWhere %d, by toScan %d, ratio %.3f%n",
                queries.size(), filterRows, plannedRows, (double) filterRows / plannedRows);
        assertTrue(filterRows <= plannedRows * 5 / 4, "rows read " + filterRows + " against toScan's " + plannedRows);
    }

    /**
     * A table made by an earlier version names the scan observer {@code RowKeyAggregateObserver}: it
     * still binds text queries to its catalog and aggregates in its regions, and adding an index
     * does not install the observer a second time under its new name (which would wrap every
     * aggregate twice).
     */
    @Test
    void aTableNamingTheScanObserverByItsOldNameBindsAggregatesAndGetsNoSecond() throws IOException {
        TableName old = TableName.valueOf("urlscan_old_observer");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, old, schema, Collections.emptyList(), new byte[][] {{(byte) 0x80}}, FAMILY);
            admin.modifyTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(admin.getDescriptor(old))
                    .removeCoprocessor(CoprocessorWire.SCAN_OBSERVER)
                    .setCoprocessor(CoprocessorWire.SCAN_OBSERVER_BEFORE).build());
        }
        putRows(old, keys.subList(0, 3000), 3000);
        String where = "code = 404";
        Scan text = new Scan().setFilter(new ParseFilter().parseFilterString(RowKeyWhere.filterString(where, null)));
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            if (Integer.valueOf(404).equals(rows.get(i).get("code"))) {
                expected.add(keys.get(i));
            }
        }
        assertEquals(expected.size(), scanRowKeys(old, text).size(), "rows of " + where + " through the filter language");
        RowKeyTable table = RowKeyTable.open(connection(), old);
        AggregationResult count = table.aggregate(RowKeyQuery.on(schema).noIndex(), Aggregation.on(schema).count());
        assertEquals(3000L, count.rows().get(0).longValue(0), "rows counted in the regions");
        table.addIndex(RowKeyIndex.of("by_code", "code"));
        try (Admin admin = connection().getAdmin()) {
            org.apache.hadoop.hbase.client.TableDescriptor d = admin.getDescriptor(old);
            assertTrue(d.hasCoprocessor(CoprocessorWire.SCAN_OBSERVER_BEFORE), d.toString());
            assertTrue(!d.hasCoprocessor(CoprocessorWire.SCAN_OBSERVER), "a second scan observer: " + d);
        }
        AggregationResult byIndex = table.aggregate(RowKeyQuery.on(schema).eq("code", 404), Aggregation.on(schema).count());
        assertEquals((long) expected.size(), byIndex.rows().isEmpty() ? 0L : byIndex.rows().get(0).longValue(0),
                "rows of code = 404 counted through the new index");
    }

    @Test
    void badFilterStringsFailTheScanWithTheirReason() {
        // where clause, schema text (null: the seed schema on the plain table, the catalog's on the other), error
        String[][] cases = {
            {"code = = 404", null, "syntax error at character 8: expected a value"},
            {"nope = 1", null, "at character 1: unknown field 'nope'"},
            {"md5url > 'a'", null, "field 'md5url': > is a range condition"},
            {"code = 1", "code int33", "syntax error at character 6: expected a field type"},
        };
        for (String[] c : cases) {
            for (TableName table : new TableName[] {catalogTable, plainTable}) {
                if (table == catalogTable && c[1] != null) {
                    continue;
                }
                String filter = table == catalogTable ? RowKeyWhere.filterString(c[0], null)
                        : RowKeyWhere.filterString(c[0], schema).replace(schema.toText(), c[1] == null ? schema.toText() : c[1]);
                Exception e = assertThrows(Exception.class,
                        () -> scanRowKeys(table, new Scan().setFilter(new ParseFilter().parseFilterString(filter))), filter);
                assertTrue(String.valueOf(e.getMessage()).contains(c[2]), filter + " on " + table + ": " + e);
            }
        }
        Exception noSchema = assertThrows(Exception.class,
                () -> scanRowKeys(plainTable, new Scan().setFilter(new ParseFilter().parseFilterString("RowKeyWhere('code = 404')"))));
        assertTrue(String.valueOf(noSchema.getMessage()).contains("has no schema: the table was not made by RowKeyTable.create")
                || String.valueOf(noSchema.getCause()).contains("has no schema"), noSchema.toString());
    }

    @Test
    void theCommandLinePrintsTheRowsAsTsvAndJsonAndExplains() throws IOException {
        String where = "sdate = 20161209 AND code = 404 AND NOT free";
        SeedTableIT.Condition[][] branches = {{new SeedTableIT.Condition("sdate", "=", 20161209),
                new SeedTableIT.Condition("code", "=", 404), new SeedTableIT.Condition("free", "=", false)}};
        int expected = oracle(branches).size();
        assertTrue(expected > 10, "answers: " + expected);
        for (String[] args : new String[][] {
            {"query", "--table", catalogTable.getNameAsString(), where},
            {"query", "--table", plainTable.getNameAsString(), "--schema", schema.toText(), "--json", where},
            {"query", "--table", plainTable.getNameAsString(), "--schema", schema.toText(), "--reversed", "--limit", "3", where},
        }) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int status = RowKeyCli.run(connection(), RowKeyCli.Options.parse(args), new java.io.PrintStream(out, true, "UTF-8"),
                    new java.io.PrintStream(err, true, "UTF-8"));
            assertEquals(0, status, err.toString("UTF-8"));
            String[] lines = out.toString("UTF-8").split("\n");
            boolean json = java.util.Arrays.asList(args).contains("--json");
            boolean limited = java.util.Arrays.asList(args).contains("--limit");
            int rowsPrinted = lines.length - (json ? 0 : 1);
            assertEquals(limited ? 3 : expected, rowsPrinted, String.join(" ", args));
            assertTrue(json ? lines[0].startsWith("{\"key\": {\"md5url\": \"x'") && lines[0].contains("\"code\": 404, \"sdate\": 20161209")
                    : lines[0].startsWith("md5url\tsitecode\tstatus\tcode\tsdate") && lines[1].contains("\t404\t20161209\t"), lines[0]);
            assertTrue(err.toString("UTF-8").contains((limited ? 3 : expected) + " rows in"), err.toString("UTF-8"));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertEquals(0, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"explain", "--table",
                catalogTable.getNameAsString(), where}), new java.io.PrintStream(out, true, "UTF-8"), System.err));
        assertTrue(out.toString("UTF-8").contains("sdate = 20161209 AND code = 404 AND free = false"), out.toString("UTF-8"));
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        assertEquals(2, RowKeyCli.run(connection(), RowKeyCli.Options.parse(new String[] {"query", "--table",
                catalogTable.getNameAsString(), "code = = 1"}), System.out, new java.io.PrintStream(err, true, "UTF-8")));
        assertTrue(err.toString("UTF-8").contains("syntax error at character 8"), err.toString("UTF-8"));
    }

    private RowKeyQuery query(SeedTableIT.Condition[][] branches) {
        RowKeyQuery[] queries = new RowKeyQuery[branches.length];
        for (int b = 0; b < branches.length; b++) {
            queries[b] = RowKeyQuery.on(schema);
            for (SeedTableIT.Condition c : branches[b]) {
                c.addTo(queries[b]);
            }
        }
        return queries.length == 1 ? queries[0] : RowKeyQuery.anyOf(queries);
    }

    /** The keys of rows some branch holds for, in key order. */
    private List<String> oracle(SeedTableIT.Condition[][] branches) {
        List<byte[]> matching = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            for (SeedTableIT.Condition[] branch : branches) {
                boolean all = true;
                for (SeedTableIT.Condition c : branch) {
                    all &= c.holds(rows.get(i));
                }
                if (all) {
                    matching.add(keys.get(i));
                    break;
                }
            }
        }
        matching.sort(Bytes.BYTES_COMPARATOR);
        return SeedTableIT.hexes(matching);
    }
}
