//! The planner's face to Java: parses plan requests, runs the planning layers below
//! (`key_ranges`, `scan_choice`, `source_choice`, `stream_choice`), and builds the replies
//! (`ScanPlan`, `TablePlan`, `JoinPlan`) with every line of their `explain` text. The one module of the planner that knows
//! the request and reply messages or writes text about a plan.

use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::eval::Comparator;
use crate::key::{Catalog, Predicate, Schema, FORMAT_VERSION};
use crate::limits::DEFAULT_MAX_RANGES;
use crate::plan::scan_choice::{self, Choice, Reason, ScanMethod, MAX_FREE_BYTES};
use crate::plan::source_choice::{self, estimated_rows, Exclusion, SourceQuery, DEFAULT_TABLE_ROWS};
use crate::plan::stream_choice::{self, branch_cost, is_prefix_range, kept_streams, stream_sources, StreamSource};
use crate::proto::rowkey::{
    comparator_spec::Kind as SpecKind, ComparatorSpec, Condition, IndexHint, IndexState, JoinBranchPlan, JoinPlan,
    JoinPlanRequest, KeyRange, KeyStreamSpec, PlanAlternative, PredicateComparatorSpec, PredicateSpec, ScanPlan,
    ScanPlanRequest, StreamPoint, TablePlan, TablePlanRequest,
};
use crate::ranges::{plan, plan_union, Plan};
use crate::text::{describe_conditions, hex};
use crate::wire;

/// A request's `max_ranges`: 0 asks for the default.
pub fn max_ranges_or_default(requested: u32) -> usize {
    match requested as usize {
        0 => DEFAULT_MAX_RANGES,
        n => n,
    }
}

/// Plans a serialized `ScanPlanRequest` into a serialized `ScanPlan` (what Java calls).
pub fn plan_request(request: &[u8]) -> Result<Vec<u8>> {
    let request: ScanPlanRequest = wire::parse(request, "scan plan request")?;
    let query = request.query.get_or_default();
    let comparator = Comparator::from_parsed(query)?;
    let Some(SpecKind::Predicate(spec)) = &query.kind else {
        return Err(Error::Corrupt {
            what: "scan plan request",
            detail: "the query is not a predicate".into(),
        });
    };
    if !spec.any_of.is_empty() {
        let max_ranges = max_ranges_or_default(request.max_ranges);
        let (_, out) = union_plan_message(&comparator, &spec.any_of, max_ranges);
        return wire::serialize(&out, "scan plan");
    }
    let predicate = comparator
        .predicate()
        .ok_or_else(|| Error::Internal("predicate comparator has no predicate".into()))?;
    let schema = comparator.schema();
    let max_ranges = max_ranges_or_default(request.max_ranges);
    let conditions = &spec.predicate.get_or_default().conditions;
    let (_, out) = plan_message(schema, predicate, conditions, max_ranges, false);
    wire::serialize(&out, "scan plan")
}

/// The plan of an OR predicate comparator (`any_of`, validated and compiled as `comparator`): the
/// union of its branches' ranges ([`plan_union`]), the whole OR as the residual filter, and the
/// explanation: each branch's own ranges and estimate, and the union's.
pub fn union_plan_message(comparator: &Comparator, branches: &[PredicateSpec], max_ranges: usize) -> (Plan, ScanPlan) {
    let schema = comparator.schema();
    let predicates = comparator.branches();
    let union = plan_union(schema, &predicates, max_ranges);
    let mut out = ScanPlan::new();
    out.ranges = range_messages(&union);
    let mut any_of = PredicateComparatorSpec::new();
    any_of.any_of = branches.to_vec();
    out.residual = protobuf::MessageField::some(residual_spec(schema, any_of));
    out.capped = union.capped;
    let mut explain = format!(
        "UNION of {} AND-branches, read by one scan: their ranges merged in key order, each row \
         matched against the OR of the branches in one native call\n",
        branches.len()
    );
    let table_rows = DEFAULT_TABLE_ROWS as f64;
    let mut estimate = 0.0;
    let mut skip_reason = None;
    for (i, (spec, predicate)) in branches.iter().zip(&predicates).enumerate() {
        let own = plan(schema, predicate, union.max_ranges);
        let rows = estimated_rows(schema, predicate, &own, table_rows, true);
        estimate += rows;
        let choice = scan_choice::choose(schema, predicate, &own);
        if skip_reason.is_none() && choice.method == ScanMethod::SkipScan {
            skip_reason = Some(format!("branch {}: {}", i + 1, describe_choice(schema, &choice)));
        }
        explain.push_str(&format!(
            "  branch {}: {}: {} range(s){}, ~{rows:.0} rows\n",
            i + 1,
            describe_conditions(&spec.conditions),
            own.ranges.len(),
            if own.capped { " (capped)" } else { "" }
        ));
    }
    explain.push_str(&format!(
        "  estimated rows read: at most {:.0} (the branches' sum; of a {table_rows:.0}-row table)\n",
        estimate.min(table_rows)
    ));
    explain.push_str(&describe_union_plan(schema, &union, branches.len()));
    // Rows inside the union of ranges that enforce their branch exactly all match: a skip scan
    // pays only when some branch leaves conditions to check, as for a single predicate.
    out.skip_scan = skip_reason.is_some() && !union.ranges.is_empty();
    explain.push_str(&match skip_reason.filter(|_| out.skip_scan) {
        Some(reason) => {
            format!("  SKIP SCAN over the OR: the next key that can match is the nearest of the branches' ({reason})\n")
        }
        None => "  no skip scan: every branch's ranges enforce its conditions, or nothing is read\n".into(),
    });
    out.explain = explain;
    (union, out)
}

