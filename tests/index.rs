//! Index keys (src/index.rs) against their definition, on random schemas (every type, descending
//! fields, bools sharing bytes, salted data keys) and random index definitions: an index key maps
//! back to its data key, holds the same field values, and for equal index fields sorts like the
//! data keys; every bad definition is refused by name.

mod common;

use common::*;
use hbase_rowkey::key::{Catalog, Predicate, DATA_SALT_FIELD};
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
        let (mut batch_index_keys, mut batch_data_keys) = (Vec::new(), Vec::new());
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
            batch_index_keys.extend_from_slice(&index_key);
            batch_data_keys.extend_from_slice(&key);
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
        // A batch maps as its keys one by one; a batch whose length is not its count's is refused.
        assert_eq!(
            index.data_keys(data, &batch_index_keys, 24).unwrap(),
            batch_data_keys,
            "case {case}: batch"
        );
        // Any run of it too (lengths that are not whole lanes of the salts' lockstep hashing), and
        // a run with bytes changed at random fails with the error of its first key refused alone.
        let (width, length) = (index.schema().key_length(), data.key_length());
        for _ in 0..6 {
            let from = rng.below(24);
            let count = rng.below(25 - from);
            let mut run = batch_index_keys[from * width..(from + count) * width].to_vec();
            assert_eq!(
                index.data_keys(data, &run, count).unwrap(),
                batch_data_keys[from * length..(from + count) * length],
                "case {case}: keys {from}..{}",
                from + count
            );
            if count == 0 {
                continue;
            }
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(run.len());
                run[at] ^= 1 << rng.below(8);
            }
            let first_refused = run
                .chunks_exact(width)
                .find_map(|key| index.data_key(data, key).err())
                .map(|e| e.to_string());
            assert_eq!(
                index.data_keys(data, &run, count).err().map(|e| e.to_string()),
                first_refused,
                "case {case}: keys {from}..{} changed",
                from + count
            );
        }
        for (bytes, count) in [
            (&batch_index_keys[1..], 24),
            (&batch_index_keys[..], 23),
            (&batch_index_keys[..], 25),
        ] {
            assert!(
                matches!(index.data_keys(data, bytes, count), Err(Error::Corrupt { .. })),
                "case {case}: {} bytes for {count} keys",
                bytes.len()
            );
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
    // A data key whose salt byte is not its fields' (a row written by hand) has no index key.
    let mut mis_salted = data_key.clone();
    mis_salted[0] ^= 0x01;
    let err = index.index_key(data, &mis_salted).unwrap_err().to_string();
    assert!(err.contains("not a key of the schema"), "{err}");
    assert!(matches!(
        index.index_key(data, &data_key[1..]),
        Err(Error::WrongKeyLength { .. })
    ));
    assert!(matches!(
        index.data_key(data, &index_key[1..]),
        Err(Error::WrongKeyLength { .. })
    ));
    // In a batch, a corrupt key fails the whole batch with its own error.
    let mut batch = index_key.clone();
    batch.extend_from_slice(&index_key);
    batch[index_key.len()] ^= 0x01;
    let err = index.data_keys(data, &batch, 2).unwrap_err().to_string();
    assert!(err.contains("salt byte does not match"), "{err}");
    assert_eq!(index.data_keys(data, &[], 0).unwrap(), Vec::<u8>::new());
}

