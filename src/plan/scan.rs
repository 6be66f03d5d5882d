//! The scan plan of a query over one key schema: its key ranges (`ranges`), the residual
//! comparator for the conditions they do not enforce exactly, and whether to read them with the
//! skip scan (`scan_choice`); of an OR of AND-branches, the union of the branches' ranges.

use crate::error::{Error, Result};
use crate::eval::Comparator;
use crate::key::{Predicate, Schema, FORMAT_VERSION};
use crate::proto::rowkey::{
    comparator_spec::Kind as SpecKind, ComparatorSpec, Condition, KeyRange, PredicateComparatorSpec, PredicateSpec,
    ScanPlan,
};
use crate::ranges::{plan, plan_union, Plan};

use super::explain::{self, BranchEstimate};
use super::scan_choice::{self, ScanMethod};
use super::source_choice::{estimated_rows, DEFAULT_TABLE_ROWS};

/// The plan of a predicate comparator's query (`comparator`, compiled from `spec`): of its OR
/// when it has `any_of` branches, else of its predicate.
pub(crate) fn scan_plan(
    comparator: &Comparator,
    spec: &PredicateComparatorSpec,
    max_ranges: usize,
) -> Result<ScanPlan> {
    if !spec.any_of.is_empty() {
        return Ok(union_plan(comparator, &spec.any_of, max_ranges));
    }
    let predicate = comparator
        .predicate()
        .ok_or_else(|| Error::Internal("predicate comparator has no predicate".into()))?;
    let schema = comparator.schema();
    let conditions = &spec.predicate.get_or_default().conditions;
    Ok(scan_plan_of(
        schema,
        predicate,
        &plan(schema, predicate, max_ranges),
        conditions,
        OtherLengths::Filtered,
        true,
    ))
}

/// Rows of another key length inside a plan's ranges: what a scan whose ranges enforce every
/// condition must still do about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OtherLengths {
    /// Filter them out per row: a data table may hold any row.
    Filtered,
    /// Nothing: an index table holds only keys of its schema.
    NoneInTable,
    /// Nothing: the regions' fold skips them itself (a plan the regions aggregate), and a native
    /// call per row to check them again costs about as much as the fold.
    SkippedByFold,
}

/// The plan of an OR predicate comparator (`any_of`, validated and compiled as `comparator`): the
/// union of its branches' ranges ([`plan_union`]), the whole OR as the residual filter, and the
/// explanation: each branch's own ranges and estimate, and the union's.
pub(super) fn union_plan(comparator: &Comparator, branches: &[PredicateSpec], max_ranges: usize) -> ScanPlan {
    let schema = comparator.schema();
    let predicates = comparator.branches();
    let union = plan_union(schema, &predicates, max_ranges);
    let mut out = ScanPlan::new();
    out.ranges = range_messages(&union);
    let mut any_of = PredicateComparatorSpec::new();
    any_of.any_of = branches.to_vec();
    out.residual = protobuf::MessageField::some(residual_spec(schema, any_of));
    out.capped = union.capped;
    let table_rows = DEFAULT_TABLE_ROWS as f64;
    let mut estimates = Vec::with_capacity(branches.len());
    let mut skip = None;
    for (i, (_, predicate)) in branches.iter().zip(&predicates).enumerate() {
        let own = plan(schema, predicate, union.max_ranges);
        let rows = estimated_rows(schema, predicate, &own, table_rows, true);
        let choice = scan_choice::choose(schema, predicate, &own);
        if skip.is_none() && choice.method == ScanMethod::SkipScan {
            skip = Some((i, choice));
        }
        estimates.push(BranchEstimate {
            ranges: own.ranges.len(),
            capped: own.capped,
            rows,
        });
    }
    // Rows inside the union of ranges that enforce their branch exactly all match: a skip scan
    // pays only when some branch leaves conditions to check, as for a single predicate.
    out.skip_scan = skip.is_some() && !union.ranges.is_empty();
    let skip = skip.filter(|_| out.skip_scan);
    out.explain = explain::describe_union(schema, &union, branches, &estimates, table_rows, skip);
    out
}

/// The residual comparator of a plan over `schema`: a predicate comparator of `predicate`.
pub(super) fn residual_spec(schema: &Schema, predicate: PredicateComparatorSpec) -> ComparatorSpec {
    let mut residual = ComparatorSpec::new();
    residual.format_version = FORMAT_VERSION;
    residual.schema = protobuf::MessageField::some(schema.canonical_spec().clone());
    residual.kind = Some(SpecKind::Predicate(predicate));
    residual
}

fn range_messages(plan: &Plan) -> Vec<KeyRange> {
    plan.ranges
        .iter()
        .map(|r| {
            let mut k = KeyRange::new();
            k.start = r.start.clone();
            k.stop = r.stop.clone().unwrap_or_default();
            k
        })
        .collect()
}

/// The message of `plan`, the ranges of `conditions` (normalized as `predicate`) over `schema`:
/// the ranges, the residual comparator (over `schema`) for the conditions the ranges do not
/// enforce exactly, whether to read them with the skip scan (data and index scans alike), and,
/// if `explain`, the explanation.
/// `other_lengths`: what becomes of rows of another key length where the ranges enforce every
/// condition, so whether the scan needs a per-row filter at all.
pub(super) fn scan_plan_of(
    schema: &Schema,
    predicate: &Predicate,
    plan: &Plan,
    conditions: &[Condition],
    other_lengths: OtherLengths,
    explain: bool,
) -> ScanPlan {
    let residual_conditions: Vec<Condition> = conditions
        .iter()
        .filter(|c| {
            schema
                .field_index(&c.field)
                .is_ok_and(|i| !plan.exact_fields.contains(&i))
        })
        .cloned()
        .collect();
    let mut out = ScanPlan::new();
    out.ranges = range_messages(plan);
    let mut residual_predicate = PredicateComparatorSpec::new();
    residual_predicate.predicate.mut_or_insert_default().conditions = residual_conditions.clone();
    out.residual = protobuf::MessageField::some(residual_spec(schema, residual_predicate));
    out.capped = plan.capped;
    out.no_residual = residual_conditions.is_empty()
        && match other_lengths {
            OtherLengths::Filtered => false,
            OtherLengths::NoneInTable => true,
            OtherLengths::SkippedByFold => !out.ranges.is_empty(),
        };
    let choice = scan_choice::choose(schema, predicate, plan);
    out.skip_scan = choice.method == ScanMethod::SkipScan;
    if explain {
        let unfiltered = out.no_residual.then_some(other_lengths);
        out.explain = explain::describe_scan(schema, plan, conditions, &residual_conditions, unfiltered, &choice);
    }
    out
}
