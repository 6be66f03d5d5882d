//! A `ComparatorSpec` (and `ScanPlanRequest`) parsed, compiled and evaluated on rows; see
//! `parse_compile_evaluate` in `tests/common/fuzz_bodies.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_bodies.rs"]
mod fuzz_bodies;

fuzz_target!(|data: &[u8]| {
    fuzz_bodies::parse_compile_evaluate(data);
});
