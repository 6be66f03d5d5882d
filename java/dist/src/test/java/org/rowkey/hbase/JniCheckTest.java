package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Guards the {@code jni-check} execution of the pom, which runs the JNI-heavy unit tests again
 * in a JVM started with {@code -Xcheck:jni} and its VM output logged to
 * {@code target/jni-check/jvm-pid<pid>.log}; after the run the build fails if any log has a
 * "WARNING in native method" or "FATAL ERROR in native method" line (a fatal error also kills
 * the forked JVM, which fails the run). This test runs only there and fails if the JVM lacks the
 * flags, so the check cannot silently stop checking.
 */
@EnabledIfSystemProperty(named = JniCheckTest.LOG_DIR_PROPERTY, matches = ".+")
class JniCheckTest {
    static final String LOG_DIR_PROPERTY = "rowkey.jnicheck.log.dir";

    @Test
    void thisJvmChecksJniAndLogsItsOutput() {
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        assertTrue(args.contains("-Xcheck:jni"), args.toString());
        assertTrue(args.contains("-XX:+LogVMOutput"), args.toString());
        String name = ManagementFactory.getRuntimeMXBean().getName(); // "<pid>@<host>"
        String pid = name.substring(0, name.indexOf('@'));
        Path log = Paths.get(System.getProperty(LOG_DIR_PROPERTY)).resolve("jvm-pid" + pid + ".log");
        assertTrue(Files.isRegularFile(log), "the VM output log the build scans: " + log);
        // The native library is in use in this JVM, so the checks cover our calls.
        assertTrue(RowKeyNative.liveObjects() >= 0);
    }
}
