package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bulk load's work directory on the local file system: one run at a time, and the record of its load. */
class LoadWorkDirTest {
    private static FileSystem local() throws Exception {
        return FileSystem.getLocal(LoadMappingTest.localFiles());
    }

    @Test
    void oneRunAtATimeHoldsTheDirectory(@TempDir File tmp) throws Exception {
        Path dir = new Path(tmp.toURI());
        File lock = new File(tmp, "running");
        try (LoadWorkDir first = LoadWorkDir.claim(local(), dir)) {
            assertTrue(lock.exists());
            String refused = assertThrows(IllegalStateException.class, () -> LoadWorkDir.claim(local(), dir)).getMessage();
            assertTrue(refused.contains("is running") && refused.contains("pid " + LoadWorkDir.processId()), refused);
        }
        assertFalse(lock.exists(), "removed when the run ends");
        LoadWorkDir.claim(local(), dir).close();
    }

    /** A lock whose process is gone from this host (killed outright) is taken over; one of another host is not. */
    @Test
    void aDeadProcesssLockIsTakenOverOnlyOnItsHost(@TempDir File tmp) throws Exception {
        Path dir = new Path(tmp.toURI());
        File lock = new File(tmp, "running");
        // Above Linux's largest pid (2^22): no such process.
        Files.write(lock.toPath(), LoadWorkDir.holder("99999999", LoadWorkDir.hostName()).getBytes(StandardCharsets.UTF_8));
        try (LoadWorkDir taken = LoadWorkDir.claim(local(), dir)) {
            assertTrue(new String(Files.readAllBytes(lock.toPath()), StandardCharsets.UTF_8)
                    .startsWith("pid " + LoadWorkDir.processId() + " "));
        }
        String elsewhere = LoadWorkDir.holder("99999999", "another-host.example");
        Files.write(lock.toPath(), elsewhere.getBytes(StandardCharsets.UTF_8));
        String refused = assertThrows(IllegalStateException.class, () -> LoadWorkDir.claim(local(), dir)).getMessage();
        assertTrue(refused.contains(elsewhere) && refused.contains("remove " + new Path(dir, "running")), refused);
        assertEquals(elsewhere, new String(Files.readAllBytes(lock.toPath()), StandardCharsets.UTF_8), "left as it was");
    }

    @Test
    void theRecordOfTheLoadLastsUntilItEnds(@TempDir File tmp) throws Exception {
        try (LoadWorkDir work = LoadWorkDir.claim(local(), new Path(tmp.toURI()))) {
            assertNull(work.load());
            LoadWorkDir.Load begun = work.begin("--table t --input a");
            work.save(begun.withTimestamp(1_795_000_000_000L).withIndexes(Arrays.asList("i1", "i2")));
            LoadWorkDir.Load read = work.load();
            assertEquals(begun.id, read.id);
            assertEquals("--table t --input a", read.definition);
            assertEquals(Long.valueOf(1_795_000_000_000L), read.timestamp);
            assertEquals(Arrays.asList("i1", "i2"), read.indexes);
            work.end();
            assertNull(work.load());
        }
    }
}
