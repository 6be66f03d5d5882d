package org.rowkey.hbase;

import org.junit.jupiter.api.Test;

/** {@link PredicateComparator#parseFrom} on untrusted bytes: see {@link ParseFromHarness}. */
class PredicateComparatorParseFromTest {
    @Test
    void refusesCorruptBytesCleanly() {
        ParseFromHarness.assertRefusesCorruptBytesCleanly(ParseFromHarness.Parser.PREDICATE);
    }
}
