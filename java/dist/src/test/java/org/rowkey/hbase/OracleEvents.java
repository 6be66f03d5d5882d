package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What happened to the cluster and the data, in order, from every thread of the harness: a
 * disagreement report lists the events since the last check that agreed. Faults (region
 * operations, aborts, index changes, hand-made rows) are counted for the summary.
 */
final class OracleEvents {
    private final long startNanos = System.nanoTime();
    private final List<String> log = new ArrayList<>();
    private final AtomicInteger faults = new AtomicInteger();

    /** Something that happened (a write phase, a snapshot, a query phase starting). */
    synchronized int add(String what) {
        String line = String.format("%8.1fs [%s] %s", (System.nanoTime() - startNanos) / 1e9, Thread.currentThread().getName(), what);
        log.add(line);
        System.out.println("oracle event: " + line); // beside HBase's own log lines, in time order
        return log.size();
    }

    /** A fault injected: counted, and logged. */
    int fault(String what) {
        faults.incrementAndGet();
        return add(what);
    }

    synchronized int size() {
        return log.size();
    }

    /** The events from number {@code from} on, at most {@code max} (the last ones). */
    synchronized List<String> since(int from, int max) {
        List<String> out = new ArrayList<>(log.subList(Math.min(from, log.size()), log.size()));
        if (out.size() > max) {
            List<String> cut = new ArrayList<>();
            cut.add("... " + (out.size() - max) + " earlier events");
            cut.addAll(out.subList(out.size() - max, out.size()));
            return cut;
        }
        return out;
    }

    int faults() {
        return faults.get();
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
