package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;

import org.rowkey.hbase.proto.RowKeyProtos.Column;

/**
 * What a reader does with an UNVERIFIED index row of one index it met (docs/indexes.md), shared by
 * {@link IndexResultScanner} and {@link JoinScanner}: when the data row exists, repairs the index
 * row where puts can do it ({@link #repair}); when it does not, marks the index row STALE once it
 * is older than the grace period ({@value #STALE_GRACE_KEY}, default one hour: a write in flight is
 * never touched), so that later readers skip it without reading the data table.
 */
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

    static boolean isStatus(Cell status, byte[] value) {
        return status != null && CellUtil.matchingValue(status, value);
    }

    /** Whether {@code status} (null: none) is an UNVERIFIED one, with or without its time. */
    static boolean isUnverified(Cell status) {
        return status != null && status.getValueLength() > 0
                && status.getValueArray()[status.getValueOffset()] == RowKeyIndexObserver.UNVERIFIED;
    }

    /** The status cell of an index row read with it, or null. */
    static Cell status(Result indexRow) {
        return indexCell(indexRow, RowKeyIndexObserver.STATUS_QUALIFIER);
    }

    /**
     * The newest cell of an index row under {@code qualifier} (in {@code _i}), or null: a walk over
     * the row's few cells (the status and the covered columns), cheaper than
     * {@code Result.getColumnLatestCell}'s binary search (a third of a covered read's client time).
     */
    static Cell indexCell(Result indexRow, byte[] qualifier) {
        Cell[] cells = indexRow.rawCells();
        if (cells == null) {
            return null; // an empty Result
        }
        for (Cell cell : cells) {
            // The qualifier first: its length alone tells most cells apart.
            if (CellUtil.matchingQualifier(cell, qualifier) && CellUtil.matchingFamily(cell, RowKeyIndexObserver.INDEX_FAMILY)) {
                return cell; // a row's versions of a column come newest first
            }
        }
        return null;
    }

    /** A data column, and the qualifier of its copy in an index row (made once per reader, not per row). */
    static final class CoveredColumn {
        final byte[] family;
        final byte[] qualifier;
        final byte[] inIndex;

        CoveredColumn(Column column) {
            this(column.getFamily().toByteArray(), column.getQualifier().toByteArray());
        }

        CoveredColumn(byte[] family, byte[] qualifier) {
            this.family = family;
            this.qualifier = qualifier;
            this.inIndex = RowKeyIndexObserver.coveredQualifier(family, qualifier);
        }

        static List<CoveredColumn> of(List<Column> columns) {
            List<CoveredColumn> out = new ArrayList<>(columns.size());
            for (Column c : columns) {
                out.add(new CoveredColumn(c));
            }
            return out;
        }
    }

    /**
     * Marks an UNVERIFIED index row {@code row} whose data row does not exist STALE, once it is older
     * than the grace period: its status rewritten at its own timestamp, only if it is still the status
     * read (a new write of the row since then has changed it). Not a delete: a delete marker would
     * also mask a later write of the row at that timestamp (a client or replication replaying it),
     * which the data table would show; a later write replaces a STALE status like any other. A status
     * without a time (or no status at all) is left as it is.
     */
    Optional<CheckAndMutate> staleMark(byte[] row, Cell status) {
        if (status == null) {
            return Optional.empty();
        }
        byte[] value = CellUtil.cloneValue(status);
        long since = RowKeyIndexObserver.unverifiedSince(value);
        if (since < 0 || System.currentTimeMillis() - since <= staleGraceMillis) {
            return Optional.empty();
        }
        return Optional.of(CheckAndMutate.newBuilder(row)
                .ifEquals(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER, value)
                .build(new Put(row).addColumn(RowKeyIndexObserver.INDEX_FAMILY,
                        RowKeyIndexObserver.STATUS_QUALIFIER, status.getTimestamp(), RowKeyIndexObserver.STALE)));
    }

    /**
     * Makes an unverified index row (read whole, with its status cell {@code status}) whose data row
     * exists VERIFIED when puts alone can make it the data row's copy: each covered cell the data row
     * has and the index lacks (or holds an older version of) is copied at the data cell's timestamp,
     * then the status is rewritten VERIFIED at its own timestamp. When the index holds a covered cell
     * the data row does not (a failed write's newer value), nothing is written: only a delete could
     * remove it, and a delete marker would also mask a later write of that cell at that timestamp (a
     * replayed write), which the data table would show. Such a row stays UNVERIFIED, answered from its
     * data row, until the row is written again; so does one without a status, which has no timestamp
     * to verify at.
     */
    Optional<Put> repair(Result indexRow, Cell status, Result dataRow) {
        if (status == null) {
            return Optional.empty();
        }
        Put put = new Put(indexRow.getRow());
        for (CoveredColumn c : coverage.columnsOf(indexRow, dataRow)) {
            Cell inIndex = indexCell(indexRow, c.inIndex);
            Cell inData = dataRow.getColumnLatestCell(c.family, c.qualifier);
            if (inIndex != null && (inData == null || inIndex.getTimestamp() > inData.getTimestamp())) {
                return Optional.empty();
            }
            boolean same = inIndex != null && inIndex.getTimestamp() == inData.getTimestamp()
                    && CellUtil.matchingValue(inIndex, inData);
            if (inData != null && !same) {
                // At the data cell's own timestamp: as the data, a later write of that cell replaces it.
                put.addColumn(RowKeyIndexObserver.INDEX_FAMILY, c.inIndex, inData.getTimestamp(), CellUtil.cloneValue(inData));
            }
        }
        return Optional.of(put.addColumn(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER,
                status.getTimestamp(), RowKeyIndexObserver.VERIFIED));
    }
}
