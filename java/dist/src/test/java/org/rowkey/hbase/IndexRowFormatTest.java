package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The index row layout ({@link IndexRowFormat}), without a cluster. */
class IndexRowFormatTest {
    private static final byte[] ROW = Bytes.toBytes("row");

    private static Cell cell(byte[] family, byte[] qualifier, long timestamp, String value) {
        return CellUtil.createCell(ROW, family, qualifier, timestamp, KeyValue.Type.Put.getCode(), Bytes.toBytes(value));
    }

    @Test
    void anIndexRowsCellIsItsNewestUnderTheQualifierInTheIndexFamilyAsResultFindsIt() {
        byte[] covered = IndexRowFormat.coveredQualifier(Bytes.toBytes("f"), Bytes.toBytes("url"));
        byte[] other = IndexRowFormat.coveredQualifier(Bytes.toBytes("f"), Bytes.toBytes("q"));
        Cell[] cells = {
            cell(IndexRowFormat.FAMILY, covered, 9, "newest"),
            cell(IndexRowFormat.FAMILY, covered, 5, "older"),
            cell(IndexRowFormat.FAMILY, other, 7, "other"),
            cell(IndexRowFormat.FAMILY, IndexRowFormat.STATUS, 9, "s"),
            cell(Bytes.toBytes("z"), IndexRowFormat.STATUS, 9, "another family"),
        };
        Arrays.sort(cells, org.apache.hadoop.hbase.CellComparator.getInstance());
        Result row = Result.create(cells);
        for (byte[] qualifier : new byte[][] {covered, other, IndexRowFormat.STATUS, Bytes.toBytes("none")}) {
            assertEquals(row.getColumnLatestCell(IndexRowFormat.FAMILY, qualifier),
                    IndexRowFormat.indexCell(row, qualifier), Bytes.toStringBinary(qualifier));
        }
        assertEquals("newest", Bytes.toString(CellUtil.cloneValue(IndexRowFormat.indexCell(row, covered))));
        assertEquals("s", Bytes.toString(CellUtil.cloneValue(IndexRowFormat.status(row))));
        assertNull(IndexRowFormat.status(Result.EMPTY_RESULT));
        assertNull(IndexRowFormat.status(Result.create(new Cell[0])));
    }
    @Test
    void aStatusWrittenDuringABulkLoadIsRepairedOnlyOnceTheLoadsDataIsInTheRow() {
        long load = 1_795_641_179_267L;
        byte[] during = IndexRowFormat.unverifiedDuringLoad(1_795_641_000_000_123L, load);
        assertEquals(load, IndexRowFormat.loadOf(during));
        assertEquals(-1, IndexRowFormat.unverifiedSince(during), "never marked STALE by age");
        assertTrue(IndexRowFormat.isUnverified(CellUtil.createCell(ROW, IndexRowFormat.FAMILY, IndexRowFormat.STATUS, 9,
                KeyValue.Type.Put.getCode(), during)), "read as UNVERIFIED by every reader");
        byte[] plain = IndexRowFormat.unverified(1_795_641_000_000_123L);
        assertEquals(-1, IndexRowFormat.loadOf(plain));
        assertEquals(-1, IndexRowFormat.loadOf(IndexRowFormat.VERIFIED));

        byte[] f = Bytes.toBytes("f");
        Result liveOnly = Result.create(new Cell[] {cell(f, Bytes.toBytes("url"), load + 5, "live")});
        Result landed = Result.create(new Cell[] {cell(f, Bytes.toBytes("a"), load, "loaded"),
            cell(f, Bytes.toBytes("url"), load + 5, "live")});
        assertFalse(IndexRowRepair.loadLanded(during, liveOnly), "the load's cells may land later: no copy yet");
        assertTrue(IndexRowRepair.loadLanded(during, landed));
        assertTrue(IndexRowRepair.loadLanded(plain, liveOnly), "outside a load, any row read is the row");
    }

