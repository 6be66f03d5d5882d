//! Every limit of `limits.rs` (messages, schemas, predicates, the planner's caps, index
//! catalogs), refused by name just above its value and accepted at it, and the regressions of the
//! fixes that bounded what absurd-but-valid messages cost (planner expansion, wide IN lists),
//! with their memory measured (`common/budget.rs`).

#[path = "common/budget.rs"]
mod budget;
mod common;

use budget::{measured, time_budget};
use common::messages::{
    all_type_fields, any_of_spec, boolean, bytes_value, condition, field, int, named, plan_bytes, predicate_spec,
    salted_wide_in_lists, schema_of, string,
};
use hbase_rowkey::aggregate::{Aggregation, Aggregator, MAX_BYTES_SETTING};
use hbase_rowkey::key::Predicate;
use hbase_rowkey::limits;
use hbase_rowkey::plan_wire::plan_request;
use hbase_rowkey::proto::rowkey::{
    value::Kind as ValueKind, AggregateFunction, AggregateSpec, AggregationSpec, Condition, FieldSpec, FieldType,
    GroupKey, NamedValue, Op, SaltSpec, ScanPlan, SchemaSpec, Value,
};
use hbase_rowkey::{Comparator, Error, Schema};
use protobuf::{Message, MessageField};

fn assert_limit<T>(result: hbase_rowkey::Result<T>, limit: usize, words: &str) {
    match result {
        Err(e @ Error::MessageTooLarge { .. }) => {
            let Error::MessageTooLarge {
                limit: named, found, ..
            } = &e
            else {
                unreachable!()
            };
            assert_eq!(*named, limit, "{e}");
            assert!(*found > limit, "{e}");
            let text = e.to_string();
            assert!(text.contains(&limit.to_string()) && text.contains(words), "{text}");
        }
        Err(e @ Error::LimitExceeded { .. }) => {
            let Error::LimitExceeded {
                what,
                limit: named,
                found,
            } = &e
            else {
                unreachable!()
            };
            assert_eq!(*named, limit, "{e}");
            assert!(*found > limit, "{e}");
            assert!(what.contains(words), "the error does not name the limit ({words}): {e}");
            let text = e.to_string();
            assert!(text.contains(&limit.to_string()) && text.contains(words), "{text}");
        }
        Err(other) => panic!("expected the {words} limit ({limit}) to be refused, got: {other}"),
        Ok(_) => panic!("expected the {words} limit ({limit}) to be refused, got Ok"),
    }
}

#[test]
fn limit_max_message_bytes() {
    let too_big = vec![0u8; limits::MAX_MESSAGE_BYTES + 1];
    assert_limit(
        Schema::from_bytes(&too_big),
        limits::MAX_MESSAGE_BYTES,
        "serialized schema is",
    );
    assert_limit(
        Comparator::from_bytes(&too_big),
        limits::MAX_MESSAGE_BYTES,
        "serialized comparator is",
    );
    assert_limit(
        plan_request(&too_big),
        limits::MAX_MESSAGE_BYTES,
        "serialized scan plan request is",
    );
    let schema = Schema::from_spec(&schema_of(all_type_fields())).unwrap();
    assert_limit(schema.encode_flat(&too_big), limits::MAX_MESSAGE_BYTES, "flat row is");
    // A real message just above the limit, and a 10 MB field name inside one.
    let mut s = schema_of(vec![field(&"n".repeat(10 << 20), FieldType::INT32, 0)]);
    assert_limit(
        Schema::from_bytes(&s.write_to_bytes().unwrap()),
        limits::MAX_MESSAGE_BYTES,
        "serialized schema is",
    );
    s.fields[0].name = "n".repeat(limits::MAX_MESSAGE_BYTES);
    assert_limit(
        Schema::from_bytes(&s.write_to_bytes().unwrap()),
        limits::MAX_MESSAGE_BYTES,
        "serialized schema is",
    );
}

#[test]
fn limit_max_name_bytes() {
    for length in [limits::MAX_NAME_BYTES + 1, 10 << 20] {
        let s = schema_of(vec![field(&"n".repeat(length), FieldType::INT32, 0)]);
        let size = s.compute_size() as usize;
        assert_limit_of_spec(Schema::from_spec(&s), size, limits::MAX_NAME_BYTES, "field name length");
        if length < limits::MAX_MESSAGE_BYTES {
            assert_limit(
                Schema::from_bytes(&s.write_to_bytes().unwrap()),
                limits::MAX_NAME_BYTES,
                "field name length",
            );
        }
    }
    let s = schema_of(vec![field(
        &"é".repeat(limits::MAX_NAME_BYTES / 2),
        FieldType::INT32,
        0,
    )]);
    Schema::from_spec(&s).expect("a name of exactly the limit in UTF-8 bytes");
}

