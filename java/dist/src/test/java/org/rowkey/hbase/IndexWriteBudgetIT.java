package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (issue 35): when every index writer thread was busy, a handler wrote the second and later
 * index tables itself, one after another, each given the whole write timeout, so one step could hold
 * the handler (number of indexes) x timeout. Now every index write of a step shares one deadline.
 * The writer pool is kept busy and the index tables' regions offline; a write to a table with three
 * indexes fails its pre step within about one timeout (before the fix: three).
 */
class IndexWriteBudgetIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final int WRITE_TIMEOUT_MS = 1_500;

    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").int32("c").build();

    @Override
    protected void configure(Configuration conf) {
        super.configure(conf);
        conf.setInt(RowKeyIndexObserver.WRITE_TIMEOUT_KEY, WRITE_TIMEOUT_MS);
    }

    /** A table with three indexes whose regions are all offline; returns them, to assign again. */
    private List<RegionInfo> indexesOffline(TableName name) throws IOException {
        List<RegionInfo> offline = new ArrayList<>();
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_b", "b"), RowKeyIndex.of("by_c", "c"),
                    RowKeyIndex.of("by_cb", "c", "b")), F);
            for (String index : Arrays.asList("by_b", "by_c", "by_cb")) {
                for (RegionInfo region : admin.getRegions(RowKeyTable.indexTableName(name, index))) {
                    admin.unassign(region.getRegionName(), true);
                    offline.add(region);
                }
            }
        }
        return offline;
    }

    private void assign(List<RegionInfo> regions) throws IOException {
        try (Admin admin = connection().getAdmin()) {
            for (RegionInfo region : regions) {
                admin.assign(region.getRegionName());
            }
        }
    }

    /**
     * Regression (issue 35, the load test): the index writes of a write waited the whole write
     * timeout even when the client's call had less time: the client gave up (a call timeout, which
     * says nothing of why) while the handler stayed held. Now the budget is at most 3/4 of what the
     * call has left, so the server answers first, with the index that did not take its writes.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aWriteWhoseClientAllowsLessThanTheWriteTimeoutIsAnsweredBeforeTheClientGivesUp() throws Exception {
        TableName name = TableName.valueOf("write_budget_call");
        List<RegionInfo> offline = indexesOffline(name);
        Configuration impatient = new Configuration(conf());
        impatient.setInt("hbase.client.retries.number", 0);
        impatient.setInt("hbase.client.operation.timeout", 60_000);
        impatient.setInt("hbase.rpc.timeout", WRITE_TIMEOUT_MS / 2);
        byte[] row = schema.encode(TestData.map("a", 1, "b", 2, "c", 3));
        try (Connection connection = ConnectionFactory.createConnection(impatient); Table t = connection.getTable(name)) {
            long start = System.nanoTime();
            IOException refused = assertThrows(IOException.class, () -> t.put(new Put(row).addColumn(F, F, F)));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("IndexWriteBudgetIT: a write with a " + WRITE_TIMEOUT_MS / 2 + " ms call timeout failed after "
                    + millis + " ms (write timeout " + WRITE_TIMEOUT_MS + " ms): " + refused);
            String why = String.valueOf(refused.getMessage()) + " " + refused.getCause();
            assertTrue(why.contains("did not take its writes"), "the client gave up before the server answered: " + refused);
            assertFalse(t.exists(new Get(row)), "the data was not written");
        } finally {
            assign(offline);
        }
        try (Table t = connection().getTable(name)) {
            t.put(new Put(row).addColumn(F, F, F)); // the indexes back, the same write goes through
            assertEquals(1, t.get(new Get(row)).size());
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aStepOfSeveralIndexWritesHoldsTheHandlerForOneTimeoutAtMost() throws Exception {
        TableName name = TableName.valueOf("write_budget");
        List<RegionInfo> offline = indexesOffline(name);
        CountDownLatch release = new CountDownLatch(1);
        Field writersField = RowKeyIndexObserver.class.getDeclaredField("INDEX_WRITERS");
        writersField.setAccessible(true);
        ExecutorService writers = (ExecutorService) writersField.get(null);
        for (int i = 0; i < 32; i++) { // every writer busy: the handler writes every index table itself
            writers.submit(() -> {
                release.await();
                return null;
            });
        }
        Configuration once = new Configuration(conf());
        once.setInt("hbase.client.retries.number", 0);
        once.setInt("hbase.client.operation.timeout", 60_000);
        once.setInt("hbase.rpc.timeout", 60_000);
        byte[] row = schema.encode(TestData.map("a", 1, "b", 2, "c", 3));
        try (Connection connection = ConnectionFactory.createConnection(once); Table t = connection.getTable(name)) {
            long start = System.nanoTime();
            IOException refused = assertThrows(IOException.class, () -> t.put(new Put(row).addColumn(F, F, F)));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("IndexWriteBudgetIT: the pre step failed after " + millis + " ms (write timeout "
                    + WRITE_TIMEOUT_MS + " ms, three indexes): " + refused);
            assertTrue(millis < 2 * WRITE_TIMEOUT_MS, "the handler was held " + millis + " ms for a step of three index writes");
            assertFalse(t.exists(new Get(row)), "the data was not written");
        } finally {
            release.countDown();
            assign(offline);
        }
    }
}
