//! Every line of a plan's `explain` text: a scan plan's ranges, buckets, enforced and filtered
//! conditions and the scan choice's reason; an OR's branches and their union; a table plan's
//! source and alternatives; a join's streams and their roles. The planner decides, this writes
//! what it decided; conditions are written by `text`, as a where clause is.

use std::fmt::Write as _;

use crate::key::Schema;
use crate::proto::rowkey::{Condition, IndexState, JoinPlan, KeyStreamSpec, PlanAlternative, PredicateSpec};
use crate::ranges::Plan;
use crate::text::{describe_conditions, hex};

use super::scan::OtherLengths;
use super::scan_choice::{Choice, Reason, ScanMethod, MAX_FREE_BYTES};
use super::source_choice::Exclusion;

/// What one branch of an OR read on its own, for the union's explanation.
pub(super) struct BranchEstimate {
    pub(super) ranges: usize,
    pub(super) capped: bool,
    pub(super) rows: f64,
}

/// A scan plan's explanation: [`describe_plan`] of the conditions the ranges enforce and those
/// left to the per-row filter (`filtered`), then the scan choice and its reason.
pub(super) fn describe_scan(
    schema: &Schema,
    plan: &Plan,
    conditions: &[Condition],
    filtered: &[Condition],
    unfiltered: Option<OtherLengths>,
    choice: &Choice,
) -> String {
    let enforced: Vec<Condition> = conditions.iter().filter(|c| !filtered.contains(c)).cloned().collect();
    let mut s = describe_plan(schema, plan, &enforced, filtered, unfiltered);
    s.push_str(&format!(
        "  {}: {}\n",
        if choice.method == ScanMethod::SkipScan {
            "SKIP SCAN"
        } else {
            "no skip scan"
        },
        describe_choice(schema, choice)
    ));
    s
}

/// An OR's explanation: each branch's own ranges and estimate, their sum, the union's ranges and
/// filter, and whether the union is read with the skip scan (`skip`: the first branch that would
/// be, and its choice).
pub(super) fn describe_union(
    schema: &Schema,
    union: &Plan,
    branches: &[PredicateSpec],
    estimates: &[BranchEstimate],
    table_rows: f64,
    skip: Option<(usize, Choice)>,
) -> String {
    let mut explain = format!(
        "UNION of {} AND-branches, read by one scan: their ranges merged in key order, each row \
         matched against the OR of the branches in one native call\n",
        branches.len()
    );
    let mut estimate = 0.0;
    for (i, (spec, own)) in branches.iter().zip(estimates).enumerate() {
        estimate += own.rows;
        explain.push_str(&format!(
            "  branch {}: {}: {} range(s){}, ~{:.0} rows\n",
            i + 1,
            describe_conditions(&spec.conditions),
            own.ranges,
            if own.capped { " (capped)" } else { "" },
            own.rows
        ));
    }
    explain.push_str(&format!(
        "  estimated rows read: at most {:.0} (the branches' sum; of a {table_rows:.0}-row table)\n",
        estimate.min(table_rows)
    ));
    explain.push_str(&describe_union_plan(schema, union, branches.len()));
    explain.push_str(&match skip {
        Some((i, choice)) => {
            let reason = format!("branch {}: {}", i + 1, describe_choice(schema, &choice));
            format!("  SKIP SCAN over the OR: the next key that can match is the nearest of the branches' ({reason})\n")
        }
        None => "  no skip scan: every branch's ranges enforce its conditions, or nothing is read\n".into(),
    });
    explain
}

/// The line a reversed single read of an index adds to its plan's explain, before
/// [`DESCENDING_WINDOWS`]: `salt_buckets` when the index is salted.
pub(super) fn index_in_data_order(index: &str, salt_buckets: Option<u32>) -> String {
    match salt_buckets {
        None => format!("  index {index} in data-key order: unsalted, each of its fields has one value\n"),
        Some(buckets) => format!(
            "  index {index} in data-key order within each of its {buckets} salt buckets: each of its fields has one \
             value;\n  the buckets read at once, their rows merged by data key\n"
        ),
    }
}

/// The line a reversed single read adds to its plan's explain.
pub(super) const DESCENDING_WINDOWS: &str =
    "  rows in descending data-key order: each region's ranges read in forward windows from the top down\n";

