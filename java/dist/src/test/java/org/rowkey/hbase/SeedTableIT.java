package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's table on a real HBase: its 10 sample rows plus 100,000 generated rows, the seed's
 * three example queries and 60 random multi-condition queries, each run through RowFilters with
 * every comparator and compared with an in-memory oracle over the Java values.
 */
class SeedTableIT extends HBaseMiniClusterBase {
    static final int GENERATED = 100_000;
    static final String[] FIELDS = {"md5url", "sitecode", "status", "code", "sdate", "type", "free", "close", "queue", "scantype"};

    /** Seed 000's sample rows: md5url, sitecode, status, code, sdate, type, free, close, queue, scantype. */
    static final Object[][] SAMPLES = {
        {"ea67a96f233d6fcfd7cabc9a6a389283", "1509250008", -1, 404, 20161209, 2, false, false, 1, 1},
        {"fd38c0fb8f6e839be56b67c69ad2baa5", "3203000002", -1, 503, 20161209, 2, false, false, 1, 0},
        {"d51abcd8edff79d23ca4a9a0576a1996", "15BM010001", -1, 404, 20161209, 2, false, false, 0, 0},
        {"e27bbc9192e760bacc23c226ffd90219", "bm28020001", -1, 503, 20161209, 2, false, false, 1, 0},
        {"cbc2c0571464621024c89aa019cd09ef", "BT10000001", -1, 404, 20161210, 2, false, true, 1, 0},
        {"00a18048ed95f1c057fccc8928ddf610", "1101010059", -1, 503, 20161208, 2, true, false, 1, 0},
        {"e6bfa0a07e773e3bab27a37f36ff221a", "5226000038", -1, 404, 20161209, 2, false, false, 1, 0},
        {"e6217482388cbc57aa80422c3f64bb35", "bm70000001", -1, 404, 20161209, 2, false, false, 1, 0},
        {"b7912f3bdb50be7b58f5a67d65273201", "4408250003", -1, 404, 20161209, 2, false, false, 1, 0},
        {"e353cd577fd721eb71538d0938d041f7", "6326000004", -1, 404, 20161209, 2, false, false, 1, 0},
    };

    private final RowKeySchema schema = TestData.seedSchema();
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private TableName table;

