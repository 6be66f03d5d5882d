package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateFunction;
import org.rowkey.hbase.proto.RowKeyProtos.AggregateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.AggregationSpec;
import org.rowkey.hbase.proto.RowKeyProtos.CellType;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.GroupKey;
import org.rowkey.hbase.proto.RowKeyProtos.NumericCell;
import org.rowkey.hbase.proto.RowKeyProtos.TimeUnit;

/**
 * What {@link RowKeyTable#aggregate} computes over a query's rows, inside the regions
 * (docs/aggregates.md): aggregates of key fields (decoded natively from each row key; descending
 * fields and reversed timestamps by value) and of numeric cells, grouped by key fields (a timestamp
 * truncated to a minute, hour or day if asked), optionally ordered by an aggregate and limited:
 *
 * <pre>{@code
 * Aggregation.Cell queue = Aggregation.Cell.ofLong(family, "queue");
 * Aggregation a = Aggregation.on(schema).groupBy("code").count().max(queue).orderByDescending(0).limit(10);
 * for (AggregationResult.Row row : table.aggregate(RowKeyQuery.on(schema).ge("sdate", 20161201), a).rows()) { ... }
 * }</pre>
 *
 * Aggregates are numbered from 0 in the order they are added. A row without a cell gives that
 * cell's aggregates nothing, as SQL's NULL: {@code count(cell)} counts the rows that have it, and
 * {@code sum}, {@code min}, {@code max}, {@code avg} of a group where no row has it are null. Integer
 * sums are exact (128 bits inside); one beyond int64 is an error naming it. Each method checks what
 * it is given against the schema (natively, as the RegionServer will) and throws
 * {@link IllegalArgumentException} naming the problem. Not thread-safe while it is being built.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class Aggregation {
    /** The unit a timestamp group field is truncated to (UTC). */
    public enum Unit {
        MINUTE(TimeUnit.MINUTE), HOUR(TimeUnit.HOUR), DAY(TimeUnit.DAY);

        final TimeUnit proto;

        Unit(TimeUnit proto) {
            this.proto = proto;
        }
    }

    /** A numeric cell: family, qualifier and how its value is written ({@code Bytes.toBytes(int|long|double)}). */
    public static final class Cell {
        final byte[] family;
        final byte[] qualifier;
        final CellType type;

        private Cell(byte[] family, byte[] qualifier, CellType type) {
            this.family = Objects.requireNonNull(family, "family").clone();
            this.qualifier = Objects.requireNonNull(qualifier, "qualifier").clone();
            this.type = type;
        }

        /** A cell written by {@code Bytes.toBytes(int)}: 4 bytes. */
        public static Cell ofInt(byte[] family, byte[] qualifier) {
            return new Cell(family, qualifier, CellType.CELL_INT32);
        }

        /** A cell written by {@code Bytes.toBytes(long)}: 8 bytes. */
        public static Cell ofLong(byte[] family, byte[] qualifier) {
            return new Cell(family, qualifier, CellType.CELL_INT64);
        }

        /** A cell written by {@code Bytes.toBytes(double)}: 8 bytes. */
        public static Cell ofDouble(byte[] family, byte[] qualifier) {
            return new Cell(family, qualifier, CellType.CELL_DOUBLE);
        }

        NumericCell toSpec(UnaryOperator<NumericCell> where) {
            return where.apply(NumericCell.newBuilder().setFamily(ByteString.copyFrom(family))
                    .setQualifier(ByteString.copyFrom(qualifier)).setType(type).build());
        }

        @Override
        public String toString() {
            return org.apache.hadoop.hbase.util.Bytes.toStringBinary(family) + ":"
                    + org.apache.hadoop.hbase.util.Bytes.toStringBinary(qualifier);
        }
    }

    private final RowKeySchema schema;
    private final List<GroupKey> groups = new ArrayList<>();
    private final List<AggregateSpec> aggregates = new ArrayList<>();
    /** For each aggregate, its cell (null for none). */
    private final List<Cell> cells = new ArrayList<>();
    private final List<String> labels = new ArrayList<>();
    private int orderBy = -1;
    private boolean descending;
    private int limit;
    private int maxGroups;
    private long maxBytes;
    private int rowBudget;
    private int timeBudgetMs;

    private Aggregation(RowKeySchema schema) {
        this.schema = schema;
    }

    /** An aggregation with no group and no aggregate yet, over rows of {@code schema}. */
    public static Aggregation on(RowKeySchema schema) {
        return new Aggregation(Objects.requireNonNull(schema, "schema"));
    }

    /** Groups by these key fields (a hashed field by its stored digest: it cannot be turned back into its string). */
    public Aggregation groupBy(String... fields) {
        for (String f : Objects.requireNonNull(fields, "fields")) {
            addGroup(GroupKey.newBuilder().setField(Objects.requireNonNull(f, "field")).build());
        }
        return this;
    }

    /** Groups by a timestamp field truncated to {@code unit} (UTC): e.g. per day. */
    public Aggregation groupBy(String field, Unit unit) {
        return addGroup(GroupKey.newBuilder().setField(Objects.requireNonNull(field, "field"))
                .setTruncate(Objects.requireNonNull(unit, "unit").proto).build());
    }

    /** {@code count(*)}: the rows. */
    public Aggregation count() {
        return add(AggregateFunction.COUNT, null, null);
    }

    /** {@code count(cell)}: the rows that have the cell. */
    public Aggregation count(Cell cell) {
        return add(AggregateFunction.COUNT, null, Objects.requireNonNull(cell, "cell"));
    }

    /** The sum of an integer or timestamp key field. */
    public Aggregation sum(String field) {
        return add(AggregateFunction.SUM, Objects.requireNonNull(field, "field"), null);
    }

    /** The sum of a numeric cell (Long for int and long cells, Double for double cells). */
    public Aggregation sum(Cell cell) {
        return add(AggregateFunction.SUM, null, Objects.requireNonNull(cell, "cell"));
    }

    public Aggregation min(String field) {
        return add(AggregateFunction.MIN, Objects.requireNonNull(field, "field"), null);
    }

    public Aggregation min(Cell cell) {
        return add(AggregateFunction.MIN, null, Objects.requireNonNull(cell, "cell"));
    }

    public Aggregation max(String field) {
        return add(AggregateFunction.MAX, Objects.requireNonNull(field, "field"), null);
    }

    public Aggregation max(Cell cell) {
        return add(AggregateFunction.MAX, null, Objects.requireNonNull(cell, "cell"));
    }

    /** The average (a Double) of an integer or timestamp key field. */
    public Aggregation avg(String field) {
        return add(AggregateFunction.AVG, Objects.requireNonNull(field, "field"), null);
    }

    public Aggregation avg(Cell cell) {
        return add(AggregateFunction.AVG, null, Objects.requireNonNull(cell, "cell"));
    }

    /** Rows in ascending order of aggregate number {@code aggregate} (nulls last; ties in group order). */
    public Aggregation orderBy(int aggregate) {
        return order(aggregate, false);
    }

    /** Rows in descending order of aggregate number {@code aggregate} (nulls last; ties in group order). */
    public Aggregation orderByDescending(int aggregate) {
        return order(aggregate, true);
    }

    /** The first {@code n} rows of the order: needs {@link #orderBy} or {@link #orderByDescending} first. */
    public Aggregation limit(int n) {
        if (orderBy < 0) {
            throw new IllegalArgumentException("limit(" + n + ") without an order: call orderBy or orderByDescending"
                    + " first (groups come in group order; a limit needs to know which rows are first)");
        }
        if (n < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + n);
        }
        this.limit = n;
        return this;
    }

    /**
     * At most {@code n} groups (default 100,000, at most 1,000,000) in a region's partial state and in
     * the merge on the client; more is an error naming this cap. Memory is bounded in bytes, by
     * {@link #maxBytes}: the groups' bytes may reach that limit first.
     */
    public Aggregation maxGroups(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxGroups must be at least 1, got " + n);
        }
        int before = maxGroups;
        maxGroups = n;
        try {
            check();
        } catch (IllegalArgumentException e) {
            maxGroups = before;
            throw e;
        }
        return this;
    }

    /**
     * At most {@code n} bytes held by the groups in a region and in the merge on the client (their
     * keys and states: docs/aggregates.md, "Memory bound"); more is an error naming this limit. It
     * can only lower the RegionServers' and the client's {@value CoprocessorWire#AGGREGATE_MAX_BYTES}
     * (default 64 MiB), never raise it; at most 1 GiB.
     */
    public Aggregation maxBytes(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxBytes must be at least 1, got " + n);
        }
        long before = maxBytes;
        maxBytes = n;
        try {
            check();
        } catch (IllegalArgumentException e) {
            maxBytes = before;
            throw e;
        }
        return this;
    }

    /**
     * Rows and milliseconds one scanner call may fold on a RegionServer before it returns its
     * partial state (default 5,000,000 rows and 1,000 ms; the server caps the time at a quarter of
     * its RPC timeout). The client then asks for the rest.
     */
    public Aggregation budget(int rows, int millis) {
        if (rows < 1 || millis < 1) {
            throw new IllegalArgumentException("a budget of at least one row and one millisecond, not " + rows + " rows and "
                    + millis + " ms");
        }
        this.rowBudget = rows;
        this.timeBudgetMs = millis;
        return this;
    }

    private Aggregation order(int aggregate, boolean desc) {
        if (aggregate < 0 || aggregate >= aggregates.size()) {
            throw new IllegalArgumentException("orderBy(" + aggregate + "): there are " + aggregates.size()
                    + " aggregates (" + String.join(", ", labels) + "), numbered from 0");
        }
        this.orderBy = aggregate;
        this.descending = desc;
        return this;
    }

    private Aggregation addGroup(GroupKey group) {
        groups.add(group);
        try {
            check();
        } catch (IllegalArgumentException e) {
            groups.remove(groups.size() - 1);
            throw e;
        }
        return this;
    }

    private Aggregation add(AggregateFunction function, String field, Cell cell) {
        AggregateSpec.Builder spec = AggregateSpec.newBuilder().setFunction(function);
        String input = "*";
        if (field != null) {
            spec.setField(field);
            input = field;
        }
        if (cell != null) {
            spec.setCell(cell.toSpec(c -> c));
            input = cell.toString();
        }
        aggregates.add(spec.build());
        cells.add(cell);
        labels.add(function.name().toLowerCase(java.util.Locale.ROOT) + "(" + input + ")");
        try {
            check();
        } catch (IllegalArgumentException e) {
            aggregates.remove(aggregates.size() - 1);
            cells.remove(cells.size() - 1);
            labels.remove(labels.size() - 1);
            throw e;
        }
        return this;
    }

    /** Compiles the spec natively (with a count(*) while there is no aggregate yet): the server's checks, now. */
    private void check() {
        AggregationSpec.Builder spec = toSpec(schema, c -> c).toBuilder();
        if (aggregates.isEmpty()) {
            spec.addAggregates(AggregateSpec.newBuilder().setFunction(AggregateFunction.COUNT));
        }
        new NativeAggregator(spec.build().toByteArray(), 0).close();
    }

    /**
     * The spec over rows of {@code rowSchema} (the data schema, or an index's, which has every key
     * field), each cell as {@code where} says it is stored in those rows.
     */
    AggregationSpec toSpec(RowKeySchema rowSchema, UnaryOperator<NumericCell> where) {
        AggregationSpec.Builder spec = AggregationSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setSchema(rowSchema.spec()).addAllGroupBy(groups).setMaxGroups(maxGroups)
                .setMaxBytes(maxBytes);
        for (AggregateSpec a : aggregates) {
            spec.addAggregates(a.hasCell() ? a.toBuilder().setCell(where.apply(a.getCell())).build() : a);
        }
        return spec.build();
    }

    /**
     * The spec as {@link RowKeyTable#aggregate} runs it, checked: at least one aggregate, on the
     * table's schema.
     */
    AggregationSpec toSpecFor(RowKeySchema tableSchema) {
        if (aggregates.isEmpty()) {
            throw new IllegalArgumentException("an aggregation needs at least one aggregate: count(), sum(...), ...");
        }
        if (!tableSchema.equals(schema)) {
            throw new IllegalArgumentException("the aggregation is on " + schema + ", the table has " + tableSchema);
        }
        return toSpec(schema, c -> c);
    }

    RowKeySchema schema() {
        return schema;
    }

    /** The distinct cells the aggregates read (none: the row keys answer alone). */
    List<Cell> cells() {
        List<Cell> out = new ArrayList<>();
        for (Cell c : cells) {
            if (c != null && out.stream().noneMatch(o -> java.util.Arrays.equals(o.family, c.family)
                    && java.util.Arrays.equals(o.qualifier, c.qualifier))) {
                out.add(c);
            }
        }
        return out;
    }

    List<GroupKey> groups() {
        return Collections.unmodifiableList(groups);
    }

    List<AggregateSpec> aggregates() {
        return Collections.unmodifiableList(aggregates);
    }

    /** The cell of aggregate {@code i}, or null. */
    Cell cell(int i) {
        return cells.get(i);
    }

    List<String> labels() {
        return Collections.unmodifiableList(labels);
    }

    int orderBy() {
        return orderBy;
    }

    boolean isDescending() {
        return descending;
    }

    int limit() {
        return limit;
    }

    int rowBudget() {
        return rowBudget;
    }

    int timeBudgetMs() {
        return timeBudgetMs;
    }

    /** The group fields that are hashed, each as "name (md5)": grouped by stored digest. */
    List<String> hashedGroups() {
        List<String> out = new ArrayList<>();
        for (GroupKey g : groups) {
            FieldSpec f = schema.field(g.getField());
            if (f.getType() == FieldType.MD5 || f.getType() == FieldType.JAVA_HASH) {
                out.add(f.getName() + " (" + Values.typeName(f) + ")");
            }
        }
        return out;
    }

    /** {@code count(*), max(f:queue) group by code, ts per DAY order by #0 desc limit 10}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(String.join(", ", labels));
        if (!groups.isEmpty()) {
            List<String> names = new ArrayList<>();
            for (GroupKey g : groups) {
                names.add(g.getField() + (g.getTruncate() == TimeUnit.TIME_UNIT_UNSPECIFIED ? "" : " per " + g.getTruncate()));
            }
            s.append(" group by ").append(String.join(", ", names));
        }
        if (orderBy >= 0) {
            s.append(" order by #").append(orderBy).append(" (").append(labels.get(orderBy)).append(descending ? ") desc" : ")");
        }
        if (limit > 0) {
            s.append(" limit ").append(limit);
        }
        return s.toString();
    }
}
