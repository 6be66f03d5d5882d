//! A predicate compiled to a byte-level program, evaluated per row with no allocation.
//!
//! Per row, first a branch-free pass over the cheap tests, all of one shape: an 8-byte big-endian
//! window of the row, masked, must lie in `[low, low + span]` (`(word & mask) - low <= span`,
//! wrapping). A single-value equality is `span = 0`; a plain range on a field of at most 8 bytes
//! masks the field's bytes and takes with it the equalities on the bytes before the field in its
//! window (they are its most significant bytes, so prefix and range compare as one number). Rows
//! fail these tests unpredictably (that is what a filter is for), and a mispredicted branch costs
//! more than the few tests it would skip, so they are all done and one branch decides. Then, only
//! for rows that passed, the rest: IN sets (a branch-free binary search), ranges with exclusions,
//! fields wider than 8 bytes (compared as bytes), and everything on keys shorter than 8 bytes.

use std::ops::Bound;

use crate::error::{Error, Result};
use crate::key::{be_u64, Constraint, FieldBytes, Location, Predicate, Schema};
use crate::limits;

#[derive(Debug, Clone)]
pub(super) struct Program {
    key_length: usize,
    /// Some field allows no value: nothing matches.
    never: bool,
    /// Equalities and plain narrow ranges (keys of 8 bytes or more).
    windows: Vec<WindowTest>,
    /// Equalities on keys shorter than one window, byte by byte.
    bytes: Vec<MaskedByte>,
    /// Everything else, tested only on rows that pass the windows and bytes.
    checks: Vec<FieldCheck>,
}

/// `low <= (row[offset..offset + 8] as big-endian u64) & mask <= low + span`.
#[derive(Debug, Clone, Copy)]
struct WindowTest {
    offset: usize,
    mask: u64,
    low: u64,
    span: u64,
}

impl WindowTest {
    #[inline(always)]
    #[deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    fn fails(&self, row: &[u8]) -> bool {
        (load_u64(row, self.offset) & self.mask).wrapping_sub(self.low) > self.span
    }
}

/// A plain range on a field of 1..=8 bytes, as unsigned integers of the field's bytes.
struct NarrowRange {
    offset: usize,
    width: usize,
    low: u64,
    high: u64,
}

#[derive(Debug, Clone, Copy)]
struct MaskedByte {
    offset: usize,
    mask: u8,
    value: u8,
}

#[derive(Debug, Clone)]
enum FieldCheck {
    /// A field of 1..=8 bytes read as a big-endian unsigned integer (same order as its bytes).
    Narrow {
        offset: usize,
        width: usize,
        test: NarrowTest,
    },
    /// A wider field, compared as bytes.
    Wide {
        offset: usize,
        width: usize,
        constraint: Constraint,
    },
}

#[derive(Debug, Clone)]
enum NarrowTest {
    In(Vec<u64>),
    /// Inclusive bounds, sorted exclusions.
    Range {
        low: u64,
        high: u64,
        excluded: Vec<u64>,
    },
}

