package org.rowkey.hbase.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * The joins of {@link KeyStreams} against set algebra on random sorted streams (duplicates, empty
 * inputs, keys above 0x7f to catch signed comparisons), with the seek count of the leapfrog join
 * bounded by its smallest input and every stream's seek targets never going backwards.
 */
class KeyStreamsTest {
    private static final int CASES = 3000;

    /** An in-memory stream that counts its repositioning seeks and checks that targets only grow. */
    static final class ListStream implements KeyStream {
        private final List<byte[]> keys;
        private final Comparator<byte[]> order;
        private int position = -1;
        private byte[] lastTarget;
        int seeks;

        ListStream(List<byte[]> sortedKeys) {
            this(sortedKeys, KeyStreams.ASCENDING);
        }

        /** {@code keys} sorted in {@code order}. */
        ListStream(List<byte[]> keys, Comparator<byte[]> order) {
            this.keys = keys;
            this.order = order;
        }

        @Override
        public byte[] key() {
            if (position < 0) {
                position = 0;
            }
            return position < keys.size() ? keys.get(position) : null;
        }

        @Override
        public void advance() {
            byte[] current = key();
            if (current == null) {
                return;
            }
            while (position < keys.size() && order.compare(keys.get(position), current) == 0) {
                position++;
            }
        }

        @Override
        public void seek(byte[] target) {
            if (lastTarget != null && order.compare(target, lastTarget) < 0) {
                throw new AssertionError("seek backwards: " + hex(target) + " after " + hex(lastTarget));
            }
            lastTarget = target.clone();
            boolean started = position >= 0;
            if (started && (position >= keys.size() || order.compare(keys.get(position), target) >= 0)) {
                return; // already there: no seek
            }
            seeks++;
            int at = Math.max(position, 0);
            while (at < keys.size() && order.compare(keys.get(at), target) < 0) {
                at++;
            }
            position = at;
        }
    }

    private static final Comparator<byte[]> ORDER = KeyStreams::compare;

    /**
     * A table range in memory: what {@link RangeKeyStream} reads, counting rows visited and reads;
     * its rows filtered on the "server" by {@code kept} and read with the budget as
     * {@link RowBudgetFilter} bounds a scan.
     */
    static final class MemoryReader implements KeyRangeReader {
        private final TreeSet<byte[]> rows = new TreeSet<>(ORDER);
        private final boolean descending;
        private final java.util.function.Predicate<byte[]> kept;
        long rowsRead;
        long reads;

        MemoryReader(List<byte[]> keys, boolean descending) {
            this(keys, descending, k -> true);
        }

        MemoryReader(List<byte[]> keys, boolean descending, java.util.function.Predicate<byte[]> kept) {
            rows.addAll(keys);
            this.descending = descending;
            this.kept = kept;
        }

        @Override
        public boolean descending() {
            return descending;
        }

        @Override
        public byte[] start() {
            return new byte[0];
        }

        @Override
        public byte[] stop() {
            return new byte[0];
        }

        @Override
        public Read read(List<byte[]> points, byte[] from, boolean inclusive, int limit, int budget) {
            reads++;
            List<byte[]> out = new ArrayList<>();
            int looked = 0;
            for (byte[] p : points) {
                rowsRead++; // the server seeks to it and looks at the row there
                if (rows.contains(p) && kept.test(p) && out.size() < limit) {
                    out.add(p);
                }
            }
            if (from != null) {
                java.util.NavigableSet<byte[]> rest = !descending ? rows.tailSet(from, inclusive)
                        : from.length == 0 ? rows.descendingSet() : rows.headSet(from, inclusive).descendingSet();
                for (byte[] r : rest) {
                    if (out.size() == limit) {
                        break;
                    }
                    rowsRead++;
                    if (budget > 0 && ++looked > budget) {
                        out.add(r); // the row after the budget, undecided
                        return new Read(out, true);
                    }
                    if (kept.test(r)) {
                        out.add(r);
                    }
                }
            }
            return new Read(out, false);
        }

        @Override
        public long rowsRead() {
            return rowsRead;
        }

        @Override
        public long reads() {
            return reads;
        }
    }

    /** A stream over a {@link MemoryReader}, checking that seek targets never go backwards. */
    static final class ReadStream implements KeyStream {
        final MemoryReader reader;
        private final RangeKeyStream stream;
        private byte[] lastTarget;

        private final Comparator<byte[]> order;

