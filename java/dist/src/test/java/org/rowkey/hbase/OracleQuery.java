package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.OracleModel.Condition;
import org.rowkey.hbase.OracleModel.Field;
import org.rowkey.hbase.OracleModel.Kind;

/**
 * One random question to the product, kept as data: the read path, the conditions (an AND, or an
 * OR of AND-branches), the options, and for aggregates the aggregation. {@link #build} makes a new
 * {@link RowKeyQuery} each time (it is a mutable builder); {@link #holds} is the oracle's reading.
 */
final class OracleQuery {
    enum Path {
        /** RowKeyTable.scan. */
        SCAN,
        /** A plain HBase scan of query.toScan() on the data table. */
        TO_SCAN,
        /** The same after the query went through its text: RowKeyQuery.parse(schema, toWhereClause()). */
        TEXT_TO_SCAN,
        /** RowKeyTable.aggregate. */
        AGGREGATE,
        /**
         * A plain HBase scan of the data table with the query as text in a RowKeyWhere filter (the
         * shell's, Thrift's and the Python package's path), bound to the catalog in each region, or
         * carrying the schema; as the filter object or through the filter language's parser.
         */
        WHERE_FILTER
    }

    enum Function { COUNT, SUM, MIN, MAX, AVG }

    static final byte[] F = Bytes.toBytes("f");
    static final byte[] G = Bytes.toBytes("g");
    /** The numeric cells rows may have, as Bytes.toBytes(long | int | double) writes them. */
    static final byte[] N = Bytes.toBytes("n");
    static final byte[] I = Bytes.toBytes("i");
    static final byte[] D = Bytes.toBytes("d");
    /** A string cell (Append, checkAndMutate) and the other family's cells. */
    static final byte[] S = Bytes.toBytes("s");
    static final byte[] A = Bytes.toBytes("a");
    static final byte[] B = Bytes.toBytes("b");
    /** Every column a query may select (never the noise column). */
    static final List<byte[][]> COLUMNS = Collections.unmodifiableList(java.util.Arrays.asList(
            new byte[][] {F, N}, new byte[][] {F, I}, new byte[][] {F, D}, new byte[][] {F, S}, new byte[][] {G, A},
            new byte[][] {G, B}));

    /** One aggregate: its function and input (count(*): neither a field nor a cell). */
    static final class Agg {
        final Function function;
        final Field field;
        final byte[] cell;

        Agg(Function function, Field field, byte[] cell) {
            this.function = function;
            this.field = field;
            this.cell = cell;
        }

        boolean isDouble() {
            return cell == D;
        }

        /** min/max come back as Integer for an int32 field or an int cell. */
        boolean isInt32() {
            return cell == I || (field != null && field.kind == Kind.INT32);
        }

        /** What a row gives this aggregate; null when it gives nothing (no such cell). */
        Number input(OracleSnapshot.Row row) {
            if (field != null) {
                return (Number) row.fields.get(field.name);
            }
            if (cell == null) {
                return 1;
            }
            Cell c = row.cell(F, cell);
            if (c == null) {
                return null;
            }
            byte[] v = CellUtil.cloneValue(c);
            return cell == I ? (Number) Bytes.toInt(v) : cell == N ? (Number) Bytes.toLong(v) : (Number) Bytes.toDouble(v);
        }

        void addTo(Aggregation a) {
            Aggregation.Cell c = cell == null ? null : cell == I ? Aggregation.Cell.ofInt(F, I)
                    : cell == N ? Aggregation.Cell.ofLong(F, N) : Aggregation.Cell.ofDouble(F, D);
            switch (function) {
                case COUNT: if (c == null) { a.count(); } else { a.count(c); } break;
                case SUM: if (c == null) { a.sum(field.name); } else { a.sum(c); } break;
                case MIN: if (c == null) { a.min(field.name); } else { a.min(c); } break;
                case MAX: if (c == null) { a.max(field.name); } else { a.max(c); } break;
                default: if (c == null) { a.avg(field.name); } else { a.avg(c); } break;
            }
        }

        @Override
        public String toString() {
            return function.name().toLowerCase(java.util.Locale.ROOT) + "("
                    + (field != null ? field.name : cell != null ? "f:" + Bytes.toString(cell) : "*") + ")";
        }
    }

    static final class Group {
        final Field field;
        final Aggregation.Unit unit;
        final long unitMillis;

