package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SkipScanFilterSpec;
import org.rowkey.hbase.proto.RowKeyProtos.TableCatalog;
import org.rowkey.hbase.proto.RowKeyProtos.WhereFilterSpec;

/**
 * A client one wire format ahead of the RegionServer, or one behind it, on every message it sends
 * a RegionServer (a comparator, a skip-scan filter, a text query, the catalog a client writes into
 * a descriptor): ahead, the request is refused with an error that names both versions; behind (an
 * older client, whose messages carry format 0: proto3's absent field), the same rows as the current
 * format. Never a wrong answer. (The aggregate request's refusal of a newer format: AggregateIT.)
 */
class MixedVersionIT extends HBaseMiniClusterBase {
    private static final byte[] F = Bytes.toBytes("f");
    private final RowKeySchema schema = RowKeySchema.builder().int32("a").int32("b").build();
    private final TableName name = TableName.valueOf("mixed_versions");
    private final int ahead = RowKeySchema.FORMAT_VERSION + 1;

    @BeforeAll
    void load() throws IOException {
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, name, schema, Arrays.asList(RowKeyIndex.of("by_b", "b")),
                    new byte[][] {schema.encode(TestData.map("a", 50, "b", 0))}, F);
        }
        try (Table t = connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int a = 0; a < 100; a++) {
                for (int b = 0; b < 10; b++) {
                    puts.add(new Put(schema.encode(TestData.map("a", a, "b", b))).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes(a * b)));
                }
            }
            t.put(puts);
        }
    }

    /** A filter list whose one filter is sent as {@code className} with {@code bytes}, whatever they hold. */
    public static final class RawFilterList extends org.apache.hadoop.hbase.filter.FilterBase {
        private final byte[] serialized;

        RawFilterList(String className, byte[] bytes) {
            serialized = FilterProtos.FilterList.newBuilder().setOperator(FilterProtos.FilterList.Operator.MUST_PASS_ALL)
                    .addFilters(FilterProtos.Filter.newBuilder().setName(className).setSerializedFilter(ByteString.copyFrom(bytes)))
                    .build().toByteArray();
        }

        @Override
        public byte[] toByteArray() {
            return serialized.clone();
        }

        /** The RegionServer reads it as the FilterList it is (a test class: the minicluster shares this JVM). */
        public static Filter parseFrom(byte[] bytes) throws DeserializationException {
            return FilterList.parseFrom(bytes);
        }
    }

    private Map<String, Integer> rows(Filter filter) throws IOException {
        Map<String, Integer> rows = new TreeMap<>();
        try (Table t = connection().getTable(name); ResultScanner rs = t.getScanner(new Scan().setFilter(filter))) {
            for (Result r : rs) {
                rows.put(Bytes.toHex(r.getRow()), Bytes.toInt(r.getValue(F, Bytes.toBytes("q"))));
            }
        }
        return rows;
    }

    /** The failure of a scan with {@code filter}: refused, not retried, naming the format it was sent and the server's. */
    private void refused(Filter filter, String what) {
        try {
            Map<String, Integer> got = rows(filter);
            throw new AssertionError(what + " of format " + ahead + " was answered: " + got.size() + " rows");
        } catch (IOException | java.io.UncheckedIOException e) {
            // The RegionServer's trace comes as the remote exception's text: the reason is in it.
            String chain = "";
            boolean doNotRetry = false;
            for (Throwable t = e; t != null; t = t.getCause()) {
                chain += t + "\n";
                doNotRetry |= t instanceof DoNotRetryIOException;
            }
            assertTrue(doNotRetry, what + ": " + chain);
            assertTrue(chain.contains("format version " + ahead) && chain.contains(Integer.toString(RowKeySchema.FORMAT_VERSION)),
                    what + ": the error names both formats: " + chain);
        }
    }

    @Test
    void aComparatorOfAnotherFormat() throws Exception {
        PredicateComparator current = RowKeyQuery.on(schema).between("a", 10, 20).eq("b", 3).toComparator();
        ComparatorSpec spec = ComparatorSpec.parseFrom(current.toByteArray());
        Map<String, Integer> want = rows(new org.apache.hadoop.hbase.filter.RowFilter(org.apache.hadoop.hbase.CompareOperator.EQUAL, current));
        assertEquals(11, want.size());
        assertEquals(want, rows(new RegionServerFaultIT.CorruptComparatorRowFilter(current,
                spec.toBuilder().setFormatVersion(0).build().toByteArray())), "an older client's comparator");
        refused(new RegionServerFaultIT.CorruptComparatorRowFilter(current, spec.toBuilder().setFormatVersion(ahead).build().toByteArray()),
                "a comparator");
    }

    @Test
    void aTextQueryOfAnotherFormat() throws Exception {
        RowKeyWhere current = new RowKeyWhere(RowKeyQuery.parse(schema, "a BETWEEN 10 AND 20 AND b = 3"));
        WhereFilterSpec spec = WhereFilterSpec.parseFrom(current.toByteArray());
        Map<String, Integer> want = rows(current);
        assertEquals(11, want.size());
        assertEquals(want, rows(new RawFilterList(RowKeyWhere.class.getName(), spec.toBuilder().setFormatVersion(0).build().toByteArray())),
                "an older client's RowKeyWhere");
        refused(new RawFilterList(RowKeyWhere.class.getName(), spec.toBuilder().setFormatVersion(ahead).build().toByteArray()),
                "a RowKeyWhere");
    }

    @Test
    void aSkipScanOfAnotherFormat() throws Exception {
        PredicateComparator predicate = RowKeyQuery.on(schema).in("a", 3, 30, 70).eq("b", 3).toComparator();
        SkipScanFilter current = SkipScanFilter.toSend(schema.spec(), ComparatorSpec.parseFrom(predicate.toByteArray()).getPredicate());
        SkipScanFilterSpec spec = SkipScanFilterSpec.parseFrom(current.toByteArray());
        Map<String, Integer> want = rows(current);
        assertEquals(3, want.size());
        assertEquals(want, rows(new RawFilterList(SkipScanFilter.class.getName(), spec.toBuilder().setFormatVersion(0).build().toByteArray())),
                "an older client's skip scan");
        refused(new RawFilterList(SkipScanFilter.class.getName(), spec.toBuilder().setFormatVersion(ahead).build().toByteArray()),
                "a skip-scan filter");
    }

    /**
     * A newer client's catalog in the descriptor (its addIndex, say): the observers cannot read it,
     * so writes are refused and text queries that need it too, naming the format; nothing is
     * written unindexed and nothing is read by a layout the server does not know.
     */
    @Test
    void aCatalogOfANewerFormatStopsWritesAndTextQueriesWithTheReason() throws Exception {
        TableName newer = TableName.valueOf("mixed_catalog");
        try (Admin admin = connection().getAdmin()) {
            RowKeyTable.create(admin, newer, schema, Arrays.asList(RowKeyIndex.of("by_b", "b")), F);
            byte[] stored = admin.getDescriptor(newer).getValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY));
            byte[] ahead = TableCatalog.parseFrom(stored).toBuilder().setFormatVersion(this.ahead).build().toByteArray();
            admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(newer)).setValue(Bytes.toBytes(Catalog.DESCRIPTOR_KEY), ahead)
                    .build());
        }
        byte[] row = schema.encode(TestData.map("a", 1, "b", 2));
        try (Table t = connection().getTable(newer)) {
            IOException write = null;
            try {
                t.put(new Put(row).addColumn(F, Bytes.toBytes("q"), Bytes.toBytes(1)));
            } catch (IOException e) {
                write = e;
            }
            assertTrue(write != null, "a write under a catalog this server cannot read was taken");
            assertTrue(String.valueOf(write).contains("format version " + ahead) || causes(write).contains("format version " + ahead),
                    causes(write));
            assertFalse(t.exists(new org.apache.hadoop.hbase.client.Get(row)), "nothing written");
            IOException read = null;
            try (ResultScanner rs = t.getScanner(new Scan().setFilter(new RowKeyWhere("b = 2")))) {
                rs.next();
            } catch (IOException e) {
                read = e;
            }
            assertTrue(read != null && causes(read).contains("format version " + ahead), String.valueOf(read));
        }
    }

    private static String causes(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            s.append(t).append('\n');
        }
        return s.toString();
    }
}
