package org.rowkey.hbase;

import java.io.IOException;
import java.util.Base64;
import java.util.function.DoubleConsumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableMapReduceUtil;
import org.apache.hadoop.hbase.mapreduce.TableMapper;
import org.apache.hadoop.mapreduce.Job;

import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;

/**
 * Fills a new index from the rows already in the data table: a map-only MapReduce job over the data
 * table ({@link TableMapReduceUtil}: on the cluster's YARN, or the LocalJobRunner), each mapper
 * writing one VERIFIED index row per data row (EXPIRING when it has cells of their own TTL), whole, at {@link IndexRowFormat#JOB_TIMESTAMP}. Live
 * writes keep the index (BUILDING) in step meanwhile, at their own later timestamps, so a row written
 * or deleted after the job read it is the coprocessor's, never the job's older copy.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class IndexBackfill {
    private IndexBackfill() {}

    private static final String CATALOG = "rowkey.backfill.catalog";
    private static final String INDEX = "rowkey.backfill.index";
    /** Data rows per scanner round trip. */
    private static final int CACHING = 1000;

    /**
     * Refuses to add an index to {@code table} (descriptor {@code data}) while a bulk load's window is
     * open: the backfill would copy the data rows before the load's data lands, and the load's HFiles
     * hold no rows for an index it did not know. Called before anything of the index is made.
     *
     * @throws IllegalStateException naming the load and how to finish it
     */
    static void refuseDuringLoad(TableName table, TableDescriptor data) {
        String load = BulkLoad.loadUnderWay(data);
        if (load != null) {
            throw new IllegalStateException("table " + table + " has a " + load + ": an index added now would miss the"
                    + " loaded rows. Finish the load by running it again with its --work directory, then add the index;"
                    + " nothing was changed");
        }
    }

    /** Runs the job for index number {@code index} of {@code catalog}; progress from 0 to 1. */
    static void run(Configuration conf, TableName data, Catalog catalog, int index, DoubleConsumer progress)
            throws IOException {
        IndexSpec spec = catalog.indexes().get(index);
        Job job = Job.getInstance(new Configuration(conf), "hbase-rowkey backfill of index " + spec.getName() + " of " + data);
        job.getConfiguration().set(CATALOG, Base64.getEncoder().encodeToString(catalog.toByteArray()));
        job.getConfiguration().setInt(INDEX, index);
        job.setJarByClass(IndexBackfill.class);
        // Probed: a row with cells of their own TTL is marked, and copied EXPIRING.
        TableMapReduceUtil.initTableMapperJob(data, IndexRowFormat.probeScan(CACHING), Mapper.class, ImmutableBytesWritable.class, Put.class, job);
        TableMapReduceUtil.initTableReducerJob(IndexRowFormat.indexTableName(data, spec.getName()).getNameAsString(), null, job);
        job.setNumReduceTasks(0);
        try {
            job.submit();
            while (!job.isComplete()) {
                progress.accept(job.mapProgress());
                Thread.sleep(500);
            }
            progress.accept(1.0);
            if (!job.isSuccessful()) {
                throw new IOException("the backfill job of index " + spec.getName() + " of " + data + " failed: "
                        + job.getStatus().getFailureInfo());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the backfill of index " + spec.getName() + " ran", e);
        } catch (ClassNotFoundException e) {
            throw new IOException("the backfill job of index " + spec.getName() + " could not start", e);
        }
    }

    /** One data row in, its index row out. */
    public static final class Mapper extends TableMapper<ImmutableBytesWritable, Put> {
        private Catalog catalog;
        private int index;
        private IndexCoverage covered;

        @Override
        protected void setup(Context context) {
            catalog = Catalog.parse(Base64.getDecoder().decode(context.getConfiguration().get(CATALOG)));
            index = context.getConfiguration().getInt(INDEX, -1);
            covered = catalog.coverage(index);
        }

        @Override
        protected void map(ImmutableBytesWritable row, Result value, Context context) throws IOException, InterruptedException {
            byte[] dataKey = value.getRow();
            if (dataKey.length != catalog.schema().keyLength()) {
                return; // not a key of the schema: no index holds it
            }
            byte[] indexKey = catalog.indexKey(index, dataKey);
            byte[] status = IndexRowFormat.expires(value) ? IndexRowFormat.expiring(System.currentTimeMillis())
                    : IndexRowFormat.VERIFIED;
            Put put = IndexRowFormat.wholeRow(indexKey, IndexRowFormat.JOB_TIMESTAMP, status, covered,
                    IndexRowFormat.withoutProbeMarker(value));
            context.write(new ImmutableBytesWritable(indexKey), put);
        }
    }
}
