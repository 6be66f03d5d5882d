package org.rowkey.hbase;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Where a class of this package runs. Every top-level class carries it, and {@code ArchitectureTest}
 * checks the direction of the dependencies: what a RegionServer loads never needs the client's
 * classes, and the shared and native-bridge classes need neither.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@RunsIn(RunsIn.Where.SHARED)
public @interface RunsIn {
    Where value();

    enum Where {
        /** Loaded by a RegionServer: filters, comparators and coprocessors (and what only they use). */
        REGION_SERVER,
        /** Used on both sides: schemas, queries, the catalog and the index row format. */
        SHARED,
        /** The native library: loading it, its handles and its entry points. */
        NATIVE_BRIDGE,
        /** The client: tables, planners, readers, joins and the command line. */
        CLIENT,
        /** MapReduce jobs: index backfill and bulk load (their tasks run the client's code too). */
        MAPREDUCE
    }
}
