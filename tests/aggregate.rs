//! The native fold of aggregates (src/aggregate.rs) against a brute-force oracle computed from
//! decoded rows, on random schemas, rows, cells and aggregations; merging partial states in any
//! order and any split equals one pass; bad and hostile specs and partials are refused by name.

mod common;

use std::collections::BTreeMap;

use common::messages::{field, schema_of};
use common::*;
use hbase_rowkey::aggregate::{Aggregation, Aggregator, CELL_SLOT_BYTES, MAX_BYTES_SETTING};
use hbase_rowkey::proto::rowkey::{
    aggregate_value, value::Kind as ValueKind, AggregateFunction, AggregateResult, AggregateSpec, AggregationSpec,
    CellType, FieldType, GroupKey, NumericCell, SchemaSpec, TimeUnit,
};
use hbase_rowkey::Schema;
use protobuf::{Message, MessageField};

/// The cells every random row may have: (qualifier, type).
const CELLS: [(&str, CellType); 3] = [
    ("i", CellType::CELL_INT64),
    ("n", CellType::CELL_INT32),
    ("d", CellType::CELL_DOUBLE),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    Int(i64),
    Float(f64),
}

/// A row: its key and its cells (None: the row has no such cell).
struct TestRow {
    key: Vec<u8>,
    cells: Vec<Option<Num>>,
}

fn random_cell(rng: &mut Rng, ty: CellType) -> Option<Num> {
    if rng.chance(25) {
        return None;
    }
    Some(match ty {
        CellType::CELL_INT32 => Num::Int(*rng.pick(&[i32::MIN as i64, -5, 0, 3, 1000, i32::MAX as i64])),
        CellType::CELL_INT64 => Num::Int(*rng.pick(&[-(1 << 40), -1, 0, 7, 1 << 50])),
        // NaN and -0.0 too: min and max must not depend on the order rows and partials arrive in.
        _ => Num::Float(*rng.pick(&[-2.5, -0.0, 0.0, 0.5, 1.25, 1e9, f64::NAN])),
    })
}

fn cell_bytes(value: Num, ty: CellType) -> Vec<u8> {
    match (value, ty) {
        (Num::Int(v), CellType::CELL_INT32) => (v as i32).to_be_bytes().to_vec(),
        (Num::Int(v), _) => v.to_be_bytes().to_vec(),
        (Num::Float(v), _) => v.to_bits().to_be_bytes().to_vec(),
    }
}

/// A batch row as the RegionServer lays it out: the key, then the slots of `columns` (indexes into CELLS).
fn batch_row(row: &TestRow, columns: &[usize]) -> Vec<u8> {
    let mut out = row.key.clone();
    for &c in columns {
        let mut slot = [0u8; CELL_SLOT_BYTES];
        if let Some(v) = row.cells[c] {
            let bytes = cell_bytes(v, CELLS[c].1);
            slot[0] = bytes.len() as u8 + 1;
            slot[1..1 + bytes.len()].copy_from_slice(&bytes);
        }
        out.extend_from_slice(&slot);
    }
    out
}

fn cell_spec(c: usize) -> NumericCell {
    let mut cell = NumericCell::new();
    cell.family = b"c".to_vec();
    cell.qualifier = CELLS[c].0.as_bytes().to_vec();
    cell.type_ = CELLS[c].1.into();
    cell
}

/// What an aggregate reads, as the oracle sees it.
#[derive(Debug, Clone, Copy)]
enum In {
    Rows,
    Field(usize),
    Cell(usize),
}

const FUNCTIONS: [AggregateFunction; 5] = [
    AggregateFunction::COUNT,
    AggregateFunction::SUM,
    AggregateFunction::MIN,
    AggregateFunction::MAX,
    AggregateFunction::AVG,
];

fn is_integer(ty: FieldType) -> bool {
    matches!(
        ty,
        FieldType::INT32 | FieldType::INT64 | FieldType::TIMESTAMP | FieldType::REVERSED_TIMESTAMP
    )
}

/// Group fields (index, truncation unit in ms, 1 for none) and aggregates, as the oracle reads them.
type Groups = Vec<(usize, i64)>;
type Aggregates = Vec<(AggregateFunction, In)>;

