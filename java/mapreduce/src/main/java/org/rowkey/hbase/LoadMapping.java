package org.rowkey.hbase;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;

/**
 * Where a bulk load takes a row's key fields and columns from in an input record (issue 25): one
 * rule per line, as the command's options or a mapping file gives them:
 *
 * <pre>
 *   key FIELD=INPUT                    key field FIELD from input field INPUT (default: the same name)
 *   column FAMILY:QUALIFIER=INPUT[:T]  a column from input field INPUT, its bytes by type T:
 *                                      string (default, UTF-8 of the text), int, long, double, boolean
 *                                      (HBase's Bytes.toBytes of the value)
 * </pre>
 *
 * Input values are JSON values or CSV text; each is converted to its key field's type (a number
 * for int32/int64/timestamp, also a JSON {@code {"$date": ...}} or ISO-8601 text for a timestamp,
 * true/false or 0/1 for a bool, a string for fixed strings and for md5/javaHash fields, which
 * hash it as {@link RowKeySchema#encode} does, hex for fixed bytes). What cannot be converted or
 * encoded is a {@link Rejected} naming the field and the reason.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class LoadMapping {
    /** A record that cannot be loaded, with the reason. */
    static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;

        Rejected(String reason) {
            super(reason, null, false, false);
        }
    }

    /** A column of the data row and where its value comes from. */
    static final class ColumnRule {
        final byte[] family;
        final byte[] qualifier;
        final String input;
        final String type;
        /** The column, as a reject's reason names it. */
        final String where;

        ColumnRule(byte[] family, byte[] qualifier, String input, String type) {
            this.family = family;
            this.qualifier = qualifier;
            this.input = input;
            this.type = type;
            this.where = "column " + Bytes.toString(family) + ":" + Bytes.toString(qualifier);
        }
    }

    private final RowKeySchema schema;
    private final List<ColumnRule> columns;
    /** The key's fields (every field of the schema) and their input field names, in key order. */
    private final FieldSpec[] keyFields;
    private final String[] keyFieldInputs;

    private LoadMapping(RowKeySchema schema, Map<String, String> keyInputs, List<ColumnRule> columns) {
        this.schema = schema;
        this.columns = columns;
        this.keyFields = keyInputs.keySet().stream().map(schema::field).toArray(FieldSpec[]::new);
        this.keyFieldInputs = keyInputs.values().toArray(new String[0]);
    }

    /**
     * The mapping of {@code rules} (lines as above; blank lines and {@code #} comments ignored) for
     * {@code schema}.
     *
     * @throws IllegalArgumentException naming the rule: unknown key field, bad syntax, unknown
     *     type, no column at all (a row needs a cell to exist)
     */
    static LoadMapping parse(RowKeySchema schema, List<String> rules) {
        Map<String, String> keyInputs = new LinkedHashMap<>();
        for (String field : schema.fieldNames()) {
            keyInputs.put(field, field);
        }
        List<ColumnRule> columns = new ArrayList<>();
        for (String line : rules) {
            String rule = line.trim();
            if (rule.isEmpty() || rule.startsWith("#")) {
                continue;
            }
            String[] kindAndRest = rule.split("\\s+", 2);
            int eq = kindAndRest.length == 2 ? kindAndRest[1].indexOf('=') : -1;
            if (eq <= 0 || eq == kindAndRest[1].length() - 1) {
                throw new IllegalArgumentException("mapping rule '" + line + "': expected 'key FIELD=INPUT' or"
                        + " 'column FAMILY:QUALIFIER=INPUT[:TYPE]'");
            }
            String target = kindAndRest[1].substring(0, eq).trim();
            String source = kindAndRest[1].substring(eq + 1).trim();
            if (kindAndRest[0].equals("key")) {
                if (!keyInputs.containsKey(target)) {
                    throw new IllegalArgumentException("mapping rule '" + line + "': the key has no field '" + target
                            + "' (fields: " + schema.fieldNames() + ")");
                }
                keyInputs.put(target, source);
            } else if (kindAndRest[0].equals("column")) {
                int colon = target.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("mapping rule '" + line + "': a column is FAMILY:QUALIFIER");
                }
                String type = "string";
                int typeColon = source.lastIndexOf(':');
                if (typeColon > 0) {
                    type = source.substring(typeColon + 1);
                    source = source.substring(0, typeColon);
                }
                if (!Arrays.asList(COLUMN_TYPES).contains(type)) {
                    throw new IllegalArgumentException("mapping rule '" + line + "': unknown column type '" + type
                            + "' (one of " + String.join(", ", COLUMN_TYPES) + ")");
                }
                columns.add(new ColumnRule(Bytes.toBytes(target.substring(0, colon)),
                        Bytes.toBytes(target.substring(colon + 1)), source, type));
            } else {
                throw new IllegalArgumentException("mapping rule '" + line + "': unknown kind '" + kindAndRest[0]
                        + "' (key or column)");
            }
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("the mapping has no column: a row needs at least one cell"
                    + " (add 'column FAMILY:QUALIFIER=INPUT')");
        }
        return new LoadMapping(schema, keyInputs, Collections.unmodifiableList(columns));
    }

    private static final String[] COLUMN_TYPES = {"string", "int", "long", "double", "boolean"};

    List<ColumnRule> columns() {
        return columns;
    }

    /** The input field names the mapping reads, key fields first. */
    List<String> inputs() {
        List<String> inputs = new ArrayList<>(Arrays.asList(keyFieldInputs));
        for (ColumnRule c : columns) {
            inputs.add(c.input);
        }
        return inputs;
    }

    /**
     * The row key of {@code record} (input field name to a {@link Record} value: String, BigDecimal,
     * Boolean, Long epoch millis of a {@code $date}, or null).
     */
    byte[] rowKey(Map<String, Object> record) throws Rejected {
        FlatValues values = new FlatValues();
        try {
            for (int i = 0; i < keyFields.length; i++) {
                Object raw = record.get(keyFieldInputs[i]);
                if (raw == null) {
                    throw new Rejected("key field '" + keyFields[i].getName() + "': input field '" + keyFieldInputs[i]
                            + "' is missing");
                }
                Values.convert(keyFields[i], keyValue(keyFields[i], raw), values);
            }
            return schema.encode(values);
        } catch (IllegalArgumentException e) {
            throw new Rejected(e.getMessage());
        }
    }

    /** The value of column {@code rule} in {@code record}, or null when the record has none. */
    static byte[] columnValue(ColumnRule rule, Map<String, Object> record) throws Rejected {
        Object raw = record.get(rule.input);
        if (raw == null) {
            return null;
        }
        String where = rule.where;
        try {
            switch (rule.type) {
                case "int":
                    return Bytes.toBytes(number(where, raw).intValueExact());
                case "long":
                    return Bytes.toBytes(number(where, raw).longValueExact());
                case "double":
                    return Bytes.toBytes(number(where, raw).doubleValue());
                case "boolean":
                    return Bytes.toBytes(bool(where, raw));
                default:
                    return text(raw).getBytes(StandardCharsets.UTF_8);
            }
        } catch (ArithmeticException e) {
            throw new Rejected(where + ": " + describe(raw) + " is not a whole number in the range of " + rule.type);
        }
    }

    private static BigDecimal number(Object label, Object raw) throws Rejected {
        if (raw instanceof BigDecimal) {
            return (BigDecimal) raw;
        }
        if (raw instanceof Long) {
            return BigDecimal.valueOf((Long) raw);
        }
        if (raw instanceof String) {
            try {
                return new BigDecimal(((String) raw).trim());
            } catch (NumberFormatException e) {
                throw new Rejected(where(label) + ": '" + raw + "' is not a number");
            }
        }
        throw new Rejected(where(label) + ": " + describe(raw) + " is not a number");
    }

    private static boolean bool(Object label, Object raw) throws Rejected {
        if (raw instanceof Boolean) {
            return (Boolean) raw;
        }
        if ("1".equals(raw) || "0".equals(raw)) { // CSV's usual form, without trimming and lower-casing a copy
            return "1".equals(raw);
        }
        String s = raw instanceof BigDecimal ? ((BigDecimal) raw).toPlainString() : raw instanceof String
                ? ((String) raw).trim().toLowerCase(Locale.ROOT) : "";
        if (s.equals("true") || s.equals("1")) {
            return true;
        }
        if (s.equals("false") || s.equals("0")) {
            return false;
        }
        throw new Rejected(where(label) + ": " + describe(raw) + " is not a bool (true/false or 1/0)");
    }

    private static String text(Object raw) {
        return raw instanceof BigDecimal ? ((BigDecimal) raw).toPlainString() : String.valueOf(raw);
    }

    private static String describe(Object raw) {
        return raw instanceof String ? "'" + raw + "'" : raw.toString();
    }

    /** The Java value {@link RowKeySchema#encode} takes for {@code field}, from an input value. */
    private static Object keyValue(FieldSpec field, Object raw) throws Rejected {
        switch (field.getType()) {
            case INT32:
            case INT64:
                return number(field, raw);
            case TIMESTAMP:
            case REVERSED_TIMESTAMP:
                if (raw instanceof String && !WHOLE_NUMBER.matcher(((String) raw).trim()).matches()) {
                    try {
                        return Instant.parse(((String) raw).trim());
                    } catch (DateTimeParseException e) {
                        throw new Rejected(where(field) + ": '" + raw + "' is neither epoch milliseconds nor an ISO-8601 instant");
                    }
                }
                return number(field, raw);
            case BOOL:
                return bool(field, raw);
            case FIXED_BYTES:
                if (raw instanceof String) {
                    return hex(field, (String) raw);
                }
                throw new Rejected(where(field) + ": " + describe(raw) + " is not a hex string");
            default: // fixed strings, md5, javaHash
                if (raw instanceof String) {
                    return raw;
                }
                throw new Rejected(where(field) + ": " + describe(raw) + " is not a string");
        }
    }

    /**
     * How a reject's reason names a value: {@code label} a key field's spec or a column's text
     * ({@link ColumnRule#where}). Made only for a reject: every line's every key field passes here.
     */
    private static String where(Object label) {
        return label instanceof FieldSpec ? "key field '" + ((FieldSpec) label).getName() + "'" : String.valueOf(label);
    }

    private static final java.util.regex.Pattern WHOLE_NUMBER = java.util.regex.Pattern.compile("-?\\d+");

    private static byte[] hex(Object label, String s) throws Rejected {
        String digits = s.startsWith("0x") ? s.substring(2) : s;
        if (digits.length() % 2 != 0 || !digits.matches("[0-9a-fA-F]*")) {
            throw new Rejected(where(label) + ": '" + s + "' is not hex");
        }
        return Bytes.fromHex(digits);
    }
}
