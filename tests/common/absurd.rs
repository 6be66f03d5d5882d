//! Well-formed messages with absurd contents (every limit at and above its value, wrong types,
//! huge names and lists, missing parts) and repeated-field floods that fill the message limit:
//! seeds for the corruption runs, each of which a parser must refuse cleanly or handle within
//! its budget.

use hbase_rowkey::limits;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, value::Kind as ValueKind, ComparatorSpec, Condition, EqualComparatorSpec, FieldType, Op,
    RangeComparatorSpec, SaltSpec, ScanPlanRequest, SchemaSpec, Value,
};
use protobuf::{Message, MessageField};

use super::messages::{
    all_type_fields, boolean, bytes_value, condition, field, flat_row, int, named, plan_bytes, predicate_spec,
    salted_wide_in_lists, schema_of, string, value,
};
use super::SchemaDef;

/// The time per byte allowed to the repeated-field floods of [`flood_inputs`]: rust-protobuf gives
/// each message its own unknown-field map, so 1 MiB of `12 02 1a 00` (262,144 `FieldSpec`s with
/// one unknown field each) takes 100-400 ms and 155 MiB before any limit can look at it.
pub const FLOOD_NS_PER_BYTE: u64 = 500;

/// Well-formed `SchemaSpec`s whose contents are out of range.
pub fn absurd_schemas() -> Vec<SchemaSpec> {
    let mut out = Vec::new();
    for ty in [FieldType::FIXED_STRING, FieldType::FIXED_BYTES, FieldType::MD5] {
        for width in [0u32, 17, 1024, 1025, 4097, 1 << 31, u32::MAX] {
            out.push(schema_of(vec![field("x", ty, width)]));
        }
    }
    for ty in [FieldType::INT32, FieldType::BOOL, FieldType::JAVA_HASH] {
        out.push(schema_of(vec![field("x", ty, 4)]));
    }
    let mut unknown_type = field("x", FieldType::INT32, 0);
    unknown_type.type_ = protobuf::EnumOrUnknown::from_i32(99);
    out.push(schema_of(vec![unknown_type.clone()]));
    unknown_type.type_ = protobuf::EnumOrUnknown::from_i32(-1);
    out.push(schema_of(vec![unknown_type]));
    out.push(schema_of(vec![field("x", FieldType::FIELD_TYPE_UNSPECIFIED, 0)]));
    out.push(schema_of(vec![]));
    out.push(schema_of(vec![field("", FieldType::INT32, 0)]));
    out.push(schema_of(vec![
        field("x", FieldType::INT32, 0),
        field("x", FieldType::INT64, 0),
    ]));
    out.push(schema_of(vec![field(
        &"n".repeat(limits::MAX_NAME_BYTES + 1),
        FieldType::INT32,
        0,
    )]));
    out.push(schema_of(vec![field(
        &"n".repeat(limits::MAX_NAME_BYTES),
        FieldType::INT32,
        0,
    )]));
    for version in [0u32, 2, 99, u32::MAX] {
        let mut s = schema_of(all_type_fields());
        s.format_version = version;
        out.push(s);
    }
    // Key length above the limit: 5 x 1024 bytes; and exactly at it.
    out.push(schema_of(
        (0..5)
            .map(|i| field(&format!("f{i}"), FieldType::FIXED_BYTES, 1024))
            .collect(),
    ));
    out.push(schema_of(
        (0..4)
            .map(|i| field(&format!("f{i}"), FieldType::FIXED_BYTES, 1024))
            .collect(),
    ));
    // Fields: at the limit, above it.
    out.push(schema_of(
        (0..limits::MAX_FIELDS)
            .map(|i| field(&format!("f{i}"), FieldType::BOOL, 0))
            .collect(),
    ));
    out.push(schema_of(
        (0..=limits::MAX_FIELDS)
            .map(|i| field(&format!("f{i}"), FieldType::BOOL, 0))
            .collect(),
    ));
    for buckets in [0u32, 1, 256, 257, u32::MAX] {
        let mut s = schema_of(all_type_fields());
        let mut salt = SaltSpec::new();
        salt.buckets = buckets;
        s.salt = MessageField::some(salt);
        out.push(s);
    }
    let long_name = "é".repeat(250_000);
    for names in [
        vec!["nope"],
        vec!["i", "i"],
        vec!["i", "b", "m"],
        vec![""],
        vec![long_name.as_str()],
    ] {
        let mut s = schema_of(all_type_fields());
        let mut salt = SaltSpec::new();
        salt.buckets = 16;
        salt.fields = names.into_iter().map(String::from).collect();
        s.salt = MessageField::some(salt);
        out.push(s);
    }
    // 100,000 salt field names (all the same, so the message stays small).
    let mut s = schema_of(all_type_fields());
    let mut salt = SaltSpec::new();
    salt.buckets = 16;
    salt.fields = vec!["i".into(); 100_000];
    s.salt = MessageField::some(salt);
    out.push(s);
    out
}

