package org.rowkey.hbase;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MetricsCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * An observer's metrics, in HBase's coprocessor metric registry of the RegionServer
 * ({@code getMetricRegistryForRegionServer}): one registry per observer class, shared by all its
 * regions there, published in the RegionServer's JMX as
 * {@code Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_<class>} beside HBase's own. Each count is
 * made once per mini-batch, scanner open or aggregate call, never per row. JMX shows each name with
 * its first letter upper-case (HBase's adapter), a histogram as {@code <Name>_num_ops}, {@code _min},
 * {@code _max}, {@code _mean} and percentiles. Without a registry (an
 * environment that has none) nothing is recorded. docs/operations.md says what each one means.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
final class CoprocessorMetrics {
    // RowKeyIndexObserver, the write path.
    static final String INDEXED_ROWS = "indexedRows";
    static final String INDEX_MARK_MICROS = "indexMarkMicros";
    static final String INDEX_VERIFY_MICROS = "indexVerifyMicros";
    static final String INDEX_WRITE_FAILURES = "indexWriteFailures";
    static final String INDEX_ROWS_LEFT_UNVERIFIED = "indexRowsLeftUnverified";
    static final String WRITES_REFUSED = "writesRefused";
    // RowKeyScanObserver.
    static final String WHERE_FILTERS_BOUND = "whereFiltersBound";
    static final String WHERE_BIND_MICROS = "whereBindMicros";
    static final String WHERE_REFUSALS = "whereRefusals";
    static final String AGGREGATE_REQUESTS = "aggregateRequests";
    static final String AGGREGATE_REFUSALS = "aggregateRefusals";
    static final String AGGREGATE_ROWS_FOLDED = "aggregateRowsFolded";
    static final String AGGREGATE_PARTIALS = "aggregatePartials";
    static final String AGGREGATE_PARTIAL_BYTES = "aggregatePartialBytes";
    static final String AGGREGATE_FAILURES = "aggregateFailures";
    static final String AGGREGATE_BUDGET_STOPS = "aggregateBudgetStops";
    // AggregateRefusals by reason.
    static final String AGGREGATE_REFUSED_TOO_LARGE = "aggregateRefusedTooLarge";
    static final String AGGREGATE_REFUSED_REVERSED = "aggregateRefusedReversed";
    static final String AGGREGATE_REFUSED_CORRUPT = "aggregateRefusedCorrupt";
    static final String AGGREGATE_REFUSED_NEWER_FORMAT = "aggregateRefusedNewerFormat";
    static final String AGGREGATE_REFUSED_SPEC = "aggregateRefusedSpec";
    static final String CATALOG_REQUESTS = "catalogRequests";
    static final String VERSION_REQUESTS = "versionRequests";
    // RowKeyScanObserver of an index table: the conditional writes that settle its rows.
    static final String READER_REPAIRS = "readerRepairs";
    static final String READER_REPAIRS_LOST = "readerRepairsLost";
    static final String READER_STALE_MARKS = "readerStaleMarks";
    static final String READER_STALE_MARKS_LOST = "readerStaleMarksLost";
    static final String VERIFY_REPAIRS = "verifyRepairs";
    static final String VERIFY_REPAIRS_LOST = "verifyRepairsLost";
    // RowKeyScanObserver: the JVM's native side, read when JMX (or a metrics probe) asks.
    static final String NATIVE_BYTES_IN_USE = "nativeBytesInUse";
    static final String NATIVE_ROW_SAMPLES = "nativeRowSamples";
    static final String NATIVE_ROW_SAMPLE_NANOS = "nativeRowSampleNanos";

    /**
     * Whether the observers count at all (default true): in hbase-site.xml for every table of the
     * RegionServer, or in a table descriptor's configuration for one table.
     */
    static final String ENABLED_KEY = "rowkey.metrics.enabled";

    private static final CoprocessorMetrics NONE = new CoprocessorMetrics(null);

    /** Null: record nothing. */
    private final MetricRegistry registry;

    private CoprocessorMetrics(MetricRegistry registry) {
        this.registry = registry;
    }

    /**
     * The environment's registry, {@code counters} in it from the start (at 0 until counted); none
     * when {@link #ENABLED_KEY} is false in the region's configuration.
     */
    static CoprocessorMetrics of(CoprocessorEnvironment env, String... counters) {
        if (!(env instanceof RegionCoprocessorEnvironment) || !env.getConfiguration().getBoolean(ENABLED_KEY, true)) {
            return NONE;
        }
        try {
            MetricRegistry registry = ((RegionCoprocessorEnvironment) env).getMetricRegistryForRegionServer();
            if (registry == null) {
                return NONE;
            }
            for (String counter : counters) {
                registry.counter(counter);
            }
            return new CoprocessorMetrics(registry);
        } catch (RuntimeException | LinkageError e) {
            return NONE; // metrics are never a reason for a region not to open
        }
    }

    /**
     * Both observers' counts on this RegionServer, as JMX names them ({@code <Name>=<count>} lines; a
     * histogram's count as {@code <Name>_num_ops}): the answer to a {@link CoprocessorWire#METRICS_REQUEST}.
     */
    static String snapshot() {
        Map<String, Long> counts = new TreeMap<>();
        for (String observer : new String[] {CoprocessorWire.INDEX_OBSERVER, CoprocessorWire.SCAN_OBSERVER}) {
            Optional<MetricRegistry> registry = MetricRegistries.global()
                    .get(MetricsCoprocessor.createRegistryInfoForRegionCoprocessor(observer));
            if (!registry.isPresent()) {
                continue;
            }
            for (Map.Entry<String, Metric> e : registry.get().getMetrics().entrySet()) {
                String name = Character.toUpperCase(e.getKey().charAt(0)) + e.getKey().substring(1);
                if (e.getValue() instanceof Counter) {
                    counts.merge(name, ((Counter) e.getValue()).getCount(), Long::sum);
                } else if (e.getValue() instanceof Histogram) {
                    counts.merge(name + "_num_ops", ((Histogram) e.getValue()).getCount(), Long::sum);
                } else if (e.getValue() instanceof Gauge && ((Gauge<?>) e.getValue()).getValue() instanceof Number) {
                    // The JVM-wide gauges (withNativeGauges), registered by the scan observer alone.
                    counts.put(name, ((Number) ((Gauge<?>) e.getValue()).getValue()).longValue());
                }
            }
        }
        StringBuilder text = new StringBuilder();
        counts.forEach((name, n) -> text.append(name).append('=').append(n).append('\n'));
        return text.toString();
    }

    /**
     * The JVM's native side as gauges, read when asked: the native library's bytes in use (-1 when it
     * is not loaded) and the sampled per-row compares ({@link NativeRowTimes}).
     */
    CoprocessorMetrics withNativeGauges() {
        if (registry != null) {
            registry.register(NATIVE_BYTES_IN_USE, (Gauge<Long>) () -> {
                try {
                    return RowKeyNative.nativeBytesInUse();
                } catch (LinkageError notLoaded) {
                    return -1L;
                }
            });
            registry.register(NATIVE_ROW_SAMPLES, (Gauge<Long>) NativeRowTimes::samples);
            registry.register(NATIVE_ROW_SAMPLE_NANOS, (Gauge<Long>) NativeRowTimes::nanos);
        }
        return this;
    }

    void count(String name, long n) {
        if (registry != null && n != 0) {
            registry.counter(name).increment(n);
        }
    }

    void count(String name) {
        count(name, 1);
    }

    /**
     * The microseconds since {@code startNanos} ({@link System#nanoTime()}), into a histogram (HBase's
     * timers keep milliseconds, in which these steps are mostly 0).
     */
    void microsSince(String name, long startNanos) {
        if (registry != null) {
            registry.histogram(name).update(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startNanos));
        }
    }
}
