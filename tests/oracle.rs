//! Differential tests: every comparator against the brute-force value-space oracle of
//! tests/common, on random schemas, rows and predicates.

mod common;

use common::messages::predicate_kind;
use common::*;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, ComparatorSpec, EqualComparatorSpec, Op, RangeComparatorSpec,
};
use hbase_rowkey::{Comparator, Schema};

fn comparator(schema: &SchemaDef, kind: Kind) -> hbase_rowkey::Result<Comparator> {
    let mut spec = ComparatorSpec::new();
    spec.schema = protobuf::MessageField::some(schema.spec());
    spec.kind = Some(kind);
    let cmp = Comparator::from_spec(&spec)?;
    // Every comparator must survive its own round trip through bytes.
    let again = Comparator::from_bytes(cmp.canonical_bytes()).expect("canonical bytes parse");
    assert_eq!(again.canonical_bytes(), cmp.canonical_bytes());
    Ok(again)
}

fn predicate_comparator(schema: &SchemaDef, conds: &[Cond]) -> Comparator {
    let conditions = conds.iter().map(|c| c.to_proto(schema)).collect();
    comparator(schema, predicate_kind(conditions)).unwrap_or_else(|e| panic!("{e} for {conds:?}"))
}

#[test]
fn predicate_comparator_equals_the_oracle() {
    let mut rng = Rng::new(1);
    let mut matched = 0;
    let mut total = 0;
    for _ in 0..400 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        let rows: Vec<Vec<V>> = (0..60).map(|_| random_row(&mut rng, &schema)).collect();
        let keys: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| compiled.encode(&schema.named(r)).unwrap())
            .collect();
        for _ in 0..15 {
            let conds = random_predicate(&mut rng, &schema);
            let cmp = predicate_comparator(&schema, &conds);
            for (row, key) in rows.iter().zip(&keys) {
                let expected = oracle(&schema, row, &conds);
                assert_eq!(
                    cmp.compare(key) == 0,
                    expected,
                    "schema {schema:?}\nconds {conds:?}\nrow {row:?}"
                );
                assert!(cmp.compare(key) == 0 || cmp.compare(key) == 1);
                matched += usize::from(expected);
                total += 1;
            }
            // Wrong lengths never match.
            assert_eq!(cmp.compare(&keys[0][..keys[0].len() - 1]), 1);
            let mut longer = keys[0].clone();
            longer.push(0);
            assert_eq!(cmp.compare(&longer), 1);
            assert_eq!(cmp.compare(&[]), 1);
        }
    }
    // The generator must produce both outcomes in earnest, or the test proves nothing.
    assert!(
        matched > total / 20 && matched < total * 19 / 20,
        "{matched} of {total} matched"
    );
}

#[test]
fn compiled_program_equals_the_normalized_predicate_on_arbitrary_bytes() {
    // Random bytes are not all valid encodings, so compare the compiled program with the
    // normalized constraints evaluated field by field.
    let mut rng = Rng::new(2);
    for _ in 0..300 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        let rows: Vec<Vec<V>> = (0..8).map(|_| random_row(&mut rng, &schema)).collect();
        let keys: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| compiled.encode(&schema.named(r)).unwrap())
            .collect();
        for _ in 0..10 {
            let conds = random_predicate(&mut rng, &schema);
            let cmp = predicate_comparator(&schema, &conds);
            let predicate = cmp.predicate().unwrap();
            for _ in 0..40 {
                // Mutate a real key a little, so keys land near the predicate's values.
                let mut key = keys[rng.below(keys.len())].clone();
                for _ in 0..rng.below(3) {
                    let i = rng.below(key.len());
                    key[i] = rng.next() as u8;
                }
                assert_eq!(
                    cmp.compare(&key) == 0,
                    predicate.matches_key(cmp.schema(), &key),
                    "{conds:?} {key:?}"
                );
            }
        }
    }
}

