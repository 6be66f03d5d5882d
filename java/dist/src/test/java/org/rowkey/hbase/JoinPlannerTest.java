package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlan;
import org.rowkey.hbase.proto.RowKeyProtos.TablePlanRequest;

/** Which streams {@link JoinPlanner} plans, and the query forms that lead to it; no cluster. */
class JoinPlannerTest {
    private final RowKeySchema schema = RowKeySchema.builder().int64("user_id").fixedString("birthplace", 12)
            .int32("age").bool("vip").build();
    private final Catalog catalog = Catalog.of(schema, Arrays.asList(RowKeyIndex.of("by_birthplace", "birthplace").salt(4),
            RowKeyIndex.of("by_age", "age"), RowKeyIndex.of("by_vip", "vip")), IndexState.ACTIVE);
    private final JoinPlanner planner = new JoinPlanner(catalog);

    private List<String> sources(List<JoinPlan.Stream> streams) {
        List<String> out = new ArrayList<>();
        streams.forEach(s -> out.add(s.index < 0 ? "DATA TABLE" : "INDEX " + catalog.indexes().get(s.index).getName()));
        return out;
    }

    /** The single plan of a query that is not a join, as {@code RowKeyTable.scan} asks for it. */
    private TablePlan singlePlan(RowKeyQuery query) {
        TablePlanRequest.Builder request = TablePlanRequest.newBuilder().setPredicate(query.toPredicateSpec()).setNoExplain(true)
                .setRelayStreams(true);
        if (query.indexHint() != null) {
            request.setHint(query.indexHintKind()).setHintIndex(query.indexHint());
        }
        return catalog.plan(request.build());
    }

    @Test
    void filteredStreamsRelayedByDefaultIntersectedUnderTheLeapfrogHint() {
        RowKeyQuery q = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10);
        JoinPlan.Branch plain = planner.plan(q, true).branches.get(0);
        assertEquals(Arrays.asList("INDEX by_birthplace", "INDEX by_age"), sources(plain.streams));
        assertTrue(plain.filtersOnServer());
        assertTrue(plain.relays());
        assertEquals(4, plain.streams.get(0).ranges(), "one range per salt bucket");
        assertTrue(planner.plan(q, true).explain().contains("relay"), planner.plan(q, true).explain());

