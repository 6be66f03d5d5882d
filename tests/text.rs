//! Where clauses and schemas as text (`src/text.rs`): what the printers print parses back to the
//! same message for random queries on random schemas (odd field names included); parsed queries
//! match exactly the oracle's rows (OR, parentheses, NOT and bare bools included); every class of
//! bad text gets its own clear error.

mod common;

use common::messages::{any_of_spec, predicate_spec};
use common::*;
use hbase_rowkey::proto::rowkey::{comparator_spec::Kind, ComparatorSpec, Op, PredicateComparatorSpec};
use hbase_rowkey::text::{
    describe_comparator, describe_schema, describe_where, parse_schema, parse_where, MAX_NESTING,
};
use hbase_rowkey::{limits, Comparator, ErrorClass, Schema};

/// Names the printers must quote (keywords, spaces, quotes, non-ASCII) or may leave bare.
const ODD_NAMES: [&str; 10] = [
    "and",
    "In",
    "x y",
    "say \"hi\"",
    "é",
    "_a1",
    "x",
    "Desc",
    "9lives",
    "salt",
];

/// A random schema whose fields sometimes have odd names.
fn random_named_schema(rng: &mut Rng) -> SchemaDef {
    let mut schema = random_schema(rng);
    let mut used = Vec::new();
    for f in &mut schema.fields {
        if rng.chance(30) {
            let name = rng.pick(&ODD_NAMES).to_string();
            if !used.contains(&name) {
                if let Some((_, salt_fields)) = &mut schema.salt {
                    for s in salt_fields.iter_mut().filter(|s| **s == f.name) {
                        *s = name.clone();
                    }
                }
                f.name = name.clone();
                used.push(name);
            }
        }
    }
    schema
}

fn predicate_of(spec: &ComparatorSpec) -> &PredicateComparatorSpec {
    match &spec.kind {
        Some(Kind::Predicate(p)) => p,
        _ => unreachable!("a predicate spec"),
    }
}

#[test]
fn printed_queries_parse_back_to_the_same_spec() {
    let mut rng = Rng::new(0x7e47_0001);
    let (mut plain, mut ors) = (0, 0);
    while plain + ors < 3000 {
        let schema = random_named_schema(&mut rng);
        let Ok(compiled) = Schema::from_spec(&schema.spec()) else {
            continue;
        };
        let branches: Vec<Vec<_>> = (0..1 + rng.below(3) * rng.below(2))
            .map(|_| {
                random_predicate(&mut rng, &schema)
                    .iter()
                    .map(|c| c.to_proto(&schema))
                    .collect()
            })
            .collect();
        let spec = if branches.len() == 1 {
            predicate_spec(schema.spec(), branches[0].clone())
        } else {
            any_of_spec(schema.spec(), branches.clone())
        };
        if Comparator::from_spec(&spec).is_err() {
            continue; // values the field refuses: no query to print
        }
        let text = describe_where(predicate_of(&spec));
        assert_eq!(text, describe_comparator(&spec));
        let parsed = parse_where(&compiled, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&parsed, predicate_of(&spec), "{text}");
        assert_eq!(describe_where(&parsed), text);
        if branches.len() == 1 {
            plain += 1;
        } else {
            ors += 1;
        }
    }
    assert!(ors > 500, "only {ors} OR queries");
}

#[test]
fn printed_schemas_parse_back_to_the_same_spec() {
    let mut rng = Rng::new(0x7e47_0002);
    let mut checked = 0;
    while checked < 2000 {
        let schema = random_named_schema(&mut rng);
        let Ok(compiled) = Schema::from_spec(&schema.spec()) else {
            continue;
        };
        let text = describe_schema(compiled.canonical_spec());
        let parsed = parse_schema(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&parsed, compiled.canonical_spec(), "{text}");
        assert_eq!(
            Schema::from_spec(&parsed).unwrap().canonical_bytes(),
            compiled.canonical_bytes()
        );
        checked += 1;
    }
}

