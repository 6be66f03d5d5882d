//! Planning a query over a data table and its indexes: the query is planned on the data schema and
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
use crate::index::Catalog;
use crate::limits::DEFAULT_MAX_RANGES;
use crate::planner::{plan_message, Plan};
use crate::predicate::{Constraint, Predicate};
use crate::proto::rowkey::{IndexHint, IndexState, PlanAlternative, TablePlan, TablePlanRequest};
use crate::schema::{Kind, Schema};
use crate::wire;

/// A data-row lookup (a random read) costs as much as scanning this many rows.
pub const LOOKUP_COST: f64 = 4.0;
/// The table size assumed when the request gives none.
pub const DEFAULT_TABLE_ROWS: u64 = 1_000_000;

const EQUALITY_SELECTIVITY: f64 = 0.01;
const IDENTIFIER_EQUALITY_SELECTIVITY: f64 = 0.0001;
const OPEN_RANGE_SELECTIVITY: f64 = 1.0 / 3.0;
const BOUNDED_RANGE_SELECTIVITY: f64 = 0.1;

/// Plans a serialized `TablePlanRequest` without a catalog over an already parsed `catalog` (the
/// client's catalog handle): no catalog shipped and validated again per plan.
pub fn plan_table_request_on(catalog: &Catalog, request: &[u8]) -> Result<Vec<u8>> {
    let request: TablePlanRequest = wire::parse(request, "table plan request")?;
    if request.catalog.is_some() {
        return Err(Error::Corrupt {
            what: "table plan request",
            detail: "a catalog in a request planned over a catalog handle".into(),
        });
    }
    let plan = plan_table(catalog, &request)?;
    wire::serialize(&plan, "table plan")
}

/// The plan of the request's query over `catalog`'s table and indexes.
pub fn plan_table(catalog: &Catalog, request: &TablePlanRequest) -> Result<TablePlan> {
    let conditions = &request.predicate.get_or_default().conditions;
    let max_ranges = match request.max_ranges as usize {
        0 => DEFAULT_MAX_RANGES,
        n => n,
    };
    let table_rows = match request.table_rows {
        0 => DEFAULT_TABLE_ROWS,
        n => n,
    } as f64;
    let hint = request.hint.enum_value().map_err(|n| Error::Corrupt {
        what: "table plan request",
        detail: format!("unknown index hint {n}"),
    })?;
    if hint == IndexHint::USE_INDEX {
        match catalog.index(&request.hint_index) {
            None => {
                return Err(Error::InvalidIndex {
                    index: request.hint_index.clone(),
                    detail: "the query asks for it, but the table has no index of this name".into(),
                })
            }
            Some(index) if index.state() != IndexState::ACTIVE => {
                return Err(Error::InvalidIndex {
                    index: request.hint_index.clone(),
                    detail: format!("the query asks for it, but it is {}", not_read_because(index.state())),
                })
            }
            Some(_) => {}
        }
    }

    // Candidates: (index name, schema, covered); the data table first.
    let mut candidates: Vec<(String, &Schema, bool, Option<&'static str>)> =
        vec![(String::new(), catalog.schema(), true, None)];
    for index in catalog.indexes() {
        let covered = request.key_only
            || if request.columns.is_empty() {
                index.covers_families(&request.families)
            } else {
                request.columns.iter().all(|c| index.covers(&c.family, &c.qualifier))
            };
        let note = (index.state() != IndexState::ACTIVE).then(|| not_read_because(index.state()));
        candidates.push((index.name().to_owned(), index.schema(), covered, note));
    }

    let mut best: Option<(usize, f64, Plan, crate::proto::rowkey::ScanPlan)> = None;
    let mut alternatives = Vec::with_capacity(candidates.len());
    for (position, (name, schema, covered, note)) in candidates.iter().enumerate() {
        let predicate = Predicate::from_conditions(schema, conditions)?;
        let (plan, message) = plan_message(schema, &predicate, conditions, max_ranges, !name.is_empty());
        let rows = estimated_rows(schema, &predicate, &plan, table_rows, name.is_empty() || *covered);
        let allowed = match hint {
            IndexHint::INDEX_HINT_AUTOMATIC => note.is_none(),
            IndexHint::NO_INDEX => name.is_empty(),
            IndexHint::USE_INDEX => *name == request.hint_index,
        };
        let mut alternative = PlanAlternative::new();
        alternative.index = name.clone();
        alternative.estimated_rows = rows;
        alternative.covered = *covered;
        alternative.note = note.map(str::to_owned).unwrap_or_else(|| {
            if allowed {
                String::new()
            } else {
                "excluded by the query's index hint".into()
            }
        });
        alternatives.push(alternative);
        if allowed && best.as_ref().is_none_or(|(_, cost, _, _)| rows < *cost) {
            best = Some((position, rows, plan, message));
        }
    }
    let (chosen, _, _, message) = best.ok_or_else(|| Error::Internal("no plan was allowed".into()))?;
    for (position, alternative) in alternatives.iter_mut().enumerate() {
        if position != chosen && alternative.note.is_empty() {
            alternative.note = "reads more".into();
        }
    }
    let mut out = TablePlan::new();
    out.index = candidates[chosen].0.clone();
    out.covered = !out.index.is_empty() && candidates[chosen].2;
    out.explain = explain(&out.index, out.covered, &message.explain, &alternatives);
    out.plan = protobuf::MessageField::some(message);
    out.alternatives = alternatives;
    Ok(out)
}

/// Rows a plan reads: the table's rows times the selectivity of what its ranges enforce, one per
/// range, and per index row a lookup unless covered.
pub(crate) fn estimated_rows(
    schema: &Schema,
    predicate: &Predicate,
    plan: &Plan,
    table_rows: f64,
    no_lookup: bool,
) -> f64 {
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

fn explain(chosen: &str, covered: bool, plan: &str, alternatives: &[PlanAlternative]) -> String {
    let mut s = if chosen.is_empty() {
        "DATA TABLE ".to_owned()
    } else {
        format!(
            "INDEX {chosen} ({}) ",
            if covered {
                "covered: the index rows answer alone"
            } else {
                "each row's data row is read"
            }
        )
    };
    s.push_str(plan);
    s.push_str("  alternatives (estimated rows read):\n");
    for a in alternatives {
        let name = if a.index.is_empty() {
            "data table"
        } else {
            a.index.as_str()
        };
        let chosen_mark = if a.index == chosen { "  <- chosen" } else { "" };
        let note = if a.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", a.note)
        };
        s.push_str(&format!("    {name}: {:.0}{note}{chosen_mark}\n", a.estimated_rows));
    }
    s
}

/// Why the planner does not read an index that is not ACTIVE.
fn not_read_because(state: IndexState) -> &'static str {
    match state {
        IndexState::DROPPING => "DROPPING: maintained while its table exists, never read again",
        _ => "still BUILDING: maintained on writes, not read until its backfill ends",
    }
}
