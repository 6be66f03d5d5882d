//! The range algorithm: turns a predicate into the narrowest sorted set of row-key ranges, the way
//! Phoenix's skip scan does, so most rows are never read. The lowest planning layer: the planner
//! (`plan`: the choosers, the scan, table and join plans) and its requests (`plan_wire`) sit on
//! top of it.
//!
//! The key is walked slot by slot ([`Schema::slots`]: salt byte, then each field or shared bool
//! byte). Each slot
//! whose values are a small known set multiplies the prefixes (cartesian product, capped); the
//! first slot with a range ends every prefix with that range's bounds; the first unconstrained
//! slot ends the walk. The ranges are only an optimisation: conditions they do not enforce
//! exactly stay in the residual predicate, evaluated per row by the native comparator.

use std::ops::Bound;

use crate::key::{Constraint, FieldBytes, KeySlot, Predicate, Schema};
use crate::limits::{MAX_MAX_RANGES, MAX_PLAN_KEY_BYTES, MAX_SALT_COMBINATIONS};

/// Per-key overhead counted against `MAX_PLAN_KEY_BYTES` (vector header and allocation).
const KEY_OVERHEAD: usize = 32;

/// A planned range: start inclusive, stop exclusive, `None` stop = end of table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    pub start: Vec<u8>,
    pub stop: Option<Vec<u8>>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub ranges: Vec<Range>,
    /// Fields whose constraint every key inside the ranges satisfies.
    pub exact_fields: Vec<usize>,
    pub capped: bool,
    /// The cap on ranges the plan was made with.
    pub max_ranges: usize,
    /// Salt buckets read, when the schema is salted.
    pub buckets_read: Option<usize>,
}

/// Plans ranges for a normalized predicate.
pub fn plan(schema: &Schema, predicate: &Predicate, max_ranges: usize) -> Plan {
    let max_ranges = max_ranges.clamp(1, MAX_MAX_RANGES);
    let salt_check_at = schema.salt().map(|salt| {
        salt.fields
            .iter()
            .map(|&i| schema.fields()[i].location.end())
            .max()
            .unwrap_or(0)
    });
    let mut walk = Walk {
        prefixes: vec![Vec::new()],
        exact_fields: Vec::new(),
        capped: false,
        max_ranges,
        salt_check_at,
    };
    if predicate.is_unsatisfiable() {
        return Plan {
            ranges: Vec::new(),
            exact_fields: Vec::new(),
            capped: false,
            max_ranges,
            buckets_read: None,
        };
    }
    let mut buckets_read = None;
    for slot in schema.slots() {
        match slot {
            KeySlot::Salt => {
                let buckets = salt_buckets(schema, predicate, max_ranges);
                buckets_read = Some(buckets.len());
                if buckets.len() > max_ranges {
                    walk.capped = true;
                    return walk.finish(Vec::new(), false, buckets_read);
                }
                walk.prefixes = buckets.into_iter().map(|b| vec![b]).collect();
            }
            KeySlot::Bits { members, .. } => {
                // All bools sharing this byte form one slot.
                let Some(bytes) = bit_group_values(predicate, &members) else {
                    break;
                };
                if !walk.extend(&bytes, max_ranges) {
                    walk.capped = true;
                    break;
                }
                walk.exact_fields.extend(
                    members
                        .iter()
                        .map(|&(i, _)| i)
                        .filter(|&i| predicate.constraint(i).is_some()),
                );
                walk.drop_impossible_salts(schema);
            }
            KeySlot::Field {
                field: index, width, ..
            } => {
                let Some(constraint) = predicate.constraint(index) else {
                    break;
                };
                let later_constrained = predicate.constraints.iter().any(|(i, _)| *i > index);
                match constraint {
                    Constraint::Points(points) => {
                        if walk.extend(points, max_ranges) {
                            walk.exact_fields.push(index);
                            walk.drop_impossible_salts(schema);
                            continue;
                        }
                        walk.capped = true;
                        let low = Bound::Included(points[0].clone());
                        let high = Bound::Included(points[points.len() - 1].clone());
                        return walk.finish_with_range(index, &low, &high, false, buckets_read);
                    }
                    Constraint::Range { low, high, excluded } => {
                        // A small range on a narrow field followed by more conditions is worth
                        // expanding into points, so the next slot can narrow further.
                        if later_constrained && width <= 8 {
                            if let Some(points) = enumerate(low, high, excluded, width, walk.room(width, max_ranges)) {
                                if walk.extend(&points, max_ranges) {
                                    walk.exact_fields.push(index);
                                    walk.drop_impossible_salts(schema);
                                    continue;
                                }
                            }
                        }
                        return walk.finish_with_range(index, low, high, excluded.is_empty(), buckets_read);
                    }
                }
            }
        }
    }
    walk.finish(Vec::new(), false, buckets_read)
}

