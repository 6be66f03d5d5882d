//! Index keys (src/index.rs) against their definition, on random schemas (every type, descending
//! fields, bools sharing bytes, salted data keys) and random index definitions: an index key maps
//! back to its data key, holds the same field values, and for equal index fields sorts like the
//! data keys; every bad definition is refused by name.

mod common;

use common::*;
use hbase_rowkey::index::{Catalog, DATA_SALT_FIELD};
use hbase_rowkey::proto::rowkey::{Column, IndexSpec, IndexState, SchemaSpec, TableCatalog};
use hbase_rowkey::Error;

fn catalog_spec(schema: SchemaSpec, indexes: Vec<IndexSpec>) -> TableCatalog {
    let mut catalog = TableCatalog::new();
    catalog.schema = protobuf::MessageField::some(schema);
    catalog.indexes = indexes;
    catalog
}

fn index_spec(name: &str, fields: &[&str], salt_buckets: u32) -> IndexSpec {
    let mut index = IndexSpec::new();
    index.name = name.into();
    index.fields = fields.iter().map(|f| f.to_string()).collect();
    index.salt_buckets = salt_buckets;
    index.state = IndexState::ACTIVE.into();
    index
}

/// A random index of `schema`: 1..=3 of its fields in random order, not the data key's own
/// leading order; `None` when the schema has no such index (one field).
fn random_index(rng: &mut Rng, schema: &SchemaDef) -> Option<IndexSpec> {
    let n = schema.fields.len();
    for _ in 0..20 {
        let mut picked: Vec<usize> = Vec::new();
        for _ in 0..1 + rng.below(3.min(n)) {
            let f = rng.below(n);
            if !picked.contains(&f) {
                picked.push(f);
            }
        }
        if picked.iter().enumerate().all(|(p, &f)| p == f) {
            continue;
        }
        let names: Vec<&str> = picked.iter().map(|&f| schema.fields[f].name.as_str()).collect();
        let salt = if rng.chance(40) { *rng.pick(&[1u32, 7, 256]) } else { 0 };
        return Some(index_spec("ix", &names, salt));
    }
    None
}

#[test]
fn index_keys_map_back_hold_the_values_and_sort_like_data_keys_within_a_prefix() {
    let mut rng = Rng::new(0x1d_e7);
    let mut checked = 0;
    for case in 0..400 {
        let def = random_schema(&mut rng);
        let Some(index_def) = random_index(&mut rng, &def) else {
            continue;
        };
        let catalog = Catalog::from_spec(&catalog_spec(def.spec(), vec![index_def.clone()]))
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        let data = catalog.schema();
        let index = &catalog.indexes()[0];
        // Rows sharing their index fields' values: half the rows copy them from one base row.
        let base = random_row(&mut rng, &def);
        let index_positions: Vec<usize> = index_def
            .fields
            .iter()
            .map(|f| def.fields.iter().position(|d| &d.name == f).unwrap())
            .collect();
        let mut rows: Vec<Vec<u8>> = Vec::new();
        for r in 0..24 {
            let mut row = random_row(&mut rng, &def);
            if r % 2 == 0 {
                for &p in &index_positions {
                    row[p] = base[p].clone();
                }
            }
            let key = data.encode(&def.named(&row)).unwrap();
            let index_key = index.index_key(data, &key).unwrap();
            assert_eq!(
                index.data_key(data, &index_key).unwrap(),
                key,
                "case {case}: round trip"
            );
            // The index schema decodes the same values for every data field.
            let mut from_index = index.schema().decode(&index_key).unwrap();
            from_index.retain(|v| v.field != DATA_SALT_FIELD);
            from_index.sort_by(|a, b| a.field.cmp(&b.field));
            let mut from_data = data.decode(&key).unwrap();
            from_data.sort_by(|a, b| a.field.cmp(&b.field));
            assert_eq!(from_index, from_data, "case {case}: values");
            if r % 2 == 0 {
                rows.push(key);
            }
        }
        // Within one index prefix, index order is data order (bytes after the index salt byte).
        let skip = usize::from(index_def.salt_buckets > 0);
        let mut by_data = rows.clone();
        by_data.sort();
        let mut by_index = rows.clone();
        by_index.sort_by_key(|k| index.index_key(data, k).unwrap()[skip..].to_vec());
        assert_eq!(by_data, by_index, "case {case}: order within an index prefix");
        checked += 1;
    }
    assert!(checked > 250, "only {checked} cases had an index");
}

