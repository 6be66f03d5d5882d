package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.Value;

/** Java-side value conversion: no native code involved. */
class ValuesTest {
    private static final FieldSpec CODE = field("code", FieldType.INT32, 0);
    private static final FieldSpec BIG = field("big", FieldType.INT64, 0);
    private static final FieldSpec TS = field("ts", FieldType.TIMESTAMP, 0);
    private static final FieldSpec RTS = field("rts", FieldType.REVERSED_TIMESTAMP, 0);
    private static final FieldSpec FREE = field("free", FieldType.BOOL, 0);
    private static final FieldSpec NAME = field("name", FieldType.FIXED_STRING, 8);
    private static final FieldSpec RAW = field("raw", FieldType.FIXED_BYTES, 3);
    private static final FieldSpec URL = field("url", FieldType.MD5, 8);
    private static final FieldSpec SITE = field("site", FieldType.JAVA_HASH, 0);

    static FieldSpec field(String name, FieldType type, int width) {
        return FieldSpec.newBuilder().setName(name).setType(type).setWidth(width).build();
    }

    private static long intOf(FieldSpec f, Object v) {
        Value value = Values.toValue(f, v);
        assertEquals(Value.KindCase.INT_VALUE, value.getKindCase());
        return value.getIntValue();
    }

    private static String error(FieldSpec f, Object v) {
        return assertThrows(IllegalArgumentException.class, () -> Values.toValue(f, v)).getMessage();
    }

    @Test
    void everyIntegralNumberTypeIsAccepted() {
        assertEquals(7, intOf(CODE, (byte) 7));
        assertEquals(-7, intOf(CODE, (short) -7));
        assertEquals(404, intOf(CODE, 404));
        assertEquals(Integer.MIN_VALUE, intOf(CODE, (long) Integer.MIN_VALUE));
        assertEquals(Integer.MAX_VALUE, intOf(CODE, new AtomicInteger(Integer.MAX_VALUE)));
        assertEquals(5, intOf(CODE, new AtomicLong(5)));
        LongAdder adder = new LongAdder();
        adder.add(9);
        assertEquals(9, intOf(CODE, adder));
        assertEquals(12, intOf(CODE, BigInteger.valueOf(12)));
        assertEquals(12, intOf(CODE, new BigDecimal("12.000")));
        assertEquals(1200, intOf(CODE, new BigDecimal("1.2E+3")));
        assertEquals(0, intOf(CODE, new BigDecimal("0E-10")));
        // Whole decimals (JSON's and CSV's numbers) of 18 digits and around it, each exact.
        assertEquals(-404, intOf(CODE, new BigDecimal("-404")));
        assertEquals(999_999_999_999_999_999L, intOf(BIG, new BigDecimal("999999999999999999")));
        assertEquals(-999_999_999_999_999_999L, intOf(BIG, new BigDecimal("-999999999999999999")));
        assertEquals(Long.MAX_VALUE, intOf(BIG, new BigDecimal(Long.toString(Long.MAX_VALUE))));
        assertEquals(Long.MIN_VALUE, intOf(BIG, new BigDecimal(Long.toString(Long.MIN_VALUE))));
        assertTrue(error(BIG, new BigDecimal("9223372036854775808")).contains("out of range"));
        assertTrue(error(CODE, new BigDecimal("2147483648")).contains("out of range"));
        assertEquals(3, intOf(CODE, 3.0d));
        assertEquals(-3, intOf(CODE, -3.0f));
        assertEquals(Long.MIN_VALUE, intOf(BIG, Long.MIN_VALUE));
        assertEquals(Long.MAX_VALUE, intOf(BIG, BigInteger.valueOf(Long.MAX_VALUE)));
        assertEquals(Long.MIN_VALUE, intOf(BIG, -0x1p63));
        assertEquals(0, intOf(CODE, -0.0d));
    }

    @Test
    void zeroAndNegativesAreOrdinaryValues() {
        assertEquals(0, intOf(CODE, 0));
        assertEquals(-1, intOf(CODE, -1));
        assertEquals(false, Values.toValue(FREE, false).getBoolValue());
    }

    @Test
    void wrongTypeNamesTheFieldAndTheClass() {
        assertEquals("field 'code': expected an integer number, got java.lang.String", error(CODE, "404"));
        assertEquals("field 'code': expected an integer number, got java.lang.Boolean", error(CODE, true));
        assertEquals("field 'free': expected a Boolean, got java.lang.Integer", error(FREE, 1));
        assertEquals("field 'name': expected a String, got [B", error(NAME, new byte[1]));
        assertEquals("field 'raw': expected a byte[], got java.lang.String", error(RAW, "abc"));
        assertTrue(error(URL, 5).startsWith("field 'url': expected a String"));
        assertEquals(8, Values.toValue(URL, new byte[8]).getBytesValue().size());
        assertTrue(error(TS, "yesterday").startsWith("field 'ts': expected an integer number (epoch milliseconds)"));
        assertEquals("field 'code': value is null", error(CODE, null));
    }

