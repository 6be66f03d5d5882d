package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexHint;
import org.rowkey.hbase.proto.RowKeyProtos.Op;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;

/**
 * Conditions on the fields of a {@link RowKeySchema}, AND-ed (or an OR of such AND-branches,
 * {@link #anyOf}, itself one comparator and one scan):
 *
 * <pre>{@code
 * RowKeyQuery q = RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2);
 * scan.setFilter(new RowFilter(CompareOperator.EQUAL, q.toComparator()));
 * }</pre>
 *
 * A builder, like HBase's {@code Scan}: each method adds a condition to this query and returns
 * it, so calls chain or not as you like; not thread-safe while being built. A comparator made by
 * {@link #toComparator()} keeps the conditions of that moment. Values are converted by the
 * field's type as in {@link RowKeySchema#encode} and an error names the field (the query is
 * left unchanged); whether a condition is allowed on a field (no order on hashed or bool
 * fields) is checked natively by {@link #toComparator()}.
 */
@RunsIn(RunsIn.Where.SHARED)
public final class RowKeyQuery {
    private final RowKeySchema schema;
    private final List<Condition> conditions = new ArrayList<>();
    /** 0: the native default (50,000). */
    private int maxRanges;
    /** {@link RowKeyTable#scan}: null to choose, "" for no index, else the index to read. */
    private String indexHint;
    /** {@link RowKeyTable#scan}: the columns returned; empty for every column. */
    private final List<Column> columns = new ArrayList<>();
    /** {@link RowKeyTable#scan}: row keys only, no cells. */
    private boolean keysOnly;
    /** {@link #anyOf}: the AND-branches (each a list of conditions) OR-ed; empty for a plain query. */
    private final List<List<Condition>> branches = new ArrayList<>();
    /** {@link RowKeyTable#scan}: the first rows in data-key order; 0 for all. */
    private int limit;
    /** {@link RowKeyTable#scan}: intersect every key stream with the leapfrog join. */
    private boolean leapfrog;
    /** {@link RowKeyTable#scan}: rows in descending data-key order. */
    private boolean reversed;
    /** {@link RowKeyTable#scan}: one scan after another, no parallel reads. */
    private boolean serial;
    /** {@link RowKeyTable#scan}: rows in the order parallel reads deliver them. */
    private boolean unordered;

    private RowKeyQuery(RowKeySchema schema) {
        this.schema = schema;
    }

    /** A query with no condition (it matches every row of the schema) on {@code schema}. */
    public static RowKeyQuery on(RowKeySchema schema) {
        return new RowKeyQuery(Objects.requireNonNull(schema, "schema"));
    }

    /**
     * The rows of any of {@code queries} (all on the same schema), each once, in data-key order:
     * {@link RowKeyTable#scan} answers it as a union of AND-plans (docs/joins.md), the branches that
     * no index answers read together by one data-table scan. Conditions added to the result apply
     * to every branch. {@link #toScan()} reads the union of the branches' key ranges with one scan,
     * each row matched against every branch in one native call ({@link #toComparator()}: the OR
     * program). Select columns, keys only and the limit on the result, not on the branches.
     *
     * @throws IllegalArgumentException for no query, queries on different schemas, or a branch
     *     with columns, keys only, an index hint or a limit of its own
     */
    public static RowKeyQuery anyOf(RowKeyQuery... queries) {
        Objects.requireNonNull(queries, "queries");
        if (queries.length == 0) {
            throw new IllegalArgumentException("anyOf: no query given");
        }
        RowKeyQuery union = new RowKeyQuery(Objects.requireNonNull(queries[0], "query").schema);
        for (RowKeyQuery q : queries) {
            Objects.requireNonNull(q, "query");
            if (!q.schema.equals(union.schema)) {
                throw new IllegalArgumentException("anyOf: a query is on " + q.schema + ", the first on " + union.schema);
            }
            if (!q.columns.isEmpty() || q.keysOnly || q.indexHint != null || q.limit != 0 || q.leapfrog || q.reversed) {
                throw new IllegalArgumentException("anyOf: set columns, keys only, hints, limits and order on the anyOf"
                        + " query, not on a branch: " + q);
            }
            union.branches.addAll(q.disjuncts());
        }
        return union;
    }

