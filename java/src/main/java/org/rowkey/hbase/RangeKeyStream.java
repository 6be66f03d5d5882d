package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A leaf {@link KeyStream}: the data keys of one key range of a table (the data table or an index)
 * whose rows are in data-key order (docs/joins.md). Reads key-only rows in batches: one row after a
 * seek that skipped keys nobody looked at, else twice as many as the last batch (up to
 * {@value #MAX_BATCH}). A seek past the rows already read opens a new scan at the target: the rows
 * in between are never read. {@link #seekAmong} reads every candidate's row with one scan (a
 * server-side seek to each) and the first row after the last candidate; until the stream moves past
 * the last candidate it then knows its keys only at the candidates ("sparse").
 */
final class RangeKeyStream implements KeyStream {
    static final int MAX_BATCH = 1024;

    private final KeyRangeReader reader;
    /** The data key of a row of the range. */
    private final UnaryOperator<byte[]> dataKeyOf;
    /** The row where the first data key at or after a target can be, or null when none can. */
    private final UnaryOperator<byte[]> rowAtOrAfter;
    /** The row of a data key if the range can hold it, else null. */
    private final UnaryOperator<byte[]> rowOf;

    /** Keys read and not passed yet, in order. */
    private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
    /** Where the next scan starts (inclusive); null before the first read. */
    private byte[] resume;
    /** No row after {@link #resume}. */
    private boolean exhausted;
    private int batch = 1;
    /** The last key of the last read and the highest key handed out (key(), known()): a batch was all looked at. */
    private byte[] lastRead;
    private byte[] seenThrough;
    /**
     * Sparse: the buffered keys up to this one are only those of {@link #probed} that the stream
     * holds (others may lie between); null when the buffer is every key in order.
     */
    private byte[] sparseThrough;
    private final ArrayDeque<byte[]> probed = new ArrayDeque<>();

    RangeKeyStream(KeyRangeReader reader, UnaryOperator<byte[]> dataKeyOf, UnaryOperator<byte[]> rowAtOrAfter,
            UnaryOperator<byte[]> rowOf) {
        this.reader = reader;
        this.dataKeyOf = dataKeyOf;
        this.rowAtOrAfter = rowAtOrAfter;
        this.rowOf = rowOf;
    }

    @Override
    public byte[] key() throws IOException {
        if (resume == null) {
            resume = reader.start();
            fetch();
        }
        byte[] key = buffered.peek();
        see(key);
        return key;
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
            restartAt(successor(current)); // the next key may be one that was not a candidate
            return;
        }
        buffered.poll();
        leaveSparseBeyond(current);
        if (buffered.isEmpty() && !exhausted) {
            batch = Math.min(MAX_BATCH, batch * 2);
            fetch();
        }
    }

    @Override
    public void seek(byte[] target) throws IOException {
        if (resume == null) {
            restartAt(target);
            return;
        }
        if (isAtOrAfter(target)) {
            return;
        }
        drop(target);
        if (sparseThrough != null && compare(target, sparseThrough) <= 0) {
            if (buffered.isEmpty() || compare(buffered.peek(), target) != 0) {
                restartAt(target); // known only at the candidates: target is not one the stream holds
            }
            return;
        }
        leaveSparseBeyond(target);
        if (!buffered.isEmpty() || exhausted) {
            return; // already there, or nothing left: no scan
        }
        byte[] row = rowFor(target);
        if (row == null) {
            exhausted = true;
            return;
        }
        resume = compare(row, resume) > 0 ? row : resume;
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
            restartAt(target);
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
            restartAt(target);
            return;
        }
        sparseThrough = probed.peekLast();
        byte[] tail = rowFor(successor(sparseThrough));
        if (points.isEmpty() && tail == null) {
            exhausted = true;
            return;
        }
        int limit = points.size() + batch;
        List<byte[]> rows = reader.read(points, tail, limit);
        for (byte[] row : rows) {
            buffered.add(dataKeyOf.apply(row));
        }
        lastRead = buffered.peekLast();
        if (rows.size() < limit || tail == null) {
            exhausted = true;
        } else {
            byte[] last = rows.get(rows.size() - 1);
            resume = Arrays.copyOf(last, last.length + 1);
        }
    }

    /** Forgets what is buffered and reads from the first row where a key {@code >= target} can be. */
    private void restartAt(byte[] target) throws IOException {
        nextBatchAfterSeek();
        clear();
        byte[] row = rowFor(target);
        if (row == null) {
            exhausted = true;
            return;
        }
        resume = row;
        fetch();
    }

    private void clear() {
        buffered.clear();
        probed.clear();
        sparseThrough = null;
        exhausted = false;
        if (resume == null) {
            resume = reader.start();
        }
    }

    /** A batch wholly looked at (in order, or given as candidates to a follower) doubles the next; else one row. */
    private void nextBatchAfterSeek() {
        boolean allSeen = lastRead != null && seenThrough != null && compare(seenThrough, lastRead) >= 0;
        batch = allSeen ? Math.min(MAX_BATCH, batch * 2) : 1;
    }

    /** Reads up to {@link #batch} rows from {@link #resume}. */
    private void fetch() throws IOException {
        List<byte[]> rows = reader.read(Collections.emptyList(), resume, batch);
        for (byte[] row : rows) {
            buffered.add(dataKeyOf.apply(row));
        }
        lastRead = buffered.peekLast();
        if (rows.size() < batch) {
            exhausted = true;
        } else {
            byte[] last = rows.get(rows.size() - 1);
            resume = Arrays.copyOf(last, last.length + 1); // the first row after the last one read
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

    /** Once at or past {@code key} = {@link #sparseThrough}, or past it, what is buffered is every key in order. */
    private void leaveSparseBeyond(byte[] key) {
        if (sparseThrough != null && compare(key, sparseThrough) >= 0) {
            drop(successor(sparseThrough));
            probed.clear();
            sparseThrough = null;
        }
    }

    private boolean isSparseAt(byte[] key) {
        return sparseThrough != null && compare(key, sparseThrough) <= 0;
    }

    /** The row of the range where the first key {@code >= target} can be, or null when none can. */
    private byte[] rowFor(byte[] target) {
        byte[] row = rowAtOrAfter.apply(target);
        if (row == null) {
            return null;
        }
        row = compare(row, reader.start()) < 0 ? reader.start() : row;
        byte[] stop = reader.stop();
        return stop.length == 0 || compare(row, stop) < 0 ? row : null;
    }

    private boolean inRange(byte[] row) {
        byte[] stop = reader.stop();
        return row != null && compare(row, reader.start()) >= 0 && (stop.length == 0 || compare(row, stop) < 0);
    }

    private void see(byte[] key) {
        if (key != null && (seenThrough == null || compare(key, seenThrough) > 0)) {
            seenThrough = key;
        }
    }

    private static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private static int compare(byte[] a, byte[] b) {
        return KeyStreams.compare(a, b);
    }

    /** Rows the server read for this stream (key-only). */
    long rowsRead() {
        return reader.rowsRead();
    }

    /** Scans opened (the first read, each seek beyond the rows read, each next batch, each probe). */
    long scans() {
        return reader.reads();
    }
}
