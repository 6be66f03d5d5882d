package org.rowkey.hbase;

import org.apache.hadoop.hbase.filter.HintingFilter;

/**
 * {@link SkipScanFilter} with HBase's {@code HintingFilter} marker (HBASE-28622), so a
 * {@code FilterList(MUST_PASS_ALL)} still calls {@code filterCell}, and so gets the seek hint, on
 * rows another filter of the list rejects by row key. Only {@link SkipScanFilter#parseFrom} makes
 * one, and only on an HBase that has the marker: this class cannot load on one that does not.
 * Serialized under its own class name, so not for client-side use (build a SkipScanFilter).
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
final class HintingSkipScanFilter extends SkipScanFilter implements HintingFilter {
    private HintingSkipScanFilter(SkipScanFilter parsed) {
        super(parsed);
    }

    static SkipScanFilter of(SkipScanFilter parsed) {
        return new HintingSkipScanFilter(parsed);
    }
}
