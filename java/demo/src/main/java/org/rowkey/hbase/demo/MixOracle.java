package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.AggregationResult;
import org.rowkey.hbase.RowKeySchema;
import org.rowkey.hbase.RowKeyTable;

/**
 * The load test's checker: a thread that, every few seconds, asks the product one question while
 * the days its answer lies in are quiet ({@link DayLocks}) and compares the answer with the data
 * table as a plain HBase scan shows it, keys decoded on the client, conditions and aggregates
 * evaluated here in plain Java (never with the library's predicate or aggregation code). Questions
 * of one or a few days are checked one at a time while writes go on elsewhere (so are the
 * aggregates of the whole table grouped by sdate, compared on one quiet day's groups); questions
 * only the whole table answers (the selective aggregates, the wide index read) together, now and
 * then, while every day is quiet.
 *
 * <p>A disagreement is asked again at once, both sides, and reported with both answers' sizes and
 * the rows or groups that differ; "right on re-ask" says the second answer agreed (a stale answer,
 * or a write the server applied after its client gave up on it).
 */
final class MixOracle implements Runnable {
    /** Checks of one kind of question. */
    static final class Tally {
        int checked;
        int agreed;
        int wrong;
        int wrongOnce;
        int skippedBusy;
        int errors;
        long rowsCompared;
    }

    /** One wrong answer, for the report. */
    static final class WrongAnswer {
        final long atMillis;
        final MixKind kind;
        final String question;
        final String detail;
        final boolean rightOnReask;

        WrongAnswer(long atMillis, MixKind kind, String question, String detail, boolean rightOnReask) {
            this.atMillis = atMillis;
            this.kind = kind;
            this.question = question;
            this.detail = detail;
            this.rightOnReask = rightOnReask;
        }
    }

    private static final MixKind[] DAY_QUESTIONS = {MixKind.POINT, MixKind.SEED2, MixKind.AGG_WHOLE, MixKind.INDEX_UNCOVERED,
        MixKind.POINT_RANGE, MixKind.AGG_GROUPS, MixKind.INDEX_COVERED, MixKind.AGG_INDEX};

    /** The connection of the oracle's plain scans (a short RPC timeout: HBase ends each of their calls within ~1 s). */
    private final Connection oracleConnection;
    private final TableName dataTable;
    private final RowKeyTable table;
    private final MixQuestions questions;
    private final DayLocks locks;
    private final MixStats stats;
    private final AtomicBoolean stop;
    private final long checkEveryMillis;
    private final long wholeTableEveryMillis;
    private final SplittableRandom random;
    private final Map<MixKind, Tally> tallies = new EnumMap<>(MixKind.class);
    private final List<WrongAnswer> wrongAnswers = new ArrayList<>();
    /** Seconds every day was held for a whole-table check, summed. */
    private double quietSeconds;
    private int wholeTableChecks;

