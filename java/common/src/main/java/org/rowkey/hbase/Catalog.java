package org.rowkey.hbase;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import com.google.protobuf.InvalidProtocolBufferException;

import org.rowkey.hbase.proto.RowKeyProtos.IndexSpec;
import org.rowkey.hbase.proto.RowKeyProtos.PlannedQuery;
import org.rowkey.hbase.proto.RowKeyProtos.QueryPlanRequest;
import org.rowkey.hbase.proto.RowKeyProtos.IndexState;
import org.rowkey.hbase.proto.RowKeyProtos.TableCatalog;

/**
 * A data table's catalog, validated natively: its schema and its indexes (their definitions,
 * states and key schemas), and the mapping between data keys and index keys. Stored in the data
 * table's descriptor under {@value #DESCRIPTOR_KEY}, read by the coprocessor and every client.
 * Thread-safe; the native object is freed by a cleaner once the catalog is unreachable.
 */
@RunsIn(RunsIn.Where.SHARED)
final class Catalog {
    /** The table descriptor value holding the serialized catalog. */
    static final String DESCRIPTOR_KEY = "rowkey.catalog";
    /**
     * The table descriptor value counting the catalog's changes (decimal; absent: 0): each change
     * writes the next number under the catalog lease ({@code CatalogLock}), so a change that another
     * writer raced with anyway finds another number than its own.
     */
    static final String VERSION_KEY = "rowkey.catalog.version";

    private final NativeHandle handle;
    private final byte[] canonical;
    private final TableCatalog spec;
    private final RowKeySchema schema;
    private final List<RowKeySchema> indexSchemas;
    private final List<IndexCoverage> coverages;

    private Catalog(byte[] serialized) {
        long pointer = RowKeyNative.catalogParse(serialized);
        this.handle = new NativeHandle("Catalog", pointer, RowKeyNative::catalogFree);
        try {
            this.canonical = RowKeyNative.catalogCanonical(pointer);
            this.spec = TableCatalog.parseFrom(canonical);
            this.schema = RowKeySchema.parseFrom(spec.getSchema().toByteArray());
            List<RowKeySchema> schemas = new ArrayList<>();
            for (int i = 0; i < spec.getIndexesCount(); i++) {
                schemas.add(RowKeySchema.parseFrom(RowKeyNative.catalogIndexSchema(pointer, i)));
            }
            this.indexSchemas = Collections.unmodifiableList(schemas);
            List<IndexCoverage> covers = new ArrayList<>();
            for (IndexSpec index : spec.getIndexesList()) {
                covers.add(IndexCoverage.of(index));
            }
            this.coverages = Collections.unmodifiableList(covers);
        } catch (InvalidProtocolBufferException e) {
            handle.close();
            throw new IllegalStateException("native core returned an unreadable canonical catalog", e);
        } catch (RuntimeException | Error e) {
            handle.close();
            throw e;
        }
    }

