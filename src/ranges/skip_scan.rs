//! Skip scan: from a row that fails the predicate, the next key (or, for reverse scans, the
//! previous key) that could match, so the RegionServer seeks there instead of reading every row
//! in between (Phoenix's `SkipScanFilter`, HBase's `FuzzyRowFilter`, for fixed-width keys).
//!
//! The key is cut into slots exactly as the range planner walks it ([`Schema::slots`]): the salt byte, then each field, with
//! bools sharing a byte forming one slot. Each slot holds the sorted, disjoint, inclusive byte
//! intervals its bytes may take: the salt buckets the planner reads, a field's points or its range
//! split at the exclusions, the byte values of a bool byte whose constrained bits are right (the
//! other bits are free), everything for a free slot. A key matches the slots when every slot's
//! bytes lie in its intervals; that is exactly the predicate plus the salt byte being one of the
//! buckets read (the hash itself is not checked, as the planned ranges do not check it either).
//!
//! `next` and `previous` are an odometer over the slots: keep the row's slots while they lie in
//! their intervals, and at the first slot that does not (or, to move strictly past a matching
//! key, at the last slot) step to the next value of that slot, carrying into earlier slots when a
//! slot has no next value, and reset every later slot to its first (or last) value. Each step is
//! a binary search, so an IN set of 100,000 values costs a few comparisons.

use std::ops::Bound;

use super::key_ranges::salt_buckets;
use crate::error::{Error, Result};
use crate::eval::Comparator;
use crate::key::{check_version, increment, Constraint, FieldBytes, KeySlot, Predicate, Schema, FORMAT_VERSION};
use crate::limits::DEFAULT_MAX_RANGES;
use crate::proto::rowkey::{comparator_spec::Kind as SpecKind, SkipScanFilterSpec};
use crate::wire;

/// The compiled skip scan of one predicate over one schema.
#[derive(Debug, Clone)]
pub struct SkipScan {
    key_length: usize,
    slots: Vec<Slot>,
    /// Some slot allows no value: no key matches, every seek answers `None`.
    empty: bool,
    /// The first slot is the salt byte.
    salted: bool,
}

/// One slot: `width` bytes at `offset`, and the intervals its bytes may take.
#[derive(Debug, Clone)]
struct Slot {
    offset: usize,
    width: usize,
    /// Inclusive intervals, sorted and disjoint: interval `i` is `lows[i*width..]` to
    /// `highs[i*width..]`, `width` bytes each (flat, so a 100,000-value IN set is two allocations).
    lows: Vec<u8>,
    highs: Vec<u8>,
}

impl Slot {
    fn new(offset: usize, width: usize, intervals: Vec<(FieldBytes, FieldBytes)>) -> Slot {
        let mut slot = Slot {
            offset,
            width,
            lows: Vec::with_capacity(intervals.len() * width),
            highs: Vec::with_capacity(intervals.len() * width),
        };
        for (low, high) in intervals {
            slot.lows.extend_from_slice(&low);
            slot.highs.extend_from_slice(&high);
        }
        slot
    }

    fn count(&self) -> usize {
        self.lows.len() / self.width
    }

    fn low(&self, i: usize) -> &[u8] {
        &self.lows[i * self.width..(i + 1) * self.width]
    }

    fn high(&self, i: usize) -> &[u8] {
        &self.highs[i * self.width..(i + 1) * self.width]
    }

    fn bytes<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        &key[self.offset..self.offset + self.width]
    }

    fn set(&self, key: &mut [u8], value: &[u8]) {
        key[self.offset..self.offset + self.width].copy_from_slice(value);
    }

    /// The first interval whose high end is at least `v` (`count()` when none).
    fn first_ending_at_or_after(&self, v: &[u8]) -> usize {
        partition(self.count(), |i| self.high(i) < v)
    }

    /// The number of intervals whose low end is at most `v` (the last such is the one before).
    fn starting_at_or_before(&self, v: &[u8]) -> usize {
        partition(self.count(), |i| self.low(i) <= v)
    }

    /// Whether every value of the slot is allowed.
    fn is_free(&self) -> bool {
        self.count() == 1 && self.low(0).iter().all(|&b| b == 0) && self.high(0).iter().all(|&b| b == 0xFF)
    }

    fn contains(&self, v: &[u8]) -> bool {
        let i = self.first_ending_at_or_after(v);
        i < self.count() && self.low(i) <= v
    }
}

