//! The planner's choices, pinned: for the demo's queries over seed 000's table (plain and salted,
//! with the demo's indexes) and for random queries over random schemas (fixed seeds), the chosen
//! plan in a canonical form (the key ranges in hex, which conditions the ranges enforce and which
//! are filtered per row, whether the skip scan reads them, and for a table with indexes which
//! source is read and whether it is covered) must be exactly the one recorded in
//! `tests/vectors/plan_choices.txt`. The explain text is not part of it.
//!
//! The file was written by the planner it pins; after a deliberate change of plans, rewrite it
//! with `PLAN_CHOICES_WRITE=1 cargo test --release --test plan_choices` and review the diff.

mod common;

use std::fmt::Write as _;

use common::messages::{any_of_spec, condition, int, plan_bytes, predicate_spec, string};
use common::*;
use hbase_rowkey::proto::rowkey::{
    comparator_spec::Kind, Condition, IndexSpec, IndexState, Op, PredicateSpec, ScanPlan, SchemaSpec, TableCatalog,
    TablePlan, TablePlanRequest, Value,
};
use protobuf::Message;

const FILE: &str = "tests/vectors/plan_choices.txt";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn value_text(v: &Value) -> String {
    use hbase_rowkey::proto::rowkey::value::Kind as VK;
    match &v.kind {
        Some(VK::IntValue(i)) => i.to_string(),
        Some(VK::BoolValue(b)) => b.to_string(),
        Some(VK::StringValue(s)) => format!("{s:?}"),
        Some(VK::BytesValue(b)) => format!("x{}", hex(b)),
        None => "null".into(),
        Some(other) => format!("{other:?}"),
    }
}

/// A condition as `field OP v1,v2` (the test's own form, independent of the crate's text).
fn condition_text(c: &Condition) -> String {
    let op = c.op.enum_value().map_or_else(|n| n.to_string(), |op| format!("{op:?}"));
    let values: Vec<String> = c.values.iter().map(value_text).collect();
    format!("{} {op} {}", c.field, values.join(","))
}

fn conditions_text(conditions: &[Condition]) -> String {
    if conditions.is_empty() {
        return "-".into();
    }
    conditions.iter().map(condition_text).collect::<Vec<_>>().join(" & ")
}

fn schema_text(spec: &SchemaSpec) -> String {
    let fields: Vec<String> = spec
        .fields
        .iter()
        .map(|f| {
            let ty = f
                .type_
                .enum_value()
                .map_or_else(|n| n.to_string(), |t| format!("{t:?}"));
            let width = if f.width == 0 {
                String::new()
            } else {
                format!("({})", f.width)
            };
            let desc = if f.descending { " desc" } else { "" };
            format!("{} {ty}{width}{desc}", f.name)
        })
        .collect();
    let mut s = fields.join(", ");
    if let Some(salt) = spec.salt.as_ref() {
        let _ = write!(s, "; salt {} over [{}]", salt.buckets, salt.fields.join(","));
    }
    s
}

/// The choices of a scan plan: ranges, capped, enforced vs filtered conditions, skip scan.
fn scan_plan_text(out: &mut String, conditions: Option<&[Condition]>, plan: &ScanPlan) {
    let _ = writeln!(
        out,
        "  ranges {}{}",
        plan.ranges.len(),
        if plan.capped { " capped" } else { "" }
    );
    for r in &plan.ranges {
        let stop = if r.stop.is_empty() {
            "end".to_owned()
        } else {
            hex(&r.stop)
        };
        let _ = writeln!(out, "    [{}, {stop})", hex(&r.start));
    }
    match plan.residual.as_ref().and_then(|r| r.kind.as_ref()) {
        Some(Kind::Predicate(p)) if !p.any_of.is_empty() => {
            let _ = writeln!(out, "  filtered: OR of {} branches", p.any_of.len());
        }
        Some(Kind::Predicate(p)) => {
            let filtered = &p.predicate.get_or_default().conditions;
            let enforced: Vec<Condition> = conditions
                .unwrap_or_default()
                .iter()
                .filter(|c| !filtered.contains(c))
                .cloned()
                .collect();
            let _ = writeln!(out, "  enforced: {}", conditions_text(&enforced));
            let _ = writeln!(out, "  filtered: {}", conditions_text(filtered));
        }
        other => {
            let _ = writeln!(out, "  residual: {other:?}");
        }
    }
    let _ = writeln!(out, "  skip_scan {} no_residual {}", plan.skip_scan, plan.no_residual);
}

