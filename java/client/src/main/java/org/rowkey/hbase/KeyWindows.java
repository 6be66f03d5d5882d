package org.rowkey.hbase;

import java.math.BigInteger;

/**
 * The windows a descending read cuts its key range into, from the top down (each read forward:
 * {@link TableKeyRangeReader}): a window is a width of the key space, keys taken as unsigned numbers
 * of one length (shorter keys padded with zeros, an empty top the end of the table). The first
 * width comes from a sample (so many rows from the range's start up to a key), or is a 65,536th of
 * the range; after each window the width is scaled by the rows it held against the rows aimed at
 * (twice those wanted, at least {@value #LEAST_AIM}: a round trip's worth), at most 16 times either
 * way, so a few windows find any density. Widths only decide the cost: windows partition the keys
 * whatever their sizes.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class KeyWindows {
    private static final int FIRST_SHIFT = 16;
    private static final double MOST = 16;
    static final int LEAST_AIM = 32;

    /** Null until the first window. */
    private BigInteger width;
    /** The length keys are taken at: the longest key seen (a width is of keys of this length). */
    private int length;
    /** What the last window read (or the sample) found: null before one. */
    private Density measured;

    /**
     * A width of the key space read (at keys of {@code length} bytes), the rows of the read's filter
     * it {@code held} and the rows it {@code looked} at: what the next read of the same keys starts
     * from ({@link DensityPriors}) in place of a sample.
     */
    static final class Density {
        final BigInteger width;
        final int length;
        final long held;
        final long looked;

        Density(BigInteger width, int length, long held, long looked) {
            this.width = width;
            this.length = length;
            this.held = held;
            this.looked = looked;
        }

        /** What this width is scaled by for a first window to hold {@code wanted} and a margin ({@link #primedAim}). */
        double scaleFor(int wanted) {
            return bounded(held > 0 ? (double) primedAim(wanted) / held : MOST / 2);
        }

        /** The rows that first window would look at, were the density unchanged. */
        long looksFor(int wanted) {
            return Math.round(looked * scaleFor(wanted));
        }
    }

    /**
     * Rows a first window sized from a density found earlier aims at: those wanted and half as many
     * more (at least 4), not a round trip's worth as a window sized by a sample: a limit's read
     * needing 11 rows looks at half the rows, and a window short of them reads one more.
     */
    static long primedAim(int wanted) {
        return wanted + Math.max(4, wanted / 2);
    }

    /**
     * The bottom of the next window below {@code top} (exclusive), {@code start} itself when the
     * window reaches the range's start (inclusive); always below {@code top}.
     */
    byte[] bottom(byte[] start, byte[] top) {
        lengthFor(start, top);
        BigInteger low = number(start, length);
        BigInteger high = top(top, length);
        if (width == null) {
            width = high.subtract(low).shiftRight(FIRST_SHIFT).max(BigInteger.ONE);
        }
        BigInteger bottom = high.subtract(width);
        return bottom.compareTo(low) <= 0 ? start : bytes(bottom, length);
    }

    /** Whether a window was read, a sample taken, or a density primed. */
    boolean sized() {
        return width != null;
    }

    /**
     * Sizes the first window from what an earlier read of the same keys found, in place of a
     * sample: its width scaled to hold {@code wanted} and a margin ({@link #primedAim}).
     */
    void prime(Density earlier, int wanted) {
        length = earlier.length;
        width = scaled(earlier.width, earlier.scaleFor(wanted));
    }

    /** What the last window read (or the sample) found; null before one. */
    Density measured() {
        return measured;
    }

    /**
     * {@code held} rows of the read's filter among {@code looked} from {@code start} up to
     * {@code through} (empty: the end of the table); {@code budget}: rows a read may look at (0: any).
     */
    void sampled(byte[] start, byte[] through, long held, long looked, int wanted, int budget) {
        lengthFor(start, through);
        BigInteger span = top(through, length).subtract(number(start, length));
        measured = new Density(span.max(BigInteger.ONE), length, held, looked);
        width = scaled(span, scale(MOST, held, looked, wanted, budget));
    }

    /**
     * A window read: {@code held} rows of the read's filter among {@code looked}, where {@code wanted}
     * were still wanted; {@code budget}: rows a read may look at (0: any).
     */
    void held(long held, long looked, int wanted, int budget) {
        measured = new Density(width, length, held, looked);
        width = scaled(width, bounded(scale(MOST, held, looked, wanted, budget)));
    }

    /** A window grows or shrinks at most {@value #MOST} times a read. */
    private static double bounded(double scale) {
        return Math.max(1 / MOST, Math.min(MOST, scale));
    }

    private static BigInteger scaled(BigInteger width, double scale) {
        return width.multiply(BigInteger.valueOf(Math.round(scale * 1024))).shiftRight(10).max(BigInteger.ONE);
    }

    /** Takes keys at the length of the longest seen, the width kept in proportion to the key space. */
    private void lengthFor(byte[] a, byte[] b) {
        int longest = Math.max(1, Math.max(length, Math.max(a.length, b.length)));
        if (width != null && longest > length) {
            width = width.shiftLeft(8 * (longest - length));
        }
        length = longest;
    }

    /**
     * What a width that held {@code held} rows among {@code looked} is scaled by to hold the rows
     * aimed at, and to look at no more than the budget; {@code none}: the scale when it held none.
     */
    private static double scale(double none, long held, long looked, int wanted, int budget) {
        // None held: a sparse filter, or no keys there at all.
        double scale = held > 0 ? (double) aim(wanted) / held : looked > 0 ? none / 2 : none;
        return budget > 0 && looked > 0 ? Math.min(scale, (double) budget / looked) : scale;
    }

    /** Rows a window aims at: twice those wanted (the next read tends to want more: batches double), at least a round trip's worth. */
    private static long aim(int wanted) {
        return Math.max(LEAST_AIM, 2L * wanted);
    }

    private static BigInteger top(byte[] key, int length) {
        return key.length == 0 ? BigInteger.ONE.shiftLeft(8 * length) : number(key, length);
    }

    private static BigInteger number(byte[] key, int length) {
        byte[] padded = new byte[length + 1]; // a leading zero: unsigned
        System.arraycopy(key, 0, padded, 1, Math.min(key.length, length));
        return new BigInteger(padded);
    }

    private static byte[] bytes(BigInteger n, int length) {
        byte[] raw = n.toByteArray(); // big-endian, perhaps with a leading sign byte, perhaps shorter
        byte[] out = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }
}
