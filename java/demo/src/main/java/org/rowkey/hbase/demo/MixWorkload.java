package org.rowkey.hbase.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.rowkey.hbase.RowKeyTable;

/**
 * One client thread of the load test: operations drawn by {@link MixKind#weight} until the run
 * ends, each timed and its failure counted, none retried by us (the HBase client retries as it
 * does for any application). Reads read every row of their answer; writes take a day's lock
 * ({@link DayLocks}) and touch only rows of that day.
 */
final class MixWorkload implements Runnable {
    private static final MixKind[] WEIGHTED = weighted();
    /** What a {@link MixKind#BATCH} is made of, besides Increments. */
    private static final MixKind[] BATCHED = {MixKind.PUT_NEW, MixKind.PUT_RESTORE, MixKind.DELETE_ROW, MixKind.DELETE_COLUMN};

    private final Connection connection;
    private final TableName dataTable;
    private final RowKeyTable table;
    private final MixQuestions questions;
    private final DayLocks locks;
    private final MixStats stats;
    private final AtomicBoolean stop;
    /** The next URL number never written: new rows take it (shared by every writer and the bulk loads). */
    private final AtomicLong nextNewUrl;
    private final SplittableRandom random;

    MixWorkload(Connection connection, TableName dataTable, RowKeyTable table, MixQuestions questions, DayLocks locks, MixStats stats,
            AtomicBoolean stop, AtomicLong nextNewUrl, long seed) {
        this.connection = connection;
        this.dataTable = dataTable;
        this.table = table;
        this.questions = questions;
        this.locks = locks;
        this.stats = stats;
        this.stop = stop;
        this.nextNewUrl = nextNewUrl;
        this.random = new SplittableRandom(seed);
    }

    private static MixKind[] weighted() {
        List<MixKind> list = new ArrayList<>();
        for (MixKind k : MixKind.values()) {
            for (int i = 0; i < k.weight; i++) {
                list.add(k);
            }
        }
        return list.toArray(new MixKind[0]);
    }

    /** The operations' shares, for the report: kind -> fraction of the client threads' operations. */
    static double share(MixKind kind) {
        return (double) kind.weight / WEIGHTED.length;
    }

    @Override
    public void run() {
        try (Table data = connection.getTable(dataTable)) {
            while (!stop.get()) {
                MixKind kind = WEIGHTED[random.nextInt(WEIGHTED.length)];
                // A write's day is taken before its clock starts: a wait for a checked day is the
                // harness's, not the cluster's.
                int day = -1;
                try {
                    if (kind.isWrite()) {
                        day = locks.acquireWrite(DayLocks.randomDay(random));
                    }
                } catch (InterruptedException e) {
                    return;
                }
                long startMillis = stats.nowMillis();
                long start = System.nanoTime();
                try {
                    if (kind.isWrite()) {
                        write(kind, data, day);
                    } else {
                        read(kind);
                    }
                    stats.success(kind, startMillis, System.nanoTime() - start);
                } catch (IOException | RuntimeException e) {
                    stats.failure(kind, startMillis, System.nanoTime() - start, e);
                } catch (InterruptedException e) {
                    return;
                } finally {
                    if (day >= 0) {
                        locks.releaseWrite(day);
                    }
                }
            }
        } catch (IOException e) {
            stats.countError("client thread", e);
        }
    }

    private void read(MixKind kind) throws IOException {
        MixQuestions.Question q = questions.next(kind, random);
        if (q.aggregation != null) {
            table.aggregate(q.query, q.aggregation);
            return;
        }
        try (ResultScanner scanner = table.scan(q.query)) {
            for (Result ignored : scanner) {
                // Every row of the answer is read, as an application would.
            }
        }
    }

    /** A write of {@code kind} to rows of {@code day}, whose lock the caller holds. */
    private void write(MixKind kind, Table data, int day) throws IOException, InterruptedException {
        switch (kind) {
            case BATCH: {
                List<Row> batch = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    batch.add(mutation(BATCHED[random.nextInt(BATCHED.length)], day));
                    if (random.nextInt(4) == 0) {
                        batch.add(new Increment(existingKey(day)).addColumn(Demo.FAMILY, MixQuestions.HITS, 1));
                    }
                }
                data.batch(batch, new Object[batch.size()]);
                break;
            }
            case INCREMENT:
                data.increment(new Increment(existingKey(day)).addColumn(Demo.FAMILY, MixQuestions.HITS, 1));
                break;
            case APPEND:
                data.append(new Append(existingKey(day)).addColumn(Demo.FAMILY, MixQuestions.NOTE,
                        Bytes.toBytes(Integer.toString(random.nextInt(10)))));
                break;
            case CHECK_AND_MUTATE: {
                byte[] key = existingKey(day);
                data.checkAndMutate(CheckAndMutate.newBuilder(key).ifNotExists(Demo.FAMILY, MixQuestions.HITS)
                        .build(new Put(key).addColumn(Demo.FAMILY, MixQuestions.URL, Bytes.toBytes("checked " + random.nextInt(1000)))));
                break;
            }
            case ROW_MUTATIONS: {
                byte[] key = existingKey(day);
                RowMutations both = new RowMutations(key);
                both.add(new Put(key).addColumn(Demo.FAMILY, MixQuestions.NOTE, Bytes.toBytes("moved")));
                both.add(new Delete(key).addColumns(Demo.FAMILY, MixQuestions.URL));
                data.mutateRow(both);
                break;
            }
            default:
                Row m = mutation(kind, day);
                if (m instanceof Put) {
                    data.put((Put) m);
                } else {
                    data.delete((Delete) m);
                }
        }
    }

    /** A Put or Delete of {@code kind} on a row of {@code day}. */
    private Row mutation(MixKind kind, int day) {
        switch (kind) {
            case PUT_NEW: {
                int row = MixQuestions.rowOf(nextNewUrl.getAndIncrement(), day);
                return new Put(questions.key(row)).addColumn(Demo.FAMILY, MixQuestions.URL, Bytes.toBytes(questions.data.url(row)));
            }
            case PUT_RESTORE: {
                int row = MixQuestions.rowOf(random.nextInt(questions.urls), day);
                return new Put(questions.key(row)).addColumn(Demo.FAMILY, MixQuestions.URL, Bytes.toBytes(questions.data.url(row)));
            }
            case DELETE_ROW:
                return new Delete(existingKey(day));
            case DELETE_COLUMN:
                return new Delete(existingKey(day)).addColumns(Demo.FAMILY, MixQuestions.URL);
            default:
                throw new IllegalArgumentException(kind + " is no Put or Delete");
        }
    }

    /** The key of a row of {@code day} that was loaded or written since (it may have been deleted). */
    private byte[] existingKey(int day) {
        long written = nextNewUrl.get();
        long url = random.nextInt(4) == 0 && written > questions.urls
                ? questions.urls + random.nextLong(written - questions.urls) : random.nextInt(questions.urls);
        return questions.key(MixQuestions.rowOf(url, day));
    }
}
