package org.rowkey.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;

/**
 * From index rows to the data rows they stand for, for every reader of an index (a scan through
 * one, the joins' streams, an aggregate's rows its regions did not trust): the data keys of index
 * keys (null for a row the index could not have written), the data rows read with batched
 * multi-gets split over a shared pool, and what is done with an index row once its data row was
 * read ({@link IndexRowRepair#settle}: repaired, marked STALE, or left to a write in flight), those
 * conditional writes sent together. One per read of a data table; not for use by several threads
 * at once, except {@link #read}.
 */
@RunsIn(RunsIn.Where.CLIENT)
final class IndexRowResolver implements Closeable {
    /** Multi-gets of one batch read at once, and the fewest Gets worth a multi-get of their own. */
    private static final int PARALLEL_GETS = 4;
    private static final int PARALLEL_GETS_MIN = 128;
    /** Reads the data rows of batches, shared by every reader; when all are busy the caller reads. */
    private static final ExecutorService GETS = BoundedPool.create("rowkey-index-data-reader", 16);

    private final Connection connection;
    private final TableName dataTable;
    private final Catalog catalog;
    /** Each index met: its table, and what repairs its rows (made when a row first needs one). */
    private final Map<Integer, Table> indexTables = new HashMap<>();
    private final Map<Integer, IndexRowRepair> repairs = new HashMap<>();
    /** The repairs and STALE marks decided and not yet sent, by index. */
    private final Map<Integer, List<CheckAndMutate>> settled = new HashMap<>();
    private final AtomicLong dataRowsRead = new AtomicLong();

    IndexRowResolver(Connection connection, TableName dataTable, Catalog catalog) {
        this.connection = connection;
        this.dataTable = dataTable;
        this.catalog = catalog;
    }

    /** The data keys of index {@code index}'s keys, null where a key is not one the index writes. */
    byte[][] dataKeys(int index, List<byte[]> indexKeys) {
        return catalog.dataKeys(index, indexKeys);
    }

    /** Data rows being read, in the order of their Gets. */
    final class Reading {
        private final List<Future<Result[]>> parts;
        private final int gets;

        private Reading(List<Future<Result[]>> parts, int gets) {
            this.parts = parts;
            this.gets = gets;
        }

        int size() {
            return gets;
        }

        /** The rows, once read; a failed read's {@link IOException} as it is. */
        Result[] rows() throws IOException {
            Result[] rows = new Result[gets];
            int at = 0;
            for (Future<Result[]> part : parts) {
                try {
                    Result[] read = part.get();
                    System.arraycopy(read, 0, rows, at, read.length);
                    at += read.length;
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof IOException ? (IOException) e.getCause()
                            : new IOException("reading data rows of " + dataTable, e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading data rows of " + dataTable);
                }
            }
            return rows;
        }
    }

    /**
     * Starts reading the data rows of {@code gets} (the caller reads them itself when the pool is
     * busy). A large batch is read as a few multi-gets at once: a RegionServer serves one multi-get
     * in one handler, region after region.
     */
    Reading read(List<Get> gets) {
        List<Future<Result[]>> parts = new ArrayList<>();
        int n = gets.size();
        int count = n == 0 ? 0 : Math.max(1, Math.min(PARALLEL_GETS, n / PARALLEL_GETS_MIN));
        for (int p = 0; p < count; p++) {
            List<Get> part = gets.subList(p * n / count, (p + 1) * n / count);
            parts.add(GETS.submit(() -> {
                try (Table table = connection.getTable(dataTable)) {
                    return table.get(part);
                }
            }));
        }
        dataRowsRead.addAndGet(n);
        return new Reading(parts, n);
    }

    /** The data rows of {@code gets}, read now. */
    Result[] get(List<Get> gets) throws IOException {
        return read(gets).rows();
    }

    /**
     * Settles index row {@code indexRow} of {@code index} (its status cell {@code status}), whose data
     * row was read {@link #probe probed} as {@code probed}; the write, if any, is sent by {@link #flush}.
     */
    void settle(int index, byte[] indexRow, Cell status, Result probed) {
        repair(index).settle(indexRow, status, probed)
                .ifPresent(w -> settled.computeIfAbsent(index, i -> new ArrayList<>()).add(w));
    }

    /**
     * Settles index rows whose status was not read with them (a join's streams read keys): each
     * row's status is read now, and only a row still UNVERIFIED is settled.
     */
    void settleUnread(int index, List<byte[]> indexRows, Result probed) throws InterruptedIOException {
        if (IndexRowFormat.inFlight(probed)) {
            return; // the write in flight settles them
        }
        for (byte[] row : indexRows) {
            Cell status;
            try {
                status = IndexRowFormat.status(indexTable(index).get(new Get(row)));
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException unread) {
                return; // settling is advice (see flush): rows whose status cannot be read are left to the next reader
            }
            if (IndexRowFormat.isUnverified(status)) { // else written or repaired since
                settle(index, row, status, probed);
            }
        }
    }

    /**
     * Sends the repairs and STALE marks decided since the last flush, one batch per index. They are
     * advice, not part of any answer: a write not sent (the index's table dropped by another client
     * while the read answered, a region that will not take it) leaves its row as it was, for the
     * next reader to settle, and the read goes on. Only an interrupt is thrown.
     */
    void flush() throws InterruptedIOException {
        for (Map.Entry<Integer, List<CheckAndMutate>> e : settled.entrySet()) {
            if (!e.getValue().isEmpty()) {
                try {
                    indexTable(e.getKey()).checkAndMutate(e.getValue());
                } catch (InterruptedIOException interrupted) {
                    throw interrupted;
                } catch (IOException notSent) {
                    // left as they were (above)
                }
                e.getValue().clear();
            }
        }
    }

    /** Data rows read by Gets so far. */
    long dataRowsRead() {
        return dataRowsRead.get();
    }

    private IndexRowRepair repair(int index) {
        return repairs.computeIfAbsent(index, i -> new IndexRowRepair(catalog.coverage(i), connection.getConfiguration()));
    }

    private Table indexTable(int index) throws IOException {
        Table t = indexTables.get(index);
        if (t == null) {
            t = connection.getTable(RowKeyTable.indexTableName(dataTable, catalog.indexes().get(index).getName()));
            indexTables.put(index, t);
        }
        return t;
    }

    @Override
    public void close() {
        for (Table t : indexTables.values()) {
            try {
                t.close();
            } catch (IOException ignored) {
                // nothing is buffered: a table of a shared connection
            }
        }
        indexTables.clear();
    }
}