#[test]
fn limit_max_fields() {
    let fields = |n: usize| (0..n).map(|i| field(&format!("f{i}"), FieldType::BOOL, 0)).collect();
    Schema::from_spec(&schema_of(fields(limits::MAX_FIELDS))).expect("exactly the limit");
    for n in [limits::MAX_FIELDS + 1, 1_000_000] {
        let s = schema_of(fields(n));
        let size = s.compute_size() as usize;
        assert_limit_of_spec(Schema::from_spec(&s), size, limits::MAX_FIELDS, "number of fields");
        let bytes = s.write_to_bytes().unwrap();
        if bytes.len() <= limits::MAX_MESSAGE_BYTES {
            assert_limit(Schema::from_bytes(&bytes), limits::MAX_FIELDS, "number of fields");
        } else {
            assert_limit(
                Schema::from_bytes(&bytes),
                limits::MAX_MESSAGE_BYTES,
                "serialized schema is",
            );
        }
    }
}

#[test]
fn limit_max_key_bytes() {
    let wide = |n: usize, last: u32| {
        let mut f: Vec<FieldSpec> = (0..n)
            .map(|i| field(&format!("f{i}"), FieldType::FIXED_BYTES, 1024))
            .collect();
        f.push(field("last", FieldType::FIXED_BYTES, last));
        schema_of(f)
    };
    assert_eq!(
        Schema::from_spec(&wide(3, 1024)).unwrap().key_length(),
        limits::MAX_KEY_BYTES
    );
    assert_limit(Schema::from_spec(&wide(4, 1)), limits::MAX_KEY_BYTES, "row key length");
    assert_limit(
        Schema::from_bytes(&wide(4, 1).write_to_bytes().unwrap()),
        limits::MAX_KEY_BYTES,
        "row key length",
    );
    let mut salted = wide(3, 1024);
    salted.salt = MessageField::some(SaltSpec {
        buckets: 4,
        ..Default::default()
    });
    assert_limit(Schema::from_spec(&salted), limits::MAX_KEY_BYTES, "row key length");
    // In a comparator too.
    assert_limit(
        Comparator::from_spec(&predicate_spec(wide(4, 1), vec![])),
        limits::MAX_KEY_BYTES,
        "row key length",
    );
}

#[test]
fn limit_max_field_width() {
    for ty in [FieldType::FIXED_STRING, FieldType::FIXED_BYTES] {
        Schema::from_spec(&schema_of(vec![field("x", ty, limits::MAX_FIELD_WIDTH as u32)])).expect("exactly the limit");
        for width in [limits::MAX_FIELD_WIDTH as u32 + 1, u32::MAX] {
            let e = Schema::from_spec(&schema_of(vec![field("x", ty, width)])).unwrap_err();
            let text = e.to_string();
            // The width error is an invalid schema naming the width and the allowed range.
            assert!(matches!(e, Error::InvalidSchema(_)), "{text}");
            assert!(
                text.contains("width")
                    && text.contains(&width.to_string())
                    && text.contains(&limits::MAX_FIELD_WIDTH.to_string()),
                "the error does not name the width limit: {text}"
            );
        }
    }
}

#[test]
fn limit_max_conditions() {
    let schema = schema_of(all_type_fields());
    let conditions = |n: usize| vec![condition("i", Op::NE, vec![int(3)]); n];
    Comparator::from_spec(&predicate_spec(schema.clone(), conditions(limits::MAX_CONDITIONS)))
        .expect("exactly the limit");
    let too_many = predicate_spec(schema, conditions(limits::MAX_CONDITIONS + 1));
    assert_limit(
        Comparator::from_spec(&too_many),
        limits::MAX_CONDITIONS,
        "number of conditions",
    );
    assert_limit(
        Comparator::from_bytes(&too_many.write_to_bytes().unwrap()),
        limits::MAX_CONDITIONS,
        "number of conditions",
    );
    assert_limit(
        plan_request(&plan_bytes(too_many, 0)),
        limits::MAX_CONDITIONS,
        "number of conditions",
    );
}

