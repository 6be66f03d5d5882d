package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Condition;
import org.rowkey.hbase.proto.RowKeyProtos.EqualComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.NamedValue;
import org.rowkey.hbase.proto.RowKeyProtos.Op;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateSpec;
import org.rowkey.hbase.proto.RowKeyProtos.RangeComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SaltSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Value;

/**
 * Untrusted serialized bytes, as a RegionServer receives them from any client: at least
 * {@value #PER_PARSER} corrupted inputs to EVERY public {@code parseFrom} — truncations at every
 * length and bit flips at every bit of valid messages, random mutations and random bytes, huge
 * declared lengths and varints, deep nesting, valid messages with out-of-range contents, the bytes
 * of one comparator kind (or a schema) given to another's {@code parseFrom}, null and empty.
 *
 * <p>The comparators' {@code parseFrom} may only answer a working comparator or throw HBase's
 * {@link DeserializationException} naming the class; {@link RowKeySchema#parseFrom} a schema or an
 * {@link IllegalArgumentException}. Anything else (another exception, an Error, a comparator that
 * answers outside its range) fails the test; a crash kills the JVM. Inputs that are invalid by
 * construction must be refused. Seeded, so a failure reproduces.
 */
class CorruptSerializedBytesTest {
    static final int PER_PARSER = 200_000;
    static final long SEED = 0x5EED_000L;

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

    // ---------------------------------------------------------------------------------------------
    // the run

    @Test
    void everyParseFromRefusesCorruptBytesCleanly() throws Exception {
        Corpus corpus = new Corpus();
        long t0 = System.nanoTime();
        // One thread per parser: independent seeded Randoms, so each run is the same.
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(4, Math.max(2, Runtime.getRuntime().availableProcessors())));
        List<Future<Tally>> futures = new ArrayList<>();
        try {
            for (Parser p : Parser.values()) {
                futures.add(pool.submit(() -> run(p, corpus)));
            }
            List<String> failures = new ArrayList<>();
            StringBuilder report = new StringBuilder();
            int total = 0;
            for (Future<Tally> f : futures) {
                Tally t = f.get(600, TimeUnit.SECONDS);
                failures.addAll(t.failures);
                total += t.tried;
                report.append(String.format("%s.parseFrom: %d inputs, %d accepted%n", t.parser.className, t.tried, t.accepted));
                for (Map.Entry<String, long[]> e : t.byCategory.entrySet()) {
                    report.append(String.format("    %-36s %7d tried %6d accepted %6d ms%n", e.getKey(), e.getValue()[0],
                            e.getValue()[1], e.getValue()[2] / 1_000_000));
                }
                assertTrue(t.tried >= PER_PARSER, t.parser + ": only " + t.tried + " inputs");
            }
            System.out.print(report);
            System.out.printf("%d corrupted inputs to 4 parseFrom methods in %d ms%n", total, (System.nanoTime() - t0) / 1_000_000);
            assertEquals(Collections.emptyList(), failures, String.join("\n", failures));
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
    }

