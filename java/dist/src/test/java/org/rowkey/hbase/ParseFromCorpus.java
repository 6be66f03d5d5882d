package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.google.protobuf.ByteString;
import org.rowkey.hbase.ParseFromHarness.Parser;
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
 * The inputs of the {@code parseFrom} corruption tests: valid messages of each public
 * {@code parseFrom} to corrupt (the bytes of {@link RobustnessFixtures}' comparators and schemas),
 * valid messages whose contents are out of range (each must be refused), deep nesting and
 * oversized messages, and random specs built from random parts. Java 8 compatible.
 */
final class ParseFromCorpus {
    private final Map<Parser, List<byte[]>> seeds = new LinkedHashMap<>();

    ParseFromCorpus() {
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
             PredicateComparator empty = RowKeyQuery.on(seed).toComparator();
             PredicateComparator or = RowKeyQuery.anyOf(RowKeyQuery.on(seed).in("code", 200, 404).lt("status", 6),
                     RowKeyQuery.on(seed).ne("type", 3).eq("free", true), RowKeyQuery.on(seed).in("md5url", "a", "b"))
                     .toComparator()) {
            seeds.get(Parser.PREDICATE).add(big.toByteArray());
            seeds.get(Parser.PREDICATE).add(empty.toByteArray());
            seeds.get(Parser.PREDICATE).add(or.toByteArray()); // an OR of AND-branches (any_of)
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
        m.put("1.5 MB message", ProtobufWire.concat(valid.toByteArray(), unknownField(99, new byte[1_500_000])));
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
                nested = ProtobufWire.concat(new byte[] {0x12}, ProtobufWire.varint(nested.length), nested);
            }
            out.add(nested);
        }
        out.add(new byte[2_000_000]); // 2 MB of zeros: over the 1 MiB limit, and tag 0 is invalid
        byte[] filler = new byte[1_200_000];
        out.add(unknownField(99, filler)); // a valid but oversized message of one unknown field
        return out;
    }

    static byte[] unknownField(int number, byte[] payload) {
        return ProtobufWire.concat(ProtobufWire.varint(((long) number << 3) | 2), ProtobufWire.varint(payload.length), payload);
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
