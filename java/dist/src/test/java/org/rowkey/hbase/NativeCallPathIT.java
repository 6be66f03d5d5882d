package org.rowkey.hbase;

/** {@link NativeCallPathChecks} on the multi-release jar, as a RegionServer loads it. */
class NativeCallPathIT extends NativeCallPathChecks {}
