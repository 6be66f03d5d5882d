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

import com.google.protobuf.ByteString;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Op;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SkipScanFilterSpec;

/**
 * {@link SkipScanFilter#parseFrom} on untrusted bytes, as a RegionServer receives them: truncations
 * at every length and bit flips at every bit of valid filters, huge declared lengths and varints,
 * deep nesting, random mutations and random bytes, other classes' serialized bytes, valid messages
 * with out-of-range contents, null and empty. It may only return a working filter or throw
 * {@link DeserializationException} naming the class; inputs invalid by construction must be
 * refused; a filter it returns must answer every row (of any length, both directions) with
 * INCLUDE, NEXT_ROW, or SEEK_NEXT_USING_HINT and a hint strictly beyond the row. Seeded.
 */
class CorruptSkipScanFilterTest {
    static final int INPUTS = 60_000;
    static final long SEED = 0x5EED_5C1BL;

    private final List<String> failures = new ArrayList<>();
    private int tried;
    private int accepted;

    @Test
    void parseFromRefusesCorruptBytesCleanly() {
        Random random = new Random(SEED);
        List<byte[]> seeds = seeds();
        check("null", null, Boolean.FALSE);
        check("empty", new byte[0], Boolean.FALSE);
        for (byte[] seed : seeds) {
            check("valid seed", seed, Boolean.TRUE);
            for (int n = 0; n < seed.length; n++) {
                check("truncated (every length)", Arrays.copyOf(seed, n), null);
            }
            for (int bit = 0; bit < seed.length * 8; bit++) {
                byte[] flipped = seed.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                check("one bit flipped (every bit)", flipped, null);
            }
            for (byte[] huge : ProtobufWire.hugeLengthsAndVarints(seed)) {
                check("huge declared length / varint", huge, null);
            }
        }
        for (byte[] nested : ParseFromCorpus.deepNesting()) {
            check("deep nesting / oversized", nested, Boolean.FALSE);
        }
        for (Map.Entry<String, byte[]> e : outOfRange().entrySet()) {
            check("out of range: " + e.getKey(), e.getValue(), Boolean.FALSE);
        }
        try (PredicateComparator p = RowKeyQuery.on(RobustnessFixtures.seed()).eq("code", 404).toComparator()) {
            // A comparator's own bytes are not a filter's.
            check("a PredicateComparator's bytes", p.toByteArray(), Boolean.FALSE);
        }
        check("a schema's bytes", RobustnessFixtures.seed().toByteArray(), Boolean.FALSE);
        for (int i = 0; i < 5_000; i++) {
            byte[] junk = new byte[random.nextInt(i % 100 == 0 ? 5_000 : 300)];
            random.nextBytes(junk);
            check("random bytes", junk, null);
        }
        while (tried < INPUTS) {
            check("random mutations", ProtobufWire.mutate(seeds.get(random.nextInt(seeds.size())), seeds, random), null);
        }
        System.out.printf("SkipScanFilter.parseFrom: %d inputs, %d accepted%n", tried, accepted);
        assertTrue(accepted > seeds.size(), "mutations never produced a valid filter: the test exercises nothing");
        assertEquals(Collections.emptyList(), failures, String.join("\n", failures));
    }

    /** Valid filters over every fixture schema. */
    private static List<byte[]> seeds() {
        List<byte[]> out = new ArrayList<>();
        List<RobustnessFixtures.Case> cases = RobustnessFixtures.cases();
        try {
            for (RobustnessFixtures.Case c : cases) {
                if (c.comparator instanceof PredicateComparator) {
                    out.add(spec(c.comparator.toByteArray()));
                }
            }
        } finally {
            RobustnessFixtures.closeAll(cases);
        }
        try (SkipScanFilter f = new SkipScanFilter(RowKeyQuery.on(RobustnessFixtures.seed()).in("code", 200, 404, 503)
                .ne("type", 3).eq("free", true))) {
            out.add(f.toByteArray());
        }
        return out;
    }

