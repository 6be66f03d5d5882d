package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Keeps a data table's indexes in step with its writes (installed by {@link RowKeyTable#create};
 * protocol in docs/indexes.md): before a batch is written, its index rows are written UNVERIFIED;
 * after it succeeded, they become VERIFIED (Puts) or are deleted (Deletes), every index mutation at
 * the data mutation's timestamp, so the index shows exactly the rows the data table shows. Readers
 * check unverified rows against the data table.
 *
 * <p>Inside a RegionServer this class never throws anything but {@link IOException} (any other
 * throwable would abort the server), never aborts at region open (a catalog that cannot be read
 * makes every write to the table fail with a {@link DoNotRetryIOException} naming it), sends its
 * index writes at high priority (served by the priority handlers, so they never wait for the
 * handlers the data writes occupy) through its own connection with bounded retries.
 */
public final class RowKeyIndexObserver implements RegionCoprocessor, RegionObserver {
    private static final Logger LOG = LoggerFactory.getLogger(RowKeyIndexObserver.class);

    /**
     * The one column family of an index table: a row's status cell and its covered cells (a scan
     * of one family costs about half one of two, which matters to covered reads).
     */
    static final byte[] INDEX_FAMILY = Bytes.toBytes("_i");
    /** The status cell's qualifier: one byte, so it is never a {@link #coveredQualifier}. */
    static final byte[] STATUS_QUALIFIER = Bytes.toBytes("s");
    static final byte[] VERIFIED = {1};
    /** The first byte of an unverified status; 8 more bytes say when it was written (see {@link #unverified}). */
    static final byte UNVERIFIED = 2;

    /**
     * An UNVERIFIED status written at {@code nowMillis} (the RegionServer's clock, big-endian after
     * the status byte): readers delete a stale index row by its age, which the cell timestamp cannot
     * tell, since clients may set timestamps.
     */
    static byte[] unverified(long nowMillis) {
        return Bytes.add(new byte[] {UNVERIFIED}, Bytes.toBytes(nowMillis));
    }

    /**
     * The status a reader gives an UNVERIFIED index row whose data row does not exist, once the grace
     * period has passed: its write never reached the data table, and later readers skip it without
     * reading the data table. Any later write of the row replaces it (same timestamp, later write).
     */
    static final byte[] STALE = {3};

    /** When an UNVERIFIED status was written, or -1 when it does not say (or is not UNVERIFIED). */
    static long unverifiedSince(byte[] status) {
        return status != null && status.length == 1 + Bytes.SIZEOF_LONG && status[0] == UNVERIFIED
                ? Bytes.toLong(status, 1) : -1;
    }

    /**
     * Writes the second and later index tables of a batch while the handler writes the first. Shared
     * by every region of the server, bounded; when every thread is busy the handler writes itself
     * (no queue to wait in, so no handler waits for another's work).
     */
    private static final ExecutorService INDEX_WRITERS = BoundedPool.create("rowkey-index-writer", 32);

    private TableName dataTable;
    private Catalog catalog;
    /** Why the catalog could not be read; writes are refused with it. */
    private String catalogError;
    private TableName[] indexTables;
    private Connection connection;

    @Override
    public Optional<RegionObserver> getRegionObserver() {
        return Optional.of(this);
    }

    @Override
    public void start(CoprocessorEnvironment env) {
        try {
            RegionCoprocessorEnvironment region = (RegionCoprocessorEnvironment) env;
            TableDescriptor descriptor = region.getRegion().getTableDescriptor();
            dataTable = descriptor.getTableName();
            catalog = Catalog.parse(descriptor.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
            List<IndexSpec> indexes = catalog.indexes();
            indexTables = new TableName[indexes.size()];
            for (int i = 0; i < indexTables.length; i++) {
                indexTables[i] = RowKeyTable.indexTableName(dataTable, indexes.get(i).getName());
            }
            // A table with no index (the observer binds RowKeyWhere filters there) writes none.
            connection = indexTables.length == 0 ? null : region.createConnection(indexWriterConf(region.getConfiguration()));
        } catch (Throwable t) {
            catalogError = "hbase-rowkey: the index catalog of table " + dataTable + " cannot be used, so no write to it"
                    + " is accepted (a write that is not indexed would lose index rows): " + t;
            LOG.error(catalogError, t);
        }
    }

    /**
     * Gives each {@link RowKeyWhere} of the scan that names no schema the table's (from the
     * catalog), so filter-language queries plan inside the region; a where clause that does not
     * parse fails the scan with a {@link DoNotRetryIOException} naming why.
     */
    @Override
    public void preScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Scan scan) throws IOException {
        if (scan.getFilter() != null) {
            RowKeyWhere.bindToCatalog(scan.getFilter(), catalog == null ? null : catalog.schema());
        }
    }

