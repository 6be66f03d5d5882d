package org.rowkey.hbase;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.HFileOutputFormat2;
import org.apache.hadoop.hbase.mapreduce.MultiTableHFileOutputFormat;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.MultipleOutputs;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

import org.rowkey.hbase.InputRecords.Format;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * Loads JSON lines or CSV/TSV files into a table made by {@link RowKeyTable#create} and every
 * one of its indexes, by bulk load: one MapReduce job writes HFiles for the data table and for
 * each index table (whole index rows, as {@link IndexRowFormat} defines them for every writer), then
 * {@link BulkLoadHFiles} loads them: the index rows UNVERIFIED first, then the data, then their
 * VERIFIED status, so that no query through an index ever returns a row the data table does not
 * have, whenever the command stops. While it runs, a load window in the table's descriptor makes the
 * coprocessor write every index row UNVERIFIED, so live writes beside the load stay exact
 * (docs/bulk-load.md). Run with {@code hadoop jar} or
 * {@code java -cp} ({@link ToolRunner}: {@code -D key=value} and the other generic options work):
 *
 * <pre>
 *   --table NAME             the data table (made by RowKeyTable.create)
 *   --input PATH             a file or directory; repeat for more (each file is one map task)
 *   --format json|csv|tsv    default json; csv and tsv files start with a header line
 *   --mapping FILE           mapping rules, one a line (see LoadMapping), and/or:
 *   --key FIELD=INPUT        a key field's input field (default: the field's own name)
 *   --column F:Q=INPUT[:T]   a column from an input field (T: string, int, long, double, boolean)
 *   --work DIR               the job's directory (HFiles, rejects); default /tmp/rowkey-bulkload/TABLE.
 *                            Run again with the same DIR to finish a load that stopped part way
 *   --timestamp MILLIS       the timestamp of every loaded cell (default: once the load window is open)
 *   --split-regions N        split each empty one-region table of the load into N regions at keys
 *                            sampled from the input first (a new table's regions get even shares)
 *   --max-rejects N          fail before loading anything when more lines are rejected (default 0)
 *   --stop-after STEP        stop as a kill would after STEP: hfiles, indexes, data, verified (for tests)
 *   --quiet                  no progress bar
 * </pre>
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
public final class BulkLoad extends Configured implements Tool {
    private static final String CATALOG = "rowkey.bulkload.catalog";
    private static final String MAPPING = "rowkey.bulkload.mapping";
    private static final String FORMAT = "rowkey.bulkload.format";
    private static final String TIMESTAMP = "rowkey.bulkload.timestamp";
    private static final String DATA_TABLE = "rowkey.bulkload.table";
    /** The load's input files in load order, one a line: a mapper's file's place among them. */
    private static final String INPUT_FILES = "rowkey.bulkload.input.files";
    /** HFileOutputFormat2's list of the tables it may write (package-private there). */
    private static final String OUTPUT_TABLES = "hbase.mapreduce.hfileoutputformat.table.name";
    private static final String REJECTS = "rejects";
    /**
     * The data table's descriptor value naming the load whose window is open (beside
     * {@link IndexRowFormat#LOAD_WINDOW_KEY}, set and removed with it): its id and work directory.
     * Only that load's runs go on in the window, and only they close it.
     */
    static final String WINDOW_LOAD_KEY = "rowkey.bulkload.window.load";
    /**
     * Milliseconds past the load's timestamp before its window closes: what the servers' clocks
     * may differ by (index stamps are theirs).
     */
    static final String SETTLE_KEY = "rowkey.bulkload.settle.ms";
    static final long SETTLE_DEFAULT = 2_000;
    /**
     * Milliseconds ahead of the clock a load's own timestamp is chosen (without --timestamp): the
     * time its window may take to open (its regions to reopen). A window that took longer is opened
     * again, later.
     */
    static final String WINDOW_LEAD_KEY = "rowkey.bulkload.window.lead.ms";
    static final long WINDOW_LEAD_DEFAULT = 10_000;
    /** The suffix of the pseudo table whose HFiles hold an index's VERIFIED statuses (step 3). */
    private static final String VERIFIED_SUFFIX = ".verified";

    /** Counters of the job. REPLACED: lines whose row a later line of the same key replaced. */
    public enum Counter { ROWS, REJECTED, BLANK_LINES, REPLACED }

    /** What the last {@link #run} did: lines written as rows, of them replaced, lines rejected, and where the rejects are. */
    private long rows;
    private long replaced;
    private long rejected;
    private Path rejectsDir;

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(HBaseConfiguration.create(), new BulkLoad(), args));
    }

    long rows() {
        return rows;
    }

    long replaced() {
        return replaced;
    }

    long rejected() {
        return rejected;
    }

    Path rejectsDir() {
        return rejectsDir;
    }

    /** The steps in load order; {@code --stop-after} names one. */
    enum Step { HFILES, INDEXES, DATA, VERIFIED }

    @Override
    public int run(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bulk load: " + e.getMessage());
            System.err.println(usage());
            return 2;
        }
        Configuration conf = HBaseConfiguration.create(getConf());
        if (!conf.getBoolean(BulkLoadHFiles.ASSIGN_SEQ_IDS, true)) {
            throw new IllegalArgumentException(BulkLoadHFiles.ASSIGN_SEQ_IDS + " is false: the verify step's HFiles"
                    + " would not replace the UNVERIFIED statuses (docs/bulk-load.md)");
        }
        PrintStream out = System.err;
        // Every input is checked before anything changes.
        List<Path> inputFiles = InputRecords.files(o.inputs, conf);
        List<String> rules = o.mappingRules();
        try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
            TableDescriptor data = admin.getDescriptor(o.table);
            LoadMapping mapping = LoadMapping.parse(catalogOf(data, o.table).schema(), rules);
            for (LoadMapping.ColumnRule c : mapping.columns()) {
                if (!data.hasColumnFamily(c.family)) {
                    throw new IllegalArgumentException("mapping: table " + o.table + " has no column family '"
                            + Bytes.toString(c.family) + "'");
                }
            }
            Path dir = new Path(o.work != null ? o.work : "/tmp/rowkey-bulkload/" + o.table.getNameAsString().replace(':', '/'));
            FileSystem fs = dir.getFileSystem(conf);
            try (LoadWorkDir work = LoadWorkDir.claim(fs, fs.makeQualified(dir))) {
                rejectsDir = work.rejects();
                return runLoad(conf, connection, admin, o, work, fs, definition(o, rules), mapping, inputFiles, out);
            }
        }
    }

    /** A run of the load that {@code definition} describes, in its work directory (held by this run). */
    private int runLoad(Configuration conf, Connection connection, Admin admin, Options o, LoadWorkDir work, FileSystem fs,
            String definition, LoadMapping mapping, List<Path> inputFiles, PrintStream out) throws Exception {
        LoadWorkDir.Load load = work.load();
        boolean newLoad = load == null;
        if (newLoad) {
            fs.delete(work.hfiles(), true); // a finished load's leftovers
            fs.delete(work.rejects(), true);
            load = work.begin(definition);
        } else if (!load.definition.equals(definition)) {
            throw new IllegalStateException(work.dir() + " holds another bulk load, stopped part way (" + load.definition
                    + "): finish it by running the command again with those options, or give this load (" + definition
                    + ") another --work directory");
        }
        String owner = load.id + " " + work.dir();
        long timestamp;
        try {
            timestamp = openWindow(connection, admin, o.table, owner, load.timestamp != null ? load.timestamp : o.timestamp,
                    conf.getLong(WINDOW_LEAD_KEY, WINDOW_LEAD_DEFAULT), out);
        } catch (IllegalStateException | CatalogLock.LeaseHeld refused) {
            if (newLoad) {
                work.end(); // nothing of it happened
            }
            throw refused;
        }
        load = work.save(load.withTimestamp(timestamp));
        Path hfiles = work.hfiles();
        boolean jobDone = fs.exists(new Path(hfiles, FileOutputCommitter.SUCCEEDED_FILE_NAME));
        // Once a load step may have begun, the window stays open until the load ends.
        boolean loading = jobDone;
        try {
            if (jobDone) {
                out.println("Resuming the load of " + o.table + " from " + hfiles + " (its HFiles were written before)");
            } else {
                // The catalog as the window opened: an index added from now on is refused (IndexBackfill).
                TableDescriptor data = admin.getDescriptor(o.table);
                Catalog catalog = catalogOf(data, o.table);
                List<String> indexes = new ArrayList<>();
                List<TableName> indexTables = new ArrayList<>();
                for (IndexSpec index : catalog.indexes()) {
                    if (index.getState() == IndexState.DROPPING) {
                        throw new IllegalStateException("index " + index.getName() + " of " + o.table
                                + " is being dropped: load once dropIndex has finished");
                    }
                    indexes.add(index.getName());
                    indexTables.add(IndexRowFormat.indexTableName(o.table, index.getName()));
                }
                load = work.save(load.withIndexes(indexes));
                fs.delete(hfiles, true); // what a killed job left
                if (o.splitRegions > 1) {
                    List<TableName> tables = new ArrayList<>();
                    tables.add(o.table);
                    tables.addAll(indexTables);
                    SplitSampler.split(connection, tables, catalog, mapping, o.format, inputFiles, o.splitRegions, conf, out);
                }
                Job job = job(conf, connection, o, mapping, inputFiles, timestamp, catalog, data, indexTables, work, out);
                runWithProgress(job, o.quiet ? null : out);
                rows = job.getCounters().findCounter(Counter.ROWS).getValue();
                replaced = job.getCounters().findCounter(Counter.REPLACED).getValue();
                rejected = job.getCounters().findCounter(Counter.REJECTED).getValue();
                moveRejects(fs, hfiles, rejectsDir);
                out.printf(Locale.ROOT, "%,d line(s) written as rows of %s and %d index table(s), %,d of them replaced by a later"
                        + " line of the same key; %,d line(s) rejected%s%n", rows, o.table, indexTables.size(), replaced,
                        rejected, rejected > 0 ? " (see " + rejectsDir + ")" : "");
                if (rejected > o.maxRejects) {
                    out.println("Nothing was loaded: " + rejected + " rejected line(s), more than --max-rejects " + o.maxRejects);
                    return 1;
                }
            }
            loading = true;
            if (o.stopAfter == Step.HFILES) {
                return 0; // the window open, as a kill would leave it
            }
            BulkLoadHFiles loader = BulkLoadHFiles.create(conf);
            for (TableName index : checkedIndexTables(admin, o.table, owner, load)) {
                load(loader, fs, hfiles, index, index, "index rows (unverified)", out);
            }
            if (o.stopAfter == Step.INDEXES) {
                return 0;
            }
            checkedIndexTables(admin, o.table, owner, load); // the window still this load's
            load(loader, fs, hfiles, o.table, o.table, "data rows", out);
            if (o.stopAfter == Step.DATA) {
                return 0;
            }
            for (TableName index : checkedIndexTables(admin, o.table, owner, load)) {
                load(loader, fs, hfiles, verifiedName(index), index, "index statuses (verified)", out);
            }
            if (o.stopAfter == Step.VERIFIED) {
                return 0;
            }
            checkedIndexTables(admin, o.table, owner, load); // no index added that lacks the loaded rows
            closeWindow(connection, admin, o.table, owner, timestamp, conf.getLong(SETTLE_KEY, SETTLE_DEFAULT), out);
            work.end();
            out.println("Loaded " + o.table + " and its indexes");
            return 0;
        } finally {
            if (!loading) {
                // Nothing was loaded: writes may be trusted again at once, and the directory is free.
                closeWindow(connection, admin, o.table, owner, timestamp, 0, out);
                work.end();
            }
        }
    }

    /**
     * What a load loads, as text: the table, the inputs in order, the format, the mapping rules and
     * the timestamp asked for. A re-run of a load gives the same; a run that gives other options is
     * another load.
     */
    static String definition(Options o, List<String> mappingRules) {
        StringBuilder d = new StringBuilder("--table ").append(o.table.getNameAsString());
        for (String input : o.inputs) {
            d.append(" --input ").append(input);
        }
        d.append(" --format ").append(o.format.name().toLowerCase(Locale.ROOT));
        List<String> rules = new ArrayList<>();
        for (String rule : mappingRules) {
            if (!rule.trim().isEmpty() && !rule.trim().startsWith("#")) {
                rules.add(rule.trim());
            }
        }
        d.append(" mapping ").append(rules);
        if (o.timestamp != null) {
            d.append(" --timestamp ").append(o.timestamp);
        }
        return d.toString();
    }

    private static Catalog catalogOf(TableDescriptor data, TableName table) {
        byte[] catalogBytes = data.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
        if (catalogBytes == null) {
            throw new IllegalArgumentException("table " + table + " has no hbase-rowkey catalog: make it with RowKeyTable.create");
        }
        return Catalog.parse(catalogBytes);
    }

    /**
     * The index tables to load this load's index HFiles into, read again before each step: the
     * indexes its HFiles were written for that the table still has (one being dropped is no longer
     * read). Refuses, loading nothing more, when the window is no longer this load's or the table has
     * an index the HFiles lack (it would miss the loaded rows): both only when another client changed
     * the descriptor at the same moment as this load, which HBase cannot refuse (it has no
     * compare-and-set of descriptors).
     */
    private static List<TableName> checkedIndexTables(Admin admin, TableName table, String owner, LoadWorkDir.Load load)
            throws IOException {
        TableDescriptor data = admin.getDescriptor(table);
        if (!owner.equals(windowOwner(data))) {
            String other = loadUnderWay(data);
            throw new IllegalStateException("the load window of " + table + " is no longer this load's (" + (other == null
                    ? "none is open" : "now " + other) + "): the table's descriptor was changed by another client as the window"
                    + " opened; nothing more was loaded. Run the load again with the same options to finish it");
        }
        List<TableName> tables = new ArrayList<>();
        for (IndexSpec index : catalogOf(data, table).indexes()) {
            if (index.getState() == IndexState.DROPPING) {
                continue;
            }
            if (!load.indexes.contains(index.getName())) {
                throw new IllegalStateException("index " + index.getName() + " of " + table + " was added after this load's"
                        + " HFiles were written (for " + load.indexes + "), so it would miss the loaded rows; nothing more was"
                        + " loaded. Drop it, finish the load by running it again with the same options, then add it again");
            }
            tables.add(IndexRowFormat.indexTableName(table, index.getName()));
        }
        return tables;
    }

    /**
     * Opens the table's load window ({@link IndexRowFormat#LOAD_WINDOW_KEY}) for the load named
     * {@code owner}, at {@code timestamp}, or, when null, at a time after the window is open on every
     * region (so that every write before it has a data timestamp and an index stamp before the
     * load's): {@code leadMillis} ahead of the clock; its regions reopen with it (the window is
     * opened again, later, when they took longer than that). Returns the load's timestamp: the open
     * window's when it is this load's already (a run before opened it). Refuses when another load's window is open, and
     * when the window is replaced as it opens (another client changed the descriptor at that moment).
     * The descriptor is read and written under the table's catalog lease ({@link CatalogLock}), so
     * that no catalog change and this write undo each other.
     */
    private static long openWindow(Connection connection, Admin admin, TableName table, String owner, Long timestamp,
            long leadMillis, PrintStream out) throws IOException {
        while (true) {
            long t;
            long start;
            try (CatalogLock lease = CatalogLock.acquire(connection, table, "bulk load " + owner + ": opening its window")) {
                TableDescriptor data = admin.getDescriptor(table);
                String open = windowOf(data);
                if (open != null) {
                    if (owner.equals(windowOwner(data))) {
                        return Long.parseLong(open);
                    }
                    throw new IllegalStateException("table " + table + " has another " + loadUnderWay(data) + ": finish it"
                            + " by running it again with its --work directory, then load this one (a load that was abandoned:"
                            + " unset the table attributes " + IndexRowFormat.LOAD_WINDOW_KEY + " and " + WINDOW_LOAD_KEY
                            + ", docs/bulk-load.md)");
                }
                t = timestamp != null ? timestamp : System.currentTimeMillis() + leadMillis;
                start = System.nanoTime();
                lease.check();
                admin.modifyTable(TableDescriptorBuilder.newBuilder(data)
                        .setValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY), Bytes.toBytes(Long.toString(t)))
                        .setValue(Bytes.toBytes(WINDOW_LOAD_KEY), Bytes.toBytes(owner)).build());
                if (!owner.equals(windowOwner(admin.getDescriptor(table)))) {
                    throw new IllegalStateException("the load window of " + table + " was replaced as it opened (by another"
                            + " load, or another change of the table's descriptor at that moment): nothing was loaded; run the"
                            + " load again");
                }
            }
            out.printf(Locale.ROOT, "Opened the load window of %s (its index rows written UNVERIFIED until the load ends):"
                    + " %.1f s%n", table, (System.nanoTime() - start) / 1e9);
            if (timestamp != null || System.currentTimeMillis() < t) {
                return t;
            }
            // The regions took longer than the lead to reopen: again, later.
            closeWindow(connection, admin, table, owner, t, 0, out);
        }
    }

    /**
     * Closes the load window of the load named {@code owner}, once the clock is {@code settleMillis}
     * past the load's timestamp (index stamps after it never fall below the window's): the regions
     * reopen writing VERIFIED rows again. Another load's window is left open. Under the table's
     * catalog lease, as {@link #openWindow}.
     */
    private static void closeWindow(Connection connection, Admin admin, TableName table, String owner, long timestamp,
            long settleMillis, PrintStream out) throws IOException {
        long wait = timestamp + settleMillis - System.currentTimeMillis();
        if (wait > 0) {
            out.printf(Locale.ROOT, "Waiting %.1f s for the clock to pass the load's timestamp%n", wait / 1e3);
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted before closing the load window of " + table);
            }
        }
        try (CatalogLock lease = CatalogLock.acquire(connection, table, "bulk load " + owner + ": closing its window")) {
            TableDescriptor data = admin.getDescriptor(table);
            if (windowOf(data) == null) {
                return;
            }
            if (!owner.equals(windowOwner(data))) {
                out.println("The load window of " + table + " is left open: it is another " + loadUnderWay(data));
                return;
            }
            lease.check();
            admin.modifyTable(TableDescriptorBuilder.newBuilder(data).removeValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY))
                    .removeValue(Bytes.toBytes(WINDOW_LOAD_KEY)).build());
        }
    }

    static boolean hasWindow(Admin admin, TableName table) throws IOException {
        return windowOf(admin.getDescriptor(table)) != null;
    }

    /** The open load window's timestamp, or null. */
    private static String windowOf(TableDescriptor data) {
        byte[] value = data.getValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY));
        return value == null ? null : Bytes.toString(value);
    }

    /** The load whose window is open ({@value #WINDOW_LOAD_KEY}: its id and work directory), or null. */
    private static String windowOwner(TableDescriptor data) {
        byte[] value = data.getValue(Bytes.toBytes(WINDOW_LOAD_KEY));
        return value == null ? null : Bytes.toString(value);
    }

    /**
     * The load under way on a table, as a phrase ("bulk load under way (at timestamp T, work
     * directory W)"), or null when no load window is open.
     */
    static String loadUnderWay(TableDescriptor data) {
        String window = windowOf(data);
        if (window == null) {
            return null;
        }
        String owner = windowOwner(data);
        String workDir = owner == null ? "unknown" : owner.substring(owner.indexOf(' ') + 1);
        return "bulk load under way (at timestamp " + window + ", work directory " + workDir + ")";
    }

    /** The job writing every table's HFiles into the work directory's. */
    private static Job job(Configuration conf, Connection connection, Options o, LoadMapping mapping, List<Path> inputFiles,
            long timestamp, Catalog catalog, TableDescriptor data, List<TableName> indexTables, LoadWorkDir work,
            PrintStream out) throws IOException {
        Job job = Job.getInstance(new Configuration(conf), "hbase-rowkey bulk load into " + o.table);
        Configuration jc = job.getConfiguration();
        jc.set(CATALOG, Base64.getEncoder().encodeToString(catalog.toByteArray()));
        jc.set(MAPPING, String.join("\n", o.mappingRules()));
        jc.set(FORMAT, o.format.name());
        jc.setLong(TIMESTAMP, timestamp);
        jc.set(DATA_TABLE, o.table.getNameAsString());
        if ("local".equals(jc.get("mapreduce.framework.name", "local"))) {
            // The LocalJobRunner runs one task at a time unless told; there is no locality to gain.
            int cores = Runtime.getRuntime().availableProcessors();
            jc.setInt("mapreduce.local.map.tasks.maximum", cores);
            jc.setInt("mapreduce.local.reduce.tasks.maximum", cores);
            jc.setBoolean(HFileOutputFormat2.LOCALITY_SENSITIVE_CONF_KEY, false);
            // The map tasks' sort buffers live in this JVM's heap: as large as a quarter of it allows
            // (at most 1 GB each), so that a map task spills once and skips the merge passes.
            long quarterPerTask = Runtime.getRuntime().maxMemory() / 4 / cores >> 20;
            int sortMb = (int) Math.max(100, Math.min(1024, quarterPerTask));
            jc.setInt("mapreduce.task.io.sort.mb", Math.max(jc.getInt("mapreduce.task.io.sort.mb", 100), sortMb));
        }
        job.setJarByClass(BulkLoad.class);
        job.setInputFormatClass(WholeFileLines.class);
        FileInputFormat.setInputPaths(job, inputFiles.toArray(new Path[0]));
        List<String> fileNames = new ArrayList<>();
        for (Path file : inputFiles) {
            fileNames.add(file.toString());
        }
        jc.set(INPUT_FILES, String.join("\n", fileNames));
        job.setMapperClass(LineMapper.class);
        job.setMapOutputKeyClass(ImmutableBytesWritable.class);
        List<Object> tables = new ArrayList<>();
        List<ReducePartitions.LoadedTable> loaded = new ArrayList<>();
        List<TableName> order = shuffleOrder(o.table, catalog);
        int dataAt = order.size() - 1;
        try (Admin admin = connection.getAdmin()) {
            for (int t = 0; t < order.size(); t++) {
                RegionLocator regions = connection.getRegionLocator(order.get(t));
                tables.add(tableInfo(t == dataAt ? data : admin.getDescriptor(order.get(t)), regions));
                // A data row's mapped cells; an index row's status, VERIFIED status and covered cells.
                int cells = t == dataAt ? mapping.columns().size() : 2;
                for (LoadMapping.ColumnRule column : mapping.columns()) {
                    cells += t != dataAt && catalog.coverage(t).covers(column.family, column.qualifier) ? 1 : 0;
                }
                loaded.add(new ReducePartitions.LoadedTable(regions.getStartKeys(), cells));
            }
        }
        configureIncrementalLoad(job, tables);
        partitionReducers(job, loaded, mapping, o.format, inputFiles, catalog, work.partitions(), out);
        // Set after configureIncrementalLoad, which knows no reducer for it: ours is set here.
        job.setMapOutputValueClass(LineRow.class);
        job.setReducerClass(RowReducer.class);
        // The verify step's HFiles go to pseudo tables of their own (an output directory each).
        List<String> outputs = new ArrayList<>(Arrays.asList(jc.get(OUTPUT_TABLES).split(";")));
        for (TableName index : indexTables) {
            outputs.add(verifiedName(index).getNameAsString());
        }
        jc.set(OUTPUT_TABLES, String.join(";", outputs));
        TableMapReduceUtil.addDependencyJarsForClasses(jc, JsonParser.class);
        FileOutputFormat.setOutputPath(job, work.hfiles());
        MultipleOutputs.addNamedOutput(job, REJECTS, TextOutputFormat.class, NullWritable.class, Text.class);
        return job;
    }

    /**
     * One reducer per region of each table, and more for a region holding more than its share of
     * the cells (cut at keys of lines sampled from the input): see {@link ReducePartitions}.
     */
    private static void partitionReducers(Job job, List<ReducePartitions.LoadedTable> tables, LoadMapping mapping,
            Format format, List<Path> inputFiles, Catalog catalog, Path file, PrintStream out) throws IOException {
        Configuration jc = job.getConfiguration();
        int localSlots = "local".equals(jc.get("mapreduce.framework.name", "local"))
                ? jc.getInt("mapreduce.local.reduce.tasks.maximum", 1) : 0;
        int wanted = ReducePartitions.wanted(tables, localSlots);
        SplitSampler.Sample sample = SplitSampler.sampleKeys(mapping, format, inputFiles, ReducePartitions.samplesFor(wanted), jc);
        List<List<byte[]>> sampled = new ArrayList<>();
        for (int i = 0; i < catalog.indexes().size(); i++) {
            sampled.add(SplitSampler.indexKeys(catalog, i, sample.keys));
        }
        sampled.add(sample.keys);
        List<List<byte[]>> cuts = ReducePartitions.cuts(tables, sampled, sample.rows, wanted,
                jc.getLong(ReducePartitions.MIN_CELLS_KEY, ReducePartitions.MIN_CELLS_DEFAULT), ReducePartitions.maxPerRegion(jc));
        int regionsCut = ReducePartitions.configure(job, tables, cuts, file);
        out.printf(Locale.ROOT, "%d reducer(s) for %d region(s)%s%n", job.getNumReduceTasks(), ReducePartitions.regions(tables),
                regionsCut == 0 ? "" : ", " + regionsCut + " of them cut at keys sampled from the input");
    }

    /**
     * {@code new HFileOutputFormat2.TableInfo(descriptor, locator)}: the argument type of the public
     * {@link MultiTableHFileOutputFormat#configureIncrementalLoad}, whose class HBase 2.x left
     * package-private (its constructor is public), so it is reached by reflection.
     */
    private static Object tableInfo(TableDescriptor descriptor, RegionLocator locator) throws IOException {
        try {
            Constructor<?> c = Class.forName(HFileOutputFormat2.class.getName() + "$TableInfo")
                    .getConstructor(TableDescriptor.class, RegionLocator.class);
            c.setAccessible(true);
            return c.newInstance(descriptor, locator);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("this HBase's HFileOutputFormat2.TableInfo cannot be made", e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void configureIncrementalLoad(Job job, List<Object> tables) throws IOException {
        MultiTableHFileOutputFormat.configureIncrementalLoad(job, (List) tables);
    }

    /** Runs the job, drawing a progress bar on {@code out} (when not null). */
    private static void runWithProgress(Job job, PrintStream out) throws IOException {
        try {
            job.submit();
            long start = System.nanoTime();
            // On a terminal one line redrawn; in a log a line per 10%.
            boolean terminal = System.console() != null;
            // The LocalJobRunner's job is in this JVM: asking whether it is done costs nothing, and a
            // small load's job takes a second or two. A cluster's answers come from its ApplicationMaster.
            long pollMillis = "local".equals(job.getConfiguration().get("mapreduce.framework.name", "local")) ? 50 : 500;
            int lastTenth = -1;
            while (!job.isComplete()) {
                float map = job.mapProgress();
                float reduce = job.reduceProgress();
                int tenth = (int) ((map + reduce) * 5);
                if (out != null && (terminal || tenth != lastTenth)) {
                    lastTenth = tenth;
                    String bar = progressBar("HFiles", (map + reduce) / 2, String.format(Locale.ROOT,
                            "map %3.0f%% reduce %3.0f%% %5.1f s", map * 100, reduce * 100, (System.nanoTime() - start) / 1e9));
                    out.print(terminal ? "\r" + bar : bar + "\n");
                }
                Thread.sleep(pollMillis);
            }
            if (out != null) {
                out.println((terminal ? "\r" : "") + progressBar("HFiles", 1, String.format(Locale.ROOT, "done in %.1f s",
                        (System.nanoTime() - start) / 1e9)));
            }
            if (!job.isSuccessful()) {
                throw new IOException("the bulk load job failed: " + job.getStatus().getFailureInfo());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the bulk load job ran", e);
        } catch (ClassNotFoundException e) {
            throw new IOException("the bulk load job could not start", e);
        }
    }

    static String progressBar(String what, float done, String detail) {
        int width = 30;
        int filled = Math.max(0, Math.min(width, Math.round(done * width)));
        StringBuilder bar = new StringBuilder(what).append(" [");
        for (int i = 0; i < width; i++) {
            bar.append(i < filled ? '#' : ' ');
        }
        return bar.append("] ").append(detail).toString();
    }

    /** Bulk-loads what is left in {@code hfiles} for output table {@code output} into {@code table}. */
    private static void load(BulkLoadHFiles loader, FileSystem fs, Path hfiles, TableName output, TableName table,
            String what, PrintStream out) throws IOException {
        Path dir = new Path(hfiles, tableRelativePath(output));
        int files = 0;
        if (fs.exists(dir)) {
            for (FileStatus family : fs.listStatus(dir)) {
                if (family.isDirectory()) {
                    files += fs.listStatus(family.getPath()).length;
                }
            }
        }
        if (files == 0) {
            return; // loaded before (bulk load moves the files away), or no rows
        }
        long start = System.nanoTime();
        loader.bulkLoad(table, dir);
        out.printf(Locale.ROOT, "Loaded %s into %s: %d HFile(s) in %.1f s%n", what, table, files, (System.nanoTime() - start) / 1e9);
    }

    /** Where HFileOutputFormat2 puts a table's HFiles under its output directory: [namespace/]qualifier. */
    private static Path tableRelativePath(TableName table) {
        return table.getNamespaceAsString().equals("default") ? new Path(table.getQualifierAsString())
                : new Path(table.getNamespaceAsString(), table.getQualifierAsString());
    }

    /** The pseudo output table of an index's VERIFIED statuses. */
    static TableName verifiedName(TableName index) {
        return TableName.valueOf(index.getNamespaceAsString(), index.getQualifierAsString() + VERIFIED_SUFFIX);
    }

    /** Moves the job's rejects files (rejects-m-NNNNN) out of its HFiles directory. */
    private static void moveRejects(FileSystem fs, Path hfiles, Path rejects) throws IOException {
        fs.mkdirs(rejects);
        for (FileStatus f : fs.listStatus(hfiles)) {
            if (f.getPath().getName().startsWith(REJECTS + "-")) {
                fs.rename(f.getPath(), new Path(rejects, f.getPath().getName()));
            }
        }
    }

    /** Text lines, each file read whole by one mapper, so that it knows its line numbers and header. */
    public static final class WholeFileLines extends TextInputFormat {
        @Override
        protected boolean isSplitable(JobContext context, Path file) {
            return false;
        }
    }

    /**
     * The tables of a load in the order the job's map output keys name them, by a first byte: the
     * index tables (index i is i), then the data table. A byte rather than the name
     * MultiTableHFileOutputFormat's keys carry (the reducer adds it): every key is sorted and
     * shuffled, and an index table's name is some 40 bytes. Index tables first: their rows weigh
     * more, and a local job runs its reducers in partition order.
     */
    static List<TableName> shuffleOrder(TableName data, Catalog catalog) {
        if (catalog.indexes().size() > 255) {
            throw new IllegalArgumentException(data + " has " + catalog.indexes().size() + " indexes: a bulk load writes at most 255");
        }
        List<TableName> tables = new ArrayList<>();
        for (IndexSpec index : catalog.indexes()) {
            tables.add(IndexRowFormat.indexTableName(data, index.getName()));
        }
        tables.add(data);
        return tables;
    }

    /**
     * The cells one input line makes of one row (of the data table or of an index table), and the
     * line's place in the load: its file's place among the load's input files and its line number.
     * Of the lines of one key the last by that place makes the row, in the data table and in every
     * index alike, whatever order the shuffle brings them in. The row is the record's key: the cells
     * travel without it.
     */
    public static final class LineRow implements Writable {
        private int file;
        private long line;
        /**
         * Each cell: family (a length byte, the bytes), qualifier (an int length, the bytes),
         * timestamp (8 bytes), type (a byte), value (an int length, the bytes). Filled in place
         * (no stream: its synchronized writes showed in the map tasks' profile).
         */
        private byte[] cells = new byte[0];
        private int length;

        public LineRow() {}

        /** This line's cells of one row (each of that row); the array is reused by the next call. */
        LineRow set(int file, long line, List<Cell> rowCells) {
            this.file = file;
            this.line = line;
            int size = 0;
            for (Cell c : rowCells) {
                size += 1 + c.getFamilyLength() + Bytes.SIZEOF_INT + c.getQualifierLength() + Bytes.SIZEOF_LONG + 1
                        + Bytes.SIZEOF_INT + c.getValueLength();
            }
            if (cells.length < size) {
                cells = new byte[Math.max(size, 2 * cells.length)];
            }
            int at = 0;
            for (Cell c : rowCells) {
                cells[at++] = c.getFamilyLength();
                at = Bytes.putBytes(cells, at, c.getFamilyArray(), c.getFamilyOffset(), c.getFamilyLength());
                at = Bytes.putInt(cells, at, c.getQualifierLength());
                at = Bytes.putBytes(cells, at, c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength());
                at = Bytes.putLong(cells, at, c.getTimestamp());
                cells[at++] = c.getTypeByte();
                at = Bytes.putInt(cells, at, c.getValueLength());
                at = Bytes.putBytes(cells, at, c.getValueArray(), c.getValueOffset(), c.getValueLength());
            }
            length = at;
            return this;
        }

        /** A copy that outlives the reducer's reuse of this object (its array is new per record read). */
        LineRow kept() {
            LineRow copy = new LineRow();
            copy.file = file;
            copy.line = line;
            copy.cells = cells;
            copy.length = length;
            return copy;
        }

        /** Whether this line comes after {@code other}'s in the load. */
        boolean after(LineRow other) {
            return file != other.file ? file > other.file : line > other.line;
        }

        /** The line's place, as text. */
        String place() {
            return file + ":" + line;
        }

        /** The cells, of {@code row}. */
        List<Cell> cells(byte[] row) {
            List<Cell> out = new ArrayList<>(2);
            int at = 0;
            while (at < length) {
                byte[] family = Arrays.copyOfRange(cells, at + 1, at + 1 + cells[at]);
                at += 1 + family.length;
                byte[] qualifier = Arrays.copyOfRange(cells, at + Bytes.SIZEOF_INT, at + Bytes.SIZEOF_INT + Bytes.toInt(cells, at));
                at += Bytes.SIZEOF_INT + qualifier.length;
                long timestamp = Bytes.toLong(cells, at);
                at += Bytes.SIZEOF_LONG;
                KeyValue.Type type = KeyValue.Type.codeToType(cells[at++]);
                byte[] value = Arrays.copyOfRange(cells, at + Bytes.SIZEOF_INT, at + Bytes.SIZEOF_INT + Bytes.toInt(cells, at));
                at += Bytes.SIZEOF_INT + value.length;
                out.add(new KeyValue(row, family, qualifier, timestamp, type, value));
            }
            return out;
        }

        @Override
        public void write(DataOutput out) throws IOException {
            WritableUtils.writeVInt(out, file);
            WritableUtils.writeVLong(out, line);
            WritableUtils.writeVInt(out, length);
            out.write(cells, 0, length);
        }

        /** Reads into a new array: the reducer keeps the last line's while the object is reused. */
        @Override
        public void readFields(DataInput in) throws IOException {
            file = WritableUtils.readVInt(in);
            line = WritableUtils.readVLong(in);
            length = WritableUtils.readVInt(in);
            cells = new byte[length];
            in.readFully(cells);
        }
    }

    /**
     * One input line in, the data row and its index rows (UNVERIFIED, with their covered cells)
     * out, each a record of its cells with the line's place in the load (not Puts, which cost far
     * more to serialize through the shuffle), keyed by its table's byte and its row. A line that
     * cannot be loaded goes to the rejects output: file, line number, reason, the line.
     */
    public static final class LineMapper extends org.apache.hadoop.mapreduce.Mapper<LongWritable, Text, ImmutableBytesWritable, LineRow> {
        private Catalog catalog;
        private LoadMapping mapping;
        private Format format;
        private long timestamp;
        private int indexes;
        private List<IndexCoverage> covered;
        /** The index timestamp of the load's index rows (see {@link IndexRowFormat#loadStamp}) and their UNVERIFIED status. */
        private long indexStamp;
        private byte[] unverified;
        private MultipleOutputs<ImmutableBytesWritable, LineRow> rejects;
        private String file;
        /** The file's place among the load's input files. */
        private int fileRank;
        private long lineNumber;
        private final LineRow out = new LineRow();
        private final ImmutableBytesWritable outKey = new ImmutableBytesWritable();
        private List<String> header;

        @Override
        protected void setup(Context context) {
            Configuration conf = context.getConfiguration();
            catalog = Catalog.parse(Base64.getDecoder().decode(conf.get(CATALOG)));
            mapping = LoadMapping.parse(catalog.schema(), Arrays.asList(conf.get(MAPPING).split("\n")));
            format = Format.valueOf(conf.get(FORMAT));
            timestamp = conf.getLong(TIMESTAMP, -1);
            indexes = catalog.indexes().size();
            covered = new ArrayList<>();
            for (int i = 0; i < indexes; i++) {
                covered.add(catalog.coverage(i));
            }
            indexStamp = IndexRowFormat.loadStamp(timestamp);
            // Marked as written during this load, as the live writes in its window are: a reader
            // repairs the row only from a data row holding the load's cells. Copied from the data
            // row as it was before the data step, the repair (a newer sequence id than step 1's
            // file, and step 3 replaces only the status) would outlive the loaded values.
            unverified = IndexRowFormat.unverifiedDuringLoad(indexStamp, timestamp);
            rejects = new MultipleOutputs<>(context);
            file = ((FileSplit) context.getInputSplit()).getPath().toString();
            fileRank = Arrays.asList(conf.get(INPUT_FILES).split("\n")).indexOf(file);
            if (fileRank < 0) {
                throw new IllegalStateException("input file " + file + " is not one of the load's (" + INPUT_FILES + ")");
            }
        }

        @Override
        protected void map(LongWritable offset, Text value, Context context) throws IOException, InterruptedException {
            lineNumber++;
            String line = value.toString();
            if (lineNumber == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            try {
                if (format.hasHeader() && header == null) {
                    header = InputRecords.header(format, line);
                    return;
                }
                if (line.trim().isEmpty()) {
                    context.getCounter(Counter.BLANK_LINES).increment(1);
                    return;
                }
                Map<String, Object> record = format == Format.JSON ? InputRecords.json(line)
                        : InputRecords.delimited(format, header, line);
                writeRow(record, context);
                context.getCounter(Counter.ROWS).increment(1);
            } catch (LoadMapping.Rejected r) {
                context.getCounter(Counter.REJECTED).increment(1);
                String reason = r.getMessage() == null ? "rejected" : r.getMessage().replaceAll("[\t\r\n]", " ");
                rejects.write(REJECTS, NullWritable.get(), new Text(file + "\t" + lineNumber + "\t" + reason + "\t" + line),
                        REJECTS);
            }
        }

        private void writeRow(Map<String, Object> record, Context context) throws LoadMapping.Rejected, IOException,
                InterruptedException {
            byte[] key = mapping.rowKey(record);
            Put data = new Put(key);
            for (LoadMapping.ColumnRule column : mapping.columns()) {
                byte[] v = LoadMapping.columnValue(column, record);
                if (v != null) {
                    data.addColumn(column.family, column.qualifier, timestamp, v);
                }
            }
            if (data.isEmpty()) {
                throw new LoadMapping.Rejected("no mapped column has a value (a row needs at least one cell)");
            }
            List<Cell> cells = new ArrayList<>();
            for (List<Cell> family : data.getFamilyCellMap().values()) {
                cells.addAll(family);
            }
            cells.sort(CellComparator.getInstance()); // a Result finds its columns by binary search
            Result dataRow = Result.create(cells);
            emit(context, indexes, key, cells); // the data table's place: after the index tables
            for (int i = 0; i < indexes; i++) {
                Put index = IndexRowFormat.wholeRow(catalog.indexKey(i, key), indexStamp, unverified, covered.get(i), dataRow);
                List<Cell> indexCells = new ArrayList<>();
                for (List<Cell> family : index.getFamilyCellMap().values()) {
                    indexCells.addAll(family);
                }
                emit(context, i, index.getRow(), indexCells);
            }
        }

        /** The cells of one row, keyed by its table's byte (see {@link #shuffleOrder}) and the row. */
        private void emit(Context context, int table, byte[] row, List<Cell> rowCells) throws IOException, InterruptedException {
            outKey.set(ReducePartitions.shuffleKey(table, row));
            context.write(outKey, out.set(fileRank, lineNumber, rowCells));
        }

        @Override
        protected void cleanup(Context context) throws IOException, InterruptedException {
            rejects.close();
        }
    }

    /**
     * The cells of one row of one table, of the last of its lines in the load, sorted (as HBase's
     * {@code CellSortReducer}), written to their table's HFiles; for a row of an index table that
     * has no such row yet also its VERIFIED status, to the index's pseudo table: derived here rather
     * than sent through the shuffle, and in the same key order.
     *
     * <p>An index row that exists already stands for a data row that exists (every writer makes the
     * index row first): the loaded line is merged into that data row (a column the line lacks keeps
     * its live value), so the load's copy of the line alone is no copy of it. That row stays
     * UNVERIFIED, as written during the load, and readers repair it from the data row once the
     * loaded cells are in it. The check runs after the load window opened (the job runs in it), so a
     * row a live write makes later has a mark of its own, newer than the load's.
     */
    public static final class RowReducer extends Reducer<ImmutableBytesWritable, LineRow, ImmutableBytesWritable, Cell> {
        /** Index rows asked about at once. */
        private static final int EXISTS_BATCH = 1000;
        /** The load's tables by their byte in the map output keys, and each index's VERIFIED pseudo table. */
        private List<TableName> tables;
        private byte[][] verifiedTables;
        private int dataTable;
        private Connection connection;
        /** The index table of the statuses waiting for the check (its byte), and their rows, in key order. */
        private int pendingTable = -1;
        private final List<Cell> pendingStatuses = new ArrayList<>();

        @Override
        protected void setup(Context context) {
            Configuration conf = context.getConfiguration();
            Catalog catalog = Catalog.parse(Base64.getDecoder().decode(conf.get(CATALOG)));
            tables = shuffleOrder(TableName.valueOf(conf.get(DATA_TABLE)), catalog);
            dataTable = tables.size() - 1;
            verifiedTables = new byte[dataTable][];
            for (int i = 0; i < dataTable; i++) {
                verifiedTables[i] = verifiedName(tables.get(i)).getName();
            }
        }

        private static Set<String> with(Set<String> set, String element) {
            Set<String> out = set == null ? new HashSet<>() : set;
            out.add(element);
            return out;
        }

        @Override
        protected void reduce(ImmutableBytesWritable tableAndRow, Iterable<LineRow> lines, Context context)
                throws IOException, InterruptedException {
            // The last line's cells: a key's lines come in the shuffle's order (the map side's sort
            // is not stable).
            LineRow last = null;
            Set<String> earlierLines = null; // made only for a key of several lines
            for (LineRow l : lines) {
                if (last == null || l.after(last)) {
                    earlierLines = last == null ? null : with(earlierLines, last.place());
                    last = l.kept();
                } else {
                    earlierLines = with(earlierLines, l.place());
                }
            }
            int table = tableAndRow.get()[tableAndRow.getOffset()] & 0xff;
            byte[] row = Arrays.copyOfRange(tableAndRow.get(), tableAndRow.getOffset() + 1,
                    tableAndRow.getOffset() + tableAndRow.getLength());
            List<Cell> cells = last.cells(row);
            cells.sort(CellComparator.getInstance());
            ImmutableBytesWritable out = new ImmutableBytesWritable(MultiTableHFileOutputFormat.createCompositeKey(
                    tables.get(table).getName(), row));
            Cell status = null;
            for (Cell cell : cells) {
                context.write(out, cell);
                status = status == null && CellUtil.matchingColumn(cell, IndexRowFormat.FAMILY, IndexRowFormat.STATUS)
                        ? cell : status;
            }
            if (earlierLines != null && table == dataTable) {
                context.getCounter(Counter.REPLACED).increment(earlierLines.size());
            }
            if (table != dataTable && status != null) {
                if (table != pendingTable) {
                    verifyNewRows(context);
                    pendingTable = table;
                }
                pendingStatuses.add(status);
                if (pendingStatuses.size() >= EXISTS_BATCH) {
                    verifyNewRows(context);
                }
            }
        }

        /** Writes the VERIFIED status of each pending index row that its index table does not have yet. */
        private void verifyNewRows(Context context) throws IOException, InterruptedException {
            if (pendingStatuses.isEmpty()) {
                return;
            }
            if (connection == null) {
                connection = ConnectionFactory.createConnection(context.getConfiguration());
            }
            List<Get> gets = new ArrayList<>(pendingStatuses.size());
            for (Cell status : pendingStatuses) {
                gets.add(new Get(CellUtil.cloneRow(status)));
            }
            boolean[] exists;
            try (Table index = connection.getTable(tables.get(pendingTable))) {
                exists = noRowBetween(index, gets.get(0).getRow(), gets.get(gets.size() - 1).getRow())
                        ? new boolean[gets.size()] : index.exists(gets);
            }
            byte[] verified = verifiedTables[pendingTable];
            for (int i = 0; i < exists.length; i++) {
                if (!exists[i]) {
                    // The same version of the row (its covered cells are at the same timestamp), VERIFIED.
                    Cell status = pendingStatuses.get(i);
                    byte[] row = CellUtil.cloneRow(status);
                    context.write(new ImmutableBytesWritable(MultiTableHFileOutputFormat.createCompositeKey(verified, row)),
                            new KeyValue(row, IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status.getTimestamp(),
                                    IndexRowFormat.VERIFIED));
                }
            }
            pendingStatuses.clear();
        }

        /**
         * Whether {@code table} holds no row from {@code first} through {@code last} (one key-only
         * read of at most a row): then none of a batch's keys, sorted, exists, as its {@code exists}
         * would say at this moment, in one seek instead of one per key (a new index table's load).
         */
        private static boolean noRowBetween(Table table, byte[] first, byte[] last) throws IOException {
            Scan scan = new Scan().withStartRow(first, true).withStopRow(last, true).setLimit(1).setCaching(1)
                    .setFilter(ScanPlanner.keyOnly());
            try (ResultScanner scanner = table.getScanner(scan)) {
                return scanner.next() == null;
            }
        }

        @Override
        protected void cleanup(Context context) throws IOException, InterruptedException {
            try {
                verifyNewRows(context);
            } finally {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }

    static String usage() {
        return "usage: BulkLoad --table NAME --input PATH [--input PATH ...] [--format json|csv|tsv]"
                + " [--mapping FILE] [--key FIELD=INPUT ...] [--column F:Q=INPUT[:TYPE] ...] [--work DIR]"
                + " [--timestamp MILLIS] [--split-regions N] [--max-rejects N] [--stop-after hfiles|indexes|data|verified] [--quiet]";
    }

    /** The command's options. */
    static final class Options {
        TableName table;
        final List<String> inputs = new ArrayList<>();
        Format format = Format.JSON;
        String mappingFile;
        final List<String> rules = new ArrayList<>();
        String work;
        long maxRejects;
        Step stopAfter;
        Long timestamp;
        int splitRegions;
        boolean quiet;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--quiet")) {
                    o.quiet = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--table": o.table = TableName.valueOf(v); break;
                    case "--input": o.inputs.add(v); break;
                    case "--format": o.format = Format.of(v); break;
                    case "--mapping": o.mappingFile = v; break;
                    case "--key": o.rules.add("key " + v); break;
                    case "--column": o.rules.add("column " + v); break;
                    case "--work": o.work = v; break;
                    case "--timestamp": o.timestamp = Long.parseLong(v); break;
                    case "--split-regions": o.splitRegions = Integer.parseInt(v); break;
                    case "--max-rejects": o.maxRejects = Long.parseLong(v); break;
                    case "--stop-after": o.stopAfter = Step.valueOf(v.toUpperCase(Locale.ROOT)); break;
                    default: throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (o.table == null || o.inputs.isEmpty()) {
                throw new IllegalArgumentException("--table and --input are required");
            }
            return o;
        }

        /** The mapping file's rules, then the options' (a later rule for a key field wins). */
        List<String> mappingRules() throws IOException {
            List<String> all = new ArrayList<>();
            if (mappingFile != null) {
                all.addAll(Files.readAllLines(Paths.get(mappingFile), StandardCharsets.UTF_8));
            }
            all.addAll(rules);
            return all;
        }
    }
}
