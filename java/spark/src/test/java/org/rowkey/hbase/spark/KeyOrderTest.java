package org.rowkey.hbase.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.junit.jupiter.api.Test;
import org.rowkey.hbase.RowKeySchema;

/** Which ORDER BYs our key order gives, and in which direction the rows are then read. */
class KeyOrderTest {
    private static final RowKeySchema PLAIN = RowKeySchema.builder().int32("day").fixedString("tag", 3).md5("url", 4)
            .reversedTimestamp("at").int64("user").descending().build();

    private static SortOrder asc(String field) {
        return Expressions.sort(Expressions.column(field), SortDirection.ASCENDING);
    }

    private static SortOrder desc(String field) {
        return Expressions.sort(Expressions.column(field), SortDirection.DESCENDING);
    }

    private static String read(RowKeySchema schema, SortOrder... orders) {
        return read(schema, Where.all(), orders);
    }

    private static String read(RowKeySchema schema, Where where, SortOrder... orders) {
        KeyOrder order = KeyOrder.of(orders, schema, where);
        return order == null ? null : order + (order.reversed ? " read backwards" : " read forwards");
    }

    @Test
    void theFirstKeyFieldsAllWithTheKeyOrAllAgainstItAreOurOrder() {
        assertEquals("ORDER BY day ASC read forwards", read(PLAIN, asc("day")));
        assertEquals("ORDER BY day DESC, tag DESC, url DESC read backwards", read(PLAIN, desc("day"), desc("tag"), desc("url")));
        // A reversed timestamp and a descending field sort against their values.
        assertEquals("ORDER BY day ASC, tag ASC, url ASC, at DESC, user DESC read forwards",
                read(PLAIN, asc("day"), asc("tag"), asc("url"), desc("at"), desc("user")));
        assertEquals("ORDER BY day DESC, tag DESC, url DESC, at ASC read backwards",
                read(PLAIN, desc("day"), desc("tag"), desc("url"), asc("at")));
    }

    @Test
    void aFieldTheConditionsFixToOneValueMayBeLeftOutOrGoEitherWay() {
        Where day5 = Where.single(new Condition(Condition.Op.EQ, "day", 5));
        Where tagA = Where.single(new Condition(Condition.Op.IN, "tag", "a"));
        assertEquals("ORDER BY tag DESC read backwards", read(PLAIN, day5, desc("tag")));
        assertEquals("ORDER BY url ASC read forwards", read(PLAIN, day5.and(tagA), asc("url")));
        assertEquals("ORDER BY day ASC, tag DESC read backwards", read(PLAIN, day5, asc("day"), desc("tag")));
        assertEquals("ORDER BY day DESC read forwards", read(PLAIN, day5, desc("day")));
        // The same value in both branches of an OR; another value, or a branch without it, is not fixed.
        assertEquals("ORDER BY tag ASC read forwards", read(PLAIN, day5.and(tagA).or(day5), asc("tag")));
        assertNull(read(PLAIN, day5.or(Where.single(new Condition(Condition.Op.EQ, "day", 6))), asc("tag")));
        assertNull(read(PLAIN, day5.or(tagA), asc("tag")));
        assertNull(read(PLAIN, Where.single(new Condition(Condition.Op.GE, "day", 5)), asc("tag")), "a range fixes nothing");
        assertNull(read(PLAIN, day5, asc("url")), "tag skipped, not fixed");
    }

    @Test
    void anythingElseIsLeftToSpark() {
        assertNull(read(PLAIN, asc("tag")), "not the first field");
        assertNull(read(PLAIN, asc("day"), asc("url")), "a field skipped");
        assertNull(read(PLAIN, asc("day"), desc("tag")), "one field with the key, the next against it");
        assertNull(read(PLAIN, asc("day"), asc("tag"), asc("url"), asc("at")), "a reversed timestamp ascending after ascending fields");
        assertNull(read(PLAIN, asc("v")), "a cell");
        assertNull(read(PLAIN), "no order");
        RowKeySchema salted = RowKeySchema.builder().int32("day").int64("user").salt(4, "user").build();
        assertNull(read(salted, asc("day")), "a salted table sorts by bucket first");
    }
}