#[test]
fn limit_max_or_branches() {
    let schema = schema_of(all_type_fields());
    let eq = |v: i64| vec![condition("i", Op::EQ, vec![int(v)])];
    Comparator::from_spec(&any_of_spec(
        schema.clone(),
        (0..limits::MAX_OR_BRANCHES as i64).map(eq).collect(),
    ))
    .expect("exactly the limit");
    let too_many = any_of_spec(schema, (0..limits::MAX_OR_BRANCHES as i64 + 1).map(eq).collect());
    assert_limit(
        Comparator::from_spec(&too_many),
        limits::MAX_OR_BRANCHES,
        "number of OR branches",
    );
    assert_limit(
        plan_request(&plan_bytes(too_many, 0)),
        limits::MAX_OR_BRANCHES,
        "number of OR branches",
    );
    // Each branch within one program's size, the branches together above it.
    let wide = schema_of(vec![field("s", FieldType::FIXED_STRING, 1024)]);
    let branch = |k: usize| {
        vec![condition(
            "s",
            Op::IN,
            (0..5000).map(|i| string(&format!("{k}{i}"))).collect(),
        )]
    };
    Comparator::from_spec(&any_of_spec(wide.clone(), vec![branch(1)])).expect("one branch fits");
    assert_limit(
        Comparator::from_spec(&any_of_spec(wide, vec![branch(1), branch(2)])),
        limits::MAX_PROGRAM_BYTES,
        "compiled program size in bytes",
    );
}

#[test]
fn limit_max_in_values() {
    let schema = schema_of(all_type_fields());
    let in_list = |n: usize| condition("i", Op::IN, (0..n as i64).map(int).collect());
    Comparator::from_spec(&predicate_spec(schema.clone(), vec![in_list(limits::MAX_IN_VALUES)]))
        .expect("exactly the limit");
    for spec in [
        predicate_spec(schema.clone(), vec![in_list(limits::MAX_IN_VALUES + 1)]),
        // All IN lists of a predicate together.
        predicate_spec(
            schema.clone(),
            vec![
                in_list(limits::MAX_IN_VALUES / 2 + 1),
                in_list(limits::MAX_IN_VALUES / 2),
            ],
        ),
        // 10^6 values.
        predicate_spec(schema, vec![in_list(1_000_000)]),
    ] {
        let bytes = spec.write_to_bytes().unwrap();
        assert_limit_of_spec(
            Comparator::from_spec(&spec),
            bytes.len(),
            limits::MAX_IN_VALUES,
            "number of condition values",
        );
        if bytes.len() <= limits::MAX_MESSAGE_BYTES {
            assert_limit(
                Comparator::from_bytes(&bytes),
                limits::MAX_IN_VALUES,
                "number of condition values",
            );
        }
    }
}

#[test]
fn limit_max_program_bytes() {
    // Distinct 1 KiB strings: each point costs 1024 + 8 bytes of program.
    let n = limits::MAX_PROGRAM_BYTES / (1024 + 8) + 1;
    let schema = schema_of(vec![field("w", FieldType::FIXED_STRING, 1024)]);
    let in_list = |n: usize| condition("w", Op::IN, (0..n).map(|v| string(&v.to_string())).collect());
    Comparator::from_spec(&predicate_spec(schema.clone(), vec![in_list(n - 1)])).expect("just under the limit");
    let spec = predicate_spec(schema, vec![in_list(n)]);
    assert_limit(
        Comparator::from_spec(&spec),
        limits::MAX_PROGRAM_BYTES,
        "compiled program size",
    );
    assert_limit(
        Comparator::from_bytes(&spec.write_to_bytes().unwrap()),
        limits::MAX_PROGRAM_BYTES,
        "compiled program size",
    );
}

#[test]
fn limit_max_salt_buckets() {
    for buckets in [0, limits::MAX_SALT_BUCKETS + 1, u32::MAX] {
        let mut s = schema_of(vec![field("i", FieldType::INT32, 0)]);
        s.salt = MessageField::some(SaltSpec {
            buckets,
            ..Default::default()
        });
        let err = Schema::from_spec(&s).unwrap_err().to_string();
        assert!(
            err.contains(&format!("within 1..{}, got {buckets}", limits::MAX_SALT_BUCKETS)),
            "{err}"
        );
    }
}

/// The plan of `conditions` over `schema` with a requested range cap (0 = the default).
fn plan_of(schema: &SchemaSpec, conditions: Vec<Condition>, max_ranges: u32) -> ScanPlan {
    ScanPlan::parse_from_bytes(
        &plan_request(&plan_bytes(predicate_spec(schema.clone(), conditions), max_ranges)).unwrap(),
    )
    .unwrap()
}

/// `n` values of an int field.
fn ints(n: usize) -> Vec<Value> {
    (0..n as i64).map(int).collect()
}

