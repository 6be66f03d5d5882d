//! Robustness against untrusted bytes: regressions of core fixes found by this suite, each with
//! its time and memory measured.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use hbase_rowkey::limits;
use hbase_rowkey::planner::plan_request;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, value::Kind as ValueKind, ComparatorSpec, Condition, FieldSpec, FieldType, NamedValue, Op,
    PredicateComparatorSpec, SaltSpec, ScanPlanRequest, SchemaSpec, Value,
};
use hbase_rowkey::{Comparator, Error, Schema};
use protobuf::{Message, MessageField};

/// Counts the bytes each thread has allocated and not freed, and the peak of that count, so a
/// test can bound the memory one call takes (tests run in parallel threads).
struct CountingAllocator;

thread_local! {
    static LIVE_BYTES: Cell<i64> = const { Cell::new(0) };
    static PEAK_BYTES: Cell<i64> = const { Cell::new(0) };
}

fn account(delta: i64) {
    // `try_with`: the thread-locals may be gone while a thread shuts down; const-initialized
    // `Cell`s need no allocation and no destructor, so this never recurses into the allocator.
    let _ = LIVE_BYTES.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK_BYTES.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees hold; the accounting touches only const-initialized thread-locals and never
// allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is, see the impl.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            account(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is, see the impl.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            account(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is, see the impl.
        unsafe { System.dealloc(ptr, layout) };
        account(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is, see the impl.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            account(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Tests run in parallel on few cores, and large allocations from two threads contend in the
/// kernel (mmap, page faults): a call whose time is asserted on a large input, or retried after
/// going over its budget, runs alone (write lock); every other measured call shares (read lock).
static ALONE: RwLock<()> = RwLock::new(());

fn alone<R>(f: impl FnOnce() -> R) -> R {
    let _guard = ALONE.write().unwrap_or_else(|e| e.into_inner());
    f()
}

/// Runs `f`, returning its result and the most memory it held at once (bytes above the start).
fn measure_memory<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let start = LIVE_BYTES.with(Cell::get);
    PEAK_BYTES.with(|p| p.set(start));
    let result = f();
    let peak = PEAK_BYTES.with(Cell::get);
    (result, (peak - start).max(0) as usize)
}

/// Most time one call may take: 50 ms, plus 200 ns per byte of input and output (parsing is
/// linear in the message size: at the 1 MiB message limit, about 260 ms; a scan plan is linear
/// in the ranges it was allowed to produce, up to `planner::MAX_PLAN_KEY_BYTES`). Release is what
/// the budget is about; a debug build is only checked for hangs.
fn time_budget(io_bytes: usize) -> Duration {
    time_budget_at(io_bytes, 200)
}

fn time_budget_at(io_bytes: usize, ns_per_byte: u64) -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(5)
    } else {
        Duration::from_millis(50) + Duration::from_nanos(ns_per_byte * io_bytes as u64)
    }
}

fn named(field: &str, kind: ValueKind) -> NamedValue {
    let mut n = NamedValue::new();
    n.field = field.into();
    n.value = MessageField::some(value(kind));
    n
}

fn value(kind: ValueKind) -> Value {
    let mut v = Value::new();
    v.kind = Some(kind);
    v
}

fn field(name: &str, ty: FieldType, width: u32) -> FieldSpec {
    let mut f = FieldSpec::new();
    f.name = name.into();
    f.type_ = ty.into();
    f.width = width;
    f
}

fn schema_of(fields: Vec<FieldSpec>) -> SchemaSpec {
    let mut s = SchemaSpec::new();
    s.format_version = 1;
    s.fields = fields;
    s
}

fn condition(field: &str, op: Op, values: Vec<Value>) -> Condition {
    let mut c = Condition::new();
    c.field = field.into();
    c.op = op.into();
    c.values = values;
    c
}

fn predicate_spec(schema: SchemaSpec, conditions: Vec<Condition>) -> ComparatorSpec {
    let mut p = PredicateComparatorSpec::new();
    p.predicate.mut_or_insert_default().conditions = conditions;
    let mut spec = ComparatorSpec::new();
    spec.format_version = 1;
    spec.schema = MessageField::some(schema);
    spec.kind = Some(Kind::Predicate(p));
    spec
}

fn plan_bytes(query: ComparatorSpec, max_ranges: u32) -> Vec<u8> {
    let mut r = ScanPlanRequest::new();
    r.query = MessageField::some(query);
    r.max_ranges = max_ranges;
    r.write_to_bytes().unwrap()
}

/// Runs `f` once and returns its result, time and peak memory.
fn measured<R>(f: impl FnOnce() -> R) -> (R, Duration, usize) {
    alone(|| {
        let start = Instant::now();
        let (r, memory) = measure_memory(f);
        (r, start.elapsed(), memory)
    })
}

