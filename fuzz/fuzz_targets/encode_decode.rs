//! A `SchemaSpec` and a row: encode, decode, encode again; see
//! `hbase_rowkey::fuzzing::encode_decode`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    hbase_rowkey::fuzzing::encode_decode(data);
});
