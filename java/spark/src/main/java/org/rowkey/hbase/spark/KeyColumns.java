package org.rowkey.hbase.spark;

import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.client.Result;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.rowkey.hbase.RowKeySchema;

/**
 * The table as Spark sees it: one column per key field, in key order (int32 an int, int64 and the
 * timestamps a long of milliseconds, bool, a fixed string a string, fixed bytes and hashed fields
 * binary: a digest cannot be turned back), never null; then the mapped cells, nullable.
 */
final class KeyColumns {
    private KeyColumns() {}

    static DataType sparkType(RowKeySchema schema, String field) {
        Class<?> c = schema.fieldClass(field);
        return c == Integer.class ? DataTypes.IntegerType : c == Long.class ? DataTypes.LongType
                : c == Boolean.class ? DataTypes.BooleanType : c == String.class ? DataTypes.StringType : DataTypes.BinaryType;
    }

    static StructType schema(RowKeySchema schema, List<CellColumn> cells) {
        StructType s = new StructType();
        for (String f : schema.fieldNames()) {
            s = s.add(f, sparkType(schema, f), false);
        }
        for (CellColumn c : cells) {
            if (schema.fieldNames().contains(c.name)) {
                throw new IllegalArgumentException("option columns: '" + c.name + "' is a key field's name");
            }
            s = s.add(c.name, c.kind.sparkType, true);
        }
        return s;
    }

    /** A key field's value as Spark holds it. */
    static Object toSpark(Object value) {
        return value instanceof String ? UTF8String.fromString((String) value) : value;
    }

    /** Turns HBase rows into the rows of {@code wanted}'s columns. */
    static final class Converter {
        private final RowKeySchema schema;
        private final String[] names;
        private final CellColumn[] cells;
        private final boolean decodes;

        Converter(RowKeySchema schema, SourceOptions options, StructType wanted) {
            this.schema = schema;
            this.names = wanted.fieldNames();
            this.cells = new CellColumn[names.length];
            boolean keys = false;
            for (int i = 0; i < names.length; i++) {
                cells[i] = options.cell(names[i]);
                keys |= cells[i] == null;
            }
            this.decodes = keys;
        }

        /** Whether any mapped cell is wanted (else the scan reads keys only). */
        boolean readsCells() {
            for (CellColumn c : cells) {
                if (c != null) {
                    return true;
                }
            }
            return false;
        }

        InternalRow convert(Result r) {
            Map<String, Object> key = decodes ? schema.decode(r.getRow()) : null;
            Object[] values = new Object[names.length];
            for (int i = 0; i < names.length; i++) {
                values[i] = cells[i] == null ? toSpark(key.get(names[i])) : cells[i].toSpark(r.getValue(cells[i].family, cells[i].qualifier));
            }
            return new GenericInternalRow(values);
        }
    }
}