struct Walk {
    prefixes: Vec<Vec<u8>>,
    exact_fields: Vec<usize>,
    capped: bool,
    max_ranges: usize,
    /// Key length a prefix needs to hold every salt field; `None` once checked or unsalted.
    salt_check_at: Option<usize>,
}

impl Walk {
    /// Once prefixes hold every salt field, keeps those whose salt byte is the one `encode`
    /// would write for them: bucket x value combinations that cannot exist are not read.
    fn drop_impossible_salts(&mut self, schema: &Schema) {
        let Some(needed) = self.salt_check_at else { return };
        if self.prefixes.first().is_none_or(|p| p.len() < needed) {
            return;
        }
        self.salt_check_at = None;
        let salt = schema.salt().expect("salted schema");
        self.prefixes.retain(|prefix| {
            let stored = salt
                .fields
                .iter()
                .map(|&i| crate::key::read_field(&schema.fields()[i], prefix));
            schema.salt_of(stored) == prefix[0]
        });
    }

    /// How many values of `width` bytes each prefix may be extended by within both caps (the
    /// prefixes all have the same length).
    fn room(&self, width: usize, max_ranges: usize) -> usize {
        let prefixes = self.prefixes.len().max(1);
        (max_ranges / prefixes).min(MAX_PLAN_KEY_BYTES / self.key_bytes(width) / prefixes)
    }

    /// Bytes counted for one key of a prefix plus `width` bytes.
    fn key_bytes(&self, width: usize) -> usize {
        self.prefixes.first().map_or(0, Vec::len) + width + KEY_OVERHEAD
    }

    /// Appends each value to each prefix, if the product stays within the caps.
    fn extend(&mut self, values: &[FieldBytes], max_ranges: usize) -> bool {
        if values.is_empty() || values.len() > self.room(values[0].len(), max_ranges) {
            return false;
        }
        self.prefixes = self
            .prefixes
            .iter()
            .flat_map(|p| values.iter().map(move |v| [p.as_slice(), v.as_slice()].concat()))
            .collect();
        true
    }

    fn finish_with_range(
        mut self,
        field: usize,
        low: &Bound<FieldBytes>,
        high: &Bound<FieldBytes>,
        exact: bool,
        buckets_read: Option<usize>,
    ) -> Plan {
        // Each prefix becomes a range of two keys one field longer: over the byte cap, read
        // every key of each prefix instead and leave the field to the residual.
        let width = match (low, high) {
            (Bound::Included(b) | Bound::Excluded(b), _) | (_, Bound::Included(b) | Bound::Excluded(b)) => b.len(),
            _ => 0,
        };
        if self.prefixes.len().saturating_mul(2 * self.key_bytes(width)) > MAX_PLAN_KEY_BYTES {
            self.capped = true;
            return self.finish(Vec::new(), false, buckets_read);
        }
        if exact {
            self.exact_fields.push(field);
        }
        let ranges = self
            .prefixes
            .iter()
            .filter_map(|p| bounded_range(p, low, high))
            .collect();
        self.finish(ranges, true, buckets_read)
    }

