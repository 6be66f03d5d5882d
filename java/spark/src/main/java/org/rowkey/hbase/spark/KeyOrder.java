package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.rowkey.hbase.RowKeySchema;

/**
 * An {@code ORDER BY} our reads give as they come: the first key fields (but those the conditions
 * fix to one value), in key order, each sorted as its key bytes sort or each against them, on an
 * unsalted table (a salted one sorts by bucket first). Its first {@code n} rows are then
 * {@link org.rowkey.hbase.RowKeyQuery#limit} of the query, {@link org.rowkey.hbase.RowKeyQuery#reversed}
 * when the order runs against the key. Rows equal in the ordered fields come in key order, which is
 * one of the orders Spark allows them.
 */
final class KeyOrder implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The ordered key fields, each with ASC or DESC, for explain. */
    private final List<String> words;
    /** Whether the rows are read in descending key order. */
    final boolean reversed;

    private KeyOrder(List<String> words, boolean reversed) {
        this.words = words;
        this.reversed = reversed;
    }

    /**
     * The order of {@code orders} as a read of {@code schema}'s table of the rows {@code where}
     * matches, or null when our key order is not it. A key field {@code where} fixes to one value
     * may be left out of the ORDER BY (or be in it either way): the next ordered field follows it.
     */
    static KeyOrder of(SortOrder[] orders, RowKeySchema schema, Where where) {
        if (schema.isSalted() || orders.length == 0) {
            return null;
        }
        String[] ordered = new String[orders.length];
        for (int i = 0; i < orders.length; i++) {
            ordered[i] = Where.keyField(orders[i].expression(), schema);
        }
        List<String> words = new ArrayList<>();
        Boolean reversed = null;
        int next = 0;
        for (String field : schema.fieldNames()) {
            if (next == orders.length) {
                break;
            }
            boolean fixed = where.fixes(field);
            if (!field.equals(ordered[next])) {
                if (fixed) {
                    continue;
                }
                return null;
            }
            boolean ascending = orders[next].direction() == SortDirection.ASCENDING;
            words.add(field + (ascending ? " ASC" : " DESC"));
            next++;
            if (fixed) {
                continue; // one value: either direction
            }
            boolean against = ascending != schema.ascendsWithKey(field);
            if (reversed != null && reversed != against) {
                return null;
            }
            reversed = against;
        }
        return next == orders.length ? new KeyOrder(words, reversed != null && reversed) : null;
    }

    @Override
    public String toString() {
        return "ORDER BY " + String.join(", ", words);
    }
}
