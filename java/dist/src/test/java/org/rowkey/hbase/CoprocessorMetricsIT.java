package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.coprocessor.MetricsCoprocessor;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The observers' metrics as an operator reads them: from the RegionServer's JMX (this JVM's, the
 * minicluster's), after known work: rows written through the index observer in known batches, a
 * write it refuses, an aggregate over the table's regions, a text query, a bad one, a catalog and a
 * version probe. HBase publishes coprocessor registries to JMX on a timer, so the test waits for
 * the numbers it expects (at most a minute). (The miniclusters of HBase 2.5.8 and 2.6.1-hadoop3
 * publish none of HBase's beans: on them the registry JMX would show is read.)
 */
@HBaseMiniClusterBase.OwnCluster("the observers' registries are per observer class in the JVM, and this test counts from zero")
class CoprocessorMetricsIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private static final int ROWS = 600;
    private static final int BATCH = 100;

    @Test
    void theObserversCountTheirWorkInTheRegionServersJmx() throws Exception {
        TableName name = TableName.valueOf("metrics_t");
        RowKeySchema schema = TestData.seedSchema();
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_date_code", "sdate", "code").include("f"),
                    RowKeyIndex.of("by_type", "type")), new byte[][] {{(byte) 0x55}, {(byte) 0xaa}}, F);
        }
        try (Table table = connection().getTable(name)) {
            for (int b = 0; b < ROWS / BATCH; b++) {
                List<Put> puts = new ArrayList<>();
                for (int i = b * BATCH; i < (b + 1) * BATCH; i++) {
                    puts.add(new Put(schema.encode(TestData.seedRow("http://m/" + i, i % 2 == 0 ? 404 : 200, 20161201 + i % 31, 1 + i % 4,
                            false))).addColumn(F, Bytes.toBytes("url"), Bytes.toBytes("http://m/" + i)));
                }
                table.put(puts);
            }
        }
        RowKeyTable table = RowKeyTable.open(connection(), name);
        AggregationResult all = table.aggregate(RowKeyQuery.parse(schema, "TRUE").noIndex(),
                Aggregation.on(schema).count());
        assertEquals(ROWS, all.rows().get(0).longValue(0));

        RowKeyWhere.register();
        int matched = 0;
        try (Table t = connection().getTable(name);
                ResultScanner rs = t.getScanner(new Scan().setFilter(new ParseFilter().parseFilterString(
                        RowKeyWhere.filterString("code = 404", null))))) {
            for (Result ignored : rs) {
                matched++;
            }
        }
        assertEquals(ROWS / 2, matched);
        assertThrows(Exception.class, () -> scanRowKeys(name, new ParseFilter().parseFilterString("RowKeyWhere('code = = 1')")));
        try (Table t = connection().getTable(name);
                ResultScanner rs = t.getScanner(new Scan().setAttribute(CoprocessorWire.CATALOG_REQUEST, new byte[] {1}).setCaching(1)
                        .setLimit(1))) {
            rs.next();
        }

        // 2,048 compares of one comparator in this JVM (the RegionServer's): two of them timed.
        PredicateComparator comparator = RowKeyQuery.on(schema).eq("code", 404).toComparator();
        byte[] key = schema.encode(TestData.seedRow("http://m/0", 404, 20161201, 1, false));
        for (int i = 0; i < 2 * NativeRowTimes.SAMPLE_EVERY; i++) {
            assertEquals(0, comparator.compareTo(key, 0, key.length));
        }

        Map<String, Long> index = new LinkedHashMap<>();
        index.put(CoprocessorMetrics.INDEXED_ROWS, (long) ROWS);
        index.put(CoprocessorMetrics.INDEX_MARK_MICROS + "_num_ops", null);   // one per mini-batch: at least the batches
        index.put(CoprocessorMetrics.INDEX_VERIFY_MICROS + "_num_ops", null);
        index.put(CoprocessorMetrics.INDEX_MARK_MICROS + "_max", null);
        index.put(CoprocessorMetrics.INDEX_ROWS_LEFT_UNVERIFIED, 0L);
        index.put(CoprocessorMetrics.INDEX_WRITE_FAILURES, 0L);
        index.put(CoprocessorMetrics.WRITES_REFUSED, 0L);
        Map<String, Long> got = await("org.rowkey.hbase.RowKeyIndexObserver", index);
        // Each batch of 100 rows is split across the three regions: a mini-batch per region it reaches.
        assertTrue(got.get(CoprocessorMetrics.INDEX_MARK_MICROS + "_num_ops") >= ROWS / BATCH, got.toString());
        assertTrue(got.get(CoprocessorMetrics.INDEX_MARK_MICROS + "_max") > 0, got.toString());
        assertEquals(got.get(CoprocessorMetrics.INDEX_MARK_MICROS + "_num_ops"), got.get(CoprocessorMetrics.INDEX_VERIFY_MICROS + "_num_ops"),
                got.toString());

        Map<String, Long> scan = new LinkedHashMap<>();
        scan.put(CoprocessorMetrics.AGGREGATE_REQUESTS, 3L);            // one region scanner per region
        scan.put(CoprocessorMetrics.AGGREGATE_ROWS_FOLDED, (long) ROWS);
        scan.put(CoprocessorMetrics.AGGREGATE_PARTIALS, 3L);
        scan.put(CoprocessorMetrics.AGGREGATE_PARTIAL_BYTES, null);
        scan.put(CoprocessorMetrics.AGGREGATE_REFUSALS, 0L);
        scan.put(CoprocessorMetrics.WHERE_FILTERS_BOUND, 3L);           // the good text query, in each region
        scan.put(CoprocessorMetrics.WHERE_BIND_MICROS + "_num_ops", 3L);
        scan.put(CoprocessorMetrics.WHERE_REFUSALS, null);              // the bad one, in the first region (retries: more)
        scan.put(CoprocessorMetrics.CATALOG_REQUESTS, 1L);
        scan.put(CoprocessorMetrics.NATIVE_BYTES_IN_USE, null);
        scan.put(CoprocessorMetrics.NATIVE_ROW_SAMPLES, null);
        scan.put(CoprocessorMetrics.NATIVE_ROW_SAMPLE_NANOS, null);
        got = await("org.rowkey.hbase.RowKeyScanObserver", scan);
        assertTrue(got.get(CoprocessorMetrics.NATIVE_BYTES_IN_USE) > 0, "schemas and comparators live in native memory: " + got);
        assertTrue(got.get(CoprocessorMetrics.NATIVE_ROW_SAMPLES) >= 2, got.toString());
        assertTrue(got.get(CoprocessorMetrics.NATIVE_ROW_SAMPLE_NANOS) > 0, got.toString());
        assertTrue(got.get(CoprocessorMetrics.AGGREGATE_PARTIAL_BYTES) > 0, got.toString());
        assertTrue(got.get(CoprocessorMetrics.WHERE_REFUSALS) >= 1, got.toString());
    }

    /** The setting as docs/operations.md shows it, a shell line {@code alter 't', CONFIGURATION => {'key' => 'value'}}: made here through Admin. */
    @Test
    void aTableWhoseConfigurationTurnsMetricsOffCountsNothing() throws Exception {
        Path doc = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (!Files.exists(doc.resolve("Makefile.toml"))) {
            doc = doc.getParent();
        }
        Matcher alter = Pattern.compile("alter '[^']+', CONFIGURATION =>\\s+\\{'([^']+)' => '([^']+)'\\}")
                .matcher(new String(Files.readAllBytes(doc.resolve("docs/operations.md")), StandardCharsets.UTF_8));
        assertTrue(alter.find(), "docs/operations.md shows no alter line turning metrics off");
        assertEquals(CoprocessorMetrics.ENABLED_KEY, alter.group(1));
        TableName name = TableName.valueOf("metrics_off");
        RowKeySchema schema = TestData.seedSchema();
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_type", "type")), F);
            admin.modifyTable(org.apache.hadoop.hbase.client.TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
                    .setValue(alter.group(1), alter.group(2)).build());
        }
        String observer = "org.rowkey.hbase.RowKeyIndexObserver";
        long before = indexedRows(observer);
        try (Table table = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                puts.add(new Put(schema.encode(TestData.seedRow("http://off/" + i, 200, 20161201, 1, false)))
                        .addColumn(F, Bytes.toBytes("url"), Bytes.toBytes(i)));
            }
            table.put(puts);
        }
        assertEquals(BATCH, scanRowKeys(RowKeyTable.indexTableName(name, "by_type"), (org.apache.hadoop.hbase.filter.Filter) null).size(),
                "the rows were indexed");
        assertEquals(before, indexedRows(observer), "rowkey.metrics.enabled=false in the table's descriptor: nothing counted");
    }

    private static long indexedRows(String observer) {
        return registryCount(observer, CoprocessorMetrics.INDEXED_ROWS);
    }

    /** A counter of an observer's registry in this JVM (the minicluster's RegionServer); 0 before its first region opened. */
    static long registryCount(String observer, String counter) {
        Map<String, Long> seen = new LinkedHashMap<>();
        readRegistry(observer, Arrays.asList(counter), seen);
        return seen.getOrDefault(jmxName(counter), 0L);
    }

    /** What the observer's registry holds, by the names JMX would show them under. */
    private static void readRegistry(String observer, Iterable<String> names, Map<String, Long> seen) {
        java.util.Optional<MetricRegistry> registry = MetricRegistries.global()
                .get(MetricsCoprocessor.createRegistryInfoForRegionCoprocessor(observer));
        if (!registry.isPresent()) {
            return;
        }
        for (String name : names) {
            String base = name.replaceAll("_(num_ops|max)$", "");
            java.util.Optional<Metric> metric = registry.get().get(base);
            if (!metric.isPresent()) {
                continue;
            }
            if (metric.get() instanceof Counter) {
                seen.put(jmxName(name), ((Counter) metric.get()).getCount());
            } else if (metric.get() instanceof Histogram) {
                Histogram h = (Histogram) metric.get();
                seen.put(jmxName(name), name.endsWith("_max") ? h.snapshot().getMax() : h.getCount());
            } else if (metric.get() instanceof org.apache.hadoop.hbase.metrics.Gauge) {
                seen.put(jmxName(name), ((Number) ((org.apache.hadoop.hbase.metrics.Gauge<?>) metric.get()).getValue()).longValue());
            }
        }
    }

    /** HBase's adapter publishes a metric with its first letter upper-case. */
    private static String jmxName(String name) {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /**
     * An observer's JMX attributes, by our names, once every expected one is there with its expected
     * value (null: any value).
     */
    private static Map<String, Long> await(String observer, Map<String, Long> expected) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_" + observer);
        Map<String, Long> seen = new LinkedHashMap<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        // Hadoop's metrics system stops with the first minicluster of the JVM that runs every IT, and
        // the miniclusters after it publish no HBase bean at all: then the registry itself is read,
        // which is what JMX shows on a RegionServer. Where HBase's own bean is there, JMX is read.
        boolean viaJmx = jmx.isRegistered(new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Server"));
        while (true) {
            seen.clear();
            if (viaJmx && jmx.isRegistered(bean)) {
                for (MBeanAttributeInfo a : jmx.getMBeanInfo(bean).getAttributes()) {
                    Object v = jmx.getAttribute(bean, a.getName());
                    if (v instanceof Number) {
                        seen.put(a.getName(), ((Number) v).longValue());
                    }
                }
            } else if (!viaJmx) {
                readRegistry(observer, expected.keySet(), seen);
            }
            boolean all = true;
            for (Map.Entry<String, Long> e : expected.entrySet()) {
                Long v = seen.get(jmxName(e.getKey()));
                all &= v != null && (e.getValue() == null || e.getValue().equals(v));
            }
            if (all) {
                Map<String, Long> byOurNames = new LinkedHashMap<>();
                for (String name : expected.keySet()) {
                    byOurNames.put(name, seen.get(jmxName(name)));
                }
                return byOurNames;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(bean + ": expected " + expected + ", the bean has " + seen + "; the beans: "
                        + jmx.queryNames(new ObjectName("Hadoop:service=HBase,*"), null));
            }
            Thread.sleep(500);
        }
    }
}
