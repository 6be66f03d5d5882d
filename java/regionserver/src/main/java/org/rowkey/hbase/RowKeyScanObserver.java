package org.rowkey.hbase;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.metrics.ServerSideScanMetrics;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.RowKeyScannerContexts;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.rowkey.hbase.proto.RowKeyProtos.AggregateRequest;

/**
 * The scan side of a RegionServer, installed by {@link RowKeyTable#create} on the data table and every
 * index table (the index write path is {@link RowKeyIndexObserver}'s alone). It does two things to a
 * scan as it opens, and lets every other scan pass untouched:
 *
 * <ul>
 * <li><b>The filter language's catalog</b>: each {@link RowKeyWhere} of the scan that names no schema
 *     gets the table's (from the catalog in its descriptor), so a text query plans inside the region;
 *     a where clause that does not parse fails the scan with a {@link DoNotRetryIOException} naming why.
 * <li><b>Aggregates inside the regions</b> (docs/aggregates.md): a scan that carries an
 *     {@code AggregateRequest} in its {@value #REQUEST_ATTRIBUTE} attribute gets its region scanner
 *     wrapped: each call of the client's scanner folds the rows the scan reads (its ranges, skip scan
 *     and native filter apply as for any scan) natively, a batch of rows per native call, until a row
 *     or time budget is spent, and returns one row: the key of the last row it read, holding the
 *     partial state of what it folded (and, on an index table, the keys of the index rows the client
 *     must check, end to end). The client merges the partials; since each one covers exactly the rows
 *     up to its row key, HBase's own scanner resumes after it when a region splits, moves or its
 *     server dies, and no row is counted twice or missed.
 *
 * <li><b>The catalog to clients without a descriptor</b>: a scan with the {@value #CATALOG_ATTRIBUTE}
 *     attribute (any value) gets one row from the first region it opens, whose cell
 *     {@code \0rowkey.catalog} holds the table's catalog: how a Thrift1 client (the Python package's
 *     {@code schema_of}), which cannot read a table descriptor, learns the schema. The same for
 *     {@code rowkey.version}: the jar version this RegionServer runs ({@code RowKeyCli status}).
 * </ul>
 *
 * <p>To add it to a table made otherwise, add the coprocessor {@code org.rowkey.hbase.RowKeyScanObserver}
 * to its descriptor (with the jar in HBase's {@code lib/}); tables made by earlier versions name it
 * {@link RowKeyAggregateObserver}, which is the same observer.
 *
 * <p>Inside a RegionServer it throws only {@link IOException}s: a request it cannot read or
 * compile, or a fold that fails (a group cap, the byte limit {@value #MAX_BYTES_SETTING}, a cell that
 * is not a number), is a {@link DoNotRetryIOException} naming the problem, and the server goes on
 * serving.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public class RowKeyScanObserver implements RegionCoprocessor, RegionObserver {
    private static final Logger LOG = LoggerFactory.getLogger(RowKeyScanObserver.class);

    /** The Scan attribute holding a serialized {@code AggregateRequest}. */
    public static final String REQUEST_ATTRIBUTE = CoprocessorWire.AGGREGATE_REQUEST;
    /** The Scan attribute asking for the table's catalog instead of rows. */
    public static final String CATALOG_ATTRIBUTE = CoprocessorWire.CATALOG_REQUEST;
    /**
     * The setting of the bytes one request's groups may hold (docs/aggregates.md, "Memory bound"),
     * read from the RegionServer's configuration, and from the client's for its merge: unset or 0,
     * 64 MiB; at most 1 GiB (a larger value counts as 1 GiB). A request may ask for less
     * ({@link Aggregation#maxBytes}), never more. A new group past it fails the call with a
     * {@link DoNotRetryIOException} naming it.
     */
    public static final String MAX_BYTES_SETTING = CoprocessorWire.AGGREGATE_MAX_BYTES;

    /** The most rows one call may fold, whatever the request asks. */
    static final int MAX_ROW_BUDGET = 100_000_000;
    /** At most this part of the RPC timeout: a call always answers well within it. */
    private static final int RPC_TIMEOUT_SHARE = 4;
    /** Bytes of index row keys one call returns for checking before it ends early. */
    static final int CHECK_BYTES_BUDGET = 1 << 20;
    /** The request's serialized size limit (as every native message). */
    private static final int MAX_REQUEST_BYTES = 1 << 20;

    private int maxTimeBudgetMs = CoprocessorWire.DEFAULT_TIME_BUDGET_MS * 10;
    private TableName table;
    /** The schema of the table's catalog, for RowKeyWhere filters that name none; null: no catalog. */
    private RowKeySchema catalogSchema;
    /** The catalog as the descriptor holds it, for {@value #CATALOG_ATTRIBUTE} scans; null: none. */
    private byte[] catalogBytes;
    /** Why the table's catalog could not be read; a RowKeyWhere that needs it is refused with it. */
    private String catalogError;
    /** This server's {@value #MAX_BYTES_SETTING} (0: the default). */
    private long maxBytes;
    private CoprocessorMetrics metrics = CoprocessorMetrics.of(null);

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    @Override
    public void start(CoprocessorEnvironment env) {
        metrics = CoprocessorMetrics.of(env, CoprocessorMetrics.WHERE_FILTERS_BOUND, CoprocessorMetrics.WHERE_REFUSALS,
                CoprocessorMetrics.AGGREGATE_REQUESTS, CoprocessorMetrics.AGGREGATE_REFUSALS, CoprocessorMetrics.AGGREGATE_ROWS_FOLDED,
                CoprocessorMetrics.AGGREGATE_PARTIALS, CoprocessorMetrics.AGGREGATE_PARTIAL_BYTES, CoprocessorMetrics.AGGREGATE_FAILURES,
                CoprocessorMetrics.CATALOG_REQUESTS, CoprocessorMetrics.VERSION_REQUESTS, CoprocessorMetrics.READER_REPAIRS,
                CoprocessorMetrics.READER_REPAIRS_LOST, CoprocessorMetrics.READER_STALE_MARKS, CoprocessorMetrics.READER_STALE_MARKS_LOST,
                CoprocessorMetrics.VERIFY_REPAIRS, CoprocessorMetrics.VERIFY_REPAIRS_LOST, CoprocessorMetrics.AGGREGATE_BUDGET_STOPS,
                CoprocessorMetrics.AGGREGATE_REFUSED_TOO_LARGE, CoprocessorMetrics.AGGREGATE_REFUSED_REVERSED,
                CoprocessorMetrics.AGGREGATE_REFUSED_CORRUPT, CoprocessorMetrics.AGGREGATE_REFUSED_NEWER_FORMAT,
                CoprocessorMetrics.AGGREGATE_REFUSED_SPEC).withNativeGauges();
        int rpcTimeout = env.getConfiguration().getInt("hbase.rpc.timeout", 60_000);
        maxTimeBudgetMs = Math.max(1, rpcTimeout / RPC_TIMEOUT_SHARE);
        maxBytes = env.getConfiguration().getLong(MAX_BYTES_SETTING, 0);
        try {
            TableDescriptor descriptor = ((RegionCoprocessorEnvironment) env).getRegion().getTableDescriptor();
            table = descriptor.getTableName();
            byte[] catalog = descriptor.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
            catalogSchema = catalog == null ? null : Catalog.parse(catalog).schema(); // an index table has none
            catalogBytes = catalog;
        } catch (Throwable t) {
            // Never thrown from start: the region would not open. Scans that need the catalog say why.
            catalogError = "the catalog of table " + table + " cannot be read: " + t;
            LOG.error("hbase-rowkey: " + catalogError, t);
        }
    }

    /**
     * Gives each {@link RowKeyWhere} of the scan that names no schema the table's (from the
     * catalog), so filter-language queries plan inside the region; a where clause that does not
     * parse fails the scan with a {@link DoNotRetryIOException} naming why.
     */
    /**
     * Counts the conditional writes that settle an index row (a reader's repair or STALE mark, a
     * verify's repair: {@link IndexRowFormat#SETTLING}), and those whose condition failed because a
     * write of the row got there first.
     */
    @Override
    public CheckAndMutateResult postCheckAndMutate(ObserverContext<RegionCoprocessorEnvironment> c, CheckAndMutate checkAndMutate,
            CheckAndMutateResult result) {
        Row action = checkAndMutate.getAction();
        if (action instanceof RowMutations && !((RowMutations) action).getMutations().isEmpty()) {
            action = ((RowMutations) action).getMutations().get(0);
        }
        byte[] kind = action instanceof Mutation ? ((Mutation) action).getAttribute(IndexRowFormat.SETTLING) : null;
        if (kind != null && kind.length == 1) {
            boolean held = result.isSuccess();
            switch (kind[0]) {
                case IndexRowFormat.REPAIRED_BY_READER:
                    metrics.count(held ? CoprocessorMetrics.READER_REPAIRS : CoprocessorMetrics.READER_REPAIRS_LOST);
                    break;
                case IndexRowFormat.MARKED_STALE_BY_READER:
                    metrics.count(held ? CoprocessorMetrics.READER_STALE_MARKS : CoprocessorMetrics.READER_STALE_MARKS_LOST);
                    break;
                case IndexRowFormat.REPAIRED_BY_VERIFY:
                    metrics.count(held ? CoprocessorMetrics.VERIFY_REPAIRS : CoprocessorMetrics.VERIFY_REPAIRS_LOST);
                    break;
                default:
                    break; // a kind of a newer client: not ours to count
            }
        }
        return result;
    }

    @Override
    public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan) throws IOException {
        if (scan.getFilter() == null) {
            return;
        }
        if (catalogError != null && RowKeyWhere.needsCatalog(scan.getFilter())) {
            metrics.count(CoprocessorMetrics.WHERE_REFUSALS);
            throw new DoNotRetryIOException("hbase-rowkey: a RowKeyWhere filter without a schema: " + catalogError);
        }
        long start = System.nanoTime();
        try {
            if (RowKeyWhere.bindToCatalog(scan.getFilter(), catalogSchema) > 0) {
                metrics.count(CoprocessorMetrics.WHERE_FILTERS_BOUND);
                metrics.microsSince(CoprocessorMetrics.WHERE_BIND_MICROS, start);
            }
        } catch (IOException e) {
            metrics.count(CoprocessorMetrics.WHERE_REFUSALS);
            throw e;
        } catch (Throwable t) {
            metrics.count(CoprocessorMetrics.WHERE_REFUSALS);
            throw new DoNotRetryIOException("hbase-rowkey: binding a RowKeyWhere filter to the catalog of " + table + " failed", t);
        }
    }

    @Override
    public RegionScanner postScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan, RegionScanner s)
            throws IOException {
        byte[] family = c.getEnvironment().getRegion().getTableDescriptor().getColumnFamilies()[0].getName();
        if (scan.getAttribute(CATALOG_ATTRIBUTE) != null && catalogBytes != null) {
            metrics.count(CoprocessorMetrics.CATALOG_REQUESTS);
            return new OneCellScanner(s, family, CoprocessorWire.CATALOG_QUALIFIER, catalogBytes);
        }
        if (scan.getAttribute(CoprocessorWire.VERSION_REQUEST) != null) {
            metrics.count(CoprocessorMetrics.VERSION_REQUESTS);
            return new OneCellScanner(s, family, CoprocessorWire.VERSION_QUALIFIER, Bytes.toBytes(RowKeyVersion.describe()));
        }
        if (scan.getAttribute(CoprocessorWire.METRICS_REQUEST) != null) {
            return new OneCellScanner(s, family, CoprocessorWire.METRICS_QUALIFIER, Bytes.toBytes(CoprocessorMetrics.snapshot()));
        }
        byte[] request = scan.getAttribute(REQUEST_ATTRIBUTE);
        if (request == null) {
            return s;
        }
        metrics.count(CoprocessorMetrics.AGGREGATE_REQUESTS);
        try {
            return new AggregatingScanner(s, parse(request, scan), family, metrics);
        } catch (IOException | RuntimeException | Error e) {
            metrics.count(CoprocessorMetrics.AGGREGATE_REFUSALS);
            try {
                s.close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            if (e instanceof DoNotRetryIOException) {
                throw (DoNotRetryIOException) e;
            }
            // Nothing else leaves a hook: any other throwable would abort the RegionServer.
            throw new DoNotRetryIOException("hbase-rowkey: the aggregation of " + s.getRegionInfo().getRegionNameAsString()
                    + " cannot start: " + e.getMessage(), e);
        }
    }

    /** The refusal of an aggregate request, counted by its reason (and in AggregateRefusals with every other). */
    private DoNotRetryIOException refused(String reason, String message) {
        metrics.count(reason);
        return new DoNotRetryIOException(message);
    }

    /** A checked request, with its budgets capped by this server's. */
    private Request parse(byte[] bytes, Scan scan) throws DoNotRetryIOException {
        if (bytes.length > MAX_REQUEST_BYTES) {
            throw refused(CoprocessorMetrics.AGGREGATE_REFUSED_TOO_LARGE, "hbase-rowkey: aggregate request of " + bytes.length
                    + " bytes, at most " + MAX_REQUEST_BYTES + " allowed");
        }
        if (scan.isReversed()) {
            throw refused(CoprocessorMetrics.AGGREGATE_REFUSED_REVERSED, "hbase-rowkey: an aggregate request on a reversed scan");
        }
        AggregateRequest request;
        try {
            request = AggregateRequest.parseFrom(bytes);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw refused(CoprocessorMetrics.AGGREGATE_REFUSED_CORRUPT, "hbase-rowkey: corrupt aggregate request: " + e.getMessage());
        }
        if (request.getFormatVersion() > RowKeySchema.FORMAT_VERSION) {
            throw refused(CoprocessorMetrics.AGGREGATE_REFUSED_NEWER_FORMAT, "hbase-rowkey: unsupported format version "
                    + request.getFormatVersion() + " of aggregate request (this server reads up to " + RowKeySchema.FORMAT_VERSION + ")");
        }
        NativeAggregator aggregator;
        try {
            // The spec's own bytes go through the native checks (size, pre-scan, version, limits).
            aggregator = new NativeAggregator(request.getAggregation().toByteArray(), maxBytes);
        } catch (IllegalArgumentException e) {
            throw refused(CoprocessorMetrics.AGGREGATE_REFUSED_SPEC, "hbase-rowkey: aggregate request refused: " + e.getMessage());
        }
        int rows = request.getRowBudget() == 0 ? CoprocessorWire.DEFAULT_ROW_BUDGET
                : Math.min(request.getRowBudget(), MAX_ROW_BUDGET);
        int millis = Math.min(request.getTimeBudgetMs() == 0 ? CoprocessorWire.DEFAULT_TIME_BUDGET_MS : request.getTimeBudgetMs(),
                maxTimeBudgetMs);
        return new Request(aggregator, rows, millis, request.getIndexRows(), request.getCheckEveryRow());
    }

    private static final class Request {
        final NativeAggregator aggregator;
        final int rowBudget;
        final long timeBudgetNanos;
        final boolean indexRows;
        final boolean checkEveryRow;

        Request(NativeAggregator aggregator, int rowBudget, int timeBudgetMs, boolean indexRows, boolean checkEveryRow) {
            this.aggregator = aggregator;
            this.rowBudget = Math.max(1, rowBudget);
            this.timeBudgetNanos = timeBudgetMs * 1_000_000L;
            this.indexRows = indexRows || checkEveryRow;
            this.checkEveryRow = checkEveryRow;
        }
    }

    /**
     * Whether an index row with this status cell (null: none) is counted on the server without
     * reading its data row: the one place that decides it (docs/aggregates.md). Only VERIFIED rows;
     * UNVERIFIED ones and rows without a status go to the client, which checks their data rows.
     */
    static boolean trustedIndexRow(Cell status) {
        return IndexRowFormat.isStatus(status, IndexRowFormat.VERIFIED);
    }

    /** Whether an index row with this status is skipped altogether (its write never reached the data table). */
    static boolean staleIndexRow(Cell status) {
        return IndexRowFormat.isStatus(status, IndexRowFormat.STALE);
    }

    /** The status cell among an index row's cells, or null. */
    private static Cell status(List<Cell> cells) {
        for (Cell cell : cells) {
            if (CellUtil.matchingQualifier(cell, IndexRowFormat.STATUS)
                    && CellUtil.matchingFamily(cell, IndexRowFormat.FAMILY)) {
                return cell;
            }
        }
        return null;
    }

    /**
     * The region scanner of a catalog, version or metrics request: one row, keyed just after the region's start
     * key (so that it lies in the region), whose one cell holds the answer; the region's rows are not
     * read.
     */
    static final class OneCellScanner extends ForwardingRegionScanner {
        private final byte[] family;
        private final byte[] qualifier;
        private final byte[] value;
        private boolean done;

        OneCellScanner(RegionScanner scanner, byte[] family, byte[] qualifier, byte[] value) {
            super(scanner);
            this.family = family;
            this.qualifier = qualifier;
            this.value = value;
        }

        @Override
        public boolean nextRaw(List<Cell> result) {
            if (!done) {
                done = true;
                byte[] row = Bytes.add(scanner.getRegionInfo().getStartKey(), new byte[] {0});
                result.add(CellBuilderFactory.create(CellBuilderType.DEEP_COPY).setRow(row).setFamily(family)
                        .setQualifier(qualifier).setTimestamp(HConstants.LATEST_TIMESTAMP)
                        .setType(Cell.Type.Put).setValue(value).build());
            }
            return false;
        }

        @Override
        public boolean nextRaw(List<Cell> result, ScannerContext context) {
            return nextRaw(result);
        }

        @Override
        public boolean next(List<Cell> result, ScannerContext context) {
            return nextRaw(result);
        }
    }

    /** The region scanner of an aggregate request: one partial state per call. */
    static final class AggregatingScanner extends ForwardingRegionScanner {
        private final Request request;
        private final FoldBatch batch;
        private final byte[] family;
        private final List<Cell> row = new ArrayList<>();
        /**
         * Reads the rest of a row that a call's time limit cut in two (a row is folded whole, and a
         * row's cells are few), without a limit. Counts the rows it reads in the RPC's scan metrics.
         */
        private final ScannerContext restOfRow = ScannerContext.newBuilder().setTrackMetrics(true).build();
        private boolean exhausted;
        private final CoprocessorMetrics metrics;

        AggregatingScanner(RegionScanner scanner, Request request, byte[] family, CoprocessorMetrics metrics) {
            super(scanner);
            this.request = request;
            this.batch = new FoldBatch(request.aggregator);
            this.family = family;
            this.metrics = metrics;
        }

        @Override
        public boolean nextRaw(List<Cell> result) throws IOException {
            return nextRaw(result, null);
        }

        /**
         * One partial state; the rows read for it counted in the caller's scan metrics (ROWS_SCANNED,
         * ROWS_FILTERED). The region scanner is driven with a time limit of the call's budget, so that
         * a region whose rows the filter drops is read a budget at a time too (HBase's own scans stop
         * there the same way; the RPC answers with a heartbeat).
         */
        @Override
        public boolean nextRaw(List<Cell> result, ScannerContext context) throws IOException {
            ScannerContext timed = ScannerContext.newBuilder().setTrackMetrics(true)
                    .setTimeLimit(ScannerContext.LimitScope.BETWEEN_CELLS,
                            // +1: the clock's millisecond may turn at once; every call reads something
                            EnvironmentEdgeManager.currentTime() + request.timeBudgetNanos / 1_000_000 + 1)
                    .build();
            ServerSideScanMetrics rest = restOfRow.getMetrics();
            long scanned = rest.countOfRowsScanned.get();
            long filtered = rest.countOfRowsFiltered.get();
            try {
                boolean more = foldSome(result, timed);
                if (more && result.isEmpty()) {
                    // The budget went on rows that fold nothing: end this RPC with a heartbeat.
                    RowKeyScannerContexts.endCallNow(context);
                }
                return more;
            } catch (IOException e) {
                metrics.count(CoprocessorMetrics.AGGREGATE_FAILURES);
                throw e;
            } catch (IllegalArgumentException e) {
                metrics.count(CoprocessorMetrics.AGGREGATE_FAILURES);
                throw new DoNotRetryIOException("hbase-rowkey: the aggregation of "
                        + scanner.getRegionInfo().getRegionNameAsString() + " failed: " + e.getMessage());
            } catch (RuntimeException | Error e) {
                metrics.count(CoprocessorMetrics.AGGREGATE_FAILURES);
                LOG.warn("hbase-rowkey: the aggregation of " + scanner.getRegionInfo().getRegionNameAsString() + " failed", e);
                throw new DoNotRetryIOException("hbase-rowkey: the aggregation of "
                        + scanner.getRegionInfo().getRegionNameAsString() + " failed: " + e, e);
            } finally {
                if (context != null && context.isTrackingMetrics()) {
                    ServerSideScanMetrics to = context.getMetrics();
                    to.countOfRowsScanned.addAndGet(timed.getMetrics().countOfRowsScanned.get()
                            + rest.countOfRowsScanned.get() - scanned);
                    to.countOfRowsFiltered.addAndGet(timed.getMetrics().countOfRowsFiltered.get()
                            + rest.countOfRowsFiltered.get() - filtered);
                }
            }
        }

        /**
         * Folds rows until the region has no more, the row or time budget is spent, or enough index
         * keys wait for checking; then adds the partial state of those rows to {@code result} as one
         * row keyed by the last row read. Returns whether the region may have more rows.
         */
        private boolean foldSome(List<Cell> result, ScannerContext timed) throws IOException {
            if (exhausted) {
                return false;
            }
            long deadline = System.nanoTime() + request.timeBudgetNanos;
            int keyLength = batch.keyLength();
            // The last row read: its cells stay valid until the call returns (blocks are released
            // by shipped(), after the response is sent), so it is copied once, at the end.
            Cell lastRow = null;
            ByteArrayOutputStream checks = new ByteArrayOutputStream();
            int read = 0;
            boolean more = true;
            while (more) {
                row.clear();
                more = scanner.nextRaw(row, timed);
                if (row.isEmpty()) {
                    break; // the region has no more rows, or the time limit passed over filtered ones
                }
                // The time limit may cut a row, which is folded whole: its rest is read without a limit.
                // When the rest is filtered out, that call returns the next row instead, whole.
                boolean cut = more && RowKeyScannerContexts.stoppedInsideRow(timed);
                List<Cell> next = null;
                if (cut) {
                    next = new ArrayList<>();
                    more = scanner.nextRaw(next, restOfRow);
                    if (!next.isEmpty() && CellUtil.matchingRows(next.get(0), row.get(0))) {
                        row.addAll(next);
                        next = null;
                    }
                }
                for (List<Cell> whole : next == null || next.isEmpty() ? Collections.singletonList(row) : Arrays.asList(row, next)) {
                    read++;
                    lastRow = whole.get(0);
                    fold(whole, keyLength, checks);
                }
                // The deadline too: with a filter that decides on whole rows (hasFilterRow), HBase
                // moves the time limit between rows, where matching rows never meet it.
                if (cut || read >= request.rowBudget || checks.size() >= CHECK_BYTES_BUDGET
                        || ((read & 255) == 0 && System.nanoTime() >= deadline)) {
                    break;
                }
            }
            batch.flush();
            exhausted = !more;
            if (more) {
                metrics.count(CoprocessorMetrics.AGGREGATE_BUDGET_STOPS); // a partial before the region's end
            }
            if (lastRow == null) {
                return more;
            }
            byte[] key = CellUtil.cloneRow(lastRow);
            if (checks.size() > 0) {
                result.add(cell(key, CoprocessorWire.CHECK_QUALIFIER, checks.toByteArray()));
            }
            byte[] partial = request.aggregator.takePartial();
            result.add(cell(key, CoprocessorWire.PARTIAL_QUALIFIER, partial));
            metrics.count(CoprocessorMetrics.AGGREGATE_ROWS_FOLDED, read);
            metrics.count(CoprocessorMetrics.AGGREGATE_PARTIALS);
            metrics.count(CoprocessorMetrics.AGGREGATE_PARTIAL_BYTES, partial.length);
            return more;
        }

        /** Folds one row read, or adds its key to those the client checks. */
        private void fold(List<Cell> row, int keyLength, ByteArrayOutputStream checks) {
            Cell first = row.get(0);
            if (first.getRowLength() != keyLength) {
                return; // not a row of the schema (the scan's filter drops these too)
            }
            if (!request.indexRows) {
                batch.add(row);
                return;
            }
            Cell status = status(row);
            if (staleIndexRow(status)) {
                return;
            }
            if (request.checkEveryRow || !trustedIndexRow(status)) {
                checks.write(CellUtil.cloneRow(first), 0, keyLength);
                return;
            }
            // A VERIFIED row is its data row's copy as of its status's stamp (IndexRowFormat).
            batch.addIndexRow(row, status.getTimestamp());
        }

        /** A cell holding {@code value} itself, not a copy: a partial state may be tens of MB. */
        private Cell cell(byte[] row, byte[] qualifier, byte[] value) {
            return CellBuilderFactory.create(CellBuilderType.SHALLOW_COPY).setRow(row).setFamily(family)
                    .setQualifier(qualifier).setTimestamp(HConstants.LATEST_TIMESTAMP).setType(Cell.Type.Put)
                    .setValue(value).build();
        }

        @Override
        public boolean next(List<Cell> result, ScannerContext context) throws IOException {
            return nextRaw(result, context);
        }

        @Override
        public boolean reseek(byte[] row) throws IOException {
            throw new DoNotRetryIOException("hbase-rowkey: an aggregating scanner does not reseek");
        }

        @Override
        public void shipped() throws IOException {
            // Every cell handed back is a copy: the blocks the rows came from may be released.
            super.shipped();
        }

        @Override
        public void close() throws IOException {
            try {
                scanner.close();
            } finally {
                request.aggregator.close();
            }
        }
    }
}
