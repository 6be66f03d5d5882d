package org.rowkey.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.client.metrics.ScanMetricsRegionInfo;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The rows of a planned read (sorted, disjoint key ranges) with the ranges of different regions read
 * at once, as Phoenix's parallel iterators do: a plain {@code ResultScanner} visits the regions one
 * after another, so 16 salt buckets cost 16 round trips in a row. The ranges are cut at region
 * boundaries into chunks (one scan each: the ranges of one region), and up to {@link #THREADS_KEY}
 * chunks are read at once by a pool shared by every scan of the connection. Batches come back in key
 * order, chunk after chunk (chunks are disjoint and ordered), or in descending key order (chunks
 * from the last down, each read in forward windows from its top down), or in the order chunks
 * deliver them when the query says order does not matter.
 *
 * <p>A reader may have each batch prepared where it is read ({@link Prepare}): the work every row
 * needs that does not depend on the rows before it (an index row made its answer) is then spread over
 * the reading threads instead of done by the one consumer after the rows arrive.
 *
 * <p>The pool is fair: a task reads one turn of its chunk, what one round trip returns (up to the
 * scan's caching, at most {@value #BATCH} rows: one partial state for an aggregate), then the chunk's
 * next turn is queued at the back of the pool's queue, behind the tasks of every other scan that
 * were waiting (by the consumer when it takes the batch, or by the task itself when the turn made
 * nothing to hand over). A chunk has at most one task queued or running, so a scan's first task
 * waits for at most one turn of each task ahead of it, never for a whole region of another scan.
 *
 * <p>Read-ahead is bounded: a chunk being read holds at most one batch read and one being read. A
 * task never waits for the consumer, so scans sharing the pool never starve each other. The first
 * failure of any chunk fails the scan with that exception and closes every
 * chunk; {@link #close} frees every chunk's scanner at once (one whose batch is in flight closes when
 * its batch ends). A region split or move under a chunk is the chunk's own HBase scanner's business
 * (it scans keys, not regions). A read of one chunk, or with a parallelism of 1, reads on the
 * consumer's thread, a batch when one is asked for.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class ParallelScanner<T> implements RowBatches<T> {
    /**
     * The connection setting that bounds the threads reading chunks for all scans of one connection,
     * and the chunks one scan reads at once; 1 reads every query serially.
     */
    static final String THREADS_KEY = "rowkey.scan.threads";
    /** Enough for a 16-bucket salted index's ranges at once; the threads do I/O, not CPU work. */
    static final int THREADS_DEFAULT = 16;
    /**
     * Rows one task reads from a chunk before handing them over, at most: fewer when the scan's
     * caching, or else the connection's {@code hbase.client.scanner.caching}, is lower (a task then
     * reads what one round trip returns).
     */
    static final int BATCH = 512;
    static final String THREAD_NAME = "rowkey-parallel-read";

    /**
     * One pool per connection: a closed connection's pool is shut down when the next pool is asked
     * for (its idle threads end then, not after their idle timeout), and dropped with the connection.
     */
    private static final Map<Connection, ThreadPoolExecutor> POOLS = new WeakHashMap<>();

    /** How a planned read's rows may come back. */
    enum Order {
        /** In key order: the order of one serial scan. */
        KEY,
        /** As chunks deliver them (each chunk's rows in its order). */
        ANY,
        /**
         * In descending key order: the chunks from the last down, each read in forward windows
         * from its top down and their rows handed out backwards ({@link BackwardWindows}).
         */
        DESCENDING
    }

    /** What a reading task makes of each batch of rows it reads, on its own thread. */
    @FunctionalInterface
    interface Prepare<T> {
        List<T> apply(List<Result> rows) throws IOException;
    }

    /** The pool reading chunks; null: the one chunk is read on the consumer's thread. */
    private final ExecutorService pool;
    private final Prepare<T> prepare;
    /** The connection's {@code hbase.client.scanner.caching}: a chunk's turn when its scan sets none. */
    private final int connectionCaching;
    private final int parallelism;
    private final Order order;
    private final List<Chunk> chunks;
    /** The chunks started and not yet finished, in key order. */
    private final ArrayDeque<Chunk> active = new ArrayDeque<>();
    private int started;
    /** Guards the chunks' hand-over state; tasks notify it when a batch is read. */
    private final Object lock = new Object();
    private Throwable failure;
    private boolean closed;
    /** Chunks whose last row was read. */
    private int chunksRead;
    /** Run when the last chunk's last row is read ({@link #whenAllRead}); null once run. */
    private Runnable allRead;
    /** Metrics of every chunk's scanner, summed on demand. */
    private final List<ScanMetrics> chunkMetrics = Collections.synchronizedList(new ArrayList<>());
    /** A descending chunk's windows keep this share of their bounds (one of several reads merged). */
    private final int keepShare;
    /**
     * The encoded names of the regions the chunks were cut at, as the connection located them when
     * this read was made ({@link #readOnlyRegionsCut}); null when the ranges were not cut at regions.
     */
    private final Set<String> regionsCut;

    private ParallelScanner(Connection connection, TableName name, Pieces pieces,
            Function<List<RowRange>, Scan> scanOf, int parallelism, Order order, Prepare<T> prepare) {
        this(connection, name, pieces, scanOf, parallelism, order, prepare, false, 1);
    }

    /**
     * {@code pooled}: the chunks are read by the pool even one at a time (a read merged with
     * others, all read at once); {@code keepShare}: see {@link #keepShare}.
     */
    private ParallelScanner(Connection connection, TableName name, Pieces cut,
            Function<List<RowRange>, Scan> scanOf, int parallelism, Order order, Prepare<T> prepare, boolean pooled,
            int keepShare) {
        List<List<RowRange>> pieces = cut.pieces;
        this.regionsCut = cut.regions;
        if (regionsCut != null) {
            scanOf = scanOf.andThen(ParallelScanner::regionsNamed);
        }
        this.parallelism = Math.max(1, Math.min(parallelism, pieces.size()));
        this.pool = this.parallelism > 1 || pooled ? pool(connection) : null;
        this.keepShare = Math.max(1, keepShare);
        this.prepare = prepare;
        this.connectionCaching = connection.getConfiguration().getInt(HConstants.HBASE_CLIENT_SCANNER_CACHING, Integer.MAX_VALUE);
        this.order = order;
        this.chunks = new ArrayList<>(pieces.size());
        for (List<RowRange> piece : pieces) {
            chunks.add(new Chunk(connection, name, piece, scanOf));
        }
        if (order == Order.DESCENDING) {
            Collections.reverse(chunks);
        }
    }

    /** The pool of {@code connection}'s parallel reads. */
    static ExecutorService pool(Connection connection) {
        synchronized (POOLS) {
            // An application that opens and closes connections would otherwise hold the idle readers
            // of every connection closed in the last 30 s.
            POOLS.entrySet().removeIf(closed -> {
                if (!closed.getKey().isClosed()) {
                    return false;
                }
                closed.getValue().shutdown();
                return true;
            });
            return POOLS.computeIfAbsent(connection, c -> {
                int threads = threads(c);
                ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(), runnable -> {
                            Thread t = new Thread(runnable, THREAD_NAME);
                            t.setDaemon(true);
                            return t;
                        });
                pool.allowCoreThreadTimeOut(true);
                return pool;
            });
        }
    }

    /** The connection's {@link #THREADS_KEY}, at least 1. */
    static int threads(Connection connection) {
        return Math.max(1, connection.getConfiguration().getInt(THREADS_KEY, THREADS_DEFAULT));
    }

    /**
     * The rows of {@code ranges} (sorted and disjoint; empty: the one scan {@code scanOf} makes of
     * none) of table {@code name}, each chunk read by the scan {@code scanOf} makes of its ranges.
     * A read of one chunk, or with a parallelism of 1, is the plain HBase scanner of that scan.
     */
    static ResultScanner open(Connection connection, TableName name, List<RowRange> ranges, Function<List<RowRange>, Scan> scanOf,
            int parallelism, Order order) throws IOException {
        Pieces pieces = pieces(connection, name, ranges, parallelism);
        if (pieces.pieces.size() == 1 && order != Order.DESCENDING) {
            Table table = connection.getTable(name);
            try {
                return new Closing(table.getScanner(scanOf.apply(pieces.pieces.get(0))), table);
            } catch (IOException | RuntimeException e) {
                table.close();
                throw e;
            }
        }
        return new Rows(new ParallelScanner<>(connection, name, pieces, scanOf, parallelism, order, rows -> rows));
    }

    /**
     * The batches of the rows of {@code ranges}, as {@link #open(Connection, TableName, List, Function, int, Order)}
     * reads them, each made by {@code prepare} where it is read.
     */
    static <T> ParallelScanner<T> open(Connection connection, TableName name, List<RowRange> ranges,
            Function<List<RowRange>, Scan> scanOf, int parallelism, Order order, Prepare<T> prepare) {
        return new ParallelScanner<>(connection, name, pieces(connection, name, ranges, parallelism), scanOf, parallelism,
                order, prepare);
    }

    /**
     * The batches of the rows of {@code streams} in descending order of {@code keyOf}: each stream
     * (sorted, disjoint ranges: a salted index's bucket) read as {@link Order#DESCENDING} reads it,
     * its rows then in descending {@code keyOf} order too, every stream at once (a serial read,
     * {@code parallelism} 1: one after another as the merge asks), their batches merged. The
     * streams' windows share the bounds of {@code parallelism} chunks read at once.
     */
    static <T> RowBatches<T> openMerged(Connection connection, TableName name, List<List<RowRange>> streams,
            Function<List<RowRange>, Scan> scanOf, int parallelism, Prepare<T> prepare, Function<T, byte[]> keyOf) {
        int share = (streams.size() + Math.max(1, parallelism) - 1) / Math.max(1, parallelism);
        List<ParallelScanner<T>> reads = new ArrayList<>(streams.size());
        for (List<RowRange> stream : streams) {
            reads.add(new ParallelScanner<>(connection, name, pieces(connection, name, stream, parallelism), scanOf, 1,
                    Order.DESCENDING, prepare, parallelism > 1, share));
        }
        return new MergedBatches<>(reads, keyOf);
    }

    /** A read's ranges in chunks, and the regions they were cut at (null: not cut at regions). */
    private static final class Pieces {
        final List<List<RowRange>> pieces;
        final Set<String> regions;

        Pieces(List<List<RowRange>> pieces, Set<String> regions) {
            this.pieces = pieces;
            this.regions = regions;
        }
    }

    /** The chunks of {@code ranges}: one per region they touch when read in parallel, else one. */
    private static Pieces pieces(Connection connection, TableName name, List<RowRange> ranges, int parallelism) {
        if (!ranges.isEmpty() && parallelism > 1) {
            try {
                Set<String> regions = new HashSet<>();
                return new Pieces(regionPieces(connection, name, ranges, regions), regions);
            } catch (IOException e) {
                // Regions unknown (the table may be gone): one scan, whose first read says why.
            }
        }
        return new Pieces(Collections.singletonList(ranges), null);
    }

    /**
     * The ranges cut at region boundaries and grouped by region, in key order: one group per region
     * the ranges touch (located through the connection's region cache).
     */
    static List<List<RowRange>> regionPieces(Connection connection, TableName name, List<RowRange> ranges) throws IOException {
        return regionPieces(connection, name, ranges, new HashSet<>());
    }

    /** {@link #regionPieces(Connection, TableName, List)}, adding the encoded name of each region cut at to {@code regions}. */
    private static List<List<RowRange>> regionPieces(Connection connection, TableName name, List<RowRange> ranges,
            Set<String> regions) throws IOException {
        List<List<RowRange>> pieces = new ArrayList<>();
        byte[] pieceRegionEnd = null;
        try (RegionLocator locator = connection.getRegionLocator(name)) {
            for (RowRange range : ranges) {
                byte[] start = range.getStartRow();
                byte[] stop = range.getStopRow();
                while (true) {
                    HRegionLocation location = locator.getRegionLocation(start, false);
                    regions.add(location.getRegion().getEncodedName());
                    byte[] regionEnd = location.getRegion().getEndKey();
                    // A region ending at or before the start (never from the cache, which checks) ends the cutting.
                    boolean endsInRegion = regionEnd.length == 0 || Bytes.compareTo(regionEnd, start) <= 0
                            || (stop.length > 0 && Bytes.compareTo(stop, regionEnd) <= 0);
                    RowRange piece = new RowRange(start, true, endsInRegion ? stop : regionEnd, false);
                    if (pieceRegionEnd == null || !Bytes.equals(pieceRegionEnd, regionEnd)) {
                        pieces.add(new ArrayList<>());
                        pieceRegionEnd = regionEnd;
                    }
                    pieces.get(pieces.size() - 1).add(piece);
                    if (endsInRegion) {
                        break;
                    }
                    start = regionEnd;
                }
            }
        }
        return pieces;
    }

    /**
     * The rows of one turn of a chunk: the scan's caching (what one round trip returns), else the
     * connection's, at most {@value #BATCH} and at least 1.
     */
    static int turnRows(int scanCaching, int connectionCaching) {
        return Math.max(1, Math.min(BATCH, scanCaching > 0 ? scanCaching : connectionCaching));
    }

    /** Describes how {@link #open} reads {@code ranges}: chunks, regions, and how many at once. */
    static String describe(Connection connection, TableName name, List<RowRange> ranges, int parallelism) {
        if (ranges.isEmpty()) {
            return "serial: nothing to read";
        }
        try {
            int chunks = regionPieces(connection, name, ranges).size();
            int at = Math.min(parallelism, chunks);
            return at <= 1 ? "serial: " + chunks + " chunk(s), one scan"
                    : "parallel " + at + "-way: " + chunks + " chunk(s), one per region the ranges touch";
        } catch (IOException e) {
            return "regions unknown (" + e.getMessage() + "): up to " + parallelism + "-way parallel";
        }
    }

    /**
     * The next batch, prepared (empty when its rows made nothing); null when no row is left. It
     * throws the first failure of any chunk as it is (an IOException or an unchecked one).
     */
    @Override
    public List<T> next() throws IOException {
        Chunk delivered = null;
        synchronized (lock) {
            if (closed) {
                return null;
            }
            start();
            if (active.isEmpty()) {
                return null;
            }
            try {
                while (failure == null && (delivered = deliverable()) == null) {
                    if (pool == null) {
                        active.peek().readBatch(); // this thread reads the one chunk
                    } else {
                        lock.wait();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                closeAll();
                throw new InterruptedIOException("interrupted while waiting for a parallel read");
            }
            if (failure != null) {
                Throwable cause = failure;
                closeAll();
                if (cause instanceof IOException) {
                    throw (IOException) cause;
                }
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                throw new IOException("a parallel read failed", cause);
            }
            List<T> batch = delivered.batch;
            delivered.batch = null;
            if (delivered.exhausted) {
                active.remove(delivered);
                delivered.closeScanner();
            } else if (pool != null) {
                delivered.fetch(); // the next batch, read while this one is handed out
            }
            return batch;
        }
    }

    /** Starts reading the chunks up to the parallelism, in the pool (a merge starts every read so before it waits for one). */
    @Override
    public void start() {
        synchronized (lock) {
            while (!closed && started < chunks.size() && active.size() < parallelism) {
                Chunk c = chunks.get(started++);
                active.add(c);
                if (pool != null) {
                    c.fetch();
                }
            }
        }
    }

    @Override
    public void whenAllRead(Runnable whenRead) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (chunksRead < chunks.size()) {
                allRead = whenRead;
                return;
            }
        }
        whenRead.run();
    }

    /** A chunk whose batch may be handed out now: the first in the read's order, or any in {@link Order#ANY}. */
    private Chunk deliverable() {
        if (order != Order.ANY) {
            Chunk head = active.peek();
            return head.batch != null ? head : null;
        }
        for (Chunk c : active) {
            if (c.batch != null) {
                return c;
            }
        }
        return null;
    }

    @Override
    public void close() {
        synchronized (lock) {
            closeAll();
        }
    }

    /** Closes every chunk (under {@link #lock}); a chunk whose batch is being read closes when it ends. */
    private void closeAll() {
        closed = true;
        for (Chunk c : active) {
            c.closeScanner();
        }
        active.clear();
    }

    /** Renews the leases of the chunks' scanners that no task is reading. */
    @Override
    public boolean renewLease() {
        boolean renewed = true;
        synchronized (lock) {
            for (Chunk c : active) {
                if (!c.reading && c.scanner != null) {
                    renewed &= c.scanner.renewLease();
                }
            }
        }
        return renewed;
    }

    /**
     * HBase's client names the regions a scan read in its metrics when asked (HBase 2.6.3 and
     * later: {@code ScanMetrics.collectMetricsByRegion}); false on an HBase client without it.
     */
    static final boolean REGIONS_NAMED = hasRegionMetrics();

    private static boolean hasRegionMetrics() {
        try {
            ScanMetrics.class.getMethod("collectMetricsByRegion", boolean.class);
            return true;
        } catch (NoSuchMethodException | LinkageError e) {
            return false;
        }
    }

    /** {@code scan} asking HBase's client to name each region it reads in its metrics (an attribute older clients ignore). */
    private static Scan regionsNamed(Scan scan) {
        return REGIONS_NAMED ? scan.setScanMetricsEnabled(true).setEnableScanMetricsByRegion(true) : scan;
    }

    /**
     * Whether every region this read's scanners read rows from is one of the regions its chunks
     * were cut at, by identity (an encoded region name is the table's, the region's start key and
     * its id: a region split, merged or made again by a table made again has another, a region
     * moved to another server keeps its own), as HBase's client names them in each scanner's
     * metrics. False when the ranges were not cut at regions, or the client does not name regions,
     * or a scanner read one not cut at (it resumed in a daughter, or in another table of the name).
     * A read through an index whose chunks were cut before its catalog check, true here, read
     * only regions of the index's table as that check saw it: a table made again under the name
     * after the check has regions none of which existed when the chunks were cut.
     */
    @Override
    public boolean readOnlyRegionsCut() {
        if (regionsCut == null || !REGIONS_NAMED) {
            return false;
        }
        synchronized (chunkMetrics) {
            try {
                for (ScanMetrics m : chunkMetrics) {
                    for (ScanMetricsRegionInfo region : m.collectMetricsByRegion(false).keySet()) {
                        if (!regionsCut.contains(region.getEncodedRegionName())) {
                            return false;
                        }
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                return false; // e.g. one region read twice from one server: HBase's map refuses the key
            }
        }
        return true;
    }

    /** The sum of the chunks' scan metrics. */
    @Override
    public ScanMetrics getScanMetrics() {
        synchronized (chunkMetrics) {
            return sum(chunkMetrics);
        }
    }

    /** The sum of {@code metrics}, counter by counter. */
    static ScanMetrics sum(Iterable<ScanMetrics> metrics) {
        ScanMetrics sum = new ScanMetrics();
        for (ScanMetrics m : metrics) {
            m.getMetricsMap().forEach(sum::addToCounter);
        }
        return sum;
    }

    /**
     * The scan of one region's ranges: its scanner opened by its first task, read a batch per task;
     * in a {@link Order#DESCENDING} read, its windows from the top down, one window per task.
     */
    private final class Chunk {
        final Connection connection;
        final TableName name;
        final List<RowRange> ranges;
        final Function<List<RowRange>, Scan> scanOf;
        /** The forward read's scan; null in a {@link Order#DESCENDING} read, whose windows make their own. */
        final Scan scan;
        /** Rows of one turn: what one round trip of its scan returns, at most {@value #BATCH}. */
        final int turnRows;
        Table table;
        ResultScanner scanner;
        /** A descending read's windows, made by its first task. */
        BackwardWindows windows;
        /** A batch read and prepared, not handed out (under {@link #lock}). */
        List<T> batch;
        boolean exhausted;
        /** A task is reading (it owns {@link #scanner} meanwhile). */
        boolean reading;
        /** Closed while its task was reading: the task closes the scanner when it ends. */
        volatile boolean released;

        Chunk(Connection connection, TableName name, List<RowRange> ranges, Function<List<RowRange>, Scan> scanOf) {
            this.connection = connection;
            this.name = name;
            this.ranges = ranges;
            this.scanOf = scanOf;
            Scan whole = scanOf.apply(ranges);
            this.turnRows = turnRows(whole.getCaching(), connectionCaching);
            this.scan = order == Order.DESCENDING ? null : whole.setScanMetricsEnabled(true);
        }

        /** Starts reading the next batch (under {@link #lock}). */
        void fetch() {
            reading = true;
            try {
                pool.execute(this::readBatch);
            } catch (RejectedExecutionException e) {
                reading = false;
                failure = e;
            }
        }

        /** Reads one turn of the chunk; queues the next turn itself when this one made nothing to hand over. */
        private void readBatch() {
            List<Result> rows = new ArrayList<>(Math.min(turnRows, 64));
            List<T> prepared = null;
            Throwable error = null;
            boolean end = false;
            try {
                if (released) {
                    end = true; // closed before its turn came: nothing to open
                } else if (order == Order.DESCENDING) {
                    if (windows == null) {
                        table = connection.getTable(name);
                        // Windows keep 64 turns' rows and aim at 32, or at half of BackwardWindows.KEEP_BYTES
                        // when that is fewer (a forward round trip's bytes): a window is a scan of its
                        // own, so fewer, larger ones are fewer round trips. Merged with more reads than
                        // the parallelism, a share of that: all of them hold their windows at once.
                        windows = new BackwardWindows(table, ranges, scanOf, chunkMetrics::add, 64 * turnRows / keepShare,
                                BackwardWindows.KEEP_BYTES / keepShare);
                    }
                    end = windows.read(rows, () -> released);
                    prepared = prepare.apply(rows);
                } else if (scanner == null) {
                    table = connection.getTable(name);
                    scanner = table.getScanner(scan);
                    ScanMetrics metrics = scanner.getScanMetrics();
                    if (metrics != null) {
                        chunkMetrics.add(metrics);
                    }
                }
                if (!released && order != Order.DESCENDING) {
                    Result r = null;
                    while (rows.size() < turnRows && !released && (r = scanner.next()) != null) {
                        rows.add(r);
                    }
                    end = r == null;
                    prepared = prepare.apply(rows);
                }
            } catch (Throwable t) {
                error = t;
            }
            Runnable lastRead = null;
            synchronized (lock) {
                reading = false;
                if (released) {
                    closeScanner();
                } else if (error != null) {
                    if (failure == null) {
                        failure = error;
                    }
                } else if (prepared.isEmpty() && !end && pool != null && failure == null) {
                    fetch(); // nothing for the consumer: the next turn, behind the tasks waiting now
                } else {
                    batch = prepared;
                    exhausted = end;
                    if (end && ++chunksRead == chunks.size()) {
                        lastRead = allRead;
                        allRead = null;
                    }
                }
                lock.notifyAll();
            }
            if (lastRead != null) {
                lastRead.run();
            }
        }

        /** Closes the scanner now, or when its task ends (under {@link #lock}). */
        void closeScanner() {
            released = true;
            if (reading) {
                return;
            }
            if (scanner != null) {
                scanner.close();
                scanner = null;
            }
            if (table != null) {
                try {
                    table.close();
                } catch (IOException ignored) {
                    // nothing is buffered: a table of a shared connection
                }
                table = null;
            }
        }
    }

    /** The rows of a parallel read, one at a time. */
    private static final class Rows implements ResultScanner {
        private final ParallelScanner<Result> batches;
        private List<Result> batch = Collections.emptyList();
        private int next;

        Rows(ParallelScanner<Result> batches) {
            this.batches = batches;
        }

        @Override
        public Result next() throws IOException {
            while (next == batch.size()) {
                batch = batches.next();
                next = 0;
                if (batch == null) {
                    batch = Collections.emptyList();
                    return null;
                }
            }
            return batch.get(next++);
        }

        @Override
        public void close() {
            batches.close();
        }

        @Override
        public boolean renewLease() {
            return batches.renewLease();
        }

        @Override
        public ScanMetrics getScanMetrics() {
            return batches.getScanMetrics();
        }
    }

    /** A data table scanner that also closes its table. */
    private static final class Closing implements ResultScanner {
        private final ResultScanner scanner;
        private final Table table;

        Closing(ResultScanner scanner, Table table) {
            this.scanner = scanner;
            this.table = table;
        }

        @Override
        public Result next() throws IOException {
            return scanner.next();
        }

        @Override
        public void close() {
            scanner.close();
            try {
                table.close();
            } catch (IOException ignored) {
                // nothing is buffered: a table of a shared connection
            }
        }

        @Override
        public boolean renewLease() {
            return scanner.renewLease();
        }

        @Override
        public ScanMetrics getScanMetrics() {
            return scanner.getScanMetrics();
        }
    }
}
