package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile serialized comparators against a real RegionServer: 1 MiB messages made of repeated
 * tiny fields, the shape that used to cost the protobuf parser ~300 ms and ~150 MiB each before
 * any limit looked at them. 16 clients send them at once, several rounds; the wire pre-scan
 * (src/wire.rs) must refuse each before the parser runs, so the server's time per request, the
 * Java heap it allocates and its native memory stay small, and it keeps serving.
 *
 * <p>Measured in the same JVM as the RegionServer (a minicluster): heap as the bytes all threads
 * allocated (clients included: each also builds and sends its 1 MiB), native memory as the growth
 * of the process's peak resident set (VmHWM, reset through /proc/self/clear_refs first).
 */
class HostileRequestIT extends HBaseMiniClusterBase {
    private static final int CLIENTS = 16;
    private static final int ROUNDS = 4;
    private static final int MESSAGE_BYTES = 1 << 20;
    /** Per refused request: the 1 MiB travels through a few buffers on each side, never parsed. */
    private static final long MAX_HEAP_BYTES_PER_REQUEST = 24L << 20;
    /** For all requests of a round together: 16 parser floods of ~150 MiB each used to need gigabytes. */
    private static final long MAX_NATIVE_GROWTH_BYTES = 64L << 20;
    /** Per request, wall time to the refusal: generous (a loaded 2-core machine), and far below the old flood cost under 16-way contention. */
    private static final long MAX_MILLIS_PER_REQUEST = 5_000;

    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").build();
    private final List<byte[]> keys = new ArrayList<>();
    private TableName table;

    @Override
    protected void configure(Configuration conf) {
        super.configure(conf);
        conf.setInt("hbase.regionserver.handler.count", CLIENTS);
    }

    @BeforeAll
    void load() throws IOException {
        for (int a = 0; a < 100; a++) {
            for (int b = 0; b < 10; b++) {
                keys.add(schema.encode(TestData.map("a", a, "b", b)));
            }
        }
        table = createTable("hostile", schema.encode(TestData.map("a", 50, "b", 0)));
        putRows(table, keys);
    }

