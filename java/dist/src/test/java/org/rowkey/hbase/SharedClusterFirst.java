package org.rowkey.hbase;

import java.util.Comparator;

import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order of the IT classes (junit-platform.properties): those sharing the minicluster first, so
 * it starts once, then those with a cluster of their own (the first stops the shared one), then
 * the rest, which start no cluster in this JVM; by name within each group.
 */
public final class SharedClusterFirst implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator
                .comparingInt((org.junit.jupiter.api.ClassDescriptor d) -> group(d.getTestClass()))
                .thenComparing(d -> d.getTestClass().getName()));
    }

    private static int group(Class<?> type) {
        if (!HBaseMiniClusterBase.class.isAssignableFrom(type)) {
            return 2;
        }
        return HBaseMiniClusterBase.ownCluster(type) ? 1 : 0;
    }
}
