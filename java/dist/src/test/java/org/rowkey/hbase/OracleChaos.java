package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.hadoop.hbase.Abortable;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.testing.TestingHBaseCluster;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Region operations on the round's tables (data and index): a split at a random key, a merge of two
 * neighbours, a move to another RegionServer; in the foreground between queries or from a
 * background thread while queries run; and a RegionServer aborted, its regions reassigned, and a new
 * one started. Operations HBase refuses (a region with references just after a split, one in
 * transition) are logged and skipped: they are not faults of the product.
 */
final class OracleChaos {
    private final TestingHBaseCluster cluster;
    private final Connection connection;
    private final OracleEvents events;
    private volatile TableName dataTable;
    private volatile Supplier<List<TableName>> indexTables = ArrayList::new;
    private volatile Supplier<byte[]> dataSplitKey;
    /**
     * Regions moved this round (encoded names): each moves once. A region moved to a server and back
     * leaves each server saying it moved to the other; once it splits, HBase 2.6's client follows those
     * RegionMovedExceptions back and forth for the two minutes the servers remember them, instead of
     * looking the row up again (seen here: a plain scan stuck 137 s), which is HBase's, not ours.
     */
    private final java.util.Set<String> moved = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private Thread background;
    private volatile boolean stopping;
    /** When the background thread is to abort a RegionServer (System.nanoTime()); MAX_VALUE: never. */
    private volatile long abortAtNanos = Long.MAX_VALUE;
    private volatile Throwable abortFailure;

    OracleChaos(TestingHBaseCluster cluster, Connection connection, OracleEvents events) {
        this.cluster = cluster;
        this.connection = connection;
        this.events = events;
    }

    /** The round's tables and where to split the data table (keys near its rows). */
    void target(TableName data, Supplier<List<TableName>> indexes, Supplier<byte[]> splitKey) {
        this.dataTable = data;
        this.indexTables = indexes;
        this.dataSplitKey = splitKey;
        this.moved.clear();
    }

