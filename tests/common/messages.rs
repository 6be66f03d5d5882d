//! Builders of valid protobuf messages (schemas, conditions, comparator specs, plan requests,
//! rows), shared by the tests and the benchmarks.

use hbase_rowkey::key::FORMAT_VERSION;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, value::Kind as ValueKind, ComparatorSpec, Condition, EqualComparatorSpec, FieldSpec,
    FieldType, NamedValue, Op, PredicateComparatorSpec, PredicateSpec, RangeComparatorSpec, Row, SaltSpec,
    ScanPlanRequest, SchemaSpec, Value,
};
use protobuf::{Message, MessageField};

pub use super::fuzz_bodies::flat_row;
use super::{random_predicate, random_row, random_schema, random_value, Rng, SchemaDef};

pub fn named(field: &str, kind: ValueKind) -> NamedValue {
    named_value(field, value(kind))
}

pub fn named_value(field: &str, value: Value) -> NamedValue {
    let mut n = NamedValue::new();
    n.field = field.into();
    n.value = MessageField::some(value);
    n
}

pub fn value(kind: ValueKind) -> Value {
    let mut v = Value::new();
    v.kind = Some(kind);
    v
}

pub fn field(name: &str, ty: FieldType, width: u32) -> FieldSpec {
    let mut f = FieldSpec::new();
    f.name = name.into();
    f.type_ = ty.into();
    f.width = width;
    f
}

pub fn schema_of(fields: Vec<FieldSpec>) -> SchemaSpec {
    let mut s = SchemaSpec::new();
    s.format_version = FORMAT_VERSION;
    s.fields = fields;
    s
}

pub fn bytes_value(b: Vec<u8>) -> Value {
    value(ValueKind::BytesValue(b))
}

pub fn int(v: i64) -> Value {
    value(ValueKind::IntValue(v))
}

pub fn boolean(b: bool) -> Value {
    value(ValueKind::BoolValue(b))
}

pub fn string(s: &str) -> Value {
    value(ValueKind::StringValue(s.into()))
}

/// Three 1 KiB fields, all salt fields of 256 buckets, each IN 100 values (`v ^ k` repeated):
/// 10^6 salt-field combinations.
pub fn salted_wide_in_lists() -> (SchemaSpec, Vec<Condition>) {
    let mut salted = schema_of(
        (0..3)
            .map(|k| field(&format!("w{k}"), FieldType::FIXED_BYTES, 1024))
            .collect(),
    );
    salted.salt = MessageField::some(SaltSpec {
        buckets: 256,
        ..Default::default()
    });
    let conds = (0..3u8)
        .map(|k| {
            condition(
                &format!("w{k}"),
                Op::IN,
                (0..100u8).map(|v| bytes_value(vec![v ^ k; 1024])).collect(),
            )
        })
        .collect();
    (salted, conds)
}

pub fn condition(field: &str, op: Op, values: Vec<Value>) -> Condition {
    let mut c = Condition::new();
    c.field = field.into();
    c.op = op.into();
    c.values = values;
    c
}

/// The kind of a predicate comparator of `conditions`.
pub fn predicate_kind(conditions: Vec<Condition>) -> Kind {
    let mut p = PredicateComparatorSpec::new();
    p.predicate.mut_or_insert_default().conditions = conditions;
    Kind::Predicate(p)
}

/// The kind of an OR predicate comparator of AND-branches.
pub fn any_of_kind(branches: Vec<Vec<Condition>>) -> Kind {
    let mut p = PredicateComparatorSpec::new();
    p.any_of = branches
        .into_iter()
        .map(|conditions| {
            let mut b = PredicateSpec::new();
            b.conditions = conditions;
            b
        })
        .collect();
    Kind::Predicate(p)
}

/// An OR predicate comparator of AND-branches over `schema`.
pub fn any_of_spec(schema: SchemaSpec, branches: Vec<Vec<Condition>>) -> ComparatorSpec {
    let mut spec = ComparatorSpec::new();
    spec.format_version = FORMAT_VERSION;
    spec.schema = MessageField::some(schema);
    spec.kind = Some(any_of_kind(branches));
    spec
}

