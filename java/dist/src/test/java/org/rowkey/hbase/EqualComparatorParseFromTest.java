package org.rowkey.hbase;

import org.junit.jupiter.api.Test;

/** {@link EqualComparator#parseFrom} on untrusted bytes: see {@link ParseFromHarness}. */
class EqualComparatorParseFromTest {
    @Test
    void refusesCorruptBytesCleanly() {
        ParseFromHarness.assertRefusesCorruptBytesCleanly(ParseFromHarness.Parser.EQUAL);
    }
}
