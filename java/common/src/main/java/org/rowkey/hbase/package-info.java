/**
 * Native row-key schemas, comparators, scan planning, secondary indexes, joins and aggregates for
 * Apache HBase. The public API: {@link org.rowkey.hbase.RowKeySchema}, {@link org.rowkey.hbase.RowKeyQuery},
 * {@link org.rowkey.hbase.RowKeyTable}, {@link org.rowkey.hbase.RowKeyIndex},
 * {@link org.rowkey.hbase.Aggregation}, the comparators and filters.
 *
 * <p>The package spans the Maven modules of {@code java/}, one per place its code runs:
 * {@code common} (every JVM that loads the jar), {@code client}, {@code regionserver} and
 * {@code mapreduce}; each class also says where it runs with {@code @RunsIn}, and
 * {@code ArchitectureTest} checks both agree (docs/design.md, "The picture: what runs where").
 */
package org.rowkey.hbase;
