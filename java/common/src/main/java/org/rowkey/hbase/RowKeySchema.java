package org.rowkey.hbase;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.google.protobuf.InvalidProtocolBufferException;

import org.rowkey.hbase.proto.RowKeyProtos;
import org.rowkey.hbase.proto.RowKeyProtos.FieldSpec;
import org.rowkey.hbase.proto.RowKeyProtos.FieldType;
import org.rowkey.hbase.proto.RowKeyProtos.NamedValue;
import org.rowkey.hbase.proto.RowKeyProtos.Row;
import org.rowkey.hbase.proto.RowKeyProtos.SaltSpec;
import org.rowkey.hbase.proto.RowKeyProtos.SchemaSpec;

/**
 * The layout of a fixed-width composite row key: its fields in key order, each with a type and
 * width, and an optional salt byte in front. Build one with {@link #builder()}:
 *
 * <pre>{@code
 * RowKeySchema schema = RowKeySchema.builder()
 *     .md5("md5url", 8).javaHash("sitecode").int32("status").int32("code").int32("sdate")
 *     .int32("type").bool("free").bool("close").int32("queue").int32("scantype")
 *     .build();
 * byte[] key = schema.encode(values);        // every field required
 * Map<String, Object> row = schema.decode(key);
 * }</pre>
 *
 * The native core validates the schema, encodes and decodes (see docs/design.md for the byte layout;
 * byte order equals value order for every field a range is allowed on). Immutable and
 * thread-safe; equal schemas have equal {@link #toByteArray() canonical bytes}. The native
 * object behind a schema is freed by a cleaner once the schema is unreachable.
 */
@RunsIn(RunsIn.Where.SHARED)
public final class RowKeySchema {
    /** The format version of every message this library writes (the one definition is in rowkey.proto). */
    static final int FORMAT_VERSION = RowKeyProtos.FormatVersion.FORMAT_VERSION_CURRENT_VALUE;

    private final NativeHandle handle;
    private final byte[] canonical;
    private final SchemaSpec spec;
    private final Map<String, FieldSpec> fields;
    private final int keyLength;

    private RowKeySchema(byte[] serialized) {
        Objects.requireNonNull(serialized, "serialized schema");
        long pointer = RowKeyNative.schemaParse(serialized);
        this.handle = new NativeHandle("RowKeySchema", pointer, RowKeyNative::schemaFree);
        this.canonical = RowKeyNative.schemaCanonical(pointer);
        this.keyLength = RowKeyNative.schemaKeyLength(pointer);
        try {
            this.spec = SchemaSpec.parseFrom(canonical);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("native core returned an unreadable canonical schema", e);
        }
        Map<String, FieldSpec> byName = new LinkedHashMap<>();
        for (FieldSpec f : spec.getFieldsList()) {
            byName.put(f.getName(), f);
        }
        this.fields = Collections.unmodifiableMap(byName);
    }

    /** A builder of a schema; fields are added in key order. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The schema serialized by {@link #toByteArray()}.
     *
     * @throws IllegalArgumentException for null, corrupt or truncated bytes, or an invalid schema
     */
    public static RowKeySchema parseFrom(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("RowKeySchema.parseFrom: bytes are null");
        }
        try {
            return new RowKeySchema(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("RowKeySchema.parseFrom: " + e.getMessage(), e);
        }
    }

