package org.rowkey.hbase.demo;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

import org.rowkey.hbase.RowKeySchema;

/**
 * The benchmarks' rows: the demo's generated seed-000 rows ({@link DataSet}, seed 42), encoded
 * with the demo's schema ({@link Demo#seedSchema()}), all keys in one array (as HBase blocks hold
 * them) and in one direct buffer, plus each row's field values for the oracle. Cached in
 * target/bench so every JVM and fork reads the same bytes.
 */
public final class BenchData {
    public static final int KEY = 37;
    /** Field values of the oracle, per row. */
    public final int[] status, code, sdate, type, queue, scantype;
    public final boolean[] free, close;
    public final byte[] keys;
    public final ByteBuffer direct;
    public final int rows;
    public final RowKeySchema schema;

    private BenchData(int rows) {
        this.rows = rows;
        status = new int[rows];
        code = new int[rows];
        sdate = new int[rows];
        type = new int[rows];
        queue = new int[rows];
        scantype = new int[rows];
        free = new boolean[rows];
        close = new boolean[rows];
        keys = new byte[rows * KEY];
        direct = ByteBuffer.allocateDirect(rows * KEY);
        schema = Demo.seedSchema().build();
    }

    public static RowKeySchema seedSchema() {
        return Demo.seedSchema().build();
    }

    public static synchronized BenchData load(int rows) throws IOException {
        Path cache = Paths.get(System.getProperty("bench.cache", "target/bench"), "rows-" + rows + ".bin");
        BenchData d = new BenchData(rows);
        if (Files.exists(cache)) {
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(cache), 1 << 20))) {
                in.readFully(d.keys);
                for (int i = 0; i < rows; i++) {
                    d.status[i] = in.readInt();
                    d.code[i] = in.readInt();
                    d.sdate[i] = in.readInt();
                    d.type[i] = in.readInt();
                    d.queue[i] = in.readInt();
                    d.scantype[i] = in.readInt();
                    d.free[i] = in.readBoolean();
                    d.close[i] = in.readBoolean();
                }
            }
        } else {
            DataSet data = new DataSet(rows, 42);
            for (int i = 0; i < rows; i++) {
                Map<String, Object> row = data.row(i);
                byte[] key = d.schema.encode(row);
                if (key.length != KEY) {
                    throw new IllegalStateException("key length " + key.length);
                }
                System.arraycopy(key, 0, d.keys, i * KEY, KEY);
                d.status[i] = (Integer) row.get("status");
                d.code[i] = (Integer) row.get("code");
                d.sdate[i] = (Integer) row.get("sdate");
                d.type[i] = (Integer) row.get("type");
                d.queue[i] = (Integer) row.get("queue");
                d.scantype[i] = (Integer) row.get("scantype");
                d.free[i] = (Boolean) row.get("free");
                d.close[i] = (Boolean) row.get("close");
            }
            Files.createDirectories(cache.getParent());
            Path tmp = Files.createTempFile(cache.getParent(), "rows", ".tmp");
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20))) {
                out.write(d.keys);
                for (int i = 0; i < rows; i++) {
                    out.writeInt(d.status[i]);
                    out.writeInt(d.code[i]);
                    out.writeInt(d.sdate[i]);
                    out.writeInt(d.type[i]);
                    out.writeInt(d.queue[i]);
                    out.writeInt(d.scantype[i]);
                    out.writeBoolean(d.free[i]);
                    out.writeBoolean(d.close[i]);
                }
            }
            Files.move(tmp, cache, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        d.direct.put(d.keys).clear();
        return d;
    }
}
