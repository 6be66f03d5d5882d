package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Where each class runs ({@link RunsIn}), checked on the compiled classes: every class of the
 * package says where it runs, sits in the Maven module of that place (java/common, client,
 * regionserver, mapreduce: the compiler keeps each module to what it depends on), and what a RegionServer loads (its filters, comparators and
 * coprocessors, the shared classes and the native bridge) never refers to a client-only or
 * MapReduce class, in any signature, field, call or constant: a RegionServer must not need them.
 */
class ArchitectureTest {
    private static final String PACKAGE = "org/rowkey/hbase/";
    /** The packages of our own classes, as paths under {@link #PACKAGE} (the generated protobuf classes are not ours). */
    private static final List<String> PACKAGES = java.util.Arrays.asList("", "join/");
    /** A reference to a class of those packages in a constant-pool string: its path under {@link #PACKAGE}. */
    private static final Pattern REFERENCE = Pattern.compile("org/rowkey/hbase/((?:join/)?[A-Za-z0-9_]+)(?![A-Za-z0-9_/])");
    private static final Set<RunsIn.Where> SERVER_SIDE =
            EnumSet.of(RunsIn.Where.REGION_SERVER, RunsIn.Where.SHARED, RunsIn.Where.NATIVE_BRIDGE);

    @Test
    void everyClassSaysWhereItRuns() throws Exception {
        List<String> unmarked = new ArrayList<>();
        for (String name : topLevelClasses().keySet()) {
            if (where(name) == null) {
                unmarked.add(name);
            }
        }
        assertEquals(Collections.emptyList(), unmarked, "top-level classes without @RunsIn");
    }

