//! Property tests: for every type a range may use, byte order of the encoding equals value
//! order (reversed for descending fields and reversed timestamps), over random pairs and extremes.

use std::cmp::Ordering;

use hbase_rowkey::key::encode_value;
use hbase_rowkey::proto::rowkey::{value::Kind as ValueKind, FieldSpec, FieldType, SchemaSpec, Value};
use hbase_rowkey::Schema;
use proptest::prelude::*;

fn one_field(ty: FieldType, width: u32, descending: bool) -> Schema {
    let mut f = FieldSpec::new();
    f.name = "x".into();
    f.type_ = ty.into();
    f.width = width;
    f.descending = descending;
    let mut spec = SchemaSpec::new();
    spec.fields.push(f);
    Schema::from_spec(&spec).unwrap()
}

fn encode(schema: &Schema, kind: ValueKind) -> Vec<u8> {
    let mut v = Value::new();
    v.kind = Some(kind);
    encode_value(&schema.fields()[0], &v).unwrap()
}

/// Checks byte order == value order (or its reverse) for one pair.
fn check(ty: FieldType, width: u32, a: ValueKind, b: ValueKind, value_order: Ordering) -> Result<(), TestCaseError> {
    for descending in [false, true] {
        let schema = one_field(ty, width, descending);
        let byte_order = encode(&schema, a.clone()).cmp(&encode(&schema, b.clone()));
        let reversed = descending != (ty == FieldType::REVERSED_TIMESTAMP);
        let expected = if reversed { value_order.reverse() } else { value_order };
        prop_assert_eq!(
            byte_order,
            expected,
            "{:?} {:?} vs {:?} descending={}",
            ty,
            a,
            b,
            descending
        );
    }
    Ok(())
}

fn int32() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MIN),
        Just(i32::MIN + 1),
        Just(-1),
        Just(0),
        Just(1),
        Just(i32::MAX - 1),
        Just(i32::MAX),
        any::<i32>()
    ]
}

fn int64() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MIN + 1),
        Just(-1),
        Just(0),
        Just(1),
        Just(i64::MAX - 1),
        Just(i64::MAX),
        any::<i64>()
    ]
}

fn string(width: usize) -> impl Strategy<Value = String> {
    // Any characters but U+0000 (the padding byte), cut to fit the width in UTF-8 bytes.
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('\u{1}'),
            Just('\u{7f}'),
            Just('é'),
            Just('\u{FFFF}'),
            Just('\u{10FFFF}'),
            any::<char>()
        ],
        0..6,
    )
    .prop_map(move |chars| {
        let mut s = String::new();
        for c in chars.into_iter().filter(|&c| c != '\0') {
            if s.len() + c.len_utf8() <= width {
                s.push(c);
            }
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn int32_order(a in int32(), b in int32()) {
        check(FieldType::INT32, 0, ValueKind::IntValue(a.into()), ValueKind::IntValue(b.into()), a.cmp(&b))?;
    }

    #[test]
    fn int64_and_timestamp_order(a in int64(), b in int64()) {
        for ty in [FieldType::INT64, FieldType::TIMESTAMP] {
            check(ty, 0, ValueKind::IntValue(a), ValueKind::IntValue(b), a.cmp(&b))?;
        }
    }

    #[test]
    fn reversed_timestamp_order(a in int64().prop_map(|v| v.max(0)), b in int64().prop_map(|v| v.max(0))) {
        check(FieldType::REVERSED_TIMESTAMP, 0, ValueKind::IntValue(a), ValueKind::IntValue(b), a.cmp(&b))?;
    }

    #[test]
    fn fixed_string_order(width in 1usize..12, a in string(12), b in string(12)) {
        let fit = |s: &str| s.char_indices().map(|(i, c)| i + c.len_utf8()).take_while(|&end| end <= width).last().map_or("", |end| &s[..end]).to_string();
        let (a, b) = (fit(&a), fit(&b));
        check(FieldType::FIXED_STRING, width as u32, ValueKind::StringValue(a.clone()), ValueKind::StringValue(b.clone()), a.as_bytes().cmp(b.as_bytes()))?;
    }

    #[test]
    fn fixed_bytes_order(a in proptest::collection::vec(any::<u8>(), 5), b in proptest::collection::vec(any::<u8>(), 5)) {
        check(FieldType::FIXED_BYTES, 5, ValueKind::BytesValue(a.clone()), ValueKind::BytesValue(b.clone()), a.cmp(&b))?;
    }
}
