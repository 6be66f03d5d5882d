//! OR predicates (`PredicateComparatorSpec.any_of`, `RowKeyQuery.anyOf`) against brute force: the
//! compiled OR matches exactly the rows some branch's oracle accepts; the union plan keeps every
//! matching row inside its ranges, holds exactly the keys of the branches' own plans (merged, in
//! key order, salted schemas too) and, with the whole OR as residual, gives exactly the oracle's
//! rows; canonical bytes round-trip (the comparator's and its skip scan's); misplaced conditions are refused (the limits: tests/limits.rs);
//! corrupt specs give clean errors.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::messages::{any_of_spec, condition, field, plan_bytes, predicate_spec, schema_of};
use common::mutation::mutate;
use common::*;
use hbase_rowkey::key::{Predicate, FORMAT_VERSION};
use hbase_rowkey::plan_wire::plan_request;
use hbase_rowkey::proto::rowkey::{comparator_spec::Kind, ComparatorSpec, FieldType, Op, ScanPlan, SkipScanFilterSpec};
use hbase_rowkey::ranges::{plan, Range, SkipScanFilter};
use hbase_rowkey::{Comparator, ErrorClass, Schema};
use protobuf::{Message, MessageField};

/// 1 to 3 branches, biased towards conditions on the leading field (what planning narrows) with
/// values of the rows, so branches overlap, touch and miss each other.
fn random_branches(rng: &mut Rng, schema: &SchemaDef, rows: &[Vec<V>]) -> Vec<Vec<Cond>> {
    (0..1 + rng.below(3))
        .map(|_| {
            let mut conds = random_predicate(rng, schema);
            if rng.chance(60) {
                let f = &schema.fields[0];
                let v = |rng: &mut Rng| rows[rng.below(rows.len())][0].clone();
                let (op, values) = match rng.below(3) {
                    0 if f.is_ordered() => (*rng.pick(&[Op::GE, Op::LT]), vec![v(rng)]),
                    1 => (Op::IN, vec![v(rng), v(rng)]),
                    _ => (Op::EQ, vec![v(rng)]),
                };
                conds.push(Cond { field: 0, op, values });
            }
            conds
        })
        .collect()
}

fn protos(schema: &SchemaDef, branches: &[Vec<Cond>]) -> Vec<Vec<hbase_rowkey::proto::rowkey::Condition>> {
    branches
        .iter()
        .map(|b| b.iter().map(|c| c.to_proto(schema)).collect())
        .collect()
}

#[test]
fn or_comparator_matches_exactly_when_some_branch_matches() {
    let mut rng = Rng::new(0x0a11_0f01);
    let (mut matched, mut checked) = (0usize, 0usize);
    for _ in 0..400 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        let rows: Vec<Vec<V>> = (0..40).map(|_| random_row(&mut rng, &schema)).collect();
        let branches = random_branches(&mut rng, &schema, &rows);
        let or = Comparator::from_spec(&any_of_spec(schema.spec(), protos(&schema, &branches)))
            .unwrap_or_else(|e| panic!("{e}: {branches:?}"));
        assert_eq!(or.branches().len(), branches.len());
        for row in &rows {
            let key = compiled.encode(&schema.named(row)).unwrap();
            let expected = branches.iter().any(|b| oracle(&schema, row, b));
            assert_eq!(or.compare(&key) == 0, expected, "{branches:?} {row:?}");
            if let Some(quick) = or.compare_quickly(&key) {
                assert_eq!(quick, or.compare(&key), "quick verdict disagrees: {branches:?} {row:?}");
            }
            for wrong in [&key[..key.len() - 1], &[key.as_slice(), &[0]].concat()[..]] {
                assert_eq!(or.compare(wrong), or.wrong_length_result());
            }
            matched += usize::from(expected);
            checked += 1;
        }
    }
    assert!(
        matched > checked / 20 && matched < checked * 19 / 20,
        "{matched} of {checked}"
    );
}

