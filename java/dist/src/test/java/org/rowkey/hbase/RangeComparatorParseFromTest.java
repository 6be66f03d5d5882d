package org.rowkey.hbase;

import org.junit.jupiter.api.Test;

/** {@link RangeComparator#parseFrom} on untrusted bytes: see {@link ParseFromHarness}. */
class RangeComparatorParseFromTest {
    @Test
    void refusesCorruptBytesCleanly() {
        ParseFromHarness.assertRefusesCorruptBytesCleanly(ParseFromHarness.Parser.RANGE);
    }
}
