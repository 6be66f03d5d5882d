package org.rowkey.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.DoubleConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

import com.google.protobuf.ByteString;

import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.PlannedQuery;
import org.rowkey.hbase.proto.RowKeyProtos.QueryPlanRequest;

/**
 * A data table of a {@link RowKeySchema} with its secondary indexes (docs/indexes.md). Create it
 * once with {@link #create}; write with the plain HBase client (a coprocessor keeps the indexes in
 * step); query with {@link #scan}, which reads the data table or the index that reads the fewest
 * rows:
 *
 * <pre>{@code
 * RowKeyTable.create(admin, name, schema, List.of(RowKeyIndex.of("by_date_code", "sdate", "code").salt(16)), family);
 * RowKeyTable table = RowKeyTable.open(connection, name);
 * try (ResultScanner rows = table.scan(RowKeyQuery.on(schema).eq("sdate", 20161209).eq("code", 404))) { ... }
 * }</pre>
 *
 * The schema and the index definitions live in the data table's descriptor (its catalog), read by
 * the coprocessor and by {@link #open}. Thread-safe; the connection stays the caller's.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class RowKeyTable {
    /**
     * The scan metric ({@link ResultScanner#getScanMetrics()} of {@link #scan}) that counts the data
     * rows read by Gets when a query is answered through an index; there {@code countOfRowsScanned}
     * counts the index rows read.
     */
    public static final String DATA_ROWS_READ_METRIC = "ROWKEY_DATA_ROWS_READ";

    private final Connection connection;
    private final TableName name;
    /** Replaced by {@link #addIndex}, {@link #dropIndex}, and when the descriptor is found changed. */
    private volatile Described described;

    private RowKeyTable(Connection connection, TableName name, Described described) {
        this.connection = connection;
        this.name = name;
        this.described = described;
    }

    /**
     * What the data table's descriptor says: read by {@link #open}, and read again before every read
     * of an index, since another client may have dropped or replaced the index, or set a TTL, since.
     */
    private static final class Described {
        final Catalog catalog;
        /** The catalog as the descriptor holds it. */
        private final byte[] catalogBytes;
        /**
         * Whether an index row alone may answer (covered and key-only queries, VERIFIED rows folded
         * by aggregates): not when a data family has a TTL, since an index row may outlive the cells
         * it stands for.
         */
        final boolean indexAloneAnswers;
        /** The data table's families: an index covering them all answers a query of every column. */
        final List<ByteString> families;

        Described(Catalog catalog, byte[] catalogBytes, boolean indexAloneAnswers, List<ByteString> families) {
            this.catalog = catalog;
            this.catalogBytes = catalogBytes;
            this.indexAloneAnswers = indexAloneAnswers;
            this.families = families;
        }

        static Described of(TableName name, TableDescriptor descriptor) {
            return of(name, descriptor, null);
        }

        /**
         * The descriptor's catalog and families, or {@code known} itself when the descriptor holds
         * the same catalog bytes and families: parsing a catalog again (native calls, a schema per
         * index) costs about a third of a millisecond, the check before and after a read through an
         * index each time.
         */
        static Described of(TableName name, TableDescriptor descriptor, Described known) {
            byte[] bytes = descriptor.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
            if (bytes == null) {
                throw new IllegalArgumentException("table " + name + " has no hbase-rowkey catalog ("
                        + Catalog.DESCRIPTOR_KEY + "): it was not created with RowKeyTable.create");
            }
            boolean noTtl = true;
            List<ByteString> families = new ArrayList<>();
            for (ColumnFamilyDescriptor family : descriptor.getColumnFamilies()) {
                noTtl &= family.getTimeToLive() == HConstants.FOREVER;
                families.add(ByteString.copyFrom(family.getName()));
            }
            if (known != null && known.indexAloneAnswers == noTtl && known.families.equals(families)
                    && Arrays.equals(known.catalogBytes, bytes)) {
                return known;
            }
            try {
                return new Described(Catalog.parse(bytes), bytes, noTtl, families);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("table " + name + ": its hbase-rowkey catalog is unreadable: "
                        + e.getMessage(), e);
            }
        }

        boolean sameAs(Described other) {
            return indexAloneAnswers == other.indexAloneAnswers && families.equals(other.families)
                    && catalog.spec().equals(other.catalog.spec());
        }
    }

    /** The table of index {@code index} of data table {@code table}. */
    static TableName indexTableName(TableName table, String index) {
        return IndexRowFormat.indexTableName(table, index);
    }

    /**
     * Creates the data table {@code name} with {@code families}, one index table per index, the
     * coprocessor that maintains them, and the catalog in the data table's descriptor.
     *
     * @throws IllegalArgumentException naming the problem: an invalid index (unknown or repeated
     *     field, no field, a bad or duplicate name, ...), no family, a covered column in a family
     *     the table does not have
     * @throws IOException from HBase, e.g. when a table already exists, or when the RegionServers
     *     cannot load the index coprocessor (our jar must be on their class path, HBase's lib/:
     *     HBase never loads table coprocessors from {@code hbase.dynamic.jars.dir}); the index
     *     tables made before the failure are dropped again
     */
    public static void create(Admin admin, TableName name, RowKeySchema schema, List<RowKeyIndex> indexes,
            byte[]... families) throws IOException {
        create(admin, name, schema, indexes, new byte[0][], families);
    }

    /**
     * {@link #create(Admin, TableName, RowKeySchema, List, byte[]...)} with the data table pre-split
     * at {@code splitKeys} (as {@link Admin#createTable(TableDescriptor, byte[][])}). A salted
     * index's table is pre-split at its salt buckets, so its writes spread from the first row;
     * other index tables start with one region and split as HBase splits any table.
     */
    public static void create(Admin admin, TableName name, RowKeySchema schema, List<RowKeyIndex> indexes,
            byte[][] splitKeys, byte[]... families) throws IOException {
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(splitKeys, "split keys");
        Objects.requireNonNull(name, "table name");
        Catalog catalog = Catalog.of(schema, indexes, IndexState.ACTIVE);
        if (families == null || families.length == 0) {
            throw new IllegalArgumentException("table " + name + ": at least one column family is needed");
        }
        Set<String> familyNames = new LinkedHashSet<>();
        for (byte[] f : families) {
            familyNames.add(Bytes.toStringBinary(Objects.requireNonNull(f, "family")));
        }
        for (IndexSpec index : catalog.indexes()) {
            checkCoveredFamilies(index, name, familyNames);
        }
        List<TableName> created = new ArrayList<>();
        try {
            for (IndexSpec index : catalog.indexes()) {
                created.add(createIndexTable(admin, name, index));
            }
            createTable(admin, dataTableDescriptor(name, catalog, families), splitKeys);
        } catch (IOException | RuntimeException e) {
            // Leave nothing half made (e.g. a RegionServer that cannot load the coprocessor).
            for (TableName table : created) {
                try {
                    admin.disableTable(table);
                    admin.deleteTable(table);
                } catch (IOException | RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    private static TableDescriptor dataTableDescriptor(TableName name, Catalog catalog, byte[]... families) throws IOException {
        TableDescriptorBuilder data = TableDescriptorBuilder.newBuilder(name)
                .setValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY), catalog.toByteArray());
        for (byte[] f : families) {
            data.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f));
        }
        // With no index too: an index added later finds it there, from the first write after.
        data.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(CoprocessorWire.INDEX_OBSERVER).build());
        return data.setCoprocessor(scanObserver()).build();
    }

    private static void createTable(Admin admin, TableDescriptor table, byte[][] splitKeys) throws IOException {
        if (splitKeys.length == 0) {
            admin.createTable(table);
        } else {
            admin.createTable(table, splitKeys);
        }
    }

    /** Creates an index's table, a salted one pre-split at its buckets; returns its name. */
    private static TableName createIndexTable(Admin admin, TableName data, IndexSpec index) throws IOException {
        byte[][] buckets = new byte[Math.max(index.getSaltBuckets() - 1, 0)][];
        for (int b = 1; b < index.getSaltBuckets(); b++) {
            buckets[b - 1] = new byte[] {(byte) b};
        }
        TableDescriptor descriptor = indexTableDescriptor(data, index);
        createTable(admin, descriptor, buckets);
        return descriptor.getTableName();
    }

    private static TableDescriptor indexTableDescriptor(TableName data, IndexSpec index) throws IOException {
        return TableDescriptorBuilder.newBuilder(indexTableName(data, index.getName()))
                .setValue(IndexRowFormat.INDEX_OF_KEY, data.getNameAsString())
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(IndexRowFormat.FAMILY))
                .setCoprocessor(scanObserver())
                .build();
    }

    /**
     * The scan observer (the filter language's catalog, aggregates inside the regions: {@link #aggregate}),
     * on the data table and every index table.
     */
    private static org.apache.hadoop.hbase.client.CoprocessorDescriptor scanObserver() {
        return CoprocessorDescriptorBuilder.newBuilder(CoprocessorWire.SCAN_OBSERVER).build();
    }

    /**
     * The table {@code name}, as its catalog describes it.
     *
     * @throws IllegalArgumentException when the table has no catalog (it was not created by
     *     {@link #create}) or a corrupt one, naming the table and the problem
     */
    public static RowKeyTable open(Connection connection, TableName name) throws IOException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(name, "table name");
        try (Admin admin = connection.getAdmin()) {
            return new RowKeyTable(connection, name, Described.of(name, admin.getDescriptor(name)));
        }
    }

    /**
     * Adds an index to a table that already holds data: creates its table, adds it to the catalog
     * as BUILDING (the coprocessor maintains it from then on; queries do not read it), fills it from
     * the existing rows with a MapReduce job ({@link IndexBackfill}), then marks it ACTIVE. Other
     * {@code RowKeyTable}s of this table see it when they are opened again, or read the catalog
     * again (a query through an index, or one naming an index they do not know ACTIVE). Each catalog change is
     * made under the table's catalog lease ({@code rowkey.catalog.lock.wait.ms}: how long it waits
     * for another client's change; docs/indexes.md, "Catalog changes"), so changes other clients
     * make at the same time are kept.
     *
     * @param progress told the job's progress, from 0 to 1, as it runs
     * @throws IllegalArgumentException for an invalid index or one whose name is taken
     * @throws IllegalStateException when hbase-mapreduce is not on the class path, or while a bulk
     *     load's window is open on the table (nothing is changed; docs/bulk-load.md)
     * @throws IOException from HBase, or when another client's catalog change held the lease longer
     *     than the wait (naming it)
     */
    public void addIndex(RowKeyIndex index, DoubleConsumer progress) throws IOException {
        Objects.requireNonNull(index, "index");
        Objects.requireNonNull(progress, "progress");
        try {
            Class.forName("org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil", false, RowKeyTable.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("addIndex runs a MapReduce job: it needs hbase-mapreduce (the HBase version's"
                    + " org.apache.hbase:hbase-mapreduce) on the class path; nothing was changed", e);
        }
        IndexSpec building = index.toSpec(IndexState.BUILDING);
        // The new index in a catalog read under the lease: refused by name when taken, or during a load.
        // Its generation is the version this change writes: a name dropped and added again gets another.
        CatalogChange addBuilding = (data, current) -> {
            IndexSpec numbered = building.toBuilder().setGeneration(catalogVersion(name, data) + 1).build();
            Catalog added = Catalog.parse(current.spec().toBuilder().addIndexes(numbered).build().toByteArray());
            IndexBackfill.refuseDuringLoad(name, data);
            checkCoveredFamilies(building, name, familyNames(data));
            return added;
        };
        Catalog withIt;
        try (Admin admin = connection.getAdmin()) {
            try (CatalogLock lease = CatalogLock.acquire(connection, name, "addIndex '" + index.name() + "': its table, BUILDING")) {
                TableDescriptor data = admin.getDescriptor(name);
                described = Described.of(name, data);
                addBuilding.apply(data, described.catalog); // refused before its table is made
                TableName created = createIndexTable(admin, name, building);
                try {
                    withIt = changeCatalog(admin, lease, addBuilding);
                } catch (IOException | RuntimeException e) {
                    dropQuietly(admin, created, e); // not in the catalog: no writer maintains it
                    throw e;
                }
            }
            IndexSpec stored = withIt.indexes().get(withIt.indexNumber(index.name()));
            IndexBackfill.run(connection.getConfiguration(), name, withIt, withIt.indexNumber(index.name()), progress);
            try (CatalogLock lease = CatalogLock.acquire(connection, name, "addIndex '" + index.name() + "': ACTIVE")) {
                changeCatalog(admin, lease, (data, current) -> {
                    int at = current.indexNumber(index.name());
                    if (at < 0) {
                        throw new IllegalStateException("index '" + index.name() + "' of table " + name
                                + " was dropped by another client while it was being built");
                    }
                    if (!current.indexes().get(at).equals(stored)) {
                        throw new IllegalStateException("index '" + index.name() + "' of table " + name
                                + " was dropped and added again by another client while it was being built: it is now "
                                + current.indexes().get(at).getState() + " on " + current.indexes().get(at).getFieldsList());
                    }
                    IndexSpec active = stored.toBuilder().setState(IndexState.ACTIVE).build();
                    return Catalog.parse(current.spec().toBuilder().setIndexes(at, active).build().toByteArray());
                });
            }
        }
    }

    /** {@link #addIndex(RowKeyIndex, DoubleConsumer)} without progress reports. */
    public void addIndex(RowKeyIndex index) throws IOException {
        addIndex(index, p -> { });
    }

    /**
     * Removes an index, so that no reader meets it unmaintained: first it is marked DROPPING in the
     * catalog (the coprocessor keeps maintaining it, queries planned from the new catalog no longer
     * read it), then its table is disabled and deleted (a {@code RowKeyTable} opened before still
     * reading it gets an error from HBase, never rows it missed, and plans again: see {@link #scan}),
     * then it leaves the catalog. Other {@code RowKeyTable}s of this table see the change when they
     * meet the missing table or are opened again. Each catalog change is made under the table's
     * catalog lease, as {@link #addIndex}'s.
     *
     * @throws IllegalArgumentException when the table has no index of that name
     * @throws IOException from HBase, or when another client's catalog change held the lease longer
     *     than the wait (naming it)
     */
    public void dropIndex(String index) throws IOException {
        Objects.requireNonNull(index, "index");
        try (Admin admin = connection.getAdmin()) {
            try (CatalogLock lease = CatalogLock.acquire(connection, name, "dropIndex '" + index + "': DROPPING")) {
                changeCatalog(admin, lease, (data, current) -> {
                    int number = current.indexNumber(index);
                    if (number < 0) {
                        throw new IllegalArgumentException("table " + name + " has no index '" + index + "' (indexes: "
                                + names(current) + ")");
                    }
                    IndexSpec dropping = current.indexes().get(number).toBuilder().setState(IndexState.DROPPING).build();
                    return Catalog.parse(current.spec().toBuilder().setIndexes(number, dropping).build().toByteArray());
                });
            }
            TableName table = indexTableName(name, index);
            try {
                if (admin.isTableEnabled(table)) {
                    admin.disableTable(table);
                }
                admin.deleteTable(table);
            } catch (TableNotFoundException | TableNotEnabledException e) {
                // another client dropping the same index got there first
            }
            try (CatalogLock lease = CatalogLock.acquire(connection, name, "dropIndex '" + index + "': removing it")) {
                changeCatalog(admin, lease, (data, current) -> {
                    int at = current.indexNumber(index);
                    return at < 0 ? null // removed by another client dropping it too
                            : Catalog.parse(current.spec().toBuilder().removeIndexes(at).build().toByteArray());
                });
            }
        }
    }

    /** One change of the catalog, made from the descriptor as it is under the lease. */
    @FunctionalInterface
    private interface CatalogChange {
        /** The catalog to store instead of {@code current}, or null when there is nothing to store. */
        Catalog apply(TableDescriptor data, Catalog current) throws IOException;
    }

    /** Times a change is made again from a new descriptor when a writer that takes no lease rewrote it. */
    private static final int CHANGE_ATTEMPTS = 3;

    /**
     * Stores {@code change} of the catalog under {@code lease}: the descriptor is read right before
     * the write, the change made from it, the lease renewed, the catalog written with the next
     * {@link Catalog#VERSION_KEY}, then read back. Every client that changes catalogs takes the lease,
     * so nothing can come in between; a writer that does not (an older client, a hand-made
     * {@code alter} of the table) can, and is found by the read-back: the change is then made again
     * from what it wrote. Returns the catalog stored (the current one when {@code change} has nothing
     * to store).
     */
    private Catalog changeCatalog(Admin admin, CatalogLock lease, CatalogChange change) throws IOException {
        String raced = null;
        for (int attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
            TableDescriptor data = admin.getDescriptor(name);
            Described now = Described.of(name, data);
            described = now;
            Catalog changed = change.apply(data, now.catalog);
            if (changed == null) {
                return now.catalog;
            }
            long version = catalogVersion(name, data);
            lease.check();
            storeCatalog(admin, data, changed, version + 1);
            TableDescriptor stored = admin.getDescriptor(name);
            long storedVersion = catalogVersion(name, stored);
            if (storedVersion == version + 1
                    && Arrays.equals(stored.getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY)), changed.toByteArray())) {
                described = Described.of(name, stored);
                return changed;
            }
            raced = "version " + (version + 1) + " was written, the descriptor then held version " + storedVersion
                    + (storedVersion == version + 1 ? " with another catalog" : "");
        }
        throw new IOException("table " + name + "'s catalog could not be stored: " + CHANGE_ATTEMPTS + " times its descriptor"
                + " was rewritten at the same time by a writer that does not take the catalog lease (an hbase-rowkey client"
                + " older than the lease, or an alter of the table); last: " + raced);
    }

    /** The catalog's {@link Catalog#VERSION_KEY} in {@code data}: 0 when absent (a table made before it). */
    static long catalogVersion(TableName name, TableDescriptor data) {
        byte[] value = data.getValue(Bytes.toBytes(Catalog.VERSION_KEY));
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(Bytes.toString(value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("table " + name + ": its " + Catalog.VERSION_KEY + " is '"
                    + Bytes.toStringBinary(value) + "', not a number");
        }
    }

    private static void dropQuietly(Admin admin, TableName table, Exception failure) {
        try {
            admin.disableTable(table);
            admin.deleteTable(table);
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static List<String> names(Catalog catalog) {
        List<String> names = new ArrayList<>();
        for (IndexSpec index : catalog.indexes()) {
            names.add(index.getName());
        }
        return names;
    }

    /**
     * The data table's descriptor read again (one call to the master), kept when it changed: before
     * a read of an index, and after a table a plan read was found gone. Returns {@code known} when
     * nothing that plans depend on changed.
     */
    private Described reread(Described known) throws IOException {
        Described now;
        try (Admin admin = connection.getAdmin()) {
            now = Described.of(name, admin.getDescriptor(name), known);
        }
        if (now == known || now.sameAs(known)) {
            return known;
        }
        described = now;
        return now;
    }

    /** A plan and the descriptor it was made from. */
    private static final class Planned<P> {
        final P plan;
        final Described from;

        Planned(P plan, Described from) {
            this.plan = plan;
            this.from = from;
        }
    }

    /**
     * The plan {@code planOf} makes from what this object knows, made again from the descriptor as
     * it is now when it reads an index (one call to the master: another client may have dropped or
     * replaced the index, or set a TTL, since).
     */
    private <P> Planned<P> planned(Described known, Function<Described, P> planOf, Predicate<P> readsIndexTable) throws IOException {
        Planned<P> first = firstPlan(known, planOf);
        return checked(first.from, first.plan, planOf, readsIndexTable);
    }

    /**
     * The plan {@code planOf} makes from {@code known}; when it refuses, made again from the
     * descriptor as it is now before refusing: an index the query names that {@code known} has
     * BUILDING, DROPPING or not at all may be ACTIVE by now (another client changed the catalog
     * since this object read it), and a refusal from an old catalog would stand until it is opened again.
     */
    private <P> Planned<P> firstPlan(Described known, Function<Described, P> planOf) throws IOException {
        try {
            return new Planned<>(planOf.apply(known), known);
        } catch (IllegalArgumentException refused) {
            Described now = reread(known);
            if (now == known) {
                throw refused;
            }
            return new Planned<>(planOf.apply(now), now);
        }
    }

    /** {@link #planned}, from {@code plan}, the plan {@code planOf} made from {@code known}. */
    private <P> Planned<P> checked(Described known, P plan, Function<Described, P> planOf, Predicate<P> readsIndexTable)
            throws IOException {
        Described now = readsIndexTable.test(plan) ? reread(known) : known;
        return new Planned<>(now == known ? plan : planOf.apply(now), now);
    }

    /** Stores a catalog as {@code version} in the data table's descriptor (its regions reopen with it). */
    private static void storeCatalog(Admin admin, TableDescriptor data, Catalog catalog, long version) throws IOException {
        TableDescriptorBuilder builder = TableDescriptorBuilder.newBuilder(data)
                .setValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY), catalog.toByteArray())
                .setValue(Bytes.toBytes(Catalog.VERSION_KEY), Bytes.toBytes(Long.toString(version)));
        if (!data.hasCoprocessor(CoprocessorWire.INDEX_OBSERVER)) {
            builder.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(CoprocessorWire.INDEX_OBSERVER).build());
        }
        if (!data.hasCoprocessor(CoprocessorWire.SCAN_OBSERVER) && !data.hasCoprocessor(CoprocessorWire.SCAN_OBSERVER_BEFORE)) {
            builder.setCoprocessor(scanObserver());
        }
        admin.modifyTable(builder.build());
    }

    private static Set<String> familyNames(TableDescriptor data) {
        Set<String> names = new LinkedHashSet<>();
        for (byte[] f : data.getColumnFamilyNames()) {
            names.add(Bytes.toStringBinary(f));
        }
        return names;
    }

    private static void checkCoveredFamilies(IndexSpec index, TableName name, Set<String> families) {
        for (byte[] family : IndexCoverage.of(index).familiesNamed()) {
            if (!families.contains(Bytes.toStringBinary(family))) {
                throw new IllegalArgumentException("index '" + index.getName() + "' covers family '"
                        + Bytes.toStringBinary(family) + "' (or a column of it), which table " + name
                        + " does not have (families: " + families + ")");
            }
        }
    }

    /**
     * Verifies the table's ACTIVE indexes (or the one {@code request} names) against its data rows
     * with a MapReduce job, and with repair on mends what differs ({@link IndexVerify}); progress
     * lines on {@code progress} (null: none).
     *
     * @throws IllegalArgumentException for an index the table does not have, or one not ACTIVE
     * @throws IllegalStateException while a bulk load's window is open (nothing is read)
     */
    IndexVerify.Report verify(IndexVerify.Request request, java.io.PrintStream progress) throws IOException {
        TableDescriptor data;
        try (Admin admin = connection.getAdmin()) {
            data = admin.getDescriptor(name);
        }
        String load = BulkLoad.loadUnderWay(data);
        if (load != null) {
            // Its rows' index rows are settled only once it finishes: every one would look wrong.
            throw new IllegalStateException("table " + name + " has a " + load + ": verify it once the load is finished"
                    + " (run the load again with its --work directory to finish it); nothing was read");
        }
        Catalog catalog = Described.of(name, data).catalog;
        return IndexVerify.run(connection, catalog, IndexVerify.indexesOf(catalog, request), request, progress);
    }

    /** The data table's schema. */
    public RowKeySchema schema() {
        return described.catalog.schema();
    }

    /** The names of the table's indexes. */
    public List<String> indexNames() {
        return names(described.catalog);
    }

    /**
     * The data rows of {@code query} (every cell of each as a plain scan of the data table gives
     * them, or the columns of {@link RowKeyQuery#select}, or keys only), read through the plan that
     * reads the fewest rows: the data table's key ranges, or an index's key ranges and the data
     * rows they point to, or the index rows alone when the index covers the selected columns (or
     * keys only are asked) and no data family has a TTL. Rows come in data-key order when the data
     * table is read, and in index-key order through an index. The scanner's scan metrics are
     * enabled (see {@link #DATA_ROWS_READ_METRIC}). An UNVERIFIED index row met on the way is
     * repaired when its data row exists, and marked STALE (skipped from then on without reading the
     * data table) when it does not and it was written longer ago than the connection's
     * {@code rowkey.index.stale.grace.ms} (default one hour). {@link RowKeyQuery#anyOf},
     * {@link RowKeyQuery#limit}, {@link RowKeyQuery#leapfrog} and {@link RowKeyQuery#reversed}
     * queries are answered by joins of key streams (docs/joins.md), in data-key order (or its
     * reverse; a forward limit of one branch through the data table is the single read, one scan
     * in key order stopped at the limit; a reversed query with no limit through the data table, or an index each of whose
     * fields has one value, is the single read in descending data-key order, a salted index's
     * buckets merged by data key), each data row read from the data table (the branches of an {@code anyOf} that no
     * index answers by one data-table scan of the union of their ranges, each row matched against
     * their OR natively); the UNVERIFIED index rows their streams read are repaired or marked STALE
     * the same way. A query that several indexes (or the data table's leading fields) each fix some
     * conditions of, and that no index covers, is answered the same way too: its streams relayed,
     * each filtered with the whole query on the server, in data-key order. The plan's ranges in
     * different regions (salt buckets, IN values, a long range) are read at once by the
     * connection's pool ({@link ParallelScanner}: {@code rowkey.scan.threads}, default 16), rows
     * still in order unless {@link RowKeyQuery#unordered}; {@link RowKeyQuery#serial} reads one
     * range after another. A read through an index that another client dropped (and perhaps added
     * again) while it ran ends with {@link IndexChangedException} from its last {@code next()} instead
     * of its end (its rows may have come from the new index's table); one that returned no row yet
     * plans again.
     */
    public ResultScanner scan(RowKeyQuery query) throws IOException {
        return new Replanning(query, described);
    }

    /**
     * A query's scanner that plans it again, once, when a table it reads is gone before it returned
     * a row: an index another client dropped since this object read the catalog ({@link #dropIndex}).
     * HBase opens a scanner on its first {@code next}, so that is where the missing table shows.
     */
    private final class Replanning implements ResultScanner {
        private final RowKeyQuery query;
        private Described planned;
        private ResultScanner scanner;
        private boolean returned;
        private boolean replanned;
        private boolean ended;
        /**
         * The catalog check that ends the read of the scanner opened last when it reads an index
         * ({@link #checkIndexesKept}), else null; made once (a {@code FutureTask} runs once): by the
         * thread that read the last index row, as soon as it has (a parallel read's pool thread,
         * while the consumer still answers the rows before it), or else by the consumer after its
         * last row. It needs no more than every index row read: what the read does after (answers,
         * the data rows' Gets) does not depend on the index table.
         */
        private FutureTask<Void> endCheck;

        Replanning(RowKeyQuery query, Described known) throws IOException {
            this.query = query;
            this.scanner = open(known);
        }

        /**
         * The query's plan opened, as {@link #planned} makes it; a read of an index's rows alone
         * starts them before the catalog check and overlaps its call to the master, and is thrown
         * away unread when the catalog changed.
         */
        private ResultScanner open(Described given) throws IOException {
            Function<Described, QueryPlan> planOf = d -> plan(query, d, false);
            Planned<QueryPlan> first = firstPlan(given, planOf);
            Described known = first.from;
            QueryPlan plan = first.plan;
            IndexResultScanner early = plan.readsIndexTable() ? plan.openReadingAhead() : null;
            Planned<QueryPlan> checked;
            try {
                checked = checked(known, plan, planOf, QueryPlan::readsIndexTable);
            } catch (IOException | RuntimeException e) {
                if (early != null) {
                    early.close();
                }
                throw e;
            }
            Described from = checked.from;
            planned = from;
            ResultScanner opened;
            if (early != null && checked.plan == plan) {
                opened = early;
            } else {
                if (early != null) {
                    early.close();
                }
                opened = checked.plan.open();
            }
            // Read ahead, its chunks were cut at the index's regions before the check: when every
            // region read was one of those, the check vouched for all of them, and none is needed after.
            IndexResultScanner cutBeforeCheck = opened == early ? early : null;
            endCheck = checked.plan.readsIndexTable() ? new FutureTask<>(() -> {
                if (cutBeforeCheck == null || !cutBeforeCheck.readOnlyRegionsCut()) {
                    checkIndexesKept(from);
                }
                return null;
            }) : null;
            if (endCheck != null && opened instanceof IndexResultScanner) {
                ((IndexResultScanner) opened).whenIndexRowsRead(endCheck);
            }
            return opened;
        }

        /** The end check's outcome: made here unless a reading thread made it (then a no-op), and waited for. */
        private void awaitEndCheck() throws IOException {
            endCheck.run();
            try {
                endCheck.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the read's catalog check ran");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException) {
                    throw (IOException) cause;
                }
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                throw (Error) cause;
            }
        }

        @Override
        public Result next() throws IOException {
            if (ended) {
                return null;
            }
            try {
                Result r = scanner.next();
                returned |= r != null;
                if (r == null) {
                    if (endCheck != null) {
                        awaitEndCheck();
                    }
                    ended = true;
                }
                return r;
            } catch (IOException e) {
                // A table gone, or the catalog changed under a read that returned nothing yet: read again.
                if (returned || replanned || !(tableGone(e) || e instanceof IndexChangedException)) {
                    throw e;
                }
                Described fresh = reread(planned);
                if (fresh == planned) {
                    throw e;
                }
                replanned = true;
                scanner.close();
                scanner = open(fresh);
                return next();
            }
        }

        @Override
        public void close() {
            scanner.close();
        }

        @Override
        public boolean renewLease() {
            return scanner.renewLease();
        }

        @Override
        public ScanMetrics getScanMetrics() {
            return scanner.getScanMetrics();
        }
    }

    private static boolean tableGone(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TableNotFoundException || t instanceof TableNotEnabledException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The one plan of {@code query}'s rows, as the native planner decides it (joins of key streams
     * for the queries only they answer, the relay of several streams in place of an uncovered index,
     * else the single read that reads the fewest rows); its explain text only when it is {@code toShow}.
     */
    private QueryPlan plan(RowKeyQuery query, Described known, boolean toShow) {
        PlannedQuery planned = known.catalog.plan(request(query, known, query.columns(), query.isKeysOnly(), toShow, false));
        return QueryPlan.of(connection, name, known.catalog, query, planned);
    }

    /**
     * Whether {@link #scan} reads {@code query}'s rows through an index (or joins of several reads).
     * When it does not, it reads the data table's key ranges with the filter {@link RowKeyQuery#toScan()}
     * builds, so that scan cut at region boundaries gives the same rows, each piece readable anywhere
     * (the Spark source reads them as one task per region).
     */
    public boolean readsIndex(RowKeyQuery query) throws IOException {
        return planned(described, d -> plan(query, d, false), QueryPlan::readsIndexTable).plan.readsIndex();
    }

    /** The plan {@link #scan} uses for {@code query}, and the estimate of every alternative. */
    public String explain(RowKeyQuery query) throws IOException {
        return planned(described, d -> plan(query, d, true), QueryPlan::readsIndexTable).plan.explain();
    }

    /**
     * The aggregates of {@code query}'s rows (docs/aggregates.md), computed inside the regions: the
     * plan that reads the fewest rows (the data table's key ranges, or an index's: an index row holds
     * every key field, and the covered cells) is read with its skip scan or native filter as
     * {@link #scan} reads it, every row read is folded natively into the aggregation's groups, and
     * only partial states cross the network, merged here. Through an index, a row that is not VERIFIED
     * is checked against its data row and counted once if it exists; through an index that does not
     * cover the cells aggregated, every index row is. Exact under region splits, moves and server
     * failures (each partial covers the rows up to its row key; HBase's scanner resumes after it).
     *
     * @throws IllegalArgumentException for a query or aggregation on another schema, an aggregation
     *     without aggregates, a query that {@link #scan} answers by joins ({@code anyOf}, a limit,
     *     reversed, leapfrog: not aggregated yet), or a merge of the regions' groups past the client's
     *     {@value CoprocessorWire#AGGREGATE_MAX_BYTES} (naming it)
     * @throws IOException from HBase, among them a {@code DoNotRetryIOException} naming what a
     *     region refused (e.g. more groups than {@link Aggregation#maxGroups}, more bytes than the
     *     RegionServer's {@value CoprocessorWire#AGGREGATE_MAX_BYTES}, a cell that is not a number)
     */
    public AggregationResult aggregate(RowKeyQuery query, Aggregation aggregation) throws IOException {
        Planned<AggregatePlan> planned = planned(described, d -> aggregatePlan(query, aggregation, d, false),
                AggregatePlan::readsIndex);
        try {
            return aggregate(planned);
        } catch (IOException e) {
            // An index another client dropped since, or dropped and added again while this ran: the
            // answer is read again from the fresh plan, from the start (an aggregate returns nothing
            // before it ends).
            Described fresh = tableGone(e) || e instanceof IndexChangedException ? reread(planned.from) : planned.from;
            if (fresh == planned.from) {
                throw e;
            }
            return aggregate(new Planned<>(aggregatePlan(query, aggregation, fresh, false), fresh));
        }
    }

    private AggregationResult aggregate(Planned<AggregatePlan> planned) throws IOException {
        AggregationResult result = planned.plan.run();
        if (planned.plan.readsIndex()) {
            checkIndexesKept(planned.from);
        }
        return result;
    }

    /**
     * At the end of a read through an index: the indexes {@code planned} had ACTIVE, as the
     * descriptor says now (one call to the master). One dropped and added again under its name
     * while the read ran (another generation or definition) may have handed the read rows of the
     * new index, half built or on other fields: the read fails with {@link IndexChangedException}.
     * So does one the catalog no longer names: {@code addIndex} makes an index's table before the
     * catalog names it, so a read whose scanner resumed in a table made again under the name, empty
     * yet, and ended there, finds the index absent, as after a plain drop. (Every ACTIVE index is
     * checked, not only those the plan read: a false alarm costs a read again, a miss a wrong answer.)
     */
    private void checkIndexesKept(Described planned) throws IOException {
        Described now = reread(planned);
        if (now == planned) {
            return;
        }
        for (IndexSpec read : planned.catalog.indexes()) {
            if (read.getState() != IndexState.ACTIVE) {
                continue;
            }
            int at = now.catalog.indexNumber(read.getName());
            if (at < 0) {
                throw new IndexChangedException("index '" + read.getName() + "' of table " + name + " was dropped by another"
                        + " client while this read of it ran (generation " + read.getGeneration() + " on " + read.getFieldsList()
                        + "): the read may have met a table made again under its name; read again");
            }
            IndexSpec current = now.catalog.indexes().get(at);
            if (!current.toBuilder().setState(IndexState.ACTIVE).build().equals(read)) {
                throw new IndexChangedException("index '" + read.getName() + "' of table " + name + " was dropped and added"
                        + " again by another client while this read of it ran (generation " + read.getGeneration() + " on "
                        + read.getFieldsList() + ", now " + current.getGeneration() + " on " + current.getFieldsList() + ", "
                        + current.getState() + "): the read may have met the new index's rows; read again");
            }
        }
    }

    /** Where each part of {@link #aggregate} runs: the ranges or index read and its filter, what the regions fold, what the client does. */
    public String explain(RowKeyQuery query, Aggregation aggregation) throws IOException {
        return planned(described, d -> aggregatePlan(query, aggregation, d, true), AggregatePlan::readsIndex).plan.explain();
    }

    /** The plan of {@link #aggregate}: the native planner's single read for the regions to fold (it refuses joins, naming why). */
    private AggregatePlan aggregatePlan(RowKeyQuery query, Aggregation aggregation, Described known, boolean toShow) {
        Objects.requireNonNull(aggregation, "aggregation");
        aggregation.toSpecFor(known.catalog.schema());
        List<Column> columns = new ArrayList<>();
        for (Aggregation.Cell c : aggregation.cells()) {
            columns.add(Column.newBuilder().setFamily(com.google.protobuf.ByteString.copyFrom(c.family))
                    .setQualifier(com.google.protobuf.ByteString.copyFrom(c.qualifier)).build());
        }
        PlannedQuery planned;
        try {
            planned = known.catalog.plan(request(query, known, columns, columns.isEmpty(), toShow, true));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("aggregate of " + query + ": " + e.getMessage(), e);
        }
        return new AggregatePlan(connection, name, known.catalog, planned.getSingle(), query, aggregation);
    }

    private void checkSchema(RowKeyQuery query, Catalog catalog) {
        Objects.requireNonNull(query, "query");
        if (!query.schema().equals(catalog.schema())) {
            throw new IllegalArgumentException("the query is on " + query.schema() + ", table " + name + " has "
                    + catalog.schema());
        }
    }

    /** The native planner's request for {@code query} on this table as {@code known} describes it ({@link QueryPlan#request}). */
    private QueryPlanRequest request(RowKeyQuery query, Described known, List<Column> columns, boolean keysOnly,
            boolean toShow, boolean aggregate) {
        checkSchema(query, known.catalog);
        return QueryPlan.request(query, columns, keysOnly, known.families, !known.indexAloneAnswers, toShow, aggregate);
    }

    @Override
    public String toString() {
        return "RowKeyTable[" + name + ", indexes " + Arrays.toString(indexNames().toArray()) + "]";
    }
}
