package org.rowkey.hbase;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import org.apache.hadoop.hbase.filter.ByteArrayComparable;

/**
 * Shared fixtures of the robustness tests: schemas that cover every field type (salted,
 * descending, 1-byte and 4004-byte keys), comparators of every kind on them with a plain-Java
 * oracle, and random rows. Java 8 compatible.
 */
final class RobustnessFixtures {
    private RobustnessFixtures() {}

    /** What a comparator may return: {0, 1} for equality and predicate comparators, {-1, 0, 1} for ranges. */
    enum Kind {
        MATCH, RANGE;

        boolean allows(int result) {
            return result == 0 || result == 1 || (this == RANGE && result == -1);
        }
    }

    /**
     * A comparator, its kind, the schema it reads, its oracle (the answer for a row's decoded values,
     * as {@link RowKeySchema#decode} gives them: hashed fields as their digest bytes) and a random row generator.
     */
    static final class Case {
        final String name;
        final Kind kind;
        final RowKeySchema schema;
        final NativeComparator comparator;
        final Function<Map<String, Object>, Integer> oracle;
        final Function<Random, Map<String, Object>> rows;

        Case(String name, Kind kind, RowKeySchema schema, NativeComparator comparator,
                Function<Map<String, Object>, Integer> oracle, Function<Random, Map<String, Object>> rows) {
            this.name = name;
            this.kind = kind;
            this.schema = schema;
            this.comparator = comparator;
            this.oracle = oracle;
            this.rows = rows;
        }

