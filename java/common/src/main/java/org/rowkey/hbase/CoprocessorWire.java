package org.rowkey.hbase;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * What the client and the coprocessors agree on, without the client loading a coprocessor class: a
 * {@code RegionObserver} needs hbase-server, which an application's class path (hbase-client) does
 * not have. The client names the observers by these strings when it installs them, and reads the
 * aggregate call's cells by these qualifiers; the observers use the same constants.
 */
@RunsIn(RunsIn.Where.SHARED)
final class CoprocessorWire {
    private CoprocessorWire() {
    }

    /** The index write path's observer, installed on every data table. */
    static final String INDEX_OBSERVER = "org.rowkey.hbase.RowKeyIndexObserver";
    /** The scan observer (the filter language's catalog, aggregates), installed on every data and index table. */
    static final String SCAN_OBSERVER = "org.rowkey.hbase.RowKeyScanObserver";
    /** The scan observer's name in the descriptors of tables made by earlier versions: the same observer. */
    static final String SCAN_OBSERVER_BEFORE = "org.rowkey.hbase.RowKeyAggregateObserver";

    /** The Scan attribute holding a serialized {@code AggregateRequest}. */
    static final String AGGREGATE_REQUEST = "rowkey.aggregate";
    /** The Scan attribute asking {@code RowKeyScanObserver} for the table's catalog (one row) instead of rows. */
    static final String CATALOG_REQUEST = "rowkey.catalog";
    /** The qualifier of the catalog request's cell. */
    static final byte[] CATALOG_QUALIFIER = Bytes.toBytes("\u0000rowkey.catalog");
    /** The Scan attribute asking {@code RowKeyScanObserver} for this server's {@link RowKeyVersion} (one row). */
    static final String VERSION_REQUEST = "rowkey.version";
    /** The qualifier of the version request's cell. */
    static final byte[] VERSION_QUALIFIER = Bytes.toBytes("\u0000rowkey.version");
    /**
     * The Scan attribute asking {@code RowKeyScanObserver} for this server's observer metrics (one
     * row): a text cell of {@code <Name>=<count>} lines, as JMX names them (a histogram's count as
     * {@code <Name>_num_ops}), which {@code RowKeyCli status} sums over the RegionServers.
     */
    static final String METRICS_REQUEST = "rowkey.metrics";
    /** The qualifier of the metrics request's cell. */
    static final byte[] METRICS_QUALIFIER = Bytes.toBytes("\u0000rowkey.metrics");
    /** The setting of the bytes one aggregate request's groups may hold (docs/aggregates.md, "Memory bound"). */
    static final String AGGREGATE_MAX_BYTES = "rowkey.aggregate.max.bytes";
    /** The qualifier of an aggregate call's partial state cell: a NUL first, which no column of this library's tables uses. */
    static final byte[] PARTIAL_QUALIFIER = Bytes.toBytes("\u0000rowkey.aggregate.partial");
    /** The qualifier of the cell listing index row keys the client checks (sorts before the partial). */
    static final byte[] CHECK_QUALIFIER = Bytes.toBytes("\u0000rowkey.aggregate.check");
    /** Rows and time one aggregate call may fold when the request does not say. */
    static final int DEFAULT_ROW_BUDGET = 5_000_000;
    static final int DEFAULT_TIME_BUDGET_MS = 1_000;
}