/// The line of a forward limit's single read of the data table.
pub(super) fn limited_scan(limit: u32) -> String {
    format!("  stops after {limit} rows: one scan in key order, its regions one after another\n")
}

/// A join plan in words: each branch's streams in lead (or turn) order with their estimates, how
/// they are combined, and the data-table scan of the branches with none.
pub(super) fn describe_join(plan: &JoinPlan, conditions: &[&[Condition]], limit: u32, reversed: bool) -> String {
    let cost: f64 = plan.branches.iter().map(|b| b.cost).sum();
    let mut s = match plan.branches.len() {
        1 => "JOIN: one AND-branch".to_owned(),
        n => format!("JOIN: union of {n} AND-branches (keys deduplicated)"),
    };
    s.push_str(if reversed {
        ", rows in descending data-key order (ranges read in forward windows from the top down)"
    } else {
        ", rows in data-key order"
    });
    if limit > 0 {
        let _ = write!(s, ", stops after {limit} rows");
    }
    let _ = writeln!(s, " (estimated rows read: {cost:.0})");
    let describe_stream = |s: &mut String, role: &str, stream: &KeyStreamSpec| {
        let source = if stream.index.is_empty() {
            "DATA TABLE".to_owned()
        } else {
            format!("INDEX {}", stream.index)
        };
        let ranges: usize = stream.points.iter().map(|p| p.ranges.len()).sum();
        let _ = writeln!(
            s,
            "    {role} {source} {}: ~{:.0} keys, {ranges} range(s)",
            describe_conditions(&stream.conditions),
            stream.estimated_rows
        );
    };
    for (i, (branch, conditions)) in plan.branches.iter().zip(conditions).enumerate() {
        let _ = writeln!(
            s,
            "  branch {}: {} (estimated {:.0})",
            i + 1,
            describe_conditions(conditions.iter()),
            branch.cost
        );
        let streams = &branch.streams;
        if streams.is_empty() {
            s.push_str("    no index or data-table prefix fixes a condition: ");
            if plan.data_scan_branches.len() == 1 {
                let text = branch.data_plan.explain.trim().replace('\n', "\n      ");
                let _ = writeln!(s, "DATA TABLE {text}");
            } else {
                s.push_str("read by the one data-table scan below\n");
            }
            continue;
        }
        let relays = branch.relay;
        if relays {
            s.push_str(
                "    relay: each stream holds every match; in turn from the first, each reads on from where the last\n    \
                 stopped (the server looking at a bounded number of rows per read) until one reaches its end:\n",
            );
        } else if streams.len() > 1 {
            s.push_str("    leapfrog intersection, in turn from the lead each seeks to the highest key:\n");
        }
        for (j, stream) in streams.iter().enumerate() {
            let role = match (streams.len(), relays, j) {
                (1, _, _) => "stream".to_owned(),
                (_, true, j) => format!("turn {}", j + 1),
                (_, false, 0) => "lead  ".to_owned(),
                _ => "follow".to_owned(),
            };
            describe_stream(&mut s, &role, stream);
        }
        if relays || streams.len() == 1 {
            // A data-table stream's rows are the data rows; an index's hold every key field too.
            let rows = if streams.iter().all(|stream| stream.index.is_empty()) {
                "rows"
            } else {
                "index rows"
            };
            let _ = writeln!(
                s,
                "    its {rows} filtered with the whole branch on the server (they hold every key field)"
            );
        }
        for stream in &branch.left_out {
            describe_stream(&mut s, "not used (checked on the other streams' rows):", stream);
        }
        s.push_str(if streams.iter().any(|stream| stream.covered && stream.index.is_empty()) {
            "    each key is checked against the whole branch; the stream reads the data rows themselves (no Get)\n"
        } else if streams.iter().any(|stream| stream.covered) {
            "    each key is checked against the whole branch; covered stream: a VERIFIED index row answers for its data\n    \
             row (no Get), another's data row is read\n"
        } else {
            "    each key is checked against the whole branch, then its data row read\n"
        });
    }
    if plan.data_scan_branches.len() > 1 {
        let numbers: Vec<String> = plan.data_scan_branches.iter().map(|i| (i + 1).to_string()).collect();
        let text = plan.data_scan.explain.trim().replace('\n', "\n    ");
        let _ = writeln!(s, "  one DATA TABLE scan for branches {}: {text}", numbers.join(" "));
    }
    s
}

