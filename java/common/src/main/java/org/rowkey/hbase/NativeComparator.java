package org.rowkey.hbase;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

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
@RunsIn(RunsIn.Where.REGION_SERVER)
abstract class NativeComparator extends ByteArrayComparable implements AutoCloseable {
    /** The per-row call mechanism (JNI, or FFM on Java 22+), chosen once. */
    private static final RowCalls CALLS = RowCalls.get();

    private final NativeHandle handle;
    private final int keyLength;
    /** What a row of another length than the key compares as, answered without a native call. */
    private final int wrongLengthResult;
    /** Native compares made, racy (it only picks the ones timed: {@link NativeRowTimes}). */
    private int compares;

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
        if (length != keyLength) {
            return wrongLengthResult;
        }
        long sampled = NativeRowTimes.startIfSampled(++compares);
        try {
            return CALLS.compareArray(handle.get(), row, offset, length);
        } finally {
            NativeRowTimes.endIfSampled(sampled);
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
        if (length != keyLength) {
            return wrongLengthResult;
        }
        long sampled = NativeRowTimes.startIfSampled(++compares);
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
            NativeRowTimes.endIfSampled(sampled);
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
            summary = RowKeyNative.describeComparator(getValue());
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
        final ComparatorSpec.KindCase kind;

        private Compiled(NativeHandle handle, byte[] canonical, int keyLength, int wrongLengthResult,
                ComparatorSpec.KindCase kind) {
            this.handle = handle;
            this.canonical = canonical;
            this.keyLength = keyLength;
            this.wrongLengthResult = wrongLengthResult;
            this.kind = kind;
        }
    }

    /**
     * Compiles a serialized {@code ComparatorSpec}: the native core checks, parses and compiles
     * it (the bytes are never parsed in Java, where a hostile message would cost the RegionServer
     * before any limit applies).
     *
     * @param what the comparator class name, for messages
     * @throws IllegalArgumentException when the native core refuses the spec
     */
    static Compiled compile(String what, byte[] spec) {
        return adopt(what, RowKeyNative.comparatorParse(spec));
    }

    /** Takes ownership of a comparator handle the native core made ({@code pointer}, not 0). */
    static Compiled adopt(String what, long pointer) {
        NativeHandle handle = new NativeHandle(what, pointer, RowKeyNative::comparatorFree);
        try {
            return new Compiled(handle, RowKeyNative.comparatorCanonical(pointer),
                    RowKeyNative.comparatorKeyLength(pointer), RowKeyNative.comparatorWrongLengthResult(pointer),
                    ComparatorSpec.KindCase.forNumber(RowKeyNative.comparatorKind(pointer)));
        } catch (RuntimeException | Error e) {
            handle.close();
            throw e;
        }
    }

    /** Compiles a spec built on the Java side from a {@link RowKeySchema}. */
    static Compiled compile(String what, RowKeySchema schema, ComparatorSpec.Builder spec) {
        return compile(what, spec.setFormatVersion(RowKeySchema.FORMAT_VERSION).setSchema(schema.spec()).build().toByteArray());
    }

    /**
     * What every {@code parseFrom} does: compiles the bytes, checks they hold a comparator of the
     * expected kind, and turns every failure into a {@link DeserializationException} naming the
     * class and the cause.
     */
    static Compiled parse(Class<?> type, ComparatorSpec.KindCase kind, byte[] bytes) throws DeserializationException {
        String what = type.getSimpleName();
        if (bytes == null) {
            throw new DeserializationException(what + ".parseFrom: bytes are null");
        }
        Compiled compiled;
        try {
            compiled = compile(what, bytes);
        } catch (RuntimeException | LinkageError e) {
            throw new DeserializationException(what + ".parseFrom: " + e, e);
        }
        if (compiled.kind != kind) {
            compiled.handle.close();
            throw new DeserializationException(what + ".parseFrom: the bytes hold " + kindName(compiled.kind)
                    + ", not " + kindName(kind) + " (" + bytes.length + " bytes)");
        }
        return compiled;
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
