package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompoundConfiguration;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** {@link RowKeyIndexObserver}'s own connection settings and its index row layout, without a cluster. */
class RowKeyIndexObserverTest {
    @Test
    void theIndexWritersConnectionKeepsTheServersSettings() {
        // A region's configuration is a CompoundConfiguration (HBase 2.4 hands it over as is):
        // copying it with new Configuration(c) kept none of its values, ZooKeeper's port included.
        Configuration server = new Configuration(false);
        server.set("hbase.zookeeper.quorum", "127.0.0.1");
        server.set("hbase.zookeeper.property.clientPort", "43113");
        CompoundConfiguration region = new CompoundConfiguration().add(server);
        Configuration conf = RowKeyIndexObserver.indexWriterConf(region);
        assertEquals("127.0.0.1", conf.get("hbase.zookeeper.quorum"));
        assertEquals("43113", conf.get("hbase.zookeeper.property.clientPort"));
        assertEquals(5, conf.getInt("hbase.client.retries.number", 0));
    }

    @Test
    void coveredQualifiersNeverMeetTheStatusOrEachOther() {
        // Every family:qualifier split of the same bytes, and families of 1 and 127 bytes.
        Set<String> seen = new HashSet<>();
        seen.add(Bytes.toHex(RowKeyIndexObserver.STATUS_QUALIFIER));
        String joined = "fqs";
        for (int cut = 1; cut <= joined.length(); cut++) {
            byte[] q = RowKeyIndexObserver.coveredQualifier(Bytes.toBytes(joined.substring(0, cut)),
                    Bytes.toBytes(joined.substring(cut)));
            assertTrue(q.length >= 2);
            assertTrue(seen.add(Bytes.toHex(q)), "a second column with qualifier " + Bytes.toHex(q));
        }
        byte[] longest = RowKeyIndexObserver.coveredQualifier(new byte[127], new byte[0]);
        assertEquals(127, longest[0]);
        assertFalse(seen.contains(Bytes.toHex(longest)));
    }
}
