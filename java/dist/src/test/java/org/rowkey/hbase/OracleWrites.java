package org.rowkey.hbase;

import static org.rowkey.hbase.OracleQuery.A;
import static org.rowkey.hbase.OracleQuery.B;
import static org.rowkey.hbase.OracleQuery.COLUMNS;
import static org.rowkey.hbase.OracleQuery.D;
import static org.rowkey.hbase.OracleQuery.F;
import static org.rowkey.hbase.OracleQuery.G;
import static org.rowkey.hbase.OracleQuery.I;
import static org.rowkey.hbase.OracleQuery.N;
import static org.rowkey.hbase.OracleQuery.S;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The harness's writes, all plain HBase: the first rows (missing cells, several versions, old
 * explicit timestamps), random mutations of every kind between query phases, cells with a TTL,
 * rows of other lengths, and hand-made index rows a reader must ignore.
 *
 * <p>Why some writes are shaped as they are: a Put with a timestamp older than a delete marker of
 * its row is masked until a compaction drops the marker, and visible if it lands after that
 * compaction; compactions come with splits at any time, so such a Put would make the truth change
 * under a query. Old timestamps therefore go only to rows never deleted, and every write waits a
 * millisecond after a delete (a Put in the delete's millisecond is masked the same way).
 */
final class OracleWrites {
    private final OracleModel.Schema schema;
    private final Table table;
    private final Random random;
    private final OracleEvents events;
    /** Rows that got a delete marker (hex keys): no old explicit timestamps for them. */
    private final Set<String> deletedRows = new HashSet<>();
    /** Old explicit timestamps, each used once: a month back, counting up. */
    private long oldTimestamp = System.currentTimeMillis() - 30 * OracleModel.DAY;
    /** What was written to each row (hex key), for the reports of the rows that differ. */
    private final Map<String, List<String>> history = new java.util.HashMap<>();
    private String phase = "setup";

    OracleWrites(OracleModel.Schema schema, Table table, Random random, OracleEvents events) {
        this.schema = schema;
        this.table = table;
        this.random = random;
        this.events = events;
    }

    /** Names the phase the next writes belong to, in the rows' histories. */
    void phase(String name) {
        phase = name;
    }

    /** What the harness wrote to a row, oldest first. */
    String history(byte[] key) {
        List<String> h = history.get(Bytes.toHex(key));
        return h == null ? "never written by the harness" : String.join(", ", h);
    }

    private String note(byte[] key, String what) {
        history.computeIfAbsent(Bytes.toHex(key), k -> new ArrayList<>()).add(what + " (" + phase + ")");
        return what;
    }

    /** Rows with a random subset of the columns, some at old timestamps and in several versions. */
    void initialRows(int count) throws IOException {
        List<Put> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = schema.randomKey(random);
            batch.add(randomPut(key, true));
            note(key, "put");
        }
        table.put(batch);
        events.add("wrote " + count + " rows");
    }

    /** A Put of some columns (at least one); with {@code oldVersions}, some at old timestamps, some twice. */
    private Put randomPut(byte[] key, boolean oldVersions) {
        Put put = new Put(key);
        boolean old = oldVersions && !deletedRows.contains(Bytes.toHex(key));
        for (byte[][] fq : COLUMNS) {
            if (random.nextInt(5) < 2) {
                continue; // a missing cell
            }
            if (old && random.nextInt(4) == 0) {
                put.addColumn(fq[0], fq[1], oldTimestamp++, value(fq[1]));
                if (random.nextBoolean()) {
                    put.addColumn(fq[0], fq[1], oldTimestamp++, value(fq[1])); // a newer version, also old
                }
            } else {
                put.addColumn(fq[0], fq[1], value(fq[1]));
            }
        }
        if (put.isEmpty()) {
            put.addColumn(G, A, value(A));
        }
        return put;
    }

    /** A cell value: numbers as Bytes.toBytes writes them (doubles multiples of 0.25: exact sums), else strings. */
    byte[] value(byte[] qualifier) {
        if (qualifier == N) {
            int dice = random.nextInt(60);
            return Bytes.toBytes(dice == 0 ? Long.MAX_VALUE : dice == 1 ? Long.MIN_VALUE : dice < 6 ? 0L
                    : (long) random.nextInt(20_001) - 10_000);
        }
        if (qualifier == I) {
            int dice = random.nextInt(12);
            return Bytes.toBytes(dice == 0 ? Integer.MAX_VALUE : dice == 1 ? Integer.MIN_VALUE : dice == 2 ? 0
                    : random.nextInt(2001) - 1000);
        }
        if (qualifier == D) {
            return Bytes.toBytes((random.nextInt(8001) - 4000) * 0.25);
        }
        return Bytes.toBytes(Bytes.toString(qualifier) + random.nextInt(1000));
    }

    // ------------------------------------------------------------------ mutations of every kind

    /** {@code count} random mutations of existing and new rows; returns a summary by kind. */
    String randomMutations(int count, OracleSnapshot snapshot) throws IOException, InterruptedException {
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        for (int i = 0; i < count; i++) {
            kinds.merge(oneMutation(snapshot), 1, Integer::sum);
        }
        String summary = "wrote " + count + " mutations " + kinds;
        events.add(summary);
        return summary;
    }

    private String oneMutation(OracleSnapshot snapshot) throws IOException, InterruptedException {
        OracleSnapshot.Row row = snapshot.rows.isEmpty() ? null : snapshot.rows.get(random.nextInt(snapshot.rows.size()));
        byte[] key = row == null || random.nextInt(5) == 0 ? schema.randomKey(random) : row.key;
        int kind = random.nextInt(15);
        switch (kind) {
            case 0:
            case 1:
                table.put(randomPut(key, kind == 1));
                return note(key, kind == 0 ? "put" : "put-old-ts");
            case 2:
                deleted(key, new Delete(key));
                return note(key, "delete-row");
            case 3:
                deleted(key, new Delete(key).addFamily(random.nextBoolean() ? F : G));
                return note(key, "delete-family");
            case 4: {
                byte[][] fq = COLUMNS.get(random.nextInt(COLUMNS.size()));
                deleted(key, new Delete(key).addColumns(fq[0], fq[1]));
                return note(key, "delete-columns");
            }
            case 5: {
                byte[][] fq = COLUMNS.get(random.nextInt(COLUMNS.size()));
                deleted(key, new Delete(key).addColumn(fq[0], fq[1])); // the newest version: an older one shows
                return note(key, "delete-newest-version");
            }
            case 6: {
                Cell c = randomCell(row);
                if (c == null) {
                    return "none";
                }
                deleted(row.key, random.nextBoolean() ? new Delete(row.key).addColumn(CellUtil.cloneFamily(c),
                        CellUtil.cloneQualifier(c), c.getTimestamp())
                        : new Delete(row.key).addFamilyVersion(CellUtil.cloneFamily(c), c.getTimestamp()));
                return note(row.key, "delete-version");
            }
            case 7:
                deleted(key, new Delete(key, oldTimestamp + random.nextInt(5))); // masks the old versions only
                return note(key, "delete-row-before-ts");
            case 8:
                table.increment(new Increment(key).addColumn(F, N, random.nextInt(21) - 10));
                return note(key, "increment");
            case 9:
                table.append(new Append(key).addColumn(F, S, Bytes.toBytes("+" + random.nextInt(10))));
                return note(key, "append");
            case 10:
                return checkAndMutate(row == null ? key : row.key, row);
            case 11: {
                RowMutations both = new RowMutations(key);
                byte[][] fq = COLUMNS.get(random.nextInt(COLUMNS.size()));
                both.add((Mutation) new Put(key).addColumn(F, S, value(S)));
                both.add((Mutation) new Delete(key).addColumns(fq[0], fq[1]));
                deletedRows.add(Bytes.toHex(key));
                table.mutateRow(both);
                Thread.sleep(1);
                return note(key, "row-mutations");
            }
            default:
                return batch(snapshot);
        }
    }

    private Cell randomCell(OracleSnapshot.Row row) {
        if (row == null) {
            return null;
        }
        List<Cell> cells = new ArrayList<>();
        for (Cell c : row.cells) {
            if (!OracleSnapshot.isNoise(c)) {
                cells.add(c);
            }
        }
        return cells.isEmpty() ? null : cells.get(random.nextInt(cells.size()));
    }

    private void deleted(byte[] key, Delete delete) throws IOException, InterruptedException {
        deletedRows.add(Bytes.toHex(key));
        table.delete(delete);
        Thread.sleep(1);
    }

    private String checkAndMutate(byte[] key, OracleSnapshot.Row row) throws IOException, InterruptedException {
        Cell s = row == null ? null : row.cell(F, S);
        byte[] expected = s != null && random.nextInt(3) != 0 ? CellUtil.cloneValue(s) : Bytes.toBytes("never");
        CheckAndMutate.Builder when = random.nextInt(4) == 0 ? CheckAndMutate.newBuilder(key).ifNotExists(F, S)
                : CheckAndMutate.newBuilder(key).ifEquals(F, S, expected);
        CheckAndMutate cam;
        switch (random.nextInt(3)) {
            case 0:
                cam = when.build(new Put(key).addColumn(F, N, value(N)).addColumn(F, S, value(S)));
                break;
            case 1:
                deletedRows.add(Bytes.toHex(key));
                cam = when.build(new Delete(key).addFamily(random.nextBoolean() ? F : G));
                break;
            default:
                deletedRows.add(Bytes.toHex(key));
                RowMutations both = new RowMutations(key);
                both.add((Mutation) new Put(key).addColumn(G, B, value(B)));
                both.add((Mutation) new Delete(key).addColumns(F, D));
                cam = when.build(both);
                break;
        }
        boolean applied = table.checkAndMutate(cam).isSuccess();
        Thread.sleep(1);
        return note(key, applied ? "check-and-mutate-applied" : "check-and-mutate-not-applied");
    }

    /** A batch of 2 to 6 mutations of every kind, some on the same row. */
    private String batch(OracleSnapshot snapshot) throws IOException, InterruptedException {
        List<Row> actions = new ArrayList<>();
        int n = 2 + random.nextInt(5);
        byte[] shared = schema.randomKey(random);
        for (int i = 0; i < n; i++) {
            byte[] key = random.nextInt(3) == 0 ? shared : snapshot.rows.isEmpty() || random.nextInt(4) == 0
                    ? schema.randomKey(random) : snapshot.rows.get(random.nextInt(snapshot.rows.size())).key;
            switch (random.nextInt(5)) {
                case 0:
                    actions.add(randomPut(key, false));
                    break;
                case 1:
                    deletedRows.add(Bytes.toHex(key));
                    byte[][] fq = COLUMNS.get(random.nextInt(COLUMNS.size()));
                    actions.add(random.nextBoolean() ? new Delete(key) : new Delete(key).addColumns(fq[0], fq[1]));
                    break;
                case 2:
                    actions.add(new Increment(key).addColumn(F, N, 1 + random.nextInt(5)));
                    break;
                case 3:
                    actions.add(new Append(key).addColumn(F, S, Bytes.toBytes("~")));
                    break;
                default:
                    RowMutations both = new RowMutations(key);
                    both.add((Mutation) new Put(key).addColumn(G, A, value(A)));
                    actions.add(both);
                    break;
            }
        }
        table.batch(actions, new Object[actions.size()]);
        for (Row action : actions) {
            note(action.getRow(), "batch:" + action.getClass().getSimpleName());
        }
        Thread.sleep(1);
        return "batch";
    }

    // ------------------------------------------------------------------ TTLs, other lengths, hand-made index rows

    /**
     * New versions of some columns of existing rows, and a few new rows, with a cell TTL: once it has
     * passed, the data table shows the older versions (or no row) again.
     */
    void cellsWithTtl(OracleSnapshot snapshot, int count, long ttlMillis) throws IOException {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = snapshot.rows.isEmpty() || random.nextInt(4) == 0 ? schema.randomKey(random)
                    : snapshot.rows.get(random.nextInt(snapshot.rows.size())).key;
            Put put = randomPut(key, false);
            put.setTTL(ttlMillis);
            puts.add(put);
            note(key, "put with a cell TTL of " + ttlMillis + " ms");
        }
        table.put(puts);
        events.fault("wrote " + count + " puts with a cell TTL of " + ttlMillis + " ms");
    }

    /** Rows one byte longer and shorter than the schema's keys: not keys of the schema, no query's rows. */
    void rowsOfOtherLengths(int count) throws IOException {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = schema.randomKey(random);
            byte[] other = random.nextBoolean() || key.length < 2 ? Bytes.add(key, new byte[] {(byte) random.nextInt(256)})
                    : java.util.Arrays.copyOf(key, key.length - 1);
            puts.add(new Put(other).addColumn(F, N, value(N)).addColumn(F, D, value(D)));
        }
        table.put(puts);
        events.fault("wrote " + count + " data rows of other lengths than the schema's keys");
    }

    /** The data table's catalog as its descriptor holds it now. */
    static Catalog catalog(Connection connection, TableName dataTable) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            return Catalog.parse(admin.getDescriptor(dataTable).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)));
        }
    }

    /**
     * Writes whose post steps were lost: about a fifth of each index's rows of existing data rows
     * marked UNVERIFIED at a new index timestamp, as a write's first step marks them, with nothing
     * after it. Their data rows answer for them, and the first reader repairs them.
     */
    void lostPostSteps(Connection connection, TableName dataTable, List<OracleModel.Index> indexes, OracleSnapshot snapshot)
            throws IOException {
        Catalog catalog = catalog(connection, dataTable);
        int marked = 0;
        for (OracleModel.Index index : indexes) {
            int number = catalog.indexNumber(index.name);
            if (number < 0) {
                continue;
            }
            List<byte[]> rows = new ArrayList<>();
            for (OracleSnapshot.Row r : snapshot.rows) {
                if (random.nextInt(5) == 0) {
                    rows.add(catalog.indexKey(number, r.key));
                }
            }
            List<Put> puts = new ArrayList<>();
            try (Table t = connection.getTable(RowKeyTable.indexTableName(dataTable, index.name))) {
                // Each mark newer than its row's status (a write of the same millisecond may have
                // stamped it later than the clock reads now), so that it is the row's status.
                Result[] before = t.get(statusGets(rows));
                for (int i = 0; i < rows.size(); i++) {
                    Cell status = IndexRowFormat.status(before[i]);
                    long stamp = Math.max(System.currentTimeMillis() * 1000 + i, status == null ? 0 : status.getTimestamp() + 1);
                    puts.add(new Put(rows.get(i)).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp,
                            IndexRowFormat.unverified(stamp)));
                }
                t.put(puts);
                Result[] after = t.get(statusGets(rows));
                for (int i = 0; i < rows.size(); i++) {
                    Cell status = IndexRowFormat.status(after[i]);
                    if (status == null || !CellUtil.matchingValue(status, puts.get(i).get(IndexRowFormat.FAMILY, IndexRowFormat.STATUS).get(0))) {
                        throw new IllegalStateException("lost post steps: " + index.name + "'s row " + Bytes.toHex(rows.get(i))
                                + " does not show its UNVERIFIED mark: the case is not made");
                    }
                }
            }
            marked += puts.size();
        }
        events.fault("lost post steps: " + marked + " index rows of existing data rows marked UNVERIFIED");
    }

    private static List<Get> statusGets(List<byte[]> rows) {
        List<Get> gets = new ArrayList<>(rows.size());
        for (byte[] row : rows) {
            gets.add(new Get(row).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS));
        }
        return gets;
    }

    /**
     * Index rows made by hand, which no writer of the product makes and every reader must ignore: a
     * key one byte longer or shorter, a wrong index salt byte, a wrong data salt byte (all VERIFIED),
     * a row with no status for a data row that does not exist (with a covered cell, or an empty
     * qualifier), and a real index row with a covered cell whose status is deleted (its data row
     * exists: it answers).
     */
    void handMadeIndexRows(Connection connection, TableName dataTable, List<OracleModel.Index> indexes, OracleSnapshot snapshot)
            throws IOException {
        if (indexes.isEmpty() || snapshot.rows.isEmpty()) {
            return;
        }
        Catalog catalog = catalog(connection, dataTable);
        Set<String> existing = new HashSet<>();
        for (OracleSnapshot.Row r : snapshot.rows) {
            existing.add(Bytes.toHex(r.key));
        }
        List<String> made = new ArrayList<>();
        for (OracleModel.Index index : indexes) {
            int number = catalog.indexNumber(index.name);
            if (number < 0) {
                continue;
            }
            byte[] dataKey = snapshot.rows.get(random.nextInt(snapshot.rows.size())).key;
            byte[] indexKey = catalog.indexKey(number, dataKey);
            List<Put> puts = new ArrayList<>();
            puts.add(verified(Bytes.add(indexKey, new byte[] {(byte) random.nextInt(256)})));
            made.add(index.name + ": longer");
            if (indexKey.length > 1) { // a 1-byte key (bools packed) has no shorter row: HBase refuses an empty one
                puts.add(verified(java.util.Arrays.copyOf(indexKey, indexKey.length - 1)));
                made.add(index.name + ": shorter");
            }
            if (index.salt > 0) {
                byte[] wrong = indexKey.clone();
                wrong[0] = (byte) ((wrong[0] + 1) % index.salt);
                puts.add(verified(wrong));
                made.add(index.name + ": wrong index salt");
            }
            if (schema.saltBuckets > 0) {
                RowKeySchema indexSchema = catalog.indexSchema(number);
                Map<String, Object> values = indexSchema.decode(indexKey);
                byte dataSalt = ((byte[]) values.get("__data_salt"))[0];
                values.put("__data_salt", new byte[] {(byte) ((dataSalt + 1) % schema.saltBuckets)});
                puts.add(verified(indexSchema.encode(values)));
                made.add(index.name + ": wrong data salt");
            }
            byte[] absent = schema.randomKey(random);
            if (!existing.contains(Bytes.toHex(absent))) {
                long stamp = System.currentTimeMillis() * 1000;
                byte[] key = catalog.indexKey(number, absent);
                puts.add(random.nextBoolean()
                        ? new Put(key).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.coveredQualifier(F, N), stamp,
                                Bytes.add(Bytes.toBytes(stamp / 1000), Bytes.toBytes(7L)))
                        : new Put(key).addColumn(IndexRowFormat.FAMILY, new byte[0], stamp, new byte[0]));
                made.add(index.name + ": no status, no data row");
            }
            try (Table t = connection.getTable(RowKeyTable.indexTableName(dataTable, index.name))) {
                t.put(puts);
                if (random.nextBoolean() && deleteStatus(connection, t, indexKey)) {
                    made.add(index.name + ": no status, data row " + Bytes.toHex(dataKey));
                }
            }
        }
        events.fault("hand-made index rows: " + made);
    }

    /**
     * A real index row loses its status: its data row answers for it. Every version up to the
     * status read is deleted, at its own timestamp: index cells are stamped in microseconds, so a
     * Delete at the server's "now" (milliseconds) would mask none of them. Only a row with another
     * cell (a covered one) is still a row without its status: one of the status alone would be
     * gone, which no reader of the index can tell from a row never written. The index table is
     * flushed first: a write's post step (the row's copy) is not logged, its UNVERIFIED mark is,
     * and the Delete masks that mark too, so a crash of the region's server before its next flush
     * would leave a row with no cell at all (RegionServerFaultIT). Returns whether the row was
     * there to lose its status; throws when the status outlived its delete.
     */
    static boolean deleteStatus(Connection connection, Table index, byte[] indexKey) throws IOException {
        Result whole = index.get(new Get(indexKey));
        Cell status = IndexRowFormat.status(whole);
        if (status == null || whole.size() < 2) {
            return false;
        }
        try (Admin admin = connection.getAdmin()) {
            admin.flush(index.getName());
        }
        index.delete(new Delete(indexKey).addColumns(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status.getTimestamp()));
        if (IndexRowFormat.status(index.get(new Get(indexKey).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS))) != null) {
            throw new IllegalStateException("hand-made index rows: the status of " + index.getName() + "'s row "
                    + Bytes.toHex(indexKey) + " outlived its delete: the case is not made");
        }
        return true;
    }

    private static Put verified(byte[] indexKey) {
        return new Put(indexKey).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, IndexRowFormat.VERIFIED);
    }

    // ------------------------------------------------------------------ writes while queries run

    /**
     * While queries run: Puts of the noise column on rows that exist, which no comparison reads, so
     * the truth stays put while the index coprocessor marks and rewrites the rows' index rows.
     */
    static final class NoiseWriter {
        private final Connection connection;
        private final TableName tableName;
        private final OracleEvents events;
        private final AtomicInteger written = new AtomicInteger();
        private volatile boolean stopping;
        private Thread thread;

        NoiseWriter(Connection connection, TableName tableName, OracleEvents events) {
            this.connection = connection;
            this.tableName = tableName;
            this.events = events;
        }

        void start(List<byte[]> keys, long seed) {
            if (keys.isEmpty()) {
                return;
            }
            stopping = false;
            Random random = new Random(seed);
            thread = new Thread(() -> {
                try (Table table = connection.getTable(tableName)) { // a Table is not thread-safe: its own
                    while (!stopping) {
                        byte[] key = keys.get(random.nextInt(keys.size()));
                        try {
                            table.put(new Put(key).addColumn(OracleSnapshot.NOISE_FAMILY, OracleSnapshot.NOISE_QUALIFIER,
                                    Bytes.toBytes(random.nextLong())));
                            written.incrementAndGet();
                            Thread.sleep(5 + random.nextInt(30));
                        } catch (InterruptedException e) {
                            return;
                        } catch (IOException | RuntimeException e) {
                            events.add("a noise write failed: " + OracleChaos.oneLine(e));
                        }
                    }
                } catch (IOException e) {
                    events.add("the noise writer stopped: " + OracleChaos.oneLine(e));
                }
            }, "oracle-noise");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops; returns the writes done since the start. */
        int stop() throws InterruptedException {
            stopping = true;
            if (thread != null) {
                thread.join(java.util.concurrent.TimeUnit.MINUTES.toMillis(3));
                thread = null;
            }
            return written.getAndSet(0);
        }
    }
}
