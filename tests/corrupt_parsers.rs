//! Every native parser under corruption: hundreds of thousands of corrupted inputs each
//! (truncations, bit flips, random bytes, huge declared lengths, repeated-field floods, valid
//! messages with absurd contents) must give `Ok` or a clean `Err`: no panic, and bounded time and
//! memory per input (`common/budget.rs`). Seeded: a failure names the input and can be replayed.

#[path = "common/budget.rs"]
mod budget;
mod common;

use budget::{corrupt_and_run, Harness};
use common::absurd::{
    absurd_comparators, absurd_flat_rows, absurd_plans, absurd_schemas, flood_inputs, FLOOD_NS_PER_BYTE,
};
use common::messages::{
    all_type_fields, field, flat_row, plan_bytes, predicate_spec, random_comparator_spec, schema_of,
};
use common::mutation::{huge_varints, seeds_of, varint};
use common::*;
use hbase_rowkey::limits;
use hbase_rowkey::plan_wire::plan_request;
use hbase_rowkey::proto::rowkey::{Condition, FieldType, Value};
use hbase_rowkey::{Comparator, Schema};
use protobuf::Message;

/// Inputs each parser must get in `parser_*` tests.
const INPUTS_PER_PARSER: usize = 200_000;

#[test]
fn parser_schema_from_bytes() {
    let mut rng = Rng::new(0x5c4e_3a01);
    let mut seeds = seeds_of(400, || random_schema(&mut rng).spec().write_to_bytes().unwrap());
    seeds.extend(absurd_schemas().iter().map(|s| s.write_to_bytes().unwrap()));
    let mut h = Harness::new("Schema::from_bytes");
    corrupt_and_run(&mut h, &mut rng, &seeds, INPUTS_PER_PARSER, Schema::from_bytes);
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, Schema::from_bytes);
    }
    h.report(INPUTS_PER_PARSER);
}

#[test]
fn parser_comparator_from_bytes() {
    let mut rng = Rng::new(0xc0a1_7a02);
    let mut seeds = seeds_of(400, || random_comparator_spec(&mut rng).1.write_to_bytes().unwrap());
    seeds.extend(absurd_comparators().iter().map(|s| s.write_to_bytes().unwrap()));
    let mut h = Harness::new("Comparator::from_bytes");
    let parse = |b: &[u8]| Comparator::from_bytes(b).map(|c| c.compare(&[]));
    corrupt_and_run(&mut h, &mut rng, &seeds, INPUTS_PER_PARSER, parse);
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, parse);
    }
    h.report(INPUTS_PER_PARSER);
}

#[test]
fn parser_plan_request() {
    let mut rng = Rng::new(0x91a2_0b03);
    let mut seeds = seeds_of(400, || {
        let schema = random_schema(&mut rng);
        let conds: Vec<Condition> = random_predicate(&mut rng, &schema)
            .iter()
            .map(|c| c.to_proto(&schema))
            .collect();
        let max = *rng.pick(&[0u32, 1, 2, 5, 100, 50_000]);
        plan_bytes(predicate_spec(schema.spec(), conds), max)
    });
    seeds.extend(absurd_comparators().into_iter().map(|c| plan_bytes(c, 0)));
    seeds.extend(absurd_plans().iter().map(|(_, bytes)| bytes.clone()));
    let mut h = Harness::new("planner::plan_request");
    corrupt_and_run(&mut h, &mut rng, &seeds, INPUTS_PER_PARSER, plan_request);
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, plan_request);
    }
    h.report(INPUTS_PER_PARSER);
}

/// Schemas of every shape the row parser is run against, valid ones only.
fn row_test_schemas(rng: &mut Rng) -> Vec<(SchemaDef, Schema)> {
    let mut out = Vec::new();
    while out.len() < 60 {
        let def = random_schema(rng);
        if let Ok(schema) = Schema::from_spec(&def.spec()) {
            out.push((def, schema));
        }
    }
    out
}

#[test]
fn parser_encode_flat() {
    let mut rng = Rng::new(0xe9c0_de04);
    let schemas = row_test_schemas(&mut rng);
    let mut h = Harness::new("Schema::encode_flat");
    let per_schema = INPUTS_PER_PARSER / schemas.len() + 1;
    let mut all_rows: Vec<Vec<u8>> = Vec::new();
    for (def, _) in &schemas {
        for _ in 0..5 {
            all_rows.push(flat_row(&values_of(&random_row(&mut rng, def))));
        }
    }
    for (i, (def, schema)) in schemas.iter().enumerate() {
        let mut seeds = seeds_of(20, || flat_row(&values_of(&random_row(&mut rng, def))));
        seeds.extend(absurd_flat_rows(def, &values_of(&random_row(&mut rng, def)), i == 0));
        // Rows of other schemas: mistyped values, too few or too many.
        seeds.push(all_rows[(i * 5 + 7) % all_rows.len()].clone());
        corrupt_and_run(&mut h, &mut rng, &seeds, per_schema, |b| schema.encode_flat(b));
    }
    let schema = &schemas[0].1;
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, |b| schema.encode_flat(b));
    }
    h.report(INPUTS_PER_PARSER);
}

fn values_of(row: &[V]) -> Vec<Value> {
    row.iter().map(V::to_proto).collect()
}

