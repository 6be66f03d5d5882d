package org.rowkey.hbase.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.RowKeyQuery;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * Spark's reads of a table: the rows of a query ({@link RowScan}), or its aggregates
 * ({@link AggregateScan}). The query is planned on the driver to cut the read into tasks, and again
 * in each task from the same conditions, as our client plans it.
 */
final class RowKeyScans {
    private RowKeyScans() {}

    /**
     * A query's rows. When our plan reads the data table's key ranges, one task per region, each
     * reading the ranges and filter of {@link RowKeyQuery#toScan()} inside its region, where the
     * region's server is (Spark's locality hint); when it reads an index (or joins), or the first
     * rows of a {@link KeyOrder}, one task that reads it through {@link RowKeyTable#scan}, which reads
     * the regions at once itself (in key order, and stops at the limit, for an order).
     */
    static final class RowScan implements Scan, Batch, PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final SourceOptions source;
        private final Where where;
        private final StructType wanted;
        private final int limit;
        /** The ORDER BY of a limit, or null: the rows in any order. */
        private final KeyOrder order;
        /** The table's schema (it never changes), so that a region's task need not read the table's descriptor. */
        private final byte[] schema;
        /** How the rows are read, decided once on the driver (either way is exact: see {@link #route()}). */
        private transient volatile Route route;

        RowScan(SourceOptions source, RowKeySchema schema, Where where, StructType wanted, int limit, KeyOrder order) {
            this.source = source;
            this.schema = schema.toByteArray();
            this.where = where;
            this.wanted = wanted;
            this.limit = limit;
            this.order = order;
        }

        @Override
        public StructType readSchema() {
            return wanted;
        }

        @Override
        public String description() {
            return "rowkey " + source.table + " WHERE " + where + (order != null ? " " + order : "")
                    + (limit >= 0 ? " LIMIT " + limit : "") + " columns "
                    + java.util.Arrays.toString(wanted.fieldNames()) + ", read " + how();
        }

        private String how() {
            try {
                return route().words;
            } catch (RuntimeException e) {
                return "(plan unknown: " + e + ")";
            }
        }

