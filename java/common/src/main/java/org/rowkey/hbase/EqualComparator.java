package org.rowkey.hbase;

import java.util.Map;
import java.util.Objects;

import org.apache.hadoop.hbase.exceptions.DeserializationException;

import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.EqualComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.NamedValue;

/**
 * Matches the row keys whose given fields all equal the given values: one masked compare,
 * {@code (row & mask) == value}, however many fields. Use it with {@code CompareOperator.EQUAL}:
 *
 * <pre>{@code
 * new RowFilter(CompareOperator.EQUAL, new EqualComparator(schema, Map.of("sdate", 20161209, "code", 404)))
 * }</pre>
 *
 * {@link #compareTo(byte[], int, int)} returns 0 for a match and 1 otherwise, so
 * {@code NOT_EQUAL} keeps the complement. A row of the wrong length never matches. Every value
 * is an ordinary value: 0, negative numbers and {@code false} are not wildcards. Fields not
 * given are not looked at; an empty map matches every row of the right length.
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public final class EqualComparator extends NativeComparator {

    /**
     * @param equalities field name to value, converted by the field's type (see {@link RowKeySchema#encode})
     * @throws IllegalArgumentException naming the field: unknown field, wrong type, out of range, ...
     */
    public EqualComparator(RowKeySchema schema, Map<String, ?> equalities) {
        super(compile("EqualComparator", schema, spec(schema, equalities)));
    }

    private EqualComparator(Compiled compiled) {
        super(compiled);
    }

    /**
     * The comparator serialized by {@link #toByteArray()}.
     *
     * @throws DeserializationException for any bad input: null, corrupt or truncated bytes, another
     *     comparator kind, a spec the native core refuses
     */
    public static EqualComparator parseFrom(byte[] bytes) throws DeserializationException {
        return new EqualComparator(parse(EqualComparator.class, ComparatorSpec.KindCase.EQUAL, bytes));
    }

    private static ComparatorSpec.Builder spec(RowKeySchema schema, Map<String, ?> equalities) {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(equalities, "equalities");
        EqualComparatorSpec.Builder eq = EqualComparatorSpec.newBuilder();
        for (Map.Entry<String, ?> e : equalities.entrySet()) {
            FieldSpec f = schema.field(e.getKey());
            eq.addEqualities(NamedValue.newBuilder().setField(f.getName()).setValue(Values.toValue(f, e.getValue())));
        }
        return ComparatorSpec.newBuilder().setEqual(eq);
    }
}
