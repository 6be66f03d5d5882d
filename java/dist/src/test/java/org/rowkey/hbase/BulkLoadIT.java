package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The bulk load ({@link BulkLoad}) on a minicluster with the LocalJobRunner, into the demo's
 * table shape (seed 000's key, the demo's three indexes, one covering the URL): seed 000's export
 * lines with bad lines among them, and generated JSON and CSV rows; every query through every
 * index equals the oracle of the input; the rejects list exactly the bad lines; the load stopped
 * after each step (as a kill there would) shows only what the oracle allows and a re-run finishes
 * it; a load beside live writes keeps the newer write of each key in every table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BulkLoadIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final byte[] URL = Bytes.toBytes("url");
    private static final String[] FIELDS = {"md5url", "sitecode", "status", "code", "sdate", "type", "free", "close",
        "queue", "scantype"};
    /** Generated rows of the main test: enough for several HFiles per table and reducer. */
    private static final int GENERATED = Integer.getInteger("bulkload.it.rows", 50_000);
    /** Loaded keys written once each by a write whose data timestamp and index stamp straddle the load. */
    private static final int SKEWED = 100;

    private final RowKeySchema schema = TestData.seedSchema();
    private File local;

    private static List<RowKeyIndex> indexes() {
        return Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").include(F, URL),
                RowKeyIndex.of("by_type_queue_free", "type", "queue", "free"),
                RowKeyIndex.of("by_site_date", "sitecode", "sdate"));
    }

    @BeforeAll
    void localDir() throws IOException {
        local = Files.createTempDirectory("bulkload-it").toFile();
    }

    @AfterAll
    void removeLocalDir() throws IOException {
        try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(local.toPath())) {
            for (java.nio.file.Path f : (Iterable<java.nio.file.Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(f);
            }
        }
    }

    /** An input row and the oracle's view of it. */
    private static final class Row {
        final Map<String, Object> fields;
        final String url;

        Row(Map<String, Object> fields, String url) {
            this.fields = fields;
            this.url = url;
        }
    }

    private TableName create(String name) throws IOException {
        return create(name, new byte[][] {{(byte) 0x40}, {(byte) 0x80}, {(byte) 0xc0}});
    }

    private TableName create(String name, byte[][] splits) throws IOException {
        TableName table = TableName.valueOf(name);
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, table, schema, indexes(), splits, F);
        }
        return table;
    }

    private int bulkLoad(BulkLoad tool, TableName table, String work, String... more) throws Exception {
        return bulkLoad(loadConf(), tool, table, work, more);
    }

    private int bulkLoad(Configuration conf, BulkLoad tool, TableName table, String work, String... more) throws Exception {
        List<String> args = new ArrayList<>(Arrays.asList("--table", table.getNameAsString(), "--work", work,
                "--column", "f:url=url", "--quiet"));
        args.addAll(Arrays.asList(more));
        return ToolRunner.run(conf, tool, args.toArray(new String[0]));
    }

    /**
     * The loads' configuration. A load without --timestamp takes one this far ahead of the clock
     * (the product's 10 s leave room for a big table's regions to reopen with the window; here they
     * reopen in under a second, and a window that took longer would be opened again), and closes its
     * window this long after that timestamp (the product's 2 s are for servers whose clocks differ;
     * here they share one). Each load waited out both, 12 s less the time it ran. The load beside
     * live writes keeps the product's defaults. Every region holding more than its share of these
     * small loads' cells is cut between reducers, as a large load's would be.
     */
    private Configuration loadConf() {
        Configuration c = new Configuration(conf());
        c.setLong(BulkLoad.WINDOW_LEAD_KEY, 3_000);
        c.setLong(BulkLoad.SETTLE_KEY, 100);
        c.setLong(ReducePartitions.MIN_CELLS_KEY, 1_000);
        return c;
    }

    private static List<Row> generated(int n, long seed) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String url = "http://www.site" + (i % 500) + ".gov.cn/page/" + i + ".html";
            rows.add(new Row(TestData.map("md5url", md5Hex(url), "sitecode", String.format("%010d", i % 500),
                    "status", r.nextInt(3) - 1, "code", new int[] {200, 301, 404, 500, 503}[r.nextInt(5)],
                    "sdate", 20161201 + r.nextInt(31), "type", 1 + r.nextInt(4), "free", r.nextInt(10) == 0,
                    "close", r.nextInt(20) == 0, "queue", r.nextInt(4), "scantype", r.nextInt(3)), url));
        }
        return rows;
    }

    /** MD5 hex of the URL, the seed's md5url. */
    private static String md5Hex(String s) {
        try {
            return Bytes.toHex(java.security.MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private String writeJson(String name, List<Row> rows) throws IOException {
        StringBuilder out = new StringBuilder();
        for (Row row : rows) {
            out.append("{\"_id\": {\"$oid\": \"584a6e030cf29ba18da2fcd5\"}");
            if (row.url != null) {
                out.append(", \"url\": \"").append(row.url).append('"');
            }
            for (String f : FIELDS) {
                Object v = row.fields.get(f);
                out.append(", \"").append(f).append("\": ");
                out.append(v instanceof String ? "\"" + v + "\"" : v instanceof Boolean ? ((Boolean) v ? "1" : "0") : v);
            }
            out.append("}\n");
        }
        return write(name, out.toString());
    }

    private String writeCsv(String name, List<Row> rows) throws IOException {
        StringBuilder out = new StringBuilder(String.join(",", FIELDS)).append(",url\n");
        for (Row row : rows) {
            for (String f : FIELDS) {
                out.append(row.fields.get(f)).append(',');
            }
            out.append('"').append(row.url).append("\"\n");
        }
        return write(name, out.toString());
    }

    private String write(String name, String text) throws IOException {
        File f = new File(local, name);
        Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
        return f.toURI().toString();
    }

    /** Seed 000's export lines (with bad lines among them) as a local file. */
    private String seedExport() throws IOException {
        File f = new File(local, "seed000-export.json");
        try (InputStream in = getClass().getResourceAsStream("/seed000-export.json")) {
            Files.copy(in, f.toPath(), StandardCopyOption.REPLACE_EXISTING);
        }
        return f.toURI().toString();
    }

    /** The good lines of seed000-export.json, as rows. */
    private List<Row> seedRows() throws IOException, LoadMapping.Rejected {
        List<Row> rows = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("/seed000-export.json")) {
            String[] lines = new String(readAll(in), StandardCharsets.UTF_8).split("\n");
            for (int n : new int[] {1, 2, 3, 4, 5, 7, 8, 11, 12, 13}) {
                Map<String, Object> record = InputRecords.json(lines[n - 1]);
                Map<String, Object> fields = TestData.map();
                for (String f : FIELDS) {
                    Object v = record.get(f);
                    fields.put(f, f.equals("free") || f.equals("close") ? (Object) (((Number) v).intValue() == 1)
                            : v instanceof Number ? (Object) ((Number) v).intValue() : v);
                }
                rows.add(new Row(fields, (String) record.get("url")));
            }
        }
        return rows;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** Writes {@code row}'s URL with a live marker (or, unless {@code put}, deletes it) at {@code ts}, as recorded. */
    private void writeLive(Table t, Row row, long ts, boolean put, Map<String, long[]> liveTs, Map<String, String> liveUrl)
            throws IOException {
        byte[] key = schema.encode(row.fields);
        String url = put ? row.url + "?live=" + ts : null;
        if (url == null) {
            t.delete(new Delete(key, ts));
        } else {
            t.put(new Put(key).addColumn(F, URL, ts, Bytes.toBytes(url)));
        }
        liveTs.put(Bytes.toHex(key), new long[] {ts});
        liveUrl.put(Bytes.toHex(key), url == null ? "" : url);
    }

    /**
     * Whether every region of {@code name} is open with the load window. The descriptor says so
     * before its regions have reopened with it (HBase updates the descriptor, then reopens them), and
     * the coprocessor reads the window when its region opens: a write with a timestamp after the
     * load's, made in between, is not one the window covers.
     */
    private boolean windowOpenInEveryRegion(Admin admin, TableName name) throws IOException {
        int open = 0;
        for (org.apache.hadoop.hbase.ServerName server : cluster().getRegionServerAddresses()) {
            java.util.Optional<org.apache.hadoop.hbase.regionserver.OnlineRegions> regions =
                    cluster().getOnlineRegionsInterface(server);
            if (!regions.isPresent()) {
                continue;
            }
            for (org.apache.hadoop.hbase.regionserver.Region region : regions.get().getRegions(name)) {
                if (region.getTableDescriptor().getValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY)) == null) {
                    return false;
                }
                open++;
            }
        }
        return open == admin.getRegions(name).size();
    }

    private String key(Row row) {
        return Bytes.toHex(schema.encode(row.fields));
    }

    /** The oracle's answer to a query: key (hex) to URL of the rows that match. */
    private TreeMap<String, String> expected(List<Row> oracle, Predicate<Map<String, Object>> matches) {
        TreeMap<String, String> out = new TreeMap<>();
        for (Row row : oracle) {
            if (matches.test(row.fields)) {
                out.put(key(row), row.url);
            }
        }
        return out;
    }

    private static TreeMap<String, String> rows(ResultScanner scanner) throws IOException {
        TreeMap<String, String> out = new TreeMap<>();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                byte[] url = r.getValue(F, URL);
                out.put(Bytes.toHex(r.getRow()), url == null ? null : Bytes.toString(url));
            }
        }
        return out;
    }

    /**
     * Every query through every index, and a full scan of the data table, equals the oracle
     * (keys, and the URL: read from the covering index where the query is covered).
     */
    private void assertQueriesEqual(TableName name, List<Row> oracle) throws IOException {
        RowKeyTable table = RowKeyTable.open(connection(), name);
        assertEquals(expected(oracle, r -> true), rows(table.scan(RowKeyQuery.on(schema).noIndex())), "full scan");
        Random r = new Random(3);
        for (int i = 0; i < 6; i++) {
            int sdate = 20161201 + r.nextInt(31);
            int code = new int[] {404, 503, 200}[i % 3];
            assertEquals(expected(oracle, f -> f.get("sdate").equals(sdate) && f.get("code").equals(code)),
                    rows(table.scan(RowKeyQuery.on(schema).eq("sdate", sdate).eq("code", code).select(F, URL)
                            .useIndex("by_date_code"))), "sdate = " + sdate + " and code = " + code);
            int type = 1 + r.nextInt(4);
            int queue = r.nextInt(4);
            boolean free = r.nextBoolean();
            assertEquals(expected(oracle, f -> f.get("type").equals(type) && f.get("queue").equals(queue)
                    && f.get("free").equals(free)), rows(table.scan(RowKeyQuery.on(schema).eq("type", type)
                            .eq("queue", queue).eq("free", free).useIndex("by_type_queue_free"))), "type/queue/free");
            String site = i % 2 == 0 ? String.format("%010d", r.nextInt(500)) : "1509250008";
            assertEquals(expected(oracle, f -> f.get("sitecode").equals(site) && (Integer) f.get("sdate") >= 20161205
                    && (Integer) f.get("sdate") <= 20161220), rows(table.scan(RowKeyQuery.on(schema).eq("sitecode", site)
                            .between("sdate", 20161205, 20161220).useIndex("by_site_date"))), "sitecode " + site);
        }
        // The seed's sample dates through the covering index, every row of them.
        assertEquals(expected(oracle, f -> f.get("sdate").equals(20161209) && f.get("code").equals(404)),
                rows(table.scan(RowKeyQuery.on(schema).eq("sdate", 20161209).eq("code", 404).select(F, URL)
                        .useIndex("by_date_code"))), "seed 000's sdate = 20161209 and code = 404");
    }

    /** Every index table holds one VERIFIED index row per data row. */
    private void assertIndexesVerified(TableName name, int dataRows) throws IOException {
        for (RowKeyIndex index : indexes()) {
            assertEquals(Arrays.asList(dataRows, dataRows), indexRowsAndVerified(name, index.name()),
                    index.name() + ": index rows, verified index rows");
        }
    }

    /** How many rows an index table holds, and how many of them are VERIFIED. */
    private List<Integer> indexRowsAndVerified(TableName name, String index) throws IOException {
        int verified = 0;
        int rows = 0;
        try (Table t = connection().getTable(RowKeyTable.indexTableName(name, index)); ResultScanner s = t.getScanner(new Scan())) {
            for (Result r : s) {
                rows++;
                verified += Arrays.equals(r.getValue(IndexRowFormat.FAMILY, IndexRowFormat.STATUS), IndexRowFormat.VERIFIED) ? 1 : 0;
            }
        }
        return Arrays.asList(rows, verified);
    }

    /** The HFiles a stopped load's job wrote for {@code table} (under its work directory). */
    private int hfiles(String work, TableName table) throws IOException {
        FileSystem fs = FileSystem.get(conf());
        int files = 0;
        org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it = fs.listFiles(
                new Path(new Path(work, "hfiles"), table.getQualifierAsString()), true);
        while (it.hasNext()) {
            files += it.next().getPath().getName().startsWith(".") ? 0 : 1;
        }
        return files;
    }

    private int count(TableName table) throws IOException {
        int n = 0;
        try (Table t = connection().getTable(table); ResultScanner s = t.getScanner(new Scan().setRaw(true))) {
            for (Result ignored : s) {
                n++;
            }
        }
        return n;
    }

    private List<String> rejectLines(BulkLoad tool) throws IOException {
        FileSystem fs = tool.rejectsDir().getFileSystem(conf());
        List<String> lines = new ArrayList<>();
        for (FileStatus f : fs.listStatus(tool.rejectsDir())) {
            try (InputStream in = fs.open(f.getPath())) {
                for (String line : new String(readAll(in), StandardCharsets.UTF_8).split("\n")) {
                    if (!line.isEmpty()) {
                        lines.add(line);
                    }
                }
            }
        }
        return lines;
    }

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void seedExportAndGeneratedRowsLoadIntoEveryIndexAndTheBadLinesAreRejected() throws Exception {
        TableName name = create("bulk_seed");
        String seed = seedExport();
        // More bad lines than allowed: the job fails before anything is loaded.
        BulkLoad strict = new BulkLoad();
        assertEquals(1, bulkLoad(strict, name, "/bulk/strict", "--input", seed, "--max-rejects", "5"));
        assertEquals(6, strict.rejected());
        assertEquals(0, count(name));
        for (RowKeyIndex index : indexes()) {
            assertEquals(0, count(RowKeyTable.indexTableName(name, index.name())), index.name());
        }

        List<Row> generated = generated(GENERATED, 11);
        String json = writeJson("generated.json", generated);
        BulkLoad tool = new BulkLoad();
        long t0 = System.nanoTime();
        assertEquals(0, bulkLoad(tool, name, "/bulk/seed", "--input", seed, "--input", json, "--max-rejects", "6"));
        System.out.printf("BulkLoadIT: %,d rows bulk-loaded with 3 indexes in %d ms%n", tool.rows(),
                (System.nanoTime() - t0) / 1_000_000);
        assertEquals(GENERATED + 10, tool.rows());
        assertEquals(6, tool.rejected());

        // The rejects: exactly the bad lines of the seed file, each with its reason.
        TreeMap<Integer, String> rejects = new TreeMap<>();
        for (String line : rejectLines(tool)) {
            String[] parts = line.split("\t", 4);
            assertTrue(parts[0].endsWith("seed000-export.json"), line);
            rejects.put(Integer.parseInt(parts[1]), parts[2]);
        }
        assertEquals(new TreeSet<>(Arrays.asList(6, 9, 10, 14, 15, 16)), rejects.keySet(), rejects.toString());
        assertTrue(rejects.get(6).contains("sdate") && rejects.get(6).contains("missing"), rejects.get(6));
        assertTrue(rejects.get(9).contains("code") && rejects.get(9).contains("not a number"), rejects.get(9));
        assertTrue(rejects.get(10).contains("not JSON"), rejects.get(10));
        assertTrue(rejects.get(14).contains("free") && rejects.get(14).contains("not a bool"), rejects.get(14));
        assertTrue(rejects.get(15).contains("status"), rejects.get(15));
        assertTrue(rejects.get(16).contains("not a JSON object"), rejects.get(16));

        List<Row> oracle = new ArrayList<>(seedRows());
        oracle.addAll(generated);
        assertQueriesEqual(name, oracle);
        assertIndexesVerified(name, oracle.size());
    }

    /**
     * A bulk-loaded index row is the coprocessor's: the same rows written with Puts at the load's
     * timestamp into a second table give the same data cells, and index tables whose rows hold the
     * same cells (status, covered cells with the data cell's timestamp and value); only the index
     * timestamps differ (the coprocessor's are its clock's at the write).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void bulkLoadedIndexRowsAreTheCoprocessorsOwn() throws Exception {
        TableName bulk = create("bulk_same");
        TableName live = create("live_same");
        List<Row> rows = seedRows();
        rows.addAll(generated(500, 5));
        assertEquals(0, bulkLoad(new BulkLoad(), bulk, "/bulk/same", "--input", writeJson("same.json", rows)));
        long loadTimestamp;
        try (Table t = connection().getTable(bulk); ResultScanner s = t.getScanner(new Scan())) {
            loadTimestamp = s.next().rawCells()[0].getTimestamp();
        }
        try (Table t = connection().getTable(live)) {
            List<Put> puts = new ArrayList<>();
            for (Row row : rows) {
                puts.add(new Put(schema.encode(row.fields)).addColumn(F, URL, loadTimestamp, Bytes.toBytes(row.url)));
            }
            t.put(puts);
        }
        assertEquals(cells(bulk, true), cells(live, true), "data table");
        for (RowKeyIndex index : indexes()) {
            TableName bulkIndex = RowKeyTable.indexTableName(bulk, index.name());
            assertEquals(cells(RowKeyTable.indexTableName(live, index.name()), false), cells(bulkIndex, false), index.name());
            for (String cell : cells(bulkIndex, true)) {
                assertTrue(cell.contains("/" + IndexRowFormat.loadStamp(loadTimestamp) + " = "), cell);
            }
        }
    }

    /**
     * Every cell of a table's newest row versions: row/family/qualifier[/timestamp] = value, as
     * text; all versions with timestamps.
     */
    private List<String> cells(TableName table, boolean withTimestamps) throws IOException {
        List<String> out = new ArrayList<>();
        Scan scan = withTimestamps ? new Scan().readAllVersions() : new Scan();
        try (Table t = connection().getTable(table); ResultScanner s = t.getScanner(scan)) {
            for (Result r : s) {
                for (Cell c : r.rawCells()) {
                    out.add(Bytes.toHex(CellUtil.cloneRow(c)) + "/" + Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
                            + Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + (withTimestamps ? "/" + c.getTimestamp() : "")
                            + " = " + Bytes.toStringBinary(CellUtil.cloneValue(c)));
                }
            }
        }
        return out;
    }

    /**
     * The load stopped after each step, as a kill there would leave it: after the HFiles, nothing is
     * visible; after the UNVERIFIED index rows, no query through an index returns a row (their data
     * rows are not there); after the data, every row is visible through every index (checked
     * against the data table). Running the command again with the same --work finishes the load.
     * CSV input here.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aLoadStoppedAfterAnyStepShowsNothingTheIndexesDisagreeWithAndARerunFinishesIt() throws Exception {
        List<Row> rows = generated(3_000, 7);
        String csv = writeCsv("stopped.csv", rows);
        for (BulkLoad.Step step : new BulkLoad.Step[] {BulkLoad.Step.HFILES, BulkLoad.Step.INDEXES, BulkLoad.Step.DATA}) {
            TableName name = create("bulk_stop_" + step.name().toLowerCase());
            String work = "/bulk/stop-" + step.name().toLowerCase();
            assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--format", "csv", "--input", csv,
                    "--stop-after", step.name().toLowerCase()));
            if (step == BulkLoad.Step.HFILES) {
                // The index tables' one region each, cut between reducers: HFiles of several.
                for (RowKeyIndex index : indexes()) {
                    TableName indexTable = RowKeyTable.indexTableName(name, index.name());
                    try (org.apache.hadoop.hbase.client.RegionLocator locator = connection().getRegionLocator(indexTable)) {
                        assertEquals(1, locator.getStartKeys().length, indexTable + ": regions");
                    }
                    assertTrue(hfiles(work, indexTable) > 1, indexTable + ": " + hfiles(work, indexTable) + " HFile(s)");
                }
            }
            boolean dataLoaded = step == BulkLoad.Step.DATA;
            assertQueriesEqual(name, dataLoaded ? rows : new ArrayList<Row>());
            int indexRows = count(RowKeyTable.indexTableName(name, "by_date_code"));
            assertEquals(step == BulkLoad.Step.HFILES ? 0 : rows.size(), indexRows, step + ": unverified index rows");
            try (Admin admin = connection().getAdmin()) {
                assertTrue(BulkLoad.hasWindow(admin, name), step + ": the load window stays open");
                BulkLoad other = new BulkLoad();
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> bulkLoad(other, name,
                        "/bulk/other", "--format", "csv", "--input", csv));
                assertTrue(refused.getMessage().contains("has another bulk load under way"), refused.getMessage());

                BulkLoad rerun = new BulkLoad();
                assertEquals(0, bulkLoad(rerun, name, work, "--format", "csv", "--input", csv));
                assertEquals(0, rerun.rows(), "the re-run loads the HFiles written before, no new job");
                assertFalse(BulkLoad.hasWindow(admin, name), step + ": the window closed with the load");
            }
            assertQueriesEqual(name, rows);
            assertIndexesVerified(name, rows.size());
        }
    }

    /**
     * A new table (one region, its index tables too) split by sampling the input before the load:
     * every table gets the regions asked for, each holding about an equal share of the rows.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aNewTableIsSplitAtKeysSampledFromTheInput() throws Exception {
        TableName name = create("bulk_split", new byte[0][]);
        List<Row> rows = generated(4_000, 19);
        assertEquals(0, bulkLoad(new BulkLoad(), name, "/bulk/split", "--input", writeJson("split.json", rows),
                "--split-regions", "3"));
        List<TableName> tables = new ArrayList<>();
        tables.add(name);
        for (RowKeyIndex index : indexes()) {
            tables.add(RowKeyTable.indexTableName(name, index.name()));
        }
        for (TableName table : tables) {
            byte[][] starts;
            try (org.apache.hadoop.hbase.client.RegionLocator locator = connection().getRegionLocator(table)) {
                starts = locator.getStartKeys();
            }
            assertEquals(3, starts.length, table + ": regions");
            for (int r = 0; r < starts.length; r++) {
                Scan range = new Scan().withStartRow(starts[r]);
                if (r + 1 < starts.length) {
                    range.withStopRow(starts[r + 1]);
                }
                int n = scanRowKeys(table, range).size();
                assertTrue(n > rows.size() / 6 && n < rows.size() / 2, table + " region " + r + ": " + n + " rows");
            }
        }
        assertQueriesEqual(name, rows);
    }

    /**
     * A load into a table that writers keep writing through the coprocessor (Puts and Deletes of
     * the loaded keys and of others, each at a timestamp the writer chose): afterwards each key
     * shows its newest write, bulk-loaded or live, in the data table and through every index.
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void aLoadBesideLiveWritesKeepsTheNewerWriteOfEachKeyInEveryTable() throws Exception {
        TableName name = create("bulk_live");
        List<Row> loaded = generated(5_000, 13);
        List<Row> all = new ArrayList<>(loaded);
        all.addAll(generated(6_000, 13).subList(5_000, 6_000)); // keys only the writers write
        String json = writeJson("live.json", loaded);
        // Per key (hex): the newest live write's timestamp and its URL (null: a Delete).
        Map<String, long[]> liveTs = new java.util.concurrent.ConcurrentHashMap<>();
        Map<String, String> liveUrl = new java.util.concurrent.ConcurrentHashMap<>();
        // The load's timestamp, chosen a few seconds ahead: live writes come before it and after it.
        long loadTimestamp = System.currentTimeMillis() + 8_000;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean skewedBefore = new AtomicBoolean();
        AtomicBoolean skewedAfter = new AtomicBoolean();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Integer> writer = pool.submit(() -> {
            Random random = new Random(17);
            int writes = 0;
            long last = 0;
            try (Table t = connection().getTable(name)) {
                // Writes whose two clocks straddle the load, on keys no other write touches, once its
                // window is open: a data timestamp after T made before it (the index step stamped
                // before S by the clock), then, once the clock is past T, one before T (the index
                // step stamped after S, and reading the row back perhaps before the loaded data).
                try (Admin admin = connection().getAdmin()) {
                    while (!BulkLoad.hasWindow(admin, name) || !windowOpenInEveryRegion(admin, name)) {
                        Thread.sleep(20);
                    }
                }
                for (int i = 0; i < SKEWED; i++) {
                    writeLive(t, loaded.get(i), loadTimestamp + 1 + i, i % 4 != 0, liveTs, liveUrl);
                    writes++;
                }
                skewedBefore.set(System.currentTimeMillis() < loadTimestamp);
                while (!stop.get() || last <= loadTimestamp + 1_000) {
                    if (!skewedAfter.get() && System.currentTimeMillis() > loadTimestamp) {
                        for (int i = SKEWED; i < 2 * SKEWED; i++) {
                            writeLive(t, loaded.get(i), loadTimestamp - 1 - i, i % 4 != 0, liveTs, liveUrl);
                            writes++;
                        }
                        skewedAfter.set(true);
                    }
                    Row row = all.get(2 * SKEWED + random.nextInt(all.size() - 2 * SKEWED));
                    long ts = Math.max(System.currentTimeMillis(), last + 1);
                    ts = ts == loadTimestamp ? ts + 1 : ts; // no tie with the load (see docs/bulk-load.md)
                    last = ts;
                    writeLive(t, row, ts, random.nextInt(4) != 0, liveTs, liveUrl);
                    writes++;
                }
            }
            return writes;
        });
        BulkLoad tool = new BulkLoad();
        assertEquals(0, bulkLoad(new Configuration(conf()), tool, name, "/bulk/live", "--input", json, "--timestamp",
                Long.toString(loadTimestamp)));
        stop.set(true);
        int writes = writer.get(120, TimeUnit.SECONDS);
        pool.shutdown();
        // The oracle: per key, the newer of the bulk row (at the load's timestamp) and the newest live write.
        List<Row> oracle = new ArrayList<>();
        java.util.Set<String> loadedKeys = new java.util.HashSet<>();
        for (Row row : loaded) {
            loadedKeys.add(key(row));
        }
        int before = 0;
        for (Row row : all) {
            String k = key(row);
            long[] ts = liveTs.get(k);
            boolean isLoaded = loadedKeys.contains(k);
            before += ts != null && isLoaded && ts[0] < loadTimestamp ? 1 : 0;
            if (ts != null && (!isLoaded || ts[0] > loadTimestamp)) {
                if (!liveUrl.get(k).isEmpty()) {
                    oracle.add(new Row(row.fields, liveUrl.get(k)));
                }
            } else if (isLoaded) {
                oracle.add(row);
            }
        }
        System.out.println("BulkLoadIT: " + writes + " live writes during the load; " + before
                + " loaded keys last written live before the load's timestamp");
        assertTrue(before > SKEWED, "some live writes are older than the loaded rows");
        assertTrue(skewedAfter.get(), "the writes made after T with a timestamp before it");
        assertTrue(skewedBefore.get(), "the writes made before T with a timestamp after it");
        try (Admin admin = connection().getAdmin()) {
            assertFalse(BulkLoad.hasWindow(admin, name), "the load window closed with the load");
        }
        assertQueriesEqual(name, oracle);
    }

    // ---- Exact answers beside live rows, duplicate keys, index changes and other loads ----

    /** The load window's timestamp on {@code name}, or null. */
    private String window(TableName name) throws IOException {
        try (Admin admin = connection().getAdmin()) {
            byte[] value = admin.getDescriptor(name).getValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY));
            return value == null ? null : Bytes.toString(value);
        }
    }

    /** Every row of the data table, read with the plain client: key (hex) to URL (null: none). */
    private TreeMap<String, String> dataTable(TableName name) throws IOException {
        try (Table t = connection().getTable(name)) {
            return rows(t.getScanner(new Scan()));
        }
    }

    /**
     * What covered reads through by_date_code answer for the (sdate, code) pairs of {@code rows}
     * equals what the data table holds (the table holds only keys of {@code rows}).
     */
    private void assertCoveredReadsAgreeWithDataTable(TableName name, List<Row> rows, String when) throws IOException {
        RowKeyTable table = RowKeyTable.open(connection(), name);
        TreeMap<String, String> covered = new TreeMap<>();
        java.util.Set<List<Object>> pairs = new java.util.LinkedHashSet<>();
        for (Row row : rows) {
            pairs.add(Arrays.asList(row.fields.get("sdate"), row.fields.get("code")));
        }
        for (List<Object> pair : pairs) {
            covered.putAll(rows(table.scan(RowKeyQuery.on(schema).eq("sdate", pair.get(0)).eq("code", pair.get(1))
                    .select(F, URL).useIndex("by_date_code"))));
        }
        assertSameRows(dataTable(name), covered, when + ": the data table and the covered index");
    }

    /** Two maps of key to URL are equal; else the message counts the keys that differ and shows a few. */
    private static void assertSameRows(TreeMap<String, String> expected, TreeMap<String, String> actual, String what) {
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        List<String> differ = new ArrayList<>();
        for (String k : keys) {
            if (!expected.containsKey(k) || !actual.containsKey(k) || !java.util.Objects.equals(expected.get(k), actual.get(k))) {
                differ.add((expected.containsKey(k) ? expected.get(k) : "(no row)") + " / "
                        + (actual.containsKey(k) ? actual.get(k) : "(no row)"));
            }
        }
        assertTrue(differ.isEmpty(), what + ": " + differ.size() + " of " + keys.size() + " keys differ, e.g. "
                + differ.subList(0, Math.min(3, differ.size())));
    }

    private static List<Row> withUrls(List<Row> rows, String prefix) {
        List<Row> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            out.add(new Row(rows.get(i).fields, prefix + i));
        }
        return out;
    }

    /**
     * Rows written live, then bulk-loaded with another value of a covered column: a covered read
     * after the load's index step (which may repair index rows from the data rows it reads) never
     * leaves an index row with the old value once the load has finished.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aLoadOverLiveRowsLeavesNoIndexRowWithTheirOldValues() throws Exception {
        TableName name = create("bulk_over_live");
        List<Row> keys = generated(20, 23);
        try (Table t = connection().getTable(name)) {
            for (Row row : withUrls(keys, "old-")) {
                t.put(new Put(schema.encode(row.fields)).addColumn(F, URL, Bytes.toBytes(row.url)));
            }
        }
        String json = writeJson("over-live.json", withUrls(keys, "new-"));
        String work = "/bulk/over-live";
        for (String step : new String[] {"indexes", "data"}) {
            assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json, "--stop-after", step));
            assertCoveredReadsAgreeWithDataTable(name, keys, "stopped after " + step);
        }
        assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json));
        assertSameRows(expected(withUrls(keys, "new-"), f -> true), dataTable(name), "the loaded rows / the data table");
        assertCoveredReadsAgreeWithDataTable(name, keys, "after the load");
        // Through every index (their rows of keys that had a row before the load are repaired as read).
        assertQueriesEqual(name, withUrls(keys, "new-"));
    }

    /**
     * Rows written live, then bulk-loaded from lines without a value for the covered column (but
     * with another column): a load writes the columns its lines have, so the data table keeps the
     * live value, and so must the covering index (the load's index rows, made from the lines alone,
     * say the column is absent).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aLoadedLineWithoutACoveredColumnLeavesTheLiveValueInTheIndex() throws Exception {
        TableName name = create("bulk_absent_column");
        List<Row> keys = generated(20, 53);
        try (Table t = connection().getTable(name)) {
            for (Row row : withUrls(keys, "live-")) {
                t.put(new Put(schema.encode(row.fields)).addColumn(F, URL, Bytes.toBytes(row.url)));
            }
        }
        List<Row> withoutUrl = new ArrayList<>();
        List<Row> fresh = generated(40, 53).subList(20, 40);
        for (Row row : keys) {
            withoutUrl.add(new Row(row.fields, null));
        }
        withoutUrl.addAll(fresh);
        String json = writeJson("absent-column.json", withoutUrl);
        assertEquals(0, bulkLoad(new BulkLoad(), name, "/bulk/absent-column", "--input", json, "--column",
                "f:scan=scantype:int"));
        List<Row> all = new ArrayList<>(withUrls(keys, "live-"));
        all.addAll(fresh);
        assertSameRows(expected(all, f -> true), dataTable(name), "the live URLs and the loaded ones / the data table");
        // Not read yet: the rows of the keys new to the table are VERIFIED, the others wait for a reader.
        assertEquals(Arrays.asList(40, 20), indexRowsAndVerified(name, "by_site_date"), "by_site_date: rows, verified");
        assertCoveredReadsAgreeWithDataTable(name, all, "after the load");
    }

    /**
     * The same keys in several input files and twice in one: the last line of a key by (file
     * order, line number) is its row in the data table and in every index, and the job counts the
     * lines it replaced. File order: the --input options in order, a directory's files by name.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void duplicateKeysLoadTheLastLineInTheDataTableAndEveryIndex() throws Exception {
        TableName name = create("bulk_duplicates");
        List<Row> keys = generated(500, 29);
        String first = writeJson("dup-first.json", withUrls(keys, "A-"));
        File dir = new File(local, "dup-dir");
        assertTrue(dir.mkdir());
        // Written in the directory in reverse name order: the names, not the listing, give the order.
        List<Row> second = new ArrayList<>(withUrls(keys.subList(200, 500), "C-").subList(0, 300));
        List<Row> laterInSecond = withUrls(keys.subList(450, 500), "D-");
        List<Row> secondFile = new ArrayList<>(second);
        secondFile.addAll(laterInSecond);
        writeJson("dup-dir/2.json", secondFile);
        writeJson("dup-dir/1.json", withUrls(keys.subList(0, 300), "B-"));
        BulkLoad tool = new BulkLoad();
        assertEquals(0, bulkLoad(tool, name, "/bulk/duplicates", "--input", first, "--input", dir.toURI().toString()));
        List<Row> last = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String url = i < 200 ? "B-" + i : i < 450 ? "C-" + (i - 200) : "D-" + (i - 450);
            last.add(new Row(keys.get(i).fields, url));
        }
        assertCoveredReadsAgreeWithDataTable(name, keys, "after the load");
        assertSameRows(expected(last, f -> true), dataTable(name), "each key's last line / the data table");
        assertQueriesEqual(name, last);
        assertIndexesVerified(name, keys.size());
        assertEquals(500 + 300 + 350, tool.rows());
        assertEquals(300 + 350, tool.replaced(), "lines replaced by a later line of their key");
    }

    /**
     * addIndex while a load's window is open would copy the data rows before the load's data lands
     * (and the load's HFiles hold no rows for it): refused, naming the load and how to finish it;
     * after the load it fills the index with every row.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void addIndexIsRefusedWhileALoadWindowIsOpen() throws Exception {
        TableName name = create("bulk_add_index");
        List<Row> live = generated(40, 31);
        try (Table t = connection().getTable(name)) {
            for (Row row : live) {
                t.put(new Put(schema.encode(row.fields)).addColumn(F, URL, Bytes.toBytes(row.url)));
            }
        }
        List<Row> loaded = generated(340, 31).subList(40, 340);
        String json = writeJson("add-index.json", loaded);
        String work = "/bulk/add-index";
        assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json, "--stop-after", "indexes"));
        String loadTimestamp = window(name);
        RowKeyTable table = RowKeyTable.open(connection(), name);
        RowKeyIndex byCode = RowKeyIndex.of("by_code_site", "code", "sitecode");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> table.addIndex(byCode));
        assertTrue(refused.getMessage().contains(loadTimestamp) && refused.getMessage().contains(work)
                && refused.getMessage().contains("--work"), refused.getMessage());
        try (Admin admin = connection().getAdmin()) {
            assertFalse(admin.tableExists(RowKeyTable.indexTableName(name, "by_code_site")), "no index table made");
        }
        assertEquals(indexes().size(), RowKeyTable.open(connection(), name).indexNames().size(), "the catalog unchanged");

        assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json));
        RowKeyTable after = RowKeyTable.open(connection(), name);
        after.addIndex(byCode);
        List<Row> all = new ArrayList<>(live);
        all.addAll(loaded);
        assertEquals(all.size(), count(RowKeyTable.indexTableName(name, "by_code_site")), "the new index's rows");
        for (int code : new int[] {200, 404, 503}) {
            assertEquals(expected(all, f -> f.get("code").equals(code)), rows(after.scan(RowKeyQuery.on(schema)
                    .eq("code", code).useIndex("by_code_site"))), "code = " + code + " through the new index");
        }
    }

    /**
     * A load killed while its job ran (its HFiles without _SUCCESS, its window open) is run again
     * with its --work directory: its own window does not block it; it writes its HFiles again and
     * finishes.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aKilledLoadIsRunAgainWithItsWorkDirectory() throws Exception {
        TableName name = create("bulk_killed");
        List<Row> rows = generated(300, 37);
        String json = writeJson("killed.json", rows);
        String work = "/bulk/killed";
        assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json, "--stop-after", "hfiles"));
        FileSystem fs = new Path(work).getFileSystem(conf());
        assertTrue(fs.delete(new Path(work, "hfiles/_SUCCESS"), false), "as a kill before the job's commit leaves it");
        BulkLoad rerun = new BulkLoad();
        assertEquals(0, bulkLoad(rerun, name, work, "--input", json));
        assertEquals(rows.size(), rerun.rows(), "the job ran again");
        assertEquals(null, window(name), "the window closed with the load");
        assertQueriesEqual(name, rows);
        assertIndexesVerified(name, rows.size());
    }

    /**
     * A second load given the work directory of a running one is refused before it deletes
     * anything; the running load finishes with every row.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSecondLoadNeverDestroysARunningLoadsWork() throws Exception {
        TableName name = create("bulk_running");
        List<Row> rows = generated(3_000, 41);
        String json = writeJson("running.json", rows);
        String other = writeJson("running-other.json", generated(100, 43));
        String work = "/bulk/running";
        FileSystem fs = new Path(work).getFileSystem(conf());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> first = pool.submit(() -> bulkLoad(new BulkLoad(), name, work, "--input", json));
            while (!fs.exists(new Path(work, "hfiles/_temporary")) && !first.isDone()) {
                Thread.sleep(20);
            }
            assertFalse(first.isDone(), "the first load's job is still running");
            Exception refused = assertThrows(Exception.class, () -> bulkLoad(new BulkLoad(), name, work, "--input", other));
            assertTrue(refused.getMessage().contains("is running"), refused.getMessage());
            assertEquals(0, (int) first.get(240, TimeUnit.SECONDS), "the first load");
        } finally {
            pool.shutdownNow();
        }
        assertQueriesEqual(name, rows);
        assertIndexesVerified(name, rows.size());
    }

    /**
     * A load stopped with its HFiles written holds its work directory and its window: a load with
     * other options on that directory, one with an input that does not exist, and one elsewhere at
     * the same timestamp are refused, naming why, and none of them closes its window; its own
     * re-run finishes it with its own rows.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aStoppedLoadIsFinishedOnlyByItsOwnRerun() throws Exception {
        TableName name = create("bulk_own");
        List<Row> rows = generated(300, 47);
        String json = writeJson("own.json", rows);
        String other = writeJson("own-other.json", generated(400, 47).subList(300, 400));
        String work = "/bulk/own";
        String timestamp = Long.toString(System.currentTimeMillis() + 5_000);
        assertEquals(0, bulkLoad(new BulkLoad(), name, work, "--input", json, "--timestamp", timestamp,
                "--stop-after", "hfiles"));
        assertEquals(timestamp, window(name));

        Exception otherOptions = assertThrows(Exception.class, () -> bulkLoad(new BulkLoad(), name, work, "--input", other,
                "--timestamp", timestamp));
        assertTrue(otherOptions.getMessage().contains("holds another bulk load") && otherOptions.getMessage().contains(json),
                otherOptions.getMessage());
        Exception missing = assertThrows(Exception.class, () -> bulkLoad(new BulkLoad(), name, work, "--input",
                json + ".missing", "--timestamp", timestamp));
        assertTrue(missing.getMessage().contains(json + ".missing") && missing.getMessage().contains("does not exist"),
                missing.getMessage());
        BulkLoad elsewhere = new BulkLoad();
        Exception sameTimestamp = assertThrows(Exception.class, () -> bulkLoad(elsewhere, name, "/bulk/own-elsewhere",
                "--input", other, "--timestamp", timestamp, "--max-rejects", "0"));
        assertTrue(sameTimestamp.getMessage().contains("has another bulk load under way")
                && sameTimestamp.getMessage().contains(work), sameTimestamp.getMessage());
        assertEquals(timestamp, window(name), "the stopped load's window is still open");
        assertEquals(0, count(name), "nothing loaded meanwhile");

        BulkLoad rerun = new BulkLoad();
        assertEquals(0, bulkLoad(rerun, name, work, "--input", json, "--timestamp", timestamp));
        assertEquals(0, rerun.rows(), "the re-run loads the HFiles written before");
        assertEquals(null, window(name));
        assertQueriesEqual(name, rows);
        assertIndexesVerified(name, rows.size());
    }

    /**
     * The load window is opened under the table's catalog lease, as addIndex and dropIndex change
     * the catalog (issue 35): before, a load opened its window whatever lease another client held,
     * and a catalog change at that moment and the window could undo each other.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aLoadOpensItsWindowUnderTheCatalogLease() throws Exception {
        TableName name = create("bulk_lease");
        List<Row> rows = generated(200, 17);
        String json = writeJson("lease.json", rows);
        long expiry = System.currentTimeMillis() + 5_000;
        try (Table locks = CatalogLock.lockTable(connection())) {
            locks.put(new Put(Bytes.toBytes(name.getNameAsString())).addColumn(CatalogLock.FAMILY, CatalogLock.LEASE,
                    CatalogLock.leaseValue(expiry, "client 999@gone 0badf00d: addIndex 'by_x': ACTIVE")));
        }
        Configuration impatient = new Configuration(conf());
        impatient.setLong(CatalogLock.WAIT_MS_KEY, 500);
        Exception held = assertThrows(Exception.class, () -> ToolRunner.run(impatient, new BulkLoad(), new String[] {"--table",
                name.getNameAsString(), "--work", "/bulk/lease", "--column", "f:url=url", "--quiet", "--input", json}));
        assertTrue(held.getMessage().contains("catalog is being changed by client 999@gone 0badf00d: addIndex 'by_x': ACTIVE"),
                held.getMessage());
        assertEquals(null, window(name), "no window opened beside the lease");
        long t0 = System.currentTimeMillis();
        assertEquals(0, bulkLoad(new BulkLoad(), name, "/bulk/lease", "--input", json));
        assertTrue(System.currentTimeMillis() - t0 >= expiry - t0 - 100, "the load waited for the lease to expire");
        assertEquals(null, window(name));
        assertEquals(rows.size(), count(name));
    }
}