    @Test
    void aReadersRepairOfARowWithItsOwnTtlIsExpiringSinceTheStatusWasWritten() throws Exception {
        long stamp = 1_795_641_000_000_123L; // microseconds
        byte[] row = Bytes.toBytes("index row");
        Cell status = CellUtil.createCell(row, IndexRowFormat.FAMILY, IndexRowFormat.STATUS, stamp,
                KeyValue.Type.Put.getCode(), IndexRowFormat.unverified(stamp));
        byte[] f = Bytes.toBytes("f");
        Cell data = cell(f, Bytes.toBytes("url"), 5, "x");
        Cell marker = IndexRowFormat.probeMarker(ROW, f, java.util.Collections.<Cell>emptyList(), false);
        assertNull(marker, "no TTL tag: no marker");
        Result probed = Result.create(new Cell[] {data, new KeyValue(ROW, f, IndexRowFormat.PROBE_QUALIFIER,
                org.apache.hadoop.hbase.HConstants.LATEST_TIMESTAMP, KeyValue.Type.Put, new byte[] {IndexRowFormat.PROBE_EXPIRES})});
        IndexRowRepair repair = new IndexRowRepair(IndexCoverage.of(org.rowkey.hbase.proto.RowKeyProtos.IndexSpec.getDefaultInstance()),
                new org.apache.hadoop.conf.Configuration(false));
        org.apache.hadoop.hbase.client.Put put = (org.apache.hadoop.hbase.client.Put) repair.settle(row, status, probed).get().getAction();
        byte[] written = CellUtil.cloneValue(put.get(IndexRowFormat.FAMILY, IndexRowFormat.STATUS).get(0));
        assertTrue(IndexRowFormat.isExpiring(written));
        // Before the fix the repair wrote the milliseconds where microseconds go: "since" read as 1970.
        assertEquals(stamp / 1_000, IndexRowFormat.unverifiedSince(written));
    }

    @Test
    void coveredQualifiersNeverMeetTheStatusOrEachOther() {
        // Every family:qualifier split of the same bytes, and families of 1 and 127 bytes.
        Set<String> seen = new HashSet<>();
        seen.add(Bytes.toHex(IndexRowFormat.STATUS));
        String joined = "fqs";
        for (int cut = 1; cut <= joined.length(); cut++) {
            byte[] q = IndexRowFormat.coveredQualifier(Bytes.toBytes(joined.substring(0, cut)),
                    Bytes.toBytes(joined.substring(cut)));
            assertTrue(q.length >= 2);
            assertTrue(seen.add(Bytes.toHex(q)), "a second column with qualifier " + Bytes.toHex(q));
        }
        byte[] longest = IndexRowFormat.coveredQualifier(new byte[127], new byte[0]);
        assertEquals(127, longest[0]);
        assertFalse(seen.contains(Bytes.toHex(longest)));
    }

    @Test
    void aWholeRowHoldsEachCoveredDataCellOrItsAbsenceAtTheIndexsStamp() {
        byte[] f = Bytes.toBytes("f");
        java.util.List<org.rowkey.hbase.proto.RowKeyProtos.Column> columns = java.util.Arrays.asList(
                org.rowkey.hbase.proto.RowKeyProtos.Column.newBuilder().setFamily(com.google.protobuf.ByteString.copyFrom(f))
                        .setQualifier(com.google.protobuf.ByteString.copyFromUtf8("q")).build(),
                org.rowkey.hbase.proto.RowKeyProtos.Column.newBuilder().setFamily(com.google.protobuf.ByteString.copyFrom(f))
                        .setQualifier(com.google.protobuf.ByteString.copyFromUtf8("empty")).build(),
                org.rowkey.hbase.proto.RowKeyProtos.Column.newBuilder().setFamily(com.google.protobuf.ByteString.copyFrom(f))
                        .setQualifier(com.google.protobuf.ByteString.copyFromUtf8("missing")).build());
        java.util.List<IndexRowFormat.CoveredColumn> covered = IndexRowFormat.CoveredColumn.of(columns);
        Result data = Result.create(new Cell[] {
            cell(f, Bytes.toBytes("empty"), 3, ""),
            cell(f, Bytes.toBytes("q"), 42, "value"),
        });
        org.apache.hadoop.hbase.client.Put put = IndexRowFormat.wholeRow(Bytes.toBytes("ix"), 1000, IndexRowFormat.VERIFIED,
                IndexCoverage.of(org.rowkey.hbase.proto.RowKeyProtos.IndexSpec.newBuilder().setName("ix").addFields("a")
                        .addAllInclude(columns).build()), data);
        java.util.List<Cell> cells = new java.util.ArrayList<>();
        put.getFamilyCellMap().values().forEach(cells::addAll);
        Cell[] sorted = cells.toArray(new Cell[0]);
        Arrays.sort(sorted, org.apache.hadoop.hbase.CellComparator.getInstance());
        Result indexRow = Result.create(sorted);
        for (Cell c : sorted) {
            assertEquals(1000, c.getTimestamp(), "every cell of a whole row at the index's stamp");
        }
        assertEquals(4, sorted.length);
        byte[] dataKey = Bytes.toBytes("data");
        for (IndexRowFormat.CoveredColumn c : covered) {
            Cell back = IndexRowFormat.dataCell(IndexRowFormat.indexCell(indexRow, c.inIndex), dataKey, c);
            Cell original = data.getColumnLatestCell(c.family, c.qualifier);
            if (original == null) {
                assertNull(back, "an absent column stays absent");
                assertTrue(IndexRowFormat.indexCell(indexRow, c.inIndex) != null, "and its absence is written");
            } else {
                assertEquals(original.getTimestamp(), back.getTimestamp());
                assertTrue(CellUtil.matchingValue(original, back));
                assertTrue(CellUtil.matchingColumn(back, c.family, c.qualifier));
                assertTrue(CellUtil.matchingRows(back, dataKey));
            }
        }
    }