#[test]
fn equal_comparator_equals_the_oracle() {
    let mut rng = Rng::new(3);
    for _ in 0..300 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        let rows: Vec<Vec<V>> = (0..40).map(|_| random_row(&mut rng, &schema)).collect();
        for _ in 0..10 {
            // Equalities on distinct fields, values taken from a real row half of the time.
            let source = rows[rng.below(rows.len())].clone();
            let mut conds = Vec::new();
            for (i, f) in schema.fields.iter().enumerate() {
                if rng.chance(40) {
                    let v = if rng.chance(50) {
                        source[i].clone()
                    } else {
                        random_value(&mut rng, f)
                    };
                    conds.push(Cond {
                        field: i,
                        op: Op::EQ,
                        values: vec![v],
                    });
                }
            }
            let mut spec = EqualComparatorSpec::new();
            spec.equalities = conds
                .iter()
                .map(|c| {
                    let mut n = hbase_rowkey::proto::rowkey::NamedValue::new();
                    n.field = schema.fields[c.field].name.clone();
                    n.value = protobuf::MessageField::some(c.values[0].to_proto());
                    n
                })
                .collect();
            let cmp = comparator(&schema, Kind::Equal(spec)).unwrap();
            for row in &rows {
                let key = compiled.encode(&schema.named(row)).unwrap();
                assert_eq!(
                    cmp.compare(&key) == 0,
                    oracle(&schema, row, &conds),
                    "{conds:?} {row:?}"
                );
            }
        }
    }
}

#[test]
fn range_comparator_equals_the_oracle_in_value_order() {
    let mut rng = Rng::new(4);
    let mut seen = [0usize; 3];
    for _ in 0..400 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        for (i, f) in schema.fields.iter().enumerate() {
            let mut spec = RangeComparatorSpec::new();
            spec.field = f.name.clone();
            let constant = random_value(&mut rng, f);
            spec.value = protobuf::MessageField::some(constant.to_proto());
            let result = comparator(&schema, Kind::Range(spec));
            if !f.is_ordered() {
                let err = result.expect_err("range on an unordered field").to_string();
                assert!(err.contains(&f.name) && err.contains("order"), "{err}");
                continue;
            }
            let cmp = result.unwrap();
            for _ in 0..20 {
                let row = random_row(&mut rng, &schema);
                let key = compiled.encode(&schema.named(&row)).unwrap();
                let expected = value_cmp(f, &constant, &row[i]) as i32;
                assert_eq!(cmp.compare(&key), expected, "{f:?} {constant:?} {:?}", row[i]);
                seen[(expected + 1) as usize] += 1;
                assert_eq!(cmp.compare(&key[1..]), 1, "a short row sorts below every value");
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
}

#[test]
fn encode_then_decode_gives_the_values_back() {
    let mut rng = Rng::new(5);
    for _ in 0..500 {
        let schema = random_schema(&mut rng);
        let compiled = Schema::from_spec(&schema.spec()).unwrap();
        assert_eq!(
            Schema::from_bytes(&compiled.canonical_bytes())
                .unwrap()
                .canonical_bytes(),
            compiled.canonical_bytes()
        );
        let row = random_row(&mut rng, &schema);
        let key = compiled.encode(&schema.named(&row)).unwrap();
        assert_eq!(key.len(), compiled.key_length());
        let decoded = compiled.decode(&key).unwrap();
        for ((f, v), named) in schema.fields.iter().zip(&row).zip(&decoded) {
            assert_eq!(named.field, f.name);
            if !matches!(
                f.ty,
                hbase_rowkey::proto::rowkey::FieldType::MD5 | hbase_rowkey::proto::rowkey::FieldType::JAVA_HASH
            ) {
                assert_eq!(named.value.get_or_default(), &v.to_proto(), "{f:?}");
            }
        }
        // Hashed fields decode to digests, which encode back unchanged: keys round-trip.
        assert_eq!(compiled.encode(&decoded).unwrap(), key, "{schema:?}");
        if let Some((buckets, _)) = &schema.salt {
            assert!(u32::from(key[0]) < *buckets);
        }
    }
}
