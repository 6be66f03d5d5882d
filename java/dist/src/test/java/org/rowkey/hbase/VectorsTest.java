package org.rowkey.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

import com.google.protobuf.TextFormat;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.rowkey.hbase.proto.RowKeyProtos.ComparatorSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.NamedValue;
import org.rowkey.hbase.proto.RowKeyProtos.Row;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;
import org.rowkey.hbase.proto.RowKeyProtos.Value;
import org.rowkey.hbase.proto.VectorProtos.CompareCase;
import org.rowkey.hbase.proto.VectorProtos.CompareError;
import org.rowkey.hbase.proto.VectorProtos.EncodeCase;
import org.rowkey.hbase.proto.VectorProtos.EncodeError;
import org.rowkey.hbase.proto.VectorProtos.Expectation;
import org.rowkey.hbase.proto.VectorProtos.SchemaError;
import org.rowkey.hbase.proto.VectorProtos.SchemaErrorFile;
import org.rowkey.hbase.proto.VectorProtos.Suite;
import org.rowkey.hbase.proto.VectorProtos.VectorFile;

/**
 * The cross-language vectors of tests/vectors (written by an independent reference), checked
 * through the public Java API: the same files `cargo test` checks, so the sides cannot drift.
 */
class VectorsTest {
    static final Path DIR = Paths.get(System.getProperty("rowkey.vectors.dir", "../../tests/vectors"));

    static <B extends com.google.protobuf.Message.Builder> B read(String file, B builder) throws IOException {
        String text = new String(Files.readAllBytes(DIR.resolve(file)), StandardCharsets.UTF_8);
        TextFormat.merge(text, builder);
        return builder;
    }