fn random_aggregation(rng: &mut Rng, schema: &SchemaDef) -> (AggregationSpec, Groups, Aggregates) {
    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(schema.spec());
    let mut groups = Vec::new();
    for (i, f) in schema.fields.iter().enumerate() {
        if rng.chance(35) {
            let mut g = GroupKey::new();
            g.field = f.name.clone();
            let mut unit = 1;
            if matches!(f.ty, FieldType::TIMESTAMP | FieldType::REVERSED_TIMESTAMP) && rng.chance(60) {
                let (u, millis) = *rng.pick(&[
                    (TimeUnit::MINUTE, 60_000),
                    (TimeUnit::HOUR, 3_600_000),
                    (TimeUnit::DAY, 86_400_000),
                ]);
                g.truncate = u.into();
                unit = millis;
            }
            spec.group_by.push(g);
            groups.push((i, unit));
        }
    }
    let integer_fields: Vec<usize> = (0..schema.fields.len())
        .filter(|&i| is_integer(schema.fields[i].ty))
        .collect();
    let mut aggregates = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let function = *rng.pick(&FUNCTIONS);
        let input = match rng.below(3) {
            0 if function == AggregateFunction::COUNT => In::Rows,
            1 if !integer_fields.is_empty() => In::Field(*rng.pick(&integer_fields)),
            _ => In::Cell(rng.below(CELLS.len())),
        };
        let mut a = AggregateSpec::new();
        a.function = function.into();
        match input {
            In::Rows => {}
            In::Field(f) => a.field = schema.fields[f].name.clone(),
            In::Cell(c) => a.cell = MessageField::some(cell_spec(c)),
        }
        spec.aggregates.push(a);
        aggregates.push((function, input));
    }
    (spec, groups, aggregates)
}

/// A group key the oracle sorts by: value order (strings and bytes by their bytes).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum G {
    Int(i64),
    Bool(bool),
    Bytes(Vec<u8>),
}

fn group_value(v: &ValueKind) -> G {
    match v {
        ValueKind::IntValue(i) => G::Int(*i),
        ValueKind::BoolValue(b) => G::Bool(*b),
        ValueKind::StringValue(s) => G::Bytes(s.as_bytes().to_vec()),
        ValueKind::BytesValue(b) => G::Bytes(b.clone()),
        other => panic!("unknown value {other:?}"),
    }
}

/// Accumulated by the oracle: rows with a value, integer sum, float sum, min, max.
#[derive(Debug, Clone, Default)]
struct Acc {
    rows: u64,
    int: i128,
    float: f64,
    min: Option<Num>,
    max: Option<Num>,
}

type Answer = Vec<(Vec<G>, Vec<Option<Num>>)>;

