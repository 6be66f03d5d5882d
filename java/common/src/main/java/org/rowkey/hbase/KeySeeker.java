package org.rowkey.hbase;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.PrivateCellUtil;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PredicateComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SkipScanFilterSpec;

/**
 * A query's conditions compiled natively for seeking: whether a key matches, and the next key
 * that can match beyond a key (src/ranges/skip_scan.rs). The skip-scan filter seeks with it inside a region;
 * a join's key streams seek with it on the client (docs/joins.md). Holds a native handle freed by
 * {@link #close()} or, once unreachable, by a cleaner. The native calls are thread-safe; callers
 * keep their own scan state.
 */
@RunsIn(RunsIn.Where.SHARED)
final class KeySeeker implements AutoCloseable {
    /** How many {@link #parsed} seekers are kept: the most recently used. */
    static final int PARSED_KEPT = 64;
    /** Specs longer than this (long IN lists) are compiled for each filter and not kept. */
    static final int PARSED_MAX_BYTES = 64 * 1024;
    /** The {@link #parsed} seekers, by their spec bytes, least recently used first. */
    private static final Map<SpecBytes, KeySeeker> PARSED = new LinkedHashMap<SpecBytes, KeySeeker>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<SpecBytes, KeySeeker> eldest) {
            return size() > PARSED_KEPT; // dropped, not closed: filters may still use it
        }
    };

    private final NativeHandle skip;
    private final PredicateComparator predicate;
    private final byte[] canonical;
    private final byte[] saltSet;
    private final int decidingPrefix;
    /** Shared by the filters parsed from the same bytes: {@link #close()} leaves it to the cleaner. */
    private final boolean shared;

    private KeySeeker(NativeHandle skip, PredicateComparator predicate, byte[] canonical, byte[] saltSet, int decidingPrefix,
            boolean shared) {
        this.shared = shared;
        this.skip = skip;
        this.predicate = predicate;
        this.canonical = canonical;
        this.saltSet = saltSet;
        this.decidingPrefix = decidingPrefix;
    }

    /** The seeker of {@code query} (of an {@code anyOf} query: over the OR of its branches). */
    static KeySeeker of(RowKeyQuery query) {
        Objects.requireNonNull(query, "query");
        return of(query.schema().spec(), query.toPredicateComparatorSpec());
    }

    /** The seeker of {@code predicate}'s conditions (by field name) over the keys of {@code schema} (an index's, say). */
    static KeySeeker of(SchemaSpec schema, PredicateComparatorSpec predicate) {
        return compile(spec(schema, predicate));
    }

    /**
     * The seeker of {@code query} that seeks only to well-formed keys (a byte of bools never with a
     * bit no bool owns): its positions may be laid out again as index keys ({@link Catalog#indexSeekKey}).
     */
    static KeySeeker overWellFormedKeys(RowKeyQuery query) {
        return compile(spec(query.schema().spec(), query.toPredicateComparatorSpec(), true));
    }

    /** The serialized {@code SkipScanFilterSpec} of {@code predicate} over the keys of {@code schema}. */
    static byte[] spec(SchemaSpec schema, PredicateComparatorSpec predicate) {
        return spec(schema, predicate, false);
    }

    private static byte[] spec(SchemaSpec schema, PredicateComparatorSpec predicate, boolean wellFormedKeys) {
        return SkipScanFilterSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setPredicate(ComparatorSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                        .setSchema(schema)
                        .setPredicate(predicate))
                .setWellFormedKeys(wellFormedKeys)
                .build().toByteArray();
    }

    /**
     * Parses and compiles serialized {@code SkipScanFilterSpec} bytes natively (never in Java:
     * they may come from any client).
     *
     * @throws IllegalArgumentException when the native core refuses them
     */
    static KeySeeker compile(byte[] spec) {
        return compile(spec, false);
    }

    /**
     * {@link #compile} for a RegionServer rebuilding a filter: one seeker per distinct spec, shared
     * by every filter parsed from the same bytes, so a query that reads several regions of one
     * server, or runs again, compiles once (15–40 µs each time otherwise). Its {@link #close()}
     * does nothing: it is freed by the cleaner once it has left the {@link #PARSED_KEPT} kept and no
     * filter holds it. A refused spec is not kept.
     */
    static KeySeeker parsed(byte[] spec) {
        if (spec.length > PARSED_MAX_BYTES) {
            return compile(spec);
        }
        SpecBytes key = new SpecBytes(spec.clone()); // hashed here, outside the lock
        synchronized (PARSED) {
            KeySeeker kept = PARSED.get(key);
            if (kept != null) {
                return kept;
            }
        }
        KeySeeker made = compile(spec, true); // outside the lock: other regions' filters go on meanwhile
        synchronized (PARSED) {
            KeySeeker raced = PARSED.putIfAbsent(key, made);
            return raced != null ? raced : made;
        }
    }

    /** A spec's bytes as a key of {@link #PARSED}, hashed once when made. */
    private static final class SpecBytes {
        private final byte[] bytes;
        private final int hash;

        SpecBytes(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SpecBytes && hash == ((SpecBytes) o).hash && Arrays.equals(bytes, ((SpecBytes) o).bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** How many {@link #parsed} seekers are kept now. */
    static int parsedKept() {
        synchronized (PARSED) {
            return PARSED.size();
        }
    }

    private static KeySeeker compile(byte[] spec, boolean shared) {
        NativeHandle skip = new NativeHandle("SkipScanFilter", nativeParse(spec), KeySeeker::nativeFree);
        try {
            long pointer = skip.get();
            byte[] canonical = nativeCanonical(pointer);
            byte[] saltSet = nativeSaltSet(pointer);
            int decidingPrefix = nativeDecidingPrefix(pointer);
            PredicateComparator predicate = PredicateComparator.adopt(nativeComparator(pointer));
            return new KeySeeker(skip, predicate, canonical, saltSet, decidingPrefix, shared);
        } catch (RuntimeException | Error e) {
            skip.close();
            throw e;
        } finally {
            NativeCleaner.keepAlive(skip);
        }
    }

    /**
     * The smallest key at or after {@code key} that can match, or null when none can: where a join
     * stream over these conditions seeks to. A seek position: its salt byte need not be its fields'
     * hash, and unless made {@link #overWellFormedKeys} a bool byte may have other bits set.
     */
    byte[] ceiling(byte[] key) {
        if (key.length == keyLength() && matches(key, key.length)) {
            return key;
        }
        return next(key, key.length, false);
    }

    /** The next (previous when {@code reversed}) key that can match beyond {@code key[0, length)}, or null. */
    byte[] next(byte[] key, int length, boolean reversed) {
        byte[] next = new byte[predicate.keyLength()];
        try {
            return nativeSeekInto(skip.get(), key, 0, length, reversed, next) < 0 ? null : next;
        } finally {
            NativeCleaner.keepAlive(skip);
        }
    }

    /** Whether {@code key[0, length)} matches: the predicate, and a salt bucket the scan reads. */
    boolean matches(byte[] key, int length) {
        return predicate.compareTo(key, 0, length) == 0 && saltAllows(length == 0 ? 0 : key[0]);
    }

    /** {@link #matches} on the row of {@code cell} where it lies (heap array or buffer), without a copy. */
    boolean matchesRow(Cell cell) {
        return PrivateCellUtil.compareRow(cell, predicate) == 0
                && saltAllows(cell.getRowLength() == 0 ? 0 : PrivateCellUtil.getRowByte(cell, 0));
    }

    /** Whether the salt bucket of a row whose first byte is {@code first} (0 for an empty row) is read. */
    private boolean saltAllows(byte first) {
        int bucket = first & 0xff;
        return (saltSet[bucket >>> 3] & (1 << (bucket & 7))) != 0;
    }

    /**
     * How many leading bytes decide a match: keys of the schema's length sharing them all match or
     * all fail.
     */
    int decidingPrefix() {
        return decidingPrefix;
    }

    /** Row key length of the schema. */
    int keyLength() {
        return predicate.keyLength();
    }

    /** The canonical serialized {@code SkipScanFilterSpec}: equal seekers give equal bytes. */
    byte[] canonical() {
        return canonical.clone();
    }

    /**
     * Frees the native state now; later calls throw {@link IllegalStateException}. Idempotent. A
     * {@link #parsed} seeker, which other filters share, is left as it is.
     */
    @Override
    public void close() {
        if (shared) {
            return;
        }
        skip.close();
        predicate.close();
    }

    @Override
    public String toString() {
        return predicate.toString();
    }

    // ---- natives (src/jni/key_seeker.rs) ----
    static {
        RowKeyNative.ensureLoaded();
    }

    /** Parses and compiles a serialized {@code SkipScanFilterSpec}; returns its handle. */
    static native long nativeParse(byte[] spec);

    /** The canonical serialized {@code SkipScanFilterSpec}: equal filters give equal bytes. */
    static native byte[] nativeCanonical(long filter);

    /**
     * A comparator handle ({@link RowKeyNative}'s {@code comparator*} calls) of the filter's
     * predicate, a copy of the one the filter compiled: not parsed and compiled again.
     */
    static native long nativeComparator(long filter);

    /** The salt buckets the scan reads: 32 bytes, bit {@code b % 8} of byte {@code b / 8}; all for an unsalted schema. */
    static native byte[] nativeSaltSet(long skip);

    /**
     * How many leading bytes decide a match: keys of the schema's length sharing them all match or
     * all fail.
     */
    static native int nativeDecidingPrefix(long skip);

    /**
     * The smallest key that can match strictly after row[offset, offset + length) (the largest
     * strictly before it when {@code reversed}), written into {@code out[0, key length)}: returns
     * the key length, or -1 when there is none. The caller checks the bounds and that {@code out}
     * holds a key (the native side stays defined: an exception otherwise). No allocation, no
     * {@code Env} upgrade: it runs once per skipped run of rows.
     */
    static native int nativeSeekInto(long skip, byte[] row, int offset, int length, boolean reversed, byte[] out);

    static native void nativeFree(long skip);
}
