package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.Collection;

import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/**
 * Rows read by the RegionServers, counted where both sides can be counted alike: the regions'
 * own read counters, summed over the tables a query touches (Phoenix's data and index tables,
 * or ours). {@link Admin#getRegionMetrics(ServerName, TableName)} asks each RegionServer
 * directly, so the figures are live, not the master's last heartbeat. A region's rows read =
 * its read requests (rows it returned, Gets included) + its filtered read requests (rows its
 * filters dropped); the difference before and after a run is what the run read.
 */
final class RegionReads {
    private final Connection connection;

    RegionReads(Connection connection) {
        this.connection = connection;
    }

    /** Rows read so far by every region of {@code tables} on every RegionServer. */
    long total(Collection<TableName> tables) throws IOException {
        long sum = 0;
        try (Admin admin = connection.getAdmin()) {
            for (ServerName server : admin.getRegionServers()) {
                for (TableName table : tables) {
                    for (RegionMetrics region : admin.getRegionMetrics(server, table)) {
                        sum += region.getReadRequestCount() + region.getFilteredReadRequestCount();
                    }
                }
            }
        }
        return sum;
    }
}
