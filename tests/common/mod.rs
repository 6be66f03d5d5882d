//! Shared by the Rust integration tests and the benchmarks: the one seeded random generator
//! ([`Rng`]), random schemas, rows and predicates, and a brute-force oracle that evaluates
//! predicates on the *values* (not bytes), written independently of the crate's codec.
//!
//! Submodules: [`messages`] (valid message builders), [`absurd`] (valid messages with absurd
//! contents), [`mutation`] (protobuf-aware corruption), [`fuzz_bodies`] (the libFuzzer bodies, also
//! compiled into `fuzz/`). The time and memory budgets are in `budget.rs`, which a test binary
//! includes on its own because it installs a global allocator.
#![allow(dead_code)]

pub mod absurd;
pub mod fuzz_bodies;
pub mod messages;
pub mod mutation;

use std::cmp::Ordering;

use hbase_rowkey::proto::rowkey::{
    value::Kind as ValueKind, Condition, FieldType, NamedValue, Op, SaltSpec, SchemaSpec, Value,
};

/// SplitMix64: small, seedable, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng::from_state(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    /// A generator in exactly this state (the benchmarks' rows were drawn from state 42).
    pub fn from_state(state: u64) -> Rng {
        Rng(state)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A value as the user gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    Int(i64),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
}

impl V {
    pub fn to_proto(&self) -> Value {
        messages::value(match self {
            V::Int(i) => ValueKind::IntValue(*i),
            V::Bool(b) => ValueKind::BoolValue(*b),
            V::Str(s) => ValueKind::StringValue(s.clone()),
            V::Bytes(b) => ValueKind::BytesValue(b.clone()),
        })
    }
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: FieldType,
    pub width: u32,
    pub descending: bool,
}

impl FieldDef {
    pub fn is_ordered(&self) -> bool {
        !matches!(self.ty, FieldType::BOOL | FieldType::MD5 | FieldType::JAVA_HASH)
    }
}

#[derive(Debug, Clone)]
pub struct SchemaDef {
    pub fields: Vec<FieldDef>,
    pub salt: Option<(u32, Vec<String>)>,
}

impl SchemaDef {
    pub fn spec(&self) -> SchemaSpec {
        let mut spec = messages::schema_of(
            self.fields
                .iter()
                .map(|f| {
                    let mut fs = messages::field(&f.name, f.ty, f.width);
                    fs.descending = f.descending;
                    fs
                })
                .collect(),
        );
        if let Some((buckets, names)) = &self.salt {
            let mut salt = SaltSpec::new();
            salt.buckets = *buckets;
            salt.fields = names.clone();
            spec.salt = protobuf::MessageField::some(salt);
        }
        spec
    }

    /// The fields of `spec` (its salt left out), for the generators.
    pub fn fields_of(spec: &SchemaSpec) -> SchemaDef {
        let fields = spec
            .fields
            .iter()
            .map(|f| FieldDef {
                name: f.name.clone(),
                ty: f.type_.enum_value().unwrap(),
                width: f.width,
                descending: f.descending,
            })
            .collect();
        SchemaDef { fields, salt: None }
    }

    pub fn named(&self, row: &[V]) -> Vec<NamedValue> {
        self.fields
            .iter()
            .zip(row)
            .map(|(f, v)| messages::named_value(&f.name, v.to_proto()))
            .collect()
    }
}

const TYPES: [FieldType; 9] = [
    FieldType::INT32,
    FieldType::INT64,
    FieldType::TIMESTAMP,
    FieldType::REVERSED_TIMESTAMP,
    FieldType::BOOL,
    FieldType::FIXED_STRING,
    FieldType::FIXED_BYTES,
    FieldType::MD5,
    FieldType::JAVA_HASH,
];

