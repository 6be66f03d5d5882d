package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where {@link NativeLoader} puts the library it extracts: a new owner-only ({@code rwx------})
 * directory with an unpredictable name per load, under {@code java.io.tmpdir} or the directory
 * of {@code -Drowkey.native.dir}; the file is deleted as soon as it is loaded. No shared,
 * predictable path another user could plant a library at. {@code -Drowkey.native.lib} loads a
 * given file instead; an unusable directory is a clear {@link UnsatisfiedLinkError}. Loads run in
 * fresh class loaders (each loads its own copy); /proc/self/maps shows which file was mapped.
 */
class NativeExtractionTest {
    private Path base;
    private final List<String> savedProperties = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        base = Files.createTempDirectory("rowkey-extraction-test-");
        for (String p : new String[] {NativeLoader.NATIVE_DIR_PROPERTY, NativeLoader.NATIVE_LIB_PROPERTY}) {
            savedProperties.add(System.getProperty(p));
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        restore(NativeLoader.NATIVE_DIR_PROPERTY, savedProperties.get(0));
        restore(NativeLoader.NATIVE_LIB_PROPERTY, savedProperties.get(1));
        try (Stream<Path> paths = Files.walk(base)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    /** NativeLoader's own directory factory, the one every load uses. */
    private static Path createPrivateDirectory() throws Exception {
        Method m = NativeLoader.class.getDeclaredMethod("createPrivateDirectory");
        m.setAccessible(true);
        return (Path) m.invoke(null);
    }

    /** Loads the library in a fresh class loader; returns the files newly mapped. */
    private static List<String> loadInFreshLoader() throws Throwable {
        Set<String> before = FreshLoaders.mappedLibraries();
        try (URLClassLoader loader = FreshLoaders.over(NativeLibraryLoadingTest.ourClassPathEntry())) {
            assertTrue((Long) FreshLoaders.invokeStatic(loader, "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]) >= 0);
            return FreshLoaders.newlyMapped(before);
        }
    }

    @Test
    void theDirectoryIsNewOwnerOnlyAndUnpredictable() throws Exception {
        System.setProperty(NativeLoader.NATIVE_DIR_PROPERTY, base.toString());
        Path a = createPrivateDirectory();
        Path b = createPrivateDirectory();
        for (Path d : new Path[] {a, b}) {
            assertEquals(base, d.getParent(), "under -D" + NativeLoader.NATIVE_DIR_PROPERTY);
            assertTrue(d.getFileName().toString().startsWith("hbase-rowkey-"), d.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)), d.toString());
        }
        assertNotEquals(a, b, "a new directory per load");
        // a base directory that does not exist yet is created
        Path nested = base.resolve("x").resolve("y");
        System.setProperty(NativeLoader.NATIVE_DIR_PROPERTY, nested.toString());
        assertEquals(nested, createPrivateDirectory().getParent());
        // without the property: java.io.tmpdir
        System.clearProperty(NativeLoader.NATIVE_DIR_PROPERTY);
        Path tmp = createPrivateDirectory();
        try {
            assertEquals(Paths.get(System.getProperty("java.io.tmpdir")).toRealPath(), tmp.getParent().toRealPath());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp)));
        } finally {
            Files.delete(tmp);
        }
    }

    @Test
    void eachLoadExtractsToItsOwnFileUnderTheConfiguredDirectoryAndDeletesIt() throws Throwable {
        System.setProperty(NativeLoader.NATIVE_DIR_PROPERTY, base.toString());
        List<String> first = loadInFreshLoader();
        List<String> second = loadInFreshLoader();
        assertEquals(1, first.size(), first.toString());
        assertEquals(1, second.size(), second.toString());
        String library = System.mapLibraryName(NativeLoader.LIBRARY);
        for (String mapped : new String[] {first.get(0), second.get(0)}) {
            // <base>/hbase-rowkey-<random>/libhbase_rowkey.so, already deleted while mapped
            assertTrue(mapped.startsWith(base + "/hbase-rowkey-"), mapped);
            assertTrue(mapped.endsWith("/" + library + " (deleted)"), mapped);
        }
        assertNotEquals(first.get(0), second.get(0), "two loads, two different paths");
        try (Stream<Path> left = Files.list(base)) {
            assertEquals(0, left.count(), "the extracted file and its directory are deleted at once");
        }
    }

    @Test
    void theLibraryPropertyLoadsThatFileInstead() throws Throwable {
        Path copy = base.resolve("my-" + System.mapLibraryName(NativeLoader.LIBRARY));
        try (InputStream in = NativeExtractionTest.class.getClassLoader()
                .getResourceAsStream(NativeLoader.resourcePath(NativeLoader.platform(System.getProperty("os.name"),
                        System.getProperty("os.arch"))))) {
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        System.setProperty(NativeLoader.NATIVE_LIB_PROPERTY, copy.toString());
        System.setProperty(NativeLoader.NATIVE_DIR_PROPERTY, base.resolve("unused").toString());
        Set<String> before = FreshLoaders.mappedLibraries();
        try (URLClassLoader loader = FreshLoaders.over(NativeLibraryLoadingTest.ourClassPathEntry())) {
            FreshLoaders.invokeStatic(loader, "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]);
            assertEquals(copy.toString(), FreshLoaders.invokeStatic(loader, "org.rowkey.hbase.NativeLoader", "loadedFrom", new Class<?>[0]));
            assertEquals(1, FreshLoaders.newlyMapped(before).size());
            assertTrue(FreshLoaders.newlyMapped(before).get(0).startsWith(copy.toString()), FreshLoaders.newlyMapped(before).toString());
        }
        assertFalse(Files.exists(base.resolve("unused")), "nothing extracted");
    }

    @Test
    void anUnusableDirectoryIsAClearUnsatisfiedLinkError() throws Throwable {
        Path notADirectory = Files.createFile(base.resolve("a-file"));
        System.setProperty(NativeLoader.NATIVE_DIR_PROPERTY, notADirectory.toString());
        try (URLClassLoader loader = FreshLoaders.over(NativeLibraryLoadingTest.ourClassPathEntry())) {
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> FreshLoaders.invokeStatic(loader,
                    "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]));
            assertTrue(e.getMessage().startsWith("hbase-rowkey: cannot extract"), e.getMessage());
            assertTrue(e.getMessage().contains("-D" + NativeLoader.NATIVE_DIR_PROPERTY), e.getMessage());
            // The class stays unusable in that loader, with an error, not a crash; the main loader is unaffected.
            assertThrows(NoClassDefFoundError.class, () -> FreshLoaders.invokeStatic(loader,
                    "org.rowkey.hbase.RowKeyNative", "liveObjects", new Class<?>[0]));
        }
        assertTrue(RowKeyNative.liveObjects() >= 0);
    }
}
