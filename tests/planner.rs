//! Scan planning against the oracle: no matching row is ever outside the planned ranges, the
//! ranges plus the residual predicate give exactly the oracle's rows, and prefix/range queries
//! get ranges that hold nothing else.

mod common;

use common::messages::{plan_bytes, predicate_spec};
use common::*;
use hbase_rowkey::key::Predicate;
use hbase_rowkey::plan_wire::plan_request;
use hbase_rowkey::proto::rowkey::{comparator_spec::Kind, Op, ScanPlan};
use hbase_rowkey::ranges::{plan, successor, Range};
use hbase_rowkey::{Comparator, Schema};
use protobuf::Message;

fn request(schema: &SchemaDef, conds: &[Cond], max_ranges: u32) -> ScanPlan {
    let conditions = conds.iter().map(|c| c.to_proto(schema)).collect();
    let request = plan_bytes(predicate_spec(schema.spec(), conditions), max_ranges);
    ScanPlan::parse_from_bytes(&plan_request(&request).unwrap()).unwrap()
}

#[test]
fn ranges_plus_residual_give_exactly_the_oracle_rows() {
    let mut rng = Rng::new(11);
    let (mut inside, mut total, mut capped) = (0usize, 0usize, 0usize);
    for round in 0..400 {
        let (schema, _, rows, keys) = random_table(&mut rng, 50);
        for _ in 0..12 {
            // Bias towards leading-field conditions, the case planning is for.
            let mut conds = random_predicate(&mut rng, &schema);
            if rng.chance(60) {
                let f = &schema.fields[0];
                conds.push(Cond {
                    field: 0,
                    op: if f.is_ordered() && rng.chance(50) {
                        Op::GE
                    } else {
                        Op::EQ
                    },
                    values: vec![rows[rng.below(rows.len())][0].clone()],
                });
            }
            let cap = if round % 4 == 0 { 1 + rng.below(6) as u32 } else { 0 };
            let planned = request(&schema, &conds, cap);
            capped += usize::from(planned.capped);
            let ranges = plan_ranges(&planned);
            for w in ranges.windows(2) {
                assert!(
                    w[0].stop.as_ref().is_some_and(|s| *s < w[1].start),
                    "ranges sorted and disjoint: {ranges:?}"
                );
            }
            let residual = Comparator::from_spec(&planned.residual).unwrap();
            for (row, key) in rows.iter().zip(&keys) {
                let expected = oracle(&schema, row, &conds);
                let in_range = in_ranges(&ranges, key);
                assert!(!expected || in_range, "false negative: {conds:?} {row:?} {ranges:?}");
                assert_eq!(in_range && residual.compare(key) == 0, expected, "{conds:?} {row:?}");
                inside += usize::from(in_range);
                total += 1;
            }
        }
    }
    assert!(
        inside < total * 3 / 4,
        "planning narrowed nothing: {inside} of {total} rows inside ranges"
    );
    assert!(capped > 0, "the cap was never exercised");
}

