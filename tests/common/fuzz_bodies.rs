//! Fuzz bodies: pure functions over arbitrary bytes, shared by the libFuzzer targets in `fuzz/`
//! (nightly, `cargo fuzz run ...`, which include this file with `#[path]`) and by the stable
//! `tests/fuzz_stable.rs`, which drives them with a bounded number of random and mutated inputs
//! so CI always fuzzes a little. A test file, never part of the library a RegionServer loads.
//!
//! Each body feeds the bytes to the native parsers (which must answer `Ok` or a clean `Err`) and
//! checks invariants on whatever parses; a violated invariant panics, which is what a fuzzer (or
//! the test's `catch_unwind`) reports.
//!
//! Input framing (see [`frame`]): two little-endian bytes `n`, then `n` bytes of message (a
//! `ComparatorSpec` or a `SchemaSpec`), then the rest (rows, or a flat row / key).
#![allow(dead_code)]

use protobuf::Message;

use hbase_rowkey::proto::rowkey::value::Kind;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind as SpecKind, ComparatorSpec, Row, ScanPlan, ScanPlanRequest, Value,
};
use hbase_rowkey::{plan_wire, text};
use hbase_rowkey::{Comparator, Error, ErrorClass, Schema};

/// Builds an input for the fuzz bodies from a message and the bytes that follow it.
pub fn frame(message: &[u8], rest: &[u8]) -> Vec<u8> {
    let n = u16::try_from(message.len()).unwrap_or(u16::MAX);
    let mut out = Vec::with_capacity(2 + message.len() + rest.len());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&message[..usize::from(n)]);
    out.extend_from_slice(rest);
    out
}

/// The inverse of [`frame`] for any bytes: a short or lying length just takes what is there.
pub fn split(data: &[u8]) -> (&[u8], &[u8]) {
    if data.len() < 2 {
        return (data, &[]);
    }
    let n = usize::from(u16::from_le_bytes([data[0], data[1]]));
    let body = &data[2..];
    body.split_at(n.min(body.len()))
}

/// An error from untrusted input must be a clean "invalid input", never an internal error (a
/// bug), and must render.
fn check_error(error: &Error) {
    let text = error.to_string();
    assert!(
        error.class() == ErrorClass::InvalidInput,
        "untrusted input gave an internal error: {text}"
    );
    assert!(!text.is_empty());
}

/// Parses the message part as a `ComparatorSpec` (and as a `ScanPlanRequest`), compiles it,
/// evaluates it on the rest cut into rows, checks the canonical form round-trips and, for a
/// predicate comparator, that the scan plan keeps every matching well-formed row.
pub fn parse_compile_evaluate(data: &[u8]) {
    let (spec, rows) = split(data);
    if let Err(e) = plan_wire::plan_request(spec) {
        check_error(&e);
    }
    let comparator = match Comparator::from_bytes(spec) {
        Ok(c) => c,
        Err(e) => return check_error(&e),
    };
    check_compare(&comparator, rows);

    let again = Comparator::from_bytes(comparator.canonical_bytes())
        .unwrap_or_else(|e| panic!("the canonical bytes of a valid comparator are refused: {e}"));
    assert_eq!(
        again.canonical_bytes(),
        comparator.canonical_bytes(),
        "canonical form is not stable"
    );
    if let Some(key_length) = nonzero(comparator.key_length()) {
        for row in rows.chunks_exact(key_length).take(64) {
            assert_eq!(
                again.compare(row),
                comparator.compare(row),
                "canonical comparator answers differently"
            );
        }
    }

    let canonical = ComparatorSpec::parse_from_bytes(comparator.canonical_bytes()).expect("canonical bytes parse");
    if matches!(canonical.kind, Some(SpecKind::Predicate(_))) {
        check_plan(&comparator, canonical, rows);
    }
}

fn nonzero(n: usize) -> Option<usize> {
    (n > 0).then_some(n)
}