/// Why a source was not chosen, as its alternative's note.
pub(super) fn exclusion_note(exclusion: Exclusion) -> String {
    match exclusion {
        Exclusion::NotActive(state) => not_read_because(state).into(),
        Exclusion::Hint => "excluded by the query's index hint".into(),
        Exclusion::ReadsMore => "reads more".into(),
    }
}

/// Why the scan choice chose its method, for `explain()`.
fn describe_choice(schema: &Schema, choice: &Choice) -> String {
    let fields = schema.fields();
    match &choice.reason {
        Reason::NothingToRead => "nothing to read".into(),
        Reason::AllEnforced => "the ranges enforce every condition: nothing to skip".into(),
        Reason::Filtered {
            field,
            free,
            varying,
            salt_varies,
        } => {
            let free = *free;
            let mut before = varying
                .iter()
                .map(|&i| fields[i].name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            if *salt_varies {
                before = if before.is_empty() {
                    "the salt byte".into()
                } else {
                    format!("the salt byte, {before}")
                };
            }
            let name = &fields[*field].name;
            if free == 0 {
                format!("'{name}' comes right after the bytes each range fixes: runs of failing rows seek to the next key that can match")
            } else if free <= MAX_FREE_BYTES {
                format!(
                    "only {free} byte(s) ({before}) vary before '{name}' in each range: at most {} seeks per range",
                    1usize << (8 * free)
                )
            } else {
                format!(
                    "{free} bytes ({before}) vary before '{name}' in each range: the skip scan seeks where rows failing towards the same next key run on, and reads row by row where each row has its own"
                )
            }
        }
    }
}

/// The planner's explanation: what is read (ranges, buckets) and which conditions the ranges
/// enforce or leave to the per-row filter.
/// `unfiltered`: the rows are read with no filter (every condition enforced), and why.
fn describe_plan(
    schema: &Schema,
    plan: &Plan,
    enforced: &[Condition],
    filtered: &[Condition],
    unfiltered: Option<OtherLengths>,
) -> String {
    let mut s = describe_ranges(schema, plan);
    if plan.ranges.is_empty() {
        return s;
    }
    let enforced = if enforced.is_empty() {
        "none".to_owned()
    } else {
        describe_conditions(enforced)
    };
    let _ = writeln!(s, "  enforced by the ranges: {enforced}");
    let key_length = schema.key_length();
    let _ = if let Some(why) = unfiltered {
        writeln!(
            s,
            "  filtered per row: nothing ({})",
            match why {
                OtherLengths::SkippedByFold =>
                    "the fold skips rows of another key length, so the scan has no per-row filter",
                _ => "an index table holds only keys of its schema",
            }
        )
    } else if filtered.is_empty() {
        writeln!(s, "  filtered per row (native): key length = {key_length}")
    } else {
        writeln!(
            s,
            "  filtered per row (native): {} AND key length = {key_length}",
            describe_conditions(filtered)
        )
    };
    s
}

/// What is read: nothing, the full table or the ranges (the first few shown), salt buckets, the cap.
fn describe_ranges(schema: &Schema, plan: &Plan) -> String {
    let mut s = String::new();
    if plan.ranges.is_empty() {
        let _ = writeln!(
            s,
            "no row can match: the conditions contradict each other; nothing is read"
        );
        return s;
    }
    let full = plan.ranges.len() == 1 && plan.ranges[0].start.is_empty() && plan.ranges[0].stop.is_none();
    if full {
        let _ = writeln!(
            s,
            "FULL SCAN: no condition on the leading key fields narrows the rows read"
        );
    } else {
        let _ = writeln!(s, "RANGE SCAN over {} key range(s)", plan.ranges.len());
    }
    if let (Some(read), Some(salt)) = (plan.buckets_read, schema.salt()) {
        let _ = writeln!(s, "  salt buckets read: {read} of {}", salt.buckets);
    }
    if plan.capped {
        let _ = writeln!(
            s,
            "  capped: the expansion would exceed {} ranges, a covering range is read instead",
            plan.max_ranges
        );
    }
    const SHOWN: usize = 8;
    for r in plan.ranges.iter().take(SHOWN) {
        let start = if r.start.is_empty() {
            "(start of table)".to_owned()
        } else {
            hex(&r.start)
        };
        let stop = r.stop.as_deref().map_or_else(|| "(end of table)".to_owned(), hex);
        let _ = writeln!(s, "  [{start}, {stop})");
    }
    if plan.ranges.len() > SHOWN {
        let _ = writeln!(s, "  ... {} more", plan.ranges.len() - SHOWN);
    }
    s
}

/// The union plan of an OR of `branches` AND-branches: the merged ranges, and the per-row filter.
fn describe_union_plan(schema: &Schema, plan: &Plan, branches: usize) -> String {
    let mut s = describe_ranges(schema, plan);
    if !plan.ranges.is_empty() {
        let _ = writeln!(
            s,
            "  filtered per row (native): the OR of the {branches} branches AND key length = {}",
            schema.key_length()
        );
    }
    s
}

/// The table plan's explanation: the source read, its scan plan's, and every alternative's estimate.
pub(super) fn describe_table_plan(chosen: &str, covered: bool, plan: &str, alternatives: &[PlanAlternative]) -> String {
    let mut s = if chosen.is_empty() {
        "DATA TABLE ".to_owned()
    } else {
        format!(
            "INDEX {chosen} ({}) ",
            if covered {
                "covered: the index rows answer alone"
            } else {
                "each row's data row is read"
            }
        )
    };
    s.push_str(plan);
    s.push_str("  alternatives (estimated rows read):\n");
    for a in alternatives {
        let name = if a.index.is_empty() {
            "data table"
        } else {
            a.index.as_str()
        };
        let chosen_mark = if a.index == chosen { "  <- chosen" } else { "" };
        let note = if a.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", a.note)
        };
        s.push_str(&format!("    {name}: {:.0}{note}{chosen_mark}\n", a.estimated_rows));
    }
    s
}

