package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.unsafe.types.UTF8String;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;

/**
 * The key-field conditions Spark handed over, as an OR of AND-ed branches (the shape
 * {@link RowKeyQuery#anyOf} takes). Only what turns into our conditions exactly is taken: a column
 * of the key compared with a literal of its own type ({@code = <> < <= > >= IN}, {@code <=>} with a
 * value, {@code NOT}, {@code AND}, {@code OR}), and what is always true or false of a key field (it
 * is never null). Anything else is left to Spark, which evaluates it on the rows read.
 */
final class Where implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Branches an OR may multiply into before it is left to Spark: each is a read of its own. */
    static final int MAX_BRANCHES = 64;

    /** The branches (OR-ed); one empty branch is every row, none is no row. */
    final List<List<Condition>> branches;

    private Where(List<List<Condition>> branches) {
        this.branches = branches;
    }

    static Where all() {
        return new Where(Collections.singletonList(Collections.emptyList()));
    }

    static Where none() {
        return new Where(Collections.emptyList());
    }

    boolean matchesNothing() {
        return branches.isEmpty();
    }

    /** This AND that, or null past {@link #MAX_BRANCHES}. */
    Where and(Where that) {
        if ((long) branches.size() * that.branches.size() > MAX_BRANCHES) {
            return null;
        }
        List<List<Condition>> product = new ArrayList<>();
        for (List<Condition> a : branches) {
            for (List<Condition> b : that.branches) {
                List<Condition> both = new ArrayList<>(a);
                both.addAll(b);
                product.add(both);
            }
        }
        return new Where(product);
    }

    /** This OR that, or null past {@link #MAX_BRANCHES}. */
    Where or(Where that) {
        if (branches.size() + that.branches.size() > MAX_BRANCHES) {
            return null;
        }
        List<List<Condition>> union = new ArrayList<>(branches);
        union.addAll(that.branches);
        return new Where(union);
    }

    /**
     * The query of these branches, or null for none (no row matches).
     *
     * @throws IllegalArgumentException when our query refuses a condition (a value too wide for its
     *     field, a range on a hashed field, ...): the caller leaves it to Spark
     */
    RowKeyQuery toQuery(RowKeySchema schema) {
        if (branches.isEmpty()) {
            return null;
        }
        List<RowKeyQuery> queries = new ArrayList<>();
        for (List<Condition> branch : branches) {
            RowKeyQuery q = RowKeyQuery.on(schema);
            for (Condition c : branch) {
                q = c.addTo(q);
            }
            queries.add(q);
        }
        return queries.size() == 1 ? queries.get(0) : RowKeyQuery.anyOf(queries.toArray(new RowKeyQuery[0]));
    }

    @Override
    public String toString() {
        if (branches.isEmpty()) {
            return "FALSE";
        }
        List<String> shown = new ArrayList<>();
        for (List<Condition> b : branches) {
            List<String> parts = new ArrayList<>();
            b.forEach(c -> parts.add(c.toString()));
            shown.add(parts.isEmpty() ? "TRUE" : String.join(" AND ", parts));
        }
        return shown.size() == 1 ? shown.get(0) : "(" + String.join(") OR (", shown) + ")";
    }

    /** Spark's predicate as key conditions, or null when it is not (wholly) one. */
    static Where of(Predicate p, RowKeySchema schema) {
        return translate(p, schema, false);
    }

    private static Where translate(Predicate p, RowKeySchema schema, boolean negate) {
        Expression[] args = p.children();
        switch (p.name()) {
            case "ALWAYS_TRUE":
                return negate ? none() : all();
            case "ALWAYS_FALSE":
                return negate ? all() : none();
            case "AND":
            case "OR": {
                Where left = translate((Predicate) args[0], schema, negate);
                Where right = left == null ? null : translate((Predicate) args[1], schema, negate);
                if (right == null) {
                    return null;
                }
                return p.name().equals("AND") != negate ? left.and(right) : left.or(right);
            }
            case "NOT":
                return translate((Predicate) args[0], schema, !negate);
            case "IS_NULL":
            case "IS_NOT_NULL":
                if (keyField(args[0], schema) == null) {
                    return null;
                }
                return p.name().equals("IS_NULL") != negate ? none() : all(); // a key field is never null
            case "IN": {
                String field = keyField(args[0], schema);
                if (field == null || args.length < 2) {
                    return null;
                }
                Object[] values = new Object[args.length - 1];
                for (int i = 1; i < args.length; i++) {
                    values[i - 1] = value(args[i], field, schema);
                    if (values[i - 1] == null) {
                        return null;
                    }
                }
                if (!negate) {
                    return single(new Condition(Condition.Op.IN, field, values));
                }
                Where all = all();
                for (Object v : values) {
                    all = all.and(single(new Condition(Condition.Op.NE, field, v)));
                }
                return all;
            }
            case "=":
            case "<=>":
            case "<>":
            case "<":
            case "<=":
            case ">":
            case ">=":
                return comparison(p.name(), args, schema, negate);
            default:
                return null;
        }
    }

    /** A key field compared with a literal: Spark puts the column first (its V2 predicates flip {@code 5 < code}). */
    private static Where comparison(String name, Expression[] args, RowKeySchema schema, boolean negate) {
        String field = keyField(args[0], schema);
        Object value = field == null ? null : value(args[1], field, schema);
        if (value == null) {
            return null;
        }
        Condition.Op op;
        switch (name) {
            case "<>": op = Condition.Op.NE; break;
            case "<": op = Condition.Op.LT; break;
            case "<=": op = Condition.Op.LE; break;
            case ">": op = Condition.Op.GT; break;
            case ">=": op = Condition.Op.GE; break;
            default: op = Condition.Op.EQ; break;
        }
        Condition c = new Condition(op, field, value);
        return single(negate ? c.negated() : c);
    }

    /**
     * Whether every row this matches has one value of {@code field}: each branch has it {@code =}
     * (or {@code IN} one value), the same value in all of them, and there is a branch.
     */
    boolean fixes(String field) {
        Object[] value = null;
        for (List<Condition> branch : branches) {
            Object[] here = null;
            for (Condition c : branch) {
                if (c.field.equals(field) && (c.op == Condition.Op.EQ || c.op == Condition.Op.IN) && c.values.length == 1) {
                    here = c.values;
                }
            }
            if (here == null || value != null && !java.util.Arrays.deepEquals(value, here)) {
                return false;
            }
            value = here;
        }
        return value != null;
    }

    static Where single(Condition c) {
        return new Where(Collections.singletonList(Collections.singletonList(c)));
    }

    /** The key field an expression is a plain reference to, or null. */
    static String keyField(Expression e, RowKeySchema schema) {
        if (!(e instanceof NamedReference) || ((NamedReference) e).fieldNames().length != 1) {
            return null;
        }
        String name = ((NamedReference) e).fieldNames()[0];
        return schema.fieldNames().contains(name) ? name : null;
    }

    /** A literal of the field's own Spark type, as the Java value our query takes; null otherwise (or for SQL NULL). */
    private static Object value(Expression e, String field, RowKeySchema schema) {
        if (!(e instanceof Literal)) {
            return null;
        }
        Literal<?> literal = (Literal<?>) e;
        Object v = literal.value();
        if (v == null || !literal.dataType().equals(KeyColumns.sparkType(schema, field))) {
            return null;
        }
        return v instanceof UTF8String ? v.toString() : v;
    }
}