#[test]
fn limit_default_max_ranges() {
    let schema = schema_of(vec![field("a", FieldType::INT32, 0), field("b", FieldType::INT32, 0)]);
    // 250 x 200 = the default cap exactly: expanded; one more value of b: capped.
    let at = plan_of(
        &schema,
        vec![condition("a", Op::IN, ints(250)), condition("b", Op::IN, ints(200))],
        0,
    );
    assert!(!at.capped);
    assert_eq!(at.ranges.len(), 250); // consecutive b values merge into one range per a
    let over = plan_of(
        &schema,
        vec![condition("a", Op::IN, ints(250)), condition("b", Op::IN, ints(201))],
        0,
    );
    assert!(
        over.capped && over.explain.contains(&limits::DEFAULT_MAX_RANGES.to_string()),
        "{}",
        over.explain
    );
}

#[test]
fn limit_max_max_ranges() {
    let schema = schema_of(vec![field("a", FieldType::INT32, 0)]);
    let predicate = Predicate::from_conditions(
        &Schema::from_spec(&schema).unwrap(),
        &[condition("a", Op::IN, ints(10))],
    )
    .unwrap();
    for asked in [limits::MAX_MAX_RANGES + 1, usize::MAX] {
        let plan = hbase_rowkey::ranges::plan(&Schema::from_spec(&schema).unwrap(), &predicate, asked);
        assert_eq!(plan.max_ranges, limits::MAX_MAX_RANGES);
    }
}

#[test]
fn limit_max_plan_key_bytes() {
    // 1 KiB keys: the byte cap stops the expansion long before the range cap.
    let schema = schema_of(vec![
        field("a", FieldType::INT32, 0),
        field("w", FieldType::FIXED_BYTES, 1020),
    ]);
    let n = limits::MAX_PLAN_KEY_BYTES / 1024 + 1;
    let plan = plan_of(
        &schema,
        vec![
            condition("a", Op::IN, ints(n)),
            condition("w", Op::EQ, vec![bytes_value(vec![7; 1020])]),
        ],
        u32::MAX,
    );
    assert!(plan.capped);
    let bytes: usize = plan.ranges.iter().map(|r| r.start.len() + r.stop.len()).sum();
    assert!(bytes <= limits::MAX_PLAN_KEY_BYTES, "{bytes}");
}

#[test]
fn limit_max_salt_combinations() {
    let mut spec = schema_of(vec![field("a", FieldType::INT32, 0), field("b", FieldType::INT32, 0)]);
    spec.salt = MessageField::some(SaltSpec {
        buckets: 256,
        ..Default::default()
    });
    let schema = Schema::from_spec(&spec).unwrap();
    let buckets_read = |a: usize, b: usize| {
        let predicate = Predicate::from_conditions(
            &schema,
            &[condition("a", Op::IN, ints(a)), condition("b", Op::IN, ints(b))],
        )
        .unwrap();
        hbase_rowkey::ranges::plan(&schema, &predicate, limits::MAX_MAX_RANGES).buckets_read
    };
    // At the limit the combinations are hashed: exactly the buckets they fall in are read.
    let side = (limits::MAX_SALT_COMBINATIONS as f64).sqrt() as usize;
    assert_eq!(side * side, limits::MAX_SALT_COMBINATIONS);
    let mut expected: Vec<u8> = (0..side as i32)
        .flat_map(|a| (0..side as i32).map(move |b| (a, b)))
        .map(|(a, b)| {
            let enc = |v: i32| ((v as u32) ^ 0x8000_0000).to_be_bytes();
            schema.salt_of([enc(a), enc(b)])
        })
        .collect();
    expected.sort_unstable();
    expected.dedup();
    assert_eq!(buckets_read(side, side), Some(expected.len()));
    // One combination more: every bucket is read, without hashing.
    assert_eq!(buckets_read(side, side + 1), Some(256));
}

/// A catalog of an (a, b) schema with these indexes.
fn catalog_with(indexes: Vec<hbase_rowkey::proto::rowkey::IndexSpec>) -> hbase_rowkey::proto::rowkey::TableCatalog {
    let mut catalog = hbase_rowkey::proto::rowkey::TableCatalog::new();
    catalog.schema = MessageField::some(schema_of(vec![
        field("a", FieldType::INT32, 0),
        field("b", FieldType::INT32, 0),
    ]));
    catalog.indexes = indexes;
    catalog
}

fn index_on_b(name: &str) -> hbase_rowkey::proto::rowkey::IndexSpec {
    let mut index = hbase_rowkey::proto::rowkey::IndexSpec::new();
    index.name = name.into();
    index.fields = vec!["b".into()];
    index.state = hbase_rowkey::proto::rowkey::IndexState::ACTIVE.into();
    index
}

fn column(family: usize, qualifier: usize) -> hbase_rowkey::proto::rowkey::Column {
    let mut c = hbase_rowkey::proto::rowkey::Column::new();
    c.family = vec![b'f'; family];
    c.qualifier = vec![b'q'; qualifier];
    c
}

