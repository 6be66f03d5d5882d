package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The pom's {@code jni-check-scan} execution, run right after {@code jni-check} has exited: reads
 * the VM output log(s) of that {@code -Xcheck:jni} JVM and fails on any "WARNING in native method"
 * or "FATAL ERROR in native method" line, quoting it with the lines the JVM printed after it (the Java stack).
 */
@EnabledIfSystemProperty(named = JniCheckLogTest.SCAN_DIR_PROPERTY, matches = ".+")
class JniCheckLogTest {
    static final String SCAN_DIR_PROPERTY = "rowkey.jnicheck.scan.dir";

    @Test
    void theCheckJniRunLoggedNoJniWarningOrError() throws IOException {
        Path dir = Paths.get(System.getProperty(SCAN_DIR_PROPERTY));
        List<Path> logs = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "jvm-pid*.log")) {
                for (Path p : s) {
                    logs.add(p);
                }
            }
        }
        assertFalse(logs.isEmpty(), "no VM log of the -Xcheck:jni run in " + dir + " (did the jni-check execution run?)");
        List<String> problems = new ArrayList<>();
        int lines = 0;
        for (Path log : logs) {
            List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            lines += all.size();
            for (int i = 0; i < all.size(); i++) {
                if (ChildJvm.JNI_PROBLEM.matcher(all.get(i)).find()) {
                    StringBuilder quote = new StringBuilder(log.getFileName() + ":" + (i + 1) + ": " + all.get(i));
                    for (int j = i + 1; j < Math.min(all.size(), i + 12); j++) {
                        quote.append("\n    ").append(all.get(j));
                    }
                    problems.add(quote.toString());
                }
            }
        }
        assertTrue(lines > 0, "empty VM logs " + logs);
        assertEquals(new ArrayList<String>(), problems, "JNI misuse reported by -Xcheck:jni:\n" + String.join("\n", problems));
        System.out.println("-Xcheck:jni: no warning in " + logs + " (" + lines + " lines)");
    }
}
