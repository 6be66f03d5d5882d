package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.util.Bytes;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.IndexRowFormat.CoveredColumn;
import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.JoinBranchPlan;
import org.rowkey.hbase.proto.RowKeyProtos.JoinPlan;
import org.rowkey.hbase.proto.RowKeyProtos.KeyRange;
import org.rowkey.hbase.proto.RowKeyProtos.KeyStreamSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;
import org.rowkey.hbase.proto.RowKeyProtos.StreamPoint;
import org.rowkey.hbase.join.KeyRangeReader;
import org.rowkey.hbase.join.KeyStream;
import org.rowkey.hbase.join.KeyStreams;
import org.rowkey.hbase.join.RangeKeyStream;

/**
 * The rows of a query answered by joins (docs/joins.md), read as the native planner's
 * {@code JoinPlan} says, with no copy of it made: the union of the branches' streams (relayed or
 * intersected) and of the data-table scan of the branches with no stream, each key checked against
 * its branch's whole predicate, then its data row read with a batched {@code Get} (a key whose data
 * row does not exist is dropped; the data-table scan's rows are returned as it read them, as are a
 * data-table stream's rows when the planner marks it covered, and the VERIFIED rows of an index
 * stream it marks covered answer for their data rows, as an index's single read answers), in
 * data-key order, stopping at the query's limit. An UNVERIFIED index
 * row the streams read for a key whose data row is then read is repaired or marked STALE as
 * {@link IndexResultScanner} does ({@link IndexRowResolver#settle}). {@link #getScanMetrics()}
 * counts the rows the streams read and the scans they opened.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class JoinScanner implements ResultScanner {
    /** Keys whose data rows are read with one multi-get. */
    private static final int BATCH = 128;
    /** Row keys' order: unsigned bytes, an empty start first. */
    private static final Comparator<ByteString> KEY_ORDER = ByteString.unsignedLexicographicalComparator();
    /**
     * Rows the server may look at in a relayed stream's first read (it doubles after each read cut
     * short), set by {@value #RELAY_BUDGET_KEY}: a key-only row costs the server about a
     * microsecond, a scan request about a millisecond, so a turn of a stream that turns out large
     * costs about what a scan request costs, and a small one (up to the budget) ends in one read.
     */
    static final int RELAY_BUDGET_DEFAULT = 1024;
    static final String RELAY_BUDGET_KEY = "rowkey.join.relay.budget.rows";
    /**
     * The most rows a stream's first read asks for (default {@value RangeKeyStream#MAX_BATCH}; each
     * next read doubles): smaller, a stream's later reads run on small tables too (the oracle harness).
     */
    static final String FIRST_BATCH_KEY = "rowkey.join.first.batch.rows";

    private final List<Table> tables = new ArrayList<>();
    private final List<KeySeeker> seekers = new ArrayList<>();
    private final List<RangeKeyStream> leaves = new ArrayList<>();
    /** The UNVERIFIED index rows the streams read, by data key, until that key's data row is read or passed. */
    private final TreeMap<byte[], List<Unverified>> unverified;
    /**
     * The answers read with the keys, by data key, until their keys are returned or passed: those
     * keys need no {@code Get}. The data-table scan's rows (read whole, with the query's columns),
     * and a covered stream's VERIFIED index rows' ({@link CoveredAnswer}); concurrent: the ranges
     * of a stream may be read at once.
     */
    private final ConcurrentSkipListMap<byte[], Result> answered;
    /** Each index read: its table. */
    private final Map<Integer, Table> indexTables = new HashMap<>();
    /** Reads the data rows of keys and settles the UNVERIFIED index rows met. */
    private final IndexRowResolver resolver;
    private final int relayBudget;
    /** {@link #FIRST_BATCH_KEY}. */
    private final int mostFirstBatch;
    private final Table data;
    private final KeyStream keys;
    private final int limit;
    private final boolean reversed;
    /** The order of the keys: data-key order, or its reverse for a reversed plan. */
    private final Comparator<byte[]> order;
    private final ReadShape shape;
    private final ArrayDeque<Result> ready = new ArrayDeque<>();
    private final Executor readers;
    private long returned;
    private boolean exhausted;

    /**
     * {@code readers}: where the ranges of one stream (salt buckets, IN values) that all need a read
     * read at once; null: one after another.
     */
    JoinScanner(Connection connection, TableName name, Catalog catalog, RowKeyQuery query, JoinPlan plan,
            ReadShape shape, Executor readers) throws IOException {
        this.readers = readers;
        this.limit = query.limit();
        this.reversed = query.isReversed();
        this.order = reversed ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
        this.unverified = new TreeMap<>(order);
        this.answered = new ConcurrentSkipListMap<>(order);
        this.relayBudget = connection.getConfiguration().getInt(RELAY_BUDGET_KEY, RELAY_BUDGET_DEFAULT);
        this.mostFirstBatch = connection.getConfiguration().getInt(FIRST_BATCH_KEY, RangeKeyStream.MAX_BATCH);
        if (mostFirstBatch < 1 || mostFirstBatch > RangeKeyStream.MAX_BATCH) {
            throw new IllegalArgumentException(FIRST_BATCH_KEY + " must be 1.." + RangeKeyStream.MAX_BATCH + " rows, not "
                    + mostFirstBatch);
        }
        if (relayBudget < 1 || relayBudget > RangeKeyStream.MAX_BUDGET) {
            throw new IllegalArgumentException(RELAY_BUDGET_KEY + " must be 1.." + RangeKeyStream.MAX_BUDGET + " rows, not "
                    + relayBudget);
        }
        this.shape = shape;
        this.resolver = new IndexRowResolver(connection, name, catalog);
        try {
            this.data = table(connection, name);
            List<List<Condition>> disjuncts = query.disjuncts();
            List<KeyStream> branches = new ArrayList<>();
            for (int i = 0; i < plan.getBranchesCount(); i++) {
                JoinBranchPlan b = plan.getBranches(i);
                KeyStream branch = b.getStreamsCount() == 0 ? null : branch(connection, name, catalog, b, disjuncts.get(i));
                if (branch != null) {
                    branches.add(checked(branch, RowKeyQuery.of(catalog.schema(), disjuncts.get(i))));
                }
            }
            if (plan.getDataScanBranchesCount() > 0) {
                // The branches with no stream, read by one data-table scan: one branch, or their OR.
                List<RowKeyQuery> scanned = new ArrayList<>();
                for (int i : plan.getDataScanBranchesList()) {
                    scanned.add(RowKeyQuery.of(catalog.schema(), disjuncts.get(i)));
                }
                RowKeyQuery read = scanned.size() == 1 ? scanned.get(0) : RowKeyQuery.anyOf(scanned.toArray(new RowKeyQuery[0]));
                branches.add(checked(dataScan(connection, name, plan.getDataScan(), read), read));
            }
            this.keys = branches.isEmpty() ? null : KeyStreams.union(order, branches);
            this.exhausted = keys == null;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private Table table(Connection connection, TableName name) throws IOException {
        Table t = connection.getTable(name);
        tables.add(t);
        return t;
    }

    /** The keys of {@code stream} that match {@code query} (natively, one call per key). */
    private KeyStream checked(KeyStream stream, RowKeyQuery query) {
        PredicateComparator whole = query.toComparator();
        return KeyStreams.filter(order, stream, key -> whole.compareTo(key, 0, key.length) == 0);
    }

    /**
     * The one data-table scan of the branches with no stream: its plan's ranges, its rows filtered
     * natively with the OR of those branches (or read with the skip scan over it), in data-key order
     * or its reverse (a descending read's windows are forward scans, and the skip scan seeks in
     * reversed scans too).
     */
    private KeyStream dataScan(Connection connection, TableName name, ScanPlan plan, RowKeyQuery query) {
        PredicateComparatorSpec predicate = query.toPredicateComparatorSpec();
        Scan scan = ScanPlanner.scan(plan, predicate);
        Filter rows = scan.getFilter();
        // A descending scan's windows start from the density the last scan of these keys found.
        DensityPriors.Slot density = reversed
                ? DensityPriors.slot(connection, ByteString.copyFrom(name.getName()).concat(plan.toByteString()).concat(predicate.toByteString()))
                : null;
        RangeKeyStream all = RangeKeyStream.ofDataKeys(new TableKeyRangeReader(data, scan.getStartRow(), scan.getStopRow(),
                rows, reversed, null, dataRows(), false, density),
                Math.min(mostFirstBatch, RangeKeyStream.firstBatch(limit, 1, true, true, false)));
        leaves.add(all);
        return all;
    }

    /**
     * Data-table rows read with the query's columns (the data-table scan's, and a covered data-table
     * stream's): each is its key's answer, which then needs no {@code Get}.
     */
    private TableKeyRangeReader.DataRows dataRows() {
        return new TableKeyRangeReader.DataRows() {
            @Override
            public void shape(Scan read, List<Filter> filters) {
                for (CoveredColumn c : shape.columns) {
                    read.addColumn(c.family, c.qualifier);
                }
                if (shape.keysOnly) {
                    filters.add(ScanPlanner.keyOnly());
                }
            }

            @Override
            public void read(Result row) {
                answered.put(row.getRow(), row);
            }
        };
    }

    /**
     * A branch's streams (the relay of several, each filtered with the whole branch on the server,
     * index keys holding every key field; or their leapfrog intersection; or its one stream,
     * filtered so too); null when it can hold no key.
     */
    private KeyStream branch(Connection connection, TableName name, Catalog catalog, JoinBranchPlan b,
            List<Condition> conditions) throws IOException {
        boolean relays = b.getRelay();
        boolean filtersOnServer = relays || b.getStreamsCount() == 1;
        List<KeyStream> streams = new ArrayList<>();
        for (KeyStreamSpec s : b.getStreamsList()) {
            int index = s.getIndexNumber();
            int rangeCount = 0;
            for (StreamPoint p : s.getPointsList()) {
                rangeCount += p.getRangesCount();
            }
            int budget = relays ? relayBudget : 0;
            // A data-table stream's ranges are intervals of the data keys, their keys taken one range
            // after another: under a limit each is read only once those before it ended, for the
            // whole limit (the first in the read's order may hold every key it wants).
            List<KeyRange> sequence = index < 0 && budget == 0 && limit > 0 ? inReadOrder(s) : null;
            int firstBatch = Math.min(mostFirstBatch, RangeKeyStream.firstBatch(limit, sequence != null ? 1 : rangeCount,
                    streams.isEmpty() || relays, filtersOnServer, budget > 0));
            Table table = index < 0 ? data : indexTable(connection, name, catalog, index);
            TableKeyRangeReader.Unverified met = index < 0 ? null
                    : (row, status) -> remember(new Unverified(index, row), catalog.dataKeyOrNull(index, row));
            TableKeyRangeReader.DataRows answers = !s.getCovered() ? null : index < 0 ? dataRows() : coveredRows(catalog, index);
            Filter branch = !filtersOnServer ? null : new RowFilter(CompareOperator.EQUAL, new PredicateComparator(
                    RowKeyQuery.of(index < 0 ? catalog.schema() : catalog.indexSchema(index), conditions)));
            List<KeyStream> ranges = new ArrayList<>();
            for (StreamPoint p : sequence != null ? Collections.singletonList(StreamPoint.newBuilder().addAllRanges(sequence).build())
                    : s.getPointsList()) {
                KeySeeker point = index < 0 ? null : KeySeeker.overWellFormedKeys(RowKeyQuery.of(catalog.schema(),
                        p.getEqualitiesList()));
                if (point != null) {
                    seekers.add(point);
                }
                for (KeyRange r : p.getRangesList()) {
                    byte[] prefix = r.getStart().toByteArray();
                    KeyRangeReader reader = new TableKeyRangeReader(table, prefix, r.getStop().toByteArray(), branch,
                            reversed, met, answers, true, null);
                    RangeKeyStream leaf = index < 0 ? RangeKeyStream.ofDataKeys(reader, firstBatch, budget, catalog.schema().keyLength())
                            : new RangeKeyStream(reader, firstBatch, budget, row -> catalog.dataKeyOrNull(index, row),
                                    (target, after) -> indexStart(catalog, index, point, prefix, target, after, reversed),
                                    key -> catalog.indexKey(index, key));
                    leaves.add(leaf);
                    ranges.add(leaf);
                }
            }
            if (ranges.isEmpty()) {
                return null; // an IN with no value
            }
            streams.add(sequence != null ? KeyStreams.sequence(order, ranges, ends(sequence)) : KeyStreams.union(order, ranges, readers));
        }
        return relays ? KeyStreams.relay(order, streams) : KeyStreams.intersection(order, streams);
    }

    /**
     * A data-table stream's ranges in the read's order (ascending starts; reversed, descending), or
     * null when two overlap: then the keys of one do not all come before the next one's.
     */
    private List<KeyRange> inReadOrder(KeyStreamSpec s) {
        List<KeyRange> ranges = new ArrayList<>();
        for (StreamPoint p : s.getPointsList()) {
            ranges.addAll(p.getRangesList());
        }
        ranges.sort((a, b) -> KEY_ORDER.compare(a.getStart(), b.getStart())); // an empty start is the table's first key
        for (int i = 1; i < ranges.size(); i++) {
            ByteString stop = ranges.get(i - 1).getStop();
            if (stop.isEmpty() || KEY_ORDER.compare(stop, ranges.get(i).getStart()) > 0) {
                return null;
            }
        }
        if (reversed) {
            Collections.reverse(ranges);
        }
        return ranges;
    }

    /** Each range's end in the read's order: its stop forward, its start reversed. */
    private List<byte[]> ends(List<KeyRange> inOrder) {
        List<byte[]> ends = new ArrayList<>(inOrder.size());
        for (KeyRange r : inOrder) {
            ends.add((reversed ? r.getStart() : r.getStop()).toByteArray());
        }
        return ends;
    }

    /**
     * A covered stream's index rows, read whole (the covered cells and the status): each VERIFIED
     * one's answer is kept for its data key, which then needs no {@code Get}.
     */
    private TableKeyRangeReader.DataRows coveredRows(Catalog catalog, int index) {
        CoveredAnswer answers = new CoveredAnswer(catalog, index, shape);
        return new TableKeyRangeReader.DataRows() {
            @Override
            public void shape(Scan read, List<Filter> filters) {
                // whole rows
            }

            @Override
            public void read(Result row) {
                byte[] dataKey = catalog.dataKeyOrNull(index, row.getRow());
                Result answer = dataKey == null ? null : answers.of(row, IndexRowFormat.status(row), dataKey);
                if (answer != null) {
                    answered.put(dataKey, answer);
                }
            }
        };
    }

    /** The table of index {@code index}, opened once per scanner. */
    private Table indexTable(Connection connection, TableName name, Catalog catalog, int index) throws IOException {
        Table t = indexTables.get(index);
        if (t == null) {
            t = table(connection, RowKeyTable.indexTableName(name, catalog.indexes().get(index).getName()));
            indexTables.put(index, t);
        }
        return t;
    }

    /** An UNVERIFIED index row read by a stream. */
    private static final class Unverified {
        final int index;
        final byte[] row;

        Unverified(int index, byte[] row) {
            this.index = index;
            this.row = row;
        }
    }

    /** Synchronized: the ranges of a stream may be read at once (see {@link KeyStreams#readAtOnce}). */
    private synchronized void remember(Unverified row, byte[] dataKey) {
        if (dataKey == null) {
            return; // not a row the index wrote: the stream skips it
        }
        List<Unverified> rows = unverified.computeIfAbsent(dataKey, k -> new ArrayList<>());
        for (Unverified u : rows) {
            if (u.index == row.index) {
                return; // read again (a re-read after a seek)
            }
        }
        rows.add(row);
    }

    /**
     * Where, in an index range of prefix {@code prefix} (index salt and field values), a read gives
     * the first data key at ({@code after} false) or after {@code target}, in the plan's order. With
     * {@code K} the smallest data key {@code >=} the target (strictly {@code >}, ascending and
     * {@code after}) that has the range's field values, at the index key of {@code K} under the
     * range's own salt byte: ascending, from there; descending, from there down, {@code K} itself
     * included only when it is the target (every key of the range below {@code K} is below the
     * target), or from the range's end when there is no {@code K}.
     */
    private static RangeKeyStream.Start indexStart(Catalog catalog, int index, KeySeeker point, byte[] prefix,
            byte[] target, boolean after, boolean descending) {
        // A well-formed seek position (its salt byte perhaps not its fields' hash), laid out as an
        // index key: within the range's index fields, index keys sort as their data keys.
        byte[] position = descending || !after ? point.ceiling(target) : point.next(target, target.length, false);
        if (position == null) {
            return descending ? new RangeKeyStream.Start(new byte[0], true) : null;
        }
        byte[] row = catalog.indexSeekKey(index, position);
        System.arraycopy(prefix, 0, row, 0, prefix.length);
        return new RangeKeyStream.Start(row, !descending || !after && Arrays.equals(position, target));
    }

    @Override
    public Result next() throws IOException {
        while (ready.isEmpty() && !exhausted) {
            fill();
        }
        Result r = ready.poll();
        if (r != null) {
            returned++;
        }
        return r;
    }

    /**
     * Reads the data rows of the next keys: at most a batch, and no more than the limit still needs;
     * the rows read with the keys ({@link #answered}) are taken as read, the others read with one multi-get.
     */
    private void fill() throws IOException {
        int wanted = limit > 0 ? (int) Math.min(BATCH, limit - returned) : BATCH;
        List<Get> gets = new ArrayList<>(wanted);
        // In key order: a row the scan read, or null for the next of the gets' rows.
        List<Result> rows = new ArrayList<>(wanted);
        byte[] last = null;
        while (rows.size() < wanted) {
            byte[] key = keys.key(); // not asked once the limit is met: no read for a key beyond it
            if (key == null) {
                break;
            }
            last = key;
            answered.headMap(key, false).clear(); // passed: not a key of the union
            Result scanned = answered.remove(key);
            rows.add(scanned);
            if (scanned != null) {
                keys.advance();
                continue;
            }
            gets.add(shape.get(key));
            keys.advance();
        }
        if (rows.size() < wanted) {
            exhausted = true;
        }
        Result[] got = resolver.get(gets);
        int next = 0;
        for (Result row : rows) {
            Result r = row != null ? row : got[next++];
            if (!r.isEmpty() && (limit == 0 || returned + ready.size() < limit)) {
                ready.add(r);
            }
        }
        if (last != null) {
            maintain(last);
        }
        if (limit > 0 && returned + ready.size() >= limit) {
            exhausted = true;
        }
    }

    /**
     * Repairs the UNVERIFIED index rows of the keys up to {@code through} (their data rows were just
     * read), or marks them STALE when the data row does not exist; forgets those of keys passed.
     * Each such key costs a Get of its whole data row and of each such index row: rare, and what
     * the repair needs (the covered cells).
     */
    private void maintain(byte[] through) throws IOException {
        NavigableMap<byte[], List<Unverified>> due = unverified.headMap(through, true);
        for (Map.Entry<byte[], List<Unverified>> e : due.entrySet()) {
            Result probed = resolver.get(Collections.singletonList(IndexRowFormat.probe(e.getKey())))[0];
            Map<Integer, List<byte[]>> byIndex = new TreeMap<>();
            for (Unverified u : e.getValue()) {
                byIndex.computeIfAbsent(u.index, i -> new ArrayList<>()).add(u.row);
            }
            for (Map.Entry<Integer, List<byte[]>> rows : byIndex.entrySet()) {
                resolver.settleUnread(rows.getKey(), rows.getValue(), probed);
            }
        }
        resolver.flush();
        due.clear();
    }

    @Override
    public void close() {
        resolver.close();
        for (KeySeeker f : seekers) {
            f.close();
        }
        for (Table t : tables) {
            try {
                t.close();
            } catch (IOException ignored) {
                // nothing is buffered: a table of a shared connection
            }
        }
    }

    @Override
    public boolean renewLease() {
        return false; // no scanner stays open between calls
    }

    /**
     * Rows read by the streams ({@code countOfRowsScanned}), the scans they opened
     * ({@code countOfRPCcalls}) and the data rows read by Gets ({@link RowKeyTable#DATA_ROWS_READ_METRIC}).
     */
    @Override
    public ScanMetrics getScanMetrics() {
        IndexResultScanner.Metrics metrics = new IndexResultScanner.Metrics();
        metrics.dataRowsRead.set(resolver.dataRowsRead());
        for (RangeKeyStream leaf : leaves) {
            metrics.countOfRowsScanned.addAndGet(leaf.rowsRead());
            metrics.countOfRPCcalls.addAndGet(leaf.scans());
        }
        return metrics;
    }
}
