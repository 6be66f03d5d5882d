package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompoundConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * {@link RowKeyIndexObserver}'s own connection settings, its index row layout and the time of its
 * index mutations, without a cluster.
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

    /** What {@code preBatchMutate} sees: HBase has given the cells sent without a timestamp the batch's time. */
    private static <M extends Mutation> M stampedByTheServer(M m, long batchTime) throws IOException {
        for (List<Cell> cells : m.getFamilyCellMap().values()) {
            for (Cell cell : cells) {
                CellUtil.updateLatestStamp(cell, batchTime);
            }
        }
        return m;
    }

    @Test
    void indexMutationsCarryTheTimestampsHBaseGaveTheDataCells() throws IOException {
        byte[] row = Bytes.toBytes("row");
        byte[] f = Bytes.toBytes("f");
        long batchTime = 1_700_000_000_123L;
        // Sent without a timestamp: the mutation's own stays LATEST_TIMESTAMP on the server, and an
        // index mutation at LATEST_TIMESTAMP would take the index server's clock instead.
        Put put = stampedByTheServer(new Put(row).addColumn(f, Bytes.toBytes("q"), Bytes.toBytes(1)), batchTime);
        assertEquals(HConstants.LATEST_TIMESTAMP, put.getTimestamp());
        assertEquals(batchTime, RowKeyIndexObserver.indexTimestamp(put));
        Delete delete = stampedByTheServer(new Delete(row).addFamily(f), batchTime);
        assertEquals(HConstants.LATEST_TIMESTAMP, delete.getTimestamp());
        assertEquals(batchTime, RowKeyIndexObserver.indexTimestamp(delete));
        // Cells of a client's timestamps: the newest of them, whatever the mutation's own says.
        Put older = stampedByTheServer(new Put(row, 20).addColumn(f, Bytes.toBytes("q"), 7, Bytes.toBytes(1))
                .addColumn(f, Bytes.toBytes("r"), 9, Bytes.toBytes(2)), batchTime);
        assertEquals(9, RowKeyIndexObserver.indexTimestamp(older));
        Delete deleteAt = stampedByTheServer(new Delete(row, 12).addFamily(f), batchTime);
        assertEquals(12, RowKeyIndexObserver.indexTimestamp(deleteAt));
    }
}