    @Test
    void outOfRangeNamesTheFieldTypeAndRange() {
        assertEquals("field 'code': 2147483648 is out of range for int32 [-2147483648, 2147483647]",
                error(CODE, 2147483648L));
        assertTrue(error(CODE, -2147483649L).contains("out of range for int32"));
        assertTrue(error(BIG, BigInteger.ONE.shiftLeft(63)).contains("out of range for int64"));
        assertTrue(error(BIG, 0x1p63).contains("out of range"));
        assertTrue(error(BIG, 1e19).contains("out of range"));
        // Must not expand a billion digits.
        assertTrue(error(BIG, new BigDecimal("1E+1000000000")).contains("out of range"));
        assertTrue(error(TS, Instant.MAX).contains("out of range"));
    }

    @Test
    void fractionsAreNotIntegers() {
        assertEquals("field 'code': 1.5 is not an integer", error(CODE, 1.5d));
        assertTrue(error(CODE, new BigDecimal("2.0001")).endsWith("is not an integer"));
        assertTrue(error(CODE, Double.NaN).endsWith("is not an integer"));
        assertTrue(error(CODE, Float.POSITIVE_INFINITY).endsWith("is not an integer"));
        assertTrue(error(BIG, new BigDecimal("1E-1000000000")).endsWith("is not an integer"));
    }

    @Test
    void otherNumberTypesGoThroughTheirDecimalForm() {
        Number custom = new Number() {
            @Override public int intValue() { return 42; }
            @Override public long longValue() { return 42; }
            @Override public float floatValue() { return 42; }
            @Override public double doubleValue() { return 42; }
            @Override public String toString() { return "42"; }
        };
        assertEquals(42, intOf(CODE, custom));
        Number odd = new Number() {
            @Override public int intValue() { return 0; }
            @Override public long longValue() { return 0; }
            @Override public float floatValue() { return 0; }
            @Override public double doubleValue() { return 0; }
            @Override public String toString() { return "forty-two"; }
        };
        assertTrue(error(CODE, odd).contains("unsupported number type"));
    }

    @Test
    void timestampsTakeDatesAndInstants() {
        assertEquals(1481241600000L, intOf(TS, new Date(1481241600000L)));
        assertEquals(1481241600000L, intOf(TS, Instant.ofEpochMilli(1481241600000L)));
        assertEquals(1481241600000L, intOf(RTS, Instant.ofEpochMilli(1481241600000L)));
        // Sub-millisecond digits are truncated, as Instant.toEpochMilli does.
        assertEquals(1L, intOf(TS, Instant.ofEpochSecond(0, 1_999_999)));
        assertEquals(-5L, intOf(TS, -5));
    }

    @Test
    void stringsMustBeWellFormedUtf16() {
        assertEquals("h\u00e9llo", Values.toValue(NAME, "h\u00e9llo").getStringValue());
        assertEquals("\ud83d\ude00", Values.toValue(NAME, "\ud83d\ude00").getStringValue());
        assertEquals("sb", Values.toValue(NAME, new StringBuilder("sb")).getStringValue());
        assertEquals("field 'name': string has an unpaired surrogate U+D83D at index 1 (not encodable as UTF-8)",
                error(NAME, "a\ud83d"));
        assertTrue(error(NAME, "\ude00x").contains("U+DE00 at index 0"));
        assertTrue(error(URL, "\ud83d\ud83d").contains("U+D83D at index 0"));
        assertTrue(error(SITE, "x\udfff").contains("unpaired surrogate"));
    }

    @Test
    void bytesAreCopied() {
        byte[] raw = {1, 2, 3};
        Value v = Values.toValue(RAW, raw);
        raw[0] = 9;
        assertEquals(ByteString.copyFrom(new byte[] {1, 2, 3}), v.getBytesValue());
    }

    @Test
    void decodedValuesBecomeJavaTypes() {
        assertEquals(Integer.valueOf(-4), Values.toJava(CODE, Value.newBuilder().setIntValue(-4).build()));
        assertEquals(Long.valueOf(-4), Values.toJava(BIG, Value.newBuilder().setIntValue(-4).build()));
        assertEquals(Long.valueOf(7), Values.toJava(RTS, Value.newBuilder().setIntValue(7).build()));
        assertEquals(Boolean.TRUE, Values.toJava(FREE, Value.newBuilder().setBoolValue(true).build()));
        assertEquals("x", Values.toJava(NAME, Value.newBuilder().setStringValue("x").build()));
        byte[] digest = (byte[]) Values.toJava(URL, Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[8])).build());
        assertEquals(8, digest.length);
        assertThrows(IllegalStateException.class, () -> Values.toJava(CODE, Value.newBuilder().setStringValue("x").build()));
    }

    @Test
    void typeNames() {
        assertEquals("md5(8)", Values.typeName(URL));
        assertEquals("int32 DESC", Values.typeName(CODE.toBuilder().setDescending(true).build()));
    }
}
