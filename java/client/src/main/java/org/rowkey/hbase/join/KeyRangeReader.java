package org.rowkey.hbase.join;

import java.io.IOException;
import java.util.List;

import org.rowkey.hbase.RunsIn;

/**
 * Reads the rows of one key range of a table in bounded batches, key-only: what a
 * {@link RangeKeyStream} asks of HBase ({@link TableKeyRangeReader}; tests read from memory).
 */
@RunsIn(RunsIn.Where.CLIENT)
public interface KeyRangeReader {
    /** The range's first row (inclusive). */
    byte[] start();

    /** The range's end (exclusive); empty: the end of the table. */
    byte[] stop();

    /** Whether it reads the range backwards, from its end to its start. */
    boolean descending();

    /**
     * At most {@code limit} rows of the range, in the reader's order, with one read: those of
     * {@code points} (rows of the range, in that order) that exist, then the rows from {@code from}
     * ({@code inclusive} or not; null for none; empty, in descending order: from the range's end) on.
     * With a {@code budget} (0: none) the server looks at no more rows than that (a reader whose
     * rows are filtered): the read may end early at a row it did not decide ({@link Read#cut}).
     */
    Read read(List<byte[]> points, byte[] from, boolean inclusive, int limit, int budget) throws IOException;

    /** The rows of one read. */
    final class Read {
        public final List<byte[]> rows;
        /**
         * The budget ran out: the last row was not decided (it may not pass the reader's filter) and
         * the range goes on after it; every row before it was looked at.
         */
        public final boolean cut;

        public Read(List<byte[]> rows, boolean cut) {
            this.rows = rows;
            this.cut = cut;
        }
    }

    /** Rows the reads visited. */
    long rowsRead();

    /** Reads made (each one scan request, or more for a large batch). */
    long reads();
}
