//! criterion benchmarks of the pure Rust core (`cargo bench`, or `cargo make bench-rust`):
//! - evaluation per row of the JMH benchmarks' three queries over the same seed-000 key shape,
//!   beside a hand-written Rust check of each query (the cost of the work itself, no interpreter);
//! - compile time of those comparators from their serialized spec;
//! - planning time of three IN-lists of 20 on a salted seed-000 schema;
//! - a reader's mapping of a batch of salted index keys to their data keys.
//!
//! The rows follow the demo's generator (`java/demo/.../DataSet.java`): the same field
//! distributions, so branches are as (un)predictable as in the JMH runs.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::messages::{boolean, condition as cond, int, named_value, predicate_spec, seed_schema, string};
use common::Rng;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use hbase_rowkey::key::Catalog;
use hbase_rowkey::plan_wire::plan_request;
use hbase_rowkey::proto::rowkey::{Condition, IndexSpec, IndexState, Op, ScanPlan, ScanPlanRequest, TableCatalog};
use hbase_rowkey::{Comparator, Schema};
use protobuf::Message;

const ROWS: usize = 100_000;
const KEY: usize = 37;
/// The IN list of the 8-condition query (as in the JMH benchmark's `Queries.CODES_IN`).
const CODES_IN: [i64; 20] = [
    404, 503, 200, 301, 500, 600, 601, 602, 603, 604, 605, 606, 607, 608, 609, 610, 611, 612, 613, 614,
];

/// One generated row's field values, as the demo's generator draws them.
struct RowValues {
    status: i64,
    code: i64,
    sdate: i64,
    type_: i64,
    free: bool,
    close: bool,
    queue: i64,
    scantype: i64,
}

fn generate(rows: usize) -> (Vec<u8>, Vec<RowValues>) {
    let schema = Schema::from_spec(&seed_schema(0)).expect("seed schema");
    assert_eq!(schema.key_length(), KEY);
    // The rows of every earlier report: the shared generator from the same state.
    let mut rng = Rng::from_state(42);
    let mut below = |n: usize| rng.below(n) as i64;
    let mut keys = Vec::with_capacity(rows * KEY);
    let mut values = Vec::with_capacity(rows);
    for i in 0..rows {
        let u = i / 31;
        let p = below(100);
        let c = below(100);
        let v = RowValues {
            status: if p < 80 {
                -1
            } else if p < 95 {
                0
            } else {
                1
            },
            code: if c < 40 {
                404
            } else if c < 60 {
                503
            } else if c < 90 {
                200
            } else if c < 95 {
                301
            } else {
                500
            },
            sdate: 20161201 + (i % 31) as i64,
            type_: 1 + below(4),
            free: below(10) == 0,
            close: below(20) == 0,
            queue: below(4),
            scantype: below(3),
        };
        let row = [
            named_value(
                "md5url",
                string(&format!("http://www.site{}.gov.cn/page/{u}.html", u % 2000)),
            ),
            named_value("sitecode", string(&format!("{:04}{:06}", (u % 2000) / 100, u % 2000))),
            named_value("status", int(v.status)),
            named_value("code", int(v.code)),
            named_value("sdate", int(v.sdate)),
            named_value("type", int(v.type_)),
            named_value("free", boolean(v.free)),
            named_value("close", boolean(v.close)),
            named_value("queue", int(v.queue)),
            named_value("scantype", int(v.scantype)),
        ];
        keys.extend_from_slice(&schema.encode(&row).expect("row"));
        values.push(v);
    }
    (keys, values)
}

/// A query: its conditions, and the same query written by hand over the values.
struct Query {
    name: &'static str,
    conditions: Vec<Condition>,
    oracle: fn(&RowValues) -> bool,
}

