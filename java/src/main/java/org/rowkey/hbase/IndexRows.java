package org.rowkey.hbase;

import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Put;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * The index row of a data row, built outside the write path (the backfill and the bulk load): the
 * status cell and the covered cells as {@link RowKeyIndexObserver} writes them (docs/indexes.md).
 * Every writer of index rows but the coprocessor goes through here, so a change of the index row
 * format is made in two places, not in every job.
 */
final class IndexRows {
    private IndexRows() {}

    /**
     * The index row of data row {@code dataKey} in index number {@code index} of {@code catalog}:
     * {@code status} at {@code statusTimestamp}, and a copy of the newest of {@code dataCells} of
     * each covered column at that cell's timestamp.
     */
    static Put indexRow(Catalog catalog, int index, byte[] dataKey, List<Cell> dataCells, long statusTimestamp,
            byte[] status) {
        Put put = new Put(catalog.indexKey(index, dataKey)).addColumn(RowKeyIndexObserver.INDEX_FAMILY,
                RowKeyIndexObserver.STATUS_QUALIFIER, statusTimestamp, status);
        IndexSpec spec = catalog.indexes().get(index);
        for (Column column : spec.getIncludeList()) {
            byte[] family = column.getFamily().toByteArray();
            byte[] qualifier = column.getQualifier().toByteArray();
            Cell newest = null;
            for (Cell cell : dataCells) {
                if (CellUtil.matchingColumn(cell, family, qualifier)
                        && (newest == null || cell.getTimestamp() > newest.getTimestamp())) {
                    newest = cell;
                }
            }
            if (newest != null) {
                put.addColumn(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.coveredQualifier(family, qualifier),
                        newest.getTimestamp(), CellUtil.cloneValue(newest));
            }
        }
        return put;
    }

    /**
     * The status cell alone of {@code indexRow} (made by {@link #indexRow}), set to {@code status} at
     * the same timestamp: what verifying that index row writes. The row's covered cells are at hand
     * for a status that may come to depend on them.
     */
    static Put statusOnly(Put indexRow, byte[] status) {
        Cell current = indexRow.get(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER).get(0);
        return new Put(indexRow.getRow()).addColumn(RowKeyIndexObserver.INDEX_FAMILY, RowKeyIndexObserver.STATUS_QUALIFIER,
                current.getTimestamp(), status);
    }

    /** The newest timestamp of {@code cells} (a data row's, the time its index row carries), or 0 for none. */
    static long newestTimestamp(List<Cell> cells) {
        long newest = 0;
        for (Cell cell : cells) {
            newest = Math.max(newest, cell.getTimestamp());
        }
        return newest;
    }

    /** A verified index row's status (today the status byte alone; it may come to depend on the covered cells). */
    static byte[] verified() {
        return RowKeyIndexObserver.VERIFIED.clone();
    }

    /** An unverified index row's status, written at {@code nowMillis} (see {@link RowKeyIndexObserver#unverified}). */
    static byte[] unverified(long nowMillis) {
        return RowKeyIndexObserver.unverified(nowMillis);
    }
}
