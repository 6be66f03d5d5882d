package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The cluster ITs' guard: Hadoop before 3.4.3 on Java 24+ fails at once, naming the fix. */
class HadoopForJavaCheckTest {

    @Test
    void oldHadoopOnJava24PlusFailsNamingTheFix() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HBaseMiniClusterBase.requireHadoopForThisJava(25, "2.10.2"));
        assertTrue(e.getMessage().contains("Hadoop 2.10.2") && e.getMessage().contains("-Phadoop-3.4"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> HBaseMiniClusterBase.requireHadoopForThisJava(24, "3.4.2"));
    }

    @Test
    void newHadoopOrOlderJavaPass() {
        assertDoesNotThrow(() -> HBaseMiniClusterBase.requireHadoopForThisJava(25, "3.4.3"));
        assertDoesNotThrow(() -> HBaseMiniClusterBase.requireHadoopForThisJava(25, "3.5.0-SNAPSHOT"));
        assertDoesNotThrow(() -> HBaseMiniClusterBase.requireHadoopForThisJava(23, "2.10.2"));
        assertDoesNotThrow(() -> HBaseMiniClusterBase.requireHadoopForThisJava(11, "2.10.2"));
    }

    @Test
    void versionsCompareNumerically() {
        assertTrue(HBaseMiniClusterBase.compareVersions("3.10.0", "3.4.3") > 0);
        assertTrue(HBaseMiniClusterBase.compareVersions("2.10.2", "3.4.3") < 0);
        assertEquals(0, HBaseMiniClusterBase.compareVersions("3.4.3", "3.4.3"));
        assertEquals(0, HBaseMiniClusterBase.compareVersions("3.4", "3.4.0"));
    }
}