    private static Tally run(Parser parser, Corpus corpus) {
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
            for (byte[] huge : Wire.hugeLengthsAndVarints(seed)) {
                check(tally, "huge declared length / varint", huge, Expect.EITHER);
            }
        }
        for (byte[] nested : Corpus.deepNesting()) {
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
            check(tally, "random mutations", Wire.mutate(seed, own, random), Expect.EITHER);
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

    // ---------------------------------------------------------------------------------------------
    // inputs

    /** Valid messages to corrupt, and valid messages whose contents are out of range. */
    static final class Corpus {
        private final Map<Parser, List<byte[]>> seeds = new LinkedHashMap<>();

        Corpus() {
            for (Parser p : Parser.values()) {
                seeds.put(p, new ArrayList<>());
            }
            List<RobustnessFixtures.Case> cases = RobustnessFixtures.cases();
            try {
                for (RobustnessFixtures.Case c : cases) {
                    Parser p = c.comparator instanceof EqualComparator ? Parser.EQUAL
                            : c.comparator instanceof RangeComparator ? Parser.RANGE : Parser.PREDICATE;
                    seeds.get(p).add(c.comparator.toByteArray());
                }
            } finally {
                RobustnessFixtures.closeAll(cases);
            }
            RowKeySchema seed = RobustnessFixtures.seed();
            try (PredicateComparator big = RowKeyQuery.on(seed).in("code", 200, 301, 404, 500, 503).ne("type", 3)
                    .lt("status", 6).ge("queue", -1).in("md5url", "a", "b", "c").eq("free", true).toComparator();
                 PredicateComparator empty = RowKeyQuery.on(seed).toComparator()) {
                seeds.get(Parser.PREDICATE).add(big.toByteArray());
                seeds.get(Parser.PREDICATE).add(empty.toByteArray());
            }
            for (RowKeySchema s : Arrays.asList(seed, RobustnessFixtures.salted(), RobustnessFixtures.tiny(),
                    RowKeySchema.builder().salt(256).int64("a").descending().timestamp("t").javaHash("h").md5("m", 16).build())) {
                seeds.get(Parser.SCHEMA).add(s.toByteArray());
            }
        }

        List<byte[]> seeds(Parser p) {
            return seeds.get(p);
        }

        static FieldSpec field(String name, FieldType type) {
            return FieldSpec.newBuilder().setName(name).setType(type).build();
        }

        static FieldSpec field(String name, FieldType type, int width) {
            return FieldSpec.newBuilder().setName(name).setType(type).setWidth(width).build();
        }

        static SchemaSpec schema(FieldSpec... fields) {
            return SchemaSpec.newBuilder().setFormatVersion(1).addAllFields(Arrays.asList(fields)).build();
        }

        /** A small valid schema: a int32, s fixedString(4), m md5(4), b bool. */
        static SchemaSpec good() {
            return schema(field("a", FieldType.INT32), field("s", FieldType.FIXED_STRING, 4), field("m", FieldType.MD5, 4),
                    field("b", FieldType.BOOL));
        }

        static Value intValue(long v) {
            return Value.newBuilder().setIntValue(v).build();
        }

        static Value stringValue(String v) {
            return Value.newBuilder().setStringValue(v).build();
        }

        static Condition condition(String field, Op op, Value... values) {
            return Condition.newBuilder().setField(field).setOp(op).addAllValues(Arrays.asList(values)).build();
        }

        static byte[] equal(SchemaSpec schema, NamedValue... eq) {
            return ComparatorSpec.newBuilder().setFormatVersion(1).setSchema(schema)
                    .setEqual(EqualComparatorSpec.newBuilder().addAllEqualities(Arrays.asList(eq))).build().toByteArray();
        }

        static byte[] range(SchemaSpec schema, String field, Value value) {
            RangeComparatorSpec.Builder r = RangeComparatorSpec.newBuilder().setField(field);
            if (value != null) {
                r.setValue(value);
            }
            return ComparatorSpec.newBuilder().setFormatVersion(1).setSchema(schema).setRange(r).build().toByteArray();
        }

        static byte[] predicate(SchemaSpec schema, Condition... conditions) {
            return ComparatorSpec.newBuilder().setFormatVersion(1).setSchema(schema)
                    .setPredicate(PredicateComparatorSpec.newBuilder().setPredicate(
                            PredicateSpec.newBuilder().addAllConditions(Arrays.asList(conditions)))).build().toByteArray();
        }

        static NamedValue nv(String field, Value v) {
            return NamedValue.newBuilder().setField(field).setValue(v).build();
        }

        /** Schemas that are well-formed protobuf but invalid: each must be refused. */
        static Map<String, SchemaSpec> badSchemas() {
            Map<String, SchemaSpec> m = new LinkedHashMap<>();
            m.put("format_version 2", good().toBuilder().setFormatVersion(2).build());
            m.put("format_version max", good().toBuilder().setFormatVersion(-1).build());
            m.put("no fields", SchemaSpec.newBuilder().setFormatVersion(1).build());
            SchemaSpec.Builder many = SchemaSpec.newBuilder().setFormatVersion(1);
            for (int i = 0; i < 257; i++) {
                many.addFields(field("f" + i, FieldType.BOOL));
            }
            m.put("257 fields", many.build());
            m.put("5000-byte key", schema(field("a", FieldType.FIXED_BYTES, 1000), field("b", FieldType.FIXED_BYTES, 1000),
                    field("c", FieldType.FIXED_BYTES, 1000), field("d", FieldType.FIXED_BYTES, 1000),
                    field("e", FieldType.FIXED_BYTES, 1000)));
            for (int w : new int[] {0, 1025, Integer.MAX_VALUE, -1}) {
                m.put("fixed string width " + Integer.toUnsignedString(w), schema(field("s", FieldType.FIXED_STRING, w)));
                m.put("fixed bytes width " + Integer.toUnsignedString(w), schema(field("s", FieldType.FIXED_BYTES, w)));
            }
            m.put("md5 width 0", schema(field("m", FieldType.MD5, 0)));
            m.put("md5 width 17", schema(field("m", FieldType.MD5, 17)));
            m.put("type unspecified", schema(field("x", FieldType.FIELD_TYPE_UNSPECIFIED)));
            m.put("type 10 (unknown)", schema(FieldSpec.newBuilder().setName("x").setTypeValue(10).build()));
            m.put("type -1 (unknown)", schema(FieldSpec.newBuilder().setName("x").setTypeValue(-1).build()));
            m.put("empty field name", schema(field("", FieldType.INT32)));
            m.put("duplicate names", schema(field("a", FieldType.INT32), field("a", FieldType.INT64)));
            char[] longName = new char[257];
            Arrays.fill(longName, 'n');
            m.put("257-byte name", schema(field(new String(longName), FieldType.INT32)));
            for (int buckets : new int[] {0, 257, -1}) {
                m.put("salt buckets " + Integer.toUnsignedString(buckets),
                        good().toBuilder().setSalt(SaltSpec.newBuilder().setBuckets(buckets)).build());
            }
            m.put("salt over an unknown field", good().toBuilder().setSalt(SaltSpec.newBuilder().setBuckets(4).addFields("nope")).build());
            return m;
        }

        /** Valid protobuf with out-of-range contents for {@code p}; each must be refused. */
        Map<String, byte[]> outOfRange(Parser p) {
            Map<String, byte[]> m = new LinkedHashMap<>();
            SchemaSpec good = good();
            for (Map.Entry<String, SchemaSpec> e : badSchemas().entrySet()) {
                byte[] bytes;
                switch (p) {
                    case SCHEMA: bytes = e.getValue().toByteArray(); break;
                    case EQUAL: bytes = equal(e.getValue()); break;
                    case RANGE: bytes = range(e.getValue(), "a", intValue(1)); break;
                    default: bytes = predicate(e.getValue()); break;
                }
                m.put("schema: " + e.getKey(), bytes);
            }
            if (p == Parser.SCHEMA) {
                return m;
            }
            ComparatorSpec valid;
            try {
                valid = ComparatorSpec.parseFrom(p == Parser.EQUAL ? equal(good, nv("a", intValue(1)))
                        : p == Parser.RANGE ? range(good, "a", intValue(1)) : predicate(good, condition("a", Op.EQ, intValue(1))));
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
            m.put("comparator format_version 2", valid.toBuilder().setFormatVersion(2).build().toByteArray());
            m.put("no schema", valid.toBuilder().clearSchema().build().toByteArray());
            // over the 1 MiB message limit: a valid comparator with a large unknown field
            m.put("1.5 MB message", concat(valid.toByteArray(), unknownField(99, new byte[1_500_000])));
            switch (p) {
                case EQUAL:
                    m.put("unknown field", equal(good, nv("nope", intValue(1))));
                    m.put("string for int32", equal(good, nv("a", stringValue("x"))));
                    m.put("int32 out of range", equal(good, nv("a", intValue(1L << 31))));
                    m.put("int32 far out of range", equal(good, nv("a", intValue(Long.MIN_VALUE))));
                    m.put("value without kind", equal(good, nv("a", Value.getDefaultInstance())));
                    m.put("string longer than width", equal(good, nv("s", stringValue("toolong"))));
                    m.put("md5 digest of wrong width", equal(good, nv("m", Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[5])).build())));
                    m.put("int for bool", equal(good, nv("b", intValue(1))));
                    m.put("empty field name", equal(good, nv("", intValue(1))));
                    break;
                case RANGE:
                    m.put("range on md5", range(good, "m", stringValue("x")));
                    m.put("range on bool", range(good, "b", Value.newBuilder().setBoolValue(true).build()));
                    m.put("range on unknown field", range(good, "nope", intValue(1)));
                    m.put("range without value", range(good, "a", null));
                    m.put("range without field", range(good, "", intValue(1)));
                    m.put("range int32 out of range", range(good, "a", intValue(-(1L << 31) - 1)));
                    m.put("range string for int", range(good, "a", stringValue("1")));
                    m.put("range string too long", range(good, "s", stringValue("12345")));
                    m.put("range on java hash", range(schema(field("h", FieldType.JAVA_HASH)), "h", stringValue("x")));
                    m.put("range reversed timestamp < 0",
                            range(schema(field("t", FieldType.REVERSED_TIMESTAMP)), "t", intValue(-1)));
                    break;
                default:
                    m.put("op unspecified", predicate(good, condition("a", Op.OP_UNSPECIFIED, intValue(1))));
                    m.put("op 99 (unknown)", predicate(good, Condition.newBuilder().setField("a").setOpValue(99).addValues(intValue(1)).build()));
                    m.put("EQ without value", predicate(good, condition("a", Op.EQ)));
                    m.put("EQ with 2 values", predicate(good, condition("a", Op.EQ, intValue(1), intValue(2))));
                    m.put("BETWEEN with 1 value", predicate(good, condition("a", Op.BETWEEN, intValue(1))));
                    m.put("BETWEEN with 3 values", predicate(good, condition("a", Op.BETWEEN, intValue(1), intValue(2), intValue(3))));
                    m.put("LT on md5", predicate(good, condition("m", Op.LT, stringValue("x"))));
                    m.put("GE on bool", predicate(good, condition("b", Op.GE, Value.newBuilder().setBoolValue(true).build())));
                    m.put("unknown field", predicate(good, condition("nope", Op.EQ, intValue(1))));
                    m.put("int32 out of range", predicate(good, condition("a", Op.LE, intValue(1L << 40))));
                    Condition.Builder in = Condition.newBuilder().setField("a").setOp(Op.IN);
                    for (int i = 0; i <= 100_000; i++) {
                        in.addValues(intValue(i));
                    }
                    m.put("IN with 100,001 values", predicate(good, in.build()));
                    Condition[] many = new Condition[1025];
                    Arrays.fill(many, condition("a", Op.NE, intValue(7)));
                    m.put("1025 conditions", predicate(good, many));
                    m.put("IN with a wrong-typed value", predicate(good, condition("a", Op.IN, intValue(1), stringValue("x"))));
                    break;
            }
            return m;
        }

        /** Inputs nested far deeper than any message (unknown groups, nested length-delimited fields), and big ones. */
        static List<byte[]> deepNesting() {
            List<byte[]> out = new ArrayList<>();
            for (int depth : new int[] {101, 1_000, 100_000}) {
                // field 15 start group ... end group: (15 << 3) | 3 = 0x7B, | 4 = 0x7C
                byte[] groups = new byte[2 * depth];
                Arrays.fill(groups, 0, depth, (byte) 0x7B);
                Arrays.fill(groups, depth, 2 * depth, (byte) 0x7C);
                out.add(groups);
                // unterminated groups
                out.add(Arrays.copyOf(groups, depth));
                // field 2 (schema / fields) nested in itself, each with its true length
                byte[] nested = new byte[0];
                for (int i = 0; i < Math.min(depth, 3_000); i++) {
                    nested = concat(new byte[] {0x12}, Wire.varint(nested.length), nested);
                }
                out.add(nested);
            }
            out.add(new byte[2_000_000]); // 2 MB of zeros: over the 1 MiB limit, and tag 0 is invalid
            byte[] filler = new byte[1_200_000];
            out.add(unknownField(99, filler)); // a valid but oversized message of one unknown field
            return out;
        }

        static byte[] unknownField(int number, byte[] payload) {
            return concat(Wire.varint(((long) number << 3) | 2), Wire.varint(payload.length), payload);
        }

        /** A random spec built from random parts, valid or not, of the parser's kind (or a schema). */
        byte[] randomSpec(Parser p, Random r) {
            FieldType[] types = FieldType.values();
            SchemaSpec.Builder schema = SchemaSpec.newBuilder().setFormatVersion(r.nextInt(20) == 0 ? r.nextInt(3) : 1);
            int n = 1 + r.nextInt(r.nextInt(10) == 0 ? 300 : 6);
            List<String> names = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = r.nextInt(30) == 0 ? "" : "f" + r.nextInt(n + 2);
                names.add(name);
                FieldSpec.Builder f = FieldSpec.newBuilder().setName(name);
                if (r.nextInt(30) == 0) {
                    f.setTypeValue(r.nextInt(40) - 5);
                } else {
                    f.setType(types[1 + r.nextInt(types.length - 2)]);
                }
                if (r.nextInt(3) == 0) {
                    f.setWidth(r.nextInt(10) == 0 ? r.nextInt() : r.nextInt(20));
                }
                f.setDescending(r.nextInt(4) == 0);
                schema.addFields(f);
            }
            if (r.nextInt(4) == 0) {
                SaltSpec.Builder salt = SaltSpec.newBuilder().setBuckets(r.nextInt(10) == 0 ? r.nextInt() : r.nextInt(300));
                for (int i = r.nextInt(3); i > 0; i--) {
                    salt.addFields(names.get(r.nextInt(names.size())));
                }
                schema.setSalt(salt);
            }
            if (p == Parser.SCHEMA) {
                return schema.build().toByteArray();
            }
            ComparatorSpec.Builder spec = ComparatorSpec.newBuilder().setFormatVersion(r.nextInt(20) == 0 ? r.nextInt(3) : 1)
                    .setSchema(schema);
            String field = names.get(r.nextInt(names.size()));
            switch (p) {
                case EQUAL: {
                    EqualComparatorSpec.Builder eq = EqualComparatorSpec.newBuilder();
                    for (int i = r.nextInt(4); i > 0; i--) {
                        eq.addEqualities(nv(names.get(r.nextInt(names.size())), randomValue(r)));
                    }
                    spec.setEqual(eq);
                    break;
                }
                case RANGE:
                    spec.setRange(RangeComparatorSpec.newBuilder().setField(field).setValue(randomValue(r)));
                    break;
                default: {
                    PredicateSpec.Builder pred = PredicateSpec.newBuilder();
                    for (int i = r.nextInt(5); i > 0; i--) {
                        Condition.Builder c = Condition.newBuilder().setField(names.get(r.nextInt(names.size())))
                                .setOpValue(r.nextInt(11) - 1);
                        for (int v = r.nextInt(r.nextInt(20) == 0 ? 2_000 : 4); v > 0; v--) {
                            c.addValues(randomValue(r));
                        }
                        pred.addConditions(c);
                    }
                    spec.setPredicate(PredicateComparatorSpec.newBuilder().setPredicate(pred));
                    break;
                }
            }
            return spec.build().toByteArray();
        }

