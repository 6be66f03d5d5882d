//! Choosing the source a query reads, the data table or one of its indexes: the query is planned on the data schema and
//! on every ACTIVE index schema (same conditions, fields by name), each plan's rows read are
//! estimated, and the cheapest is chosen unless the query forces or forbids an index.
//!
//! There are no statistics: a plan's estimate is the table's rows times the selectivity of the
//! conditions its ranges enforce (the classic defaults of a planner without statistics: each value
//! of an equality or IN on a number keeps 1 %, on a string, bytes or hash field, identifiers as a
//! rule, 0.01 %; a bool value half; a range a third, a bounded range a tenth), plus
//! one row per range (each is a seek). An index that does not cover the query pays a data-row lookup
//! per index row, counted as `LOOKUP_COST` rows. That ranks what matters: fixing leading key fields
//! beats scanning, more fixed fields beat fewer, and an uncovered index is chosen whenever it reads
//! far fewer rows (Phoenix needs a hint for that).

use std::ops::Bound;

use crate::error::{Error, Result};
use crate::key::{Catalog, Constraint, Index, Kind, Predicate, Schema};
use crate::proto::rowkey::{Column, Condition, IndexHint, IndexState};
use crate::ranges::{plan, Plan};

/// A data-row lookup (a random read) costs as much as scanning this many rows.
pub(super) const LOOKUP_COST: f64 = 4.0;
/// The table size assumed when the request gives none.
pub(crate) const DEFAULT_TABLE_ROWS: u64 = 1_000_000;

const EQUALITY_SELECTIVITY: f64 = 0.01;
const IDENTIFIER_EQUALITY_SELECTIVITY: f64 = 0.0001;
const OPEN_RANGE_SELECTIVITY: f64 = 1.0 / 3.0;
const BOUNDED_RANGE_SELECTIVITY: f64 = 0.1;

/// What the source is chosen for: the query's conditions and what it reads.
pub(crate) struct SourceQuery<'a> {
    pub(crate) conditions: &'a [Condition],
    pub(crate) max_ranges: usize,
    pub(crate) table_rows: f64,
    /// A `USE_INDEX` hint's index is ACTIVE in the catalog (the caller checked it).
    pub(crate) hint: IndexHint,
    pub(crate) hint_index: &'a str,
    /// The query reads keys only (any index covers it).
    pub(crate) key_only: bool,
    /// The columns read; none named: the `families` whole.
    pub(crate) columns: &'a [Column],
    pub(crate) families: &'a [Vec<u8>],
}

/// Why a source was not chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exclusion {
    /// An index that is not ACTIVE is never read.
    NotActive(IndexState),
    /// The query's index hint excludes it.
    Hint,
    /// Allowed, but its estimate is not the lowest.
    ReadsMore,
}

/// One source considered: the data table (empty name) or an index.
pub(super) struct Alternative<'a> {
    pub(super) index: &'a str,
    pub(super) schema: &'a Schema,
    /// The source answers alone (always so for the data table).
    pub(super) covered: bool,
    pub(super) estimated_rows: f64,
    pub(super) excluded: Option<Exclusion>,
}

/// The sources considered, in catalog order (the data table first), and the one chosen with its
/// predicate and range plan.
pub(super) struct SourceChoice<'a> {
    pub(super) alternatives: Vec<Alternative<'a>>,
    pub(super) chosen: usize,
    pub(super) predicate: Predicate,
    pub(super) plan: Plan,
}