    /**
     * A connection that gives up within seconds: a write waits for its index writes. The server's
     * settings are copied entry by entry: {@code new Configuration(c)} of the region's
     * configuration (a wrapper that keeps its values elsewhere) keeps none of them on HBase 2.4,
     * whose connection then looks for ZooKeeper at localhost:2181.
     */
    static Configuration indexWriterConf(Configuration serverConf) {
        Configuration conf = new Configuration(false);
        for (Map.Entry<String, String> setting : serverConf) {
            conf.set(setting.getKey(), setting.getValue());
        }
        conf.setInt("hbase.client.retries.number", 5);
        conf.setInt("hbase.client.pause", 100);
        conf.setInt("hbase.rpc.timeout", 10_000);
        conf.setInt("hbase.client.operation.timeout", 30_000);
        conf.setInt("hbase.client.meta.operation.timeout", 30_000);
        return conf;
    }

    @Override
    public void stop(CoprocessorEnvironment env) {
        if (connection != null) {
            try {
                connection.close();
            } catch (Throwable t) {
                LOG.warn("hbase-rowkey: closing the index connection of " + dataTable, t);
            }
        }
    }

    @Override
    public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
            MiniBatchOperationInProgress<Mutation> batch) throws IOException {
        try {
            if (catalogError != null) {
                throw new DoNotRetryIOException(catalogError);
            }
            writeIndexes(batch, true, c.getEnvironment());
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new DoNotRetryIOException("hbase-rowkey: index write before the data of " + dataTable + " failed", t);
        }
    }

    @Override
    public void postBatchMutateIndispensably(ObserverContext<RegionCoprocessorEnvironment> c,
            MiniBatchOperationInProgress<Mutation> batch, boolean success) {
        if (!success || catalogError != null) {
            return; // unverified index rows are left to the readers, who check the data
        }
        try {
            writeIndexes(batch, false, c.getEnvironment());
        } catch (Throwable t) {
            LOG.warn("hbase-rowkey: verifying index rows of " + dataTable + " failed; readers will check them", t);
        }
    }

    /**
     * The index mutations of a batch, before the data ({@code before}: UNVERIFIED status for every
     * Put and whole-row Delete) or after it (VERIFIED for Puts, the index rows deleted for whole-row
     * Deletes and for partial Deletes that left the row empty), sent to every index table.
     */
    private void writeIndexes(MiniBatchOperationInProgress<Mutation> batch, boolean before,
            RegionCoprocessorEnvironment env) throws IOException {
        List<IndexSpec> indexes = catalog.indexes();
        if (indexes.isEmpty()) {
            return;
        }
        int keyLength = catalog.schema().keyLength();
        byte[] unverified = unverified(System.currentTimeMillis());
        List<List<Row>> perIndex = new ArrayList<>();
        for (int i = 0; i < indexes.size(); i++) {
            perIndex.add(new ArrayList<Row>());
        }
        for (int op = 0; op < batch.size(); op++) {
            OperationStatus status = batch.getOperationStatus(op);
            if (before ? status.getOperationStatusCode() != HConstants.OperationStatusCode.NOT_RUN
                    : status.getOperationStatusCode() != HConstants.OperationStatusCode.SUCCESS) {
                continue;
            }
            Mutation m = batch.getOperation(op);
            byte[] row = m.getRow();
            if (row.length != keyLength) {
                continue; // not a key of the schema: no query can match it, no index holds it
            }
            long ts = indexTimestamp(m);
            if (m instanceof Delete && !deletesWholeRow((Delete) m, env)) {
                if (before || !rowIsGone(env, row)) {
                    continue;
                }
                ts = Math.max(ts, newestDeleteMarker(env, row));
            }
            for (int i = 0; i < indexes.size(); i++) {
                byte[] indexKey = catalog.indexKey(i, row);
                Mutation indexMutation;
                if (m instanceof Put) {
                    Put put = new Put(indexKey).addColumn(INDEX_FAMILY, STATUS_QUALIFIER, ts, before ? unverified : VERIFIED);
                    if (before) {
                        copyCoveredCells((Put) m, indexes.get(i), put);
                    }
                    indexMutation = put;
                } else if (before) {
                    indexMutation = new Put(indexKey).addColumn(INDEX_FAMILY, STATUS_QUALIFIER, ts, unverified);
                } else {
                    indexMutation = new Delete(indexKey, ts);
                }
                indexMutation.setPriority(HConstants.HIGH_QOS);
                if (!before) {
                    // Not logged: if a crash loses it, the index row is UNVERIFIED again (that write
                    // was logged) and readers check it against the data table.
                    indexMutation.setDurability(Durability.SKIP_WAL);
                }
                perIndex.get(i).add(indexMutation);
            }
        }
        // The index tables are written at once: the first in this thread, the others by the pool.
        List<Future<?>> others = new ArrayList<>();
        for (int i = 1; i < indexes.size(); i++) {
            int index = i;
            others.add(INDEX_WRITERS.submit(() -> {
                writeIndex(index, perIndex.get(index));
                return null;
            }));
        }
        IOException failure = null;
        try {
            writeIndex(0, perIndex.get(0));
        } catch (IOException e) {
            failure = e;
        }
        for (int i = 0; i < others.size(); i++) {
            try {
                others.get(i).get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof IOException ? (IOException) e.getCause()
                            : new IOException("hbase-rowkey: writing index " + indexTables[i + 1] + " failed", e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("hbase-rowkey: interrupted while writing index " + indexTables[i + 1], e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void writeIndex(int index, List<Row> mutations) throws IOException {
        if (mutations.isEmpty()) {
            return;
        }
        try (Table table = connection.getTable(indexTables[index])) {
            table.batch(mutations, new Object[mutations.size()]);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("hbase-rowkey: interrupted while writing index " + indexTables[index], e);
        }
    }

    /**
     * The time a data mutation's index mutations carry: the newest of its cells' timestamps, which
     * HBase has made final before {@code preBatchMutate} (a cell sent without one gets the batch's
     * time). Not the mutation's own timestamp: it stays {@code LATEST_TIMESTAMP} when the client set
     * none, and an index mutation sent at {@code LATEST_TIMESTAMP} takes the index server's clock at
     * its arrival, later than the data's: an index row delete so timed also masked a write of the row
     * that came between the data delete and the index delete, which the data table shows (a covered
     * cell hidden under a VERIFIED status, or the whole index row lost).
     */
    static long indexTimestamp(Mutation m) {
        long ts = Long.MIN_VALUE;
        for (List<Cell> cells : m.getFamilyCellMap().values()) {
            for (Cell cell : cells) {
                ts = Math.max(ts, cell.getTimestamp());
            }
        }
        return ts == Long.MIN_VALUE ? m.getTimestamp() : ts;
    }

    /**
     * The newest delete marker of a data row that has no cell left (after a partial delete): every
     * cell the row still stores is masked by a marker at least as new, so an index row delete at that
     * time masks the index statuses of all of them (this delete's own marker can be older: a delete
     * of a column's newest version is at that version's time) and no write of the row newer than its
     * deletes. Not exact: a column marker masks one column, the index row delete the whole row.
     */
    private static long newestDeleteMarker(RegionCoprocessorEnvironment env, byte[] row) throws IOException {
        long newest = Long.MIN_VALUE;
        Scan raw = new Scan().withStartRow(row).withStopRow(row, true).setRaw(true).readAllVersions();
        try (RegionScanner scanner = env.getRegion().getScanner(raw)) {
            List<Cell> cells = new ArrayList<>();
            boolean more;
            do {
                more = scanner.next(cells);
                for (Cell cell : cells) {
                    if (CellUtil.isDelete(cell)) {
                        newest = Math.max(newest, cell.getTimestamp());
                    }
                }
                cells.clear();
            } while (more);
        }
        return newest;
    }

    /** A Delete of every family of the table (what {@code new Delete(row)} becomes on the server). */
    private static boolean deletesWholeRow(Delete delete, RegionCoprocessorEnvironment env) {
        for (byte[] family : env.getRegion().getTableDescriptor().getColumnFamilyNames()) {
            List<Cell> cells = delete.getFamilyCellMap().get(family);
            boolean familyDeleted = false;
            if (cells != null) {
                for (Cell cell : cells) {
                    familyDeleted |= CellUtil.isDeleteFamily(cell) && cell.getQualifierLength() == 0;
                }
            }
            if (!familyDeleted) {
                return false;
            }
        }
        return true;
    }

    /** Whether a data row has no cell left (after a partial delete). */
    private static boolean rowIsGone(RegionCoprocessorEnvironment env, byte[] row) throws IOException {
        return env.getRegion().get(new Get(row)).isEmpty();
    }

    private static void copyCoveredCells(Put data, IndexSpec index, Put indexPut) {
        for (Column column : index.getIncludeList()) {
            byte[] family = column.getFamily().toByteArray();
            byte[] qualifier = column.getQualifier().toByteArray();
            for (Cell cell : data.get(family, qualifier)) {
                indexPut.addColumn(INDEX_FAMILY, coveredQualifier(family, qualifier), cell.getTimestamp(),
                        CellUtil.cloneValue(cell));
            }
        }
    }

    /**
     * Where an index row holds its copy of the data column {@code family:qualifier}: in
     * {@link #INDEX_FAMILY}, under the qualifier {@code [family length] family qualifier} (at least
     * two bytes: a family name has 1 to 127 bytes).
     */
    static byte[] coveredQualifier(byte[] family, byte[] qualifier) {
        byte[] q = new byte[1 + family.length + qualifier.length];
        q[0] = (byte) family.length;
        System.arraycopy(family, 0, q, 1, family.length);
        System.arraycopy(qualifier, 0, q, 1 + family.length, qualifier.length);
        return q;
    }
}