/// The answer computed from decoded rows, or the overflow that the fold must report.
fn oracle(
    schema: &Schema,
    rows: &[TestRow],
    groups: &[(usize, i64)],
    aggregates: &[(AggregateFunction, In)],
) -> Result<Answer, String> {
    let mut map: BTreeMap<Vec<G>, Vec<Acc>> = BTreeMap::new();
    for row in rows {
        let decoded = schema.decode(&row.key).unwrap();
        let value = |f: usize| decoded[f].value.kind.clone().unwrap();
        let key: Vec<G> = groups
            .iter()
            .map(|&(f, unit)| match value(f) {
                // A bucket's start; the lowest bucket's, below i64::MIN, is i64::MIN.
                ValueKind::IntValue(i) => G::Int(i.div_euclid(unit).checked_mul(unit).unwrap_or(i64::MIN)),
                other => group_value(&other),
            })
            .collect();
        let accs = map.entry(key).or_insert_with(|| vec![Acc::default(); aggregates.len()]);
        for (acc, (_, input)) in accs.iter_mut().zip(aggregates) {
            let v = match input {
                In::Rows => {
                    acc.rows += 1;
                    continue;
                }
                In::Field(f) => match value(*f) {
                    ValueKind::IntValue(i) => Num::Int(i),
                    other => panic!("not an integer: {other:?}"),
                },
                In::Cell(c) => match row.cells[*c] {
                    Some(v) => v,
                    None => continue,
                },
            };
            acc.rows += 1;
            match v {
                Num::Int(i) => acc.int += i128::from(i),
                Num::Float(f) => acc.float += f,
            }
            // Doubles: every NaN above every number, -0.0 below 0.0 (docs/aggregates.md).
            let less = |a: Num, b: Num| match (a, b) {
                (Num::Int(a), Num::Int(b)) => a < b,
                (Num::Float(a), Num::Float(b)) => !a.is_nan() && (b.is_nan() || a.total_cmp(&b).is_lt()),
                _ => unreachable!(),
            };
            if acc.min.is_none_or(|m| less(v, m)) {
                acc.min = Some(v);
            }
            if acc.max.is_none_or(|m| less(m, v)) {
                acc.max = Some(v);
            }
        }
    }
    if groups.is_empty() && map.is_empty() {
        map.insert(Vec::new(), vec![Acc::default(); aggregates.len()]);
    }
    let mut answer = Vec::new();
    for (key, accs) in map {
        let mut values = Vec::new();
        for (acc, (function, input)) in accs.iter().zip(aggregates) {
            let float = matches!(input, In::Cell(c) if CELLS[*c].1 == CellType::CELL_DOUBLE);
            values.push(match *function {
                AggregateFunction::COUNT => Some(Num::Int(acc.rows as i64)),
                _ if acc.rows == 0 => None,
                AggregateFunction::SUM if float => Some(Num::Float(acc.float)),
                AggregateFunction::SUM => Some(Num::Int(
                    i64::try_from(acc.int).map_err(|_| "overflows int64".to_string())?,
                )),
                AggregateFunction::AVG if float => Some(Num::Float(acc.float / acc.rows as f64)),
                AggregateFunction::AVG => Some(Num::Float(acc.int as f64 / acc.rows as f64)),
                AggregateFunction::MIN => acc.min,
                AggregateFunction::MAX => acc.max,
                _ => unreachable!(),
            });
        }
        answer.push((key, values));
    }
    Ok(answer)
}

fn answer_of(result: &AggregateResult) -> Answer {
    result
        .rows
        .iter()
        .map(|r| {
            let key = r.group.iter().map(|v| group_value(v.kind.as_ref().unwrap())).collect();
            let values = r
                .values
                .iter()
                .map(|v| match &v.kind {
                    None => None,
                    Some(aggregate_value::Kind::IntValue(i)) => Some(Num::Int(*i)),
                    Some(aggregate_value::Kind::DoubleValue(d)) => Some(Num::Float(*d)),
                    Some(other) => panic!("unknown value {other:?}"),
                })
                .collect();
            (key, values)
        })
        .collect()
}

/// Equal, doubles within a relative 1e-9 (float sums depend on the order rows are added in), NaN
/// equal to NaN, and a zero's sign kept.
fn same(a: &Answer, b: &Answer) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
            ka == kb
                && va.len() == vb.len()
                && va.iter().zip(vb).all(|(x, y)| match (x, y) {
                    (Some(Num::Float(x)), Some(Num::Float(y))) if x.is_nan() || y.is_nan() => x.is_nan() && y.is_nan(),
                    (Some(Num::Float(x)), Some(Num::Float(y))) if *x == 0.0 && *y == 0.0 => {
                        x.is_sign_negative() == y.is_sign_negative()
                    }
                    (Some(Num::Float(x)), Some(Num::Float(y))) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                    _ => x == y,
                })
        })
}

/// The columns of an aggregation, as indexes into CELLS, in slot order.
fn slot_columns(aggregation: &Aggregation) -> Vec<usize> {
    let list: hbase_rowkey::proto::rowkey::ColumnList =
        protobuf::Message::parse_from_bytes(&aggregation.columns_message().unwrap()).unwrap();
    list.columns
        .iter()
        .map(|c| {
            CELLS
                .iter()
                .position(|(q, _)| q.as_bytes() == c.qualifier.as_slice())
                .unwrap()
        })
        .collect()
}