/// The one rule for a row of an index table: an index key is the index's (`data_key` accepts it)
/// exactly when the data row its values make has the data salt byte it stores, and that row's
/// index key has its index salt byte. Checked on valid keys with one byte changed at random.
#[test]
fn an_index_key_is_accepted_exactly_when_its_values_give_its_salt_bytes() {
    let mut rng = Rng::new(0x5a17);
    let (mut accepted, mut refused) = (0, 0);
    for case in 0..600 {
        let mut def = random_schema(&mut rng);
        if def.salt.is_none() && rng.chance(50) {
            def.salt = Some((*rng.pick(&[2u32, 16, 256]), vec![]));
        }
        let Some(mut index_def) = random_index(&mut rng, &def) else {
            continue;
        };
        if index_def.salt_buckets == 0 && rng.chance(50) {
            index_def.salt_buckets = *rng.pick(&[3u32, 16, 256]);
        }
        let Ok(catalog) = Catalog::from_spec(&catalog_spec(def.spec(), vec![index_def])) else {
            continue;
        };
        let (data, index) = (catalog.schema(), &catalog.indexes()[0]);
        let key = data.encode(&def.named(&random_row(&mut rng, &def))).unwrap();
        let mut index_key = index.index_key(data, &key).unwrap();
        let at = rng.below(index_key.len());
        index_key[at] ^= 1 + rng.below(255) as u8;
        // The definition: the values the key holds, made a data row, and that row's index key.
        let Ok(mut values) = index.schema().decode(&index_key) else {
            continue; // bytes no value encodes to: nothing to compare
        };
        let stored_data_salt = values
            .iter()
            .position(|v| v.field == DATA_SALT_FIELD)
            .map(|p| values.remove(p));
        let Ok(row) = data.encode(&values) else {
            continue;
        };
        let data_salt_kept = match &stored_data_salt {
            None => true,
            Some(v) => v.value.bytes_value().first() == row.first(),
        };
        let index_salt_kept =
            index.schema().salt().is_none() || index.index_key(data, &row).unwrap()[0] == index_key[0];
        let expected = data_salt_kept && index_salt_kept;
        let got = index.data_key(data, &index_key);
        assert_eq!(got.is_ok(), expected, "case {case}: byte {at} changed: {got:?}");
        if expected {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        accepted > 100 && refused > 100,
        "accepted {accepted}, refused {refused}"
    );
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
            "its state is not BUILDING, ACTIVE or DROPPING",
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
        (
            vec![{
                let mut i = index_spec("ix", &["b"], 0);
                i.include_families.push(Vec::new());
                i
            }],
            "a covered family is empty",
        ),
        (
            vec![{
                let mut i = index_spec("ix", &["b"], 0);
                i.include_families.push(b"f".to_vec());
                i.include_families.push(b"f".to_vec());
                i
            }],
            "a covered family is named twice",
        ),
        (
            vec![{
                let mut i = index_spec("ix", &["b"], 0);
                i.include_families.push(b"f".to_vec());
                let mut column = Column::new();
                column.family = b"f".to_vec();
                column.qualifier = b"q".to_vec();
                i.include.push(column);
                i
            }],
            "a column of a wholly covered family is named on its own too",
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

// ------------------------------------------------------------------ planning over indexes

use hbase_rowkey::plan_wire::plan_table;
use hbase_rowkey::proto::rowkey::{IndexHint, PredicateSpec, TablePlan, TablePlanRequest};
use hbase_rowkey::Comparator;

fn request(catalog: &TableCatalog, conditions: Vec<hbase_rowkey::proto::rowkey::Condition>) -> TablePlanRequest {
    let mut r = TablePlanRequest::new();
    r.catalog = protobuf::MessageField::some(catalog.clone());
    let mut p = PredicateSpec::new();
    p.conditions = conditions;
    r.predicate = protobuf::MessageField::some(p);
    r
}

/// Whether a key lies in a plan's ranges and passes its residual.
fn plan_keeps(plan: &TablePlan, key: &[u8]) -> bool {
    let in_ranges = plan
        .plan
        .ranges
        .iter()
        .any(|r| key >= r.start.as_slice() && (r.stop.is_empty() || key < r.stop.as_slice()));
    // A plan without a residual is read with no filter at all.
    in_ranges
        && (plan.plan.no_residual
            || Comparator::from_spec(plan.plan.residual.get_or_default())
                .unwrap()
                .compare(key)
                == 0)
}

/// Seed 000's table with the index on (sdate, code), and one still BUILDING on type.
fn seed_catalog() -> TableCatalog {
    let fields: Vec<FieldDef> = [
        ("md5url", hbase_rowkey::proto::rowkey::FieldType::MD5, 8),
        ("sitecode", hbase_rowkey::proto::rowkey::FieldType::JAVA_HASH, 0),
        ("status", hbase_rowkey::proto::rowkey::FieldType::INT32, 0),
        ("code", hbase_rowkey::proto::rowkey::FieldType::INT32, 0),
        ("sdate", hbase_rowkey::proto::rowkey::FieldType::INT32, 0),
        ("type", hbase_rowkey::proto::rowkey::FieldType::INT32, 0),
        ("free", hbase_rowkey::proto::rowkey::FieldType::BOOL, 0),
    ]
    .iter()
    .map(|&(name, ty, width)| FieldDef {
        name: name.into(),
        ty,
        width,
        descending: false,
    })
    .collect();
    let mut building = index_spec("by_type", &["type"], 0);
    building.state = IndexState::BUILDING.into();
    let mut covered = index_spec("by_date_code", &["sdate", "code"], 4);
    covered.include.push({
        let mut c = Column::new();
        c.family = b"f".to_vec();
        c.qualifier = b"q".to_vec();
        c
    });
    catalog_spec(SchemaDef { fields, salt: None }.spec(), vec![covered, building])
}

fn int_condition(
    field: &str,
    op: hbase_rowkey::proto::rowkey::Op,
    values: &[i64],
) -> hbase_rowkey::proto::rowkey::Condition {
    Cond {
        field: 0,
        op,
        values: values.iter().map(|&v| V::Int(v)).collect(),
    }
    .to_proto(&SchemaDef {
        fields: vec![int_field(field)],
        salt: None,
    })
}

#[test]
fn the_planner_reads_through_the_index_that_fixes_the_query_and_obeys_hints() {
    use hbase_rowkey::proto::rowkey::Op;
    let catalog_spec = seed_catalog();
    let catalog = Catalog::from_spec(&catalog_spec).unwrap();
    let seed2 = || {
        vec![
            int_condition("sdate", Op::EQ, &[20161209]),
            int_condition("code", Op::EQ, &[404]),
        ]
    };

    let plan = plan_table(&catalog, &request(&catalog_spec, seed2())).unwrap();
    assert_eq!(plan.index, "by_date_code", "{}", plan.explain);
    assert!(!plan.covered);
    assert_eq!(
        plan.plan.ranges.len(),
        4,
        "one range per index salt bucket: {}",
        plan.explain
    );
    assert!(plan.explain.starts_with("INDEX by_date_code"), "{}", plan.explain);
    assert!(
        plan.explain.contains("by_type") && plan.explain.contains("BUILDING"),
        "{}",
        plan.explain
    );
    let by_name = |name: &str| {
        plan.alternatives
            .iter()
            .find(|a| a.index == name)
            .unwrap()
            .estimated_rows
    };
    assert!(by_name("by_date_code") * 50.0 < by_name(""), "{}", plan.explain);

    // Covered when the query's columns are all included, or it wants keys only.
    let mut covered = request(&catalog_spec, seed2());
    covered.columns.push(catalog_spec.indexes[0].include[0].clone());
    assert!(plan_table(&catalog, &covered).unwrap().covered);
    let mut key_only = request(&catalog_spec, seed2());
    key_only.key_only = true;
    assert!(plan_table(&catalog, &key_only).unwrap().covered);
    // Every column (no column named) is not covered by one column, nor when the families are unknown.
    assert!(!plan_table(&catalog, &request(&catalog_spec, seed2())).unwrap().covered);

    // A wholly covered family covers its every column, and every column of a table of only it.
    let mut whole = catalog_spec.clone();
    whole.indexes[0].include.clear();
    whole.indexes[0].include_families.push(b"f".to_vec());
    let whole_catalog = Catalog::from_spec(&whole).unwrap();
    let mut any_column = request(&whole, seed2());
    any_column.columns.push({
        let mut c = Column::new();
        c.family = b"f".to_vec();
        c.qualifier = b"any".to_vec();
        c
    });
    assert!(plan_table(&whole_catalog, &any_column).unwrap().covered);
    let mut other_family = any_column.clone();
    other_family.columns[0].family = b"g".to_vec();
    assert!(!plan_table(&whole_catalog, &other_family).unwrap().covered);
    let mut select_all = request(&whole, seed2());
    select_all.families.push(b"f".to_vec());
    let plan_all = plan_table(&whole_catalog, &select_all).unwrap();
    assert!(
        plan_all.covered && plan_all.explain.contains("covered"),
        "{}",
        plan_all.explain
    );
    select_all.families.push(b"g".to_vec());
    assert!(!plan_table(&whole_catalog, &select_all).unwrap().covered);

    // The leading data field fixed, the index's not: the data table.
    let mut md5 = request(&catalog_spec, vec![int_condition("code", Op::EQ, &[404])]);
    let mut c = hbase_rowkey::proto::rowkey::Condition::new();
    c.field = "md5url".into();
    c.op = Op::EQ.into();
    c.values.push(V::Str("http://a".into()).to_proto());
    md5.predicate.mut_or_insert_default().conditions.push(c);
    assert_eq!(plan_table(&catalog, &md5).unwrap().index, "");

    // A BUILDING index is never chosen, even when it is the only one that fixes the query.
    let by_type = plan_table(
        &catalog,
        &request(&catalog_spec, vec![int_condition("type", Op::EQ, &[2])]),
    )
    .unwrap();
    assert_eq!(by_type.index, "", "{}", by_type.explain);

    // Hints.
    let mut no_index = request(&catalog_spec, seed2());
    no_index.hint = IndexHint::NO_INDEX.into();
    assert_eq!(plan_table(&catalog, &no_index).unwrap().index, "");
    let mut forced = request(&catalog_spec, vec![int_condition("type", Op::EQ, &[2])]);
    forced.hint = IndexHint::USE_INDEX.into();
    forced.hint_index = "by_date_code".into();
    assert_eq!(plan_table(&catalog, &forced).unwrap().index, "by_date_code");
    for (name, expected) in [
        ("nope", "the table has no index of this name"),
        ("by_type", "it is still BUILDING"),
    ] {
        forced.hint_index = name.into();
        let err = plan_table(&catalog, &forced).unwrap_err().to_string();
        assert!(err.contains(expected), "{err}");
    }
}

/// The client plans over its parsed catalog handle: a query of one branch gets the same plan as a
/// table plan request carrying the catalog.
#[test]
fn a_plan_over_a_catalog_handle_equals_the_request_plan() {
    use hbase_rowkey::plan_wire::plan_query_request_on;
    use hbase_rowkey::proto::rowkey::{planned_query::Read, Op, PlannedQuery, QueryPlanRequest};
    use protobuf::Message;
    let catalog_spec = seed_catalog();
    let catalog = Catalog::from_spec(&catalog_spec).unwrap();
    let with = request(
        &catalog_spec,
        vec![
            int_condition("sdate", Op::EQ, &[20161209]),
            int_condition("code", Op::EQ, &[404]),
        ],
    );
    let mut query = QueryPlanRequest::new();
    query.branches.push(with.predicate.clone().unwrap());
    query.max_ranges = with.max_ranges;
    let bytes = plan_query_request_on(&catalog, &query.write_to_bytes().unwrap()).unwrap();
    assert_eq!(
        PlannedQuery::parse_from_bytes(&bytes).unwrap().read,
        Some(Read::Single(plan_table(&catalog, &with).unwrap()))
    );
}

#[test]
fn index_scans_skip_where_the_index_ranges_leave_conditions() {
    use hbase_rowkey::proto::rowkey::Op;
    let catalog_spec = seed_catalog();
    let catalog = Catalog::from_spec(&catalog_spec).unwrap();
    // code alone on by_date_code: every bucket and date vary before code.
    let mut forced = request(&catalog_spec, vec![int_condition("code", Op::EQ, &[404])]);
    forced.hint = IndexHint::USE_INDEX.into();
    forced.hint_index = "by_date_code".into();
    let plan = plan_table(&catalog, &forced).unwrap();
    assert_eq!(plan.index, "by_date_code");
    assert!(plan.plan.skip_scan, "{}", plan.explain);
    assert!(
        plan.explain
            .contains("SKIP SCAN: 5 bytes (the salt byte, sdate) vary before 'code'"),
        "{}",
        plan.explain
    );
    // sdate and code fixed: the index ranges enforce everything, nothing to skip.
    let both = plan_table(
        &catalog,
        &request(
            &catalog_spec,
            vec![
                int_condition("sdate", Op::EQ, &[20161209]),
                int_condition("code", Op::EQ, &[404]),
            ],
        ),
    )
    .unwrap();
    assert_eq!(both.index, "by_date_code");
    assert!(!both.plan.skip_scan, "{}", both.explain);
    assert!(both.explain.contains("no skip scan"), "{}", both.explain);
    // ...and an index table holds only its own keys: no filter, not even the key-length check.
    assert!(both.plan.no_residual, "{}", both.explain);
    assert!(both.explain.contains("filtered per row: nothing"), "{}", both.explain);
    assert!(!plan.plan.no_residual, "the skip scan filters: {}", plan.explain);
    let mut on_data = request(
        &catalog_spec,
        vec![
            int_condition("sdate", Op::EQ, &[20161209]),
            int_condition("code", Op::EQ, &[404]),
        ],
    );
    on_data.hint = IndexHint::NO_INDEX.into();
    let on_data = plan_table(&catalog, &on_data).unwrap();
    assert!(
        !on_data.plan.no_residual && on_data.explain.contains("key length = "),
        "a data table may hold rows of other lengths: {}",
        on_data.explain
    );
}

/// For random schemas, indexes and predicates, whichever source each hint picks, its ranges and
/// residual keep exactly the rows the predicate matches (checked on each row's key in that source).
#[test]
fn every_source_finds_exactly_the_matching_rows() {
    let mut rng = Rng::new(0x7ab1e);
    let mut checked = 0;
    for case in 0..300 {
        let def = random_schema(&mut rng);
        let Some(index_def) = random_index(&mut rng, &def) else {
            continue;
        };
        let spec = catalog_spec(def.spec(), vec![index_def]);
        let catalog = Catalog::from_spec(&spec).unwrap();
        let conds = random_predicate(&mut rng, &def);
        let conditions: Vec<_> = conds.iter().map(|c| c.to_proto(&def)).collect();
        if Predicate::from_conditions(catalog.schema(), &conditions).is_err() {
            continue; // a condition the schema refuses (a range on a hashed field): refused alike everywhere
        }
        let rows: Vec<Vec<V>> = (0..60).map(|_| random_row(&mut rng, &def)).collect();
        for hint in [
            IndexHint::NO_INDEX,
            IndexHint::USE_INDEX,
            IndexHint::INDEX_HINT_AUTOMATIC,
        ] {
            let mut r = request(&spec, conditions.clone());
            r.hint = hint.into();
            r.hint_index = "ix".into();
            let plan = plan_table(&catalog, &r).unwrap_or_else(|e| panic!("case {case}: {e}"));
            for row in &rows {
                let data_key = catalog.schema().encode(&def.named(row)).unwrap();
                let key = if plan.index.is_empty() {
                    data_key.clone()
                } else {
                    catalog.indexes()[0].index_key(catalog.schema(), &data_key).unwrap()
                };
                assert_eq!(
                    plan_keeps(&plan, &key),
                    oracle(&def, row, &conds),
                    "case {case}, hint {hint:?}, source '{}': {}",
                    plan.index,
                    plan.explain
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 150, "only {checked} cases");
}

/// A join branch's streams over the catalog handle (`stream_choice`): the data table's `=`/`IN`
/// prefix and each ACTIVE index on fixed fields, one exact prefix range set per value combination,
/// in lead order with the branch's cost; hints limit the sources; a source of more combinations
/// than the cap is no stream; a branch with none reads the data table's plan.
#[test]
fn a_join_branch_plans_its_streams_in_one_call_and_obeys_hints_and_the_point_cap() {
    use common::messages::{condition, string};
    use hbase_rowkey::plan::{branch_cost, is_prefix_range, MAX_POINTS};
    use hbase_rowkey::plan_wire::{plan_join, plan_join_branch};
    use hbase_rowkey::proto::rowkey::{JoinPlanRequest, Op};
    let catalog = Catalog::from_spec(&seed_catalog()).unwrap();
    let branch = |conditions: Vec<hbase_rowkey::proto::rowkey::Condition>, hint: IndexHint, index: &str| {
        plan_join_branch(&catalog, &conditions, 0, hint, index, false).unwrap()
    };
    let urls = |n: usize| condition("md5url", Op::IN, (0..n).map(|i| string(&format!("u{i}"))).collect());
    let both = || {
        vec![
            urls(2),
            int_condition("sdate", Op::EQ, &[20161209]),
            int_condition("code", Op::IN, &[404, 503]),
        ]
    };

    let plan = branch(both(), IndexHint::INDEX_HINT_AUTOMATIC, "");
    assert_eq!(plan.streams.len(), 2, "{plan:?}");
    assert!(plan.relay, "two streams are relayed");
    let leapfrog = plan_join_branch(&catalog, &both(), 0, IndexHint::INDEX_HINT_AUTOMATIC, "", true).unwrap();
    assert_eq!(
        (leapfrog.streams.len(), leapfrog.relay),
        (2, false),
        "the leapfrog hint intersects them"
    );
    let sources: Vec<&str> = plan.streams.iter().map(|s| s.index.as_str()).collect();
    assert!(
        sources.contains(&"") && sources.contains(&"by_date_code"),
        "{sources:?}"
    );
    for stream in &plan.streams {
        assert_eq!(stream.points.len(), 2, "two values of one field each: {stream:?}");
        for point in &stream.points {
            assert!(point.equalities.iter().all(|c| c.values.len() == 1));
            assert!(!point.ranges.is_empty());
            assert!(point.ranges.iter().all(|r| is_prefix_range(&r.start, &r.stop)));
        }
    }
    let estimates: Vec<f64> = plan.streams.iter().map(|s| s.estimated_rows).collect();
    assert!(estimates.windows(2).all(|w| w[0] <= w[1]), "lead order: {estimates:?}");
    assert_eq!(plan.cost, branch_cost(&estimates));
    assert!(plan.data_plan.is_none());

    // The same as the one branch of a join plan over the wire, and a corrupt request refused.
    let mut r = JoinPlanRequest::new();
    r.branches.push(Default::default());
    r.branches[0].conditions = both();
    let join = plan_join(&catalog, &r).unwrap();
    assert_eq!(
        (join.branches.as_slice(), join.data_scan_branches.len()),
        (&[plan.clone()][..], 0)
    );
    assert!(
        join.explain.contains("relay") && join.explain.contains("turn 2"),
        "{}",
        join.explain
    );
    r.no_explain = true;
    assert_eq!(plan_join(&catalog, &r).unwrap().explain, "");

    // Branches with no stream: one data-table scan, their union's plan.
    let mut union = JoinPlanRequest::new();
    for sdate in [20161209, 20161211] {
        let mut branch = hbase_rowkey::proto::rowkey::PredicateSpec::new();
        branch.conditions = vec![int_condition("sdate", Op::GE, &[sdate])];
        union.branches.push(branch);
    }
    let union = plan_join(&catalog, &union).unwrap();
    assert_eq!(union.data_scan_branches, vec![0, 1]);
    assert!(
        union.data_scan.explain.starts_with("UNION of 2 AND-branches"),
        "{}",
        union.data_scan.explain
    );
    assert!(
        union.explain.contains("one DATA TABLE scan for branches 1 2"),
        "{}",
        union.explain
    );

    // Hints: the data table alone, the index alone.
    let data_only = branch(both(), IndexHint::NO_INDEX, "");
    assert_eq!((data_only.streams.len(), data_only.streams[0].index.as_str()), (1, ""));
    let index_only = branch(both(), IndexHint::USE_INDEX, "by_date_code");
    assert_eq!(
        (index_only.streams.len(), index_only.streams[0].index.as_str()),
        (1, "by_date_code")
    );

    // A repeated value is one point: its keys are read once, and the points stay disjoint.
    let repeated = branch(
        vec![condition(
            "md5url",
            Op::IN,
            vec![string("u1"), string("u0"), string("u1")],
        )],
        IndexHint::NO_INDEX,
        "",
    );
    assert_eq!(repeated.streams[0].points.len(), 2, "{repeated:?}");

    // Over the cap of value combinations: no stream.
    let many = branch(vec![urls(MAX_POINTS + 1)], IndexHint::INDEX_HINT_AUTOMATIC, "");
    assert_eq!((many.streams.len(), many.left_out.len()), (0, 0));
    assert!(many.data_plan.is_some());

    // No fixed leading field and only a BUILDING index on type: the data table's plan, its cost.
    let none = branch(
        vec![int_condition("type", Op::EQ, &[1])],
        IndexHint::INDEX_HINT_AUTOMATIC,
        "",
    );
    assert_eq!((none.streams.len(), none.left_out.len()), (0, 0));
    assert!(!none.data_plan.ranges.is_empty() && none.cost > 0.0, "{none:?}");
}

/// A table plan asked for its relay carries the query's key streams when it reads an uncovered
/// index that is one of two or more streams (the same streams a join branch plans), and nothing
/// when the index is the only stream, when the data table or a hint is chosen, or when not asked.
#[test]
fn a_table_plan_carries_the_relay_of_its_streams_when_an_uncovered_index_is_one_of_them() {
    use hbase_rowkey::plan_wire::{plan_join_branch, plan_table};
    use hbase_rowkey::proto::rowkey::{Condition, Op, TablePlanRequest};
    let mut spec = seed_catalog();
    spec.indexes = vec![
        index_spec("by_code", &["code"], 0),
        index_spec("by_sdate", &["sdate"], 4),
    ];
    let catalog = Catalog::from_spec(&spec).unwrap();
    let plan = |conditions: Vec<Condition>, relay: bool, hint: IndexHint, index: &str| {
        let mut r = TablePlanRequest::new();
        r.predicate.mut_or_insert_default().conditions = conditions;
        r.relay_streams = relay;
        r.no_explain = true;
        r.hint = hint.into();
        r.hint_index = index.into();
        plan_table(&catalog, &r).unwrap()
    };
    let both = || {
        vec![
            int_condition("code", Op::EQ, &[404]),
            int_condition("sdate", Op::IN, &[20161209, 20161210]),
        ]
    };

    let relayed = plan(both(), true, IndexHint::INDEX_HINT_AUTOMATIC, "");
    assert!(!relayed.index.is_empty() && !relayed.covered, "{relayed:?}");
    let relay = &relayed.relay.as_ref().expect("two index streams: a relay").branches[0];
    let streams: Vec<&str> = relay.streams.iter().map(|s| s.index.as_str()).collect();
    assert_eq!(streams.len(), 2, "{streams:?}");
    assert!(streams.contains(&relayed.index.as_str()), "{streams:?}");
    assert_eq!(
        *relay,
        plan_join_branch(&catalog, &both(), 0, IndexHint::INDEX_HINT_AUTOMATIC, "", false).unwrap(),
        "the join branch's own streams"
    );
    let mut shown = TablePlanRequest::new();
    shown.predicate.mut_or_insert_default().conditions = both();
    shown.relay_streams = true;
    let shown = plan_table(&catalog, &shown).unwrap().relay.unwrap();
    assert!(
        shown.explain.starts_with("JOIN: one AND-branch") && shown.explain.contains("turn 2 INDEX"),
        "{}",
        shown.explain
    );
    assert_eq!(
        plan(both(), false, IndexHint::INDEX_HINT_AUTOMATIC, "").relay.as_ref(),
        None,
        "not asked"
    );

    let mut alone = plan(both(), false, IndexHint::INDEX_HINT_AUTOMATIC, "");
    alone.relay = relayed.relay.clone();
    assert_eq!(alone, relayed, "the relay changes nothing else of the plan");

    let hinted = plan(both(), true, IndexHint::USE_INDEX, "by_code");
    assert_eq!(
        (hinted.index.as_str(), hinted.relay.as_ref()),
        ("by_code", None),
        "a hint is kept"
    );
    let one_stream = plan(
        vec![
            int_condition("code", Op::EQ, &[404]),
            int_condition("sdate", Op::GE, &[20161209]),
        ],
        true,
        IndexHint::INDEX_HINT_AUTOMATIC,
        "",
    );
    assert_eq!(
        (one_stream.index.as_str(), one_stream.relay.as_ref()),
        ("by_code", None),
        "{one_stream:?}"
    );
    let data = plan(both(), true, IndexHint::NO_INDEX, "");
    assert_eq!(
        (data.index.as_str(), data.relay.as_ref()),
        ("", None),
        "the data table is read as planned"
    );
}

/// A branch that cannot match (an `IN` with no value) is read from a stream that is estimated
/// at no rows and holds no range, so the join reads nothing for it; before, that stream was
/// estimated like a full index (1,000,000 keys), left out, and the branch read through the others.
#[test]
fn a_branch_with_an_empty_in_leads_with_a_stream_of_no_range() {
    use hbase_rowkey::plan_wire::plan_join_branch;
    let catalog = Catalog::from_spec(&seed_catalog()).unwrap();
    let conditions = vec![
        int_condition("sdate", hbase_rowkey::proto::rowkey::Op::EQ, &[20161209]),
        int_condition("code", hbase_rowkey::proto::rowkey::Op::IN, &[]),
    ];
    for leapfrog in [false, true] {
        let plan = plan_join_branch(&catalog, &conditions, 0, IndexHint::INDEX_HINT_AUTOMATIC, "", leapfrog).unwrap();
        let lead = plan.streams.first().unwrap_or_else(|| panic!("no stream: {plan:?}"));
        assert_eq!(lead.estimated_rows, 0.0, "{plan:?}");
        assert!(lead.points.iter().all(|p| p.ranges.is_empty()), "{plan:?}");
        assert_eq!(plan.cost, 0.0, "{plan:?}");
    }
}

/// The join's seek into an index (`Index::seek_key`): for any well-formed seek position (a real
/// key, the same with another salt byte, or random bytes with the bool bytes masked to their
/// bools' bits), among data keys whose index keys have the same indexed fields, those at or above
/// the position are exactly those whose index keys sort at or above the seek key. A position whose
/// bool byte has another bit set is refused (laid out, it read as its one bit, below the position:
/// a join's follower went back).
#[test]
fn an_index_seek_key_splits_the_index_keys_where_its_position_splits_the_data_keys() {
    let mut rng = Rng::new(0x5eec);
    let mut checked = 0;
    for case in 0..400 {
        let def = random_schema(&mut rng);
        let Some(index_def) = random_index(&mut rng, &def) else {
            continue;
        };
        let catalog = Catalog::from_spec(&catalog_spec(def.spec(), vec![index_def.clone()])).unwrap();
        let (data, index) = (catalog.schema(), &catalog.indexes()[0]);
        let names: Vec<&str> = index.key_fields().collect();
        let fields = index.schema().fields();
        // The bytes of the index salt and indexed fields: compared as a whole, the rest in order.
        let cut = fields
            .iter()
            .filter(|f| names.contains(&f.name.as_str()))
            .map(|f| f.location.end())
            .max()
            .unwrap();
        if fields
            .iter()
            .any(|f| !names.contains(&f.name.as_str()) && f.location.offset() < cut)
        {
            continue; // a non-indexed bool shares the last indexed byte: no clean split
        }
        let skip_salt = usize::from(index_def.salt_buckets > 0);
        let base = random_row(&mut rng, &def);
        let positions_of: Vec<usize> = names
            .iter()
            .map(|n| def.fields.iter().position(|d| d.name == *n).unwrap())
            .collect();
        let mut keys: Vec<Vec<u8>> = (0..16)
            .map(|_| {
                let mut row = random_row(&mut rng, &def);
                for &p in &positions_of {
                    row[p] = base[p].clone();
                }
                data.encode(&def.named(&row)).unwrap()
            })
            .collect();
        keys.sort();
        let bool_bytes: Vec<(usize, u8)> = data
            .slots()
            .into_iter()
            .filter_map(|slot| match slot {
                hbase_rowkey::key::KeySlot::Bits { offset, members } => {
                    Some((offset, members.iter().fold(0u8, |all, &(_, m)| all | m)))
                }
                _ => None,
            })
            .collect();
        for _ in 0..24 {
            let mut position = rng.pick(&keys).clone();
            match rng.below(3) {
                0 => {}
                1 => position[0] = rng.below(256) as u8,
                _ => position.iter_mut().for_each(|b| *b = rng.below(256) as u8),
            }
            for &(offset, bits) in &bool_bytes {
                position[offset] &= bits;
            }
            if let Some(&(offset, bits)) = bool_bytes.iter().find(|(_, bits)| *bits != 0xFF) {
                let mut ill_formed = position.clone();
                ill_formed[offset] |= !bits;
                assert!(
                    matches!(index.seek_key(data, &ill_formed), Err(Error::Corrupt { .. })),
                    "case {case}"
                );
            }
            let seek = index
                .seek_key(data, &position)
                .unwrap_or_else(|e| panic!("case {case}: {e}"));
            for key in &keys {
                let index_key = index.index_key(data, key).unwrap();
                if index_key[skip_salt..cut] == seek[skip_salt..cut] {
                    assert_eq!(
                        index_key[cut..] >= seek[cut..],
                        *key >= position,
                        "case {case}: {def:?} {index_def:?}: position {position:?}, key {key:?}: index key {index_key:?}, seek {seek:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 2000, "only {checked} keys compared");
}

/// One planning call decides how a query is read: joins for an anyOf (even of one branch), a
/// limit, reversed through an index not in data-key order or the leapfrog hint (reversed over the
/// data table, or an unsalted index with one value of each field, is the forward single read, in
/// descending order); the relay of the streams in place of an uncovered index
/// that is one of several; else the single read, its source's place in the catalog named for the
/// readers. A plan the regions fold is refused for a query only joins answer, never relays, and
/// says what the regions read: every index row checked when the index lacks the cells folded, one
/// cell of each data row when none is, and no per-row filter where the ranges enforce everything.
#[test]
fn a_query_plan_decides_its_route_once_and_what_the_regions_fold() {
    use hbase_rowkey::plan_wire::{plan_query, plan_query_request_on};
    use hbase_rowkey::proto::rowkey::{
        planned_query::Read, Condition, IndexHint, Op, PlannedQuery, PredicateSpec, QueryPlanRequest,
    };
    use protobuf::Message;
    let mut spec = seed_catalog();
    spec.indexes.push(index_spec("by_code", &["code"], 0));
    let catalog = Catalog::from_spec(&spec).unwrap();
    let request = |branches: Vec<Vec<Condition>>| {
        let mut r = QueryPlanRequest::new();
        r.branches = branches
            .into_iter()
            .map(|conditions| {
                let mut b = PredicateSpec::new();
                b.conditions = conditions;
                b
            })
            .collect();
        r.no_explain = true;
        r
    };
    let route = |r: &QueryPlanRequest| match plan_query(&catalog, r).unwrap().read {
        Some(Read::Single(single)) => format!("single {} #{}", single.index, single.index_number),
        Some(Read::Joins(joins)) => format!("joins of {}", joins.branches.len()),
        other => format!("{other:?}"),
    };
    let code = || vec![int_condition("code", Op::EQ, &[404])];
    let both = || {
        vec![
            int_condition("code", Op::EQ, &[404]),
            int_condition("sdate", Op::IN, &[20161209, 20161210]),
        ]
    };

    assert_eq!(route(&request(vec![code()])), "single by_code #2");
    assert_eq!(
        route(&request(vec![vec![int_condition("sdate", Op::GE, &[1])]])),
        "single  #-1"
    );
    let mut any_of = request(vec![code()]);
    any_of.any_of = true;
    assert_eq!(route(&any_of), "joins of 1", "an anyOf of one branch");
    assert_eq!(route(&request(vec![code(), both()])), "joins of 2");
    for ask in [
        |r: &mut QueryPlanRequest| r.limit = 10,
        |r: &mut QueryPlanRequest| r.leapfrog = true,
        |r: &mut QueryPlanRequest| {
            r.reversed = true;
            // Two values: the index's keys are not in data order.
            r.branches[0].conditions = vec![int_condition("code", Op::IN, &[404, 500])];
        },
    ] {
        let mut r = request(vec![code()]);
        ask(&mut r);
        assert_eq!(route(&r), "joins of 1", "{r:?}");
        r.aggregate = true;
        let refused = plan_query(&catalog, &r).unwrap_err().to_string();
        assert!(refused.contains("answered by joins of key streams"), "{refused}");
    }
    // A forward limit on the data table: its single read, one scan stopped at the limit; reversed,
    // in an anyOf or through an index (above), the joins.
    let mut limited = request(vec![vec![int_condition("sdate", Op::GE, &[1])]]);
    limited.limit = 10;
    limited.no_explain = false;
    let Some(Read::Single(stopped)) = plan_query(&catalog, &limited).unwrap().read else {
        panic!("a single read")
    };
    assert_eq!((stopped.index_number, stopped.limit), (-1, 10));
    assert!(
        stopped.explain.contains("stops after 10 rows: one scan in key order"),
        "{}",
        stopped.explain
    );
    limited.reversed = true;
    assert_eq!(route(&limited), "joins of 1", "the last 10");
    limited.reversed = false;
    limited.any_of = true;
    assert_eq!(route(&limited), "joins of 1", "an anyOf of one branch, limited");
    limited.any_of = false;
    limited.aggregate = true;
    let refused = plan_query(&catalog, &limited).unwrap_err().to_string();
    assert!(refused.contains("answered by joins of key streams"), "{refused}");
    let mut reversed = request(vec![vec![int_condition("sdate", Op::GE, &[1])]]);
    reversed.reversed = true;
    assert_eq!(
        route(&reversed),
        "single  #-1",
        "reversed over the data table: the forward twin's read, its regions read from the top down"
    );
    reversed.no_explain = false;
    let Some(Read::Single(shown)) = plan_query(&catalog, &reversed).unwrap().read else {
        panic!("a single read")
    };
    assert!(shown.explain.contains("descending data-key order"), "{}", shown.explain);
    reversed.aggregate = true;
    let refused = plan_query(&catalog, &reversed).unwrap_err().to_string();
    assert!(refused.contains("answered by joins of key streams"), "{refused}");
    // Reversed through an index each of whose fields has one value: its keys sort as the data keys
    // do (within each salt bucket of a salted one, whose buckets the reader merges), so its single
    // read, descending. Several values of a field order its keys otherwise: the joins, which merge
    // its runs of data keys.
    let mut by_code_spec = spec.clone();
    by_code_spec.indexes.push(index_spec("by_code_salted", &["code"], 4));
    let by_code_catalog = Catalog::from_spec(&by_code_spec).unwrap();
    let hinted_route = |index: &str, conditions: Vec<Condition>| {
        let mut r = request(vec![conditions]);
        r.reversed = true;
        r.hint = IndexHint::USE_INDEX.into();
        r.hint_index = index.into();
        match plan_query(&by_code_catalog, &r).unwrap().read {
            Some(Read::Single(single)) if single.merge_salt_buckets => {
                format!("single {}, buckets merged", single.index)
            }
            Some(Read::Single(single)) => format!("single {}", single.index),
            Some(Read::Joins(joins)) => format!("joins of {}", joins.branches.len()),
            other => format!("{other:?}"),
        }
    };
    assert_eq!(hinted_route("by_code", code()), "single by_code");
    assert_eq!(
        hinted_route("by_code", vec![int_condition("code", Op::IN, &[404])]),
        "single by_code"
    );
    assert_eq!(
        hinted_route("by_code", vec![int_condition("code", Op::IN, &[404, 500])]),
        "joins of 1"
    );
    assert_eq!(
        hinted_route("by_code", vec![int_condition("code", Op::GE, &[404])]),
        "joins of 1"
    );
    assert_eq!(
        hinted_route("by_code_salted", code()),
        "single by_code_salted, buckets merged"
    );
    assert_eq!(
        hinted_route("by_code_salted", vec![int_condition("code", Op::IN, &[404, 500])]),
        "joins of 1"
    );
    let explained = |index: &str| {
        let mut shown = request(vec![code()]);
        (shown.reversed, shown.no_explain) = (true, false);
        (shown.hint, shown.hint_index) = (IndexHint::USE_INDEX.into(), index.into());
        let Some(Read::Single(shown)) = plan_query(&by_code_catalog, &shown).unwrap().read else {
            panic!("a single read")
        };
        shown.explain
    };
    let unsalted = explained("by_code");
    assert!(
        unsalted.contains("index by_code in data-key order: unsalted")
            && unsalted.contains("descending data-key order"),
        "{unsalted}"
    );
    let salted = explained("by_code_salted");
    assert!(
        salted.contains("index by_code_salted in data-key order within each of its 4 salt buckets")
            && salted.contains("their rows merged by data key")
            && salted.contains("descending data-key order"),
        "{salted}"
    );
    let relayed = plan_query(&catalog, &request(vec![both()])).unwrap();
    let Some(Read::Joins(relay)) = relayed.read else {
        panic!("two index streams of an uncovered index: their relay, {relayed:?}")
    };
    assert!(relay.branches[0].relay, "{relay:?}");
    for stream in &relay.branches[0].streams {
        assert_eq!(
            stream.index_number,
            catalog
                .indexes()
                .iter()
                .position(|i| i.name() == stream.index)
                .map_or(-1, |n| n as i32)
        );
    }
    let mut folded = request(vec![both()]);
    folded.aggregate = true;
    let Some(Read::Single(fold)) = plan_query(&catalog, &folded).unwrap().read else {
        panic!("an aggregate is read once, never relayed")
    };
    assert!(
        !fold.index.is_empty() && !fold.covered && fold.check_every_row && !fold.first_cell_only,
        "{fold:?}"
    );

    let mut counted = request(vec![vec![]]);
    counted.aggregate = true;
    counted.key_only = true;
    counted.hint = IndexHint::NO_INDEX.into();
    let Some(Read::Single(count)) = plan_query(&catalog, &counted).unwrap().read else {
        panic!()
    };
    assert!(count.first_cell_only && !count.check_every_row, "{count:?}");
    assert!(
        count.plan.no_residual,
        "every condition enforced by the ranges: no per-row filter, {count:?}"
    );
    counted.no_explain = false;
    let Some(Read::Single(shown)) = plan_query(&catalog, &counted).unwrap().read else {
        panic!()
    };
    assert!(
        shown
            .explain
            .contains("filtered per row: nothing (the fold skips rows of another key length"),
        "{}",
        shown.explain
    );
    let mut filtered = counted.clone();
    filtered.branches[0].conditions = vec![int_condition("status", Op::EQ, &[200])];
    let Some(Read::Single(filter)) = plan_query(&catalog, &filtered).unwrap().read else {
        panic!()
    };
    assert!(
        !filter.plan.no_residual,
        "status is not a leading field: filtered per row, {filter:?}"
    );

    let bytes = plan_query_request_on(&catalog, &request(vec![code()]).write_to_bytes().unwrap()).unwrap();
    assert!(matches!(
        PlannedQuery::parse_from_bytes(&bytes).unwrap().read,
        Some(Read::Single(_))
    ));
    assert!(plan_query_request_on(&catalog, &QueryPlanRequest::new().write_to_bytes().unwrap()).is_err());
    assert!(plan_query_request_on(&catalog, b"\xff\xff").is_err());
}

/// A join of one branch read by one index stream marks that stream covered when the index's rows
/// answer what the query reads (its columns, every family, or keys only): the reader then answers
/// from the VERIFIED index rows, with no data-row Get. Not when a column is not covered, a data
/// family has a TTL (`data_cells_expire`), the stream is the data table's, or the branch relays two.
#[test]
fn a_join_of_one_covered_index_stream_answers_from_the_index_rows() {
    use hbase_rowkey::plan_wire::plan_query;
    use hbase_rowkey::proto::rowkey::{planned_query::Read, Column, IndexHint, Op, PredicateSpec, QueryPlanRequest};
    let mut spec = seed_catalog();
    let mut covering = index_spec("by_code_salted", &["code"], 4);
    covering.include_families = vec![b"f".to_vec()];
    let mut one_column = index_spec("by_date", &["sdate"], 0);
    let mut q = Column::new();
    (q.family, q.qualifier) = (b"f".to_vec(), b"q".to_vec());
    one_column.include = vec![q.clone()];
    spec.indexes.extend([covering, one_column]);
    let catalog = Catalog::from_spec(&spec).unwrap();
    // What each plan's streams say: (index, covered) of the one branch's streams.
    let streams = |edit: &dyn Fn(&mut QueryPlanRequest)| {
        let mut r = QueryPlanRequest::new();
        let mut branch = PredicateSpec::new();
        branch.conditions = vec![int_condition("code", Op::EQ, &[404])];
        r.branches = vec![branch];
        // The last 10: a reversed read through the salted index with no limit is its single read.
        (r.reversed, r.limit) = (true, 10);
        r.families = vec![b"f".to_vec()];
        (r.hint, r.hint_index) = (IndexHint::USE_INDEX.into(), "by_code_salted".into());
        edit(&mut r);
        match plan_query(&catalog, &r).unwrap().read {
            Some(Read::Joins(joins)) => {
                // The explain names what the stream's rows are: the data rows, or index rows.
                let data_rows = joins.explain.contains("    its rows filtered with the whole branch");
                assert_eq!(
                    data_rows,
                    joins.branches[0].streams.iter().all(|s| s.index.is_empty()),
                    "{}",
                    joins.explain
                );
                joins.branches[0]
                    .streams
                    .iter()
                    .map(|s| format!("{} {}", s.index, s.covered))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
            other => format!("{other:?}"),
        }
    };
    assert_eq!(
        streams(&|_| {}),
        "by_code_salted true",
        "every column: the index holds family f whole"
    );
    assert_eq!(streams(&|r| r.columns = vec![q.clone()]), "by_code_salted true");
    assert_eq!(streams(&|r| r.reversed = false), "by_code_salted true", "the first 10");
    assert_eq!(
        streams(&|r| (r.families, r.key_only) = (vec![], true)),
        "by_code_salted true",
        "keys only"
    );
    assert_eq!(
        streams(&|r| r.data_cells_expire = true),
        "by_code_salted false",
        "a TTL: an index row never answers alone"
    );
    assert_eq!(
        streams(&|r| (r.data_cells_expire, r.key_only) = (true, true)),
        "by_code_salted false"
    );
    assert_eq!(
        streams(&|r| r.families = vec![b"f".to_vec(), b"g".to_vec()]),
        "by_code_salted false"
    );
    let by_date = |r: &mut QueryPlanRequest| {
        r.branches[0].conditions = vec![int_condition("sdate", Op::IN, &[1, 2])];
        r.hint_index = "by_date".into();
    };
    assert_eq!(
        streams(&|r| {
            by_date(r);
            r.columns = vec![q.clone()];
        }),
        "by_date true"
    );
    assert_eq!(
        streams(&by_date),
        "by_date false",
        "every column, one of family f's held"
    );
    assert_eq!(
        streams(&|r| {
            // The last 10: forward, the data table's single read stopped at the limit (above).
            (r.hint, r.reversed, r.limit) = (IndexHint::NO_INDEX.into(), true, 10);
            r.branches[0].conditions = vec![messages::condition(
                "md5url",
                Op::IN,
                vec![messages::string("u1"), messages::string("u2")],
            )];
        }),
        " true",
        "the data table's stream: its rows are the data rows"
    );
    // Two branches: each key of the union reads its data row.
    let mut two = QueryPlanRequest::new();
    for code in [404, 503] {
        let mut branch = PredicateSpec::new();
        branch.conditions = vec![int_condition("code", Op::EQ, &[code])];
        two.branches.push(branch);
    }
    (two.any_of, two.families, two.no_explain) = (true, vec![b"f".to_vec()], false);
    let Some(Read::Joins(joins)) = plan_query(&catalog, &two).unwrap().read else {
        panic!("joins")
    };
    assert!(
        joins.branches.iter().flat_map(|b| &b.streams).all(|s| !s.covered),
        "{joins:?}"
    );
    assert!(joins.explain.contains("then its data row read"), "{}", joins.explain);
    let mut shown = QueryPlanRequest::new();
    shown.branches = vec![two.branches[0].clone()];
    (shown.reversed, shown.limit, shown.families, shown.no_explain) = (true, 10, vec![b"f".to_vec()], false);
    (shown.hint, shown.hint_index) = (IndexHint::USE_INDEX.into(), "by_code_salted".into());
    let Some(Read::Joins(joins)) = plan_query(&catalog, &shown).unwrap().read else {
        panic!("joins")
    };
    assert!(
        joins.explain.contains("covered stream: a VERIFIED index row answers"),
        "{}",
        joins.explain
    );
}