#[test]
fn limit_max_indexes() {
    use hbase_rowkey::key::Catalog;
    let indexes = |n: usize| (0..n).map(|i| index_on_b(&format!("ix{i}"))).collect();
    Catalog::from_spec(&catalog_with(indexes(limits::MAX_INDEXES))).expect("exactly the limit");
    assert_limit(
        Catalog::from_spec(&catalog_with(indexes(limits::MAX_INDEXES + 1))),
        limits::MAX_INDEXES,
        "number of indexes",
    );
}

#[test]
fn limit_max_included_columns() {
    use hbase_rowkey::key::Catalog;
    let with_columns = |n: usize| {
        let mut index = index_on_b("ix");
        index.include = (0..n).map(|q| column(1, q + 1)).collect();
        catalog_with(vec![index])
    };
    Catalog::from_spec(&with_columns(limits::MAX_INCLUDED_COLUMNS)).expect("exactly the limit");
    assert_limit(
        Catalog::from_spec(&with_columns(limits::MAX_INCLUDED_COLUMNS + 1)),
        limits::MAX_INCLUDED_COLUMNS,
        "number of covered columns",
    );
}

#[test]
fn limit_max_column_name_bytes() {
    use hbase_rowkey::key::Catalog;
    let with_column = |family: usize, qualifier: usize| {
        let mut index = index_on_b("ix");
        index.include = vec![column(family, qualifier)];
        catalog_with(vec![index])
    };
    let max = limits::MAX_COLUMN_NAME_BYTES;
    Catalog::from_spec(&with_column(max, max)).expect("exactly the limit");
    for (family, qualifier) in [(max + 1, 1), (1, max + 1)] {
        assert_limit(
            Catalog::from_spec(&with_column(family, qualifier)),
            max,
            "covered column family or qualifier length",
        );
    }
}

/// An aggregation of `aggregates` counts of rows, grouped by the int32 field `g`.
fn aggregation_spec(aggregates: usize, max_groups: u32) -> Vec<u8> {
    use hbase_rowkey::proto::rowkey::{AggregateFunction, AggregateSpec, AggregationSpec, GroupKey};
    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(schema_of(vec![field("g", FieldType::INT32, 0)]));
    let mut group = GroupKey::new();
    group.field = "g".into();
    spec.group_by.push(group);
    for _ in 0..aggregates {
        let mut count = AggregateSpec::new();
        count.function = AggregateFunction::COUNT.into();
        spec.aggregates.push(count);
    }
    spec.max_groups = max_groups;
    spec.write_to_bytes().unwrap()
}

#[test]
fn limit_max_aggregates() {
    use hbase_rowkey::aggregate::Aggregation;
    let max = limits::MAX_AGGREGATES;
    Aggregation::from_bytes(&aggregation_spec(max, 0)).expect("exactly the limit");
    assert_limit(
        Aggregation::from_bytes(&aggregation_spec(max + 1, 0)),
        max,
        "aggregates",
    );
}

#[test]
fn limit_max_groups() {
    use hbase_rowkey::aggregate::Aggregation;
    let max = limits::MAX_GROUPS;
    Aggregation::from_bytes(&aggregation_spec(1, max as u32)).expect("exactly the limit");
    assert_limit(
        Aggregation::from_bytes(&aggregation_spec(1, max as u32 + 1)),
        max,
        "max_groups",
    );
}

#[test]
fn limit_default_max_groups() {
    use hbase_rowkey::aggregate::{Aggregation, Aggregator};
    let schema = Schema::from_spec(&schema_of(vec![field("g", FieldType::INT32, 0)])).unwrap();
    let key = |g: i64| schema.encode(&[common::messages::named_value("g", int(g))]).unwrap();
    // A spec that asks for no cap gets the default: that many groups fold, one more is refused.
    let mut aggregator = Aggregator::new(Aggregation::from_bytes(&aggregation_spec(1, 0)).unwrap());
    let max = limits::DEFAULT_MAX_GROUPS;
    for g in 0..max as i64 {
        aggregator.fold_row(&key(g), &[]).unwrap();
    }
    assert_limit(aggregator.fold_row(&key(max as i64), &[]), max, "number of groups");
}

/// `from_spec` of a spec goes through its bytes, so a spec over the message size is refused by
/// that limit first.
fn assert_limit_of_spec<T>(result: hbase_rowkey::Result<T>, spec_bytes: usize, limit: usize, words: &str) {
    if spec_bytes > limits::MAX_MESSAGE_BYTES {
        assert_limit(result, limits::MAX_MESSAGE_BYTES, "serialized");
    } else {
        assert_limit(result, limit, words);
    }
}