/// Copies `row` into `key`: its first `key.len()` bytes, padded with zeros when it is shorter.
fn copy_padded(row: &[u8], key: &mut [u8]) {
    let n = row.len().min(key.len());
    key[..n].copy_from_slice(&row[..n]);
    key[n..].fill(0);
}

/// The first index in `0..n` where `before` turns false (`before` is true, then false).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, n);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// Big-endian -1 in place; the caller knows the value is not all 0x00.
fn decrement(bytes: &mut [u8]) {
    for b in bytes.iter_mut().rev() {
        let (diff, borrow) = b.overflowing_sub(1);
        *b = diff;
        if !borrow {
            return;
        }
    }
}

fn plus_one(bytes: &[u8]) -> Option<FieldBytes> {
    let mut next = bytes.to_vec();
    if next.iter().all(|&b| b == 0xFF) {
        return None;
    }
    increment(&mut next);
    Some(next)
}

fn minus_one(bytes: &[u8]) -> Option<FieldBytes> {
    let mut previous = bytes.to_vec();
    if previous.iter().all(|&b| b == 0) {
        return None;
    }
    decrement(&mut previous);
    Some(previous)
}

/// The intervals of a field's constraint: each point alone, or the range cut at its exclusions.
fn constraint_intervals(constraint: &Constraint, width: usize) -> Vec<(FieldBytes, FieldBytes)> {
    match constraint {
        Constraint::Points(points) => points.iter().map(|p| (p.clone(), p.clone())).collect(),
        Constraint::Range { low, high, excluded } => {
            let low = match low {
                Bound::Unbounded => Some(vec![0; width]),
                Bound::Included(l) => Some(l.clone()),
                Bound::Excluded(l) => plus_one(l),
            };
            let high = match high {
                Bound::Unbounded => Some(vec![0xFF; width]),
                Bound::Included(h) => Some(h.clone()),
                Bound::Excluded(h) => minus_one(h),
            };
            let (Some(mut from), Some(high)) = (low, high) else {
                return Vec::new();
            };
            let mut intervals = Vec::with_capacity(excluded.len() + 1);
            for e in excluded.iter().take_while(|e| **e <= high) {
                if *e < from {
                    continue;
                }
                if *e > from {
                    intervals.push((from.clone(), minus_one(e).expect("e > from >= 0")));
                }
                match plus_one(e) {
                    Some(next) => from = next,
                    None => return intervals,
                }
            }
            if from <= high {
                intervals.push((from, high));
            }
            intervals
        }
    }
}

/// Runs of allowed byte values as intervals of one byte.
fn byte_intervals(allowed: impl Fn(u8) -> bool) -> Vec<(FieldBytes, FieldBytes)> {
    let mut intervals: Vec<(FieldBytes, FieldBytes)> = Vec::new();
    for b in 0..=255u8 {
        if !allowed(b) {
            continue;
        }
        match intervals.last_mut() {
            Some((_, high)) if high[0].checked_add(1) == Some(b) => high[0] = b,
            _ => intervals.push((vec![b], vec![b])),
        }
    }
    intervals
}

impl SkipScan {
    pub fn new(schema: &Schema, predicate: &Predicate) -> SkipScan {
        SkipScan::build(schema, predicate, false)
    }

    /// A skip scan that seeks only to well-formed keys: a byte of bools never takes a value with
    /// a bit no bool owns (the plain one steps such a byte as a number). A position it gives may
    /// be laid out again field by field (an index key) and keep its order.
    pub fn over_well_formed_keys(schema: &Schema, predicate: &Predicate) -> SkipScan {
        SkipScan::build(schema, predicate, true)
    }

