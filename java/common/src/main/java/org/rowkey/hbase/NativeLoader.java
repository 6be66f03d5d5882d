package org.rowkey.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Loads the native core into the class loader that loaded this class.
 *
 * <p>The library is the class path resource {@code native/<os>-<arch>/libhbase_rowkey.so} of our
 * own class loader, so it works alike from a jar in HBase's {@code lib/}, from a
 * {@code DynamicClassLoader} ({@code hbase.dynamic.jars.dir}) and from {@code target/classes}.
 * A native library binds to one class loader, so each load extracts its own copy: a unique file
 * in a new owner-only directory under {@code java.io.tmpdir} (or under the directory named by the
 * system property {@value #NATIVE_DIR_PROPERTY}), loads it and deletes it at once (Linux keeps a
 * loaded library mapped), or at JVM exit where that is not possible.
 *
 * <p>System property {@value #NATIVE_LIB_PROPERTY} names a library file to load instead of the
 * resource (only one class loader per JVM can load a given file).
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class NativeLoader {
    private NativeLoader() {}

    static final String NATIVE_DIR_PROPERTY = "rowkey.native.dir";
    static final String NATIVE_LIB_PROPERTY = "rowkey.native.lib";
    static final String LIBRARY = "hbase_rowkey";
    /** Platforms a library is built for, as {@code <os>-<arch>}. */
    static final List<String> SUPPORTED = Collections.unmodifiableList(Arrays.asList("linux-x86_64", "linux-aarch64"));

    private static boolean loaded;
    private static String loadedFrom;

    /** Loads the library unless this class loader already has; thread-safe. */
    static synchronized void load() {
        if (loaded) {
            return;
        }
        String explicit = System.getProperty(NATIVE_LIB_PROPERTY);
        if (explicit != null && !explicit.isEmpty()) {
            System.load(Paths.get(explicit).toAbsolutePath().toString());
            loadedFrom = explicit;
        } else {
            loadedFrom = loadFromResource();
        }
        loaded = true;
    }

    /** Where the library came from (resource URL or file), or null before {@link #load()}. */
    static synchronized String loadedFrom() {
        return loadedFrom;
    }

    /**
     * The {@code <os>-<arch>} directory for a platform, or an {@link UnsatisfiedLinkError}
     * naming it and the supported ones.
     */
    static String platform(String osName, String osArch) {
        String os = normalizeOs(osName);
        String arch = normalizeArch(osArch);
        String platform = os + "-" + arch;
        if (!SUPPORTED.contains(platform)) {
            throw new UnsatisfiedLinkError("hbase-rowkey has no native library for os.name="
                    + osName + ", os.arch=" + osArch + " (supported: " + String.join(", ", SUPPORTED) + ")");
        }
        return platform;
    }

    /** The resource path of the library for a platform. */
    static String resourcePath(String platform) {
        return "native/" + platform + "/" + System.mapLibraryName(LIBRARY);
    }

    private static String normalizeOs(String osName) {
        String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            return "linux";
        }
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return "osx";
        }
        if (os.startsWith("windows")) {
            return "windows";
        }
        return os.replaceAll("[^a-z0-9]+", "");
    }

    private static String normalizeArch(String osArch) {
        String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x86-64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return arch.replaceAll("[^a-z0-9_]+", "");
        }
    }

    private static String loadFromResource() {
        String platform = platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        String resource = resourcePath(platform);
        ClassLoader loader = NativeLoader.class.getClassLoader();
        URL url = loader == null ? ClassLoader.getSystemResource(resource) : loader.getResource(resource);
        if (url == null) {
            throw new UnsatisfiedLinkError("hbase-rowkey: native library resource " + resource
                    + " not found by " + loader + " (a jar built without the native library?"
                    + " Build it with `cargo make native`)");
        }
        Path dir = null;
        Path file = null;
        try {
            dir = createPrivateDirectory();
            file = dir.resolve(System.mapLibraryName(LIBRARY));
            try (InputStream in = url.openStream()) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            System.load(file.toAbsolutePath().toString());
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("hbase-rowkey: cannot extract "
                    + url + " to " + (file != null ? file : "a temporary directory") + ": " + e
                    + " (set -D" + NATIVE_DIR_PROPERTY + " to a writable directory)");
            error.initCause(e);
            throw error;
        } finally {
            deleteOrScheduleDeletion(dir, file);
        }
        return url.toString();
    }

    private static Path createPrivateDirectory() throws IOException {
        String base = System.getProperty(NATIVE_DIR_PROPERTY);
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        FileAttribute<?>[] attrs = new FileAttribute<?>[0];
        if (posix) {
            Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rwx------");
            attrs = new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(ownerOnly)};
        }
        if (base == null || base.isEmpty()) {
            return Files.createTempDirectory("hbase-rowkey-", attrs);
        }
        Path parent = Paths.get(base);
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, "hbase-rowkey-", attrs);
    }

    /** A loaded library stays mapped after its file is deleted (not so on Windows). */
    private static void deleteOrScheduleDeletion(Path dir, Path file) {
        if (file != null && !tryDelete(file)) {
            // deleteOnExit runs in reverse order of registration: the file first, then its directory.
            if (dir != null) {
                dir.toFile().deleteOnExit();
            }
            file.toFile().deleteOnExit();
            return;
        }
        if (dir != null && !tryDelete(dir)) {
            dir.toFile().deleteOnExit();
        }
    }

    private static boolean tryDelete(Path path) {
        try {
            Files.deleteIfExists(path);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
