package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * Regressions of aggregates whose HBase scan crosses a region boundary (issue 34): a region whose
 * last call folded no row once made the RegionServer end the whole client scan, so a serial
 * aggregate, or a parallel one planned from a region cache that a split had made stale, dropped
 * every region after it, silently. Before the fix: {@code [0, null]} instead of {@code [20, 2090]},
 * 0 instead of 20 and 10, and 0 instead of 10 after the split.
 */
class AggregateAcrossRegionsIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final Aggregation.Cell N = Aggregation.Cell.ofLong(F, Bytes.toBytes("n"));
    private final RowKeySchema schema = RowKeySchema.builder().int32("part").int32("x").build();

    /** Creates a table pre-split before {@code part = 1} and {@code part = 2} (or not), holding {@code x} in each part. */
    private RowKeyTable table(String name, boolean split, int[][] xsByPart) throws IOException {
        TableName table = TableName.valueOf(name);
        byte[][] splits = split ? new byte[][] {firstKeyOf(1), firstKeyOf(2)} : new byte[0][];
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, table, schema, Collections.emptyList(), splits, F);
        }
        try (Table t = connection().getTable(table)) {
            List<Put> puts = new ArrayList<>();
            for (int part = 0; part < xsByPart.length; part++) {
                for (int x : xsByPart[part]) {
                    puts.add(new Put(schema.encode(TestData.map("part", part, "x", x))).addColumn(F, Bytes.toBytes("n"),
                            Bytes.toBytes((long) x)));
                }
            }
            t.put(puts);
        }
        return RowKeyTable.open(connection(), table);
    }

    private byte[] firstKeyOf(int part) {
        return schema.encode(TestData.map("part", part, "x", Integer.MIN_VALUE));
    }

    private static int[] range(int from, int count) {
        int[] xs = new int[count];
        Arrays.setAll(xs, i -> from + i);
        return xs;
    }

    private List<Object> countAndSum(RowKeyTable table, RowKeyQuery query) throws IOException {
        return table.aggregate(query, Aggregation.on(schema).count().sum(N)).rows().get(0).values();
    }

    @Test
    void aSerialAggregateReadsTheRegionsAfterAnEmptyOne() throws IOException {
        RowKeyTable table = table("across_empty_first", true, new int[][] {{}, range(100, 10), range(1000, 10)});
        assertEquals(Arrays.asList(20L, 1045L + 10045L), countAndSum(table, RowKeyQuery.on(schema).serial()));
        assertEquals(Arrays.asList(20L, 1045L + 10045L), countAndSum(table, RowKeyQuery.on(schema)));
    }

    @Test
    void aSerialAggregateReadsTheRegionsAfterOneWithNoMatchingRow() throws IOException {
        RowKeyTable table = table("across_no_match", true, new int[][] {range(0, 10), range(100, 10), range(200, 10)});
        for (RowKeyQuery parallelOrSerial : Arrays.asList(RowKeyQuery.on(schema), RowKeyQuery.on(schema).serial())) {
            assertEquals(Arrays.asList(20L, 1045L + 2045L), countAndSum(table, parallelOrSerial.ge("x", 100)));
            assertEquals(Arrays.asList(10L, 2045L), countAndSum(table, parallelOrSerial.ge("x", 200)));
        }
    }

    @Test
    void aParallelAggregatePlannedFromAStaleRegionCacheReadsEveryRegion() throws Exception {
        RowKeyTable table = table("across_stale_cache", false, new int[][] {range(0, 10), range(100, 10)});
        RowKeyQuery query = RowKeyQuery.on(schema).ge("x", 100);
        assertEquals(Arrays.asList(10L, 1045L), countAndSum(table, query)); // caches the one region
        TableName name = TableName.valueOf("across_stale_cache");
        try (Admin admin = connection().getAdmin()) {
            admin.split(name, firstKeyOf(1));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (admin.getRegions(name).size() < 2) {
                assertTrue(System.nanoTime() < deadline, "the split did not finish in 60 s");
                Thread.sleep(100);
            }
        }
        assertEquals(Arrays.asList(10L, 1045L), countAndSum(table, query));
    }
}