fn fold_all(aggregator: &mut Aggregator, rows: &[&TestRow], columns: &[usize]) -> hbase_rowkey::Result<()> {
    let batch: Vec<u8> = rows.iter().flat_map(|r| batch_row(r, columns)).collect();
    aggregator.fold_batch(&batch, rows.len())
}

#[test]
fn fold_equals_the_oracle_and_partials_merge_in_any_order() {
    let mut rng = Rng::new(22);
    let (mut checked, mut overflows, mut grouped) = (0, 0, 0);
    for _ in 0..600 {
        let schema_def = random_schema(&mut rng);
        let schema = Schema::from_spec(&schema_def.spec()).unwrap();
        let rows: Vec<TestRow> = (0..rng.below(80))
            .map(|_| TestRow {
                key: schema
                    .encode(&schema_def.named(&random_row(&mut rng, &schema_def)))
                    .unwrap(),
                cells: CELLS.iter().map(|&(_, ty)| random_cell(&mut rng, ty)).collect(),
            })
            .collect();
        let (spec, groups, aggregates) = random_aggregation(&mut rng, &schema_def);
        let aggregation =
            Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap_or_else(|e| panic!("{e}: {spec:?}"));
        let columns = slot_columns(&aggregation);
        let expected = oracle(&schema, &rows, &groups, &aggregates);

        // One pass.
        let mut one = Aggregator::new(aggregation.clone());
        fold_all(&mut one, &rows.iter().collect::<Vec<_>>(), &columns).unwrap();
        // The bytes its groups need: the limit that the fold and the merges below run at.
        let needed = one.group_count() * Aggregator::bytes_per_group(&aggregation);
        let got = one.finish();
        match (&expected, &got) {
            (Ok(e), Ok(g)) => assert!(
                same(e, &answer_of(g)),
                "{spec:?}\noracle {e:?}\nfold {:?}",
                answer_of(g)
            ),
            (Err(e), Err(g)) => {
                assert!(g.to_string().contains(e.as_str()), "{g}");
                overflows += 1;
                continue;
            }
            _ => panic!("oracle {expected:?}, fold {got:?} for {spec:?}"),
        }

        if needed > 0 {
            // At exactly the bytes its groups need, the same answer; one byte less is refused by name.
            let mut at_limit = Aggregator::with_max_bytes(aggregation.clone(), needed);
            fold_all(&mut at_limit, &rows.iter().collect::<Vec<_>>(), &columns).unwrap();
            assert!(same(
                expected.as_ref().unwrap(),
                &answer_of(&at_limit.finish().unwrap())
            ));
            let mut short = Aggregator::with_max_bytes(aggregation.clone(), needed - 1);
            let err = fold_all(&mut short, &rows.iter().collect::<Vec<_>>(), &columns).unwrap_err();
            assert!(err.to_string().contains(MAX_BYTES_SETTING), "{err}");
        }

        // Random splits into partials (the regions' and budgets' share), merged in a shuffled order.
        let mut parts: Vec<Vec<&TestRow>> = vec![Vec::new(); 1 + rng.below(5)];
        for row in &rows {
            let p = rng.below(parts.len());
            parts[p].push(row);
        }
        let mut partials: Vec<Vec<u8>> = parts
            .iter()
            .map(|part| {
                let mut a = Aggregator::new(aggregation.clone());
                fold_all(&mut a, part, &columns).unwrap();
                a.take_partial().unwrap()
            })
            .collect();
        for i in (1..partials.len()).rev() {
            partials.swap(i, rng.below(i + 1));
        }
        let mut merged = Aggregator::with_max_bytes(aggregation.clone(), needed);
        for p in &partials {
            merged.merge(p).unwrap();
        }
        if needed > 0 {
            // The client's merge is bounded alike: one byte short, some partial is refused by name.
            let mut short = Aggregator::with_max_bytes(aggregation.clone(), needed - 1);
            let err = partials.iter().find_map(|p| short.merge(p).err()).expect("a refusal");
            assert!(err.to_string().contains(MAX_BYTES_SETTING), "{err}");
        }
        // A partial of partials is a partial too (the client merges per region, then all).
        let mut again = Aggregator::new(aggregation);
        again.merge(&merged.take_partial().unwrap()).unwrap();
        let merged = answer_of(&again.finish().unwrap());
        assert!(same(expected.as_ref().unwrap(), &merged), "{spec:?}");
        checked += 1;
        grouped += usize::from(!groups.is_empty());
    }
    // The random cases must exercise what they claim to.
    assert!(
        checked > 400 && overflows > 5 && grouped > 200,
        "{checked} checked, {overflows} overflows, {grouped} grouped"
    );
}

