package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.partition.TotalOrderPartitioner;

/**
 * The bulk load job's reduce partitions: one per region of every table it writes, as HBase's
 * {@code configureIncrementalLoad} makes them, and a region holding more than its share of the
 * load's cells cut at keys sampled from the input into as many partitions as its shares. An index
 * table of one region gets as many rows as the whole data table, and more cells each (its status,
 * its covered cells, the VERIFIED status): left to one reducer it ran alone long after the data
 * regions' reducers had finished. A cut region's partitions write HFiles of their own into it.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class ReducePartitions {
    private ReducePartitions() {}

    /**
     * The fewest cells a partition of a cut region is given: below it a region is not cut, as a
     * reducer costs a task, its HFile writers and a connection to check for existing index rows.
     */
    static final String MIN_CELLS_KEY = "rowkey.bulkload.reducer.min.cells";
    static final long MIN_CELLS_DEFAULT = 200_000;
    /** Sampled keys wanted per partition, and the fewest a cut partition is made from. */
    static final int SAMPLES_PER_PARTITION = 200;
    static final int MIN_SAMPLES_PER_PARTITION = 20;
    /** At most this many lines are sampled, whatever the partitions (each a seek into the input). */
    static final int MAX_SAMPLES = 10_000;

    /**
     * The most partitions a region is cut into: each adds an HFile per family to the region in
     * each of two load steps (its rows, then its VERIFIED statuses), and HBase holds back a
     * region's flushes once a store has {@code hbase.hstore.blockingStoreFiles} (16) files until
     * compactions catch up: a quarter of that, so a load leaves half of it.
     */
    static int maxPerRegion(Configuration conf) {
        return Math.max(1, conf.getInt("hbase.hstore.blockingStoreFiles", 16) / 4);
    }

    /** A table the load writes: its regions' start keys and the cells the job writes per row of it. */
    static final class LoadedTable {
        final byte[][] startKeys;
        final int cellsPerRow;

        LoadedTable(byte[][] startKeys, int cellsPerRow) {
            this.startKeys = startKeys;
            this.cellsPerRow = cellsPerRow;
        }
    }

    static int regions(List<LoadedTable> tables) {
        int regions = 0;
        for (LoadedTable t : tables) {
            regions += t.startKeys.length;
        }
        return regions;
    }

    /** The partitions wanted: one per region, or twice the reduce slots of a local job when more. */
    static int wanted(List<LoadedTable> tables, int localReduceSlots) {
        return Math.max(regions(tables), 2 * localReduceSlots);
    }

    /** Lines to sample for {@code partitions} partitions. */
    static int samplesFor(int partitions) {
        return Math.min(MAX_SAMPLES, partitions * SAMPLES_PER_PARTITION);
    }

    /**
     * The keys at which each table's regions are cut (by table, in key order, each strictly inside
     * a region of it), given each table's keys of the same sampled lines ({@code sampled.get(t)}),
     * the input's estimated {@code rows}, the {@code partitions} wanted in all, the fewest
     * cells a partition of a cut region gets and the most partitions of a region.
     */
    static List<List<byte[]>> cuts(List<LoadedTable> tables, List<List<byte[]>> sampled, long rows, int partitions,
            long minCells, int maxPerRegion) {
        long cells = 0;
        for (LoadedTable t : tables) {
            cells += rows * t.cellsPerRow;
        }
        double share = Math.max((double) cells / Math.max(1, partitions), minCells);
        List<List<byte[]>> cuts = new ArrayList<>();
        for (int t = 0; t < tables.size(); t++) {
            LoadedTable table = tables.get(t);
            List<byte[]> keys = new ArrayList<>(sampled.get(t));
            keys.sort(Bytes.BYTES_COMPARATOR);
            double cellsPerSample = keys.isEmpty() ? 0 : (double) rows * table.cellsPerRow / keys.size();
            List<byte[]> tableCuts = new ArrayList<>();
            int from = 0;
            for (int r = 0; r < table.startKeys.length; r++) {
                byte[] end = r + 1 < table.startKeys.length ? table.startKeys[r + 1] : null;
                int to = from;
                while (to < keys.size() && (end == null || Bytes.compareTo(keys.get(to), end) < 0)) {
                    to++;
                }
                int inRegion = to - from;
                int parts = (int) Math.min(Math.min(Math.ceil(inRegion * cellsPerSample / share),
                        inRegion / MIN_SAMPLES_PER_PARTITION), maxPerRegion);
                for (byte[] cut : SplitSampler.quantiles(keys.subList(from, to), parts)) {
                    if (Bytes.compareTo(cut, table.startKeys[r]) > 0) { // never the region's own start
                        tableCuts.add(cut);
                    }
                }
                from = to;
            }
            cuts.add(tableCuts);
        }
        return cuts;
    }

    /** A map output key: the table's place in the job's list of tables (a byte), then the row. */
    static byte[] shuffleKey(int table, byte[] row) {
        byte[] key = new byte[1 + row.length];
        key[0] = (byte) table;
        System.arraycopy(row, 0, key, 1, row.length);
        return key;
    }

    /**
     * Writes the partition file of {@code tables}' regions and {@code cuts} to {@code file} and
     * sets the job's total-order partitioner to it with a reducer per partition, in place of the
     * one {@code configureIncrementalLoad} wrote (whose keys carry the table's name, ours its place
     * in {@code tables}: see {@link #shuffleKey}). Returns the number of regions cut.
     */
    static int configure(Job job, List<LoadedTable> tables, List<List<byte[]>> cuts, Path file) throws IOException {
        TreeSet<ImmutableBytesWritable> points = new TreeSet<>();
        int regionsCut = 0;
        for (int t = 0; t < tables.size(); t++) {
            LoadedTable table = tables.get(t);
            TreeSet<byte[]> starts = new TreeSet<>(Bytes.BYTES_COMPARATOR);
            for (byte[] start : table.startKeys) {
                points.add(new ImmutableBytesWritable(shuffleKey(t, start)));
                starts.add(start);
            }
            TreeSet<byte[]> cutRegions = new TreeSet<>(Bytes.BYTES_COMPARATOR);
            for (byte[] cut : cuts.get(t)) {
                points.add(new ImmutableBytesWritable(shuffleKey(t, cut)));
                cutRegions.add(starts.floor(cut));
            }
            regionsCut += cutRegions.size();
        }
        // Keys below the first point go to partition 0: the first point (the first table's empty
        // start key) is no cut.
        points.pollFirst();
        Configuration conf = job.getConfiguration();
        try (SequenceFile.Writer writer = SequenceFile.createWriter(conf, SequenceFile.Writer.file(file),
                SequenceFile.Writer.keyClass(ImmutableBytesWritable.class),
                SequenceFile.Writer.valueClass(NullWritable.class))) {
            for (ImmutableBytesWritable point : points) {
                writer.append(point, NullWritable.get());
            }
        }
        job.setPartitionerClass(TotalOrderPartitioner.class);
        TotalOrderPartitioner.setPartitionFile(conf, file);
        job.setNumReduceTasks(points.size() + 1);
        return regionsCut;
    }
}
