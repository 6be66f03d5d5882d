package org.rowkey.hbase;

import java.util.Objects;

import org.apache.hadoop.hbase.exceptions.DeserializationException;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;

/**
 * Matches the row keys that satisfy a whole {@link RowKeyQuery} (its conditions AND-ed), in one
 * native call per row. Use it with {@code CompareOperator.EQUAL}:
 *
 * <pre>{@code
 * RowKeyQuery.on(schema).eq("code", 404).between("sdate", 20161201, 20161209).in("type", 1, 2).toComparator()
 * }</pre>
 *
 * {@link #compareTo(byte[], int, int)} returns 0 for a match and 1 otherwise, so
 * {@code NOT_EQUAL} keeps the complement. A row of the wrong length never matches.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class PredicateComparator extends NativeComparator {

    /** The comparator of {@code query}; the same as {@link RowKeyQuery#toComparator()}. */
    public PredicateComparator(RowKeyQuery query) {
        super(compile("PredicateComparator", Objects.requireNonNull(query, "query").toComparatorSpec().toByteArray()));
    }

    private PredicateComparator(Compiled compiled) {
        super(compiled);
    }

    /** The comparator of a predicate compiled by the native core elsewhere (a skip scan's): its handle adopted. */
    static PredicateComparator adopt(long pointer) {
        return new PredicateComparator(adopt("PredicateComparator", pointer));
    }

    /**
     * The comparator serialized by {@link #toByteArray()}.
     *
     * @throws DeserializationException for any bad input: null, corrupt or truncated bytes, another
     *     comparator kind, a spec the native core refuses
     */
    public static PredicateComparator parseFrom(byte[] bytes) throws DeserializationException {
        return new PredicateComparator(parse(PredicateComparator.class, ComparatorSpec.KindCase.PREDICATE, bytes));
    }
}
