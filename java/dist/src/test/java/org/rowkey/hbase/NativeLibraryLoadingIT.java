package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link NativeLibraryLoadingTest} against the built jar, the way a RegionServer meets it: 16
 * threads triggering the first use in a fresh class loader over the jar, and two URLClassLoaders
 * over the jar at once (HBase classes visible through the parent, as with HBase's
 * DynamicClassLoader), each extracting, loading and using its own copy of the library.
 */
class NativeLibraryLoadingIT extends NativeLibraryLoadingTest {

    @Test
    void theLoadersReadTheBuiltJar() {
        String entry = ourClassPathEntry().getPath();
        assertTrue(entry.endsWith(".jar"), entry);
    }
}
