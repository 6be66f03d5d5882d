package org.rowkey.hbase;

import java.util.Objects;

import com.google.protobuf.InvalidProtocolBufferException;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValueUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SkipScanFilterSpec;

/**
 * A filter that keeps exactly the rows of a {@link RowKeyQuery} and, on any other row, tells the
 * RegionServer to seek to the next key that could match ({@code SEEK_NEXT_USING_HINT}), computed
 * natively from the compiled predicate: Phoenix's skip scan, for every condition type, descending
 * fields and salted keys included. On a salted schema it keeps only rows whose salt byte is one
 * of the buckets the scan planner reads (the salt hash itself is not checked, as with the planned
 * ranges).
 *
 * <p>Reverse scans: the RegionServer marks the filter reversed ({@link #setReversed}) and the hint
 * is then the previous key that could match. A hint that would not move strictly past the row in
 * the scan's direction is never returned (HBase would ignore it); the filter then moves one row.
 * When no key beyond the row can match, {@link #filterAllRemaining()} ends the region's scan.
 *
 * <p>Inside a {@code FilterList(MUST_PASS_ALL)}: on HBase versions with the {@code HintingFilter}
 * marker (HBASE-28622), the filter the RegionServer rebuilds with {@link #parseFrom} carries it,
 * so the list still asks for the hint on rows another filter rejects by row key; on older
 * versions the list skips such rows one by one and seeks on the others. The same jar works on
 * both: the class naming the marker is loaded only where the marker exists.
 *
 * <p>The decision is made in {@link #filterCell} (HBase asks a filter for a hint only from there
 * before 2.6.6). Holds a native handle freed by {@link #close()} or, once unreachable, by a
 * cleaner. Not thread-safe, like every HBase filter (one instance per region scanner).
 */
public class SkipScanFilter extends FilterBase implements AutoCloseable {
    static final int FORMAT_VERSION = 1;
    private static final String MARKER = "org.apache.hadoop.hbase.filter.HintingFilter";
    /** Whether this HBase has the {@code HintingFilter} marker; decided once, at class load. */
    private static final boolean HINTING_FILTER_EXISTS = classExists(MARKER);

    private final PredicateComparator predicate;
    private final NativeHandle skip;
    /** Salt buckets read: bit {@code b % 8} of byte {@code b / 8}. */
    private final byte[] saltSet;

    /** The row decided last, and its decision (a row has several cells; filterCell sees each). */
    private byte[] row = new byte[64];
    private int rowLength = -1;
    private ReturnCode decision;
    /** Where to seek, when the decision is SEEK_NEXT_USING_HINT. */
    private byte[] hint;
    /** No key beyond the last row can match. */
    private boolean done;
    /** Reused to read the row of each cell without allocating. */
    private byte[] scratch = new byte[64];

    /** The skip scan of {@code query}. */
    public SkipScanFilter(RowKeyQuery query) {
        this(Objects.requireNonNull(query, "query").toComparator());
    }

    /** Takes ownership of {@code predicate}. */
    SkipScanFilter(PredicateComparator predicate) {
        this.predicate = predicate;
        try {
            this.skip = new NativeHandle("SkipScanFilter", SkipScanNative.parse(predicate.getValue()), SkipScanNative::free);
            this.saltSet = SkipScanNative.saltSet(skip.get());
        } catch (RuntimeException | Error e) {
            predicate.close();
            throw e;
        }
    }

    /** Copies {@code other}'s compiled state; for the hinting subclass. */
    SkipScanFilter(SkipScanFilter other) {
        this.predicate = other.predicate;
        this.skip = other.skip;
        this.saltSet = other.saltSet;
    }

    @Override
    public boolean filterRowKey(Cell firstRowCell) {
        // Every row reaches filterCell, where the hint is given.
        return done;
    }

    @Override
    public boolean filterAllRemaining() {
        return done;
    }

