package org.rowkey.hbase;

import java.util.Objects;

import org.apache.hadoop.hbase.exceptions.DeserializationException;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.RangeComparatorSpec;

/**
 * Compares one field of the row key with a constant, in value order, for any of HBase's six
 * {@code CompareOperator}s:
 *
 * <pre>{@code
 * new RowFilter(CompareOperator.GREATER, new RangeComparator(schema, "sdate", 20161201))  // sdate > 20161201
 * }</pre>
 *
 * {@link #compareTo(byte[], int, int)} is {@code sign(value <=> row.field)} in value order
 * (negative numbers, MIN/MAX values, descending fields and reversed timestamps included), so a
 * {@code RowFilter} with operator {@code op} keeps exactly the rows where {@code field op value}:
 * LESS keeps result &gt; 0 (field &lt; value), LESS_OR_EQUAL result &ge; 0, EQUAL result = 0,
 * NOT_EQUAL result &ne; 0, GREATER_OR_EQUAL result &le; 0, GREATER result &lt; 0.
 *
 * <p>A row of the wrong length is treated as sorting below every value (result +1): it is kept
 * by LESS, LESS_OR_EQUAL and NOT_EQUAL and dropped by EQUAL, GREATER_OR_EQUAL and GREATER.
 *
 * <p>Several range conditions: one RangeComparator per condition in a {@code FilterList}, or
 * one {@link RowKeyQuery} ({@link PredicateComparator}), evaluated in a single call per row.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class RangeComparator extends NativeComparator {

    /**
     * @param field an int32, int64, timestamp, reversed timestamp, fixed string or fixed bytes field
     * @param value converted by the field's type (see {@link RowKeySchema#encode})
     * @throws IllegalArgumentException for an unknown field, a hashed or bool field (no order),
     *     a wrong value type or an out-of-range value
     */
    public RangeComparator(RowKeySchema schema, String field, Object value) {
        super(compile("RangeComparator", schema, spec(schema, field, value)));
    }

    private RangeComparator(Compiled compiled) {
        super(compiled);
    }

    /**
     * The comparator serialized by {@link #toByteArray()}.
     *
     * @throws DeserializationException for any bad input: null, corrupt or truncated bytes, another
     *     comparator kind, a spec the native core refuses
     */
    public static RangeComparator parseFrom(byte[] bytes) throws DeserializationException {
        return new RangeComparator(parse(RangeComparator.class, ComparatorSpec.KindCase.RANGE, bytes));
    }

    private static ComparatorSpec.Builder spec(RowKeySchema schema, String field, Object value) {
        Objects.requireNonNull(schema, "schema");
        FieldSpec f = schema.field(field);
        return ComparatorSpec.newBuilder().setRange(
                RangeComparatorSpec.newBuilder().setField(f.getName()).setValue(Values.toValue(f, value)));
    }
}
