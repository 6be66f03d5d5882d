package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.InternalScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's read pool is fair (issue 35, item 3): a long aggregate and a small scan of another
 * table share one connection, whose pool has 2 threads ({@code rowkey.scan.threads=2}). Each call of
 * the aggregate is made slow on the server ({@link SlowCalls}: {@value #CALL_MS} ms a call, a
 * region {@value #CALLS_PER_REGION} calls), so one region read is about 2 s and the aggregate of 3
 * regions takes the 2 threads for seconds. The scan, started once both threads are in the
 * aggregate's calls, must finish within about one of those calls, not after a region of them.
 *
 * <p>Before the fix a task read up to 512 partial states from its region, one RPC each, holding its
 * thread for the whole region: the scan waited for a region read to end.
 */
class ScanFairnessIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] N = Bytes.toBytes("n");
    static final int CALL_MS = 100;
    private static final int CALLS_PER_REGION = 20;
    private static final int ROWS_PER_CALL = 5;
    private static final int REGIONS = 3;
    /** Scanner calls that reached {@link SlowCalls}, on every region of the slow table. */
    static final AtomicInteger SLOW_CALLS = new AtomicInteger();

    private final RowKeySchema schema = RowKeySchema.builder().int32("part").int32("x").build();

    /** Makes every scanner call of its table {@value #CALL_MS} ms slower: one region read takes seconds. */
    public static final class SlowCalls implements RegionCoprocessor, RegionObserver {
        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public boolean preScannerNext(ObserverContext<RegionCoprocessorEnvironment> c, InternalScanner s, List<Result> result,
                int limit, boolean hasNext) throws IOException {
            SLOW_CALLS.incrementAndGet();
            try {
                Thread.sleep(CALL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            return hasNext;
        }
    }

    /** A table of {@code parts} regions (pre-split at each part), {@code rowsPerPart} rows in each. */
    private RowKeyTable table(Connection connection, String name, int parts, int rowsPerPart, boolean slow) throws IOException {
        TableName table = TableName.valueOf(name);
        byte[][] splits = new byte[parts - 1][];
        for (int part = 1; part < parts; part++) {
            splits[part - 1] = schema.encode(TestData.map("part", part, "x", Integer.MIN_VALUE));
        }
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, table, schema, Collections.emptyList(), splits, F);
            if (slow) {
                admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(table))
                        .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(SlowCalls.class.getName())
                                .setPriority(Coprocessor.PRIORITY_USER + 1).build()).build());
            }
        }
        try (Table t = connection().getTable(table)) {
            List<Put> puts = new ArrayList<>();
            for (int part = 0; part < parts; part++) {
                for (int x = 0; x < rowsPerPart; x++) {
                    puts.add(new Put(schema.encode(TestData.map("part", part, "x", x))).addColumn(F, N, Bytes.toBytes((long) x)));
                }
            }
            t.put(puts);
        }
        return RowKeyTable.open(connection, table);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aLongAggregateDoesNotDelayAScanOnTheSameConnectionByMoreThanOneRegionRead() throws Exception {
        Configuration conf = new Configuration(conf());
        conf.setInt(ParallelScanner.THREADS_KEY, 2);
        ExecutorService aggregating = Executors.newSingleThreadExecutor();
        try (Connection twoThreads = ConnectionFactory.createConnection(conf)) {
            RowKeyTable slow = table(twoThreads, "fair_aggregate", REGIONS, CALLS_PER_REGION * ROWS_PER_CALL, true);
            RowKeyTable quick = table(twoThreads, "fair_scan", 2, 10, false);
            RowKeyQuery twoKeys = RowKeyQuery.on(schema).in("part", 0, 1).eq("x", 7);
            Aggregation countAndSum = Aggregation.on(schema).count().sum(Aggregation.Cell.ofLong(F, N)).budget(ROWS_PER_CALL,
                    1000);
            assertTrue(quick.explain(twoKeys).contains("parallel 2-way"), quick.explain(twoKeys));
            assertEquals(2, rows(quick, twoKeys)); // warms the region cache and the pool
            long scanAlone = scanMillis(quick, twoKeys);

            SLOW_CALLS.set(0);
            long t0 = System.nanoTime();
            Future<List<Object>> aggregate = aggregating.submit(
                    () -> slow.aggregate(RowKeyQuery.on(schema), countAndSum).rows().get(0).values());
            // Both threads are in the aggregate's calls (a region each) before the scan starts.
            while (SLOW_CALLS.get() < 2 * 2) {
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60), "the aggregate made no calls in 60 s");
                Thread.sleep(5);
            }
            long scanStartedAt = (System.nanoTime() - t0) / 1_000_000;
            long scanDuring = scanMillis(quick, twoKeys);
            List<Object> answer = aggregate.get(120, TimeUnit.SECONDS);
            long aggregateMillis = (System.nanoTime() - t0) / 1_000_000;
            long rows = (long) REGIONS * CALLS_PER_REGION * ROWS_PER_CALL;
            long perPart = (long) CALLS_PER_REGION * ROWS_PER_CALL;
            assertEquals(Arrays.asList(rows, REGIONS * perPart * (perPart - 1) / 2), answer);

            long regionRead = (long) CALLS_PER_REGION * CALL_MS;
            System.out.printf("ScanFairnessIT: rowkey.scan.threads=2; the aggregate: %d regions, %d calls of %d ms each (one"
                    + " region read ~%d ms), %d ms in all; the two-key scan over 2 regions alone: %d ms; started %d ms into"
                    + " the aggregate: %d ms%n", REGIONS, SLOW_CALLS.get(), CALL_MS, regionRead, aggregateMillis, scanAlone,
                    scanStartedAt, scanDuring);
            // Fair: the scan waits for at most one call of each busy thread (~CALL_MS), never a region read.
            assertTrue(scanDuring < regionRead / 3, "the scan took " + scanDuring + " ms beside the aggregate (alone: "
                    + scanAlone + " ms); one of the aggregate's calls takes " + CALL_MS + " ms, one region read ~" + regionRead
                    + " ms");
        } finally {
            aggregating.shutdownNow();
        }
    }

    private static long scanMillis(RowKeyTable table, RowKeyQuery query) throws IOException {
        long t0 = System.nanoTime();
        assertEquals(2, rows(table, query));
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static int rows(RowKeyTable table, RowKeyQuery query) throws IOException {
        int n = 0;
        try (ResultScanner scanner = table.scan(query)) {
            while (scanner.next() != null) {
                n++;
            }
        }
        return n;
    }
}
