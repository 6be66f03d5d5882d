package org.rowkey.hbase.join;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.RunsIn;

/**
 * Joins of sorted {@link KeyStream}s (docs/joins.md): the leapfrog intersection (AND), the relay,
 * the union (OR) and a per-key filter. Each result is a stream itself, so they
 * compose (a union of intersections is an {@code anyOf} query). Every stream of a join is in the
 * same {@code order}: {@link #ASCENDING} unsigned byte order, or {@link #DESCENDING} (a reversed
 * query), where "greater" and "after" mean later in that order.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class KeyStreams {
    /** Keys of the lead a follower of an intersection is given to seek among (one read resolves them). */
    static final int MAX_CANDIDATES = 1024;

    private KeyStreams() {}

    public static final Comparator<byte[]> ASCENDING = Bytes::compareTo;
    public static final Comparator<byte[]> DESCENDING = ASCENDING.reversed();

    static int compare(byte[] a, byte[] b) {
        return Bytes.compareTo(a, b);
    }

    /**
     * The keys in every input, by the leapfrog join: at most {@code k x (smallest input + 1)} seeks
     * for {@code k} inputs, whatever their order ({@code inputs.get(0)} starts: give the smallest
     * estimate first).
     */
    public static KeyStream intersection(Comparator<byte[]> order, List<? extends KeyStream> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("an intersection needs at least one input");
        }
        return inputs.size() == 1 ? inputs.get(0) : new Intersection(order, inputs);
    }

    /**
     * The keys of a conjunction whose every input holds all of its matches: a key of the inputs
     * that is not a match is dropped by the caller's check, so one input read alone would do. The
     * inputs take turns, {@code inputs.get(0)} first: each reads on from where the last one
     * stopped, and when its next key needs a read, the next input takes the turn, seeking straight
     * past the last key given. So a large input reads one batch per turn while a small one reaches
     * far, and the rows read follow the smallest input, whichever it is. Each input is meant to be
     * filtered with the whole conjunction on the server and read with a row budget (a read of a
     * large input then stops early, see {@link RangeKeyStream}).
     */
    public static KeyStream relay(Comparator<byte[]> order, List<? extends KeyStream> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("a relay needs at least one input");
        }
        return inputs.size() == 1 ? inputs.get(0) : new Relay(order, inputs);
    }

    /** The keys in any input, each once. */
    public static KeyStream union(Comparator<byte[]> order, List<? extends KeyStream> inputs) {
        return union(order, inputs, null);
    }

    /**
     * {@link #union(Comparator, List)} whose inputs that need a read to give their next keys read at
     * once in {@code readers} (null: one after another), as a union of ranges in different regions
     * (salt buckets, IN values) needs the next key of each. Only for inputs that share nothing (each
     * read from one thread at a time, the caller waiting for all), such as {@link RangeKeyStream}s.
     */
    public static KeyStream union(Comparator<byte[]> order, List<? extends KeyStream> inputs, Executor readers) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("a union needs at least one input");
        }
        return inputs.size() == 1 ? inputs.get(0) : new Union(order, inputs, readers);
    }

    /**
     * Settles the streams that do not hold their next key at once: each but the first read by
     * {@code readers}, the first by the caller, who then runs any the pool has not started yet (so a
     * busy pool never makes it wait); the first failure is thrown once every read has ended.
     */
    static void readAtOnce(Executor readers, List<KeyStream> streams) throws IOException {
        List<FutureTask<byte[]>> reads = new ArrayList<>();
        for (KeyStream s : streams) {
            if (!s.holds()) {
                reads.add(new FutureTask<>(s::key));
            }
        }
        if (reads.size() < 2) {
            return;
        }
        for (FutureTask<byte[]> read : reads.subList(1, reads.size())) {
            try {
                readers.execute(read);
            } catch (RejectedExecutionException e) {
                // run below, by the caller
            }
        }
        Throwable failure = null;
        for (FutureTask<byte[]> read : reads) {
            read.run(); // a no-op when a reader has run it or runs it now
            try {
                read.get();
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading key streams at once");
            }
        }
        if (failure instanceof IOException) {
            throw (IOException) failure;
        }
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
        if (failure != null) {
            throw new IOException("a key stream read failed", failure);
        }
    }

    /**
     * The keys of inputs that follow one another: every key of an input comes before every key of
     * the next (a data-table stream's disjoint ranges, in the read's order), so only the input at
     * hand is read, the next once it ends: a limit's rows are read range after range, where a
     * {@link #union} reads each range's first keys at once. {@code ends.get(i)} is input
     * {@code i}'s range end in that order: its stop ascending (exclusive; empty: the table's end),
     * its start descending (inclusive; empty: the table's start). A seek skips, without reading,
     * the inputs whose range ends before its target.
     */
    public static KeyStream sequence(Comparator<byte[]> order, List<? extends KeyStream> inputs, List<byte[]> ends) {
        if (inputs.isEmpty() || inputs.size() != ends.size()) {
            throw new IllegalArgumentException("a sequence needs inputs, each with its end: " + inputs.size() + " and "
                    + ends.size());
        }
        return inputs.size() == 1 ? inputs.get(0) : new Sequence(order, inputs, ends);
    }

    /** The keys of {@code input} that pass {@code test}. */
    public static KeyStream filter(Comparator<byte[]> order, KeyStream input, Predicate<byte[]> test) {
        return new Filter(order, input, test);
    }

    /**
     * The common shape: a current key settled lazily (after an advance too: the inputs read no
     * further until a key is asked for), seeks that are no-ops when not ahead.
     */
    private abstract static class Derived implements KeyStream {
        final Comparator<byte[]> order;
        private boolean positioned;
        private byte[] current;

        Derived(Comparator<byte[]> order) {
            this.order = order;
        }

        /** Moves the inputs from where they are to the next key of this stream; returns it or null. */
        abstract byte[] settle() throws IOException;

        /** Moves the inputs past the current key {@code key}. */
        abstract void moveInputsPast(byte[] key) throws IOException;

        /** Seeks the inputs to {@code target}. */
        abstract void seekInputs(byte[] target) throws IOException;

        /** Whether the inputs hold their next keys, so that settling reads nothing; false when it cannot tell. */
        boolean inputsHold() {
            return false;
        }

        @Override
        public final boolean holds() {
            return positioned || inputsHold();
        }

        /** Seeks the inputs to {@code target} for a caller that wants only {@code candidates} (see {@link KeyStream#seekAmong}). */
        void seekInputsAmong(byte[] target, List<byte[]> candidates) throws IOException {
            seekInputs(target);
        }

        @Override
        public final byte[] key() throws IOException {
            if (!positioned) {
                current = settle();
                positioned = true;
            }
            return current;
        }

        @Override
        public final void advance() throws IOException {
            byte[] key = key();
            if (key != null) {
                moveInputsPast(key);
                positioned = false;
            }
        }

        @Override
        public final void seek(byte[] target) throws IOException {
            if (positioned && (current == null || order.compare(current, target) >= 0)) {
                return;
            }
            seekInputs(target);
            current = settle();
            positioned = true;
        }

        @Override
        public final void seekAmong(byte[] target, List<byte[]> candidates) throws IOException {
            if (positioned && (current == null || order.compare(current, target) >= 0)) {
                return;
            }
            seekInputsAmong(target, candidates);
            current = settle();
            positioned = true;
        }
    }

    /**
     * Leapfrog: in turn, each input seeks to the largest key any input is on; a key all of them land
     * on is a match. Each input's landing keys only grow and the inputs take turns, so the seeks
     * follow the smallest input, whichever it is (the order only picks who starts). A follower seeks
     * among the keys the lead already holds from there on (the only ones that can match up to the
     * last of them), so it can resolve them all with one read.
     */
    private static final class Intersection extends Derived {
        private final List<KeyStream> inputs;

        Intersection(Comparator<byte[]> order, List<? extends KeyStream> inputs) {
            super(order);
            this.inputs = new ArrayList<>(inputs);
        }

        @Override
        byte[] settle() throws IOException {
            byte[] highest = inputs.get(0).key();
            int agreeing = 1;
            for (int turn = 1; highest != null; turn = (turn + 1) % inputs.size()) {
                if (agreeing == inputs.size()) {
                    return highest;
                }
                KeyStream input = inputs.get(turn);
                if (turn == 0) {
                    input.seek(highest);
                } else {
                    input.seekAmong(highest, from(order, inputs.get(0).known(MAX_CANDIDATES), highest));
                }
                byte[] at = input.key();
                if (at == null) {
                    return null;
                }
                int c = order.compare(at, highest);
                if (c < 0) {
                    // Turns would repeat the same seeks forever: an error instead of a query that never ends.
                    throw new IOException("a key stream of a join is at " + Bytes.toStringBinary(at)
                            + " after a seek to " + Bytes.toStringBinary(highest) + ": it went back (a bug; please report it)");
                }
                if (c == 0) {
                    agreeing++;
                } else {
                    highest = at;
                    agreeing = 1;
                }
            }
            return null;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            inputs.get(0).advance(); // the others are on the key too: they seek past it in turn
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            inputs.get(0).seek(target);
        }

        @Override
        void seekInputsAmong(byte[] target, List<byte[]> candidates) throws IOException {
            inputs.get(0).seekAmong(target, candidates);
        }
    }

    /** The keys of sorted {@code keys} from {@code target} on. */
    private static List<byte[]> from(Comparator<byte[]> order, List<byte[]> keys, byte[] target) {
        int i = 0;
        while (i < keys.size() && order.compare(keys.get(i), target) < 0) {
            i++;
        }
        return keys.subList(i, keys.size());
    }

    /** See {@link #relay}: the holder gives its keys while it holds them, then the turn passes on. */
    private static final class Relay extends Derived {
        private final List<KeyStream> inputs;
        private int holder;

        Relay(Comparator<byte[]> order, List<? extends KeyStream> inputs) {
            super(order);
            this.inputs = new ArrayList<>(inputs);
        }

        @Override
        byte[] settle() throws IOException {
            return inputs.get(holder).key();
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            KeyStream current = inputs.get(holder);
            current.advance();
            if (current.holds()) {
                return; // its next key, or its end: every match is in it
            }
            holder = (holder + 1) % inputs.size();
            KeyStream next = inputs.get(holder);
            next.seek(key);
            byte[] at = next.key();
            if (at != null && order.compare(at, key) == 0) {
                next.advance();
            }
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            inputs.get(holder).seek(target);
        }
    }

    private static final class Sequence implements KeyStream {
        private final List<KeyStream> inputs;
        private final List<byte[]> ends;
        private final boolean descending;
        /** The input at hand: those before it have ended. */
        private int at;

        Sequence(Comparator<byte[]> order, List<? extends KeyStream> inputs, List<byte[]> ends) {
            this.inputs = new ArrayList<>(inputs);
            this.ends = new ArrayList<>(ends);
            this.descending = order.compare(new byte[] {0}, new byte[] {1}) > 0;
        }

        /** Whether input {@code i} holds no key at or after {@code target} in the read's order. */
        private boolean endsBefore(int i, byte[] target) {
            byte[] end = ends.get(i);
            return descending ? compare(target, end) < 0 : end.length > 0 && compare(target, end) >= 0;
        }

        @Override
        public byte[] key() throws IOException {
            for (; at < inputs.size(); at++) {
                byte[] key = inputs.get(at).key();
                if (key != null) {
                    return key;
                }
            }
            return null;
        }

        @Override
        public void advance() throws IOException {
            if (key() != null) {
                inputs.get(at).advance();
            }
        }

        @Override
        public void seek(byte[] target) throws IOException {
            seekAmong(target, null);
        }

        @Override
        public void seekAmong(byte[] target, List<byte[]> candidates) throws IOException {
            for (; at < inputs.size(); at++) {
                if (endsBefore(at, target)) {
                    continue;
                }
                KeyStream input = inputs.get(at);
                if (candidates == null) {
                    input.seek(target);
                } else {
                    input.seekAmong(target, candidates);
                }
                if (input.key() != null) {
                    return;
                }
            }
        }

        @Override
        public boolean holds() {
            for (int i = at; i < inputs.size(); i++) {
                KeyStream input = inputs.get(i);
                if (!input.holds()) {
                    return false;
                }
                try {
                    if (input.key() != null) {
                        return true;
                    }
                } catch (IOException e) {
                    return false; // not met: an input that holds its next key reads nothing for it
                }
            }
            return true;
        }

        /** The input at hand's known keys: no key of a later input comes between them. */
        @Override
        public List<byte[]> known(int max) throws IOException {
            return key() == null ? Collections.<byte[]>emptyList() : inputs.get(at).known(max);
        }
    }

    private static final class Union extends Derived {
        private final List<KeyStream> inputs;
        /** Reads the inputs at once; null: one after another. */
        private final Executor readers;

        Union(Comparator<byte[]> order, List<? extends KeyStream> inputs, Executor readers) {
            super(order);
            this.inputs = new ArrayList<>(inputs);
            this.readers = readers;
        }

        @Override
        boolean inputsHold() {
            for (KeyStream input : inputs) {
                if (!input.holds()) {
                    return false;
                }
            }
            return true;
        }

        @Override
        byte[] settle() throws IOException {
            if (readers != null) {
                readAtOnce(readers, inputs);
            }
            byte[] smallest = null;
            for (KeyStream input : inputs) {
                byte[] key = input.key();
                if (key != null && (smallest == null || order.compare(key, smallest) < 0)) {
                    smallest = key;
                }
            }
            return smallest;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            for (KeyStream input : inputs) {
                byte[] at = input.key();
                if (at != null && order.compare(at, key) == 0) {
                    input.advance();
                }
            }
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            for (KeyStream input : inputs) {
                input.seek(target);
            }
        }

        @Override
        void seekInputsAmong(byte[] target, List<byte[]> candidates) throws IOException {
            for (KeyStream input : inputs) {
                input.seekAmong(target, candidates);
            }
        }

        /**
         * The inputs' known keys merged, up to the first end of an input's known keys: beyond it
         * that input may hold keys not known yet.
         */
        @Override
        public List<byte[]> known(int max) throws IOException {
            List<List<byte[]>> lists = new ArrayList<>();
            byte[] through = null;
            for (KeyStream input : inputs) {
                if (input.key() == null) {
                    continue;
                }
                List<byte[]> known = input.known(max);
                if (known.isEmpty()) {
                    return known;
                }
                lists.add(known);
                byte[] last = known.get(known.size() - 1);
                through = through == null || order.compare(last, through) < 0 ? last : through;
            }
            List<byte[]> merged = new ArrayList<>();
            int[] at = new int[lists.size()];
            while (merged.size() < max) {
                byte[] smallest = null;
                for (int i = 0; i < lists.size(); i++) {
                    if (at[i] < lists.get(i).size()) {
                        byte[] key = lists.get(i).get(at[i]);
                        smallest = smallest == null || order.compare(key, smallest) < 0 ? key : smallest;
                    }
                }
                if (smallest == null || order.compare(smallest, through) > 0) {
                    break;
                }
                merged.add(smallest);
                for (int i = 0; i < lists.size(); i++) {
                    if (at[i] < lists.get(i).size() && order.compare(lists.get(i).get(at[i]), smallest) == 0) {
                        at[i]++;
                    }
                }
            }
            return merged;
        }
    }

    private static final class Filter extends Derived {
        private final KeyStream input;
        private final Predicate<byte[]> test;

        Filter(Comparator<byte[]> order, KeyStream input, Predicate<byte[]> test) {
            super(order);
            this.input = input;
            this.test = test;
        }

        @Override
        byte[] settle() throws IOException {
            for (byte[] key = input.key(); key != null; key = input.key()) {
                if (test.test(key)) {
                    return key;
                }
                input.advance();
            }
            return null;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            input.advance();
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            input.seek(target);
        }

        @Override
        void seekInputsAmong(byte[] target, List<byte[]> candidates) throws IOException {
            input.seekAmong(target, candidates);
        }
    }
}