/// The limits tested above are all the limits there are: a new constant in `limits.rs` must get
/// a test here.
#[test]
fn every_limit_has_a_test() {
    let source = include_str!("../src/limits.rs");
    let this = include_str!("limits.rs");
    let names: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(names.len(), 22, "{names:?}");
    for name in names {
        let test = format!("fn limit_{}()", name.to_lowercase());
        assert!(this.contains(&test), "no test `{test}` for limits::{name}");
    }
}

// ------------------------------------------------------------------ regressions of core fixes

/// The plan of `request` keeps every given row: it lies in a planned range and passes the
/// residual.
fn assert_plan_keeps(name: &str, request: &[u8], schema: &SchemaSpec, rows: &[Vec<NamedValue>]) -> bool {
    let plan = hbase_rowkey::proto::rowkey::ScanPlan::parse_from_bytes(&plan_request(request).unwrap()).unwrap();
    let residual = Comparator::from_spec(plan.residual.get_or_default()).unwrap();
    let schema = Schema::from_spec(schema).unwrap();
    for row in rows {
        let key = schema.encode(row).unwrap();
        let inside = plan
            .ranges
            .iter()
            .any(|r| key >= r.start && (r.stop.is_empty() || key < r.stop));
        assert!(inside, "{name}: a matching key is outside the planned ranges");
        assert_eq!(residual.compare(&key), 0, "{name}: a matching key fails the residual");
    }
    plan.capped
}

/// Found by this suite: the planner expanded IN lists and salt-field combinations into prefixes
/// without looking at their size, so a 600 KB request (an IN list of 100,000 ints, then three
/// 1 KiB fields fixed by equalities, max_ranges 1,000,000) held 1.8 GB for 0.9 s, and three
/// salted 1 KiB fields with 100 values each held 314 MB. Expansions are now capped by bytes too
/// (`planner::MAX_PLAN_KEY_BYTES`), falling back to covering ranges like the `max_ranges` cap.
#[test]
fn regression_plan_expansion_is_bounded_in_bytes() {
    let mut long_key = vec![field("i", FieldType::INT32, 0)];
    long_key.extend((0..3).map(|k| field(&format!("w{k}"), FieldType::FIXED_BYTES, 1024)));
    let long_key = schema_of(long_key);
    let fixed_wide = |i: i64| -> Vec<NamedValue> {
        let mut row = vec![named("i", ValueKind::IntValue(i))];
        row.extend((0..3u8).map(|k| named(&format!("w{k}"), ValueKind::BytesValue(vec![k; 1024]))));
        row
    };
    let wide_equalities = || (0..3u8).map(|k| condition(&format!("w{k}"), Op::EQ, vec![bytes_value(vec![k; 1024])]));

    let mut in_then_wide = vec![condition(
        "i",
        Op::IN,
        (0..limits::MAX_IN_VALUES as i64 - 3).map(int).collect(),
    )];
    in_then_wide.extend(wide_equalities());
    let mut range_then_wide = vec![condition("i", Op::BETWEEN, vec![int(0), int(999_999)])];
    range_then_wide.extend(wide_equalities());

    let (salted, salted_in) = salted_wide_in_lists();
    let salted_row = |v: u8| -> Vec<NamedValue> {
        (0..3u8)
            .map(|k| named(&format!("w{k}"), ValueKind::BytesValue(vec![v ^ k; 1024])))
            .collect()
    };

    // Twenty salted bools, each free: 2^20 combinations of the salt fields.
    let mut bools = schema_of((0..20).map(|i| field(&format!("b{i}"), FieldType::BOOL, 0)).collect());
    bools.salt = MessageField::some(SaltSpec {
        buckets: 256,
        ..Default::default()
    });
    let both = || vec![boolean(true), boolean(false)];
    let bools_in: Vec<Condition> = (0..20).map(|i| condition(&format!("b{i}"), Op::IN, both())).collect();
    let bools_row: Vec<NamedValue> = (0..20)
        .map(|i| named(&format!("b{i}"), ValueKind::BoolValue(i % 3 == 0)))
        .collect();

    type Case<'a> = (&'a str, SchemaSpec, Vec<Condition>, Vec<Vec<NamedValue>>);
    let cases: Vec<Case> = vec![
        (
            "IN then wide equalities",
            long_key.clone(),
            in_then_wide,
            vec![fixed_wide(0), fixed_wide(99_996)],
        ),
        (
            "enumerated range then wide equalities",
            long_key,
            range_then_wide,
            vec![fixed_wide(0), fixed_wide(999_999)],
        ),
        (
            "salt fields with 10^6 combinations",
            salted,
            salted_in,
            vec![salted_row(0), salted_row(99)],
        ),
        ("salt bools with 2^20 combinations", bools, bools_in, vec![bools_row]),
    ];
    for (name, schema, conditions, rows) in cases {
        for max_ranges in [0, u32::MAX] {
            let request = plan_bytes(predicate_spec(schema.clone(), conditions.clone()), max_ranges);
            let (result, took, memory) = measured(|| plan_request(&request));
            let plan = result.unwrap_or_else(|e| panic!("{name}: {e}"));
            println!(
                "{name}, max_ranges {max_ranges}: {took:.2?}, {} KiB, plan {} bytes",
                memory / 1024,
                plan.len()
            );
            assert!(memory <= 64 << 20, "{name}: planning held {memory} bytes");
            assert!(
                took <= time_budget(request.len() + plan.len()),
                "{name}: planning took {took:?}"
            );
            assert_plan_keeps(name, &request, &schema, &rows);
        }
    }
}

