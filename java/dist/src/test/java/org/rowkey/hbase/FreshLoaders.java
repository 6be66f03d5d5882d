package org.rowkey.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Class loaders that load our classes afresh from a class path entry (target/classes or the built
 * jar), the way HBase's DynamicClassLoader loads a jar from {@code hbase.dynamic.jars.dir}: HBase,
 * Hadoop and the rest come from the parent, our packages and the native library resource do not.
 * Each such loader loads its own copy of the native library. Also: where the JVM mapped library
 * files ({@code /proc/self/maps}).
 */
final class FreshLoaders {
    private FreshLoaders() {}

    /** What the child loaders must load themselves. */
    static final String[] OURS = {"org.rowkey.hbase.", "native."};

    /** A new loader over {@code url} (a directory or jar) whose parent hides our packages. */
    static URLClassLoader over(URL url) {
        return new URLClassLoader(new URL[] {url}, new Hiding(FreshLoaders.class.getClassLoader(), OURS));
    }

    /** Invokes a static method of class {@code type} as loaded by {@code loader}; unwraps its exception. */
    static Object invokeStatic(ClassLoader loader, String type, String method, Class<?>[] params, Object... args)
            throws Throwable {
        Class<?> c = Class.forName(type, true, loader);
        Method m = c.getDeclaredMethod(method, params);
        m.setAccessible(true);
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Files of mapped native libraries named like ours, as /proc/self/maps shows them ("... (deleted)" included). */
    static Set<String> mappedLibraries() throws IOException {
        Set<String> out = new LinkedHashSet<>();
        List<String> lines = Files.readAllLines(Paths.get("/proc/self/maps"), StandardCharsets.UTF_8);
        for (String line : lines) {
            int slash = line.indexOf('/');
            if (slash >= 0 && line.contains(System.mapLibraryName(NativeLoader.LIBRARY))) {
                out.add(line.substring(slash));
            }
        }
        return out;
    }

    /** The mapped library files that were not mapped in {@code before}. */
    static List<String> newlyMapped(Set<String> before) throws IOException {
        List<String> out = new ArrayList<>();
        for (String lib : mappedLibraries()) {
            if (!before.contains(lib)) {
                out.add(lib);
            }
        }
        return out;
    }

    /** A parent that hides some packages and resources, so the child loads them from its own class path. */
    static final class Hiding extends ClassLoader {
        private final String[] hidden;

        Hiding(ClassLoader parent, String... hiddenPrefixes) {
            super(parent);
            this.hidden = hiddenPrefixes;
        }

        private boolean hides(String name) {
            String dotted = name.replace('/', '.');
            for (String h : hidden) {
                if (dotted.startsWith(h)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (hides(name)) {
                throw new ClassNotFoundException(name + " (hidden from the child loader)");
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public URL getResource(String name) {
            return hides(name) ? null : super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return hides(name) ? Collections.<URL>emptyEnumeration() : super.getResources(name);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            return hides(name) ? null : super.getResourceAsStream(name);
        }
    }
}
