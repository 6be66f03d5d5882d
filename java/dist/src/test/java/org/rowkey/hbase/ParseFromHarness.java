package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;

/**
 * Untrusted serialized bytes, as a RegionServer receives them from any client, given to one public
 * {@code parseFrom} (one test class each): at least {@value #PER_PARSER} corrupted inputs —
 * truncations at every length and bit flips at every bit of valid messages, random mutations and
 * random bytes, huge declared lengths and varints, deep nesting, valid messages with out-of-range
 * contents, the bytes of one comparator kind (or a schema) given to another's {@code parseFrom},
 * null and empty ({@link ParseFromCorpus}).
 *
 * <p>The comparators' {@code parseFrom} may only answer a working comparator or throw HBase's
 * {@link DeserializationException} naming the class; {@link RowKeySchema#parseFrom} a schema or an
 * {@link IllegalArgumentException}. Anything else (another exception, an Error, a comparator that
 * answers outside its range) fails the test; a crash kills the JVM. Inputs that are invalid by
 * construction must be refused. Seeded per parser, so a failure reproduces.
 */
final class ParseFromHarness {
    static final int PER_PARSER = 200_000;
    static final long SEED = 0x5EED_000L;

    private ParseFromHarness() {}

    /** Runs every input of the corpus and the mutations against {@code parser}; fails on any misbehaviour. */
    static void assertRefusesCorruptBytesCleanly(Parser parser) {
        long t0 = System.nanoTime();
        Tally t = run(parser, new ParseFromCorpus());
        StringBuilder report = new StringBuilder();
        report.append(String.format("%s.parseFrom: %d inputs, %d accepted in %d ms%n", t.parser.className, t.tried,
                t.accepted, (System.nanoTime() - t0) / 1_000_000));
        for (Map.Entry<String, long[]> e : t.byCategory.entrySet()) {
            report.append(String.format("    %-36s %7d tried %6d accepted %6d ms%n", e.getKey(), e.getValue()[0],
                    e.getValue()[1], e.getValue()[2] / 1_000_000));
        }
        System.out.print(report);
        assertTrue(t.tried >= PER_PARSER, t.parser + ": only " + t.tried + " inputs");
        assertEquals(Collections.emptyList(), t.failures, String.join("\n", t.failures));
    }

    /** One public parseFrom and what it may throw. */
    enum Parser {
        EQUAL(ComparatorSpec.KindCase.EQUAL, "EqualComparator"),
        RANGE(ComparatorSpec.KindCase.RANGE, "RangeComparator"),
        PREDICATE(ComparatorSpec.KindCase.PREDICATE, "PredicateComparator"),
        SCHEMA(null, "RowKeySchema");

        final ComparatorSpec.KindCase kind;
        final String className;

        Parser(ComparatorSpec.KindCase kind, String className) {
            this.kind = kind;
            this.className = className;
        }

        /** Parses; returns what was made (closed or unused afterwards) or throws what parseFrom threw. */
        Object parse(byte[] bytes) throws Exception {
            switch (this) {
                case EQUAL: return EqualComparator.parseFrom(bytes);
                case RANGE: return RangeComparator.parseFrom(bytes);
                case PREDICATE: return PredicateComparator.parseFrom(bytes);
                default: return RowKeySchema.parseFrom(bytes);
            }
        }

        /** The refusal this parseFrom documents, with a message naming the class. */
        boolean isRefusal(Throwable t) {
            boolean type = this == SCHEMA ? t.getClass() == IllegalArgumentException.class
                    : t.getClass() == DeserializationException.class;
            return type && t.getMessage() != null && t.getMessage().startsWith(className + ".parseFrom: ");
        }
    }

    /** Counts and the first few failures of one parser's run. */
    static final class Tally {
        final Parser parser;
        final Map<String, long[]> byCategory = new LinkedHashMap<>(); // category -> {tried, accepted, nanos}
        final List<String> failures = new ArrayList<>();
        int tried;
        int accepted;

        Tally(Parser parser) {
            this.parser = parser;
        }

        void count(String category, boolean ok, long nanos) {
            long[] c = byCategory.computeIfAbsent(category, k -> new long[3]);
            c[0]++;
            c[2] += nanos;
            tried++;
            if (ok) {
                c[1]++;
                accepted++;
            }
        }

        void fail(String category, byte[] input, String what, Throwable t) {
            if (failures.size() < 10) {
                String hex = input == null ? "null" : Bytes.toHex(input.length > 120 ? Arrays.copyOf(input, 120) : input)
                        + (input.length > 120 ? "... (" + input.length + " bytes)" : "");
                java.io.StringWriter trace = new java.io.StringWriter();
                if (t != null) {
                    t.printStackTrace(new java.io.PrintWriter(trace));
                }
                failures.add(parser + " / " + category + ": " + what + "\n  input " + hex + "\n  " + trace);
            }
        }
    }

