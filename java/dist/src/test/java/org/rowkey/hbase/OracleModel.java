package org.rowkey.hbase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * The oracle harness's random key schemas and its own reading of conditions: every field type,
 * descending fields, salted or not, each field with a small pool of values (extremes, zero,
 * negatives) so that conditions and groups meet rows. A condition is evaluated here on the values
 * {@link RowKeySchema#decode} gives, in plain Java, never with the library's predicate code.
 */
final class OracleModel {
    static final long DAY = 86_400_000L;
    static final long HOUR = 3_600_000L;
    static final long MINUTE = 60_000L;
    /** 2016-12-01 UTC: timestamps cluster around it. */
    static final long T0 = 1_480_550_400_000L;

    enum Kind {
        INT32, INT64, TIMESTAMP, REVERSED_TIMESTAMP, BOOL, FIXED_STRING, FIXED_BYTES, MD5, JAVA_HASH;

        /** Whether lt/le/gt/ge/between are allowed (the product refuses them on the others). */
        boolean ordered() {
            return this != BOOL && this != MD5 && this != JAVA_HASH;
        }

        /** Whether sum/min/max/avg of the field are allowed. */
        boolean numeric() {
            return this == INT32 || this == INT64 || this == TIMESTAMP || this == REVERSED_TIMESTAMP;
        }

        boolean hashed() {
            return this == MD5 || this == JAVA_HASH;
        }

        boolean time() {
            return this == TIMESTAMP || this == REVERSED_TIMESTAMP;
        }
    }

    /** A key field: its type and the values rows take (as encode takes them). */
    static final class Field {
        final String name;
        final Kind kind;
        final int width;
        final boolean descending;
        final List<Object> pool;

        Field(String name, Kind kind, int width, boolean descending, List<Object> pool) {
            this.name = name;
            this.kind = kind;
            this.width = width;
            this.descending = descending;
            this.pool = pool;
        }

        Object randomValue(Random random) {
            return pool.get(random.nextInt(pool.size()));
        }

        /**
         * A value for a condition: mostly from the pool; sometimes a neighbour or an extreme no row
         * may have, and for hashed fields the string itself or its digest (both are accepted).
         */
        Object conditionValue(Random random) {
            Object v = randomValue(random);
            int dice = random.nextInt(10);
            switch (kind) {
                case INT32:
                    return dice == 0 ? (Object) (int) clamp((Integer) v + (random.nextBoolean() ? 1L : -1L), Integer.MIN_VALUE,
                            Integer.MAX_VALUE) : v;
                case INT64:
                case TIMESTAMP:
                    return dice == 0 ? (Object) ((Long) v + (random.nextBoolean() ? 1 : -1)) : v;
                case REVERSED_TIMESTAMP:
                    return dice == 0 ? (Object) Math.max(0, (Long) v + (random.nextBoolean() ? 1 : -1)) : v;
                case FIXED_STRING:
                    return dice == 0 && ((String) v).getBytes(StandardCharsets.UTF_8).length < width ? v + "a" : v;
                case MD5:
                case JAVA_HASH:
                    if (dice < 4) {
                        return digest(this, (String) v);
                    }
                    return dice == 4 ? "absent" + random.nextInt(3) : v;
                default:
                    return v;
            }
        }

        @Override
        public String toString() {
            return name + " " + kind + (width > 0 ? "(" + width + ")" : "") + (descending ? " DESC" : "");
        }
    }

    private static long clamp(long v, long lo, long hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    /** A random schema: its fields, the RowKeySchema built of them, its salt. */
    static final class Schema {
        final List<Field> fields;
        final RowKeySchema schema;
        final int saltBuckets;

        Schema(List<Field> fields, RowKeySchema schema, int saltBuckets) {
            this.fields = fields;
            this.schema = schema;
            this.saltBuckets = saltBuckets;
        }

        Field field(String name) {
            for (Field f : fields) {
                if (f.name.equals(name)) {
                    return f;
                }
            }
            throw new IllegalArgumentException(name);
        }

        /** The values of a random row (every field), as encode takes them. */
        Map<String, Object> randomRow(Random random) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (Field f : fields) {
                row.put(f.name, f.randomValue(random));
            }
            return row;
        }

        byte[] randomKey(Random random) {
            return schema.encode(randomRow(random));
        }

        List<Field> numericFields() {
            List<Field> out = new ArrayList<>();
            for (Field f : fields) {
                if (f.kind.numeric()) {
                    out.add(f);
                }
            }
            return out;
        }
    }

    static Schema randomSchema(Random random) {
        int count = 2 + random.nextInt(4);
        List<Field> fields = new ArrayList<>();
        RowKeySchema.Builder builder = RowKeySchema.builder();
        for (int i = 0; i < count; i++) {
            Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
            String name = String.valueOf((char) ('a' + i));
            int width = 0;
            switch (kind) {
                case INT32: builder.int32(name); break;
                case INT64: builder.int64(name); break;
                case TIMESTAMP: builder.timestamp(name); break;
                case REVERSED_TIMESTAMP: builder.reversedTimestamp(name); break;
                case BOOL: builder.bool(name); break;
                case FIXED_STRING: width = 1 + random.nextInt(6); builder.fixedString(name, width); break;
                case FIXED_BYTES: width = 1 + random.nextInt(4); builder.fixedBytes(name, width); break;
                case MD5: width = 1 + random.nextInt(8); builder.md5(name, width); break;
                default: builder.javaHash(name); break;
            }
            boolean descending = random.nextInt(4) == 0;
            if (descending) {
                builder.descending();
            }
            fields.add(new Field(name, kind, width, descending, pool(kind, width, random)));
        }
        int buckets = 0;
        if (random.nextInt(10) < 3) {
            buckets = 2 + random.nextInt(5);
            List<String> saltFields = new ArrayList<>();
            for (Field f : fields) {
                if (random.nextInt(3) == 0) {
                    saltFields.add(f.name);
                }
            }
            builder.salt(buckets, saltFields.toArray(new String[0])); // none: every field
        }
        return new Schema(Collections.unmodifiableList(fields), builder.build(), buckets);
    }

    /** A field's values: a few, with extremes, zero and negatives where the type has them. */
    private static List<Object> pool(Kind kind, int width, Random random) {
        int size = 2 + random.nextInt(random.nextBoolean() ? 4 : 11);
        Set<Object> values = new LinkedHashSet<>();
        if (kind == Kind.BOOL) {
            return Arrays.asList(false, true);
        }
        int attempts = 0;
        while (values.size() < size && attempts++ < 100) {
            values.add(randomValue(kind, width, random));
        }
        if (kind == Kind.FIXED_BYTES) { // byte[] has no value equality: dedupe by hex
            Map<String, Object> byHex = new LinkedHashMap<>();
            for (Object v : values) {
                byHex.put(Bytes.toHex((byte[]) v), v);
            }
            return new ArrayList<>(byHex.values());
        }
        return new ArrayList<>(values);
    }

    private static final String[] STRING_PARTS = {"a", "b", "z", "A", "0", "é", "中", "~", " "};

    private static Object randomValue(Kind kind, int width, Random random) {
        int dice = random.nextInt(12);
        switch (kind) {
            case INT32:
                switch (dice) {
                    case 0: return Integer.MIN_VALUE;
                    case 1: return Integer.MAX_VALUE;
                    case 2: return 0;
                    case 3: return -1;
                    default: return random.nextInt(2001) - 1000;
                }
            case INT64:
                switch (dice) {
                    case 0: return random.nextInt(3) == 0 ? Long.MIN_VALUE : -(1L << 40);
                    case 1: return random.nextInt(3) == 0 ? Long.MAX_VALUE : 1L << 40;
                    case 2: return 0L;
                    case 3: return -1L;
                    default: return (long) random.nextInt(2001) - 1000;
                }
            case TIMESTAMP:
                switch (dice) {
                    case 0: return 0L;
                    case 1: return -1L - random.nextInt(3) * DAY;
                    case 2: return random.nextInt(4) == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                    default: return timeNearT0(random);
                }
            case REVERSED_TIMESTAMP:
                switch (dice) {
                    case 0: return 0L;
                    case 1: return random.nextInt(4) == 0 ? Long.MAX_VALUE : 1L;
                    default: return timeNearT0(random);
                }
            case FIXED_STRING: {
                StringBuilder s = new StringBuilder();
                int length = random.nextInt(width + 1);
                while (s.length() < length) {
                    String part = STRING_PARTS[random.nextInt(STRING_PARTS.length)];
                    if ((s + part).getBytes(StandardCharsets.UTF_8).length > width) {
                        break;
                    }
                    s.append(part);
                }
                return s.toString();
            }
            case FIXED_BYTES: {
                byte[] b = new byte[width];
                for (int i = 0; i < width; i++) {
                    int r = random.nextInt(4);
                    b[i] = r == 0 ? 0 : r == 1 ? (byte) 0xff : (byte) random.nextInt(256);
                }
                return b;
            }
            default: // md5, javaHash: the string hashed
                return "v" + random.nextInt(40);
        }
    }

    private static long timeNearT0(Random random) {
        switch (random.nextInt(3)) {
            case 0: return T0 + random.nextInt(6) * DAY;
            case 1: return T0 + random.nextInt(30) * HOUR + random.nextInt(2) * MINUTE;
            default: return T0 + random.nextInt(10) * DAY + random.nextInt(86_400) * 1000L;
        }
    }

    // ------------------------------------------------------------------ indexes

    /** An index definition as the harness made it: fields, salt, what it covers. */
    static final class Index {
        final String name;
        final List<String> fields;
        final int salt;
        /** Covered columns as "family:qualifier", or "family" for a whole family. */
        final List<String> covers;

        Index(String name, List<String> fields, int salt, List<String> covers) {
            this.name = name;
            this.fields = fields;
            this.salt = salt;
            this.covers = covers;
        }

        RowKeyIndex toRowKeyIndex() {
            RowKeyIndex index = RowKeyIndex.of(name, fields.toArray(new String[0]));
            if (salt > 0) {
                index = index.salt(salt);
            }
            for (String c : covers) {
                String[] fq = c.split(":");
                index = fq.length == 1 ? index.include(fq[0]) : index.include(fq[0], fq[1]);
            }
            return index;
        }

        @Override
        public String toString() {
            return name + " on " + fields + (salt > 0 ? " salt " + salt : "") + (covers.isEmpty() ? "" : " include " + covers);
        }
    }

    /**
     * A random index named {@code name}: one or two fields (never the data key's own leading fields
     * in order: refused, nothing to gain), salted or not, covering nothing, some numeric cells, a
     * whole family or both.
     */
    static Index randomIndex(Schema schema, String name, Random random) {
        while (true) {
            List<String> fields = new ArrayList<>();
            int count = 1 + random.nextInt(Math.min(2, schema.fields.size()));
            while (fields.size() < count) {
                String f = schema.fields.get(random.nextInt(schema.fields.size())).name;
                if (!fields.contains(f)) {
                    fields.add(f);
                }
            }
            boolean leadingPrefix = true;
            for (int i = 0; i < fields.size(); i++) {
                leadingPrefix &= fields.get(i).equals(schema.fields.get(i).name);
            }
            if (leadingPrefix) {
                continue;
            }
            int salt = random.nextBoolean() ? 2 + random.nextInt(3) : 0;
            List<String> covers = new ArrayList<>();
            switch (random.nextInt(5)) {
                case 0: break;
                case 1: covers.add("f:n"); covers.add("f:d"); break;
                case 2: covers.add("f:n"); covers.add("f:i"); covers.add("f:s"); break;
                case 3: covers.add("g"); break;
                default: covers.add("f"); covers.add("g"); break;
            }
            return new Index(name, Collections.unmodifiableList(fields), salt, Collections.unmodifiableList(covers));
        }
    }

    // ------------------------------------------------------------------ values as decode gives them

    /**
     * A condition or pool value in the form {@link RowKeySchema#decode} gives it: ints as Long,
     * hashed strings as their stored digest (MD5's first bytes; String.hashCode big-endian).
     */
    static Object canonical(Field field, Object value) {
        switch (field.kind) {
            case INT32:
            case INT64:
            case TIMESTAMP:
            case REVERSED_TIMESTAMP:
                return ((Number) value).longValue();
            case MD5:
            case JAVA_HASH:
                return value instanceof String ? digest(field, (String) value) : value;
            default:
                return value;
        }
    }

    static byte[] digest(Field field, String s) {
        if (field.kind == Kind.JAVA_HASH) {
            return Bytes.toBytes(s.hashCode());
        }
        try {
            return Arrays.copyOf(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)), field.width);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Value order of two canonical values of one field: numbers, false < true, UTF-8 bytes, unsigned bytes. */
    static int compareValues(Object x, Object y) {
        if (x instanceof Number) {
            return Long.compare(((Number) x).longValue(), ((Number) y).longValue());
        }
        if (x instanceof Boolean) {
            return Boolean.compare((Boolean) x, (Boolean) y);
        }
        if (x instanceof String) {
            return Bytes.compareTo(((String) x).getBytes(StandardCharsets.UTF_8), ((String) y).getBytes(StandardCharsets.UTF_8));
        }
        return Bytes.compareTo((byte[]) x, (byte[]) y);
    }

    /** A value printed for a report: hex for bytes, quotes for strings. */
    static String show(Object v) {
        if (v instanceof byte[]) {
            return "x'" + Bytes.toHex((byte[]) v) + "'";
        }
        if (v instanceof String) {
            return "'" + v + "'";
        }
        return String.valueOf(v);
    }

    // ------------------------------------------------------------------ conditions

    enum Op { EQ, NE, LT, LE, GT, GE, BETWEEN, IN }

    /** One condition: built into a RowKeyQuery, and evaluated here on decoded values. */
    static final class Condition {
        final Field field;
        final Op op;
        final List<Object> values;

        Condition(Field field, Op op, List<Object> values) {
            this.field = field;
            this.op = op;
            this.values = values;
        }

        void addTo(RowKeyQuery q) {
            String f = field.name;
            switch (op) {
                case EQ: q.eq(f, values.get(0)); break;
                case NE: q.ne(f, values.get(0)); break;
                case LT: q.lt(f, values.get(0)); break;
                case LE: q.le(f, values.get(0)); break;
                case GT: q.gt(f, values.get(0)); break;
                case GE: q.ge(f, values.get(0)); break;
                case BETWEEN: q.between(f, values.get(0), values.get(1)); break;
                default: q.in(f, values); break;
            }
        }

        boolean holds(Map<String, Object> decoded) {
            Object v = decoded.get(field.name);
            switch (op) {
                case EQ: return compareValues(v, value(0)) == 0;
                case NE: return compareValues(v, value(0)) != 0;
                case LT: return compareValues(v, value(0)) < 0;
                case LE: return compareValues(v, value(0)) <= 0;
                case GT: return compareValues(v, value(0)) > 0;
                case GE: return compareValues(v, value(0)) >= 0;
                case BETWEEN: return compareValues(v, value(0)) >= 0 && compareValues(v, value(1)) <= 0;
                default:
                    for (int i = 0; i < values.size(); i++) {
                        if (compareValues(v, value(i)) == 0) {
                            return true;
                        }
                    }
                    return false;
            }
        }

        private Object value(int i) {
            return canonical(field, values.get(i));
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(field.name).append(' ').append(op);
            for (Object v : values) {
                s.append(' ').append(show(v));
            }
            return s.toString();
        }
    }

    /** A random condition on {@code field}, of an operator its type allows. */
    static Condition randomCondition(Field field, Random random) {
        Op[] allowed = field.kind.ordered() ? Op.values() : new Op[] {Op.EQ, Op.NE, Op.IN};
        Op op = allowed[random.nextInt(allowed.length)];
        if (random.nextInt(3) == 0) {
            op = random.nextBoolean() ? Op.EQ : Op.IN; // what indexes and key prefixes answer
        }
        List<Object> values = new ArrayList<>();
        int n = op == Op.BETWEEN ? 2 : op == Op.IN ? random.nextInt(4) : 1; // IN () matches nothing
        for (int i = 0; i < n; i++) {
            values.add(field.conditionValue(random));
        }
        if (op == Op.BETWEEN && random.nextInt(4) != 0 && compareValues(canonical(field, values.get(0)),
                canonical(field, values.get(1))) > 0) {
            Collections.reverse(values); // mostly a non-empty range; sometimes low > high
        }
        return new Condition(field, op, values);
    }
}
