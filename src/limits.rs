//! What a serialized spec or a request may ask for. Comparator and filter bytes come from any
//! client and are parsed inside a RegionServer, so every size that drives memory or time is
//! capped here and refused by name.

/// Serialized schema, comparator, row or plan request.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Fields in one schema.
pub const MAX_FIELDS: usize = 256;
/// Bytes in one row key.
pub const MAX_KEY_BYTES: usize = 4096;
/// Width of one fixed string or fixed bytes field.
pub const MAX_FIELD_WIDTH: usize = 1024;
/// Conditions in one predicate.
pub const MAX_CONDITIONS: usize = 1024;
/// Values in one IN list, and in all IN lists of a predicate together.
pub const MAX_IN_VALUES: usize = 100_000;
/// AND-branches of one OR predicate (`PredicateComparatorSpec.any_of`): each is a program run per
/// row until one matches, and a plan of its own.
pub const MAX_OR_BRANCHES: usize = 64;
/// Bytes of compiled program (masks, bounds, sets) for one comparator.
pub const MAX_PROGRAM_BYTES: usize = 8 << 20;
/// Length of a field name.
pub const MAX_NAME_BYTES: usize = 256;
/// Salt buckets of a salted key (the salt is one byte).
pub const MAX_SALT_BUCKETS: u32 = 256;

/// Indexes of one table.
pub const MAX_INDEXES: usize = 32;
/// Covered columns of one index.
pub const MAX_INCLUDED_COLUMNS: usize = 1024;
/// Bytes of a covered column's family or qualifier.
pub const MAX_COLUMN_NAME_BYTES: usize = 1024;

/// Groups one aggregation may hold (in a region's partial state and in the client's merge) when
/// its spec does not ask for fewer; a query with more groups fails naming the cap.
pub const DEFAULT_MAX_GROUPS: usize = 100_000;
/// Most groups a spec may ask for.
pub const MAX_GROUPS: usize = 1_000_000;
/// Aggregates of one aggregation.
pub const MAX_AGGREGATES: usize = 64;
/// Bytes one aggregation's groups may hold (keys, states, map slots: `aggregate::Aggregator`), in
/// a region and in the client's merge, unless the RegionServer's or client's setting
/// (`aggregate::MAX_BYTES_SETTING`) or the spec's `max_bytes` says fewer. A partial state is
/// smaller than the groups it holds, so this bounds it too. The group cap alone let 100,000
/// groups of 1 KiB keys and 64 aggregates send a 308 MB partial state.
pub const DEFAULT_AGGREGATE_BYTES: usize = 64 << 20;
/// Most bytes the setting or a spec may allow (a larger setting counts as this): a partial state
/// must fit a Java byte[] and one RPC response with room to spare.
pub const MAX_AGGREGATE_BYTES: usize = 1 << 30;

/// Default cap on the ranges a scan plan expands into (Phoenix caps its IN-list products at
/// 50,000 too); a request may ask for another.
pub const DEFAULT_MAX_RANGES: usize = 50_000;
/// Most ranges a request may ask for.
pub const MAX_MAX_RANGES: usize = 1_000_000;
/// Bytes a plan's expansion may build (prefixes, range keys, salt-field combinations), whatever
/// `max_ranges` allows: with keys of up to 4 KiB, the range cap alone let a 600 KB request build
/// gigabytes. Beyond it the expansion stops and covering ranges are read instead.
pub const MAX_PLAN_KEY_BYTES: usize = 8 << 20;
/// Salt-field combinations hashed to find the buckets a plan reads; beyond, every bucket is read.
/// Past a few thousand the combinations hit every one of at most 256 buckets anyway (256 x
/// e^-16 buckets missed on average at 4096), so hashing more is wasted work.
pub const MAX_SALT_COMBINATIONS: usize = 4096;

/// Most elements of a repeated field, counted across one whole serialized message, before the
/// parser runs (`wire::check`). Each is the limit that the parsed value must meet anyway.
pub(crate) fn repeated_field_cap(full_name: &str) -> usize {
    match full_name {
        "rowkey.PredicateSpec.conditions" => MAX_CONDITIONS,
        "rowkey.Condition.values" => MAX_IN_VALUES,
        "rowkey.TableCatalog.indexes" => MAX_INDEXES,
        "rowkey.IndexSpec.include" => MAX_INCLUDED_COLUMNS,
        "rowkey.PredicateComparatorSpec.any_of" => MAX_OR_BRANCHES,
        "rowkey.AggregationSpec.aggregates" => MAX_AGGREGATES,
        _ => MAX_FIELDS,
    }
}

/// What a repeated-field limit is called in its error.
pub(crate) fn repeated_field_what(full_name: &str) -> &'static str {
    match full_name {
        "rowkey.SchemaSpec.fields" => "number of fields",
        "rowkey.SaltSpec.fields" => "number of salt fields",
        "rowkey.Row.values" => "number of row values",
        "rowkey.EqualComparatorSpec.equalities" => "number of equalities",
        "rowkey.PredicateSpec.conditions" => "number of conditions",
        "rowkey.Condition.values" => "number of condition values",
        "rowkey.TableCatalog.indexes" => "number of indexes",
        "rowkey.IndexSpec.fields" => "number of index fields",
        "rowkey.IndexSpec.include" => "number of covered columns",
        "rowkey.IndexSpec.include_families" => "number of covered families",
        "rowkey.TablePlanRequest.families" => "number of table families",
        "rowkey.PredicateComparatorSpec.any_of" => "number of OR branches",
        "rowkey.AggregationSpec.group_by" => "number of group-by fields",
        "rowkey.AggregationSpec.aggregates" => "number of aggregates",
        _ => "number of repeated elements",
    }
}
