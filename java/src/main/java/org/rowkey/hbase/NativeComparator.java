package org.rowkey.hbase;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

import com.google.protobuf.InvalidProtocolBufferException;

import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;

/**
 * A {@link ByteArrayComparable} whose compare runs in a compiled native program.
 *
 * <p>Its {@link #getValue() value} and {@link #toByteArray()} are the canonical serialized
 * {@code ComparatorSpec} (schema included), which the RegionServer turns back into a comparator
 * with the subclass's {@code parseFrom}. {@link #compareTo(byte[], int, int)} follows HBase's
 * convention: the comparator's constant compared to the row, so with a {@code RowFilter},
 * {@code LESS} keeps the rows whose result is {@code > 0}. A row whose length is not the
 * schema's key length is answered without a native call when the comparator says how.
 *
 * <p>Thread-safe. After {@link #close()} compares throw {@link IllegalStateException}; the native
 * program is freed at once if no other thread has used the comparator, else (a compare may still
 * be running) by a cleaner once the comparator is unreachable, as is one never closed (on a
 * RegionServer).
 */
abstract class NativeComparator extends ByteArrayComparable implements AutoCloseable {
    static final int FORMAT_VERSION = 1;
    /** The per-row call mechanism (JNI, or FFM on Java 22+), chosen once. */
    private static final RowCalls CALLS = RowCalls.get();

    private final NativeHandle handle;
    private final int keyLength;
    /** What a wrong-length row compares as, or MIN_VALUE: ask the native core. */
    private final int wrongLengthResult;

    NativeComparator(Compiled compiled) {
        super(compiled.canonical);
        this.handle = compiled.handle;
        this.keyLength = compiled.keyLength;
        this.wrongLengthResult = compiled.wrongLengthResult;
    }

    /** The canonical serialized {@code ComparatorSpec}, as {@link #getValue()}. */
    @Override
    public byte[] toByteArray() {
        return getValue();
    }