        static Value randomValue(Random r) {
            switch (r.nextInt(6)) {
                case 0: return intValue(r.nextInt(100) - 50);
                case 1: return intValue(r.nextLong());
                case 2: return Value.newBuilder().setBoolValue(r.nextBoolean()).build();
                case 3: {
                    char[] s = new char[r.nextInt(12)];
                    for (int i = 0; i < s.length; i++) {
                        s[i] = (char) (r.nextInt(10) == 0 ? 0x80 + r.nextInt(0x700) : 'a' + r.nextInt(26));
                    }
                    return stringValue(new String(s));
                }
                case 4: {
                    byte[] b = new byte[r.nextInt(20)];
                    r.nextBytes(b);
                    return Value.newBuilder().setBytesValue(ByteString.copyFrom(b)).build();
                }
                default: return Value.getDefaultInstance();
            }
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.write(p, 0, p.length);
        }
        return out.toByteArray();
    }

    /** Protobuf wire-format helpers: varints, the length fields of a message, mutations. */
    static final class Wire {
        private Wire() {}

        static byte[] varint(long v) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
            return out.toByteArray();
        }

        /** A varint field or length: where its bytes are, and its wire type (0 varint, 2 length). */
        static final class Slot {
            final int start;
            final int end;
            final int wireType;

            Slot(int start, int end, int wireType) {
                this.start = start;
                this.end = end;
                this.wireType = wireType;
            }
        }

        /** The varint values and length prefixes of a well-formed message, nested messages included. */
        static List<Slot> slots(byte[] b, int from, int to, int depth) {
            List<Slot> out = new ArrayList<>();
            int i = from;
            try {
                while (i < to) {
                    long[] tag = readVarint(b, i, to);
                    i = (int) tag[1];
                    int wireType = (int) (tag[0] & 7);
                    if (tag[0] >>> 3 == 0) {
                        return out;
                    }
                    long[] v;
                    switch (wireType) {
                        case 0:
                            v = readVarint(b, i, to);
                            out.add(new Slot(i, (int) v[1], 0));
                            i = (int) v[1];
                            break;
                        case 2:
                            v = readVarint(b, i, to);
                            int start = (int) v[1];
                            int end = start + (int) v[0];
                            if (v[0] < 0 || end > to) {
                                return out;
                            }
                            out.add(new Slot(i, start, 2));
                            if (depth < 8) {
                                out.addAll(slots(b, start, end, depth + 1));
                            }
                            i = end;
                            break;
                        case 1:
                            i += 8;
                            break;
                        case 5:
                            i += 4;
                            break;
                        default:
                            return out;
                    }
                }
            } catch (IndexOutOfBoundsException e) {
                // not a message after all (a string or bytes payload): stop here
            }
            return out;
        }

        static long[] readVarint(byte[] b, int i, int to) {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (i >= to) {
                    throw new IndexOutOfBoundsException();
                }
                byte x = b[i++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return new long[] {v, i};
                }
            }
            throw new IndexOutOfBoundsException();
        }

        static final long[] HUGE = {0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE, -1L, 1L << 20,
                (1L << 20) + 1};

        /** Every length prefix and varint of {@code seed} replaced by huge values (and by overlong varints). */
        static List<byte[]> hugeLengthsAndVarints(byte[] seed) {
            List<byte[]> out = new ArrayList<>();
            for (Slot s : slots(seed, 0, seed.length, 0)) {
                byte[] head = Arrays.copyOf(seed, s.start);
                byte[] tail = Arrays.copyOfRange(seed, s.end, seed.length);
                for (long h : HUGE) {
                    out.add(concat(head, varint(h), tail));
                }
                if (s.wireType == 2) {
                    long[] v = readVarint(seed, s.start, s.end);
                    out.add(concat(head, varint(v[0] + 1), tail));
                    out.add(concat(head, varint(v[0] + 1000), tail));
                    out.add(concat(head, varint(Math.max(0, v[0] - 1)), tail));
                }
                // 11 continuation bytes: a varint longer than 10 bytes is malformed
                byte[] overlong = new byte[11];
                Arrays.fill(overlong, (byte) 0xFF);
                out.add(concat(head, overlong, tail));
            }
            return out;
        }

        /** 1..8 random mutations of a seed. */
        static byte[] mutate(byte[] seed, List<byte[]> others, Random r) {
            byte[] b = seed.clone();
            for (int m = 1 + r.nextInt(r.nextBoolean() ? 2 : 8); m > 0; m--) {
                int len = b.length;
                int at = len == 0 ? 0 : r.nextInt(len);
                switch (r.nextInt(10)) {
                    case 0:
                        if (len > 0) {
                            b[at] ^= (byte) (1 << r.nextInt(8));
                        }
                        break;
                    case 1:
                        if (len > 0) {
                            b[at] = (byte) r.nextInt(256);
                        }
                        break;
                    case 2:
                        if (len > 0) {
                            b[at] = new byte[] {0, (byte) 0xFF, (byte) 0x80, 0x7F, 1}[r.nextInt(5)];
                        }
                        break;
                    case 3: { // insert random bytes
                        byte[] ins = new byte[1 + r.nextInt(8)];
                        r.nextBytes(ins);
                        b = concat(Arrays.copyOf(b, at), ins, Arrays.copyOfRange(b, at, len));
                        break;
                    }
                    case 4: // delete a range
                        if (len > 0) {
                            int n = 1 + r.nextInt(Math.min(16, len - at));
                            b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, at + n, len));
                        }
                        break;
                    case 5: // duplicate a range
                        if (len > 0) {
                            int n = 1 + r.nextInt(Math.min(32, len - at));
                            b = concat(Arrays.copyOf(b, at + n), Arrays.copyOfRange(b, at, len));
                        }
                        break;
                    case 6: // truncate
                        b = Arrays.copyOf(b, at);
                        break;
                    case 7: { // splice with another seed
                        byte[] o = others.get(r.nextInt(others.size()));
                        int from = o.length == 0 ? 0 : r.nextInt(o.length);
                        b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(o, from, o.length));
                        break;
                    }
                    case 8: { // a huge varint somewhere
                        b = concat(Arrays.copyOf(b, at), varint(HUGE[r.nextInt(HUGE.length)]), Arrays.copyOfRange(b, at, len));
                        break;
                    }
                    default: { // append random tail
                        byte[] tail = new byte[1 + r.nextInt(16)];
                        r.nextBytes(tail);
                        b = concat(b, tail);
                        break;
                    }
                }
            }
            return b;
        }
    }
}
