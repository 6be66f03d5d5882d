package org.rowkey.hbase;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.hbase.mapreduce.TableSplit;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * Verifies a table's indexes against its data rows, and with {@code --repair} mends what differs:
 * a MapReduce job (the cluster's YARN, or the LocalJobRunner) whose mappers read the data table and
 * every index table verified, region by region, and whose reducers meet each index key's two sides,
 * the index row and the one its data row says it should be (docs/operations.md, "Verify").
 *
 * <p>A difference is counted only once the rows read again agree on it: the data row (probed, so a
 * write between its index steps shows), then the index row, then the data row once more. A write
 * that changed either meanwhile is counted as in flight, never as a difference: every write of a
 * data row changes it, or is in flight, between the two data reads. A repair is written under the
 * same condition readers' repairs are ({@link IndexRowRepair}): only while the status read is still
 * the row's, and at that status's own timestamp (or, for a row the index lacks, only while it has
 * none), so that any later write of the row, with its later stamp, wins.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class IndexVerify {
    private IndexVerify() {}

    private static final String CATALOG = "rowkey.verify.catalog";
    private static final String TABLE = "rowkey.verify.table";
    private static final String INDEXES = "rowkey.verify.indexes";
    private static final String REPAIR = "rowkey.verify.repair";
    private static final String SAMPLES = "rowkey.verify.samples";
    /** Rows per scanner round trip, and the differences read again together. */
    private static final int CACHING = 1000;
    private static final int RECHECK_BATCH = 256;
    /** The counter group of the data table's rows; each index has its own ({@link #group}). */
    private static final String DATA_GROUP = "hbase-rowkey verify: data table";
    /** The key of a data row that is no key of the schema: no index number is 255. */
    private static final byte NOT_OF_SCHEMA = (byte) 0xFF;

    /** What an index row is, against its data row. */
    enum Kind {
        /** VERIFIED and the data row's copy: right. */
        VERIFIED(false),
        /** EXPIRING (its data row has cells of their own TTL): never trusted by readers, so never wrong. */
        EXPIRING(false),
        /** A write of the row was under way while it was read: neither right nor wrong yet. */
        IN_FLIGHT(false),
        /** The data row exists, the index has no row for it (or a STALE one, which readers skip). */
        MISSING(true),
        /** A VERIFIED index row (or one without a status) whose data row does not exist. */
        EXTRA(true),
        /** VERIFIED, but its covered cells are not the data row's. */
        COVERED_DIFFER(true),
        /** UNVERIFIED past any write in flight: a write that failed; readers mend it one row at a time. */
        UNVERIFIED(true),
        /** STALE: a failed write's row readers skip, left in the table. */
        STALE(true),
        /** A row of the index table the index could not have written (a wrong length or salt byte). */
        MALFORMED(true);

        final boolean difference;

        Kind(boolean difference) {
            this.difference = difference;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The counter group of index {@code name}. */
    static String group(String name) {
        return "hbase-rowkey verify: index " + name;
    }

    /** What {@code RowKeyCli verify} asked for. */
    static final class Request {
        final TableName table;
        /** The index to verify; null: every ACTIVE one. */
        final String index;
        final boolean repair;
        /** Sample keys reported of each kind of each index. */
        final int samples;

        Request(TableName table, String index, boolean repair, int samples) {
            this.table = table;
            this.index = index;
            this.repair = repair;
            this.samples = samples;
        }
    }

    /**
     * The index numbers {@code request} verifies in {@code catalog}: the one it names, or every
     * ACTIVE one.
     *
     * @throws IllegalArgumentException for an index the table does not have, or one not ACTIVE
     */
    static List<Integer> indexesOf(Catalog catalog, Request request) {
        List<Integer> out = new ArrayList<>();
        List<IndexSpec> indexes = catalog.indexes();
        for (int i = 0; i < indexes.size(); i++) {
            IndexSpec spec = indexes.get(i);
            if (request.index != null && !spec.getName().equals(request.index)) {
                continue;
            }
            if (spec.getState() != IndexState.ACTIVE) {
                if (request.index != null) {
                    throw new IllegalArgumentException("index " + spec.getName() + " of " + request.table + " is "
                            + spec.getState() + ": only an ACTIVE index is verified (a BUILDING one is still being"
                            + " filled; a DROPPING one is going)");
                }
                continue;
            }
            out.add(i);
        }
        if (request.index != null && out.isEmpty()) {
            List<String> names = new ArrayList<>();
            indexes.forEach(s -> names.add(s.getName()));
            throw new IllegalArgumentException("table " + request.table + " has no index " + request.index
                    + (names.isEmpty() ? " (it has none)" : " (its indexes: " + String.join(", ", names) + ")"));
        }
        return out;
    }

    /**
     * Runs the job over {@code catalog}'s table and {@code indexes}; progress lines on {@code progress}
     * (null: none). The report's counts are the job's counters.
     */
    static Report run(Connection connection, Catalog catalog, List<Integer> indexes, Request request, PrintStream progress)
            throws IOException {
        Configuration conf = new Configuration(connection.getConfiguration());
        Job job = Job.getInstance(conf, "hbase-rowkey verify" + (request.repair ? " and repair" : "") + " of " + request.table);
        Configuration jc = job.getConfiguration();
        jc.set(CATALOG, Base64.getEncoder().encodeToString(catalog.toByteArray()));
        jc.set(TABLE, request.table.getNameAsString());
        List<String> numbers = new ArrayList<>();
        indexes.forEach(i -> numbers.add(Integer.toString(i)));
        jc.set(INDEXES, String.join(",", numbers));
        jc.setBoolean(REPAIR, request.repair);
        jc.setInt(SAMPLES, request.samples);
        int reducers;
        if ("local".equals(jc.get("mapreduce.framework.name", "local"))) {
            // The LocalJobRunner runs one task at a time unless told.
            int cores = Runtime.getRuntime().availableProcessors();
            jc.setInt("mapreduce.local.map.tasks.maximum", cores);
            jc.setInt("mapreduce.local.reduce.tasks.maximum", cores);
            reducers = cores;
        } else {
            reducers = 0;
            for (int i : indexes) {
                try (RegionLocator l = connection.getRegionLocator(indexTable(request.table, catalog, i))) {
                    reducers += l.getStartKeys().length;
                }
            }
        }
        job.setNumReduceTasks(Math.max(1, Math.min(reducers, 256)));
        job.setJarByClass(IndexVerify.class);

        List<Scan> scans = new ArrayList<>();
        scans.add(ofTable(IndexRowFormat.probeScan(CACHING), request.table));
        for (int i : indexes) {
            scans.add(ofTable(new Scan().setCaching(CACHING).setCacheBlocks(false), indexTable(request.table, catalog, i)));
        }
        TableMapReduceUtil.initTableMapperJob(scans, SideMapper.class, ImmutableBytesWritable.class, BytesWritable.class, job);
        job.setReducerClass(CompareReducer.class);
        job.setOutputFormatClass(TextOutputFormat.class);
        job.setOutputKeyClass(NullWritable.class);
        job.setOutputValueClass(Text.class);
        Path samples = new Path(jc.get("hadoop.tmp.dir", "/tmp"), "hbase-rowkey-verify-" + UUID.randomUUID());
        FileOutputFormat.setOutputPath(job, samples);
        FileSystem fs = samples.getFileSystem(jc);
        long start = System.nanoTime();
        try {
            job.submit();
            long pollMillis = "local".equals(jc.get("mapreduce.framework.name", "local")) ? 50 : 1000;
            int lastTenth = -1;
            while (!job.isComplete()) {
                int tenth = (int) ((job.mapProgress() + job.reduceProgress()) * 5);
                if (progress != null && tenth != lastTenth) {
                    lastTenth = tenth;
                    progress.printf(Locale.ROOT, "verify: map %3.0f%% reduce %3.0f%% %5.1f s%n", job.mapProgress() * 100,
                            job.reduceProgress() * 100, (System.nanoTime() - start) / 1e9);
                }
                Thread.sleep(pollMillis);
            }
            if (!job.isSuccessful()) {
                throw new IOException("the verify job of " + request.table + " failed: " + job.getStatus().getFailureInfo());
            }
            return Report.of(catalog, indexes, request, job.getCounters(), readSamples(fs, samples, request.samples),
                    (System.nanoTime() - start) / 1e9);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the verify job of " + request.table + " ran", e);
        } catch (ClassNotFoundException e) {
            throw new IOException("the verify job of " + request.table + " could not start", e);
        } finally {
            fs.delete(samples, true);
        }
    }

    private static TableName indexTable(TableName table, Catalog catalog, int index) {
        return IndexRowFormat.indexTableName(table, catalog.indexes().get(index).getName());
    }

    /** {@code scan} of {@code table} (MultiTableInputFormat's attribute). */
    private static Scan ofTable(Scan scan, TableName table) {
        scan.setAttribute(Scan.SCAN_ATTRIBUTES_TABLE_NAME, table.getName());
        return scan;
    }

    /** The sample lines the reducers wrote, at most {@code perKind} of each index and kind. */
    private static List<Map<String, Object>> readSamples(FileSystem fs, Path dir, int perKind) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        if (!fs.exists(dir)) {
            return out;
        }
        for (FileStatus f : fs.listStatus(dir)) {
            if (!f.getPath().getName().startsWith("part-")) {
                continue;
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null;) {
                    String[] p = line.split("\t");
                    String kindOf = p[0] + "\t" + p[1];
                    int n = seen.merge(kindOf, 1, Integer::sum);
                    if (n <= perKind) {
                        Map<String, Object> sample = new LinkedHashMap<>();
                        sample.put("index", p[0]);
                        sample.put("kind", p[1]);
                        sample.put("key", p[2]);
                        sample.put("data_key", p[3]);
                        sample.put("repaired", Boolean.parseBoolean(p[4]));
                        out.add(sample);
                    }
                }
            }
        }
        return out;
    }

    /** One side of an index key, as a mapper or a re-read saw it. */
    static final class Side {
        static final byte DATA = 'D';
        static final byte INDEX = 'I';
        static final byte MALFORMED = 'M';

        final byte kind;
        /** The data row's key (a data side, or a well-formed index row's). */
        final byte[] dataKey;
        /** A data side: the probe's reasons. An index side: the status (null: none). */
        final int probe;
        final byte[] status;
        final long statusStamp;
        /** The covered cells it says the data row has, digested. */
        final byte[] covered;
        /** The newest timestamp of an index row's cells. */
        final long newest;

        private Side(byte kind, byte[] dataKey, int probe, byte[] status, long statusStamp, byte[] covered, long newest) {
            this.kind = kind;
            this.dataKey = dataKey;
            this.probe = probe;
            this.status = status;
            this.statusStamp = statusStamp;
            this.covered = covered;
            this.newest = newest;
        }

        /** A data row read with {@link IndexRowFormat#DATA_ROW_PROBE}; null when it does not exist. */
        static Side data(byte[] dataKey, Result probed, IndexCoverage coverage) {
            Result row = IndexRowFormat.withoutProbeMarker(probed);
            if (row.isEmpty()) {
                return IndexRowFormat.inFlight(probed) ? new Side(DATA, dataKey, IndexRowFormat.PROBE_IN_FLIGHT, null, 0, new byte[0], 0)
                        : null;
            }
            List<Cell> covered = new ArrayList<>();
            Cell previous = null;
            for (Cell c : row.rawCells()) {
                boolean newest = previous == null || !CellUtil.matchingColumn(c, previous);
                previous = c;
                if (newest && coverage.covers(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c))) {
                    covered.add(c);
                }
            }
            return new Side(DATA, dataKey, IndexRowFormat.probed(probed), null, 0, digest(covered), 0);
        }

        /** An index row of an index whose data key is {@code dataKey} (null: malformed); null when it does not exist. */
        static Side index(byte[] dataKey, Result row, IndexCoverage coverage) {
            if (row == null || row.isEmpty()) {
                return null;
            }
            long newest = 0;
            for (Cell c : row.rawCells()) {
                newest = Math.max(newest, c.getTimestamp());
            }
            if (dataKey == null) {
                return new Side(MALFORMED, null, 0, null, 0, new byte[0], newest);
            }
            Cell status = IndexRowFormat.status(row);
            byte[] covered = status == null ? new byte[0] : digest(coverage.dataCells(row, status, dataKey));
            return new Side(INDEX, dataKey, 0, status == null ? null : CellUtil.cloneValue(status),
                    status == null ? 0 : status.getTimestamp(), covered, newest);
        }

        boolean inFlight() {
            return kind == DATA && (probe & IndexRowFormat.PROBE_IN_FLIGHT) != 0;
        }

        byte[] toBytes() throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(kind);
            writeBytes(out, dataKey);
            out.writeInt(probe);
            writeBytes(out, status);
            out.writeLong(statusStamp);
            writeBytes(out, covered);
            out.writeLong(newest);
            return bytes.toByteArray();
        }

        static Side parse(byte[] bytes, int length) throws IOException {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes, 0, length));
            byte kind = in.readByte();
            byte[] dataKey = readBytes(in);
            int probe = in.readInt();
            byte[] status = readBytes(in);
            long stamp = in.readLong();
            byte[] covered = readBytes(in);
            return new Side(kind, dataKey, probe, status, stamp, covered, in.readLong());
        }

        private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
            out.writeInt(b == null ? -1 : b.length);
            if (b != null) {
                out.write(b);
            }
        }

        private static byte[] readBytes(DataInputStream in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                return null;
            }
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }
    }

    /** The MD5 of cells' columns, timestamps and values, in the order given (a row's). */
    static byte[] digest(List<Cell> cells) {
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
        for (Cell c : cells) {
            for (byte[] part : new byte[][] {CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c), CellUtil.cloneValue(c)}) {
                md5.update(Bytes.toBytes(part.length));
                md5.update(part);
            }
            md5.update(Bytes.toBytes(c.getTimestamp()));
        }
        return md5.digest();
    }

    /**
     * What index row {@code index} is against data row {@code data} (each null when it does not
     * exist), at {@code nowMillis}: an UNVERIFIED row without a data row younger than
     * {@code graceMillis} may be a write whose data is yet to land.
     */
    static Kind classify(Side data, Side index, long nowMillis, long graceMillis) {
        if (index != null && index.kind == Side.MALFORMED) {
            return Kind.MALFORMED;
        }
        if (data != null && data.inFlight()) {
            return Kind.IN_FLIGHT;
        }
        if (index == null) {
            return data == null ? Kind.IN_FLIGHT : Kind.MISSING; // both gone: deleted while read
        }
        byte[] s = index.status;
        byte status = s == null || s.length == 0 ? 0 : s[0];
        if (data == null) {
            if (status == IndexRowFormat.STALE[0]) {
                return Kind.STALE;
            }
            if (status == IndexRowFormat.UNVERIFIED || status == IndexRowFormat.EXPIRING) {
                long since = IndexRowFormat.unverifiedSince(s);
                return since >= 0 && nowMillis - since <= graceMillis ? Kind.IN_FLIGHT : Kind.UNVERIFIED;
            }
            return Kind.EXTRA;
        }
        if (s == null || status == IndexRowFormat.STALE[0]) {
            return Kind.MISSING; // no reader takes such a row for its data row
        }
        if (status == IndexRowFormat.EXPIRING) {
            return Kind.EXPIRING;
        }
        if (status == IndexRowFormat.UNVERIFIED) {
            return Kind.UNVERIFIED;
        }
        if (Arrays.equals(s, IndexRowFormat.VERIFIED)) {
            return Arrays.equals(data.covered, index.covered) ? Kind.VERIFIED : Kind.COVERED_DIFFER;
        }
        return Kind.MISSING; // a status no writer writes: readers do not trust it
    }

    /**
     * Reads both tables region by region: a data row gives, for each index verified, its index key
     * and what that index row must say; an index row, what it says.
     */
    public static final class SideMapper extends TableMapper<ImmutableBytesWritable, BytesWritable> {
        private Catalog catalog;
        private List<Integer> indexes;
        private Map<TableName, Integer> indexOfTable;
        private TableName data;

        @Override
        protected void setup(Context context) {
            Configuration c = context.getConfiguration();
            catalog = Catalog.parse(Base64.getDecoder().decode(c.get(CATALOG)));
            data = TableName.valueOf(c.get(TABLE));
            indexes = new ArrayList<>();
            indexOfTable = new LinkedHashMap<>();
            for (String n : c.get(INDEXES).split(",")) {
                int i = Integer.parseInt(n);
                indexes.add(i);
                indexOfTable.put(indexTable(data, catalog, i), i);
            }
        }

        @Override
        protected void map(ImmutableBytesWritable key, Result row, Context context) throws IOException, InterruptedException {
            TableName table = ((TableSplit) context.getInputSplit()).getTable();
            byte[] rowKey = row.getRow();
            if (table.equals(data)) {
                context.getCounter(DATA_GROUP, "rows").increment(1);
                for (int i : indexes) {
                    byte[] indexKey;
                    try {
                        indexKey = catalog.indexKey(i, rowKey);
                    } catch (IllegalArgumentException notOfSchema) {
                        context.write(new ImmutableBytesWritable(Bytes.add(new byte[] {NOT_OF_SCHEMA}, rowKey)),
                                new BytesWritable(new byte[0]));
                        return;
                    }
                    Side side = Side.data(rowKey, row, catalog.coverage(i));
                    if (side != null) {
                        context.write(new ImmutableBytesWritable(Bytes.add(new byte[] {(byte) i}, indexKey)),
                                new BytesWritable(side.toBytes()));
                    }
                }
                return;
            }
            int i = indexOfTable.get(table);
            Side side = Side.index(catalog.dataKeyOrNull(i, rowKey), row, catalog.coverage(i));
            if (side != null) {
                context.write(new ImmutableBytesWritable(Bytes.add(new byte[] {(byte) i}, rowKey)), new BytesWritable(side.toBytes()));
            }
        }
    }

    /**
     * Meets the two sides of each index key; reads a difference's rows again before it counts, and
     * with repair on, mends it. Writes a bounded number of sample lines per index and kind.
     */
    public static final class CompareReducer extends Reducer<ImmutableBytesWritable, BytesWritable, NullWritable, Text> {
        private Catalog catalog;
        private TableName data;
        private boolean repair;
        private int samplesPerKind;
        private long graceMillis;
        private Connection connection;
        private Table dataTable;
        private final Map<Integer, Table> indexTables = new LinkedHashMap<>();
        private final Map<Integer, IndexRowRepair> repairs = new LinkedHashMap<>();
        private final Map<Integer, Map<Kind, Integer>> sampled = new LinkedHashMap<>();
        private final List<byte[]> pending = new ArrayList<>();
        private int notOfSchemaSampled;

        @Override
        protected void setup(Context context) throws IOException {
            Configuration c = context.getConfiguration();
            catalog = Catalog.parse(Base64.getDecoder().decode(c.get(CATALOG)));
            data = TableName.valueOf(c.get(TABLE));
            repair = c.getBoolean(REPAIR, false);
            samplesPerKind = c.getInt(SAMPLES, 10);
            graceMillis = c.getLong(IndexRowRepair.STALE_GRACE_KEY, IndexRowRepair.STALE_GRACE_DEFAULT);
            connection = ConnectionFactory.createConnection(c);
            dataTable = connection.getTable(data);
        }

        @Override
        protected void reduce(ImmutableBytesWritable key, Iterable<BytesWritable> values, Context context)
                throws IOException, InterruptedException {
            byte[] k = key.copyBytes();
            if (k[0] == NOT_OF_SCHEMA) {
                context.getCounter(DATA_GROUP, "not_of_schema").increment(1);
                if (notOfSchemaSampled++ < samplesPerKind) {
                    context.write(NullWritable.get(), new Text("(data table)\tnot_of_schema\t-\t"
                            + Bytes.toHex(Arrays.copyOfRange(k, 1, k.length)) + "\tfalse"));
                }
                return;
            }
            Side dataSide = null;
            Side indexSide = null;
            for (BytesWritable v : values) {
                Side s = Side.parse(v.getBytes(), v.getLength());
                if (s.kind == Side.DATA) {
                    dataSide = s;
                } else {
                    indexSide = s;
                }
            }
            int index = k[0] & 0xFF;
            Kind kind = classify(dataSide, indexSide, System.currentTimeMillis(), graceMillis);
            if (kind == Kind.VERIFIED || kind == Kind.EXPIRING) {
                count(context, index, kind);
                return;
            }
            if (kind == Kind.MALFORMED) {
                // No writer of the index writes such a key: nothing to read again, nothing to race.
                byte[] indexKey = Arrays.copyOfRange(k, 1, k.length);
                boolean repaired = repair && mend(index, indexKey, null, null, null, indexSide.newest, Kind.MALFORMED);
                settled(context, index, indexKey, null, Kind.MALFORMED, repaired);
                return;
            }
            pending.add(k);
            if (pending.size() >= RECHECK_BATCH) {
                recheck(context);
            }
        }

        /** Reads the pending keys' rows again (data, index, data) and counts (and mends) what they show. */
        private void recheck(Context context) throws IOException, InterruptedException {
            List<Get> dataGets = new ArrayList<>();
            Map<Integer, List<Get>> indexGets = new LinkedHashMap<>();
            List<byte[]> dataKeys = new ArrayList<>();
            for (byte[] k : pending) {
                int index = k[0] & 0xFF;
                byte[] indexKey = Arrays.copyOfRange(k, 1, k.length);
                byte[] dataKey = catalog.dataKey(index, indexKey);
                dataKeys.add(dataKey);
                dataGets.add(IndexRowFormat.probe(dataKey));
                indexGets.computeIfAbsent(index, i -> new ArrayList<>()).add(new Get(indexKey));
            }
            Result[] before = dataTable.get(dataGets);
            Map<Integer, Result[]> indexRows = new LinkedHashMap<>();
            for (Map.Entry<Integer, List<Get>> e : indexGets.entrySet()) {
                indexRows.put(e.getKey(), indexTable(e.getKey()).get(e.getValue()));
            }
            Result[] after = dataTable.get(dataGets);
            Map<Integer, Integer> taken = new LinkedHashMap<>();
            for (int p = 0; p < pending.size(); p++) {
                byte[] k = pending.get(p);
                int index = k[0] & 0xFF;
                byte[] indexKey = Arrays.copyOfRange(k, 1, k.length);
                Result indexRow = indexRows.get(index)[taken.merge(index, 1, Integer::sum) - 1];
                IndexCoverage coverage = catalog.coverage(index);
                Side d = Side.data(dataKeys.get(p), before[p], coverage);
                Side i = Side.index(dataKeys.get(p), indexRow, coverage);
                Kind kind = classify(d, i, System.currentTimeMillis(), graceMillis);
                if (!sameRow(before[p], after[p]) || IndexRowFormat.inFlight(after[p])) {
                    kind = Kind.IN_FLIGHT; // a write of the data row between the reads
                }
                if (kind == Kind.VERIFIED || kind == Kind.EXPIRING) {
                    kind = Kind.IN_FLIGHT; // written since the first read: right now
                }
                boolean repaired = repair && kind.difference
                        && mend(index, indexKey, i, before[p], indexRow, i == null ? 0 : i.newest, kind);
                settled(context, index, indexKey, dataKeys.get(p), kind, repaired);
            }
            pending.clear();
        }

        /**
         * Writes the repair of a difference of {@code kind}, from the rows read again; whether it was
         * written (its condition held). {@code probed}: the data row; {@code indexRow}: the index row.
         */
        private boolean mend(int index, byte[] indexKey, Side side, Result probed, Result indexRow, long newest, Kind kind)
                throws IOException {
            Table table = indexTable(index);
            IndexCoverage coverage = catalog.coverage(index);
            switch (kind) {
                case MALFORMED:
                    table.delete(new Delete(indexKey, newest));
                    return true;
                case MISSING:
                    if (side == null || side.status == null) {
                        // No status: write the copy only while there is none, above whatever the row
                        // holds (a delete marker among it), below any live write's stamp.
                        long stamp = Math.max(IndexRowFormat.JOB_TIMESTAMP, newestRaw(table, indexKey) + 1);
                        Put put = IndexRowFormat.wholeRow(indexKey, stamp, IndexRowRepair.copiedStatus(stamp, probed), coverage,
                                IndexRowFormat.withoutProbeMarker(probed));
                        return table.checkAndMutate(CheckAndMutate.newBuilder(indexKey)
                                .ifNotExists(IndexRowFormat.FAMILY, IndexRowFormat.STATUS).build(tagged(put))).isSuccess();
                    }
                    return rewrite(table, indexKey, side, probed, indexRow, coverage);
                case COVERED_DIFFER:
                    return rewrite(table, indexKey, side, probed, indexRow, coverage);
                case UNVERIFIED:
                    if (!IndexRowFormat.withoutProbeMarker(probed).isEmpty()) {
                        Cell status = IndexRowFormat.status(indexRow);
                        java.util.Optional<CheckAndMutate> settle = repair(index).settle(indexKey, status, probed);
                        if (settle.isPresent()) {
                            tagged((org.apache.hadoop.hbase.client.Mutation) settle.get().getAction());
                        }
                        return settle.isPresent() && table.checkAndMutate(settle.get()).isSuccess();
                    }
                    return remove(table, indexKey, side);
                case EXTRA:
                    if (side.status == null) {
                        return table.checkAndMutate(CheckAndMutate.newBuilder(indexKey)
                                .ifNotExists(IndexRowFormat.FAMILY, IndexRowFormat.STATUS).build(tagged(new Delete(indexKey, newest))))
                                .isSuccess();
                    }
                    return remove(table, indexKey, side);
                case STALE:
                    return remove(table, indexKey, side);
                default:
                    return false;
            }
        }

        /**
         * The index row rewritten as its data row's copy at its status's own timestamp, only while the
         * status is the one read: covered cells of that timestamp the copy does not hold are deleted
         * (readers take a covered family's cells at the status's timestamp).
         */
        private boolean rewrite(Table table, byte[] indexKey, Side side, Result probed, Result indexRow, IndexCoverage coverage)
                throws IOException {
            long stamp = side.statusStamp;
            Put put = IndexRowFormat.wholeRow(indexKey, stamp, IndexRowRepair.copiedStatus(stamp, probed), coverage,
                    IndexRowFormat.withoutProbeMarker(probed));
            RowMutations mutations = new RowMutations(indexKey);
            Delete leftovers = new Delete(indexKey);
            for (Cell c : indexRow.rawCells()) {
                if (c.getTimestamp() == stamp && !put.has(IndexRowFormat.FAMILY, CellUtil.cloneQualifier(c))) {
                    leftovers.addColumn(IndexRowFormat.FAMILY, CellUtil.cloneQualifier(c), stamp);
                }
            }
            if (!leftovers.isEmpty()) {
                mutations.add(tagged(leftovers));
            }
            mutations.add(tagged(put));
            return table.checkAndMutate(CheckAndMutate.newBuilder(indexKey)
                    .ifEquals(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, side.status).build(mutations)).isSuccess();
        }

        /** The index row deleted up to its status's timestamp, only while the status is the one read. */
        private static boolean remove(Table table, byte[] indexKey, Side side) throws IOException {
            return table.checkAndMutate(CheckAndMutate.newBuilder(indexKey)
                    .ifEquals(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, side.status)
                    .build(tagged(new Delete(indexKey, side.statusStamp)))).isSuccess();
        }

        /** A repair's write, told apart in the index table's metrics ({@link IndexRowFormat#SETTLING}). */
        private static <M extends org.apache.hadoop.hbase.client.Mutation> M tagged(M write) {
            return IndexRowRepair.settling(write, IndexRowFormat.REPAIRED_BY_VERIFY);
        }

        /** The newest timestamp of the row's cells and delete markers. */
        private static long newestRaw(Table table, byte[] row) throws IOException {
            long newest = 0;
            Scan scan = new Scan().withStartRow(row).withStopRow(row, true).setRaw(true).readAllVersions();
            try (ResultScanner rows = table.getScanner(scan)) {
                for (Result r : rows) {
                    for (Cell c : r.rawCells()) {
                        newest = Math.max(newest, c.getTimestamp());
                    }
                }
            }
            return newest;
        }

        private void settled(Context context, int index, byte[] indexKey, byte[] dataKey, Kind kind, boolean repaired)
                throws IOException, InterruptedException {
            count(context, index, kind);
            if (repaired) {
                context.getCounter(group(name(index)), "repaired").increment(1);
            }
            if (kind.difference && sampled.computeIfAbsent(index, i -> new EnumMap<>(Kind.class)).merge(kind, 1, Integer::sum) <= samplesPerKind) {
                context.write(NullWritable.get(), new Text(name(index) + "\t" + kind.label() + "\t" + Bytes.toHex(indexKey) + "\t"
                        + (dataKey == null ? "-" : Bytes.toHex(dataKey)) + "\t" + repaired));
            }
        }

        private void count(Context context, int index, Kind kind) {
            context.getCounter(group(name(index)), kind.label()).increment(1);
        }

        private String name(int index) {
            return catalog.indexes().get(index).getName();
        }

        private Table indexTable(int index) throws IOException {
            Table t = indexTables.get(index);
            if (t == null) {
                t = connection.getTable(IndexVerify.indexTable(data, catalog, index));
                indexTables.put(index, t);
            }
            return t;
        }

        private IndexRowRepair repair(int index) {
            return repairs.computeIfAbsent(index, i -> new IndexRowRepair(catalog.coverage(i), connection.getConfiguration()));
        }

        @Override
        protected void cleanup(Context context) throws IOException, InterruptedException {
            try {
                if (!pending.isEmpty()) {
                    recheck(context);
                }
            } finally {
                for (Table t : indexTables.values()) {
                    t.close();
                }
                dataTable.close();
                connection.close();
            }
        }
    }

    /** Whether two reads of a data row found the same cells (a write between them changes some). */
    static boolean sameRow(Result a, Result b) {
        Cell[] x = IndexRowFormat.withoutProbeMarker(a).rawCells();
        Cell[] y = IndexRowFormat.withoutProbeMarker(b).rawCells();
        x = x == null ? new Cell[0] : x;
        y = y == null ? new Cell[0] : y;
        return Arrays.equals(digest(Arrays.asList(x)), digest(Arrays.asList(y)));
    }

    /** What a verify found: per index, each kind's count and the rows repaired; sample keys. */
    static final class Report {
        final Map<String, Object> report;

        private Report(Map<String, Object> report) {
            this.report = report;
        }

        static Report of(Catalog catalog, List<Integer> indexes, Request request, Counters counters,
                List<Map<String, Object>> samples, double seconds) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("table", request.table.getNameAsString());
            r.put("repair", request.repair);
            r.put("seconds", Math.round(seconds * 10) / 10.0);
            Map<String, Object> dataRows = new LinkedHashMap<>();
            CounterGroup dataGroup = counters.getGroup(DATA_GROUP);
            dataRows.put("rows", value(dataGroup, "rows"));
            dataRows.put("not_of_schema", value(dataGroup, "not_of_schema"));
            r.put("data_table", dataRows);
            long differences = 0;
            List<Object> perIndex = new ArrayList<>();
            for (int i : indexes) {
                String name = catalog.indexes().get(i).getName();
                CounterGroup g = counters.getGroup(group(name));
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("index", name);
                long checked = 0;
                long different = 0;
                Map<String, Object> kinds = new LinkedHashMap<>();
                for (Kind k : Kind.values()) {
                    long n = value(g, k.label());
                    kinds.put(k.label(), n);
                    checked += n;
                    different += k.difference ? n : 0;
                }
                m.put("checked", checked);
                m.put("differences", different);
                m.putAll(kinds);
                m.put("repaired", value(g, "repaired"));
                perIndex.add(m);
                differences += different;
            }
            r.put("indexes", perIndex);
            r.put("differences", differences);
            r.put("samples", samples);
            return new Report(r);
        }

        private static long value(CounterGroup g, String name) {
            for (Counter c : g) {
                if (c.getName().equals(name)) {
                    return c.getValue();
                }
            }
            return 0;
        }

        /** Differences found (repaired or not) over every index verified. */
        long differences() {
            return (Long) report.get("differences");
        }

        /** The count of {@code kind} in index {@code name} (for tests and scripts). */
        @SuppressWarnings("unchecked")
        long count(String name, String kind) {
            for (Object o : (List<Object>) report.get("indexes")) {
                Map<String, Object> m = (Map<String, Object>) o;
                if (m.get("index").equals(name)) {
                    return (Long) m.get(kind);
                }
            }
            throw new IllegalArgumentException("no index " + name + " in the report");
        }

        String toJson() {
            return Json.of(report);
        }

        @SuppressWarnings("unchecked")
        String toText() {
            StringBuilder b = new StringBuilder();
            Map<String, Object> d = (Map<String, Object>) report.get("data_table");
            b.append("verify").append((Boolean) report.get("repair") ? " and repair" : "").append(" of ").append(report.get("table"))
                    .append(": ").append(d.get("rows")).append(" data rows (").append(d.get("not_of_schema"))
                    .append(" not of the schema) in ").append(report.get("seconds")).append(" s\n");
            for (Object o : (List<Object>) report.get("indexes")) {
                Map<String, Object> m = (Map<String, Object>) o;
                b.append("  index ").append(m.get("index")).append(": ").append(m.get("checked")).append(" rows checked, ")
                        .append(m.get("differences")).append(" differences, ").append(m.get("repaired")).append(" repaired\n    ");
                String sep = "";
                for (Kind k : Kind.values()) {
                    b.append(sep).append(k.label()).append(' ').append(m.get(k.label()));
                    sep = ", ";
                }
                b.append('\n');
            }
            for (Object o : (List<Object>) report.get("samples")) {
                Map<String, Object> s = (Map<String, Object>) o;
                b.append("  ").append(s.get("index")).append(' ').append(s.get("kind")).append(": index key ").append(s.get("key"))
                        .append(", data key ").append(s.get("data_key")).append((Boolean) s.get("repaired") ? " (repaired)" : "")
                        .append('\n');
            }
            return b.toString();
        }
    }
}
