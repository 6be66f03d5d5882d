package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/** Index definitions and the catalog from Java: checked natively, keys mapped both ways. */
class RowKeyIndexTest {
    private final RowKeySchema schema = TestData.seedSchema();

    private Map<String, Object> row(int code, int sdate) {
        return TestData.map("md5url", "http://a/" + sdate, "sitecode", "site", "status", -1, "code", code,
                "sdate", sdate, "type", 2, "free", true, "close", false, "queue", 1, "scantype", 0);
    }

    @Test
    void anIndexKeyPutsTheIndexFieldsFirstAndMapsBack() {
        Catalog catalog = Catalog.of(schema,
                Collections.singletonList(RowKeyIndex.of("by_date_code", "sdate", "code").salt(4).include("f", "q")),
                IndexState.ACTIVE);
        assertEquals(0, catalog.indexNumber("by_date_code"));
        assertEquals(-1, catalog.indexNumber("nope"));
        RowKeySchema index = catalog.indexSchema(0);
        assertEquals(Arrays.asList("sdate", "code", "md5url", "sitecode", "status", "type", "free", "close", "queue",
                "scantype"), index.fieldNames());
        assertEquals(schema.keyLength() + 1, index.keyLength()); // the index salt byte
        byte[] dataKey = schema.encode(row(404, 20161209));
        byte[] indexKey = catalog.indexKey(0, dataKey);
        // The index key holds the same values: they encode back to the data key.
        assertArrayEquals(dataKey, schema.encode(index.decode(indexKey)));
        assertArrayEquals(dataKey, catalog.dataKey(0, indexKey));
        // A batch maps as its keys one by one, with one native call.
        byte[] other = schema.encode(row(503, 20161231));
        byte[][] batch = catalog.dataKeys(0, Arrays.asList(indexKey, catalog.indexKey(0, other), indexKey));
        assertEquals(3, batch.length);
        assertArrayEquals(dataKey, batch[0]);
        assertArrayEquals(other, batch[1]);
        assertArrayEquals(dataKey, batch[2]);
        assertEquals(0, catalog.dataKeys(0, Collections.emptyList()).length);
        // The catalog survives its bytes (what a table descriptor stores).
        Catalog again = Catalog.parse(catalog.toByteArray());
        assertArrayEquals(catalog.toByteArray(), again.toByteArray());
        assertArrayEquals(indexKey, again.indexKey(0, dataKey));
    }

    @Test
    void badDefinitionsAreRefusedByName() {
        String[][] cases = {
            {"unknown", "invalid index 'ix': unknown field 'nope' (fields: md5url, sitecode,"},
            {"twice", "invalid index 'ix': field 'code' is named twice"},
            {"empty", "invalid index 'ix': it has no field"},
            {"prefix", "lead the data key in the same order"},
            {"name", "only letters, digits and '_'"},
        };
        for (String[] c : cases) {
            RowKeyIndex index;
            switch (c[0]) {
                case "unknown": index = RowKeyIndex.of("ix", "sdate", "nope"); break;
                case "twice": index = RowKeyIndex.of("ix", "code", "code"); break;
                case "empty": index = RowKeyIndex.of("ix"); break;
                case "prefix": index = RowKeyIndex.of("ix", "md5url", "sitecode"); break;
                default: index = RowKeyIndex.of("by-date", "sdate"); break;
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Catalog.of(schema, Collections.singletonList(index), IndexState.ACTIVE));
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
        }
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> Catalog.of(schema,
                Arrays.asList(RowKeyIndex.of("ix", "sdate"), RowKeyIndex.of("ix", "code")), IndexState.ACTIVE));
        assertTrue(twice.getMessage().contains("declared twice"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RowKeyIndex.of("ix", "sdate").salt(0));
        assertThrows(IllegalArgumentException.class, () -> RowKeyIndex.of("ix", "sdate").salt(257));
    }

    @Test
    void corruptCatalogBytesAreRefusedByName() {
        assertThrows(IllegalArgumentException.class, () -> Catalog.parse(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Catalog.parse(new byte[] {0x12, 0x05}));
        assertTrue(e.getMessage().contains("corrupt serialized table catalog"), e.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Catalog.parse(new byte[] {(byte) 0xf8, 0x07, 0x01}));
        assertTrue(unknown.getMessage().contains("unknown to this version"), unknown.getMessage());
        // A key of another length than the index's or the data's: refused, not mis-mapped.
        Catalog catalog = Catalog.of(schema, Collections.singletonList(RowKeyIndex.of("ix", "sdate")), IndexState.ACTIVE);
        assertThrows(IllegalArgumentException.class, () -> catalog.indexKey(0, new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> catalog.dataKey(1, new byte[3]));
        // In a batch, a key the index could not have written (a wrong length, a corrupt salt byte)
        // maps to null, the others as they are: readers skip it instead of failing the query.
        byte[] good = catalog.indexKey(0, schema.encode(row(404, 20161209)));
        assertArrayEquals(new byte[][] {null, null}, catalog.dataKeys(0, Arrays.asList(new byte[3], new byte[3])));
        byte[][] mixed = catalog.dataKeys(0, Arrays.asList(good, new byte[3]));
        assertArrayEquals(schema.encode(row(404, 20161209)), mixed[0]);
        assertNull(mixed[1]);
        Catalog salted = Catalog.of(schema, Collections.singletonList(RowKeyIndex.of("ix", "sdate").salt(4)), IndexState.ACTIVE);
        byte[] saltedKey = salted.indexKey(0, schema.encode(row(404, 20161209)));
        byte[] corrupt = saltedKey.clone();
        corrupt[0] ^= 0x01;
        byte[][] some = salted.dataKeys(0, Arrays.asList(saltedKey, corrupt));
        assertArrayEquals(schema.encode(row(404, 20161209)), some[0]);
        assertNull(some[1]);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> salted.dataKey(0, corrupt));
        assertTrue(bad.getMessage().contains("salt byte does not match"), bad.getMessage());
        assertNull(salted.dataKeyOrNull(0, corrupt));
    }
}
