package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SkipScanFilter} on a real RegionServer: random queries over a plain and a salted table,
 * each pre-split at random keys, scanned forward and reversed, with the filter alone and behind
 * another filter in a {@code FilterList(MUST_PASS_ALL)} (which rejects rows by row key first: the
 * HBASE-28622 trap). Each answer equals the in-memory oracle (reversed: exactly the forward rows
 * reversed), and the rows the servers read are at most the rows the filter keeps, plus one per
 * seek and per row it moves past by one, plus one per region: counted by replaying the same
 * filter over the table's sorted keys, region by region, as the RegionServer walks them.
 */
class SkipScanIT extends HBaseMiniClusterBase {
    static final long SEED = 0x5C1B_11L;
    static final int QUERIES = 12;

    /** A table: its schema, rows, keys (sorted) and region start keys. */
    private static final class Loaded {
        final RowKeySchema schema;
        final List<Map<String, Object>> rows = new ArrayList<>();
        final List<byte[]> sortedKeys = new ArrayList<>();
        TableName name;
        byte[][] regionStarts;

        Loaded(RowKeySchema schema) {
            this.schema = schema;
        }
    }

    private final Random random = new Random(SEED);
    private Loaded plain;
    private Loaded salted;

    @BeforeAll
    void load() throws IOException {
        plain = load("skip_plain", RowKeySchema.builder().int32("a").fixedString("b", 2).descending()
                .bool("flag").int32("c").build());
        salted = load("skip_salted", RowKeySchema.builder().salt(4, "a").int32("a").fixedString("b", 2).descending()
                .bool("flag").int32("c").build());
    }

    private Loaded load(String name, RowKeySchema schema) throws IOException {
        Loaded t = new Loaded(schema);
        String[] bs = {"", "a", "ab", "b", "zz"};
        for (int a = -10; a < 20; a++) {
            for (String b : bs) {
                for (int c = 0; c < 12; c++) {
                    if (random.nextInt(4) == 0) {
                        continue; // holes, so seeks land between rows
                    }
                    t.rows.add(TestData.map("a", a, "b", b, "flag", (a + c) % 3 == 0, "c", c * 1000 - 5000));
                }
            }
        }
        for (Map<String, Object> row : t.rows) {
            t.sortedKeys.add(schema.encode(row));
        }
        t.sortedKeys.sort(Bytes.BYTES_COMPARATOR);
        TreeSet<byte[]> splits = new TreeSet<>(Bytes.BYTES_COMPARATOR);
        int wanted = 3 + random.nextInt(5);
        while (splits.size() < wanted) {
            // Split at existing keys and at arbitrary points between them.
            byte[] key = t.sortedKeys.get(1 + random.nextInt(t.sortedKeys.size() - 1)).clone();
            if (random.nextBoolean()) {
                key = java.util.Arrays.copyOf(key, 1 + random.nextInt(key.length));
            }
            if (key.length > 0 && !(key.length == 1 && key[0] == 0)) {
                splits.add(key);
            }
        }
        t.name = createTable(name, splits.toArray(new byte[0][]));
        putRows(t.name, t.sortedKeys, 2000);
        t.regionStarts = connection().getRegionLocator(t.name).getStartKeys();
        java.util.Arrays.sort(t.regionStarts, Bytes.BYTES_COMPARATOR);
        return t;
    }

    /** One random condition: added to the query, and the same test on the row's values. */
    private Predicate<Map<String, Object>> randomCondition(RowKeyQuery q) {
        int a1 = random.nextInt(34) - 12;
        int a2 = a1 + random.nextInt(8);
        int c1 = (random.nextInt(14) - 1) * 1000 - 5000;
        String[] bs = {"", "a", "ab", "b", "zz", "c"};
        String b = bs[random.nextInt(bs.length)];
        switch (random.nextInt(11)) {
            case 0: q.eq("a", a1); return r -> (int) r.get("a") == a1;
            case 1: q.in("a", a1, a2, a2 + 3); return r -> (int) r.get("a") == a1 || (int) r.get("a") == a2 || (int) r.get("a") == a2 + 3;
            case 2: q.between("a", a1, a2); return r -> (int) r.get("a") >= a1 && (int) r.get("a") <= a2;
            case 3: q.ne("a", a1); return r -> (int) r.get("a") != a1;
            case 4: q.eq("b", b); return r -> r.get("b").equals(b);
            case 5: q.lt("b", b); return r -> ((String) r.get("b")).compareTo(b) < 0;
            case 6: q.in("b", b, "a"); return r -> r.get("b").equals(b) || r.get("b").equals("a");
            case 7: q.eq("flag", a1 % 2 == 0); return r -> (boolean) r.get("flag") == (a1 % 2 == 0);
            case 8: q.in("c", c1, c1 + 2000, 7777); return r -> (int) r.get("c") == c1 || (int) r.get("c") == c1 + 2000;
            case 9: q.ge("c", c1); return r -> (int) r.get("c") >= c1;
            default: q.ne("c", c1).le("c", c1 + 4000); return r -> (int) r.get("c") != c1 && (int) r.get("c") <= c1 + 4000;
        }
    }

