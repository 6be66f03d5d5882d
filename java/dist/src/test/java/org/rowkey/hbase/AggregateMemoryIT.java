package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The memory of aggregates is bounded in bytes (issue 35, item 2; docs/aggregates.md, "Memory
 * bound"): a group-heavy aggregate (grouped by an int32 and a 1,024-byte field, 64 aggregates)
 * over the RegionServer's {@value RowKeyScanObserver#MAX_BYTES_SETTING} fails with a
 * {@code DoNotRetryIOException} naming the setting, the bytes and the groups so far, and the
 * RegionServer stays up and answers the next query exactly; a request may ask for less, never
 * more; the client's merge is bounded by the client's own setting. Before the fix only the group
 * cap (100,000) bounded it: these groups were all folded and sent, 3 KB each.
 *
 * <p>Small by default (1,000 groups, a 1 MiB server limit); the scale with
 * {@code -Drowkey.it.aggregate.groups=100000 -Drowkey.it.aggregate.server.bytes=0} (the default
 * 64 MiB). Prints the heap allocated and the growth of the process's peak resident set for the
 * refused aggregate and for the largest one the limit allows, and that one's partial state size.
 */
class AggregateMemoryIT extends HBaseMiniClusterBase {
    private static final int GROUPS = Integer.getInteger("rowkey.it.aggregate.groups", 1_000);
    /** The RegionServer's limit (0: the default). */
    private static final long SERVER_BYTES = Long.getLong("rowkey.it.aggregate.server.bytes", 1 << 20);
    private static final long SERVER_LIMIT = SERVER_BYTES == 0 ? 64L << 20 : SERVER_BYTES;
    private static final byte[] F = Bytes.toBytes("f");
    /** Its number of groups in a refusal: "(N so far and a new one, ...". */
    private static final Pattern GROUPS_SO_FAR = Pattern.compile("\\((\\d+) so far and a new one, (\\d+) bytes each");

    private final RowKeySchema schema = RowKeySchema.builder().int32("a").fixedBytes("b", 1024).build();
    private final TableName name = TableName.valueOf("group_heavy");
    private RowKeyTable table;

    @Override
    protected void configure(Configuration conf) {
        super.configure(conf);
        conf.setLong(RowKeyScanObserver.MAX_BYTES_SETTING, SERVER_BYTES);
    }

    /** Rows {@code a = 0 .. GROUPS-1}, each its own group, in two regions split at the middle. */
    @BeforeAll
    void createAndWrite() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Collections.emptyList(), new byte[][] {key(GROUPS / 2)}, F);
        }
        try (Table t = connection().getTable(name)) {
            List<Put> batch = new ArrayList<>();
            for (int a = 0; a < GROUPS; a++) {
                batch.add(new Put(key(a)).addColumn(F, Bytes.toBytes("x"), new byte[] {1}));
                if (batch.size() == 1_000) {
                    t.put(batch);
                    batch.clear();
                }
            }
            t.put(batch);
        }
        table = RowKeyTable.open(connection(), name);
    }

    private byte[] key(int a) {
        byte[] b = new byte[1024];
        ByteBuffer.wrap(b).putInt(a).putInt(~a);
        return schema.encode(TestData.map("a", a, "b", b));
    }

    /** Grouped by both fields, 64 aggregates: count(*) and sum(a), 32 times each. */
    private Aggregation groupHeavy() {
        Aggregation a = Aggregation.on(schema).groupBy("a", "b");
        for (int i = 0; i < 32; i++) {
            a.count().sum("a");
        }
        return a;
    }

    /** The rows {@code a} in {@code [from, to)}. */
    private RowKeyQuery rows(int from, int to) {
        return RowKeyQuery.on(schema).ge("a", from).lt("a", to);
    }

    /** The aggregate over every row refused by the RegionServers' limit: its message. */
    private String refusal(RowKeyTable t, Aggregation aggregation) {
        IOException e = assertThrows(IOException.class, () -> t.aggregate(RowKeyQuery.on(schema), aggregation));
        String causes = causes(e);
        assertTrue(causes.contains(DoNotRetryIOException.class.getSimpleName()), causes);
        return causes;
    }

    @Test
    void aGroupHeavyAggregateOverTheServersLimitFailsNamingItAndTheServerAnswersTheNextExactly() throws Exception {
        ServerName server;
        try (RegionLocator locator = connection().getRegionLocator(name)) {
            server = locator.getRegionLocation(key(0)).getServerName();
        }
        Measured refused = measure(() -> refusal(table, groupHeavy()));
        String message = refused.message;
        assertTrue(message.contains("limit exceeded: bytes of the aggregation's groups"), message);
        assertTrue(message.contains("the setting " + RowKeyScanObserver.MAX_BYTES_SETTING), message);
        assertTrue(message.contains("at most " + SERVER_LIMIT + " allowed"), message);
        Matcher m = GROUPS_SO_FAR.matcher(message);
        assertTrue(m.find(), message);
        int fit = Integer.parseInt(m.group(1));
        long perGroup = Long.parseLong(m.group(2));
        assertEquals(SERVER_LIMIT / perGroup, fit, message);
        assertTrue(fit < GROUPS / 2, "every region must pass the limit: " + fit + " groups fit");
        System.out.printf("AggregateMemoryIT: %d groups refused past %d groups (%d bytes each, limit %d): %s%n", GROUPS,
                fit, perGroup, SERVER_LIMIT, refused);

        // The same server, up, answers the largest aggregate the limit allows exactly.
        Measured largest = measure(() -> table.aggregate(rows(0, fit), groupHeavy()));
        assertExact(largest.result, 0, fit);
        System.out.printf("AggregateMemoryIT: %d groups answered, a %d-byte partial state: %s%n", fit,
                largest.result.bytesToClient(), largest);
        assertTrue(largest.result.bytesToClient() <= SERVER_LIMIT, largest.toString());
        try (Admin admin = connection().getAdmin(); RegionLocator locator = connection().getRegionLocator(name)) {
            assertEquals(1, admin.getRegionServers().size());
            assertEquals(server, locator.getRegionLocation(key(0), true).getServerName());
        }
        assertEquals((long) GROUPS, table.aggregate(RowKeyQuery.on(schema), Aggregation.on(schema).count()).rows().get(0).value(0));
    }

    @Test
    void aRequestMayAskForLessThanTheServersLimitNeverMore() {
        String less = refusal(table, groupHeavy().maxBytes(100_000));
        assertTrue(less.contains("the aggregation's max_bytes) is") && less.contains("at most 100000 allowed"), less);
        String more = refusal(table, groupHeavy().maxBytes(4 * SERVER_LIMIT));
        assertTrue(more.contains(RowKeyScanObserver.MAX_BYTES_SETTING + ") is") && more.contains("at most "
                + SERVER_LIMIT + " allowed"), more);
        IllegalArgumentException tooMuch = assertThrows(IllegalArgumentException.class, () -> groupHeavy().maxBytes(2L << 30));
        assertTrue(tooMuch.getMessage().contains("max_bytes of an aggregation is 2147483648, at most 1073741824"),
                tooMuch.getMessage());
    }

    @Test
    void theClientsMergeIsBoundedByTheClientsOwnSetting() throws IOException {
        Matcher m = GROUPS_SO_FAR.matcher(refusal(table, groupHeavy()));
        assertTrue(m.find());
        int fit = Integer.parseInt(m.group(1));
        // Each region's share fits the server's limit; together they pass the client's, half of it.
        int each = fit * 7 / 20;
        RowKeyQuery both = rows(GROUPS / 2 - each, GROUPS / 2 + each);
        assertExact(table.aggregate(both, groupHeavy()), GROUPS / 2 - each, GROUPS / 2 + each);
        Configuration client = new Configuration(conf());
        client.setLong(RowKeyScanObserver.MAX_BYTES_SETTING, SERVER_LIMIT / 2);
        try (Connection small = ConnectionFactory.createConnection(client)) {
            RowKeyTable t = RowKeyTable.open(small, name);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.aggregate(both, groupHeavy()));
            assertTrue(e.getMessage().contains("the setting " + RowKeyScanObserver.MAX_BYTES_SETTING + ") is")
                    && e.getMessage().contains("at most " + SERVER_LIMIT / 2 + " allowed"), e.getMessage());
            // Within it, the same client answers exactly.
            assertExact(t.aggregate(rows(0, each), groupHeavy()), 0, each);
        }
    }

    /** One row per {@code a} in {@code [from, to)}: count 1 and sum a, 32 times each. */
    private static void assertExact(AggregationResult result, int from, int to) {
        assertEquals(to - from, result.rows().size());
        for (int a = from; a < to; a++) {
            AggregationResult.Row row = result.rows().get(a - from);
            assertEquals(a, row.group("a"));
            for (int i = 0; i < 64; i += 2) {
                assertEquals(1L, row.value(i));
                assertEquals((long) a, row.value(i + 1));
            }
        }
    }

    private static String causes(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" / ");
        }
        return s.toString();
    }

    private interface Query<T> {
        T run() throws Exception;
    }

    /** What a query cost the JVM (client and RegionServer alike: a minicluster). */
    private static final class Measured {
        String message;
        AggregationResult result;
        long millis;
        long heapAllocated;
        /** By the RegionServer's RPC handlers and its network threads. */
        long heapAllocatedOnServer;
        /** Above the heap in use after a GC before the query (each pool's peak, summed: a little above the heap's). */
        long heapPeak;
        long peakResidentGrowth;

        @Override
        public String toString() {
            return String.format("%d ms, heap allocated %.1f MiB (%.1f MiB of it by the RegionServer), heap in use at its"
                    + " peak +%.1f MiB, peak resident set +%.1f MiB", millis, heapAllocated / 1048576.0,
                    heapAllocatedOnServer / 1048576.0, heapPeak / 1048576.0, peakResidentGrowth / 1048576.0);
        }
    }

    /** Bytes allocated so far by the RegionServer's RPC handlers and network threads (by their names). */
    private static long allocatedByServerThreads(com.sun.management.ThreadMXBean threads) {
        long sum = 0;
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && (info.getThreadName().contains("RpcServer") || info.getThreadName().startsWith("RS-EventLoopGroup"))) {
                sum += Math.max(0, threads.getThreadAllocatedBytes(info.getThreadId()));
            }
        }
        return sum;
    }

    private static Measured measure(Query<?> query) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Measured m = new Measured();
        System.gc();
        List<MemoryPoolMXBean> heap = new ArrayList<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
                m.heapPeak -= pool.getUsage().getUsed();
                heap.add(pool);
            }
        }
        long resident = HostileRequestIT.resetPeakResident();
        long allocated = HostileRequestIT.allocatedByAllThreads(threads);
        long allocatedOnServer = allocatedByServerThreads(threads);
        long t0 = System.nanoTime();
        Object out = query.run();
        m.millis = (System.nanoTime() - t0) / 1_000_000;
        m.heapAllocated = HostileRequestIT.allocatedByAllThreads(threads) - allocated;
        m.heapAllocatedOnServer = allocatedByServerThreads(threads) - allocatedOnServer;
        m.peakResidentGrowth = HostileRequestIT.peakResident() - resident;
        for (MemoryPoolMXBean pool : heap) {
            m.heapPeak += pool.getPeakUsage().getUsed();
        }
        if (out instanceof String) {
            m.message = (String) out;
        } else {
            m.result = (AggregationResult) out;
        }
        return m;
    }
}