fn queries() -> Vec<Query> {
    vec![
        Query {
            name: "eq2",
            conditions: vec![
                cond("code", Op::EQ, vec![int(404)]),
                cond("sdate", Op::EQ, vec![int(20161209)]),
            ],
            oracle: |r| r.code == 404 && r.sdate == 20161209,
        },
        Query {
            name: "p4",
            conditions: vec![
                cond("code", Op::EQ, vec![int(404)]),
                cond("type", Op::EQ, vec![int(2)]),
                cond("sdate", Op::BETWEEN, vec![int(20161205), int(20161215)]),
                cond("queue", Op::BETWEEN, vec![int(1), int(2)]),
            ],
            oracle: |r| {
                r.code == 404 && r.type_ == 2 && (20161205..=20161215).contains(&r.sdate) && (1..=2).contains(&r.queue)
            },
        },
        Query {
            name: "p8",
            conditions: vec![
                cond("code", Op::IN, CODES_IN.iter().map(|&c| int(c)).collect()),
                cond("status", Op::EQ, vec![int(-1)]),
                cond("type", Op::BETWEEN, vec![int(2), int(3)]),
                cond("sdate", Op::BETWEEN, vec![int(20161203), int(20161225)]),
                cond("queue", Op::LE, vec![int(2)]),
                cond("scantype", Op::EQ, vec![int(0)]),
                cond("free", Op::EQ, vec![boolean(false)]),
                cond("close", Op::EQ, vec![boolean(false)]),
            ],
            oracle: |r| {
                CODES_IN.contains(&r.code)
                    && r.status == -1
                    && (2..=3).contains(&r.type_)
                    && (20161203..=20161225).contains(&r.sdate)
                    && r.queue <= 2
                    && r.scantype == 0
                    && !r.free
                    && !r.close
            },
        },
    ]
}

fn be_i32(key: &[u8], offset: usize) -> i32 {
    (u32::from_be_bytes(key[offset..offset + 4].try_into().unwrap()) ^ 0x8000_0000) as i32
}

/// The hand-written equivalent of each query: decodes only the fields it needs, straight from
/// the key bytes (offsets of the seed schema), short-circuiting like a careful programmer would.
fn hand_written(name: &str) -> fn(&[u8]) -> bool {
    match name {
        "eq2" => |k| be_i32(k, 16) == 404 && be_i32(k, 20) == 20161209,
        "p4" => |k| {
            be_i32(k, 16) == 404
                && be_i32(k, 24) == 2
                && (20161205..=20161215).contains(&be_i32(k, 20))
                && (1..=2).contains(&be_i32(k, 29))
        },
        _ => |k| {
            CODES_IN.contains(&i64::from(be_i32(k, 16)))
                && be_i32(k, 12) == -1
                && (2..=3).contains(&be_i32(k, 24))
                && (20161203..=20161225).contains(&be_i32(k, 20))
                && be_i32(k, 29) <= 2
                && be_i32(k, 33) == 0
                && k[28] & 0xc0 == 0
        },
    }
}

fn evaluation(c: &mut Criterion) {
    let (keys, values) = generate(ROWS);
    let mut group = c.benchmark_group("evaluate_per_row");
    group.throughput(Throughput::Elements(ROWS as u64));
    for q in queries() {
        let comparator = Comparator::from_spec(&predicate_spec(seed_schema(0), q.conditions.clone())).expect("query");
        let by_hand = hand_written(q.name);
        // Both must give the oracle's answer on every row before they are timed.
        for (i, (key, row)) in keys.chunks_exact(KEY).zip(&values).enumerate() {
            let expected = (q.oracle)(row);
            assert_eq!(comparator.compare(key) == 0, expected, "{} comparator, row {i}", q.name);
            assert_eq!(by_hand(key), expected, "{} hand-written, row {i}", q.name);
        }
        group.bench_function(format!("{}/comparator", q.name), |b| {
            b.iter(|| {
                keys.chunks_exact(KEY)
                    .filter(|k| comparator.compare(black_box(k)) == 0)
                    .count()
            })
        });
        group.bench_function(format!("{}/hand_written", q.name), |b| {
            b.iter(|| keys.chunks_exact(KEY).filter(|k| by_hand(black_box(k))).count())
        });
    }
    group.finish();
}

