package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CompoundConfiguration;
import org.junit.jupiter.api.Test;

/** {@link RowKeyIndexObserver}'s own connection settings, without a cluster. */
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
}
