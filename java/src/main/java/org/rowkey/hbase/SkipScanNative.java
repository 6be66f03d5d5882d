package org.rowkey.hbase;

/**
 * The native side of {@link SkipScanFilter} (Rust module {@code src/jni/skip_scan.rs}). Handles
 * are owned by {@link NativeHandle}; errors arrive as {@link IllegalArgumentException} (bad input)
 * or {@link IllegalStateException} (a bug in the native core).
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class SkipScanNative {
    private SkipScanNative() {}

    static {
        RowKeyNative.ensureLoaded();
    }

    /** Parses and compiles a serialized {@code SkipScanFilterSpec}; returns its handle. */
    static native long parse(byte[] spec);

    /** The canonical serialized {@code SkipScanFilterSpec}: equal filters give equal bytes. */
    static native byte[] canonical(long filter);

    /**
     * A comparator handle ({@link RowKeyNative}'s {@code comparator*} calls) of the filter's
     * predicate, a copy of the one the filter compiled: not parsed and compiled again.
     */
    static native long comparator(long filter);

    /** The salt buckets the scan reads: 32 bytes, bit {@code b % 8} of byte {@code b / 8}; all for an unsalted schema. */
    static native byte[] saltSet(long skip);

    /**
     * How many leading bytes decide a match: keys of the schema's length sharing them all match or
     * all fail.
     */
    static native int decidingPrefix(long skip);

    /**
     * The smallest key that can match strictly after row[offset, offset + length) (the largest
     * strictly before it when {@code reversed}), written into {@code out[0, key length)}: returns
     * the key length, or -1 when there is none. The caller checks the bounds and that {@code out}
     * holds a key (the native side stays defined: an exception otherwise). No allocation, no
     * {@code Env} upgrade: it runs once per skipped run of rows.
     */
    static native int seekInto(long skip, byte[] row, int offset, int length, boolean reversed, byte[] out);

    static native void free(long skip);
}
