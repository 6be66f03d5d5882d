package org.rowkey.hbase.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.rowkey.hbase.RowKeySchema;

/**
 * An {@code ORDER BY} our reads give as they come: the first key fields, in key order, each sorted
 * as its key bytes sort or each against them, on an unsalted table (a salted one sorts by bucket
 * first). Its first {@code n} rows are then {@link org.rowkey.hbase.RowKeyQuery#limit} of the query,
 * {@link org.rowkey.hbase.RowKeyQuery#reversed} when the order runs against the key. Rows equal
 * in the ordered fields come in key order, which is one of the orders Spark allows them.
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

    /** The order of {@code orders} as a read of {@code schema}'s table, or null when our key order is not it. */
    static KeyOrder of(SortOrder[] orders, RowKeySchema schema) {
        List<String> fields = schema.fieldNames();
        if (schema.isSalted() || orders.length == 0 || orders.length > fields.size()) {
            return null;
        }
        List<String> words = new ArrayList<>();
        Boolean reversed = null;
        for (int i = 0; i < orders.length; i++) {
            if (!(orders[i].expression() instanceof NamedReference)) {
                return null;
            }
            String[] name = ((NamedReference) orders[i].expression()).fieldNames();
            if (name.length != 1 || !name[0].equals(fields.get(i))) {
                return null;
            }
            boolean ascending = orders[i].direction() == SortDirection.ASCENDING;
            boolean against = ascending != schema.ascendsWithKey(name[0]);
            if (reversed != null && reversed != against) {
                return null;
            }
            reversed = against;
            words.add(name[0] + (ascending ? " ASC" : " DESC"));
        }
        return new KeyOrder(words, reversed);
    }

    @Override
    public String toString() {
        return "ORDER BY " + String.join(", ", words);
    }
}