fn seed_schema() -> SchemaSpec {
    let mut md5 = field("md5url", FieldType::MD5, 8);
    md5.descending = false;
    let mut day = field("day", FieldType::REVERSED_TIMESTAMP, 0);
    day.descending = false;
    let mut code = field("code", FieldType::INT32, 0);
    code.descending = true;
    schema_of(vec![
        md5,
        field("ts", FieldType::TIMESTAMP, 0),
        day,
        code,
        field("ok", FieldType::BOOL, 0),
        field("site", FieldType::FIXED_STRING, 6),
    ])
}

fn spec_of(groups: &[(&str, TimeUnit)], aggregates: &[(AggregateFunction, &str)]) -> AggregationSpec {
    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(seed_schema());
    for (f, unit) in groups {
        let mut g = GroupKey::new();
        g.field = f.to_string();
        g.truncate = (*unit).into();
        spec.group_by.push(g);
    }
    for (function, input) in aggregates {
        let mut a = AggregateSpec::new();
        a.function = (*function).into();
        if let Some(q) = input.strip_prefix("cell:") {
            let mut cell = NumericCell::new();
            cell.family = b"f".to_vec();
            cell.qualifier = q.as_bytes().to_vec();
            cell.type_ = CellType::CELL_INT64.into();
            a.cell = MessageField::some(cell);
        } else {
            a.field = input.to_string();
        }
        spec.aggregates.push(a);
    }
    spec
}

