package org.rowkey.hbase;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs a main class in a child JVM with this JVM's class path, its stdout and stderr captured to
 * files under {@code target/child-jvm/}: for tests whose JVM output must be read (the JVM's own
 * {@code -Xcheck:jni} warnings, native stderr) or that must not flood the build log.
 */
final class ChildJvm {
    private ChildJvm() {}

    /** JVM output that means JNI was misused: {@code -Xcheck:jni} warnings and fatal errors. */
    static final Pattern JNI_PROBLEM = Pattern.compile("(WARNING|FATAL ERROR) in native method");

    /** What a child JVM did. */
    static final class Outcome {
        final int exitCode;
        final String stdout;
        final String stderr;
        final Path stdoutFile;
        final Path stderrFile;

        Outcome(int exitCode, Path stdoutFile, Path stderrFile) throws IOException {
            this.exitCode = exitCode;
            this.stdoutFile = stdoutFile;
            this.stderrFile = stderrFile;
            this.stdout = new String(Files.readAllBytes(stdoutFile), StandardCharsets.UTF_8);
            this.stderr = new String(Files.readAllBytes(stderrFile), StandardCharsets.UTF_8);
        }

        /** Lines of stdout and stderr matching {@code p}. */
        List<String> lines(Pattern p) {
            List<String> out = new ArrayList<>();
            for (String s : new String[] {stdout, stderr}) {
                for (String line : s.split("\n")) {
                    if (p.matcher(line).find()) {
                        out.add(line);
                    }
                }
            }
            return out;
        }

        int count(String fragment) {
            int n = 0;
            for (String s : new String[] {stdout, stderr}) {
                for (int i = s.indexOf(fragment); i >= 0; i = s.indexOf(fragment, i + fragment.length())) {
                    n++;
                }
            }
            return n;
        }

        /** For assertion messages: exit code, file names and the end of both streams. */
        String describe() {
            return "exit code " + exitCode + "; stdout " + stdoutFile + ":\n" + tail(stdout) + "\nstderr " + stderrFile + ":\n"
                    + tail(stderr);
        }

        private static String tail(String s) {
            return s.length() <= 4000 ? s : "..." + s.substring(s.length() - 4000);
        }
    }

    /**
     * Runs {@code mainClass} with {@code jvmArgs} (this JVM's module flags are added), waits up to
     * {@code timeoutSeconds} (then kills it and throws).
     */
    static Outcome run(String name, Class<?> mainClass, List<String> jvmArgs, Map<String, String> env, long timeoutSeconds,
            String... args) throws IOException, InterruptedException {
        return run(name, mainClass, jvmArgs, System.getProperty("java.class.path"), env, timeoutSeconds, args);
    }

    /** {@link #run(String, Class, List, Map, long, String...)} with another class path. */
    static Outcome run(String name, Class<?> mainClass, List<String> jvmArgs, String classPath, Map<String, String> env,
            long timeoutSeconds, String... args) throws IOException, InterruptedException {
        Path dir = Paths.get("target", "child-jvm");
        Files.createDirectories(dir);
        Path out = dir.resolve(name + ".stdout.txt");
        Path err = dir.resolve(name + ".stderr.txt");
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(moduleFlags());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(name + ": child JVM still running after " + timeoutSeconds + " s: "
                    + new Outcome(-1, out, err).describe());
        }
        return new Outcome(p.exitValue(), out, err);
    }

    /** The --add-opens/--add-exports flags this JVM was started with (HBase classes need them). */
    private static List<String> moduleFlags() {
        List<String> flags = new ArrayList<>();
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports") || arg.startsWith("--add-modules")
                    || arg.startsWith("--enable-native-access")) {
                flags.add(arg);
            }
        }
        return flags;
    }

    /** The class path entry (directory or jar) a class was loaded from. */
    static File codeSource(Class<?> c) {
        try {
            return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