pub fn random_schema(rng: &mut Rng) -> SchemaDef {
    let n = 1 + rng.below(7);
    let fields: Vec<FieldDef> = (0..n)
        .map(|i| {
            let ty = *rng.pick(&TYPES);
            let width = match ty {
                FieldType::FIXED_STRING => 1 + rng.below(12) as u32,
                FieldType::FIXED_BYTES => 1 + rng.below(12) as u32,
                FieldType::MD5 => 1 + rng.below(16) as u32,
                _ => 0,
            };
            FieldDef {
                name: format!("f{i}"),
                ty,
                width,
                descending: rng.chance(30),
            }
        })
        .collect();
    let salt = rng.chance(25).then(|| {
        let buckets = *rng.pick(&[1u32, 2, 3, 16, 255, 256]);
        let names = fields
            .iter()
            .filter(|_| rng.chance(50))
            .map(|f| f.name.clone())
            .collect();
        (buckets, names)
    });
    SchemaDef { fields, salt }
}

/// A small domain per field so predicates and rows collide often, extremes included.
pub fn random_value(rng: &mut Rng, f: &FieldDef) -> V {
    match f.ty {
        FieldType::INT32 => V::Int(*rng.pick(&[
            i32::MIN as i64,
            -70000,
            -2,
            -1,
            0,
            1,
            2,
            255,
            256,
            70000,
            i32::MAX as i64,
        ])),
        FieldType::INT64 | FieldType::TIMESTAMP => V::Int(*rng.pick(&[
            i64::MIN,
            i64::MIN + 1,
            -1 << 40,
            -1,
            0,
            1,
            1 << 32,
            1_481_272_834_722,
            i64::MAX,
        ])),
        FieldType::REVERSED_TIMESTAMP => {
            V::Int(*rng.pick(&[0, 1, 2, 1000, 1 << 40, 1_481_272_834_722, i64::MAX - 1, i64::MAX]))
        }
        FieldType::BOOL => V::Bool(rng.chance(50)),
        FieldType::FIXED_STRING => {
            let options = ["", "a", "ab", "b", "abc", "é", "zz", "a b", "\u{7f}", "\u{1F600}"];
            let fitting: Vec<&str> = options
                .iter()
                .copied()
                .filter(|s| s.len() <= f.width as usize)
                .collect();
            V::Str(rng.pick(&fitting).to_string())
        }
        FieldType::FIXED_BYTES => {
            let w = f.width as usize;
            let fill = *rng.pick(&[0u8, 1, 0x7f, 0x80, 0xff]);
            let mut b = vec![fill; w];
            if rng.chance(50) {
                let i = rng.below(w);
                b[i] = *rng.pick(&[0u8, 0x10, 0xfe, 0xff]);
            }
            V::Bytes(b)
        }
        FieldType::MD5 | FieldType::JAVA_HASH => {
            V::Str(rng.pick(&["", "a", "Aa", "BB", "url-1", "url-2", "héllo"]).to_string())
        }
        FieldType::FIELD_TYPE_UNSPECIFIED => unreachable!(),
    }
}

pub fn random_row(rng: &mut Rng, schema: &SchemaDef) -> Vec<V> {
    schema.fields.iter().map(|f| random_value(rng, f)).collect()
}

/// One condition as the oracle sees it.
#[derive(Debug, Clone)]
pub struct Cond {
    pub field: usize,
    pub op: Op,
    pub values: Vec<V>,
}

impl Cond {
    pub fn to_proto(&self, schema: &SchemaDef) -> Condition {
        let mut c = Condition::new();
        c.field = schema.fields[self.field].name.clone();
        c.op = self.op.into();
        c.values = self.values.iter().map(V::to_proto).collect();
        c
    }
}

pub fn random_predicate(rng: &mut Rng, schema: &SchemaDef) -> Vec<Cond> {
    let n = rng.below(5);
    (0..n)
        .map(|_| {
            let field = rng.below(schema.fields.len());
            let f = &schema.fields[field];
            let ops: &[Op] = if f.is_ordered() {
                &[Op::EQ, Op::NE, Op::LT, Op::LE, Op::GT, Op::GE, Op::BETWEEN, Op::IN]
            } else {
                &[Op::EQ, Op::NE, Op::IN]
            };
            let op = *rng.pick(ops);
            let count = match op {
                Op::BETWEEN => 2,
                Op::IN => rng.below(5),
                _ => 1,
            };
            Cond {
                field,
                op,
                values: (0..count).map(|_| random_value(rng, f)).collect(),
            }
        })
        .collect()
}

