package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;

/**
 * One condition on a key field, as Spark's predicate gave it, kept in a form every executor can
 * turn into the same {@link RowKeyQuery}: the query is planned again where it is read.
 */
final class Condition implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Op { EQ, NE, LT, LE, GT, GE, IN }

    final Op op;
    final String field;
    /** Integer, Long, Boolean, String or byte[] values, as {@link RowKeySchema#fieldClass} names. */
    final Object[] values;

    Condition(Op op, String field, Object... values) {
        this.op = op;
        this.field = field;
        this.values = values;
    }

    /** The opposite condition, for a NOT; null when there is none as one condition (IN: see {@link Where}). */
    Condition negated() {
        switch (op) {
            case EQ: return new Condition(Op.NE, field, values);
            case NE: return new Condition(Op.EQ, field, values);
            case LT: return new Condition(Op.GE, field, values);
            case LE: return new Condition(Op.GT, field, values);
            case GT: return new Condition(Op.LE, field, values);
            case GE: return new Condition(Op.LT, field, values);
            default: return null;
        }
    }

    RowKeyQuery addTo(RowKeyQuery q) {
        switch (op) {
            case EQ: return q.eq(field, values[0]);
            case NE: return q.ne(field, values[0]);
            case LT: return q.lt(field, values[0]);
            case LE: return q.le(field, values[0]);
            case GT: return q.gt(field, values[0]);
            case GE: return q.ge(field, values[0]);
            default: return q.in(field, values);
        }
    }

    @Override
    public String toString() {
        List<String> shown = new ArrayList<>();
        for (Object v : values) {
            shown.add(v instanceof byte[] ? "x'" + Bytes.toHex((byte[]) v) + "'" : v instanceof String ? "'" + v + "'" : String.valueOf(v));
        }
        return field + " " + op + " " + (op == Op.IN ? shown.toString() : shown.get(0));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Condition && ((Condition) o).op == op && ((Condition) o).field.equals(field)
                && Arrays.deepEquals(((Condition) o).values, values);
    }

    @Override
    public int hashCode() {
        return field.hashCode() * 31 + op.hashCode();
    }
}