/// Plans the query on the data schema and on every index schema, estimates each plan's rows and
/// chooses the cheapest the hint allows.
pub(super) fn choose_source<'a>(catalog: &'a Catalog, query: &SourceQuery<'_>) -> Result<SourceChoice<'a>> {
    // Candidates: (index name, schema, covered, not active); the data table first.
    let mut candidates: Vec<(&str, &Schema, bool, Option<Exclusion>)> = vec![("", catalog.schema(), true, None)];
    for index in catalog.indexes() {
        let covered = answers_alone(index, query);
        let not_active = (index.state() != IndexState::ACTIVE).then(|| Exclusion::NotActive(index.state()));
        candidates.push((index.name(), index.schema(), covered, not_active));
    }

    let mut best: Option<(usize, f64, Predicate, Plan)> = None;
    let mut alternatives = Vec::with_capacity(candidates.len());
    for (position, (name, schema, covered, not_active)) in candidates.into_iter().enumerate() {
        let predicate = Predicate::from_conditions(schema, query.conditions)?;
        let plan = plan(schema, &predicate, query.max_ranges);
        let rows = estimated_rows(schema, &predicate, &plan, query.table_rows, name.is_empty() || covered);
        let allowed = match query.hint {
            IndexHint::INDEX_HINT_AUTOMATIC => not_active.is_none(),
            IndexHint::NO_INDEX => name.is_empty(),
            IndexHint::USE_INDEX => name == query.hint_index,
        };
        alternatives.push(Alternative {
            index: name,
            schema,
            covered,
            estimated_rows: rows,
            excluded: not_active.or((!allowed).then_some(Exclusion::Hint)),
        });
        if allowed && best.as_ref().is_none_or(|(_, cost, _, _)| rows < *cost) {
            best = Some((position, rows, predicate, plan));
        }
    }
    let (chosen, _, predicate, plan) = best.ok_or_else(|| Error::Internal("no plan was allowed".into()))?;
    for (position, alternative) in alternatives.iter_mut().enumerate() {
        if position != chosen && alternative.excluded.is_none() {
            alternative.excluded = Some(Exclusion::ReadsMore);
        }
    }
    Ok(SourceChoice {
        alternatives,
        chosen,
        predicate,
        plan,
    })
}

/// Whether `index`'s rows answer `query` alone: it reads keys only, or every column it reads is
/// covered (every family of the table, when it names none).
pub(super) fn answers_alone(index: &Index, query: &SourceQuery<'_>) -> bool {
    query.key_only
        || if query.columns.is_empty() {
            index.covers_families(query.families)
        } else {
            query.columns.iter().all(|c| index.covers(&c.family, &c.qualifier))
        }
}

/// Rows a plan reads: the table's rows times the selectivity of what its ranges enforce, one per
/// range, and per index row a lookup unless covered.
pub(super) fn estimated_rows(
    schema: &Schema,
    predicate: &Predicate,
    plan: &Plan,
    table_rows: f64,
    no_lookup: bool,
) -> f64 {
    if plan.ranges.is_empty() {
        return 0.0; // the conditions contradict each other: nothing is read
    }
    let selectivity: f64 = plan
        .exact_fields
        .iter()
        .filter_map(|&i| {
            predicate
                .constraint(i)
                .map(|c| constraint_selectivity(schema.fields()[i].kind, c))
        })
        .product();
    let rows = table_rows * selectivity + plan.ranges.len() as f64;
    if no_lookup {
        rows
    } else {
        rows * (1.0 + LOOKUP_COST)
    }
}

fn constraint_selectivity(kind: Kind, constraint: &Constraint) -> f64 {
    match constraint {
        Constraint::Points(points) if kind == Kind::Bool => points.len() as f64 / 2.0,
        Constraint::Points(points) => {
            let each = match kind {
                Kind::Md5(_) | Kind::JavaHash | Kind::FixedString(_) | Kind::FixedBytes(_) => {
                    IDENTIFIER_EQUALITY_SELECTIVITY
                }
                _ => EQUALITY_SELECTIVITY,
            };
            (points.len() as f64 * each).min(1.0)
        }
        Constraint::Range { low, high, .. } => match (low, high) {
            (Bound::Unbounded, Bound::Unbounded) => 1.0,
            (Bound::Unbounded, _) | (_, Bound::Unbounded) => OPEN_RANGE_SELECTIVITY,
            _ => BOUNDED_RANGE_SELECTIVITY,
        },
    }
}