    /** The hostile messages, each just under 1 MiB, as the serialized comparator of a RowFilter. */
    private Map<String, byte[]> hostileMessages() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        // ComparatorSpec.schema (field 2) holding 262,144 FieldSpecs (field 2), each with an unknown field 3.
        out.put("FieldSpecs with unknown fields", lengthDelimited(2, repeat(new byte[] {0x12, 0x02, 0x1a, 0x00})));
        // ComparatorSpec with unknown field 127 (varint) 349,525 times.
        out.put("top-level unknown fields", repeat(new byte[] {(byte) 0xf8, 0x07, 0x01}));
        // ComparatorSpec.predicate (5) > PredicateComparatorSpec.predicate (1) > 524,288 empty Conditions (1).
        out.put("empty conditions", lengthDelimited(5, lengthDelimited(1, repeat(new byte[] {0x0a, 0x00}))));
        // ... > one Condition > 262,144 Values (3), each an int with an unknown field 9.
        out.put("values with unknown fields", lengthDelimited(5, lengthDelimited(1,
                lengthDelimited(1, repeat(new byte[] {0x1a, 0x04, 0x08, 0x01, 0x48, 0x01})))));
        return out;
    }

    /** {@code unit} repeated to just under {@link #MESSAGE_BYTES} less room for a few headers. */
    private static byte[] repeat(byte[] unit) {
        int n = (MESSAGE_BYTES - 64) / unit.length;
        ByteArrayOutputStream out = new ByteArrayOutputStream(n * unit.length);
        for (int i = 0; i < n; i++) {
            out.write(unit, 0, unit.length);
        }
        return out.toByteArray();
    }

    /** Field {@code number}, wire type 2, holding {@code body}. */
    private static byte[] lengthDelimited(int number, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 8);
        writeVarint(out, (number << 3) | 2);
        writeVarint(out, body.length);
        out.write(body, 0, body.length);
        return out.toByteArray();
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** One client's request: a scan whose RowFilter carries the hostile comparator; its time to refusal. */
    private long refusedMillis(byte[] hostile) throws Exception {
        PredicateComparator template = RowKeyQuery.on(schema).eq("a", 1).toComparator();
        Scan scan = new Scan().setFilter(new RegionServerFaultIT.CorruptComparatorRowFilter(template, hostile));
        long t0 = System.nanoTime();
        try (Table t = connection().getTable(table); ResultScanner scanner = t.getScanner(scan)) {
            Result r = scanner.next();
            throw new AssertionError("a hostile comparator was accepted: " + r);
        } catch (IOException e) {
            assertTrue(isDoNotRetry(e), "not refused as DoNotRetryIOException: " + e);
            return (System.nanoTime() - t0) / 1_000_000;
        }
    }

    private static boolean isDoNotRetry(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DoNotRetryIOException) {
                return true;
            }
        }
        return false;
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void sixteenConcurrentHostileRequestsCostLittleAndTheServerKeepsServing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            for (Map.Entry<String, byte[]> hostile : hostileMessages().entrySet()) {
                assertTrue(hostile.getValue().length <= MESSAGE_BYTES && hostile.getValue().length > MESSAGE_BYTES - 128);
                refusedMillis(hostile.getValue()); // warm: connections, class loading
                for (int round = 0; round < ROUNDS; round++) {
                    long residentBefore = resetPeakResident();
                    long allocatedBefore = allocatedByAllThreads(threads);
                    List<Future<Long>> requests = new ArrayList<>();
                    for (int c = 0; c < CLIENTS; c++) {
                        Callable<Long> request = () -> refusedMillis(hostile.getValue());
                        requests.add(pool.submit(request));
                    }
                    long slowest = 0;
                    long total = 0;
                    for (Future<Long> f : requests) {
                        long ms = f.get(300, TimeUnit.SECONDS);
                        slowest = Math.max(slowest, ms);
                        total += ms;
                    }
                    long heapPerRequest = (allocatedByAllThreads(threads) - allocatedBefore) / CLIENTS;
                    long nativeGrowth = peakResident() - residentBefore;
                    System.out.printf("HostileRequestIT: %s, round %d: %d concurrent requests refused, mean %d ms, "
                            + "slowest %d ms, heap allocated %.1f MiB per request, peak resident set +%.1f MiB%n",
                            hostile.getKey(), round, CLIENTS, total / CLIENTS, slowest, heapPerRequest / 1048576.0,
                            nativeGrowth / 1048576.0);
                    assertTrue(slowest <= MAX_MILLIS_PER_REQUEST, hostile.getKey() + ": slowest request " + slowest + " ms");
                    assertTrue(heapPerRequest <= MAX_HEAP_BYTES_PER_REQUEST,
                            hostile.getKey() + ": " + heapPerRequest + " heap bytes per request");
                    assertTrue(nativeGrowth <= MAX_NATIVE_GROWTH_BYTES,
                            hostile.getKey() + ": peak resident set grew by " + nativeGrowth + " bytes");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        // The server keeps serving: a planned query returns exactly its rows.
        RowKeyQuery query = RowKeyQuery.on(schema).in("a", 3, 70).between("b", 2, 4);
        TreeSet<String> expected = new TreeSet<>();
        for (int a : new int[] {3, 70}) {
            for (int b = 2; b <= 4; b++) {
                expected.add(Bytes.toHex(schema.encode(TestData.map("a", a, "b", b))));
            }
        }
        TreeSet<String> got = new TreeSet<>();
        for (byte[] key : scanRowKeys(table, query.toScan())) {
            got.add(Bytes.toHex(key));
        }
        assertEquals(expected, got);
    }

    /** Bytes allocated so far by every live thread of this JVM (the RegionServer's handlers included). */
    static long allocatedByAllThreads(com.sun.management.ThreadMXBean threads) {
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }

    /** Resets the process's peak resident set to its current size (Linux: clear_refs 5); the current size. */
    static long resetPeakResident() throws IOException {
        Files.write(Paths.get("/proc/self/clear_refs"), "5".getBytes(StandardCharsets.US_ASCII));
        return statusBytes("VmRSS:");
    }

    static long peakResident() throws IOException {
        return statusBytes("VmHWM:");
    }

    private static long statusBytes(String field) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IOException("no " + field + " in /proc/self/status");
    }
}
