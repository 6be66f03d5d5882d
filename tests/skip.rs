//! The skip scan's next/previous key against brute force: on random schemas and predicates,
//! `next(row)` is the smallest matching key above `row` and `previous(row)` the largest below,
//! for rows of every length; the answer is always strictly beyond the row; no key whose salt byte
//! is the hash of its fields and that satisfies the predicate is ever skipped.
//!
//! Two oracles: every key of a key space of at most 3 bytes (types that fit: bools, 1-2 byte
//! strings, bytes and md5 prefixes, the salt byte), and for schemas of every type the product of
//! each slot's candidate values (every value the predicate names, plus and minus one, the ends
//! of the slot, the row's own value plus and minus one), which always holds the true answer: it
//! keeps the row's slots up to one, steps that one to the next allowed value, and resets the rest
//! to their first allowed values, each of them a candidate.

mod common;

use common::Rng;
use common::*;
use hbase_rowkey::key::{Constraint, Location, Predicate, Schema};
use hbase_rowkey::proto::rowkey::{FieldType, Op};
use hbase_rowkey::ranges::{plan, plan_union, AnySkipScan, Range, SkipScan};
use proptest::prelude::{any, proptest, ProptestConfig};
use std::ops::Bound;

struct Case {
    def: SchemaDef,
    schema: Schema,
    conds: Vec<Cond>,
    predicate: Predicate,
    skip: SkipScan,
}

impl Case {
    fn new(def: SchemaDef, conds: Vec<Cond>) -> Case {
        let schema = Schema::from_spec(&def.spec()).unwrap_or_else(|e| panic!("{e}: {def:?}"));
        let protos: Vec<_> = conds.iter().map(|c| c.to_proto(&def)).collect();
        let predicate = Predicate::from_conditions(&schema, &protos).unwrap_or_else(|e| panic!("{e}: {conds:?}"));
        let skip = SkipScan::new(&schema, &predicate);
        Case {
            def,
            schema,
            conds,
            predicate,
            skip,
        }
    }

    /// What the skip scan must find: the predicate holds and the salt byte is one the planner reads.
    fn matches(&self, key: &[u8]) -> bool {
        self.predicate.matches_key(&self.schema, key) && (self.schema.salt().is_none() || self.skip.salt_allows(key[0]))
    }

    /// A key a writer could have written (its salt byte is the hash of its salt fields).
    fn salt_consistent(&self, key: &[u8]) -> bool {
        let Some(salt) = self.schema.salt() else { return true };
        let stored = salt
            .fields
            .iter()
            .map(|&i| hbase_rowkey::key::read_field(&self.schema.fields()[i], key));
        self.schema.salt_of(stored) == key[0]
    }

    fn describe(&self) -> String {
        format!(
            "schema {:?}\nconds {:?}\npredicate {:?}",
            self.def, self.conds, self.predicate
        )
    }

    /// Checks next and previous of `row` against the sorted matching keys `matching`.
    fn check(&self, row: &[u8], matching: &[Vec<u8>]) {
        let above = matching.partition_point(|k| k.as_slice() <= row);
        let expected_next = matching.get(above);
        let below = matching.partition_point(|k| k.as_slice() < row);
        let expected_previous = below.checked_sub(1).map(|i| &matching[i]);
        let next = self.skip.next(row);
        let previous = self.skip.previous(row);
        assert_eq!(next.as_ref(), expected_next, "next of {row:02x?}\n{}", self.describe());
        assert_eq!(
            previous.as_ref(),
            expected_previous,
            "previous of {row:02x?}\n{}",
            self.describe()
        );
        // The native path's `seek_into` answers the same into a reused buffer.
        for (reversed, expected) in [(false, &next), (true, &previous)] {
            let mut out = vec![0xA5; self.schema.key_length()];
            let found = self
                .skip
                .seek_into(row, reversed, &mut out)
                .expect("a buffer of the key's length");
            assert_eq!(
                found.then_some(&out),
                expected.as_ref(),
                "seek_into({row:02x?}, reversed {reversed})"
            );
        }
        if let Some(n) = &next {
            assert!(n.as_slice() > row && n.len() == self.schema.key_length());
        }
        if let Some(p) = &previous {
            assert!(p.as_slice() < row && p.len() == self.schema.key_length());
        }
    }
}

// ------------------------------------------------------------------ generators

