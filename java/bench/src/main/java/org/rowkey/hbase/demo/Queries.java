package org.rowkey.hbase.demo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.rowkey.hbase.EqualComparator;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;

/**
 * The three benchmark queries on seed 000's schema, each written five ways: the oracle (plain
 * Java on the generated field values), our native comparator, the seed's pure-Java way (a
 * FilterList of RowFilters over a mask/value comparator and per-field range comparators, with
 * the seed's zero-wildcard and overflow bugs fixed), the best pure-Java word-wise comparator we
 * could write, and HBase's built-ins (FuzzyRowFilter for equalities, BinaryComponentComparator
 * RowFilters for ranges and IN).
 *
 * <ul>
 * <li>EQ2: code = 404 and sdate = 20161209;</li>
 * <li>P4: code = 404, type = 2, sdate in [20161205, 20161215], queue in [1, 2];</li>
 * <li>P8: code IN (20 values), status = -1, type in [2, 3], sdate in [20161203, 20161225],
 *     queue &lt;= 2, scantype = 0, free = false, close = false.</li>
 * </ul>
 */
public final class Queries {
    static final int[] CODES_IN = {404, 503, 200, 301, 500, 600, 601, 602, 603, 604,
        605, 606, 607, 608, 609, 610, 611, 612, 613, 614};

    public enum Query { EQ2, P4, P8 }

    private final RowKeySchema schema;
    private final Map<String, Integer> offsets = new LinkedHashMap<>();
    /** Byte offset and bit mask of each bool field. */
    private final Map<String, int[]> bits = new LinkedHashMap<>();

    public Queries(RowKeySchema schema) {
        this.schema = schema;
        Map<String, Object> base = baseRow(false, false);
        byte[] k0 = schema.encode(base);
        for (String f : new String[] {"status", "code", "sdate", "type", "queue", "scantype"}) {
            Map<String, Object> other = new LinkedHashMap<>(base);
            other.put(f, ~((Integer) base.get(f)));
            byte[] k1 = schema.encode(other);
            int first = -1;
            for (int i = 0; i < k0.length; i++) {
                if (k0[i] != k1[i]) {
                    first = i;
                    break;
                }
            }
            offsets.put(f, first);
        }
        for (String f : new String[] {"free", "close"}) {
            Map<String, Object> other = new LinkedHashMap<>(base);
            other.put(f, true);
            byte[] k1 = schema.encode(other);
            for (int i = 0; i < k0.length; i++) {
                if (k0[i] != k1[i]) {
                    bits.put(f, new int[] {i, (k0[i] ^ k1[i]) & 0xff});
                }
            }
        }
    }

