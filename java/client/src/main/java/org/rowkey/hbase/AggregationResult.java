package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateFunction;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateRow;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateValue;
import org.rowkey.hbase.proto.RowKeyProtos.CellType;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.GroupKey;
import org.rowkey.hbase.proto.RowKeyProtos.TimeUnit;

/**
 * The answer of {@link RowKeyTable#aggregate}: one row per group (one row when nothing is grouped),
 * in group value order unless the aggregation orders them, and what it cost.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class AggregationResult {
    /** One group: its key field values and its aggregates. */
    public static final class Row {
        private final Map<String, Object> groups;
        private final List<Object> values;

        Row(Map<String, Object> groups, List<Object> values) {
            this.groups = Collections.unmodifiableMap(groups);
            this.values = Collections.unmodifiableList(values);
        }

        /**
         * The group's values by field, in group-by order, typed as {@link RowKeySchema#decode} types
         * them (a truncated timestamp as the Long start of its unit; a hashed field as its digest
         * bytes).
         */
        public Map<String, Object> groups() {
            return groups;
        }

        public Object group(String field) {
            if (!groups.containsKey(field)) {
                throw new IllegalArgumentException("'" + field + "' is not a group field (groups: " + groups.keySet() + ")");
            }
            return groups.get(field);
        }

        /**
         * The aggregates in the order they were added: Long for counts and integer sums, Double for
         * averages and anything of a double cell, min/max typed as their input (Integer for an int32
         * field or int cell); null where no row gave a value.
         */
        public List<Object> values() {
            return values;
        }

        public Object value(int aggregate) {
            return values.get(aggregate);
        }

        /** Aggregate {@code aggregate} as a long (a count, an integer sum, min or max); 0 for null. */
        public long longValue(int aggregate) {
            Object v = values.get(aggregate);
            return v == null ? 0 : ((Number) v).longValue();
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Row)) {
                return false;
            }
            Row r = (Row) o;
            return Arrays.deepEquals(groups.values().toArray(), r.groups.values().toArray()) && values.equals(r.values)
                    && groups.keySet().equals(r.groups.keySet());
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(groups.values().toArray()) * 31 + values.hashCode();
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            for (Map.Entry<String, Object> g : groups.entrySet()) {
                Object v = g.getValue();
                s.append(g.getKey()).append('=').append(v instanceof byte[] ? "0x" + org.apache.hadoop.hbase.util.Bytes
                        .toHex((byte[]) v) : v).append(' ');
            }
            return s.append(values).toString();
        }
    }

    private final List<Row> rows;
    private final long rowsReadOnServers;
    private final long bytesToClient;
    private final long indexRowsChecked;

    AggregationResult(List<Row> rows, long rowsReadOnServers, long bytesToClient, long indexRowsChecked) {
        this.rows = Collections.unmodifiableList(rows);
        this.rowsReadOnServers = rowsReadOnServers;
        this.bytesToClient = bytesToClient;
        this.indexRowsChecked = indexRowsChecked;
    }

    public List<Row> rows() {
        return rows;
    }

    /** Rows the RegionServers read (HBase's scan metric {@code ROWS_SCANNED}): the data table's or the index's. */
    public long rowsReadOnServers() {
        return rowsReadOnServers;
    }

    /** Bytes of partial states (and keys to check) sent to the client (HBase's {@code BYTES_IN_RESULTS}). */
    public long bytesToClient() {
        return bytesToClient;
    }

    /** Index rows that were not VERIFIED, checked against their data rows by the client. */
    public long indexRowsChecked() {
        return indexRowsChecked;
    }

    @Override
    public String toString() {
        return rows.toString();
    }

    /** The typed rows of a native answer, ordered and limited as the aggregation says. */
    static List<Row> rowsOf(Aggregation aggregation, List<AggregateRow> answer) {
        RowKeySchema schema = aggregation.schema();
        List<Row> rows = new ArrayList<>(answer.size());
        for (AggregateRow r : answer) {
            Map<String, Object> groups = new LinkedHashMap<>();
            for (int g = 0; g < aggregation.groups().size(); g++) {
                GroupKey key = aggregation.groups().get(g);
                FieldSpec field = schema.field(key.getField());
                groups.put(key.getField(), key.getTruncate() != TimeUnit.TIME_UNIT_UNSPECIFIED ? (Object) r.getGroup(g).getIntValue()
                        : Values.toJava(field, r.getGroup(g)));
            }
            List<Object> values = new ArrayList<>();
            for (int a = 0; a < aggregation.aggregates().size(); a++) {
                values.add(typed(schema, aggregation.aggregates().get(a), r.getValues(a)));
            }
            rows.add(new Row(groups, values));
        }
        int order = aggregation.orderBy();
        if (order >= 0) {
            Comparator<Object> byValue = (x, y) -> compareNumbers((Number) x, (Number) y);
            Comparator<Object> nullsLast = Comparator.nullsLast(aggregation.isDescending() ? byValue.reversed() : byValue);
            rows.sort((x, y) -> nullsLast.compare(x.value(order), y.value(order))); // stable: ties keep group order
        }
        int limit = aggregation.limit();
        return limit > 0 && rows.size() > limit ? new ArrayList<>(rows.subList(0, limit)) : rows;
    }

    private static int compareNumbers(Number x, Number y) {
        return x instanceof Double || y instanceof Double ? Double.compare(x.doubleValue(), y.doubleValue())
                : Long.compare(x.longValue(), y.longValue());
    }

    private static Object typed(RowKeySchema schema, AggregateSpec spec, AggregateValue v) {
        switch (v.getKindCase()) {
            case DOUBLE_VALUE:
                return v.getDoubleValue();
            case INT_VALUE:
                long n = v.getIntValue();
                boolean minMax = spec.getFunction() == AggregateFunction.MIN || spec.getFunction() == AggregateFunction.MAX;
                boolean int32 = spec.hasCell() ? spec.getCell().getType() == CellType.CELL_INT32
                        : !spec.getField().isEmpty() && schema.field(spec.getField()).getType() == FieldType.INT32;
                return minMax && int32 ? (Object) Math.toIntExact(n) : (Object) n;
            default:
                return null;
        }
    }
}
