package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;

/**
 * The load test's chaos: on a schedule, a region of the data table or of an index table split, a
 * region moved to another RegionServer, and a RegionServer killed with kill -9 and started again
 * (then the balancer run, as an operator would, so that it gets regions back). Beside it a monitor
 * ({@link #watch}) notices any server process that died without being asked to: an unplanned
 * death, reported with the line of its log that says why, and the RegionServer started again so
 * the run goes on.
 */
final class MixChaos implements Runnable {
    /** One thing that happened to the cluster, for the report. */
    static final class Event {
        final long atMillis;
        final String action;
        final String detail;
        final double seconds;
        final boolean failed;

        Event(long atMillis, String action, String detail, double seconds, boolean failed) {
            this.atMillis = atMillis;
            this.action = action;
            this.detail = detail;
            this.seconds = seconds;
            this.failed = failed;
        }
    }

    private final Connection connection;
    private final TableName dataTable;
    private final ClusterProcesses cluster;
    private final Path logs;
    private final MixStats stats;
    private final AtomicBoolean stop;
    private final long splitEveryMillis;
    private final long moveEveryMillis;
    private final long restartEveryMillis;
    private final SplittableRandom random;
    private final List<Event> events = new ArrayList<>();
    /** Held while a RegionServer is killed and started, by the schedule or after an unplanned death. */
    private final Object restarting = new Object();
    private int nextRestart = 1;
    private int unplannedDeaths;

    MixChaos(Connection connection, TableName dataTable, ClusterProcesses cluster, Path logs, MixStats stats, AtomicBoolean stop,
            long splitEveryMillis, long moveEveryMillis, long restartEveryMillis, long seed) {
        this.connection = connection;
        this.dataTable = dataTable;
        this.cluster = cluster;
        this.logs = logs;
        this.stats = stats;
        this.stop = stop;
        this.splitEveryMillis = splitEveryMillis;
        this.moveEveryMillis = moveEveryMillis;
        this.restartEveryMillis = restartEveryMillis;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void run() {
        long nextSplit = splitEveryMillis > 0 ? splitEveryMillis : Long.MAX_VALUE;
        long nextMove = moveEveryMillis > 0 ? moveEveryMillis : Long.MAX_VALUE;
        long nextRestartAt = restartEveryMillis > 0 && cluster != null ? restartEveryMillis : Long.MAX_VALUE;
        while (!stop.get()) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            long now = stats.nowMillis();
            if (now >= nextRestartAt) {
                restartOnSchedule();
                nextRestartAt = stats.nowMillis() + restartEveryMillis;
            } else if (now >= nextSplit) {
                timed("split", this::split);
                nextSplit = stats.nowMillis() + splitEveryMillis;
            } else if (now >= nextMove) {
                timed("move", this::move);
                nextMove = stats.nowMillis() + moveEveryMillis;
            }
        }
    }

    private interface Action {
        String run() throws Exception;
    }

    private void timed(String action, Action a) {
        long at = stats.nowMillis();
        long start = System.nanoTime();
        try {
            String detail = a.run();
            record(new Event(at, action, detail, (System.nanoTime() - start) / 1e9, false));
        } catch (Exception e) {
            stats.countError("chaos " + action, e);
            record(new Event(at, action, "FAILED: " + MixStats.errorKind(e), (System.nanoTime() - start) / 1e9, true));
        }
    }

    private void record(Event e) {
        synchronized (events) {
            events.add(e);
        }
        System.out.printf(Locale.ROOT, "[%s] chaos: %s %s (%.1f s)%n", LoadMix.clock(e.atMillis), e.action, e.detail, e.seconds);
    }

    /** The data table and its index tables: what the chaos splits and moves. */
    private List<TableName> tables(Admin admin) throws IOException {
        List<TableName> tables = new ArrayList<>(Demo.indexTables(admin, dataTable));
        tables.add(dataTable);
        return tables;
    }

    /**
     * Splits a random region of a random table where HBase chooses (the middle of its largest
     * file). A region whose rows are all in memory has no such point yet: it is flushed and asked
     * again; one that moved or split since it was listed is not served where it was: another is
     * drawn. Three tries.
     */
    private String split() throws Exception {
        try (Admin admin = connection.getAdmin()) {
            Exception last = null;
            for (int attempt = 1; attempt <= 3; attempt++) {
                List<TableName> tables = tables(admin);
                TableName table = tables.get(random.nextInt(tables.size()));
                List<RegionInfo> regions = admin.getRegions(table);
                RegionInfo region = regions.get(random.nextInt(regions.size()));
                try {
                    if (last != null) {
                        admin.flushRegion(region.getRegionName());
                    }
                    admin.splitRegionAsync(region.getRegionName()).get(120, TimeUnit.SECONDS);
                    return region.getRegionNameAsString() + " (" + table + ", " + regions.size() + " regions before"
                            + (last == null ? "" : "; try " + attempt + ", after " + MixStats.errorKind(last)) + ")";
                } catch (Exception e) {
                    last = e;
                }
            }
            throw last;
        }
    }