#[test]
fn the_issue_schema_and_query_read_as_written() {
    let schema = parse_schema(
        "md5url md5(8), sitecode javahash, status int32, code int32, sdate int32, type int32, free bool, close bool, \
         queue int32, scantype int32",
    )
    .unwrap();
    assert_eq!(
        describe_schema(&schema),
        "md5url md5(8), sitecode javaHash, status int32, code int32, sdate int32, type int32, free bool, close bool, \
         queue int32, scantype int32"
    );
    let schema = Schema::from_spec(&schema).unwrap();
    let spec = parse_where(
        &schema,
        "md5url = 'http://www.caac.gov.cn/E1/E2/' AND sdate BETWEEN 20161201 AND 20161209 AND code IN (404, 503) AND NOT free",
    )
    .unwrap();
    assert_eq!(
        describe_where(&spec),
        "md5url = 'http://www.caac.gov.cn/E1/E2/' AND sdate BETWEEN 20161201 AND 20161209 AND code IN (404, 503) AND \
         free = false"
    );
    let salted = parse_schema("SALT 16 BUCKETS OF (a), a int64 desc, \"b c\" fixedString(4), d fixedBytes(2)").unwrap();
    assert_eq!(
        describe_schema(&salted),
        "salt 16 buckets of (a), a int64 DESC, \"b c\" fixedString(4), d fixedBytes(2)"
    );
}

