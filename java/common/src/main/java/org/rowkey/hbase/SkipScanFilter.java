package org.rowkey.hbase;

import java.util.Objects;

import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.ByteBufferUtils;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;

/**
 * A filter that keeps exactly the rows of a {@link RowKeyQuery} and skips the others by seeking
 * to the next key that could match ({@code SEEK_NEXT_USING_HINT}), computed natively from the
 * compiled predicate: Phoenix's skip scan, for every condition type, descending fields and salted
 * keys included. On a salted schema it keeps only rows whose salt byte is one of the buckets the
 * scan planner reads (the salt hash itself is not checked, as with the planned ranges).
 *
 * <p>It seeks from the second row in a run of failing rows short of the same next key, and moves
 * on by one row ({@code NEXT_ROW}) from the first: a seek costs HBase about as much as reading a
 * row or two, so seeking where only one row fails before the next match would cost more than it
 * saves ({@link SeekPolicy#SEEK_AFTER_FAILED_ROWS}). Where the runs prove long (several seeks in a row
 * after two failing rows), it seeks from the first failing row, and checks now and then that
 * runs are still long ({@link SeekPolicy#USEFUL_TARGETS}, {@link SeekPolicy#PROBE_EVERY}). Where rows keep failing
 * each towards its own next key (every row a group of its own), it stops asking for next keys
 * for a while and probes again later, so it costs about what a plain filter costs there
 * ({@link SeekPolicy#USELESS_TARGETS}); a kept row between them does not hide that.
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
 * <p>Each row is decided once, in {@link #filterRowKey} or {@link #filterCell}, whichever HBase
 * calls first; the hint is given from {@link #filterCell} (HBase asks a filter for a hint only
 * from there before 2.6.6). Holds a native handle freed by {@link #close()} or, once unreachable, by a
 * cleaner. Not thread-safe, like every HBase filter (one instance per region scanner).
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public class SkipScanFilter extends FilterBase implements AutoCloseable {
    private static final String MARKER = "org.apache.hadoop.hbase.filter.HintingFilter";
    /** Whether this HBase has the marker (checked once, without loading a class that names it). */
    private static final boolean HINTING_FILTER_EXISTS = classExists(MARKER);

    /**
     * The query's conditions, compiled natively: matches and next keys. A filter made to be sent
     * ({@link #toSend}) compiles them only if it is ever used to filter here.
     */
    private KeySeeker seeker;
    /** The serialized filter of one made to be sent; null for one compiled when made. */
    private final byte[] toSend;
    /** When to seek: learned from the rows of this region scan. */
    private final SeekPolicy policy = new SeekPolicy();
    /**
     * The leading bytes that decide a match (every constrained field ends within them), of the
     * last kept row: a row of the key's length that shares them is kept too, without a native call.
     * Only the row right after a kept one can share them (rows sharing them are contiguous, and
     * all kept), so a failing row clears {@link #previousRowKept} and rows after it skip the check.
     */
    private byte[] keptPrefix;
    private boolean previousRowKept;

    /** The row decided last (a copy) and its decision, for its next cells. */
    private byte[] row = new byte[64];
    private int rowLength = -1;
    private ReturnCode decision;
    /** The key to seek to, after {@link #filterCell} answered SEEK_NEXT_USING_HINT. */
    private byte[] hint;
    /** No key beyond the last row can match. */
    private boolean done;
    /**
     * {@link #filterRowKey} dropped the current row; until {@link #reset()} (which HBase calls
     * before each new row) or the next row's {@link #filterRowKey}, its cells are dropped without
     * a second decision, as {@code RowFilter} does. A row dropped while backing off is not copied,
     * so without this each one would be decided twice.
     */
    private boolean rowDropped;

    /**
     * The skip scan of {@code query}; of an {@link RowKeyQuery#anyOf} query, the skip scan over the
     * OR: a row is kept when some branch matches, and the next key that can match is the nearest
     * of the branches' next keys.
     */
    public SkipScanFilter(RowKeyQuery query) {
        this(KeySeeker.of(Objects.requireNonNull(query, "query")));
    }

    private SkipScanFilter(KeySeeker seeker) {
        this.seeker = seeker;
        this.keptPrefix = new byte[seeker.decidingPrefix()];
        this.toSend = null;
    }

    private SkipScanFilter(byte[] toSend) {
        this.toSend = toSend;
    }

    /**
     * The skip scan of {@code predicate} over the keys of {@code schema} as a planned scan sends it:
     * serialized, not compiled here. The planner has already checked these conditions against the
     * schema, and each RegionServer compiles the bytes once ({@link #parseFrom}), so compiling on
     * the client too would only cost the query (about 40 µs).
     */
    static SkipScanFilter toSend(SchemaSpec schema, PredicateComparatorSpec predicate) {
        return new SkipScanFilter(KeySeeker.spec(schema, predicate));
    }

    /** Copies {@code other}'s compiled state; for the hinting subclass. */
    SkipScanFilter(SkipScanFilter other) {
        this(other.seeker());
    }

    /** The compiled conditions, compiled now if this filter was made to be sent. */
    KeySeeker seeker() {
        if (seeker == null) {
            seeker = KeySeeker.compile(toSend);
            keptPrefix = new byte[seeker.decidingPrefix()];
        }
        return seeker;
    }

    /**
     * Decides the row here, once: a row that fails without a seek is dropped before HBase reads
     * its cells (cheaper than {@code NEXT_ROW} from {@link #filterCell}, which HBase reaches
     * through its cell matcher); a kept row or a seek is answered from {@link #filterCell}, where
     * HBase asks for the hint.
     */
    @Override
    public boolean filterRowKey(Cell firstRowCell) {
        rowDropped = done || rowDecision(firstRowCell) == ReturnCode.NEXT_ROW;
        return rowDropped;
    }

    /** A new row follows (HBase's filter contract): nothing is known of it yet. */
    @Override
    public void reset() {
        rowDropped = false;
    }

    @Override
    public boolean filterAllRemaining() {
        return done;
    }

    @Override
    public ReturnCode filterCell(Cell cell) {
        // A row filterRowKey dropped: HBase still passes its first cell here while it moves past it.
        return done || rowDropped ? ReturnCode.NEXT_ROW : rowDecision(cell);
    }

    /** The decision for the row of {@code cell}: made once per row, then repeated for its cells. */
    private ReturnCode rowDecision(Cell cell) {
        int length = cell.getRowLength();
        if (length == rowLength && PrivateCellUtil.matchingRows(cell, row, 0, length)) {
            return decision;
        }
        if (policy.backingOff()) {
            // Backing off: decided in place, as a plain row filter would, and a failing row is not
            // even copied (HBase moves past a row dropped by filterRowKey; asked again, the filter
            // decides it again, the same way).
            hint = null;
            if (!matchesInPlace(cell, length)) {
                policy.failedWhileBackingOff();
                rowLength = -1;
                previousRowKept = false;
                return ReturnCode.NEXT_ROW;
            }
            remember(cell, length);
            keepPrefixOf(row);
            previousRowKept = true;
            decision = ReturnCode.INCLUDE;
            return decision;
        }
        remember(cell, length);
        decision = decide(row, length);
        previousRowKept = decision == ReturnCode.INCLUDE;
        return decision;
    }

    /** Copies the row of {@code cell} as the row decided last. */
    private void remember(Cell cell, int length) {
        if (row.length < length) {
            row = new byte[Math.max(length, 2 * row.length)];
        }
        CellUtil.copyRowTo(cell, row, 0);
        rowLength = length;
    }

    private ReturnCode decide(byte[] key, int length) {
        hint = null;
        boolean reversed = isReversed();
        if (policy.shortOfTarget(key, length, reversed)) {
            // Still short of the key the last failing row pointed to: so is this one (no native call).
        } else if (matches(key, length)) {
            return ReturnCode.INCLUDE;
        } else if (policy.skipNextKey()) {
            return ReturnCode.NEXT_ROW;
        } else {
            byte[] next = seeker().next(key, length, reversed);
            if (next == null) {
                done = true;
                return ReturnCode.NEXT_ROW;
            }
            if (!SeekPolicy.isBefore(key, length, next, next.length, reversed)) {
                // Cannot happen (the native seek moves strictly); HBase would ignore such a hint.
                return ReturnCode.NEXT_ROW;
            }
            policy.target(next, key, length);
        }
        hint = policy.seekNow();
        return hint == null ? ReturnCode.NEXT_ROW : ReturnCode.SEEK_NEXT_USING_HINT;
    }

    /** Whether the row matches; a row sharing the deciding prefix of the last kept row does. */
    private boolean matches(byte[] key, int length) {
        KeySeeker s = seeker();
        int prefix = keptPrefix.length;
        if (previousRowKept && length == s.keyLength() && Bytes.equals(keptPrefix, 0, prefix, key, 0, prefix)) {
            return true;
        }
        if (s.matches(key, length)) {
            keepPrefixOf(key);
            return true;
        }
        return false;
    }

    /**
     * {@link #matches} on the row of {@code cell} where it lies (heap array or buffer), without a
     * copy; a caller that keeps the row copies its deciding prefix ({@link #keepPrefixOf}).
     */
    private boolean matchesInPlace(Cell cell, int length) {
        KeySeeker s = seeker();
        if (previousRowKept && length == s.keyLength() && rowStartsWith(cell, keptPrefix)) {
            return true;
        }
        return s.matchesRow(cell);
    }

    private void keepPrefixOf(byte[] keptRow) {
        System.arraycopy(keptRow, 0, keptPrefix, 0, keptPrefix.length);
    }

    private static boolean rowStartsWith(Cell cell, byte[] prefix) {
        if (cell instanceof ByteBufferExtendedCell) {
            ByteBufferExtendedCell b = (ByteBufferExtendedCell) cell;
            return ByteBufferUtils.equals(b.getRowByteBuffer(), b.getRowPosition(), prefix.length, prefix, 0, prefix.length);
        }
        return Bytes.equals(cell.getRowArray(), cell.getRowOffset(), prefix.length, prefix, 0, prefix.length);
    }

    /** The first cell of the key to seek to, after {@link #filterCell} answered SEEK_NEXT_USING_HINT. */
    @Override
    public Cell getNextCellHint(Cell currentCell) {
        return hint == null ? null : PrivateCellUtil.createFirstOnRow(hint);
    }

    /** The canonical serialized {@code SkipScanFilterSpec}: the predicate comparator, schema included. */
    @Override
    public byte[] toByteArray() {
        return toSend != null ? toSend.clone() : seeker.canonical();
    }

    /**
     * The filter serialized by {@link #toByteArray()}, as the RegionServer rebuilds it (parsed and
     * validated natively; the filters parsed from the same bytes share one compiled state, so the
     * regions of one query compile it once per server). On an HBase with the {@code HintingFilter}
     * marker, an instance of a subclass that carries it.
     *
     * @throws DeserializationException for any bad input: null, corrupt or truncated bytes, an
     *     unsupported version, a missing or refused predicate
     */
    public static SkipScanFilter parseFrom(byte[] bytes) throws DeserializationException {
        if (bytes == null) {
            throw new DeserializationException("SkipScanFilter.parseFrom: bytes are null");
        }
        SkipScanFilter filter;
        try {
            filter = new SkipScanFilter(KeySeeker.parsed(bytes));
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

    /**
     * Whether this HBase has the {@code HintingFilter} marker (2.5.9+, 2.6.1+): without it, a filter
     * inside {@code FilterList(MUST_PASS_ALL)} has its seek hints dropped (HBASE-28622), so the skip
     * scan there is exact but reads every row.
     */
    static boolean hintingFilterExists() {
        return HINTING_FILTER_EXISTS;
    }

    /** Row key length of the query's schema. */
    int keyLength() {
        return seeker().keyLength();
    }

    /**
     * Frees the native state now; later filtering throws {@link IllegalStateException}. Idempotent.
     * A filter made by {@link #parseFrom} shares its compiled state with the others parsed from the
     * same bytes: closing it frees nothing, the cleaner frees that state once unused.
     */
    @Override
    public void close() {
        if (seeker != null) {
            seeker.close();
        }
    }

    @Override
    public String toString() {
        return "SkipScanFilter{" + (seeker != null ? seeker.toString() : "to send, " + toSend.length + " bytes")
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