    MixOracle(Connection oracleConnection, TableName dataTable, RowKeyTable table, MixQuestions questions, DayLocks locks, MixStats stats,
            AtomicBoolean stop, long checkEveryMillis, long wholeTableEveryMillis, long seed) {
        this.oracleConnection = oracleConnection;
        this.dataTable = dataTable;
        this.table = table;
        this.questions = questions;
        this.locks = locks;
        this.stats = stats;
        this.stop = stop;
        this.checkEveryMillis = checkEveryMillis;
        this.wholeTableEveryMillis = wholeTableEveryMillis;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void run() {
        int turn = 0;
        long nextWholeTable = Math.min(60_000, wholeTableEveryMillis);
        while (!stop.get()) {
            try {
                Thread.sleep(checkEveryMillis);
                if (stop.get()) {
                    break;
                }
                if (stats.nowMillis() >= nextWholeTable) {
                    if (checkWholeTable()) {
                        nextWholeTable = stats.nowMillis() + wholeTableEveryMillis;
                    } else {
                        nextWholeTable = stats.nowMillis() + 15_000;
                    }
                } else {
                    checkDays(questions.checkOfDays(DAY_QUESTIONS[turn++ % DAY_QUESTIONS.length], random));
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One question of a few days, checked while those days are quiet. */
    private void checkDays(MixQuestions.Question q) throws InterruptedException {
        Tally tally = tally(q.kind);
        // Up to 30 s for a day's writes in flight to end (new ones go to other days meanwhile).
        if (!locks.acquireCheck(q.days, 30_000)) {
            tally.skippedBusy++;
            return;
        }
        try {
            Answer answer = ask(q);
            Answer truth = truth(q);
            compare(q, answer, truth);
        } catch (IOException | RuntimeException e) {
            tally.errors++;
            stats.countError("check " + q.kind.label, e);
        } finally {
            locks.releaseCheck(q.days);
        }
    }

    /**
     * The questions of the whole table, each asked while every day is quiet, and one plain scan of
     * the data table answering them all. Returns false if the days could not all be taken (a bulk
     * load holding one): the caller tries again soon.
     */
    private boolean checkWholeTable() throws InterruptedException {
        List<MixQuestions.Question> list = questions.wholeTableQuestions(random);
        int[] all = DayLocks.allDays();
        if (!locks.acquireCheck(all, 10_000)) {
            for (MixQuestions.Question q : list) {
                tally(q.kind).skippedBusy++;
            }
            return false;
        }
        long start = System.nanoTime();
        try {
            List<Answer> answers = new ArrayList<>();
            for (MixQuestions.Question q : list) {
                try {
                    answers.add(ask(q));
                } catch (IOException | RuntimeException e) {
                    answers.add(null);
                    tally(q.kind).errors++;
                    stats.countError("check " + q.kind.label, e);
                }
            }
            List<Answer> truths;
            try {
                truths = truths(list);
            } catch (IOException | RuntimeException e) {
                stats.countError("check: the oracle's whole-table scan", e);
                return true;
            }
            for (int i = 0; i < list.size(); i++) {
                if (answers.get(i) == null) {
                    continue;
                }
                try {
                    compare(list.get(i), answers.get(i), truths.get(i));
                } catch (IOException | RuntimeException e) {
                    tally(list.get(i).kind).errors++;
                    stats.countError("check " + list.get(i).kind.label, e);
                }
            }
            wholeTableChecks++;
            return true;
        } finally {
            locks.releaseCheck(all);
            quietSeconds += (System.nanoTime() - start) / 1e9;
        }
    }

    private void compare(MixQuestions.Question q, Answer answer, Answer truth) throws IOException {
        Tally tally = tally(q.kind);
        tally.checked++;
        tally.rowsCompared += truth.entries.size();
        if (answer.entries.equals(truth.entries)) {
            tally.agreed++;
            return;
        }
        // Both sides once more, still quiet: did the product answer wrong, and does it still?
        String detail = difference(answer, truth);
        Answer again = ask(q);
        Answer truthAgain = q.wholeTable() ? truths(List.of(q)).get(0) : truth(q);
        boolean rightOnReask = again.entries.equals(truthAgain.entries);
        if (rightOnReask) {
            tally.wrongOnce++;
        } else {
            tally.wrong++;
        }
        WrongAnswer w = new WrongAnswer(stats.nowMillis(), q.kind, q.text, detail + (truthAgain.entries.equals(truth.entries) ? ""
                : "; the data table changed between the two reads"), rightOnReask);
        synchronized (this) {
            wrongAnswers.add(w);
        }
        System.out.printf(Locale.ROOT, "WRONG ANSWER at %s: %s: %s (%s)%n", LoadMix.clock(w.atMillis), q.kind.label, q.text,
                w.detail + (rightOnReask ? "; right on re-ask" : "; wrong again on re-ask"));
    }

    /** An answer: row key (hex) -> its cells, or group -> its aggregates, both as text. */
    static final class Answer {
        final TreeMap<String, String> entries = new TreeMap<>();
    }

    /** The product's answer: {@link RowKeyTable#scan} or {@link RowKeyTable#aggregate}. */
    Answer ask(MixQuestions.Question q) throws IOException {
        Answer a = new Answer();
        if (q.aggregation != null) {
            AggregationResult result = table.aggregate(q.query, q.aggregation);
            for (AggregationResult.Row row : result.rows()) {
                if (q.groupsOfSdate != null && !q.groupsOfSdate.equals(row.groups().get("sdate"))) {
                    continue;
                }
                List<Object> values = new ArrayList<>();
                for (Object v : row.values()) {
                    values.add(v == null ? null : ((Number) v).longValue());
                }
                a.entries.put(groupKey(row.groups().values()), values.toString());
            }
            return a;
        }
        try (ResultScanner scanner = table.scan(q.query)) {
            for (Result r : scanner) {
                a.entries.put(Bytes.toHex(r.getRow()), cells(r, q.urlOnly));
            }
        }
        return a;
    }

    /** The oracle's answer to a question of a few days: its plain scan, filtered and folded here. */
    Answer truth(MixQuestions.Question q) throws IOException {
        return truths(List.of(q), q.oracleScan).get(0);
    }

    /** The oracle's answers to questions of the whole table: one plain scan of every row. */
    List<Answer> truths(List<MixQuestions.Question> list) throws IOException {
        return truths(list, MixQuestions.wholeScan());
    }

    private List<Answer> truths(List<MixQuestions.Question> list, Scan scan) throws IOException {
        RowKeySchema schema = questions.schema;
        List<Map<String, Fold>> folds = new ArrayList<>();
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            folds.add(new TreeMap<>());
            answers.add(new Answer());
        }
        try (Table data = oracleConnection.getTable(dataTable); ResultScanner rows = data.getScanner(scan)) {
            for (Result r : rows) {
                if (r.getRow().length != schema.keyLength()) {
                    continue;
                }
                Map<String, Object> key = schema.decode(r.getRow());
                for (int i = 0; i < list.size(); i++) {
                    MixQuestions.Question q = list.get(i);
                    if (!q.matches.test(key)) {
                        continue;
                    }
                    if (q.aggregation == null) {
                        String cells = cells(r, q.urlOnly);
                        if (!q.urlOnly || !cells.isEmpty()) {
                            answers.get(i).entries.put(Bytes.toHex(r.getRow()), cells);
                        }
                    } else {
                        List<Object> groupValues = new ArrayList<>();
                        for (String g : q.groupBy) {
                            groupValues.add(key.get(g));
                        }
                        folds.get(i).computeIfAbsent(groupKey(groupValues), k -> new Fold(q.functions)).add(key);
                    }
                }
            }
        }
        for (int i = 0; i < list.size(); i++) {
            MixQuestions.Question q = list.get(i);
            if (q.aggregation == null) {
                continue;
            }
            // Without GROUP BY there is always one row, as in SQL (docs/aggregates.md).
            if (q.groupBy.length == 0 && folds.get(i).isEmpty()) {
                folds.get(i).put(groupKey(List.of()), new Fold(q.functions));
            }
            for (Map.Entry<String, Fold> e : folds.get(i).entrySet()) {
                answers.get(i).entries.put(e.getKey(), e.getValue().values().toString());
            }
        }
        return answers;
    }

    /** The oracle's aggregates of one group, in plain Java. */
    private static final class Fold {
        private final String[] functions;
        private final Long[] values;

        Fold(String[] functions) {
            this.functions = functions;
            this.values = new Long[functions.length];
        }

        void add(Map<String, Object> key) {
            for (int i = 0; i < functions.length; i++) {
                String[] f = functions[i].split(":");
                if (f[0].equals("count")) {
                    values[i] = values[i] == null ? 1 : values[i] + 1;
                    continue;
                }
                long v = ((Number) key.get(f[1])).longValue();
                switch (f[0]) {
                    case "sum": values[i] = values[i] == null ? v : values[i] + v; break;
                    case "min": values[i] = values[i] == null ? v : Math.min(values[i], v); break;
                    case "max": values[i] = values[i] == null ? v : Math.max(values[i], v); break;
                    default: throw new IllegalArgumentException(functions[i]);
                }
            }
        }

        List<Long> values() {
            List<Long> out = new ArrayList<>(Arrays.asList(values));
            for (int i = 0; i < functions.length; i++) {
                if (functions[i].equals("count") && out.get(i) == null) {
                    out.set(i, 0L);
                }
            }
            return out;
        }
    }

    /** A group's field values as text (digest bytes as hex). */
    static String groupKey(Iterable<Object> values) {
        StringBuilder b = new StringBuilder("(");
        for (Object v : values) {
            if (b.length() > 1) {
                b.append(", ");
            }
            b.append(v instanceof byte[] ? Bytes.toHex((byte[]) v) : Objects.toString(v));
        }
        return b.append(')').toString();
    }

    /** A row's cells (every cell, or f:url alone) as text: family:qualifier@timestamp=value. */
    static String cells(Result r, boolean urlOnly) {
        StringBuilder b = new StringBuilder();
        for (Cell c : r.rawCells()) {
            if (urlOnly && !(CellUtil.matchingFamily(c, Demo.FAMILY) && CellUtil.matchingQualifier(c, Demo.URL))) {
                continue;
            }
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(Bytes.toString(CellUtil.cloneFamily(c))).append(':').append(Bytes.toString(CellUtil.cloneQualifier(c)))
                    .append('@').append(c.getTimestamp()).append('=').append(Bytes.toStringBinary(CellUtil.cloneValue(c)));
        }
        return b.toString();
    }

    /** How two answers differ: sizes, and the first few entries each has that the other lacks or has otherwise. */
    static String difference(Answer answer, Answer truth) {
        TreeSet<String> keys = new TreeSet<>(answer.entries.keySet());
        keys.addAll(truth.entries.keySet());
        int missing = 0;
        int extra = 0;
        int changed = 0;
        List<String> examples = new ArrayList<>();
        for (String k : keys) {
            String a = answer.entries.get(k);
            String t = truth.entries.get(k);
            if (Objects.equals(a, t)) {
                continue;
            }
            if (a == null) {
                missing++;
            } else if (t == null) {
                extra++;
            } else {
                changed++;
            }
            if (examples.size() < 3) {
                examples.add(k + ": answered " + (a == null ? "nothing" : "[" + a + "]") + ", the data table "
                        + (t == null ? "nothing" : "[" + t + "]"));
            }
        }
        return String.format(Locale.ROOT, "%,d entries answered, %,d true; %d missing, %d extra, %d different; e.g. %s",
                answer.entries.size(), truth.entries.size(), missing, extra, changed, String.join("; ", examples));
    }

    private synchronized Tally tally(MixKind kind) {
        return tallies.computeIfAbsent(kind, k -> new Tally());
    }

    synchronized Map<MixKind, Tally> tallies() {
        return new EnumMap<>(tallies);
    }

    synchronized List<WrongAnswer> wrongAnswers() {
        return new ArrayList<>(wrongAnswers);
    }

    synchronized double quietSeconds() {
        return quietSeconds;
    }

    synchronized int wholeTableChecks() {
        return wholeTableChecks;
    }
}
