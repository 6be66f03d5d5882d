package org.rowkey.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.google.protobuf.InvalidProtocolBufferException;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.util.Bytes;

import org.rowkey.hbase.proto.RowKeyProtos.ScanPlan;
import org.rowkey.hbase.proto.RowKeyProtos.WhereFilterSpec;

/**
 * A query as text in HBase's filter language, for every client that has only a filter string: the
 * shell ({@code scan 'urlscan', {FILTER => "RowKeyWhere('sdate = 20161209 AND code = 404')"}}),
 * Python's happybase through a Thrift gateway ({@code table.scan(filter="RowKeyWhere('...')")}),
 * Java's {@code ParseFilter}. It returns the rows {@link RowKeyQuery#toScan()} of the same query
 * returns, and plans inside each region as toScan plans on the client: it seeks to the planned key
 * ranges, between them, and skips within them as the skip scan does.
 *
 * <p>Arguments: the where clause ({@link RowKeyQuery#parse}), then, on a table that was not made by
 * {@link RowKeyTable#create}, its schema in text form ({@link RowKeySchema#parse}); on a table made
 * by {@code create} the schema is the table's catalog, given to the filter on the RegionServer by
 * {@link RowKeyIndexObserver} before the region's scanner opens. A quote inside the filter
 * language's quoted argument is doubled: {@code RowKeyWhere('md5url = ''http://a/''')}.
 *
 * <p>Register it once per client ({@link #register()}) or, on a Thrift gateway, with
 * {@code hbase.thrift.filters = RowKeyWhere:org.rowkey.hbase.RowKeyWhere}. The texts are parsed on
 * the RegionServer, not where the filter string is: HBase's filter language replaces any error
 * from a filter's arguments with "Incorrect filter string", while an error of the RegionServer
 * reaches every client, a Thrift client too, as the scan's error message (a
 * {@link DoNotRetryIOException} naming the character, the token and what was expected).
 */
@RunsIn(RunsIn.Where.REGION_SERVER)
public class RowKeyWhere extends FilterBase {
    /** The name the filter language knows it by. */
    public static final String NAME = "RowKeyWhere";
    /**
     * Rows of another key width a region scan may show the filter before one of its schema's width:
     * past them the scan fails rather than answer nothing (a schema that is not the table's). A
     * table may hold a few rows of other widths (written by hand); it never matches them.
     */
    static final int OTHER_WIDTH_ROWS_LIMIT = 16;

    private final String where;
    /** The schema's text form; empty for the table's catalog. */
    private final String schemaText;
    /** The query and its filter once the schema is known ({@link #bind}). */
    private RowKeyQuery query;
    private Filter planned;
    /** Bound, and no row can match. */
    private boolean nothing;
    /** Rows of another key width shown before the first of the schema's width (then: -1). */
    private int otherWidthRows;

    /** The rows of {@code query}, on any table of its schema. */
    public RowKeyWhere(RowKeyQuery query) {
        this(Objects.requireNonNull(query, "query").toWhereClause(), query.schema().toText());
        bind(query.schema());
    }

    /**
     * The rows of {@code where} on a table made by {@link RowKeyTable#create}, whose catalog gives
     * the schema on the RegionServer.
     */
    public RowKeyWhere(String where) {
        this(where, "");
    }

    private RowKeyWhere(String where, String schemaText) {
        this.where = Objects.requireNonNull(where, "where clause");
        this.schemaText = Objects.requireNonNull(schemaText, "schema text");
    }

    /** Makes {@value #NAME} known to this JVM's {@link ParseFilter}. */
    public static void register() {
        ParseFilter.registerFilter(NAME, RowKeyWhere.class.getName());
    }

    /**
     * The filter-language string of {@code where} (and of its schema, unless null): quotes doubled,
     * ready for the shell, happybase or {@link ParseFilter#parseFilterString(String)}.
     */
    public static String filterString(String where, RowKeySchema schema) {
        String text = NAME + "(" + quoted(where);
        return (schema == null ? text : text + ", " + quoted(schema.toText())) + ")";
    }