/// The plan of `request` keeps every given row: it lies in a planned range and passes the
/// residual.
fn assert_plan_keeps(name: &str, request: &[u8], schema: &SchemaSpec, rows: &[Vec<NamedValue>]) -> bool {
    let plan = hbase_rowkey::proto::rowkey::ScanPlan::parse_from_bytes(&plan_request(request).unwrap()).unwrap();
    let residual = Comparator::from_spec(plan.residual.get_or_default()).unwrap();
    let schema = Schema::from_spec(schema).unwrap();
    for row in rows {
        let key = schema.encode(row).unwrap();
        let inside = plan.ranges.iter().any(|r| key >= r.start && (r.stop.is_empty() || key < r.stop));
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
    let int = |v: i64| value(ValueKind::IntValue(v));
    let bytes = |b: Vec<u8>| value(ValueKind::BytesValue(b));
    let mut long_key = vec![field("i", FieldType::INT32, 0)];
    long_key.extend((0..3).map(|k| field(&format!("w{k}"), FieldType::FIXED_BYTES, 1024)));
    let long_key = schema_of(long_key);
    let fixed_wide = |i: i64| -> Vec<NamedValue> {
        let mut row = vec![named("i", ValueKind::IntValue(i))];
        row.extend((0..3u8).map(|k| named(&format!("w{k}"), ValueKind::BytesValue(vec![k; 1024]))));
        row
    };
    let wide_equalities = || (0..3u8).map(|k| condition(&format!("w{k}"), Op::EQ, vec![bytes(vec![k; 1024])]));

    let mut in_then_wide = vec![condition("i", Op::IN, (0..limits::MAX_IN_VALUES as i64 - 3).map(int).collect())];
    in_then_wide.extend(wide_equalities());
    let mut range_then_wide = vec![condition("i", Op::BETWEEN, vec![int(0), int(999_999)])];
    range_then_wide.extend(wide_equalities());

    let mut salted = schema_of((0..3).map(|k| field(&format!("w{k}"), FieldType::FIXED_BYTES, 1024)).collect());
    salted.salt = MessageField::some(SaltSpec { buckets: 256, ..Default::default() });
    let salted_in: Vec<Condition> = (0..3u8)
        .map(|k| condition(&format!("w{k}"), Op::IN, (0..100u8).map(|v| bytes(vec![v ^ k; 1024])).collect()))
        .collect();
    let salted_row = |v: u8| -> Vec<NamedValue> {
        (0..3u8).map(|k| named(&format!("w{k}"), ValueKind::BytesValue(vec![v ^ k; 1024]))).collect()
    };

    // Twenty salted bools, each free: 2^20 combinations of the salt fields.
    let mut bools = schema_of((0..20).map(|i| field(&format!("b{i}"), FieldType::BOOL, 0)).collect());
    bools.salt = MessageField::some(SaltSpec { buckets: 256, ..Default::default() });
    let both = || vec![value(ValueKind::BoolValue(true)), value(ValueKind::BoolValue(false))];
    let bools_in: Vec<Condition> = (0..20).map(|i| condition(&format!("b{i}"), Op::IN, both())).collect();
    let bools_row: Vec<NamedValue> = (0..20).map(|i| named(&format!("b{i}"), ValueKind::BoolValue(i % 3 == 0))).collect();

    type Case<'a> = (&'a str, SchemaSpec, Vec<Condition>, Vec<Vec<NamedValue>>);
    let cases: Vec<Case> = vec![
        ("IN then wide equalities", long_key.clone(), in_then_wide, vec![fixed_wide(0), fixed_wide(99_996)]),
        ("enumerated range then wide equalities", long_key, range_then_wide, vec![fixed_wide(0), fixed_wide(999_999)]),
        ("salt fields with 10^6 combinations", salted, salted_in, vec![salted_row(0), salted_row(99)]),
        ("salt bools with 2^20 combinations", bools, bools_in, vec![bools_row]),
    ];
    for (name, schema, conditions, rows) in cases {
        for max_ranges in [0, u32::MAX] {
            let request = plan_bytes(predicate_spec(schema.clone(), conditions.clone()), max_ranges);
            let (result, took, memory) = measured(|| plan_request(&request));
            let plan = result.unwrap_or_else(|e| panic!("{name}: {e}"));
            println!("{name}, max_ranges {max_ranges}: {took:.2?}, {} KiB, plan {} bytes", memory / 1024, plan.len());
            assert!(memory <= 64 << 20, "{name}: planning held {memory} bytes");
            assert!(took <= time_budget(request.len() + plan.len()), "{name}: planning took {took:?}");
            assert_plan_keeps(name, &request, &schema, &rows);
        }
    }
}

/// Found by this suite: every value of every condition was encoded (a 1 KiB string field pads
/// each value to 1 KiB) before the compiled-program limit was checked, so 100,000 IN values of a
/// 1 KiB field, a 400 KB message, held 116 MB. The limit now bounds the encoded values up front.
#[test]
fn regression_wide_in_lists_are_refused_before_encoding_every_value() {
    let wide = schema_of(vec![field("w", FieldType::FIXED_STRING, 1024), field("i", FieldType::INT32, 0)]);
    let string = |s: String| value(ValueKind::StringValue(s));
    for values in [
        vec![string(String::new()); limits::MAX_IN_VALUES],
        (0..limits::MAX_IN_VALUES).map(|v| string(v.to_string())).collect(),
    ] {
        let spec = predicate_spec(wide.clone(), vec![condition("w", Op::IN, values)]).write_to_bytes().unwrap();
        let (result, took, memory) = measured(|| Comparator::from_bytes(&spec));
        println!("{} byte spec: {took:.2?}, {} KiB", spec.len(), memory / 1024);
        assert_limit(result, limits::MAX_PROGRAM_BYTES, "compiled program size");
        assert!(memory <= 32 << 20, "parsing held {memory} bytes");
    }
    // Narrow fields are unaffected: 100,000 int values still compile.
    let ints = (0..limits::MAX_IN_VALUES as i64).map(|v| value(ValueKind::IntValue(v))).collect();
    Comparator::from_spec(&predicate_spec(wide, vec![condition("i", Op::IN, ints)])).unwrap();
}

fn assert_limit<T>(result: hbase_rowkey::Result<T>, limit: usize, words: &str) {
    match result {
        Err(e @ Error::LimitExceeded { .. }) => {
            let Error::LimitExceeded { what, limit: named, found } = &e else { unreachable!() };
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