    @Test
    void randomQueriesOnAPlainTable() throws IOException {
        runQueries(plain);
    }

    @Test
    void randomQueriesOnASaltedTable() throws IOException {
        runQueries(salted);
    }

    private void runQueries(Loaded t) throws IOException {
        int nonEmpty = 0;
        long seeksSeen = 0;
        long kept = 0;
        long read = 0;
        int plannedSkips = 0;
        for (int i = 0; i < QUERIES; i++) {
            RowKeyQuery q = RowKeyQuery.on(t.schema);
            Predicate<Map<String, Object>> where = randomCondition(q);
            for (int n = random.nextInt(3); n > 0; n--) {
                where = where.and(randomCondition(q));
            }
            RowKeyQuery other = RowKeyQuery.on(t.schema);
            Predicate<Map<String, Object>> otherWhere = randomCondition(other);
            List<String> expected = oracle(t, where);
            List<String> expectedBoth = oracle(t, where.and(otherWhere));
            nonEmpty += expected.isEmpty() ? 0 : 1;
            // The planned scan, whichever way it reads (explain says which).
            String explain = q.explain();
            plannedSkips += explain.contains("SKIP SCAN") ? 1 : 0;
            assertEquals(expected, hexes(scanWithMetrics(t.name, q.toScan()).keys), "toScan of " + explain);
            for (boolean reversed : new boolean[] {false, true}) {
                SkipScanReplay replay = SkipScanReplay.of(t.sortedKeys, t.regionStarts, q, reversed);
                assertEquals(ordered(expected, reversed), replay.keys, "replay of " + q);
                seeksSeen += replay.seeks;
                String what = q + (reversed ? " reversed" : "");

                ScanOutcome alone = scanWithMetrics(t.name, new Scan().setReversed(reversed).setFilter(new SkipScanFilter(q)));
                assertEquals(ordered(expected, reversed), hexes(alone.keys), what);
                assertRead(alone, replay, what);
                kept += alone.keys.size();
                read += alone.rowsRead;

                // The other filter first: it rejects rows by row key before the skip scan sees them.
                Filter list = new FilterList(FilterList.Operator.MUST_PASS_ALL,
                        new RowFilter(CompareOperator.EQUAL, other.toComparator()), new SkipScanFilter(q));
                ScanOutcome both = scanWithMetrics(t.name, new Scan().setReversed(reversed).setFilter(list));
                assertEquals(ordered(expectedBoth, reversed), hexes(both.keys), what + " AND " + other);
                if (SkipScanFilter.hintingFilterExists()) {
                    assertRead(both, replay, what + " in a FilterList with " + other);
                } // else: an HBase without the HintingFilter marker (HBASE-28622, before 2.5.9 / 2.6.1) drops
                  // the seek hints of a filter inside FilterList(MUST_PASS_ALL): exact rows, every row read

            }
        }
        System.out.printf("SkipScanIT %s: %d queries x 2 directions over %d rows in %d regions: %d rows kept, %d read, %d seeks;"
                + " toScan chose the skip scan for %d%n", t.name, QUERIES, t.rows.size(), t.regionStarts.length, kept, read,
                seeksSeen, plannedSkips);
        assertTrue(nonEmpty >= QUERIES / 3, "too few queries match anything: " + nonEmpty);
        assertTrue(seeksSeen > QUERIES, "the queries hardly seek: " + seeksSeen);
    }

    private void assertRead(ScanOutcome out, SkipScanReplay replay, String what) {
        // Every row the filter's walk visits is kept, skipped by one row, or left by a seek.
        assertTrue(out.rowsRead <= replay.readBound(), what + ": read " + out.rowsRead + " rows, more than " + replay);
    }

    private static List<String> oracle(Loaded t, Predicate<Map<String, Object>> where) {
        TreeSet<String> out = new TreeSet<>();
        for (Map<String, Object> row : t.rows) {
            if (where.test(row)) {
                out.add(Bytes.toHex(t.schema.encode(row)));
            }
        }
        return new ArrayList<>(out);
    }

    private static List<String> ordered(List<String> ascending, boolean reversed) {
        List<String> out = new ArrayList<>(ascending);
        if (reversed) {
            Collections.reverse(out);
        }
        return out;
    }

    private static List<String> hexes(List<byte[]> keys) {
        List<String> out = new ArrayList<>();
        for (byte[] k : keys) {
            out.add(Bytes.toHex(k));
        }
        return out;
    }
}
