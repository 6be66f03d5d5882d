package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The windows of a descending read: each strictly below its top, never below the start, reaching it in the end. */
class KeyWindowsTest {
    /**
     * Rows spread evenly over random ranges, any number of them, some of them kept by the read's
     * filter: each window lies below its top and at or above the start, and the windows reach the start.
     */
    @Test
    void windowsStepDownToTheStartWhateverTheRowsTheyHold() {
        Random random = new Random(20261127);
        for (int trial = 0; trial < 2000; trial++) {
            byte[] start = random.nextInt(4) == 0 ? new byte[0] : key(random);
            byte[] top = random.nextInt(4) == 0 ? new byte[0] : key(random);
            if (top.length > 0 && Bytes.compareTo(top, start) <= 0) {
                continue;
            }
            double rows = Math.pow(10, 6 * random.nextDouble()); // rows in the range
            double kept = random.nextDouble(); // the share the filter keeps
            int budget = random.nextBoolean() ? 0 : 256;
            double from = fraction(start, false);
            double span = fraction(top, true) - from;
            KeyWindows windows = new KeyWindows();
            for (int step = 0; ; step++) {
                byte[] bottom = windows.bottom(start, top);
                assertTrue(Bytes.compareTo(bottom, start) >= 0, "below the start");
                assertTrue(top.length == 0 || Bytes.compareTo(bottom, top) < 0, "not below its top");
                if (Bytes.equals(bottom, start)) {
                    break;
                }
                // A window aims at twice the 1,024 rows wanted, looking at no more than the budget.
                assertTrue(step < 100 + 4 * rows / (budget > 0 ? budget : 2048), "still short of the start after " + step + " windows");
                long looked = span <= 0 ? 0 : Math.round(rows * (fraction(top, true) - fraction(bottom, false)) / span);
                windows.held(Math.round(looked * kept), looked, 1024, budget);
                top = bottom;
            }
        }
    }

    /** A key's place in the key space, 0 to 1, from its first bytes; an empty key is its end when {@code top}, else its start. */
    private static double fraction(byte[] key, boolean top) {
        if (key.length == 0) {
            return top ? 1 : 0;
        }
        double f = 0;
        double unit = 1;
        for (int i = 0; i < Math.min(6, key.length); i++) {
            unit /= 256;
            f += (key[i] & 0xff) * unit;
        }
        return f;
    }

    @Test
    void anEmptyTopIsTheEndOfTheTableAndAnEmptyStartItsBeginning() {
        KeyWindows windows = new KeyWindows();
        byte[] bottom = windows.bottom(new byte[0], new byte[0]);
        assertArrayEquals(new byte[] {(byte) 0xff}, bottom); // a 65,536th of one byte's keys rounds up to 1: 0x100 - 1
        windows.held(0, 0, 10, 0);
        assertTrue(Bytes.compareTo(windows.bottom(new byte[0], bottom), bottom) < 0);
    }

    /** A full scan's range has empty ends: the width a sample of its 37-byte keys gave is of 37-byte keys still. */
    @Test
    void aSampleOfLongKeysSizesTheWindowsOfARangeWithEmptyEnds() {
        KeyWindows windows = new KeyWindows();
        byte[] through = new byte[37];
        through[0] = 2; // the sample's rows reach 2/256 of the key space
        windows.sampled(new byte[0], through, KeyWindows.LEAST_AIM, 1000, 10, 0); // as many rows as a window aims at
        byte[] bottom = windows.bottom(new byte[0], new byte[0]);
        assertEquals(37, bottom.length);
        assertEquals((byte) 0xfe, bottom[0], "the top 2/256 of the key space, not the whole table");
    }

    /**
     * A read primed with what an earlier read of the same keys found cuts its first window as that
     * read would have cut its next one, for the rows this read wants: no sample first.
     */
    @Test
    void aDensityFoundEarlierSizesTheFirstWindowAsTheNextWindowOfThatRead() {
        byte[] top = new byte[37];
        top[0] = (byte) 0x80;
        KeyWindows earlier = new KeyWindows();
        earlier.sampled(new byte[0], new byte[] {1}, 4, 1000, 10, 0); // 4 matches among the first 1,000 rows
        earlier.bottom(new byte[0], top);
        earlier.held(KeyWindows.LEAST_AIM / 4, 250, 10, 0); // the window held a quarter of what it aimed at
        byte[] next = earlier.bottom(new byte[0], top);
        assertEquals(0x60, next[0] & 0xff, "a window four times as wide: 32/256 of the key space");

        KeyWindows primed = new KeyWindows();
        primed.prime(earlier.measured(), 10);
        assertTrue(primed.sized());
        assertArrayEquals(next, primed.bottom(new byte[0], top));
        // Scaled as a window is: four times the width for a quarter of the aim, about four times the rows looked.
        assertEquals(1000, earlier.measured().looksFor(10));
        // More rows wanted, a wider window: twice the aim (64 rows past the least), twice the width.
        KeyWindows more = new KeyWindows();
        more.prime(earlier.measured(), KeyWindows.LEAST_AIM);
        assertTrue(Bytes.compareTo(more.bottom(new byte[0], top), next) < 0);
    }

    private static byte[] key(Random random) {
        byte[] key = new byte[1 + random.nextInt(12)];
        random.nextBytes(key);
        return key;
    }
}
