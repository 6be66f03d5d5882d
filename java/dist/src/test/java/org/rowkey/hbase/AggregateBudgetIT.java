package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
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
 * A selective aggregate holds a RegionServer handler for its time budget, not for HBase's own
 * limit (issue 35, item 1). One region whose rows the query's filter all drops, each dropped row
 * made {@value #FILTERED_ROW_MS} ms slow on the server ({@link TimedCalls}), so the region takes
 * seconds to read; the aggregate's budget is {@value #BUDGET_MS} ms a call, the client's timeouts
 * 20 s (HBase's scan loop would go on for 10 s). Every RPC of the aggregate, timed on the server
 * from {@code preScannerNext} to {@code postScannerNext}, must end within a few budgets, and the
 * answer is exact.
 *
 * <p>Before the fix the aggregating scanner returned no row when its budget ran out over dropped
 * rows, and HBase's scan loop called it again at once until its own limit or the region's end:
 * the whole region (about 3 s here) in one RPC.
 */
class AggregateBudgetIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] N = Bytes.toBytes("n");
    static final int FILTERED_ROW_MS = 1;
    private static final int ROWS = 3_000;
    private static final int BUDGET_MS = 100;
    /** Whether {@link TimedCalls} times and slows calls now (not while the table is loaded). */
    static volatile boolean timing;
    static final ConcurrentLinkedQueue<Long> CALL_MILLIS = new ConcurrentLinkedQueue<>();
    static final AtomicInteger FILTERED_ROWS = new AtomicInteger();

    private final RowKeySchema schema = RowKeySchema.builder().int32("id").int32("x").build();

    /** Times each scanner RPC of its table, and makes each row a filter drops slow to read. */
    public static final class TimedCalls implements RegionCoprocessor, RegionObserver {
        private static final ThreadLocal<Long> STARTED = new ThreadLocal<>();

        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public boolean preScannerNext(ObserverContext<RegionCoprocessorEnvironment> c, InternalScanner s, List<Result> result,
                int limit, boolean hasNext) {
            STARTED.set(System.nanoTime());
            return hasNext;
        }

        @Override
        public boolean postScannerNext(ObserverContext<RegionCoprocessorEnvironment> c, InternalScanner s, List<Result> result,
                int limit, boolean hasNext) {
            Long started = STARTED.get();
            if (timing && started != null) {
                CALL_MILLIS.add((System.nanoTime() - started) / 1_000_000);
            }
            return hasNext;
        }

        @Override
        public boolean postScannerFilterRow(ObserverContext<RegionCoprocessorEnvironment> c, InternalScanner s, Cell curRowCell,
                boolean hasMore) throws IOException {
            if (timing) {
                FILTERED_ROWS.incrementAndGet();
                try {
                    Thread.sleep(FILTERED_ROW_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            return hasMore;
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSelectiveAggregateHoldsAHandlerForItsBudgetNotForTheRegion() throws Exception {
        TableName name = TableName.valueOf("budget_selective");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.emptyList(), F);
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(TimedCalls.class.getName())
                            .setPriority(Coprocessor.PRIORITY_USER + 1).build()).build());
        }
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int id = 0; id < ROWS; id++) {
                int x = id == 0 || id == ROWS - 1 ? 500 : id % 7; // the region's two ends match x >= 100
                puts.add(new Put(schema.encode(TestData.map("id", id, "x", x))).addColumn(F, N, Bytes.toBytes((long) id)));
            }
            t.put(puts);
        }
        Configuration conf = new Configuration(conf());
        conf.setInt("hbase.rpc.timeout", 20_000);
        conf.setInt("hbase.client.scanner.timeout.period", 20_000);
        try (Connection patient = ConnectionFactory.createConnection(conf)) {
            RowKeyTable table = RowKeyTable.open(patient, name);
            Aggregation countAndSum = Aggregation.on(schema).count().sum(Aggregation.Cell.ofLong(F, N)).budget(1_000_000,
                    BUDGET_MS);
            // No row matches, then only the region's first and last: the budget runs out on dropped rows.
            List<Object[]> cases = Arrays.asList(
                    new Object[] {RowKeyQuery.on(schema).ge("x", 1_000).serial(), Arrays.asList(0L, null)},
                    new Object[] {RowKeyQuery.on(schema).ge("x", 100).serial(), Arrays.asList(2L, (long) ROWS - 1)});
            for (Object[] c : cases) {
                RowKeyQuery query = (RowKeyQuery) c[0];
                CALL_MILLIS.clear();
                FILTERED_ROWS.set(0);
                long stops = CoprocessorMetricsIT.registryCount(CoprocessorWire.SCAN_OBSERVER, CoprocessorMetrics.AGGREGATE_BUDGET_STOPS);
                timing = true;
                long t0 = System.nanoTime();
                List<Object> answer;
                try {
                    answer = table.aggregate(query, countAndSum).rows().get(0).values();
                } finally {
                    timing = false;
                }
                long millis = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(c[1], answer, query.toString());
                List<Long> calls = new ArrayList<>(CALL_MILLIS);
                long longest = Collections.max(calls);
                System.out.printf("AggregateBudgetIT: %s: %d rows dropped at %d ms each, budget %d ms a call: %d RPCs, the"
                        + " longest %d ms, %d ms in all%n", query, FILTERED_ROWS.get(), FILTERED_ROW_MS, BUDGET_MS, calls.size(),
                        longest, millis);
                assertTrue(FILTERED_ROWS.get() >= ROWS / 2, "the filter dropped only " + FILTERED_ROWS.get()
                        + " rows on the server: the region was not read row by row, and the test proves nothing");
                // A few budgets at most (a dropped row's sleep overshoots, the machine may be busy),
                // never the region: ROWS dropped rows take >= 3 s.
                assertTrue(longest < 8 * BUDGET_MS, "one RPC held its handler " + longest + " ms; the budget is " + BUDGET_MS
                        + " ms; all calls: " + calls);
                // Every call but the region's last stopped at its budget, and the RegionServer counted it.
                assertTrue(CoprocessorMetricsIT.registryCount(CoprocessorWire.SCAN_OBSERVER, CoprocessorMetrics.AGGREGATE_BUDGET_STOPS)
                        - stops >= calls.size() - 1, calls.toString());
            }
        }
    }
}
