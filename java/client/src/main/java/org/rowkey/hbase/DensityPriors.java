package org.rowkey.hbase;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;

import org.apache.hadoop.hbase.client.Connection;

import com.google.protobuf.ByteString;

/**
 * What the last descending read of the same keys found of their density, per connection: a
 * limited descending read of a data-table scan with sparse matches ("the last 10") otherwise first
 * samples the range's start to size its windows from the top, a round trip its forward twin does not
 * make. A read of keys read before sizes its first window from that read's last window instead
 * (bounded in the rows it looks at, so a density that changed since costs one round trip, not a
 * long read). Only the cost depends on it: windows partition the keys whatever their widths
 * ({@link KeyWindows}). {@value #ENTRIES_KEY} sets how many reads' densities a connection keeps
 * (default {@value #ENTRIES_DEFAULT}; 0: none, each read samples).
 */
@RunsIn(RunsIn.Where.CLIENT)
final class DensityPriors {
    static final String ENTRIES_KEY = "rowkey.descending.priors";
    static final int ENTRIES_DEFAULT = 256;
    private static final Map<Connection, DensityPriors> BY_CONNECTION = new WeakHashMap<>();

    private final Map<ByteString, KeyWindows.Density> last;

    private DensityPriors(int entries) {
        this.last = new LinkedHashMap<ByteString, KeyWindows.Density>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<ByteString, KeyWindows.Density> eldest) {
                return size() > entries;
            }
        };
    }

    /**
     * The density of the keys {@code read} names (the table, its range and filter: kept by their
     * digest, so an entry is small whatever the plan) on {@code connection}; null when the
     * connection keeps none.
     */
    static Slot slot(Connection connection, ByteString read) {
        int entries = connection.getConfiguration().getInt(ENTRIES_KEY, ENTRIES_DEFAULT);
        if (entries <= 0) {
            return null;
        }
        DensityPriors priors;
        synchronized (BY_CONNECTION) {
            priors = BY_CONNECTION.computeIfAbsent(connection, c -> new DensityPriors(entries));
        }
        MessageDigest md5;
        try {
            md5 = MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e); // every Java SE platform has it
        }
        return new Slot(priors, ByteString.copyFrom(md5.digest(read.toByteArray())));
    }

    /** One read's density: what the last read of its keys found, and where this read's goes. */
    static final class Slot {
        private final DensityPriors priors;
        private final ByteString read;

        private Slot(DensityPriors priors, ByteString read) {
            this.priors = priors;
            this.read = read;
        }

        /** What the last read of these keys found; null: none kept. */
        KeyWindows.Density get() {
            synchronized (priors.last) {
                return priors.last.get(read);
            }
        }

        void put(KeyWindows.Density found) {
            synchronized (priors.last) {
                priors.last.put(read, found);
            }
        }
    }
}