impl Program {
    pub(super) fn compile(schema: &Schema, predicate: &Predicate) -> Result<Program> {
        let key_length = schema.key_length();
        let mut program = Program {
            key_length,
            never: predicate.is_unsatisfiable(),
            windows: vec![],
            bytes: vec![],
            checks: vec![],
        };
        let mut ranges = vec![];
        let mut eq_mask = vec![0u8; key_length];
        let mut eq_value = vec![0u8; key_length];
        let mut program_bytes = 0usize;
        for (index, constraint) in &predicate.constraints {
            let location = schema.fields()[*index].location;
            program_bytes = program_bytes.saturating_add(constraint_size(constraint));
            if program_bytes > limits::MAX_PROGRAM_BYTES {
                return Err(Error::LimitExceeded {
                    what: "compiled program size in bytes".into(),
                    found: program_bytes,
                    limit: limits::MAX_PROGRAM_BYTES,
                });
            }
            match (location, constraint) {
                (_, Constraint::Points(points)) if points.is_empty() => program.never = true,
                (Location::Bit { offset, mask }, Constraint::Points(points)) => {
                    if points.len() == 1 {
                        eq_mask[offset] |= mask;
                        if points[0][0] != 0 {
                            eq_value[offset] |= mask;
                        }
                    } // both values allowed: no check
                }
                (Location::Bit { .. }, Constraint::Range { .. }) => {
                    return Err(Error::Internal("a bool constraint was not reduced to points".into()))
                }
                (Location::Bytes { offset, width }, Constraint::Points(points)) if points.len() == 1 => {
                    eq_mask[offset..offset + width].fill(0xff);
                    eq_value[offset..offset + width].copy_from_slice(&points[0]);
                }
                (Location::Bytes { offset, width }, constraint) => match field_check(offset, width, constraint) {
                    FieldCheck::Narrow {
                        test:
                            NarrowTest::Range {
                                low,
                                high,
                                ref excluded,
                            },
                        ..
                    } if excluded.is_empty() && key_length >= 8 => ranges.push(NarrowRange {
                        offset,
                        width,
                        low,
                        high,
                    }),
                    check => program.checks.push(check),
                },
            }
        }
        for range in &ranges {
            program.never |= range.low > range.high;
            let test = range_window(range, &mut eq_mask, &eq_value);
            program.windows.push(test);
        }
        program.fold_equalities(&eq_mask, &eq_value);
        // Cheap, selective tests first: narrow before wide.
        program.checks.sort_by_key(|c| matches!(c, FieldCheck::Wide { .. }));
        Ok(program)
    }

    /// Packs the equality mask into 8-byte windows; the last window is moved back to end at the
    /// key's end (overlapping bytes already covered are masked out), so every load is in bounds.
    fn fold_equalities(&mut self, mask: &[u8], value: &[u8]) {
        let len = mask.len();
        if len < 8 {
            self.bytes = (0..len)
                .filter(|&i| mask[i] != 0)
                .map(|i| MaskedByte {
                    offset: i,
                    mask: mask[i],
                    value: value[i] & mask[i],
                })
                .collect();
            return;
        }
        let mut start = 0;
        while start < len {
            let offset = start.min(len - 8);
            let mut word_mask = [0u8; 8];
            let mut word_value = [0u8; 8];
            for i in start..(offset + 8) {
                word_mask[i - offset] = mask[i];
                word_value[i - offset] = value[i] & mask[i];
            }
            let mask = u64::from_be_bytes(word_mask);
            if mask != 0 {
                self.windows.push(WindowTest {
                    offset,
                    mask,
                    low: u64::from_be_bytes(word_value),
                    span: 0,
                });
            }
            start = offset + 8;
        }
    }

    /// Whether `row` (of any length) satisfies the program; a wrong length never does.
    #[inline]
    pub(super) fn matches(&self, row: &[u8]) -> bool {
        match self.quick_verdict(row) {
            Some(verdict) => verdict,
            None => self.other_checks_allow(row),
        }
    }

    /// The answer of the cheap tests alone: `Some(false)` when the row fails one (or has the wrong
    /// length), `Some(true)` when it passes and nothing else is asked, `None` when the other
    /// checks must decide. Cannot panic (the lints on it reject indexing, arithmetic that can
    /// overflow, unwrap and panics), so the per-row FFI calls run it without the cost of a panic
    /// guard.
    #[inline]
    #[deny(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable
    )]
    pub(super) fn quick_verdict(&self, row: &[u8]) -> Option<bool> {
        if row.len() != self.key_length || self.never {
            return Some(false);
        }
        // Branch-free: every cheap test is done, and their results combined with `|`.
        let mut fails = false;
        for w in &self.windows {
            fails |= w.fails(row);
        }
        if !self.bytes.is_empty() {
            fails |= self.bytes_fail(row);
        }
        if fails {
            Some(false)
        } else if self.checks.is_empty() {
            Some(true)
        } else {
            None
        }
    }

    /// Out of line (keys shorter than 8 bytes only): keeps registers free in the hot loop above.
    #[inline(never)]
    #[deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    fn bytes_fail(&self, row: &[u8]) -> bool {
        let mut fails = false;
        for b in &self.bytes {
            fails |= row.get(b.offset).is_none_or(|&byte| byte & b.mask != b.value);
        }
        fails
    }

    /// Out of line: most rows never get here, and the hot loop above stays small without it.
    #[inline(never)]
    fn other_checks_allow(&self, row: &[u8]) -> bool {
        self.checks.iter().all(|c| c.allows(row))
    }
}

