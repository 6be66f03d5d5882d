package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link NativeCallPathChecks} on target/classes (+ META-INF/versions/22 on Java 22+), with the
 * test-hooks library, whose empty calls the benchmarks use.
 */
class NativeCallPathTest extends NativeCallPathChecks {
    @Test
    void theCallFloorRunsThroughTheActiveMechanism() {
        assertEquals(0, NativeTestHooks.mechanismFloor(1, new byte[1], 0, 1));
        assertEquals(0, NativeTestHooks.callFloor(1, new byte[1], 0, 1));
    }
}
