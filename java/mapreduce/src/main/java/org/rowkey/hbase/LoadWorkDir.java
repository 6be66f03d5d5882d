package org.rowkey.hbase;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ShutdownHookManager;

/**
 * A bulk load's work directory ({@code --work}), which is the load's state between runs of the
 * command (docs/bulk-load.md, "One load, one work directory"): its HFiles, its rejects, the record
 * of the load it holds ({@code load}: its id, what it loads, its timestamp, the indexes its HFiles
 * were written for) and, while a run of the command uses it, the run's lock ({@code running}).
 *
 * <p>One run at a time: a run takes the lock, made atomically, before it reads or changes anything,
 * and removes it when it ends (also when its JVM is stopped by a signal). A lock left by a process
 * that was killed outright is taken over once that process is gone, when it ran on this host;
 * otherwise the refusal says which process holds it and how to remove it.
 */
@RunsIn(RunsIn.Where.MAPREDUCE)
final class LoadWorkDir implements AutoCloseable {
    private static final String LOCK = "running";
    private static final String RECORD = "load";
    /** Made atomically by the one run that removes a dead holder's lock: the lock's id follows. */
    private static final String TAKEOVER = "running.taken-";

    private final FileSystem fs;
    private final Path dir;
    /** What this run wrote into its lock: it removes the lock only while it still says so. */
    private final String holder;
    private final Runnable releaseAtExit = this::release;

    private LoadWorkDir(FileSystem fs, Path dir, String holder) {
        this.fs = fs;
        this.dir = dir;
        this.holder = holder;
        // Before Hadoop's own hook closes the file systems.
        ShutdownHookManager.get().addShutdownHook(releaseAtExit, FileSystem.SHUTDOWN_HOOK_PRIORITY + 1);
    }

    /**
     * Takes the work directory for this run of the command.
     *
     * @throws IllegalStateException when another run holds it
     */
    static LoadWorkDir claim(FileSystem fs, Path dir) throws IOException {
        fs.mkdirs(dir);
        Path lock = new Path(dir, LOCK);
        String me = holder(processId(), hostName());
        for (int attempt = 0; attempt < 3; attempt++) {
            if (createExclusively(fs, lock, me)) {
                return new LoadWorkDir(fs, dir, me);
            }
            String other = read(fs, lock);
            if (other == null) {
                continue; // removed meanwhile
            }
            if (!goneFromThisHost(other)) {
                throw new IllegalStateException("another run of the bulk load in " + dir + " is running (" + other + "):"
                        + " wait for it to end. If that process is gone (killed outright, or its machine lost), remove " + lock
                        + " and run again");
            }
            removeDeadLock(fs, lock, other);
        }
        throw new IllegalStateException("another run of the bulk load in " + dir + " is running: its lock " + lock
                + " changed while this run looked at it");
    }

    /**
     * Removes the lock of a process that is gone, {@code dead}, if it is still there: only the run
     * that makes the takeover mark of that lock does, so no run removes the lock another run has
     * taken meanwhile.
     */
    private static void removeDeadLock(FileSystem fs, Path lock, String dead) throws IOException {
        Path mark = new Path(lock.getParent(), TAKEOVER + UUID.nameUUIDFromBytes(dead.getBytes(StandardCharsets.UTF_8)));
        if (!createExclusively(fs, mark, dead)) {
            return; // another run removes it; the lock is taken again
        }
        try {
            if (dead.equals(read(fs, lock))) {
                fs.delete(lock, false);
            }
        } finally {
            fs.delete(mark, false);
        }
    }

    Path dir() {
        return dir;
    }

    Path hfiles() {
        return new Path(dir, "hfiles");
    }

    /** The job's reduce partitions (the total-order partitioner's file). */
    Path partitions() {
        return new Path(dir, "partitions");
    }

    /** Where the job's rejects files are kept (a new load's run removes a finished load's). */
    Path rejects() {
        return new Path(dir, "rejects");
    }

    /** The load this directory holds, or null. */
    Load load() throws IOException {
        String text = read(fs, new Path(dir, RECORD));
        if (text == null) {
            return null;
        }
        Properties p = new Properties();
        p.load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        try {
            String timestamp = p.getProperty("timestamp");
            String indexes = p.getProperty("indexes");
            return new Load(p.getProperty("id"), p.getProperty("definition"), timestamp == null ? null : Long.valueOf(timestamp),
                    indexes == null ? null : indexes.isEmpty() ? new ArrayList<>() : Arrays.asList(indexes.split(",")));
        } catch (NumberFormatException e) {
            throw new IOException(new Path(dir, RECORD) + " (the record of the load in " + dir + ") is damaged: " + e.getMessage());
        }
    }