/// The residual comparator of a plan over `schema`: a predicate comparator of `predicate`.
fn residual_spec(schema: &Schema, predicate: PredicateComparatorSpec) -> ComparatorSpec {
    let mut residual = ComparatorSpec::new();
    residual.format_version = FORMAT_VERSION;
    residual.schema = protobuf::MessageField::some(schema.canonical_spec().clone());
    residual.kind = Some(SpecKind::Predicate(predicate));
    residual
}

fn range_messages(plan: &Plan) -> Vec<KeyRange> {
    plan.ranges
        .iter()
        .map(|r| {
            let mut k = KeyRange::new();
            k.start = r.start.clone();
            k.stop = r.stop.clone().unwrap_or_default();
            k
        })
        .collect()
}

/// The plan of `conditions` (normalized as `predicate`) over `schema`, and its message: the ranges,
/// the residual comparator (over `schema`) for the conditions the ranges do not enforce exactly,
/// whether to read them with the skip scan (data and index scans alike), and the explanation.
/// `own_keys`: the table holds only keys of `schema` (an index table), so where the ranges enforce
/// every condition no filter is needed, not even the key-length check a data table's rows need.
pub fn plan_message(
    schema: &Schema,
    predicate: &Predicate,
    conditions: &[Condition],
    max_ranges: usize,
    own_keys: bool,
) -> (Plan, ScanPlan) {
    scan_plan_message(
        schema,
        predicate,
        plan(schema, predicate, max_ranges),
        conditions,
        own_keys,
        true,
    )
}

/// [`plan_message`] of a plan already made; without its explain text unless `explain`.
fn scan_plan_message(
    schema: &Schema,
    predicate: &Predicate,
    plan: Plan,
    conditions: &[Condition],
    own_keys: bool,
    explain: bool,
) -> (Plan, ScanPlan) {
    let residual_conditions: Vec<Condition> = conditions
        .iter()
        .filter(|c| {
            schema
                .field_index(&c.field)
                .is_ok_and(|i| !plan.exact_fields.contains(&i))
        })
        .cloned()
        .collect();
    let mut out = ScanPlan::new();
    out.ranges = range_messages(&plan);
    let mut residual_predicate = PredicateComparatorSpec::new();
    residual_predicate.predicate.mut_or_insert_default().conditions = residual_conditions.clone();
    out.residual = protobuf::MessageField::some(residual_spec(schema, residual_predicate));
    out.capped = plan.capped;
    out.no_residual = own_keys && residual_conditions.is_empty();
    let choice = scan_choice::choose(schema, predicate, &plan);
    out.skip_scan = choice.method == ScanMethod::SkipScan;
    if explain {
        let enforced: Vec<Condition> = conditions
            .iter()
            .filter(|c| !residual_conditions.contains(c))
            .cloned()
            .collect();
        out.explain = describe_plan(schema, &plan, &enforced, &residual_conditions, out.no_residual);
        out.explain.push_str(&format!(
            "  {}: {}\n",
            if out.skip_scan { "SKIP SCAN" } else { "no skip scan" },
            describe_choice(schema, &choice)
        ));
    }
    (plan, out)
}