        TablePlan relayed = singlePlan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20));
        assertTrue(relayed.hasRelay() && !relayed.getIndex().isEmpty(), relayed.toString());
        JoinPlan relay = planner.plan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20), relayed.getRelay());
        assertEquals(sources(plain.streams), sources(relay.branches.get(0).streams), "the join plan's own streams");
        assertTrue(relay.branches.get(0).relays() && relay.dataScan == null);
        TablePlan withPrefix = singlePlan(RowKeyQuery.on(schema).eq("user_id", 7L).eq("age", 20));
        assertTrue(withPrefix.hasRelay() && withPrefix.getRelay().getBranches(0).getStreamsList().stream().anyMatch(s -> s.getIndex().isEmpty()),
                "the data table's prefix is a stream: " + withPrefix);
        assertTrue(!singlePlan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").between("age", 20, 30)).hasRelay(),
                "one stream");
        assertTrue(!singlePlan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).useIndex("by_age"))
                .hasRelay(), "a hint is kept");

        JoinPlan.Branch one = planner.plan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10)
                .useIndex("by_age"), true).branches.get(0);
        assertEquals(Arrays.asList("INDEX by_age"), sources(one.streams));
        assertTrue(one.filtersOnServer() && !one.relays());

        JoinPlan.Branch leapfrog = planner.plan(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10)
                .leapfrog(), true).branches.get(0);
        assertEquals(Arrays.asList("INDEX by_birthplace", "INDEX by_age"), sources(leapfrog.streams));
        assertTrue(!leapfrog.filtersOnServer() && !leapfrog.relays());
        assertEquals(10, planner.plan(q, true).limit);
    }

    @Test
    void inListsBecomeOnePointEachUpToTheCapAndTheDataTablePrefixIsAStream() {
        RowKeyQuery q = RowKeyQuery.on(schema).in("age", 20, 21, 22).eq("user_id", 7L).leapfrog();
        JoinPlan.Branch b = planner.plan(q, true).branches.get(0);
        assertEquals(Arrays.asList("DATA TABLE", "INDEX by_age"), sources(b.streams));
        assertEquals(3, b.streams.get(1).points.size());

        Object[] many = new Object[65]; // stream_choice::MAX_POINTS + 1
        for (int i = 0; i < many.length; i++) {
            many[i] = i;
        }
        JoinPlan.Branch capped = planner.plan(RowKeyQuery.on(schema).in("age", many).eq("vip", true).leapfrog(), true).branches.get(0);
        assertEquals(Arrays.asList("INDEX by_vip"), sources(capped.streams), "too many values: not a stream");
    }

    @Test
    void aBranchWithNoStreamReadsTheDataTablesPlanAndHintsLimitTheStreams() {
        JoinPlan.Branch ranges = planner.plan(RowKeyQuery.on(schema).between("age", 20, 30).limit(5), true).branches.get(0);
        assertTrue(ranges.streams.isEmpty());
        assertNotNull(planner.plan(RowKeyQuery.on(schema).between("age", 20, 30).limit(5), true).dataScan);
        JoinPlan.Branch noIndex = planner.plan(RowKeyQuery.on(schema).eq("age", 20).noIndex().limit(5), true).branches.get(0);
        assertTrue(noIndex.streams.isEmpty());
        JoinPlan.Branch onlyAge = planner.plan(RowKeyQuery.on(schema).eq("age", 20).eq("vip", true).useIndex("by_age")
                .leapfrog(), true).branches.get(0);
        assertEquals(Arrays.asList("INDEX by_age"), sources(onlyAge.streams));
    }

    @Test
    void anyOfIsAUnionOfBranchesWithTheSharedConditions() {
        RowKeyQuery q = RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("age", 20), RowKeyQuery.on(schema).eq("vip", true))
                .eq("birthplace", "Hangzhou");
        JoinPlan plan = planner.plan(q, true);
        assertEquals(2, plan.branches.size());
        assertEquals(2, plan.branches.get(0).conditions.size());
        assertEquals("RowKeyQuery[(birthplace = 'Hangzhou' AND age = 20) OR (birthplace = 'Hangzhou' AND vip = true)]",
                q.toString());
        String explain = plan.explain();
        assertTrue(explain.startsWith("JOIN: union of 2 AND-branches"), explain);
    }

    @Test
    void badQueryFormsAreRefusedByName() {
        RowKeySchema other = RowKeySchema.builder().int32("x").build();
        assertThrows(IllegalArgumentException.class, RowKeyQuery::anyOf);
        IllegalArgumentException schemas = assertThrows(IllegalArgumentException.class,
                () -> RowKeyQuery.anyOf(RowKeyQuery.on(schema), RowKeyQuery.on(other)));
        assertTrue(schemas.getMessage().contains("anyOf"), schemas.getMessage());
        IllegalArgumentException branch = assertThrows(IllegalArgumentException.class,
                () -> RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("age", 1).limit(3)));
        assertTrue(branch.getMessage().contains("not on a branch"), branch.getMessage());
        IllegalArgumentException limit = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.on(schema).limit(0));
        assertTrue(limit.getMessage().contains("limit must be at least 1"), limit.getMessage());
        RowKeyQuery union = RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("age", 1), RowKeyQuery.on(schema).eq("age", 2));
        IllegalStateException single = assertThrows(IllegalStateException.class, union::toPredicateSpec);
        assertTrue(single.getMessage().contains("OR of AND-predicates"), single.getMessage());
        IllegalArgumentException reversed = assertThrows(IllegalArgumentException.class, () -> RowKeyQuery.anyOf(
                RowKeyQuery.on(schema).eq("age", 1)).reversed().toScan());
        assertTrue(reversed.getMessage().contains("reversed"), reversed.getMessage());
    }

    @Test
    void branchesWithNoStreamAreReadByOneDataTableScanOfTheirUnion() {
        // Neither branch fixes the leading field nor an index's fields: no stream in either.
        RowKeyQuery q = RowKeyQuery.anyOf(RowKeyQuery.on(schema).between("age", 20, 30),
                RowKeyQuery.on(schema).between("user_id", 100, 200).ne("age", 3), RowKeyQuery.on(schema).eq("age", 40))
                .limit(7);
        JoinPlan plan = planner.plan(q, true);
        assertTrue(plan.branches.get(0).streams.isEmpty() && plan.branches.get(1).streams.isEmpty());
        assertEquals(Arrays.asList(0, 1), plan.dataScan.branches, "the branch with a stream is not scanned");
        assertEquals(2, plan.dataScan.query.disjuncts().size());
        String explain = plan.explain();
        assertTrue(explain.contains("one DATA TABLE scan for branches 1 2: UNION of 2 AND-branches"), explain);
        assertTrue(explain.contains("read by the one data-table scan below"), explain);
        JoinPlan one = planner.plan(RowKeyQuery.anyOf(RowKeyQuery.on(schema).between("age", 20, 30),
                RowKeyQuery.on(schema).eq("age", 40)), true);
        assertEquals(Arrays.asList(0), one.dataScan.branches);
        String own = one.dataScan.plan.getExplain();
        assertTrue(!own.startsWith("UNION") && own.contains("enforced by the ranges"), "one branch: its own plan: " + own);
    }
}
