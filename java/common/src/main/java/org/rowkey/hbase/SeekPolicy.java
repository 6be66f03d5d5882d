package org.rowkey.hbase;

import java.util.Arrays;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * When the skip-scan filter seeks, learned from the rows as they pass: the last next key and how
 * many failing rows fell short of it, and the adaptive state that decides whether the next
 * failing row seeks at once, waits for a second one, or stops asking for next keys for a while.
 * A seek costs HBase about as much as reading a row or two, so the policy seeks where runs of
 * failing rows prove long and behaves like a plain row filter where each row is a group of its
 * own. One instance per filter (per region scanner); not thread-safe.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
final class SeekPolicy {
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

    /** The last next key, while rows fall short of it; null when there is none to seek to. */
    private byte[] target;
    /** The failing row the next key was computed from. */
    private byte[] targetFrom;
    /** Failing rows short of the next key so far, the first included (each without a native call). */
    private int failedTowardsTarget;
    /** Next keys in a row that no second failing row shared (each cost a native call for nothing). */
    private int uselessTargets;
    /** Next keys in a row sought after two failing rows (runs are long here). */
    private int usefulTargets;
    /** Seeking from the first failing row; every {@code probeEvery}-th next key probes with two. */
    private boolean seekFirst;
    private boolean probing;
    private int targetsSinceProbe;
    /** Next keys between probes: {@link #PROBE_EVERY}, doubled by each probe that finds runs long. */
    private int probeEvery = PROBE_EVERY;
    /** Failing rows to move past without asking for the next key, and the current back-off. */
    private int rowsBeforeProbe;
    private int backoff;

    /** Whether rows are decided without next keys now, as a plain row filter decides them. */
    boolean backingOff() {
        return target == null && rowsBeforeProbe > 0;
    }

    /** A row failed while backing off. */
    void failedWhileBackingOff() {
        rowsBeforeProbe--;
    }

    /**
     * Sizes up the failing or unknown row {@code key[0, length)} against the last next key: returns
     * true when the row falls short of it (the row fails; no native call needed). A row that
     * reached it settles it as a next key no seek was needed for.
     */
    boolean shortOfTarget(byte[] key, int length, boolean reversed) {
        if (target == null) {
            return false;
        }
        if (isBefore(targetFrom, targetFrom.length, key, length, reversed) && isBefore(key, length, target, target.length, reversed)) {
            failedTowardsTarget++;
            return true;
        }
        settle(false);
        return false;
    }

    /**
     * A row failed beyond any next key: returns true when the filter should not ask for a next key
     * for it (backing off, or starting to, after a run of next keys that were never worth a seek).
     */
    boolean skipNextKey() {
        if (rowsBeforeProbe > 0) {
            rowsBeforeProbe--;
            return true;
        }
        if (uselessTargets >= (backoff > 0 ? 1 : USELESS_TARGETS)) {
            backoff = Math.min(MAX_BACKOFF_ROWS, Math.max(1, 2 * backoff));
            rowsBeforeProbe = backoff;
            uselessTargets = 0;
            return true;
        }
        return false;
    }

    /** The next key that can match, {@code next}, was computed from the failing row {@code from[0, length)}. */
    void target(byte[] next, byte[] from, int length) {
        target = next;
        targetFrom = Arrays.copyOf(from, length);
        failedTowardsTarget = 1;
        // In seek-first mode, every probeEvery-th next key waits for a second failing row, to see
        // whether runs are still long.
        probing = seekFirst && ++targetsSinceProbe >= probeEvery;
        if (probing) {
            targetsSinceProbe = 0;
        }
    }

    /**
     * The key to seek to now, or null to move on by one row: enough failing rows fell short of the
     * next key. A returned key is settled as sought.
     */
    byte[] seekNow() {
        if (target == null || failedTowardsTarget < (seekFirst && !probing ? 1 : SEEK_AFTER_FAILED_ROWS)) {
            return null;
        }
        byte[] seek = target;
        settle(true);
        return seek;
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

    /** Whether {@code a[0, aLength)} comes before {@code b[0, bLength)} in the scan's direction. */
    static boolean isBefore(byte[] a, int aLength, byte[] b, int bLength, boolean reversed) {
        int order = Bytes.compareTo(a, 0, aLength, b, 0, bLength);
        return reversed ? order > 0 : order < 0;
    }
}
