package org.rowkey.hbase.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.apache.hadoop.hbase.filter.Filter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.rowkey.hbase.BenchAccess;
import org.rowkey.hbase.demo.Queries.Query;

/**
 * Per-row cost of each way to evaluate the three queries ({@link Queries}) over the same
 * 1,000,000 generated seed-000 keys. One invocation evaluates {@value #BATCH} consecutive rows
 * (so the harness's own cost per row is negligible); the score is per row. Before the first
 * measured invocation, each benchmark's evaluator is run over all rows and must give exactly the
 * oracle's matches, or the benchmark fails.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PerRowBench {
    static final int BATCH = 1000;
    static final int ROWS = Integer.getInteger("bench.rows", 1_000_000);

    BenchData data;
    byte[] keys;
    ByteBuffer direct;
    RowCell cell;
    int cursor;

    ByteArrayComparable nativeEq2, nativeP4, nativeP8;
    ByteArrayComparable javaEq2, javaP4, javaP8;
    Filter seedEq2, seedP4, seedP8;
    Filter hbaseEq2, hbaseP4, hbaseP8;
    long floorHandle;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        data = BenchData.load(ROWS);
        keys = data.keys;
        direct = data.direct;
        cell = new RowCell(keys);
        Queries q = new Queries(data.schema);
        nativeEq2 = q.nativeComparator(Query.EQ2);
        nativeP4 = q.nativeComparator(Query.P4);
        nativeP8 = q.nativeComparator(Query.P8);
        javaEq2 = q.javaWords(Query.EQ2);
        javaP4 = q.javaWords(Query.P4);
        javaP8 = q.javaWords(Query.P8);
        seedEq2 = q.seedFilter(Query.EQ2);
        seedP4 = q.seedFilter(Query.P4);
        seedP8 = q.seedFilter(Query.P8);
        hbaseEq2 = q.hbaseFilter(Query.EQ2);
        hbaseP4 = q.hbaseFilter(Query.P4);
        hbaseP8 = q.hbaseFilter(Query.P8);
        floorHandle = BenchAccess.handle(nativeEq2);
        System.out.println("# per-row mechanism: " + BenchAccess.describe() + ", java " + System.getProperty("java.version"));
        for (Query query : Query.values()) {
            check(query, "native byte[]", i -> nativeOf(query).compareTo(keys, i * BenchData.KEY, BenchData.KEY) == 0);
            check(query, "java words", i -> javaOf(query).compareTo(keys, i * BenchData.KEY, BenchData.KEY) == 0);
            check(query, "seed FilterList", i -> matches(seedOf(query), i * BenchData.KEY));
            check(query, "HBase built-ins", i -> matches(hbaseOf(query), i * BenchData.KEY));
        }
        check(Query.EQ2, "native direct", i -> nativeEq2.compareTo(direct, i * BenchData.KEY, BenchData.KEY) == 0);
        check(Query.EQ2, "per-row seam", i -> BenchAccess.seamCompare(floorHandle, keys, i * BenchData.KEY, BenchData.KEY) == 0);
        check(Query.EQ2, "JNI compareArray", i -> BenchAccess.jniCompare(floorHandle, keys, i * BenchData.KEY, BenchData.KEY) == 0);
    }

    private ByteArrayComparable nativeOf(Query q) {
        return q == Query.EQ2 ? nativeEq2 : q == Query.P4 ? nativeP4 : nativeP8;
    }

    private ByteArrayComparable javaOf(Query q) {
        return q == Query.EQ2 ? javaEq2 : q == Query.P4 ? javaP4 : javaP8;
    }

    private Filter seedOf(Query q) {
        return q == Query.EQ2 ? seedEq2 : q == Query.P4 ? seedP4 : seedP8;
    }

    private Filter hbaseOf(Query q) {
        return q == Query.EQ2 ? hbaseEq2 : q == Query.P4 ? hbaseP4 : hbaseP8;
    }

    private void check(Query query, String what, java.util.function.IntPredicate evaluator) {
        int matches = 0;
        for (int i = 0; i < data.rows; i++) {
            boolean expected = Queries.oracle(query, data, i);
            if (evaluator.test(i) != expected) {
                throw new IllegalStateException(what + " disagrees with the oracle on " + query + " at row " + i);
            }
            matches += expected ? 1 : 0;
        }
        System.out.println("# " + query + " " + what + ": " + matches + " oracle matches, all rows agree");
    }

    /** Whether a filter keeps the row at {@code offset}, as a RegionServer asks it. */
    private boolean matches(Filter f, int offset) {
        try {
            f.reset();
            RowCell c = cell.at(offset);
            return !f.filterRowKey(c) && f.filterCell(c) == Filter.ReturnCode.INCLUDE;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private int nextBatch() {
        int start = cursor;
        cursor = start + BATCH >= data.rows ? 0 : start + BATCH;
        return start * BenchData.KEY;
    }

    private int compareAll(ByteArrayComparable c) {
        int base = nextBatch();
        int m = 0;
        for (int i = 0; i < BATCH; i++) {
            m += c.compareTo(keys, base + i * BenchData.KEY, BenchData.KEY) == 0 ? 1 : 0;
        }
        return m;
    }

    /** A native call with compareTo's arguments, on the active handle. */
    interface RowCall {
        int call(long comparator, byte[] row, int offset, int length);
    }

    /** The rows of the next batch for which {@code call} answers 0 (a match). One benchmark per JVM fork, so the call site stays monomorphic. */
    private int matchAll(RowCall call) {
        int base = nextBatch();
        int m = 0;
        for (int i = 0; i < BATCH; i++) {
            m += call.call(floorHandle, keys, base + i * BenchData.KEY, BenchData.KEY) == 0 ? 1 : 0;
        }
        return m;
    }

    /** The sum of {@code call}'s answers over the next batch (for the empty calls, which answer 0). */
    private int sumAll(RowCall call) {
        int base = nextBatch();
        int m = 0;
        for (int i = 0; i < BATCH; i++) {
            m += call.call(floorHandle, keys, base + i * BenchData.KEY, BenchData.KEY);
        }
        return m;
    }

    private int filterAll(Filter f) {
        int base = nextBatch();
        int m = 0;
        for (int i = 0; i < BATCH; i++) {
            m += matches(f, base + i * BenchData.KEY) ? 1 : 0;
        }
        return m;
    }

    // ---- 1. EqualComparator (2 fields) ----
    @Benchmark @OperationsPerInvocation(BATCH) public int eq2NativeArray() { return compareAll(nativeEq2); }

    @Benchmark @OperationsPerInvocation(BATCH)
    public int eq2NativeDirect() {
        int base = nextBatch();
        int m = 0;
        for (int i = 0; i < BATCH; i++) {
            m += nativeEq2.compareTo(direct, base + i * BenchData.KEY, BenchData.KEY) == 0 ? 1 : 0;
        }
        return m;
    }

    @Benchmark @OperationsPerInvocation(BATCH) public int eq2JavaWords() { return compareAll(javaEq2); }
    @Benchmark @OperationsPerInvocation(BATCH) public int eq2SeedFilterList() { return filterAll(seedEq2); }
    @Benchmark @OperationsPerInvocation(BATCH) public int eq2HBaseFuzzy() { return filterAll(hbaseEq2); }

    // ---- 2. PredicateComparator: 2 equalities + 2 ranges ----
    @Benchmark @OperationsPerInvocation(BATCH) public int p4Native() { return compareAll(nativeP4); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p4JavaWords() { return compareAll(javaP4); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p4SeedFilterList() { return filterAll(seedP4); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p4HBaseBuiltins() { return filterAll(hbaseP4); }

    // ---- 2'. PredicateComparator: 8 conditions with an IN list of 20 ----
    @Benchmark @OperationsPerInvocation(BATCH) public int p8Native() { return compareAll(nativeP8); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p8JavaWords() { return compareAll(javaP8); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p8SeedFilterList() { return filterAll(seedP8); }
    @Benchmark @OperationsPerInvocation(BATCH) public int p8HBaseBuiltins() { return filterAll(hbaseP8); }

    // ---- 5. floors: empty native calls with compareTo's arguments ----
    @Benchmark @OperationsPerInvocation(BATCH)
    public int floorJni() {
        return sumAll(BenchAccess::jniFloor);
    }

    /** On Java 22+ (FFM path) only; the JNI path reports this as the JNI floor again. */
    @Benchmark @OperationsPerInvocation(BATCH)
    public int floorFfm() {
        return sumAll(BenchAccess::ffmFloor);
    }

    /** EqualComparator's work through the per-row seam alone: what NativeComparator's checks add is the difference. */
    @Benchmark @OperationsPerInvocation(BATCH)
    public int eq2Seam() {
        return matchAll(BenchAccess::seamCompare);
    }

    /** JNI compareArray called directly, whatever the active mechanism (the JNI path on Java 22+). */
    @Benchmark @OperationsPerInvocation(BATCH)
    public int eq2Jni() {
        return matchAll(BenchAccess::jniCompare);
    }
}
