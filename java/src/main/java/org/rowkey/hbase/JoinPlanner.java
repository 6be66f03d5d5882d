package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.IndexHint;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.KeyRange;
import org.rowkey.hbase.proto.RowKeyProtos.Op;
import org.rowkey.hbase.proto.RowKeyProtos.PlanAlternative;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlanRequest;

/**
 * Plans a query as {@link KeyStream} joins (docs/joins.md): for each AND-branch, every ACTIVE
 * index whose fields all have {@code =}/{@code IN} conditions, and the data table's longest
 * {@code =}/{@code IN} prefix, is a stream; the native table planner gives each value combination's
 * key ranges and each stream's estimated rows (key-only, so without lookups).
 */
final class JoinPlanner {
    /** A data-row lookup costs as many rows as this ({@code LOOKUP_COST} of src/source_choice.rs). */
    static final double LOOKUP_COST = 4.0;
    /** The table size the native planner assumes ({@code DEFAULT_TABLE_ROWS} of src/source_choice.rs). */
    static final double TABLE_ROWS = 1_000_000;
    /** Value combinations (IN-lists multiplied) above which a source is not used as a stream: each is a seek per lead key. */
    static final int MAX_POINTS = 64;
    /** Streams intersected at most (the smallest ones). */
    static final int MAX_STREAMS = 4;
    /**
     * A stream estimated to hold more of the table than this is not used beside a smaller one:
     * in a leapfrog a seek per candidate key to drop few of them, in a relay turns that reach
     * little further than the smaller stream's.
     */
    static final double MAX_FOLLOWER_FRACTION = 0.25;

    private final Catalog catalog;
    private final Function<TablePlanRequest, TablePlan> planner;

    /** {@code planner}: the native table planner ({@link RowKeyTable}'s, which parses its answer). */
    JoinPlanner(Catalog catalog, Function<TablePlanRequest, TablePlan> planner) {
        this.catalog = catalog;
        this.planner = planner;
    }

    /**
     * The join plan of {@code query}. Its index hint ({@link RowKeyQuery#indexHint()}) limits the
     * streams: "" to the data table, a name to that index. Without {@link RowKeyQuery#leapfrog()},
     * a branch of several streams relays them ({@link KeyStreams#relay}), each filtered with the
     * branch's whole predicate, so that the rows read follow the smallest stream whichever it is.
     */
    JoinPlan plan(RowKeyQuery query) {
        List<JoinPlan.Branch> branches = new ArrayList<>();
        List<Integer> scanned = new ArrayList<>();
        List<RowKeyQuery> scannedQueries = new ArrayList<>();
        for (List<Condition> conditions : query.disjuncts()) {
            JoinPlan.Branch b = branch(conditions, query.indexHint(), query.isLeapfrog(), query.maxRanges());
            if (b.streams.isEmpty()) {
                scanned.add(branches.size());
                scannedQueries.add(RowKeyQuery.of(catalog.schema(), conditions));
            }
            branches.add(b);
        }
        return new JoinPlan(branches, query.limit(), query.isReversed(), dataScan(branches, scanned, scannedQueries,
                query.maxRanges()));
    }

    /**
     * The one data-table scan of the branches with no stream: one branch's own plan, or the native
     * union plan of several (their ranges merged, the OR of them filtered per row), so rows two
     * such branches share, or that lie between their ranges, are read once, not once per branch.
     */
    private static JoinPlan.DataScan dataScan(List<JoinPlan.Branch> branches, List<Integer> scanned,
            List<RowKeyQuery> queries, int maxRanges) {
        if (scanned.isEmpty()) {
            return null;
        }
        if (scanned.size() == 1) {
            return new JoinPlan.DataScan(scanned, queries.get(0), branches.get(scanned.get(0)).dataPlan);
        }
        RowKeyQuery union = RowKeyQuery.anyOf(queries.toArray(new RowKeyQuery[0]));
        return new JoinPlan.DataScan(scanned, union, ScanPlanner.plan(union, maxRanges));
    }

    /**
     * Whether a query of one AND-branch has at least two sources that may be streams (see
     * {@link #plan}): what a relay needs, known without planning them.
     */
    boolean mayRelay(RowKeyQuery query) {
        List<List<Condition>> branches = query.disjuncts();
        return branches.size() == 1 && sources(fixed(branches.get(0)), query.indexHint()).size() >= 2;
    }

    /** A source that may be a stream: -1 (the data table) or an index number, and the fields it fixes. */
    private static final class Source {
        final int index;
        final String name;
        final List<String> fields;

        Source(int index, String name, List<String> fields) {
            this.index = index;
            this.name = name;
            this.fields = fields;
        }
    }

    /** The first {@code =}/{@code IN} condition of each field (another on the field is checked per key). */
    private static Map<String, Condition> fixed(List<Condition> conditions) {
        Map<String, Condition> fixed = new LinkedHashMap<>();
        for (Condition c : conditions) {
            if (c.getOp() == Op.EQ || c.getOp() == Op.IN) {
                fixed.putIfAbsent(c.getField(), c);
            }
        }
        return fixed;
    }

