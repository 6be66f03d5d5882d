package org.rowkey.hbase;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The right to change one table's catalog, held by one client of the cluster at a time
 * (docs/indexes.md, "Catalog changes"). HBase has no compare-and-set on a table descriptor, so the
 * clients that change a catalog agree through a row of a small table instead, {@value #TABLE_NAME}
 * (created on demand): its row is the data table's name, its one cell the holder's <em>lease</em>,
 * {@code <expiry ms> <holder>: <what it does>}, taken with a check-and-put where there is none
 * (then read back: a release's delete marker from the same millisecond hides a put, so a put that
 * cannot be read is no lease), renewed by the holder (a check-and-put of its own value) every third of the lease while it works,
 * and released by a check-and-delete of its own value. A lease whose expiry has passed (its holder
 * died or hangs) is taken over with a check-and-put of the value seen, so exactly one client takes
 * it. Data reads and writes never look at it.
 *
 * <p>Clocks: the expiry is the holder's wall clock; clients' clocks are assumed closer than a lease
 * (default {@value #LEASE_MS_DEFAULT} ms), as HBase assumes of its servers'. A holder paused longer
 * than its lease may find it taken over: {@link #check} before each write of the catalog says so, and
 * the catalog's version ({@link Catalog#VERSION_KEY}) tells a write that raced anyway.
 */
@RunsIn(RunsIn.Where.SHARED)
final class CatalogLock implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogLock.class);

    static final String TABLE_NAME = "rowkey:catalog_locks";
    static final TableName TABLE = TableName.valueOf(TABLE_NAME);
    static final byte[] FAMILY = Bytes.toBytes("l");
    static final byte[] LEASE = Bytes.toBytes("lease");
    /** The connection setting of a lease's length in ms: how long a dead holder keeps others waiting. */
    static final String LEASE_MS_KEY = "rowkey.catalog.lease.ms";
    static final long LEASE_MS_DEFAULT = 60_000;
    /** The connection setting of how long a change waits for another client's lease before it fails. */
    static final String WAIT_MS_KEY = "rowkey.catalog.lock.wait.ms";
    static final long WAIT_MS_DEFAULT = 300_000;
    /** Who this JVM is, in every lease it takes. */
    private static final String PROCESS = "client " + ManagementFactory.getRuntimeMXBean().getName(); // pid@host

    private final TableName table;
    private final Table locks;
    private final byte[] row;
    private final String holder;
    private final long leaseMs;
    private final ScheduledExecutorService renewer;
    /** The lease value this client wrote last (guarded by this). */
    private byte[] value;
    /** Why the lease is no longer this client's, once it is not (guarded by this). */
    private String lost;
    private boolean released;

    private CatalogLock(TableName table, Table locks, String holder, long leaseMs, byte[] value) {
        this.table = table;
        this.locks = locks;
        this.row = Bytes.toBytes(table.getNameAsString());
        this.holder = holder;
        this.leaseMs = leaseMs;
        this.value = value;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rowkey-catalog-lease " + table.getNameAsString());
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(1, leaseMs / 3);
        renewer.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes the lease on {@code table}'s catalog for {@code doing} (what the holder does, for whoever
     * waits), waiting for another holder's lease to be released or to expire for at most the
     * connection's {@value #WAIT_MS_KEY}.
     *
     * @throws LeaseHeld naming the holder and its expiry when the wait ends first
     * @throws IOException when the lock table cannot be created or read
     */
    static CatalogLock acquire(Connection connection, TableName table, String doing) throws IOException {
        long leaseMs = Math.max(1, connection.getConfiguration().getLong(LEASE_MS_KEY, LEASE_MS_DEFAULT));
        long waitMs = Math.max(0, connection.getConfiguration().getLong(WAIT_MS_KEY, WAIT_MS_DEFAULT));
        String holder = PROCESS + " " + UUID.randomUUID().toString().substring(0, 8) + ": " + doing;
        byte[] row = Bytes.toBytes(table.getNameAsString());
        Table locks = lockTable(connection);
        try {
            long start = System.currentTimeMillis();
            long pause = 50;
            while (true) {
                long now = System.currentTimeMillis();
                byte[] mine = leaseValue(now + leaseMs, holder);
                if (locks.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(FAMILY, LEASE)
                        .build(new Put(row).addColumn(FAMILY, LEASE, mine))).isSuccess()) {
                    if (Arrays.equals(mine, lease(locks, row))) {
                        return new CatalogLock(table, locks, holder, leaseMs, mine);
                    }
                    // A release's delete marker as new as the put hides it (the same millisecond of
                    // the server's clock): no lease is held. Put again once the clock has moved on.
                    if (now - start >= waitMs) {
                        throw new IOException("table " + table + "'s catalog lease cannot be taken: a delete of the row '"
                                + table.getNameAsString() + "' of table " + TABLE_NAME + " newer than the RegionServer's"
                                + " clock hides every lease written there; waited " + (now - start) + " ms (" + WAIT_MS_KEY
                                + ")");
                    }
                    Thread.sleep(1);
                    continue;
                }
                byte[] seen = lease(locks, row);
                if (seen == null) {
                    continue; // released in between
                }
                long expiry = expiry(seen, table);
                if (expiry < now) {
                    if (locks.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, LEASE, seen)
                            .build(new Put(row).addColumn(FAMILY, LEASE, mine))).isSuccess()) {
                        LOG.warn("hbase-rowkey: took over the expired lease on table {}'s catalog: {}", table, describe(seen));
                        return new CatalogLock(table, locks, holder, leaseMs, mine);
                    }
                    continue; // another client took it over first
                }
                if (now - start >= waitMs) {
                    throw new LeaseHeld("table " + table + "'s catalog is being changed by " + describe(seen) + "; waited "
                            + (now - start) + " ms (" + WAIT_MS_KEY + "). A client that died keeps its lease until it"
                            + " expires; it is the row '" + table.getNameAsString() + "' of table " + TABLE_NAME
                            + " (docs/indexes.md, \"Catalog changes\")");
                }
                long sleep = Math.min(Math.min(pause, expiry - now + 1), start + waitMs - now);
                Thread.sleep(Math.max(1, sleep + ThreadLocalRandom.current().nextLong(sleep / 4 + 1)));
                pause = Math.min(1_000, pause * 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(locks);
            throw new InterruptedIOException("interrupted while waiting for table " + table + "'s catalog lease");
        } catch (IOException | RuntimeException e) {
            closeQuietly(locks);
            throw e;
        }
    }

    /** The lease stayed another client's for the whole wait: nothing was changed. */
    static final class LeaseHeld extends IOException {
        private static final long serialVersionUID = 1L;

        LeaseHeld(String message) {
            super(message);
        }
    }

    /**
     * Renews the lease now, so that it lasts a whole lease from here: called before each write of
     * the catalog, which must not start on a lease another client may take over.
     *
     * @throws IOException when the lease is no longer this client's (taken over after it expired:
     *     this client was paused longer than the lease) or cannot be renewed; nothing should be
     *     written then
     */
    synchronized void check() throws IOException {
        try {
            if (renew()) {
                return;
            }
        } catch (IOException e) {
            throw new IOException("table " + table + "'s catalog lease of " + holder + " could not be renewed (" + e
                    + "); the catalog was not changed by this step", e);
        }
        throw new IOException("table " + table + "'s catalog lease of " + holder + " was lost: " + lost
                + "; the catalog was not changed by this step");
    }

    /** Renews the lease (a check-and-put of this client's own value); false once it is lost. */
    private synchronized boolean renew() throws IOException {
        if (lost != null || released) {
            return false;
        }
        byte[] next = leaseValue(System.currentTimeMillis() + leaseMs, holder);
        if (locks.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, LEASE, value)
                .build(new Put(row).addColumn(FAMILY, LEASE, next))).isSuccess()) {
            value = next;
            return true;
        }
        byte[] now = lease(locks, row);
        lost = now == null ? "its row was deleted" : "it was taken over by " + describe(now);
        return false;
    }

    private void renewQuietly() {
        try {
            renew();
        } catch (IOException | RuntimeException e) {
            LOG.warn("hbase-rowkey: renewing the lease on table {}'s catalog failed (tried again): {}", table, e.toString());
        }
    }

    /** Releases the lease (a check-and-delete of this client's own value); a failure is logged: the lease then expires. */
    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        renewer.shutdownNow();
        try {
            if (lost == null && !locks.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, LEASE, value)
                    .build(new Delete(row).addColumns(FAMILY, LEASE))).isSuccess()) {
                LOG.warn("hbase-rowkey: the lease on table {}'s catalog was no longer {}'s when released", table, holder);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("hbase-rowkey: releasing the lease on table {}'s catalog failed; it expires on its own: {}", table,
                    e.toString());
        } finally {
            closeQuietly(locks);
        }
    }

    /** The lease cell as a read sees it, null when there is none. */
    private static byte[] lease(Table locks, byte[] row) throws IOException {
        return locks.get(new Get(row).addColumn(FAMILY, LEASE)).getValue(FAMILY, LEASE);
    }

    /** {@code <expiry ms> <holder>}: the expiry first, so that the one thing compared is read without a parser. */
    static byte[] leaseValue(long expiryMillis, String holder) {
        return (expiryMillis + " " + holder).getBytes(StandardCharsets.UTF_8);
    }

    /** The expiry of a lease value; a value that is no lease is an error naming where it is. */
    private static long expiry(byte[] value, TableName table) throws IOException {
        String text = new String(value, StandardCharsets.UTF_8);
        int space = text.indexOf(' ');
        try {
            return Long.parseLong(space < 0 ? text : text.substring(0, space));
        } catch (NumberFormatException e) {
            throw new IOException("table " + table + "'s catalog lease, row '" + table.getNameAsString() + "' of table "
                    + TABLE_NAME + ", holds '" + Bytes.toStringBinary(value) + "', which is no lease (\"<expiry ms> <holder>\");"
                    + " delete the row to free the catalog");
        }
    }

    /** A lease value in words: its holder and its expiry. */
    static String describe(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        int space = text.indexOf(' ');
        try {
            long expiry = Long.parseLong(text.substring(0, space));
            return text.substring(space + 1) + " until " + Instant.ofEpochMilli(expiry);
        } catch (RuntimeException e) {
            return "'" + Bytes.toStringBinary(value) + "'";
        }
    }

    /** The lock table, created with its namespace when missing (by whichever client gets there first). */
    static Table lockTable(Connection connection) throws IOException {
        try (Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(TABLE)) {
                try {
                    admin.createNamespace(NamespaceDescriptor.create(TABLE.getNamespaceAsString()).build());
                } catch (NamespaceExistException e) {
                    // made by another client, or by an operator
                }
                try {
                    admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
                            .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1).build()).build());
                } catch (TableExistsException e) {
                    // made by another client at the same time
                }
            }
        } catch (IOException e) {
            throw new IOException("the catalog lock table " + TABLE_NAME + " is missing and could not be created (" + e
                    + "); an HBase admin can make it once: create_namespace '" + TABLE.getNamespaceAsString() + "'; create '"
                    + TABLE_NAME + "', 'l'", e);
        }
        return connection.getTable(TABLE);
    }

    private static void closeQuietly(Table t) {
        try {
            t.close();
        } catch (IOException ignored) {
            // a table of a shared connection: nothing buffered
        }
    }
}
