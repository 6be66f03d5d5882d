package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NativeLoaderTest {

    @Test
    void platformNames() {
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLoader.platform("linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLoader.platform("Linux", "aarch64"));
        assertEquals("linux-aarch64", NativeLoader.platform("Linux", "arm64"));
        assertEquals("native/linux-aarch64/libhbase_rowkey.so", NativeLoader.resourcePath("linux-aarch64"));
        assertEquals("native/linux-x86_64/libhbase_rowkey.so", NativeLoader.resourcePath("linux-x86_64"));
    }

    @Test
    void unsupportedPlatformNamesItAndTheSupportedOnes() {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLoader.platform("Mac OS X", "aarch64"));
        assertTrue(e.getMessage().contains("os.name=Mac OS X"), e.getMessage());
        assertTrue(e.getMessage().contains("os.arch=aarch64"), e.getMessage());
        assertTrue(e.getMessage().contains("supported: linux-x86_64, linux-aarch64"), e.getMessage());
        UnsatisfiedLinkError ppc = assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.platform("Linux", "ppc64le"));
        assertTrue(ppc.getMessage().contains("os.arch=ppc64le") && ppc.getMessage().contains("linux-aarch64"), ppc.getMessage());
        assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.platform("Linux", "arm"));
        assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.platform(null, null));
    }

    @Test
    void loadsOnceFromTheClassPathResource() {
        RowKeyNative.ensureLoaded();
        NativeLoader.load(); // idempotent
        String from = NativeLoader.loadedFrom();
        assertNotNull(from);
        assertTrue(from.endsWith("native/linux-x86_64/libhbase_rowkey.so"), from);
        assertTrue(RowKeyNative.liveObjects() >= 0);
    }
}