    private static Map<String, Object> baseRow(boolean free, boolean close) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("md5url", "00000000");
        row.put("sitecode", "x");
        row.put("status", 7);
        row.put("code", 11);
        row.put("sdate", 13);
        row.put("type", 17);
        row.put("free", free);
        row.put("close", close);
        row.put("queue", 19);
        row.put("scantype", 23);
        return row;
    }

    /** Our encoding of an int32: big-endian with the sign bit flipped. */
    static byte[] int32(int v) {
        return Bytes.toBytes(v ^ Integer.MIN_VALUE);
    }

    int offset(String field) {
        return offsets.get(field);
    }

    // ---- the oracle ----

    public static boolean oracle(Query q, BenchData d, int i) {
        switch (q) {
            case EQ2:
                return d.code[i] == 404 && d.sdate[i] == 20161209;
            case P4:
                return d.code[i] == 404 && d.type[i] == 2 && d.sdate[i] >= 20161205 && d.sdate[i] <= 20161215
                        && d.queue[i] >= 1 && d.queue[i] <= 2;
            default:
                return Arrays.stream(CODES_IN).anyMatch(c -> c == d.code[i]) && d.status[i] == -1
                        && d.type[i] >= 2 && d.type[i] <= 3 && d.sdate[i] >= 20161203 && d.sdate[i] <= 20161225
                        && d.queue[i] <= 2 && d.scantype[i] == 0 && !d.free[i] && !d.close[i];
        }
    }

    // ---- ours ----

    public ByteArrayComparable nativeComparator(Query q) {
        switch (q) {
            case EQ2: {
                Map<String, Object> eq = new LinkedHashMap<>();
                eq.put("code", 404);
                eq.put("sdate", 20161209);
                return new EqualComparator(schema, eq);
            }
            case P4:
                return RowKeyQuery.on(schema).eq("code", 404).eq("type", 2).between("sdate", 20161205, 20161215)
                        .between("queue", 1, 2).toComparator();
            default: {
                Object[] codes = Arrays.stream(CODES_IN).boxed().toArray();
                return RowKeyQuery.on(schema).in("code", codes).eq("status", -1).between("type", 2, 3)
                        .between("sdate", 20161203, 20161225).le("queue", 2).eq("scantype", 0)
                        .eq("free", false).eq("close", false).toComparator();
            }
        }
    }

    // ---- the seed's way ----

    /** The masks and values of the query's equalities over the whole key. */
    private byte[][] equalityMask(Query q) {
        byte[] mask = new byte[BenchData.KEY];
        byte[] value = new byte[BenchData.KEY];
        switch (q) {
            case EQ2:
                put(mask, value, "code", 404);
                put(mask, value, "sdate", 20161209);
                break;
            case P4:
                put(mask, value, "code", 404);
                put(mask, value, "type", 2);
                break;
            default:
                put(mask, value, "status", -1);
                put(mask, value, "scantype", 0);
                putBit(mask, value, "free", false);
                putBit(mask, value, "close", false);
        }
        return new byte[][] {mask, value};
    }

    private void put(byte[] mask, byte[] value, String field, int v) {
        int o = offset(field);
        byte[] b = int32(v);
        for (int i = 0; i < 4; i++) {
            mask[o + i] = (byte) 0xff;
            value[o + i] = b[i];
        }
    }

    private void putBit(byte[] mask, byte[] value, String field, boolean v) {
        int[] ob = bits.get(field);
        mask[ob[0]] |= (byte) ob[1];
        if (v) {
            value[ob[0]] |= (byte) ob[1];
        }
    }

    /** The seed's equality comparator: (row &amp; mask) == value byte by byte (mask given, so 0 is a value). */
    static final class SeedMaskComparator extends ByteArrayComparable {
        private final byte[] mask;
        private final byte[] expected;

        SeedMaskComparator(byte[] mask, byte[] value) {
            super(value);
            this.mask = mask;
            this.expected = value;
        }

        @Override
        public byte[] toByteArray() {
            return expected;
        }

        @Override
        public int compareTo(byte[] row, int offset, int length) {
            if (length != mask.length) {
                return 1;
            }
            for (int i = 0; i < mask.length; i++) {
                if ((row[offset + i] & mask[i]) != expected[i]) {
                    return 1;
                }
            }
            return 0;
        }
    }

    /** The seed's range comparator on one fixed-width field: the constant compared to the field, unsigned bytes (no int subtraction). */
    static final class SeedRangeComparator extends ByteArrayComparable {
        private final int fieldOffset;

        SeedRangeComparator(int fieldOffset, byte[] constant) {
            super(constant);
            this.fieldOffset = fieldOffset;
        }

        @Override
        public byte[] toByteArray() {
            return getValue();
        }

        @Override
        public int compareTo(byte[] row, int offset, int length) {
            byte[] c = getValue();
            if (length < fieldOffset + c.length) {
                return 1;
            }
            return Bytes.compareTo(c, 0, c.length, row, offset + fieldOffset, c.length);
        }
    }

    private Filter range(String field, int low, int high, boolean seed) {
        List<Filter> filters = new ArrayList<>();
        if (low != Integer.MIN_VALUE) {
            filters.add(new RowFilter(CompareOperator.GREATER_OR_EQUAL, rangeComparator(field, low, seed)));
        }
        if (high != Integer.MAX_VALUE) {
            filters.add(new RowFilter(CompareOperator.LESS_OR_EQUAL, rangeComparator(field, high, seed)));
        }
        return filters.size() == 1 ? filters.get(0) : new FilterList(FilterList.Operator.MUST_PASS_ALL, filters);
    }

    private ByteArrayComparable rangeComparator(String field, int v, boolean seed) {
        return seed ? new SeedRangeComparator(offset(field), int32(v)) : new BinaryComponentComparator(int32(v), offset(field));
    }

    public Filter seedFilter(Query q) {
        byte[][] mv = equalityMask(q);
        List<Filter> all = new ArrayList<>();
        all.add(new RowFilter(CompareOperator.EQUAL, new SeedMaskComparator(mv[0], mv[1])));
        addRanges(q, all, true);
        return new FilterList(FilterList.Operator.MUST_PASS_ALL, all);
    }

    private void addRanges(Query q, List<Filter> all, boolean seed) {
        switch (q) {
            case EQ2:
                break;
            case P4:
                all.add(range("sdate", 20161205, 20161215, seed));
                all.add(range("queue", 1, 2, seed));
                break;
            default:
                List<Filter> any = new ArrayList<>();
                for (int c : CODES_IN) {
                    if (seed) {
                        byte[] mask = new byte[BenchData.KEY];
                        byte[] value = new byte[BenchData.KEY];
                        put(mask, value, "code", c);
                        any.add(new RowFilter(CompareOperator.EQUAL, new SeedMaskComparator(mask, value)));
                    } else {
                        any.add(new RowFilter(CompareOperator.EQUAL, new BinaryComponentComparator(int32(c), offset("code"))));
                    }
                }
                all.add(new FilterList(FilterList.Operator.MUST_PASS_ONE, any));
                all.add(range("type", 2, 3, seed));
                all.add(range("sdate", 20161203, 20161225, seed));
                all.add(range("queue", Integer.MIN_VALUE, 2, seed));
        }
    }

    // ---- HBase's built-ins ----

    public Filter hbaseFilter(Query q) {
        byte[][] mv = equalityMask(q);
        byte[] fuzzyKey = mv[1].clone();
        byte[] fuzzyMask = new byte[BenchData.KEY];
        for (int i = 0; i < fuzzyMask.length; i++) {
            // FuzzyRowFilter: 0 = fixed byte, 1 = any. Whole bytes only: a byte with a fixed bit is
            // fixed whole (P8's bool byte holds exactly free and close, both fixed).
            fuzzyMask[i] = (byte) (mv[0][i] != 0 ? 0 : 1);
        }
        List<Filter> all = new ArrayList<>();
        all.add(new FuzzyRowFilter(java.util.Collections.singletonList(new Pair<>(fuzzyKey, fuzzyMask))));
        addRanges(q, all, false);
        return all.size() == 1 ? all.get(0) : new FilterList(FilterList.Operator.MUST_PASS_ALL, all);
    }

    // ---- the best pure Java ----

    public ByteArrayComparable javaWords(Query q) {
        byte[][] mv = equalityMask(q);
        List<int[]> ranges = new ArrayList<>();
        int inOffset = -1;
        int[] in = null;
        switch (q) {
            case EQ2:
                break;
            case P4:
                ranges.add(new int[] {offset("sdate"), 20161205, 20161215});
                ranges.add(new int[] {offset("queue"), 1, 2});
                break;
            default:
                inOffset = offset("code");
                in = CODES_IN.clone();
                ranges.add(new int[] {offset("type"), 2, 3});
                ranges.add(new int[] {offset("sdate"), 20161203, 20161225});
                ranges.add(new int[] {offset("queue"), Integer.MIN_VALUE, 2});
        }
        return new JavaWordComparator(mv[0], mv[1], ranges, inOffset, in);
    }

    /**
     * The fastest pure-Java compare we could write: equalities folded into masked big-endian
     * longs read with a VarHandle (one load per 8 key bytes), int ranges as one int load each
     * (sign bit flipped back), an IN list as a binary search over sorted ints.
     */
    static final class JavaWordComparator extends ByteArrayComparable {
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
        private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
        private final int keyLength;
        private final int[] wordOffsets;
        private final long[] wordMasks;
        private final long[] wordValues;
        private final int[] rangeOffsets;
        private final int[] lows;
        private final int[] highs;
        private final int inOffset;
        private final int[] in;

        JavaWordComparator(byte[] mask, byte[] value, List<int[]> ranges, int inOffset, int[] in) {
            super(mask);
            keyLength = mask.length;
            List<long[]> words = new ArrayList<>();
            for (int start = 0; start < keyLength; start += 8) {
                int o = Math.min(start, keyLength - 8);
                long m = 0;
                long v = 0;
                for (int i = o; i < o + 8; i++) {
                    boolean mine = i >= start;
                    m = (m << 8) | (mine ? mask[i] & 0xff : 0);
                    v = (v << 8) | (mine ? value[i] & mask[i] & 0xff : 0);
                }
                if (m != 0) {
                    words.add(new long[] {o, m, v});
                }
                start = o;
            }
            wordOffsets = words.stream().mapToInt(w -> (int) w[0]).toArray();
            wordMasks = words.stream().mapToLong(w -> w[1]).toArray();
            wordValues = words.stream().mapToLong(w -> w[2]).toArray();
            rangeOffsets = ranges.stream().mapToInt(r -> r[0]).toArray();
            lows = ranges.stream().mapToInt(r -> r[1]).toArray();
            highs = ranges.stream().mapToInt(r -> r[2]).toArray();
            this.inOffset = inOffset;
            this.in = in == null ? null : in.clone();
            if (this.in != null) {
                Arrays.sort(this.in);
            }
        }

        @Override
        public byte[] toByteArray() {
            return getValue();
        }

        @Override
        public int compareTo(byte[] row, int offset, int length) {
            if (length != keyLength) {
                return 1;
            }
            for (int w = 0; w < wordOffsets.length; w++) {
                if (((long) LONGS.get(row, offset + wordOffsets[w]) & wordMasks[w]) != wordValues[w]) {
                    return 1;
                }
            }
            for (int r = 0; r < rangeOffsets.length; r++) {
                int v = (int) INTS.get(row, offset + rangeOffsets[r]) ^ Integer.MIN_VALUE;
                if (v < lows[r] || v > highs[r]) {
                    return 1;
                }
            }
            if (in != null && Arrays.binarySearch(in, (int) INTS.get(row, offset + inOffset) ^ Integer.MIN_VALUE) < 0) {
                return 1;
            }
            return 0;
        }
    }
}