    /**
     * The catalog serialized by {@link #toByteArray()} (a table descriptor's value).
     *
     * @throws IllegalArgumentException naming the problem, for null, corrupt or invalid bytes
     */
    static Catalog parse(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("table catalog: bytes are null");
        }
        return new Catalog(bytes);
    }

    /** A catalog of {@code schema} with {@code indexes}, each in {@code state}. */
    static Catalog of(RowKeySchema schema, List<RowKeyIndex> indexes, IndexState state) {
        Objects.requireNonNull(schema, "schema");
        TableCatalog.Builder spec = TableCatalog.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION)
                .setSchema(schema.spec());
        for (RowKeyIndex index : Objects.requireNonNull(indexes, "indexes")) {
            spec.addIndexes(Objects.requireNonNull(index, "index").toSpec(state));
        }
        return new Catalog(spec.build().toByteArray());
    }

    /** The data table's schema. */
    RowKeySchema schema() {
        return schema;
    }

    /** The index definitions, in catalog order. */
    List<IndexSpec> indexes() {
        return spec.getIndexesList();
    }

    /** The position of the index called {@code name}, or -1. */
    int indexNumber(String name) {
        for (int i = 0; i < spec.getIndexesCount(); i++) {
            if (spec.getIndexes(i).getName().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The key schema of index number {@code index}. */
    RowKeySchema indexSchema(int index) {
        return indexSchemas.get(index);
    }

    /** The data cells index number {@code index} covers. */
    IndexCoverage coverage(int index) {
        return coverages.get(index);
    }

    /** The key in index number {@code index} of a data key. */
    byte[] indexKey(int index, byte[] dataKey) {
        try {
            return RowKeyNative.catalogIndexKey(handle.get(), index, dataKey);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * Where a read of index number {@code index} meets the data keys from seek position
     * {@code position} on: a well-formed position ({@link KeySeeker#overWellFormedKeys}; its salt
     * byte need not be its fields' hash) laid out as an index key, whose salt byte and indexed
     * fields the caller sets to its range's.
     */
    byte[] indexSeekKey(int index, byte[] position) {
        try {
            return RowKeyNative.catalogIndexSeekKey(handle.get(), index, position);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /** The data key an index key of index number {@code index} stands for. */
    byte[] dataKey(int index, byte[] indexKey) {
        try {
            return RowKeyNative.catalogDataKey(handle.get(), index, indexKey);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * The native planner's plan of {@code request} over this catalog: how the query is read (the
     * single read of the data table or of the index that reads the fewest rows, or joins of key
     * streams), with every alternative's estimate.
     *
     * @throws IllegalArgumentException for a query the planner refuses (naming why)
     */
    PlannedQuery plan(QueryPlanRequest request) {
        try {
            return PlannedQuery.parseFrom(RowKeyNative.catalogPlanQuery(handle.get(), request.toByteArray()));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the native planner returned an unreadable query plan", e);
        } finally {
            NativeCleaner.keepAlive(handle);
        }
    }

    /**
     * The data key an index key of index number {@code index} stands for, or null when the index
     * could not have written it (a wrong length or salt byte: a row put into the index table by
     * hand, or a corrupt one): readers skip such a row, so that it cannot fail every query over it.
     */
    byte[] dataKeyOrNull(int index, byte[] indexKey) {
        try {
            return dataKey(index, indexKey);
        } catch (IllegalArgumentException notOurs) {
            return null;
        }
    }

    /**
     * The data keys {@code indexKeys} of index number {@code index} stand for, in order, null for a
     * key the index could not have written ({@link #dataKeyOrNull}): one native call for the lot
     * when the keys all have one length (the index's) and are all the index's, else key by key.
     */
    byte[][] dataKeys(int index, List<byte[]> indexKeys) {
        byte[][] keys = new byte[indexKeys.size()][];
        if (keys.length == 0) {
            return keys;
        }
        int width = indexKeys.get(0).length;
        boolean oneWidth = true;
        for (byte[] k : indexKeys) {
            oneWidth &= k.length == width;
        }
        byte[] all = null;
        if (oneWidth) {
            byte[] joined = new byte[width * keys.length];
            for (int i = 0; i < keys.length; i++) {
                System.arraycopy(indexKeys.get(i), 0, joined, i * width, width);
            }
            try {
                all = RowKeyNative.catalogDataKeys(handle.get(), index, joined, keys.length);
            } catch (IllegalArgumentException someNotOurs) {
                all = null;
            } finally {
                NativeCleaner.keepAlive(handle);
            }
        }
        if (all == null) {
            for (int i = 0; i < keys.length; i++) {
                keys[i] = dataKeyOrNull(index, indexKeys.get(i));
            }
            return keys;
        }
        int length = all.length / keys.length;
        for (int i = 0; i < keys.length; i++) {
            keys[i] = Arrays.copyOfRange(all, i * length, (i + 1) * length);
        }
        return keys;
    }

    /** The canonical serialized catalog. */
    byte[] toByteArray() {
        return canonical.clone();
    }

    /** The canonical catalog as the wire message. */
    TableCatalog spec() {
        return spec;
    }
}