#[test]
fn parser_decode_to_row_message() {
    let mut rng = Rng::new(0xdec0_de05);
    let mut schemas = row_test_schemas(&mut rng);
    // And the widest keys: 4 x 1024-byte fields.
    let wide = schema_of(
        (0..4)
            .map(|i| field(&format!("w{i}"), FieldType::FIXED_STRING, 1024))
            .collect(),
    );
    schemas.push((
        SchemaDef {
            fields: vec![],
            salt: None,
        },
        Schema::from_spec(&wide).unwrap(),
    ));
    let mut h = Harness::new("Schema::decode_to_row_message");
    let per_schema = INPUTS_PER_PARSER / schemas.len() + 1;
    for (def, schema) in &schemas {
        let target = h.inputs + per_schema;
        let len = schema.key_length();
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        if !def.fields.is_empty() {
            seeds.extend((0..10).map(|_| schema.encode(&def.named(&random_row(&mut rng, def))).unwrap()));
        }
        seeds.extend([vec![0u8; len], vec![0xff; len], vec![0x80; len], vec![0x7f; len]]);
        let decode = |b: &[u8]| schema.decode_to_row_message(b);
        // Keys of exactly the key length (the interesting ones) with random bytes, then
        // corruptions of valid keys (other lengths), then random lengths up to 2 x 4096.
        while h.inputs < target - per_schema / 2 {
            let key: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.chance(30) {
                        *rng.pick(&[0u8, 0x7f, 0x80, 0xc3, 0xff])
                    } else {
                        rng.next() as u8
                    }
                })
                .collect();
            h.check("random key", &key, decode);
        }
        corrupt_and_run(&mut h, &mut rng, &seeds, per_schema * 2 / 5, decode);
        while h.inputs < target {
            let key: Vec<u8> = (0..rng.below(2 * limits::MAX_KEY_BYTES + 2))
                .map(|_| rng.next() as u8)
                .collect();
            h.check("random length", &key, decode);
        }
    }
    h.report(INPUTS_PER_PARSER);
}

/// Huge declared lengths, at the front of every message kind.
#[test]
fn huge_declared_lengths_are_refused_without_allocating_them() {
    let mut h = Harness::new("huge lengths");
    let row_schema = Schema::from_spec(&schema_of(all_type_fields())).unwrap();
    for field_number in [1u64, 2, 3, 4, 5, 99, 536_870_911] {
        for v in huge_varints() {
            for tail in [&[][..], &[0u8; 16][..], &[0x0a, 0x7f][..]] {
                let mut d = varint(field_number << 3 | 2);
                d.extend(&v);
                d.extend(tail);
                h.check("schema", &d, Schema::from_bytes);
                h.check("comparator", &d, Comparator::from_bytes);
                h.check("plan", &d, plan_request);
                h.check("row", &d, |b| row_schema.encode_flat(b));
            }
        }
    }
    // Inside a valid prefix: a comparator whose schema claims gigabytes.
    let valid = predicate_spec(schema_of(all_type_fields()), vec![])
        .write_to_bytes()
        .unwrap();
    for v in huge_varints() {
        let mut d = valid[..1].to_vec();
        d.extend(&v);
        d.extend(&valid[2..]);
        h.check("nested", &d, Comparator::from_bytes);
    }
    h.report(0);
}

/// Where clauses that sit at or just over the text limits: the longest IN list, the deepest
/// nesting, the most ORs, an AND of ORs that would expand past the branch limit, a megabyte of
/// open parentheses, one huge string literal.
fn absurd_where_texts() -> Vec<Vec<u8>> {
    let mut texts = vec![
        format!("i IN ({})", vec!["-2147483648"; 80_000].join(",")),
        format!("{}i = 1{}", "(".repeat(64), ")".repeat(64)),
        vec!["(i = 1 AND l = 2)"; 64].join(" OR "),
        vec!["(i = 1 OR i = 2 OR i = 3)"; 40].join(" AND "),
        "(".repeat(limits::MAX_MESSAGE_BYTES),
        format!("s = '{}'", "x".repeat(limits::MAX_MESSAGE_BYTES - 10)),
        format!("y IN ({})", vec!["x'0a0b0c'"; 90_000].join(",")),
    ];
    texts.push(vec!["b"; 1024].join(" AND "));
    texts.into_iter().map(|t| [&[0u8][..], t.as_bytes()].concat()).collect()
}

/// The text parsers (where clause on the fuzz schema, schema text) under the same corruption as
/// the binary ones: the text is the bytes after the grammar byte, invalid UTF-8 replaced.
#[test]
fn parser_where_and_schema_text() {
    use hbase_rowkey::text::{describe_conditions, describe_schema, parse_schema, parse_where};
    let mut rng = Rng::new(0x7e47_c006);
    let schema = Schema::from_spec(&parse_schema(common::fuzz_bodies::TEXT_FUZZ_SCHEMA).unwrap()).unwrap();
    let def = SchemaDef::fields_of(schema.canonical_spec());
    let mut seeds = seeds_of(300, || {
        if rng.chance(30) {
            loop {
                if let Ok(s) = Schema::from_spec(&random_schema(&mut rng).spec()) {
                    return [&[1u8][..], describe_schema(s.canonical_spec()).as_bytes()].concat();
                }
            }
        }
        let branches: Vec<String> = (0..1 + rng.below(3))
            .map(|_| {
                let conds: Vec<Condition> = random_predicate(&mut rng, &def)
                    .iter()
                    .map(|c| c.to_proto(&def))
                    .collect();
                format!("({})", describe_conditions(&conds))
            })
            .collect();
        [&[0u8][..], branches.join(" OR ").as_bytes()].concat()
    });
    seeds.extend(absurd_where_texts());
    let parse = |b: &[u8]| -> hbase_rowkey::Result<()> {
        let Some((&pick, rest)) = b.split_first() else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(rest);
        if pick % 2 == 0 {
            parse_where(&schema, &text).map(|_| ())
        } else {
            parse_schema(&text).map(|_| ())
        }
    };
    let mut h = Harness::new("text::parse_where / parse_schema");
    corrupt_and_run(&mut h, &mut rng, &seeds, INPUTS_PER_PARSER, parse);
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, parse);
    }
    h.report(INPUTS_PER_PARSER);
}