    /** Well-formed messages with contents that must be refused. */
    private static Map<String, byte[]> outOfRange() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        SchemaSpec good = ParseFromCorpus.good();
        byte[] predicate = ParseFromCorpus.predicate(good, ParseFromCorpus.condition("a", Op.EQ, ParseFromCorpus.intValue(1)));
        ComparatorSpec valid = parseComparator(predicate);
        m.put("format_version 2", SkipScanFilterSpec.newBuilder().setFormatVersion(2).setPredicate(valid).build().toByteArray());
        m.put("format_version max", SkipScanFilterSpec.newBuilder().setFormatVersion(-1).setPredicate(valid).build().toByteArray());
        m.put("no predicate", SkipScanFilterSpec.newBuilder().setFormatVersion(1).build().toByteArray());
        m.put("an equal comparator", spec(ParseFromCorpus.equal(good, ParseFromCorpus.nv("a", ParseFromCorpus.intValue(1)))));
        m.put("a range comparator", spec(ParseFromCorpus.range(good, "a", ParseFromCorpus.intValue(1))));
        m.put("a range condition on a hash", spec(ParseFromCorpus.predicate(good, ParseFromCorpus.condition("m", Op.LT, ParseFromCorpus.stringValue("x")))));
        m.put("an unknown field", spec(ParseFromCorpus.predicate(good, ParseFromCorpus.condition("nope", Op.EQ, ParseFromCorpus.intValue(1)))));
        m.put("int out of range", spec(ParseFromCorpus.predicate(good, ParseFromCorpus.condition("a", Op.EQ, ParseFromCorpus.intValue(1L << 40)))));
        for (Map.Entry<String, SchemaSpec> e : ParseFromCorpus.badSchemas().entrySet()) {
            m.put("schema: " + e.getKey(), spec(ParseFromCorpus.predicate(e.getValue())));
        }
        m.put("predicate bytes are garbage", SkipScanFilterSpec.newBuilder().setFormatVersion(1).build().toByteString()
                .concat(ByteString.copyFrom(new byte[] {0x12, 3, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF})).toByteArray());
        return m;
    }

    private static byte[] spec(byte[] comparator) {
        return SkipScanFilterSpec.newBuilder().setFormatVersion(1).setPredicate(parseComparator(comparator)).build().toByteArray();
    }

    private static ComparatorSpec parseComparator(byte[] bytes) {
        try {
            return ComparatorSpec.parseFrom(bytes);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** {@code expect}: TRUE must be accepted, FALSE refused, null either. */
    private void check(String category, byte[] input, Boolean expect) {
        tried++;
        SkipScanFilter made;
        try {
            made = SkipScanFilter.parseFrom(input);
        } catch (DeserializationException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("SkipScanFilter.parseFrom: ")) {
                fail(category, input, "refusal does not name the class: " + e.getMessage());
            } else if (Boolean.TRUE.equals(expect)) {
                fail(category, input, "valid input refused: " + e.getMessage());
            }
            return;
        } catch (Throwable t) {
            fail(category, input, "threw " + t);
            return;
        }
        accepted++;
        if (Boolean.FALSE.equals(expect)) {
            fail(category, input, "accepted " + made);
        }
        try {
            exercise(made, input);
        } catch (Throwable t) {
            fail(category, input, "the accepted " + made + " misbehaves: " + t);
        } finally {
            made.close();
        }
    }

    /** Random rows of several lengths, both directions: defined answers, hints strictly beyond the row. */
    private static void exercise(SkipScanFilter filter, byte[] input) throws Exception {
        Random r = new Random(Arrays.hashCode(input));
        int keyLength = filter.keyLength();
        for (boolean reversed : new boolean[] {false, true}) {
            filter.setReversed(reversed);
            for (int i = 0; i < 6; i++) {
                int length = i < 3 ? keyLength : r.nextInt(2 * keyLength + 2);
                byte[] row = new byte[length];
                r.nextBytes(row);
                ReturnCode rc = filter.filterCell(new KeyValue(row, Bytes.toBytes("f"), Bytes.toBytes("q"), row));
                if (rc == ReturnCode.SEEK_NEXT_USING_HINT) {
                    Cell hint = filter.getNextCellHint(null);
                    int order = Bytes.compareTo(CellUtil.cloneRow(hint), row);
                    if (reversed ? order >= 0 : order <= 0) {
                        throw new AssertionError("hint " + Bytes.toHex(CellUtil.cloneRow(hint)) + " does not move past "
                                + Bytes.toHex(row) + (reversed ? " (reversed)" : ""));
                    }
                } else if (rc != ReturnCode.INCLUDE && rc != ReturnCode.NEXT_ROW) {
                    throw new AssertionError("answered " + rc);
                }
            }
        }
        try (SkipScanFilter again = SkipScanFilter.parseFrom(filter.toByteArray())) {
            if (!Arrays.equals(again.toByteArray(), filter.toByteArray())) {
                throw new AssertionError("serialized bytes do not round-trip");
            }
        }
    }

    private void fail(String category, byte[] input, String what) {
        if (failures.size() < 10) {
            String hex = input == null ? "null" : Bytes.toHex(input.length > 120 ? Arrays.copyOf(input, 120) : input);
            failures.add(category + ": " + what + "\n  input " + hex);
        }
    }
}