pub fn predicate_spec(schema: SchemaSpec, conditions: Vec<Condition>) -> ComparatorSpec {
    let mut spec = ComparatorSpec::new();
    spec.format_version = FORMAT_VERSION;
    spec.schema = MessageField::some(schema);
    spec.kind = Some(predicate_kind(conditions));
    spec
}

pub fn plan_bytes(query: ComparatorSpec, max_ranges: u32) -> Vec<u8> {
    let mut r = ScanPlanRequest::new();
    r.query = MessageField::some(query);
    r.max_ranges = max_ranges;
    r.write_to_bytes().unwrap()
}

pub fn row_bytes(values: Vec<NamedValue>) -> Vec<u8> {
    let mut row = Row::new();
    row.values = values;
    row.write_to_bytes().unwrap()
}

/// A random comparator spec of any kind over a random schema (valid or not: random values may
/// not fit the field, which is fine for a seed).
pub fn random_comparator_spec(rng: &mut Rng) -> (SchemaDef, ComparatorSpec) {
    let schema = random_schema(rng);
    let mut spec = ComparatorSpec::new();
    spec.format_version = FORMAT_VERSION;
    spec.schema = MessageField::some(schema.spec());
    match rng.below(4) {
        0 => {
            let conds = random_predicate(rng, &schema);
            spec.kind = Some(predicate_kind(conds.iter().map(|c| c.to_proto(&schema)).collect()));
        }
        3 => {
            let branches = (0..1 + rng.below(3))
                .map(|_| {
                    random_predicate(rng, &schema)
                        .iter()
                        .map(|c| c.to_proto(&schema))
                        .collect()
                })
                .collect();
            spec.kind = Some(any_of_kind(branches));
        }
        1 => {
            let row = random_row(rng, &schema);
            let mut e = EqualComparatorSpec::new();
            e.equalities = schema.named(&row).into_iter().filter(|_| rng.chance(50)).collect();
            spec.kind = Some(Kind::Equal(e));
        }
        _ => {
            let ordered: Vec<usize> = (0..schema.fields.len())
                .filter(|&i| schema.fields[i].is_ordered())
                .collect();
            let i = if ordered.is_empty() { 0 } else { *rng.pick(&ordered) };
            let mut r = RangeComparatorSpec::new();
            r.field = schema.fields[i].name.clone();
            r.value = MessageField::some(random_value(rng, &schema.fields[i]).to_proto());
            spec.kind = Some(Kind::Range(r));
        }
    }
    (schema, spec)
}

/// A field of every type: int32 `i`, int64 `l`, timestamp `t`, reversed timestamp `r`, bool `b`,
/// fixed string `s` (8), fixed bytes `y` (3), md5 `m` (16), java hash `h`.
pub fn all_type_fields() -> Vec<FieldSpec> {
    vec![
        field("i", FieldType::INT32, 0),
        field("l", FieldType::INT64, 0),
        field("t", FieldType::TIMESTAMP, 0),
        field("r", FieldType::REVERSED_TIMESTAMP, 0),
        field("b", FieldType::BOOL, 0),
        field("s", FieldType::FIXED_STRING, 8),
        field("y", FieldType::FIXED_BYTES, 3),
        field("m", FieldType::MD5, 16),
        field("h", FieldType::JAVA_HASH, 0),
    ]
}

/// Seed 000's key (md5url md5(8), sitecode javaHash, status, code, sdate, type int32, free, close
/// bool, queue, scantype int32), salted over md5url into `salt_buckets` buckets when above 0.
pub fn seed_schema(salt_buckets: u32) -> SchemaSpec {
    let mut schema = schema_of(vec![
        field("md5url", FieldType::MD5, 8),
        field("sitecode", FieldType::JAVA_HASH, 0),
        field("status", FieldType::INT32, 0),
        field("code", FieldType::INT32, 0),
        field("sdate", FieldType::INT32, 0),
        field("type", FieldType::INT32, 0),
        field("free", FieldType::BOOL, 0),
        field("close", FieldType::BOOL, 0),
        field("queue", FieldType::INT32, 0),
        field("scantype", FieldType::INT32, 0),
    ]);
    if salt_buckets > 0 {
        let mut salt = SaltSpec::new();
        salt.buckets = salt_buckets;
        salt.fields = vec!["md5url".into()];
        schema.salt = protobuf::MessageField::some(salt);
    }
    schema
}