impl FieldCheck {
    #[inline]
    fn allows(&self, row: &[u8]) -> bool {
        match self {
            FieldCheck::Narrow { offset, width, test } => {
                let v = load_narrow(row, *offset, *width);
                match test {
                    NarrowTest::In(set) => contains_sorted(set, v),
                    NarrowTest::Range { low, high, excluded } => {
                        *low <= v && v <= *high && (excluded.is_empty() || excluded.binary_search(&v).is_err())
                    }
                }
            }
            FieldCheck::Wide {
                offset,
                width,
                constraint,
            } => constraint.allows(&row[*offset..*offset + *width]),
        }
    }
}

fn field_check(offset: usize, width: usize, constraint: &Constraint) -> FieldCheck {
    if width > 8 {
        return FieldCheck::Wide {
            offset,
            width,
            constraint: constraint.clone(),
        };
    }
    let to_u64 = |b: &FieldBytes| be_u64(b);
    let max = if width == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    };
    let test = match constraint {
        Constraint::Points(points) => NarrowTest::In(points.iter().map(to_u64).collect()),
        Constraint::Range { low, high, excluded } => {
            // Inclusive integer bounds; an exclusive bound at the end of the domain empties the range.
            let (low, high) = match (low, high) {
                (Bound::Excluded(l), _) if to_u64(l) == max => (1, 0),
                (_, Bound::Excluded(h)) if to_u64(h) == 0 => (1, 0),
                _ => (
                    match low {
                        Bound::Unbounded => 0,
                        Bound::Included(l) => to_u64(l),
                        Bound::Excluded(l) => to_u64(l) + 1,
                    },
                    match high {
                        Bound::Unbounded => max,
                        Bound::Included(h) => to_u64(h),
                        Bound::Excluded(h) => to_u64(h) - 1,
                    },
                ),
            };
            NarrowTest::Range {
                low,
                high,
                excluded: excluded.iter().map(to_u64).collect(),
            }
        }
    };
    FieldCheck::Narrow { offset, width, test }
}

/// The window test of a plain range: the 8-byte window that ends where the field ends (or starts
/// the key), masked to the field and to the equalities on the bytes before it in the window, which
/// are taken out of `eq_mask`. With the prefix `P` of those equalities above the field, `P·low` to
/// `P·high` is one unsigned range (bytes after the field are masked to 0). Needs a key of at least
/// 8 bytes.
fn range_window(range: &NarrowRange, eq_mask: &mut [u8], eq_value: &[u8]) -> WindowTest {
    let end = range.offset + range.width;
    let offset = end.saturating_sub(8);
    let shift = 8 * (offset + 8 - end) as u32;
    let field_mask = if range.width == 8 {
        u64::MAX
    } else {
        ((1u64 << (8 * range.width)) - 1) << shift
    };
    let (mut mask, mut prefix) = (field_mask, 0u64);
    for at in offset..range.offset {
        let bit = 8 * (7 - (at - offset)) as u32;
        mask |= u64::from(eq_mask[at]) << bit;
        prefix |= u64::from(eq_value[at] & eq_mask[at]) << bit;
        eq_mask[at] = 0;
    }
    WindowTest {
        offset,
        mask,
        low: prefix | (range.low << shift),
        span: range.high.wrapping_sub(range.low) << shift,
    }
}

