//! The cross-language vectors (tests/vectors/*.txtpb, written by an independent reference in
//! generate.py): the Rust core must produce exactly these keys, results and errors. JUnit checks
//! the same files through the Java shim.

mod common;

use common::messages::flat_row;
use hbase_rowkey::proto::rowkey::{ComparatorSpec, NamedValue, Value};
use hbase_rowkey::proto::vectors::{SchemaErrorFile, Suite, VectorFile};
use hbase_rowkey::{Comparator, Schema};

fn load<M: protobuf::MessageFull>(file: &str) -> M {
    let path = format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    protobuf::text_format::parse_from_str(&text).unwrap_or_else(|e| panic!("parsing {path}: {e}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The error's message names what was wrong, as the reference says it must.
fn assert_error_names(err: &hbase_rowkey::Error, expected: &str, case: &str) {
    let message = err.to_string();
    assert!(message.contains(expected), "{case}: '{message}' lacks '{expected}'");
}

fn comparator(suite: &Suite, spec: &ComparatorSpec) -> hbase_rowkey::Result<Comparator> {
    let mut spec = spec.clone();
    spec.schema = suite.schema.clone();
    Comparator::from_spec(&spec)
}

#[test]
fn encodings_match_the_reference() {
    let file: VectorFile = load("encodings.txtpb");
    assert!(file.suite.len() >= 4);
    let mut checked = 0;
    let mut flat_errors = 0;
    for suite in &file.suite {
        let schema = Schema::from_spec(&suite.schema).unwrap();
        for case in &suite.encode {
            let key = schema
                .encode(&case.row.values)
                .unwrap_or_else(|e| panic!("{}/{}: {e}", suite.name, case.name));
            assert_eq!(hex(&key), case.key_hex, "{}/{}", suite.name, case.name);
            let flat = flat_in_key_order(&schema, &case.row.values).expect("a valid row has every field once");
            let key = schema
                .encode_flat(&flat)
                .unwrap_or_else(|e| panic!("{}/{} (flat): {e}", suite.name, case.name));
            assert_eq!(hex(&key), case.key_hex, "{}/{} (flat)", suite.name, case.name);
            checked += 1;
        }
        for case in &suite.encode_error {
            let err = schema.encode(&case.row.values).expect_err(&case.name);
            assert_error_names(&err, &case.error_contains, &format!("{}/{}", suite.name, case.name));
            // A missing, unknown or repeated field has no flat form (it names no fields): the
            // Java client refuses it by name before.
            if let Some(flat) = flat_in_key_order(&schema, &case.row.values) {
                let err = schema.encode_flat(&flat).expect_err(&case.name);
                assert_error_names(
                    &err,
                    &case.error_contains,
                    &format!("{}/{} (flat)", suite.name, case.name),
                );
                flat_errors += 1;
            }
        }
    }
    assert!(checked >= 20);
    assert!(flat_errors >= 5, "{flat_errors} value errors checked flat");
}

/// The row's values in the schema's field order, in the flat form, when it gives every field once.
fn flat_in_key_order(schema: &Schema, values: &[NamedValue]) -> Option<Vec<u8>> {
    let ordered: Vec<&Value> = schema
        .fields()
        .iter()
        .map(|f| {
            let mut given = values.iter().filter(|v| v.field == f.name);
            match (given.next(), given.next()) {
                (Some(v), None) => Some(v.value.get_or_default()),
                _ => None,
            }
        })
        .collect::<Option<_>>()?;
    (ordered.len() == values.len()).then(|| flat_row(ordered))
}

#[test]
fn decode_inverts_encode_on_the_reference_keys() {
    let file: VectorFile = load("encodings.txtpb");
    for suite in &file.suite {
        let schema = Schema::from_spec(&suite.schema).unwrap();
        for case in &suite.encode {
            let key = unhex(&case.key_hex);
            let decoded = schema.decode(&key).unwrap();
            // Hashed fields decode to their digests; every other field to the value given.
            for named in &decoded {
                let field = &schema.fields()[schema.field_index(&named.field).unwrap()];
                if field.kind.is_ordered() || field.kind == hbase_rowkey::key::Kind::Bool {
                    let original = case.row.values.iter().find(|v| v.field == named.field).unwrap();
                    assert_eq!(
                        named.value, original.value,
                        "{}/{}/{}",
                        suite.name, case.name, named.field
                    );
                }
            }
        }
    }
}

#[test]
fn comparators_match_the_reference() {
    let file: VectorFile = load("encodings.txtpb");
    let mut checked = 0;
    for suite in &file.suite {
        for case in &suite.compare {
            let cmp =
                comparator(suite, &case.comparator).unwrap_or_else(|e| panic!("{}/{}: {e}", suite.name, case.name));
            // The canonical bytes rebuild the same comparator.
            let again = Comparator::from_bytes(cmp.canonical_bytes()).unwrap();
            assert_eq!(again.canonical_bytes(), cmp.canonical_bytes());
            for expect in &case.expect {
                let key = match expect.key.strip_prefix("hex:") {
                    Some(h) => unhex(h),
                    None => unhex(&suite.encode.iter().find(|e| e.name == expect.key).unwrap().key_hex),
                };
                assert_eq!(
                    cmp.compare(&key),
                    expect.result,
                    "{}/{} on {}",
                    suite.name,
                    case.name,
                    expect.key
                );
                assert_eq!(again.compare(&key), expect.result);
                checked += 1;
            }
        }
        for case in &suite.compare_error {
            let err = comparator(suite, &case.comparator).expect_err(&case.name);
            assert_error_names(&err, &case.error_contains, &format!("{}/{}", suite.name, case.name));
        }
    }
    assert!(checked >= 100, "only {checked} expectations");
}

#[test]
fn bad_schemas_are_refused_by_name() {
    let file: SchemaErrorFile = load("schema_errors.txtpb");
    assert!(!file.case.is_empty());
    for case in &file.case {
        let err = Schema::from_spec(&case.schema).expect_err(&case.name);
        assert_error_names(&err, &case.error_contains, &case.name);
    }
}

/// A flat row that does not fit the schema is refused, naming what is wrong: the Java client writes
/// one value per field in key order, so any other shape is a bug there, not a key to guess at.
#[test]
fn flat_rows_that_do_not_fit_the_schema_are_refused_by_name() {
    let file: VectorFile = load("encodings.txtpb");
    let suite = &file.suite[0];
    let schema = Schema::from_spec(&suite.schema).unwrap();
    let whole = flat_in_key_order(&schema, &suite.encode[0].row.values).unwrap();
    let first = schema.fields()[0].name.clone();
    let last = schema.fields().last().unwrap().name.clone();
    let refused = |flat: &[u8], expected: &str| {
        let err = schema.encode_flat(flat).expect_err(expected);
        assert_error_names(&err, expected, expected);
        assert_error_names(&err, "corrupt serialized flat row", expected);
    };
    refused(&[whole.clone(), vec![1]].concat(), "1 byte(s) after the values of all");
    refused(
        &whole[..whole.len() - 1],
        &format!("ends inside the value of field '{last}'"),
    );
    refused(&[], &format!("ends inside the value of field '{first}'"));
    refused(
        &[vec![9], whole[1..].to_vec()].concat(),
        &format!("field '{first}': value kind 9"),
    );
    // A length past the end (4 GiB claimed): refused before anything is allocated for it.
    refused(
        &[3, 0xff, 0xff, 0xff, 0xff],
        &format!("ends inside the value of field '{first}'"),
    );
    let too_big = vec![0u8; hbase_rowkey::limits::MAX_MESSAGE_BYTES + 1];
    let err = schema.encode_flat(&too_big).unwrap_err();
    assert_error_names(&err, "flat row is", "too big");
    // A bool byte other than 0 or 1, and a string that is not UTF-8, where the schema has them.
    let mut odd_values = 0;
    for (i, field) in schema.fields().iter().enumerate() {
        let values: Vec<Value> = schema
            .fields()
            .iter()
            .map(|f| {
                suite.encode[0]
                    .row
                    .values
                    .iter()
                    .find(|v| v.field == f.name)
                    .unwrap()
                    .value
                    .get_or_default()
                    .clone()
            })
            .collect();
        let before = flat_row(&values[..i]);
        let after = flat_row(&values[i + 1..]);
        let odd: &[u8] = match field.kind {
            hbase_rowkey::key::Kind::Bool => &[2, 2],
            hbase_rowkey::key::Kind::FixedString(_) => &[3, 0, 0, 0, 2, 0xc3, 0x28],
            _ => continue,
        };
        let name = &field.name;
        let expected = if odd[0] == 2 {
            format!("field '{name}': bool byte 2")
        } else {
            format!("field '{name}': the string is not UTF-8")
        };
        refused(&[before, odd.to_vec(), after].concat(), &expected);
        odd_values += 1;
    }
    assert!(odd_values >= 2, "the suite's schema has a bool and a fixed string");
}