    /**
     * The schema written as text ({@link #toText()}: {@code md5url md5(8), sitecode javaHash, sdate
     * int32 DESC, free bool}, a salt first as {@code salt 16 buckets of (md5url)}; type names in any
     * case, names that are no identifier in double quotes), or as {@link #toString()} prints it.
     *
     * @throws IllegalArgumentException naming the character, the token and what was expected, or
     *     what is wrong with the schema
     */
    public static RowKeySchema parse(String text) {
        Objects.requireNonNull(text, "schema text");
        String inner = text.trim();
        if (inner.startsWith("RowKeySchema[") && inner.endsWith("]")) {
            inner = inner.substring("RowKeySchema[".length(), inner.lastIndexOf(';') > 0 ? inner.lastIndexOf(';') : inner.length() - 1);
        }
        try {
            return new RowKeySchema(RowKeyNative.parseSchemaText(inner.getBytes(StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("RowKeySchema.parse: " + e.getMessage(), e);
        }
    }

    /** The schema's text form, which {@link #parse} reads back to an equal schema. */
    public String toText() {
        return RowKeyNative.describeSchema(canonical);
    }

    /** Bytes of every row key of this schema (salt byte included). */
    public int keyLength() {
        return keyLength;
    }

    /** The field names in key order. */
    public List<String> fieldNames() {
        return Collections.unmodifiableList(new ArrayList<>(fields.keySet()));
    }

    /**
     * The class {@link #decode} gives field {@code name}'s values as: Integer, Long, Boolean, String
     * or byte[] (a hashed field's digest: {@link #isHashed}).
     *
     * @throws IllegalArgumentException for an unknown field, naming the fields there are
     */
    public Class<?> fieldClass(String name) {
        switch (field(name).getType()) {
            case INT32:
                return Integer.class;
            case INT64:
            case TIMESTAMP:
            case REVERSED_TIMESTAMP:
                return Long.class;
            case BOOL:
                return Boolean.class;
            case FIXED_STRING:
                return String.class;
            default:
                return byte[].class;
        }
    }

    /** Whether a salt byte leads every key: rows then sort by bucket first, not by their fields alone. */
    public boolean isSalted() {
        return spec.hasSalt();
    }

    /**
     * Whether field {@code name}'s values, as {@link #decode} gives them, ascend as its key bytes do
     * (numbers by value, strings by their UTF-8 bytes, byte arrays unsigned, false before true);
     * false when they descend: a reversed timestamp, a {@link Builder#descending()} field.
     *
     * @throws IllegalArgumentException for an unknown field
     */
    public boolean ascendsWithKey(String name) {
        FieldSpec f = field(name);
        return f.getDescending() == (f.getType() == FieldType.REVERSED_TIMESTAMP);
    }

    /** Whether field {@code name} holds a digest of its value (md5, javaHash), which cannot be turned back. */
    public boolean isHashed(String name) {
        FieldType type = field(name).getType();
        return type == FieldType.MD5 || type == FieldType.JAVA_HASH;
    }

    /**
     * The row key of {@code values}, which must give every field (and nothing else). Numbers may
     * be any integral {@link Number} in range; strings {@link String}; bools {@link Boolean};
     * fixed bytes {@code byte[]}; timestamps also {@link java.util.Date} or {@link java.time.Instant};
     * md5 and javaHash fields the String to hash or its digest bytes, so
     * {@code encode(decode(key))} gives {@code key} back.
     *
     * @throws IllegalArgumentException naming the field: unknown or missing field, wrong type,
     *     number out of range, string longer than its width, ...
     */
    public byte[] encode(Map<String, ?> values) {
        Objects.requireNonNull(values, "values");
        for (String name : values.keySet()) {
            field(name);
        }
        FlatValues flat = new FlatValues();
        String missing = null;
        for (FieldSpec f : fields.values()) {
            if (values.containsKey(f.getName())) {
                Values.convert(f, values.get(f.getName()), flat);
            } else if (missing == null) {
                missing = f.getName(); // reported after every given value's own error
            }
        }
        if (missing != null) {
            throw new IllegalArgumentException("field '" + missing + "' is missing");
        }
        return encode(flat);
    }

    /** The row key of every field's value, given in key order (see {@link #encode(Map)}). */
    byte[] encode(FlatValues valuesInKeyOrder) {
        try {
            return RowKeyNative.schemaEncode(handle.get(), valuesInKeyOrder.toByteArray());
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * The field values of a row key, in key order: Integer (int32), Long (int64, timestamp, and
     * reversed timestamp, which gives the original time back), Boolean, String (fixed string,
     * padding removed), byte[] (fixed bytes, and the digest bytes of md5 and javaHash fields).
     *
     * @throws IllegalArgumentException if the key does not have {@link #keyLength()} bytes or is
     *     not a key of this schema
     */
    public Map<String, Object> decode(byte[] key) {
        Objects.requireNonNull(key, "key");
        byte[] serialized;
        try {
            serialized = RowKeyNative.schemaDecode(handle.get(), key, 0, key.length);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
        Row row;
        try {
            row = Row.parseFrom(serialized);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("native core returned an unreadable decoded row", e);
        }
        Map<String, Object> decoded = new LinkedHashMap<>();
        for (NamedValue nv : row.getValuesList()) {
            FieldSpec f = fields.get(nv.getField());
            if (f == null) {
                throw new IllegalStateException("native core decoded an unknown field '" + nv.getField() + "'");
            }
            decoded.put(f.getName(), Values.toJava(f, nv.getValue()));
        }
        // Schema order, whatever order the core returned them in.
        Map<String, Object> ordered = new LinkedHashMap<>();
        for (String name : fields.keySet()) {
            if (decoded.containsKey(name)) {
                ordered.put(name, decoded.get(name));
            }
        }
        return ordered;
    }

    /** The canonical serialized {@code SchemaSpec}; {@link #parseFrom(byte[])} reads it back. */
    public byte[] toByteArray() {
        return canonical.clone();
    }

    /** The field called {@code name}, or an {@link IllegalArgumentException} naming it. */
    FieldSpec field(String name) {
        FieldSpec f = name == null ? null : fields.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown field '" + name + "' (fields: "
                    + String.join(", ", fields.keySet()) + ")");
        }
        return f;
    }

    /** The canonical spec (a protobuf message, immutable). */
    SchemaSpec spec() {
        return spec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowKeySchema && Arrays.equals(canonical, ((RowKeySchema) o).canonical);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(canonical);
    }

    @Override
    public String toString() {
        return "RowKeySchema[" + toText() + "; " + keyLength + " bytes]";
    }

    /**
     * Adds fields in key order; {@link #descending()} modifies the field just added. Validation
     * (names, widths, salt) happens in {@link #build()}, natively.
     */
    public static final class Builder {
        private final SchemaSpec.Builder spec = SchemaSpec.newBuilder().setFormatVersion(FORMAT_VERSION);

        private Builder() {}

        /** A 32-bit signed integer (4 bytes). */
        public Builder int32(String name) {
            return add(name, FieldType.INT32, 0);
        }

        /** A 64-bit signed integer (8 bytes). */
        public Builder int64(String name) {
            return add(name, FieldType.INT64, 0);
        }

        /** Milliseconds since the epoch (8 bytes), oldest first. */
        public Builder timestamp(String name) {
            return add(name, FieldType.TIMESTAMP, 0);
        }

        /** Milliseconds since the epoch, at least 0, stored as {@code Long.MAX_VALUE - ts}: newest first. */
        public Builder reversedTimestamp(String name) {
            return add(name, FieldType.REVERSED_TIMESTAMP, 0);
        }

        /** A boolean (one bit; consecutive bools share bytes); equality conditions only. */
        public Builder bool(String name) {
            return add(name, FieldType.BOOL, 0);
        }

        /** A UTF-8 string of at most {@code width} bytes, padded with 0x00. */
        public Builder fixedString(String name, int width) {
            return add(name, FieldType.FIXED_STRING, width);
        }

        /** Exactly {@code width} raw bytes. */
        public Builder fixedBytes(String name, int width) {
            return add(name, FieldType.FIXED_BYTES, width);
        }

        /** The first {@code width} (1..16) bytes of the MD5 of a string; equality conditions only. */
        public Builder md5(String name, int width) {
            return add(name, FieldType.MD5, width);
        }

        /** {@code String.hashCode()} of a string (4 bytes); equality conditions only. */
        public Builder javaHash(String name) {
            return add(name, FieldType.JAVA_HASH, 0);
        }

        /**
         * Makes the field just added sort in descending order (its bytes inverted).
         *
         * @throws IllegalStateException if no field has been added yet
         */
        public Builder descending() {
            int n = spec.getFieldsCount();
            if (n == 0) {
                throw new IllegalStateException("descending() applies to the field just added, and there is none yet");
            }
            spec.setFields(n - 1, spec.getFields(n - 1).toBuilder().setDescending(true));
            return this;
        }

        /**
         * Prefixes the key with a salt byte: a hash of the named fields' encoded values modulo
         * {@code buckets} (1..256), to spread sequential keys over regions. No fields = all fields.
         */
        public Builder salt(int buckets, String... fields) {
            if (buckets < 0) {
                throw new IllegalArgumentException("salt buckets must be in 1..256, got " + buckets);
            }
            SaltSpec.Builder salt = SaltSpec.newBuilder().setBuckets(buckets);
            if (fields != null) {
                for (String f : fields) {
                    salt.addFields(Objects.requireNonNull(f, "salt field name"));
                }
            }
            spec.setSalt(salt);
            return this;
        }

        /**
         * The schema.
         *
         * @throws IllegalArgumentException naming the problem: duplicate or empty field name,
         *     width out of range, salt buckets outside 1..256, unknown salt field, ...
         */
        public RowKeySchema build() {
            return new RowKeySchema(spec.build().toByteArray());
        }

        private Builder add(String name, FieldType type, int width) {
            Objects.requireNonNull(name, "field name");
            Values.checkWellFormed(name, name);
            if (width < 0) {
                throw new IllegalArgumentException("field '" + name + "': width must be positive, got " + width);
            }
            spec.addFields(FieldSpec.newBuilder().setName(name).setType(type).setWidth(width));
            return this;
        }
    }
}