#[test]
fn union_plan_keeps_every_matching_row_and_holds_exactly_the_branches_ranges() {
    let mut rng = Rng::new(0x0a11_0f02);
    let (mut inside, mut total, mut capped, mut narrowed) = (0usize, 0usize, 0usize, 0usize);
    for round in 0..400 {
        let (schema, compiled, rows, keys) = random_table(&mut rng, 50);
        let branches = random_branches(&mut rng, &schema, &rows);
        let cap = if round % 5 == 0 { 1 + rng.below(4) as u32 } else { 0 };
        let request = plan_bytes(any_of_spec(schema.spec(), protos(&schema, &branches)), cap);
        let planned = ScanPlan::parse_from_bytes(&plan_request(&request).unwrap()).unwrap();
        capped += usize::from(planned.capped);
        let ranges = plan_ranges(&planned);
        for w in ranges.windows(2) {
            assert!(
                w[0].stop.as_ref().is_some_and(|s| *s < w[1].start),
                "sorted, disjoint, touching ones joined: {ranges:?}"
            );
        }
        assert!(planned
            .explain
            .contains(&format!("UNION of {} AND-branches", branches.len())));
        let residual = Comparator::from_spec(&planned.residual).unwrap();
        // The branches' own plans, as the union must hold them (uncapped).
        let own: Vec<Vec<Range>> = protos(&schema, &branches)
            .iter()
            .map(|b| plan(&compiled, &Predicate::from_conditions(&compiled, b).unwrap(), 50_000).ranges)
            .collect();
        let mut probes: Vec<Vec<u8>> = keys.clone();
        for r in own.iter().flatten() {
            probes.push(r.start.clone());
            probes.extend(r.stop.clone());
            if let Some(below) = hbase_rowkey::ranges::successor(&r.start) {
                probes.push(below);
            }
        }
        for (i, key) in probes.iter().enumerate() {
            let in_union = in_ranges(&ranges, key);
            let in_some_branch = own.iter().any(|b| in_ranges(b, key));
            if planned.capped {
                assert!(!in_some_branch || in_union, "capped union lost {key:02x?}");
            } else {
                assert_eq!(in_union, in_some_branch, "{key:02x?} {ranges:?} {own:?}");
            }
            if let Some(row) = rows.get(i) {
                let expected = branches.iter().any(|b| oracle(&schema, row, b));
                assert!(!expected || in_union, "false negative: {branches:?} {row:?} {ranges:?}");
                assert_eq!(in_union && residual.compare(key) == 0, expected, "{branches:?} {row:?}");
                inside += usize::from(in_union);
                total += 1;
            }
        }
        narrowed += usize::from(!(ranges.len() == 1 && ranges[0].start.is_empty() && ranges[0].stop.is_none()));
    }
    assert!(inside < total * 3 / 4, "planning narrowed nothing: {inside} of {total}");
    assert!(capped > 0 && narrowed > 100, "capped {capped}, narrowed {narrowed}");
}

fn two_int_fields() -> SchemaDef {
    SchemaDef {
        fields: ["a", "b"]
            .iter()
            .map(|n| FieldDef {
                name: (*n).into(),
                ty: FieldType::INT32,
                width: 0,
                descending: false,
            })
            .collect(),
        salt: None,
    }
}

fn cond(field: usize, op: Op, values: &[i64]) -> Cond {
    Cond {
        field,
        op,
        values: values.iter().map(|&v| V::Int(v)).collect(),
    }
}

#[test]
fn a_branch_with_no_narrowing_makes_the_union_the_full_table_and_overlaps_merge() {
    let schema = two_int_fields();
    let plan_of = |branches: &[Vec<Cond>]| {
        let request = plan_bytes(any_of_spec(schema.spec(), protos(&schema, branches)), 0);
        ScanPlan::parse_from_bytes(&plan_request(&request).unwrap()).unwrap()
    };
    let full = plan_of(&[vec![cond(0, Op::EQ, &[5])], vec![cond(1, Op::EQ, &[7])]]);
    assert_eq!(full.ranges.len(), 1);
    assert!(full.ranges[0].start.is_empty() && full.ranges[0].stop.is_empty());
    assert!(full.explain.contains("FULL SCAN"), "{}", full.explain);
    // a BETWEEN 10 AND 20 OR a BETWEEN 15 AND 30 OR a = 31 (touching): one range, a in [10, 31].
    let merged = plan_of(&[
        vec![cond(0, Op::BETWEEN, &[10, 20])],
        vec![cond(0, Op::BETWEEN, &[15, 30]), cond(1, Op::NE, &[0])],
        vec![cond(0, Op::EQ, &[31])],
    ]);
    assert_eq!(merged.ranges.len(), 1, "{}", merged.explain);
    assert_eq!(merged.ranges[0].start, (10i32 as u32 ^ 0x8000_0000).to_be_bytes());
    assert_eq!(merged.ranges[0].stop, (32i32 as u32 ^ 0x8000_0000).to_be_bytes());
    assert!(
        merged.explain.contains("estimated rows read: at most"),
        "{}",
        merged.explain
    );
    // A branch with a residual condition reads its ranges with the skip scan over the OR.
    assert!(merged.skip_scan, "{}", merged.explain);
    let disjoint = plan_of(&[vec![cond(0, Op::EQ, &[1])], vec![cond(0, Op::EQ, &[3])]]);
    assert_eq!(disjoint.ranges.len(), 2);
    assert!(
        !disjoint.skip_scan,
        "the ranges enforce every branch: {}",
        disjoint.explain
    );
}