fn scan_case(out: &mut String, name: &str, schema: &SchemaSpec, conditions: Vec<Condition>, max_ranges: u32) {
    let _ = writeln!(out, "scan {name}");
    let _ = writeln!(out, "  schema {}", schema_text(schema));
    let _ = writeln!(out, "  query {}", conditions_text(&conditions));
    let _ = writeln!(out, "  max_ranges {max_ranges}");
    let request = plan_bytes(predicate_spec(schema.clone(), conditions.clone()), max_ranges);
    match hbase_rowkey::plan_wire::plan_request(&request) {
        Ok(bytes) => scan_plan_text(out, Some(&conditions), &ScanPlan::parse_from_bytes(&bytes).unwrap()),
        Err(e) => {
            let _ = writeln!(out, "  error {:?}", e.class());
        }
    }
}

fn union_case(out: &mut String, name: &str, schema: &SchemaSpec, branches: Vec<Vec<Condition>>, max_ranges: u32) {
    let _ = writeln!(out, "union {name}");
    let _ = writeln!(out, "  schema {}", schema_text(schema));
    for b in &branches {
        let _ = writeln!(out, "  branch {}", conditions_text(b));
    }
    let _ = writeln!(out, "  max_ranges {max_ranges}");
    let request = plan_bytes(any_of_spec(schema.clone(), branches), max_ranges);
    match hbase_rowkey::plan_wire::plan_request(&request) {
        Ok(bytes) => scan_plan_text(out, None, &ScanPlan::parse_from_bytes(&bytes).unwrap()),
        Err(e) => {
            let _ = writeln!(out, "  error {:?}", e.class());
        }
    }
}

fn table_case(out: &mut String, name: &str, catalog: &TableCatalog, conditions: Vec<Condition>, families: &[&[u8]]) {
    let _ = writeln!(out, "table {name}");
    let _ = writeln!(out, "  query {}", conditions_text(&conditions));
    let _ = writeln!(out, "  families {}", families.len());
    let mut request = TablePlanRequest::new();
    request.catalog = protobuf::MessageField::some(catalog.clone());
    let mut p = PredicateSpec::new();
    p.conditions = conditions.clone();
    request.predicate = protobuf::MessageField::some(p);
    request.families = families.iter().map(|f| f.to_vec()).collect();
    match hbase_rowkey::plan_wire::plan_table_request(&request.write_to_bytes().unwrap()) {
        Ok(bytes) => {
            let plan = TablePlan::parse_from_bytes(&bytes).unwrap();
            // A plan to read by is the plan to show, without its text.
            request.no_explain = true;
            let to_read = TablePlan::parse_from_bytes(
                &hbase_rowkey::plan_wire::plan_table_request(&request.write_to_bytes().unwrap()).unwrap(),
            )
            .unwrap();
            let mut shown = plan.clone();
            shown.explain.clear();
            shown.plan.mut_or_insert_default().explain.clear();
            assert_eq!(to_read, shown, "{name}: the plan to read by is the plan explained");
            assert!(
                !plan.explain.is_empty() && !plan.plan.explain.is_empty(),
                "{name}: explained"
            );
            let source = if plan.index.is_empty() {
                "data table"
            } else {
                plan.index.as_str()
            };
            let _ = writeln!(out, "  source {source} covered {}", plan.covered);
            scan_plan_text(out, Some(&conditions), plan.plan.get_or_default());
        }
        Err(e) => {
            let _ = writeln!(out, "  error {:?}", e.class());
        }
    }
}

/// Seed 000's key, salted over md5url into 16 buckets when `salted`.
fn seed_schema(salted: bool) -> SchemaSpec {
    messages::seed_schema(if salted { 16 } else { 0 })
}

