package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The calls a RegionServer handler held longer than {@code hbase.ipc.warn.response.time} (2 s in
 * hbase.sh's pseudo-distributed mode), from HBase's own {@code (responseTooSlow)} lines in the
 * RegionServers' logs: what the handler-time maximum of /jmx cannot say, which method and table.
 */
final class SlowCalls {
    /** One logged call. */
    static final class Call {
        final String server;
        final LocalDateTime at;
        final String method;
        final String table;
        final long millis;
        final String param;

        Call(String server, LocalDateTime at, String method, String table, long millis, String param) {
            this.server = server;
            this.at = at;
            this.method = method;
            this.table = table;
            this.millis = millis;
            this.param = param;
        }
    }

    private static final Pattern LOG_NAME = Pattern.compile("rs-(\\d+)(\\.\\d+)?\\.log");
    private static final Pattern METHOD = Pattern.compile("\"method\":\"([^\"]+)\"");
    private static final Pattern MILLIS = Pattern.compile("\"processingtimems\":(\\d+)");
    private static final Pattern PARAM = Pattern.compile("\"param\":\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** The region in a request's short text: "region= <table>,<start key>,<id>.<encoded>." (Gson writes '=' as \u003d). */
    private static final Pattern TABLE = Pattern.compile("region=\\s*([^,\\s]+),");

    private SlowCalls() {}

    /** The slow calls since {@code since} logged by the RegionServers whose logs are in {@code logs}, in log order per server. */
    static List<Call> read(Path logs, LocalDateTime since) throws IOException {
        List<Call> calls = new ArrayList<>();
        if (logs == null || !Files.isDirectory(logs)) {
            return calls;
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(logs)) {
            files = list.filter(f -> LOG_NAME.matcher(f.getFileName().toString()).matches()).sorted().collect(
                    java.util.stream.Collectors.toList());
        }
        for (Path f : files) {
            Matcher name = LOG_NAME.matcher(f.getFileName().toString());
            name.matches();
            String server = "RS" + name.group(1);
            try (Stream<String> lines = Files.lines(f)) {
                lines.filter(l -> l.contains("(responseTooSlow")).map(l -> parse(server, l)).filter(c -> c.at != null
                        && !c.at.isBefore(since)).forEach(calls::add);
            }
        }
        return calls;
    }

    private static Call parse(String server, String line) {
        LocalDateTime at;
        try {
            at = LocalDateTime.parse(line.substring(0, 19).replace(' ', 'T'));
        } catch (RuntimeException e) {
            at = null;
        }
        String method = group(METHOD, line, "?");
        long millis = Long.parseLong(group(MILLIS, line, "-1"));
        String param = group(PARAM, line, "").replace("\\u003d", "=").replace("\\\"", "\"").replace("\\\\", "\\");
        // A scanner's next call names only its scanner id.
        String table = group(TABLE, param, "(no region in the log)");
        return new Call(server, at, method, table, millis, param.length() > 160 ? param.substring(0, 160) + "..." : param);
    }

    private static String group(Pattern p, String text, String otherwise) {
        Matcher m = p.matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }

    /** Count and largest time per "method on table". */
    static Map<String, long[]> byMethodAndTable(List<Call> calls) {
        Map<String, long[]> out = new TreeMap<>();
        for (Call c : calls) {
            long[] countMax = out.computeIfAbsent(c.method + " on " + c.table, k -> new long[2]);
            countMax[0]++;
            countMax[1] = Math.max(countMax[1], c.millis);
        }
        return out;
    }
}