/// Well-formed `ComparatorSpec`s whose contents are out of range.
pub fn absurd_comparators() -> Vec<ComparatorSpec> {
    let schema = || schema_of(all_type_fields());
    let wide = || {
        schema_of(vec![
            field("w", FieldType::FIXED_STRING, 1024),
            field("i", FieldType::INT32, 0),
        ])
    };
    let mut out = Vec::new();
    let mut conditions: Vec<Vec<Condition>> = vec![
        vec![condition("i", Op::EQ, vec![])],
        vec![condition("i", Op::EQ, vec![int(1), int(2)])],
        vec![condition("i", Op::BETWEEN, vec![int(1)])],
        vec![condition("i", Op::BETWEEN, vec![int(1), int(2), int(3)])],
        vec![condition("i", Op::BETWEEN, vec![int(5), int(1)])],
        vec![condition("i", Op::IN, vec![])],
        vec![condition("i", Op::OP_UNSPECIFIED, vec![int(1)])],
        vec![condition("i", Op::EQ, vec![int(i64::MAX)])],
        vec![condition("i", Op::LT, vec![int(i32::MIN as i64)])],
        vec![condition("i", Op::GT, vec![int(i32::MAX as i64)])],
        vec![condition("r", Op::EQ, vec![int(-1)])],
        vec![condition("r", Op::GT, vec![int(i64::MAX)])],
        vec![condition("l", Op::LT, vec![int(i64::MIN)])],
        vec![condition("b", Op::LT, vec![boolean(true)])],
        vec![condition("m", Op::GT, vec![string("x")])],
        vec![condition("h", Op::BETWEEN, vec![string("a"), string("b")])],
        vec![condition("s", Op::EQ, vec![string("nine bytes")])],
        vec![condition("s", Op::EQ, vec![string("a\0b")])],
        vec![condition("y", Op::EQ, vec![bytes_value(vec![1, 2])])],
        vec![condition("i", Op::EQ, vec![Value::new()])],
        vec![condition("i", Op::EQ, vec![string("1")])],
        vec![condition("nope", Op::EQ, vec![int(1)])],
        vec![condition(&"n".repeat(500_000), Op::EQ, vec![int(1)])],
        vec![condition("", Op::EQ, vec![int(1)])],
        // Conditions: at the limit and above it.
        vec![condition("i", Op::NE, vec![int(7)]); limits::MAX_CONDITIONS],
        vec![condition("i", Op::NE, vec![int(7)]); limits::MAX_CONDITIONS + 1],
        (0..limits::MAX_CONDITIONS as i64)
            .map(|v| condition("l", Op::NE, vec![int(v * 7919)]))
            .collect(),
        // IN lists: at the limit and above it; 10^6 values.
        vec![condition(
            "i",
            Op::IN,
            (0..limits::MAX_IN_VALUES as i64).map(int).collect(),
        )],
        vec![condition(
            "i",
            Op::IN,
            (0..=limits::MAX_IN_VALUES as i64).map(int).collect(),
        )],
        vec![condition("b", Op::IN, vec![boolean(true); limits::MAX_IN_VALUES])],
        vec![condition(
            "m",
            Op::IN,
            (0..limits::MAX_IN_VALUES).map(|v| string(&v.to_string())).collect(),
        )],
    ];
    let mut huge_in = condition("i", Op::IN, Vec::new());
    huge_in.values = (0..1_000_000).map(int).collect();
    conditions.push(vec![huge_in]);
    let mut op = condition("i", Op::EQ, vec![int(1)]);
    op.op = protobuf::EnumOrUnknown::from_i32(99);
    conditions.push(vec![op.clone()]);
    op.op = protobuf::EnumOrUnknown::from_i32(-7);
    conditions.push(vec![op]);
    for c in conditions {
        out.push(predicate_spec(schema(), c));
    }
    // Wide fields: 100,000 equal or distinct IN values of 1024 bytes each, 1024 exclusions.
    let wide_conditions: Vec<Vec<Condition>> = vec![
        vec![condition("w", Op::IN, vec![string(""); limits::MAX_IN_VALUES])],
        vec![condition(
            "w",
            Op::IN,
            (0..limits::MAX_IN_VALUES).map(|v| string(&v.to_string())).collect(),
        )],
        (0..limits::MAX_CONDITIONS)
            .map(|v| condition("w", Op::NE, vec![string(&format!("{v:0>1000}"))]))
            .collect(),
        (0..limits::MAX_CONDITIONS)
            .map(|v| condition("w", Op::NE, vec![string(&format!("{v:>1000}"))]))
            .collect(),
        (0..limits::MAX_CONDITIONS)
            .map(|v| condition("w", Op::IN, vec![string(&v.to_string()); 97]))
            .collect(),
    ];
    for c in wide_conditions {
        out.push(predicate_spec(wide(), c));
    }
    // Versions.
    for version in [2u32, 99, u32::MAX] {
        let mut c = predicate_spec(schema(), vec![]);
        c.format_version = version;
        out.push(c);
        let mut s = schema();
        s.format_version = version;
        out.push(predicate_spec(s, vec![]));
    }
    // Missing parts.
    let mut no_schema = predicate_spec(schema(), vec![]);
    no_schema.schema = MessageField::none();
    out.push(no_schema);
    let mut no_kind = predicate_spec(schema(), vec![]);
    no_kind.kind = None;
    out.push(no_kind);
    // Equal comparators: duplicates, unknown fields, 100,000 equalities.
    for equalities in [
        vec![named("i", ValueKind::IntValue(1)), named("i", ValueKind::IntValue(1))],
        vec![named("zz", ValueKind::IntValue(1))],
        vec![named(&"z".repeat(500_000), ValueKind::IntValue(1))],
        vec![named("i", ValueKind::IntValue(1 << 40))],
        vec![named("i", ValueKind::IntValue(1)); 100_000],
        vec![],
    ] {
        let mut e = EqualComparatorSpec::new();
        e.equalities = equalities;
        let mut c = predicate_spec(schema(), vec![]);
        c.kind = Some(Kind::Equal(e));
        out.push(c);
    }
    // Range comparators on unordered, unknown and wide fields.
    let long_name = "r".repeat(500_000);
    for (name, v) in [
        (long_name.as_str(), int(1)),
        ("b", boolean(true)),
        ("m", string("x")),
        ("h", string("x")),
        ("zz", int(1)),
        ("i", Value::new()),
        ("s", string("x")),
    ] {
        let mut r = RangeComparatorSpec::new();
        r.field = name.into();
        r.value = MessageField::some(v);
        let mut c = predicate_spec(schema(), vec![]);
        c.kind = Some(Kind::Range(r));
        out.push(c);
    }
    // Every absurd schema inside a comparator.
    for s in absurd_schemas() {
        out.push(predicate_spec(s, vec![]));
    }
    out
}