/// Fields fitting in `budget` bytes (bools share bytes; salt takes the first byte).
fn small_schema(rng: &mut Rng, max_bytes: usize) -> SchemaDef {
    loop {
        let salted = rng.chance(30);
        let n = 1 + rng.below(3);
        let fields: Vec<FieldDef> = (0..n)
            .map(|i| {
                let ty = *rng.pick(&[
                    FieldType::BOOL,
                    FieldType::BOOL,
                    FieldType::FIXED_STRING,
                    FieldType::FIXED_BYTES,
                    FieldType::MD5,
                ]);
                let width = if ty == FieldType::BOOL {
                    0
                } else {
                    1 + rng.below(2) as u32
                };
                FieldDef {
                    name: format!("f{i}"),
                    ty,
                    width,
                    descending: rng.chance(30),
                }
            })
            .collect();
        let def = SchemaDef {
            salt: salted.then(|| random_salt(rng, &fields)),
            fields,
        };
        let length = Schema::from_spec(&def.spec()).unwrap().key_length();
        if length <= max_bytes {
            return def;
        }
    }
}

fn random_salt(rng: &mut Rng, fields: &[FieldDef]) -> (u32, Vec<String>) {
    let buckets = *rng.pick(&[1u32, 2, 3, 7, 16, 255, 256]);
    let names = fields
        .iter()
        .filter(|_| rng.chance(60))
        .map(|f| f.name.clone())
        .collect();
    (buckets, names)
}

/// A value drawn from a small domain that collides with keys often (extremes included).
fn small_value(rng: &mut Rng, f: &FieldDef) -> V {
    let w = f.width as usize;
    let byte = |rng: &mut Rng| *rng.pick(&[0u8, 1, 2, 0x41, 0x7f, 0x80, 0xc3, 0xfe, 0xff]);
    match f.ty {
        FieldType::BOOL => V::Bool(rng.chance(50)),
        FieldType::FIXED_STRING => {
            let options = ["", "A", "B", "a", "AB", "zz", "é", "\u{7f}", "\u{1}"];
            let fitting: Vec<&str> = options.iter().copied().filter(|s| s.len() <= w).collect();
            V::Str(rng.pick(&fitting).to_string())
        }
        FieldType::FIXED_BYTES => V::Bytes((0..w).map(|_| byte(rng)).collect()),
        // A digest of the field's width is taken as given: any bytes.
        FieldType::MD5 if rng.chance(70) => V::Bytes((0..w).map(|_| byte(rng)).collect()),
        _ => random_value(rng, f),
    }
}

fn random_conditions(rng: &mut Rng, def: &SchemaDef, value: impl Fn(&mut Rng, &FieldDef) -> V) -> Vec<Cond> {
    let n = 1 + rng.below(4);
    (0..n)
        .map(|_| {
            let field = rng.below(def.fields.len());
            let f = &def.fields[field];
            let ops: &[Op] = if f.is_ordered() {
                &[
                    Op::EQ,
                    Op::NE,
                    Op::LT,
                    Op::LE,
                    Op::GT,
                    Op::GE,
                    Op::BETWEEN,
                    Op::IN,
                    Op::NE,
                ]
            } else {
                &[Op::EQ, Op::NE, Op::IN]
            };
            let op = *rng.pick(ops);
            let count = match op {
                Op::BETWEEN => 2,
                Op::IN => 1 + rng.below(6),
                _ => 1,
            };
            Cond {
                field,
                op,
                values: (0..count).map(|_| value(rng, f)).collect(),
            }
        })
        .collect()
}

/// Rows of other lengths: prefixes and extensions of `key`, and the empty row.
fn other_lengths(key: &[u8]) -> Vec<Vec<u8>> {
    let mut rows: Vec<Vec<u8>> = (0..key.len()).map(|n| key[..n].to_vec()).collect();
    for tail in [&[0u8][..], &[0xff], &[0, 0], &[0x80, 1]] {
        rows.push([key, tail].concat());
    }
    rows
}

// ------------------------------------------------------------------ every key of a small space

