//! The join planner (docs/joins.md): each AND-branch's key streams (`stream_choice`), each
//! source's value combinations planned by the table planner as exact prefixes of its keys, and
//! the one data-table scan of the branches with no stream.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::eval::Comparator;
use crate::key::Catalog;
use crate::proto::rowkey::{
    Condition, IndexHint, JoinBranchPlan, JoinPlan, KeyStreamSpec, PredicateComparatorSpec, PredicateSpec, StreamPoint,
    TablePlan,
};

use super::explain;
use super::scan::{residual_spec, union_plan};
use super::source_choice::{answers_alone, SourceQuery, DEFAULT_TABLE_ROWS};
use super::stream_choice::{self, branch_cost, is_prefix_range, kept_streams, stream_sources, StreamSource};
use super::table::{plan_table, TableQuery};

/// What a join plan is asked: the query's AND-branches, the sources they may read, and how the
/// rows are read.
pub(crate) struct JoinQuery<'a> {
    pub(crate) branches: &'a [PredicateSpec],
    pub(crate) max_ranges: usize,
    pub(crate) hint: IndexHint,
    pub(crate) hint_index: &'a str,
    /// Intersect a branch's streams by leapfrogging instead of relaying them.
    pub(crate) leapfrog: bool,
    /// For the explain text: the rows the query stops after (0: all), and their order.
    pub(crate) limit: u32,
    pub(crate) reversed: bool,
    /// Write the plan's explain text.
    pub(crate) explain: bool,
    /// What the query's rows are read as (columns, keys only), when they are read; none: keys
    /// planned alone (no stream is marked covered).
    pub(crate) reads: Option<&'a SourceQuery<'a>>,
}

/// The joins of a query (docs/joins.md): each AND-branch's key streams ([`plan_join_branch`]), and
/// the one data-table scan of the branches with no stream (one branch's own plan, or the union of
/// theirs, so rows two such branches share, or that lie between their ranges, are read once).
pub(crate) fn plan_join(catalog: &Catalog, join: &JoinQuery<'_>) -> Result<JoinPlan> {
    let mut out = JoinPlan::new();
    for branch in join.branches {
        out.branches.push(plan_join_branch(
            catalog,
            &branch.conditions,
            join.max_ranges,
            join.hint,
            join.hint_index,
            join.leapfrog,
        )?);
    }
    mark_covered(catalog, &mut out, join.reads);
    out.data_scan_branches = (0..out.branches.len() as u32)
        .filter(|&i| out.branches[i as usize].streams.is_empty())
        .collect();
    out.data_scan = match out.data_scan_branches.as_slice() {
        [] => None.into(),
        [one] => out.branches[*one as usize].data_plan.clone(),
        several => {
            let mut any_of = PredicateComparatorSpec::new();
            any_of.any_of = several.iter().map(|&i| join.branches[i as usize].clone()).collect();
            let comparator = Comparator::from_parsed(&residual_spec(catalog.schema(), any_of.clone()))?;
            Some(union_plan(&comparator, &any_of.any_of, join.max_ranges)).into()
        }
    };
    if join.explain {
        let conditions: Vec<&[Condition]> = join.branches.iter().map(|b| b.conditions.as_slice()).collect();
        out.explain = explain::describe_join(&out, &conditions, join.limit, join.reversed);
    }
    Ok(out)
}

/// Marks the stream of a plan of one branch read by one stream `covered` when its rows answer what
/// the query reads, so no data row is read after it: the data table's own rows (a limit on the data
/// table: its rows read with the query's columns, not keys and then a `Get` each), or an index's
/// whose VERIFIED rows hold what is read (a reversed read through a salted index, a limit through
/// any index).
fn mark_covered(catalog: &Catalog, plan: &mut JoinPlan, reads: Option<&SourceQuery<'_>>) {
    let Some(reads) = reads else {
        return;
    };
    if let [branch] = plan.branches.as_mut_slice() {
        if let [stream] = branch.streams.as_mut_slice() {
            stream.covered = stream.index.is_empty()
                || catalog
                    .index(&stream.index)
                    .is_some_and(|index| answers_alone(index, reads));
        }
    }
}

/// The key streams of one AND-branch ([`stream_choice`]) from the sources the hint allows: each
/// source's value combinations planned as exact prefixes of its keys (a source whose combinations do
/// not all plan so is no stream), the smallest kept in lead order, relayed unless `leapfrog`, and the
/// branch's cost; without a stream, the data table's plan.
pub(crate) fn plan_join_branch(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: usize,
    hint: IndexHint,
    hint_index: &str,
    leapfrog: bool,
) -> Result<JoinBranchPlan> {
    let sources = stream_sources(catalog, conditions, hint, hint_index);
    plan_streams(catalog, conditions, max_ranges, &sources, leapfrog)
}