/// Plan requests that ask the planner for a lot: huge `max_ranges`, cartesian products of IN
/// lists over long keys, salt fields fixed to many combinations.
pub fn absurd_plans() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();
    let all = schema_of(all_type_fields());
    for max in [0u32, 1, 2, u32::MAX] {
        out.push((
            "max_ranges",
            plan_bytes(
                predicate_spec(all.clone(), vec![condition("i", Op::IN, (0..1000).map(int).collect())]),
                max,
            ),
        ));
    }
    // An IN list of 100,000 ints followed by three 1 KiB fields fixed by equalities: the
    // expanded prefixes are 100,000 x 3 KiB.
    let mut long_key = vec![field("i", FieldType::INT32, 0)];
    long_key.extend((0..3).map(|k| field(&format!("w{k}"), FieldType::FIXED_BYTES, 1024)));
    let mut conds = vec![condition(
        "i",
        Op::IN,
        (0..limits::MAX_IN_VALUES as i64 - 3).map(int).collect(),
    )];
    conds.extend((0..3).map(|k| condition(&format!("w{k}"), Op::EQ, vec![bytes_value(vec![k as u8; 1024])])));
    for max in [0u32, u32::MAX] {
        out.push((
            "prefix product",
            plan_bytes(predicate_spec(schema_of(long_key.clone()), conds.clone()), max),
        ));
    }
    // A range on a narrow field enumerated into points, followed by a wide equality.
    let mut conds = vec![condition("i", Op::BETWEEN, vec![int(0), int(999_999)])];
    conds.extend((0..3).map(|k| condition(&format!("w{k}"), Op::EQ, vec![bytes_value(vec![k as u8; 1024])])));
    out.push((
        "enumerated range",
        plan_bytes(predicate_spec(schema_of(long_key.clone()), conds), u32::MAX),
    ));
    // Salt fields: three 1 KiB fields with 100 values each, 10^6 combinations.
    let (salted, conds) = salted_wide_in_lists();
    for max in [0u32, u32::MAX] {
        out.push((
            "salt combinations",
            plan_bytes(predicate_spec(salted.clone(), conds.clone()), max),
        ));
    }
    // 256 bools, each IN (true, false) or fixed: 2^k combinations of shared bytes.
    let bools = schema_of((0..256).map(|i| field(&format!("b{i}"), FieldType::BOOL, 0)).collect());
    let conds: Vec<Condition> = (0..256)
        .map(|i| condition(&format!("b{i}"), Op::IN, vec![boolean(true), boolean(false)]))
        .collect();
    out.push(("bool bytes", plan_bytes(predicate_spec(bools, conds), u32::MAX)));
    // Not a predicate comparator; no query at all.
    let mut equal = predicate_spec(all.clone(), vec![]);
    equal.kind = Some(Kind::Equal(EqualComparatorSpec::new()));
    out.push(("equal query", plan_bytes(equal, 0)));
    out.push(("no query", ScanPlanRequest::new().write_to_bytes().unwrap()));
    out
}