fn compile_error(spec: &AggregationSpec) -> String {
    Aggregation::from_bytes(&spec.write_to_bytes().unwrap())
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_aggregations_are_refused_naming_what_is_wrong() {
    use AggregateFunction::*;
    let none = TimeUnit::TIME_UNIT_UNSPECIFIED;
    for (spec, expected) in [
        (spec_of(&[], &[(SUM, "md5url")]), "field 'md5url': sum of a md5 field"),
        (spec_of(&[], &[(MIN, "ok")]), "field 'ok': min of a bool field"),
        (spec_of(&[], &[(MAX, "site")]), "max of a fixed string field"),
        (spec_of(&[("nope", none)], &[(COUNT, "")]), "unknown field 'nope'"),
        (spec_of(&[], &[(SUM, "nope")]), "unknown field 'nope'"),
        (
            spec_of(&[("code", TimeUnit::DAY)], &[(COUNT, "")]),
            "only a timestamp field can be truncated",
        ),
        (
            spec_of(&[("code", none), ("code", none)], &[(COUNT, "")]),
            "grouped by more than once",
        ),
        (spec_of(&[], &[]), "at least one aggregate"),
        (spec_of(&[], &[(SUM, "")]), "sum needs a key field or a numeric cell"),
        (
            spec_of(&[], &[(AGGREGATE_FUNCTION_UNSPECIFIED, "")]),
            "no known function",
        ),
    ] {
        let err = compile_error(&spec);
        assert!(err.contains(expected), "{err} (expected {expected})");
    }
    let mut untyped = spec_of(&[], &[(SUM, "cell:q")]);
    untyped.aggregates[0].cell.as_mut().unwrap().type_ = CellType::CELL_TYPE_UNSPECIFIED.into();
    assert!(compile_error(&untyped).contains("sum(f:q): the cell's type"));
    let mut two_types = spec_of(&[], &[(SUM, "cell:q"), (MAX, "cell:q")]);
    two_types.aggregates[1].cell.as_mut().unwrap().type_ = CellType::CELL_DOUBLE.into();
    assert!(compile_error(&two_types).contains("read as two different types"));
    let mut too_many = spec_of(&[], &[(COUNT, "")]);
    too_many.max_groups = 2_000_000;
    assert!(compile_error(&too_many).contains("max_groups"));
    let mut future = spec_of(&[], &[(COUNT, "")]);
    future.format_version = 9;
    assert!(compile_error(&future).contains("unsupported format version 9 of aggregation"));
    // Bytes from outside: unknown fields, floods of repeated fields.
    let mut unknown = spec_of(&[], &[(COUNT, "")]).write_to_bytes().unwrap();
    unknown.extend_from_slice(&[0x78, 0x01]);
    let err = Aggregation::from_bytes(&unknown).unwrap_err().to_string();
    assert!(err.contains("field number 15 of AggregationSpec is unknown"), "{err}");
    let flood: Vec<u8> = [0x22, 0x00].repeat(10_000); // 10,000 empty AggregateSpecs
    let err = Aggregation::from_bytes(&flood).unwrap_err().to_string();
    assert!(err.contains("number of aggregates is 65, at most 64"), "{err}");
}

fn seed_key(schema: &Schema, ts: i64, code: i64, site: &str) -> Vec<u8> {
    use common::messages::{boolean, int, named_value, string};
    schema
        .encode(&[
            named_value("md5url", string(site)),
            named_value("ts", int(ts)),
            named_value("day", int(ts)),
            named_value("code", int(code)),
            named_value("ok", boolean(code < 400)),
            named_value("site", string(site)),
        ])
        .unwrap()
}

#[test]
fn groups_come_in_value_order_with_truncated_times_and_descending_fields() {
    use AggregateFunction::*;
    let schema = Schema::from_spec(&seed_schema()).unwrap();
    let day = 86_400_000;
    let spec = spec_of(
        &[("day", TimeUnit::DAY), ("code", TimeUnit::TIME_UNIT_UNSPECIFIED)],
        &[(COUNT, ""), (MIN, "ts"), (MAX, "code")],
    );
    let mut aggregator = Aggregator::new(Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap());
    for (ts, code) in [
        (3 * day + 5, 404),
        (day + 1, 200),
        (3 * day + 9, 200),
        (day + 7, 404),
        (day, 404),
    ] {
        aggregator.fold_row(&seed_key(&schema, ts, code, "a"), &[]).unwrap();
    }
    let answer = answer_of(&aggregator.finish().unwrap());
    let int = |v| Some(Num::Int(v));
    assert_eq!(
        answer,
        vec![
            (vec![G::Int(day), G::Int(200)], vec![int(1), int(day + 1), int(200)]),
            (vec![G::Int(day), G::Int(404)], vec![int(2), int(day), int(404)]),
            (
                vec![G::Int(3 * day), G::Int(200)],
                vec![int(1), int(3 * day + 9), int(200)]
            ),
            (
                vec![G::Int(3 * day), G::Int(404)],
                vec![int(1), int(3 * day + 5), int(404)]
            ),
        ]
    );
}

#[test]
fn time_buckets_at_the_ends_of_the_range_do_not_wrap() {
    use AggregateFunction::*;
    let schema = Schema::from_spec(&seed_schema()).unwrap();
    let day = 86_400_000;
    let spec = spec_of(&[("ts", TimeUnit::DAY)], &[(COUNT, "")]);
    let mut aggregator = Aggregator::new(Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap());
    // Before the fix the lowest bucket's start wrapped to a large positive time.
    for ts in [i64::MIN, i64::MIN + 1, i64::MIN + day, i64::MAX] {
        let mut key = seed_key(&schema, 0, 200, "a");
        let at = schema.fields()[schema.field_index("ts").unwrap()].location.offset();
        key[at..at + 8].copy_from_slice(&((ts as u64) ^ (1 << 63)).to_be_bytes()); // sign-flipped big-endian
        aggregator.fold_row(&key, &[]).unwrap();
    }
    let answer = answer_of(&aggregator.finish().unwrap());
    let lowest_full = (i64::MIN.div_euclid(day) + 1) * day;
    assert_eq!(
        answer.iter().map(|(g, v)| (g[0].clone(), v[0])).collect::<Vec<_>>(),
        vec![
            (G::Int(i64::MIN), Some(Num::Int(2))),
            (G::Int(lowest_full), Some(Num::Int(1))),
            (G::Int(i64::MAX.div_euclid(day) * day), Some(Num::Int(1))),
        ]
    );
}

#[test]
fn the_group_cap_is_an_error_naming_it() {
    use AggregateFunction::*;
    let schema = Schema::from_spec(&seed_schema()).unwrap();
    let mut spec = spec_of(&[("ts", TimeUnit::TIME_UNIT_UNSPECIFIED)], &[(COUNT, "")]);
    spec.max_groups = 3;
    let aggregation = Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap();
    let mut aggregator = Aggregator::new(aggregation.clone());
    for ts in 0..3 {
        aggregator.fold_row(&seed_key(&schema, ts, 200, "a"), &[]).unwrap();
    }
    // An existing group still folds; a new one is refused.
    aggregator.fold_row(&seed_key(&schema, 0, 200, "a"), &[]).unwrap();
    let err = aggregator
        .fold_row(&seed_key(&schema, 3, 200, "a"), &[])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "limit exceeded: number of groups of the aggregation (its max_groups cap) is 4, at most 3 allowed"
    );
    // The merge on the client is bounded by the same cap.
    let mut other = Aggregator::new(aggregation.clone());
    other.fold_row(&seed_key(&schema, 9, 200, "a"), &[]).unwrap();
    let mut client = Aggregator::new(aggregation);
    client.merge(&aggregator.take_partial().unwrap()).unwrap();
    assert!(client
        .merge(&other.take_partial().unwrap())
        .unwrap_err()
        .to_string()
        .contains("max_groups cap"));
}