fn check_every_key(seed: u64) {
    let mut rng = Rng::new(seed);
    let max_bytes = if rng.chance(5) { 3 } else { 2 };
    let def = small_schema(&mut rng, max_bytes);
    let conds = random_conditions(&mut rng, &def, small_value);
    let case = Case::new(def, conds);
    let length = case.schema.key_length();
    let keys = || (0u32..1 << (8 * length)).map(move |k| k.to_be_bytes()[4 - length..].to_vec());
    let matching: Vec<Vec<u8>> = keys().filter(|k| case.matches(k)).collect();
    for key in keys() {
        // Never skip a row a writer could have written.
        if case.predicate.matches_key(&case.schema, &key) && case.salt_consistent(&key) {
            assert!(case.matches(&key), "{key:02x?} is skipped\n{}", case.describe());
        }
        assert_eq!(
            case.skip.matches(&key),
            case.matches(&key),
            "{key:02x?}\n{}",
            case.describe()
        );
        // The bytes after the deciding prefix never change the answer.
        let prefix = case.skip.deciding_prefix();
        assert!(prefix <= length);
        let mut cut = key.clone();
        cut[prefix..].fill(0);
        assert_eq!(
            case.matches(&cut),
            case.matches(&key),
            "{key:02x?} against {cut:02x?}, deciding prefix {prefix}\n{}",
            case.describe()
        );
    }
    let every = length <= 2;
    for (i, key) in keys().enumerate() {
        if every || i % 397 == 0 || rng.chance(1) {
            case.check(&key, &matching);
        }
        if i % 1024 == 0 {
            for row in other_lengths(&key) {
                case.check(&row, &matching);
            }
        }
    }
    case.check(&[], &matching);
}

/// The skip scan over well-formed keys (what a join's seek into an index uses): on every key of a
/// 2-byte key space, its next and previous are the nearest matching well-formed keys (bool bytes
/// with no bit no bool owns, `Schema::is_well_formed`); the plain skip scan steps a byte of bools
/// as a number, to such bits.
fn check_well_formed_every_key(seed: u64) {
    let mut rng = Rng::new(seed);
    let def = small_schema(&mut rng, 2);
    let conds = random_conditions(&mut rng, &def, small_value);
    let mut case = Case::new(def, conds);
    case.skip = SkipScan::over_well_formed_keys(&case.schema, &case.predicate);
    let length = case.schema.key_length();
    let keys = || (0u32..1 << (8 * length)).map(move |k| k.to_be_bytes()[4 - length..].to_vec());
    let matching: Vec<Vec<u8>> = keys()
        .filter(|k| case.matches(k) && case.schema.is_well_formed(k))
        .collect();
    for key in keys() {
        case.check(&key, &matching);
    }
}

// ------------------------------------------------------------------ candidate products, every type

/// Byte-level candidates of one slot: its ends, the values the predicate names (+-1) and the row's.
fn field_candidates(constraint: Option<&Constraint>, width: usize, row: &[u8]) -> Vec<Vec<u8>> {
    let mut values: Vec<Vec<u8>> = vec![vec![0; width], vec![0xff; width], row.to_vec()];
    if let Some(c) = constraint {
        match c {
            Constraint::Points(p) => values.extend(p.iter().cloned()),
            Constraint::Range { low, high, excluded } => {
                for b in [low, high] {
                    if let Bound::Included(v) | Bound::Excluded(v) = b {
                        values.push(v.clone());
                    }
                }
                values.extend(excluded.iter().cloned());
            }
        }
    }
    let mut with_neighbours = Vec::new();
    for v in values {
        with_neighbours.extend(step(&v, 1));
        with_neighbours.extend(step(&v, -1));
        with_neighbours.push(v);
    }
    with_neighbours.sort();
    with_neighbours.dedup();
    with_neighbours
}

/// `v` plus or minus one as a big-endian number of its width, if that stays within the width.
fn step(v: &[u8], delta: i8) -> Option<Vec<u8>> {
    let mut out = v.to_vec();
    for b in out.iter_mut().rev() {
        let (next, carry) = if delta > 0 {
            b.overflowing_add(1)
        } else {
            b.overflowing_sub(1)
        };
        *b = next;
        if !carry {
            return Some(out);
        }
    }
    None
}

/// The slots of the key as (offset, width, field index or none).
fn slots(schema: &Schema) -> Vec<(usize, usize, Option<usize>)> {
    let mut out = Vec::new();
    if schema.salt().is_some() {
        out.push((0, 1, None));
    }
    for (i, f) in schema.fields().iter().enumerate() {
        match f.location {
            Location::Bytes { offset, width } => out.push((offset, width, Some(i))),
            Location::Bit { offset, .. } => {
                if out.last().map(|s: &(usize, usize, Option<usize>)| s.0) != Some(offset) {
                    out.push((offset, 1, None));
                }
            }
        }
    }
    out
}

fn check_candidates(case: &Case, row: &[u8]) {
    let length = case.schema.key_length();
    let mut base = row.to_vec();
    base.resize(length, 0);
    let per_slot: Vec<Vec<Vec<u8>>> = slots(&case.schema)
        .into_iter()
        .map(|(offset, width, field)| match field {
            Some(i) => field_candidates(case.predicate.constraint(i), width, &base[offset..offset + width]),
            None => (0..=255u8).map(|b| vec![b]).collect(),
        })
        .collect();
    let mut matching: Vec<Vec<u8>> = vec![Vec::new()];
    for candidates in &per_slot {
        matching = matching
            .iter()
            .flat_map(|p| candidates.iter().map(move |c| [p.as_slice(), c].concat()))
            .collect();
        assert!(matching.len() <= 4_000_000, "candidate product too large");
    }
    matching.retain(|k| case.matches(k));
    matching.sort();
    case.check(row, &matching);
}