/// Plans a serialized `TablePlanRequest` that carries its catalog into a serialized `TablePlan`.
pub fn plan_table_request(request: &[u8]) -> Result<Vec<u8>> {
    let request: TablePlanRequest = wire::parse(request, "table plan request")?;
    let catalog = Catalog::from_parsed_spec(request.catalog.get_or_default())?;
    let plan = plan_table(&catalog, &request)?;
    wire::serialize(&plan, "table plan")
}

/// Plans a serialized `TablePlanRequest` without a catalog over an already parsed `catalog` (the
/// client's catalog handle, what Java calls): no catalog shipped and validated again per plan.
pub fn plan_table_request_on(catalog: &Catalog, request: &[u8]) -> Result<Vec<u8>> {
    let request: TablePlanRequest = wire::parse(request, "table plan request")?;
    if request.catalog.is_some() {
        return Err(Error::Corrupt {
            what: "table plan request",
            detail: "a catalog in a request planned over a catalog handle".into(),
        });
    }
    let plan = plan_table(catalog, &request)?;
    wire::serialize(&plan, "table plan")
}

/// The plan of the request's query over `catalog`'s table and indexes
/// ([`source_choice::choose_source`]), as its reply.
pub fn plan_table(catalog: &Catalog, request: &TablePlanRequest) -> Result<TablePlan> {
    let conditions = &request.predicate.get_or_default().conditions;
    let table_rows = match request.table_rows {
        0 => DEFAULT_TABLE_ROWS,
        n => n,
    } as f64;
    let hint = request.hint.enum_value().map_err(|n| Error::Corrupt {
        what: "table plan request",
        detail: format!("unknown index hint {n}"),
    })?;
    if hint == IndexHint::USE_INDEX {
        match catalog.index(&request.hint_index) {
            None => {
                return Err(Error::InvalidIndex {
                    index: request.hint_index.clone(),
                    detail: "the query asks for it, but the table has no index of this name".into(),
                })
            }
            Some(index) if index.state() != IndexState::ACTIVE => {
                return Err(Error::InvalidIndex {
                    index: request.hint_index.clone(),
                    detail: format!("the query asks for it, but it is {}", not_read_because(index.state())),
                })
            }
            Some(_) => {}
        }
    }
    let query = SourceQuery {
        conditions,
        max_ranges: max_ranges_or_default(request.max_ranges),
        table_rows,
        hint,
        hint_index: &request.hint_index,
        key_only: request.key_only,
        columns: &request.columns,
        families: &request.families,
    };
    let choice = source_choice::choose_source(catalog, &query)?;
    let alternatives: Vec<PlanAlternative> = choice
        .alternatives
        .iter()
        .map(|a| {
            let mut alternative = PlanAlternative::new();
            alternative.index = a.index.to_owned();
            alternative.estimated_rows = a.estimated_rows;
            alternative.covered = a.covered;
            alternative.note = a.excluded.map(exclusion_note).unwrap_or_default();
            alternative
        })
        .collect();
    let chosen = &choice.alternatives[choice.chosen];
    let (index, covered, schema): (String, bool, &Schema) = (chosen.index.to_owned(), chosen.covered, chosen.schema);
    let explain = !request.no_explain;
    let (_, message) = scan_plan_message(
        schema,
        &choice.predicate,
        choice.plan,
        conditions,
        !index.is_empty(),
        explain,
    );
    let mut out = TablePlan::new();
    out.index = index;
    out.covered = !out.index.is_empty() && covered;
    if explain {
        out.explain = explain_table_plan(&out.index, out.covered, &message.explain, &alternatives);
    }
    out.plan = protobuf::MessageField::some(message);
    out.alternatives = alternatives;
    if request.relay_streams && hint == IndexHint::INDEX_HINT_AUTOMATIC && !out.index.is_empty() && !out.covered {
        out.relay = relay_streams(catalog, request, &out.index, explain)?.into();
    }
    Ok(out)
}

/// Plans a serialized `JoinPlanRequest` over a catalog handle into a serialized `JoinPlan`.
pub fn plan_join_request_on(catalog: &Catalog, request: &[u8]) -> Result<Vec<u8>> {
    let request: JoinPlanRequest = wire::parse(request, "join plan request")?;
    let plan = plan_join(catalog, &request)?;
    wire::serialize(&plan, "join plan")
}