/// Flat rows (`Schema::encode_flat`) for `def` whose contents are out of range or malformed:
/// `valid` (a good row of `def`) with its first value replaced by absurd ones, cut short, with
/// bytes after it, and with lying lengths, kinds and bool bytes.
pub fn absurd_flat_rows(def: &SchemaDef, valid: &[Value], with_flood: bool) -> Vec<Vec<u8>> {
    assert_eq!(valid.len(), def.fields.len());
    let mut out = Vec::new();
    let kinds = [
        ValueKind::IntValue(i64::MIN),
        ValueKind::IntValue(i64::MAX),
        ValueKind::IntValue(-1),
        ValueKind::BoolValue(true),
        ValueKind::StringValue(String::new()),
        ValueKind::StringValue("\0".into()),
        ValueKind::StringValue("x".repeat(5000)),
        ValueKind::BytesValue(vec![0xff; 17]),
        ValueKind::BytesValue(Vec::new()),
    ];
    let rest = flat_row(&valid[1..]);
    let with_first = |first: Vec<u8>| [first, rest.clone()].concat();
    for kind in kinds {
        out.push(with_first(flat_row([&value(kind)])));
    }
    out.push(Vec::new());
    out.push(with_first(vec![0])); // no kind
    out.push(with_first(vec![5]));
    out.push(with_first(vec![2, 2])); // a bool byte that is neither 0 nor 1
    out.push(with_first(vec![3, 0, 0, 0, 2, 0xc3, 0x28])); // not UTF-8
    out.push(with_first(vec![3, 0xff, 0xff, 0xff, 0xff])); // 4 GiB claimed
    out.push(with_first(vec![4, 0x7f, 0xff, 0xff, 0xff, 1]));
    let whole = flat_row(valid);
    out.push([whole.clone(), vec![1]].concat()); // a value too many
    out.push(whole[..whole.len() - 1].to_vec()); // the last value cut short
    if with_flood {
        out.push(flat_row(&vec![value(ValueKind::IntValue(1)); 100_000]));
        out.push(with_first(flat_row([&value(ValueKind::StringValue(
            "x".repeat(2 << 20),
        ))])));
    }
    out
}

/// Repeated-field floods that fill the 1 MiB message limit, and inputs just above it.
pub fn flood_inputs() -> Vec<Vec<u8>> {
    let max = limits::MAX_MESSAGE_BYTES;
    let fill = |unit: &[u8]| -> Vec<u8> {
        unit.iter()
            .copied()
            .cycle()
            .take(max / unit.len() * unit.len())
            .collect()
    };
    vec![
        fill(&[0x12, 0x00]),                         // 2: empty repeated messages (fields, values, ...)
        fill(&[0x0a, 0x00]),                         // 1: empty strings / messages
        fill(&[0x12, 0x02, 0x1a, 0x00]),             // nested empty messages
        fill(&[0x08, 0x01]),                         // a varint field over and over
        fill(&[0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01]), // unknown field numbers
        fill(&[0x0b]),                               // start-group, nested as deep as it goes
        fill(&[0x0b, 0x0c]),                         // empty groups
        fill(&[0x0a, 0x80]),                         // lengths running past the end
        vec![0x12; max],
        vec![0x00; max],
        vec![0x00; max + 1],
        vec![0xff; max + 1],
    ]
}
