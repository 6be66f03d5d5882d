package org.rowkey.hbase.join;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.RunsIn;

/**
 * A leaf {@link KeyStream}: the data keys of one key range of a table (the data table or an index)
 * whose rows are in data-key order (docs/joins.md). Reads key-only rows in batches: the first of
 * its own size, one row after a seek that skipped keys nobody looked at, else twice as many as the
 * last batch (up to {@value #MAX_BATCH}), read only when a key is asked for. A seek past the rows already read opens a new scan at the target: the rows
 * in between are never read. {@link #seekAmong} reads every candidate's row with one scan (a
 * server-side seek to each) and the first row after the last candidate; until the stream moves past
 * the last candidate it then knows its keys only at the candidates ("sparse"). In
 * {@link KeyStreams#DESCENDING} order it reads the range backwards.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class RangeKeyStream implements KeyStream {
    public static final int MAX_BATCH = 1024;
    /** Rows a budgeted read may look at, at most (the budget doubles after each read it cut short). */
    public static final int MAX_BUDGET = 1 << 17;

    /** Under a limit, keys an unfiltered lead first reads per result wanted (the followers drop some). */
    public static final int LEAD_KEYS_PER_RESULT = 4;

    /**
     * Rows of the first read of each range of a stream of {@code ranges} ranges (salt buckets, IN
     * values); each next read doubles (the class comment). A follower's is a probe of the lead's keys with one row after
     * them. Without a limit, a lead's is a full batch: a key-only row costs the server about a
     * microsecond, a scan request about a millisecond. With {@code limit(n)}, the range's share of
     * what n results take (n keys when the rows are filtered to matches on the server, else, a lead
     * whose keys the followers drop, {@value #LEAD_KEYS_PER_RESULT} times as many), and of several
     * ranges read at once (salt buckets, IN values) three standard deviations more, as if the keys
     * were spread evenly at random: a range holding more than its share would otherwise be read again,
     * one round trip after another, as the merge takes its keys (a limit of 10 through 16 buckets
     * took 24 round trips with one key each, and reversed 64). Not a {@code budgeted} read's (the
     * relay's turns): there the rows the server looks at to find the keys bound the cost.
     */
    public static int firstBatch(int limit, int ranges, boolean lead, boolean filtered, boolean budgeted) {
        if (!lead) {
            return 1;
        }
        if (limit <= 0) {
            return MAX_BATCH;
        }
        long keys = filtered ? limit : (long) LEAD_KEYS_PER_RESULT * limit;
        int shares = Math.max(1, ranges);
        long share = (keys + shares - 1) / shares;
        long spread = shares == 1 || budgeted ? 0 : 1 + (long) Math.ceil(3 * Math.sqrt(share));
        return (int) Math.max(1, Math.min(MAX_BATCH, Math.min(keys, share + spread)));
    }

    /** Where a read starts: a row of the range, itself included or not; an empty row in descending order: the table's end. */
    public static final class Start {
        public final byte[] row;
        public final boolean inclusive;

        public Start(byte[] row, boolean inclusive) {
            this.row = row;
            this.inclusive = inclusive;
        }
    }

    /** Where a read gives the first data key at ({@code after} false) or after a target, in the stream's order. */
    public interface Starts {
        /** Null when no key of the range can come. */
        Start find(byte[] target, boolean after);
    }

    private final KeyRangeReader reader;
    private final Comparator<byte[]> order;
    /** The data key of a row of the range. */
    private final UnaryOperator<byte[]> dataKeyOf;
    private final Starts starts;
    /** The row of a data key if the range can hold it, else null. */
    private final UnaryOperator<byte[]> rowOf;

    /** Keys read and not passed yet, in order. */
    private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
    /** Where the next scan starts; null before the first read. */
    private Start resume;
    /** No row after {@link #resume}. */
    private boolean exhausted;
    private int batch;
    /** Rows the server may look at per read (0: no bound); see {@link KeyRangeReader#read}. */
    private int budget;
    /** The last key of the last read and the highest key handed out (key(), known()): a batch was all looked at. */
    private byte[] lastRead;
    private byte[] seenThrough;
    /**
     * Sparse: the buffered keys up to this one are only those of {@link #probed} that the stream
     * holds (others may lie between); null when the buffer is every key in order.
     */
    private byte[] sparseThrough;
    private final ArrayDeque<byte[]> probed = new ArrayDeque<>();

    /**
     * In the reader's order ({@link KeyRangeReader#descending()}); {@code firstBatch}: rows of the
     * first read (after it, the size of the rows read after a probe's candidates).
     */
    public RangeKeyStream(KeyRangeReader reader, int firstBatch, UnaryOperator<byte[]> dataKeyOf, Starts starts,
            UnaryOperator<byte[]> rowOf) {
        this(reader, firstBatch, 0, dataKeyOf, starts, rowOf);
    }

    /**
     * {@code firstBudget}: rows the server may look at in the first read (0: no bound, else it
     * doubles after each read the budget cut short, up to {@value #MAX_BUDGET}); only for a reader
     * whose filter keeps few rows: a read cut short gives its last row undecided, as a key.
     */
    public RangeKeyStream(KeyRangeReader reader, int firstBatch, int firstBudget, UnaryOperator<byte[]> dataKeyOf,
            Starts starts, UnaryOperator<byte[]> rowOf) {
        if (firstBatch < 1 || firstBatch > MAX_BATCH) {
            throw new IllegalArgumentException("a first batch of 1.." + MAX_BATCH + " rows, not " + firstBatch);
        }
        if (firstBudget < 0 || firstBudget > MAX_BUDGET) {
            throw new IllegalArgumentException("a first budget of 0.." + MAX_BUDGET + " rows, not " + firstBudget);
        }
        this.budget = firstBudget;
        this.reader = reader;
        this.batch = firstBatch;
        this.order = reader.descending() ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
        this.dataKeyOf = dataKeyOf;
        this.starts = starts;
        this.rowOf = rowOf;
    }

    /** A data-table range: its rows are the data keys. */
    public static RangeKeyStream ofDataKeys(KeyRangeReader reader, int firstBatch) {
        return ofDataKeys(reader, firstBatch, 0);
    }

    /** A data-table range read with a budget (see the constructor). */
    public static RangeKeyStream ofDataKeys(KeyRangeReader reader, int firstBatch, int firstBudget) {
        return ofDataKeys(reader, firstBatch, firstBudget, -1);
    }

    /**
     * A data-table range whose rows of another length than {@code keyLength} (-1: any) are skipped:
     * they are no keys of the schema (rows written by hand), and no index can hold them.
     */
    public static RangeKeyStream ofDataKeys(KeyRangeReader reader, int firstBatch, int firstBudget, int keyLength) {
        return new RangeKeyStream(reader, firstBatch, firstBudget, k -> keyLength < 0 || k.length == keyLength ? k : null,
                (target, after) -> new Start(target, !after), k -> k);
    }

    @Override
    public byte[] key() throws IOException {
        if (resume == null) {
            resume = first();
            fetch();
        } else if (buffered.isEmpty() && !exhausted) {
            batch = Math.min(MAX_BATCH, batch * 2); // the next batch, read when a key is asked for
            fetch();
        }
        byte[] key = buffered.peek();
        see(key);
        return key;
    }

    /** Whether the next {@link #key()} reads nothing: a key is buffered, or none is left. */
    @Override
    public boolean holds() {
        return resume != null && (!buffered.isEmpty() || exhausted);
    }

    @Override
    public List<byte[]> known(int max) throws IOException {
        byte[] current = key();
        if (current == null) {
            return Collections.emptyList();
        }
        if (isSparseAt(current)) {
            return Collections.singletonList(current);
        }
        List<byte[]> keys = new ArrayList<>(Math.min(max, buffered.size()));
        for (byte[] k : buffered) {
            if (keys.size() == max) {
                break;
            }
            keys.add(k);
        }
        see(keys.get(keys.size() - 1));
        return keys;
    }

    @Override
    public void advance() throws IOException {
        byte[] current = key();
        if (current == null) {
            return;
        }
        if (isSparseAt(current) && compare(current, sparseThrough) < 0) {
            restartAt(current, true); // the next key may be one that was not a candidate
            return;
        }
        buffered.poll();
        leaveSparseBeyond(current);
    }

    @Override
    public void seek(byte[] target) throws IOException {
        if (resume == null) {
            restartAt(target, false);
            return;
        }
        if (isAtOrAfter(target)) {
            return;
        }
        drop(target);
        if (sparseThrough != null && compare(target, sparseThrough) <= 0) {
            if (buffered.isEmpty() || compare(buffered.peek(), target) != 0) {
                restartAt(target, false); // known only at the candidates: target is not one the stream holds
            }
            return;
        }
        leaveSparseBeyond(target);
        if (!buffered.isEmpty() || exhausted) {
            return; // already there, or nothing left: no scan
        }
        Start at = startFor(target, false);
        if (at == null) {
            exhausted = true;
            return;
        }
        resume = later(at, resume);
        nextBatchAfterSeek();
        fetch();
    }

    @Override
    public void seekAmong(byte[] target, List<byte[]> candidates) throws IOException {
        if (resume == null) {
            probe(target, candidates);
            return;
        }
        if (isAtOrAfter(target)) {
            return;
        }
        drop(target);
        int i = 0;
        while (sparseThrough != null) {
            byte[] c = i < candidates.size() ? candidates.get(i) : null;
            if (c == null || compare(c, sparseThrough) > 0) {
                leaveSparseBeyond(sparseThrough); // every candidate up to there is known to be absent
                break;
            }
            drop(c);
            if (probed.isEmpty() || compare(probed.peek(), c) != 0) {
                probe(c, candidates.subList(i, candidates.size())); // a candidate not probed yet
                return;
            }
            if (!buffered.isEmpty() && compare(buffered.peek(), c) == 0) {
                return; // a candidate the stream holds
            }
            i++;
        }
        if (!buffered.isEmpty() || exhausted) {
            return;
        }
        probe(target, candidates.subList(i, candidates.size()));
    }

    /** Whether the stream is already at or after {@code target} (a seek there is a no-op), or has nothing left. */
    private boolean isAtOrAfter(byte[] target) {
        byte[] current = buffered.peek();
        return current != null ? compare(current, target) >= 0 : exhausted && sparseThrough == null;
    }

    /**
     * One read: the rows of {@code candidates} (from {@code target} on) that the range holds, then
     * the first rows after the last candidate; without candidates, a plain seek.
     */
    private void probe(byte[] target, List<byte[]> candidates) throws IOException {
        if (candidates.isEmpty()) {
            restartAt(target, false);
            return;
        }
        clear();
        List<byte[]> points = new ArrayList<>();
        for (byte[] c : candidates.subList(0, Math.min(candidates.size(), KeyStreams.MAX_CANDIDATES))) {
            if (compare(c, target) >= 0) {
                probed.add(c);
                byte[] row = rowOf.apply(c);
                if (inRange(row)) {
                    points.add(row);
                }
            }
        }
        if (probed.isEmpty()) {
            restartAt(target, false);
            return;
        }
        sparseThrough = probed.peekLast();
        Start tail = startFor(sparseThrough, true);
        if (points.isEmpty() && tail == null) {
            exhausted = true;
            return;
        }
        int limit = points.size() + batch;
        List<byte[]> rows = reader.read(points, tail == null ? null : tail.row, tail != null && tail.inclusive, limit, 0).rows;
        bufferDataKeys(rows);
        lastRead = buffered.peekLast();
        if (rows.size() < limit || tail == null) {
            exhausted = true;
        } else {
            resume = new Start(rows.get(rows.size() - 1), false);
        }
    }

    /** Buffers the data keys of index rows read, skipping a row the index could not have written. */
    private void bufferDataKeys(List<byte[]> rows) {
        for (byte[] row : rows) {
            byte[] dataKey = dataKeyOf.apply(row);
            if (dataKey != null) {
                buffered.add(dataKey);
            }
        }
    }

    /** Forgets what is buffered and reads from where the first key at ({@code after} false) or after {@code target} can be. */
    private void restartAt(byte[] target, boolean after) throws IOException {
        nextBatchAfterSeek();
        clear();
        Start at = startFor(target, after);
        if (at == null) {
            exhausted = true;
            return;
        }
        resume = at;
        fetch();
    }

    private void clear() {
        buffered.clear();
        probed.clear();
        sparseThrough = null;
        exhausted = false;
        if (resume == null) {
            resume = first();
        }
    }

    /**
     * A batch wholly looked at (in order, or given as candidates to a follower) doubles the next; else one row.
     * Before the first read, the first batch stands.
     */
    private void nextBatchAfterSeek() {
        if (lastRead == null) {
            return;
        }
        boolean allSeen = seenThrough != null && compare(seenThrough, lastRead) >= 0;
        batch = allSeen ? Math.min(MAX_BATCH, batch * 2) : 1;
    }

    /** Reads up to {@link #batch} rows from {@link #resume}, the server looking at no more than {@link #budget}. */
    private void fetch() throws IOException {
        KeyRangeReader.Read read = reader.read(Collections.emptyList(), resume.row, resume.inclusive, batch, budget);
        List<byte[]> rows = read.rows;
        bufferDataKeys(rows);
        lastRead = buffered.peekLast();
        if (read.cut) {
            budget = Math.min(MAX_BUDGET, budget * 2);
        }
        if (rows.size() < batch && !read.cut) {
            exhausted = true;
        } else {
            resume = new Start(rows.get(rows.size() - 1), false); // after the last row read
        }
    }

    /** Drops the buffered (and probed) keys below {@code target}. */
    private void drop(byte[] target) {
        while (!buffered.isEmpty() && compare(buffered.peek(), target) < 0) {
            buffered.poll();
        }
        while (!probed.isEmpty() && compare(probed.peek(), target) < 0) {
            probed.poll();
        }
    }

    /** Once at or past {@link #sparseThrough}, what is buffered after it is every key in order. */
    private void leaveSparseBeyond(byte[] key) {
        if (sparseThrough != null && compare(key, sparseThrough) >= 0) {
            while (!buffered.isEmpty() && compare(buffered.peek(), sparseThrough) <= 0) {
                buffered.poll();
            }
            probed.clear();
            sparseThrough = null;
        }
    }

    private boolean isSparseAt(byte[] key) {
        return sparseThrough != null && compare(key, sparseThrough) <= 0;
    }

    /** Where the stream's first read starts: the range's first row in its order. */
    private Start first() {
        return reader.descending() ? new Start(reader.stop(), false) : new Start(reader.start(), true);
    }

    /** {@link #starts} kept inside the range; null when no key of it can come. */
    private Start startFor(byte[] target, boolean after) {
        Start at = starts.find(target, after);
        if (at == null) {
            return null;
        }
        byte[] start = reader.start();
        byte[] stop = reader.stop();
        boolean beyondStop = stop.length > 0 && (at.row.length == 0 || Bytes.compareTo(at.row, stop) >= 0);
        if (reader.descending()) {
            if (beyondStop) {
                return first();
            }
            int c = Bytes.compareTo(at.row, start);
            return at.row.length > 0 && (c < 0 || c == 0 && !at.inclusive) ? null : at;
        }
        if (beyondStop) {
            return null;
        }
        return Bytes.compareTo(at.row, start) < 0 ? first() : at;
    }

    /** The later of two starts in the stream's order (an empty row, either end of the table, is where it begins). */
    private Start later(Start a, Start b) {
        if (a.row.length == 0 || b.row.length == 0) {
            return a.row.length == 0 ? b : a;
        }
        int c = order.compare(a.row, b.row);
        return c > 0 || c == 0 && !a.inclusive ? a : b;
    }

    private boolean inRange(byte[] row) {
        byte[] stop = reader.stop();
        return row != null && Bytes.compareTo(row, reader.start()) >= 0 && (stop.length == 0 || Bytes.compareTo(row, stop) < 0);
    }

    private void see(byte[] key) {
        if (key != null && (seenThrough == null || compare(key, seenThrough) > 0)) {
            seenThrough = key;
        }
    }

    private int compare(byte[] a, byte[] b) {
        return order.compare(a, b);
    }

    /** Rows the server read for this stream (key-only). */
    public long rowsRead() {
        return reader.rowsRead();
    }

    /** Scans opened (the first read, each seek beyond the rows read, each next batch, each probe). */
    public long scans() {
        return reader.reads();
    }
}
