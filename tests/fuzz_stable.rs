//! The fuzz bodies of `common/fuzz_bodies.rs` (run under libFuzzer in `fuzz/`) on stable Rust:
//! a bounded run of seeds and mutations each, within the time and memory budgets of
//! `common/budget.rs`; every input libFuzzer once failed on (`fuzz/regressions/`) replayed; and
//! the committed seed corpus (`fuzz/seeds/`) checked against the generators.

#[path = "common/budget.rs"]
mod budget;
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use budget::Harness;
use common::fuzz_bodies::flat_row;
use common::fuzz_bodies::{self, frame, split};
use common::messages::{all_type_fields, condition, int, predicate_spec, random_comparator_spec, schema_of};
use common::mutation::{mutate, random_bytes, rng_pick};
use common::*;
use hbase_rowkey::proto::rowkey::{comparator_spec::Kind, ComparatorSpec, Op};
use hbase_rowkey::{Comparator, Schema};
use protobuf::Message;

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

/// Seeds for `fuzz_bodies::encode_decode`: valid schemas framed with a valid flat row, or with a key.
fn schema_fuzz_seeds(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    while seeds.len() < n {
        let def = random_schema(rng);
        let Ok(schema) = Schema::from_spec(&def.spec()) else {
            continue;
        };
        let named = def.named(&random_row(rng, &def));
        let rest = if rng.chance(70) {
            flat_row(named.iter().map(|n| n.value.get_or_default()))
        } else {
            schema.encode(&named).unwrap()
        };
        seeds.push(frame(&def.spec().write_to_bytes().unwrap(), &rest));
    }
    seeds
}

/// Seeds for `fuzz_bodies::parse_text`: printed where clauses on the fuzz schema (plain and OR)
/// and printed random schemas, each behind its grammar byte.
fn text_fuzz_seeds(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    use hbase_rowkey::text;
    let schema = Schema::from_spec(&text::parse_schema(fuzz_bodies::TEXT_FUZZ_SCHEMA).unwrap()).unwrap();
    let def = SchemaDef::fields_of(schema.canonical_spec());
    let mut seeds = Vec::new();
    while seeds.len() < n {
        if rng.chance(30) {
            let Ok(s) = Schema::from_spec(&random_schema(rng).spec()) else {
                continue;
            };
            seeds.push([&[1u8][..], text::describe_schema(s.canonical_spec()).as_bytes()].concat());
            continue;
        }
        let branches: Vec<Vec<_>> = (0..1 + rng.below(3))
            .map(|_| random_predicate(rng, &def).iter().map(|c| c.to_proto(&def)).collect())
            .collect();
        let texts: Vec<String> = branches
            .iter()
            .map(|b| format!("({})", hbase_rowkey::text::describe_conditions(b)))
            .collect();
        let clause = texts.join(" OR ");
        if text::parse_where(&schema, &clause).is_ok() {
            seeds.push([&[0u8][..], clause.as_bytes()].concat());
        }
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

#[test]
fn fuzz_parse_text_stable() {
    let mut rng = Rng::new(0xf022_0009);
    let seeds = text_fuzz_seeds(&mut rng, 300);
    fuzz_stable(
        "fuzz_bodies::parse_text",
        &seeds,
        &mut rng,
        60_000,
        fuzz_bodies::parse_text,
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
        ("parse_text", fuzz_bodies::parse_text),
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
        ("parse_text", text_fuzz_seeds(&mut rng, 64)),
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
/// canonical bytes of a comparator kept unknown fields of its nested messages, written in the
/// order of a randomly seeded hash map, so the same bytes could give different canonical bytes.
/// Unknown fields are now refused at every level, before parsing (`wire.rs`): a field this
/// library does not know could change what a newer client meant the filter to match.
#[test]
fn regression_unknown_fields_are_refused_at_every_level() {
    fn unknown(fields: &mut protobuf::SpecialFields) {
        fields.mut_unknown_fields().add_varint(99, 1);
    }
    let base = || {
        predicate_spec(
            schema_of(all_type_fields()),
            vec![condition("i", Op::IN, vec![int(1), int(2)])],
        )
    };
    type Plant = fn(&mut ComparatorSpec);
    let places: Vec<(&str, Plant)> = vec![
        ("ComparatorSpec", |s| unknown(&mut s.special_fields)),
        ("SchemaSpec", |s| {
            unknown(&mut s.schema.mut_or_insert_default().special_fields)
        }),
        ("FieldSpec", |s| {
            unknown(&mut s.schema.mut_or_insert_default().fields[0].special_fields)
        }),
        ("PredicateComparatorSpec", |s| {
            if let Some(Kind::Predicate(p)) = s.kind.as_mut() {
                unknown(&mut p.special_fields)
            }
        }),
        ("Condition", |s| {
            if let Some(Kind::Predicate(p)) = s.kind.as_mut() {
                unknown(&mut p.predicate.mut_or_insert_default().conditions[0].special_fields)
            }
        }),
        ("Value", |s| {
            if let Some(Kind::Predicate(p)) = s.kind.as_mut() {
                unknown(&mut p.predicate.mut_or_insert_default().conditions[0].values[1].special_fields)
            }
        }),
    ];
    for (message, plant) in places {
        let mut spec = base();
        plant(&mut spec);
        let err = Comparator::from_bytes(&spec.write_to_bytes().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("field number 99 of {message} is unknown")),
            "{message}: {err}"
        );
    }
    // The input libFuzzer found, replayed with its invariant.
    let found = include_bytes!("../fuzz/regressions/parse_compile_evaluate/canonical-unknown-fields");
    for _ in 0..20 {
        fuzz_bodies::parse_compile_evaluate(found);
    }
}
