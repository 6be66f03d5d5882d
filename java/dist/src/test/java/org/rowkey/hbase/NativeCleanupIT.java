package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link NativeCleanupTest} again, against the multi-release jar: here the Java 9+
 * {@code java.lang.ref.Cleaner} variant of {@link NativeCleaner} frees forgotten objects
 * (the unit test, on target/classes, exercises the Java 8 variant).
 */
class NativeCleanupIT extends NativeCleanupTest {

    @Test
    void usesTheJava9Cleaner() {
        assertEquals("java.lang.ref.Cleaner", NativeCleaner.implementation());
    }
}
