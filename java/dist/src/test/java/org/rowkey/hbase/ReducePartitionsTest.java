package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.rowkey.hbase.InputRecords.Format;
import org.rowkey.hbase.ReducePartitions.LoadedTable;

/** The bulk load's reduce partitions: which regions are cut and where (the file Hadoop reads: {@link ReducePartitionFileTest}). */
class ReducePartitionsTest {
    @TempDir
    File dir;

    private static byte[] randomKey(Random random) {
        byte[] key = new byte[12];
        random.nextBytes(key);
        return key;
    }

    private static List<byte[]> randomKeys(Random random, int n) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(randomKey(random));
        }
        return keys;
    }

    /** In the shuffle's order: an index table of one region, 3 cells a row; a data table split in 8 at its first byte, one cell a row. */
    static List<LoadedTable> eightDataRegionsAndAnIndexOfOne() {
        byte[][] starts = new byte[8][];
        for (int r = 0; r < 8; r++) {
            starts[r] = r == 0 ? new byte[0] : new byte[] {(byte) (r * 32)};
        }
        return Arrays.asList(new LoadedTable(new byte[][] {new byte[0]}, 3), new LoadedTable(starts, 1));
    }

    @Test
    void anIndexRegionHoldingAWholeTablesRowsIsCutIntoEqualShares() {
        Random random = new Random(7);
        List<LoadedTable> tables = eightDataRegionsAndAnIndexOfOne();
        int partitions = ReducePartitions.wanted(tables, 2);
        assertEquals(9, partitions, "one per region, more than twice the 2 slots");
        int samples = ReducePartitions.samplesFor(partitions);
        List<byte[]> indexKeys = randomKeys(random, samples);
        List<List<byte[]>> cuts = ReducePartitions.cuts(tables, Arrays.asList(indexKeys, randomKeys(random, samples)),
                1_000_000, partitions, ReducePartitions.MIN_CELLS_DEFAULT, 8);
        // 4,000,000 cells in 9 shares of 444,444: the index's 3,000,000 in 7, each data region's 125,000 in one.
        assertEquals(Collections.emptyList(), cuts.get(1), "no data region holds more than a share");
        assertEquals(6, cuts.get(0).size(), "the index region cut in 7");
        List<byte[]> sorted = new ArrayList<>(indexKeys);
        sorted.sort(Bytes.BYTES_COMPARATOR);
        int from = 0;
        for (int p = 0; p <= cuts.get(0).size(); p++) {
            int to = from;
            while (to < sorted.size() && (p == cuts.get(0).size() || Bytes.compareTo(sorted.get(to), cuts.get(0).get(p)) < 0)) {
                to++;
            }
            int expected = samples / 7;
            assertTrue(Math.abs(to - from - expected) <= 1, "partition " + p + " holds " + (to - from) + " sampled keys, not " + expected);
            from = to;
        }
    }

    @Test
    void aRegionIsCutIntoAQuarterOfTheStoreFilesThatBlockItsFlushesAtMost() {
        Random random = new Random(11);
        List<LoadedTable> tables = eightDataRegionsAndAnIndexOfOne();
        List<List<byte[]>> cuts = ReducePartitions.cuts(tables, Arrays.asList(randomKeys(random, 1800), randomKeys(random, 1800)),
                1_000_000, 9, ReducePartitions.MIN_CELLS_DEFAULT, ReducePartitions.maxPerRegion(new Configuration()));
        assertEquals(3, cuts.get(0).size(), "the index region in 4 (HBase's 16 blocking store files), not 7");
        Configuration more = new Configuration();
        more.setInt("hbase.hstore.blockingStoreFiles", 40);
        assertEquals(10, ReducePartitions.maxPerRegion(more));
        more.setInt("hbase.hstore.blockingStoreFiles", 3);
        assertEquals(1, ReducePartitions.maxPerRegion(more), "never cut when 3 files block a region");
    }

    @Test
    void aLoadOfFewerCellsThanAReducersLeastIsNotCut() {
        Random random = new Random(8);
        List<LoadedTable> tables = eightDataRegionsAndAnIndexOfOne();
        // 20,000 lines: the index's 60,000 cells are fewer than a cut partition's least.
        List<List<byte[]>> cuts = ReducePartitions.cuts(tables, Arrays.asList(randomKeys(random, 1800), randomKeys(random, 1800)),
                20_000, 9, ReducePartitions.MIN_CELLS_DEFAULT, 8);
        assertEquals(Arrays.asList(Collections.emptyList(), Collections.emptyList()), cuts);
        // A load this large cut, had the least been lower.
        assertEquals(6, ReducePartitions.cuts(tables, Arrays.asList(randomKeys(random, 1800), randomKeys(random, 1800)),
                20_000, 9, 1_000, 8).get(0).size());
    }

    @Test
    void cutsAreDistinctAndStrictlyInsideTheirRegionsWhenKeysRepeat() {
        // Every sampled key 40 times, among them a region's own start key: no cut repeats, none is a start key.
        byte[][] starts = {new byte[0], {0x40}, {(byte) 0x80}};
        List<LoadedTable> tables = Collections.singletonList(new LoadedTable(starts, 5));
        List<byte[]> keys = new ArrayList<>();
        Random random = new Random(9);
        for (int i = 0; i < 50; i++) {
            byte[] key = i == 0 ? new byte[] {0x40} : randomKey(random);
            for (int k = 0; k < 40; k++) {
                keys.add(key);
            }
        }
        List<byte[]> cuts = ReducePartitions.cuts(tables, Collections.singletonList(keys), 10_000_000, 100, 1_000, 100).get(0);
        assertTrue(cuts.size() > 10, cuts.size() + " cuts");
        for (int i = 0; i < cuts.size(); i++) {
            assertTrue(i == 0 || Bytes.compareTo(cuts.get(i - 1), cuts.get(i)) < 0, "cuts in order, each once");
            for (byte[] start : starts) {
                assertTrue(!Bytes.equals(start, cuts.get(i)), "a cut at a region's start key");
            }
        }
    }

    /** The rows a load will write are estimated from the lines sampled at random offsets. */
    @Test
    void theSampleEstimatesTheInputsRows() throws Exception {
        RowKeySchema schema = RowKeySchema.builder().int32("code").fixedString("site", 6).build();
        LoadMapping mapping = LoadMapping.parse(schema, Arrays.asList("column f:url=url"));
        StringBuilder lines = new StringBuilder();
        Random random = new Random(10);
        for (int i = 0; i < 20_000; i++) {
            // Lines of different lengths, some rejected (no site): the estimate counts the rows, not the lines.
            String url = "http://x/" + new String(new char[random.nextInt(60)]).replace('\0', 'p');
            lines.append(i % 10 == 0 ? "{\"code\": " + i + ", \"url\": \"" + url + "\"}\n"
                    : "{\"code\": " + i + ", \"site\": \"s" + String.format("%05d", i % 100000) + "\", \"url\": \"" + url + "\"}\n");
        }
        File input = new File(dir, "input.json");
        Files.write(input.toPath(), lines.toString().getBytes(StandardCharsets.UTF_8));
        SplitSampler.Sample sample = SplitSampler.sampleKeys(mapping, Format.JSON,
                Collections.singletonList(new Path(input.toURI())), 2_000, LoadMappingTest.localFiles());
        assertTrue(sample.keys.size() > 1_500, sample.keys.size() + " keys sampled");
        assertTrue(Math.abs(sample.rows - 18_000) < 900, sample.rows + " rows estimated, 18,000 in the input");
    }
}