#[test]
#[allow(clippy::needless_range_loop)] // `i` names the field in the conditions too
fn prefix_and_range_queries_read_nothing_else() {
    // Equalities (or small IN lists) on the leading fields, then at most one range: the ranges
    // must hold exactly the matching rows, and no condition is left to filter.
    let mut rng = Rng::new(12);
    let mut checked = 0;
    for _ in 0..600 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        let rows: Vec<Vec<V>> = (0..40).map(|_| random_row(&mut rng, &schema)).collect();
        let keys: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| compiled.encode(&schema.named(r)).unwrap())
            .collect();
        let leading = rng.below(schema.fields.len() + 1);
        let mut conds = Vec::new();
        for i in 0..leading {
            let pick = |rng: &mut Rng| rows[rng.below(rows.len())][i].clone();
            if rng.chance(70) {
                conds.push(Cond {
                    field: i,
                    op: Op::EQ,
                    values: vec![pick(&mut rng)],
                });
            } else {
                conds.push(Cond {
                    field: i,
                    op: Op::IN,
                    values: (0..3).map(|_| pick(&mut rng)).collect(),
                });
            }
        }
        if leading < schema.fields.len() && schema.fields[leading].is_ordered() {
            let v = rows[rng.below(rows.len())][leading].clone();
            let op = *rng.pick(&[Op::LT, Op::LE, Op::GT, Op::GE]);
            conds.push(Cond {
                field: leading,
                op,
                values: vec![v],
            });
        }
        let planned = request(&schema, &conds, 0);
        let residual = &planned.residual.get_or_default();
        let Some(Kind::Predicate(p)) = &residual.kind else {
            panic!()
        };
        // Salt fields not pinned by equality make every bucket a range, still exact.
        assert!(
            p.predicate.conditions.is_empty(),
            "left to filter: {:?} for {conds:?}",
            p.predicate.conditions
        );
        let ranges = plan_ranges(&planned);
        for (row, key) in rows.iter().zip(&keys) {
            assert_eq!(
                in_ranges(&ranges, key),
                oracle(&schema, row, &conds),
                "{conds:?} {row:?} {ranges:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000);
}

#[test]
fn salted_schema_reads_one_bucket_when_salt_fields_are_fixed_and_all_otherwise() {
    let schema = SchemaDef {
        fields: vec![
            FieldDef {
                name: "user".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::FIXED_STRING,
                width: 8,
                descending: false,
            },
            FieldDef {
                name: "seq".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::INT64,
                width: 0,
                descending: false,
            },
        ],
        salt: Some((256, vec!["user".into()])),
    };
    let one = request(
        &schema,
        &[Cond {
            field: 0,
            op: Op::EQ,
            values: vec![V::Str("ab".into())],
        }],
        0,
    );
    assert_eq!(one.ranges.len(), 1);
    assert!(one.explain.contains("salt buckets read: 1 of 256"), "{}", one.explain);
    // Salt fields pinned by an IN list: each value with its own bucket only, never the
    // bucket x value combinations no encoded key can have (regression: 2 x 2 ranges before).
    let two = request(
        &schema,
        &[
            Cond {
                field: 0,
                op: Op::IN,
                values: vec![V::Str("ab".into()), V::Str("zz".into())],
            },
            Cond {
                field: 1,
                op: Op::EQ,
                values: vec![V::Int(7)],
            },
        ],
        0,
    );
    assert_eq!(two.ranges.len(), 2, "{}", two.explain);
    // Touching per-bucket ranges merge: with nothing to narrow inside a bucket, one full range.
    let unsalted_condition = request(
        &schema,
        &[Cond {
            field: 1,
            op: Op::GT,
            values: vec![V::Int(5)],
        }],
        0,
    );
    assert_eq!(unsalted_condition.ranges.len(), 1);
    assert!(unsalted_condition.ranges[0].stop.is_empty());
    // Salt on `seq`, equality on `user`: one range per bucket, the last bucket included.
    let mut by_seq = schema.clone();
    by_seq.salt = Some((256, vec!["seq".into()]));
    let fan_out = request(
        &by_seq,
        &[Cond {
            field: 0,
            op: Op::EQ,
            values: vec![V::Str("ab".into())],
        }],
        0,
    );
    assert_eq!(fan_out.ranges.len(), 256);
    assert!(
        fan_out.explain.contains("salt buckets read: 256 of 256"),
        "{}",
        fan_out.explain
    );
    let last = fan_out.ranges.last().unwrap();
    assert_eq!(
        last.start,
        [&[255u8][..], b"ab\0\0\0\0\0\0"].concat(),
        "the last bucket is read"
    );
}

#[test]
fn in_lists_above_the_cap_fall_back_to_one_covering_range() {
    let schema = SchemaDef {
        fields: vec![
            FieldDef {
                name: "a".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::INT32,
                width: 0,
                descending: false,
            },
            FieldDef {
                name: "b".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::INT32,
                width: 0,
                descending: false,
            },
        ],
        salt: None,
    };
    let in_a = Cond {
        field: 0,
        op: Op::IN,
        values: (0..100).map(V::Int).collect(),
    };
    let in_b = Cond {
        field: 1,
        op: Op::IN,
        values: (0..100).map(V::Int).collect(),
    };
    let full = request(&schema, &[in_a.clone(), in_b.clone()], 0);
    assert_eq!(
        full.ranges.len(),
        100,
        "b's values are consecutive, so each a's range merges"
    );
    let capped = request(&schema, &[in_a, in_b], 50);
    assert!(capped.capped);
    assert_eq!(capped.ranges.len(), 1);
    assert!(capped.explain.contains("capped"));
}

#[test]
fn contradictions_read_nothing_and_successor_carries() {
    let schema = SchemaDef {
        fields: vec![FieldDef {
            name: "a".into(),
            ty: hbase_rowkey::proto::rowkey::FieldType::INT32,
            width: 0,
            descending: false,
        }],
        salt: None,
    };
    let none = request(
        &schema,
        &[
            Cond {
                field: 0,
                op: Op::EQ,
                values: vec![V::Int(1)],
            },
            Cond {
                field: 0,
                op: Op::EQ,
                values: vec![V::Int(2)],
            },
        ],
        0,
    );
    assert!(none.ranges.is_empty());
    assert!(none.explain.contains("no row can match"));
    assert_eq!(successor(&[1, 0xff, 0xff]), Some(vec![2, 0, 0]));
    assert_eq!(successor(&[0xff, 0xff]), None);
    assert_eq!(successor(&[]), None);
    let compiled = Schema::from_spec(&schema.spec()).unwrap();
    let p = Predicate::from_conditions(
        &compiled,
        &[Cond {
            field: 0,
            op: Op::LE,
            values: vec![V::Int(i32::MAX as i64)],
        }
        .to_proto(&schema)],
    )
    .unwrap();
    assert_eq!(
        plan(&compiled, &p, 10).ranges,
        vec![Range {
            start: vec![],
            stop: None
        }]
    );
}