fn candidate_product_size(case: &Case) -> usize {
    slots(&case.schema)
        .into_iter()
        .map(|(_, width, field)| match field {
            Some(i) => field_candidates(case.predicate.constraint(i), width, &vec![0; width]).len() + 3,
            None => 256,
        })
        .fold(1usize, |a, n| a.saturating_mul(n))
}

fn check_every_type(seed: u64) {
    let mut rng = Rng::new(seed);
    let case = loop {
        let mut def = random_schema(&mut rng);
        def.fields.truncate(1 + rng.below(3));
        if let Some((_, names)) = &mut def.salt {
            names.retain(|n| def.fields.iter().any(|f| &f.name == n));
        }
        let conds = random_conditions(&mut rng, &def, random_value);
        let case = Case::new(def, conds);
        if candidate_product_size(&case) <= 300_000 {
            break case;
        }
    };
    let compiled = &case.schema;
    let mut rows: Vec<Vec<u8>> = (0..6)
        .map(|_| {
            compiled
                .encode(&case.def.named(&random_row(&mut rng, &case.def)))
                .unwrap()
        })
        .collect();
    // Keys of arbitrary bytes too, not only encodings.
    rows.push((0..compiled.key_length()).map(|_| rng.next() as u8).collect());
    rows.push(vec![0; compiled.key_length()]);
    rows.push(vec![0xff; compiled.key_length()]);
    let prefix = case.skip.deciding_prefix();
    for row in rows.clone() {
        let mut other = row.clone();
        for b in &mut other[prefix..] {
            *b = rng.next() as u8;
        }
        assert_eq!(
            case.matches(&other),
            case.matches(&row),
            "{row:02x?} against {other:02x?}, deciding prefix {prefix}\n{}",
            case.describe()
        );
        check_candidates(&case, &row);
        let short = rng.below(row.len());
        check_candidates(&case, &row[..short]);
        check_candidates(&case, &[row.as_slice(), &[rng.next() as u8]].concat());
    }
}

// ------------------------------------------------------------------ OR of branches, every key

/// An OR of 1 to 3 branches over a key space of at most 2 bytes: the OR's skip scan against a
/// search of every key (next = the smallest of the branches' next keys, previous the largest,
/// none only when no branch has one), and the union plan against every key: it holds exactly the
/// keys of the branches' own plans, so no matching key is outside it.
fn check_or_every_key(seed: u64) {
    let mut rng = Rng::new(seed);
    let def = small_schema(&mut rng, 2);
    let branches: Vec<Case> = (0..1 + rng.below(3))
        .map(|_| {
            let conds = random_conditions(&mut rng, &def, small_value);
            Case::new(def.clone(), conds)
        })
        .collect();
    let schema = &branches[0].schema;
    let predicates: Vec<&Predicate> = branches.iter().map(|c| &c.predicate).collect();
    let any = AnySkipScan::new(schema, &predicates);
    let describe = || branches.iter().map(Case::describe).collect::<Vec<_>>().join("\nOR ");
    let length = schema.key_length();
    let keys = || (0u32..1 << (8 * length)).map(move |k| k.to_be_bytes()[4 - length..].to_vec());
    let matching: Vec<Vec<u8>> = keys().filter(|k| branches.iter().any(|c| c.matches(k))).collect();
    let union = plan_union(schema, &predicates, 1 + rng.below(20));
    let own: Vec<Vec<Range>> = predicates
        .iter()
        .map(|p| plan(schema, p, union.max_ranges).ranges)
        .collect();
    for w in union.ranges.windows(2) {
        assert!(
            w[0].stop.as_ref().is_some_and(|s| *s < w[1].start),
            "{:?}",
            union.ranges
        );
    }
    let prefix = any.deciding_prefix();
    for key in keys() {
        let expected = matching.binary_search(&key).is_ok();
        assert_eq!(any.matches(&key), expected, "{key:02x?}\n{}", describe());
        let mut cut = key.clone();
        cut[prefix..].fill(0);
        assert_eq!(
            any.matches(&cut),
            expected,
            "deciding prefix {prefix}: {key:02x?}\n{}",
            describe()
        );
        let in_union = in_ranges(&union.ranges, &key);
        let in_some_branch = own.iter().any(|r| in_ranges(r, &key));
        if union.capped {
            assert!(
                !in_some_branch || in_union,
                "{key:02x?} lost by the capped union\n{}",
                describe()
            );
        } else {
            assert_eq!(
                in_union,
                in_some_branch,
                "{key:02x?} {:?} {own:?}\n{}",
                union.ranges,
                describe()
            );
        }
        // A key `encode` writes (salt byte, unused bool bits): the planner's ranges need not hold others.
        let writable = schema
            .decode(&key)
            .ok()
            .and_then(|row| schema.encode(&row).ok())
            .as_ref()
            == Some(&key);
        let writable_match = writable && branches.iter().any(|c| c.predicate.matches_key(schema, &key));
        assert!(
            !writable_match || in_union,
            "{key:02x?} outside the union\n{}",
            describe()
        );

        let above = matching.partition_point(|k| *k <= key);
        let below = matching.partition_point(|k| *k < key);
        assert_eq!(
            any.seek(&key, false).as_ref(),
            matching.get(above),
            "next of {key:02x?}\n{}",
            describe()
        );
        assert_eq!(
            any.seek(&key, true).as_ref(),
            below.checked_sub(1).map(|i| &matching[i]),
            "previous of {key:02x?}\n{}",
            describe()
        );
    }
    for row in other_lengths(&matching.first().cloned().unwrap_or_else(|| vec![0x41; length])) {
        let above = matching.partition_point(|k| k.as_slice() <= row.as_slice());
        assert_eq!(
            any.seek(&row, false).as_ref(),
            matching.get(above),
            "next of {row:02x?}\n{}",
            describe()
        );
    }
}