/// Found by this suite: every value of every condition was encoded (a 1 KiB string field pads
/// each value to 1 KiB) before the compiled-program limit was checked, so 100,000 IN values of a
/// 1 KiB field, a 400 KB message, held 116 MB. The limit now bounds the encoded values up front.
#[test]
fn regression_wide_in_lists_are_refused_before_encoding_every_value() {
    let wide = schema_of(vec![
        field("w", FieldType::FIXED_STRING, 1024),
        field("i", FieldType::INT32, 0),
    ]);
    for values in [
        vec![string(""); limits::MAX_IN_VALUES],
        (0..limits::MAX_IN_VALUES).map(|v| string(&v.to_string())).collect(),
    ] {
        let spec = predicate_spec(wide.clone(), vec![condition("w", Op::IN, values)])
            .write_to_bytes()
            .unwrap();
        let (result, took, memory) = measured(|| Comparator::from_bytes(&spec));
        println!("{} byte spec: {took:.2?}, {} KiB", spec.len(), memory / 1024);
        assert_limit(result, limits::MAX_PROGRAM_BYTES, "compiled program size");
        assert!(memory <= 32 << 20, "parsing held {memory} bytes");
    }
    // Narrow fields are unaffected: 100,000 int values still compile.
    let ints = (0..limits::MAX_IN_VALUES as i64).map(int).collect();
    Comparator::from_spec(&predicate_spec(wide, vec![condition("i", Op::IN, ints)])).unwrap();
}

/// A group-heavy aggregation (grouped by an int32 and a 1,024-byte field, 64 aggregates) whose
/// spec asks for `max_bytes` (0: none), and the fold batch of rows numbered `range`, each row its
/// own group.
fn group_heavy(max_bytes: u64) -> (Aggregation, impl Fn(std::ops::Range<u64>) -> Vec<u8>) {
    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(schema_of(vec![
        field("a", FieldType::INT32, 0),
        field("b", FieldType::FIXED_BYTES, 1024),
    ]));
    for f in ["a", "b"] {
        let mut g = GroupKey::new();
        g.field = f.into();
        spec.group_by.push(g);
    }
    for i in 0..limits::MAX_AGGREGATES {
        let mut a = AggregateSpec::new();
        a.function = if i % 2 == 0 {
            AggregateFunction::COUNT
        } else {
            AggregateFunction::SUM
        }
        .into();
        if i % 2 == 1 {
            a.field = "a".into();
        }
        spec.aggregates.push(a);
    }
    spec.max_bytes = max_bytes;
    let aggregation = Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap();
    let key_length = aggregation.key_length();
    let batch = move |rows: std::ops::Range<u64>| {
        let mut batch = Vec::new();
        for g in rows {
            let mut key = vec![0u8; key_length];
            key[4..12].copy_from_slice(&g.to_be_bytes());
            batch.extend_from_slice(&key);
        }
        batch
    };
    (aggregation, batch)
}

/// Folds rows `0..rows` in batches of 256, as a RegionServer does; stops at the first error.
fn fold_group_heavy(
    aggregator: &mut Aggregator,
    batch: &impl Fn(std::ops::Range<u64>) -> Vec<u8>,
    rows: u64,
) -> hbase_rowkey::Result<()> {
    for start in (0..rows).step_by(256) {
        let end = (start + 256).min(rows);
        aggregator.fold_batch(&batch(start..end), (end - start) as usize)?;
    }
    Ok(())
}

