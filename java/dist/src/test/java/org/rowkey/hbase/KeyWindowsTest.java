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
     * A read primed with what an earlier read of the same keys found cuts its first window from that
     * read's last one, scaled to hold the rows this read wants and half as many more: no sample
     * first, and no round trip's worth of rows on top as a window sized by a sample aims at.
     */
    @Test
    void aDensityFoundEarlierSizesTheFirstWindowForTheRowsWantedAndAMargin() {
        byte[] top = new byte[37];
        top[0] = (byte) 0x80;
        KeyWindows earlier = new KeyWindows();
        earlier.sampled(new byte[0], new byte[] {1}, 4, 1000, 10, 0); // 4 matches among the first 1,000 rows
        earlier.bottom(new byte[0], top); // 8/256 of the key space: 32 rows at that density
        earlier.held(8, 250, 10, 0); // the window held 8 rows among 250
        assertEquals(0x60, earlier.bottom(new byte[0], top)[0] & 0xff, "its next window aims at 32: 32/256");

        KeyWindows primed = new KeyWindows();
        primed.prime(earlier.measured(), 10);
        assertTrue(primed.sized());
        assertEquals(15, KeyWindows.primedAim(10));
        assertEquals(0x80 - 15, primed.bottom(new byte[0], top)[0] & 0xff, "15 rows at 8 a 8/256: 15/256");
        assertEquals(Math.round(250 * 15 / 8.0), earlier.measured().looksFor(10));
        KeyWindows more = new KeyWindows();
        more.prime(earlier.measured(), 32); // 32 + 16 rows: 48/256
        assertEquals(0x80 - 48, more.bottom(new byte[0], top)[0] & 0xff);
        KeyWindows none = new KeyWindows();
        none.prime(new KeyWindows.Density(earlier.measured().width, 37, 0, 250), 10); // none held: 8 times as wide
        assertEquals(0x80 - 64, none.bottom(new byte[0], top)[0] & 0xff);
    }

    private static byte[] key(Random random) {
        byte[] key = new byte[1 + random.nextInt(12)];
        random.nextBytes(key);
        return key;
    }
}
