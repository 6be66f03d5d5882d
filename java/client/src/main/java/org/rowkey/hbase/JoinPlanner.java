package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;

import org.rowkey.hbase.proto.RowKeyProtos;
import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchPlan;
import org.rowkey.hbase.proto.RowKeyProtos.JoinPlanRequest;
import org.rowkey.hbase.proto.RowKeyProtos.KeyStreamSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.StreamPoint;

/**
 * Plans a query as {@link KeyStream} joins (docs/joins.md). The native planner plans it in one call
 * ({@code plan_wire::plan_join}): each AND-branch's streams ({@code stream_choice}: every ACTIVE index
 * whose fields all have {@code =}/{@code IN} conditions, and the data table's longest such prefix) with
 * each value combination's key ranges and the branch's cost, the one data-table scan of the branches
 * that have no stream, and the explain text; this class makes its reply the {@link JoinPlan} that
 * {@link JoinScanner} reads.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class JoinPlanner {
    private final Catalog catalog;

    JoinPlanner(Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * The join plan of {@code query}, with its explain text when it is {@code toShow}. Its index hint
     * ({@link RowKeyQuery#indexHint()}) limits the streams: "" to the data table, a name to that index.
     * Without {@link RowKeyQuery#leapfrog()}, a branch of several streams relays them
     * ({@link KeyStreams#relay}), each filtered with the branch's whole predicate, so that the rows
     * read follow the smallest stream whichever it is.
     */
    JoinPlan plan(RowKeyQuery query, boolean toShow) {
        JoinPlanRequest.Builder request = JoinPlanRequest.newBuilder().setMaxRanges(query.maxRanges())
                .setHint(query.indexHintKind()).setHintIndex(query.indexHint() == null ? "" : query.indexHint())
                .setLeapfrog(query.isLeapfrog()).setLimit(query.limit()).setReversed(query.isReversed()).setNoExplain(!toShow);
        for (List<Condition> conditions : query.disjuncts()) {
            request.addBranches(PredicateSpec.newBuilder().addAllConditions(conditions));
        }
        return plan(query, catalog.planJoin(request.build()));
    }

    /**
     * The join plan of {@code query} from the native planner's reply: {@link #plan(RowKeyQuery, boolean)}'s,
     * or the relay a table plan carries ({@code TablePlan.relay}).
     */
    JoinPlan plan(RowKeyQuery query, RowKeyProtos.JoinPlan plan) {
        List<List<Condition>> disjuncts = query.disjuncts();
        List<JoinPlan.Branch> branches = new ArrayList<>();
        for (int i = 0; i < plan.getBranchesCount(); i++) {
            JoinBranchPlan b = plan.getBranches(i);
            List<JoinPlan.Stream> streams = streams(b.getStreamsList());
            branches.add(new JoinPlan.Branch(disjuncts.get(i), streams, b.getRelay()));
        }
        JoinPlan.DataScan dataScan = null;
        if (plan.getDataScanBranchesCount() > 0) {
            List<Integer> scanned = new ArrayList<>();
            List<RowKeyQuery> queries = new ArrayList<>();
            for (int i : plan.getDataScanBranchesList()) {
                scanned.add(i);
                queries.add(RowKeyQuery.of(catalog.schema(), disjuncts.get(i)));
            }
            RowKeyQuery read = queries.size() == 1 ? queries.get(0) : RowKeyQuery.anyOf(queries.toArray(new RowKeyQuery[0]));
            dataScan = new JoinPlan.DataScan(scanned, read, plan.getDataScan());
        }
        return new JoinPlan(branches, query.limit(), query.isReversed(), dataScan, plan.getExplain());
    }

    private List<JoinPlan.Stream> streams(List<KeyStreamSpec> specs) {
        List<JoinPlan.Stream> streams = new ArrayList<>();
        for (KeyStreamSpec s : specs) {
            List<JoinPlan.Point> points = new ArrayList<>();
            for (StreamPoint p : s.getPointsList()) {
                points.add(new JoinPlan.Point(p.getEqualitiesList(), p.getRangesList()));
            }
            streams.add(new JoinPlan.Stream(s.getIndex().isEmpty() ? -1 : catalog.indexNumber(s.getIndex()), points));
        }
        return streams;
    }
}