    fn build(schema: &Schema, predicate: &Predicate, well_formed: bool) -> SkipScan {
        let slots: Vec<Slot> = schema
            .slots()
            .into_iter()
            .map(|slot| match slot {
                KeySlot::Salt => {
                    let buckets = salt_buckets(schema, predicate, DEFAULT_MAX_RANGES);
                    Slot::new(0, 1, byte_intervals(|b| buckets.binary_search(&b).is_ok()))
                }
                KeySlot::Bits { offset, members } => {
                    // The bools sharing this byte: each constrained bit must take an allowed value.
                    let group: Vec<(u8, &Constraint)> = members
                        .iter()
                        .filter_map(|&(i, mask)| predicate.constraint(i).map(|c| (mask, c)))
                        .collect();
                    let owned = members.iter().fold(0u8, |all, &(_, mask)| all | mask);
                    let allowed = |b: u8| {
                        (!well_formed || b & !owned == 0)
                            && group.iter().all(|(mask, c)| c.allows(&[u8::from(b & mask != 0)]))
                    };
                    Slot::new(offset, 1, byte_intervals(allowed))
                }
                KeySlot::Field { field, offset, width } => {
                    let intervals = match predicate.constraint(field) {
                        Some(c) => constraint_intervals(c, width),
                        None => vec![(vec![0; width], vec![0xFF; width])],
                    };
                    Slot::new(offset, width, intervals)
                }
            })
            .collect();
        let empty = slots.iter().any(|s| s.count() == 0);
        SkipScan {
            key_length: schema.key_length(),
            slots,
            empty,
            salted: schema.salt().is_some(),
        }
    }

    pub fn key_length(&self) -> usize {
        self.key_length
    }

    /// How many leading bytes decide a match: keys of the schema's length that share them all
    /// match or all fail (every slot that does not allow every value ends within them). The
    /// filter keeps the rows after a kept row that share them without asking again.
    pub fn deciding_prefix(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| !s.is_free())
            .map(|s| s.offset + s.width)
            .max()
            .unwrap_or(0)
    }

    /// Where a scan goes from a row that does not match: `next(row)`, or `previous(row)` when the
    /// scan is reversed.
    pub fn seek(&self, row: &[u8], reversed: bool) -> Option<Vec<u8>> {
        let mut key = vec![0; self.key_length];
        matches!(self.seek_into(row, reversed, &mut key), Ok(true)).then_some(key)
    }

    /// [`seek`](Self::seek) into `out` rather than a new vector (the per-seek native path makes no
    /// allocation): true with the key in `out`, false when there is none (`out` is then
    /// unspecified). `out` must be `key_length()` bytes long.
    pub fn seek_into(&self, row: &[u8], reversed: bool, out: &mut [u8]) -> Result<bool> {
        if out.len() != self.key_length {
            return Err(Error::WrongKeyLength {
                expected: self.key_length,
                found: out.len(),
            });
        }
        Ok(if reversed {
            self.previous_into(row, out)
        } else {
            self.next_into(row, out)
        })
    }

    /// Whether every slot of `key` lies in its intervals (a wrong length never does).
    pub fn matches(&self, key: &[u8]) -> bool {
        key.len() == self.key_length && !self.empty && self.slots.iter().all(|s| s.contains(s.bytes(key)))
    }

    /// Whether the salt byte `bucket` is one the scan reads (true for an unsalted schema).
    pub fn salt_allows(&self, bucket: u8) -> bool {
        !self.salted || self.slots[0].contains(&[bucket])
    }

    /// The smallest key of the schema's length strictly greater than `row` whose slots all lie in
    /// their intervals, or `None`. `row` may have any length: a shorter row (a prefix, or another
    /// table's key) is answered from the row padded with zeros, which no key of the schema's
    /// length that is greater than the row can be below; a longer one from its first
    /// `key_length` bytes, which every greater key of the schema's length is above.
    pub fn next(&self, row: &[u8]) -> Option<Vec<u8>> {
        let mut key = vec![0; self.key_length];
        self.next_into(row, &mut key).then_some(key)
    }

    /// The largest key of the schema's length strictly smaller than `row` whose slots all lie in
    /// their intervals, or `None`; for reverse scans. A shorter row is answered from the row
    /// padded with zeros (strictly below it), a longer one from its first `key_length` bytes
    /// (that key itself included: it sorts before the longer row).
    pub fn previous(&self, row: &[u8]) -> Option<Vec<u8>> {
        let mut key = vec![0; self.key_length];
        self.previous_into(row, &mut key).then_some(key)
    }

    /// `next` into `key` (`key_length` bytes): whether there is one.
    fn next_into(&self, row: &[u8], key: &mut [u8]) -> bool {
        if self.empty {
            return false;
        }
        let padded = row.len() < self.key_length;
        copy_padded(row, key);
        self.ceiling(key, !padded)
    }

    /// `previous` into `key` (`key_length` bytes): whether there is one.
    fn previous_into(&self, row: &[u8], key: &mut [u8]) -> bool {
        if self.empty {
            return false;
        }
        let longer = row.len() > self.key_length;
        copy_padded(row, key);
        self.floor(key, !longer)
    }

    /// Turns `key` into the smallest matching key `>= key` (`> key` when `strict`); false when
    /// there is none.
    fn ceiling(&self, key: &mut [u8], strict: bool) -> bool {
        for (i, slot) in self.slots.iter().enumerate() {
            let v = slot.bytes(key);
            let j = slot.first_ending_at_or_after(v);
            if j == slot.count() {
                // Nothing in this slot is that high: a later value in an earlier slot.
                return self.carry_up(key, i);
            }
            if slot.low(j) > v {
                slot.set(key, slot.low(j));
                self.reset_to_first(key, i + 1);
                return true;
            }
        }
        !strict || self.carry_up(key, self.slots.len())
    }

    /// Slots `..end` of `key` lie in their intervals: turns it into the smallest matching key
    /// greater than every key with those slots, by stepping the last slot that can step.
    fn carry_up(&self, key: &mut [u8], end: usize) -> bool {
        for i in (0..end).rev() {
            let slot = &self.slots[i];
            let v = slot.bytes(key);
            let j = slot.first_ending_at_or_after(v);
            if v < slot.high(j) {
                increment(&mut key[slot.offset..slot.offset + slot.width]);
            } else if j + 1 < slot.count() {
                slot.set(key, slot.low(j + 1));
            } else {
                continue;
            }
            self.reset_to_first(key, i + 1);
            return true;
        }
        false
    }

    /// Turns `key` into the largest matching key `<= key` (`< key` when `strict`); false when
    /// there is none.
    fn floor(&self, key: &mut [u8], strict: bool) -> bool {
        for (i, slot) in self.slots.iter().enumerate() {
            let v = slot.bytes(key);
            let n = slot.starting_at_or_before(v);
            if n == 0 {
                return self.carry_down(key, i);
            }
            if slot.high(n - 1) < v {
                slot.set(key, slot.high(n - 1));
                self.reset_to_last(key, i + 1);
                return true;
            }
        }
        !strict || self.carry_down(key, self.slots.len())
    }

    /// Mirror of `carry_up`: the largest matching key smaller than every key with slots `..end`.
    fn carry_down(&self, key: &mut [u8], end: usize) -> bool {
        for i in (0..end).rev() {
            let slot = &self.slots[i];
            let v = slot.bytes(key);
            let j = slot.starting_at_or_before(v) - 1;
            if v > slot.low(j) {
                decrement(&mut key[slot.offset..slot.offset + slot.width]);
            } else if j > 0 {
                slot.set(key, slot.high(j - 1));
            } else {
                continue;
            }
            self.reset_to_last(key, i + 1);
            return true;
        }
        false
    }

    fn reset_to_first(&self, key: &mut [u8], from: usize) {
        for slot in &self.slots[from..] {
            key[slot.offset..slot.offset + slot.width].copy_from_slice(slot.low(0));
        }
    }

    fn reset_to_last(&self, key: &mut [u8], from: usize) {
        for slot in &self.slots[from..] {
            let last = slot.count() - 1;
            key[slot.offset..slot.offset + slot.width].copy_from_slice(slot.high(last));
        }
    }
}