    /// `ranges` are used as given when the walk ended in a range slot; otherwise each prefix
    /// becomes the range of all keys starting with it.
    fn finish(self, ranges: Vec<Range>, ended_in_range: bool, buckets_read: Option<usize>) -> Plan {
        let ranges = if ended_in_range {
            ranges
        } else {
            self.prefixes
                .iter()
                .map(|p| Range {
                    start: p.clone(),
                    stop: successor(p),
                })
                .collect()
        };
        let mut exact_fields = self.exact_fields;
        exact_fields.sort_unstable();
        Plan {
            ranges: merge(ranges),
            exact_fields,
            capped: self.capped,
            max_ranges: self.max_ranges,
            buckets_read,
        }
    }
}

/// The byte values of a shared bool byte (its fields' indexes and masks) allowed by its fields'
/// constraints, or `None` when no field of the group is constrained. Unused bits are 0, as
/// `encode` writes them.
fn bit_group_values(predicate: &Predicate, members: &[(usize, u8)]) -> Option<Vec<FieldBytes>> {
    if members.iter().all(|&(i, _)| predicate.constraint(i).is_none()) {
        return None;
    }
    let mut bytes: Vec<u8> = vec![0];
    for &(i, mask) in members {
        let allowed: Vec<bool> = match predicate.constraint(i) {
            Some(Constraint::Points(points)) => points.iter().map(|p| p[0] != 0).collect(),
            _ => vec![false, true],
        };
        bytes = bytes
            .iter()
            .flat_map(|b| allowed.iter().map(move |&bit| if bit { b | mask } else { *b }))
            .collect();
    }
    bytes.sort_unstable();
    Some(bytes.into_iter().map(|b| vec![b]).collect())
}

/// The salt buckets to read: only those of the salt fields' allowed combinations when all are
/// fixed to few values, else every bucket (the last one included).
pub(crate) fn salt_buckets(schema: &Schema, predicate: &Predicate, max_ranges: usize) -> Vec<u8> {
    let salt = schema.salt().expect("salted schema");
    let all = || (0..salt.buckets).map(|b| b as u8).collect();
    let mut combos: Vec<Vec<FieldBytes>> = vec![Vec::new()];
    // Bytes of one combination, counting each value's vector.
    let mut combo_bytes = KEY_OVERHEAD;
    for &i in &salt.fields {
        let Some(Constraint::Points(points)) = predicate.constraint(i) else {
            return all();
        };
        let count = combos.len().saturating_mul(points.len());
        combo_bytes += points.first().map_or(0, Vec::len) + KEY_OVERHEAD;
        if count > max_ranges.min(MAX_SALT_COMBINATIONS) || count.saturating_mul(combo_bytes) > MAX_PLAN_KEY_BYTES {
            return all();
        }
        combos = combos
            .iter()
            .flat_map(|c| {
                points
                    .iter()
                    .map(move |p| [c.as_slice(), std::slice::from_ref(p)].concat())
            })
            .collect();
    }
    let mut buckets: Vec<u8> = combos.iter().map(|c| schema.salt_of(c)).collect();
    buckets.sort_unstable();
    buckets.dedup();
    buckets
}

/// All values of a narrow field within the bounds, minus exclusions, if at most `limit`.
fn enumerate(
    low: &Bound<FieldBytes>,
    high: &Bound<FieldBytes>,
    excluded: &[FieldBytes],
    width: usize,
    limit: usize,
) -> Option<Vec<FieldBytes>> {
    let as_int = |b: &FieldBytes| b.iter().fold(0u128, |acc, &x| (acc << 8) | u128::from(x));
    let max = (1u128 << (8 * width)) - 1;
    let first = match low {
        Bound::Unbounded => 0,
        Bound::Included(l) => as_int(l),
        Bound::Excluded(l) => as_int(l) + 1,
    };
    let last = match high {
        Bound::Unbounded => max,
        Bound::Included(h) => as_int(h),
        Bound::Excluded(h) => as_int(h).checked_sub(1)?,
    };
    if first > last || last - first >= limit as u128 + excluded.len() as u128 {
        return None;
    }
    let points: Vec<FieldBytes> = (first..=last)
        .map(|v| v.to_be_bytes()[16 - width..].to_vec())
        .filter(|p| excluded.binary_search(p).is_err())
        .collect();
    (!points.is_empty() && points.len() <= limit).then_some(points)
}

