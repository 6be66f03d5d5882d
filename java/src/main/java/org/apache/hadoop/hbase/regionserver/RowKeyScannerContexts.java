package org.apache.hadoop.hbase.regionserver;

/**
 * What hbase-rowkey's region scanner wrapper asks of a {@link ScannerContext} that HBase keeps
 * package-private: whether the last call stopped inside a row (its time limit cut the row), so that
 * the rest of the row is read before the row is folded. In HBase's package for that reason alone, as
 * Apache Phoenix's ScannerContextUtil is.
 */
public final class RowKeyScannerContexts {
    private RowKeyScannerContexts() {
    }

    /** Whether the call that {@code context} limited returned only part of a row. */
    public static boolean stoppedInsideRow(ScannerContext context) {
        return context.mayHaveMoreCellsInRow();
    }
}
