package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Planned scans where planning goes wrong in the field (docs/design.md, section 10): salted tables
 * (every bucket, the last one included), descending fields and negative numbers in leading
 * ranges, IN-list products above the cap. Each result is compared with an in-memory oracle.
 */
class PlannedScanIT extends HBaseMiniClusterBase {
    static final int BUCKETS = 8;
    static final String[] USERS = new String[20];

    static {
        for (int i = 0; i < USERS.length; i++) {
            USERS[i] = "user" + i;
        }
    }

    private final RowKeySchema salted = RowKeySchema.builder().salt(BUCKETS, "user")
            .fixedString("user", 8).int32("month").descending().int64("seq").bool("flag").build();
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private TableName table;
    private int regions;

    @BeforeAll
    void load() throws IOException {
        for (String user : USERS) {
            for (int month = -12; month < 12; month++) {
                for (long seq = -25; seq < 25; seq++) {
                    Map<String, Object> row = TestData.map("user", user, "month", month, "seq", seq * 1_000_000_007L, "flag", seq % 3 == 0);
                    rows.add(row);
                    keys.add(salted.encode(row));
                }
            }
        }
        byte[][] splits = new byte[BUCKETS - 1][];
        for (int b = 1; b < BUCKETS; b++) {
            splits[b - 1] = new byte[] {(byte) b};
        }
        table = createTable("salted", splits);
        putRows(table, keys, 5000);
        regions = connection().getRegionLocator(table).getAllRegionLocations().size();
    }

    @Test
    void aQueryWithoutTheSaltFieldReadsEveryBucket() throws IOException {
        RowKeyQuery q = RowKeyQuery.on(salted).between("month", -2, 1).eq("flag", true);
        List<byte[]> found = check(q, r -> between((Integer) r.get("month"), -2, 1) && (Boolean) r.get("flag"));
        TreeSet<Integer> buckets = new TreeSet<>();
        for (byte[] k : found) {
            buckets.add(k[0] & 0xff);
        }
        assertEquals(BUCKETS, buckets.size(), "rows from every bucket, the last one included: " + buckets);
    }

    @Test
    void fixingTheSaltFieldReadsOneBucket() throws IOException {
        RowKeyQuery q = RowKeyQuery.on(salted).eq("user", "user7").ge("month", 10);
        ScanOutcome out = scanWithMetrics(table, q.toScan());
        assertEquals(oracle(r -> r.get("user").equals("user7") && (Integer) r.get("month") >= 10), hexes(out.keys));
        assertTrue(q.explain().contains("salt buckets read: 1 of 8"), q.explain());
        assertTrue(out.rowsRead <= out.keys.size() + q.toRanges().size() + regions, "read " + out.rowsRead + "\n" + q.explain());
    }

    @Test
    void descendingNegativeRangesOnLeadingFields() throws IOException {
        for (int[] range : new int[][] {{-12, -12}, {-5, 3}, {Integer.MIN_VALUE, -10}, {11, Integer.MAX_VALUE}, {3, -5}}) {
            RowKeyQuery q = RowKeyQuery.on(salted).in("user", "user1", "user19").between("month", range[0], range[1]);
            ScanOutcome out = scanWithMetrics(table, q.toScan());
            assertEquals(oracle(r -> (r.get("user").equals("user1") || r.get("user").equals("user19"))
                    && between((Integer) r.get("month"), range[0], range[1])), hexes(out.keys), q.explain());
            assertTrue(out.rowsRead <= out.keys.size() + q.toRanges().size() + regions, "read " + out.rowsRead + "\n" + q.explain());
        }
    }

    @Test
    void inListsAboveTheCapStillReturnExactAnswers() throws IOException {
        Object[] months = {-12, -7, -1, 0, 4, 11};
        Object[] seqs = {-25 * 1_000_000_007L, 0L, 7 * 1_000_000_007L, 24 * 1_000_000_007L, 5L};
        Predicate<Map<String, Object>> expected = r -> (r.get("user").equals("user3") || r.get("user").equals("user4"))
                && contains(months, r.get("month")) && contains(seqs, r.get("seq"));
        RowKeyQuery uncapped = RowKeyQuery.on(salted).in("user", "user3", "user4").in("month", months).in("seq", seqs);
        // user x month x seq: 60 single-row ranges (those of adjacent keys merged).
        int ranges = uncapped.toRanges().size();
        assertTrue(ranges > 10 && ranges <= 2 * months.length * seqs.length, ranges + " ranges\n" + uncapped.explain());
        assertTrue(!uncapped.explain().contains("capped"), uncapped.explain());
        check(uncapped, expected);
        RowKeyQuery capped = RowKeyQuery.on(salted).in("user", "user3", "user4").in("month", months).in("seq", seqs).maxRanges(10);
        assertTrue(capped.explain().contains("capped"), capped.explain());
        assertTrue(capped.toRanges().size() <= 10);
        check(capped, expected);
    }

    @Test
    void contradictionsReadNothing() throws IOException {
        RowKeyQuery q = RowKeyQuery.on(salted).eq("month", 1).eq("month", 2);
        ScanOutcome out = scanWithMetrics(table, q.toScan());
        assertEquals(0, out.keys.size());
        assertTrue(out.rowsRead <= 1, "read " + out.rowsRead);
        assertTrue(q.explain().contains("no row can match"), q.explain());
    }

    private List<byte[]> check(RowKeyQuery q, Predicate<Map<String, Object>> where) throws IOException {
        ScanOutcome out = scanWithMetrics(table, q.toScan());
        assertEquals(oracle(where), hexes(out.keys), q.explain());
        return out.keys;
    }

    private TreeSet<String> oracle(Predicate<Map<String, Object>> where) {
        TreeSet<String> out = new TreeSet<>();
        for (int i = 0; i < rows.size(); i++) {
            if (where.test(rows.get(i))) {
                out.add(Bytes.toHex(keys.get(i)));
            }
        }
        return out;
    }

    private static TreeSet<String> hexes(List<byte[]> keys) {
        TreeSet<String> out = new TreeSet<>();
        for (byte[] k : keys) {
            out.add(Bytes.toHex(k));
        }
        return out;
    }

    private static boolean between(int v, int low, int high) {
        return low <= v && v <= high;
    }

    private static boolean contains(Object[] values, Object v) {
        for (Object x : values) {
            if (x.equals(v)) {
                return true;
            }
        }
        return false;
    }
}