    /** Records a new load that loads {@code definition} (replacing no other: the caller checked). */
    Load begin(String definition) throws IOException {
        return save(new Load(UUID.randomUUID().toString(), definition, null, null));
    }

    /** Records the load again (its timestamp, its HFiles' indexes known since). */
    Load save(Load load) throws IOException {
        Properties p = new Properties();
        p.setProperty("id", load.id);
        p.setProperty("definition", load.definition);
        if (load.timestamp != null) {
            p.setProperty("timestamp", Long.toString(load.timestamp));
        }
        if (load.indexes != null) {
            p.setProperty("indexes", String.join(",", load.indexes));
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        p.store(text, "the bulk load this work directory holds (docs/bulk-load.md)");
        try (OutputStream out = fs.create(new Path(dir, RECORD), true)) {
            out.write(text.toByteArray());
        }
        return load;
    }

    /** Forgets the load: it finished, or it ended before anything of it was loaded. */
    void end() throws IOException {
        fs.delete(hfiles(), true);
        fs.delete(partitions(), false);
        fs.delete(new Path(dir, RECORD), false);
    }

    /** Ends this run: its lock removed. */
    @Override
    public void close() {
        ShutdownHookManager.get().removeShutdownHook(releaseAtExit);
        release();
    }

    private void release() {
        Path lock = new Path(dir, LOCK);
        try {
            if (holder.equals(read(fs, lock))) {
                fs.delete(lock, false);
            }
        } catch (IOException e) {
            System.err.println("bulk load: could not remove the lock " + lock + " of this run: " + e);
        }
    }

    /** A load a work directory holds. */
    static final class Load {
        /** Names the load, also in the table's load window: its own re-runs go on in its window, others are refused. */
        final String id;
        /** What it loads: the table, inputs, format, mapping and timestamp asked for, as text. */
        final String definition;
        /** Its timestamp once its window opened, else null. */
        final Long timestamp;
        /** The indexes its HFiles were written for, once its job ran, else null. */
        final List<String> indexes;

        Load(String id, String definition, Long timestamp, List<String> indexes) {
            this.id = id;
            this.definition = definition;
            this.timestamp = timestamp;
            this.indexes = indexes;
        }

        Load withTimestamp(long t) {
            return new Load(id, definition, t, indexes);
        }

        Load withIndexes(List<String> names) {
            return new Load(id, definition, timestamp, names);
        }
    }

    /**
     * Makes {@code file} holding {@code text} unless it exists, atomically: HDFS's create without
     * overwrite is; the local file system's is not, so there the file is made by the operating system.
     */
    private static boolean createExclusively(FileSystem fs, Path file, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (fs instanceof LocalFileSystem) {
            try {
                Files.write(((LocalFileSystem) fs).pathToFile(file).toPath(), bytes, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            }
        }
        try (OutputStream out = fs.create(file, false)) {
            out.write(bytes);
            return true;
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            return false;
        }
    }

    /** A small file's text, or null when it does not exist. */
    private static String read(FileSystem fs, Path file) throws IOException {
        if (!fs.exists(file)) {
            return null; // (asked first: a NameNode logs every open of a missing file)
        }
        try (InputStream in = fs.open(file)) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                text.write(buffer, 0, n);
            }
            return new String(text.toByteArray(), StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    /** What a run's lock says of it: its process, host, start and a run id of its own. */
    static String holder(String pid, String host) {
        return "pid " + pid + " on " + host + ", started " + Instant.now() + ", run " + UUID.randomUUID();
    }

    static String processId() {
        String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
        return name.substring(0, Math.max(0, name.indexOf('@')));
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown host";
        }
    }

    /** Whether a lock's holder ran on this host and its process no longer runs (unknown: no). */
    private static boolean goneFromThisHost(String holder) {
        String prefix = "pid ";
        int on = holder.indexOf(" on ");
        int started = holder.indexOf(", started ");
        if (!holder.startsWith(prefix) || on < 0 || started < on
                || !holder.substring(on + 4, started).equals(hostName())) {
            return false;
        }
        try {
            long pid = Long.parseLong(holder.substring(prefix.length(), on));
            // ProcessHandle (Java 9+) by reflection: the classes are compiled for Java 8.
            Class<?> handles = Class.forName("java.lang.ProcessHandle");
            java.util.Optional<?> handle = (java.util.Optional<?>) handles.getMethod("of", long.class).invoke(null, pid);
            return !handle.isPresent() || !(Boolean) handles.getMethod("isAlive").invoke(handle.get());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
