package org.rowkey.hbase.spark;

import java.util.EnumSet;
import java.util.Set;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.rowkey.hbase.RowKeySchema;

/** One table of ours, as Spark reads it. */
final class RowKeySparkTable implements SupportsRead, SupportsWrite {
    private final SourceOptions source;
    private final RowKeySchema schema;
    private final StructType sparkSchema;

    RowKeySparkTable(SourceOptions source, RowKeySchema schema) {
        this.source = source;
        this.schema = schema;
        this.sparkSchema = KeyColumns.schema(schema, source.cells);
    }

    @Override
    public String name() {
        return source.table;
    }

    @Override
    public StructType schema() {
        return sparkSchema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        // ACCEPT_ANY_SCHEMA: a write gives the key fields and any of the cells; RowKeyWrites checks them by name.
        return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.ACCEPT_ANY_SCHEMA);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new RowKeyScanBuilder(source, schema, sparkSchema);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return RowKeyWrites.builder(source, schema, info);
    }
}
