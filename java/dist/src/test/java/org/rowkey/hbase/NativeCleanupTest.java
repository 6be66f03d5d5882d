package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Comparators and schemas that are never closed are freed natively once unreachable. */
class NativeCleanupTest {


    @Test
    void forgottenComparatorsAndSchemasAreFreed() throws Exception {
        long baseline = TestData.settledLiveObjects();
        for (int i = 0; i < 2000; i++) {
            RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").build();
            new EqualComparator(schema, TestData.map("a", i));
            new RangeComparator(schema, "b", i);
            RowKeyQuery.on(schema).eq("a", i).toComparator();
        }
        assertTrue(RowKeyNative.liveObjects() > baseline, "objects were created");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long live = RowKeyNative.liveObjects();
        while (live > baseline && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
            live = RowKeyNative.liveObjects();
        }
        assertTrue(live <= baseline, "live native objects " + live + ", baseline " + baseline);
    }
}
