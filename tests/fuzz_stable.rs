//! The fuzz bodies of `common/fuzz_bodies.rs` (run under libFuzzer in `fuzz/`) on stable Rust:
//! a bounded run of seeds and mutations each, within the time and memory budgets of
//! `common/budget.rs`; every input libFuzzer once failed on (`fuzz/regressions/`) replayed; and
//! the committed seed corpus (`fuzz/seeds/`) checked against the generators.

#[path = "common/budget.rs"]
mod budget;
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use budget::Harness;
use common::fuzz_bodies::{self, frame, split};
use common::messages::{
    all_type_fields, condition, int, named, predicate_spec, random_comparator_spec, row_bytes, schema_of,
};
use common::wire::{mutate, random_bytes, rng_pick};
use common::*;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, value::Kind as ValueKind, ComparatorSpec, EqualComparatorSpec, Op, RangeComparatorSpec,
};
use hbase_rowkey::{Comparator, Schema};
use protobuf::{Message, MessageField};

#[test]
fn framing_round_trips_and_tolerates_anything() {
    let data = frame(b"spec", b"rows");
    assert_eq!(split(&data), (&b"spec"[..], &b"rows"[..]));
    assert_eq!(split(&[]), (&[][..], &[][..]));
    assert_eq!(split(&[7]), (&[7u8][..], &[][..]));
    assert_eq!(split(&[0xff, 0xff, 1, 2]), (&[1u8, 2][..], &[][..]));
    for data in [&[][..], &[1], &[5, 0, 1], &[0xff; 40]] {
        fuzz_bodies::parse_compile_evaluate(data);
        fuzz_bodies::encode_decode(data);
    }
}

/// Seeds for `fuzz_bodies::parse_compile_evaluate`: valid comparators framed with rows made by
/// encode (so some match) and random bytes.
fn comparator_fuzz_seeds(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    while seeds.len() < n {
        let (def, spec) = random_comparator_spec(rng);
        let Ok(c) = Comparator::from_spec(&spec) else { continue };
        let mut rows = Vec::new();
        // The first row byte also picks max_ranges in the plan check.
        for _ in 0..1 + rng.below(6) {
            match c.schema().encode(&def.named(&random_row(rng, &def))) {
                Ok(key) => rows.extend(key),
                Err(_) => rows.extend((0..c.key_length()).map(|_| rng.next() as u8)),
            }
        }
        seeds.push(frame(&spec.write_to_bytes().unwrap(), &rows));
    }
    seeds
}

/// Seeds for `fuzz_bodies::encode_decode`: valid schemas framed with a valid row, or with a key.
fn schema_fuzz_seeds(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    while seeds.len() < n {
        let def = random_schema(rng);
        let Ok(schema) = Schema::from_spec(&def.spec()) else {
            continue;
        };
        let named = def.named(&random_row(rng, &def));
        let rest = if rng.chance(70) {
            row_bytes(named)
        } else {
            schema.encode(&named).unwrap()
        };
        seeds.push(frame(&def.spec().write_to_bytes().unwrap(), &rest));
    }
    seeds
}

/// Runs a fuzz body on seeds and mutations; unlike the parsers, a body also panics when one of
/// its invariants fails.
fn fuzz_stable(name: &'static str, seeds: &[Vec<u8>], rng: &mut Rng, runs: usize, body: fn(&[u8])) {
    let mut h = Harness::new(name);
    let run = |b: &[u8]| -> hbase_rowkey::Result<()> {
        body(b);
        Ok(())
    };
    for seed in seeds {
        h.check("seed", seed, run);
    }
    while h.inputs < runs {
        let d = if rng.chance(5) {
            random_bytes(rng)
        } else {
            let seed = rng_pick(rng, seeds);
            mutate(rng, seed, seeds)
        };
        h.check("mutated", &d, run);
    }
    h.report(runs);
}

#[test]
fn fuzz_parse_compile_evaluate_stable() {
    let mut rng = Rng::new(0xf022_0007);
    let seeds = comparator_fuzz_seeds(&mut rng, 300);
    fuzz_stable(
        "fuzz_bodies::parse_compile_evaluate",
        &seeds,
        &mut rng,
        60_000,
        fuzz_bodies::parse_compile_evaluate,
    );
}

#[test]
fn fuzz_encode_decode_stable() {
    let mut rng = Rng::new(0xf022_0008);
    let seeds = schema_fuzz_seeds(&mut rng, 300);
    fuzz_stable(
        "fuzz_bodies::encode_decode",
        &seeds,
        &mut rng,
        60_000,
        fuzz_bodies::encode_decode,
    );
}

