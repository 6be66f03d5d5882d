//! Robustness against untrusted bytes: every native parser gets hundreds of thousands of
//! corrupted inputs (truncations, bit flips, random bytes, huge declared lengths, repeated
//! fields, valid messages with absurd contents) and must answer `Ok` or a clean `Err`: no panic,
//! and bounded time and memory per input. Every limit of `limits.rs` is shown refused by name,
//! `Comparator::compare` is run on arbitrary rows, and the fuzz bodies of `hbase_rowkey::fuzzing`
//! (run under libFuzzer in `fuzz/`) get a bounded stable-Rust run here.
//!
//! Everything is seeded: a failure names the input and can be replayed.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::RwLock;
use std::time::{Duration, Instant};

use common::*;
use hbase_rowkey::fuzzing;
use hbase_rowkey::limits;
use hbase_rowkey::planner::plan_request;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, value::Kind as ValueKind, ComparatorSpec, Condition, EqualComparatorSpec, FieldSpec,
    FieldType, NamedValue, Op, PredicateComparatorSpec, RangeComparatorSpec, Row, SaltSpec, ScanPlanRequest,
    SchemaSpec, Value,
};
use hbase_rowkey::{Comparator, Error, Schema};
use protobuf::{Message, MessageField};

// ------------------------------------------------------------------ memory accounting

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

/// Inputs from this size on are measured alone.
const LARGE_INPUT: usize = 32 << 10;

fn alone<R>(f: impl FnOnce() -> R) -> R {
    let _guard = ALONE.write().unwrap_or_else(|e| e.into_inner());
    f()
}

