package org.rowkey.hbase;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.InputRecords.Format;

/**
 * Pre-splits a new (empty, one-region) data table and its index tables before a bulk load, at
 * keys sampled from the input: lines read at random offsets of the input files, their data keys
 * and index keys sorted, and each table split at the quantiles, so its regions (and the job's
 * reducers, one per region) get about as many rows each. A table that holds rows or has more than
 * one region is left as it is.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class SplitSampler {
    private SplitSampler() {}

    /** Lines sampled per table split wanted: enough for quantiles within a few percent. */
    private static final int SAMPLES_PER_REGION = 200;

    /**
     * Splits every empty one-region table of the load ({@code tables}: the data table first, then
     * index number i's) into {@code regions} regions, at keys sampled from {@code inputFiles}.
     */
    static void split(Connection connection, List<TableName> tables, Catalog catalog, LoadMapping mapping,
            Format format, List<Path> inputFiles, int regions, Configuration conf, PrintStream out) throws IOException {
        List<TableName> toSplit = new ArrayList<>();
        try (Admin admin = connection.getAdmin()) {
            for (TableName t : tables) {
                if (admin.getRegions(t).size() == 1 && isEmpty(connection, t)) {
                    toSplit.add(t);
                }
            }
        }
        if (toSplit.isEmpty() || regions < 2) {
            return;
        }
        List<byte[]> dataKeys = sampleKeys(mapping, format, inputFiles, regions * SAMPLES_PER_REGION, conf).keys;
        if (dataKeys.size() < regions) {
            out.println("Not pre-split: only " + dataKeys.size() + " sampled line(s) gave a key");
            return;
        }
        try (Admin admin = connection.getAdmin()) {
            for (int t = 0; t < tables.size(); t++) {
                if (!toSplit.contains(tables.get(t))) {
                    continue;
                }
                List<byte[]> points = quantiles(t == 0 ? dataKeys : indexKeys(catalog, t - 1, dataKeys), regions);
                for (byte[] point : points) {
                    splitAt(connection, admin, tables.get(t), point);
                }
                out.printf("Pre-split %s into %d regions at sampled keys%n", tables.get(t), points.size() + 1);
            }
        }
    }

    /** The keys in index {@code index} of the rows of {@code dataKeys}. */
    static List<byte[]> indexKeys(Catalog catalog, int index, List<byte[]> dataKeys) {
        List<byte[]> keys = new ArrayList<>(dataKeys.size());
        for (byte[] key : dataKeys) {
            keys.add(catalog.indexKey(index, key));
        }
        return keys;
    }

    /** The {@code regions - 1} distinct keys that cut sorted {@code keys} into equal parts. */
    static List<byte[]> quantiles(List<byte[]> keys, int regions) {
        List<byte[]> sorted = new ArrayList<>(keys);
        sorted.sort(Bytes.BYTES_COMPARATOR);
        List<byte[]> points = new ArrayList<>();
        for (int r = 1; r < regions; r++) {
            byte[] point = sorted.get(r * sorted.size() / regions);
            if (points.isEmpty() || Bytes.compareTo(points.get(points.size() - 1), point) < 0) {
                points.add(point);
            }
        }
        return points;
    }

    private static boolean isEmpty(Connection connection, TableName table) throws IOException {
        try (Table t = connection.getTable(table); ResultScanner s = t.getScanner(new Scan().setLimit(1).setRaw(true))) {
            Result first = s.next();
            return first == null;
        }
    }

    private static void splitAt(Connection connection, Admin admin, TableName table, byte[] point) throws IOException {
        try (RegionLocator locator = connection.getRegionLocator(table)) {
            byte[] region = locator.getRegionLocation(point, true).getRegion().getRegionName();
            admin.splitRegionAsync(region, point).get(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while splitting " + table, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("splitting " + table + " at " + Bytes.toStringBinary(point) + " failed", e);
        }
    }

    /** The data keys of lines sampled from the input, and the rows the whole input makes, estimated from them. */
    static final class Sample {
        final List<byte[]> keys;
        final long rows;

        Sample(List<byte[]> keys, long rows) {
            this.keys = keys;
            this.rows = rows;
        }
    }

    /**
     * The data keys of about {@code wanted} lines read at random byte offsets of the input files (each
     * file in proportion to its size; a line cut by the offset is skipped); lines that would be
     * rejected are left out.
     */
    static Sample sampleKeys(LoadMapping mapping, Format format, List<Path> inputFiles, int wanted, Configuration conf)
            throws IOException {
        List<FileStatus> files = new ArrayList<>();
        long total = 0;
        for (Path input : inputFiles) {
            FileStatus f = input.getFileSystem(conf).getFileStatus(input);
            if (f.getLen() > 0) {
                files.add(f);
                total += f.getLen();
            }
        }
        Random random = new Random(42);
        List<byte[]> keys = new ArrayList<>();
        long bytesRead = 0;
        for (FileStatus f : files) {
            int samples = (int) Math.max(1, wanted * f.getLen() / Math.max(total, 1));
            long[] offsets = new long[samples];
            for (int i = 0; i < samples; i++) {
                offsets[i] = (long) (random.nextDouble() * f.getLen());
            }
            Arrays.sort(offsets);
            FileSystem fs = f.getPath().getFileSystem(conf);
            try (FSDataInputStream in = fs.open(f.getPath())) {
                List<String> header = format.hasHeader() ? InputRecords.header(format, readLine(in, 0)) : null;
                for (long offset : offsets) {
                    readLine(in, offset); // the rest of the line the offset cut
                    String line = readLine(in, in.getPos());
                    if (line == null) {
                        continue;
                    }
                    bytesRead += line.getBytes(StandardCharsets.UTF_8).length + 1;
                    if (line.trim().isEmpty()) {
                        continue;
                    }
                    try {
                        Map<String, Object> record = format == Format.JSON ? InputRecords.json(line)
                                : InputRecords.delimited(format, header, line);
                        keys.add(mapping.rowKey(record));
                    } catch (LoadMapping.Rejected skipped) {
                        // the job will reject it; it has no key to sample
                    }
                }
            } catch (LoadMapping.Rejected badHeader) {
                throw new IOException(f.getPath() + ": the header line cannot be read: " + badHeader.getMessage());
            }
        }
        // Rows: as many per byte of the input as the sampled lines gave keys per byte read.
        long rows = bytesRead == 0 ? 0 : (long) ((double) total * keys.size() / bytesRead);
        return new Sample(keys, rows);
    }

    /** The line starting at {@code offset} (UTF-8, without its end), or null at the end of the file. */
    private static String readLine(FSDataInputStream in, long offset) throws IOException {
        in.seek(offset);
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        int b = in.read();
        if (b < 0) {
            return null;
        }
        while (b >= 0 && b != '\n') {
            line.write(b);
            b = in.read();
        }
        String s = new String(line.toByteArray(), StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }
}
