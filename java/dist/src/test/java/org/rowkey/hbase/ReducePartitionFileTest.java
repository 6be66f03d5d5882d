package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.partition.TotalOrderPartitioner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.rowkey.hbase.ReducePartitions.LoadedTable;

/**
 * The bulk load's partition file, read back by Hadoop's own {@link TotalOrderPartitioner}. Not in
 * the Java 22+ (FFM) pass: the partitioner makes a {@link Job}, whose user lookup Hadoop 2.10
 * cannot do on Java 24+ (HADOOP-19212); nothing here calls native code.
 */
class ReducePartitionFileTest {
    @TempDir
    File dir;

    /** The file configure writes is the partitioner's: each region and cut piece a partition of its own, in key order. */
    @Test
    void thePartitionerSendsEachPieceToItsOwnReducerInKeyOrder() throws Exception {
        List<LoadedTable> tables = ReducePartitionsTest.eightDataRegionsAndAnIndexOfOne();
        List<byte[]> indexCuts = Arrays.asList(new byte[] {0x10}, new byte[] {0x70, 1}, new byte[] {(byte) 0xe0});
        Job job = Job.getInstance(new Configuration());
        job.setMapOutputKeyClass(ImmutableBytesWritable.class);
        int cut = ReducePartitions.configure(job, tables, Arrays.asList(indexCuts, Collections.emptyList()),
                new Path(new File(dir, "partitions").toURI()));
        assertEquals(1, cut, "regions cut");
        assertEquals(8 + 4, job.getNumReduceTasks());
        TotalOrderPartitioner<ImmutableBytesWritable, NullWritable> partitioner = new TotalOrderPartitioner<>();
        partitioner.setConf(job.getConfiguration());
        int last = -1;
        // Every data region's start and middle, then each index piece's start and a key inside it.
        List<byte[]> composites = new ArrayList<>();
        for (int r = 0; r < 8; r++) {
            composites.add(ReducePartitions.shuffleKey(1, new byte[] {(byte) (r * 32)}));
            composites.add(ReducePartitions.shuffleKey(1, new byte[] {(byte) (r * 32 + 16)}));
        }
        byte[][] indexKeys = {{0x00}, {0x0f}, {0x10}, {0x70}, {0x70, 1}, {(byte) 0xdf}, {(byte) 0xe0}, {(byte) 0xff, 9}};
        int[] indexPiece = {0, 0, 1, 1, 2, 2, 3, 3};
        composites.sort(Bytes.BYTES_COMPARATOR);
        List<Integer> dataPartitions = new ArrayList<>();
        for (byte[] composite : composites) {
            dataPartitions.add(partitioner.getPartition(new ImmutableBytesWritable(composite), NullWritable.get(), 12));
        }
        List<Integer> indexPartitions = new ArrayList<>();
        for (byte[] key : indexKeys) {
            indexPartitions.add(partitioner.getPartition(new ImmutableBytesWritable(ReducePartitions.shuffleKey(0, key)),
                    NullWritable.get(), 12));
        }
        // The index table first: its 4 pieces are partitions 0-3, the data table's 8 regions 4-11.
        for (int i = 0; i < indexKeys.length; i++) {
            assertEquals(indexPiece[i], (int) indexPartitions.get(i), Bytes.toStringBinary(indexKeys[i]));
        }
        for (int i = 0; i < composites.size(); i++) {
            assertEquals(4 + i / 2, (int) dataPartitions.get(i), Bytes.toStringBinary(composites.get(i)));
        }
    }

}
