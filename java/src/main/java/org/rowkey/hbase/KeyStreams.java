package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * Joins of sorted {@link KeyStream}s (docs/joins.md): the leapfrog intersection (AND), the union
 * (OR), the difference (AND-NOT) and a per-key filter. Each result is a stream itself, so they
 * compose (a union of intersections is an {@code anyOf} query).
 */
final class KeyStreams {
    private KeyStreams() {}

    static int compare(byte[] a, byte[] b) {
        return Bytes.compareTo(a, b);
    }

    /**
     * The keys in every input. {@code inputs.get(0)} leads (give the smallest first): each of its
     * keys costs at most one seek per other input, so the seeks follow the smallest input.
     */
    static KeyStream intersection(List<? extends KeyStream> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("an intersection needs at least one input");
        }
        return inputs.size() == 1 ? inputs.get(0) : new Intersection(inputs);
    }

    /** The keys in any input, each once. */
    static KeyStream union(List<? extends KeyStream> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("a union needs at least one input");
        }
        return inputs.size() == 1 ? inputs.get(0) : new Union(inputs);
    }

    /** The keys of {@code kept} that are not in {@code removed}. */
    static KeyStream difference(KeyStream kept, KeyStream removed) {
        return new Difference(kept, removed);
    }

    /** The keys of {@code input} that pass {@code test}. */
    static KeyStream filter(KeyStream input, Predicate<byte[]> test) {
        return new Filter(input, test);
    }

    /** The common shape: a current key settled lazily, seeks that are no-ops when not ahead. */
    private abstract static class Derived implements KeyStream {
        private boolean positioned;
        private byte[] current;

        /** Moves the inputs from where they are to the next key of this stream; returns it or null. */
        abstract byte[] settle() throws IOException;

        /** Moves the inputs past the current key {@code key}. */
        abstract void moveInputsPast(byte[] key) throws IOException;

        /** Seeks the inputs to {@code target}. */
        abstract void seekInputs(byte[] target) throws IOException;

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
                current = settle();
            }
        }

        @Override
        public final void seek(byte[] target) throws IOException {
            if (positioned && (current == null || compare(current, target) >= 0)) {
                return;
            }
            seekInputs(target);
            current = settle();
            positioned = true;
        }
    }

    /** Leapfrog: followers seek to the lead's key; one that lands beyond it sends the lead there. */
    private static final class Intersection extends Derived {
        private final KeyStream lead;
        private final List<KeyStream> followers;

        Intersection(List<? extends KeyStream> inputs) {
            this.lead = inputs.get(0);
            this.followers = new ArrayList<>(inputs.subList(1, inputs.size()));
        }

        @Override
        byte[] settle() throws IOException {
            byte[] candidate = lead.key();
            next:
            while (candidate != null) {
                for (KeyStream follower : followers) {
                    follower.seek(candidate);
                    byte[] at = follower.key();
                    if (at == null) {
                        return null;
                    }
                    if (compare(at, candidate) > 0) {
                        lead.seek(at);
                        candidate = lead.key();
                        continue next;
                    }
                }
                return candidate;
            }
            return null;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            lead.advance(); // the followers stay: the lead's next key is where they seek next
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            lead.seek(target);
        }
    }

    private static final class Union extends Derived {
        private final List<KeyStream> inputs;

        Union(List<? extends KeyStream> inputs) {
            this.inputs = new ArrayList<>(inputs);
        }

        @Override
        byte[] settle() throws IOException {
            byte[] smallest = null;
            for (KeyStream input : inputs) {
                byte[] key = input.key();
                if (key != null && (smallest == null || compare(key, smallest) < 0)) {
                    smallest = key;
                }
            }
            return smallest;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            for (KeyStream input : inputs) {
                byte[] at = input.key();
                if (at != null && compare(at, key) == 0) {
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
    }

    private static final class Difference extends Derived {
        private final KeyStream kept;
        private final KeyStream removed;

        Difference(KeyStream kept, KeyStream removed) {
            this.kept = kept;
            this.removed = removed;
        }

        @Override
        byte[] settle() throws IOException {
            for (byte[] key = kept.key(); key != null; key = kept.key()) {
                removed.seek(key);
                byte[] at = removed.key();
                if (at == null || compare(at, key) != 0) {
                    return key;
                }
                kept.advance();
            }
            return null;
        }

        @Override
        void moveInputsPast(byte[] key) throws IOException {
            kept.advance();
        }

        @Override
        void seekInputs(byte[] target) throws IOException {
            kept.seek(target);
        }
    }

    private static final class Filter extends Derived {
        private final KeyStream input;
        private final Predicate<byte[]> test;

        Filter(KeyStream input, Predicate<byte[]> test) {
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
    }
}