fn index(name: &str, fields: &[&str], buckets: u32, include_f: bool) -> IndexSpec {
    let mut index = IndexSpec::new();
    index.name = name.into();
    index.fields = fields.iter().map(|f| f.to_string()).collect();
    index.salt_buckets = buckets;
    index.state = IndexState::ACTIVE.into();
    if include_f {
        index.include_families.push(b"f".to_vec());
    }
    index
}

/// The demo's tables: the plain one with its three indexes, the salted one with its salted index.
fn seed_catalog(salted: bool) -> TableCatalog {
    let mut catalog = TableCatalog::new();
    catalog.schema = protobuf::MessageField::some(seed_schema(salted));
    catalog.indexes = if salted {
        vec![index("by_date_code", &["sdate", "code"], 16, true)]
    } else {
        vec![
            index("by_date_code", &["sdate", "code"], 0, true),
            index("by_type_queue_free", &["type", "queue", "free"], 0, false),
            index("by_site_date", &["sitecode", "sdate"], 0, false),
        ]
    };
    catalog
}

fn ints(field: &str, op: Op, values: &[i64]) -> Condition {
    condition(field, op, values.iter().map(|&v| int(v)).collect())
}

fn strs(field: &str, op: Op, values: &[&str]) -> Condition {
    condition(field, op, values.iter().map(|v| string(v)).collect())
}

/// The demo's queries (DemoQuery.all): (name, salted, conditions).
fn demo_queries() -> Vec<(&'static str, bool, Vec<Condition>)> {
    let url7 = "9d6b4f2f0c2fa30ab2a0f5a1b3d3c9e7";
    let some = ["u0", "u7919", "u15838", "u23757", "u31676"];
    vec![
        (
            "seed 1: md5url = ? AND sdate = ?",
            false,
            vec![
                strs("md5url", Op::EQ, &["00a18048ed95f1c057fccc8928ddf610"]),
                ints("sdate", Op::EQ, &[20161208]),
            ],
        ),
        (
            "seed 2: sdate = ? AND code = 404",
            false,
            vec![ints("sdate", Op::EQ, &[20161209]), ints("code", Op::EQ, &[404])],
        ),
        (
            "seed 3: md5url = ? AND ? < sdate < ?",
            false,
            vec![
                strs("md5url", Op::EQ, &[url7]),
                ints("sdate", Op::GT, &[20161203]),
                ints("sdate", Op::LT, &[20161215]),
            ],
        ),
        (
            "md5url IN (5) AND code = 404",
            false,
            vec![strs("md5url", Op::IN, &some), ints("code", Op::EQ, &[404])],
        ),
        (
            "md5url IN (5) AND status = -1 AND code IN (404, 503)",
            false,
            vec![
                strs("md5url", Op::IN, &some),
                ints("status", Op::EQ, &[-1]),
                ints("code", Op::IN, &[404, 503]),
            ],
        ),
        (
            "salted: md5url = ? AND sdate >= ?",
            true,
            vec![strs("md5url", Op::EQ, &[url7]), ints("sdate", Op::GE, &[20161220])],
        ),
        (
            "salted: sdate = ? AND code = 503",
            true,
            vec![ints("sdate", Op::EQ, &[20161231]), ints("code", Op::EQ, &[503])],
        ),
        (
            "no leading field: type IN (1,2) AND queue = 0 AND free",
            false,
            vec![
                ints("type", Op::IN, &[1, 2]),
                ints("queue", Op::EQ, &[0]),
                condition("free", Op::EQ, vec![common::messages::boolean(true)]),
            ],
        ),
    ]
}

