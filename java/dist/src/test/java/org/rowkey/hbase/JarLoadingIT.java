package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.junit.jupiter.api.Test;

/**
 * The built jar, as a RegionServer uses it: its contents, and our comparators loaded from the
 * jar file by a separate class loader (like HBase's DynamicClassLoader), rebuilt with
 * {@code parseFrom} by reflection from bytes made in the main class loader, comparing alike.
 */
class JarLoadingIT {
    /** Our classes, protobuf and the native library resource: the jar must provide them itself. */
    private static final String[] HIDDEN = {"org.rowkey.hbase.", "com.google.protobuf.", "native."};

    private static Path jar() {
        String p = System.getProperty("rowkey.test.jar");
        assertNotNull(p, "system property rowkey.test.jar");
        Path jar = Paths.get(p);
        assertTrue(Files.isRegularFile(jar), "built jar " + jar);
        return jar;
    }

    @Test
    void jarHoldsOurClassesRelocatedProtobufAndTheNativeLibrary() throws IOException {
        try (JarFile jf = new JarFile(jar().toFile())) {
            assertEquals("true", jf.getManifest().getMainAttributes().getValue("Multi-Release"));
            List<String> names = new ArrayList<>();
            for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements();) {
                names.add(e.nextElement().getName());
            }
            for (String required : new String[] {
                    "org/rowkey/hbase/EqualComparator.class",
                    "org/rowkey/hbase/RangeComparator.class",
                    "org/rowkey/hbase/PredicateComparator.class",
                    "org/rowkey/hbase/RowKeySchema.class",
                    "org/rowkey/hbase/proto/RowKeyProtos.class",
                    "org/rowkey/hbase/shaded/protobuf/GeneratedMessageV3.class",
                    "META-INF/versions/9/org/rowkey/hbase/NativeCleaner.class",
                    "native/linux-x86_64/libhbase_rowkey.so",
                    "native/linux-aarch64/libhbase_rowkey.so"}) {
                assertTrue(names.contains(required), "jar lacks " + required);
            }
            // Our one class in HBase's package (it asks ScannerContext what HBase keeps package-private).
            String inHBase = "org/apache/hadoop/hbase/regionserver/RowKeyScannerContexts.class";
            assertTrue(names.contains(inHBase), "jar lacks " + inHBase);
            for (String n : names) {
                if (inHBase.startsWith(n)) {
                    continue; // that class and its directories
                }
                assertFalse(n.startsWith("com/google/") || n.startsWith("google/") || n.startsWith("org/apache/")
                        || n.startsWith("org/slf4j/") || n.endsWith(".proto") || n.contains("VectorProtos"),
                        "jar must not contain " + n);
                if (n.endsWith(".class") && !n.startsWith("META-INF/versions/")) {
                    assertTrue(n.startsWith("org/rowkey/hbase/"), "unexpected class " + n);
                }
            }
            // Each platform's library is built for its machine (ELF e_machine: 62 x86-64, 183 AArch64).
            assertEquals(62, elfMachine(jf, "native/linux-x86_64/libhbase_rowkey.so"));
            assertEquals(183, elfMachine(jf, "native/linux-aarch64/libhbase_rowkey.so"));
            // Base classes run on Java 8; the versioned cleaner is Java 9 bytecode.
            assertEquals(52, classFileMajor(jf, "org/rowkey/hbase/NativeCleaner.class"));
            assertEquals(52, classFileMajor(jf, "org/rowkey/hbase/EqualComparator.class"));
            assertEquals(53, classFileMajor(jf, "META-INF/versions/9/org/rowkey/hbase/NativeCleaner.class"));
        }
    }

    /**
     * Every entry of every module's jar, as this build made it, is in the shaded jar byte for byte: a
     * module's class never comes from an earlier build (the dist module's own jar is empty, and a jar
     * plugin that found it up to date once kept the previous shaded jar, whose stale classes won).
     */
    @Test
    void theJarHoldsEachModulesClassesAsThisBuildMadeThem() throws IOException {
        // The modules of this checkout (the compatibility matrix tests a copy of the jar elsewhere).
        Path modules = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (!Files.exists(modules.resolve("Makefile.toml"))) {
            modules = modules.getParent();
            assertNotNull(modules, "no Makefile.toml above " + System.getProperty("user.dir"));
        }
        modules = modules.resolve("java");
        int compared = 0;
        try (JarFile shaded = new JarFile(jar().toFile())) {
            for (String module : new String[] {"common", "client", "regionserver", "mapreduce"}) {
                Path moduleJar = modules.resolve(module).resolve("target").resolve("hbase-rowkey-" + module + "-0.1.0-SNAPSHOT.jar");
                assertTrue(Files.isRegularFile(moduleJar), moduleJar.toString());
                try (JarFile jf = new JarFile(moduleJar.toFile())) {
                    for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements();) {
                        JarEntry entry = e.nextElement();
                        if (entry.isDirectory() || entry.getName().startsWith("META-INF/maven/")
                                || entry.getName().equals("META-INF/MANIFEST.MF") || !entry.getName().endsWith(".class")) {
                            continue;
                        }
                        JarEntry inShaded = shaded.getJarEntry(entry.getName());
                        assertNotNull(inShaded, "the jar lacks " + module + "'s " + entry.getName());
                        try (InputStream built = jf.getInputStream(entry); InputStream inJar = shaded.getInputStream(inShaded)) {
                            byte[] made = readAll(built);
                            if (new String(made, StandardCharsets.ISO_8859_1).contains("com/google/protobuf")) {
                                continue; // relocated in the jar: its bytes differ by design
                            }
                            assertTrue(java.util.Arrays.equals(made, readAll(inJar)),
                                    module + "'s " + entry.getName() + " differs in the jar: a class from an earlier build");
                        }
                        compared++;
                    }
                }
            }
        }
        assertTrue(compared > 100, compared + " classes compared");
    }

    private static int elfMachine(JarFile jf, String entry) throws IOException {
        try (DataInputStream in = new DataInputStream(jf.getInputStream(jf.getEntry(entry)))) {
            assertEquals(0x7F454C46, in.readInt(), entry + " is not an ELF file");
            in.skipBytes(14);
            return in.readUnsignedByte() | in.readUnsignedByte() << 8; // little-endian u16 at offset 18
        }
    }

    /**
     * A production RegionServer must not carry an export that panics on purpose or the call-floor
     * benchmarks: the jar's library is the one built without the test-hooks feature. Its dynamic
     * symbol names are plain strings in the file, so the check reads the bytes.
     */
    @Test
    void theJarsLibraryHasNoTestHooks() throws IOException {
        try (JarFile jf = new JarFile(jar().toFile())) {
            assertNull(jf.getEntry("org/rowkey/hbase/NativeTestHooks.class"), "test hooks class in the jar");
            for (String platform : NativeLoader.SUPPORTED) {
                byte[] library;
                try (InputStream in = jf.getInputStream(jf.getEntry(NativeLoader.resourcePath(platform)))) {
                    library = readAll(in);
                }
                String symbols = new String(library, StandardCharsets.ISO_8859_1);
                assertTrue(symbols.contains("Java_org_rowkey_hbase_RowKeyNative_comparatorParse")
                        && symbols.contains("rowkey_compare"), platform + ": the library's symbols are readable here");
                for (String hook : new String[] {"selfTestPanic", "callFloor", "rowkey_call_floor", "NativeTestHooks"}) {
                    assertFalse(symbols.contains(hook), platform + ": the jar's native library exports the test hook " + hook);
                }
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0;) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static int classFileMajor(JarFile jf, String entry) throws IOException {
        try (DataInputStream in = new DataInputStream(jf.getInputStream(jf.getEntry(entry)))) {
            assertEquals(0xCAFEBABE, in.readInt());
            in.readUnsignedShort();
            return in.readUnsignedShort();
        }
    }

    @Test
    void mainClassLoaderUsesTheJarToo() {
        // This execution runs against the jar (not target/classes): the multi-release entry is used.
        assertTrue(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(".jar"));
        assertEquals("java.lang.ref.Cleaner", NativeCleaner.implementation());
    }

    @Test
    void comparatorsLoadedFromTheJarFileAgreeWithTheMainOnes() throws Exception {
        RowKeySchema schema = TestData.seedSchema();
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.add(schema.encode(TestData.seedRow("u" + i, i % 2 == 0 ? 404 : 200, 20161200 + i % 12, i % 4, i % 3 == 0)));
        }
        rows.add(new byte[5]);
        List<ByteArrayComparable> mains = new ArrayList<>();
        mains.add(new EqualComparator(schema, TestData.map("code", 404, "free", true)));
        mains.add(new RangeComparator(schema, "sdate", 20161205));
        mains.add(RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2).toComparator());

        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar().toUri().toURL()},
                new FreshLoaders.Hiding(JarLoadingIT.class.getClassLoader(), HIDDEN))) {
            for (ByteArrayComparable main : mains) {
                Class<?> type = Class.forName(main.getClass().getName(), true, loader);
                assertSame(loader, type.getClassLoader());
                assertNotSame(main.getClass(), type);
                Method parseFrom = type.getMethod("parseFrom", byte[].class);
                ByteArrayComparable other = (ByteArrayComparable) parseFrom.invoke(null, (Object) main.toByteArray());
                assertEquals(Collections.singletonList(type), Collections.singletonList(other.getClass()));
                assertTrue(java.util.Arrays.equals(main.getValue(), other.getValue()));
                for (byte[] row : rows) {
                    assertEquals(main.compareTo(row, 0, row.length), other.compareTo(row, 0, row.length));
                    ByteBuffer direct = ByteBuffer.allocateDirect(row.length).put(row);
                    assertEquals(main.compareTo(row, 0, row.length), other.compareTo(direct, 0, row.length));
                }
                // Bad bytes: HBase's own DeserializationException, whatever loader we came from.
                InvocationTargetException e = assertThrows(InvocationTargetException.class,
                        () -> parseFrom.invoke(null, (Object) new byte[] {1, 2, 3}));
                assertInstanceOf(DeserializationException.class, e.getCause());
                ((AutoCloseable) other).close();
            }
            Class<?> cleaner = Class.forName("org.rowkey.hbase.NativeCleaner", true, loader);
            Method impl = cleaner.getDeclaredMethod("implementation");
            impl.setAccessible(true);
            assertEquals("java.lang.ref.Cleaner", impl.invoke(null));
            Class<?> nativeLoader = Class.forName("org.rowkey.hbase.NativeLoader", true, loader);
            Method from = nativeLoader.getDeclaredMethod("loadedFrom");
            from.setAccessible(true);
            String source = (String) from.invoke(null);
            assertTrue(source.startsWith("jar:file:") && source.endsWith("!/native/linux-x86_64/libhbase_rowkey.so"), source);
        }
    }
}
