package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TagType;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.Column;

/**
 * The one owner of what an index row holds (docs/indexes.md, "Index row"), for the coprocessor that
 * writes index rows, the readers that trust or repair them, and the jobs that build them: the index
 * table's name and family, the status cell and its values, and the covered cells.
 *
 * <p>Every write of an index row by the write path is a whole row: the status and one cell for every
 * covered column, all at one timestamp of the index's own, in microseconds (never a data
 * timestamp: docs/indexes.md says why). A covered cell holds the data cell's timestamp and value, or nothing when the data row
 * has no such column, so the newest version of the row is, alone, the data row's state it was
 * written from.
 */
@RunsIn(RunsIn.Where.SHARED)
final class IndexRowFormat {
    private IndexRowFormat() {}

    /** An index table is named {@code <data table>__idx_<index>}, in the data table's namespace. */
    static final String INDEX_TABLE_INFIX = "__idx_";
    /** The descriptor value of an index table that names its data table. */
    static final String INDEX_OF_KEY = "rowkey.index.of";

    /**
     * The one column family of an index table: a row's status cell and its covered cells (a scan
     * of one family costs about half one of two, which matters to covered reads).
     */
    static final byte[] FAMILY = Bytes.toBytes("_i");
    /** The status cell's qualifier: one byte, so it is never a {@link #coveredQualifier}. */
    static final byte[] STATUS = Bytes.toBytes("s");
    /** The index row is the copy of its data row as it was at the status's timestamp. */
    static final byte[] VERIFIED = {1};
    /** The first byte of an unverified status; 8 more bytes say when it was written (see {@link #unverified}). */
    static final byte UNVERIFIED = 2;
    /**
     * The status a reader gives an UNVERIFIED index row whose data row does not exist, once the grace
     * period has passed: its write never reached the data table, and later readers skip it without
     * reading the data table. Any later write of the row replaces it (a newer timestamp).
     */
    static final byte[] STALE = {3};
    /**
     * The first byte of the status of an index row whose data row has cells with a TTL of their own
     * ({@code Mutation.setTTL}); 8 more bytes say when it was written, as {@link #unverified}'s.
     * Such a row can change by expiry alone, which no write tells the index, so it is never
     * trusted nor repaired: readers read its data row every time, and mark it STALE, like an
     * UNVERIFIED row, once that row is gone and the grace period has passed.
     */
    static final byte EXPIRING = 4;
    /**
     * The timestamp of index rows a job builds from a data table (backfill, bulk load): older than
     * every write of the coprocessor, so a live write of the row always wins over the job's copy.
     */
    static final long JOB_TIMESTAMP = 1;
    /**
     * The data table's descriptor value that a bulk load sets while it runs (its timestamp, in
     * milliseconds): meanwhile the coprocessor writes every index row UNVERIFIED, stamped after the
     * load's own index rows, so that no index row written while loaded rows come in is trusted
     * (docs/bulk-load.md, "Bulk-loaded rows and live writes").
     */
    static final String LOAD_WINDOW_KEY = "rowkey.bulkload.window";

    /**
     * The index timestamp of a bulk load's index rows: the load's data timestamp in the microseconds
     * of index timestamps (docs/indexes.md). Index rows order by the events that wrote them, data
     * rows by their cells' timestamps; at the load's own time the two orders agree wherever data
     * timestamps follow the servers' clocks, and {@link #LOAD_WINDOW_KEY} covers the rest.
     */
    static long loadStamp(long loadTimestampMillis) {
        return loadTimestampMillis * 1_000;
    }

    /** The table of index {@code index} of data table {@code table}. */
    static TableName indexTableName(TableName table, String index) {
        return TableName.valueOf(table.getNamespaceAsString(), table.getQualifierAsString() + INDEX_TABLE_INFIX + index);
    }

    /**
     * An UNVERIFIED status written at index timestamp {@code stamp} (microseconds since the epoch;
     * also its value, big-endian after the status byte): readers mark a stale index row by its age,
     * and a reader's repair replaces the status only while it is still this one, which the stamp
     * tells apart from any other write's.
     */
    static byte[] unverified(long stamp) {
        return Bytes.add(new byte[] {UNVERIFIED}, Bytes.toBytes(stamp));
    }