        /** A random row of the schema, encoded. */
        byte[] randomKey(Random random) {
            return schema.encode(rows.apply(random));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    // ---- schemas ----

    static RowKeySchema seed() {
        return TestData.seedSchema();
    }

    /** Salted, descending int64, reversed timestamp, fixed string, fixed bytes and a bool: 1+8+4+8+8+1+3 = 33 bytes. */
    static RowKeySchema salted() {
        return RowKeySchema.builder().salt(8, "user").fixedString("user", 8).int32("month").int64("seq").descending()
                .reversedTimestamp("ts").bool("flag").fixedBytes("raw", 3).build();
    }

    /** One bool: 1-byte keys. */
    static RowKeySchema tiny() {
        return RowKeySchema.builder().bool("b").build();
    }

    /** 4 x 1000 fixed bytes (the widest field is 1024) and an int32: 4004-byte keys, close to the 4096-byte limit. */
    static RowKeySchema wide() {
        return RowKeySchema.builder().fixedBytes("b0", 1000).fixedBytes("b1", 1000).fixedBytes("b2", 1000)
                .fixedBytes("b3", 1000).int32("n").build();
    }

    // ---- random rows (small value sets, so that comparators match often) ----

    static final String[] URLS = {"http://a", "http://b", "http://c"};
    static final int[] INTS = {Integer.MIN_VALUE, -404, -1, 0, 1, 200, 404, 20161201, 20161209, Integer.MAX_VALUE};
    static final long[] LONGS = {Long.MIN_VALUE, -5_000_000_000L, -1, 0, 1, 5, 5_000_000_000L, Long.MAX_VALUE};
    static final String[] USERS = {"", "a", "user1", "user12", "zzzzzzzz", "h\u00e9"};

    static Map<String, Object> seedRow(Random r) {
        return TestData.map("md5url", URLS[r.nextInt(URLS.length)], "sitecode", "site-" + r.nextInt(3),
                "status", INTS[r.nextInt(INTS.length)], "code", r.nextBoolean() ? 404 : INTS[r.nextInt(INTS.length)],
                "sdate", 20161200 + r.nextInt(12), "type", r.nextInt(4), "free", r.nextBoolean(),
                "close", r.nextBoolean(), "queue", r.nextInt(), "scantype", INTS[r.nextInt(INTS.length)]);
    }

    static Map<String, Object> saltedRow(Random r) {
        byte[] raw = new byte[3];
        r.nextBytes(raw);
        long ts = r.nextInt(4) == 0 ? 1481241600000L : (r.nextLong() >>> 1);
        return TestData.map("user", USERS[r.nextInt(USERS.length)], "month", r.nextInt(25) - 12,
                "seq", r.nextBoolean() ? LONGS[r.nextInt(LONGS.length)] : r.nextLong(), "ts", ts,
                "flag", r.nextBoolean(), "raw", raw);
    }

    static Map<String, Object> tinyRow(Random r) {
        return TestData.map("b", r.nextBoolean());
    }

    static Map<String, Object> wideRow(Random r) {
        Map<String, Object> row = TestData.map();
        for (int i = 0; i < 4; i++) {
            byte[] blob = new byte[1000];
            if (r.nextBoolean()) {
                r.nextBytes(blob);
            } else {
                blob[999] = (byte) r.nextInt(3);
            }
            row.put("b" + i, blob);
        }
        row.put("n", r.nextBoolean() ? r.nextInt(11) - 5 : INTS[r.nextInt(INTS.length)]);
        return row;
    }

    // ---- comparators with their oracle ----

    private static int match(boolean b) {
        return b ? 0 : 1;
    }

    private static int sign(int c) {
        return Integer.signum(c);
    }

    static int compareUnsigned(byte[] a, byte[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int c = (a[i] & 0xff) - (b[i] & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return a.length - b.length;
    }

    static byte[] padded(String s, int width) {
        return Arrays.copyOf(s.getBytes(StandardCharsets.UTF_8), width);
    }

    private static int in(Object v, Object... values) {
        return Arrays.asList(values).contains(v) ? 0 : 1;
    }

    /** Every comparator kind on every fixture schema; close them with {@link #closeAll}. */
    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        RowKeySchema seed = seed();
        Function<Random, Map<String, Object>> seedRows = RobustnessFixtures::seedRow;
        out.add(new Case("seed: code = 404 AND sdate = 20161209 AND free", Kind.MATCH, seed,
                new EqualComparator(seed, TestData.map("code", 404, "sdate", 20161209, "free", true)),
                r -> match((Integer) r.get("code") == 404 && (Integer) r.get("sdate") == 20161209 && (Boolean) r.get("free")),
                seedRows));
        // decode gives hashed fields back as their digest bytes
        Map<String, Object> decodedB = seed.decode(seed.encode(TestData.map("md5url", "http://b", "sitecode", "site-1",
                "status", 0, "code", 0, "sdate", 0, "type", 0, "free", false, "close", false, "queue", 0, "scantype", 0)));
        byte[] md5B = (byte[]) decodedB.get("md5url");
        byte[] site1 = (byte[]) decodedB.get("sitecode");
        out.add(new Case("seed: md5url = http://b AND sitecode = site-1", Kind.MATCH, seed,
                new EqualComparator(seed, TestData.map("md5url", "http://b", "sitecode", "site-1")),
                r -> match(Arrays.equals((byte[]) r.get("md5url"), md5B) && Arrays.equals((byte[]) r.get("sitecode"), site1)),
                seedRows));
        out.add(new Case("seed: sdate <=> 20161205", Kind.RANGE, seed, new RangeComparator(seed, "sdate", 20161205),
                r -> sign(Integer.compare(20161205, (Integer) r.get("sdate"))), seedRows));
        out.add(new Case("seed: status <=> -1", Kind.RANGE, seed, new RangeComparator(seed, "status", -1),
                r -> sign(Integer.compare(-1, (Integer) r.get("status"))), seedRows));
        out.add(new Case("seed: predicate", Kind.MATCH, seed,
                RowKeyQuery.on(seed).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2)
                        .ne("close", true).toComparator(),
                r -> match((Integer) r.get("code") == 404 && (Integer) r.get("sdate") >= 20161201
                        && (Integer) r.get("sdate") <= 20161209 && in(r.get("type"), 1, 2) == 0 && !(Boolean) r.get("close")),
                seedRows));

        RowKeySchema salted = salted();
        Function<Random, Map<String, Object>> saltedRows = RobustnessFixtures::saltedRow;
        out.add(new Case("salted: user = user1 AND flag", Kind.MATCH, salted,
                new EqualComparator(salted, TestData.map("user", "user1", "flag", true)),
                r -> match(r.get("user").equals("user1") && (Boolean) r.get("flag")), saltedRows));
        out.add(new Case("salted: seq (descending) <=> 0", Kind.RANGE, salted, new RangeComparator(salted, "seq", 0L),
                r -> sign(Long.compare(0L, (Long) r.get("seq"))), saltedRows));
        out.add(new Case("salted: user (fixed string) <=> user1", Kind.RANGE, salted, new RangeComparator(salted, "user", "user1"),
                r -> sign(compareUnsigned(padded("user1", 8), padded((String) r.get("user"), 8))), saltedRows));
        out.add(new Case("salted: ts (reversed) <=> 1481241600000", Kind.RANGE, salted,
                new RangeComparator(salted, "ts", 1481241600000L),
                r -> sign(Long.compare(1481241600000L, (Long) r.get("ts"))), saltedRows));
        out.add(new Case("salted: raw (fixed bytes) <=> 80 00 00", Kind.RANGE, salted,
                new RangeComparator(salted, "raw", new byte[] {(byte) 0x80, 0, 0}),
                r -> sign(compareUnsigned(new byte[] {(byte) 0x80, 0, 0}, (byte[]) r.get("raw"))), saltedRows));
        out.add(new Case("salted: predicate", Kind.MATCH, salted,
                RowKeyQuery.on(salted).in("user", "a", "user1", "h\u00e9").between("month", -3, 3).lt("seq", 5L)
                        .ge("ts", 1L).toComparator(),
                r -> match(in(r.get("user"), "a", "user1", "h\u00e9") == 0 && (Integer) r.get("month") >= -3
                        && (Integer) r.get("month") <= 3 && (Long) r.get("seq") < 5L && (Long) r.get("ts") >= 1L),
                saltedRows));

        RowKeySchema tiny = tiny();
        Function<Random, Map<String, Object>> tinyRows = RobustnessFixtures::tinyRow;
        out.add(new Case("tiny: b = true", Kind.MATCH, tiny, new EqualComparator(tiny, TestData.map("b", true)),
                r -> match((Boolean) r.get("b")), tinyRows));
        out.add(new Case("tiny: predicate b = false", Kind.MATCH, tiny, RowKeyQuery.on(tiny).eq("b", false).toComparator(),
                r -> match(!(Boolean) r.get("b")), tinyRows));

        RowKeySchema wide = wide();
        Function<Random, Map<String, Object>> wideRows = RobustnessFixtures::wideRow;
        out.add(new Case("wide: n = 3", Kind.MATCH, wide, new EqualComparator(wide, TestData.map("n", 3)),
                r -> match((Integer) r.get("n") == 3), wideRows));
        out.add(new Case("wide: n <=> 0", Kind.RANGE, wide, new RangeComparator(wide, "n", 0),
                r -> sign(Integer.compare(0, (Integer) r.get("n"))), wideRows));
        out.add(new Case("wide: predicate", Kind.MATCH, wide,
                RowKeyQuery.on(wide).between("n", -2, 2).ne("n", 0).toComparator(),
                r -> match((Integer) r.get("n") >= -2 && (Integer) r.get("n") <= 2 && (Integer) r.get("n") != 0), wideRows));
        return Collections.unmodifiableList(out);
    }

    static void closeAll(List<Case> cases) {
        for (Case c : cases) {
            c.comparator.close();
        }
    }

    /**
     * A row for {@code c}: an encoded random row (half of the time), random bytes of the key length,
     * of the key length +-1, or of any length 0..4096.
     */
    static byte[] arbitraryRow(Case c, Random random) {
        int keyLength = c.schema.keyLength();
        switch (random.nextInt(8)) {
            case 0:
            case 1:
            case 2:
            case 3:
                return c.randomKey(random);
            case 4: {
                // an encoded row with a few bytes flipped
                byte[] key = c.randomKey(random);
                for (int i = random.nextInt(3); i >= 0; i--) {
                    key[random.nextInt(key.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return key;
            }
            case 5:
                return randomBytes(random, keyLength);
            case 6:
                return randomBytes(random, Math.max(0, keyLength + (random.nextBoolean() ? 1 : -1)));
            default:
                return randomBytes(random, random.nextInt(4097));
        }
    }

    static byte[] randomBytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    /** The oracle's answer for {@code row}, or null when the row is not a canonical key of the schema. */
    static Integer oracle(Case c, byte[] row) {
        if (row.length != c.schema.keyLength()) {
            return 1; // a key of the wrong length: never a match, and below every value for ranges
        }
        Map<String, Object> values;
        try {
            values = c.schema.decode(row);
            if (!Arrays.equals(row, c.schema.encode(values))) {
                return null;
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return c.oracle.apply(values);
    }

    /** Describes a comparator result check failure. */
    static String describe(Case c, byte[] row) {
        String hex = org.apache.hadoop.hbase.util.Bytes.toHex(row);
        return c.name + ", row (" + row.length + " bytes) " + (hex.length() > 200 ? hex.substring(0, 200) + "..." : hex);
    }

    /** The comparators of {@code cases} as HBase sees them. */
    static List<ByteArrayComparable> comparators(List<Case> cases) {
        List<ByteArrayComparable> out = new ArrayList<>();
        for (Case c : cases) {
            out.add(c.comparator);
        }
        return out;
    }
}
