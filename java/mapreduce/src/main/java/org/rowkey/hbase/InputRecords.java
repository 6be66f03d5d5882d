package org.rowkey.hbase;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.hbase.thirdparty.com.google.gson.JsonPrimitive;

/**
 * One input line as a record (input field name to value) for a bulk load: JSON lines (a MongoDB
 * export's {@code {"$oid": "..."}} becomes its hex string, {@code {"$date": millis or ISO}} its
 * millis or ISO text, {@code {"$numberLong": "..."}} its number), or CSV/TSV lines under a header
 * line. Values are String, BigDecimal (JSON numbers, exactly), Boolean or Long; JSON null and
 * absent fields are absent. Nested objects and arrays are kept as their JSON text.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class InputRecords {
    enum Format {
        JSON, CSV, TSV;

        static Format of(String name) {
            try {
                return valueOf(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("input format '" + name + "': one of json, csv, tsv");
            }
        }

        /** Whether the first line of each file names the fields. */
        boolean hasHeader() {
            return this != JSON;
        }
    }

    private InputRecords() {}

    /**
     * The files of a load's inputs in load order (of the lines of one key, the last in this order
     * makes the row): the inputs in the order given, each a file, a directory (its files by name,
     * without the hidden ones MapReduce leaves out: names starting with '_' or '.') or a glob (its
     * matches by name). An input that matches nothing, a directory without files or holding a
     * directory, and a file given twice are refused, naming it.
     */
    static List<Path> files(List<String> inputs, Configuration conf) throws IOException {
        List<Path> files = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (String input : inputs) {
            Path path = new Path(input);
            FileSystem fs = path.getFileSystem(conf);
            FileStatus[] matches = fs.globStatus(path);
            if (matches == null || matches.length == 0) {
                throw new IllegalArgumentException("input " + input + " does not exist");
            }
            Arrays.sort(matches);
            for (FileStatus match : matches) {
                List<FileStatus> inMatch = match.isDirectory() ? visibleFiles(fs, match.getPath(), input)
                        : Collections.singletonList(match);
                for (FileStatus file : inMatch) {
                    if (!seen.add(file.getPath())) {
                        throw new IllegalArgumentException("input file " + file.getPath() + " is given twice (again by --input "
                                + input + ")");
                    }
                    files.add(file.getPath());
                }
            }
        }
        return files;
    }

    private static List<FileStatus> visibleFiles(FileSystem fs, Path dir, String input) throws IOException {
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus f : fs.listStatus(dir)) {
            String name = f.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (f.isDirectory()) {
                throw new IllegalArgumentException("input " + input + ": " + f.getPath() + " is a directory (an input"
                        + " directory may hold files only)");
            }
            files.add(f);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("input " + input + ": directory " + dir + " holds no input file");
        }
        Collections.sort(files);
        return files;
    }

    /** The record of a JSON line. */
    static Map<String, Object> json(String line) throws LoadMapping.Rejected {
        JsonElement parsed;
        try {
            parsed = JsonParser.parseString(line);
        } catch (JsonParseException e) {
            throw new LoadMapping.Rejected("not JSON: " + e.getMessage());
        }
        if (!parsed.isJsonObject()) {
            throw new LoadMapping.Rejected("not a JSON object");
        }
        Map<String, Object> record = new HashMap<>();
        for (Map.Entry<String, JsonElement> e : parsed.getAsJsonObject().entrySet()) {
            Object value = jsonValue(e.getValue());
            if (value != null) {
                record.put(e.getKey(), value);
            }
        }
        return record;
    }

    private static Object jsonValue(JsonElement element) {
        if (element.isJsonNull()) {
            return null;
        }
        if (element.isJsonPrimitive()) {
            JsonPrimitive p = element.getAsJsonPrimitive();
            return p.isBoolean() ? (Object) p.getAsBoolean() : p.isNumber() ? (Object) p.getAsBigDecimal() : p.getAsString();
        }
        if (element.isJsonObject()) {
            JsonObject o = element.getAsJsonObject();
            if (o.size() == 1) {
                for (String extended : new String[] {"$oid", "$date", "$numberLong", "$numberInt"}) {
                    JsonElement inner = o.get(extended);
                    if (inner != null && inner.isJsonPrimitive()) {
                        return jsonValue(inner);
                    }
                }
            }
        }
        return element.toString();
    }

    /** The field names of a CSV/TSV header line. */
    static List<String> header(Format format, String line) throws LoadMapping.Rejected {
        List<String> names = split(format, line);
        for (int i = 0; i < names.size(); i++) {
            names.set(i, names.get(i).trim());
        }
        return names;
    }

    /** The record of a CSV/TSV line under {@code header}; empty fields are absent. */
    static Map<String, Object> delimited(Format format, List<String> header, String line) throws LoadMapping.Rejected {
        List<String> values = split(format, line);
        if (values.size() != header.size()) {
            throw new LoadMapping.Rejected(values.size() + " fields where the header has " + header.size());
        }
        Map<String, Object> record = new HashMap<>();
        for (int i = 0; i < values.size(); i++) {
            if (!values.get(i).isEmpty()) {
                record.put(header.get(i), values.get(i));
            }
        }
        return record;
    }

    /** TSV: split at tabs. CSV: split at commas outside double quotes; "" inside quotes is one quote. */
    static List<String> split(Format format, String line) throws LoadMapping.Rejected {
        List<String> fields = new ArrayList<>();
        if (format == Format.TSV) {
            int start = 0;
            for (int tab = line.indexOf('\t'); tab >= 0; tab = line.indexOf('\t', start)) {
                fields.add(line.substring(start, tab));
                start = tab + 1;
            }
            fields.add(line.substring(start));
            return fields;
        }
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            throw new LoadMapping.Rejected("a quoted field is not closed (a field over several lines is not supported)");
        }
        fields.add(field.toString());
        return fields;
    }
}