// ---------------------------------------------------------------- the oracle

fn md5_prefix(s: &str, w: usize) -> Vec<u8> {
    use md5::{Digest, Md5};
    Md5::digest(s.as_bytes())[..w].to_vec()
}

fn java_hash(s: &str) -> i32 {
    let mut h: i32 = 0;
    for c in s.chars() {
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            h = h.wrapping_mul(31).wrapping_add(*u as i32);
        }
    }
    h
}

/// Value order of two values of the same field (for hashed fields, only equality is meaningful).
pub fn value_cmp(f: &FieldDef, a: &V, b: &V) -> Ordering {
    match (a, b) {
        (V::Int(x), V::Int(y)) => x.cmp(y),
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::Bytes(x), V::Bytes(y)) => x.cmp(y),
        (V::Str(x), V::Str(y)) => match f.ty {
            FieldType::MD5 => md5_prefix(x, f.width as usize).cmp(&md5_prefix(y, f.width as usize)),
            FieldType::JAVA_HASH => java_hash(x).cmp(&java_hash(y)),
            _ => x.as_bytes().cmp(y.as_bytes()),
        },
        _ => panic!("mixed value kinds"),
    }
}

pub fn holds(schema: &SchemaDef, row: &[V], c: &Cond) -> bool {
    let f = &schema.fields[c.field];
    let v = &row[c.field];
    let cmp = |i: usize| value_cmp(f, v, &c.values[i]);
    match c.op {
        Op::EQ => cmp(0).is_eq(),
        Op::NE => cmp(0).is_ne(),
        Op::LT => cmp(0).is_lt(),
        Op::LE => cmp(0).is_le(),
        Op::GT => cmp(0).is_gt(),
        Op::GE => cmp(0).is_ge(),
        Op::BETWEEN => cmp(0).is_ge() && cmp(1).is_le(),
        Op::IN => (0..c.values.len()).any(|i| cmp(i).is_eq()),
        Op::OP_UNSPECIFIED => unreachable!(),
    }
}

pub fn oracle(schema: &SchemaDef, row: &[V], conds: &[Cond]) -> bool {
    conds.iter().all(|c| holds(schema, row, c))
}

/// A random schema (and compiled), `n` random rows of it and their keys.
pub fn random_table(rng: &mut Rng, n: usize) -> (SchemaDef, hbase_rowkey::Schema, Vec<Vec<V>>, Vec<Vec<u8>>) {
    let schema = random_schema(rng);
    let compiled = hbase_rowkey::Schema::from_spec(&schema.spec()).unwrap();
    let rows: Vec<Vec<V>> = (0..n).map(|_| random_row(rng, &schema)).collect();
    let keys = rows
        .iter()
        .map(|r| compiled.encode(&schema.named(r)).unwrap())
        .collect();
    (schema, compiled, rows, keys)
}

// ---------------------------------------------------------------- planned ranges

/// Whether `key` lies in one of the planned ranges.
pub fn in_ranges(ranges: &[hbase_rowkey::ranges::Range], key: &[u8]) -> bool {
    ranges
        .iter()
        .any(|r| key >= r.start.as_slice() && r.stop.as_ref().is_none_or(|s| key < s.as_slice()))
}

/// The ranges of a plan message, as the planner's ranges.
pub fn plan_ranges(plan: &hbase_rowkey::proto::rowkey::ScanPlan) -> Vec<hbase_rowkey::ranges::Range> {
    plan.ranges
        .iter()
        .map(|r| hbase_rowkey::ranges::Range {
            start: r.start.clone(),
            stop: (!r.stop.is_empty()).then(|| r.stop.clone()),
        })
        .collect()
}
