package org.rowkey.hbase;

import java.util.LinkedHashMap;
import java.util.Map;

/** Shared fixtures of the tests (Java 8 compatible: no Map.of). */
final class TestData {
    private TestData() {}

    /** The seed's table: md5url, sitecode, status, code, sdate, type, free, close, queue, scantype (37 bytes). */
    static RowKeySchema seedSchema() {
        return RowKeySchema.builder().md5("md5url", 8).javaHash("sitecode").int32("status").int32("code")
                .int32("sdate").int32("type").bool("free").bool("close").int32("queue").int32("scantype").build();
    }

    /** One row of {@link #seedSchema()}. */
    static Map<String, Object> seedRow(String url, int code, int sdate, int type, boolean free) {
        return map("md5url", url, "sitecode", "site-" + (code % 7), "status", code / 100, "code", code,
                "sdate", sdate, "type", type, "free", free, "close", !free, "queue", 0, "scantype", -1);
    }

    /** A map from alternating keys and values, in order. */
    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Live native objects once the cleaner has nothing left to free (polls with System.gc()). */
    static long settledLiveObjects() throws InterruptedException {
        long live = RowKeyNative.liveObjects();
        for (int i = 0; i < 100; i++) {
            System.gc();
            Thread.sleep(20);
            long now = RowKeyNative.liveObjects();
            if (now == live && i >= 3) {
                break;
            }
            live = now;
        }
        return live;
    }
}
