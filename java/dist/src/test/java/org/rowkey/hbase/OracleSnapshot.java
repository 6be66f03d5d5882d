package org.rowkey.hbase;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The truth: the data table as a plain {@code Table.getScanner(new Scan())} shows it, each key
 * decoded with {@link RowKeySchema#decode}; rows of another length are no rows of the schema and
 * left out. From it, the rows and aggregates a query must give, computed in plain Java.
 */
final class OracleSnapshot {
    /** Written beside real cells while queries run (OracleWrites.NoiseWriter): never compared. */
    static final byte[] NOISE_FAMILY = Bytes.toBytes("f");
    static final byte[] NOISE_QUALIFIER = Bytes.toBytes("z");

    /** One data row: its key, decoded fields, and newest cell of each column (noise included). */
    static final class Row {
        final byte[] key;
        final Map<String, Object> fields;
        final List<Cell> cells;

        Row(byte[] key, Map<String, Object> fields, List<Cell> cells) {
            this.key = key;
            this.fields = fields;
            this.cells = cells;
        }

        Cell cell(byte[] family, byte[] qualifier) {
            for (Cell c : cells) {
                if (CellUtil.matchingColumn(c, family, qualifier)) {
                    return c;
                }
            }
            return null;
        }

        String describe() {
            StringBuilder s = new StringBuilder(Bytes.toHex(key)).append(" {");
            String sep = "";
            for (Map.Entry<String, Object> e : fields.entrySet()) {
                s.append(sep).append(e.getKey()).append('=').append(OracleModel.show(e.getValue()));
                sep = ", ";
            }
            return s.append("} ").append(cellsText(cells, null)).toString();
        }
    }

    final List<Row> rows; // in key order
    final int otherLengthRows;

    private OracleSnapshot(List<Row> rows, int otherLengthRows) {
        this.rows = rows;
        this.otherLengthRows = otherLengthRows;
    }

    static OracleSnapshot read(Table table, RowKeySchema schema) throws IOException {
        List<Row> rows = new ArrayList<>();
        int other = 0;
        try (ResultScanner scanner = table.getScanner(new Scan())) {
            for (Result r : scanner) {
                if (r.getRow().length != schema.keyLength()) {
                    other++;
                    continue;
                }
                List<Cell> cells = new ArrayList<>();
                Collections.addAll(cells, r.rawCells());
                rows.add(new Row(r.getRow(), schema.decode(r.getRow()), cells));
            }
        }
        return new OracleSnapshot(Collections.unmodifiableList(rows), other);
    }

    /** A row's cells for comparison: family:qualifier@timestamp=value, noise left out; or only {@code columns}. */
    static String cellsText(List<Cell> cells, List<byte[][]> columns) {
        StringBuilder s = new StringBuilder("[");
        String sep = "";
        List<Cell> sorted = new ArrayList<>(cells);
        sorted.sort(CellComparatorByColumn.INSTANCE);
        for (Cell c : sorted) {
            if (isNoise(c) || (columns != null && !selected(c, columns))) {
                continue;
            }
            s.append(sep).append(Bytes.toStringBinary(CellUtil.cloneFamily(c))).append(':')
                    .append(Bytes.toStringBinary(CellUtil.cloneQualifier(c))).append('@').append(c.getTimestamp()).append('=')
                    .append(Bytes.toHex(CellUtil.cloneValue(c)));
            sep = " ";
        }
        return s.append(']').toString();
    }

    static boolean isNoise(Cell c) {
        return CellUtil.matchingColumn(c, NOISE_FAMILY, NOISE_QUALIFIER);
    }

    static boolean selected(Cell c, List<byte[][]> columns) {
        for (byte[][] fq : columns) {
            if (CellUtil.matchingColumn(c, fq[0], fq[1])) {
                return true;
            }
        }
        return false;
    }

    private enum CellComparatorByColumn implements Comparator<Cell> {
        INSTANCE;

        @Override
        public int compare(Cell a, Cell b) {
            int f = Bytes.compareTo(CellUtil.cloneFamily(a), CellUtil.cloneFamily(b));
            return f != 0 ? f : Bytes.compareTo(CellUtil.cloneQualifier(a), CellUtil.cloneQualifier(b));
        }
    }

    /** The rows of a query's conditions (OR of AND-branches), in key order. */
    List<Row> matching(OracleQuery q) {
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            if (q.holds(r.fields)) {
                out.add(r);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ aggregates

    /** An aggregate's answer, or the error the product must give (an overflow, too many groups). */
    static final class ExpectedAggregate {
        final List<String> rows;
        final String error;

        ExpectedAggregate(List<String> rows, String error) {
            this.rows = rows;
            this.error = error;
        }
    }

    ExpectedAggregate aggregate(OracleQuery q) {
        OracleQuery.AggSpec spec = q.aggregation;
        TreeMap<List<Object>, List<Row>> groups = new TreeMap<>(OracleSnapshot::compareGroupKeys);
        for (Row r : matching(q)) {
            List<Object> key = new ArrayList<>();
            for (OracleQuery.Group g : spec.groups) {
                Object v = r.fields.get(g.field.name);
                key.add(g.unitMillis > 0 ? (Object) bucketStart((Long) v, g.unitMillis) : v);
            }
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        if (spec.groups.isEmpty() && groups.isEmpty()) {
            groups.put(new ArrayList<>(), new ArrayList<>()); // as SQL: one row without groupBy
        }
        if (spec.maxGroups > 0 && groups.size() > spec.maxGroups) {
            return new ExpectedAggregate(null, "max_groups");
        }
        List<Object[]> out = new ArrayList<>();
        for (Map.Entry<List<Object>, List<Row>> e : groups.entrySet()) {
            Object[] values = new Object[spec.aggregates.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = value(spec.aggregates.get(i), e.getValue());
                if (values[i] instanceof Overflow) {
                    return new ExpectedAggregate(null, "overflows int64");
                }
            }
            Object[] row = new Object[2];
            row[0] = e.getKey();
            row[1] = values;
            out.add(row);
        }
        if (spec.orderBy >= 0) {
            Comparator<Object> byValue = (x, y) -> x instanceof Double || y instanceof Double
                    ? Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue())
                    : Long.compare(((Number) x).longValue(), ((Number) y).longValue());
            Comparator<Object> nullsLast = Comparator.nullsLast(spec.descending ? byValue.reversed() : byValue);
            out.sort((x, y) -> nullsLast.compare(((Object[]) x[1])[spec.orderBy], ((Object[]) y[1])[spec.orderBy]));
        }
        if (spec.limit > 0 && out.size() > spec.limit) {
            out = out.subList(0, spec.limit);
        }
        List<String> text = new ArrayList<>();
        for (Object[] row : out) {
            @SuppressWarnings("unchecked")
            List<Object> key = (List<Object>) row[0];
            text.add(aggregateRowText(spec, key, java.util.Arrays.asList((Object[]) row[1])));
        }
        return new ExpectedAggregate(text, null);
    }

    /** A result row as compared: group values and aggregate values, each with its Java type. */
    static String aggregateRowText(OracleQuery.AggSpec spec, List<Object> groupValues, List<Object> values) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < spec.groups.size(); i++) {
            s.append(spec.groups.get(i).field.name).append('=').append(typed(groupValues.get(i))).append(' ');
        }
        s.append('[');
        for (int i = 0; i < values.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(typed(values.get(i)));
        }
        return s.append(']').toString();
    }

    private static String typed(Object v) {
        if (v == null) {
            return "null";
        }
        return v.getClass().getSimpleName() + ":" + OracleModel.show(v);
    }

    /** Marks a sum outside int64: the product must refuse it. */
    private static final class Overflow {
    }

    private static Object value(OracleQuery.Agg a, List<Row> group) {
        List<Number> inputs = new ArrayList<>();
        for (Row r : group) {
            Number v = a.input(r);
            if (v != null) {
                inputs.add(v);
            }
        }
        if (a.function == OracleQuery.Function.COUNT) {
            return (long) inputs.size();
        }
        if (inputs.isEmpty()) {
            return null;
        }
        boolean dbl = a.isDouble();
        switch (a.function) {
            case SUM:
            case AVG: {
                if (dbl) {
                    double sum = 0;
                    for (Number n : inputs) {
                        sum += n.doubleValue(); // exact: multiples of 0.25, small
                    }
                    return a.function == OracleQuery.Function.SUM ? (Object) sum : (Object) (sum / inputs.size());
                }
                BigInteger sum = BigInteger.ZERO;
                for (Number n : inputs) {
                    sum = sum.add(BigInteger.valueOf(n.longValue()));
                }
                if (a.function == OracleQuery.Function.AVG) {
                    return sum.doubleValue() / inputs.size(); // both correctly rounded, as the core's i128 as f64
                }
                return sum.bitLength() > 63 ? new Overflow() : (Object) sum.longValue();
            }
            default: {
                Number best = null;
                for (Number n : inputs) {
                    boolean better = best == null || (dbl ? Double.compare(n.doubleValue(), best.doubleValue())
                            : Long.compare(n.longValue(), best.longValue())) * (a.function == OracleQuery.Function.MIN ? -1 : 1) > 0;
                    if (better) {
                        best = n;
                    }
                }
                return a.isInt32() ? (Object) best.intValue() : dbl ? (Object) best.doubleValue() : (Object) best.longValue();
            }
        }
    }

    private static int compareGroupKeys(List<Object> x, List<Object> y) {
        for (int i = 0; i < x.size(); i++) {
            int c = OracleModel.compareValues(x.get(i), y.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Where the rows of a query lie: how many in each region (start key: count), for a report. */
    static String perRegion(List<Row> rows, List<byte[]> regionStarts) {
        int[] counts = new int[regionStarts.size()];
        for (Row r : rows) {
            int region = 0;
            for (int i = 0; i < regionStarts.size(); i++) {
                if (Bytes.compareTo(regionStarts.get(i), r.key) <= 0) {
                    region = i;
                }
            }
            counts[region]++;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < counts.length; i++) {
            s.append(i == 0 ? "" : ", ").append('[').append(Bytes.toStringBinary(regionStarts.get(i))).append("): ")
                    .append(counts[i]);
        }
        return s.toString();
    }

    /** The start of a time bucket; the lowest bucket's, below the smallest long, is the smallest long (docs/aggregates.md). */
    static long bucketStart(long millis, long unit) {
        long bucket = Math.floorDiv(millis, unit);
        return bucket < Long.MIN_VALUE / unit ? Long.MIN_VALUE : bucket * unit;
    }
}