fn compilation(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    for q in queries() {
        let bytes = predicate_spec(seed_schema(0), q.conditions).write_to_bytes().unwrap();
        group.bench_function(q.name, |b| {
            b.iter(|| Comparator::from_bytes(black_box(&bytes)).expect("query"))
        });
    }
    group.finish();
}

fn planning(c: &mut Criterion) {
    // Three IN-lists of 20 on the leading fields of a schema salted (16 buckets) on md5url, which
    // no condition fixes: 16 x 20 x 20 x 20 = 128,000 prefixes. Above the default cap of 50,000
    // ranges the planner falls back to covering ranges; with a cap of 200,000 it plans them all.
    let values = |base: i64| (0..20).map(|i| int(base + i)).collect::<Vec<_>>();
    let mut schema = seed_schema(16);
    // status, code, sdate first (after the salt byte), md5url and sitecode last.
    schema.fields.rotate_left(2);
    let conditions = vec![
        cond("status", Op::IN, values(-10)),
        cond("code", Op::IN, values(400)),
        cond("sdate", Op::IN, values(20161201)),
    ];
    let mut group = c.benchmark_group("plan_three_in_lists_of_20_salted");
    group.sample_size(20);
    for max_ranges in [0u32, 200_000] {
        let mut request = ScanPlanRequest::new();
        request.query = protobuf::MessageField::some(predicate_spec(schema.clone(), conditions.clone()));
        request.max_ranges = max_ranges;
        let bytes = request.write_to_bytes().unwrap();
        let plan = ScanPlan::parse_from_bytes(&plan_request(&bytes).expect("plan")).expect("plan bytes");
        let label = format!(
            "{}_{}_ranges{}",
            if max_ranges == 0 { "default_cap" } else { "cap_200000" },
            plan.ranges.len(),
            if plan.capped { "_capped" } else { "" }
        );
        group.bench_function(label, |b| {
            b.iter_batched(
                || bytes.clone(),
                |r| plan_request(black_box(&r)).expect("plan"),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

/// The cost of crossing into the library per row, as a foreign caller does: the eq2 query through
/// `rowkey_compare` (handle, region checks, quick path) called through a function pointer, beside
/// the empty `rowkey_call_floor` called the same way (`evaluate_per_row/eq2/comparator` is the
/// same compare inlined).
fn call_overhead(c: &mut Criterion) {
    let (keys, _) = generate(ROWS);
    let conditions = queries().swap_remove(0).conditions;
    let comparator = Comparator::from_spec(&predicate_spec(seed_schema(0), conditions)).expect("query");
    let handle = hbase_rowkey::handle::into_handle(comparator);
    let compare: unsafe extern "C" fn(i64, *const u8, i64, i64) -> i32 = black_box(hbase_rowkey::ffi::rowkey_compare);
    let floor: extern "C" fn(i64, *const u8, i64, i64) -> i32 = black_box(hbase_rowkey::ffi::rowkey_call_floor);
    let mut group = c.benchmark_group("call_per_row");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("eq2/rowkey_compare", |b| {
        // SAFETY: `handle` is live until freed below; every region is inside `keys`.
        b.iter(|| {
            keys.chunks_exact(KEY)
                .filter(|k| unsafe { compare(black_box(handle), k.as_ptr(), 0, KEY as i64) } == 0)
                .count()
        })
    });
    group.bench_function("empty_function", |b| {
        b.iter(|| {
            keys.chunks_exact(KEY)
                .filter(|k| floor(black_box(handle), k.as_ptr(), 0, KEY as i64) == 0)
                .count()
        })
    });
    group.finish();
    // SAFETY: made above, freed once, not used after.
    unsafe { hbase_rowkey::handle::free::<Comparator>(handle) };
}

/// The native fold of aggregates per row (src/aggregate.rs), beside the per-row compare of one
/// query over the same keys: count + sum of one key field, the same grouped by two key fields.
/// The whole table's keys are one batch, as the RegionServer passes them (a batch of rows per call).
fn aggregate_fold(c: &mut Criterion) {
    use hbase_rowkey::aggregate::{Aggregation, Aggregator};
    use hbase_rowkey::proto::rowkey::{AggregateFunction, AggregateSpec, AggregationSpec, GroupKey};
    let (keys, values) = generate(ROWS);
    let spec = |groups: &[&str]| {
        let mut spec = AggregationSpec::new();
        spec.schema = protobuf::MessageField::some(seed_schema(0));
        for g in groups {
            let mut key = GroupKey::new();
            key.field = g.to_string();
            spec.group_by.push(key);
        }
        let mut count = AggregateSpec::new();
        count.function = AggregateFunction::COUNT.into();
        let mut sum = AggregateSpec::new();
        sum.function = AggregateFunction::SUM.into();
        sum.field = "queue".into();
        spec.aggregates = vec![count, sum];
        Aggregation::from_bytes(&spec.write_to_bytes().expect("spec")).expect("aggregation")
    };
    let expected_sum: i64 = values.iter().map(|v| v.queue).sum();
    let comparator =
        Comparator::from_spec(&predicate_spec(seed_schema(0), queries().swap_remove(0).conditions)).expect("query");
    let mut group = c.benchmark_group("aggregate_per_row");
    group.throughput(Throughput::Elements(ROWS as u64));
    for (label, groups) in [
        ("count_sum", &[][..]),
        ("count_sum_by_sdate_code", &["sdate", "code"][..]),
    ] {
        let aggregation = spec(groups);
        // The answer is checked before it is timed.
        let mut check = Aggregator::new(aggregation.clone());
        check.fold_batch(&keys, ROWS).expect("fold");
        let rows = check.finish().expect("finish").rows;
        let sum: i64 = rows
            .iter()
            .map(|r| match r.values[1].kind {
                Some(hbase_rowkey::proto::rowkey::aggregate_value::Kind::IntValue(v)) => v,
                _ => 0,
            })
            .sum();
        assert_eq!(sum, expected_sum, "{label}");
        group.bench_function(format!("{label}/fold"), |b| {
            let mut aggregator = Aggregator::new(aggregation.clone());
            b.iter(|| {
                aggregator.fold_batch(black_box(&keys), ROWS).expect("fold");
                aggregator.take_partial().expect("partial").len()
            })
        });
    }
    group.bench_function("eq2/compare", |b| {
        b.iter(|| {
            keys.chunks_exact(KEY)
                .filter(|k| comparator.compare(black_box(k)) == 0)
                .count()
        })
    });
    group.finish();
}

/// A reader's mapping of a batch of index keys to their data keys (`Index::data_keys`, one native
/// call per batch of index rows), each key's data and index salt bytes checked: 128 keys of the
/// demo's salted covered index on (sdate, code), 16 buckets, over the seed schema salted 16 ways.
fn index_data_keys(c: &mut Criterion) {
    let mut catalog = TableCatalog::new();
    catalog.schema = protobuf::MessageField::some(seed_schema(16));
    let mut index = IndexSpec::new();
    index.name = "by_date_code".into();
    index.fields = vec!["sdate".into(), "code".into()];
    index.salt_buckets = 16;
    index.state = IndexState::ACTIVE.into();
    catalog.indexes = vec![index];
    let catalog = Catalog::from_spec(&catalog).expect("catalog");
    let (data, index) = (catalog.schema(), &catalog.indexes()[0]);
    let (unsalted, _) = generate(128);
    let mut index_keys = Vec::new();
    for key in unsalted.chunks_exact(KEY) {
        // The seed schema salted: the salt byte of its md5url, then the same fields.
        let mut salted = vec![data.salt_of([&key[..8]])];
        salted.extend_from_slice(key);
        index_keys.extend_from_slice(&index.index_key(data, &salted).expect("index key"));
    }
    let mut group = c.benchmark_group("index_data_keys");
    group.throughput(Throughput::Elements(128));
    group.bench_function("salted_128_keys", |b| {
        b.iter(|| index.data_keys(data, black_box(&index_keys), 128).expect("data keys"))
    });
    group.finish();
}

criterion_group!(
    benches,
    evaluation,
    compilation,
    planning,
    call_overhead,
    aggregate_fold,
    index_data_keys
);
criterion_main!(benches);