    @Test
    void encodingsMatchTheReference() throws IOException {
        VectorFile file = read("encodings.txtpb", VectorFile.newBuilder()).build();
        int checked = 0;
        for (Suite suite : file.getSuiteList()) {
            RowKeySchema schema = RowKeySchema.parseFrom(suite.getSchema().toByteArray());
            for (EncodeCase c : suite.getEncodeList()) {
                Map<String, Object> row = javaRow(suite.getSchema(), c.getRow());
                byte[] key = schema.encode(row);
                assertEquals(c.getKeyHex(), Bytes.toHex(key), suite.getName() + "/" + c.getName());
                Map<String, Object> decoded = schema.decode(key);
                for (FieldSpec f : suite.getSchema().getFieldsList()) {
                    if (f.getType() != FieldType.MD5 && f.getType() != FieldType.JAVA_HASH) {
                        assertValueEquals(row.get(f.getName()), decoded.get(f.getName()), c.getName() + "/" + f.getName());
                    }
                }
                assertArrayEquals(key, schema.encode(decoded), "decoded keys re-encode: " + c.getName());
                checked++;
            }
            for (EncodeError e : suite.getEncodeErrorList()) {
                Map<String, Object> row = javaRow(suite.getSchema(), e.getRow());
                IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> schema.encode(row), e.getName());
                assertMentions(thrown, e.getErrorContains(), e.getName());
            }
        }
        assertTrue(checked >= 20, "only " + checked + " encodings");
    }

    @Test
    void comparatorsMatchTheReference() throws Exception {
        VectorFile file = read("encodings.txtpb", VectorFile.newBuilder()).build();
        int checked = 0;
        for (Suite suite : file.getSuiteList()) {
            for (CompareCase c : suite.getCompareList()) {
                byte[] spec = ComparatorSpec.newBuilder(c.getComparator()).setFormatVersion(1).setSchema(suite.getSchema()).build().toByteArray();
                try (NativeComparator comparator = parse(c.getComparator().getKindCase(), spec)) {
                    for (Expectation e : c.getExpectList()) {
                        byte[] key = key(suite, e.getKey());
                        String label = suite.getName() + "/" + c.getName() + " on " + e.getKey();
                        assertEquals(e.getResult(), comparator.compareTo(key, 0, key.length), label);
                        // The same row inside a larger array, a heap buffer and a direct buffer.
                        byte[] padded = new byte[key.length + 7];
                        System.arraycopy(key, 0, padded, 3, key.length);
                        assertEquals(e.getResult(), comparator.compareTo(padded, 3, key.length), label + " (offset)");
                        assertEquals(e.getResult(), comparator.compareTo(ByteBuffer.wrap(padded), 3, key.length), label + " (heap buffer)");
                        ByteBuffer direct = ByteBuffer.allocateDirect(padded.length);
                        direct.put(padded);
                        assertEquals(e.getResult(), comparator.compareTo(direct, 3, key.length), label + " (direct buffer)");
                        checked++;
                    }
                }
            }
            for (CompareError e : suite.getCompareErrorList()) {
                byte[] spec = ComparatorSpec.newBuilder(e.getComparator()).setFormatVersion(1).setSchema(suite.getSchema()).build().toByteArray();
                DeserializationException thrown = assertThrows(DeserializationException.class,
                        () -> parse(e.getComparator().getKindCase(), spec), e.getName());
                assertMentions(thrown, e.getErrorContains(), e.getName());
            }
        }
        assertTrue(checked >= 100, "only " + checked + " expectations");
    }

    @Test
    void javaBuiltComparatorsHaveTheCanonicalBytesOfTheVectors() throws Exception {
        VectorFile file = read("encodings.txtpb", VectorFile.newBuilder()).build();
        for (Suite suite : file.getSuiteList()) {
            RowKeySchema schema = RowKeySchema.parseFrom(suite.getSchema().toByteArray());
            for (CompareCase c : suite.getCompareList()) {
                ComparatorSpec spec = c.getComparator();
                byte[] bytes = ComparatorSpec.newBuilder(spec).setFormatVersion(1).setSchema(suite.getSchema()).build().toByteArray();
                NativeComparator built;
                switch (spec.getKindCase()) {
                    case EQUAL: {
                        Map<String, Object> equalities = new LinkedHashMap<>();
                        for (NamedValue nv : spec.getEqual().getEqualitiesList()) {
                            equalities.put(nv.getField(), javaValue(suite.getSchema(), nv.getField(), nv.getValue()));
                        }
                        built = new EqualComparator(schema, equalities);
                        break;
                    }
                    case RANGE:
                        built = new RangeComparator(schema, spec.getRange().getField(),
                                javaValue(suite.getSchema(), spec.getRange().getField(), spec.getRange().getValue()));
                        break;
                    default:
                        continue; // predicates: RowKeyQuery is checked by the integration tests
                }
                try (NativeComparator fromJava = built; NativeComparator fromBytes = parse(spec.getKindCase(), bytes)) {
                    assertArrayEquals(fromBytes.getValue(), fromJava.getValue(), c.getName());
                    assertArrayEquals(fromJava.getValue(), fromJava.toByteArray(), c.getName());
                }
            }
        }
    }

    @Test
    void badSchemasAreRefusedByName() throws IOException {
        SchemaErrorFile file = read("schema_errors.txtpb", SchemaErrorFile.newBuilder()).build();
        assertTrue(file.getCaseCount() > 5);
        for (SchemaError e : file.getCaseList()) {
            IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                    () -> RowKeySchema.parseFrom(e.getSchema().toByteArray()), e.getName());
            assertMentions(thrown, e.getErrorContains(), e.getName());
        }
    }

    static NativeComparator parse(ComparatorSpec.KindCase kind, byte[] spec) throws DeserializationException {
        switch (kind) {
            case EQUAL: return EqualComparator.parseFrom(spec);
            case RANGE: return RangeComparator.parseFrom(spec);
            case PREDICATE: return PredicateComparator.parseFrom(spec);
            default: throw new IllegalArgumentException("kind " + kind);
        }
    }

    static byte[] key(Suite suite, String name) {
        if (name.startsWith("hex:")) {
            return Bytes.fromHex(name.substring(4));
        }
        for (EncodeCase c : suite.getEncodeList()) {
            if (c.getName().equals(name)) {
                return Bytes.fromHex(c.getKeyHex());
            }
        }
        throw new IllegalArgumentException("no key " + name);
    }

    /** The Java value a user would pass: Integer for int32 fields, Long for 64-bit ones. */
    static Object javaValue(SchemaSpec schema, String field, Value v) {
        FieldType type = FieldType.FIELD_TYPE_UNSPECIFIED;
        for (FieldSpec f : schema.getFieldsList()) {
            if (f.getName().equals(field)) {
                type = f.getType();
            }
        }
        switch (v.getKindCase()) {
            case INT_VALUE:
                long l = v.getIntValue();
                return type == FieldType.INT32 && l == (int) l ? (Object) (int) l : (Object) l;
            case BOOL_VALUE: return v.getBoolValue();
            case STRING_VALUE: return v.getStringValue();
            case BYTES_VALUE: return v.getBytesValue().toByteArray();
            default: return null;
        }
    }

    static Map<String, Object> javaRow(SchemaSpec schema, Row row) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (NamedValue nv : row.getValuesList()) {
            out.put(nv.getField(), javaValue(schema, nv.getField(), nv.getValue()));
        }
        return out;
    }

    /** The error names what was wrong: its message contains the vector's fragment. */
    static void assertMentions(Exception thrown, String fragment, String label) {
        assertTrue(thrown.getMessage().contains(fragment), label + ": '" + thrown.getMessage() + "' lacks '" + fragment + "'");
    }

    static void assertValueEquals(Object expected, Object actual, String label) {
        if (expected instanceof byte[]) {
            assertArrayEquals((byte[]) expected, (byte[]) actual, label);
        } else if (expected instanceof Number && actual instanceof Number) {
            assertEquals(((Number) expected).longValue(), ((Number) actual).longValue(), label);
        } else {
            assertEquals(expected, actual, label);
        }
    }
}