/// `compare` returns the documented values, agrees with the predicate, and gives the
/// wrong-length result for every other length.
fn check_compare(comparator: &Comparator, rows: &[u8]) {
    let key_length = comparator.key_length();
    let wrong = comparator.wrong_length_result();
    // An equal or predicate comparator's AND-predicate, or an OR comparator's branches.
    let branches = comparator.branches();
    let allowed: &[i32] = if branches.is_empty() { &[-1, 0, 1] } else { &[0, 1] };
    if let Some(key_length) = nonzero(key_length) {
        for row in rows.chunks_exact(key_length).take(256) {
            let result = comparator.compare(row);
            assert!(allowed.contains(&result), "compare returned {result}");
            if !branches.is_empty() {
                assert_eq!(
                    result == 0,
                    branches.iter().any(|p| p.matches_key(comparator.schema(), row)),
                    "the compiled program and the predicate disagree on {row:02x?}"
                );
            }
        }
    }
    let mut long = rows.to_vec();
    long.resize(rows.len().max(key_length + 1), 0x5a);
    for length in [0, 1, key_length.saturating_sub(1), key_length + 1, rows.len()] {
        if length != key_length {
            assert_eq!(
                comparator.compare(&long[..length]),
                wrong,
                "a row of {length} bytes (key length {key_length})"
            );
        }
    }
}

/// The plan of a predicate comparator (`query` is its canonical spec): ranges sorted and disjoint, and every well-formed row (one
/// `encode` could have written) that matches lies inside a range and passes the residual.
fn check_plan(comparator: &Comparator, query: ComparatorSpec, rows: &[u8]) {
    let mut request = ScanPlanRequest::new();
    request.query = protobuf::MessageField::some(query);
    request.max_ranges = [0u32, 1, 2, 3, 16, 1000][usize::from(rows.first().copied().unwrap_or(0)) % 6];
    let request = request.write_to_bytes().expect("serializing a request");
    let plan = plan_wire::plan_request(&request).unwrap_or_else(|e| panic!("a valid predicate does not plan: {e}"));
    let plan = ScanPlan::parse_from_bytes(&plan).expect("a plan parses");
    for pair in plan.ranges.windows(2) {
        assert!(
            !pair[0].stop.is_empty() && pair[0].stop <= pair[1].start,
            "ranges overlap or are unsorted"
        );
    }
    for range in &plan.ranges {
        assert!(range.stop.is_empty() || range.start < range.stop, "an empty range");
    }
    let residual = Comparator::from_spec(plan.residual.get_or_default())
        .unwrap_or_else(|e| panic!("the residual of a plan is refused: {e}"));
    let schema = comparator.schema();
    let Some(key_length) = nonzero(schema.key_length()) else {
        return;
    };
    for chunk in rows.chunks_exact(key_length).take(64) {
        // Make the chunk well formed: decode it and encode the values again (salt byte, unused
        // bool bits and string padding as `encode` writes them).
        let Ok(decoded) = schema.decode(chunk) else { continue };
        let Ok(key) = schema.encode(&decoded) else { continue };
        if comparator.compare(&key) == 0 {
            let inside = plan
                .ranges
                .iter()
                .any(|r| key >= r.start && (r.stop.is_empty() || key < r.stop));
            assert!(inside, "a matching key {key:02x?} is outside every planned range");
            assert_eq!(
                residual.compare(&key),
                0,
                "a matching key {key:02x?} fails the residual"
            );
        }
    }
}