/// The joins of a query (docs/joins.md): each AND-branch's key streams ([`plan_join_branch`]), and
/// the one data-table scan of the branches with no stream (one branch's own plan, or the union of
/// theirs, so rows two such branches share, or that lie between their ranges, are read once).
pub fn plan_join(catalog: &Catalog, request: &JoinPlanRequest) -> Result<JoinPlan> {
    let hint = request.hint.enum_value().map_err(|n| Error::Corrupt {
        what: "join plan request",
        detail: format!("unknown index hint {n}"),
    })?;
    let mut out = JoinPlan::new();
    for branch in &request.branches {
        let conditions = &branch.conditions;
        out.branches.push(plan_join_branch(
            catalog,
            conditions,
            request.max_ranges,
            hint,
            &request.hint_index,
            request.leapfrog,
        )?);
    }
    out.data_scan_branches = (0..out.branches.len() as u32)
        .filter(|&i| out.branches[i as usize].streams.is_empty())
        .collect();
    out.data_scan = match out.data_scan_branches.as_slice() {
        [] => None.into(),
        [one] => out.branches[*one as usize].data_plan.clone(),
        several => {
            let mut any_of = PredicateComparatorSpec::new();
            any_of.any_of = several.iter().map(|&i| request.branches[i as usize].clone()).collect();
            let comparator = Comparator::from_parsed(&residual_spec(catalog.schema(), any_of.clone()))?;
            let max_ranges = max_ranges_or_default(request.max_ranges);
            Some(union_plan_message(&comparator, &any_of.any_of, max_ranges).1).into()
        }
    };
    if !request.no_explain {
        let conditions: Vec<&[Condition]> = request.branches.iter().map(|b| b.conditions.as_slice()).collect();
        out.explain = describe_join(&out, &conditions, request.limit, request.reversed);
    }
    Ok(out)
}

/// The key streams of one AND-branch ([`stream_choice`]) from the sources the hint allows: each
/// source's value combinations planned as exact prefixes of its keys (a source whose combinations do
/// not all plan so is no stream), the smallest kept in lead order, relayed unless `leapfrog`, and the
/// branch's cost; without a stream, the data table's plan.
pub fn plan_join_branch(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: u32,
    hint: IndexHint,
    hint_index: &str,
    leapfrog: bool,
) -> Result<JoinBranchPlan> {
    let sources = stream_sources(catalog, conditions, hint, hint_index);
    plan_streams(catalog, conditions, max_ranges, &sources, leapfrog)
}

/// The relay of a table plan's query ([`TablePlan::relay`]): when `chosen`, an index that does not
/// cover the query, is one of two or more key streams. Without statistics that index may be the
/// larger stream; a relay's reads follow the smaller, whichever it is.
fn relay_streams(
    catalog: &Catalog,
    request: &TablePlanRequest,
    chosen: &str,
    explain: bool,
) -> Result<Option<JoinPlan>> {
    let conditions = &request.predicate.get_or_default().conditions;
    let sources = stream_sources(catalog, conditions, IndexHint::INDEX_HINT_AUTOMATIC, "");
    if sources.len() < 2 {
        return Ok(None); // the common query: no planning of streams
    }
    let branch = plan_streams(catalog, conditions, request.max_ranges, &sources, false)?;
    if !branch.relay || !branch.streams.iter().any(|s| s.index == chosen) {
        return Ok(None);
    }
    let mut relay = JoinPlan::new();
    relay.branches.push(branch);
    if explain {
        relay.explain = describe_join(&relay, &[conditions], 0, false);
    }
    Ok(Some(relay))
}