    @Test
    void regionServerSideNeverNeedsClientClasses() throws Exception {
        Map<String, Set<String>> references = topLevelClasses();
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : references.entrySet()) {
            RunsIn.Where from = where(e.getKey());
            if (from == null || !SERVER_SIDE.contains(from)) {
                continue;
            }
            for (String target : e.getValue()) {
                RunsIn.Where to = where(target);
                if (to != null && !SERVER_SIDE.contains(to)) {
                    violations.add(e.getKey() + " (" + from + ") -> " + target + " (" + to + ")");
                }
            }
        }
        assertEquals(Collections.emptyList(), violations, "RegionServer-side classes referring to client or MapReduce classes");
    }

    /** Classes of ours that reach hbase-server: the coprocessors, their metrics, and classes that refer to them. */
    private static final Pattern HBASE_SERVER = Pattern.compile(
            "org/apache/hadoop/hbase/(regionserver|coprocessor)/|org/apache/hadoop/hbase/ipc/Rpc(Server|Call)\\b");

    /**
     * An application's class path has hbase-client, not hbase-server: only the coprocessors (which
     * a RegionServer loads) may need it, and no other class of ours refers to them. The client names
     * them by {@link CoprocessorWire}'s strings. Before: {@code RowKeyTable.create} loaded
     * {@code RowKeyIndexObserver.class} and failed with {@code NoClassDefFoundError: RegionCoprocessor}.
     */
    @Test
    void onlyTheCoprocessorsNeedHBaseServer() throws Exception {
        Set<String> needServer = needHBaseServer(topLevelClasses());
        assertEquals(new TreeSet<>(java.util.Arrays.asList("CoprocessorMetrics", "ForwardingRegionScanner", "RowKeyAggregateObserver",
                "RowKeyIndexObserver", "RowKeyScanObserver")), needServer, "classes of ours that need hbase-server on the class path");
        assertEquals(RowKeyIndexObserver.class.getName(), CoprocessorWire.INDEX_OBSERVER);
        assertEquals(RowKeyScanObserver.class.getName(), CoprocessorWire.SCAN_OBSERVER);
        assertEquals(RowKeyAggregateObserver.class.getName(), CoprocessorWire.SCAN_OBSERVER_BEFORE);
    }

    /** The classes that refer to hbase-server's packages, or to a class of ours that does. */
    private static Set<String> needHBaseServer(Map<String, Set<String>> references) {
        Set<String> needServer = new TreeSet<>(SERVER_CLASSES.keySet());
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Map.Entry<String, Set<String>> e : references.entrySet()) {
                if (!needServer.contains(e.getKey()) && !Collections.disjoint(e.getValue(), needServer)) {
                    grew |= needServer.add(e.getKey());
                }
            }
        }
        return needServer;
    }

    /** The classes that refer to hbase-server's packages, with what they refer to (filled by {@link #topLevelClasses}). */
    private static final Map<String, Set<String>> SERVER_CLASSES = new TreeMap<>();

    /** The join kernel stands alone: its classes refer to each other and to nothing else of ours but {@code RunsIn}. */
    @Test
    void theJoinKernelRefersToNothingElseOfOurs() throws Exception {
        List<String> outside = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : topLevelClasses().entrySet()) {
            if (e.getKey().startsWith("join/")) {
                for (String target : e.getValue()) {
                    if (!target.startsWith("join/") && !target.equals("RunsIn")) {
                        outside.add(e.getKey() + " -> " + target);
                    }
                }
            }
        }
        assertEquals(Collections.emptyList(), outside);
        assertTrue(topLevelClasses().keySet().containsAll(java.util.Arrays.asList("join/KeyStream", "join/KeyStreams", "join/RangeKeyStream",
                "join/KeyRangeReader")));
    }

    /** The check sees a reference in a class file: a class that names a client class fails. */
    @Test
    void referencesAreReadFromTheClassFiles() throws Exception {
        Set<String> plan = topLevelClasses().get("QueryPlan");
        assertTrue(plan.contains("IndexResultScanner") && plan.contains("JoinScanner"), plan.toString());
        assertTrue(topLevelClasses().get("JoinScanner").contains("join/KeyStreams"));
        assertTrue(topLevelClasses().get("SkipScanFilter").contains("KeySeeker"));
    }

    /** Where the class of {@code name} (its path under {@link #PACKAGE}) runs, or null when it does not say. */
    private static RunsIn.Where where(String name) throws ClassNotFoundException {
        Class<?> c = Class.forName("org.rowkey.hbase." + name.replace('/', '.'), false, ArchitectureTest.class.getClassLoader());
        RunsIn runsIn = c.getAnnotation(RunsIn.class);
        return runsIn == null ? null : runsIn.value();
    }

    /**
     * The Maven module each class comes from (java/&lt;module&gt;/target/classes), for one class known
     * to be in each: the unit tests read the modules' class directories.
     */
    private static final Class<?>[] ONE_CLASS_OF_EACH_MODULE = {
        RowKeySchema.class, RowKeyTable.class, RowKeyIndexObserver.class, BulkLoad.class};

    /** Where each module's classes are, by module name (the directory above target/classes, or the jar's name). */
    private static Map<String, Path> moduleRoots() throws URISyntaxException {
        Map<String, Path> roots = new TreeMap<>();
        for (Class<?> c : ONE_CLASS_OF_EACH_MODULE) {
            Path root = Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            String module = Files.isDirectory(root) ? root.getParent().getParent().getFileName().toString()
                    : root.getFileName().toString();
            roots.put(module, root);
        }
        return roots;
    }

    /**
     * Each module holds the classes that run where its name says: what a RegionServer alone loads
     * (hbase-server) in regionserver, the client's in client, MapReduce's in mapreduce, and what
     * several load in common (the shared classes, the native bridge, and the filters and comparators
     * a RegionServer rebuilds from their bytes, which the client builds). The compiler keeps each
     * module to its dependencies; this keeps each class in the module of the place it runs.
     */
    @Test
    void eachModuleHoldsTheClassesThatRunWhereItsNameSays() throws Exception {
        Map<String, Path> roots = moduleRoots();
        assertEquals(new TreeSet<>(java.util.Arrays.asList("client", "common", "mapreduce", "regionserver")), roots.keySet(),
                "the modules' class directories");
        Map<String, EnumSet<RunsIn.Where>> allowed = new TreeMap<>();
        allowed.put("common", EnumSet.of(RunsIn.Where.SHARED, RunsIn.Where.NATIVE_BRIDGE, RunsIn.Where.REGION_SERVER));
        allowed.put("client", EnumSet.of(RunsIn.Where.CLIENT));
        allowed.put("regionserver", EnumSet.of(RunsIn.Where.REGION_SERVER));
        allowed.put("mapreduce", EnumSet.of(RunsIn.Where.MAPREDUCE));
        Set<String> needServer = needHBaseServer(topLevelClasses());
        List<String> misplaced = new ArrayList<>();
        for (Map.Entry<String, Path> module : roots.entrySet()) {
            Map<String, Set<String>> classes = new TreeMap<>();
            readClasses(module.getValue(), classes);
            for (String name : classes.keySet()) {
                RunsIn.Where where = where(name);
                boolean needsServer = needServer.contains(name);
                if (!allowed.get(module.getKey()).contains(where) || needsServer != module.getKey().equals("regionserver")) {
                    misplaced.add(name + " (" + where + (needsServer ? ", needs hbase-server" : "") + ") in " + module.getKey());
                }
            }
        }
        assertEquals(Collections.emptyList(), misplaced, "classes in the module of another place");
    }

    /**
     * The README's layout table has a row for each Maven module of java/pom.xml, and the design
     * document's picture a box for each module a class runs in: the layout is said where readers
     * look, from the module names, and a module added or renamed fails here until both say so.
     */
    @Test
    void theReadmeAndTheDesignNameEveryModule() throws Exception {
        String pom = new String(Files.readAllBytes(Paths.get("../pom.xml")), java.nio.charset.StandardCharsets.UTF_8);
        String readme = new String(Files.readAllBytes(Paths.get("../../README.md")), java.nio.charset.StandardCharsets.UTF_8);
        String design = new String(Files.readAllBytes(Paths.get("../../docs/design.md")), java.nio.charset.StandardCharsets.UTF_8);
        Matcher module = Pattern.compile("<module>([a-z]+)</module>").matcher(pom);
        List<String> missing = new ArrayList<>();
        int modules = 0;
        while (module.find()) {
            modules++;
            String name = module.group(1);
            if (!readme.contains("\n| `java/" + name + "` |")) {
                missing.add("README.md: a row for java/" + name);
            }
            if (!name.equals("dist") && !design.contains("\n java/" + name + ": ")) {
                missing.add("docs/design.md: a box for java/" + name);
            }
        }
        assertEquals(5, modules, "modules of java/pom.xml");
        assertEquals(Collections.emptyList(), missing);
        assertEquals(moduleRoots().keySet().size(), modules - 1, "modules whose classes the tests read, beside dist");
    }

    /** Each top-level class of the main classes (every module's), with the top-level classes of the package its class files refer to. */
    private static Map<String, Set<String>> topLevelClasses() throws IOException, URISyntaxException {
        Map<String, Set<String>> out = new TreeMap<>();
        for (Path root : new java.util.LinkedHashSet<>(moduleRoots().values())) {
            readClasses(root, out);
        }
        assertTrue(out.size() > 30, "found only " + out.keySet() + " under " + moduleRoots());
        return out;
    }

    /** Adds the top-level classes of our packages under {@code root} (a class directory or a jar) to {@code out}. */
    private static void readClasses(Path root, Map<String, Set<String>> out) throws IOException {
        if (Files.isDirectory(root)) {
            for (String pkg : PACKAGES) {
                Path dir = root.resolve(PACKAGE + pkg);
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        String file = f.getFileName().toString();
                        if (file.endsWith(".class") && !file.equals("package-info.class")) {
                            add(out, pkg + file, Files.readAllBytes(f));
                        }
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                for (JarEntry entry : Collections.list(jar.entries())) {
                    String name = entry.getName();
                    if (!name.startsWith(PACKAGE) || !name.endsWith(".class") || name.endsWith("/package-info.class")) {
                        continue;
                    }
                    String path = name.substring(PACKAGE.length());
                    String pkg = path.substring(0, path.lastIndexOf('/') + 1);
                    if (PACKAGES.contains(pkg)) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            add(out, path, readAll(in));
                        }
                    }
                }
            }
        }
    }

    private static void add(Map<String, Set<String>> out, String file, byte[] classFile) throws IOException {
        String top = topLevel(file.substring(0, file.length() - ".class".length()));
        Set<String> refs = out.computeIfAbsent(top, k -> new TreeSet<>());
        for (String s : constantPoolStrings(classFile)) {
            Matcher server = HBASE_SERVER.matcher(s);
            if (server.find()) {
                SERVER_CLASSES.computeIfAbsent(top, k -> new TreeSet<>()).add(s);
            }
            Matcher m = REFERENCE.matcher(s);
            while (m.find()) {
                String target = topLevel(m.group(1));
                if (!target.equals(top)) {
                    refs.add(target);
                }
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static String topLevel(String binaryName) {
        int dollar = binaryName.indexOf('$');
        return dollar < 0 ? binaryName : binaryName.substring(0, dollar);
    }

    /** The UTF-8 entries of a class file's constant pool: class names, descriptors and signatures. */
    private static List<String> constantPoolStrings(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        List<String> strings = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: // Utf8
                    strings.add(in.readUTF());
                    break;
                case 3: case 4: // Integer, Float
                case 9: case 10: case 11: case 12: // Fieldref, Methodref, InterfaceMethodref, NameAndType
                case 17: case 18: // Dynamic, InvokeDynamic
                    in.skipBytes(4);
                    break;
                case 5: case 6: // Long, Double: two slots
                    in.skipBytes(8);
                    i++;
                    break;
                case 7: case 8: case 16: case 19: case 20: // Class, String, MethodType, Module, Package
                    in.skipBytes(2);
                    break;
                case 15: // MethodHandle
                    in.skipBytes(3);
                    break;
                default:
                    throw new IOException("constant pool tag " + tag + " at entry " + i);
            }
        }
        return strings;
    }
}