    /**
     * The UNVERIFIED status a write gives an index row while a bulk load at {@code loadTimestampMillis}
     * is under way ({@link #LOAD_WINDOW_KEY}): {@link #unverified} followed by the load's timestamp.
     * A reader repairs such a row only once the data row it reads shows a cell of the load (so the
     * load's data has landed there: {@link #loadOf}), and never marks it STALE by age.
     */
    static byte[] unverifiedDuringLoad(long stamp, long loadTimestampMillis) {
        return Bytes.add(unverified(stamp), Bytes.toBytes(loadTimestampMillis));
    }

    /**
     * The attribute of a read of data rows an index row may be copied from (a reader's repair, the
     * backfill of a new index): the data region adds a marker cell ({@link #PROBE_QUALIFIER}) to a
     * row it should not be copied from as it was read, its value the reasons ({@link #PROBE_IN_FLIGHT},
     * {@link #PROBE_EXPIRES}). Tags, where a cell's own TTL is kept, do not reach clients.
     */
    static final String DATA_ROW_PROBE = "rowkey.probe";
    /**
     * The attribute of a conditional write that settles an index row ({@link #REPAIRED_BY_READER},
     * {@link #MARKED_STALE_BY_READER}, {@link #REPAIRED_BY_VERIFY}): the index table's scan observer
     * counts them, and whether their condition held, in the RegionServer's metrics.
     */
    static final String SETTLING = "rowkey.settling";
    static final byte REPAIRED_BY_READER = 1;
    static final byte MARKED_STALE_BY_READER = 2;
    static final byte REPAIRED_BY_VERIFY = 3;

    /** A read of data row {@code key} whole with {@link #DATA_ROW_PROBE}: what settling or verifying its index row needs. */
    static org.apache.hadoop.hbase.client.Get probe(byte[] key) {
        return new org.apache.hadoop.hbase.client.Get(key).setAttribute(DATA_ROW_PROBE, new byte[] {1});
    }

    /**
     * A scan of a data table's rows whole with {@link #DATA_ROW_PROBE}, as a MapReduce job reads
     * them to copy or check index rows ({@code caching} rows a round trip, the block cache left alone).
     */
    static org.apache.hadoop.hbase.client.Scan probeScan(int caching) {
        org.apache.hadoop.hbase.client.Scan scan = new org.apache.hadoop.hbase.client.Scan().setCaching(caching).setCacheBlocks(false);
        scan.setAttribute(DATA_ROW_PROBE, new byte[] {1});
        return scan;
    }

    /** The qualifier of the probe's marker cell: a NUL first, which no column of this library's tables uses. */
    static final byte[] PROBE_QUALIFIER = Bytes.toBytes("\u0000rowkey.probe");
    /**
     * A write of the row is between its index marks and its post step: the write may land after
     * the read, and a copy would replace the mark its lost post step leaves. Not copied.
     */
    static final int PROBE_IN_FLIGHT = 1;
    /** A cell read has a TTL of its own: the row may change by expiry alone. Copied as {@link #EXPIRING}. */
    static final int PROBE_EXPIRES = 2;

    /**
     * The probe's reasons for a data row read with {@link #DATA_ROW_PROBE} (0: none); those of every
     * marker, when a scan read the row in parts (each part has its own).
     */
    static int probed(Result row) {
        int reasons = 0;
        for (Cell c : row.rawCells() == null ? new Cell[0] : row.rawCells()) {
            if (CellUtil.matchingQualifier(c, PROBE_QUALIFIER) && c.getValueLength() == 1) {
                reasons |= c.getValueArray()[c.getValueOffset()];
            }
        }
        return reasons;
    }

    /** Whether a data row read with {@link #DATA_ROW_PROBE} has a cell with a TTL of its own. */
    static boolean expires(Result probed) {
        return (probed(probed) & PROBE_EXPIRES) != 0;
    }

    /** Whether a data row read with {@link #DATA_ROW_PROBE} has a write in flight. */
    static boolean inFlight(Result probed) {
        return (probed(probed) & PROBE_IN_FLIGHT) != 0;
    }

