package org.rowkey.hbase.spark;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;
import org.rowkey.hbase.RowKeySchema;

/**
 * What Spark pushes into a read: key-field predicates ({@link Where}: planned natively, ranges,
 * skip scan or an index), the columns wanted (no cell is read when none is), a limit (each task
 * stops there; Spark keeps the global one), an ORDER BY with a limit that our key order gives
 * ({@link KeyOrder}: the first rows read in key order, or against it; Spark sorts those few again)
 * and aggregates ({@link AggregateSpec}: folded in the regions, complete). Whatever is not taken
 * Spark evaluates itself.
 */
final class RowKeyScanBuilder implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns,
        SupportsPushDownLimit, SupportsPushDownTopN, SupportsPushDownAggregates {
    private final SourceOptions source;
    private final RowKeySchema schema;
    private StructType required;
    private Where where = Where.all();
    private final List<Predicate> pushed = new ArrayList<>();
    private int limit = -1;
    private KeyOrder order;
    private AggregateSpec aggregate;

    RowKeyScanBuilder(SourceOptions source, RowKeySchema schema, StructType sparkSchema) {
        this.source = source;
        this.schema = schema;
        this.required = sparkSchema;
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        List<Predicate> left = new ArrayList<>();
        for (Predicate p : predicates) {
            Where w = Where.of(p, schema);
            Where both = w == null ? null : where.and(w);
            if (both != null && plans(both)) {
                where = both;
                pushed.add(p);
            } else {
                left.add(p);
            }
        }
        return left.toArray(new Predicate[0]);
    }

    /** Whether our query takes these conditions (it refuses, e.g., a string wider than its field). */
    private boolean plans(Where w) {
        try {
            org.rowkey.hbase.RowKeyQuery q = w.toQuery(schema);
            if (q != null) {
                q.toScan(); // planned natively: what the builder takes, the planner may still refuse
            }
            return true;
        } catch (IllegalArgumentException refused) {
            return false;
        }
    }

    @Override
    public Predicate[] pushedPredicates() {
        return pushed.toArray(new Predicate[0]);
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    @Override
    public boolean pushLimit(int n) {
        if (aggregate != null) {
            return false;
        }
        limit = n;
        return true;
    }

    /** A limit or an order is kept by Spark too: each task stops at it, and Spark sorts the few rows again. */
    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    @Override
    public boolean pushTopN(SortOrder[] orders, int n) {
        KeyOrder keyOrder = aggregate == null ? KeyOrder.of(orders, schema, where) : null;
        if (keyOrder == null) {
            return false;
        }
        order = keyOrder;
        limit = n;
        return true;
    }

    @Override
    public boolean supportCompletePushDown(Aggregation aggregation) {
        return AggregateSpec.of(aggregation, schema, source, where) != null;
    }

    @Override
    public boolean pushAggregation(Aggregation aggregation) {
        aggregate = AggregateSpec.of(aggregation, schema, source, where);
        return aggregate != null;
    }

    @Override
    public Scan build() {
        return aggregate != null ? new RowKeyScans.AggregateScan(source, where, aggregate)
                : new RowKeyScans.RowScan(source, schema, where, required, limit, order);
    }
}
