package org.rowkey.hbase;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import com.google.protobuf.ByteString;

import org.rowkey.hbase.proto.RowKeyProtos.Column;
import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;

/**
 * A secondary index of a {@link RowKeySchema}'s table: an index table whose row keys put the index
 * fields first, then the data key's other fields, so queries that fix the index fields read a few
 * key ranges of it instead of the whole data table (see docs/indexes.md):
 *
 * <pre>{@code
 * RowKeyIndex.of("by_date_code", "sdate", "code").salt(16).include("f", "q")
 * }</pre>
 *
 * Immutable: {@link #salt} and {@link #include} return a new definition. The definition is checked
 * against the schema natively when a table is created with it; every problem (an unknown or
 * repeated field, no field, an invalid name, an index that would order rows as the data key does)
 * is an {@link IllegalArgumentException} naming the index and the problem.
 */
@RunsIn(RunsIn.Where.SHARED)
public final class RowKeyIndex {
    private final String name;
    private final List<String> fields;
    private final int saltBuckets;
    private final List<Column> include;
    private final List<ByteString> includeFamilies;

    private RowKeyIndex(String name, List<String> fields, int saltBuckets, List<Column> include,
            List<ByteString> includeFamilies) {
        this.name = name;
        this.fields = fields;
        this.saltBuckets = saltBuckets;
        this.include = include;
        this.includeFamilies = includeFamilies;
    }

    /**
     * An index on {@code fields}, in index order; {@code name} ([A-Za-z0-9_]+) names its table
     * {@code <table>__idx_<name>}.
     */
    public static RowKeyIndex of(String name, String... fields) {
        Objects.requireNonNull(name, "index name");
        Objects.requireNonNull(fields, "index fields");
        for (String f : fields) {
            Objects.requireNonNull(f, "index field name");
        }
        return new RowKeyIndex(name, Collections.unmodifiableList(new ArrayList<>(Arrays.asList(fields))), 0,
                Collections.<Column>emptyList(), Collections.<ByteString>emptyList());
    }

    /**
     * Prefixes index keys with a salt byte (a hash of the whole index key modulo {@code buckets},
     * 1..256) against write hot spots, as an index leading with a date would have.
     */
    public RowKeyIndex salt(int buckets) {
        if (buckets < 1 || buckets > 256) {
            throw new IllegalArgumentException("index '" + name + "': salt buckets must be in 1..256, got " + buckets);
        }
        return new RowKeyIndex(name, fields, buckets, include, includeFamilies);
    }

    /**
     * Covers these columns, or with no qualifier every cell of {@code family} (Phoenix's covered
     * column family): copied into each index row, so a query needing only covered columns never
     * reads the data table, nor does one selecting every column when the index covers every family
     * of the table.
     */
    public RowKeyIndex include(String family, String... qualifiers) {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(qualifiers, "qualifiers");
        byte[][] q = new byte[qualifiers.length][];
        for (int i = 0; i < qualifiers.length; i++) {
            q[i] = Objects.requireNonNull(qualifiers[i], "qualifier").getBytes(StandardCharsets.UTF_8);
        }
        return include(family.getBytes(StandardCharsets.UTF_8), q);
    }

    /** {@link #include(String, String...)} with byte names. */
    public RowKeyIndex include(byte[] family, byte[]... qualifiers) {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(qualifiers, "qualifiers");
        if (qualifiers.length == 0) {
            List<ByteString> families = new ArrayList<>(includeFamilies);
            families.add(ByteString.copyFrom(family));
            return new RowKeyIndex(name, fields, saltBuckets, include, Collections.unmodifiableList(families));
        }
        List<Column> more = new ArrayList<>(include);
        for (byte[] q : qualifiers) {
            more.add(Column.newBuilder().setFamily(ByteString.copyFrom(family))
                    .setQualifier(ByteString.copyFrom(Objects.requireNonNull(q, "qualifier"))).build());
        }
        return new RowKeyIndex(name, fields, saltBuckets, Collections.unmodifiableList(more), includeFamilies);
    }

    public String name() {
        return name;
    }

    /** The index fields, in index order. */
    public List<String> fields() {
        return fields;
    }

    /** Salt buckets of the index key; 0 when unsalted. */
    public int saltBuckets() {
        return saltBuckets;
    }

    /** The definition as the catalog stores it, in {@code state}. */
    IndexSpec toSpec(IndexState state) {
        return IndexSpec.newBuilder().setName(name).addAllFields(fields).setSaltBuckets(saltBuckets)
                .addAllInclude(include).addAllIncludeFamilies(includeFamilies).setState(state).build();
    }

    @Override
    public String toString() {
        return "RowKeyIndex[" + name + " on (" + String.join(", ", fields) + ")"
                + (saltBuckets > 0 ? ", salt " + saltBuckets : "")
                + (include.isEmpty() ? "" : ", " + include.size() + " covered column(s)")
                + (includeFamilies.isEmpty() ? "" : ", " + includeFamilies.size() + " covered famil" + (includeFamilies.size() == 1 ? "y" : "ies"))
                + "]";
    }
}