    @Override
    public ReturnCode filterCell(Cell cell) {
        if (done) {
            return ReturnCode.NEXT_ROW;
        }
        int length = cell.getRowLength();
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, 2 * scratch.length)];
        }
        CellUtil.copyRowTo(cell, scratch, 0);
        if (length == rowLength && Bytes.equals(row, 0, length, scratch, 0, length)) {
            return decision;
        }
        byte[] previous = row;
        row = scratch;
        scratch = previous;
        rowLength = length;
        decision = decide(row, length);
        return decision;
    }

    private ReturnCode decide(byte[] key, int length) {
        hint = null;
        if (predicate.compareTo(key, 0, length) == 0 && saltAllows(key, length)) {
            return ReturnCode.INCLUDE;
        }
        byte[] next;
        try {
            next = SkipScanNative.seek(skip.get(), key, 0, length, isReversed());
        } finally {
            NativeCleaner.keepAlive(skip);
        }
        if (next == null) {
            done = true;
            return ReturnCode.NEXT_ROW;
        }
        int order = Bytes.compareTo(next, 0, next.length, key, 0, length);
        if (isReversed() ? order >= 0 : order <= 0) {
            // Cannot happen (the native seek moves strictly); HBase would ignore such a hint.
            return ReturnCode.NEXT_ROW;
        }
        hint = next;
        return ReturnCode.SEEK_NEXT_USING_HINT;
    }

    private boolean saltAllows(byte[] key, int length) {
        int bucket = length == 0 ? 0 : key[0] & 0xff;
        return (saltSet[bucket >>> 3] & (1 << (bucket & 7))) != 0;
    }

    /** The first cell of the key to seek to, after {@link #filterCell} answered SEEK_NEXT_USING_HINT. */
    @Override
    public Cell getNextCellHint(Cell currentCell) {
        return hint == null ? null : KeyValueUtil.createFirstOnRow(hint);
    }

    /** The serialized {@code SkipScanFilterSpec}: the predicate comparator, schema included. */
    @Override
    public byte[] toByteArray() {
        try {
            return SkipScanFilterSpec.newBuilder()
                    .setFormatVersion(FORMAT_VERSION)
                    .setPredicate(ComparatorSpec.parseFrom(predicate.getValue()))
                    .build()
                    .toByteArray();
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the native core returned an unreadable canonical predicate", e);
        }
    }

    /**
     * The filter serialized by {@link #toByteArray()}, as the RegionServer rebuilds it. On an
     * HBase with the {@code HintingFilter} marker, an instance of a subclass that carries it.
     *
     * @throws DeserializationException for any bad input: null, corrupt or truncated bytes, an
     *     unsupported version, a missing or refused predicate
     */
    public static SkipScanFilter parseFrom(byte[] bytes) throws DeserializationException {
        if (bytes == null) {
            throw new DeserializationException("SkipScanFilter.parseFrom: bytes are null");
        }
        SkipScanFilterSpec spec;
        try {
            spec = SkipScanFilterSpec.parseFrom(bytes);
        } catch (InvalidProtocolBufferException | RuntimeException e) {
            throw new DeserializationException("SkipScanFilter.parseFrom: corrupt or truncated bytes (" + bytes.length
                    + " bytes): " + e.getMessage(), e);
        }
        if (Integer.compareUnsigned(spec.getFormatVersion(), FORMAT_VERSION) > 0) {
            throw new DeserializationException("SkipScanFilter.parseFrom: unsupported format version "
                    + Integer.toUnsignedString(spec.getFormatVersion()) + " (this library reads up to " + FORMAT_VERSION + ")");
        }
        if (!spec.hasPredicate()) {
            throw new DeserializationException("SkipScanFilter.parseFrom: the predicate is missing");
        }
        PredicateComparator predicate;
        try {
            predicate = PredicateComparator.parseFrom(spec.getPredicate().toByteArray());
        } catch (DeserializationException e) {
            throw new DeserializationException("SkipScanFilter.parseFrom: the predicate: " + e.getMessage(), e);
        }
        SkipScanFilter filter;
        try {
            filter = new SkipScanFilter(predicate);
        } catch (RuntimeException | LinkageError e) {
            throw new DeserializationException("SkipScanFilter.parseFrom: " + e, e);
        }
        if (!HINTING_FILTER_EXISTS) {
            return filter;
        }
        try {
            // HintingSkipScanFilter names the marker: touched only where the marker exists.
            return HintingSkipScanFilter.of(filter);
        } catch (LinkageError e) {
            return filter;
        }
    }

    /** Row key length of the query's schema. */
    int keyLength() {
        return predicate.keyLength();
    }

    /** Frees the native state now; later filtering throws {@link IllegalStateException}. Idempotent. */
    @Override
    public void close() {
        skip.close();
        predicate.close();
    }

    @Override
    public String toString() {
        return "SkipScanFilter{" + RowKeyQuery.describe(predicate.spec().getPredicate().getPredicate())
                + (isReversed() ? ", reversed" : "") + "}";
    }

    private static boolean classExists(String name) {
        try {
            // The loader that will resolve HintingSkipScanFilter's interface.
            Class.forName(name, false, SkipScanFilter.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