/// Whether the sorted, non-empty `set` holds `v`: a binary search whose steps depend only on the
/// set's length, each a conditional move rather than a branch the row decides.
#[inline]
fn contains_sorted(set: &[u64], v: u64) -> bool {
    let mut base = 0usize;
    let mut size = set.len();
    while size > 1 {
        let half = size / 2;
        base = if set[base + half] <= v { base + half } else { base };
        size -= half;
    }
    set.get(base) == Some(&v)
}

fn constraint_size(constraint: &Constraint) -> usize {
    let sum = |v: &[FieldBytes]| v.iter().map(|b| b.len() + 8).sum::<usize>();
    match constraint {
        Constraint::Points(points) => sum(points),
        Constraint::Range { excluded, .. } => sum(excluded) + 64,
    }
}

/// Big-endian u64 at `offset`; 0 past the end (never happens: windows are inside the key).
#[inline]
#[deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
fn load_u64(row: &[u8], offset: usize) -> u64 {
    row.get(offset..offset.wrapping_add(8))
        .and_then(|s| <[u8; 8]>::try_from(s).ok())
        .map_or(0, u64::from_be_bytes)
}

#[inline]
fn load_narrow(row: &[u8], offset: usize, width: usize) -> u64 {
    match width {
        8 => load_u64(row, offset),
        4 => row
            .get(offset..offset + 4)
            .and_then(|s| <[u8; 4]>::try_from(s).ok())
            .map_or(0, |b| u64::from(u32::from_be_bytes(b))),
        _ => row.get(offset..offset + width).map_or(0, be_u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_free_search_finds_exactly_the_members() {
        for size in 1..40u64 {
            let set: Vec<u64> = (0..size).map(|i| 3 * i + 1).collect();
            for v in 0..(3 * size + 3) {
                assert_eq!(
                    contains_sorted(&set, v),
                    set.binary_search(&v).is_ok(),
                    "size {size}, v {v}"
                );
            }
        }
    }

    /// Every plain range on a field of every width and place in a 13-byte key, with every
    /// equality prefix before it, against the values directly.
    #[test]
    fn range_windows_test_prefix_and_field_exactly() {
        let key_length = 13;
        for width in 1..=8usize {
            for offset in 0..=(key_length - width) {
                // (An empty range, low > high, makes the whole program `never`.)
                for (low, high) in [(0u64, 0u64), (1, 2), (0, 5), (3, 3), (0, 7)] {
                    let range = NarrowRange {
                        offset,
                        width,
                        low,
                        high,
                    };
                    let mut eq_mask = vec![0u8; key_length];
                    let eq_value: Vec<u8> = (0..key_length as u8).map(|b| b.wrapping_mul(37)).collect();
                    // Equalities everywhere except on the field: only those before it may be taken.
                    for (at, m) in eq_mask.iter_mut().enumerate() {
                        if at < offset || at >= offset + width {
                            *m = if at % 3 == 0 { 0xf0 } else { 0xff };
                        }
                    }
                    let before = eq_mask.clone();
                    let test = range_window(&range, &mut eq_mask, &eq_value);
                    for at in 0..key_length {
                        let taken = before[at] != eq_mask[at];
                        assert!(!taken || (at < offset && at + 8 >= offset + width), "byte {at} taken");
                    }
                    for field in 0..8u64 {
                        for prefix_ok in [true, false] {
                            let mut row = eq_value.clone();
                            if !prefix_ok {
                                if let Some(at) = (0..offset).rev().find(|&a| before[a] != eq_mask[a]) {
                                    row[at] ^= 0x80;
                                } else {
                                    continue;
                                }
                            }
                            let bytes = field.to_be_bytes();
                            row[offset..offset + width].copy_from_slice(&bytes[8 - width..]);
                            let value = be_u64(&row[offset..offset + width]);
                            let expected = prefix_ok && low <= value && value <= high;
                            assert_eq!(
                                !test.fails(&row),
                                expected,
                                "offset {offset} width {width} {low}..={high} field {field} prefix {prefix_ok}"
                            );
                        }
                    }
                }
            }
        }
    }
}