        /**
         * Whether our plan reads an index, asked once for explain and the tasks. A plan made later
         * may differ (an index added or dropped since); both ways stay exact: the data table's ranges
         * always hold the rows, and {@link RowKeyTable#scan} plans again when an index is gone.
         */
        private Route route() {
            Route known = route;
            if (known == null) {
                RowKeyTable table = RowKeySource.open(source);
                RowKeyQuery query = where.toQuery(table.schema());
                try {
                    known = query == null || limit == 0 ? Route.NONE : order != null ? Route.ORDERED
                            : table.readsIndex(query) ? Route.CLIENT : Route.REGIONS;
                } catch (IOException e) {
                    throw new UncheckedIOException("rowkey source: planning the read of " + source.table + ": " + e.getMessage(), e);
                }
                route = known;
            }
            return known;
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            Route how = route();
            if (how == Route.NONE) {
                return new InputPartition[0];
            }
            if (how == Route.CLIENT || how == Route.ORDERED) {
                return new InputPartition[] {new Part(null, null, new String[0])};
            }
            try {
                org.apache.hadoop.hbase.client.Scan scan = where.toQuery(RowKeySchema.parseFrom(schema)).toScan();
                List<InputPartition> parts = new ArrayList<>();
                try (RegionLocator regions = source.connection().getRegionLocator(source.tableName())) {
                    for (HRegionLocation region : regions.getAllRegionLocations()) {
                        byte[] start = later(scan.getStartRow(), region.getRegion().getStartKey());
                        byte[] stop = earlier(scan.getStopRow(), region.getRegion().getEndKey());
                        if (stop.length == 0 || Bytes.compareTo(start, stop) < 0) {
                            parts.add(new Part(start, stop, hostOf(region)));
                        }
                    }
                }
                return parts.toArray(new InputPartition[0]);
            } catch (IOException e) {
                throw new UncheckedIOException("rowkey source: planning the read of " + source.table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return this;
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            Part part = (Part) partition;
            RowKeySchema keys = RowKeySchema.parseFrom(schema);
            RowKeyQuery query = where.toQuery(keys);
            KeyColumns.Converter converter = new KeyColumns.Converter(keys, source, wanted);
            try {
                if (part.start == null) {
                    RowKeyQuery read = order == null ? query.unordered() : order.reversed ? query.limit(limit).reversed() : query.limit(limit);
                    read = converter.readsCells() ? read : read.keysOnly();
                    return new RowReader(null, RowKeySource.open(source).scan(read), converter, limit);
                }
                org.apache.hadoop.hbase.client.Scan scan = query.toScan().withStartRow(part.start, true)
                        .withStopRow(part.stop, false);
                if (!converter.readsCells()) {
                    Filter rows = scan.getFilter();
                    scan.setFilter(rows == null ? new KeyOnlyFilter() : new FilterList(rows, new KeyOnlyFilter()));
                }
                if (limit > 0) {
                    scan.setLimit(limit);
                }
                Table hbase = source.connection().getTable(source.tableName());
                return new RowReader(hbase, hbase.getScanner(scan), converter, limit);
            } catch (IOException e) {
                throw new UncheckedIOException("rowkey source: reading " + source.table + ": " + e.getMessage(), e);
            }
        }
    }

    /** How a query's rows are read. */
    enum Route {
        NONE("not at all (no row can match)"), CLIENT("through our client (an index, or joins)"), REGIONS("one task per region"),
        ORDERED("through our client in key order to the limit");

        final String words;

        Route(String words) {
            this.words = words;
        }
    }

    /** The later of two start rows (empty: the table's start). */
    static byte[] later(byte[] a, byte[] b) {
        return Bytes.compareTo(a, b) >= 0 ? a : b;
    }

    /** The earlier of two stop rows (empty: the table's end). */
    static byte[] earlier(byte[] a, byte[] b) {
        if (a.length == 0) {
            return b;
        }
        if (b.length == 0) {
            return a;
        }
        return Bytes.compareTo(a, b) <= 0 ? a : b;
    }

    /**
     * Where a region's task would rather run: its server's host, or nowhere in particular while it
     * has none (a split's daughter not yet open, a region between servers); its scan finds it then.
     */
    static String[] hostOf(HRegionLocation region) {
        return region.getServerName() == null ? new String[0] : new String[] {region.getServerName().getHostname()};
    }

    /** A task's piece: a region's part of the key ranges, or (start null) the whole read through our client. */
    static final class Part implements InputPartition {
        private static final long serialVersionUID = 1L;
        final byte[] start;
        final byte[] stop;
        private final String[] hosts;

        Part(byte[] start, byte[] stop, String[] hosts) {
            this.start = start;
            this.stop = stop;
            this.hosts = hosts;
        }

        @Override
        public String[] preferredLocations() {
            return hosts;
        }
    }

    /** Rows of one scanner, converted, up to the limit. */
    static final class RowReader implements PartitionReader<InternalRow> {
        private final Table table;
        private final ResultScanner scanner;
        private final KeyColumns.Converter converter;
        private final int limit;
        private int read;
        private InternalRow current;

        RowReader(Table table, ResultScanner scanner, KeyColumns.Converter converter, int limit) {
            this.table = table;
            this.scanner = scanner;
            this.converter = converter;
            this.limit = limit;
        }

        @Override
        public boolean next() throws IOException {
            if (limit >= 0 && read >= limit) {
                return false;
            }
            Result r = scanner.next();
            if (r == null) {
                return false;
            }
            read++;
            current = converter.convert(r);
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public void close() throws IOException {
            scanner.close();
            if (table != null) {
                table.close();
            }
        }
    }

    /** A query's aggregates, one task: {@link RowKeyTable#aggregate} folds them in the regions. */
    static final class AggregateScan implements Scan, Batch, PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final SourceOptions source;
        private final Where where;
        private final AggregateSpec spec;

        AggregateScan(SourceOptions source, Where where, AggregateSpec spec) {
            this.source = source;
            this.where = where;
            this.spec = spec;
        }

        @Override
        public StructType readSchema() {
            return spec.schema();
        }

        @Override
        public String description() {
            return "rowkey " + source.table + " WHERE " + where + " " + spec + " (in the regions)";
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            return new InputPartition[] {new Part(null, null, new String[0])};
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return this;
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            RowKeyTable table = RowKeySource.open(source);
            RowKeyQuery query = where.toQuery(table.schema());
            List<InternalRow> rows = new ArrayList<>();
            if (query != null) {
                try {
                    for (AggregationResult.Row r : table.aggregate(query, spec.toAggregation(table.schema(), source)).rows()) {
                        rows.add(row(r.groups(), r.values()));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("rowkey source: aggregating " + source.table + ": " + e.getMessage(), e);
                }
            }
            if (rows.isEmpty() && spec.groups.isEmpty()) {
                rows.add(row(java.util.Collections.emptyMap(), java.util.Collections.nCopies(spec.items.size(), null)));
            }
            Iterator<InternalRow> it = rows.iterator();
            return new PartitionReader<InternalRow>() {
                private InternalRow current;

                @Override
                public boolean next() {
                    current = it.hasNext() ? it.next() : null;
                    return current != null;
                }

                @Override
                public InternalRow get() {
                    return current;
                }

                @Override
                public void close() {}
            };
        }

        /** One group's row: its key fields, then its aggregates in Spark's types (a count of no row is 0, the others null). */
        private InternalRow row(java.util.Map<String, Object> groups, List<Object> values) {
            Object[] out = new Object[spec.groups.size() + spec.items.size()];
            for (int i = 0; i < spec.groups.size(); i++) {
                out[i] = KeyColumns.toSpark(groups.get(spec.groups.get(i)));
            }
            for (int i = 0; i < spec.items.size(); i++) {
                AggregateSpec.Item item = spec.items.get(i);
                Object v = values.get(i);
                boolean counts = item.kind == AggregateSpec.Kind.COUNT || item.kind == AggregateSpec.Kind.COUNT_ROWS;
                out[spec.groups.size() + i] = v == null ? (counts ? 0L : null) : as(item.type, (Number) v);
            }
            return new GenericInternalRow(out);
        }

        private static Object as(DataType type, Number v) {
            return type.equals(DataTypes.IntegerType) ? (Object) v.intValue() : type.equals(DataTypes.LongType)
                    ? (Object) v.longValue() : (Object) v.doubleValue();
        }
    }

}
