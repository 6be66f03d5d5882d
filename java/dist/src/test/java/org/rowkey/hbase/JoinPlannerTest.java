package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchPlan;
import org.rowkey.hbase.proto.RowKeyProtos.JoinPlan;
import org.rowkey.hbase.proto.RowKeyProtos.KeyStreamSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PlannedQuery;
import org.rowkey.hbase.proto.RowKeyProtos.StreamPoint;

/**
 * Which streams the native planner plans for a query answered by joins, how it routes a query
 * (joins, a relay, a single read), and the query forms that lead to it; no cluster. The requests are
 * {@link QueryPlan#request}'s, as {@code RowKeyTable} makes them.
 */
class JoinPlannerTest {
    private final RowKeySchema schema = RowKeySchema.builder().int64("user_id").fixedString("birthplace", 12)
            .int32("age").bool("vip").build();
    private final Catalog catalog = Catalog.of(schema, Arrays.asList(RowKeyIndex.of("by_birthplace", "birthplace").salt(4),
            RowKeyIndex.of("by_age", "age"), RowKeyIndex.of("by_vip", "vip")), IndexState.ACTIVE);

    /** Each stream's source, from the index number the plan gives the readers. */
    private List<String> sources(List<KeyStreamSpec> streams) {
        List<String> out = new ArrayList<>();
        for (KeyStreamSpec s : streams) {
            String source = s.getIndexNumber() < 0 ? "DATA TABLE" : "INDEX " + catalog.indexes().get(s.getIndexNumber()).getName();
            assertEquals(s.getIndex().isEmpty() ? "DATA TABLE" : "INDEX " + s.getIndex(), source, "the number names the index");
            out.add(source);
        }
        return out;
    }

    /** The plan of {@code query}, as {@code RowKeyTable.scan} asks for it (its explain too). */
    private PlannedQuery planned(RowKeyQuery query) {
        return catalog.plan(QueryPlan.request(query, query.columns(), query.isKeysOnly(), Collections.emptyList(), false, true,
                false));
    }

    /** The joins of a query that only joins answer. */
    private JoinPlan joins(RowKeyQuery query) {
        PlannedQuery planned = planned(query);
        assertTrue(planned.hasJoins(), "joins: " + planned);
        return planned.getJoins();
    }

    /** Whether {@code JoinScanner} filters a branch's stream reads with the whole branch: a relay's, or a single stream's. */
    private static boolean filtersOnServer(JoinBranchPlan b) {
        return b.getRelay() || b.getStreamsCount() == 1;
    }

    private static int ranges(KeyStreamSpec stream) {
        int n = 0;
        for (StreamPoint p : stream.getPointsList()) {
            n += p.getRangesCount();
        }
        return n;
    }

    @Test
    void filteredStreamsRelayedByDefaultIntersectedUnderTheLeapfrogHint() {
        RowKeyQuery q = RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10);
        JoinBranchPlan plain = joins(q).getBranches(0);
        assertEquals(Arrays.asList("INDEX by_birthplace", "INDEX by_age"), sources(plain.getStreamsList()));
        assertTrue(filtersOnServer(plain));
        assertTrue(plain.getRelay());
        assertEquals(4, ranges(plain.getStreams(0)), "one range per salt bucket");
        assertTrue(joins(q).getExplain().contains("relay"), joins(q).getExplain());

