package org.rowkey.hbase.demo;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What makes the load test's oracle sound while writes go on: the table is cut into stripes by
 * {@code sdate} (31 days; a row's key holds its day, so a write never moves a row to another day).
 * Every write, bulk loads included, holds its day's lock shared for the whole client call; a check
 * holds the days its question reads exclusively, so while it compares an answer with the data
 * table no write of ours to those days is in flight, and writes to the other days go on.
 *
 * <p>The locks are fair: a check waiting for a day keeps new writes off it, and writers try a day
 * without waiting ({@code tryLock(0, ...)}, which honours fairness) and move on to another when it
 * is held, so they are not paused by a check unless it holds every day.
 */
final class DayLocks {
    private final ReentrantReadWriteLock[] days = new ReentrantReadWriteLock[DataSet.DAYS];
    /** Nanoseconds writers spent finding every day held (a check of the whole table). */
    private final LongAdder writerWaitNanos = new LongAdder();

    DayLocks() {
        for (int d = 0; d < days.length; d++) {
            days[d] = new ReentrantReadWriteLock(true);
        }
    }

    /**
     * Takes some day's lock shared, trying {@code preferred} first and then the following days;
     * waits while every day is held. Returns the day (0..30) to write; the caller writes only rows
     * of that day and calls {@link #releaseWrite}.
     */
    int acquireWrite(int preferred) throws InterruptedException {
        long start = System.nanoTime();
        try {
            while (true) {
                for (int i = 0; i < days.length; i++) {
                    int d = (preferred + i) % days.length;
                    if (days[d].readLock().tryLock(0, TimeUnit.MILLISECONDS)) {
                        return d;
                    }
                }
                Thread.sleep(20);
            }
        } finally {
            writerWaitNanos.add(System.nanoTime() - start);
        }
    }

    /** Takes exactly {@code day}'s lock shared, waiting if it is held (a bulk load of that day). */
    void acquireWriteOf(int day) throws InterruptedException {
        days[day].readLock().lockInterruptibly();
    }

    void releaseWrite(int day) {
        days[day].readLock().unlock();
    }

    /**
     * Takes {@code wanted} days exclusively, in ascending order (one checker thread: no deadlock),
     * each within {@code timeoutMillis}; false (and nothing held) if one was not free in time, e.g.
     * held by a bulk load.
     */
    boolean acquireCheck(int[] wanted, long timeoutMillis) throws InterruptedException {
        int[] sorted = wanted.clone();
        java.util.Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            if (!days[sorted[i]].writeLock().tryLock(timeoutMillis, TimeUnit.MILLISECONDS)) {
                for (int j = 0; j < i; j++) {
                    days[sorted[j]].writeLock().unlock();
                }
                return false;
            }
        }
        return true;
    }

    void releaseCheck(int[] held) {
        for (int d : held) {
            days[d].writeLock().unlock();
        }
    }

    static int[] allDays() {
        int[] all = new int[DataSet.DAYS];
        for (int d = 0; d < all.length; d++) {
            all[d] = d;
        }
        return all;
    }

    static int randomDay(SplittableRandom random) {
        return random.nextInt(DataSet.DAYS);
    }

    /** Seconds writers spent waiting because every day was held. */
    double writerWaitSeconds() {
        return writerWaitNanos.sum() / 1e9;
    }
}