    @Test
    void aDataCellAnsweredFromACoveredCellIsTheDataCellItsCopyWasWrittenFrom() throws java.io.IOException {
        java.util.Random random = new java.util.Random(20261205);
        for (int i = 0; i < 500; i++) {
            byte[] family = randomBytes(random, 1 + random.nextInt(12));
            byte[] qualifier = randomBytes(random, random.nextInt(20));
            byte[] dataKey = randomBytes(random, 1 + random.nextInt(40));
            KeyValue original = new KeyValue(dataKey, family, qualifier, random.nextLong() & Long.MAX_VALUE,
                    KeyValue.Type.Put, randomBytes(random, random.nextInt(300)));
            // The covered cell at a non-zero offset in a larger array, so no offset is taken for granted.
            KeyValue copy = new KeyValue(randomBytes(random, 1 + random.nextInt(40)), IndexRowFormat.FAMILY,
                    IndexRowFormat.coveredQualifier(family, qualifier), 1000, KeyValue.Type.Put,
                    IndexRowFormat.coveredValue(original));
            byte[] block = new byte[copy.getLength() + 64];
            int at = random.nextInt(64);
            System.arraycopy(copy.getBuffer(), copy.getOffset(), block, at, copy.getLength());
            Cell back = IndexRowFormat.dataCell(new KeyValue(block, at, copy.getLength()), family.length, dataKey);

            String what = original.toString();
            assertEquals(0, org.apache.hadoop.hbase.CellComparator.getInstance().compare(original, back), what);
            assertTrue(CellUtil.matchingValue(original, back), what);
            assertEquals(original, back, what);
            assertEquals(back, original, what);
            assertEquals(original.hashCode(), back.hashCode(), what);
            assertEquals(original.getSerializedSize(), back.getSerializedSize(), what);
            assertEquals(original.toString(), back.toString());
            assertTrue(Bytes.equals(original.getBuffer(), original.getOffset(), original.getLength(),
                    org.apache.hadoop.hbase.KeyValueUtil.copyToNewByteArray(back), 0, original.getLength()), what);
            assertTrue(Bytes.equals(CellUtil.cloneValue(original),
                    Result.create(new Cell[] {back}).getValue(family, qualifier)), what);
            // What a client writing the cell back sends over the wire.
            java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
            new org.apache.hadoop.hbase.codec.KeyValueCodec().getEncoder(wire).write(back);
            org.apache.hadoop.hbase.codec.Codec.Decoder decoder = new org.apache.hadoop.hbase.codec.KeyValueCodec()
                    .getDecoder(new java.io.ByteArrayInputStream(wire.toByteArray()));
            assertTrue(decoder.advance(), what);
            assertEquals(original, decoder.current(), what);
            assertTrue(CellUtil.matchingValue(original, decoder.current()), what);
        }
    }

    private static byte[] randomBytes(java.util.Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
