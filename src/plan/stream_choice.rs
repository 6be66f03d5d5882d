//! Choosing the key streams of one AND-branch of a query (docs/joins.md): every source whose
//! fields all have `=`/`IN` conditions, the data table's longest such prefix and each ACTIVE index
//! on such fields, gives its matching data keys in data-key order, one run of keys per value
//! combination. The smallest streams are intersected (relayed or leapfrogged by the Java join
//! readers); a branch without one reads the data table's own plan. A branch's plan is made of the
//! choice by `join::plan_join_branch`.

use super::source_choice::{DEFAULT_TABLE_ROWS, LOOKUP_COST};
use crate::key::Catalog;
use crate::proto::rowkey::{Condition, IndexHint, IndexState, Op};
use crate::ranges::successor;

/// Value combinations (IN-lists multiplied) above which a source is not a stream: each is a seek per lead key.
pub const MAX_POINTS: usize = 64;
/// Streams intersected at most (the smallest ones).
pub(super) const MAX_STREAMS: usize = 4;
/// A stream estimated to hold more of the table than this is not used beside a smaller one: in a
/// leapfrog a seek per candidate key to drop few of them, in a relay turns that reach little
/// further than the smaller stream's.
pub(super) const MAX_FOLLOWER_FRACTION: f64 = 0.25;

/// A source that may be a stream: the data table (empty name) or an index, and its fixed fields'
/// conditions in its key order.
pub(super) struct StreamSource {
    pub(super) index: String,
    pub(super) conditions: Vec<Condition>,
}

/// The first `=`/`IN` condition of each field, in the branch's order (another on the same field
/// is checked per key).
fn fixed(conditions: &[Condition]) -> Vec<&Condition> {
    let mut fixed: Vec<&Condition> = Vec::new();
    for c in conditions {
        let op = c.op.enum_value_or_default();
        if (op == Op::EQ || op == Op::IN) && !fixed.iter().any(|f| f.field == c.field) {
            fixed.push(c);
        }
    }
    fixed
}

/// The sources the hint allows: the data table's `=`/`IN` prefix when not empty, then every
/// ACTIVE index whose fields all have such conditions.
pub(super) fn stream_sources(
    catalog: &Catalog,
    conditions: &[Condition],
    hint: IndexHint,
    hint_index: &str,
) -> Vec<StreamSource> {
    let fixed = fixed(conditions);
    let condition_of = |field: &str| fixed.iter().find(|c| c.field == field).map(|c| (*c).clone());
    let mut sources = Vec::new();
    if hint != IndexHint::USE_INDEX {
        let prefix: Vec<Condition> = catalog
            .schema()
            .fields()
            .iter()
            .map_while(|f| condition_of(&f.name))
            .collect();
        if !prefix.is_empty() {
            sources.push(StreamSource {
                index: String::new(),
                conditions: prefix,
            });
        }
    }
    if hint == IndexHint::NO_INDEX {
        return sources;
    }
    for index in catalog.indexes() {
        let allowed = hint != IndexHint::USE_INDEX || index.name() == hint_index;
        if !allowed || index.state() != IndexState::ACTIVE {
            continue;
        }
        let conditions: Option<Vec<Condition>> = index.key_fields().map(condition_of).collect();
        if let Some(conditions) = conditions {
            sources.push(StreamSource {
                index: index.name().to_owned(),
                conditions,
            });
        }
    }
    sources
}

/// Every combination of one value per condition, as equalities; `None` above [`MAX_POINTS`].
pub(super) fn points(conditions: &[Condition]) -> Option<Vec<Vec<Condition>>> {
    let combinations = conditions.iter().try_fold(1usize, |n, c| {
        n.checked_mul(c.values.len()).filter(|&n| n <= MAX_POINTS)
    })?;
    let mut out: Vec<Vec<Condition>> = Vec::with_capacity(combinations);
    out.push(Vec::new());
    for c in conditions {
        out = out
            .into_iter()
            .flat_map(|partial| {
                c.values.iter().map(move |value| {
                    let mut equality = Condition::new();
                    equality.field = c.field.clone();
                    equality.op = Op::EQ.into();
                    equality.values.push(value.clone());
                    let mut more = partial.clone();
                    more.push(equality);
                    more
                })
            })
            .collect();
    }
    Some(out)
}

/// Whether a range is every key with one prefix: its stop is the prefix's successor. Only then
/// are one value combination's keys one run in data-key order.
pub fn is_prefix_range(start: &[u8], stop: &[u8]) -> bool {
    !start.is_empty()
        && match successor(start) {
            Some(next) => {
                // The successor with its trailing zero bytes (the carried 0xFF) dropped.
                let end = next.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                stop == &next[..end]
            }
            None => stop.is_empty(),
        }
}

/// Of the streams' estimates, sorted ascending: how many lead the branch (the rest are left out:
/// beyond [`MAX_STREAMS`], or followers above [`MAX_FOLLOWER_FRACTION`] of the table).
pub(super) fn kept_streams(sorted_estimates: &[f64]) -> Vec<bool> {
    sorted_estimates
        .iter()
        .enumerate()
        .map(|(i, &rows)| i == 0 || (i < MAX_STREAMS && rows <= MAX_FOLLOWER_FRACTION * DEFAULT_TABLE_ROWS as f64))
        .collect()
}

/// A branch's cost in rows read: each stream reads about as many keys as the lead, and each key
/// all of them match is a data-row lookup.
pub fn branch_cost(sorted_estimates: &[f64]) -> f64 {
    let lead = sorted_estimates[0];
    let matches = sorted_estimates[1..]
        .iter()
        .fold(lead, |m, &rows| m * (rows / DEFAULT_TABLE_ROWS as f64).min(1.0));
    sorted_estimates.len() as f64 * lead + LOOKUP_COST * matches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_range_stops_at_the_successor_of_its_start() {
        assert!(is_prefix_range(&[1, 2], &[1, 3]));
        assert!(is_prefix_range(&[1, 0xff], &[2]));
        assert!(is_prefix_range(&[0xff, 0xff], &[]));
        assert!(!is_prefix_range(&[1, 2], &[1, 4]));
        assert!(!is_prefix_range(&[], &[1]));
        assert!(!is_prefix_range(&[1, 0xff], &[2, 0]));
    }

    #[test]
    fn followers_beyond_four_or_a_quarter_of_the_table_are_left_out() {
        let quarter = MAX_FOLLOWER_FRACTION * DEFAULT_TABLE_ROWS as f64;
        assert_eq!(
            kept_streams(&[1e6, 2e6]),
            vec![true, false],
            "the lead is kept whatever its size"
        );
        assert_eq!(
            kept_streams(&[10.0, 20.0, quarter, quarter + 1.0]),
            vec![true, true, true, false]
        );
        assert_eq!(kept_streams(&[1.0; 6]), vec![true, true, true, true, false, false]);
    }

    #[test]
    fn a_branch_costs_its_streams_reads_and_the_lookups_of_what_they_share() {
        assert_eq!(branch_cost(&[100.0]), 100.0 + LOOKUP_COST * 100.0);
        let two = branch_cost(&[100.0, 10_000.0]);
        assert!((two - (200.0 + LOOKUP_COST * 1.0)).abs() < 1e-9, "{two}");
    }
}
