//! A `SchemaSpec` and a row: encode, decode, encode again; see `encode_decode` in
//! `tests/common/fuzz_bodies.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/fuzz_bodies.rs"]
mod fuzz_bodies;

fuzz_target!(|data: &[u8]| {
    fuzz_bodies::encode_decode(data);
});
