//! A predicate compiled to a byte-level program, evaluated per row with no allocation:
//! all single-value equalities folded into masked 64-bit words (`(row & mask) == value`),
//! then per-field checks (IN sets, ranges, exclusions) on big-endian integers when the field
//! fits in 8 bytes, on byte slices otherwise.

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
    checks: Vec<FieldCheck>,
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
                (Location::Bytes { offset, width }, constraint) => {
                    program.checks.push(field_check(offset, width, constraint));
                }
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
        self.words.iter().all(|w| load_u64(row, w.offset) & w.mask == w.value)
            && self.bytes.iter().all(|b| row[b.offset] & b.mask == b.value)
            && self.checks.iter().all(|c| c.allows(row))
    }
}

impl FieldCheck {
    #[inline]
    fn allows(&self, row: &[u8]) -> bool {
        match self {
            FieldCheck::Narrow { offset, width, test } => {
                let v = load_narrow(row, *offset, *width);
                match test {
                    NarrowTest::In(set) => set.binary_search(&v).is_ok(),
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