#[test]
fn cells_that_are_not_numbers_are_errors_and_missing_cells_give_nothing() {
    use AggregateFunction::*;
    let schema = Schema::from_spec(&seed_schema()).unwrap();
    let spec = spec_of(&[], &[(COUNT, ""), (COUNT, "cell:q"), (SUM, "cell:q"), (AVG, "cell:q")]);
    let mut aggregator = Aggregator::new(Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap());
    let key = seed_key(&schema, 1, 200, "a");
    let slot = |value: Option<&[u8]>| {
        let mut s = [0u8; CELL_SLOT_BYTES];
        if let Some(v) = value {
            s[0] = v.len() as u8 + 1;
            s[1..1 + v.len()].copy_from_slice(v);
        }
        s
    };
    aggregator.fold_row(&key, &slot(Some(&5i64.to_be_bytes()))).unwrap();
    aggregator.fold_row(&key, &slot(None)).unwrap();
    let err = aggregator
        .fold_row(&key, &slot(Some(&[1, 2, 3])))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "field 'f:q': a cell of 3 bytes is not a long (8 bytes, as Bytes.toBytes writes it)"
    );
    let answer = answer_of(&aggregator.finish().unwrap());
    assert_eq!(
        answer,
        vec![(
            vec![],
            vec![
                Some(Num::Int(2)),
                Some(Num::Int(1)),
                Some(Num::Int(5)),
                Some(Num::Float(5.0))
            ]
        )]
    );
    // No row at all: one row, count 0, sum and avg NULL (as SQL without GROUP BY).
    let mut empty = Aggregator::new(Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap());
    assert_eq!(
        answer_of(&empty.finish().unwrap()),
        vec![(vec![], vec![Some(Num::Int(0)), Some(Num::Int(0)), None, None])]
    );
}

#[test]
fn corrupt_partials_and_batches_are_refused() {
    use AggregateFunction::*;
    let schema = Schema::from_spec(&seed_schema()).unwrap();
    let spec = spec_of(&[("code", TimeUnit::TIME_UNIT_UNSPECIFIED)], &[(SUM, "ts")]);
    let aggregation = Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap();
    let mut aggregator = Aggregator::new(aggregation.clone());
    aggregator.fold_row(&seed_key(&schema, 1, 200, "a"), &[]).unwrap();
    let partial = aggregator.take_partial().unwrap();
    let mut client = Aggregator::new(aggregation.clone());
    for bad in [&partial[..partial.len() - 1], &partial[..3], &[][..]] {
        let err = client.merge(bad).unwrap_err().to_string();
        assert!(err.starts_with("corrupt serialized aggregate partial state"), "{err}");
    }
    let other = spec_of(&[], &[(SUM, "ts"), (COUNT, "")]);
    let mut stranger = Aggregator::new(Aggregation::from_bytes(&other.write_to_bytes().unwrap()).unwrap());
    assert!(stranger.merge(&partial).unwrap_err().to_string().contains("aggregates"));
    let err = client.fold_batch(&[0; 10], 1).unwrap_err().to_string();
    assert!(err.contains("10 bytes are not 1 rows"), "{err}");
}

