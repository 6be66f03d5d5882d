package org.rowkey.hbase;

import java.util.Arrays;
import java.util.Objects;

import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.util.ByteBufferUtils;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SkipScanFilterSpec;

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
 * saves ({@link #SEEK_AFTER_FAILED_ROWS}). Where the runs prove long (several seeks in a row
 * after two failing rows), it seeks from the first failing row, and checks now and then that
 * runs are still long ({@link #USEFUL_TARGETS}, {@link #PROBE_EVERY}). Where rows keep failing
 * each towards its own next key (every row a group of its own), it stops asking for next keys
 * for a while and probes again later, so it costs about what a plain filter costs there
 * ({@link #USELESS_TARGETS}); a kept row between them does not hide that.
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
public class SkipScanFilter extends FilterBase implements AutoCloseable {
    /**
     * Failing rows short of the same next key before the filter seeks there. A seek costs HBase
     * about as much as reading a row or two (measured: 1.9 us against 1.4 us per row), so seeking
     * from the first failing row loses where the rows between are few (2.4x slower with one row
     * per leading value); from the second, a run of one failing row costs one row read, and a
     * long run two reads and a seek.
     */
    static final int SEEK_AFTER_FAILED_ROWS = 2;
    /**
     * After this many next keys in a row that no second row needed (each row a group of its own),
     * the filter stops asking for next keys for a while (doubling up to {@link #MAX_BACKOFF_ROWS}
     * rows, reset by the next seek): there it costs what a plain filter costs, and it probes
     * again, so it seeks again where the data turns. A probe that finds the next key useless again
     * starts the next, longer back-off at once (one native call per back-off, not eight).
     */
    static final int USELESS_TARGETS = 8;
    static final int MAX_BACKOFF_ROWS = 1024;
    /**
     * Seeks in a row that two failing rows asked for before the filter seeks from the first
     * failing row: where runs of failing rows are long, the second row of each is a row read for
     * nothing (3 rows read per match against FuzzyRowFilter's 2 with 100 rows per leading value).
     */
    static final int USEFUL_TARGETS = 4;
    /**
     * In seek-first mode, one next key in this many waits for a second failing row again (a
     * probe: a row read that a seek would have saved). Each probe that finds the runs still long
     * doubles the interval, up to {@link #MAX_PROBE_EVERY}: with 100 rows per leading value, one
     * probe in 8 read 6 % more rows than {@code FuzzyRowFilter} (2,128 against 2,001), one in 64
     * about 1 %.
     */
    static final int PROBE_EVERY = 8;
    static final int MAX_PROBE_EVERY = 64;
    private static final String MARKER = "org.apache.hadoop.hbase.filter.HintingFilter";
    /** Whether this HBase has the {@code HintingFilter} marker; decided once, at class load. */
    private static final boolean HINTING_FILTER_EXISTS = classExists(MARKER);

    private final PredicateComparator predicate;
    private final NativeHandle skip;
    /** The canonical serialized {@code SkipScanFilterSpec}. */
    private final byte[] canonical;
    /** Salt buckets read: bit {@code b % 8} of byte {@code b / 8}. */
    private final byte[] saltSet;
    /**
     * The leading bytes that decide a match (every constrained field ends within them), of the
     * last kept row: a row of the key's length that shares them is kept too, without a native call.
     * Only the row right after a kept one can share them (rows sharing them are contiguous, and
     * all kept), so a failing row clears {@link #previousRowKept} and rows after it skip the check.
     */
    private final byte[] keptPrefix;
    private boolean previousRowKept;

    /** The row decided last, and its decision (a row has several cells; filterCell sees each). */
    private byte[] row = new byte[64];
    private int rowLength = -1;
    private ReturnCode decision;
    /** Where to seek, when the decision is SEEK_NEXT_USING_HINT. */
    private byte[] hint;
    /**
     * The next key that can match after the failing row {@code targetFrom}, and how many rows
     * from it on failed short of it (each of those has the same next key: no native call).
     */
    private byte[] target;
    private byte[] targetFrom;
    /** Next keys in a row that no second failing row shared (each cost a native call for nothing). */
    private int uselessTargets;
    /** Next keys in a row sought after two failing rows (runs are long here). */
    private int usefulTargets;
    /** Seeking from the first failing row; every {@link #PROBE_EVERY}-th next key probes with two. */
    private boolean seekFirst;
    private boolean probing;
    private int targetsSinceProbe;
    /** Next keys between probes: {@link #PROBE_EVERY}, doubled by each probe that finds runs long. */
    private int probeEvery = PROBE_EVERY;
    /** Failing rows to move past without asking for the next key, and the current back-off. */
    private int rowsBeforeProbe;
    private int backoff;
    private int failedTowardsTarget;
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
        this(Objects.requireNonNull(query, "query").schema().spec(), query.toPredicateComparatorSpec());
    }

    /** The skip scan of {@code predicate}'s conditions (by field name) over the keys of {@code schema} (an index's, say). */
    SkipScanFilter(SchemaSpec schema, PredicateComparatorSpec predicate) {
        this(compile(SkipScanFilterSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setPredicate(ComparatorSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                        .setSchema(schema)
                        .setPredicate(predicate))
                .build().toByteArray()));
    }

    private SkipScanFilter(Compiled compiled) {
        this.skip = compiled.skip;
        this.predicate = compiled.predicate;
        this.canonical = compiled.canonical;
        this.saltSet = compiled.saltSet;
        this.keptPrefix = new byte[compiled.decidingPrefix];
    }

    /** The native filter of serialized {@code SkipScanFilterSpec} bytes, and what Java keeps of it. */
    private static final class Compiled {
        final NativeHandle skip;
        final PredicateComparator predicate;
        final byte[] canonical;
        final byte[] saltSet;
        final int decidingPrefix;

        Compiled(NativeHandle skip, PredicateComparator predicate, byte[] canonical, byte[] saltSet, int decidingPrefix) {
            this.skip = skip;
            this.predicate = predicate;
            this.canonical = canonical;
            this.saltSet = saltSet;
            this.decidingPrefix = decidingPrefix;
        }
    }

    /**
     * Parses and compiles the bytes natively (never in Java: they may come from any client).
     *
     * @throws IllegalArgumentException when the native core refuses them
     */
    private static Compiled compile(byte[] spec) {
        NativeHandle skip = new NativeHandle("SkipScanFilter", SkipScanNative.parse(spec), SkipScanNative::free);
        try {
            long pointer = skip.get();
            byte[] canonical = SkipScanNative.canonical(pointer);
            byte[] saltSet = SkipScanNative.saltSet(pointer);
            int decidingPrefix = SkipScanNative.decidingPrefix(pointer);
            PredicateComparator predicate = PredicateComparator.parseFrom(SkipScanNative.predicate(pointer));
            return new Compiled(skip, predicate, canonical, saltSet, decidingPrefix);
        } catch (DeserializationException e) {
            skip.close();
            throw new IllegalStateException("the native core returned an unreadable canonical predicate", e);
        } catch (RuntimeException | Error e) {
            skip.close();
            throw e;
        } finally {
            NativeCleaner.keepAlive(skip);
        }
    }

    /** Copies {@code other}'s compiled state; for the hinting subclass. */
    SkipScanFilter(SkipScanFilter other) {
        this.predicate = other.predicate;
        this.skip = other.skip;
        this.canonical = other.canonical;
        this.saltSet = other.saltSet;
        this.keptPrefix = new byte[other.keptPrefix.length];
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
        if (target == null && rowsBeforeProbe > 0) {
            // Backing off: decided in place, as a plain row filter would, and a failing row is not
            // even copied (HBase moves past a row dropped by filterRowKey; asked again, the filter
            // decides it again, the same way).
            hint = null;
            if (!matchesInPlace(cell, length)) {
                rowsBeforeProbe--;
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
        boolean shortOfTarget = target != null && isBefore(targetFrom, targetFrom.length, key, length)
                && isBefore(key, length, target, target.length);
        if (target != null && !shortOfTarget) {
            // The next row already reached the last next key: seeking there would have saved nothing.
            settle(false);
        }
        // Short of the next key that can match: the row fails (no native call).
        if (!shortOfTarget && matches(key, length)) {
            return ReturnCode.INCLUDE;
        }
        if (shortOfTarget) {
            // Still short of the key the last failing row pointed to: so does this one.
            failedTowardsTarget++;
        } else if (rowsBeforeProbe > 0) {
            // Backing off: recent next keys were never worth a seek; move on by a row, cheaply.
            rowsBeforeProbe--;
            return ReturnCode.NEXT_ROW;
        } else if (uselessTargets >= (backoff > 0 ? 1 : USELESS_TARGETS)) {
            // A run of next keys each reached by the very next row: rows here rarely share one.
            backoff = Math.min(MAX_BACKOFF_ROWS, Math.max(1, 2 * backoff));
            rowsBeforeProbe = backoff;
            uselessTargets = 0;
            return ReturnCode.NEXT_ROW;
        } else {
            byte[] next = seekFrom(key, length, isReversed());
            if (next == null) {
                done = true;
                return ReturnCode.NEXT_ROW;
            }
            if (!isBefore(key, length, next, next.length)) {
                // Cannot happen (the native seek moves strictly); HBase would ignore such a hint.
                return ReturnCode.NEXT_ROW;
            }
            target = next;
            targetFrom = Arrays.copyOf(key, length);
            failedTowardsTarget = 1;
            // In seek-first mode, every PROBE_EVERY-th next key waits for a second failing row, to
            // see whether runs are still long.
            probing = seekFirst && ++targetsSinceProbe >= probeEvery;
            if (probing) {
                targetsSinceProbe = 0;
            }
        }
        if (failedTowardsTarget < (seekFirst && !probing ? 1 : SEEK_AFTER_FAILED_ROWS)) {
            return ReturnCode.NEXT_ROW;
        }
        hint = target;
        settle(true);
        return ReturnCode.SEEK_NEXT_USING_HINT;
    }

    /**
     * The smallest key at or after {@code key} that can match, or null when none can: where a join
     * stream over this filter's conditions seeks to (docs/joins.md).
     */
    byte[] ceiling(byte[] key) {
        if (predicate.compareTo(key, 0, key.length) == 0 && saltAllows(key.length == 0 ? 0 : key[0])) {
            return key;
        }
        return seekFrom(key, key.length, false);
    }

    /** The next (previous when {@code reversed}) key that can match beyond {@code key[0, length)}, or null. */
    private byte[] seekFrom(byte[] key, int length, boolean reversed) {
        byte[] next = new byte[predicate.keyLength()];
        try {
            return SkipScanNative.seekInto(skip.get(), key, 0, length, reversed, next) < 0 ? null : next;
        } finally {
            NativeCleaner.keepAlive(skip);
        }
    }

    /**
     * The last next key is done with: {@code sought} there, or passed by a row without a seek. A
     * seek after two failing rows proves runs are long ({@link #USEFUL_TARGETS} such seeks in a
     * row switch to seeking from the first failing row, and in that mode a probe that proves it
     * again makes probes rarer); a next key the very next row reached proves the opposite (it
     * ends seek-first mode, and {@link #USELESS_TARGETS} of them in a row start a back-off).
     */
    private void settle(boolean sought) {
        if (!sought) {
            uselessTargets++;
            usefulTargets = 0;
            seekFirst = false;
            probeEvery = PROBE_EVERY;
        } else {
            uselessTargets = 0;
            backoff = 0;
            if (failedTowardsTarget >= SEEK_AFTER_FAILED_ROWS && ++usefulTargets >= USEFUL_TARGETS) {
                if (seekFirst && probing) {
                    probeEvery = Math.min(MAX_PROBE_EVERY, 2 * probeEvery);
                }
                seekFirst = true;
            }
        }
        probing = false;
        target = null;
    }

    /** Whether the row matches; a row sharing the deciding prefix of the last kept row does. */
    private boolean matches(byte[] key, int length) {
        int prefix = keptPrefix.length;
        if (previousRowKept && length == predicate.keyLength() && Bytes.equals(keptPrefix, 0, prefix, key, 0, prefix)) {
            return true;
        }
        if (predicate.compareTo(key, 0, length) == 0 && saltAllows(length == 0 ? 0 : key[0])) {
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
        if (previousRowKept && length == predicate.keyLength() && rowStartsWith(cell, keptPrefix)) {
            return true;
        }
        return PrivateCellUtil.compareRow(cell, predicate) == 0
                && saltAllows(length == 0 ? 0 : PrivateCellUtil.getRowByte(cell, 0));
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

    /** Whether {@code a[0, aLength)} comes before {@code b[0, bLength)} in the scan's direction. */
    private boolean isBefore(byte[] a, int aLength, byte[] b, int bLength) {
        int order = Bytes.compareTo(a, 0, aLength, b, 0, bLength);
        return isReversed() ? order > 0 : order < 0;
    }

    /** Whether the salt bucket of a row whose first byte is {@code first} (0 for an empty row) is read. */
    private boolean saltAllows(byte first) {
        int bucket = first & 0xff;
        return (saltSet[bucket >>> 3] & (1 << (bucket & 7))) != 0;
    }

    /** The first cell of the key to seek to, after {@link #filterCell} answered SEEK_NEXT_USING_HINT. */
    @Override
    public Cell getNextCellHint(Cell currentCell) {
        return hint == null ? null : PrivateCellUtil.createFirstOnRow(hint);
    }

    /** The canonical serialized {@code SkipScanFilterSpec}: the predicate comparator, schema included. */
    @Override
    public byte[] toByteArray() {
        return canonical.clone();
    }

    /**
     * The filter serialized by {@link #toByteArray()}, as the RegionServer rebuilds it (parsed and
     * validated natively). On an HBase with the {@code HintingFilter} marker, an instance of a
     * subclass that carries it.
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
            filter = new SkipScanFilter(compile(bytes));
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
        return "SkipScanFilter{" + predicate
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