    @BeforeAll
    void load() throws IOException {
        for (Object[] sample : SAMPLES) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int f = 0; f < FIELDS.length; f++) {
                row.put(FIELDS[f], sample[f]);
            }
            rows.add(row);
        }
        Random random = new Random(20161209);
        for (int i = 0; i < GENERATED; i++) {
            rows.add(randomRow(random, i));
        }
        for (Map<String, Object> row : rows) {
            keys.add(schema.encode(row));
        }
        assertEquals(rows.size(), new TreeSet<>(hexes(keys)).size(), "generated keys are unique");
        // Split on the md5 prefix so scans cross several regions.
        table = createTable("urlscan", new byte[] {0x40}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xc0});
        putRows(table, keys, 5000);
    }

    /** Small domains, so random conditions match some rows and not others. */
    static Map<String, Object> randomRow(Random r, int i) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("md5url", "url-" + i);
        row.put("sitecode", "site-" + r.nextInt(500));
        row.put("status", r.nextInt(4) - 2);
        row.put("code", new int[] {200, 301, 404, 500, 503}[r.nextInt(5)]);
        row.put("sdate", 20161201 + r.nextInt(31));
        row.put("type", r.nextInt(5) - 1);
        row.put("free", r.nextBoolean());
        row.put("close", r.nextInt(4) == 0);
        row.put("queue", r.nextInt(3) == 0 ? Integer.MIN_VALUE + r.nextInt(3) : r.nextInt(3) == 0 ? Integer.MAX_VALUE - r.nextInt(3) : r.nextInt(7) - 3);
        row.put("scantype", r.nextInt(3));
        return row;
    }

    // ------------------------------------------------------------------ the seed's queries

    @Test
    void seedQueryOne_md5urlAndSdate() throws IOException {
        Filter filter = new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema,
                TestData.map("md5url", "00a18048ed95f1c057fccc8928ddf610", "sdate", 20161208)));
        List<String> found = hexes(scanRowKeys(table, filter));
        assertEquals(Arrays.asList(Bytes.toHex(keys.get(5))), found);
    }

    @Test
    void seedQueryTwo_sdateAndCode404() throws IOException {
        Filter filter = new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, TestData.map("sdate", 20161209, "code", 404)));
        Condition[] where = {new Condition("sdate", "=", 20161209), new Condition("code", "=", 404)};
        TreeSet<String> expected = oracle(where);
        assertTrue(expected.size() > 100, "the query has many answers: " + expected.size());
        assertEquals(expected, new TreeSet<>(hexes(scanRowKeys(table, filter))));
    }

    @Test
    void seedQueryThree_md5urlAndSdateRange() throws IOException {
        String md5url = "cbc2c0571464621024c89aa019cd09ef";
        FilterList filters = new FilterList(FilterList.Operator.MUST_PASS_ALL,
                new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, TestData.map("md5url", md5url))),
                new RowFilter(CompareOperator.GREATER, new RangeComparator(schema, "sdate", 20161208)),
                new RowFilter(CompareOperator.LESS, new RangeComparator(schema, "sdate", 20161211)));
        assertEquals(Arrays.asList(Bytes.toHex(keys.get(4))), hexes(scanRowKeys(table, filters)));
        PredicateComparator one = RowKeyQuery.on(schema).eq("md5url", md5url).gt("sdate", 20161208).lt("sdate", 20161211).toComparator();
        assertEquals(Arrays.asList(Bytes.toHex(keys.get(4))), hexes(scanRowKeys(table, new RowFilter(CompareOperator.EQUAL, one))));
    }

    // ------------------------------------------------------------------ random queries

    @Test
    void randomQueriesMatchTheOracleWithEveryComparator() throws IOException {
        Random random = new Random(7);
        int nonEmpty = 0;
        for (int q = 0; q < 40; q++) {
            Condition[] where = randomQuery(random, rows);
            TreeSet<String> expected = oracle(where);
            nonEmpty += expected.isEmpty() ? 0 : 1;
            String label = "query " + q + ": " + Arrays.toString(where);

            RowKeyQuery query = RowKeyQuery.on(schema);
            for (Condition c : where) {
                c.addTo(query);
            }
            Filter predicate = new RowFilter(CompareOperator.EQUAL, query.toComparator());
            assertEquals(expected, new TreeSet<>(hexes(scanRowKeys(table, predicate))), "predicate comparator, " + label);

            assertEquals(expected, new TreeSet<>(hexes(scanRowKeys(table, query.toScan()))), "planned scan, " + label);

            Filter seedStyle = seedStyleFilter(where, random);
            assertEquals(expected, new TreeSet<>(hexes(scanRowKeys(table, seedStyle))), "seed-style filter list, " + label);
        }
        assertTrue(nonEmpty >= 13, "random queries should often have answers: " + nonEmpty);
    }

    @Test
    void plannedScansReadOnlyTheirRanges() throws IOException {
        Random random = new Random(11);
        int exactQueries = 0;
        // HBase reads the first row after each range (to learn it is outside) and may read one
        // row where each region's scanner starts before the filter's seek hint moves it on.
        int regions = connection().getRegionLocator(table).getAllRegionLocations().size();
        for (int q = 0; q < 40; q++) {
            // Leading-field conditions (what planning is for), then random others.
            List<Condition> where = new ArrayList<>();
            Object[] urls = new Object[1 + random.nextInt(q % 3 == 0 ? 5 : 1)];
            for (int i = 0; i < urls.length; i++) {
                urls[i] = rows.get(random.nextInt(rows.size())).get("md5url");
            }
            where.add(urls.length == 1 ? new Condition("md5url", "=", urls[0]) : new Condition("md5url", "in", urls));
            boolean exact = q % 2 == 0;
            if (!exact) {
                where.addAll(Arrays.asList(randomQuery(random, rows)));
            }
            Condition[] conditions = where.toArray(new Condition[0]);
            RowKeyQuery query = RowKeyQuery.on(schema);
            for (Condition c : conditions) {
                c.addTo(query);
            }
            TreeSet<String> expected = oracle(conditions);
            ScanOutcome planned = scanWithMetrics(table, query.toScan());
            String label = "query " + q + ": " + where + "\n" + query.explain();
            assertEquals(expected, new TreeSet<>(hexes(planned.keys)), label);

            List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange> ranges = query.toRanges();
            long insideRanges = 0;
            for (byte[] key : keys) {
                for (org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange r : ranges) {
                    insideRanges += r.contains(key) ? 1 : 0;
                }
            }
            assertTrue(planned.rowsRead <= insideRanges + ranges.size() + regions,
                    "read " + planned.rowsRead + " rows, " + insideRanges + " inside " + ranges.size() + " ranges; " + label);
            if (exact) {
                // Everything enforced by the ranges: nothing read beyond the answer but the rows above.
                assertTrue(planned.rowsRead <= expected.size() + ranges.size() + regions,
                        "read " + planned.rowsRead + " for " + expected.size() + " rows in " + ranges.size() + " ranges; " + label);
                exactQueries++;
            }
        }
        assertEquals(20, exactQueries);
    }

    /** The seed's way: equalities in one EqualComparator, each range its own RowFilter, all six operators used. */
    private Filter seedStyleFilter(Condition[] where, Random random) {
        FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL);
        Map<String, Object> equalities = new LinkedHashMap<>();
        for (Condition c : where) {
            boolean ordered = !c.field.equals("md5url") && !c.field.equals("sitecode") && !c.field.equals("free") && !c.field.equals("close");
            switch (c.op) {
                case "=":
                    if (ordered && random.nextBoolean()) {
                        all.addFilter(new RowFilter(CompareOperator.EQUAL, new RangeComparator(schema, c.field, c.values[0])));
                    } else {
                        equalities.put(c.field, c.values[0]);
                    }
                    break;
                case "!=":
                    all.addFilter(ordered && random.nextBoolean()
                            ? new RowFilter(CompareOperator.NOT_EQUAL, new RangeComparator(schema, c.field, c.values[0]))
                            : new RowFilter(CompareOperator.NOT_EQUAL, new EqualComparator(schema, TestData.map(c.field, c.values[0]))));
                    break;
                case "<": all.addFilter(new RowFilter(CompareOperator.LESS, new RangeComparator(schema, c.field, c.values[0]))); break;
                case "<=": all.addFilter(new RowFilter(CompareOperator.LESS_OR_EQUAL, new RangeComparator(schema, c.field, c.values[0]))); break;
                case ">": all.addFilter(new RowFilter(CompareOperator.GREATER, new RangeComparator(schema, c.field, c.values[0]))); break;
                case ">=": all.addFilter(new RowFilter(CompareOperator.GREATER_OR_EQUAL, new RangeComparator(schema, c.field, c.values[0]))); break;
                case "between":
                    all.addFilter(new RowFilter(CompareOperator.GREATER_OR_EQUAL, new RangeComparator(schema, c.field, c.values[0])));
                    all.addFilter(new RowFilter(CompareOperator.LESS_OR_EQUAL, new RangeComparator(schema, c.field, c.values[1])));
                    break;
                case "in": {
                    FilterList any = new FilterList(FilterList.Operator.MUST_PASS_ONE);
                    for (Object v : c.values) {
                        any.addFilter(new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, TestData.map(c.field, v))));
                    }
                    if (c.values.length == 0) {
                        // IN () matches nothing: a comparator no row equals.
                        any.addFilter(new RowFilter(CompareOperator.EQUAL, RowKeyQuery.on(schema).in(c.field).toComparator()));
                    }
                    all.addFilter(any);
                    break;
                }
                default:
                    throw new IllegalArgumentException(c.op);
            }
        }
        if (!equalities.isEmpty()) {
            all.addFilter(new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, equalities)));
        }
        return all;
    }

    /** 1-4 random conditions on values that occur in {@code rows}. */
    static Condition[] randomQuery(Random r, List<Map<String, Object>> rows) {
        int n = 1 + r.nextInt(4);
        Condition[] where = new Condition[n];
        for (int i = 0; i < n; i++) {
            Map<String, Object> source = rows.get(r.nextInt(rows.size()));
            String field = FIELDS[r.nextInt(FIELDS.length)];
            Object v = source.get(field);
            boolean ordered = v instanceof Integer;
            String[] ops = ordered ? new String[] {"=", "!=", "<", "<=", ">", ">=", "between", "in"} : new String[] {"=", "!=", "in"};
            String op = ops[r.nextInt(ops.length)];
            switch (op) {
                case "between": {
                    int a = (Integer) v;
                    int b = (Integer) rows.get(r.nextInt(rows.size())).get(field);
                    where[i] = new Condition(field, op, Math.min(a, b), Math.max(a, b));
                    break;
                }
                case "in": {
                    Object[] values = new Object[r.nextInt(4)];
                    for (int k = 0; k < values.length; k++) {
                        values[k] = rows.get(r.nextInt(rows.size())).get(field);
                    }
                    where[i] = new Condition(field, op, values);
                    break;
                }
                default:
                    where[i] = new Condition(field, op, v);
            }
        }
        return where;
    }

    // ------------------------------------------------------------------ the oracle

    private TreeSet<String> oracle(Condition[] where) {
        TreeSet<String> expected = new TreeSet<>();
        for (int i = 0; i < rows.size(); i++) {
            boolean all = true;
            for (Condition c : where) {
                all &= c.holds(rows.get(i));
            }
            if (all) {
                expected.add(Bytes.toHex(keys.get(i)));
            }
        }
        return expected;
    }

    static List<String> hexes(List<byte[]> keys) {
        List<String> out = new ArrayList<>(keys.size());
        for (byte[] k : keys) {
            out.add(Bytes.toHex(k));
        }
        return out;
    }

    /** One condition, evaluated on Java values: the oracle's semantics, written independently. */
    static final class Condition {
        final String field;
        final String op;
        final Object[] values;

        Condition(String field, String op, Object... values) {
            this.field = field;
            this.op = op;
            this.values = values;
        }

        void addTo(RowKeyQuery q) {
            switch (op) {
                case "=": q.eq(field, values[0]); break;
                case "!=": q.ne(field, values[0]); break;
                case "<": q.lt(field, values[0]); break;
                case "<=": q.le(field, values[0]); break;
                case ">": q.gt(field, values[0]); break;
                case ">=": q.ge(field, values[0]); break;
                case "between": q.between(field, values[0], values[1]); break;
                case "in": q.in(field, values); break;
                default: throw new IllegalArgumentException(op);
            }
        }

        boolean holds(Map<String, Object> row) {
            Object v = row.get(field);
            switch (op) {
                case "=": return same(v, values[0]);
                case "!=": return !same(v, values[0]);
                case "<": return compare(v, values[0]) < 0;
                case "<=": return compare(v, values[0]) <= 0;
                case ">": return compare(v, values[0]) > 0;
                case ">=": return compare(v, values[0]) >= 0;
                case "between": return compare(v, values[0]) >= 0 && compare(v, values[1]) <= 0;
                case "in":
                    for (Object x : values) {
                        if (same(v, x)) {
                            return true;
                        }
                    }
                    return false;
                default: throw new IllegalArgumentException(op);
            }
        }

        /** sitecode is stored as String.hashCode(): equal hashes are equal values, as in the key. */
        private boolean same(Object a, Object b) {
            if (field.equals("sitecode")) {
                return a.hashCode() == b.hashCode();
            }
            return a.equals(b);
        }

        private static int compare(Object a, Object b) {
            return Integer.compare((Integer) a, (Integer) b);
        }

        @Override
        public String toString() {
            return field + " " + op + " " + Arrays.toString(values);
        }
    }
}
