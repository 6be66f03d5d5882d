package org.rowkey.hbase;

import java.util.Optional;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;


/**
 * What a reader does with an UNVERIFIED index row of one index it met (docs/indexes.md), shared by
 * every reader through {@code IndexRowResolver.settle} and by {@code IndexVerify}'s repairs: when the data row exists, rewrites the index
 * row as its copy, VERIFIED, or EXPIRING when its data row has cells of their own TTL ({@link #repair};
 * an {@link IndexRowFormat#EXPIRING} one never); when it
 * does not, marks the index row STALE once it
 * is older than the grace period ({@value #STALE_GRACE_KEY}, default one hour: a write in flight is
 * never touched), so that later readers skip it without reading the data table. Both only while the
 * status is still the one read: a write of the row since then has replaced it with its own.
 */
@RunsIn(RunsIn.Where.SHARED)
final class IndexRowRepair {
    /** Milliseconds after which an UNVERIFIED index row whose data row does not exist is marked STALE. */
    static final String STALE_GRACE_KEY = "rowkey.index.stale.grace.ms";
    static final long STALE_GRACE_DEFAULT = 3_600_000;

    /** The cells the index covers. */
    private final IndexCoverage coverage;
    private final long staleGraceMillis;

    IndexRowRepair(IndexCoverage coverage, Configuration conf) {
        this.coverage = coverage;
        this.staleGraceMillis = conf.getLong(STALE_GRACE_KEY, STALE_GRACE_DEFAULT);
    }

    /**
     * What a reader does with index row {@code row} (status {@code status}) once it has read its data
     * row with {@link IndexRowFormat#DATA_ROW_PROBE}: nothing while a write of the row is in flight
     * (the row is left to it) or when the index row is VERIFIED, a STALE mark when the data row does
     * not exist ({@link #staleMark}), else a repair ({@link #repair}).
     */
    Optional<CheckAndMutate> settle(byte[] row, Cell status, Result probed) {
        if (IndexRowFormat.inFlight(probed)) {
            return Optional.empty();
        }
        if (IndexRowFormat.withoutProbeMarker(probed).isEmpty()) {
            return staleMark(row, status);
        }
        return IndexRowFormat.isStatus(status, IndexRowFormat.VERIFIED) ? Optional.empty() : repair(row, status, probed);
    }

    /**
     * Marks an UNVERIFIED index row {@code row} whose data row does not exist STALE, once it is older
     * than the grace period: its status rewritten at its own timestamp, only if it is still the status
     * read. A status without a time (or no status at all) is left as it is.
     */
    private Optional<CheckAndMutate> staleMark(byte[] row, Cell status) {
        if (status == null) {
            return Optional.empty();
        }
        byte[] value = CellUtil.cloneValue(status);
        long since = IndexRowFormat.unverifiedSince(value);
        if (since < 0 || System.currentTimeMillis() - since <= staleGraceMillis) {
            return Optional.empty();
        }
        Put stale = new Put(row).addColumn(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status.getTimestamp(), IndexRowFormat.STALE);
        return Optional.of(onlyIfStill(row, value, settling(stale, IndexRowFormat.MARKED_STALE_BY_READER)));
    }

    /**
     * Rewrites an unverified index row whose data row exists as that row's copy, VERIFIED, at the
     * status's own timestamp (which is the index row's newest: every write of the row writes its
     * status), only if the status is still {@code status}; EXPIRING when a cell of the data row has a
     * TTL of its own. {@code probed}: the data row read with {@link IndexRowFormat#DATA_ROW_PROBE}; a
     * row with a write in flight is left to that write. A row without a status has no timestamp to
     * repair at and is left to the next write.
     */
    private Optional<CheckAndMutate> repair(byte[] row, Cell status, Result probed) {
        Result dataRow = IndexRowFormat.withoutProbeMarker(probed);
        if (status == null || IndexRowFormat.isExpiring(CellUtil.cloneValue(status)) || IndexRowFormat.inFlight(probed)
                || dataRow.isEmpty() || !loadLanded(CellUtil.cloneValue(status), dataRow)) {
            return Optional.empty(); // an EXPIRING row is never trusted: its data row may expire unseen
        }
        Put copy = IndexRowFormat.wholeRow(row, status.getTimestamp(), copiedStatus(status.getTimestamp(), probed), coverage, dataRow);
        return Optional.of(onlyIfStill(row, CellUtil.cloneValue(status), settling(copy, IndexRowFormat.REPAIRED_BY_READER)));
    }

    /**
     * The status of a copy of data row {@code probed} (read with {@link IndexRowFormat#DATA_ROW_PROBE})
     * written at index timestamp {@code stamp}: VERIFIED, or EXPIRING since {@code stamp} when a cell
     * of the row has a TTL of its own.
     */
    static byte[] copiedStatus(long stamp, Result probed) {
        return IndexRowFormat.expires(probed) ? IndexRowFormat.expiring(stamp) : IndexRowFormat.VERIFIED;
    }

    /**
     * Whether {@code dataRow} may be copied into an index row with this status: always, unless the
     * status was written during a bulk load whose data may not have landed in the row yet (a copy
     * would then lack the loaded cells that land later). A cell at the load's timestamp says it has.
     */
    static boolean loadLanded(byte[] status, Result dataRow) {
        long load = IndexRowFormat.loadOf(status);
        if (load < 0) {
            return true;
        }
        for (Cell c : dataRow.rawCells()) {
            if (c.getTimestamp() == load) {
                return true;
            }
        }
        return false;
    }

    /** {@code write}, tagged as the settling of kind {@code kind} ({@link IndexRowFormat#SETTLING}). */
    static <M extends org.apache.hadoop.hbase.client.Mutation> M settling(M write, byte kind) {
        write.setAttribute(IndexRowFormat.SETTLING, new byte[] {kind});
        return write;
    }

    static CheckAndMutate onlyIfStill(byte[] row, byte[] status, Put put) {
        return CheckAndMutate.newBuilder(row).ifEquals(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, status).build(put);
    }
}
