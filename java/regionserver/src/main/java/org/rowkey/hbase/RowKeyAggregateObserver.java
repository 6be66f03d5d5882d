package org.rowkey.hbase;

/**
 * The name tables made by hbase-rowkey 0.1 give {@link RowKeyScanObserver} in their descriptors (it
 * was the aggregate observer then; the filter language's binding has joined it since). The same
 * observer under its old name, so that those tables open with a new jar; {@link RowKeyTable} treats
 * either name as the scan observer and never installs both.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class RowKeyAggregateObserver extends RowKeyScanObserver {
}