proptest! {
    // Each case searches up to 65,536 keys in both directions for 1 to 3 branches.
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn or_seeks_and_union_plans_equal_a_search_of_every_key(seed in any::<u64>()) {
        check_or_every_key(seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn next_and_previous_equal_a_search_of_every_key(seed in any::<u64>()) {
        check_every_key(seed);
    }

    #[test]
    fn next_and_previous_equal_a_search_of_candidate_keys_for_every_type(seed in any::<u64>()) {
        check_every_type(seed);
    }

    #[test]
    fn seeks_over_well_formed_keys_equal_a_search_of_every_well_formed_key(seed in any::<u64>()) {
        check_well_formed_every_key(seed);
    }
}

#[test]
fn seek_into_a_buffer_of_another_length_is_an_error() {
    let def = SchemaDef {
        fields: vec![FieldDef {
            name: "a".into(),
            ty: FieldType::INT32,
            width: 0,
            descending: false,
        }],
        salt: None,
    };
    let case = Case::new(
        def,
        vec![Cond {
            field: 0,
            op: Op::EQ,
            values: vec![V::Int(5)],
        }],
    );
    for length in [0, 3, 5] {
        let mut out = vec![0; length];
        assert!(matches!(
            case.skip.seek_into(&[0; 4], false, &mut out),
            Err(hbase_rowkey::error::Error::WrongKeyLength { expected: 4, found }) if found == length
        ));
    }
    let mut out = [0; 4];
    assert!(matches!(case.skip.seek_into(&[0; 4], false, &mut out), Ok(true)));
    assert_eq!(Some(out.to_vec()), case.skip.next(&[0; 4]));
}

#[test]
fn an_in_set_of_99999_values_is_searched_not_scanned() {
    let def = SchemaDef {
        fields: vec![
            FieldDef {
                name: "a".into(),
                ty: FieldType::INT32,
                width: 0,
                descending: false,
            },
            FieldDef {
                name: "b".into(),
                ty: FieldType::INT32,
                width: 0,
                descending: true,
            },
        ],
        salt: None,
    };
    let conds = vec![
        Cond {
            field: 0,
            op: Op::IN,
            values: (0..99_999).map(|i| V::Int(i * 7)).collect(),
        },
        Cond {
            field: 1,
            op: Op::EQ,
            values: vec![V::Int(5)],
        },
    ];
    let case = Case::new(def, conds);
    let key = |a: i64, b: i64| case.schema.encode(&case.def.named(&[V::Int(a), V::Int(b)])).unwrap();
    // A walk over 233,000 rows, each answered by a binary search (a scan of the set would take minutes).
    for a in (0..7 * 99_999 + 10).step_by(3) {
        let row = key(a, 6);
        let expected_a = if a % 7 == 0 { a } else { (a / 7 + 1) * 7 };
        let expected = (expected_a < 7 * 99_999).then(|| key(expected_a, 5));
        assert_eq!(case.skip.next(&row), expected, "a = {a}");
    }
}