/// The skip scan of an OR of AND-predicates (one branch for a plain predicate): a key matches when
/// it matches some branch, and the next key that can match is the smallest of the branches' next
/// keys (the largest of their previous keys when reversed), none only when no branch has one.
#[derive(Debug, Clone)]
pub struct AnySkipScan {
    key_length: usize,
    branches: Vec<SkipScan>,
}

impl AnySkipScan {
    pub fn new(schema: &Schema, predicates: &[&Predicate]) -> AnySkipScan {
        AnySkipScan::build(schema, predicates, false)
    }

    /// See [`SkipScan::over_well_formed_keys`].
    pub fn over_well_formed_keys(schema: &Schema, predicates: &[&Predicate]) -> AnySkipScan {
        AnySkipScan::build(schema, predicates, true)
    }

    fn build(schema: &Schema, predicates: &[&Predicate], well_formed: bool) -> AnySkipScan {
        AnySkipScan {
            key_length: schema.key_length(),
            branches: predicates
                .iter()
                .map(|p| SkipScan::build(schema, p, well_formed))
                .collect(),
        }
    }

    pub fn key_length(&self) -> usize {
        self.key_length
    }

    /// The longest of the branches' deciding prefixes: keys that share it match the same branches.
    pub fn deciding_prefix(&self) -> usize {
        self.branches.iter().map(SkipScan::deciding_prefix).max().unwrap_or(0)
    }