    static Tally run(Parser parser, ParseFromCorpus corpus) {
        Tally tally = new Tally(parser);
        Random random = new Random(SEED + parser.ordinal());
        List<byte[]> own = corpus.seeds(parser);

        check(tally, "null", null, Expect.REFUSED);
        check(tally, "empty", new byte[0], Expect.REFUSED);
        for (byte[] seed : own) {
            check(tally, "valid seed", seed, Expect.ACCEPTED);
            for (int n = 0; n < seed.length; n++) {
                check(tally, "truncated (every length)", Arrays.copyOf(seed, n), Expect.EITHER);
            }
        }
        for (byte[] seed : own) {
            for (int bit = 0; bit < seed.length * 8; bit++) {
                byte[] flipped = seed.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                check(tally, "one bit flipped (every bit)", flipped, Expect.EITHER);
            }
        }
        for (byte[] seed : own) {
            for (byte[] huge : ProtobufWire.hugeLengthsAndVarints(seed)) {
                check(tally, "huge declared length / varint", huge, Expect.EITHER);
            }
        }
        for (byte[] nested : ParseFromCorpus.deepNesting()) {
            check(tally, "deep nesting / oversized", nested, parser == Parser.SCHEMA ? Expect.EITHER : Expect.REFUSED);
        }
        for (Map.Entry<String, byte[]> e : corpus.outOfRange(parser).entrySet()) {
            check(tally, "valid message, out-of-range content", e.getValue(), Expect.REFUSED, e.getKey());
        }
        for (Parser other : Parser.values()) {
            if (other == parser) {
                continue;
            }
            for (byte[] foreign : corpus.seeds(other)) {
                // A comparator never accepts another kind; a schema may happen to read a comparator's bytes.
                check(tally, "another parseFrom's bytes", foreign, parser == Parser.SCHEMA ? Expect.EITHER : Expect.REFUSED);
            }
        }
        for (int i = 0; i < 3_000; i++) {
            check(tally, "structured random spec", corpus.randomSpec(parser, random), Expect.EITHER);
        }
        for (int i = 0; i < 20_000; i++) {
            byte[] junk = new byte[random.nextInt(i % 100 == 0 ? 5_000 : 300)];
            random.nextBytes(junk);
            check(tally, "random bytes", junk, Expect.EITHER);
        }
        while (tally.tried < PER_PARSER) {
            byte[] seed = own.get(random.nextInt(own.size()));
            check(tally, "random mutations", ProtobufWire.mutate(seed, own, random), Expect.EITHER);
        }
        return tally;
    }

    enum Expect { ACCEPTED, REFUSED, EITHER }

    private static void check(Tally tally, String category, byte[] input, Expect expect) {
        check(tally, category, input, expect, null);
    }

    private static void check(Tally tally, String category, byte[] input, Expect expect, String label) {
        Parser parser = tally.parser;
        long t0 = System.nanoTime();
        Object made;
        try {
            made = parser.parse(input);
        } catch (Throwable t) {
            if (!parser.isRefusal(t)) {
                tally.fail(category, input, (label == null ? "" : label + ": ") + "threw " + t, t);
            } else if (expect == Expect.ACCEPTED) {
                tally.fail(category, input, "valid input refused: " + t.getMessage(), null);
            }
            tally.count(category, false, System.nanoTime() - t0);
            return;
        }
        if (expect == Expect.REFUSED) {
            tally.fail(category, input, (label == null ? "" : label + ": ") + "accepted " + made, null);
        }
        try {
            exercise(parser, made, input);
        } catch (Throwable t) {
            tally.fail(category, input, "the accepted " + made + " misbehaves: " + t, t);
        }
        tally.count(category, true, System.nanoTime() - t0);
    }

    /** What parseFrom made must work: defined compare answers, or a usable schema. */
    private static void exercise(Parser parser, Object made, byte[] input) {
        if (made instanceof NativeComparator) {
            NativeComparator c = (NativeComparator) made;
            try {
                Random r = new Random(Arrays.hashCode(input));
                for (int i = 0; i < 4; i++) {
                    int length = i == 0 ? c.keyLength() : r.nextInt(i == 3 ? 4097 : Math.max(1, 2 * c.keyLength()));
                    byte[] row = new byte[length];
                    r.nextBytes(row);
                    int result = c.compareTo(row, 0, row.length);
                    boolean range = parser == Parser.RANGE;
                    if (!(result == 0 || result == 1 || (range && result == -1))) {
                        throw new AssertionError("compare answered " + result);
                    }
                }
                if (!Arrays.equals(c.getValue(), c.toByteArray()) || c.toString().isEmpty()) {
                    throw new AssertionError("value / toString");
                }
            } finally {
                c.close();
            }
        } else {
            RowKeySchema s = (RowKeySchema) made;
            if (s.keyLength() < 1 || s.keyLength() > 4096 || s.fieldNames().isEmpty()) {
                throw new AssertionError("schema with key length " + s.keyLength());
            }
            byte[] key = new byte[s.keyLength()];
            try {
                s.decode(key);
            } catch (IllegalArgumentException fine) {
                // not every all-zero key is a key of the schema
            }
            RowKeySchema again = RowKeySchema.parseFrom(s.toByteArray());
            if (!again.equals(s)) {
                throw new AssertionError("canonical bytes do not round-trip");
            }
        }
    }
}