fn shared<R>(f: impl FnOnce() -> R) -> R {
    let _guard = ALONE.read().unwrap_or_else(|e| e.into_inner());
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

// ------------------------------------------------------------------ the harness

/// Most time one call may take: 50 ms, plus 200 ns per byte of input and output (parsing is
/// linear in the message size: at the 1 MiB message limit, about 260 ms; a scan plan is linear
/// in the ranges it was allowed to produce, up to `planner::MAX_PLAN_KEY_BYTES`). Release is what
/// the budget is about; a debug build is only checked for hangs.
fn time_budget(io_bytes: usize) -> Duration {
    time_budget_at(io_bytes, 200)
}

fn time_budget_at(io_bytes: usize, ns_per_byte: u64) -> Duration {
    let budget = if cfg!(debug_assertions) {
        Duration::from_secs(5)
    } else {
        Duration::from_millis(50) + Duration::from_nanos(ns_per_byte * io_bytes as u64)
    };
    budget * time_budget_scale()
}

/// `ROWKEY_TIME_BUDGET_SCALE` (a whole number, default 1) stretches every budget, for runs on an
/// emulated CPU (`cargo make rust-test-aarch64`, under qemu-user): still a bound on blow-ups.
fn time_budget_scale() -> u32 {
    std::env::var("ROWKEY_TIME_BUDGET_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// The time per byte allowed to the repeated-field floods of `flood_inputs`: rust-protobuf gives
/// each message its own unknown-field map, so 1 MiB of `12 02 1a 00` (262,144 `FieldSpec`s with
/// one unknown field each) takes 100-400 ms and 155 MiB before any limit can look at it.
const FLOOD_NS_PER_BYTE: u64 = 500;

/// The size of what a parser produced, for the time budget.
trait OutputSize {
    fn output_size(&self) -> usize {
        0
    }
}
impl OutputSize for Vec<u8> {
    fn output_size(&self) -> usize {
        self.len()
    }
}
impl OutputSize for () {}
impl OutputSize for i32 {}
impl OutputSize for Schema {}
impl OutputSize for Comparator {}

/// Most memory one input may hold at once: 64 MiB, plus 160 bytes per input byte. Parsing
/// protobuf amplifies: rust-protobuf gives every message its own unknown-field map, so a 1 MiB
/// message of 262,144 empty `FieldSpec`s each with one unknown field takes about 155 MiB before
/// any limit can look at it. Nothing may grow beyond that (the regression tests below bound the
/// planner and the IN-list encoding much tighter).
fn memory_budget(input_len: usize) -> usize {
    (64 << 20) + 160 * input_len
}

/// Longest error message allowed: errors become Java exception messages that a RegionServer may
/// log, so they must not echo megabytes of input (names are cut to `MAX_NAME_BYTES`).
const MAX_ERROR_MESSAGE: usize = 1024;

/// Inputs each parser must get in `parser_*` tests.
const INPUTS_PER_PARSER: usize = 200_000;

fn hex_prefix(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(96).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 96 {
        format!("{shown}... ({} bytes)", bytes.len())
    } else {
        shown
    }
}

/// Statistics of one parser's run, and the checks applied to every input.
struct Harness {
    name: &'static str,
    /// Time allowed per byte of input and output, see `time_budget`.
    ns_per_byte: u64,
    inputs: usize,
    ok: usize,
    slowest: Duration,
    slowest_input: String,
    most_memory: usize,
    most_memory_input: String,
    longest_error: usize,
    started: Instant,
}

impl Harness {
    fn new(name: &'static str) -> Harness {
        Harness {
            name,
            ns_per_byte: 200,
            inputs: 0,
            ok: 0,
            slowest: Duration::ZERO,
            slowest_input: String::new(),
            most_memory: 0,
            most_memory_input: String::new(),
            longest_error: 0,
            started: Instant::now(),
        }
    }

    /// Runs `f(input)` once under `catch_unwind`: a panic fails the test, naming the input; so
    /// does a call over the time or memory budget (a slow call is retried twice, and only the
    /// fastest counts, so a busy machine does not fail the test).
    fn check<T: OutputSize>(&mut self, label: &str, input: &[u8], f: impl Fn(&[u8]) -> hbase_rowkey::Result<T>) {
        self.inputs += 1;
        let mut elapsed = Duration::MAX;
        let mut memory = 0;
        let mut io_bytes = input.len();
        for attempt in 0..3 {
            let run = || {
                let start = Instant::now();
                let (outcome, bytes) = measure_memory(|| catch_unwind(AssertUnwindSafe(|| f(input))));
                (outcome, bytes, start.elapsed())
            };
            let (outcome, bytes, took) = if attempt > 0 || input.len() >= LARGE_INPUT {
                alone(run)
            } else {
                shared(run)
            };
            let outcome = outcome.unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or("?");
                panic!(
                    "{}: PANIC ({message}) on {label} input {}",
                    self.name,
                    hex_prefix(input)
                )
            });
            if elapsed == Duration::MAX {
                match &outcome {
                    Ok(output) => {
                        self.ok += 1;
                        io_bytes += output.output_size();
                    }
                    Err(e) => {
                        let message = e.to_string();
                        assert!(
                            message.len() <= MAX_ERROR_MESSAGE,
                            "{}: a {} byte error message on {label} input {}: {}...",
                            self.name,
                            message.len(),
                            hex_prefix(input),
                            message.chars().take(200).collect::<String>()
                        );
                        self.longest_error = self.longest_error.max(message.len());
                    }
                }
            }
            elapsed = elapsed.min(took);
            memory = bytes;
            if elapsed <= time_budget_at(io_bytes, self.ns_per_byte) {
                break;
            }
        }
        assert!(
            elapsed <= time_budget_at(io_bytes, self.ns_per_byte),
            "{}: {label} input took {elapsed:?} (budget {:?}): {}",
            self.name,
            time_budget_at(io_bytes, self.ns_per_byte),
            hex_prefix(input)
        );
        assert!(
            memory <= memory_budget(input.len()),
            "{}: {label} input held {memory} bytes (budget {}): {}",
            self.name,
            memory_budget(input.len()),
            hex_prefix(input)
        );
        if elapsed > self.slowest {
            self.slowest = elapsed;
            self.slowest_input = format!("{label} {}", hex_prefix(input));
        }
        if memory > self.most_memory {
            self.most_memory = memory;
            self.most_memory_input = format!("{label} {}", hex_prefix(&input[..input.len().min(24)]));
        }
    }

    fn report(&self, minimum: usize) {
        println!(
            "{}: {} inputs ({} Ok, the rest clean Err) in {:.2?}; slowest {:?} ({}); most memory {} KiB ({}); longest error message {} bytes",
            self.name,
            self.inputs,
            self.ok,
            self.started.elapsed(),
            self.slowest,
            self.slowest_input,
            self.most_memory / 1024,
            self.most_memory_input,
            self.longest_error,
        );
        assert!(
            self.inputs >= minimum,
            "{}: only {} inputs, want {minimum}",
            self.name,
            self.inputs
        );
    }
}

// ------------------------------------------------------------------ mutations

/// Varints that claim absurd lengths: 2^20+1 (just above the message limit), 2^31, 2^32-1, 2^32,
/// 2^63, u64::MAX, and malformed ones (eleven continuation bytes, an overlong zero).
fn huge_varints() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = [(1u64 << 20) + 1, 1 << 31, u32::MAX as u64, 1 << 32, 1 << 63, u64::MAX]
        .iter()
        .map(|&v| varint(v))
        .collect();
    out.push(vec![0xff; 11]);
    out.push(vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    out
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

const INTERESTING: [u8; 10] = [0x00, 0x01, 0x02, 0x08, 0x0a, 0x12, 0x1a, 0x7f, 0x80, 0xff];

/// One to four random mutations, libFuzzer "havoc" style, aware of protobuf wire format.
fn mutate(rng: &mut Rng, seed: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut d = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = d.len();
        match rng.below(12) {
            0 if len > 0 => {
                let i = rng.below(len);
                d[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                d[i] = *rng.pick(&INTERESTING);
            }
            2 if len > 0 => {
                let i = rng.below(len);
                d[i] = rng.next() as u8;
            }
            3 => d.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                d.drain(i..i + n);
            }
            5 => {
                let i = rng.below(len + 1);
                let bytes: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
                d.splice(i..i, bytes);
            }
            6 if len > 0 => {
                // Repeat a chunk (a field, often): repeated-field floods.
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                let chunk = d[i..i + n].to_vec();
                let times = *rng.pick(&[2usize, 10, 100, 1000]);
                let repeated: Vec<u8> = chunk.iter().copied().cycle().take(n * times).collect();
                d.splice(i..i, repeated);
            }
            7 => {
                let i = rng.below(len + 1);
                let v = rng.pick(&huge_varints()).clone();
                d.splice(i..i, v);
            }
            8 if len > 1 => {
                // Replace the byte after a length-delimited tag-looking byte by a huge length.
                let i = rng.below(len - 1);
                let v = rng.pick(&huge_varints()).clone();
                d.splice(i + 1..i + 2, v);
                d[i] = (d[i] & !0x07) | 0x02;
            }
            9 if !others.is_empty() => {
                let other = rng.pick(others);
                let i = rng.below(len + 1);
                let j = rng.below(other.len() + 1);
                d.truncate(i);
                d.extend_from_slice(&other[j..]);
            }
            10 => {
                // A length-delimited field (numbers 1..5 and unknown ones) claiming a huge length.
                let field = *rng.pick(&[1u64, 2, 3, 4, 5, 15, 16, 2047, 536_870_911]);
                d.extend(varint(field << 3 | 2));
                d.extend(rng.pick(&huge_varints()).clone());
                d.extend((0..rng.below(8)).map(|_| rng.next() as u8));
            }
            11 => {
                // Group and reserved wire types, nested.
                let wire = *rng.pick(&[3u64, 4, 6, 7]);
                let tag = varint((1 + rng.below(6) as u64) << 3 | wire);
                let i = rng.below(len + 1);
                let times = *rng.pick(&[1usize, 2, 50, 150, 10_000]);
                let repeated: Vec<u8> = tag.iter().copied().cycle().take(tag.len() * times).collect();
                d.splice(i..i, repeated);
            }
            _ => d.push(rng.next() as u8),
        }
    }
    d
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(10) {
        0..=5 => rng.below(64),
        6..=8 => rng.below(512),
        _ => rng.below(8192),
    };
    if rng.chance(50) {
        (0..len).map(|_| rng.next() as u8).collect()
    } else {
        // Protobuf-looking: mostly tags and small numbers.
        (0..len)
            .map(|_| {
                if rng.chance(60) {
                    *rng.pick(&INTERESTING)
                } else {
                    rng.next() as u8
                }
            })
            .collect()
    }
}

/// Seeds up to this size get every truncation and bit flip; larger ones (the absurd messages
/// that fill the message limit) a few of each.
const SMALL_SEED: usize = 4096;

/// Feeds `f` every truncation, every single-bit flip, huge lengths at every position, random
/// bytes and havoc mutations derived from `seeds`, until `count` inputs ran.
fn corrupt_and_run<T: OutputSize>(
    h: &mut Harness,
    rng: &mut Rng,
    seeds: &[Vec<u8>],
    count: usize,
    f: impl Fn(&[u8]) -> hbase_rowkey::Result<T>,
) {
    let target = h.inputs + count;
    let (small, large): (Vec<Vec<u8>>, Vec<Vec<u8>>) = seeds.iter().cloned().partition(|s| s.len() <= SMALL_SEED);
    // Valid seeds as they are; large ones with a few corruptions each.
    for seed in seeds {
        h.check("seed", seed, &f);
    }
    for seed in &large {
        for _ in 0..2 {
            h.check("large truncation", &seed[..rng.below(seed.len())], &f);
            let mut d = seed.clone();
            let bit = rng.below(d.len() * 8);
            d[bit / 8] ^= 1 << (bit % 8);
            h.check("large bit flip", &d, &f);
            let d = mutate(rng, seed, &small);
            h.check("large havoc", &d, &f);
        }
    }
    // Truncations at every length, for seeds in turn, up to 15% of the inputs.
    let quota = h.inputs + count * 15 / 100;
    'truncate: for seed in &small {
        for n in 0..seed.len() {
            if h.inputs >= quota {
                break 'truncate;
            }
            h.check("truncation", &seed[..n], &f);
        }
    }
    // Every single-bit flip, up to 20% (from the other end of the seeds).
    let quota = h.inputs + count * 20 / 100;
    'flip: for seed in small.iter().rev() {
        let mut d = seed.clone();
        for bit in 0..d.len() * 8 {
            if h.inputs >= quota {
                break 'flip;
            }
            d[bit / 8] ^= 1 << (bit % 8);
            h.check("bit flip", &d, &f);
            d[bit / 8] ^= 1 << (bit % 8);
        }
    }
    // A huge varint at every position of a few seeds, up to 5%.
    let quota = h.inputs + count * 5 / 100;
    let huge = huge_varints();
    'huge: for seed in &small {
        for i in 0..seed.len() {
            for v in &huge {
                if h.inputs >= quota {
                    break 'huge;
                }
                let mut d = seed.clone();
                d.splice(i..(i + 1).min(d.len()), v.iter().copied());
                h.check("huge varint", &d, &f);
            }
        }
    }
    // Random bytes, 10%.
    for _ in 0..count / 10 {
        let d = random_bytes(rng);
        h.check("random", &d, &f);
    }
    // Havoc until the count.
    while h.inputs < target {
        let seed = rng_pick(rng, &small);
        let d = mutate(rng, seed, &small);
        h.check("havoc", &d, &f);
    }
}

