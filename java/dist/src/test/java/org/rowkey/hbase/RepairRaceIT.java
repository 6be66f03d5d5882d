package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (issue 34, from a code read): a reader that meets the UNVERIFIED mark of a write still
 * in flight must not repair the index row from the data row it reads, since the write lands after
 * it; if that write's post step is then lost, the repair's VERIFIED copy of the old row would stay.
 * The write is held on a latch after its mark (by an observer that runs after ours) while a covered
 * read goes through the row, then its post step is made to fail (the index table disabled). Before
 * the fix the covered read answered {@code old} for good while the data table held {@code new}.
 */
class RepairRaceIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] URL = Bytes.toBytes("url");
    private static final String HOLD = "test.hold";
    static final CountDownLatch HELD = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1);

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").build();

    @Override
    protected void configure(Configuration conf) {
        super.configure(conf);
        conf.setInt(RowKeyIndexObserver.WRITE_TIMEOUT_KEY, 2_000); // the lost post step gives up soon
    }

    /** Holds a write that carries {@link #HOLD} after hbase-rowkey's observer marked its index rows. */
    public static final class HoldWrites implements RegionCoprocessor, RegionObserver {
        @Override
        public Optional<RegionObserver> getRegionObserver() {
            return Optional.of(this);
        }

        @Override
        public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c, MiniBatchOperationInProgress<Mutation> batch)
                throws IOException {
            for (int i = 0; i < batch.size(); i++) {
                if (batch.getOperation(i).getAttribute(HOLD) != null) {
                    HELD.countDown();
                    try {
                        RELEASE.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                }
            }
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aReaderDoesNotRepairTheMarkOfAWriteInFlight() throws Exception {
        TableName name = TableName.valueOf("repair_race");
        TableName indexTable = RowKeyTable.indexTableName(name, "by_code");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_code", "code").include("f", "url")), F);
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(HoldWrites.class.getName())
                            .setPriority(Coprocessor.PRIORITY_USER + 1).build()).build());
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        byte[] row = schema.encode(TestData.map("user", 1, "code", 7));
        RowKeyQuery covered = RowKeyQuery.on(schema).eq("code", 7).select(F, URL);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (Table t = connection().getTable(name)) {
            t.put(new Put(row).addColumn(F, URL, Bytes.toBytes("old")));
            assertEquals("old", url(table.scan(covered)));

            Put write = new Put(row).addColumn(F, URL, Bytes.toBytes("new"));
            write.setAttribute(HOLD, new byte[] {1});
            Future<?> held = writer.submit(() -> {
                t.put(write);
                return null;
            });
            assertTrue(HELD.await(60, TimeUnit.SECONDS), "the write reached the latch");
            // Its mark is written, its data not yet: the reader answers the row as it is.
            assertEquals("old", url(table.scan(covered)));
            try (Admin admin = connection().getAdmin()) {
                admin.disableTable(indexTable); // the post step will fail: its VERIFIED copy is lost
                RELEASE.countDown();
                held.get(120, TimeUnit.SECONDS);
                admin.enableTable(indexTable);
            }
            try (Table data = connection().getTable(name)) {
                assertEquals("new", Bytes.toString(data.get(new org.apache.hadoop.hbase.client.Get(row)).getValue(F, URL)));
            }
            assertEquals("new", url(table.scan(covered)), "the index row answers the data row as it is");
            assertEquals("new", url(table.scan(covered)), "and so does its repair");
        } finally {
            RELEASE.countDown();
            writer.shutdownNow();
        }
    }

    private static String url(ResultScanner scanner) throws IOException {
        try (ResultScanner s = scanner) {
            Result r = s.next();
            return r == null ? null : Bytes.toString(r.getValue(F, URL));
        }
    }
}
