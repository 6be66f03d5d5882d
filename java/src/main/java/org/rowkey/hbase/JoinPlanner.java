package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.IndexHint;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchPlan;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchRequest;
import org.rowkey.hbase.proto.RowKeyProtos.KeyStreamSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.StreamPoint;

/**
 * Plans a query as {@link KeyStream} joins (docs/joins.md): the native planner chooses each
 * AND-branch's streams ({@code stream_choice}: every ACTIVE index whose fields all have
 * {@code =}/{@code IN} conditions, and the data table's longest such prefix), with each value
 * combination's key ranges and the branch's cost, in one call per branch; this class makes the
 * branches one plan, with one data-table scan for the branches that have no stream.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class JoinPlanner {
    private final Catalog catalog;

    JoinPlanner(Catalog catalog) {
        this.catalog = catalog;
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

    /** The relay of a query of one AND-branch, planned natively with its table plan ({@code TablePlan.relay}). */
    JoinPlan relay(RowKeyQuery query, JoinBranchPlan relay) {
        JoinPlan.Branch branch = branch(query.disjuncts().get(0), relay, query.isLeapfrog());
        return new JoinPlan(Collections.singletonList(branch), query.limit(), query.isReversed(), null);
    }

    /** One AND-branch planned natively ({@code stream_choice}): its streams in lead order, or the data table's plan. */
    private JoinPlan.Branch branch(List<Condition> conditions, String hint, boolean leapfrog, int maxRanges) {
        return branch(conditions, catalog.planJoinBranch(request(conditions, hint, maxRanges)), leapfrog);
    }

    private JoinPlan.Branch branch(List<Condition> conditions, JoinBranchPlan plan, boolean leapfrog) {
        List<JoinPlan.Stream> streams = streams(plan.getStreamsList());
        return new JoinPlan.Branch(conditions, streams, streams(plan.getLeftOutList()),
                streams.isEmpty() ? plan.getDataPlan() : null, leapfrog, plan.getCost());
    }

    private List<JoinPlan.Stream> streams(List<KeyStreamSpec> specs) {
        List<JoinPlan.Stream> streams = new ArrayList<>();
        for (KeyStreamSpec s : specs) {
            List<JoinPlan.Point> points = new ArrayList<>();
            for (StreamPoint p : s.getPointsList()) {
                points.add(new JoinPlan.Point(p.getEqualitiesList(), p.getRangesList()));
            }
            int index = s.getIndex().isEmpty() ? -1 : catalog.indexNumber(s.getIndex());
            streams.add(new JoinPlan.Stream(index, index < 0 ? "DATA TABLE" : "INDEX " + s.getIndex(), s.getConditionsList(),
                    points, s.getEstimatedRows()));
        }
        return streams;
    }

    /** The branch's request; the query's index hint: null any source, "" the data table, a name that index. */
    private static JoinBranchRequest request(List<Condition> conditions, String hint, int maxRanges) {
        IndexHint indexHint = hint == null ? IndexHint.INDEX_HINT_AUTOMATIC
                : hint.isEmpty() ? IndexHint.NO_INDEX : IndexHint.USE_INDEX;
        return JoinBranchRequest.newBuilder().setPredicate(PredicateSpec.newBuilder().addAllConditions(conditions))
                .setMaxRanges(maxRanges).setHint(indexHint).setHintIndex(hint == null ? "" : hint).build();
    }
}
