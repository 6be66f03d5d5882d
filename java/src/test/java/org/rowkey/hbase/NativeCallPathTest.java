package org.rowkey.hbase;

/** {@link NativeCallPathChecks} on target/classes (+ META-INF/versions/22 on Java 22+). */
class NativeCallPathTest extends NativeCallPathChecks {}
