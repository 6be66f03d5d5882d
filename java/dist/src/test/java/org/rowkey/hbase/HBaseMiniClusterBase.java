package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.testing.TestingHBaseCluster;
import org.apache.hadoop.hbase.testing.TestingHBaseClusterOption;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.util.VersionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of the integration tests on a real HBase: an in-process minicluster (ZooKeeper, HDFS,
 * a master and one RegionServer). Classes that keep the default configuration share one, each
 * class's tables deleted after its last test; a class that changes the configuration, the number
 * of RegionServers or says {@link OwnCluster} gets its own, started before its first test and
 * stopped after its last. The client and the RegionServer share this JVM, but a scan's filter still
 * travels serialized and is rebuilt on the server by our comparators' {@code parseFrom}.
 *
 * <p>Helpers: {@link #createTable}, {@link #putRows}, {@link #scanRowKeys}. Subclasses may
 * override {@link #configure(Configuration)} to change the cluster's configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class HBaseMiniClusterBase {
    /** The one column family of tables made by {@link #createTable}. */
    protected static final byte[] FAMILY = Bytes.toBytes("f");
    /** The qualifier {@link #putRows} writes. */
    protected static final byte[] QUALIFIER = Bytes.toBytes("q");

    private TestingHBaseCluster cluster;
    private Connection connection;
    private long startMillis;

    /** How many RegionServers the minicluster has; override for more. */
    protected int numRegionServers() {
        return 1;
    }

    /** Override to change the cluster's configuration before it starts. */
    protected void configure(Configuration conf) {
        // No web UIs: faster start, no port clashes.
        conf.setInt("hbase.master.info.port", -1);
        conf.setInt("hbase.regionserver.info.port", -1);
        conf.setBoolean("hbase.procedure.store.wal.use.hsync", false);
        // A RegionServer that reports before the master is ready retries after this many ms (3000).
        conf.setInt("hbase.regionserver.msginterval", 500);
        // An aborted RegionServer leaves a timer that calls System.exit once the abort timeout (20
        // minutes) has passed, even when its abort finished long before: in the one JVM that runs the
        // ITs one after another (and a soak), that would end whatever runs 20 minutes after an abort.
        conf.setLong("hbase.regionserver.abort.timeout", java.util.concurrent.TimeUnit.DAYS.toMillis(1));
        // One DataNode, whose report of a file's last block often reaches the NameNode just after the
        // client asks to close the file: the client asks again after 400 ms, doubling each retry, and
        // every table descriptor, region info, HFile and job file waited so (BulkLoadIT: about 300
        // times). Asked again sooner, with as long a wait in all before giving up (25 ms doubled 9
        // times, about 12.8 s; 400 ms doubled 5 times, 12.4 s).
        conf.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 25);
        conf.setInt("dfs.client.block.write.locateFollowingBlock.retries", 9);
    }

    /**
     * Marks an IT class that needs a minicluster of its own although it keeps the default
     * configuration (a class overriding {@link #configure} or {@link #numRegionServers} always gets one).
     */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE)
    protected @interface OwnCluster {
        /** Why the shared cluster will not do. */
        String value();
    }

    /**
     * The one minicluster shared by the classes that keep the default configuration: each start
     * and stop costs seconds, and most IT classes need nothing of a cluster but its tables. Started
     * by the first such class, stopped when a class with a cluster of its own starts (ITs run one
     * class at a time; {@link SharedClusterFirst} runs the sharing classes first).
     */
    private static TestingHBaseCluster shared;
    private static long sharedStartMillis;

    private boolean sharing;
    private Set<TableName> tablesBefore;
    private Set<String> namespacesBefore;

    /**
     * Whether {@code type} needs a minicluster of its own: it changes the configuration or the number
     * of RegionServers, or says so with {@link OwnCluster}.
     */
    static boolean ownCluster(Class<?> type) {
        for (Class<?> c = type; c != null && c != HBaseMiniClusterBase.class; c = c.getSuperclass()) {
            if (c.isAnnotationPresent(OwnCluster.class)) {
                return true;
            }
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                boolean configures = m.getName().equals("configure") && m.getParameterCount() == 1
                        && m.getParameterTypes()[0] == Configuration.class;
                boolean sizes = m.getName().equals("numRegionServers") && m.getParameterCount() == 0;
                if (configures || sizes) {
                    return true;
                }
            }
        }
        return false;
    }

    @BeforeAll
    void startCluster() throws Exception {
        requireHadoopForThisJava(RowCalls.javaFeatureVersion(), VersionInfo.getVersion());
        sharing = !ownCluster(getClass());
        if (sharing) {
            if (shared == null) {
                shared = newCluster("shared minicluster");
                sharedStartMillis = startMillis;
            }
            cluster = shared;
            startMillis = sharedStartMillis;
        } else {
            stopShared();
            cluster = newCluster("minicluster");
        }
        // A connection of the class's own either way: clients keep per-connection state (region
        // locations, catalogs read) that one class must not leave to the next.
        connection = ConnectionFactory.createConnection(cluster.getConf());
        if (sharing) {
            try (Admin admin = connection.getAdmin()) {
                tablesBefore = new HashSet<>(Arrays.asList(admin.listTableNames()));
                namespacesBefore = namespaces(admin);
            }
        }
    }

    /** A minicluster of this class's configuration, started; its start timed ({@link #startMillis}) and printed. */
    private TestingHBaseCluster newCluster(String what) throws Exception {
        long t0 = System.nanoTime();
        Configuration conf = HBaseConfiguration.create();
        configure(conf);
        TestingHBaseCluster started = TestingHBaseCluster.create(TestingHBaseClusterOption.builder()
                .conf(conf)
                .numMasters(1)
                .numRegionServers(numRegionServers())
                .numDataNodes(1)
                .build());
        started.start();
        startMillis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println(getClass().getSimpleName() + ": " + what + " started in " + startMillis + " ms");
        return started;
    }

    private static void stopShared() throws Exception {
        if (shared != null) {
            TestingHBaseCluster stopping = shared;
            shared = null;
            stopping.stop();
        }
    }

    /**
     * Hadoop before 3.4.3 gets the current user with {@code Subject.getSubject}, which throws on
     * Java 24+ (HADOOP-19212): say so at once instead of failing deep inside the cluster start.
     * The cluster ITs run on Java 24+ through java/compat/pom.xml with HBase's -hadoop3 artifacts
     * and profile hadoop-3.4 ({@code cargo make java-test-ffm}); they are never skipped.
     */
    static void requireHadoopForThisJava(int javaFeature, String hadoopVersion) {
        if (javaFeature >= 24 && compareVersions(hadoopVersion, "3.4.3") < 0) {
            throw new IllegalStateException("HBase's minicluster on Java " + javaFeature + " needs Hadoop 3.4.3+"
                    + " (Subject.getSubject, HADOOP-19212); this class path has Hadoop " + hadoopVersion
                    + ": run the integration tests through java/compat/pom.xml -Phadoop-3.4 (cargo make java-test-ffm)");
        }
    }

    /** Compares dotted numeric versions ("2.10.2", "3.4.3-SNAPSHOT": the numeric part). */
    static int compareVersions(String a, String b) {
        String[] x = a.split("[^0-9]+");
        String[] y = b.split("[^0-9]+");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int xi = i < x.length && !x[i].isEmpty() ? Integer.parseInt(x[i]) : 0;
            int yi = i < y.length && !y[i].isEmpty() ? Integer.parseInt(y[i]) : 0;
            if (xi != yi) {
                return Integer.compare(xi, yi);
            }
        }
        return 0;
    }

    @AfterAll
    void stopCluster() throws Exception {
        try {
            if (sharing && connection != null) {
                deleteTablesMadeSinceStart();
            }
        } finally {
            try {
                if (connection != null) {
                    connection.close();
                }
            } finally {
                if (cluster != null && !sharing) {
                    cluster.stop();
                }
            }
        }
    }

    private static Set<String> namespaces(Admin admin) throws IOException {
        Set<String> names = new HashSet<>();
        for (org.apache.hadoop.hbase.NamespaceDescriptor namespace : admin.listNamespaceDescriptors()) {
            names.add(namespace.getName());
        }
        return names;
    }

    /** Leaves the shared cluster as the class found it: the tables and namespaces it made, deleted. */
    private void deleteTablesMadeSinceStart() throws IOException {
        try (Admin admin = connection.getAdmin()) {
            for (TableName table : admin.listTableNames()) {
                if (!tablesBefore.contains(table)) {
                    if (admin.isTableEnabled(table)) {
                        admin.disableTable(table);
                    }
                    admin.deleteTable(table);
                }
            }
            for (String namespace : namespaces(admin)) {
                if (!namespacesBefore.contains(namespace)) {
                    admin.deleteNamespace(namespace);
                }
            }
        }
    }

    /** How long the minicluster took to start, in milliseconds. */
    protected long clusterStartMillis() {
        return startMillis;
    }

    /** The running minicluster (to stop or kill servers). */
    protected TestingHBaseCluster cluster() {
        return cluster;
    }

    protected Connection connection() {
        return connection;
    }

    protected Configuration conf() {
        return cluster.getConf();
    }

    /**
     * The cluster's client configuration made patient enough to ride out a RegionServer abort (its
     * regions reassigned after the master notices): many retries, long operation and scanner timeouts.
     */
    protected Configuration patientConf() {
        Configuration patient = new Configuration(conf());
        patient.setInt("hbase.client.retries.number", 40);
        patient.setLong("hbase.client.pause", 200);
        patient.setInt("hbase.client.operation.timeout", 300_000);
        patient.setInt("hbase.client.scanner.timeout.period", 300_000);
        patient.setInt("hbase.rpc.timeout", 20_000);
        return patient;
    }

    /** Creates table {@code name} with family {@link #FAMILY}, pre-split at {@code splits} (may be none). */
    protected TableName createTable(String name, byte[]... splits) throws IOException {
        TableName table = TableName.valueOf(name);
        try (Admin admin = connection.getAdmin()) {
            TableDescriptorBuilder td = TableDescriptorBuilder.newBuilder(table)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY));
            if (splits == null || splits.length == 0) {
                admin.createTable(td.build());
            } else {
                admin.createTable(td.build(), splits);
            }
        }
        return table;
    }

    /** Puts one cell ({@link #FAMILY}:{@link #QUALIFIER} = the row key) per row, {@code batchSize} rows per call. */
    protected void putRows(TableName table, Iterable<byte[]> rowKeys, int batchSize) throws IOException {
        try (Table t = connection.getTable(table)) {
            List<Put> batch = new ArrayList<>(batchSize);
            for (byte[] key : rowKeys) {
                batch.add(new Put(key).addColumn(FAMILY, QUALIFIER, key));
                if (batch.size() >= batchSize) {
                    t.put(batch);
                    batch = new ArrayList<>(batchSize);
                }
            }
            if (!batch.isEmpty()) {
                t.put(batch);
            }
        }
    }

    /** {@link #putRows(TableName, Iterable, int)} in batches of 1000. */
    protected void putRows(TableName table, Iterable<byte[]> rowKeys) throws IOException {
        putRows(table, rowKeys, 1000);
    }

    /** The row keys a full scan with {@code filter} returns, in scan order. */
    protected List<byte[]> scanRowKeys(TableName table, Filter filter) throws IOException {
        return scanRowKeys(table, new Scan().setFilter(filter));
    }

    /** Row keys a scan returned and how many rows the RegionServers read for it. */
    protected static final class ScanOutcome {
        public final List<byte[]> keys;
        public final long rowsRead;

        ScanOutcome(List<byte[]> keys, long rowsRead) {
            this.keys = keys;
            this.rowsRead = rowsRead;
        }
    }

    /** Runs {@code scan} with scan metrics on: the keys, and the server's count of rows scanned. */
    protected ScanOutcome scanWithMetrics(TableName table, Scan scan) throws IOException {
        scan.setScanMetricsEnabled(true);
        List<byte[]> keys = new ArrayList<>();
        try (Table t = connection.getTable(table); ResultScanner scanner = t.getScanner(scan)) {
            for (Result r : scanner) {
                keys.add(r.getRow());
            }
            return new ScanOutcome(keys, scanner.getScanMetrics().countOfRowsScanned.get());
        }
    }

    /** The row keys a scanner returns, as hex, sorted; closes the scanner. */
    protected static TreeSet<String> keys(ResultScanner scanner) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (ResultScanner s = scanner) {
            for (Result r : s) {
                out.add(Bytes.toHex(r.getRow()));
            }
        }
        return out;
    }

    /** The row keys {@code scan} returns, in scan order. */
    protected List<byte[]> scanRowKeys(TableName table, Scan scan) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        try (Table t = connection.getTable(table); ResultScanner scanner = t.getScanner(scan)) {
            for (Result r : scanner) {
                keys.add(r.getRow());
            }
        }
        return keys;
    }
}
