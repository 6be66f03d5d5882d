package org.rowkey.hbase.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.rowkey.hbase.RowKeyTable;

/**
 * The Spark data source {@code "rowkey"} (docs/spark.md): a table made by {@code RowKeyTable.create},
 * its key fields as columns, filters, required columns, limits and aggregates pushed into our
 * planner and the regions.
 *
 * <pre>{@code
 * spark.read().format("rowkey").option("table", "urlscan").option("zookeeper", "zk1:2181")
 *      .option("columns", "url f:url string").load()
 * }</pre>
 */
public final class RowKeySource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "rowkey";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        SourceOptions source = SourceOptions.of(options);
        return KeyColumns.schema(open(source).schema(), source.cells);
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        SourceOptions source = SourceOptions.of(properties);
        return new RowKeySparkTable(source, open(source).schema());
    }

    static RowKeyTable open(SourceOptions source) {
        try {
            return RowKeyTable.open(source.connection(), source.tableName());
        } catch (IOException e) {
            throw new UncheckedIOException("rowkey source: opening table " + source.table + ": " + e.getMessage(), e);
        }
    }
}
