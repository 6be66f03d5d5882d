//! The query planner: the one place that decides how a query is read. Joins of key streams for
//! the queries only they answer; else the single read that reads the fewest rows, replaced by the
//! relay of the query's key streams when it reads an index that does not cover the query; and,
//! for a plan the regions fold, what they read of each row and whether the client checks each.

use crate::error::{Error, Result};
use crate::key::Catalog;
use crate::proto::rowkey::{Condition, Op, PlannedQuery, PredicateSpec, TablePlan};

use super::explain;
use super::join::{plan_join, JoinQuery};
use super::source_choice::SourceQuery;
use super::table::{plan_table, TableQuery};

/// What a query plan is asked: the query's AND-branches, the sources it may read and how.
pub(crate) struct Query<'a> {
    pub(crate) branches: &'a [PredicateSpec],
    /// The query is an `anyOf` (answered by joins even with one branch).
    pub(crate) any_of: bool,
    /// The sources, the hint, the columns read: `conditions` unused (each branch has its own).
    pub(crate) source: SourceQuery<'a>,
    /// The query reads no cell (keys only; an aggregate that folds none), whether or not an index
    /// row may answer for its data row.
    pub(crate) reads_no_cell: bool,
    pub(crate) leapfrog: bool,
    pub(crate) limit: u32,
    pub(crate) reversed: bool,
    pub(crate) explain: bool,
    /// The plan the regions fold (docs/aggregates.md).
    pub(crate) aggregate: bool,
}

/// The plan of `query` over `catalog`'s table and indexes.
pub(crate) fn plan_query(catalog: &Catalog, query: &Query<'_>) -> Result<PlannedQuery> {
    let mut out = PlannedQuery::new();
    let one_branch = !query.any_of && query.branches.len() == 1 && !query.leapfrog;
    if one_branch && query.limit > 0 && !query.reversed && !query.aggregate {
        if let Some(single) = limited_single_read(catalog, query)? {
            out.set_single(single);
            return Ok(out);
        }
    }
    let joins = !one_branch || query.limit > 0;
    if !joins && query.reversed && !query.aggregate {
        if let Some(single) = reversed_single_read(catalog, query)? {
            out.set_single(single);
            return Ok(out);
        }
    }
    if joins || query.reversed {
        if query.aggregate {
            return Err(Error::InvalidQuery(
                "it is answered by joins of key streams (anyOf, a limit, reversed or leapfrog), which are not \
                 aggregated in the regions; limit and order the aggregation instead"
                    .into(),
            ));
        }
        out.set_joins(plan_join(
            catalog,
            &JoinQuery {
                branches: query.branches,
                max_ranges: query.source.max_ranges,
                hint: query.source.hint,
                hint_index: query.source.hint_index,
                leapfrog: query.leapfrog,
                limit: query.limit,
                reversed: query.reversed,
                explain: query.explain,
                reads: Some(&query.source),
            },
        )?);
        return Ok(out);
    }
    let table = TableQuery {
        query: SourceQuery {
            conditions: &query.branches[0].conditions,
            ..query.source
        },
        explain: query.explain,
        relay_streams: !query.aggregate,
        fold: query.aggregate,
    };
    let mut single = plan_table(catalog, &table)?;
    if let Some(relay) = single.relay.take() {
        out.set_joins(relay);
        return Ok(out);
    }
    if query.aggregate {
        fold_in_regions(&mut single, query.reads_no_cell);
    }
    out.set_single(single);
    Ok(out)
}

/// The single read of a forward limit that reads the data table: its ranges in key order, read
/// by one scan that stops after the limit's rows (HBase's own scan limit), so it reads what the
/// first rows take, as the joins' stream of the data table would, without the joins. None when
/// the query reads an index or a relay: the joins answer it then (an index's keys are not in data
/// order, and its rows need their data rows read).
fn limited_single_read(catalog: &Catalog, query: &Query<'_>) -> Result<Option<TablePlan>> {
    let Some(mut single) = branch_single_read(catalog, query)? else {
        return Ok(None);
    };
    if single.index_number != -1 {
        return Ok(None);
    }
    single.limit = query.limit;
    if query.explain {
        single.explain.push_str(&explain::limited_scan(query.limit));
    }
    Ok(Some(single))
}

/// The single read of a reversed query that reads the data table, or an index in which each of its
/// fields has one value (there its keys sort as the data keys do, within each salt bucket of a
/// salted one: docs/indexes.md): its regions' ranges read as the forward plan reads them, each
/// region in forward windows from the top down, a salted index's buckets all at once and merged by
/// data key, so the rows come in descending data-key order (the reader's business:
/// `ParallelScanner`). None when the query reads another index (whose order is not the data
/// table's) or a relay: the joins answer it then.
fn reversed_single_read(catalog: &Catalog, query: &Query<'_>) -> Result<Option<TablePlan>> {
    let Some(mut single) = branch_single_read(catalog, query)? else {
        return Ok(None);
    };
    if single.index_number != -1 {
        let Some(buckets) = in_data_order(catalog, &single.index, &query.branches[0].conditions) else {
            return Ok(None);
        };
        single.merge_salt_buckets = buckets.is_some();
        if query.explain {
            single
                .explain
                .push_str(&explain::index_in_data_order(&single.index, buckets));
        }
    }
    if query.explain {
        single.explain.push_str(explain::DESCENDING_WINDOWS);
    }
    Ok(Some(single))
}

/// The single read of the query's one branch (its rows, not folded), or None when several
/// indexes would relay it: what a limited or reversed single read starts from.
fn branch_single_read(catalog: &Catalog, query: &Query<'_>) -> Result<Option<TablePlan>> {
    let table = TableQuery {
        query: SourceQuery {
            conditions: &query.branches[0].conditions,
            ..query.source
        },
        explain: query.explain,
        relay_streams: true,
        fold: false,
    };
    let single = plan_table(catalog, &table)?;
    Ok(single.relay.is_none().then_some(single))
}

/// Whether `index`'s rows that meet `conditions` sort as their data rows do, within each salt
/// bucket when it is salted (`Some(buckets)`): each of its fields has one value (an `=`, or an `IN`
/// of one value, among the AND-ed conditions), so its keys differ only in the salt byte and the
/// data key after the fields, in data order. None when they do not.
fn in_data_order(catalog: &Catalog, index: &str, conditions: &[Condition]) -> Option<Option<u32>> {
    let index = catalog.index(index)?;
    let one_value = index.key_fields().all(|field| {
        conditions
            .iter()
            .any(|c| c.field == field && c.values.len() == 1 && matches!(c.op.enum_value(), Ok(Op::EQ) | Ok(Op::IN)))
    });
    one_value.then(|| index.schema().salt().map(|salt| salt.buckets))
}

/// What the regions read of a plan they fold, decided here for the client and its explain alike:
/// every index row's key checked by the client when the index does not hold the cells folded, and
/// one cell of each data row when no cell is (the scan's own filter: `TableQuery::fold`).
fn fold_in_regions(plan: &mut TablePlan, reads_no_cell: bool) {
    plan.check_every_row = !plan.index.is_empty() && !plan.covered;
    plan.first_cell_only = plan.index.is_empty() && reads_no_cell;
}