/// The relay of a table plan's query (`TablePlan::relay`): when `chosen`, an index that does not
/// cover the query, is one of two or more key streams. Without statistics that index may be the
/// larger stream; a relay's reads follow the smaller, whichever it is.
pub(super) fn relay_streams(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: usize,
    chosen: &str,
    explain: bool,
) -> Result<Option<JoinPlan>> {
    let sources = stream_sources(catalog, conditions, IndexHint::INDEX_HINT_AUTOMATIC, "");
    if sources.len() < 2 {
        return Ok(None); // the common query: no planning of streams
    }
    let branch = plan_streams(catalog, conditions, max_ranges, &sources, false)?;
    if !branch.relay || !branch.streams.iter().any(|s| s.index == chosen) {
        return Ok(None);
    }
    let mut relay = JoinPlan::new();
    relay.branches.push(branch);
    if explain {
        relay.explain = explain::describe_join(&relay, &[conditions], 0, false);
    }
    Ok(Some(relay))
}

fn plan_streams(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: usize,
    sources: &[StreamSource],
    leapfrog: bool,
) -> Result<JoinBranchPlan> {
    // A source's key ranges and estimate; their explain text is not shown, only the data plan's.
    let key_plan = |conditions: &[Condition], index: &str, explain: bool| -> Result<TablePlan> {
        let query = SourceQuery {
            conditions,
            max_ranges,
            table_rows: DEFAULT_TABLE_ROWS as f64,
            hint: if index.is_empty() {
                IndexHint::NO_INDEX
            } else {
                IndexHint::USE_INDEX
            },
            hint_index: index,
            key_only: true,
            columns: &[],
            families: &[],
        };
        plan_table(
            catalog,
            &TableQuery {
                query,
                explain,
                relay_streams: false,
                fold: false,
            },
        )
    };
    let estimate = |plan: &TablePlan, index: &str| -> Result<f64> {
        plan.alternatives
            .iter()
            .find(|a| a.index == index)
            .map(|a| a.estimated_rows)
            .ok_or_else(|| Error::Internal(format!("no estimate for source '{index}'")))
    };

    let mut streams: Vec<KeyStreamSpec> = Vec::new();
    'sources: for source in sources {
        let Some(points) = stream_choice::points(&source.conditions) else {
            continue;
        };
        let mut stream = KeyStreamSpec::new();
        // A repeated value (`IN ('a', 'b', 'a')`) plans the same ranges twice: one read of them
        // is enough, and only disjoint points can be read one after another under a limit.
        let mut planned: BTreeSet<Vec<(Vec<u8>, Vec<u8>)>> = BTreeSet::new();
        for equalities in points {
            let plan = key_plan(&equalities, &source.index, false)?.plan.unwrap_or_default();
            if plan.capped || !plan.ranges.iter().all(|r| is_prefix_range(&r.start, &r.stop)) {
                continue 'sources; // not one run of keys per combination, in data-key order
            }
            if !planned.insert(plan.ranges.iter().map(|r| (r.start.clone(), r.stop.clone())).collect()) {
                continue;
            }
            let mut point = StreamPoint::new();
            point.equalities = equalities;
            point.ranges = plan.ranges;
            stream.points.push(point);
        }
        stream.estimated_rows = estimate(&key_plan(&source.conditions, &source.index, false)?, &source.index)?;
        stream.index = source.index.clone();
        stream.index_number = catalog.index_number(&source.index);
        stream.conditions = source.conditions.clone();
        streams.push(stream);
    }
    streams.sort_by(|a, b| a.estimated_rows.total_cmp(&b.estimated_rows));

    let mut out = JoinBranchPlan::new();
    if streams.is_empty() {
        let data = key_plan(conditions, "", true)?;
        out.cost = estimate(&data, "")?;
        out.data_plan = data.plan;
        return Ok(out);
    }
    let estimates: Vec<f64> = streams.iter().map(|s| s.estimated_rows).collect();
    for (stream, kept) in streams.into_iter().zip(kept_streams(&estimates)) {
        if kept {
            out.streams.push(stream);
        } else {
            out.left_out.push(stream);
        }
    }
    let kept: Vec<f64> = out.streams.iter().map(|s| s.estimated_rows).collect();
    out.cost = branch_cost(&kept);
    out.relay = !leapfrog && out.streams.len() >= 2;
    Ok(out)
}
