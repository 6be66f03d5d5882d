package org.rowkey.hbase;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Value;

/**
 * Converts between Java values and the wire {@link Value}, by the type of the field it is for.
 *
 * <ul>
 *   <li>int32, int64, timestamp, reversedTimestamp: any {@link Number} that is integral and in
 *       range (Byte, Short, Integer, Long, the atomics and adders, BigInteger, an exact
 *       BigDecimal, a whole Float or Double); timestamps also {@link Date} and {@link Instant}
 *       (epoch milliseconds, sub-millisecond digits truncated as {@link Instant#toEpochMilli()} does);</li>
 *   <li>bool: {@link Boolean};</li>
 *   <li>fixedString, md5, javaHash: {@link String} or another {@link CharSequence} (an unpaired
 *       surrogate is refused: it has no UTF-8 form and protobuf would silently write '?');
 *       md5 and javaHash also take the digest itself as {@code byte[]} of the field's width,
 *       as {@link RowKeySchema#decode} gives it back;</li>
 *   <li>fixedBytes: {@code byte[]}.</li>
 * </ul>
 *
 * Every error is an {@link IllegalArgumentException} that names the field and the problem. Range
 * and width limits the wire type cannot express (string longer than its width, ...) are checked
 * by the native core.
 */
@RunsIn(RunsIn.Where.SHARED)
final class Values {
    private Values() {}

    /** Takes a field's value in the form the native core encodes: one of four kinds. */
    interface Sink<T> {
        T integer(long v);

        T bool(boolean b);

        /** A well-formed string (no unpaired surrogate). */
        T string(String s);

        T bytes(byte[] b);
    }

    /** Builds the wire {@link Value}. */
    private static final Sink<Value> WIRE = new Sink<Value>() {
        @Override
        public Value integer(long v) {
            return Value.newBuilder().setIntValue(v).build();
        }

        @Override
        public Value bool(boolean b) {
            return Value.newBuilder().setBoolValue(b).build();
        }

        @Override
        public Value string(String s) {
            return Value.newBuilder().setStringValue(s).build();
        }

        @Override
        public Value bytes(byte[] b) {
            return Value.newBuilder().setBytesValue(ByteString.copyFrom(b)).build();
        }
    };

    /** The wire value of {@code value} for {@code field}. */
    static Value toValue(FieldSpec field, Object value) {
        return convert(field, value, WIRE);
    }

    /** Gives {@code sink} the value of {@code value} for {@code field}, checked and converted. */
    static <T> T convert(FieldSpec field, Object value, Sink<T> sink) {
        String name = field.getName();
        if (value == null) {
            throw new IllegalArgumentException("field '" + name + "': value is null");
        }
        switch (field.getType()) {
            case INT32:
                return sink.integer(checkRange(field, integral(field, value), Integer.MIN_VALUE, Integer.MAX_VALUE));
            case INT64:
                return sink.integer(integral(field, value));
            case TIMESTAMP:
            case REVERSED_TIMESTAMP:
                return sink.integer(timestamp(field, value));
            case BOOL:
                if (value instanceof Boolean) {
                    return sink.bool((Boolean) value);
                }
                throw wrongType(field, "a Boolean", value);
            case FIXED_STRING:
                if (value instanceof CharSequence) {
                    return sink.string(wellFormed(name, value.toString()));
                }
                throw wrongType(field, "a String", value);
            case MD5:
            case JAVA_HASH:
                if (value instanceof CharSequence) {
                    return sink.string(wellFormed(name, value.toString()));
                }
                if (value instanceof byte[]) {
                    return sink.bytes((byte[]) value); // the digest itself, as decode gives it
                }
                throw wrongType(field, "a String (or its digest as byte[])", value);
            case FIXED_BYTES:
                if (value instanceof byte[]) {
                    return sink.bytes((byte[]) value);
                }
                throw wrongType(field, "a byte[]", value);
            default:
                throw new IllegalArgumentException("field '" + name + "': unsupported field type " + field.getType());
        }
    }

    /**
     * The Java value of a decoded {@code value}: Integer (int32), Long (int64 and timestamps),
     * Boolean, String (fixedString), byte[] (fixedBytes and the digests of md5 and javaHash).
     */
    static Object toJava(FieldSpec field, Value value) {
        switch (field.getType()) {
            case INT32:
                return Math.toIntExact(requireKind(field, value, Value.KindCase.INT_VALUE).getIntValue());
            case INT64:
            case TIMESTAMP:
            case REVERSED_TIMESTAMP:
                return requireKind(field, value, Value.KindCase.INT_VALUE).getIntValue();
            case BOOL:
                return requireKind(field, value, Value.KindCase.BOOL_VALUE).getBoolValue();
            case FIXED_STRING:
                return requireKind(field, value, Value.KindCase.STRING_VALUE).getStringValue();
            case JAVA_HASH:
                if (value.getKindCase() == Value.KindCase.INT_VALUE) {
                    return ByteBuffer.allocate(4).putInt((int) value.getIntValue()).array();
                }
                return requireKind(field, value, Value.KindCase.BYTES_VALUE).getBytesValue().toByteArray();
            case FIXED_BYTES:
            case MD5:
                return requireKind(field, value, Value.KindCase.BYTES_VALUE).getBytesValue().toByteArray();
            default:
                throw new IllegalStateException("field '" + field.getName() + "': unsupported field type " + field.getType());
        }
    }