    /** One random split, merge or move of a region of the data table (mostly) or an index table. */
    void randomOperation(Random random) {
        List<TableName> indexes = indexTables.get();
        boolean onIndex = !indexes.isEmpty() && random.nextInt(4) == 0;
        TableName table = onIndex ? indexes.get(random.nextInt(indexes.size())) : dataTable;
        try (Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(table) || !admin.isTableEnabled(table)) {
                return;
            }
            int op = random.nextInt(10);
            if (op < 4) {
                split(admin, table, onIndex ? indexSplitKey(table, random) : dataSplitKey.get());
            } else if (op < 6) {
                merge(admin, table, random);
            } else {
                move(admin, table, random);
            }
        } catch (IOException | RuntimeException e) {
            events.add("region operation on " + table + " not done: " + oneLine(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void split(Admin admin, TableName table, byte[] key) throws IOException, InterruptedException {
        if (key == null || key.length == 0) {
            return;
        }
        int before = admin.getRegions(table).size();
        admin.split(table, key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (admin.getRegions(table).size() <= before && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        boolean done = admin.getRegions(table).size() > before;
        if (done) {
            events.fault("split " + table + " at " + Bytes.toStringBinary(key) + " -> " + admin.getRegions(table).size() + " regions");
        } else {
            events.add("split " + table + " at " + Bytes.toStringBinary(key) + " not done in 15 s");
        }
    }

    private void merge(Admin admin, TableName table, Random random) throws IOException, InterruptedException {
        List<RegionInfo> regions = new ArrayList<>(admin.getRegions(table));
        if (regions.size() < 2) {
            return;
        }
        regions.sort(Comparator.comparing(RegionInfo::getStartKey, Bytes.BYTES_COMPARATOR));
        int i = random.nextInt(regions.size() - 1);
        RegionInfo a = regions.get(i);
        RegionInfo b = regions.get(i + 1);
        try {
            admin.mergeRegionsAsync(new byte[][] {a.getEncodedNameAsBytes(), b.getEncodedNameAsBytes()}, false)
                    .get(30, TimeUnit.SECONDS);
            events.fault("merged " + table + " regions at " + Bytes.toStringBinary(a.getStartKey()) + " and "
                    + Bytes.toStringBinary(b.getStartKey()) + " -> " + admin.getRegions(table).size() + " regions");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            events.add("merge of " + table + " at " + Bytes.toStringBinary(b.getStartKey()) + " not done: " + oneLine(e));
        }
    }

    private void move(Admin admin, TableName table, Random random) throws IOException {
        List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
        List<HRegionLocation> locations;
        try (org.apache.hadoop.hbase.client.RegionLocator locator = connection.getRegionLocator(table)) {
            locations = locator.getAllRegionLocations();
        }
        locations.removeIf(l -> moved.contains(l.getRegion().getEncodedName()));
        if (servers.size() < 2 || locations.isEmpty()) {
            return;
        }
        HRegionLocation at = locations.get(random.nextInt(locations.size()));
        moved.add(at.getRegion().getEncodedName());
        servers.remove(at.getServerName());
        ServerName to = servers.get(random.nextInt(servers.size()));
        admin.move(at.getRegion().getEncodedNameAsBytes(), to);
        events.fault("moved " + table + " region at " + Bytes.toStringBinary(at.getRegion().getStartKey()) + " to " + to);
    }

    /** A key of a row of an index table (a plain scan from a random point), to split it there. */
    private byte[] indexSplitKey(TableName table, Random random) throws IOException {
        byte[] from = new byte[1 + random.nextInt(3)];
        random.nextBytes(from);
        Scan scan = new Scan().withStartRow(from).setLimit(1).setFilter(new org.apache.hadoop.hbase.filter.FilterList(
                new FirstKeyOnlyFilter(), new KeyOnlyFilter()));
        try (Table t = connection.getTable(table); ResultScanner s = t.getScanner(scan)) {
            Result r = s.next();
            return r == null ? null : r.getRow();
        }
    }

    /**
     * Region operations from a background thread, one every 0.2 to 1.2 s, until {@link #stop}; with
     * {@code abortAfterMillis} >= 0, a RegionServer abort and restart that long after the start.
     */
    void startBackground(long seed, long abortAfterMillis) {
        stopping = false;
        abortAtNanos = abortAfterMillis < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(abortAfterMillis);
        Random random = new Random(seed);
        background = new Thread(() -> {
            while (!stopping) {
                try {
                    Thread.sleep(200 + random.nextInt(1000));
                } catch (InterruptedException e) {
                    return;
                }
                if (System.nanoTime() >= abortAtNanos) {
                    abortAtNanos = Long.MAX_VALUE;
                    try {
                        abortAndRestart(random);
                    } catch (Throwable e) {
                        abortFailure = e;
                        events.add("the abort and restart failed: " + oneLine(e));
                    }
                } else if (!stopping) {
                    randomOperation(random);
                }
            }
        }, "oracle-chaos");
        background.setDaemon(true);
        background.start();
    }

    /** Stops the background thread, after the abort it was to do if it has not yet. */
    void stop() throws InterruptedException {
        while (background != null && abortAtNanos != Long.MAX_VALUE && background.isAlive()) {
            Thread.sleep(100);
        }
        stopping = true;
        if (background != null) {
            background.join(TimeUnit.MINUTES.toMillis(4));
            background = null;
        }
    }

    /** Why the last abort and restart failed (the cluster did not recover), or null. */
    Throwable takeAbortFailure() {
        Throwable e = abortFailure;
        abortFailure = null;
        return e;
    }

    /**
     * Aborts a RegionServer (as a crash: no region is closed cleanly), waits until the master has
     * reassigned its regions, then starts a new RegionServer: the cluster has two again.
     */
    void abortAndRestart(Random random) throws Exception {
        List<ServerName> live;
        try (Admin admin = connection.getAdmin()) {
            live = new ArrayList<>(admin.getRegionServers());
        }
        live.sort(Comparator.comparing(ServerName::toString));
        ServerName victim = live.get(random.nextInt(live.size()));
        events.fault("abort RegionServer " + victim);
        ((Abortable) cluster.getOnlineRegionsInterface(victim)
                .orElseThrow(() -> new IllegalStateException("no RegionServer object for " + victim)))
                .abort("OracleIT: a RegionServer crash", null);
        waitForReassignment(connection, victim);
        events.add("regions of " + victim + " reassigned; starting a new RegionServer");
        cluster.startRegionServer();
        waitFor(120, "two RegionServers", () -> {
            try (Admin admin = connection.getAdmin()) {
                return admin.getRegionServers().size() >= 2;
            }
        });
        events.add("RegionServer restarted: " + live.size() + " live again");
    }

    /** Waits until the master has dropped an aborted RegionServer and reopened its regions elsewhere. */
    static void waitForReassignment(Connection connection, ServerName victim) throws Exception {
        waitFor(180, "the regions of " + victim + " reassigned", () -> {
            try (Admin admin = connection.getAdmin()) {
                return !admin.getRegionServers().contains(victim)
                        && admin.getClusterMetrics().getRegionStatesInTransition().isEmpty();
            }
        });
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void waitFor(long seconds, String what, Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(200);
        }
    }

    static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getClass().getSimpleName() + ": " + root.getMessage();
        m = m.replace('\n', ' ');
        return m.length() > 300 ? m.substring(0, 300) + "..." : m;
    }
}
