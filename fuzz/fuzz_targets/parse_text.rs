//! A where clause or a schema as text: parse, print, parse again; see `parse_text` in
//! `tests/common/fuzz_bodies.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_bodies.rs"]
mod fuzz_bodies;

fuzz_target!(|data: &[u8]| {
    fuzz_bodies::parse_text(data);
});
