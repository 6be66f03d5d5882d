package org.rowkey.hbase.demo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.util.ToolRunner;
import org.rowkey.hbase.BulkLoad;

/**
 * The load test's bulk loads: now and then a small {@link BulkLoad} job (JSON lines in seed 000's
 * export shape, the MapReduce LocalJobRunner in this JVM, HFiles for the data table and every index
 * loaded into the running cluster), of one day's rows while the client threads write the others and
 * that one: half new rows, half rows already loaded, given a new URL (loaded rows over live ones).
 * The day's lock is held shared for the whole load, as a write's.
 *
 * <p>A load that fails is run again with the same options and work directory, which the loader
 * resumes (docs/bulk-load.md, "One load, one work directory"); until it succeeds no new load starts,
 * since its open load window refuses any other load of the table.
 */
final class MixBulkLoads implements Runnable {
    private final Connection connection;
    private final TableName dataTable;
    private final MixQuestions questions;
    private final DayLocks locks;
    private final MixStats stats;
    private final AtomicBoolean stop;
    private final AtomicLong nextNewUrl;
    private final long everyMillis;
    private final int rowsPerLoad;
    private final Path workRoot;
    private final SplittableRandom random;
    private int loads;
    private int loaded;
    private int failedRuns;
    private String unfinished;

    MixBulkLoads(Connection connection, TableName dataTable, MixQuestions questions, DayLocks locks, MixStats stats, AtomicBoolean stop,
            AtomicLong nextNewUrl, long everyMillis, int rowsPerLoad, Path workRoot, long seed) {
        this.connection = connection;
        this.dataTable = dataTable;
        this.questions = questions;
        this.locks = locks;
        this.stats = stats;
        this.stop = stop;
        this.nextNewUrl = nextNewUrl;
        this.everyMillis = everyMillis;
        this.rowsPerLoad = rowsPerLoad;
        this.workRoot = workRoot;
        this.random = new SplittableRandom(seed);
    }

    /** One load's options: the same on every run of it, so that a run after a failure resumes it. */
    private static final class Load {
        final int number;
        final int day;
        final List<String> args;

        Load(int number, int day, List<String> args) {
            this.number = number;
            this.day = day;
            this.args = args;
        }
    }

    @Override
    public void run() {
        Load pending = null;
        long next = everyMillis / 2;
        while (!stop.get()) {
            try {
                Thread.sleep(Math.max(0, Math.min(1000, next - stats.nowMillis())));
                if (stats.nowMillis() < next || stop.get()) {
                    continue;
                }
                if (pending == null) {
                    pending = newLoad();
                }
                if (runLoad(pending)) {
                    pending = null;
                    next = stats.nowMillis() + everyMillis;
                } else {
                    // Run it again soon, to resume it (its window stays open meanwhile).
                    next = stats.nowMillis() + 15_000;
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                stats.countError("bulk load: writing its input", e);
                next = stats.nowMillis() + everyMillis;
            }
        }
        synchronized (this) {
            if (pending != null) {
                unfinished = "load " + pending.number + " (day " + MixQuestions.sdate(pending.day) + ", work directory "
                        + workRoot.resolve("load-" + pending.number) + ") had not succeeded when the run ended";
            }
        }
    }

    /** The input of a new load of one day, written to its own directory. */
    private Load newLoad() throws IOException {
        int number;
        synchronized (this) {
            number = ++loads;
        }
        int day = DayLocks.randomDay(random);
        Path dir = Files.createDirectories(workRoot.resolve("load-" + number));
        Path input = dir.resolve("input.json");
        try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
            for (int i = 0; i < rowsPerLoad; i++) {
                boolean fresh = i % 2 == 0;
                long url = fresh ? nextNewUrl.getAndIncrement() : random.nextInt(questions.urls);
                int row = MixQuestions.rowOf(url, day);
                Map<String, Object> fields = questions.data.row(row);
                String text = fresh ? questions.data.url(row) : questions.data.url(row) + "?bulk=" + number;
                w.write(LoadBench.exportLine(row, fields, text));
            }
        }
        List<String> args = new ArrayList<>(List.of("--table", dataTable.getNameAsString(), "--input", input.toUri().toString(),
                "--column", "f:url=url", "--work", dir.resolve("work").toUri().toString(), "--quiet"));
        return new Load(number, day, args);
    }

    /** One run of a load while its day is held; true if it loaded everything. */
    private boolean runLoad(Load load) throws InterruptedException {
        // Its day is taken before its clock starts, as a write's.
        locks.acquireWriteOf(load.day);
        long startMillis = stats.nowMillis();
        long start = System.nanoTime();
        try {
            int exit = ToolRunner.run(LoadMix.bulkLoadConf(connection), new BulkLoad(), load.args.toArray(new String[0]));
            if (exit != 0) {
                throw new IOException("BulkLoad exited with " + exit + " (" + String.join(" ", load.args) + "; its reason is in the"
                        + " client log, -Dloadmix.log)");
            }
            stats.success(MixKind.BULK_LOAD, startMillis, System.nanoTime() - start);
            synchronized (this) {
                loaded++;
            }
            System.out.printf(Locale.ROOT, "[%s] bulk load %d: %,d rows of sdate %d loaded (%.1f s)%n",
                    LoadMix.clock(startMillis), load.number, rowsPerLoad, MixQuestions.sdate(load.day), (System.nanoTime() - start) / 1e9);
            return true;
        } catch (Exception e) {
            stats.failure(MixKind.BULK_LOAD, startMillis, System.nanoTime() - start, e);
            System.out.printf(Locale.ROOT, "[%s] bulk load %d FAILED after %.1f s, to be resumed: %s%n", LoadMix.clock(startMillis),
                    load.number, (System.nanoTime() - start) / 1e9, MixStats.errorKind(e));
            synchronized (this) {
                failedRuns++;
            }
            return false;
        } finally {
            locks.releaseWrite(load.day);
        }
    }

    /** "N loads of R rows, L succeeded, F runs failed and were resumed", and an unfinished load if any. */
    synchronized String summary() {
        return String.format(Locale.ROOT, "%d load(s) of %,d rows started, %d finished, %d failed run(s) resumed%s",
                loads, rowsPerLoad, loaded, failedRuns, unfinished == null ? "" : "; " + unfinished);
    }
}
