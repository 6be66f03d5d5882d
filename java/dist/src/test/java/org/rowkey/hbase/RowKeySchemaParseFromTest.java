package org.rowkey.hbase;

import org.junit.jupiter.api.Test;

/** {@link RowKeySchema#parseFrom} on untrusted bytes: see {@link ParseFromHarness}. */
class RowKeySchemaParseFromTest {
    @Test
    void refusesCorruptBytesCleanly() {
        ParseFromHarness.assertRefusesCorruptBytesCleanly(ParseFromHarness.Parser.SCHEMA);
    }
}
