package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.ipc.RpcCall;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * Keeps a data table's indexes equal to it (installed by {@link RowKeyTable#create}; protocol in
 * docs/indexes.md, "Write path"), whatever the mutation: before a batch is written, the index row of
 * every row it touches is marked UNVERIFIED; after the batch succeeded, each of those rows is read
 * back from the region, and its index rows are rewritten whole from what HBase actually wrote
 * (covered cells included) and marked VERIFIED, or deleted when the row is gone. So increments,
 * appends, deletes of columns, families or versions, and puts at any timestamp all take one path,
 * and a VERIFIED index row is always a copy of its data row as it was at one moment. Index rows carry
 * timestamps of their own (a per-row clock that never runs backwards on this server), never the data
 * cells': a data timestamp chosen by a client cannot hide an index write.
 *
 * <p>Inside a RegionServer this class never throws anything but {@link IOException} (any other
 * throwable would abort the server), never aborts at region open (a catalog that cannot be read
 * makes every write to the table fail with a {@link DoNotRetryIOException} naming it), bounds the
 * time a handler waits for the index tables ({@value #WRITE_TIMEOUT_KEY}), and sends its index writes
 * at high priority (served by the priority handlers, so they never wait for the handlers the data
 * writes occupy) through its own connection.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class RowKeyIndexObserver implements RegionCoprocessor, RegionObserver {
    private static final Logger LOG = LoggerFactory.getLogger(RowKeyIndexObserver.class);

    /**
     * Milliseconds a write waits at most for its index writes, before the data (the batch fails,
     * the client retries) and after it (left to readers): the RegionServer's setting, default 10 s.
     */
    static final String WRITE_TIMEOUT_KEY = "rowkey.index.write.timeout.ms";
    static final int WRITE_TIMEOUT_DEFAULT = 10_000;

    /**
     * Writes the second and later index tables of a batch while the handler writes the first. Shared
     * by every region of the server, bounded; when every thread is busy the handler writes itself
     * (no queue to wait in, so no handler waits for another's work).
     */
    private static final ExecutorService INDEX_WRITERS = BoundedPool.create("rowkey-index-writer", 32);

    /** The mini-batch under way on this handler, from its pre step to its post step. */
    private final ThreadLocal<MiniBatch> underWay = new ThreadLocal<>();

    /** A mini-batch's index work: the rows whose UNVERIFIED marks were written, and one budget for both steps. */
    private static final class MiniBatch {
        final List<byte[]> marked;
        /** When both steps must be done with their index writes (System.nanoTime). */
        final long deadline;

        MiniBatch(List<byte[]> marked, long deadline) {
            this.marked = marked;
            this.deadline = deadline;
        }
    }

    private TableName dataTable;
    private Catalog catalog;
    /** Why the catalog could not be read; writes are refused with it. */
    private String catalogError;
    private TableName[] indexTables;
    /** Per index: a DROPPING index whose table failed a write (it is being deleted), no longer written. */
    private volatile boolean[] droppedTables;
    /** Per index, the cells it covers. */
    private List<IndexCoverage> covered;
    private Connection connection;
    private int writeTimeoutMillis;
    private final IndexClock clock = new IndexClock();
    /**
     * The timestamp of a bulk load under way ({@link IndexRowFormat#LOAD_WINDOW_KEY}; Long.MAX_VALUE
     * when the window does not say), else -1. Meanwhile a row read back may lack loaded cells that
     * land later, so no index row is written VERIFIED or deleted, only marked.
     */
    private long loadTimestamp = -1;
    /** Rows of this region with a batch between its UNVERIFIED marks and its post step. */
    private final Map<ByteBuffer, Integer> inFlight = new ConcurrentHashMap<>();
    private CoprocessorMetrics metrics = CoprocessorMetrics.of(null);

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    @Override
    public void start(CoprocessorEnvironment env) {
        metrics = CoprocessorMetrics.of(env, CoprocessorMetrics.INDEXED_ROWS, CoprocessorMetrics.INDEX_WRITE_FAILURES,
                CoprocessorMetrics.INDEX_ROWS_LEFT_UNVERIFIED, CoprocessorMetrics.WRITES_REFUSED);
        try {
            RegionCoprocessorEnvironment region = (RegionCoprocessorEnvironment) env;
            TableDescriptor descriptor = region.getRegion().getTableDescriptor();
            dataTable = descriptor.getTableName();
            catalog = Catalog.parse(descriptor.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
            List<IndexSpec> indexes = catalog.indexes();
            indexTables = new TableName[indexes.size()];
            droppedTables = new boolean[indexes.size()];
            covered = new ArrayList<>();
            for (int i = 0; i < indexTables.length; i++) {
                indexTables[i] = IndexRowFormat.indexTableName(dataTable, indexes.get(i).getName());
                covered.add(catalog.coverage(i));
            }
            byte[] windowValue = descriptor.getValue(Bytes.toBytes(IndexRowFormat.LOAD_WINDOW_KEY));
            String window = windowValue == null ? null : Bytes.toString(windowValue);
            if (window != null) {
                try {
                    loadTimestamp = Long.parseLong(window.trim());
                    // After the load's index rows (stamped S = T x 1000), so that none of them hides a write's mark.
                    clock.startAfter(IndexRowFormat.loadStamp(loadTimestamp));
                } catch (NumberFormatException e) {
                    loadTimestamp = Long.MAX_VALUE; // no reader repairs the rows: each is checked until written again
                    LOG.warn("hbase-rowkey: table " + dataTable + " has a load window that is not a timestamp ('" + window
                            + "'); its index rows are written UNVERIFIED, stamped by the clock");
                }
            }
            writeTimeoutMillis = region.getConfiguration().getInt(WRITE_TIMEOUT_KEY, WRITE_TIMEOUT_DEFAULT);
            // A table with no index writes none.
            connection = indexTables.length == 0 ? null
                    : region.createConnection(indexWriterConf(region.getConfiguration(), writeTimeoutMillis));
        } catch (Throwable t) {
            catalogError = "hbase-rowkey: the index catalog of table " + dataTable + " cannot be used, so no write to it"
                    + " is accepted (a write that is not indexed would lose index rows): " + t;
            LOG.error(catalogError, t);
        }
    }

    /**
     * Tells a reader that probes a row ({@link IndexRowFormat#DATA_ROW_PROBE}) whether it may copy
     * the row into an index row as read: not while a write of it is between its index marks and its
     * post step, and as EXPIRING when a cell read has a TTL of its own (docs/indexes.md, "Read repair").
     */
    @Override
    public void postGetOp(ObserverContext<RegionCoprocessorEnvironment> c, Get get, List<Cell> result) {
        if (get.getAttribute(IndexRowFormat.DATA_ROW_PROBE) != null) {
            Cell marker = IndexRowFormat.probeMarker(get.getRow(), firstFamily(c), result,
                    inFlight.containsKey(ByteBuffer.wrap(get.getRow())));
            if (marker != null) {
                result.add(marker);
            }
        }
    }

    /**
     * The backfill of a new index reads the data table with {@link IndexRowFormat#DATA_ROW_PROBE}:
     * each row of its scan gets the probe's marker, so that a row with cells of their own TTL is
     * copied EXPIRING, not VERIFIED.
     */
    @Override
    public RegionScanner postScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan, RegionScanner s) {
        return scan.getAttribute(IndexRowFormat.DATA_ROW_PROBE) == null ? s : new ProbingScanner(s, firstFamily(c));
    }

    private static byte[] firstFamily(ObserverContext<RegionCoprocessorEnvironment> c) {
        return c.getEnvironment().getRegion().getTableDescriptor().getColumnFamilies()[0].getName();
    }

    /**
     * A connection that gives up within the write timeout: a handler waits for its index writes.
     * The server's settings are copied entry by entry: {@code new Configuration(c)} of the region's
     * configuration (a wrapper that keeps its values elsewhere) keeps none of them on HBase 2.4,
     * whose connection then looks for ZooKeeper at localhost:2181.
     */
    static Configuration indexWriterConf(Configuration serverConf, int writeTimeoutMillis) {
        Configuration conf = new Configuration(false);
        for (Map.Entry<String, String> setting : serverConf) {
            conf.set(setting.getKey(), setting.getValue());
        }
        conf.setInt("hbase.client.retries.number", 5);
        conf.setInt("hbase.client.pause", 100);
        conf.setInt("hbase.rpc.timeout", Math.max(1, writeTimeoutMillis / 2));
        conf.setInt("hbase.client.operation.timeout", writeTimeoutMillis);
        conf.setInt("hbase.client.meta.operation.timeout", writeTimeoutMillis);
        return conf;
    }

    @Override
    public void stop(CoprocessorEnvironment env) {
        if (connection != null) {
            try {
                connection.close();
            } catch (Throwable t) {
                LOG.warn("hbase-rowkey: closing the index connection of " + dataTable, t);
            }
        }
    }

    /**
     * Marks the index rows of every row the batch writes UNVERIFIED, before the data: if the data is
     * written and the post step is lost (a crash, an index region away), readers check the data row.
     * A row of the schema's length whose key is not the schema's (a wrong salt byte) cannot be
     * indexed: that mutation alone fails, with a {@code FailedSanityCheckException} (a
     * {@link DoNotRetryIOException}) naming the row.
     */
    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
            MiniBatchOperationInProgress<Mutation> batch) throws IOException {
        underWay.remove();
        long start = System.nanoTime();
        try {
            if (catalogError != null) {
                throw new DoNotRetryIOException(catalogError);
            }
            if (indexTables.length == 0) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(indexWriteBudgetMillis());
            Map<ByteBuffer, byte[][]> rows = new java.util.LinkedHashMap<>();
            java.util.Set<ByteBuffer> withTtl = new java.util.HashSet<>();
            for (int op = 0; op < batch.size(); op++) {
                if (batch.getOperationStatus(op).getOperationStatusCode() != HConstants.OperationStatusCode.NOT_RUN) {
                    continue;
                }
                Mutation mutation = batch.getOperation(op);
                byte[] row = mutation.getRow();
                ByteBuffer key = ByteBuffer.wrap(row);
                if (mutation.getTTL() != Long.MAX_VALUE) {
                    withTtl.add(key);
                }
                if (row.length != catalog.schema().keyLength() || rows.containsKey(key)) {
                    continue; // not a key of the schema (no query can match it, no index holds it), or seen
                }
                byte[][] indexKeys = indexKeys(row);
                if (indexKeys == null) {
                    // SANITY_CHECK_FAILURE: the client gets a FailedSanityCheckException (a
                    // DoNotRetryIOException) for a single mutation as for a batch; FAILURE would
                    // acknowledge a single one unwritten.
                    metrics.count(CoprocessorMetrics.WRITES_REFUSED);
                    batch.setOperationStatus(op, new OperationStatus(HConstants.OperationStatusCode.SANITY_CHECK_FAILURE,
                            "hbase-rowkey: row " + Bytes.toStringBinary(row) + " of table " + dataTable
                                    + " is not a key of its schema (its salt byte is not the one its fields hash to), so it"
                                    + " cannot be indexed; the write is refused"));
                    continue;
                }
                rows.put(key, indexKeys);
            }
            List<byte[]> marked = new ArrayList<>(rows.size());
            underWay.set(new MiniBatch(marked, deadline));
            List<List<Row>> perIndex = perIndex();
            for (Map.Entry<ByteBuffer, byte[][]> row : rows.entrySet()) {
                inFlight.merge(row.getKey(), 1, Integer::sum);
                marked.add(row.getKey().array());
                // Marked after the row is known to be in flight: a post step of another batch that
                // does not see it in flight took its stamp before this one (IndexClock).
                long stamp = clock.next(row.getKey());
                byte[][] indexKeys = row.getValue();
                // A write of cells with a TTL leaves a row no reader may repair: it may expire unseen.
                byte[] mark = withTtl.contains(row.getKey()) ? IndexRowFormat.expiring(stamp) : unverified(stamp);
                for (int i = 0; i < indexKeys.length; i++) {
                    perIndex.get(i).add(new Put(indexKeys[i]).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp,
                            mark));
                }
            }
            writeIndexes(perIndex, deadline, true);
            if (!rows.isEmpty()) {
                metrics.count(CoprocessorMetrics.INDEXED_ROWS, rows.size());
                metrics.microsSince(CoprocessorMetrics.INDEX_MARK_MICROS, start);
            }
        } catch (IOException e) {
            metrics.count(CoprocessorMetrics.INDEX_WRITE_FAILURES);
            throw e;
        } catch (Throwable t) {
            metrics.count(CoprocessorMetrics.INDEX_WRITE_FAILURES);
            throw new DoNotRetryIOException("hbase-rowkey: index write before the data of " + dataTable + " failed", t);
        }
    }

    /**
     * Rewrites the index rows of the batch's rows from what the region now holds. Runs after the row
     * locks are released and the batch is visible, also when it failed (then the UNVERIFIED marks
     * stay, for readers to check). A row another batch has in flight is written UNVERIFIED: that
     * batch's own post step, or a reader, settles it.
     */
    @Override
    public void postBatchMutateIndispensably(ObserverContext<RegionCoprocessorEnvironment> c,
            MiniBatchOperationInProgress<Mutation> batch, boolean success) {
        MiniBatch underWay = this.underWay.get();
        this.underWay.remove();
        if (underWay == null || underWay.marked.isEmpty()) {
            return;
        }
        List<byte[]> marked = underWay.marked;
        for (byte[] row : marked) {
            inFlight.computeIfPresent(ByteBuffer.wrap(row), (k, n) -> n == 1 ? null : n - 1);
        }
        if (!success) {
            metrics.count(CoprocessorMetrics.INDEX_ROWS_LEFT_UNVERIFIED, (long) marked.size() * indexTables.length);
            return;
        }
        long start = System.nanoTime();
        long leftUnverified = 0;
        try {
            List<List<Row>> perIndex = perIndex();
            // Every stamp before the rows are read, every in-flight check after (IndexClock).
            long[] stamps = new long[marked.size()];
            for (int r = 0; r < stamps.length; r++) {
                stamps[r] = clock.next(ByteBuffer.wrap(marked.get(r)));
            }
            Map<ByteBuffer, Result> rows = readRows(c.getEnvironment(), marked);
            for (int r = 0; r < stamps.length; r++) {
                byte[] row = marked.get(r);
                ByteBuffer key = ByteBuffer.wrap(row);
                long stamp = stamps[r];
                Result now = rows.getOrDefault(key, Result.EMPTY_RESULT);
                boolean settled = !inFlight.containsKey(key);
                byte[][] indexKeys = indexKeys(row);
                for (int i = 0; i < indexKeys.length; i++) {
                    Mutation m;
                    if (now.isEmpty() && settled && !loading()) {
                        m = new Delete(indexKeys[i], stamp);
                    } else {
                        byte[] status = expires(now) ? IndexRowFormat.expiring(stamp)
                                : settled && !loading() ? IndexRowFormat.VERIFIED : unverified(stamp);
                        leftUnverified += status == IndexRowFormat.VERIFIED ? 0 : 1;
                        m = IndexRowFormat.wholeRow(indexKeys[i], stamp, status, covered.get(i), now);
                    }
                    // Not logged: if a crash loses it, the UNVERIFIED mark (logged) is read instead.
                    perIndex.get(i).add(m.setDurability(Durability.SKIP_WAL));
                }
            }
            // What the first step left of the batch's budget: a handler is held for one budget in all.
            writeIndexes(perIndex, underWay.deadline, false);
            metrics.count(CoprocessorMetrics.INDEX_ROWS_LEFT_UNVERIFIED, leftUnverified);
            metrics.microsSince(CoprocessorMetrics.INDEX_VERIFY_MICROS, start);
        } catch (Throwable t) {
            metrics.count(CoprocessorMetrics.INDEX_ROWS_LEFT_UNVERIFIED, (long) marked.size() * indexTables.length);
            LOG.warn("hbase-rowkey: verifying index rows of " + dataTable + " failed; readers will check them", t);
        }
    }

    /**
     * Whether a row read back has a cell with a TTL of its own: the row may then change by expiry
     * alone, so its index rows are {@link IndexRowFormat#EXPIRING}. (The cells read are its covered
     * ones, or its first: while a cell without a TTL is read, the row exists at least as long.)
     */
    private static boolean expires(Result row) {
        return !row.isEmpty() && IndexRowFormat.hasOwnTtl(java.util.Arrays.asList(row.rawCells()));
    }

    /** A region scanner that adds the probe's marker to each row (or part of a row) it reads. */
    static final class ProbingScanner extends ForwardingRegionScanner {
        private final byte[] family;

        ProbingScanner(RegionScanner scanner, byte[] family) {
            super(scanner);
            this.family = family;
        }

        @Override
        public boolean nextRaw(List<Cell> result) throws IOException {
            return nextRaw(result, null);
        }

        @Override
        public boolean nextRaw(List<Cell> result, ScannerContext context) throws IOException {
            int from = result.size();
            boolean more = context == null ? scanner.nextRaw(result) : scanner.nextRaw(result, context);
            mark(result, from);
            return more;
        }

        @Override
        public boolean next(List<Cell> result) throws IOException {
            return next(result, null);
        }

        @Override
        public boolean next(List<Cell> result, ScannerContext context) throws IOException {
            int from = result.size();
            boolean more = context == null ? scanner.next(result) : scanner.next(result, context);
            mark(result, from);
            return more;
        }

        private void mark(List<Cell> result, int from) {
            if (result.size() > from) {
                Cell first = result.get(from);
                Cell marker = IndexRowFormat.probeMarker(CellUtil.cloneRow(first), family,
                        result.subList(from, result.size()), false);
                if (marker != null) {
                    result.add(marker);
                }
            }
        }
    }

    private boolean loading() {
        return loadTimestamp >= 0;
    }

    /** An UNVERIFIED status at {@code stamp}; during a bulk load, one that readers repair only after its data lands. */
    private byte[] unverified(long stamp) {
        return loading() ? IndexRowFormat.unverifiedDuringLoad(stamp, loadTimestamp) : IndexRowFormat.unverified(stamp);
    }

    /** The key of a data row in each index, or null when the row's key is not one of the schema. */
    private byte[][] indexKeys(byte[] row) {
        byte[][] keys = new byte[indexTables.length][];
        try {
            for (int i = 0; i < keys.length; i++) {
                keys[i] = catalog.indexKey(i, row);
            }
        } catch (IllegalArgumentException notOfTheSchema) {
            return null;
        }
        return keys;
    }

    private List<List<Row>> perIndex() {
        List<List<Row>> perIndex = new ArrayList<>();
        for (int i = 0; i < indexTables.length; i++) {
            perIndex.add(new ArrayList<Row>());
        }
        return perIndex;
    }

    /**
     * The rows as the region shows them now, by one region scan that seeks from row to row (a Get
     * per row costs a new scanner each): their covered cells, or, for a row without any, its first
     * cell (enough to tell that it exists). A row that does not exist is absent from the map.
     */
    private Map<ByteBuffer, Result> readRows(RegionCoprocessorEnvironment env, List<byte[]> rows) throws IOException {
        Map<ByteBuffer, Result> found = new java.util.HashMap<>();
        List<byte[]> uncovered = rows;
        Scan coveredScan = rowsScan(rows);
        if (IndexCoverage.addTo(coveredScan, covered)) {
            scanInto(env, coveredScan, found);
            uncovered = new ArrayList<>();
            for (byte[] row : rows) {
                if (!found.containsKey(ByteBuffer.wrap(row))) {
                    uncovered.add(row);
                }
            }
        }
        if (!uncovered.isEmpty()) {
            Scan scan = rowsScan(uncovered);
            scan.setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, scan.getFilter(), new FirstKeyOnlyFilter()));
            scanInto(env, scan, found);
        }
        return found;
    }

    /** A scan of exactly {@code rows}, seeking between them. */
    private static Scan rowsScan(List<byte[]> rows) {
        List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>(rows.size());
        byte[] first = null;
        byte[] last = null;
        for (byte[] row : rows) {
            ranges.add(new MultiRowRangeFilter.RowRange(row, true, row, true));
            first = first == null || Bytes.compareTo(row, first) < 0 ? row : first;
            last = last == null || Bytes.compareTo(row, last) > 0 ? row : last;
        }
        return new Scan().withStartRow(first).withStopRow(last, true).setFilter(new MultiRowRangeFilter(ranges));
    }

    private static void scanInto(RegionCoprocessorEnvironment env, Scan scan, Map<ByteBuffer, Result> found) throws IOException {
        try (RegionScanner scanner = env.getRegion().getScanner(scan)) {
            List<Cell> cells = new ArrayList<>();
            boolean more;
            do {
                more = scanner.next(cells);
                if (!cells.isEmpty()) {
                    // Copied: a cell of the scanner may point into cache blocks freed when it closes.
                    Cell[] copies = new Cell[cells.size()];
                    for (int i = 0; i < copies.length; i++) {
                        copies[i] = KeyValueUtil.copyToNewKeyValue(cells.get(i));
                    }
                    Result row = Result.create(copies);
                    found.put(ByteBuffer.wrap(row.getRow()), row);
                    cells.clear();
                }
            } while (more);
        }
    }

    /**
     * The milliseconds a mini-batch's index writes may take, both steps together: the write timeout,
     * or less when the client's call has less time left (three quarters of it: the data write itself
     * and the answer need the rest), so the handler is free before the client gives up on it.
     */
    private long indexWriteBudgetMillis() {
        long budget = writeTimeoutMillis;
        Optional<RpcCall> call = RpcServer.getCurrentCall();
        if (call.isPresent() && call.get().getTimeout() > 0) {
            long left = call.get().getDeadline() - EnvironmentEdgeManager.currentTime();
            budget = Math.min(budget, Math.max(1, left * 3 / 4));
        }
        return budget;
    }

    /**
     * Sends each index table its mutations, all at once (the first in this thread, the others by the
     * pool), and waits for them no longer than {@code deadline} (System.nanoTime).
     */
    private void writeIndexes(List<List<Row>> perIndex, long deadline, boolean before) throws IOException {
        List<Future<?>> others = new ArrayList<>();
        for (int i = 1; i < perIndex.size(); i++) {
            int index = i;
            // When every writer is busy, the handler writes this index itself, before the next: each
            // write is then given only what is left of the one deadline (writeIndexTable).
            others.add(INDEX_WRITERS.submit(() -> {
                writeIndex(index, perIndex.get(index), deadline, before);
                return null;
            }));
        }
        IOException failure = null;
        try {
            writeIndex(0, perIndex.get(0), deadline, before);
        } catch (IOException e) {
            failure = e;
        }
        for (int i = 0; i < others.size(); i++) {
            TableName table = indexTables[i + 1];
            try {
                others.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof IOException ? (IOException) e.getCause()
                            : new IOException("hbase-rowkey: writing index " + table + " failed", e.getCause());
                }
            } catch (TimeoutException e) {
                others.get(i).cancel(true);
                if (failure == null) {
                    failure = notTaken(table, before, null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("hbase-rowkey: interrupted while writing index " + table, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void writeIndex(int index, List<Row> mutations, long deadline, boolean before) throws IOException {
        if (mutations.isEmpty() || droppedTables[index]) {
            return;
        }
        if (catalog.indexes().get(index).getState() == IndexState.DROPPING) {
            try {
                writeIndexTable(index, mutations, deadline, before);
            } catch (IOException e) {
                // Its table is being deleted (RowKeyTable.dropIndex): no reader plans it any more.
                droppedTables[index] = true;
                LOG.info("hbase-rowkey: index table " + indexTables[index] + " of " + dataTable
                        + " is being dropped; no longer written: " + e);
            }
            return;
        }
        writeIndexTable(index, mutations, deadline, before);
    }

    /**
     * After a failed write to an index table, where its regions are is read from hbase:meta again.
     * A RegionServer remembers a region it closed for a move as "moved to" its destination for 2
     * minutes and keeps that when the region comes back: a region moved A to B, back, to B again and
     * split there leaves each server sending the client to the other, and a client that follows
     * "moved" answers never reads meta (the load test: writes indexed there failed for 2 minutes).
     */
    private void forgetLocations(TableName table, IOException failure) {
        try (RegionLocator locator = connection.getRegionLocator(table)) {
            locator.clearRegionLocationCache();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** The error of index writes that failed or ran out of the batch's budget, naming the index table. */
    private IOException notTaken(TableName table, boolean before, IOException cause) {
        return new IOException("hbase-rowkey: index " + table + " did not take its writes within the batch's budget (at most "
                + writeTimeoutMillis + " ms, " + WRITE_TIMEOUT_KEY + ", or 3/4 of the time the client's call had left)"
                + (before ? "; the data was not written" : "") + (cause == null ? "" : ": " + cause.getMessage()), cause);
    }

    /** Writes one index table's mutations within what is left until {@code deadline} (System.nanoTime). */
    private void writeIndexTable(int index, List<Row> mutations, long deadline, boolean before) throws IOException {
        for (Row m : mutations) {
            ((Mutation) m).setPriority(HConstants.HIGH_QOS);
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw notTaken(indexTables[index], before, null);
        }
        int millis = (int) Math.min(left, writeTimeoutMillis);
        try (Table table = connection.getTableBuilder(indexTables[index], null).setOperationTimeout(millis)
                .setRpcTimeout(Math.max(1, millis / 2)).build()) {
            table.batch(mutations, new Object[mutations.size()]);
        } catch (IOException e) {
            forgetLocations(indexTables[index], e);
            throw notTaken(indexTables[index], before, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("hbase-rowkey: interrupted while writing index " + indexTables[index], e);
        }
    }

    /**
     * The timestamps of a region's index writes, in microseconds since the epoch: per row (striped),
     * never below the wall clock and never repeating or running backwards, so a row's later write,
     * and a post step that reads the row later, always gets a later stamp than an earlier one on this
     * server. Microseconds, so that even a row written a million times a second (a hot counter) keeps
     * its stamps at the wall clock: a region that moves goes on from the stamps its old server gave,
     * given clocks closer than the time a region takes to move.
     */
    static final class IndexClock {
        private static final int STRIPES = 1024;
        private final AtomicLongArray last = new AtomicLongArray(STRIPES);
        private volatile long floor;

        /** Every stamp from now on is above {@code stamp}. */
        void startAfter(long stamp) {
            floor = stamp + 1;
        }

        long next(ByteBuffer row) {
            int stripe = row.hashCode() & (STRIPES - 1);
            while (true) {
                long previous = last.get(stripe);
                long stamp = Math.max(Math.max(nowMicros(), floor), previous + 1);
                if (last.compareAndSet(stripe, previous, stamp)) {
                    return stamp;
                }
            }
        }

        static long nowMicros() {
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        }
    }
}