        Group(Field field, Aggregation.Unit unit) {
            this.field = field;
            this.unit = unit;
            this.unitMillis = unit == null ? 0 : unit == Aggregation.Unit.DAY ? OracleModel.DAY
                    : unit == Aggregation.Unit.HOUR ? OracleModel.HOUR : OracleModel.MINUTE;
        }
    }

    static final class AggSpec {
        final List<Group> groups = new ArrayList<>();
        final List<Agg> aggregates = new ArrayList<>();
        int orderBy = -1;
        boolean descending;
        int limit;
        int maxGroups;
        int budgetRows;
        int budgetMillis;

        Aggregation build(RowKeySchema schema) {
            Aggregation a = Aggregation.on(schema);
            for (Group g : groups) {
                if (g.unit == null) {
                    a.groupBy(g.field.name);
                } else {
                    a.groupBy(g.field.name, g.unit);
                }
            }
            for (Agg agg : aggregates) {
                agg.addTo(a);
            }
            if (orderBy >= 0) {
                if (descending) {
                    a.orderByDescending(orderBy);
                } else {
                    a.orderBy(orderBy);
                }
            }
            if (limit > 0) {
                a.limit(limit);
            }
            if (maxGroups > 0) {
                a.maxGroups(maxGroups);
            }
            if (budgetRows > 0) {
                a.budget(budgetRows, budgetMillis);
            }
            return a;
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(aggregates.toString());
            if (!groups.isEmpty()) {
                s.append(" group by");
                for (Group g : groups) {
                    s.append(' ').append(g.field.name).append(g.unit == null ? "" : " per " + g.unit);
                }
            }
            s.append(orderBy >= 0 ? " order by #" + orderBy + (descending ? " desc" : "") : "")
                    .append(limit > 0 ? " limit " + limit : "").append(maxGroups > 0 ? " maxGroups " + maxGroups : "")
                    .append(budgetRows > 0 ? " budget(" + budgetRows + ", " + budgetMillis + ")" : "");
            return s.toString();
        }
    }

    final Path path;
    /** How a WHERE_FILTER query is sent: 0 the filter object, 1 with the schema, 2 as filter text, 3 as filter text with the schema. */
    int whereForm;
    final List<Condition> shared = new ArrayList<>();
    /** The AND-branches of an anyOf; empty for a plain query. */
    final List<List<Condition>> branches = new ArrayList<>();
    /** null: the planner chooses; "": noIndex; else useIndex(name). */
    String hint;
    final List<byte[][]> select = new ArrayList<>();
    boolean keysOnly;
    int limit;
    boolean reversed;
    boolean leapfrog;
    boolean serial;
    boolean unordered;
    AggSpec aggregation;

    OracleQuery(Path path) {
        this.path = path;
    }

    RowKeyQuery build(RowKeySchema schema) {
        RowKeyQuery q;
        if (branches.isEmpty()) {
            q = RowKeyQuery.on(schema);
        } else {
            RowKeyQuery[] each = new RowKeyQuery[branches.size()];
            for (int i = 0; i < each.length; i++) {
                each[i] = RowKeyQuery.on(schema);
                for (Condition c : branches.get(i)) {
                    c.addTo(each[i]);
                }
            }
            q = RowKeyQuery.anyOf(each);
        }
        for (Condition c : shared) {
            c.addTo(q);
        }
        if (hint != null) {
            if (hint.isEmpty()) {
                q.noIndex();
            } else {
                q.useIndex(hint);
            }
        }
        for (byte[][] fq : select) {
            q.select(fq[0], fq[1]);
        }
        if (keysOnly) {
            q.keysOnly();
        }
        if (limit > 0) {
            q.limit(limit);
        }
        if (reversed) {
            q.reversed();
        }
        if (leapfrog) {
            q.leapfrog();
        }
        if (serial) {
            q.serial();
        }
        if (unordered) {
            q.unordered();
        }
        return q;
    }

