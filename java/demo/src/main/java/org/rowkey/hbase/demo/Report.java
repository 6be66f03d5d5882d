package org.rowkey.hbase.demo;

import java.util.Locale;

/** The demo's result table. */
final class Report {
    private Report() {}

    private static final String FORMAT = "%-58s %9s | %11s %9s | %11s %9s | %8s  %s";

    static String header() {
        return String.format(Locale.ROOT, FORMAT, "query", "rows", "seed: read", "ms", "planned: read", "ms", "speedup", "same rows")
                + "\n" + "-".repeat(140);
    }

    static String row(String name, Demo.Outcome seed, Demo.Outcome planned, boolean same) {
        return String.format(Locale.ROOT, FORMAT, name, String.format(Locale.ROOT, "%,d", planned.rows.size()),
                String.format(Locale.ROOT, "%,d", seed.rowsRead), String.format(Locale.ROOT, "%.0f", seed.millis),
                String.format(Locale.ROOT, "%,d", planned.rowsRead), String.format(Locale.ROOT, "%.0f", planned.millis),
                String.format(Locale.ROOT, "%.1fx", seed.millis / Math.max(planned.millis, 0.01)), same ? "yes" : "NO");
    }
}
