/**
 * Native row-key schemas, comparators, scan planning, secondary indexes, joins and aggregates for
 * Apache HBase. The public API: {@link org.rowkey.hbase.RowKeySchema}, {@link org.rowkey.hbase.RowKeyQuery},
 * {@link org.rowkey.hbase.RowKeyTable}, {@link org.rowkey.hbase.RowKeyIndex},
 * {@link org.rowkey.hbase.Aggregation}, the comparators and filters.
 *
 * <p>Every class says where it runs with {@code @RunsIn} (checked by {@code ArchitectureTest}):
 * <table>
 * <caption>Where the classes run</caption>
 * <tr><th>runs in</th><th>classes</th></tr>
 * <tr><td>a RegionServer (HBase loads them from {@code lib/})</td><td>the comparators
 * ({@code EqualComparator}, {@code RangeComparator}, {@code PredicateComparator}, {@code NativeComparator}),
 * the filters ({@code SkipScanFilter} with its {@code SeekPolicy}, {@code RowBudgetFilter},
 * {@code RowKeyWhere} with {@code RangesThenRows}), the coprocessors ({@code RowKeyIndexObserver}, {@code RowKeyScanObserver})</td></tr>
 * <tr><td>both sides</td><td>{@code RowKeySchema}, {@code RowKeyQuery}, {@code ScanPlanner}, {@code KeySeeker},
 * {@code Catalog}, {@code RowKeyIndex}, {@code IndexRowFormat}, {@code IndexCoverage}, {@code Values},
 * {@code NativeAggregator}, {@code FoldBatch}, {@code BoundedPool}</td></tr>
 * <tr><td>the native bridge (in every JVM that loads the jar)</td><td>{@code RowKeyNative} (the natives
 * several classes call; {@code KeySeeker} and {@code NativeAggregator} declare their own), {@code NativeLoader}, {@code NativeHandle}, {@code NativeCleaner}, {@code RowCalls},
 * {@code RowMemory}</td></tr>
 * <tr><td>the client</td><td>{@code RowKeyTable}, {@code QueryPlan}, {@code ParallelScanner}, {@code IndexResultScanner},
 * {@code IndexRowRepair}, the joins ({@code JoinPlanner}, {@code JoinPlan}, {@code JoinScanner},
 * {@code TableKeyRangeReader}, and the join kernel of {@link org.rowkey.hbase.join}: {@code KeyStream},
 * {@code KeyStreams}, {@code RangeKeyStream}, {@code KeyRangeReader}),
 * {@code AggregateReader}, {@code Aggregation}, {@code AggregationResult}, {@code RowKeyCli}</td></tr>
 * <tr><td>MapReduce tasks</td><td>{@code IndexBackfill}, {@code BulkLoad}, {@code LoadMapping},
 * {@code InputRecords}, {@code SplitSampler}</td></tr>
 * </table>
 */
package org.rowkey.hbase;
