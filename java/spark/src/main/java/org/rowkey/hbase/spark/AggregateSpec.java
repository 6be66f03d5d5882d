package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Avg;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.rowkey.hbase.Aggregation;
import org.rowkey.hbase.RowKeySchema;

/**
 * A GROUP BY Spark handed over whole: grouped by key fields, {@code count(*)}, {@code count},
 * {@code sum}, {@code min}, {@code max} and {@code avg} (not DISTINCT) of numeric key fields and of
 * cells mapped as int, long or double, over one branch of conditions. Computed by
 * {@code RowKeyTable.aggregate} inside the regions, final: Spark takes its rows as they are.
 */
final class AggregateSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Kind { COUNT_ROWS, COUNT, SUM, MIN, MAX, AVG }

    /** One aggregate: what, and of which key field or mapped cell (null for count(*)). */
    static final class Item implements Serializable {
        private static final long serialVersionUID = 1L;
        final Kind kind;
        final String column;
        final DataType type;

        Item(Kind kind, String column, DataType type) {
            this.kind = kind;
            this.column = column;
            this.type = type;
        }

        @Override
        public String toString() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + "(" + (column == null ? "*" : column) + ")";
        }
    }

    final List<String> groups;
    final List<DataType> groupTypes;
    final List<Item> items;

    private AggregateSpec(List<String> groups, List<DataType> groupTypes, List<Item> items) {
        this.groups = groups;
        this.groupTypes = groupTypes;
        this.items = items;
    }

    /** The aggregation as ours, or null when any part of it is not ours to compute (Spark then aggregates the rows). */
    static AggregateSpec of(org.apache.spark.sql.connector.expressions.aggregate.Aggregation aggregation, RowKeySchema schema,
            SourceOptions source, Where where) {
        if (!source.pushAggregates || where.branches.size() > 1 || aggregation.aggregateExpressions().length == 0) {
            // an OR of branches is read as joins, which RowKeyTable.aggregate does not fold; a
            // GROUP BY without an aggregate (a DISTINCT) is Spark's
            return null;
        }
        List<String> groups = new ArrayList<>();
        List<DataType> groupTypes = new ArrayList<>();
        for (Expression e : aggregation.groupByExpressions()) {
            String field = Where.keyField(e, schema);
            if (field == null) {
                return null;
            }
            groups.add(field);
            groupTypes.add(KeyColumns.sparkType(schema, field));
        }
        List<Item> items = new ArrayList<>();
        for (AggregateFunc f : aggregation.aggregateExpressions()) {
            Item item = item(f, schema, source);
            if (item == null) {
                return null;
            }
            items.add(item);
        }
        return new AggregateSpec(groups, groupTypes, items);
    }

    private static Item item(AggregateFunc f, RowKeySchema schema, SourceOptions source) {
        if (f instanceof CountStar) {
            return new Item(Kind.COUNT_ROWS, null, DataTypes.LongType);
        }
        Expression column;
        Kind kind;
        if (f instanceof Count && !((Count) f).isDistinct()) {
            column = ((Count) f).column();
            kind = Kind.COUNT;
        } else if (f instanceof Sum && !((Sum) f).isDistinct()) {
            column = ((Sum) f).column();
            kind = Kind.SUM;
        } else if (f instanceof Avg && !((Avg) f).isDistinct()) {
            column = ((Avg) f).column();
            kind = Kind.AVG;
        } else if (f instanceof Min) {
            column = ((Min) f).column();
            kind = Kind.MIN;
        } else if (f instanceof Max) {
            column = ((Max) f).column();
            kind = Kind.MAX;
        } else {
            return null;
        }
        String name = column instanceof org.apache.spark.sql.connector.expressions.NamedReference
                && ((org.apache.spark.sql.connector.expressions.NamedReference) column).fieldNames().length == 1
                ? ((org.apache.spark.sql.connector.expressions.NamedReference) column).fieldNames()[0] : null;
        if (name == null) {
            return null;
        }
        DataType type;
        if (schema.fieldNames().contains(name)) {
            type = KeyColumns.sparkType(schema, name);
            if (kind == Kind.COUNT) {
                return new Item(Kind.COUNT_ROWS, null, DataTypes.LongType); // a key field is never null
            }
        } else if (source.cell(name) != null && source.cell(name).kind != CellColumn.Kind.STRING
                && source.cell(name).kind != CellColumn.Kind.BINARY) {
            type = source.cell(name).kind.sparkType;
        } else {
            return null;
        }
        if (!type.equals(DataTypes.IntegerType) && !type.equals(DataTypes.LongType) && !type.equals(DataTypes.DoubleType)) {
            return null;
        }
        DataType result = kind == Kind.COUNT ? DataTypes.LongType : kind == Kind.AVG ? DataTypes.DoubleType
                : kind == Kind.SUM ? (type.equals(DataTypes.DoubleType) ? DataTypes.DoubleType : DataTypes.LongType) : type;
        return new Item(kind, name, result);
    }

    /** The rows' columns: the groups, then the aggregates, as Spark expects a complete push-down's. */
    StructType schema() {
        StructType s = new StructType();
        for (int i = 0; i < groups.size(); i++) {
            s = s.add(groups.get(i), groupTypes.get(i), false);
        }
        for (int i = 0; i < items.size(); i++) {
            s = s.add("agg_" + i + "_" + items.get(i), items.get(i).type, items.get(i).kind != Kind.COUNT
                    && items.get(i).kind != Kind.COUNT_ROWS);
        }
        return s;
    }

    /** Ours, on the executor. */
    Aggregation toAggregation(RowKeySchema schema, SourceOptions source) {
        Aggregation a = Aggregation.on(schema);
        if (source.maxGroups > 0) {
            a.maxGroups(source.maxGroups);
        }
        if (!groups.isEmpty()) {
            a.groupBy(groups.toArray(new String[0]));
        }
        for (Item item : items) {
            CellColumn cell = item.column == null ? null : source.cell(item.column);
            Aggregation.Cell numeric = cell == null ? null : cell.kind == CellColumn.Kind.INT
                    ? Aggregation.Cell.ofInt(cell.family, cell.qualifier) : cell.kind == CellColumn.Kind.LONG
                    ? Aggregation.Cell.ofLong(cell.family, cell.qualifier) : Aggregation.Cell.ofDouble(cell.family, cell.qualifier);
            switch (item.kind) {
                case COUNT_ROWS: a.count(); break;
                case COUNT: a.count(numeric); break;
                case SUM: if (numeric == null) { a.sum(item.column); } else { a.sum(numeric); } break;
                case MIN: if (numeric == null) { a.min(item.column); } else { a.min(numeric); } break;
                case MAX: if (numeric == null) { a.max(item.column); } else { a.max(numeric); } break;
                default: if (numeric == null) { a.avg(item.column); } else { a.avg(numeric); } break;
            }
        }
        return a;
    }

    @Override
    public String toString() {
        return "GROUP BY " + groups + " " + items;
    }
}