    /**
     * The query of a where clause on {@code schema}, the conditions the builder makes written as
     * SQL: {@code md5url = 'http://a/' AND sdate BETWEEN 20161201 AND 20161209 AND code IN (404, 503)
     * AND NOT free}; operators {@code = <> != < <= > >=}, {@code BETWEEN}, {@code IN}; a bool field
     * alone or after {@code NOT}; values integers, {@code true}/{@code false}, {@code 'strings'}
     * (a quote doubled) and {@code x'0a1b'} bytes, an md5 or Java-hash field taking the string to
     * hash; {@code OR} and parentheses anywhere (an {@link #anyOf} query), {@code TRUE} for no
     * condition. What {@link #toWhereClause()} and {@link #toString()} print parses back to an
     * equal query (toString's {@code DESCENDING} and {@code LIMIT n} included). One grammar, in
     * the native core, for every client (src/text.rs).
     *
     * @throws IllegalArgumentException naming the character, the token and what was expected, or
     *     the field and what is wrong with its condition; over a limit of the builder's
     */
    public static RowKeyQuery parse(RowKeySchema schema, String where) {
        Objects.requireNonNull(schema, "schema");
        String text = Objects.requireNonNull(where, "where clause").trim();
        int limit = 0;
        boolean reversed = false;
        if (text.startsWith("RowKeyQuery[") && text.endsWith("]")) {
            text = text.substring("RowKeyQuery[".length(), text.length() - 1);
            java.util.regex.Matcher suffix = TO_STRING_SUFFIX.matcher(text);
            if (suffix.find()) {
                reversed = suffix.group(1) != null;
                limit = suffix.group(2) == null ? 0 : Integer.parseInt(suffix.group(2));
                text = text.substring(0, suffix.start());
            }
        }
        PredicateComparatorSpec spec;
        try {
            spec = PredicateComparatorSpec.parseFrom(RowKeyNative.parseWhere(schema.toByteArray(),
                    text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("native core returned an unreadable predicate", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("RowKeyQuery.parse: " + e.getMessage(), e);
        }
        RowKeyQuery q = new RowKeyQuery(schema);
        if (spec.getAnyOfCount() == 0) {
            q.conditions.addAll(spec.getPredicate().getConditionsList());
        }
        for (PredicateSpec branch : spec.getAnyOfList()) {
            q.branches.add(new ArrayList<>(branch.getConditionsList()));
        }
        q.reversed = reversed;
        q.limit = limit;
        return q;
    }

    /** What {@link #toString()} appends to the where clause. */
    private static final java.util.regex.Pattern TO_STRING_SUFFIX =
            java.util.regex.Pattern.compile("(?: (DESCENDING))?(?: LIMIT ([0-9]{1,9}))?$");

    /**
     * The conditions as a where clause ({@link #parse} reads it back): AND-ed, or the branches of
     * an {@link #anyOf} query OR-ed, each in parentheses; {@code TRUE} for none.
     */
    public String toWhereClause() {
        return RowKeyNative.describeComparator(toComparatorSpec().toByteArray());
    }

    /**
     * {@link RowKeyTable#scan} returns the first {@code n} rows in data-key order and stops reading
     * as soon as it has them.
     */
    public RowKeyQuery limit(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + n);
        }
        this.limit = n;
        return this;
    }

    /**
     * {@link RowKeyTable#scan} intersects every index (and data-table prefix) that fixes some of the
     * conditions with the leapfrog join, each stream seeking to the others' keys, rather than read
     * the smallest one with the other conditions checked on its rows (docs/joins.md). The planner
     * does not choose it alone: an index row holds every key field, so that check is free, while
     * the leapfrog reads the same rows and then looks them up in the other streams (a second scan
     * request); it pays when the estimates (there are no statistics) pick the wrong stream.
     */
    public RowKeyQuery leapfrog() {
        this.leapfrog = true;
        return this;
    }

    /**
     * {@link RowKeyTable#scan} returns the rows in descending data-key order (with {@link #limit},
     * the last {@code n} by key): a query with no limit that reads the data table as its forward
     * twin does, or an unsalted index with one value of each of its fields, reads its regions at
     * once as that twin does, each in forward windows from its top down; the others are read
     * backwards by the key streams (docs/joins.md).
     */
    public RowKeyQuery reversed() {
        this.reversed = true;
        return this;
    }

    /** {@code field = value}. */
    public RowKeyQuery eq(String field, Object value) {
        return with(field, Op.EQ, value);
    }

    /** {@code field <> value}. */
    public RowKeyQuery ne(String field, Object value) {
        return with(field, Op.NE, value);
    }

    /** {@code field < value}, in value order. */
    public RowKeyQuery lt(String field, Object value) {
        return with(field, Op.LT, value);
    }

    /** {@code field <= value}, in value order. */
    public RowKeyQuery le(String field, Object value) {
        return with(field, Op.LE, value);
    }

    /** {@code field > value}, in value order. */
    public RowKeyQuery gt(String field, Object value) {
        return with(field, Op.GT, value);
    }

    /** {@code field >= value}, in value order. */
    public RowKeyQuery ge(String field, Object value) {
        return with(field, Op.GE, value);
    }

    /** {@code low <= field <= high}, both inclusive, in value order. */
    public RowKeyQuery between(String field, Object low, Object high) {
        return with(field, Op.BETWEEN, low, high);
    }

    /** {@code field IN (values)}; no values matches no row. */
    public RowKeyQuery in(String field, Object... values) {
        Objects.requireNonNull(values, "values");
        return with(field, Op.IN, values);
    }

    /** {@code field IN (values)}; no values matches no row. */
    public RowKeyQuery in(String field, Collection<?> values) {
        Objects.requireNonNull(values, "values");
        return with(field, Op.IN, values.toArray());
    }

    /**
     * The comparator that matches exactly the rows of this query (use with {@code CompareOperator.EQUAL});
     * for an {@link #anyOf} query, the rows of any branch, each branch a compiled program and one
     * native call per row.
     */
    public PredicateComparator toComparator() {
        return new PredicateComparator(this);
    }

    /**
     * The most key ranges {@link #toScan()} may expand IN-lists and small ranges into (their
     * cartesian product); above it one covering range is read instead, still exact thanks to
     * the residual filter. Default 50,000.
     */
    public RowKeyQuery maxRanges(int maxRanges) {
        if (maxRanges < 1) {
            throw new IllegalArgumentException("maxRanges must be at least 1, got " + maxRanges);
        }
        this.maxRanges = maxRanges;
        return this;
    }

    /**
     * {@link RowKeyTable#scan} reads index {@code name} (which must be ACTIVE), whatever the
     * planner would choose (Phoenix's {@code INDEX} hint).
     */
    public RowKeyQuery useIndex(String name) {
        this.indexHint = Objects.requireNonNull(name, "index name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("useIndex: the index name is empty");
        }
        return this;
    }

    /** {@link RowKeyTable#scan} reads the data table, never an index (Phoenix's {@code NO_INDEX} hint). */
    public RowKeyQuery noIndex() {
        this.indexHint = "";
        return this;
    }

    /**
     * {@link RowKeyTable#scan} returns only these columns of each row (else every column): a query
     * whose columns an index covers is answered from the index alone.
     */
    public RowKeyQuery select(byte[] family, byte[]... qualifiers) {
        Objects.requireNonNull(family, "family");
        for (byte[] q : Objects.requireNonNull(qualifiers, "qualifiers")) {
            columns.add(Column.newBuilder().setFamily(ByteString.copyFrom(family))
                    .setQualifier(ByteString.copyFrom(Objects.requireNonNull(q, "qualifier"))).build());
        }
        return this;
    }

    /** {@link RowKeyTable#scan} returns the row keys only (each Result has its row and one cell or none), from an index alone where one is read. */
    public RowKeyQuery keysOnly() {
        this.keysOnly = true;
        return this;
    }

    /**
     * {@link RowKeyTable#scan} reads the chunks of its plan (its ranges, cut at region boundaries) one
     * after another, as one HBase scan, rather than at once (see {@code rowkey.scan.threads});
     * {@link RowKeyTable#aggregate} folds its regions one after another.
     */
    public RowKeyQuery serial() {
        this.serial = true;
        return this;
    }

    /**
     * {@link RowKeyTable#scan} may return the rows in any order: each chunk's rows (a region's part of
     * the plan) as soon as they are read, so no chunk waits for the one before it. Queries answered by
     * joins of key streams (limits, reversed, {@code anyOf}) keep their order.
     */
    public RowKeyQuery unordered() {
        this.unordered = true;
        return this;
    }

    boolean isSerial() {
        return serial;
    }

    boolean isUnordered() {
        return unordered;
    }

    /** The limit; 0 for none. */
    int limit() {
        return limit;
    }

    boolean isLeapfrog() {
        return leapfrog;
    }

    boolean isReversed() {
        return reversed;
    }

    /** Whether this is an {@link #anyOf} query. */
    boolean isUnion() {
        return !branches.isEmpty();
    }

    /** The query as OR-ed AND-branches: this query's conditions with each branch's (one branch when plain). */
    List<List<Condition>> disjuncts() {
        List<List<Condition>> out = new ArrayList<>();
        if (branches.isEmpty()) {
            out.add(new ArrayList<>(conditions));
        }
        for (List<Condition> branch : branches) {
            List<Condition> all = new ArrayList<>(conditions);
            all.addAll(branch);
            out.add(all);
        }
        return out;
    }

    /** A plain query on {@code schema} with exactly {@code conditions} (an AND-branch, a join stream). */
    static RowKeyQuery of(RowKeySchema schema, List<Condition> conditions) {
        RowKeyQuery q = new RowKeyQuery(schema);
        q.conditions.addAll(conditions);
        return q;
    }

    /** The selected columns; empty for every column. */
    List<Column> columns() {
        return columns;
    }

    boolean isKeysOnly() {
        return keysOnly;
    }

    /** The index hint: null (choose), "" (no index) or an index name. */
    String indexHint() {
        return indexHint;
    }

    /** The kind of {@link #indexHint()}, as the planner's requests carry it beside the index's name. */
    IndexHint indexHintKind() {
        return indexHint == null ? IndexHint.INDEX_HINT_AUTOMATIC : indexHint.isEmpty() ? IndexHint.NO_INDEX : IndexHint.USE_INDEX;
    }

    /** The range cap; 0 for the native default. */
    int maxRanges() {
        return maxRanges;
    }

    /**
     * A scan that reads only the key ranges that can hold this query's rows and filters the
     * rest natively: start/stop rows, a {@code MultiRowRangeFilter} when there are several ranges
     * (the RegionServer seeks between them), and a {@link PredicateComparator} {@code RowFilter}
     * for the conditions the ranges do not enforce. When the ranges do not enforce every
     * condition, a {@link SkipScanFilter} instead, which seeks from runs of failing rows to the
     * next key that can match ({@link #explain()} says which and why).
     * Returns exactly the rows of the query. Add columns, caching or a limit as usual; keep the
     * filter. An {@link #anyOf} query is one scan too: the union of its branches' ranges (sorted,
     * overlapping ones joined; a branch that needs the whole table makes it the whole table), its
     * rows filtered by the OR of the branches or read with the skip scan over the OR.
     *
     * @throws IllegalArgumentException for a {@link #reversed()} query: the skip scan seeks forward
     *     only, so only {@link RowKeyTable#scan} answers it
     */
    public Scan toScan() {
        if (reversed) {
            throw new IllegalArgumentException("toScan: a reversed query is answered only by RowKeyTable.scan"
                    + " (the skip scan seeks forward only): " + this);
        }
        return ScanPlanner.scan(ScanPlanner.plan(this, maxRanges), toPredicateComparatorSpec());
    }

    /**
     * The key ranges {@link #toScan()} reads (start inclusive, stop exclusive, an empty stop row
     * meaning the end of the table), for building your own scan; sorted, disjoint, empty when no
     * row can match. Rows inside them may still fail conditions: filter with {@link #toComparator()}.
     */
    public List<MultiRowRangeFilter.RowRange> toRanges() {
        return ScanPlanner.ranges(ScanPlanner.plan(this, maxRanges));
    }

    /**
     * Which key ranges {@link #toScan()} reads and which conditions it filters per row, and why; for
     * an {@link #anyOf} query each branch's ranges and estimate, and their union.
     */
    public String explain() {
        return toString() + "\n" + ScanPlanner.plan(this, maxRanges).getExplain();
    }

    /** The schema the query is on. */
    public RowKeySchema schema() {
        return schema;
    }

    /** The conditions as the wire message, for the comparator and the scan planner. */
    PredicateSpec toPredicateSpec() {
        requirePlain("toPredicateSpec");
        return PredicateSpec.newBuilder().addAllConditions(conditions).build();
    }

    /** The predicate comparator's spec of this query, schema included. */
    ComparatorSpec toComparatorSpec() {
        return ComparatorSpec.newBuilder()
                .setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setSchema(schema.spec())
                .setPredicate(toPredicateComparatorSpec())
                .build();
    }

    /** The conditions as a predicate comparator's kind: one AND-predicate, or the OR of the {@link #disjuncts()}. */
    PredicateComparatorSpec toPredicateComparatorSpec() {
        return predicateOf(disjuncts());
    }

    /** The predicate comparator kind of the OR of {@code branches}; one branch: that predicate alone. */
    static PredicateComparatorSpec predicateOf(List<List<Condition>> branches) {
        PredicateComparatorSpec.Builder spec = PredicateComparatorSpec.newBuilder();
        if (branches.size() == 1) {
            return spec.setPredicate(PredicateSpec.newBuilder().addAllConditions(branches.get(0))).build();
        }
        for (List<Condition> branch : branches) {
            spec.addAnyOf(PredicateSpec.newBuilder().addAllConditions(branch));
        }
        return spec.build();
    }

    /**
     * Equal queries: the same schema, conditions (in order), branches and settings; what
     * {@link #parse} reads from {@link #toString()} equals the query printed.
     */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RowKeyQuery)) {
            return false;
        }
        RowKeyQuery q = (RowKeyQuery) o;
        return schema.equals(q.schema) && disjuncts().equals(q.disjuncts()) && maxRanges == q.maxRanges
                && Objects.equals(indexHint, q.indexHint) && columns.equals(q.columns) && keysOnly == q.keysOnly
                && limit == q.limit && leapfrog == q.leapfrog && reversed == q.reversed;
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, disjuncts(), limit, reversed);
    }

    /** The conditions, SQL-like: {@code RowKeyQuery[code = 404 AND sdate BETWEEN 1 AND 9]}; branches OR-ed. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("RowKeyQuery[");
        List<List<Condition>> disjuncts = disjuncts();
        for (int i = 0; i < disjuncts.size(); i++) {
            s.append(i == 0 ? "" : " OR ").append(disjuncts.size() > 1 ? "(" : "")
                    .append(RowKeyNative.describeComparator(of(schema, disjuncts.get(i)).toComparatorSpec().toByteArray()))
                    .append(disjuncts.size() > 1 ? ")" : "");
        }
        return s.append(reversed ? " DESCENDING" : "").append(limit > 0 ? " LIMIT " + limit : "").append("]").toString();
    }

    private void requirePlain(String what) {
        if (isUnion()) {
            throw new IllegalStateException(what + ": an anyOf query is an OR of AND-predicates, not one predicate");
        }
    }

    private RowKeyQuery with(String field, Op op, Object... values) {
        FieldSpec f = schema.field(field);
        Condition.Builder c = Condition.newBuilder().setField(f.getName()).setOp(op);
        for (Object v : values) {
            c.addValues(Values.toValue(f, v));
        }
        conditions.add(c.build());
        return this;
    }
}
