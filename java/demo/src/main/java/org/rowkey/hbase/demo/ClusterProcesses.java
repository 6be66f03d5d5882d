package org.rowkey.hbase.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cluster's server processes as java/cluster/hbase.sh started them (pseudo-distributed:
 * ZooKeeper, a master, RegionServers 1..N, each its own JVM on this machine): their pids and
 * ports ({@code hbase.sh pids}), and a RegionServer's kill -9 and start ({@code hbase.sh restart-rs K}).
 */
final class ClusterProcesses {
    /** One line of {@code hbase.sh pids}. */
    static final class Process {
        final String role;
        final int number;
        final long pid;
        /** The HTTP info port (/jmx), or -1. */
        final int infoPort;

        Process(String role, int number, long pid, int infoPort) {
            this.role = role;
            this.number = number;
            this.pid = pid;
            this.infoPort = infoPort;
        }

        boolean isRegionServer() {
            return role.equals("regionserver");
        }

        String name() {
            return isRegionServer() ? "RS" + number : role;
        }

        boolean alive() {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    private final String script;

    /** {@code script}: the path of hbase.sh. */
    ClusterProcesses(String script) {
        this.script = script;
    }

    synchronized List<Process> processes() throws IOException {
        List<Process> list = new ArrayList<>();
        for (String line : run(60, "pids").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 4) {
                continue;
            }
            list.add(new Process(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3].equals("-") ? -1 : Integer.parseInt(f[3])));
        }
        if (list.isEmpty()) {
            throw new IOException(script + " pids listed no process: is the cluster running?");
        }
        return list;
    }

    List<Process> regionServers() throws IOException {
        List<Process> list = new ArrayList<>();
        for (Process p : processes()) {
            if (p.isRegionServer()) {
                list.add(p);
            }
        }
        return list;
    }

    /** kill -9 of RegionServer {@code number}, then the same RegionServer started again; returns what the script said. */
    String restartRegionServer(int number) throws IOException {
        return run(300, "restart-rs", Integer.toString(number)).trim();
    }

    /** Runs hbase.sh with {@code args}; its output, or an IOException with its output if it failed. */
    private String run(int timeoutSeconds, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(script);
        command.addAll(List.of(args));
        java.lang.Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (InputStream out = p.getInputStream()) {
            p.getOutputStream().close();
            byte[] bytes = readWithin(out, p, timeoutSeconds);
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + text.trim());
            }
            return text;
        }
    }

    private static byte[] readWithin(InputStream out, java.lang.Process p, int timeoutSeconds) throws IOException {
        try {
            byte[] bytes = out.readAllBytes();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("hbase.sh did not finish in " + timeoutSeconds + " s");
            }
            return bytes;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for hbase.sh", e);
        }
    }
}
