package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompoundConfiguration;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@link RowKeyIndexObserver}'s own connection settings and the clock of its index writes, without
 * a cluster.
 */
class RowKeyIndexObserverTest {
    @Test
    void theIndexWritersConnectionKeepsTheServersSettings() {
        // A region's configuration is a CompoundConfiguration (HBase 2.4 hands it over as is):
        // copying it with new Configuration(c) kept none of its values, ZooKeeper's port included.
        Configuration server = new Configuration(false);
        server.set("hbase.zookeeper.quorum", "127.0.0.1");
        server.set("hbase.zookeeper.property.clientPort", "43113");
        CompoundConfiguration region = new CompoundConfiguration().add(server);
        Configuration conf = RowKeyIndexObserver.indexWriterConf(region, 4_000);
        assertEquals("127.0.0.1", conf.get("hbase.zookeeper.quorum"));
        assertEquals("43113", conf.get("hbase.zookeeper.property.clientPort"));
        assertEquals(5, conf.getInt("hbase.client.retries.number", 0));
        assertEquals(4_000, conf.getInt("hbase.client.operation.timeout", 0));
    }

    @Test
    void theIndexClockNeverRepeatsOrRunsBackwardsForARowAndKeepsToTheWallClock() throws InterruptedException {
        RowKeyIndexObserver.IndexClock clock = new RowKeyIndexObserver.IndexClock();
        java.nio.ByteBuffer row = java.nio.ByteBuffer.wrap(Bytes.toBytes("row"));
        long before = System.currentTimeMillis() * 1_000;
        long previous = clock.next(row);
        assertTrue(previous >= before);
        // Stamps as fast as they come: each later than the one before, and still at the wall clock.
        for (int i = 0; i < 100_000; i++) {
            long stamp = clock.next(row);
            assertTrue(stamp > previous, stamp + " after " + previous);
            previous = stamp;
        }
        long ahead = previous - RowKeyIndexObserver.IndexClock.nowMicros();
        assertTrue(ahead < 1_000_000, "100,000 stamps ran " + ahead + " us ahead of the wall clock");
        Thread.sleep(Math.max(0, ahead / 1_000) + 5);
        assertTrue(clock.next(row) >= System.currentTimeMillis() * 1_000 - 1_000);
        // Concurrent stamps of one row are all distinct.
        Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    assertTrue(seen.add(clock.next(row)));
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(40_000, seen.size());
    }
}