        // No limit: a single read, but an uncovered index that is one of two streams is read as their relay.
        JoinPlan relay = joins(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20));
        assertEquals(sources(plain.getStreamsList()), sources(relay.getBranches(0).getStreamsList()), "the join plan's own streams");
        assertTrue(relay.getBranches(0).getRelay() && relay.getDataScanBranchesCount() == 0);
        JoinPlan withPrefix = joins(RowKeyQuery.on(schema).eq("user_id", 7L).eq("age", 20));
        assertTrue(withPrefix.getBranches(0).getStreamsList().stream().anyMatch(s -> s.getIndex().isEmpty()),
                "the data table's prefix is a stream: " + withPrefix);
        assertTrue(planned(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").between("age", 20, 30)).hasSingle(),
                "one stream");
        PlannedQuery hinted = planned(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).useIndex("by_age"));
        assertTrue(hinted.hasSingle() && hinted.getSingle().getIndexNumber() == 1, "a hint is kept: " + hinted);

        JoinBranchPlan one = joins(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10)
                .useIndex("by_age")).getBranches(0);
        assertEquals(Arrays.asList("INDEX by_age"), sources(one.getStreamsList()));
        assertTrue(filtersOnServer(one) && !one.getRelay());

        JoinBranchPlan leapfrog = joins(RowKeyQuery.on(schema).eq("birthplace", "Hangzhou").eq("age", 20).limit(10)
                .leapfrog()).getBranches(0);
        assertEquals(Arrays.asList("INDEX by_birthplace", "INDEX by_age"), sources(leapfrog.getStreamsList()));
        assertTrue(!filtersOnServer(leapfrog) && !leapfrog.getRelay());
        assertTrue(joins(q).getExplain().contains("stops after 10 rows"), joins(q).getExplain());
    }

    @Test
    void inListsBecomeOnePointEachUpToTheCapAndTheDataTablePrefixIsAStream() {
        RowKeyQuery q = RowKeyQuery.on(schema).in("age", 20, 21, 22).eq("user_id", 7L).leapfrog();
        JoinBranchPlan b = joins(q).getBranches(0);
        assertEquals(Arrays.asList("DATA TABLE", "INDEX by_age"), sources(b.getStreamsList()));
        assertEquals(3, b.getStreams(1).getPointsCount());

        Object[] many = new Object[65]; // stream_choice::MAX_POINTS + 1
        for (int i = 0; i < many.length; i++) {
            many[i] = i;
        }
        JoinBranchPlan capped = joins(RowKeyQuery.on(schema).in("age", many).eq("vip", true).leapfrog()).getBranches(0);
        assertEquals(Arrays.asList("INDEX by_vip"), sources(capped.getStreamsList()), "too many values: not a stream");
    }

    @Test
    void aBranchWithNoStreamReadsTheDataTablesPlanAndHintsLimitTheStreams() {
        JoinBranchPlan ranges = joins(RowKeyQuery.on(schema).between("age", 20, 30).limit(5)).getBranches(0);
        assertTrue(ranges.getStreamsList().isEmpty());
        assertTrue(joins(RowKeyQuery.on(schema).between("age", 20, 30).limit(5)).hasDataScan());
        JoinBranchPlan noIndex = joins(RowKeyQuery.on(schema).eq("age", 20).noIndex().reversed().limit(5)).getBranches(0);
        assertTrue(noIndex.getStreamsList().isEmpty());
        JoinBranchPlan onlyAge = joins(RowKeyQuery.on(schema).eq("age", 20).eq("vip", true).useIndex("by_age")
                .leapfrog()).getBranches(0);
        assertEquals(Arrays.asList("INDEX by_age"), sources(onlyAge.getStreamsList()));
    }

    @Test
    void anyOfIsAUnionOfBranchesWithTheSharedConditions() {
        RowKeyQuery q = RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("age", 20), RowKeyQuery.on(schema).eq("vip", true))
                .eq("birthplace", "Hangzhou");
        JoinPlan plan = joins(q);
        assertEquals(2, plan.getBranchesCount());
        assertEquals(2, q.disjuncts().get(0).size());
        assertEquals("RowKeyQuery[(birthplace = 'Hangzhou' AND age = 20) OR (birthplace = 'Hangzhou' AND vip = true)]",
                q.toString());
        String explain = plan.getExplain();
        assertTrue(explain.startsWith("JOIN: union of 2 AND-branches"), explain);
        assertTrue(joins(RowKeyQuery.anyOf(RowKeyQuery.on(schema).eq("age", 20))).getBranchesCount() == 1,
                "an anyOf of one branch is joins too");
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
        JoinPlan plan = joins(q);
        assertTrue(plan.getBranches(0).getStreamsList().isEmpty() && plan.getBranches(1).getStreamsList().isEmpty());
        assertEquals(Arrays.asList(0, 1), plan.getDataScanBranchesList(), "the branch with a stream is not scanned");
        String explain = plan.getExplain();
        assertTrue(explain.contains("one DATA TABLE scan for branches 1 2: UNION of 2 AND-branches"), explain);
        assertTrue(explain.contains("read by the one data-table scan below"), explain);
        JoinPlan one = joins(RowKeyQuery.anyOf(RowKeyQuery.on(schema).between("age", 20, 30),
                RowKeyQuery.on(schema).eq("age", 40)));
        assertEquals(Arrays.asList(0), one.getDataScanBranchesList());
        String own = one.getDataScan().getExplain();
        assertTrue(!own.startsWith("UNION") && own.contains("enforced by the ranges"), "one branch: its own plan: " + own);
    }
}