/// The keys with `prefix` whose next field lies within the bounds.
fn bounded_range(prefix: &[u8], low: &Bound<FieldBytes>, high: &Bound<FieldBytes>) -> Option<Range> {
    let join = |v: &FieldBytes| [prefix, v.as_slice()].concat();
    let start = match low {
        Bound::Unbounded => prefix.to_vec(),
        Bound::Included(l) => join(l),
        Bound::Excluded(l) => successor(&join(l))?,
    };
    let stop = match high {
        Bound::Unbounded => successor(prefix),
        Bound::Included(h) => successor(&join(h)),
        Bound::Excluded(h) => Some(join(h)),
    };
    match &stop {
        Some(stop) if *stop <= start => None,
        _ => Some(Range { start, stop }),
    }
}

/// The first key after every key that starts with `prefix` (same length, plus one with
/// carry), or `None` when there is none (all 0xFF, or empty: the end of the table).
pub fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut next = prefix.to_vec();
    for i in (0..next.len()).rev() {
        if next[i] == 0xFF {
            next[i] = 0;
        } else {
            next[i] += 1;
            return Some(next);
        }
    }
    None
}

/// Plans an OR of AND-predicates: each branch planned on its own (a branch that needs the full
/// table makes the union the full table), the ranges of all merged in key order (the salt byte
/// first on a salted schema), overlapping or touching ones joined. Nothing is known to be enforced
/// exactly for every row of the union, so the residual is the whole OR. Beyond `max_ranges`
/// ranges, or `MAX_PLAN_KEY_BYTES` of keys, one covering range is read instead (`capped`).
pub fn plan_union(schema: &Schema, predicates: &[&Predicate], max_ranges: usize) -> Plan {
    let max_ranges = max_ranges.clamp(1, MAX_MAX_RANGES);
    let mut union: Vec<Range> = Vec::new();
    let mut capped = false;
    for predicate in predicates {
        // Merged branch by branch, so at most one branch's plan and the union are held at once.
        let branch = plan(schema, predicate, max_ranges);
        capped |= branch.capped;
        union.extend(branch.ranges);
        union = merge(union);
        let key_bytes: usize = union
            .iter()
            .map(|r| r.start.len() + r.stop.as_ref().map_or(0, Vec::len) + 2 * KEY_OVERHEAD)
            .sum();
        if union.len() > max_ranges || key_bytes > MAX_PLAN_KEY_BYTES {
            capped = true;
            union = covering(&union);
        }
    }
    Plan {
        ranges: union,
        exact_fields: Vec::new(),
        capped,
        max_ranges,
        buckets_read: None,
    }
}

/// The one range from the first range's start to the last one's stop (`ranges` sorted, disjoint).
fn covering(ranges: &[Range]) -> Vec<Range> {
    match (ranges.first(), ranges.last()) {
        (Some(first), Some(last)) => vec![Range {
            start: first.start.clone(),
            stop: last.stop.clone(),
        }],
        _ => Vec::new(),
    }
}

/// Sorts and joins overlapping or touching ranges.
fn merge(mut ranges: Vec<Range>) -> Vec<Range> {
    ranges.sort_by(|a, b| a.start.cmp(&b.start));
    let mut merged: Vec<Range> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if let Some(last) = merged.last_mut() {
            let touches = last.stop.as_ref().is_none_or(|stop| range.start <= *stop);
            if touches {
                last.stop = match (&last.stop, &range.stop) {
                    (Some(a), Some(b)) => Some(a.max(b).clone()),
                    _ => None,
                };
                continue;
            }
        }
        merged.push(range);
    }
    merged
}
