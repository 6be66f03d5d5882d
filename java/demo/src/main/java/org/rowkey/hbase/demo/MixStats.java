package org.rowkey.hbase.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Every operation's outcome in the load test: when it started (ms since the run began), how long it
 * took, and whether it failed; failures counted by kind of operation and kind of error (the
 * exception's class and its message with numbers, servers and regions blanked, so that the same
 * failure on another region counts once).
 */
final class MixStats {
    /** One kind's operations, in the order they ended. */
    static final class Series {
        private long[] startMillis = new long[1024];
        private int[] micros = new int[1024];
        private boolean[] failed = new boolean[1024];
        private int size;

        synchronized void add(long start, long tookMicros, boolean error) {
            if (size == startMillis.length) {
                startMillis = Arrays.copyOf(startMillis, size * 2);
                micros = Arrays.copyOf(micros, size * 2);
                failed = Arrays.copyOf(failed, size * 2);
            }
            startMillis[size] = start;
            micros[size] = (int) Math.min(Integer.MAX_VALUE, tookMicros);
            failed[size] = error;
            size++;
        }

        /** The latencies (µs) of the operations that succeeded and started in [from, to) ms, sorted. */
        synchronized int[] latencies(long from, long to) {
            int[] out = new int[size];
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (!failed[i] && startMillis[i] >= from && startMillis[i] < to) {
                    out[n++] = micros[i];
                }
            }
            int[] sorted = Arrays.copyOf(out, n);
            Arrays.sort(sorted);
            return sorted;
        }

        synchronized int count(long from, long to) {
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (startMillis[i] >= from && startMillis[i] < to) {
                    n++;
                }
            }
            return n;
        }

        synchronized int errors() {
            int n = 0;
            for (int i = 0; i < size; i++) {
                n += failed[i] ? 1 : 0;
            }
            return n;
        }

        /** The time every operation took, failed ones too, in seconds. */
        synchronized double totalSeconds() {
            double total = 0;
            for (int i = 0; i < size; i++) {
                total += micros[i] / 1e6;
            }
            return total;
        }

        /** When each operation started, ms since the run began. */
        synchronized long[] starts() {
            return Arrays.copyOf(startMillis, size);
        }

        synchronized int size() {
            return size;
        }
    }

    /** One kind of error: how often, when first, and one full message. */
    static final class ErrorCount {
        final LongAdder count = new LongAdder();
        final long firstMillis;
        final String example;

        ErrorCount(long firstMillis, String example) {
            this.firstMillis = firstMillis;
            this.example = example;
        }
    }

    private final long startNanos = System.nanoTime();
    private final Map<MixKind, Series> series = new EnumMap<>(MixKind.class);
    private final ConcurrentHashMap<String, ErrorCount> errors = new ConcurrentHashMap<>();

    MixStats() {
        for (MixKind k : MixKind.values()) {
            series.put(k, new Series());
        }
    }

    long nowMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    Series series(MixKind kind) {
        return series.get(kind);
    }

    void success(MixKind kind, long startMillis, long tookNanos) {
        series.get(kind).add(startMillis, tookNanos / 1000, false);
    }

    void failure(MixKind kind, long startMillis, long tookNanos, Throwable error) {
        series.get(kind).add(startMillis, tookNanos / 1000, true);
        countError(kind.label, error);
    }

    /** An error outside the operations (a check, the chaos thread), under {@code where}. */
    void countError(String where, Throwable error) {
        String key = where + "\t" + errorKind(error);
        errors.computeIfAbsent(key, k -> new ErrorCount(nowMillis(), describe(error))).count.increment();
    }

    /** Errors by "where \t kind", most frequent first. */
    List<Map.Entry<String, ErrorCount>> errorsByCount() {
        List<Map.Entry<String, ErrorCount>> list = new ArrayList<>(new TreeMap<>(errors).entrySet());
        list.sort((a, b) -> Long.compare(b.getValue().count.sum(), a.getValue().count.sum()));
        return list;
    }

    long errorCount() {
        long n = 0;
        for (ErrorCount e : errors.values()) {
            n += e.count.sum();
        }
        return n;
    }

    /**
     * The error's class and message, then its root cause's if another, with what varies between
     * occurrences of one problem blanked: server names, regions, numbers.
     */
    static String errorKind(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = error.getClass().getSimpleName() + ": " + shortMessage(error);
        if (root != error) {
            kind += " <- " + root.getClass().getSimpleName() + ": " + shortMessage(root);
        }
        return kind;
    }

    private static String shortMessage(Throwable t) {
        String m = t.getMessage() == null ? "" : t.getMessage();
        int newline = m.indexOf('\n');
        if (newline >= 0) {
            m = m.substring(0, newline);
        }
        m = m.replaceAll("[0-9a-f]{32}", "<region>")
                .replaceAll("127\\.0\\.0\\.1[,:][0-9]+(,[0-9]+)?", "<server>")
                .replaceAll("[0-9]+", "N");
        return m.length() > 140 ? m.substring(0, 140) + "..." : m;
    }

    /** The whole chain of messages, for one example per kind of error. */
    static String describe(Throwable error) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (b.length() > 0) {
                b.append(" <- ");
            }
            String m = String.valueOf(t.getMessage()).replace('\n', ' ');
            b.append(t.getClass().getName()).append(": ").append(m.length() > 400 ? m.substring(0, 400) + "..." : m);
        }
        return b.toString();
    }

    /** The p-th percentile (0..100) of sorted latencies in ms; NaN if none. */
    static double percentileMillis(int[] sortedMicros, double p) {
        if (sortedMicros.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sortedMicros.length) - 1;
        return sortedMicros[Math.max(0, Math.min(sortedMicros.length - 1, index))] / 1000.0;
    }

    static String millis(double ms) {
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms < 10 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%,.0f", ms);
    }
}