/// Parses the message part as a `SchemaSpec`, then: the rest as a flat row to encode (a key made
/// by `encode_flat` decodes, and the decoded row encodes to the same key, both as named values and
/// flat); the rest (and its first key-length bytes) as a key to decode (a decoded row that encodes
/// decodes the same).
pub fn encode_decode(data: &[u8]) {
    let (spec, rest) = split(data);
    let schema = match Schema::from_bytes(spec) {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    let canonical = schema.canonical_bytes();
    let again = Schema::from_bytes(&canonical)
        .unwrap_or_else(|e| panic!("the canonical bytes of a valid schema are refused: {e}"));
    assert_eq!(again.canonical_bytes(), canonical, "canonical form is not stable");
    assert_eq!(again.key_length(), schema.key_length());

    match schema.encode_flat(rest) {
        Ok(key) => {
            assert_eq!(key.len(), schema.key_length(), "encode made a key of the wrong length");
            let row = schema
                .decode(&key)
                .unwrap_or_else(|e| panic!("a key made by encode does not decode: {e}"));
            let again = schema
                .encode(&row)
                .unwrap_or_else(|e| panic!("a decoded row does not encode again: {e}"));
            assert_eq!(again, key, "decode then encode changed the key");
            let flat = flat_row(row.iter().map(|named| named.value.get_or_default()));
            let again = schema
                .encode_flat(&flat)
                .unwrap_or_else(|e| panic!("a decoded row does not encode again from its flat form: {e}"));
            assert_eq!(again, key, "decode then encode from the flat form changed the key");
        }
        Err(e) => check_error(&e),
    }

    let prefix = rest.get(..schema.key_length());
    for key in [Some(rest), prefix].into_iter().flatten() {
        match schema.decode_to_row_message(key) {
            Ok(row) => {
                let row = Row::parse_from_bytes(&row).expect("a decoded row message parses");
                if let Ok(key) = schema.encode(&row.values) {
                    let row_again = schema
                        .decode(&key)
                        .unwrap_or_else(|e| panic!("a key made by encode does not decode: {e}"));
                    assert_eq!(row_again, row.values, "encode then decode changed the row");
                }
            }
            Err(e) => check_error(&e),
        }
    }
}

/// The schema a where clause is fuzzed on: a field of every type, and one needing quotes.
pub const TEXT_FUZZ_SCHEMA: &str =
    "salt 4 buckets of (i), i int32, l int64 DESC, t timestamp, r reversedTimestamp, b bool, c bool, s fixedString(8), \
     y fixedBytes(3), m md5(16), h javaHash, \"an d\" int32";

/// The first byte picks the grammar (even: a where clause on [`TEXT_FUZZ_SCHEMA`], odd: a schema
/// text), the rest is the text (invalid UTF-8 replaced). Whatever parses prints to a text that
/// parses back to the same message, and printing that again gives the same text.
pub fn parse_text(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    if pick % 2 == 0 {
        let schema = Schema::from_spec(&text::parse_schema(TEXT_FUZZ_SCHEMA).expect("the fuzz schema parses"))
            .expect("the fuzz schema is valid");
        match text::parse_where(&schema, &text) {
            Ok(spec) => {
                let printed = text::describe_where(&spec);
                let again = text::parse_where(&schema, &printed)
                    .unwrap_or_else(|e| panic!("printed where clause {printed:?} does not parse: {e}"));
                assert_eq!(again, spec, "where clause {printed:?} parsed to another spec");
                assert_eq!(text::describe_where(&again), printed, "printing is not stable");
            }
            Err(e) => check_error(&e),
        }
    } else {
        match text::parse_schema(&text) {
            Ok(spec) => {
                let printed = text::describe_schema(&spec);
                let again = text::parse_schema(&printed)
                    .unwrap_or_else(|e| panic!("printed schema {printed:?} does not parse: {e}"));
                assert_eq!(again, spec, "schema {printed:?} parsed to another spec");
            }
            Err(e) => check_error(&e),
        }
    }
}

/// The flat form `Schema::encode_flat` reads (the Java client's `FlatValues`): values in field
/// order, each a kind byte (1 int, 2 bool, 3 string, 4 bytes) and its bytes, big-endian, a
/// string's or bytes' behind a 4-byte length. A value without a kind is written as kind 0.
pub fn flat_row<'a>(values: impl IntoIterator<Item = &'a Value>) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        match &v.kind {
            Some(Kind::IntValue(i)) => {
                out.push(1);
                out.extend_from_slice(&i.to_be_bytes());
            }
            Some(Kind::BoolValue(b)) => out.extend_from_slice(&[2, u8::from(*b)]),
            Some(Kind::StringValue(s)) => flat_with_length(&mut out, 3, s.as_bytes()),
            Some(Kind::BytesValue(b)) => flat_with_length(&mut out, 4, b),
            _ => out.push(0),
        }
    }
    out
}

fn flat_with_length(out: &mut Vec<u8>, kind: u8, bytes: &[u8]) {
    out.push(kind);
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}