#[test]
fn canonical_bytes_round_trip_and_single_predicates_read_as_before() {
    let mut rng = Rng::new(0x0a11_0f03);
    for _ in 0..300 {
        let schema = random_schema(&mut rng);
        let rows: Vec<Vec<V>> = (0..10).map(|_| random_row(&mut rng, &schema)).collect();
        let branches = protos(&schema, &random_branches(&mut rng, &schema, &rows));
        let spec = any_of_spec(schema.spec(), branches.clone());
        let or = Comparator::from_spec(&spec).unwrap();
        let again = Comparator::from_bytes(or.canonical_bytes()).unwrap();
        assert_eq!(again.canonical_bytes(), or.canonical_bytes());
        // The skip scan of it: its canonical bytes are the canonical spec serialized (they are
        // written field by field), its comparator is the predicate's, and they round-trip.
        let mut filter = SkipScanFilterSpec::new();
        filter.format_version = FORMAT_VERSION;
        filter.predicate = MessageField::some(spec.clone());
        let skip = SkipScanFilter::from_bytes(&filter.write_to_bytes().unwrap()).unwrap();
        assert_eq!(skip.comparator().canonical_bytes(), or.canonical_bytes());
        filter.predicate = MessageField::some(ComparatorSpec::parse_from_bytes(or.canonical_bytes()).unwrap());
        assert_eq!(skip.canonical_bytes(), filter.write_to_bytes().unwrap().as_slice());
        let skip_again = SkipScanFilter::from_bytes(skip.canonical_bytes()).unwrap();
        assert_eq!(skip_again.canonical_bytes(), skip.canonical_bytes());
        // An empty `predicate` beside the branches, given or not: the same canonical bytes.
        let mut with_empty = spec.clone();
        if let Some(Kind::Predicate(p)) = &mut with_empty.kind {
            p.predicate = MessageField::some(Default::default());
        }
        assert_eq!(
            Comparator::from_spec(&with_empty).unwrap().canonical_bytes(),
            or.canonical_bytes()
        );
        let parsed = ComparatorSpec::parse_from_bytes(or.canonical_bytes()).unwrap();
        let Some(Kind::Predicate(p)) = &parsed.kind else {
            panic!()
        };
        assert_eq!(p.any_of.len(), branches.len());
        // A single predicate still has no branches, in its spec and its canonical bytes.
        let single = Comparator::from_spec(&predicate_spec(schema.spec(), branches[0].clone())).unwrap();
        assert_eq!(single.branches().len(), 1);
        assert!(single.predicate().is_some());
        let parsed = ComparatorSpec::parse_from_bytes(single.canonical_bytes()).unwrap();
        let Some(Kind::Predicate(p)) = &parsed.kind else {
            panic!()
        };
        assert!(p.any_of.is_empty());
    }
}

#[test]
fn conditions_beside_the_branches_are_refused_by_name() {
    let schema = schema_of(vec![field("a", FieldType::INT32, 0)]);
    let eq = |v: i64| vec![condition("a", Op::EQ, vec![common::messages::int(v)])];
    let mut outside = any_of_spec(schema, vec![eq(1), eq(2)]);
    if let Some(Kind::Predicate(p)) = &mut outside.kind {
        p.predicate.mut_or_insert_default().conditions = eq(3);
    }
    let err = Comparator::from_spec(&outside).unwrap_err();
    assert_eq!(err.class(), ErrorClass::InvalidInput);
    assert!(err.to_string().contains("conditions outside its branches"), "{err}");
}

/// Mutated OR specs through every parser that reads one: `Ok` or a clean "invalid input" error,
/// never a panic or an internal error.
#[test]
fn corrupt_or_specs_give_errors_not_panics() {
    let mut rng = Rng::new(0x0a11_0f04);
    let mut seeds = Vec::new();
    for _ in 0..200 {
        let schema = random_schema(&mut rng);
        let rows: Vec<Vec<V>> = (0..10).map(|_| random_row(&mut rng, &schema)).collect();
        let spec = any_of_spec(
            schema.spec(),
            protos(&schema, &random_branches(&mut rng, &schema, &rows)),
        );
        seeds.push(spec.write_to_bytes().unwrap());
    }
    let (mut parsed, mut refused) = (0usize, 0usize);
    for i in 0..30_000 {
        let seed = &seeds[i % seeds.len()];
        let bytes = mutate(&mut rng, seed, &seeds);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let comparator = Comparator::from_bytes(&bytes).map(|c| c.compare(&[]));
            let planned = match ComparatorSpec::parse_from_bytes(&bytes) {
                Ok(query) => plan_request(&plan_bytes(query.clone(), 0)).map(|_| ()).and_then(|_| {
                    let mut filter = SkipScanFilterSpec::new();
                    filter.format_version = FORMAT_VERSION;
                    filter.predicate = MessageField::some(query);
                    SkipScanFilter::from_bytes(&filter.write_to_bytes().unwrap()).map(|f| {
                        let _ = f.skip_scan().seek(&[0x42; 3], false);
                    })
                }),
                Err(_) => Ok(()),
            };
            (comparator.map(|_| ()), planned)
        }));
        let (comparator, planned) = outcome.unwrap_or_else(|_| panic!("panic on {bytes:02x?}"));
        for result in [comparator, planned] {
            match result {
                Ok(()) => parsed += 1,
                Err(e) => {
                    assert_eq!(e.class(), ErrorClass::InvalidInput, "{e} on {bytes:02x?}");
                    refused += 1;
                }
            }
        }
    }
    assert!(parsed > 1000 && refused > 1000, "parsed {parsed}, refused {refused}");
}
