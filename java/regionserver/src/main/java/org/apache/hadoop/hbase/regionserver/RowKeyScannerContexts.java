package org.apache.hadoop.hbase.regionserver;

/**
 * What hbase-rowkey's region scanner wrapper asks of a {@link ScannerContext} that HBase keeps
 * package-private: whether the last call stopped inside a row (its time limit cut the row), so that
 * the rest of the row is read before the row is folded; and ending the RPC at once when the wrapper
 * spent its time budget on rows it did not return. In HBase's package for that reason alone, as
 * Apache Phoenix's ScannerContextUtil is.
 */
public final class RowKeyScannerContexts {
    /** Cleared when this HBase has no {@code returnImmediately} (then the RPC ends at its own time limit). */
    private static volatile boolean canReturnImmediately = true;

    private RowKeyScannerContexts() {
    }

    /**
     * Makes the RPC that {@code context} limits answer now, as a heartbeat, when the client takes
     * heartbeats (the context has a time limit). HBase's scan loop calls a region scanner again while
     * a call returns no row, until its own limit (half the client's timeout): a wrapper whose budget
     * ran out on filtered rows says so here, or one RPC holds its handler for seconds.
     */
    public static void endCallNow(ScannerContext context) {
        if (!canReturnImmediately || context == null) {
            return;
        }
        try {
            if (context.hasTimeLimit(ScannerContext.LimitScope.BETWEEN_ROWS)) {
                context.returnImmediately();
            }
        } catch (LinkageError e) {
            canReturnImmediately = false;
        }
    }

    /** Whether the call that {@code context} limited returned only part of a row. */
    public static boolean stoppedInsideRow(ScannerContext context) {
        return context.mayHaveMoreCellsInRow();
    }
}