#[test]
fn a_fold_of_index_rows_skips_rows_the_index_could_not_have_written() {
    use common::messages::{boolean, int, named_value, string};
    use hbase_rowkey::key::Catalog;
    use hbase_rowkey::proto::rowkey::{IndexRowsOf, IndexSpec, IndexState, TableCatalog};
    let data_spec = common::messages::seed_schema(4);
    let mut index = IndexSpec::new();
    index.name = "by_code".into();
    index.fields = vec!["code".into()];
    index.salt_buckets = 3;
    index.state = IndexState::ACTIVE.into();
    let mut catalog_spec = TableCatalog::new();
    catalog_spec.schema = MessageField::some(data_spec);
    catalog_spec.indexes = vec![index];
    let catalog = Catalog::from_spec(&catalog_spec).unwrap();
    let (data, by_code) = (catalog.schema(), &catalog.indexes()[0]);
    let row = |n: i64| {
        data.encode(&[
            named_value("md5url", string(&format!("u{n}"))),
            named_value("sitecode", string("s")),
            named_value("status", int(0)),
            named_value("code", int(200 + n)),
            named_value("sdate", int(20161209)),
            named_value("type", int(1)),
            named_value("free", boolean(false)),
            named_value("close", boolean(true)),
            named_value("queue", int(n)),
            named_value("scantype", int(0)),
        ])
        .unwrap()
    };
    let own: Vec<Vec<u8>> = (0..5).map(|n| by_code.index_key(data, &row(n)).unwrap()).collect();
    let data_salt_at = by_code
        .schema()
        .field_index(hbase_rowkey::key::DATA_SALT_FIELD)
        .unwrap();
    let data_salt_at = by_code.schema().fields()[data_salt_at].location.offset();
    let mut wrong_index_salt = own[0].clone();
    wrong_index_salt[0] = (wrong_index_salt[0] + 1) % 3;
    let mut wrong_data_salt = own[1].clone();
    wrong_data_salt[data_salt_at] = (wrong_data_salt[data_salt_at] + 1) % 4;

    let mut spec = AggregationSpec::new();
    spec.schema = MessageField::some(by_code.schema().canonical_spec().clone());
    let mut count = AggregateSpec::new();
    count.function = AggregateFunction::COUNT.into();
    spec.aggregates.push(count);
    let mut of = IndexRowsOf::new();
    of.catalog = MessageField::some(catalog_spec.clone());
    of.index = 0;
    spec.index_rows_of = MessageField::some(of);
    let fold = |spec: &AggregationSpec| {
        let mut aggregator = Aggregator::new(Aggregation::from_bytes(&spec.write_to_bytes().unwrap()).unwrap());
        let batch: Vec<u8> = own
            .iter()
            .chain([&wrong_index_salt, &wrong_data_salt])
            .flatten()
            .copied()
            .collect();
        aggregator.fold_batch(&batch, own.len() + 2).unwrap();
        answer_of(&aggregator.finish().unwrap())[0].1[0]
    };
    assert_eq!(fold(&spec), Some(Num::Int(5)), "the two foreign rows are not counted");
    spec.index_rows_of = MessageField::none();
    assert_eq!(
        fold(&spec),
        Some(Num::Int(7)),
        "without the index, every row of the key length is"
    );

    let mut wrong = spec.clone();
    let mut of = IndexRowsOf::new();
    of.catalog = MessageField::some(catalog_spec);
    of.index = 1;
    wrong.index_rows_of = MessageField::some(of);
    let err = Aggregation::from_bytes(&wrong.write_to_bytes().unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("index number 1"), "{err}");
}
