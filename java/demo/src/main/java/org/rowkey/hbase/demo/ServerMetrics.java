package org.rowkey.hbase.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the RegionServers say about themselves, sampled every few seconds: HBase's own metrics over
 * each RegionServer's HTTP {@code /jmx} (the IPC bean's handler times per call, the Server bean's
 * times per operation, the JVM's heap), and the process's resident set from
 * {@code /proc/<pid>/status}.
 *
 * <p>HBase's {@code *_max} figures are the largest value since the previous snapshot of the
 * histogram, and reading {@code /jmx} takes the snapshot (no metrics sink is configured): the
 * largest of the samples is the largest call of the run, except for calls of a RegionServer killed
 * before its next sample.
 */
final class ServerMetrics {
    /** The metrics kept, by JMX bean and attribute, each a time in ms. */
    static final String[] IPC_TIMES = {"ProcessCallTime_max", "QueueCallTime_max", "TotalCallTime_max"};
    static final String[] SERVER_TIMES = {"ScanTime_max", "Get_max", "Put_max", "PutBatch_max", "Delete_max",
        "DeleteBatch_max", "Increment_max", "Append_max", "CheckAndMutate_max", "CheckAndPut_max", "Bulkload_max",
        "PauseTimeWithGc_max", "PauseTimeWithoutGc_max"};

    /** One sample of one RegionServer. */
    static final class Sample {
        final long atMillis;
        final String server;
        final long pid;
        /** Attribute -> value (ms for the times); heap in bytes under "heapUsed", RSS and peak RSS in kB. */
        final Map<String, Long> values = new LinkedHashMap<>();

        Sample(long atMillis, String server, long pid) {
            this.atMillis = atMillis;
            this.server = server;
            this.pid = pid;
        }

        long get(String key) {
            return values.getOrDefault(key, -1L);
        }
    }

    private final ClusterProcesses cluster;
    private final MixStats stats;
    private final List<Sample> samples = new ArrayList<>();

    ServerMetrics(ClusterProcesses cluster, MixStats stats) {
        this.cluster = cluster;
        this.stats = stats;
    }

    /** Samples every live RegionServer once; a server that does not answer is skipped (it may be restarting). */
    void sampleAll(List<ClusterProcesses.Process> regionServers) {
        for (ClusterProcesses.Process rs : regionServers) {
            if (!rs.alive()) {
                continue;
            }
            try {
                Sample s = sample(rs);
                synchronized (this) {
                    samples.add(s);
                }
            } catch (IOException e) {
                // Counted, not fatal: a RegionServer being restarted by the chaos thread refuses connections.
                stats.countError("metrics of " + rs.name(), e);
            }
        }
    }

    private Sample sample(ClusterProcesses.Process rs) throws IOException {
        Sample s = new Sample(stats.nowMillis(), rs.name(), rs.pid);
        String ipc = jmx(rs.infoPort, "Hadoop:service=HBase,name=RegionServer,sub=IPC");
        for (String a : IPC_TIMES) {
            put(s, a, number(ipc, a));
        }
        String server = jmx(rs.infoPort, "Hadoop:service=HBase,name=RegionServer,sub=Server");
        for (String a : SERVER_TIMES) {
            put(s, a, number(server, a));
        }
        Matcher heap = Pattern.compile("\"HeapMemoryUsage\"\\s*:\\s*\\{[^}]*\"used\"\\s*:\\s*(\\d+)")
                .matcher(jmx(rs.infoPort, "java.lang:type=Memory"));
        put(s, "heapUsed", heap.find() ? Long.parseLong(heap.group(1)) : -1);
        Map<String, Long> status = procStatus(rs.pid);
        put(s, "VmRSS", status.getOrDefault("VmRSS", -1L));
        put(s, "VmHWM", status.getOrDefault("VmHWM", -1L));
        return s;
    }

    private static void put(Sample s, String key, long value) {
        if (value >= 0) {
            s.values.put(key, value);
        }
    }

    /** One bean of the server's /jmx, as JSON text. */
    static String jmx(int port, String bean) throws IOException {
        URL url = new URL("http://127.0.0.1:" + port + "/jmx?qry=" + bean.replace(" ", "%20"));
        HttpURLConnection c = (HttpURLConnection) url.openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    /** A numeric attribute of JMX JSON text; -1 if absent (e.g. a metric this HBase version lacks). */
    static long number(String json, String attribute) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(attribute) + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The kB figures of /proc/<pid>/status (VmRSS: resident now, VmHWM: the peak). */
    static Map<String, Long> procStatus(long pid) {
        Map<String, Long> out = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"))) {
                Matcher m = Pattern.compile("^(\\w+):\\s+(\\d+) kB").matcher(line);
                if (m.find()) {
                    out.put(m.group(1), Long.parseLong(m.group(2)));
                }
            }
        } catch (IOException e) {
            // The process ended between the listing and the read: no figures this time.
        }
        return out;
    }

    synchronized List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    /** The largest value of {@code key} per server over the samples in [from, to) ms; absent servers left out. */
    synchronized Map<String, Long> maxByServer(String key, long from, long to) {
        Map<String, Long> out = new TreeMap<>();
        for (Sample s : samples) {
            long v = s.get(key);
            if (v >= 0 && s.atMillis >= from && s.atMillis < to) {
                out.merge(s.server, v, Math::max);
            }
        }
        return out;
    }

    /** The largest value of {@code key} over every server's samples in [from, to) ms; -1 if none. */
    synchronized long max(String key, long from, long to) {
        long max = -1;
        for (long v : maxByServer(key, from, to).values()) {
            max = Math.max(max, v);
        }
        return max;
    }

    /** The newest sample of each server. */
    synchronized Map<String, Sample> latest() {
        Map<String, Sample> out = new TreeMap<>();
        for (Sample s : samples) {
            out.put(s.server, s);
        }
        return out;
    }
}