/// Inputs that crashed or failed an invariant under libFuzzer once (fuzz/regressions/), replayed
/// on every test run.
#[test]
fn fuzz_regressions_replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut replayed = 0;
    for (target, body) in [
        (
            "parse_compile_evaluate",
            fuzz_bodies::parse_compile_evaluate as fn(&[u8]),
        ),
        ("encode_decode", fuzz_bodies::encode_decode),
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            if catch_unwind(AssertUnwindSafe(|| body(&data))).is_err() {
                panic!("regression {} fails again", path.display());
            }
            replayed += 1;
        }
    }
    println!("replayed {replayed} fuzz regressions");
}

/// The seed corpus of the libFuzzer targets (fuzz/seeds/<target>/) is exactly what the seeded
/// generators make, so the fuzzers start from messages of the current format. After changing a
/// generator, rewrite it with `WRITE_FUZZ_SEEDS=1 cargo test --release --test fuzz_stable fuzz_seeds`.
#[test]
fn fuzz_seeds_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let write = std::env::var_os("WRITE_FUZZ_SEEDS").is_some();
    let mut rng = Rng::new(0x5eed);
    for (target, seeds) in [
        ("parse_compile_evaluate", comparator_fuzz_seeds(&mut rng, 64)),
        ("encode_decode", schema_fuzz_seeds(&mut rng, 64)),
    ] {
        let dir = root.join(target);
        for (i, seed) in seeds.iter().enumerate() {
            let path = dir.join(format!("seed-{i:03}"));
            if write {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, seed).unwrap();
            } else {
                let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(
                    &stored,
                    seed,
                    "{} is stale: rewrite with WRITE_FUZZ_SEEDS=1",
                    path.display()
                );
            }
        }
    }
}

/// Found by libFuzzer (fuzz/regressions/parse_compile_evaluate/canonical-unknown-fields): the
/// canonical bytes of a comparator kept unknown fields of its nested messages (predicate,
/// conditions, values, equalities), and rust-protobuf writes unknown fields in the order of a
/// randomly seeded hash map, so parsing the same bytes twice could give different canonical
/// bytes (HBase compares comparators by them). Canonical bytes now drop them at every level, as
/// the schema's always did.
#[test]
fn regression_canonical_bytes_drop_nested_unknown_fields() {
    fn unknown(fields: &mut protobuf::SpecialFields, on: bool) {
        if on {
            let u = fields.mut_unknown_fields();
            for n in 90..100u32 {
                u.add_varint(n, u64::from(n));
                u.add_length_delimited(n + 100, vec![n as u8; 3]);
            }
        }
    }
    let specs = |on: bool| -> Vec<ComparatorSpec> {
        let mut c = condition("i", Op::IN, vec![int(1), int(2)]);
        unknown(&mut c.special_fields, on);
        unknown(&mut c.values[1].special_fields, on);
        let mut predicate = predicate_spec(
            schema_of(all_type_fields()),
            vec![c, condition("l", Op::GT, vec![int(5)])],
        );
        if let Some(Kind::Predicate(p)) = predicate.kind.as_mut() {
            unknown(&mut p.special_fields, on);
            unknown(&mut p.predicate.mut_or_insert_default().special_fields, on);
        }
        let mut equal = EqualComparatorSpec::new();
        equal.equalities = vec![named("l", ValueKind::IntValue(3)), named("i", ValueKind::IntValue(4))];
        for e in &mut equal.equalities {
            unknown(&mut e.special_fields, on);
            unknown(&mut e.value.mut_or_insert_default().special_fields, on);
        }
        let mut equal_spec = predicate_spec(schema_of(all_type_fields()), vec![]);
        equal_spec.kind = Some(Kind::Equal(equal));
        let mut range = RangeComparatorSpec::new();
        range.field = "t".into();
        range.value = MessageField::some(int(7));
        unknown(&mut range.value.mut_or_insert_default().special_fields, on);
        let mut range_spec = predicate_spec(schema_of(all_type_fields()), vec![]);
        range_spec.kind = Some(Kind::Range(range));
        vec![predicate, equal_spec, range_spec]
    };
    for (with, without) in specs(true).iter().zip(specs(false)) {
        let bytes = with.write_to_bytes().unwrap();
        let expected = Comparator::from_spec(&without).unwrap().canonical_bytes().to_vec();
        for _ in 0..20 {
            assert_eq!(
                Comparator::from_bytes(&bytes).unwrap().canonical_bytes(),
                expected.as_slice()
            );
        }
    }
    // The input libFuzzer found, replayed with its invariant.
    let found = include_bytes!("../fuzz/regressions/parse_compile_evaluate/canonical-unknown-fields");
    for _ in 0..20 {
        fuzz_bodies::parse_compile_evaluate(found);
    }
}
