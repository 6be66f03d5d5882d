package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.hadoop.hbase.util.Bytes;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A cell mapped to a column: {@code option("columns", "url f:url string, status f:s int")}. Its
 * type says how the value was written: {@code string} (UTF-8), {@code int}, {@code long} and
 * {@code double} ({@code Bytes.toBytes} of the number), {@code binary} (as it is). A row without
 * the cell gives null.
 */
final class CellColumn implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Kind {
        STRING(DataTypes.StringType), INT(DataTypes.IntegerType), LONG(DataTypes.LongType), DOUBLE(DataTypes.DoubleType),
        BINARY(DataTypes.BinaryType);

        final DataType sparkType;

        Kind(DataType sparkType) {
            this.sparkType = sparkType;
        }
    }

    final String name;
    final byte[] family;
    final byte[] qualifier;
    final Kind kind;

    private CellColumn(String name, byte[] family, byte[] qualifier, Kind kind) {
        this.name = name;
        this.family = family;
        this.qualifier = qualifier;
        this.kind = kind;
    }

    /** The columns of a {@code columns} option; none for null. */
    static List<CellColumn> parseAll(String text) {
        if (text == null || text.trim().isEmpty()) {
            return Collections.emptyList();
        }
        List<CellColumn> all = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String part : text.split(",")) {
            String[] words = part.trim().split("\\s+");
            int colon = words.length == 3 ? words[1].indexOf(':') : -1;
            if (colon <= 0) {
                throw new IllegalArgumentException("option columns: '" + part.trim() + "' is not <name> <family>:<qualifier>"
                        + " <string|int|long|double|binary>");
            }
            Kind kind;
            try {
                kind = Kind.valueOf(words[2].toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("option columns: column '" + words[0] + "' has type '" + words[2]
                        + "'; the types are string, int, long, double, binary");
            }
            if (!seen.add(words[0])) {
                throw new IllegalArgumentException("option columns: column '" + words[0] + "' is named twice");
            }
            all.add(new CellColumn(words[0], Bytes.toBytes(words[1].substring(0, colon)),
                    Bytes.toBytes(words[1].substring(colon + 1)), kind));
        }
        return Collections.unmodifiableList(all);
    }

    /** The Spark value of the cell's bytes (null for none), or an error naming the cell when they cannot be its type. */
    Object toSpark(byte[] value) {
        if (value == null) {
            return null;
        }
        int width = kind == Kind.INT ? 4 : kind == Kind.LONG || kind == Kind.DOUBLE ? 8 : -1;
        if (width > 0 && value.length != width) {
            throw new IllegalStateException("cell " + Bytes.toStringBinary(family) + ":" + Bytes.toStringBinary(qualifier)
                    + " (column '" + name + "', " + kind.name().toLowerCase(Locale.ROOT) + ") holds " + value.length
                    + " bytes, not " + width + ": " + Bytes.toStringBinary(value));
        }
        switch (kind) {
            case STRING:
                return UTF8String.fromBytes(value);
            case INT:
                return Bytes.toInt(value);
            case LONG:
                return Bytes.toLong(value);
            case DOUBLE:
                return Bytes.toDouble(value);
            default:
                return value;
        }
    }

    /** The bytes a Spark value is written as. */
    byte[] toBytes(Object value) {
        switch (kind) {
            case STRING:
                return ((UTF8String) value).getBytes();
            case INT:
                return Bytes.toBytes((Integer) value);
            case LONG:
                return Bytes.toBytes((Long) value);
            case DOUBLE:
                return Bytes.toBytes((Double) value);
            default:
                return (byte[]) value;
        }
    }
}
