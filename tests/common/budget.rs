//! Time and memory budgets for calls on untrusted input, and the harness that applies them.
//!
//! Including this module installs [`CountingAllocator`] as the test binary's global allocator
//! (a global allocator is per binary): include it, with `#[path = "common/budget.rs"] mod budget;`
//! beside `mod common;`, in every test binary that bounds memory, and only there (the other
//! tests and the benchmarks keep the system allocator untouched).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::RwLock;
use std::time::{Duration, Instant};

use hbase_rowkey::{Comparator, Schema};

use crate::common::mutation::{huge_varints, mutate, random_bytes, rng_pick};
use crate::common::Rng;

// ------------------------------------------------------------------ memory accounting

/// Counts the bytes each thread has allocated and not freed, and the peak of that count, so a
/// test can bound the memory one call takes (tests run in parallel threads).
pub struct CountingAllocator;

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
pub fn time_budget(io_bytes: usize) -> Duration {
    time_budget_at(io_bytes, 200)
}

pub fn time_budget_at(io_bytes: usize, ns_per_byte: u64) -> Duration {
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

/// The size of what a parser produced, for the time budget.
pub trait OutputSize {
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
/// any limit can look at it. Nothing may grow beyond that (the regression tests in `limits.rs` bound the
/// planner and the IN-list encoding much tighter).
pub fn memory_budget(input_len: usize) -> usize {
    (64 << 20) + 160 * input_len
}

/// Longest error message allowed: errors become Java exception messages that a RegionServer may
/// log, so they must not echo megabytes of input (names are cut to `MAX_NAME_BYTES`).
const MAX_ERROR_MESSAGE: usize = 1024;

pub fn hex_prefix(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(96).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 96 {
        format!("{shown}... ({} bytes)", bytes.len())
    } else {
        shown
    }
}

/// Statistics of one parser's run, and the checks applied to every input.
pub struct Harness {
    name: &'static str,
    /// Time allowed per byte of input and output, see `time_budget`.
    pub ns_per_byte: u64,
    pub inputs: usize,
    ok: usize,
    slowest: Duration,
    slowest_input: String,
    most_memory: usize,
    most_memory_input: String,
    longest_error: usize,
    started: Instant,
}

impl Harness {
    pub fn new(name: &'static str) -> Harness {
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
    pub fn check<T: OutputSize>(&mut self, label: &str, input: &[u8], f: impl Fn(&[u8]) -> hbase_rowkey::Result<T>) {
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

    pub fn report(&self, minimum: usize) {
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

/// Runs `f` once and returns its result, time and peak memory.
pub fn measured<R>(f: impl FnOnce() -> R) -> (R, Duration, usize) {
    alone(|| {
        let start = Instant::now();
        let (r, memory) = measure_memory(f);
        (r, start.elapsed(), memory)
    })
}

// ------------------------------------------------------------------ corrupted inputs

/// Seeds up to this size get every truncation and bit flip; larger ones (the absurd messages
/// that fill the message limit) a few of each.
const SMALL_SEED: usize = 4096;

/// Feeds `f` every truncation, every single-bit flip, huge lengths at every position, random
/// bytes and havoc mutations derived from `seeds`, until `count` inputs ran.
pub fn corrupt_and_run<T: OutputSize>(
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