/// Hand-written clauses with what the printer never writes (OR inside AND, nesting, `!=`, NOT,
/// bare bools, keywords in any case) against the oracle of the same conditions in DNF.
#[test]
fn parsed_queries_match_the_oracles_rows() {
    let mut rng = Rng::new(0x7e47_0003);
    let schema = SchemaDef {
        fields: vec![
            FieldDef {
                name: "a".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::INT32,
                width: 0,
                descending: false,
            },
            FieldDef {
                name: "b".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::BOOL,
                width: 0,
                descending: false,
            },
            FieldDef {
                name: "s".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::FIXED_STRING,
                width: 3,
                descending: true,
            },
            FieldDef {
                name: "h".into(),
                ty: hbase_rowkey::proto::rowkey::FieldType::MD5,
                width: 4,
                descending: false,
            },
        ],
        salt: None,
    };
    let compiled = Schema::from_spec(&schema.spec()).unwrap();
    let c = |field: usize, op: Op, values: Vec<V>| Cond { field, op, values };
    let cases: Vec<(&str, Vec<Vec<Cond>>)> = vec![
        ("TRUE", vec![vec![]]),
        ("b", vec![vec![c(1, Op::EQ, vec![V::Bool(true)])]]),
        (
            "not b and a != 1",
            vec![vec![c(1, Op::EQ, vec![V::Bool(false)]), c(0, Op::NE, vec![V::Int(1)])]],
        ),
        (
            "a >= 0 AND (s < 'ab' OR h IN ('a', 'Aa')) and b",
            vec![
                vec![
                    c(0, Op::GE, vec![V::Int(0)]),
                    c(2, Op::LT, vec![V::Str("ab".into())]),
                    c(1, Op::EQ, vec![V::Bool(true)]),
                ],
                vec![
                    c(0, Op::GE, vec![V::Int(0)]),
                    c(3, Op::IN, vec![V::Str("a".into()), V::Str("Aa".into())]),
                    c(1, Op::EQ, vec![V::Bool(true)]),
                ],
            ],
        ),
        (
            "((a between -2 and 2)) or (s = '' OR (a = 255 AND s <> 'b'))",
            vec![
                vec![c(0, Op::BETWEEN, vec![V::Int(-2), V::Int(2)])],
                vec![c(2, Op::EQ, vec![V::Str("".into())])],
                vec![c(0, Op::EQ, vec![V::Int(255)]), c(2, Op::NE, vec![V::Str("b".into())])],
            ],
        ),
        (
            "a IN () OR b = false",
            vec![vec![c(0, Op::IN, vec![])], vec![c(1, Op::EQ, vec![V::Bool(false)])]],
        ),
    ];
    let rows: Vec<Vec<V>> = (0..3000).map(|_| random_row(&mut rng, &schema)).collect();
    for (text, dnf) in cases {
        let spec = parse_where(&compiled, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut comparator_spec = predicate_spec(schema.spec(), vec![]);
        if let Some(Kind::Predicate(p)) = &mut comparator_spec.kind {
            *p = spec;
        }
        let comparator = Comparator::from_spec(&comparator_spec).unwrap();
        let mut matched = 0;
        for row in &rows {
            let key = compiled.encode(&schema.named(row)).unwrap();
            let expected = dnf.iter().any(|branch| oracle(&schema, row, branch));
            assert_eq!(comparator.compare(&key) == 0, expected, "{text} on {row:?}");
            matched += usize::from(expected);
        }
        assert!(matched > 0, "{text} matched no row");
    }
}

fn where_error(text: &str) -> String {
    let schema = Schema::from_spec(
        &parse_schema("h md5(8), n int32, s fixedString(4), y fixedBytes(2), b bool, t reversedTimestamp").unwrap(),
    )
    .unwrap();
    let e = parse_where(&schema, text).expect_err(text);
    assert_eq!(e.class(), ErrorClass::InvalidInput, "{e}");
    e.to_string()
}

fn schema_error(text: &str) -> String {
    let e = parse_schema(text).expect_err(text);
    assert_eq!(e.class(), ErrorClass::InvalidInput, "{e}");
    e.to_string()
}

#[test]
fn every_class_of_bad_text_gets_a_clear_error() {
    let cases: Vec<(String, &str)> = vec![
        // syntax: position, token, expectation
        (where_error("n = 1 AND"), "syntax error at character 10: expected a condition: a field name, NOT, TRUE or '(', found the end of the text"),
        (where_error("n = 1 n = 2"), "syntax error at character 7: expected AND, OR or the end of the text, found 'n'"),
        (where_error("n == 1"), "syntax error at character 4: expected a value: an integer, true, false, 'string' or x'hex bytes', found '='"),
        (where_error("n IN (1, 2"), "syntax error at character 11: expected ',' or ')' in the IN list, found the end of the text"),
        (where_error("n BETWEEN 1 OR 2"), "syntax error at character 13: expected AND between the two values of BETWEEN, found 'OR'"),
        (where_error("(n = 1"), "syntax error at character 7: expected ')', AND or OR, found the end of the text"),
        (where_error("s = 'abc"), "syntax error at character 5: expected a closing quote, found an unclosed string"),
        (where_error("y = x'0a1'"), "syntax error at character 5: expected an even number of hex digits in x'...', found x'0a1'"),
        (where_error("n = 99999999999999999999"), "syntax error at character 5: expected an integer within the 64-bit signed range, found '99999999999999999999'"),
        (where_error("n ~ 1"), "syntax error at character 3: expected a field name, a value, an operator or a parenthesis, found '~'"),
        (where_error("n 1"), "syntax error at character 3: expected an operator (= <> < <= > >= BETWEEN IN), found '1'"),
        (where_error("AND n = 1"), "syntax error at character 1: expected a condition: a field name, NOT, TRUE or '(', found 'AND'"),
        (where_error("é = 1"), "syntax error at character 1: expected a field name, a value, an operator or a parenthesis, found 'é'"),
        // meaning: each names where and what
        (where_error("n = 1 AND nope = 2"), "at character 11: unknown field 'nope'"),
        (where_error("n = 'one'"), "at character 1: field 'n': expected an integer for a int32 field, got"),
        (where_error("n = 4294967296"), "at character 1: field 'n': 4294967296 is out of range for int32"),
        (where_error("s = 'abcde'"), "at character 1: field 's': string of 5 UTF-8 bytes is longer than the field's width 4"),
        (where_error("y = x'0a'"), "at character 1: field 'y': expected exactly 2 bytes, got 1"),
        (where_error("n = 1 OR h > 'x'"), "at character 10: field 'h': > is a range condition, but a md5 field has no order"),
        (where_error("t = -1"), "at character 1: field 't': a reversed timestamp must be >= 0, got -1"),
        (where_error("NOT n"), "at character 1: field 'n': a int32 field needs an operator and a value"),
        (where_error("b < true"), "at character 1: field 'b': < is a range condition, but a bool field has no order"),
        // schemas
        (schema_error("a int32,"), "syntax error at character 9: expected a field name or 'salt', found the end of the text"),
        (schema_error("a int128"), "syntax error at character 3: expected a field type: int32, int64, timestamp"),
        (schema_error("a md5(17)"), "invalid schema: field 'a': width 17 of md5 field is outside 1..16"),
        (schema_error("a int32(4)"), "invalid schema: field 'a': a int32 field takes no width (got 4)"),
        (schema_error("a int32, a int64"), "invalid schema: field name 'a' is used twice"),
        (schema_error("salt 300 buckets, a int32"), "invalid schema: salt buckets must be within 1..256, got 300"),
        (schema_error("salt 2 buckets of (b), a int32"), "invalid schema: salt field 'b' is not a field of the schema"),
        (schema_error("salt 2 buckets, salt 3 buckets, a int32"), "syntax error at character 17: expected the salt once at most, found 'salt'"),
    ];
    for (message, expected) in cases {
        assert!(message.starts_with(expected), "got: {message}\nwant: {expected}");
    }
}

#[test]
fn text_and_expansion_limits_are_the_builders() {
    let schema = Schema::from_spec(&parse_schema("n int32, m int32").unwrap()).unwrap();
    let long = format!("n IN ({})", vec!["1"; limits::MAX_MESSAGE_BYTES / 3 + 1].join(", "));
    assert!(where_limit(&schema, &long).contains("text length in bytes"));
    let deep = format!("{}n = 1{}", "(".repeat(MAX_NESTING + 1), ")".repeat(MAX_NESTING + 1));
    assert!(where_limit(&schema, &deep).contains(&format!(
        "parenthesis nesting depth is {}, at most {MAX_NESTING}",
        MAX_NESTING + 1
    )));
    let fine = format!("{}n = 1{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
    assert!(parse_where(&schema, &fine).is_ok());
    // (a OR b) AND (c OR d) AND ... doubles the branches per term: refused past the OR limit.
    let product = ["(n = 1 OR m = 2)"; 7].join(" AND ");
    assert!(where_limit(&schema, &product).contains("number of OR branches is 128, at most 64"));
    let ors = vec!["n = 1"; limits::MAX_OR_BRANCHES + 1].join(" OR ");
    assert!(where_limit(&schema, &ors).contains("number of OR branches is 65, at most 64"));
    let ands = vec!["n = 1"; limits::MAX_CONDITIONS + 1].join(" AND ");
    assert!(where_limit(&schema, &ands).contains("number of conditions is 1025, at most 1024"));
    let values = format!("n IN ({})", vec!["1"; limits::MAX_IN_VALUES + 1].join(","));
    assert!(where_limit(&schema, &values).contains("number of condition values is 100001, at most 100000"));
    let spread = format!(
        "n IN ({}) AND (m = 1 OR m = 2)",
        vec!["1"; limits::MAX_IN_VALUES / 2 + 1].join(",")
    );
    assert!(where_limit(&schema, &spread).contains("number of condition values"));
    let fields = (0..=limits::MAX_FIELDS)
        .map(|i| format!("f{i} bool"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(parse_schema(&fields)
        .unwrap_err()
        .to_string()
        .contains("number of fields is 257, at most 256"));
}

fn where_limit(schema: &Schema, text: &str) -> String {
    let e = parse_where(schema, text).expect_err("over a limit");
    assert_eq!(e.class(), ErrorClass::InvalidInput);
    e.to_string()
}