    @Override
    public int compareTo(byte[] row, int offset, int length) {
        Objects.requireNonNull(row, "row");
        checkBounds(offset, length, row.length);
        if (length != keyLength && wrongLengthResult != Integer.MIN_VALUE) {
            return wrongLengthResult;
        }
        try {
            return CALLS.compareArray(handle.get(), row, offset, length);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * As {@link #compareTo(byte[], int, int)} over {@code buf[offset, offset + length)}, absolute
     * positions, position and limit ignored. Direct buffers are read in place; heap buffers
     * through their array; only a read-only heap buffer is copied.
     */
    @Override
    public int compareTo(ByteBuffer buf, int offset, int length) {
        Objects.requireNonNull(buf, "buf");
        checkBounds(offset, length, buf.capacity());
        if (length != keyLength && wrongLengthResult != Integer.MIN_VALUE) {
            return wrongLengthResult;
        }
        try {
            if (buf.isDirect()) {
                return CALLS.compareDirect(handle.get(), buf, offset, length);
            }
            if (buf.hasArray()) {
                return CALLS.compareArray(handle.get(), buf.array(), buf.arrayOffset() + offset, length);
            }
            byte[] copy = new byte[length];
            ByteBuffer view = buf.duplicate();
            view.clear();
            view.position(offset);
            view.get(copy);
            return CALLS.compareArray(handle.get(), copy, 0, length);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * Later compares throw {@link IllegalStateException}; the native program is freed now, or, if
     * other threads have used this comparator, once it is unreachable. Idempotent; safe while
     * other threads compare (they get an answer or the exception).
     */
    @Override
    public void close() {
        handle.close();
    }

    /** The live native pointer (tests and benchmarks call the per-row natives with it). */
    long nativeHandle() {
        return handle.get();
    }

    /** Row key length of the comparator's schema. */
    int keyLength() {
        return keyLength;
    }

    /** The canonical spec, parsed (for descriptions). */
    ComparatorSpec spec() {
        try {
            return ComparatorSpec.parseFrom(getValue());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("native core returned an unreadable canonical comparator", e);
        }
    }

    /** A short description of what the comparator tests, for {@link #toString()}. */
    abstract String describe(ComparatorSpec spec);

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Arrays.equals(getValue(), ((NativeComparator) o).getValue());
    }

    @Override
    public int hashCode() {
        return getClass().hashCode() * 31 + Arrays.hashCode(getValue());
    }

    @Override
    public String toString() {
        String summary;
        try {
            summary = describe(spec());
        } catch (RuntimeException e) {
            summary = getValue().length + " bytes";
        }
        if (summary.length() > 200) {
            summary = summary.substring(0, 197) + "...";
        }
        return getClass().getSimpleName() + "{" + summary + (handle.isClosed() ? ", closed" : "") + "}";
    }

    private static void checkBounds(int offset, int length, int size) {
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + " out of bounds for size " + size);
        }
    }

    // ---- construction ----

    /** A natively compiled comparator: its handle and what the Java side caches. */
    static final class Compiled {
        final NativeHandle handle;
        final byte[] canonical;
        final int keyLength;
        final int wrongLengthResult;

        private Compiled(NativeHandle handle, byte[] canonical, int keyLength, int wrongLengthResult) {
            this.handle = handle;
            this.canonical = canonical;
            this.keyLength = keyLength;
            this.wrongLengthResult = wrongLengthResult;
        }
    }

    /**
     * Compiles a serialized {@code ComparatorSpec}.
     *
     * @param what the comparator class name, for messages
     * @param keyLength the schema's key length if known, else -1 (then it is computed natively)
     * @throws IllegalArgumentException when the native core refuses the spec
     */
    static Compiled compile(String what, byte[] spec, ComparatorSpec parsed, int keyLength) {
        long pointer = RowKeyNative.comparatorParse(spec);
        NativeHandle handle = new NativeHandle(what, pointer, RowKeyNative::comparatorFree);
        try {
            byte[] canonical = RowKeyNative.comparatorCanonical(pointer);
            int wrong = RowKeyNative.comparatorWrongLengthResult(pointer);
            int length = keyLength >= 0 ? keyLength : schemaKeyLength(parsed);
            return new Compiled(handle, canonical, length, wrong);
        } catch (RuntimeException | Error e) {
            handle.close();
            throw e;
        }
    }

    /** Compiles a spec built on the Java side from a {@link RowKeySchema}. */
    static Compiled compile(String what, RowKeySchema schema, ComparatorSpec.Builder spec) {
        ComparatorSpec built = spec.setFormatVersion(FORMAT_VERSION).setSchema(schema.spec()).build();
        return compile(what, built.toByteArray(), built, schema.keyLength());
    }

    /** The key length of a spec's schema (a short-lived native schema). */
    private static int schemaKeyLength(ComparatorSpec parsed) {
        long schema = RowKeyNative.schemaParse(parsed.getSchema().toByteArray());
        try {
            return RowKeyNative.schemaKeyLength(schema);
        } finally {
            RowKeyNative.schemaFree(schema);
        }
    }

    /**
     * What every {@code parseFrom} does: checks the bytes hold a comparator of the expected kind,
     * compiles them, and turns every failure into a {@link DeserializationException} naming the
     * class and the cause.
     */
    static Compiled parse(Class<?> type, ComparatorSpec.KindCase kind, byte[] bytes) throws DeserializationException {
        String what = type.getSimpleName();
        if (bytes == null) {
            throw new DeserializationException(what + ".parseFrom: bytes are null");
        }
        try {
            ComparatorSpec parsed = ComparatorSpec.parseFrom(bytes);
            if (parsed.getKindCase() != kind) {
                throw new DeserializationException(what + ".parseFrom: the bytes hold "
                        + kindName(parsed.getKindCase()) + ", not " + kindName(kind) + " (" + bytes.length + " bytes)");
            }
            return compile(what, bytes, parsed, -1);
        } catch (DeserializationException e) {
            throw e;
        } catch (InvalidProtocolBufferException e) {
            throw new DeserializationException(what + ".parseFrom: corrupt or truncated bytes (" + bytes.length
                    + " bytes): " + e.getMessage(), e);
        } catch (RuntimeException | LinkageError e) {
            throw new DeserializationException(what + ".parseFrom: " + e, e);
        }
    }

    private static String kindName(ComparatorSpec.KindCase kind) {
        switch (kind) {
            case EQUAL: return "an EqualComparator";
            case RANGE: return "a RangeComparator";
            case PREDICATE: return "a PredicateComparator";
            default: return "no comparator kind";
        }
    }
}
