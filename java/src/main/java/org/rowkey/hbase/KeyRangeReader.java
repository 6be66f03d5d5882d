package org.rowkey.hbase;

import java.io.IOException;
import java.util.List;

/**
 * Reads the rows of one key range of a table in bounded batches, key-only: what a
 * {@link RangeKeyStream} asks of HBase ({@link TableKeyRangeReader}; tests read from memory).
 */
interface KeyRangeReader {
    /** The range's first row (inclusive). */
    byte[] start();

    /** The range's end (exclusive); empty: the end of the table. */
    byte[] stop();

    /** Whether it reads the range backwards, from its end to its start (reversed scans). */
    boolean descending();

    /**
     * At most {@code limit} rows of the range, in the reader's order, with one read: those of
     * {@code points} (rows of the range, in that order) that exist, then the rows from {@code from}
     * ({@code inclusive} or not; null for none; empty, in descending order: from the range's end) on.
     */
    List<byte[]> read(List<byte[]> points, byte[] from, boolean inclusive, int limit) throws IOException;

    /** Rows the reads visited. */
    long rowsRead();

    /** Reads made (each one scan request, or more for a large batch). */
    long reads();
}