/// Why the planner does not read an index that is not ACTIVE.
pub(super) fn not_read_because(state: IndexState) -> &'static str {
    match state {
        IndexState::DROPPING => "DROPPING: maintained while its table exists, never read again",
        _ => "still BUILDING: maintained on writes, not read until its backfill ends",
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan_choice::choose;
    use super::*;
    use crate::key::Predicate;
    use crate::limits::DEFAULT_MAX_RANGES;
    use crate::proto::rowkey::{value::Kind as ValueKind, FieldSpec, FieldType, Op, SaltSpec, SchemaSpec, Value};
    use crate::ranges::plan;

    fn schema(fields: &[(&str, FieldType, u32)], salt: Option<u32>) -> Schema {
        let mut spec = SchemaSpec::new();
        for (name, ty, width) in fields {
            let mut f = FieldSpec::new();
            f.name = name.to_string();
            f.type_ = (*ty).into();
            f.width = *width;
            spec.fields.push(f);
        }
        if let Some(buckets) = salt {
            let mut s = SaltSpec::new();
            s.buckets = buckets;
            s.fields = vec![fields[0].0.to_string()];
            spec.salt = protobuf::MessageField::some(s);
        }
        Schema::from_spec(&spec).unwrap()
    }

    fn cond(field: &str, op: Op, values: &[ValueKind]) -> Condition {
        let mut c = Condition::new();
        c.field = field.into();
        c.op = op.into();
        c.values = values
            .iter()
            .map(|k| {
                let mut v = Value::new();
                v.kind = Some(k.clone());
                v
            })
            .collect();
        c
    }

    /// The scan choice of the conditions, with its reason as `explain()` writes it.
    struct Described {
        method: ScanMethod,
        reason: String,
    }

    fn method(schema: &Schema, conditions: &[Condition]) -> Described {
        let predicate = Predicate::from_conditions(schema, conditions).unwrap();
        let choice = choose(schema, &predicate, &plan(schema, &predicate, DEFAULT_MAX_RANGES));
        Described {
            method: choice.method,
            reason: describe_choice(schema, &choice),
        }
    }

    fn int(v: i64) -> ValueKind {
        ValueKind::IntValue(v)
    }

    /// The seed's table, shortened: md5url(8), sitecode, status, code, sdate, type, free, close.
    fn seed() -> Schema {
        schema(
            &[
                ("md5url", FieldType::MD5, 8),
                ("sitecode", FieldType::JAVA_HASH, 0),
                ("status", FieldType::INT32, 0),
                ("code", FieldType::INT32, 0),
                ("sdate", FieldType::INT32, 0),
                ("type", FieldType::INT32, 0),
                ("free", FieldType::BOOL, 0),
                ("close", FieldType::BOOL, 0),
            ],
            None,
        )
    }

    #[test]
    fn everything_enforced_by_the_ranges_is_not_skipped() {
        let c = method(
            &seed(),
            &[cond("md5url", Op::EQ, &[ValueKind::StringValue("u".into())])],
        );
        assert_eq!(c.method, ScanMethod::RangesAndFilter, "{}", c.reason);
        assert!(c.reason.contains("nothing to skip"));
    }

    #[test]
    fn wide_free_fields_before_the_condition_still_skip() {
        // No leading field: the whole md5url, sitecode, status vary before code.
        let c = method(
            &seed(),
            &[cond("code", Op::EQ, &[int(404)]), cond("sdate", Op::EQ, &[int(1)])],
        );
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(
            c.reason
                .contains("16 bytes (md5url, sitecode, status) vary before 'code'"),
            "{}",
            c.reason
        );
        // A fixed md5url, then sitecode and status still vary (8 bytes) before code.
        let c = method(
            &seed(),
            &[
                cond(
                    "md5url",
                    Op::IN,
                    &[ValueKind::StringValue("a".into()), ValueKind::StringValue("b".into())],
                ),
                cond("code", Op::EQ, &[int(404)]),
            ],
        );
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(c.reason.contains("8 bytes (sitecode, status)"), "{}", c.reason);
    }

    #[test]
    fn a_range_ends_the_ranges_and_its_varying_bytes_decide() {
        let query = |low: i64, high: i64| {
            vec![
                cond("md5url", Op::EQ, &[ValueKind::StringValue("u".into())]),
                cond("sitecode", Op::EQ, &[ValueKind::StringValue("s".into())]),
                cond("status", Op::EQ, &[int(1)]),
                cond("code", Op::EQ, &[int(404)]),
                cond("sdate", Op::BETWEEN, &[int(low), int(high)]),
                cond("type", Op::EQ, &[int(2)]),
            ]
        };
        // 60,000 dates (too many to expand into points) share their first two bytes: two vary.
        let c = method(&seed(), &query(1, 60_000));
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(
            c.reason.contains("only 2 byte(s) (sdate) vary before 'type'"),
            "{}",
            c.reason
        );
        // A wide range of dates: three bytes vary.
        let c = method(&seed(), &query(1, 1 << 20));
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(c.reason.contains("3 bytes (sdate) vary before 'type'"), "{}", c.reason);
    }

    #[test]
    fn a_one_byte_gap_is_skipped() {
        let s = schema(
            &[
                ("a", FieldType::INT32, 0),
                ("small", FieldType::FIXED_BYTES, 1),
                ("c", FieldType::INT32, 0),
            ],
            None,
        );
        let c = method(
            &s,
            &[cond("a", Op::EQ, &[int(1)]), cond("c", Op::IN, &[int(1), int(5)])],
        );
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(
            c.reason.contains("only 1 byte(s) (small) vary before 'c'"),
            "{}",
            c.reason
        );
        assert!(c.reason.contains("at most 256 seeks per range"), "{}", c.reason);
    }

    #[test]
    fn salted_tables() {
        let s = schema(
            &[
                ("b", FieldType::INT32, 0),
                ("f", FieldType::BOOL, 0),
                ("a", FieldType::INT32, 0),
            ],
            Some(16),
        );
        // Salted over b: a query without b reads every bucket, merged into one range.
        let c = method(&s, &[cond("a", Op::EQ, &[int(3)])]);
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(
            c.reason.contains("6 bytes (the salt byte, b, f) vary before 'a'"),
            "{}",
            c.reason
        );
        // With b fixed, one bucket and b are fixed: only the bool byte varies before a.
        let c = method(&s, &[cond("b", Op::EQ, &[int(3)]), cond("a", Op::EQ, &[int(3)])]);
        assert_eq!(c.method, ScanMethod::SkipScan, "{}", c.reason);
        assert!(c.reason.contains("only 1 byte(s) (f) vary before 'a'"), "{}", c.reason);
    }
}
