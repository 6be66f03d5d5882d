//! `Comparator::compare` on arbitrary rows (random bytes of every length, and keys made by
//! `encode`) returns only the documented values, the wrong-length result for every other
//! length, and agrees with the predicate it was compiled from.

mod common;

use std::time::Instant;

use common::messages::random_comparator_spec;
use common::*;
use hbase_rowkey::limits;
use hbase_rowkey::Comparator;

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
        let wrong = c.wrong_length_result();
        // An equal or predicate comparator's AND-predicate, or an OR comparator's branches.
        let branches = c.branches();
        let allowed: &[i32] = if branches.is_empty() { &[-1, 0, 1] } else { &[0, 1] };
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
            } else if !branches.is_empty() {
                assert_eq!(
                    result == 0,
                    branches.iter().any(|p| p.matches_key(c.schema(), row)),
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
