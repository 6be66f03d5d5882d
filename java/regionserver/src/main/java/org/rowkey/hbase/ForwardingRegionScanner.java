package org.rowkey.hbase;

import java.io.IOException;

import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.Shipper;

/**
 * A region scanner that hands everything but its rows to the one it wraps: the base of the
 * observers' scanners ({@link RowKeyIndexObserver.ProbingScanner}, {@link RowKeyScanObserver.AggregatingScanner}),
 * which change what {@code next} returns and nothing else of a region scan's contract. It is a
 * {@link Shipper}, passing {@code shipped()} on, so that the blocks the wrapped scanner read are
 * released between calls as they would be without it.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
abstract class ForwardingRegionScanner implements RegionScanner, Shipper {
    final RegionScanner scanner;

    ForwardingRegionScanner(RegionScanner scanner) {
        this.scanner = scanner;
    }

    @Override
    public RegionInfo getRegionInfo() {
        return scanner.getRegionInfo();
    }

    @Override
    public boolean isFilterDone() throws IOException {
        // Not "this region has no more rows" of a wrapper's own: HBase reads a done filter with no
        // results in the call as the end of the whole client scan, and the regions after this one
        // would be dropped.
        return scanner.isFilterDone();
    }

    @Override
    public boolean reseek(byte[] row) throws IOException {
        return scanner.reseek(row);
    }

    @Override
    public long getMaxResultSize() {
        return scanner.getMaxResultSize();
    }

    @Override
    public long getMvccReadPoint() {
        return scanner.getMvccReadPoint();
    }

    @Override
    public int getBatch() {
        return scanner.getBatch();
    }

    @Override
    public void shipped() throws IOException {
        if (scanner instanceof Shipper) {
            ((Shipper) scanner).shipped();
        }
    }

    @Override
    public void close() throws IOException {
        scanner.close();
    }
}