    /** Moves a random region of a random table to another live RegionServer. */
    private String move() throws Exception {
        try (Admin admin = connection.getAdmin()) {
            List<TableName> tables = tables(admin);
            TableName table = tables.get(random.nextInt(tables.size()));
            List<RegionInfo> regions = admin.getRegions(table);
            RegionInfo region = regions.get(random.nextInt(regions.size()));
            ServerName from;
            try (RegionLocator locator = connection.getRegionLocator(table)) {
                from = locator.getRegionLocation(region.getStartKey(), true).getServerName();
            }
            List<ServerName> others = new ArrayList<>(admin.getRegionServers());
            others.removeIf(s -> s.getAddress().equals(from.getAddress()));
            if (others.isEmpty()) {
                return "nothing: one RegionServer is live";
            }
            ServerName to = others.get(random.nextInt(others.size()));
            admin.move(region.getEncodedNameAsBytes(), to);
            return region.getEncodedName() + " of " + table + " from " + from.getAddress() + " to " + to.getAddress();
        }
    }

    /** kill -9 of the next RegionServer in turn and its start, then a balancer run. */
    private void restartOnSchedule() {
        timed("restart", () -> {
            List<ClusterProcesses.Process> servers = cluster.regionServers();
            int number = servers.get((nextRestart++ - 1) % servers.size()).number;
            String said;
            synchronized (restarting) {
                said = cluster.restartRegionServer(number);
            }
            return "RS" + number + ": " + said.replace('\n', ' ') + "; " + balance();
        });
    }

    /**
     * Runs the balancer, which refuses while regions are in transition (the dead server's, being
     * reassigned): tried again for up to a minute.
     */
    private String balance() throws IOException, InterruptedException {
        long start = System.nanoTime();
        try (Admin admin = connection.getAdmin()) {
            for (int attempt = 1; attempt <= 20; attempt++) {
                if (admin.balance()) {
                    return String.format(Locale.ROOT, "balancer ran (after %.0f s)", (System.nanoTime() - start) / 1e9);
                }
                Thread.sleep(3_000);
            }
        }
        return "the balancer did not run in a minute (regions still in transition, or already balanced)";
    }

    /**
     * The monitor's check: every server process that is not alive and was not being restarted
     * counts as an unplanned death, reported with its log's reason; a RegionServer is started again.
     * Returns the processes as listed (after any such restart, the listing before it).
     */
    List<ClusterProcesses.Process> watch() throws IOException {
        // Listed while no restart runs: a process the schedule is restarting is not taken for dead.
        synchronized (restarting) {
            List<ClusterProcesses.Process> processes = cluster.processes();
            for (ClusterProcesses.Process p : processes) {
                if (p.alive()) {
                    continue;
                }
                long at = stats.nowMillis();
                String why = deathReason(p);
                synchronized (events) {
                    unplannedDeaths++;
                }
                if (!p.isRegionServer()) {
                    record(new Event(at, "UNPLANNED DEATH", p.name() + " (pid " + p.pid + "): " + why + "; not restarted", 0, true));
                    continue;
                }
                long start = System.nanoTime();
                String restarted;
                try {
                    restarted = cluster.restartRegionServer(p.number).replace('\n', ' ');
                } catch (IOException e) {
                    restarted = "restart FAILED: " + MixStats.errorKind(e);
                }
                record(new Event(at, "UNPLANNED DEATH", p.name() + " (pid " + p.pid + "): " + why + "; " + restarted,
                        (System.nanoTime() - start) / 1e9, true));
            }
            return processes;
        }
    }

    /** The first line of the process's newest log that says why it stopped, or that none does. */
    private String deathReason(ClusterProcesses.Process p) {
        String prefix = p.isRegionServer() ? "rs-" + p.number : p.role;
        try (Stream<Path> files = Files.list(logs)) {
            Path newest = files.filter(f -> f.getFileName().toString().startsWith(prefix + ".") && f.toString().endsWith(".log"))
                    .max((a, b) -> Long.compare(a.toFile().lastModified(), b.toFile().lastModified())).orElse(null);
            if (newest == null) {
                return "no log found in " + logs;
            }
            try (Stream<String> lines = Files.lines(newest)) {
                return lines.filter(l -> l.contains("ABORTING") || l.contains("FATAL") || l.contains("OutOfMemoryError")
                        || l.contains("exiting")).findFirst().map(l -> l.length() > 300 ? l.substring(0, 300) : l)
                        .orElse("its log " + newest.getFileName() + " says nothing of it (killed from outside?)");
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return "its log could not be read: " + e.getMessage();
        }
    }

    List<Event> events() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    int unplannedDeaths() {
        synchronized (events) {
            return unplannedDeaths;
        }
    }
}