    /**
     * The data table's {@code =}/{@code IN} prefix (when not empty and the hint allows the data
     * table), then every ACTIVE index the hint allows whose fields all have such conditions.
     */
    private List<Source> sources(Map<String, Condition> fixed, String hint) {
        List<Source> sources = new ArrayList<>();
        if (hint == null || hint.isEmpty()) {
            List<String> prefix = new ArrayList<>();
            for (String field : catalog.schema().fieldNames()) {
                if (!fixed.containsKey(field)) {
                    break;
                }
                prefix.add(field);
            }
            if (!prefix.isEmpty()) {
                sources.add(new Source(-1, "DATA TABLE", prefix));
            }
        }
        for (int i = 0; i < catalog.indexes().size(); i++) {
            IndexSpec index = catalog.indexes().get(i);
            boolean allowed = hint == null || hint.equals(index.getName());
            if (allowed && index.getState() == IndexState.ACTIVE && fixed.keySet().containsAll(index.getFieldsList())) {
                sources.add(new Source(i, "INDEX " + index.getName(), index.getFieldsList()));
            }
        }
        return sources;
    }

    private JoinPlan.Branch branch(List<Condition> conditions, String hint, boolean leapfrog, int maxRanges) {
        Map<String, Condition> fixed = fixed(conditions);
        List<JoinPlan.Stream> streams = new ArrayList<>();
        for (Source source : sources(fixed, hint)) {
            addStream(streams, source.index, source.name, source.fields, fixed, maxRanges);
        }
        streams.sort(Comparator.comparingDouble(s -> s.estimatedRows));
        List<JoinPlan.Stream> leftOut = new ArrayList<>();
        for (int i = streams.size() - 1; i >= 1; i--) {
            if (i >= MAX_STREAMS || streams.get(i).estimatedRows > MAX_FOLLOWER_FRACTION * TABLE_ROWS) {
                leftOut.add(0, streams.remove(i));
            }
        }
        if (streams.isEmpty()) {
            TablePlan data = planner.apply(request(conditions, IndexHint.NO_INDEX, "", maxRanges));
            return new JoinPlan.Branch(conditions, streams, leftOut, data.getPlan(), leapfrog, estimate(data, ""));
        }
        double lead = streams.get(0).estimatedRows;
        double matches = lead;
        for (JoinPlan.Stream s : streams.subList(1, streams.size())) {
            matches *= Math.min(1.0, s.estimatedRows / TABLE_ROWS);
        }
        double cost = streams.size() * lead + LOOKUP_COST * matches;
        return new JoinPlan.Branch(conditions, streams, leftOut, null, leapfrog, cost);
    }

    /** Adds the stream of {@code fields} of source {@code index} (-1: data table) when each value combination plans as exact prefixes. */
    private void addStream(List<JoinPlan.Stream> streams, int index, String source, List<String> fields,
            Map<String, Condition> fixed, int maxRanges) {
        List<Condition> conditions = new ArrayList<>();
        long combinations = 1;
        for (String f : fields) {
            Condition c = fixed.get(f);
            conditions.add(c);
            combinations *= c.getValuesCount();
            if (combinations > MAX_POINTS) {
                return;
            }
        }
        String name = index < 0 ? "" : catalog.indexes().get(index).getName();
        IndexHint hint = index < 0 ? IndexHint.NO_INDEX : IndexHint.USE_INDEX;
        List<JoinPlan.Point> points = new ArrayList<>();
        for (List<Condition> point : points(conditions)) {
            TablePlan plan = planner.apply(request(point, hint, name, maxRanges));
            if (plan.getPlan().getCapped()) {
                return;
            }
            for (KeyRange r : plan.getPlan().getRangesList()) {
                if (!isPrefixRange(r)) {
                    return; // not one value combination per range: its keys would not be in data-key order
                }
            }
            points.add(new JoinPlan.Point(point, plan.getPlan().getRangesList()));
        }
        double rows = estimate(planner.apply(request(conditions, hint, name, maxRanges)), name);
        streams.add(new JoinPlan.Stream(index, source, conditions, points, rows));
    }

    /** Every combination of one value per condition, as equalities. */
    private static List<List<Condition>> points(List<Condition> conditions) {
        List<List<Condition>> out = new ArrayList<>();
        out.add(new ArrayList<>());
        for (Condition c : conditions) {
            List<List<Condition>> next = new ArrayList<>();
            for (List<Condition> partial : out) {
                for (int v = 0; v < c.getValuesCount(); v++) {
                    List<Condition> more = new ArrayList<>(partial);
                    more.add(Condition.newBuilder().setField(c.getField()).setOp(Op.EQ).addValues(c.getValues(v)).build());
                    next.add(more);
                }
            }
            out = next;
        }
        return out;
    }

    /** Whether a range is every key with one prefix: its stop is the prefix's successor. */
    private static boolean isPrefixRange(KeyRange range) {
        byte[] start = range.getStart().toByteArray();
        if (start.length == 0) {
            return false;
        }
        byte[] successor = Arrays.copyOf(start, start.length);
        int i = successor.length - 1;
        while (i >= 0 && successor[i] == (byte) 0xff) {
            i--;
        }
        if (i < 0) {
            return range.getStop().isEmpty();
        }
        successor[i]++;
        return range.getStop().equals(ByteString.copyFrom(successor, 0, i + 1));
    }

    private TablePlanRequest request(List<Condition> conditions, IndexHint hint, String index, int maxRanges) {
        return TablePlanRequest.newBuilder().setCatalog(catalog.spec())
                .setPredicate(PredicateSpec.newBuilder().addAllConditions(conditions)).setMaxRanges(maxRanges)
                .setKeyOnly(true).setHint(hint).setHintIndex(index).build();
    }

    /** The estimated rows of the plan's alternative {@code source} ("" the data table). */
    private static double estimate(TablePlan plan, String source) {
        for (PlanAlternative a : plan.getAlternativesList()) {
            if (a.getIndex().equals(source)) {
                return a.getEstimatedRows();
            }
        }
        throw new IllegalStateException("the native planner gave no estimate for '" + source + "'");
    }
}