        /** As the join reads a lead ({@code lead}: a full first batch) or a follower (one row). */
        ReadStream(List<byte[]> keys, boolean lead) {
            this(keys, KeyStreams.ASCENDING, lead);
        }

        ReadStream(List<byte[]> keys, Comparator<byte[]> order, boolean lead) {
            reader = new MemoryReader(keys, order == KeyStreams.DESCENDING);
            stream = RangeKeyStream.ofDataKeys(reader, lead ? RangeKeyStream.MAX_BATCH : 1);
            this.order = order;
        }

        /** As a relay reads an input: its rows filtered on the server by {@code kept}, read with a row budget. */
        ReadStream(List<byte[]> keys, Comparator<byte[]> order, java.util.function.Predicate<byte[]> kept, int firstBatch,
                int firstBudget) {
            reader = new MemoryReader(keys, order == KeyStreams.DESCENDING, kept);
            stream = RangeKeyStream.ofDataKeys(reader, firstBatch, firstBudget);
            this.order = order;
        }

        @Override
        public boolean holds() {
            return stream.holds();
        }

        private void check(byte[] target) {
            if (lastTarget != null && order.compare(target, lastTarget) < 0) {
                throw new AssertionError("seek backwards: " + hex(target) + " after " + hex(lastTarget));
            }
            lastTarget = target.clone();
        }

        @Override
        public byte[] key() throws IOException {
            return stream.key();
        }

        @Override
        public void advance() throws IOException {
            stream.advance();
        }

        @Override
        public void seek(byte[] target) throws IOException {
            check(target);
            stream.seek(target);
        }

        @Override
        public void seekAmong(byte[] target, List<byte[]> candidates) throws IOException {
            check(target);
            for (byte[] c : candidates) {
                assertTrue(order.compare(c, target) >= 0, "candidate before the target");
            }
            stream.seekAmong(target, candidates);
        }

        @Override
        public List<byte[]> known(int max) throws IOException {
            return stream.known(max);
        }
    }

    private static String hex(byte[] key) {
        StringBuilder s = new StringBuilder();
        for (byte b : key) {
            s.append(String.format("%02x", b & 0xff));
        }
        return s.toString();
    }