    /// Whether some branch's slots all lie in their intervals.
    pub fn matches(&self, key: &[u8]) -> bool {
        self.branches.iter().any(|b| b.matches(key))
    }

    /// Whether the salt byte `bucket` is one some branch reads.
    pub fn salt_allows(&self, bucket: u8) -> bool {
        self.branches.iter().any(|b| b.salt_allows(bucket))
    }

    /// [`SkipScan::seek`] over the branches.
    pub fn seek(&self, row: &[u8], reversed: bool) -> Option<Vec<u8>> {
        let mut key = vec![0; self.key_length];
        matches!(self.seek_into(row, reversed, &mut key), Ok(true)).then_some(key)
    }

    /// [`SkipScan::seek_into`] over the branches: the nearest of their keys beyond `row`, with no
    /// allocation (the branches' keys are compared in a stack buffer).
    pub fn seek_into(&self, row: &[u8], reversed: bool, out: &mut [u8]) -> Result<bool> {
        if let [only] = self.branches.as_slice() {
            return only.seek_into(row, reversed, out);
        }
        if out.len() != self.key_length {
            return Err(Error::WrongKeyLength {
                expected: self.key_length,
                found: out.len(),
            });
        }
        let mut buffer = [0u8; crate::limits::MAX_KEY_BYTES];
        let candidate = buffer.get_mut(..self.key_length).ok_or(Error::WrongKeyLength {
            expected: crate::limits::MAX_KEY_BYTES,
            found: self.key_length,
        })?;
        let mut found = false;
        for branch in &self.branches {
            if branch.seek_into(row, reversed, candidate)? {
                let nearer = if reversed { *candidate > *out } else { *candidate < *out };
                if !found || nearer {
                    out.copy_from_slice(candidate);
                    found = true;
                }
            }
        }
        Ok(found)
    }
}

/// A serialized `SkipScanFilterSpec` (what `SkipScanFilter.toByteArray()` holds), validated and
/// compiled: its skip scan, its predicate's comparator, and the filter's canonical bytes.
#[derive(Debug)]
pub struct SkipScanFilter {
    skip: AnySkipScan,
    canonical: Vec<u8>,
    comparator: Comparator,
}

impl SkipScanFilter {
    /// Parses (through `wire::parse`, as every message from outside) and compiles.
    pub fn from_bytes(bytes: &[u8]) -> Result<SkipScanFilter> {
        let spec: SkipScanFilterSpec = wire::parse(bytes, "skip scan filter")?;
        check_version("skip scan filter", spec.format_version)?;
        let predicate = spec.predicate.as_ref().ok_or_else(|| Error::Corrupt {
            what: "skip scan filter",
            detail: "the predicate is missing".into(),
        })?;
        if !matches!(predicate.kind, Some(SpecKind::Predicate(_))) {
            return Err(Error::Corrupt {
                what: "skip scan filter",
                detail: "its comparator is not a predicate comparator".into(),
            });
        }
        let comparator = Comparator::from_parsed(predicate)?;
        let skip = AnySkipScan::build(comparator.schema(), &comparator.branches(), spec.well_formed_keys);
        Ok(SkipScanFilter {
            skip,
            canonical: canonical_filter_bytes(comparator.canonical_bytes(), spec.well_formed_keys)?,
            comparator,
        })
    }

    pub fn skip_scan(&self) -> &AnySkipScan {
        &self.skip
    }

    /// The canonical serialized `SkipScanFilterSpec`: equal filters give equal bytes.
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }

    /// The predicate's compiled comparator (its canonical bytes: the canonical predicate `ComparatorSpec`).
    pub fn comparator(&self) -> &Comparator {
        &self.comparator
    }
}

/// The canonical `SkipScanFilterSpec` around a canonical predicate, written field by field as
/// protobuf orders them (version, then the predicate's bytes as they are), with no second parse.
fn canonical_filter_bytes(predicate: &[u8], well_formed_keys: bool) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(predicate.len() + 8);
    let mut out = protobuf::CodedOutputStream::vec(&mut bytes);
    let written = out
        .write_uint32(1, FORMAT_VERSION)
        .and_then(|()| out.write_bytes(2, predicate))
        .and_then(|()| {
            if well_formed_keys {
                out.write_bool(3, true)
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    drop(out);
    written.map_err(|e| Error::Internal(format!("serializing a skip scan filter: {e}")))?;
    Ok(bytes)
}
