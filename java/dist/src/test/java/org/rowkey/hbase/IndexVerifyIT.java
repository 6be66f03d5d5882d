package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * {@code RowKeyCli verify} at table scale ({@link IndexVerify}): every kind of difference planted by
 * hand is found with its exact count, {@code --repair} mends each, and a second run reports none;
 * beside writers changing the rows while it runs, it reports no difference that is not there.
 */
class IndexVerifyIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] URL = Bytes.toBytes("url");
    private static final byte[] N = Bytes.toBytes("n");
    private static final int ROWS = 400;

    private final RowKeySchema schema = RowKeySchema.builder().int32("user").int32("code").int32("day").build();
    /** A: salted, one covered column. B: the whole family covered. */
    private final List<RowKeyIndex> indexes = Arrays.asList(RowKeyIndex.of("by_code", "code").salt(4).include("f", "url"),
            RowKeyIndex.of("by_day", "day").include(F));
    private final Catalog catalog = Catalog.of(schema, indexes, IndexState.ACTIVE);

    private byte[] key(int user) {
        return schema.encode(TestData.map("user", user, "code", user % 13, "day", 20160000 + user % 7));
    }

    private RowKeyTable create(String name) throws IOException {
        TableName table = TableName.valueOf(name);
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, table, schema, indexes, new byte[][] {key(ROWS / 2)}, F);
        }
        try (Table t = connection().getTable(table)) {
            List<Put> puts = new ArrayList<>();
            for (int u = 0; u < ROWS; u++) {
                puts.add(new Put(key(u)).addColumn(F, URL, Bytes.toBytes("http://" + u)).addColumn(F, N, Bytes.toBytes(u)));
            }
            t.put(puts);
        }
        return RowKeyTable.open(connection(), table);
    }

    private Table index(String table, int index) throws IOException {
        return connection().getTable(IndexRowFormat.indexTableName(TableName.valueOf(table), indexes.get(index).name()));
    }

    private static Cell status(Table index, byte[] indexKey) throws IOException {
        return IndexRowFormat.status(index.get(new Get(indexKey)));
    }

    private static long nowMicros() {
        return System.currentTimeMillis() * 1_000;
    }

    private IndexVerify.Report verify(RowKeyTable table, String name, boolean repair) throws IOException {
        return table.verify(new IndexVerify.Request(TableName.valueOf(name), null, repair, 10), null);
    }

    private static Map<String, Long> counts(IndexVerify.Report report, String index) {
        Map<String, Long> m = new TreeMap<>();
        for (IndexVerify.Kind k : IndexVerify.Kind.values()) {
            long n = report.count(index, k.label());
            if (n != 0) {
                m.put(k.label(), n);
            }
        }
        return m;
    }

    private static Map<String, Long> expect(Object... kv) {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
        }
        return m;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyPlantedDifferenceIsFoundCountedRepairedAndASecondRunFindsNone() throws Exception {
        String name = "verify_planted";
        RowKeyTable table = create(name);
        long old = nowMicros() - 2 * 3_600_000_000L; // past the grace period
        try (Table a = index(name, 0); Table b = index(name, 1); Table data = connection().getTable(TableName.valueOf(name))) {
            // Missing: three index rows deleted (at their stamps: a Delete in milliseconds misses them) ...
            for (int u = 0; u < 3; u++) {
                byte[] k = catalog.indexKey(0, key(u));
                a.delete(new Delete(k, status(a, k).getTimestamp()));
            }
            // ... and one marked STALE while its data row exists (readers skip it).
            byte[] stale = catalog.indexKey(0, key(3));
            a.put(new Put(stale).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status(a, stale).getTimestamp(),
                    IndexRowFormat.STALE));
            // Covered cells that differ: a changed copy in A; in B a changed one and one the data row lacks.
            for (int u = 4; u < 6; u++) {
                byte[] k = catalog.indexKey(0, key(u));
                a.put(new Put(k).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(F, URL),
                        status(a, k).getTimestamp(), Bytes.add(Bytes.toBytes(1L), Bytes.toBytes("http://elsewhere"))));
            }
            byte[] six = catalog.indexKey(1, key(6));
            b.put(new Put(six).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(F, Bytes.toBytes("ghost")),
                    status(b, six).getTimestamp(), Bytes.add(Bytes.toBytes(1L), Bytes.toBytes("boo"))));
            byte[] seven = catalog.indexKey(1, key(7));
            b.put(new Put(seven).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(F, N),
                    status(b, seven).getTimestamp(), Bytes.add(Bytes.toBytes(1L), Bytes.toBytes(-7))));
            // Extra: VERIFIED rows of data rows that do not exist.
            for (int u = 10_000; u < 10_002; u++) {
                byte[] k = catalog.indexKey(0, key(u));
                long stamp = nowMicros();
                a.put(new Put(k).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp, IndexRowFormat.VERIFIED)
                        .addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(F, URL), stamp, IndexRowFormat.ABSENT));
            }
            // UNVERIFIED, its write failed long ago: two whose data rows exist, one whose data row never came.
            for (int u = 8; u < 10; u++) {
                byte[] k = catalog.indexKey(0, key(u));
                a.put(new Put(k).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, nowMicros(), IndexRowFormat.unverified(old)));
            }
            a.put(new Put(catalog.indexKey(0, key(20_000))).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, old,
                    IndexRowFormat.unverified(old)));
            // In flight: a mark of a moment ago whose data row is not there yet. Not a difference.
            long young = nowMicros();
            a.put(new Put(catalog.indexKey(0, key(20_001))).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, young,
                    IndexRowFormat.unverified(young)));
            // STALE, its data row gone, left in B.
            b.put(new Put(catalog.indexKey(1, key(30_000))).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, old,
                    IndexRowFormat.STALE));
            // Malformed: a key of another length, and one whose salt byte is not its fields' hash.
            a.put(new Put(Bytes.toBytes("short")).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, IndexRowFormat.VERIFIED));
            byte[] misSalted = catalog.indexKey(0, key(11));
            misSalted[0] = (byte) ((misSalted[0] + 1) % 4);
            a.put(new Put(misSalted).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, IndexRowFormat.VERIFIED));
            // A data row that is no key of the schema (the coprocessor leaves it unindexed).
            data.put(new Put(Bytes.toBytes("not-a-key")).addColumn(F, URL, Bytes.toBytes("x")));
        }

        IndexVerify.Report first = verify(table, name, false);
        assertEquals(expect("verified", ROWS - 8, "missing", 4, "extra", 2, "covered_differ", 2, "unverified", 3,
                "malformed", 2, "in_flight", 1), counts(first, "by_code"), first.toText());
        assertEquals(expect("verified", ROWS - 2, "covered_differ", 2, "stale", 1), counts(first, "by_day"), first.toText());
        assertEquals(16, first.differences());
        assertTrue(first.toJson().contains("\"not_of_schema\": 1"), first.toJson());
        assertTrue(first.toText().contains("by_code missing: index key " + Bytes.toHex(catalog.indexKey(0, key(0)))), first.toText());

        String scanObserver = "org.rowkey.hbase.RowKeyScanObserver";
        long verifyRepairs = CoprocessorMetricsIT.registryCount(scanObserver, CoprocessorMetrics.VERIFY_REPAIRS);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = RowKeyCli.run(connection(), new String[] {"verify", "--table", name, "--repair", "--json"},
                new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        String repairJson = new String(out.toByteArray(), StandardCharsets.UTF_8);
        assertEquals(1, status, "differences found: " + repairJson + err);
        assertTrue(repairJson.contains("\"differences\": 16"), repairJson);
        assertTrue(repairJson.contains("\"differences\": 13, \"verified\": 392"), repairJson);
        assertTrue(repairJson.contains("\"repaired\": 13"), repairJson);
        assertTrue(repairJson.contains("\"repaired\": 3"), repairJson);

        // Each conditional repair is counted by the index tables' observer (the two malformed rows' deletes are not conditional).
        assertEquals(verifyRepairs + 14, CoprocessorMetricsIT.registryCount(scanObserver, CoprocessorMetrics.VERIFY_REPAIRS));

        out.reset();
        status = RowKeyCli.run(connection(), new String[] {"verify", "--table", name},
                new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"));
        String second = new String(out.toByteArray(), StandardCharsets.UTF_8);
        assertEquals(0, status, second + err);
        IndexVerify.Report again = verify(table, name, false);
        assertEquals(expect("verified", ROWS, "in_flight", 1), counts(again, "by_code"), again.toText());
        assertEquals(expect("verified", ROWS), counts(again, "by_day"), again.toText());

        // A reader meeting a failed write's row repairs it, and the index table's observer counts it.
        long readerRepairs = CoprocessorMetricsIT.registryCount(scanObserver, CoprocessorMetrics.READER_REPAIRS);
        try (Table a = index(name, 0)) {
            byte[] k = catalog.indexKey(0, key(12));
            a.put(new Put(k).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, nowMicros(), IndexRowFormat.unverified(old)));
        }
        assertEquals(oracle(name, 12 % 13), rows(table.scan(RowKeyQuery.on(schema).eq("code", 12 % 13).select(F, URL))));
        assertEquals(readerRepairs + 1, CoprocessorMetricsIT.registryCount(scanObserver, CoprocessorMetrics.READER_REPAIRS));

        // The readers agree: every code's covered read through index A equals the data table.
        for (int code = 0; code < 13; code++) {
            RowKeyQuery q = RowKeyQuery.on(schema).eq("code", code).select(F, URL);
            assertEquals(oracle(name, code), rows(table.scan(q)), "code " + code);
        }
    }

    private Map<String, String> oracle(String name, int code) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Table t = connection().getTable(TableName.valueOf(name)); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                if (r.getRow().length == schema.keyLength() && ((Integer) schema.decode(r.getRow()).get("code")) == code) {
                    m.put(Bytes.toHex(r.getRow()), Bytes.toString(r.getValue(F, URL)));
                }
            }
        }
        return m;
    }

    private static Map<String, String> rows(ResultScanner rs) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (ResultScanner s = rs) {
            for (Result r : s) {
                m.put(Bytes.toHex(r.getRow()), Bytes.toString(r.getValue(F, URL)));
            }
        }
        return m;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void besideWritersItFindsNoDifferenceThatIsNotThere() throws Exception {
        String name = "verify_live";
        RowKeyTable table = create(name);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        ExecutorService writers = Executors.newFixedThreadPool(2);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            long seed = 7 + w;
            running.add(writers.submit(() -> {
                Random random = new Random(seed);
                try (Table t = connection().getTable(TableName.valueOf(name))) {
                    while (!stop.get()) {
                        byte[] k = key(random.nextInt(ROWS + 50));
                        if (random.nextInt(4) == 0) {
                            t.delete(new Delete(k));
                        } else {
                            t.put(new Put(k).addColumn(F, URL, Bytes.toBytes("http://" + random.nextInt()))
                                    .addColumn(F, N, Bytes.toBytes(random.nextInt())));
                        }
                        writes.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        List<IndexVerify.Report> during = new ArrayList<>();
        try {
            while (writes.get() < 50) {
                Thread.sleep(20);
            }
            during.add(verify(table, name, true));
            during.add(verify(table, name, false));
        } finally {
            stop.set(true);
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
            writers.shutdown();
        }
        long afterwards = writes.get();
        for (IndexVerify.Report r : during) {
            assertEquals(0, r.differences(), "with " + afterwards + " writes under way: " + r.toText());
        }
        IndexVerify.Report settled = verify(table, name, false);
        assertEquals(0, settled.differences(), settled.toText());
        long rows = 0;
        try (Table t = connection().getTable(TableName.valueOf(name)); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result ignored : rs) {
                rows++;
            }
        }
        assertEquals(expect("verified", rows), counts(settled, "by_code"), settled.toText());
        assertEquals(expect("verified", rows), counts(settled, "by_day"), settled.toText());
        assertTrue(afterwards > 100, "the writers wrote while verify ran: " + afterwards);
    }
}
