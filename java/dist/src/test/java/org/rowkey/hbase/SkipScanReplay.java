package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What a {@link SkipScanFilter} does on a RegionServer, replayed over a table's sorted keys region
 * by region (a fresh filter per region, as each region scanner gets its own): the rows it keeps,
 * the seeks it makes and the rows it moves past one by one. Their sum plus one row per region
 * bounds the rows the servers read for the same scan.
 */
final class SkipScanReplay {
    private static final byte[] FAMILY = Bytes.toBytes("f");
    private static final byte[] QUALIFIER = Bytes.toBytes("q");

    /** Kept rows, hex, in scan order. */
    final List<String> keys = new ArrayList<>();
    long seeks;
    long nextRows;
    private final int regions;

    private SkipScanReplay(int regions) {
        this.regions = regions;
    }

    /** The most rows the servers may read for the scan replayed. */
    long readBound() {
        return keys.size() + nextRows + seeks + regions;
    }

    @Override
    public String toString() {
        return keys.size() + " kept + " + nextRows + " moved past + " + seeks + " seeks + " + regions + " regions";
    }

    /**
     * The skip scan of {@code query} over {@code sortedKeys} (ascending) split at {@code regionStarts}
     * (ascending, the first one empty).
     */
    static SkipScanReplay of(List<byte[]> sortedKeys, byte[][] regionStarts, RowKeyQuery query, boolean reversed) {
        SkipScanReplay out = new SkipScanReplay(regionStarts.length);
        int regions = regionStarts.length;
        for (int region = 0; region < regions; region++) {
            int r = reversed ? regions - 1 - region : region;
            int from = lowerBound(sortedKeys, regionStarts[r]);
            int to = r + 1 < regions ? lowerBound(sortedKeys, regionStarts[r + 1]) : sortedKeys.size();
            try (SkipScanFilter filter = new SkipScanFilter(query)) {
                filter.setReversed(reversed);
                int i = reversed ? to - 1 : from;
                while (i >= from && i < to && !filter.filterAllRemaining()) {
                    byte[] key = sortedKeys.get(i);
                    ReturnCode rc = filter.filterCell(new KeyValue(key, FAMILY, QUALIFIER, key));
                    if (rc == ReturnCode.INCLUDE) {
                        out.keys.add(Bytes.toHex(key));
                        i += reversed ? -1 : 1;
                    } else if (rc == ReturnCode.SEEK_NEXT_USING_HINT) {
                        byte[] hint = CellUtil.cloneRow(filter.getNextCellHint(null));
                        int order = Bytes.compareTo(hint, key);
                        assertTrue(reversed ? order < 0 : order > 0, "a hint that does not move: " + query);
                        out.seeks++;
                        // Forward: the first key >= hint; reversed: the last key <= hint.
                        i = reversed ? lowerBound(sortedKeys, Bytes.add(hint, new byte[] {0})) - 1 : lowerBound(sortedKeys, hint);
                    } else {
                        assertEquals(ReturnCode.NEXT_ROW, rc);
                        out.nextRows++;
                        i += reversed ? -1 : 1;
                    }
                }
            }
        }
        return out;
    }

    /** The index of the first key >= {@code key}. */
    private static int lowerBound(List<byte[]> keys, byte[] key) {
        int i = Collections.binarySearch(keys, key, Bytes.BYTES_COMPARATOR);
        return i >= 0 ? i : -i - 1;
    }
}
