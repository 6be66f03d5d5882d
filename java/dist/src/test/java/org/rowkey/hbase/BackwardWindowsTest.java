package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * A descending read's ranges below a top and cut to a window, against every one-byte key of random
 * sorted, disjoint ranges (the first may start at the table's start, the last run to its end).
 */
class BackwardWindowsTest {
    @Test
    void windowsCutTheRangesToExactlyTheirKeysAndTheTopNeverFallsInAGap() {
        Random random = new Random(20261127);
        for (int trial = 0; trial < 5000; trial++) {
            List<RowRange> ranges = ranges(random);
            byte[] top = random.nextInt(5) == 0 ? new byte[0] : new byte[] {(byte) random.nextInt(256)};
            byte[] below = BackwardWindows.topBelow(ranges, top);
            TreeSet<Integer> left = keys(ranges, 0, top.length == 0 ? 256 : top[0] & 0xff);
            if (left.isEmpty()) {
                assertNull(below, "no key below the top: " + ranges);
                continue;
            }
            int highest = left.last();
            // The top is just above a key of the ranges, or the end of the table after the last.
            int topKey = below.length == 0 ? 256 : below[0] & 0xff;
            assertEquals(highest + 1, below.length == 0 ? 256 : topKey, "topBelow of " + ranges + " under " + Bytes.toStringBinary(top));
            byte[] bottom = random.nextInt(4) == 0 ? new byte[0] : new byte[] {(byte) random.nextInt(highest + 1)};
            List<RowRange> window = BackwardWindows.cut(ranges, bottom, below);
            assertTrue(!window.isEmpty(), "a window below a topBelow holds keys");
            assertEquals(keys(ranges, bottom.length == 0 ? 0 : bottom[0] & 0xff, topKey), keys(window, 0, 256),
                    "cut of " + ranges + " to [" + Bytes.toStringBinary(bottom) + ", " + Bytes.toStringBinary(below) + ")");
        }
    }

    /** Up to 4 sorted, disjoint ranges of one-byte keys; an empty start or stop is the table's. */
    private static List<RowRange> ranges(Random random) {
        TreeSet<Integer> bounds = new TreeSet<>();
        int count = 1 + random.nextInt(4);
        while (bounds.size() < 2 * count) {
            bounds.add(random.nextInt(257));
        }
        List<RowRange> out = new ArrayList<>();
        Integer[] b = bounds.toArray(new Integer[0]);
        for (int i = 0; i < b.length; i += 2) {
            byte[] start = b[i] == 0 ? new byte[0] : new byte[] {(byte) (int) b[i]};
            byte[] stop = b[i + 1] == 256 ? new byte[0] : new byte[] {(byte) (int) b[i + 1]};
            out.add(new RowRange(start, true, stop, false));
        }
        return out;
    }

    /** The one-byte keys in [from, to) that {@code ranges} hold. */
    private static TreeSet<Integer> keys(List<RowRange> ranges, int from, int to) {
        TreeSet<Integer> out = new TreeSet<>();
        for (RowRange r : ranges) {
            int start = r.getStartRow().length == 0 ? 0 : r.getStartRow()[0] & 0xff;
            int stop = r.getStopRow().length == 0 ? 256 : r.getStopRow()[0] & 0xff;
            for (int k = Math.max(start, from); k < Math.min(stop, to); k++) {
                out.add(k);
            }
        }
        return out;
    }
}
