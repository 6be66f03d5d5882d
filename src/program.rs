//! A predicate compiled to a byte-level program, evaluated per row with no allocation.
//!
//! Per row, first a branch-free pass over the cheap tests: every single-value equality folded
//! into masked 64-bit words (`(row & mask) == value`), and every plain range on a field of at
//! most 8 bytes as one unsigned compare (`value - low <= high - low`) on the field read out of an
//! 8-byte window. Rows fail these tests unpredictably (that is what a filter is for), and a
//! mispredicted branch costs more than the few tests it would skip, so they are all done and one
//! branch decides. Then, only for rows that passed, the rest: IN sets (a branch-free binary
//! search), ranges with exclusions, and fields wider than 8 bytes (compared as bytes).

use std::ops::Bound;

use crate::codec::FieldBytes;
use crate::error::{Error, Result};
use crate::limits;
use crate::predicate::{Constraint, Predicate};
use crate::schema::{Location, Schema};

#[derive(Debug, Clone)]
pub struct Program {
    key_length: usize,
    /// Some field allows no value: nothing matches.
    never: bool,
    words: Vec<MaskedWord>,
    /// Equalities on keys shorter than one word, byte by byte.
    bytes: Vec<MaskedByte>,
    /// Plain ranges on fields of at most 8 bytes (keys of 8 bytes or more).
    ranges: Vec<WindowRange>,
    /// Everything else, tested only on rows that pass the words, bytes and ranges.
    checks: Vec<FieldCheck>,
}

/// A field of 1..=8 bytes read from the 8-byte big-endian window at `window` (moved back to end
/// at the key's end when the field is near it): `(word >> shift) & mask`.
#[derive(Debug, Clone, Copy)]
struct WindowRead {
    window: usize,
    shift: u32,
    mask: u64,
}

impl WindowRead {
    /// `None` when the key is shorter than one window.
    fn of(offset: usize, width: usize, key_length: usize) -> Option<WindowRead> {
        if key_length < 8 || !(1..=8).contains(&width) {
            return None;
        }
        let window = offset.min(key_length - 8);
        let shift = 8 * (8 - (offset - window) - width) as u32;
        let mask = if width == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * width)) - 1
        };
        Some(WindowRead { window, shift, mask })
    }

    #[inline(always)]
    fn read(&self, row: &[u8]) -> u64 {
        (load_u64(row, self.window) >> self.shift) & self.mask
    }
}

/// `low <= field <= low + span`, as `field - low <= span` (wrapping).
#[derive(Debug, Clone, Copy)]
struct WindowRange {
    read: WindowRead,
    low: u64,
    span: u64,
}

#[derive(Debug, Clone, Copy)]
struct MaskedWord {
    offset: usize,
    mask: u64,
    value: u64,
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
    pub fn compile(schema: &Schema, predicate: &Predicate) -> Result<Program> {
        let key_length = schema.key_length();
        let mut program = Program {
            key_length,
            never: predicate.is_unsatisfiable(),
            words: vec![],
            bytes: vec![],
            ranges: vec![],
            checks: vec![],
        };
        let mut eq_mask = vec![0u8; key_length];
        let mut eq_value = vec![0u8; key_length];
        let mut program_bytes = 0usize;
        for (index, constraint) in &predicate.constraints {
            let location = schema.fields()[*index].location;
            program_bytes = program_bytes.saturating_add(constraint_size(constraint));
            if program_bytes > limits::MAX_PROGRAM_BYTES {
                return Err(Error::LimitExceeded {
                    what: "compiled program size in bytes",
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
                    } if excluded.is_empty() && WindowRead::of(offset, width, key_length).is_some() => {
                        if low > high {
                            program.never = true;
                        }
                        program.ranges.push(WindowRange {
                            read: WindowRead::of(offset, width, key_length).expect("checked above"),
                            low,
                            span: high.wrapping_sub(low),
                        });
                    }
                    check => program.checks.push(check),
                },
            }
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
                self.words.push(MaskedWord {
                    offset,
                    mask,
                    value: u64::from_be_bytes(word_value),
                });
            }
            start = offset + 8;
        }
    }

    pub fn key_length(&self) -> usize {
        self.key_length
    }

    /// Whether `row` (of any length) satisfies the program; a wrong length never does.
    #[inline]
    pub fn matches(&self, row: &[u8]) -> bool {
        if row.len() != self.key_length || self.never {
            return false;
        }
        // Branch-free: every cheap test is done, and their results combined with `|`.
        let mut differs = 0u64;
        for w in &self.words {
            differs |= (load_u64(row, w.offset) & w.mask) ^ w.value;
        }
        for b in &self.bytes {
            differs |= u64::from((row[b.offset] & b.mask) ^ b.value);
        }
        let mut outside = false;
        for r in &self.ranges {
            outside |= r.read.read(row).wrapping_sub(r.low) > r.span;
        }
        differs == 0 && !outside && self.checks.iter().all(|c| c.allows(row))
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

fn be_u64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

#[inline]
fn load_u64(row: &[u8], offset: usize) -> u64 {
    row.get(offset..offset + 8)
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

    #[test]
    fn window_reads_give_the_field_wherever_it_sits() {
        let row: Vec<u8> = (1..=13).collect();
        for width in 1..=8 {
            for offset in 0..=(row.len() - width) {
                let read = WindowRead::of(offset, width, row.len()).expect("a key of 8 bytes or more");
                assert_eq!(
                    read.read(&row),
                    be_u64(&row[offset..offset + width]),
                    "offset {offset}, width {width}"
                );
            }
        }
        assert!(WindowRead::of(0, 4, 7).is_none(), "a key shorter than a window");
    }
}