/// Issue 35, item 2: the group cap alone bounded an aggregation's memory in groups, not bytes: at
/// the default cap this aggregation held 780 MiB natively and sent a 308 MB partial state. Its
/// groups are now refused past the byte limit, before the fold holds more than the limit.
#[test]
fn limit_default_aggregate_bytes() {
    let (aggregation, batch) = group_heavy(0);
    let per_group = Aggregator::bytes_per_group(&aggregation);
    let mut aggregator = Aggregator::new(aggregation.clone());
    let (result, took, memory) =
        measured(|| fold_group_heavy(&mut aggregator, &batch, limits::DEFAULT_MAX_GROUPS as u64));
    let groups = aggregator.group_count();
    println!(
        "{groups} groups of {per_group} bytes held, then refused: {took:.2?}, peak {} KiB; partial {} bytes",
        memory / 1024,
        aggregator.partial_len()
    );
    let message = result.as_ref().map_err(ToString::to_string).unwrap_err();
    assert!(
        message.contains(&format!(
            "({groups} so far and a new one, {per_group} bytes each; the setting rowkey.aggregate.max.bytes)"
        )),
        "{message}"
    );
    assert_limit(result, limits::DEFAULT_AGGREGATE_BYTES, MAX_BYTES_SETTING);
    assert_eq!(groups, limits::DEFAULT_AGGREGATE_BYTES / per_group);
    // Within the limit, beside the 256-row batch being folded.
    assert!(
        memory <= limits::DEFAULT_AGGREGATE_BYTES + (1 << 20),
        "the fold held {memory} bytes"
    );
    assert!(aggregator.partial_len() <= limits::DEFAULT_AGGREGATE_BYTES);

    // Accepted at the limit: exactly the groups it allows, in a setting or asked by the spec.
    for (setting, asked) in [(groups * per_group, 0), (0, groups * per_group)] {
        let (aggregation, batch) = group_heavy(asked as u64);
        let mut at = Aggregator::with_max_bytes(aggregation, setting);
        fold_group_heavy(&mut at, &batch, groups as u64).unwrap();
        let name = if asked > 0 {
            "the aggregation's max_bytes"
        } else {
            MAX_BYTES_SETTING
        };
        assert_limit(
            fold_group_heavy(&mut at, &batch, groups as u64 + 1),
            groups * per_group,
            name,
        );
    }
    // A spec may ask for less than the setting, never more.
    let (aggregation, batch) = group_heavy((4 * per_group) as u64);
    let mut asked_more = Aggregator::with_max_bytes(aggregation, 2 * per_group);
    assert_limit(
        fold_group_heavy(&mut asked_more, &batch, 3),
        2 * per_group,
        MAX_BYTES_SETTING,
    );
}

/// Neither a spec nor the setting allows more than `MAX_AGGREGATE_BYTES`: a spec asking more is
/// refused, a larger setting counts as the maximum.
#[test]
fn limit_max_aggregate_bytes() {
    let (aggregation, _) = group_heavy(limits::MAX_AGGREGATE_BYTES as u64);
    assert_eq!(
        Aggregator::with_max_bytes(aggregation, limits::MAX_AGGREGATE_BYTES + 1).max_bytes(),
        limits::MAX_AGGREGATE_BYTES
    );
    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(schema_of(vec![field("a", FieldType::INT32, 0)]));
    let mut count = AggregateSpec::new();
    count.function = AggregateFunction::COUNT.into();
    spec.aggregates.push(count);
    spec.max_bytes = limits::MAX_AGGREGATE_BYTES as u64 + 1;
    assert_limit(
        Aggregation::from_bytes(&spec.write_to_bytes().unwrap()),
        limits::MAX_AGGREGATE_BYTES,
        "max_bytes of an aggregation",
    );
}

/// The client's merge is bounded the same way: a partial state it could not merge is refused by
/// its length before it is read, and merged groups past the limit by name.
#[test]
fn aggregate_bytes_bound_the_client_merge() {
    let (aggregation, batch) = group_heavy(0);
    let per_group = Aggregator::bytes_per_group(&aggregation);
    let mut region = Aggregator::new(aggregation.clone());
    fold_group_heavy(&mut region, &batch, 100).unwrap();
    let partial = region.take_partial().unwrap();
    assert!(partial.len() < 100 * per_group);

    let mut client = Aggregator::with_max_bytes(aggregation.clone(), 100 * per_group);
    client.merge(&partial).unwrap();
    client.merge(&partial).unwrap(); // the same groups again: nothing new to hold
    assert_eq!(client.group_count(), 100);
    let mut other = Aggregator::new(aggregation.clone());
    fold_group_heavy(&mut other, &batch, 101).unwrap();
    assert_limit(
        client.merge(&other.take_partial().unwrap()),
        100 * per_group,
        MAX_BYTES_SETTING,
    );

    let mut small = Aggregator::with_max_bytes(aggregation, 10 * per_group);
    let err = small.merge(&partial).unwrap_err().to_string();
    assert!(
        err.contains("bytes of a partial state to merge (the setting rowkey.aggregate.max.bytes)"),
        "{err}"
    );
}
