package org.rowkey.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * This jar's version and the wire format it reads, as a client and a RegionServer each report
 * them ({@code RowKeyCli status} compares the two).
 */
@RunsIn(RunsIn.Where.SHARED)
public final class RowKeyVersion {
    /** The release this jar was built as (the Maven project version), or "unknown". */
    public static final String VERSION = read();
    /** The newest wire format (every message's format_version) this jar reads and writes. */
    public static final int WIRE_FORMAT = RowKeySchema.FORMAT_VERSION;

    private RowKeyVersion() {
    }

    /** "0.1.0 (wire format 1)": what a RegionServer answers a version probe with. */
    public static String describe() {
        return VERSION + " (wire format " + WIRE_FORMAT + ")";
    }

    private static String read() {
        try (InputStream in = RowKeyVersion.class.getResourceAsStream("hbase-rowkey.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
