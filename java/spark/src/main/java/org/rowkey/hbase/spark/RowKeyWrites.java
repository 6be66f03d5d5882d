package org.rowkey.hbase.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Put;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.rowkey.hbase.RowKeySchema;

/**
 * {@code df.write.format("rowkey").mode("append").save()}: each row a {@code Put} through the
 * normal HBase client, so the table's coprocessor keeps every index exact as for any other write.
 * The DataFrame gives every key field (its own Spark type) and any of the mapped cells; a null cell
 * is not written (nothing is deleted). Not a transaction: a failed task's rows may be in, and Spark
 * writing them again puts the same cells.
 */
final class RowKeyWrites {
    private RowKeyWrites() {}

    static WriteBuilder builder(SourceOptions source, RowKeySchema schema, LogicalWriteInfo info) {
        Layout layout = Layout.of(source, schema, info.schema());
        Write write = new Write() {
            @Override
            public BatchWrite toBatch() {
                return new BatchWrite() {
                    @Override
                    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physical) {
                        return (partition, task) -> new RowWriter(source, layout);
                    }

                    @Override
                    public void commit(WriterCommitMessage[] messages) {
                        // every task flushed its puts before it committed
                    }

                    @Override
                    public void abort(WriterCommitMessage[] messages) {
                        // rows already put stay: see the class comment
                    }
                };
            }

            @Override
            public String description() {
                return "rowkey " + source.table + " append (puts; indexes kept by the coprocessor)";
            }
        };
        return new WriteBuilder() {
            @Override
            public Write build() {
                return write;
            }
        };
    }

    /** Which DataFrame column is which key field or cell, checked once on the driver. */
    static final class Layout implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final String[] keyFields;
        final int[] keyColumns;
        final CellColumn[] cells;
        final int[] cellColumns;
        final byte[] schema;

        private Layout(String[] keyFields, int[] keyColumns, CellColumn[] cells, int[] cellColumns, byte[] schema) {
            this.keyFields = keyFields;
            this.keyColumns = keyColumns;
            this.cells = cells;
            this.cellColumns = cellColumns;
            this.schema = schema;
        }

        /** @throws IllegalArgumentException naming a key field missing, a column of another type, or one that is neither */
        static Layout of(SourceOptions source, RowKeySchema schema, StructType data) {
            String[] keyFields = schema.fieldNames().toArray(new String[0]);
            int[] keyColumns = new int[keyFields.length];
            for (int k = 0; k < keyFields.length; k++) {
                keyColumns[k] = -1;
            }
            java.util.List<CellColumn> cells = new java.util.ArrayList<>();
            java.util.List<Integer> cellColumns = new java.util.ArrayList<>();
            StructField[] fields = data.fields();
            for (int i = 0; i < fields.length; i++) {
                String name = fields[i].name();
                int k = schema.fieldNames().indexOf(name);
                CellColumn cell = source.cell(name);
                DataType want = k >= 0 ? KeyColumns.sparkType(schema, name) : cell == null ? null : cell.kind.sparkType;
                if (want == null) {
                    throw new IllegalArgumentException("rowkey write to " + source.table + ": column '" + name + "' is neither a"
                            + " key field " + schema.fieldNames() + " nor a mapped cell " + SourceOptions.names(source.cells)
                            + " (option columns)");
                }
                if (!want.equals(fields[i].dataType())) {
                    throw new IllegalArgumentException("rowkey write to " + source.table + ": column '" + name + "' is "
                            + fields[i].dataType().simpleString() + ", the table's is " + want.simpleString() + " (cast it)");
                }
                if (k >= 0) {
                    keyColumns[k] = i;
                } else {
                    cells.add(cell);
                    cellColumns.add(i);
                }
            }
            for (int k = 0; k < keyFields.length; k++) {
                if (keyColumns[k] < 0) {
                    throw new IllegalArgumentException("rowkey write to " + source.table + ": key field '" + keyFields[k]
                            + "' has no column (the row key needs every field: " + schema.fieldNames() + ")");
                }
            }
            if (cells.isEmpty()) {
                throw new IllegalArgumentException("rowkey write to " + source.table + ": no mapped cell column (option"
                        + " columns): an HBase row needs a cell");
            }
            return new Layout(keyFields, keyColumns, cells.toArray(new CellColumn[0]),
                    cellColumns.stream().mapToInt(Integer::intValue).toArray(), schema.toByteArray());
        }
    }

    static final class RowWriter implements DataWriter<InternalRow> {
        private final Layout layout;
        private final RowKeySchema schema;
        private final DataType[] keyTypes;
        private final BufferedMutator mutator;
        private final String table;
        private long rows;

        RowWriter(SourceOptions source, Layout layout) {
            this.layout = layout;
            this.schema = RowKeySchema.parseFrom(layout.schema);
            this.table = source.table;
            this.keyTypes = new DataType[layout.keyFields.length];
            for (int k = 0; k < keyTypes.length; k++) {
                keyTypes[k] = KeyColumns.sparkType(schema, layout.keyFields[k]);
            }
            try {
                this.mutator = source.connection().getBufferedMutator(source.tableName());
            } catch (IOException e) {
                throw new UncheckedIOException("rowkey write to " + table + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void write(InternalRow row) throws IOException {
            Map<String, Object> key = new LinkedHashMap<>();
            for (int k = 0; k < layout.keyFields.length; k++) {
                int at = layout.keyColumns[k];
                if (row.isNullAt(at)) {
                    throw new IllegalArgumentException("rowkey write to " + table + ": key field '" + layout.keyFields[k]
                            + "' is null in a row (" + rows + " rows of this task written before it)");
                }
                Object v = row.get(at, keyTypes[k]);
                key.put(layout.keyFields[k], v instanceof org.apache.spark.unsafe.types.UTF8String ? v.toString() : v);
            }
            Put put = new Put(schema.encode(key));
            for (int c = 0; c < layout.cells.length; c++) {
                int at = layout.cellColumns[c];
                if (!row.isNullAt(at)) {
                    CellColumn cell = layout.cells[c];
                    put.addColumn(cell.family, cell.qualifier, cell.toBytes(row.get(at, cell.kind.sparkType)));
                }
            }
            if (put.isEmpty()) {
                throw new IllegalArgumentException("rowkey write to " + table + ": the row " + key + " has every cell null:"
                        + " an HBase row needs a cell (" + rows + " rows of this task written before it)");
            }
            mutator.mutate(put);
            rows++;
        }

        @Override
        public WriterCommitMessage commit() throws IOException {
            mutator.flush();
            return new Written(rows);
        }

        @Override
        public void abort() throws IOException {
            mutator.close();
        }

        @Override
        public void close() throws IOException {
            mutator.close();
        }
    }

    /** What a task reports: how many rows it put. */
    static final class Written implements WriterCommitMessage {
        private static final long serialVersionUID = 1L;
        final long rows;

        Written(long rows) {
            this.rows = rows;
        }

        @Override
        public String toString() {
            return rows + " rows";
        }
    }
}