    /** The field type as the builder method spells it: int32, md5(8), fixedString(10) DESC. */
    static String typeName(FieldSpec field) {
        String t;
        switch (field.getType()) {
            case INT32: t = "int32"; break;
            case INT64: t = "int64"; break;
            case TIMESTAMP: t = "timestamp"; break;
            case REVERSED_TIMESTAMP: t = "reversedTimestamp"; break;
            case BOOL: t = "bool"; break;
            case FIXED_STRING: t = "fixedString(" + field.getWidth() + ")"; break;
            case FIXED_BYTES: t = "fixedBytes(" + field.getWidth() + ")"; break;
            case MD5: t = "md5(" + field.getWidth() + ")"; break;
            case JAVA_HASH: t = "javaHash"; break;
            default: t = String.valueOf(field.getType());
        }
        return field.getDescending() ? t + " DESC" : t;
    }

    // ---- numbers ----

    private static long timestamp(FieldSpec field, Object value) {
        if (value instanceof Date) {
            return ((Date) value).getTime();
        }
        if (value instanceof Instant) {
            try {
                return ((Instant) value).toEpochMilli();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("field '" + field.getName() + "': " + value
                        + " is out of range for " + typeName(field) + " (epoch milliseconds in a long)", e);
            }
        }
        if (value instanceof Number) {
            return integral(field, value);
        }
        throw wrongType(field, "an integer number (epoch milliseconds), a java.util.Date or a java.time.Instant", value);
    }

    /** The exact long value of an integral {@link Number}; anything else is an error. */
    static long integral(FieldSpec field, Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte || value instanceof AtomicInteger || value instanceof AtomicLong
                || value instanceof LongAdder || value instanceof LongAccumulator) {
            return ((Number) value).longValue();
        }
        if (value instanceof Double || value instanceof Float
                || value instanceof DoubleAdder || value instanceof DoubleAccumulator) {
            return fromDouble(field, ((Number) value).doubleValue(), value);
        }
        if (value instanceof BigInteger) {
            return fromBigInteger(field, (BigInteger) value);
        }
        if (value instanceof BigDecimal) {
            return fromBigDecimal(field, (BigDecimal) value);
        }
        if (value instanceof Number) {
            // Another Number type (a library's mutable or big integer): trust its decimal form.
            BigDecimal decimal;
            try {
                decimal = new BigDecimal(value.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("field '" + field.getName() + "': unsupported number type "
                        + value.getClass().getName() + " (its toString() is not a decimal number)", e);
            }
            return fromBigDecimal(field, decimal);
        }
        throw wrongType(field, "an integer number", value);
    }

    private static long fromDouble(FieldSpec field, double d, Object original) {
        if (Double.isNaN(d) || Double.isInfinite(d) || d != Math.rint(d)) {
            throw notInteger(field, original);
        }
        // Every double in [-2^63, 2^63) that is whole converts exactly.
        if (d < -0x1p63 || d >= 0x1p63) {
            throw outOfRange(field, original, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        return (long) d;
    }

    private static long fromBigInteger(FieldSpec field, BigInteger b) {
        if (b.bitLength() > 63) {
            throw outOfRange(field, b, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        return b.longValue();
    }

    private static long fromBigDecimal(FieldSpec field, BigDecimal d) {
        if (d.scale() == 0 && d.precision() <= 18) {
            return d.longValue(); // a whole number of at most 18 digits: exact (the bulk load's every key field)
        }
        if (d.signum() == 0) {
            return 0;
        }
        BigDecimal stripped = d.stripTrailingZeros();
        if (stripped.scale() > 0) {
            throw notInteger(field, d);
        }
        // Guard before toBigInteger: 1E+1000000000 would allocate a billion digits.
        if ((long) stripped.precision() - stripped.scale() > 19) {
            throw outOfRange(field, d, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        return fromBigInteger(field, stripped.toBigIntegerExact());
    }

    private static long checkRange(FieldSpec field, long v, long min, long max) {
        if (v < min || v > max) {
            throw outOfRange(field, v, min, max);
        }
        return v;
    }

    // ---- strings and bytes ----

    private static String wellFormed(String fieldName, String s) {
        checkWellFormed(fieldName, s);
        return s;
    }

    /** Refuses an unpaired surrogate: UTF-8 cannot encode it, and Java's encoder and protobuf write '?'. */
    static void checkWellFormed(String fieldName, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
            } else if (!Character.isLowSurrogate(c)) {
                continue;
            }
            throw new IllegalArgumentException(String.format(
                    "field '%s': string has an unpaired surrogate U+%04X at index %d (not encodable as UTF-8)",
                    fieldName, (int) c, i));
        }
    }

    private static Value requireKind(FieldSpec field, Value value, Value.KindCase kind) {
        if (value.getKindCase() != kind) {
            throw new IllegalStateException("field '" + field.getName() + "' (" + typeName(field)
                    + "): native core returned a " + value.getKindCase() + " value");
        }
        return value;
    }

    // ---- errors ----

    private static IllegalArgumentException wrongType(FieldSpec field, String expected, Object value) {
        return new IllegalArgumentException("field '" + field.getName() + "': expected "
                + expected + ", got " + value.getClass().getName());
    }

    private static IllegalArgumentException notInteger(FieldSpec field, Object value) {
        return new IllegalArgumentException("field '" + field.getName() + "': " + value + " is not an integer");
    }

    private static IllegalArgumentException outOfRange(FieldSpec field, Object value, long min, long max) {
        return new IllegalArgumentException("field '" + field.getName() + "': " + value + " is out of range for "
                + typeName(field) + " [" + min + ", " + max + "]");
    }
}