fn int_field(name: &str) -> FieldDef {
    FieldDef {
        name: name.into(),
        ty: hbase_rowkey::proto::rowkey::FieldType::INT32,
        width: 0,
        descending: false,
    }
}

#[test]
fn index_keys_of_foreign_or_corrupt_rows_are_errors() {
    let def = SchemaDef {
        fields: vec![int_field("a"), int_field("b")],
        salt: Some((16, vec![])),
    };
    let catalog = Catalog::from_spec(&catalog_spec(def.spec(), vec![index_spec("by_b", &["b"], 8)])).unwrap();
    let (data, index) = (catalog.schema(), &catalog.indexes()[0]);
    let data_key = data.encode(&def.named(&[V::Int(5), V::Int(-3)])).unwrap();
    let index_key = index.index_key(data, &data_key).unwrap();
    // Byte 0: the index salt; byte 5: the data salt (after the index salt and b).
    for at in [0usize, 5] {
        let mut corrupt = index_key.clone();
        corrupt[at] ^= 0x01;
        let err = index.data_key(data, &corrupt).unwrap_err().to_string();
        assert!(err.contains("salt byte does not match"), "byte {at}: {err}");
    }
    assert!(matches!(
        index.index_key(data, &data_key[1..]),
        Err(Error::WrongKeyLength { .. })
    ));
    assert!(matches!(
        index.data_key(data, &index_key[1..]),
        Err(Error::WrongKeyLength { .. })
    ));
}

#[test]
fn bad_index_definitions_are_refused_by_name() {
    let schema = || {
        let mut def = SchemaDef {
            fields: vec![int_field("a"), int_field("b"), int_field("c")],
            salt: None,
        };
        def.fields[2].ty = hbase_rowkey::proto::rowkey::FieldType::BOOL;
        def.spec()
    };
    let refused = |indexes: Vec<IndexSpec>, schema: SchemaSpec| -> String {
        Catalog::from_spec(&catalog_spec(schema, indexes))
            .map(|_| "accepted".to_string())
            .unwrap_or_else(|e| e.to_string())
    };
    let cases: Vec<(Vec<IndexSpec>, &str)> = vec![
        (
            vec![index_spec("ix", &["nope"], 0)],
            "invalid index 'ix': unknown field 'nope' (fields: a, b, c)",
        ),
        (vec![index_spec("ix", &["b", "b"], 0)], "field 'b' is named twice"),
        (vec![index_spec("ix", &[], 0)], "invalid index 'ix': it has no field"),
        (vec![index_spec("ix", &["a"], 0)], "lead the data key in the same order"),
        (
            vec![index_spec("ix", &["a", "b", "c"], 0)],
            "lead the data key in the same order",
        ),
        (vec![index_spec("", &["b"], 0)], "an index has an empty name"),
        (vec![index_spec("by-b", &["b"], 0)], "only letters, digits and '_'"),
        (
            vec![index_spec("ix", &["b"], 0), index_spec("ix", &["c"], 0)],
            "invalid index 'ix': an index of this name is declared twice",
        ),
        (
            vec![index_spec("ix", &["b"], 257)],
            "salt buckets must be within 1..256, got 257",
        ),
        (
            vec![{
                let mut i = index_spec("ix", &["b"], 0);
                i.state = IndexState::INDEX_STATE_UNSPECIFIED.into();
                i
            }],
            "its state is not BUILDING or ACTIVE",
        ),
        (
            vec![{
                let mut i = index_spec("ix", &["b"], 0);
                let mut column = Column::new();
                column.qualifier = b"q".to_vec();
                i.include.push(column);
                i
            }],
            "a covered column has an empty family",
        ),
    ];
    for (indexes, expected) in cases {
        let got = refused(indexes, schema());
        assert!(got.contains(expected), "expected '{expected}', got '{got}'");
    }
    // The reserved field name, only where the data key is salted.
    let mut salted = schema();
    salted.fields[1].name = DATA_SALT_FIELD.into();
    assert_eq!(refused(vec![index_spec("ix", &["c"], 0)], salted.clone()), "accepted");
    salted.salt = protobuf::MessageField::some(Default::default());
    salted.salt.as_mut().unwrap().buckets = 4;
    assert!(refused(vec![index_spec("ix", &["c"], 0)], salted).contains("is reserved"));
    // Index fields in another order than the key's are an index.
    assert_eq!(refused(vec![index_spec("ix", &["b", "a"], 0)], schema()), "accepted");
    // A catalog with no schema.
    let err = Catalog::from_spec(&TableCatalog::new()).unwrap_err().to_string();
    assert!(err.contains("the schema is missing"), "{err}");
}
