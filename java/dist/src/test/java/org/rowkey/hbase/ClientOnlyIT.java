package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * An application's class path (issue 36): hbase-client and our jar, without hbase-server (and the
 * rest of what only servers and the minicluster need), runs {@link ClientOnlyApp} against this
 * minicluster from a JVM of its own. Before: {@code RowKeyTable.create} failed with
 * {@code NoClassDefFoundError: org/apache/hadoop/hbase/coprocessor/RegionCoprocessor}, since it
 * loaded the coprocessor classes for their names; every other test has the minicluster, and with
 * it hbase-server, on its class path.
 */
class ClientOnlyIT extends HBaseMiniClusterBase {
    /** Jars an application does not have: what only a RegionServer, a master, MapReduce or the minicluster needs. */
    static final Pattern SERVER_ONLY = Pattern.compile("(hbase-(server|testing-util|mapreduce|zookeeper|procedure|http"
            + "|replication|asyncfs|balancer)|hadoop-(hdfs|minicluster|mapreduce|yarn)|junit|opentest4j|apiguardian)[^/]*\\.jar$"
            + "|-tests\\.jar$");

    @Test
    void anApplicationWithHBaseClientAloneCreatesWritesReadsAndAggregates() throws Exception {
        String full = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> kept = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        for (String entry : full.split(File.pathSeparator)) {
            (SERVER_ONLY.matcher(entry).find() ? dropped : kept).add(entry);
        }
        assertTrue(dropped.stream().anyMatch(e -> e.contains("hbase-server")), "no hbase-server to leave out of " + full);
        assertTrue(kept.stream().anyMatch(e -> new File(e).getName().startsWith("hbase-client")), "no hbase-client in " + kept);
        ChildJvm.Outcome app = ChildJvm.run("client-only-app", ClientOnlyApp.class, Collections.emptyList(),
                String.join(File.pathSeparator, kept), Collections.emptyMap(), 300,
                conf().get("hbase.zookeeper.quorum"), conf().get("hbase.zookeeper.property.clientPort"), "client_only");
        System.out.println("ClientOnlyIT: " + kept.size() + " class path entries, " + dropped.size() + " left out; the app said:\n"
                + app.stdout);
        assertEquals(0, app.exitCode, app.describe());
        assertTrue(app.stdout.contains("class path: no hbase-server") && app.stdout.contains("OK"), app.describe());
        assertFalse(app.stdout.contains("WRONG"), app.describe());
    }
}