fn rng_pick<'a>(rng: &mut Rng, items: &'a [Vec<u8>]) -> &'a [u8] {
    &items[rng.below(items.len())]
}

// ------------------------------------------------------------------ valid messages

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

fn bytes_value(b: Vec<u8>) -> Value {
    value(ValueKind::BytesValue(b))
}

/// Three 1 KiB fields, all salt fields of 256 buckets, each IN 100 values (`v ^ k` repeated):
/// 10^6 salt-field combinations.
fn salted_wide_in_lists() -> (SchemaSpec, Vec<Condition>) {
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

fn row_bytes(values: Vec<NamedValue>) -> Vec<u8> {
    let mut row = Row::new();
    row.values = values;
    row.write_to_bytes().unwrap()
}

/// A random comparator spec of any kind over a random schema (valid or not: random values may
/// not fit the field, which is fine for a seed).
fn random_comparator_spec(rng: &mut Rng) -> (SchemaDef, ComparatorSpec) {
    let schema = random_schema(rng);
    let mut spec = ComparatorSpec::new();
    spec.format_version = 1;
    spec.schema = MessageField::some(schema.spec());
    match rng.below(3) {
        0 => {
            let conds = random_predicate(rng, &schema);
            let mut p = PredicateComparatorSpec::new();
            p.predicate.mut_or_insert_default().conditions = conds.iter().map(|c| c.to_proto(&schema)).collect();
            spec.kind = Some(Kind::Predicate(p));
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

fn seeds_of(n: usize, mut make: impl FnMut() -> Vec<u8>) -> Vec<Vec<u8>> {
    (0..n).map(|_| make()).collect()
}

// ------------------------------------------------------------------ parsers: corrupted inputs

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
fn parser_encode_row_message() {
    let mut rng = Rng::new(0xe9c0_de04);
    let schemas = row_test_schemas(&mut rng);
    let mut h = Harness::new("Schema::encode_row_message");
    let per_schema = INPUTS_PER_PARSER / schemas.len() + 1;
    let mut all_rows: Vec<Vec<u8>> = Vec::new();
    for (def, _) in &schemas {
        for _ in 0..5 {
            all_rows.push(row_bytes(def.named(&random_row(&mut rng, def))));
        }
    }
    for (i, (def, schema)) in schemas.iter().enumerate() {
        let mut seeds = seeds_of(20, || row_bytes(def.named(&random_row(&mut rng, def))));
        seeds.extend(absurd_rows(def, i == 0));
        // Rows of other schemas: unknown and mistyped fields.
        seeds.push(all_rows[(i * 5 + 7) % all_rows.len()].clone());
        corrupt_and_run(&mut h, &mut rng, &seeds, per_schema, |b| schema.encode_row_message(b));
    }
    let schema = &schemas[0].1;
    h.ns_per_byte = FLOOD_NS_PER_BYTE;
    for bytes in flood_inputs() {
        h.check("flood", &bytes, |b| schema.encode_row_message(b));
    }
    h.report(INPUTS_PER_PARSER);
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

// ------------------------------------------------------------------ absurd but valid messages

fn all_type_fields() -> Vec<FieldSpec> {
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

/// Well-formed `SchemaSpec`s whose contents are out of range.
fn absurd_schemas() -> Vec<SchemaSpec> {
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
fn absurd_comparators() -> Vec<ComparatorSpec> {
    let schema = || schema_of(all_type_fields());
    let wide = || {
        schema_of(vec![
            field("w", FieldType::FIXED_STRING, 1024),
            field("i", FieldType::INT32, 0),
        ])
    };
    let int = |v: i64| value(ValueKind::IntValue(v));
    let string = |s: &str| value(ValueKind::StringValue(s.into()));
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
        vec![condition("b", Op::LT, vec![value(ValueKind::BoolValue(true))])],
        vec![condition("m", Op::GT, vec![string("x")])],
        vec![condition("h", Op::BETWEEN, vec![string("a"), string("b")])],
        vec![condition("s", Op::EQ, vec![string("nine bytes")])],
        vec![condition("s", Op::EQ, vec![string("a\0b")])],
        vec![condition("y", Op::EQ, vec![value(ValueKind::BytesValue(vec![1, 2]))])],
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
        vec![condition(
            "b",
            Op::IN,
            vec![value(ValueKind::BoolValue(true)); limits::MAX_IN_VALUES],
        )],
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
        ("b", value(ValueKind::BoolValue(true))),
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
fn absurd_plans() -> Vec<(&'static str, Vec<u8>)> {
    let int = |v: i64| value(ValueKind::IntValue(v));
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
        .map(|i| {
            condition(
                &format!("b{i}"),
                Op::IN,
                vec![value(ValueKind::BoolValue(true)), value(ValueKind::BoolValue(false))],
            )
        })
        .collect();
    out.push(("bool bytes", plan_bytes(predicate_spec(bools, conds), u32::MAX)));
    // Not a predicate comparator; no query at all.
    let mut equal = predicate_spec(all.clone(), vec![]);
    equal.kind = Some(Kind::Equal(EqualComparatorSpec::new()));
    out.push(("equal query", plan_bytes(equal, 0)));
    out.push(("no query", ScanPlanRequest::new().write_to_bytes().unwrap()));
    out
}

/// Well-formed `Row`s for `def` whose contents are out of range.
fn absurd_rows(def: &SchemaDef, with_flood: bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let first = def.fields[0].name.clone();
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
    for kind in kinds {
        out.push(row_bytes(vec![named(&first, kind)]));
    }
    out.push(row_bytes(Vec::new()));
    let mut no_value = NamedValue::new();
    no_value.field = first.clone();
    out.push(row_bytes(vec![no_value]));
    out.push(row_bytes(vec![named("no such field", ValueKind::IntValue(1))]));
    if with_flood {
        out.push(row_bytes(vec![named(&first, ValueKind::IntValue(1)); 100_000]));
        out.push(row_bytes(vec![named(&"x".repeat(500_000), ValueKind::IntValue(1))]));
    }
    out
}

/// Repeated-field floods that fill the 1 MiB message limit, and inputs just above it.
fn flood_inputs() -> Vec<Vec<u8>> {
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
                h.check("row", &d, |b| row_schema.encode_row_message(b));
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

// ------------------------------------------------------------------ regressions of core fixes

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
    let int = |v: i64| value(ValueKind::IntValue(v));
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
    let both = || vec![value(ValueKind::BoolValue(true)), value(ValueKind::BoolValue(false))];
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
    let string = |s: String| value(ValueKind::StringValue(s));
    for values in [
        vec![string(String::new()); limits::MAX_IN_VALUES],
        (0..limits::MAX_IN_VALUES).map(|v| string(v.to_string())).collect(),
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
    let ints = (0..limits::MAX_IN_VALUES as i64)
        .map(|v| value(ValueKind::IntValue(v)))
        .collect();
    Comparator::from_spec(&predicate_spec(wide, vec![condition("i", Op::IN, ints)])).unwrap();
}

/// Found by libFuzzer (fuzz/regressions/parse_compile_evaluate/canonical-unknown-fields): the
/// canonical bytes of a comparator kept unknown fields of its nested messages (predicate,
/// conditions, values, equalities), and rust-protobuf writes unknown fields in the order of a
/// randomly seeded hash map, so parsing the same bytes twice could give different canonical
/// bytes (HBase compares comparators by them). Canonical bytes now drop them at every level, as
/// the schema's always did.
#[test]
fn regression_canonical_bytes_drop_nested_unknown_fields() {
    fn unknown(fields: &mut protobuf::SpecialFields, on: bool) {
        if on {
            let u = fields.mut_unknown_fields();
            for n in 90..100u32 {
                u.add_varint(n, u64::from(n));
                u.add_length_delimited(n + 100, vec![n as u8; 3]);
            }
        }
    }
    let int = |v: i64| value(ValueKind::IntValue(v));
    let specs = |on: bool| -> Vec<ComparatorSpec> {
        let mut c = condition("i", Op::IN, vec![int(1), int(2)]);
        unknown(&mut c.special_fields, on);
        unknown(&mut c.values[1].special_fields, on);
        let mut predicate = predicate_spec(
            schema_of(all_type_fields()),
            vec![c, condition("l", Op::GT, vec![int(5)])],
        );
        if let Some(Kind::Predicate(p)) = predicate.kind.as_mut() {
            unknown(&mut p.special_fields, on);
            unknown(&mut p.predicate.mut_or_insert_default().special_fields, on);
        }
        let mut equal = EqualComparatorSpec::new();
        equal.equalities = vec![named("l", ValueKind::IntValue(3)), named("i", ValueKind::IntValue(4))];
        for e in &mut equal.equalities {
            unknown(&mut e.special_fields, on);
            unknown(&mut e.value.mut_or_insert_default().special_fields, on);
        }
        let mut equal_spec = predicate_spec(schema_of(all_type_fields()), vec![]);
        equal_spec.kind = Some(Kind::Equal(equal));
        let mut range = RangeComparatorSpec::new();
        range.field = "t".into();
        range.value = MessageField::some(int(7));
        unknown(&mut range.value.mut_or_insert_default().special_fields, on);
        let mut range_spec = predicate_spec(schema_of(all_type_fields()), vec![]);
        range_spec.kind = Some(Kind::Range(range));
        vec![predicate, equal_spec, range_spec]
    };
    for (with, without) in specs(true).iter().zip(specs(false)) {
        let bytes = with.write_to_bytes().unwrap();
        let expected = Comparator::from_spec(&without).unwrap().canonical_bytes().to_vec();
        for _ in 0..20 {
            assert_eq!(
                Comparator::from_bytes(&bytes).unwrap().canonical_bytes(),
                expected.as_slice()
            );
        }
    }
    // The input libFuzzer found, replayed with its invariant.
    let found = include_bytes!("../fuzz/regressions/parse_compile_evaluate/canonical-unknown-fields");
    for _ in 0..20 {
        fuzzing::parse_compile_evaluate(found);
    }
}

// ------------------------------------------------------------------ every limit, by name

fn assert_limit<T>(result: hbase_rowkey::Result<T>, limit: usize, words: &str) {
    match result {
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
        "serialized schema size",
    );
    assert_limit(
        Comparator::from_bytes(&too_big),
        limits::MAX_MESSAGE_BYTES,
        "serialized comparator size",
    );
    assert_limit(plan_request(&too_big), limits::MAX_MESSAGE_BYTES, "size in bytes");
    let schema = Schema::from_spec(&schema_of(all_type_fields())).unwrap();
    assert_limit(
        schema.encode_row_message(&too_big),
        limits::MAX_MESSAGE_BYTES,
        "serialized row size",
    );
    // A real message just above the limit, and a 10 MB field name inside one.
    let mut s = schema_of(vec![field(&"n".repeat(10 << 20), FieldType::INT32, 0)]);
    assert_limit(
        Schema::from_bytes(&s.write_to_bytes().unwrap()),
        limits::MAX_MESSAGE_BYTES,
        "serialized schema size",
    );
    s.fields[0].name = "n".repeat(limits::MAX_MESSAGE_BYTES);
    assert_limit(
        Schema::from_bytes(&s.write_to_bytes().unwrap()),
        limits::MAX_MESSAGE_BYTES,
        "serialized schema size",
    );
}

#[test]
fn limit_max_name_bytes() {
    for length in [limits::MAX_NAME_BYTES + 1, 10 << 20] {
        let s = schema_of(vec![field(&"n".repeat(length), FieldType::INT32, 0)]);
        assert_limit(Schema::from_spec(&s), limits::MAX_NAME_BYTES, "field name length");
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
        assert_limit(Schema::from_spec(&s), limits::MAX_FIELDS, "number of fields");
        let bytes = s.write_to_bytes().unwrap();
        if bytes.len() <= limits::MAX_MESSAGE_BYTES {
            assert_limit(Schema::from_bytes(&bytes), limits::MAX_FIELDS, "number of fields");
        } else {
            assert_limit(
                Schema::from_bytes(&bytes),
                limits::MAX_MESSAGE_BYTES,
                "serialized schema size",
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
    let conditions = |n: usize| vec![condition("i", Op::NE, vec![value(ValueKind::IntValue(3))]); n];
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
fn limit_max_in_values() {
    let schema = schema_of(all_type_fields());
    let in_list = |n: usize| {
        condition(
            "i",
            Op::IN,
            (0..n as i64).map(|v| value(ValueKind::IntValue(v))).collect(),
        )
    };
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
        assert_limit(
            Comparator::from_spec(&spec),
            limits::MAX_IN_VALUES,
            "number of condition values",
        );
        let bytes = spec.write_to_bytes().unwrap();
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
    let in_list = |n: usize| {
        condition(
            "w",
            Op::IN,
            (0..n).map(|v| value(ValueKind::StringValue(v.to_string()))).collect(),
        )
    };
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

/// The limits tested above are all the limits there are: a new constant in `limits.rs` must get
/// a test here.
#[test]
fn every_limit_has_a_test() {
    let source = include_str!("../src/limits.rs");
    let this = include_str!("robustness.rs");
    let names: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(names.len(), 8, "{names:?}");
    for name in names {
        let test = format!("fn limit_{}()", name.to_lowercase());
        assert!(this.contains(&test), "no test `{test}` for limits::{name}");
    }
}

// ------------------------------------------------------------------ compare on arbitrary rows

#[test]
fn compare_on_arbitrary_rows_returns_the_documented_values() {
    let mut rng = Rng::new(0x0c0a_7e06);
    let buffer: Vec<u8> = (0..3 * limits::MAX_KEY_BYTES).map(|_| rng.next() as u8).collect();
    let (mut comparators, mut calls) = (0, 0usize);
    let started = Instant::now();
    while comparators < 3000 {
        let (def, spec) = random_comparator_spec(&mut rng);
        let Ok(c) = Comparator::from_spec(&spec) else { continue };
        comparators += 1;
        let key_length = c.key_length();
        let wrong = c.wrong_length_result().expect("a wrong-length result");
        let predicate = c.predicate();
        let allowed: &[i32] = if predicate.is_some() { &[0, 1] } else { &[-1, 0, 1] };
        assert!(allowed.contains(&wrong));
        for _ in 0..150 {
            let length = match rng.below(8) {
                0..=3 => key_length,
                4 => key_length + 1 - rng.below(3).min(key_length + 1),
                5 => rng.below(limits::MAX_KEY_BYTES + 1),
                _ => rng.below(64),
            };
            // Half of the rows of the key length are made by encode (random bytes rarely match).
            let encoded;
            let row: &[u8] = if length == key_length && rng.chance(50) {
                encoded = c
                    .schema()
                    .encode(&def.named(&random_row(&mut rng, &def)))
                    .unwrap_or_else(|_| vec![0; key_length]);
                &encoded
            } else {
                let offset = rng.below(buffer.len() - length + 1);
                &buffer[offset..offset + length]
            };
            let result = c.compare(row);
            calls += 1;
            assert!(allowed.contains(&result), "compare returned {result}");
            if row.len() != key_length {
                assert_eq!(result, wrong, "a row of {} bytes, key length {key_length}", row.len());
            } else if let Some(p) = predicate {
                assert_eq!(
                    result == 0,
                    p.matches_key(c.schema(), row),
                    "program and predicate disagree on {row:02x?}"
                );
            }
        }
    }
    println!(
        "compare: {comparators} comparators, {calls} rows in {:.2?}",
        started.elapsed()
    );
}

// ------------------------------------------------------------------ the fuzz bodies, stable

/// Seeds for `fuzzing::parse_compile_evaluate`: valid comparators framed with rows made by
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
        seeds.push(fuzzing::frame(&spec.write_to_bytes().unwrap(), &rows));
    }
    seeds
}

/// Seeds for `fuzzing::encode_decode`: valid schemas framed with a valid row, or with a key.
fn schema_fuzz_seeds(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    while seeds.len() < n {
        let def = random_schema(rng);
        let Ok(schema) = Schema::from_spec(&def.spec()) else {
            continue;
        };
        let named = def.named(&random_row(rng, &def));
        let rest = if rng.chance(70) {
            row_bytes(named)
        } else {
            schema.encode(&named).unwrap()
        };
        seeds.push(fuzzing::frame(&def.spec().write_to_bytes().unwrap(), &rest));
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
        "fuzzing::parse_compile_evaluate",
        &seeds,
        &mut rng,
        60_000,
        fuzzing::parse_compile_evaluate,
    );
}

#[test]
fn fuzz_encode_decode_stable() {
    let mut rng = Rng::new(0xf022_0008);
    let seeds = schema_fuzz_seeds(&mut rng, 300);
    fuzz_stable(
        "fuzzing::encode_decode",
        &seeds,
        &mut rng,
        60_000,
        fuzzing::encode_decode,
    );
}

/// Inputs that crashed or failed an invariant under libFuzzer once (fuzz/regressions/), replayed
/// on every test run.
#[test]
fn fuzz_regressions_replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut replayed = 0;
    for (target, body) in [
        ("parse_compile_evaluate", fuzzing::parse_compile_evaluate as fn(&[u8])),
        ("encode_decode", fuzzing::encode_decode),
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
/// generator, rewrite it with `WRITE_FUZZ_SEEDS=1 cargo test --release --test robustness fuzz_seeds`.
#[test]
fn fuzz_seeds_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let write = std::env::var_os("WRITE_FUZZ_SEEDS").is_some();
    let mut rng = Rng::new(0x5eed);
    for (target, seeds) in [
        ("parse_compile_evaluate", comparator_fuzz_seeds(&mut rng, 64)),
        ("encode_decode", schema_fuzz_seeds(&mut rng, 64)),
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