fn all_cases() -> String {
    let mut out = String::new();
    // The demo's queries: on their own table (scan plan), on both tables, and through the table
    // planner over the demo's indexes (the columns of family f, and no columns named).
    for (name, salted, conditions) in demo_queries() {
        for s in [false, true] {
            let tag = if s { "salted" } else { "plain" };
            let _ = salted;
            scan_case(
                &mut out,
                &format!("demo {name} [{tag}]"),
                &seed_schema(s),
                conditions.clone(),
                0,
            );
            for families in [&[b"f".as_slice()][..], &[]] {
                table_case(
                    &mut out,
                    &format!("demo {name} [{tag} catalog]"),
                    &seed_catalog(s),
                    conditions.clone(),
                    families,
                );
            }
        }
    }
    // Range expansions and caps on the seed table.
    let seed = seed_schema(false);
    for (low, high) in [(1, 9), (1, 60_000), (1, 1 << 20)] {
        let conditions = vec![
            strs("md5url", Op::EQ, &["u"]),
            strs("sitecode", Op::EQ, &["s"]),
            ints("status", Op::EQ, &[1]),
            ints("code", Op::EQ, &[404]),
            ints("sdate", Op::BETWEEN, &[low, high]),
            ints("type", Op::EQ, &[2]),
        ];
        for max_ranges in [0, 4] {
            scan_case(&mut out, "seed range", &seed, conditions.clone(), max_ranges);
            scan_case(
                &mut out,
                "seed range salted",
                &seed_schema(true),
                conditions.clone(),
                max_ranges,
            );
        }
    }
    // The demo's OR of two of its queries.
    let demo = demo_queries();
    for s in [false, true] {
        union_case(
            &mut out,
            "demo seed 1 OR seed 2",
            &seed_schema(s),
            vec![demo[0].2.clone(), demo[1].2.clone()],
            0,
        );
    }

    // Random queries on random schemas (the shared generators, fixed seeds).
    let mut rng = Rng::new(20_240_611);
    for case in 0..160 {
        let (def, _, rows, _) = random_table(&mut rng, 8);
        let spec = def.spec();
        let mut conds = random_predicate(&mut rng, &def);
        if rng.chance(60) {
            // A condition on the leading field, the case ranges are for.
            conds.push(Cond {
                field: 0,
                op: if def.fields[0].is_ordered() && rng.chance(40) {
                    Op::LE
                } else {
                    Op::EQ
                },
                values: vec![rows[rng.below(rows.len())][0].clone()],
            });
        }
        let conditions: Vec<Condition> = conds.iter().map(|c| c.to_proto(&def)).collect();
        let max_ranges = *rng.pick(&[0u32, 0, 3, 50]);
        scan_case(&mut out, &format!("random {case}"), &spec, conditions, max_ranges);
    }
    for case in 0..40 {
        let def = random_schema(&mut rng);
        let branches: Vec<Vec<Condition>> = (0..1 + rng.below(3))
            .map(|_| {
                random_predicate(&mut rng, &def)
                    .iter()
                    .map(|c| c.to_proto(&def))
                    .collect()
            })
            .collect();
        let max_ranges = *rng.pick(&[0u32, 5]);
        union_case(
            &mut out,
            &format!("random union {case}"),
            &def.spec(),
            branches,
            max_ranges,
        );
    }
    // Random queries through the table planner over the seed catalogs.
    let seed_def = SchemaDef::fields_of(&seed_schema(false));
    for case in 0..60 {
        let salted = rng.chance(30);
        let conditions: Vec<Condition> = random_predicate(&mut rng, &seed_def)
            .iter()
            .map(|c| c.to_proto(&seed_def))
            .collect();
        let families: &[&[u8]] = if rng.chance(50) { &[b"f"] } else { &[] };
        table_case(
            &mut out,
            &format!("random table {case}{}", if salted { " salted" } else { "" }),
            &seed_catalog(salted),
            conditions,
            families,
        );
    }
    out
}

#[test]
fn the_planner_makes_the_recorded_choices() {
    let path = format!("{}/{FILE}", env!("CARGO_MANIFEST_DIR"));
    let actual = all_cases();
    if std::env::var_os("PLAN_CHOICES_WRITE").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let cases = expected.lines().filter(|l| !l.starts_with(' ')).count();
    assert!(cases >= 300, "{path} holds only {cases} cases");
    if actual != expected {
        let (i, (want, got)) = expected
            .lines()
            .zip(actual.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((expected.lines().count().min(actual.lines().count()), ("<end>", "<end>")));
        let case = expected.lines().take(i + 1).filter(|l| !l.starts_with(' ')).last();
        panic!(
            "plans differ from {FILE} at line {}, in case {case:?}:\n  recorded: {want}\n  now:      {got}",
            i + 1
        );
    }
}