    /** Sorted keys of 2 bytes (values spread over 0..0xffff in few clusters), with duplicates. */
    private static List<byte[]> randomKeys(Random random, int universe) {
        int size = random.nextInt(5) == 0 ? 0 : random.nextInt(80);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int value = random.nextInt(universe) * (0xffff / universe);
            keys.add(new byte[] {(byte) (value >>> 8), (byte) value});
            if (random.nextInt(6) == 0) {
                keys.add(keys.get(keys.size() - 1).clone());
            }
        }
        keys.sort(ORDER);
        return keys;
    }

    private static TreeSet<byte[]> set(List<byte[]> keys) {
        TreeSet<byte[]> set = new TreeSet<>(ORDER);
        set.addAll(keys);
        return set;
    }

    private static List<byte[]> drain(KeyStream stream) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (byte[] key = stream.key(); key != null; key = stream.key()) {
            out.add(key);
            stream.advance();
        }
        return out;
    }

    private static void assertKeys(TreeSet<byte[]> expected, List<byte[]> actual, String what) {
        List<String> e = new ArrayList<>();
        expected.forEach(k -> e.add(hex(k)));
        List<String> a = new ArrayList<>();
        actual.forEach(k -> a.add(hex(k)));
        assertEquals(e, a, what);
    }

    private static List<List<byte[]>> inputs(Random random, int count, int universe) {
        List<List<byte[]>> inputs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            inputs.add(randomKeys(random, universe));
        }
        return inputs;
    }

    private static List<ListStream> streams(List<List<byte[]>> inputs) {
        List<ListStream> streams = new ArrayList<>();
        inputs.forEach(keys -> streams.add(new ListStream(keys)));
        return streams;
    }

    /**
     * A follower that lands below its seek target (what a seek into an index from a position that
     * was no key did) makes the intersection fail with an error naming both keys; before, the turns
     * repeated the same seeks, a read each, and the query never answered.
     */
    @Test
    void anIntersectionWhoseFollowerGoesBackFailsInsteadOfLoopingForever() {
        byte[] low = {1};
        byte[] high = {5};
        KeyStream lead = new ListStream(Arrays.asList(high));
        KeyStream goesBack = new KeyStream() {
            @Override
            public byte[] key() {
                return low; // wherever it is sent
            }

            @Override
            public void advance() {
            }

            @Override
            public void seek(byte[] target) {
            }
        };
        IOException e = assertThrows(IOException.class,
                () -> KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(lead, goesBack)).key());
        assertTrue(e.getMessage().contains("is at \\x01 after a seek to \\x05"), e.getMessage());
    }

    @Test
    void intersectionIsSetIntersectionWithSeeksBoundedBySmallestInput() throws IOException {
        Random random = new Random(12);
        for (int c = 0; c < CASES; c++) {
            int k = 1 + random.nextInt(4);
            List<List<byte[]>> inputs = inputs(random, k, 20 + random.nextInt(300));
            if (random.nextBoolean()) {
                inputs.sort(Comparator.comparingInt(List::size)); // else the estimates were wrong
            }
            TreeSet<byte[]> expected = set(inputs.get(0));
            inputs.forEach(keys -> expected.retainAll(set(keys)));
            List<ListStream> streams = streams(inputs);
            assertKeys(expected, drain(KeyStreams.intersection(KeyStreams.ASCENDING, streams)), "case " + c + " AND of " + k);
            int seeks = streams.stream().mapToInt(s -> s.seeks).sum();
            int smallest = inputs.stream().mapToInt(List::size).min().getAsInt();
            int bound = k * smallest + k;
            assertTrue(seeks <= bound, "case " + c + ": " + seeks + " seeks for " + k + " inputs, smallest "
                    + smallest + ", bound " + bound);
        }
    }

    @Test
    void leapfrogSeeksFollowTheSmallInputNotTheLargeOne() throws IOException {
        List<byte[]> small = new ArrayList<>();
        List<byte[]> large = new ArrayList<>();
        for (int v = 0; v < 60_000; v++) {
            byte[] key = {(byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
            large.add(key);
            if (v % 600 == 7) {
                small.add(key);
            }
        }
        for (boolean smallFirst : new boolean[] {true, false}) {
            ListStream a = new ListStream(small);
            ListStream b = new ListStream(large);
            assertEquals(100, drain(KeyStreams.intersection(KeyStreams.ASCENDING, smallFirst ? Arrays.asList(a, b) : Arrays.asList(b, a))).size());
            assertTrue(a.seeks + b.seeks <= 2 * small.size() + 2, a.seeks + b.seeks + " seeks, small first " + smallFirst);
        }
    }

    /** Keys {@code 0..size-1} times {@code step} plus {@code offset}, as 3-byte keys. */
    private static List<byte[]> spaced(int size, int step, int offset) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int v = i * step + offset;
            keys.add(new byte[] {(byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        }
        return keys;
    }

    /**
     * The leaf streams as the join reads them (batches, probes of the lead's keys): set algebra for
     * AND of leaves and of unions of leaves, reads never more than {@code 2 x (smallest + 1)} per
     * input, and, when the smallest leads, rows read within {@code 3 x smallest} plus the reads.
     */
    @Test
    void readStreamsIntersectWithReadsBoundedBySmallestInput() throws IOException {
        Random random = new Random(16);
        for (int c = 0; c < CASES; c++) {
            int k = 2 + random.nextInt(3);
            List<List<byte[]>> inputs = inputs(random, k, 20 + random.nextInt(300));
            boolean sorted = random.nextBoolean();
            if (sorted) {
                inputs.sort(Comparator.comparingInt(List::size));
            }
            TreeSet<byte[]> expected = set(inputs.get(0));
            inputs.forEach(keys -> expected.retainAll(set(keys)));
            List<ReadStream> leaves = new ArrayList<>();
            List<KeyStream> streams = new ArrayList<>();
            for (List<byte[]> keys : inputs) {
                boolean lead = streams.isEmpty();
                if (random.nextInt(3) == 0) { // a union of two leaves (an IN, a salted index)
                    List<byte[]> even = new ArrayList<>();
                    List<byte[]> odd = new ArrayList<>();
                    keys.forEach(key -> ((key[1] & 1) == 0 ? even : odd).add(key));
                    ReadStream a = new ReadStream(even, lead);
                    ReadStream b = new ReadStream(odd, lead);
                    leaves.add(a);
                    leaves.add(b);
                    streams.add(KeyStreams.union(KeyStreams.ASCENDING, Arrays.asList(a, b)));
                } else {
                    ReadStream leaf = new ReadStream(keys, lead);
                    leaves.add(leaf);
                    streams.add(leaf);
                }
            }
            assertKeys(expected, drain(KeyStreams.intersection(KeyStreams.ASCENDING, streams)), "case " + c + " AND of " + k);
            int smallest = inputs.stream().mapToInt(keys -> set(keys).size()).min().getAsInt();
            long reads = leaves.stream().mapToLong(l -> l.reader.reads).sum();
            long rows = leaves.stream().mapToLong(l -> l.reader.rowsRead).sum();
            long bound = 2L * leaves.size() * (smallest + 1);
            assertTrue(reads <= bound, "case " + c + ": " + reads + " reads, smallest " + smallest + ", bound " + bound);
            if (sorted && k == 2 && leaves.size() == 2) {
                assertTrue(rows <= 3L * smallest + reads, "case " + c + ": " + rows + " rows read, smallest " + smallest);
            }
        }
    }

    /**
     * A dense follower resolves the lead's batches with one read each: a read of the lead and a
     * probe of the follower per {@value RangeKeyStream#MAX_BATCH} keys of the small input; a sparse
     * follower still makes the lead seek far (the reads follow the small input, not the large one).
     */
    @Test
    void denseFollowerIsProbedInBatchesSparseOneStillMakesTheLeadSeekFar() throws IOException {
        List<byte[]> small = spaced(1000, 1000, 7); // one key in 1,000
        List<byte[]> large = spaced(100_000, 10, 7); // one in 10: every 100th of them is in small
        ReadStream a = new ReadStream(small, true);
        ReadStream b = new ReadStream(large, false);
        assertEquals(1000, drain(KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(a, b))).size());
        long reads = a.reader.reads + b.reader.reads;
        long rows = a.reader.rowsRead + b.reader.rowsRead;
        assertTrue(reads <= 3, reads + " reads (small leads)");
        assertTrue(rows <= 3 * 1000, rows + " rows read (small leads)");

        List<byte[]> sparse = spaced(100, 10_000, 3); // not one key in common with large
        a = new ReadStream(large, true);
        b = new ReadStream(sparse, false);
        assertEquals(0, drain(KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(a, b))).size());
        reads = a.reader.reads + b.reader.reads;
        assertTrue(reads <= 2 * (100 + 1), reads + " reads (large leads, sparse follower)");
    }

    /**
     * Under {@code limit(10)}, a lead of 4 leaves (a salted index) whose first reads are sized from
     * the limit ({@link RangeKeyStream#firstBatch}) and a follower keeping one key in 50 (then none for
     * a long way): the first 10
     * matches read about the lead's keys up to the tenth (451), not a 1,024-row batch per leaf, and
     * nothing more is read once the tenth key has been taken.
     */
    @Test
    void limitedJoinReadsWhatTheLimitNeedsAndNothingAfter() throws IOException {
        List<MemoryReader> readers = new ArrayList<>();
        List<KeyStream> buckets = new ArrayList<>();
        for (int b = 0; b < 4; b++) {
            MemoryReader reader = new MemoryReader(spaced(10_000, 4, b), false);
            readers.add(reader);
            buckets.add(RangeKeyStream.ofDataKeys(reader, RangeKeyStream.firstBatch(10, 4, true, false, false)));
        }
        List<byte[]> sparse = spaced(10, 50, 0); // then no match until far on: the eleventh would need reads
        sparse.addAll(spaced(100, 50, 30_000));
        MemoryReader follower = new MemoryReader(sparse, false);
        readers.add(follower);
        KeyStream join = KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(KeyStreams.union(KeyStreams.ASCENDING,
                buckets), RangeKeyStream.ofDataKeys(follower, RangeKeyStream.firstBatch(10, 4, false, false, false))));
        List<String> first = new ArrayList<>();
        long rows = 0;
        while (first.size() < 10) { // as JoinScanner takes them: the key, then past it
            first.add(hex(join.key()));
            rows = readers.stream().mapToLong(r -> r.rowsRead).sum();
            join.advance();
        }
        assertEquals(spaced(10, 50, 0).stream().map(KeyStreamsTest::hex).collect(java.util.stream.Collectors.toList()), first);
        assertTrue(rows <= 3 * 451, rows + " rows read for the first 10");
        assertEquals(rows, readers.stream().mapToLong(r -> r.rowsRead).sum(), "rows read by the advance past the tenth key");
    }

    /**
     * Under {@code limit(10)}, a union of 16 leaves (a salted index's buckets) whose keys all match,
     * the first 10 in 10 different buckets, in both orders: one read per bucket settles them (their
     * first reads hold a few keys more than their share, {@link RangeKeyStream#firstBatch}); with
     * one key each, each bucket a key was taken from read again before the next key (25 reads).
     */
    @Test
    void aLimitedUnionOfBucketsReadsEachBucketOnce() throws IOException {
        for (boolean descending : new boolean[] {false, true}) {
            List<MemoryReader> readers = new ArrayList<>();
            List<KeyStream> buckets = new ArrayList<>();
            for (int b = 0; b < 16; b++) {
                List<byte[]> keys = spaced(500, 16, b);
                if (descending) {
                    keys.sort(KeyStreams.DESCENDING);
                }
                MemoryReader reader = new MemoryReader(keys, descending);
                readers.add(reader);
                buckets.add(RangeKeyStream.ofDataKeys(reader, RangeKeyStream.firstBatch(10, 16, true, true, false)));
            }
            KeyStream union = KeyStreams.union(descending ? KeyStreams.DESCENDING : KeyStreams.ASCENDING, buckets);
            List<byte[]> every = spaced(500 * 16, 1, 0);
            if (descending) {
                every.sort(KeyStreams.DESCENDING);
            }
            for (int i = 0; i < 10; i++) {
                assertEquals(hex(every.get(i)), hex(union.key()), "key " + i);
                union.advance();
            }
            long reads = readers.stream().mapToLong(r -> r.reads).sum();
            assertEquals(16, reads, reads + " reads for the first 10" + (descending ? ", descending" : ""));
        }
        assertEquals(1, RangeKeyStream.firstBatch(10, 16, true, true, true), "a budgeted read: its share");
        assertEquals(10, RangeKeyStream.firstBatch(10, 1, true, true, false), "one range: the limit");
    }

    /**
     * In descending order (a reversed query) the joins give the same sets, last key first, over
     * in-memory streams and over leaf streams reading backwards; seek targets never go back up.
     */
    @Test
    void descendingJoinsAreSetAlgebraLastKeyFirst() throws IOException {
        Comparator<byte[]> down = KeyStreams.DESCENDING;
        Random random = new Random(17);
        for (int c = 0; c < CASES; c++) {
            List<List<byte[]>> in = inputs(random, 4, 20 + random.nextInt(300));
            in.forEach(keys -> keys.sort(down));
            boolean leaves = random.nextBoolean();
            List<KeyStream> s = new ArrayList<>();
            for (List<byte[]> keys : in) {
                s.add(leaves ? new ReadStream(keys, down, s.isEmpty()) : new ListStream(keys, down));
            }
            TreeSet<byte[]> and = set(in.get(0));
            and.retainAll(set(in.get(1)));
            TreeSet<byte[]> andNot = set(in.get(2));
            andNot.removeAll(set(in.get(3)));
            TreeSet<byte[]> expected = new TreeSet<>(down);
            expected.addAll(and);
            expected.addAll(andNot);
            TreeSet<byte[]> removed = set(in.get(3));
            KeyStream joined = KeyStreams.union(down, Arrays.asList(KeyStreams.intersection(down, s.subList(0, 2)),
                    KeyStreams.filter(down, s.get(2), k -> !removed.contains(k))));
            if (random.nextBoolean()) {
                // A seek first: to a key in the middle of the universe, all keys after it (below it) on.
                byte[] target = {(byte) random.nextInt(256), (byte) random.nextInt(256)};
                joined.seek(target);
                expected.removeIf(k -> down.compare(k, target) < 0);
            }
            List<String> want = new ArrayList<>();
            expected.forEach(k -> want.add(hex(k)));
            List<String> got = new ArrayList<>();
            drain(joined).forEach(k -> got.add(hex(k)));
            assertEquals(want, got, "case " + c + (leaves ? " (leaf streams)" : ""));
        }
    }

    /**
     * A sequence of disjoint ranges gives their keys in the read's order, both ways, under advances
     * and seeks at random, and reads no range after the one its current key is in; a seek past
     * ranges reads none of them.
     */
    @Test
    void aSequenceOfDisjointRangesReadsNoRangeBeforeItsKeysAreReached() throws IOException {
        Random random = new Random(29);
        for (int c = 0; c < CASES; c++) {
            boolean descending = random.nextBoolean();
            Comparator<byte[]> order = descending ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
            int count = 1 + random.nextInt(5);
            List<MemoryReader> readers = new ArrayList<>();
            List<KeyStream> inputs = new ArrayList<>();
            List<byte[]> ends = new ArrayList<>();
            List<TreeSet<byte[]>> held = new ArrayList<>();
            TreeSet<byte[]> all = new TreeSet<>(order);
            for (int i = 0; i < count; i++) {
                // Range i: the keys whose first byte is in [40 i, 40 i + 40); the first and the last open.
                TreeSet<byte[]> keys = new TreeSet<>(order);
                for (int k = random.nextInt(4) == 0 ? 0 : random.nextInt(30); k > 0; k--) {
                    keys.add(new byte[] {(byte) (40 * i + random.nextInt(40)), (byte) random.nextInt(256)});
                }
                MemoryReader reader = new MemoryReader(new ArrayList<>(keys), descending);
                readers.add(reader);
                inputs.add(RangeKeyStream.ofDataKeys(reader, 1 + random.nextInt(8)));
                byte[] start = i == 0 ? new byte[0] : new byte[] {(byte) (40 * i)};
                byte[] stop = i == count - 1 ? new byte[0] : new byte[] {(byte) (40 * (i + 1))};
                ends.add(descending ? start : stop);
                held.add(keys);
                all.addAll(keys);
            }
            if (descending) {
                Collections.reverse(readers);
                Collections.reverse(inputs);
                Collections.reverse(ends);
                Collections.reverse(held);
            }
            KeyStream sequence = KeyStreams.sequence(order, inputs, ends);
            byte[] expected = all.isEmpty() ? null : all.first();
            for (int step = random.nextInt(60); ; step--) {
                byte[] key = sequence.key();
                assertEquals(expected == null ? null : hex(expected), key == null ? null : hex(key), "case " + c);
                if (key == null) {
                    break;
                }
                int in = 0;
                while (!held.get(in).contains(key)) {
                    in++;
                }
                for (int later = in + 1; later < count; later++) {
                    assertEquals(0, readers.get(later).reads, "case " + c + ": range " + later + " read before its keys");
                }
                if (step == 0) {
                    break;
                }
                byte[] target = {(byte) random.nextInt(256), (byte) random.nextInt(256)};
                if (random.nextInt(4) == 0 && order.compare(target, key) > 0) {
                    sequence.seek(target);
                    expected = all.ceiling(target);
                } else {
                    sequence.advance();
                    expected = all.higher(key);
                }
            }
        }
        // A seek into the last range reads it alone.
        for (boolean descending : new boolean[] {false, true}) {
            Comparator<byte[]> order = descending ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
            List<MemoryReader> readers = new ArrayList<>();
            List<KeyStream> inputs = new ArrayList<>();
            List<byte[]> ends = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int range = descending ? 3 - i : i;
                List<byte[]> keys = spaced(10, 1, 40 * range);
                keys.replaceAll(k -> new byte[] {k[2]});
                if (descending) {
                    keys.sort(order);
                }
                MemoryReader reader = new MemoryReader(keys, descending);
                readers.add(reader);
                inputs.add(RangeKeyStream.ofDataKeys(reader, 10));
                ends.add(new byte[] {(byte) (descending ? 40 * range : 40 * (range + 1))});
            }
            KeyStream sequence = KeyStreams.sequence(order, inputs, ends);
            byte[] target = {(byte) (descending ? 5 : 125)};
            sequence.seek(target);
            assertEquals(hex(target), hex(sequence.key()), descending ? "descending" : "ascending");
            long[] reads = readers.stream().mapToLong(r -> r.reads).toArray();
            assertEquals("[0, 0, 0, 1]", Arrays.toString(reads), descending ? "descending" : "ascending");
        }
    }

    @Test
    void unionIsSetUnionEachKeyOnce() throws IOException {
        Random random = new Random(13);
        for (int c = 0; c < CASES; c++) {
            List<List<byte[]>> inputs = inputs(random, 1 + random.nextInt(4), 20 + random.nextInt(300));
            TreeSet<byte[]> expected = new TreeSet<>(ORDER);
            inputs.forEach(expected::addAll);
            assertKeys(expected, drain(KeyStreams.union(KeyStreams.ASCENDING, streams(inputs))), "case " + c);
        }
    }

    @Test
    void aUnionOfRangeStreamsReadAtOnceGivesTheKeysAndReadsOfOneReadAfterAnother() throws Exception {
        Random random = new Random(15);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        try {
            for (int c = 0; c < CASES; c++) {
                boolean descending = random.nextBoolean();
                List<List<byte[]>> inputs = inputs(random, 2 + random.nextInt(6), 20 + random.nextInt(300));
                int[] firstBatches = new int[inputs.size()];
                for (int i = 0; i < firstBatches.length; i++) {
                    firstBatches[i] = 1 + random.nextInt(8);
                }
                List<List<byte[]>> keys = new ArrayList<>();
                long[] reads = new long[2];
                for (int way = 0; way < 2; way++) {
                    List<MemoryReader> readers = new ArrayList<>();
                    List<KeyStream> leaves = new ArrayList<>();
                    for (int i = 0; i < inputs.size(); i++) {
                        MemoryReader reader = new MemoryReader(inputs.get(i), descending);
                        readers.add(reader);
                        leaves.add(RangeKeyStream.ofDataKeys(reader, firstBatches[i]));
                    }
                    Comparator<byte[]> order = descending ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
                    keys.add(drain(KeyStreams.union(order, leaves, way == 0 ? null : pool)));
                    for (MemoryReader r : readers) {
                        reads[way] += r.reads;
                    }
                }
                assertEquals(hexes(keys.get(0)), hexes(keys.get(1)), "case " + c);
                assertEquals(reads[0], reads[1], "case " + c + ": reads");
            }
            // A failing read fails the union with its exception, once every other read has ended.
            KeyStream failing = new KeyStream() {
                @Override
                public byte[] key() throws IOException {
                    throw new IOException("region gone");
                }

                @Override
                public void advance() {
                }

                @Override
                public void seek(byte[] target) {
                }
            };
            KeyStream union = KeyStreams.union(KeyStreams.ASCENDING, Arrays.asList(
                    RangeKeyStream.ofDataKeys(new MemoryReader(Arrays.asList(new byte[] {2}), false), 4), failing), pool);
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, union::key);
            assertEquals("region gone", e.getMessage());
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<String> hexes(List<byte[]> keys) {
        List<String> out = new ArrayList<>();
        keys.forEach(k -> out.add(hex(k)));
        return out;
    }

    /** anyOf(AND, filtered, AND) with seeks and a filter, seek targets interleaved at random. */
    @Test
    void composedJoinsSeekToTheFirstKeyAtOrAfterTheTarget() throws IOException {
        Random random = new Random(15);
        for (int c = 0; c < CASES; c++) {
            int universe = 20 + random.nextInt(300);
            List<List<byte[]>> in = inputs(random, 6, universe);
            TreeSet<byte[]> and1 = set(in.get(0));
            and1.retainAll(set(in.get(1)));
            TreeSet<byte[]> andNot = set(in.get(2));
            andNot.removeAll(set(in.get(3)));
            TreeSet<byte[]> and2 = set(in.get(4));
            and2.retainAll(set(in.get(5)));
            TreeSet<byte[]> expected = new TreeSet<>(ORDER);
            expected.addAll(and1);
            expected.addAll(andNot);
            expected.addAll(and2);
            expected.removeIf(k -> (k[1] & 1) == 1);
            List<ListStream> s = streams(in);
            TreeSet<byte[]> removed = set(in.get(3));
            KeyStream joined = KeyStreams.filter(KeyStreams.ASCENDING, KeyStreams.union(KeyStreams.ASCENDING, Arrays.asList(
                    KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(s.get(0), s.get(1))),
                    KeyStreams.filter(KeyStreams.ASCENDING, s.get(2), k -> !removed.contains(k)),
                    KeyStreams.intersection(KeyStreams.ASCENDING, Arrays.asList(s.get(4), s.get(5))))), k -> (k[1] & 1) == 0);
            byte[] target = {0, 0};
            while (true) {
                if (random.nextBoolean()) {
                    int t = ((target[0] & 0xff) << 8 | (target[1] & 0xff)) + random.nextInt(3000);
                    target = new byte[] {(byte) (Math.min(t, 0xffff) >>> 8), (byte) Math.min(t, 0xffff)};
                    joined.seek(target);
                    byte[] want = expected.ceiling(target);
                    byte[] got = joined.key();
                    assertEquals(want == null ? null : hex(want), got == null ? null : hex(got), "case " + c + " seek");
                } else {
                    byte[] before = joined.key();
                    if (before == null) {
                        break;
                    }
                    joined.advance();
                    byte[] want = expected.higher(before);
                    byte[] got = joined.key();
                    assertEquals(want == null ? null : hex(want), got == null ? null : hex(got), "case " + c + " advance");
                    if (got != null && KeyStreams.compare(got, target) > 0) {
                        target = got;
                    }
                }
                if (joined.key() == null) {
                    break;
                }
            }
        }
    }

    /**
     * The relay: inputs that each hold every match (their other rows dropped by the "server" filter,
     * the rows after a budget given undecided), read in turns with random batches and budgets,
     * forwards and backwards, with seeks: once the caller drops the keys that do not match (as
     * {@link JoinScanner} does), exactly the matches from each seek target on, in order, and no seek
     * backwards.
     */
    @Test
    void relayedInputsGiveExactlyTheMatchesWithSeeks() throws IOException {
        Random random = new Random(31);
        for (int c = 0; c < CASES; c++) {
            int k = 2 + random.nextInt(3);
            boolean descending = random.nextBoolean();
            Comparator<byte[]> order = descending ? KeyStreams.DESCENDING : KeyStreams.ASCENDING;
            List<List<byte[]>> inputs = inputs(random, k, 20 + random.nextInt(300));
            TreeSet<byte[]> matches = new TreeSet<>(order);
            for (byte[] key : set(inputs.get(0))) {
                if (random.nextInt(3) > 0) {
                    matches.add(key); // a match: in every input
                    for (List<byte[]> other : inputs.subList(1, k)) {
                        other.add(key);
                    }
                }
            }
            List<KeyStream> relayed = new ArrayList<>();
            for (List<byte[]> keys : inputs) {
                List<byte[]> inOrder = new ArrayList<>(set(keys));
                if (descending) {
                    java.util.Collections.reverse(inOrder);
                }
                relayed.add(new ReadStream(inOrder, order, matches::contains, 1 + random.nextInt(8), 1 + random.nextInt(8)));
            }
            KeyStream joined = KeyStreams.filter(order, KeyStreams.relay(order, relayed), matches::contains);
            byte[] target = null;
            for (byte[] got = joined.key(); ; got = joined.key()) {
                byte[] want = target == null ? (matches.isEmpty() ? null : matches.first()) : matches.ceiling(target);
                if (random.nextInt(4) == 0 && got != null) {
                    byte[] after = matches.higher(got);
                    target = after == null || random.nextBoolean() ? got : after; // a seek ahead, or onto the key
                    joined.seek(target);
                    got = joined.key();
                    want = matches.ceiling(target);
                }
                assertEquals(want == null ? null : hex(want), got == null ? null : hex(got), "case " + c);
                if (got == null) {
                    break;
                }
                joined.advance();
                target = matches.higher(got) == null ? null : matches.higher(got);
                if (target == null) {
                    assertEquals(null, joined.key(), "case " + c + ": nothing after the last match");
                    break;
                }
            }
        }
    }

    /**
     * The rows a relay reads follow its smallest input, whichever input starts: a sparse input of
     * {@code s} keys and a dense one of 60,000 (every match in both), the first budget {@code b}:
     * at most {@code 4 x (s + b)} rows in all, where reading the dense input alone, filtered, reads
     * all of its rows.
     */
    @Test
    void relayReadsFollowTheSmallestInputWhicheverStarts() throws IOException {
        for (int step : new int[] {6000, 600, 60}) {
            List<byte[]> dense = spaced(60_000, 1, 0);
            List<byte[]> sparse = spaced(60_000 / step, step, 7);
            TreeSet<byte[]> matches = new TreeSet<>(ORDER);
            for (int i = 0; i < sparse.size(); i += 3) {
                matches.add(sparse.get(i));
            }
            int budget = 64;
            for (boolean sparseFirst : new boolean[] {true, false}) {
                ReadStream a = new ReadStream(sparse, KeyStreams.ASCENDING, matches::contains, RangeKeyStream.MAX_BATCH, budget);
                ReadStream b = new ReadStream(dense, KeyStreams.ASCENDING, matches::contains, RangeKeyStream.MAX_BATCH, budget);
                List<byte[]> got = drain(KeyStreams.filter(ORDER,
                        KeyStreams.relay(ORDER, sparseFirst ? Arrays.asList(a, b) : Arrays.asList(b, a)), matches::contains));
                assertKeys(matches, got, "step " + step);
                long rows = a.reader.rowsRead + b.reader.rowsRead;
                assertTrue(rows <= 4L * (sparse.size() + budget), rows + " rows read, sparse " + sparse.size()
                        + ", sparse first " + sparseFirst);
            }
            ReadStream alone = new ReadStream(dense, KeyStreams.ASCENDING, matches::contains, RangeKeyStream.MAX_BATCH, 0);
            assertKeys(matches, drain(KeyStreams.filter(ORDER, alone, matches::contains)), "dense alone");
            assertEquals(dense.size(), alone.reader.rowsRead, "the dense input alone looks at every row");
        }
    }
}
