package org.rowkey.hbase;

import java.util.List;
import java.util.Map;

/**
 * Maps, lists, strings, numbers, booleans and null as JSON, for what the command line and the jobs
 * print for scripts ({@code --json}): the status, the rows of a query, a verify report.
 */
@RunsIn(RunsIn.Where.SHARED)
final class Json {
    private Json() {}

    static String of(Object value) {
        StringBuilder s = new StringBuilder();
        write(s, value);
        return s.toString();
    }

    private static void write(StringBuilder s, Object v) {
        if (v == null) {
            s.append("null");
        } else if (v instanceof Map) {
            s.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                s.append(sep);
                string(s, String.valueOf(e.getKey()));
                s.append(": ");
                write(s, e.getValue());
                sep = ", ";
            }
            s.append('}');
        } else if (v instanceof List) {
            s.append('[');
            String sep = "";
            for (Object o : (List<?>) v) {
                s.append(sep);
                write(s, o);
                sep = ", ";
            }
            s.append(']');
        } else if (v instanceof Number || v instanceof Boolean) {
            s.append(v);
        } else {
            string(s, v.toString());
        }
    }

    private static void string(StringBuilder s, String text) {
        s.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20) {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        s.append('"');
    }
}
