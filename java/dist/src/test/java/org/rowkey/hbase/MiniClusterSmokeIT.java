package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HBase 2.6 runs here (this JDK, these flags), and scans filtered by our comparators return
 * exactly the expected rows: the filter is serialized by the client, rebuilt on the RegionServer
 * by {@code parseFrom} and applied per row in every region.
 */
class MiniClusterSmokeIT extends HBaseMiniClusterBase {
    private static final byte[] WRONG_LENGTH_ROW = Bytes.toBytes("junk");

    private final RowKeySchema schema = TestData.seedSchema();
    private final Map<String, Map<String, Object>> rowsByKey = new LinkedHashMap<>();
    private TableName table;

    @BeforeAll
    void loadRows() throws Exception {
        // md5 first: keys spread evenly over the four regions.
        table = createTable("smoke_seed", new byte[] {0x40}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xc0});
        int[] codes = {200, 404, 500};
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            Map<String, Object> row = TestData.seedRow("http://site/" + i, codes[(i / 12) % 3], 20161201 + (i % 12), i % 4, i % 2 == 0);
            byte[] key = schema.encode(row);
            keys.add(key);
            rowsByKey.put(Bytes.toHex(key), row);
        }
        keys.add(WRONG_LENGTH_ROW);
        putRows(table, keys, 50);
    }

    private List<String> scan(Filter filter) throws Exception {
        List<String> keys = new ArrayList<>();
        for (byte[] k : scanRowKeys(table, filter)) {
            keys.add(Bytes.toHex(k));
        }
        return keys;
    }

    /** The rows of the right length whose values satisfy {@code p}, in key order. */
    private List<String> expected(Predicate<Map<String, Object>> p) {
        TreeSet<String> keys = new TreeSet<>();
        for (Map.Entry<String, Map<String, Object>> e : rowsByKey.entrySet()) {
            if (p.test(e.getValue())) {
                keys.add(e.getKey());
            }
        }
        return new ArrayList<>(keys);
    }

    private static int sdate(Map<String, Object> r) {
        return (Integer) r.get("sdate");
    }

    @Test
    void builtInFilterScan() throws Exception {
        TableName t = createTable("smoke_builtin", Bytes.toBytes("b"));
        List<byte[]> rows = new ArrayList<>();
        for (String p : new String[] {"a", "b", "c"}) {
            for (int i = 0; i < 10; i++) {
                rows.add(Bytes.toBytes(p + i));
            }
        }
        putRows(t, rows, 7);
        assertEquals(30, scanRowKeys(t, (Filter) null).size());
        List<byte[]> b = scanRowKeys(t, new PrefixFilter(Bytes.toBytes("b")));
        assertEquals(10, b.size());
        for (int i = 0; i < 10; i++) {
            assertEquals("b" + i, Bytes.toString(b.get(i)));
        }
    }

    @Test
    void equalComparator() throws Exception {
        EqualComparator eq = new EqualComparator(schema, TestData.map("sdate", 20161209, "code", 404));
        List<String> expected = expected(r -> sdate(r) == 20161209 && r.get("code").equals(404));
        assertFalse(expected.isEmpty());
        assertEquals(expected, scan(new RowFilter(CompareOperator.EQUAL, eq)));
        // NOT_EQUAL: the complement, the wrong-length row included
        List<String> complement = expected(r -> !(sdate(r) == 20161209 && r.get("code").equals(404)));
        complement.add(Bytes.toHex(WRONG_LENGTH_ROW));
        complement.sort(null);
        assertEquals(complement, scan(new RowFilter(CompareOperator.NOT_EQUAL, eq)));
    }

    @Test
    void rangeComparatorWithEveryOperator() throws Exception {
        int v = 20161205;
        RangeComparator range = new RangeComparator(schema, "sdate", v);
        String junk = Bytes.toHex(WRONG_LENGTH_ROW);
        Map<CompareOperator, List<String>> cases = new LinkedHashMap<>();
        cases.put(CompareOperator.LESS, withJunk(expected(r -> sdate(r) < v), junk));
        cases.put(CompareOperator.LESS_OR_EQUAL, withJunk(expected(r -> sdate(r) <= v), junk));
        cases.put(CompareOperator.EQUAL, expected(r -> sdate(r) == v));
        cases.put(CompareOperator.NOT_EQUAL, withJunk(expected(r -> sdate(r) != v), junk));
        cases.put(CompareOperator.GREATER_OR_EQUAL, expected(r -> sdate(r) >= v));
        cases.put(CompareOperator.GREATER, expected(r -> sdate(r) > v));
        for (Map.Entry<CompareOperator, List<String>> c : cases.entrySet()) {
            assertEquals(c.getValue(), scan(new RowFilter(c.getKey(), range)), "sdate " + c.getKey() + " " + v);
        }
    }

    private static List<String> withJunk(List<String> keys, String junk) {
        List<String> all = new ArrayList<>(keys);
        all.add(junk);
        all.sort(null);
        return all;
    }

    @Test
    void twoRangesInAFilterList() throws Exception {
        FilterList both = new FilterList(FilterList.Operator.MUST_PASS_ALL,
                new RowFilter(CompareOperator.GREATER, new RangeComparator(schema, "sdate", 20161201)),
                new RowFilter(CompareOperator.LESS, new RangeComparator(schema, "sdate", 20161209)));
        assertEquals(expected(r -> sdate(r) > 20161201 && sdate(r) < 20161209), scan(both));
    }

    @Test
    void predicateComparator() throws Exception {
        PredicateComparator p = RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209)
                .in("type", 1, 2).toComparator();
        List<String> expected = expected(r -> r.get("code").equals(404) && sdate(r) >= 20161201 && sdate(r) <= 20161209
                && Arrays.asList(1, 2).contains(r.get("type")));
        assertFalse(expected.isEmpty());
        assertEquals(expected, scan(new RowFilter(CompareOperator.EQUAL, p)));
    }
}