fn plan_streams(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: u32,
    sources: &[StreamSource],
    leapfrog: bool,
) -> Result<JoinBranchPlan> {
    // A source's key ranges and estimate; their explain text is not shown, only the data plan's.
    let key_plan = |conditions: &[Condition], index: &str, explain: bool| -> Result<TablePlan> {
        let mut table = TablePlanRequest::new();
        table.predicate.mut_or_insert_default().conditions = conditions.to_vec();
        table.max_ranges = max_ranges;
        table.key_only = true;
        table.no_explain = !explain;
        table.hint = if index.is_empty() {
            IndexHint::NO_INDEX
        } else {
            IndexHint::USE_INDEX
        }
        .into();
        table.hint_index = index.to_owned();
        plan_table(catalog, &table)
    };
    let estimate = |plan: &TablePlan, index: &str| -> Result<f64> {
        plan.alternatives
            .iter()
            .find(|a| a.index == index)
            .map(|a| a.estimated_rows)
            .ok_or_else(|| Error::Internal(format!("no estimate for source '{index}'")))
    };

    let mut streams: Vec<KeyStreamSpec> = Vec::new();
    'sources: for source in sources {
        let Some(points) = stream_choice::points(&source.conditions) else {
            continue;
        };
        let mut stream = KeyStreamSpec::new();
        for equalities in points {
            let plan = key_plan(&equalities, &source.index, false)?.plan.unwrap_or_default();
            if plan.capped || !plan.ranges.iter().all(|r| is_prefix_range(&r.start, &r.stop)) {
                continue 'sources; // not one run of keys per combination, in data-key order
            }
            let mut point = StreamPoint::new();
            point.equalities = equalities;
            point.ranges = plan.ranges;
            stream.points.push(point);
        }
        stream.estimated_rows = estimate(&key_plan(&source.conditions, &source.index, false)?, &source.index)?;
        stream.index = source.index.clone();
        stream.conditions = source.conditions.clone();
        streams.push(stream);
    }
    streams.sort_by(|a, b| a.estimated_rows.total_cmp(&b.estimated_rows));

    let mut out = JoinBranchPlan::new();
    if streams.is_empty() {
        let data = key_plan(conditions, "", true)?;
        out.cost = estimate(&data, "")?;
        out.data_plan = data.plan;
        return Ok(out);
    }
    let estimates: Vec<f64> = streams.iter().map(|s| s.estimated_rows).collect();
    for (stream, kept) in streams.into_iter().zip(kept_streams(&estimates)) {
        if kept {
            out.streams.push(stream);
        } else {
            out.left_out.push(stream);
        }
    }
    let kept: Vec<f64> = out.streams.iter().map(|s| s.estimated_rows).collect();
    out.cost = branch_cost(&kept);
    out.relay = !leapfrog && out.streams.len() >= 2;
    Ok(out)
}

/// A join plan in words: each branch's streams in lead (or turn) order with their estimates, how
/// they are combined, and the data-table scan of the branches with none.
fn describe_join(plan: &JoinPlan, conditions: &[&[Condition]], limit: u32, reversed: bool) -> String {
    let cost: f64 = plan.branches.iter().map(|b| b.cost).sum();
    let mut s = match plan.branches.len() {
        1 => "JOIN: one AND-branch".to_owned(),
        n => format!("JOIN: union of {n} AND-branches (keys deduplicated)"),
    };
    s.push_str(if reversed {
        ", rows in descending data-key order (reversed scans)"
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
            s.push_str("    its index rows filtered with the whole branch on the server (they hold every key field)\n");
        }
        for stream in &branch.left_out {
            describe_stream(&mut s, "not used (checked on the other streams' rows):", stream);
        }
        s.push_str("    each key is checked against the whole branch, then its data row read\n");
    }
    if plan.data_scan_branches.len() > 1 {
        let numbers: Vec<String> = plan.data_scan_branches.iter().map(|i| (i + 1).to_string()).collect();
        let text = plan.data_scan.explain.trim().replace('\n', "\n    ");
        let _ = writeln!(s, "  one DATA TABLE scan for branches {}: {text}", numbers.join(" "));
    }
    s
}

/// Why a source was not chosen, as its alternative's note.
fn exclusion_note(exclusion: Exclusion) -> String {
    match exclusion {
        Exclusion::NotActive(state) => not_read_because(state).into(),
        Exclusion::Hint => "excluded by the query's index hint".into(),
        Exclusion::ReadsMore => "reads more".into(),
    }
}

// ------------------------------------------------------------------ explain text

/// Why the scan choice chose its method, for `explain()`.
pub fn describe_choice(schema: &Schema, choice: &Choice) -> String {
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
/// `unfiltered`: the rows are read with no filter (an index table's, every condition enforced).
pub fn describe_plan(
    schema: &Schema,
    plan: &Plan,
    enforced: &[Condition],
    filtered: &[Condition],
    unfiltered: bool,
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
    let _ = if unfiltered {
        writeln!(
            s,
            "  filtered per row: nothing (an index table holds only keys of its schema)"
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
pub fn describe_union_plan(schema: &Schema, plan: &Plan, branches: usize) -> String {
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
fn explain_table_plan(chosen: &str, covered: bool, plan: &str, alternatives: &[PlanAlternative]) -> String {
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
fn not_read_because(state: IndexState) -> &'static str {
    match state {
        IndexState::DROPPING => "DROPPING: maintained while its table exists, never read again",
        _ => "still BUILDING: maintained on writes, not read until its backfill ends",
    }
}

#[cfg(test)]
mod scan_choice_text_tests {
    use super::*;
    use crate::plan::scan_choice::choose;
    use crate::proto::rowkey::{value::Kind as ValueKind, FieldSpec, FieldType, Op, SaltSpec, SchemaSpec, Value};

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
