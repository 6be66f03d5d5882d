//! A `ComparatorSpec` (and `ScanPlanRequest`) parsed, compiled and evaluated on rows; see
//! `hbase_rowkey::fuzzing::parse_compile_evaluate`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    hbase_rowkey::fuzzing::parse_compile_evaluate(data);
});