    private static String quoted(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /**
     * HBase's filter language: {@code RowKeyWhere('<where clause>'[, '<schema text>'])}. Only the
     * arguments' count and quoting are checked here (see the class comment for why).
     */
    public static Filter createFilterFromArguments(ArrayList<byte[]> arguments) {
        if (arguments == null || arguments.isEmpty() || arguments.size() > 2) {
            throw new IllegalArgumentException(NAME + " takes a where clause and, on a table not made by RowKeyTable.create,"
                    + " its schema: got " + (arguments == null ? 0 : arguments.size()) + " arguments");
        }
        String where = Bytes.toString(ParseFilter.removeQuotesFromByteArray(arguments.get(0)));
        String schema = arguments.size() == 2 ? Bytes.toString(ParseFilter.removeQuotesFromByteArray(arguments.get(1))) : "";
        return new RowKeyWhere(where, schema);
    }

    /**
     * Parses the where clause on {@code schema} and plans it; a filter with a schema of its own
     * keeps that one (and {@code schema} is ignored).
     *
     * @throws IllegalArgumentException what {@link RowKeyQuery#parse} or {@link RowKeySchema#parse} says
     */
    final void bind(RowKeySchema schema) {
        RowKeySchema on = schemaText.isEmpty() ? Objects.requireNonNull(schema, "schema") : RowKeySchema.parse(schemaText);
        RowKeyQuery q = RowKeyQuery.parse(on, where);
        ScanPlan plan = ScanPlanner.plan(q, 0);
        Filter filter = ScanPlanner.regionFilter(plan, q.toPredicateComparatorSpec());
        if (filter != null) {
            filter.setReversed(isReversed());
        }
        this.query = q;
        this.planned = filter;
        this.nothing = filter == null;
    }

    /**
     * Binds every {@code RowKeyWhere} in {@code filter} (a filter list's too) that takes its schema
     * from the catalog to {@code schema}, the region's table's (null when the table has none); returns
     * how many it bound.
     *
     * @throws DoNotRetryIOException naming the filter and what is wrong with its where clause
     */
    static int bindToCatalog(Filter filter, RowKeySchema schema) throws DoNotRetryIOException {
        int bound = 0;
        if (filter instanceof org.apache.hadoop.hbase.filter.FilterList) {
            for (Filter f : ((org.apache.hadoop.hbase.filter.FilterList) filter).getFilters()) {
                bound += bindToCatalog(f, schema);
            }
        } else if (filter instanceof RowKeyWhere && schema != null) {
            RowKeyWhere w = (RowKeyWhere) filter;
            if (!w.usesCatalog() && w.isBound() && !w.query.schema().equals(schema)) {
                // It would read the table's keys by another layout and answer nothing, or nonsense.
                throw new DoNotRetryIOException(w + ": the schema given is not the table's, whose catalog says '" + shown(schema.toText())
                        + "'; leave the second argument out on a table made by RowKeyTable.create");
            }
            if (w.usesCatalog() && !w.isBound()) {
                try {
                    w.bind(schema);
                    bound++;
                } catch (IllegalArgumentException e) {
                    throw new DoNotRetryIOException(NAME + "('" + shown(w.where) + "'): " + e.getMessage(), e);
                }
            }
        }
        return bound;
    }

    /** Whether {@code filter} holds a RowKeyWhere that takes its schema from the table's catalog and has none yet. */
    static boolean needsCatalog(Filter filter) {
        if (filter instanceof org.apache.hadoop.hbase.filter.FilterList) {
            for (Filter f : ((org.apache.hadoop.hbase.filter.FilterList) filter).getFilters()) {
                if (needsCatalog(f)) {
                    return true;
                }
            }
            return false;
        }
        return filter instanceof RowKeyWhere && ((RowKeyWhere) filter).usesCatalog() && !((RowKeyWhere) filter).isBound();
    }

    /** Whether the schema is known (given, or bound from the catalog). */
    boolean isBound() {
        return query != null;
    }

    /** Whether the filter takes its schema from the table's catalog. */
    boolean usesCatalog() {
        return schemaText.isEmpty();
    }

    private Filter planned() throws IOException {
        if (query == null) {
            throw new DoNotRetryIOException(NAME + "('" + shown(where) + "') has no schema: the table was not made by"
                    + " RowKeyTable.create (no hbase-rowkey catalog, or its coprocessor is not loaded); give the schema as"
                    + " the second argument, e.g. " + NAME + "('code = 404', 'md5url md5(8), code int32')");
        }
        return planned;
    }

    @Override
    public boolean filterAllRemaining() throws IOException {
        Filter f = planned();
        return nothing || f.filterAllRemaining();
    }

    @Override
    public boolean filterRowKey(Cell firstRowCell) throws IOException {
        Filter f = planned();
        if (otherWidthRows >= 0) {
            checkWidth(firstRowCell);
        }
        return nothing || f.filterRowKey(firstRowCell);
    }

    /** Counts rows of another key width until one of the schema's: too many first, and the scan fails. */
    private void checkWidth(Cell row) throws DoNotRetryIOException {
        if (row.getRowLength() == query.schema().keyLength()) {
            otherWidthRows = -1;
        } else if (++otherWidthRows >= OTHER_WIDTH_ROWS_LIMIT) {
            throw new DoNotRetryIOException(this + ": the first " + otherWidthRows + " rows read have keys of other widths (the last " + row.getRowLength()
                    + " bytes), none of the " + query.schema().keyLength() + " bytes the schema makes: the schema is not this table's");
        }
    }

    @Override
    public ReturnCode filterCell(Cell c) throws IOException {
        Filter f = planned();
        return nothing ? ReturnCode.NEXT_ROW : f.filterCell(c);
    }

    @Override
    public Cell transformCell(Cell c) throws IOException {
        return nothing ? c : planned().transformCell(c);
    }

    @Override
    public void filterRowCells(List<Cell> cells) throws IOException {
        if (!nothing) {
            planned().filterRowCells(cells);
        }
    }

    @Override
    public boolean hasFilterRow() {
        return planned != null && planned.hasFilterRow();
    }

    @Override
    public boolean filterRow() throws IOException {
        return nothing || planned().filterRow();
    }

    @Override
    public Cell getNextCellHint(Cell currentCell) throws IOException {
        return nothing ? null : planned().getNextCellHint(currentCell);
    }

    @Override
    public boolean isFamilyEssential(byte[] name) throws IOException {
        return planned == null || planned.isFamilyEssential(name);
    }

    @Override
    public void reset() throws IOException {
        if (planned != null) {
            planned.reset();
        }
    }

    @Override
    public void setReversed(boolean reversed) {
        super.setReversed(reversed);
        if (planned != null) {
            planned.setReversed(reversed);
        }
    }

    @Override
    public byte[] toByteArray() {
        return WhereFilterSpec.newBuilder().setFormatVersion(RowKeySchema.FORMAT_VERSION).setWhere(where)
                .setSchema(schemaText).build().toByteArray();
    }

    /**
     * The filter serialized by {@link #toByteArray()}; with a schema of its own, parsed and planned
     * here (on the RegionServer), else left for the table's catalog.
     *
     * @throws DeserializationException naming what is wrong: corrupt bytes, a newer format, or the
     *     where clause or schema text (the character, the token and what was expected)
     */
    public static RowKeyWhere parseFrom(byte[] bytes) throws DeserializationException {
        WhereFilterSpec spec;
        try {
            spec = WhereFilterSpec.parseFrom(bytes);
        } catch (InvalidProtocolBufferException | NullPointerException e) {
            throw new DeserializationException(NAME + ".parseFrom: corrupt bytes: " + e.getMessage(), e);
        }
        if (spec.getFormatVersion() > RowKeySchema.FORMAT_VERSION) {
            throw new DeserializationException(NAME + ".parseFrom: format version " + spec.getFormatVersion()
                    + ", this library reads up to " + RowKeySchema.FORMAT_VERSION);
        }
        RowKeyWhere filter = new RowKeyWhere(spec.getWhere(), spec.getSchema());
        if (!filter.usesCatalog()) {
            try {
                filter.bind(null);
            } catch (IllegalArgumentException e) {
                throw new DeserializationException(NAME + "('" + shown(spec.getWhere()) + "'): " + e.getMessage(), e);
            }
        }
        return filter;
    }

    @Override
    public String toString() {
        return NAME + "(" + quoted(shown(where)) + (schemaText.isEmpty() ? "" : ", " + quoted(shown(schemaText))) + ")";
    }

    /** Text as messages show it: at most 200 characters. */
    static String shown(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "... (" + text.length() + " characters)";
    }
}