    /** The oracle's reading of the conditions. */
    boolean holds(Map<String, Object> decoded) {
        for (Condition c : shared) {
            if (!c.holds(decoded)) {
                return false;
            }
        }
        if (branches.isEmpty()) {
            return true;
        }
        for (List<Condition> branch : branches) {
            boolean all = true;
            for (Condition c : branch) {
                all &= c.holds(decoded);
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /** Queries RowKeyTable.scan answers by joins of key streams: in data-key order, aggregates refused. */
    boolean answeredByJoins() {
        return !branches.isEmpty() || limit > 0 || reversed || leapfrog;
    }

    /** The options beside the conditions, for a report. */
    String options() {
        List<String> o = new ArrayList<>();
        o.add(path.name());
        o.add(path == Path.WHERE_FILTER ? "as " + whereForm : null);
        if (hint != null) {
            o.add(hint.isEmpty() ? "noIndex" : "useIndex(" + hint + ")");
        }
        if (!select.isEmpty()) {
            List<String> cols = new ArrayList<>();
            for (byte[][] fq : select) {
                cols.add(Bytes.toString(fq[0]) + ":" + Bytes.toString(fq[1]));
            }
            o.add("select" + cols);
        }
        o.add(keysOnly ? "keysOnly" : null);
        o.add(limit > 0 ? "limit " + limit : null);
        o.add(reversed ? "reversed" : null);
        o.add(leapfrog ? "leapfrog" : null);
        o.add(serial ? "serial" : null);
        o.add(unordered ? "unordered" : null);
        o.removeIf(java.util.Objects::isNull);
        return String.join(", ", o) + (aggregation != null ? "; aggregation " + aggregation : "");
    }

    // ------------------------------------------------------------------ random queries

    /** A random query; {@code live} (the rows as last read, in key order) aims some of them at rows that exist. */
    static OracleQuery random(OracleModel.Schema schema, List<OracleModel.Index> indexes, List<OracleSnapshot.Row> live,
            Random random) {
        int dice = random.nextInt(100);
        Path path = dice < 42 ? Path.SCAN : dice < 80 ? Path.AGGREGATE : dice < 88 ? Path.TO_SCAN : dice < 93 ? Path.TEXT_TO_SCAN
                : Path.WHERE_FILTER;
        OracleQuery q = new OracleQuery(path);
        addConditions(q.shared, schema, indexes, random, random.nextInt(4));
        boolean wantsJoin = path == Path.AGGREGATE ? random.nextInt(20) == 0 : random.nextInt(10) < 3;
        if (path != Path.AGGREGATE || wantsJoin) {
            if (wantsJoin && random.nextBoolean()) {
                int n = 2 + random.nextInt(2);
                for (int i = 0; i < n; i++) {
                    List<Condition> branch = new ArrayList<>();
                    addConditions(branch, schema, indexes, random, 1 + random.nextInt(2));
                    q.branches.add(branch);
                }
                if (random.nextBoolean()) {
                    q.shared.clear();
                }
            }
        }
        int hint = random.nextInt(10);
        if (path == Path.SCAN || path == Path.AGGREGATE) {
            if (hint < 2) {
                q.hint = "";
            } else if (hint < 4 && !indexes.isEmpty()) {
                q.hint = indexes.get(random.nextInt(indexes.size())).name;
            }
        }
        if (path == Path.SCAN) {
            int shape = random.nextInt(10);
            if (shape < 3) {
                for (byte[][] fq : COLUMNS) {
                    if (random.nextInt(3) == 0) {
                        q.select.add(fq);
                    }
                }
            } else if (shape < 5) {
                q.keysOnly = true;
            }
            if (wantsJoin) {
                q.limit = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(20);
                q.reversed = random.nextBoolean();
                q.leapfrog = random.nextInt(3) == 0;
                if (q.leapfrog && q.branches.isEmpty() && !indexes.isEmpty() && random.nextBoolean()) {
                    // An index's fields and the key's leading field: their streams intersected, the
                    // data table's seeking across its ranges.
                    q.shared.clear();
                    OracleModel.Index index = indexes.get(random.nextInt(indexes.size()));
                    if (!live.isEmpty() && random.nextInt(4) > 0) {
                        aimAtRows(index, q.shared, schema, live, random);
                    } else {
                        q.shared.add(leadingIn(schema, random)); // first: the stream's condition on that field
                        aimAt(index, q.shared, schema, random);
                    }
                    q.limit = 1 + random.nextInt(20); // its ranges then read in sequence, sought across
                }
            } else {
                q.reversed = random.nextInt(4) == 0; // one AND-branch read backwards, its streams' windows from the top down
                // Or its first rows: a limit through an index it hints, or as the planner reads them
                // (the data table's single read stopped at the limit, when no index serves them).
                boolean limited = !q.reversed && random.nextInt(4) == 0;
                if (limited) {
                    q.limit = 1 + random.nextInt(20);
                }
                if ((q.reversed ? random.nextInt(3) > 0 : limited && random.nextBoolean()) && !indexes.isEmpty()) {
                    // Read backwards through an index it hints, = or IN on each of its fields: where each
                    // has one value, the index's single read in its key order, which is then the data's
                    // (a salted index's in each bucket: the buckets merged by data key); where one field
                    // has several, the joins, which merge the index's runs of data keys. Read in the
                    // index's order, those rows would come grouped by that field's value: pool values,
                    // which rows hold, make such groups interleave.
                    OracleModel.Index index = indexes.get(random.nextInt(indexes.size()));
                    q.hint = index.name;
                    if (random.nextBoolean()) {
                        q.shared.clear();
                    }
                    int several = random.nextBoolean() ? random.nextInt(index.fields.size()) : -1;
                    for (int i = 0; i < index.fields.size(); i++) {
                        Field f = schema.field(index.fields.get(i));
                        if (i == several) {
                            List<Object> values = new ArrayList<>(f.pool);
                            Collections.shuffle(values, random);
                            int count = Math.min(values.size(), 2 + random.nextInt(2));
                            q.shared.add(new Condition(f, OracleModel.Op.IN, values.subList(0, count)));
                        } else {
                            Object v = f.conditionValue(random);
                            q.shared.add(new Condition(f, random.nextBoolean() ? OracleModel.Op.EQ : OracleModel.Op.IN,
                                    Collections.singletonList(v)));
                        }
                    }
                }
            }
            if (q.hint != null && !q.hint.isEmpty() && q.branches.isEmpty() && q.answeredByJoins() && random.nextInt(3) > 0) {
                askCovered(q, index(indexes, q.hint), random);
            }
            q.serial = random.nextInt(5) == 0;
            q.unordered = !q.serial && random.nextInt(6) == 0;
        }
        if (path == Path.WHERE_FILTER) {
            q.whereForm = random.nextInt(4);
        }
        if (path == Path.AGGREGATE) {
            if (wantsJoin && q.branches.isEmpty()) { // refused: aggregates of joins are not built yet
                q.limit = random.nextBoolean() ? 1 + random.nextInt(5) : 0;
                q.reversed = q.limit == 0 || random.nextBoolean();
            }
            q.serial = random.nextInt(5) < 2;
            q.aggregation = randomAggregation(schema, random);
        }
        return q;
    }

    /**
     * Asks what {@code index} covers: some of its covered columns, or keys only. A join of its one
     * stream then answers from its VERIFIED rows (a covered stream), with no Get.
     */
    private static void askCovered(OracleQuery q, OracleModel.Index index, Random random) {
        q.select.clear();
        q.keysOnly = false;
        for (byte[][] fq : COLUMNS) {
            String family = Bytes.toString(fq[0]);
            if ((index.covers.contains(family) || index.covers.contains(family + ":" + Bytes.toString(fq[1])))
                    && random.nextInt(3) > 0) {
                q.select.add(fq);
            }
        }
        q.keysOnly = q.select.isEmpty();
    }

    private static OracleModel.Index index(List<OracleModel.Index> indexes, String name) {
        for (OracleModel.Index i : indexes) {
            if (i.name.equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no index " + name);
    }

    /** Conditions on random fields; sometimes aimed at an index (= or IN on each of its fields). */
    private static void addConditions(List<Condition> into, OracleModel.Schema schema, List<OracleModel.Index> indexes,
            Random random, int count) {
        if (!indexes.isEmpty() && random.nextInt(10) < 3) {
            OracleModel.Index index = indexes.get(random.nextInt(indexes.size()));
            aimAt(index, into, schema, random);
            count = Math.max(0, count - index.fields.size());
        }
        if (count > 0 && random.nextInt(10) < 2) {
            into.add(leadingIn(schema, random));
            count--;
        }
        for (int i = 0; i < count; i++) {
            into.add(OracleModel.randomCondition(schema.fields.get(random.nextInt(schema.fields.size())), random));
        }
    }

    /**
     * The key's leading field by an IN of several values: the data table's ranges, one per value (a
     * data-table stream of the joins, each range read after the one before under a limit).
     */
    private static Condition leadingIn(OracleModel.Schema schema, Random random) {
        Field lead = schema.fields.get(0);
        List<Object> values = new ArrayList<>();
        for (int n = 2 + random.nextInt(3); n > 0; n--) {
            values.add(lead.conditionValue(random));
        }
        return new Condition(lead, OracleModel.Op.IN, values);
    }

    /**
     * The index's values of a written row, and an IN of the leading-field values of the rows that
     * share them (with a value no row may have): the index's stream and the data table's ranges
     * then share keys in several of its ranges, which the leapfrog seeks across, one range after
     * another under a limit. Random values mostly match no row at all.
     */
    private static void aimAtRows(OracleModel.Index index, List<Condition> into, OracleModel.Schema schema,
            List<OracleSnapshot.Row> live, Random random) {
        OracleSnapshot.Row row = live.get(random.nextInt(live.size()));
        List<Object> leads = new ArrayList<>();
        Field lead = schema.fields.get(0);
        for (OracleSnapshot.Row r : live) {
            if (sameValues(index.fields, r, row)) {
                Object v = poolValue(lead, r.fields.get(lead.name));
                if (v != null && !leads.contains(v)) { // the pool's own object: equal values are the same one
                    leads.add(v);
                }
            }
        }
        Collections.shuffle(leads, random);
        leads = new ArrayList<>(leads.subList(0, Math.min(leads.size(), 2 + random.nextInt(3))));
        leads.add(lead.conditionValue(random));
        into.add(new Condition(lead, OracleModel.Op.IN, leads));
        for (String name : index.fields) {
            Field f = schema.field(name);
            Object v = poolValue(f, row.fields.get(name));
            into.add(v == null ? OracleModel.randomCondition(f, random)
                    : new Condition(f, random.nextBoolean() ? OracleModel.Op.EQ : OracleModel.Op.IN, Collections.singletonList(v)));
        }
    }

    private static boolean sameValues(List<String> fields, OracleSnapshot.Row a, OracleSnapshot.Row b) {
        for (String name : fields) {
            if (OracleModel.compareValues(a.fields.get(name), b.fields.get(name)) != 0) {
                return false;
            }
        }
        return true;
    }

    /** The pool value (as conditions take it) a row's decoded value is; null when none is. */
    private static Object poolValue(Field f, Object decoded) {
        for (Object p : f.pool) {
            if (OracleModel.compareValues(OracleModel.canonical(f, p), decoded) == 0) {
                return p;
            }
        }
        return null;
    }

    /** An = or IN condition on each field of {@code index}. */
    private static void aimAt(OracleModel.Index index, List<Condition> into, OracleModel.Schema schema, Random random) {
        for (String name : index.fields) {
            Field f = schema.field(name);
            Condition c;
            do {
                c = OracleModel.randomCondition(f, random);
            } while (c.op != OracleModel.Op.EQ && c.op != OracleModel.Op.IN);
            into.add(c);
        }
    }

    private static AggSpec randomAggregation(OracleModel.Schema schema, Random random) {
        AggSpec a = new AggSpec();
        int groups = random.nextInt(10) < 4 ? 0 : 1 + random.nextInt(2);
        List<Field> candidates = new ArrayList<>(schema.fields);
        Collections.shuffle(candidates, random);
        for (int i = 0; i < groups && i < candidates.size(); i++) {
            Field f = candidates.get(i);
            Aggregation.Unit unit = null;
            if (f.kind.time() && random.nextBoolean()) {
                unit = Aggregation.Unit.values()[random.nextInt(Aggregation.Unit.values().length)];
            }
            a.groups.add(new Group(f, unit));
        }
        List<Field> numeric = schema.numericFields();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            Function function = Function.values()[random.nextInt(Function.values().length)];
            byte[][] cells = {null, N, I, D};
            byte[] cell = cells[random.nextInt(cells.length)];
            if (function != Function.COUNT && cell == null) {
                if (numeric.isEmpty() || random.nextBoolean()) {
                    cell = new byte[][] {N, I, D}[random.nextInt(3)];
                }
            }
            Field field = function != Function.COUNT && cell == null ? numeric.get(random.nextInt(numeric.size())) : null;
            a.aggregates.add(new Agg(function, field, cell));
        }
        if (random.nextInt(4) == 0) {
            a.orderBy = random.nextInt(a.aggregates.size());
            a.descending = random.nextBoolean();
            a.limit = random.nextBoolean() ? 1 + random.nextInt(4) : 0;
        }
        if (random.nextInt(20) == 0) {
            a.maxGroups = 1 + random.nextInt(6);
        }
        int budget = random.nextInt(10);
        if (budget == 0) {
            a.budgetRows = 1;
            a.budgetMillis = 1;
        } else if (budget == 1) {
            a.budgetRows = 50;
            a.budgetMillis = 5;
        } else if (budget == 2) {
            a.budgetRows = 1 + random.nextInt(30);
            a.budgetMillis = 1000;
        }
        return a;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (!branches.isEmpty()) {
            s.append("anyOf").append(branches);
        }
        if (!shared.isEmpty()) {
            s.append(s.length() > 0 ? " and " : "").append(shared);
        }
        return (s.length() == 0 ? "TRUE" : s.toString()) + " {" + options() + "}";
    }
}