    /** A data row read with {@link #DATA_ROW_PROBE}, without the marker cell. */
    static Result withoutProbeMarker(Result probed) {
        if (probed(probed) == 0) {
            return probed;
        }
        List<Cell> cells = new ArrayList<>();
        for (Cell c : probed.rawCells()) {
            if (!CellUtil.matchingQualifier(c, PROBE_QUALIFIER)) {
                cells.add(c);
            }
        }
        return Result.create(cells);
    }

    /**
     * The probe's marker cell for a data row {@code row} whose cells read are {@code cells} (with
     * their tags: in the RegionServer), in family {@code family}; null when the row may be copied as
     * read. {@code inFlight}: a write of the row is between its index marks and its post step.
     */
    static Cell probeMarker(byte[] row, byte[] family, List<Cell> cells, boolean inFlight) {
        int reasons = (inFlight ? PROBE_IN_FLIGHT : 0) | (hasOwnTtl(cells) ? PROBE_EXPIRES : 0);
        return reasons == 0 ? null
                : new KeyValue(row, family, PROBE_QUALIFIER, HConstants.LATEST_TIMESTAMP, KeyValue.Type.Put, new byte[] {(byte) reasons});
    }

    /** Whether a cell of {@code cells} (read in the RegionServer, with their tags) has a TTL of its own. */
    static boolean hasOwnTtl(List<Cell> cells) {
        for (Cell cell : cells) {
            if (PrivateCellUtil.getTag(cell, TagType.TTL_TAG_TYPE).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** An {@link #EXPIRING} status written at index timestamp {@code stamp}. */
    static byte[] expiring(long stamp) {
        return Bytes.add(new byte[] {EXPIRING}, Bytes.toBytes(stamp));
    }

    /** Whether {@code status} (null: none) is an {@link #EXPIRING} one. */
    static boolean isExpiring(byte[] status) {
        return status != null && status.length > 0 && status[0] == EXPIRING;
    }

    /** The load timestamp of a status written during a bulk load, or -1 for any other status. */
    static long loadOf(byte[] status) {
        return status != null && status.length == 1 + 2 * Bytes.SIZEOF_LONG && status[0] == UNVERIFIED
                ? Bytes.toLong(status, 1 + Bytes.SIZEOF_LONG) : -1;
    }

    /**
     * When an UNVERIFIED or {@link #EXPIRING} status was written, in milliseconds since the epoch, or
     * -1 when it does not say (or is another status, or was written during a bulk load).
     */
    static long unverifiedSince(byte[] status) {
        return status != null && status.length == 1 + Bytes.SIZEOF_LONG && (status[0] == UNVERIFIED || status[0] == EXPIRING)
                ? Bytes.toLong(status, 1) / 1_000 : -1;
    }

    static boolean isStatus(Cell status, byte[] value) {
        return status != null && CellUtil.matchingValue(status, value);
    }

    /** Whether {@code status} (null: none) is an UNVERIFIED one. */
    static boolean isUnverified(Cell status) {
        return status != null && status.getValueLength() > 0
                && status.getValueArray()[status.getValueOffset()] == UNVERIFIED;
    }

    /**
     * Where an index row holds its copy of the data column {@code family:qualifier}: in
     * {@link #FAMILY}, under the qualifier {@code [family length] family qualifier} (at least two
     * bytes: a family name has 1 to 127 bytes).
     */
    static byte[] coveredQualifier(byte[] family, byte[] qualifier) {
        byte[] q = new byte[1 + family.length + qualifier.length];
        q[0] = (byte) family.length;
        System.arraycopy(family, 0, q, 1, family.length);
        System.arraycopy(qualifier, 0, q, 1 + family.length, qualifier.length);
        return q;
    }

    /** A covered cell's value: the data cell's timestamp, then its value. */
    static byte[] coveredValue(Cell data) {
        byte[] out = new byte[Bytes.SIZEOF_LONG + data.getValueLength()];
        Bytes.putLong(out, 0, data.getTimestamp());
        System.arraycopy(data.getValueArray(), data.getValueOffset(), out, Bytes.SIZEOF_LONG, data.getValueLength());
        return out;
    }

    /** The covered cell of a data column the data row does not have. */
    static final byte[] ABSENT = new byte[0];

    /**
     * The data cell that a covered cell of an index row stands for, under the data row's key and
     * column, or null when the data row has no such column (or {@code covered} is null).
     */
    static Cell dataCell(Cell covered, byte[] dataKey, CoveredColumn column) {
        return covered == null ? null : dataCell(covered, column.family.length, dataKey);
    }

    /**
     * The data cell that covered cell {@code covered} stands for under {@code dataKey}, its column
     * the one its qualifier names (its family {@code familyLength} bytes), or null when the data row
     * has no such column. Nothing copied: a covered read makes one a cell.
     */
    static Cell dataCell(Cell covered, int familyLength, byte[] dataKey) {
        int valueLength = covered.getValueLength();
        if (valueLength < Bytes.SIZEOF_LONG) {
            return null;
        }
        byte[] value = covered.getValueArray();
        int at = covered.getValueOffset();
        return new CoveredDataCell(dataKey, covered.getQualifierArray(), coveredFamilyOffset(covered), familyLength,
                coveredQualifierLength(covered, familyLength), Bytes.toLong(value, at), value, at + Bytes.SIZEOF_LONG,
                valueLength - Bytes.SIZEOF_LONG);
    }

    /** Where the data family's name starts in the qualifier array of a covered cell. */
    static int coveredFamilyOffset(Cell covered) {
        return covered.getQualifierOffset() + 1;
    }

    /** The length of the data qualifier a covered cell's qualifier names after its family of {@code familyLength} bytes. */
    static int coveredQualifierLength(Cell covered, int familyLength) {
        return covered.getQualifierLength() - 1 - familyLength;
    }

    /**
     * The length of the data family an index cell's qualifier names ({@link #coveredQualifier}), or
     * 0 when it is no covered cell (the status, or another cell).
     */
    static int coveredFamilyLength(Cell indexCell) {
        int length = indexCell.getQualifierLength();
        if (length < 2 || !CellUtil.matchingFamily(indexCell, FAMILY)) {
            return 0;
        }
        int familyLength = indexCell.getQualifierArray()[indexCell.getQualifierOffset()];
        return familyLength >= 1 && 1 + familyLength <= length ? familyLength : 0;
    }

    /**
     * The whole index row {@code indexKey} as the data row {@code dataRow} (read with at least the
     * covered columns and families) shows it, at index timestamp {@code stamp}, with status
     * {@code status}: the covered cells as {@link IndexCoverage#copy} writes them.
     */
    static Put wholeRow(byte[] indexKey, long stamp, byte[] status, IndexCoverage covered, Result dataRow) {
        Put put = new Put(indexKey).addColumn(FAMILY, STATUS, stamp, status);
        covered.copy(dataRow, stamp, put);
        return put;
    }

    /** The status cell of an index row read with it, or null. */
    static Cell status(Result indexRow) {
        return indexCell(indexRow, STATUS);
    }

    /**
     * The newest cell of an index row under {@code qualifier} (in {@link #FAMILY}), or null: a walk
     * over the row's few cells (the status and the covered columns), cheaper than
     * {@code Result.getColumnLatestCell}'s binary search (a third of a covered read's client time).
     */
    static Cell indexCell(Result indexRow, byte[] qualifier) {
        Cell[] cells = indexRow.rawCells();
        if (cells == null) {
            return null; // an empty Result
        }
        for (Cell cell : cells) {
            // The qualifier first: its length alone tells most cells apart.
            if (CellUtil.matchingQualifier(cell, qualifier) && CellUtil.matchingFamily(cell, FAMILY)) {
                return cell; // a row's versions of a column come newest first
            }
        }
        return null;
    }

    /** A covered data column, and the qualifier of its copy in an index row (made once per reader, not per row). */
    static final class CoveredColumn {
        final byte[] family;
        final byte[] qualifier;
        final byte[] inIndex;

        private CoveredColumn(Column column) {
            this(column.getFamily().toByteArray(), column.getQualifier().toByteArray());
        }

        CoveredColumn(byte[] family, byte[] qualifier) {
            this.family = family;
            this.qualifier = qualifier;
            this.inIndex = coveredQualifier(family, qualifier);
        }

        static List<CoveredColumn> of(List<Column> columns) {
            List<CoveredColumn> out = new ArrayList<>(columns.size());
            for (Column c : columns) {
                out.add(new CoveredColumn(c));
            }
            return out;
        }
    }
}
