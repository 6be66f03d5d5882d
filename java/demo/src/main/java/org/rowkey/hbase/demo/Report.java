package org.rowkey.hbase.demo;

import java.util.Locale;

/** The demo's result table. */
final class Report {
    private Report() {}

    private static final String FORMAT = "%-58s %9s | %10s %7s | %10s %7s | %21s %7s | %8s  %s";

    static String header() {
        return String.format(Locale.ROOT, FORMAT, "query", "rows", "seed: read", "ms", "toScan: read", "ms",
                "table.scan: index+data", "ms", "speedup", "same rows") + "\n" + "-".repeat(150);
    }

    static String row(String name, Demo.Outcome seed, Demo.Outcome planned, Demo.Outcome table, boolean same) {
        return String.format(Locale.ROOT, FORMAT, name, count(table.rows.size()), count(seed.rowsRead), millis(seed),
                count(planned.rowsRead), millis(planned), indexAndData(table), millis(table),
                String.format(Locale.ROOT, "%.1fx", seed.millis / Math.max(table.millis, 0.01)), same ? "yes" : "NO");
    }

    /** Rows read through an index as "index + data", or the data rows read alone. */
    static String indexAndData(Demo.Outcome o) {
        return o.indexRowsRead < 0 ? count(o.rowsRead) : count(o.indexRowsRead) + " + " + count(o.rowsRead);
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String millis(Demo.Outcome o) {
        return String.format(Locale.ROOT, "%.0f", o.millis);
    }
}
