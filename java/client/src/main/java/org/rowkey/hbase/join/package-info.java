/**
 * The join kernel (docs/joins.md): sorted streams of data keys ({@link org.rowkey.hbase.join.KeyStream}),
 * their leapfrog intersection, relay, union and filter ({@link org.rowkey.hbase.join.KeyStreams}), and
 * the leaf stream over one key range ({@link org.rowkey.hbase.join.RangeKeyStream}) with what it asks
 * of a table ({@link org.rowkey.hbase.join.KeyRangeReader}). It runs in the client and refers to nothing
 * else of the library ({@code ArchitectureTest}); the client's {@code JoinScanner} feeds it HBase reads.
 * Public only so that package can use it: not part of the API.
 */
package org.rowkey.hbase.join;
