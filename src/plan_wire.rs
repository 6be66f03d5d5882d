//! The planner's requests and replies: what Java calls (a `ScanPlanRequest`, and the
//! `QueryPlanRequest` of every query of a table), and the `TablePlanRequest` and `JoinPlanRequest`
//! of the query plan's two routes, which the tests and the recorded plan choices call. Each parsed,
//! its defaults applied (`max_ranges`, the table's rows) and its hint checked, planned by `plan` on
//! Rust values, and the reply serialized.

use protobuf::EnumOrUnknown;

use crate::error::{Error, Result};
use crate::eval::Comparator;
use crate::key::Catalog;
use crate::limits::DEFAULT_MAX_RANGES;
use crate::plan::{self, JoinQuery, Query, SourceQuery, TableQuery, DEFAULT_TABLE_ROWS};
use crate::proto::rowkey::{
    comparator_spec::Kind as SpecKind, Condition, IndexHint, JoinBranchPlan, JoinPlan, JoinPlanRequest, PlannedQuery,
    QueryPlanRequest, ScanPlanRequest, TablePlan, TablePlanRequest,
};
use crate::wire;

/// A request's `max_ranges`: 0 asks for the default.
fn max_ranges_or_default(requested: u32) -> usize {
    match requested as usize {
        0 => DEFAULT_MAX_RANGES,
        n => n,
    }
}

/// A request's estimate of the data table's rows: 0 asks for the default.
fn table_rows_or_default(requested: u64) -> f64 {
    (match requested {
        0 => DEFAULT_TABLE_ROWS,
        n => n,
    }) as f64
}

/// A request's index hint, refused when this library does not know it.
fn index_hint(hint: EnumOrUnknown<IndexHint>, what: &'static str) -> Result<IndexHint> {
    hint.enum_value().map_err(|n| Error::Corrupt {
        what,
        detail: format!("unknown index hint {n}"),
    })
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
    let plan = plan::scan_plan(&comparator, spec, max_ranges_or_default(request.max_ranges))?;
    wire::serialize(&plan, "scan plan")
}

/// Plans a serialized `TablePlanRequest` that carries its catalog into a serialized `TablePlan`.
pub fn plan_table_request(request: &[u8]) -> Result<Vec<u8>> {
    let request: TablePlanRequest = wire::parse(request, "table plan request")?;
    let catalog = Catalog::from_parsed_spec(request.catalog.get_or_default())?;
    let plan = plan_table(&catalog, &request)?;
    wire::serialize(&plan, "table plan")
}

/// The plan of the request's query over `catalog`'s table and indexes (`plan::plan_table`), as
/// its reply.
pub fn plan_table(catalog: &Catalog, request: &TablePlanRequest) -> Result<TablePlan> {
    let hint = index_hint(request.hint, "table plan request")?;
    let table = TableQuery {
        query: SourceQuery {
            conditions: &request.predicate.get_or_default().conditions,
            max_ranges: max_ranges_or_default(request.max_ranges),
            table_rows: table_rows_or_default(request.table_rows),
            hint,
            hint_index: &request.hint_index,
            key_only: request.key_only,
            columns: &request.columns,
            families: &request.families,
        },
        explain: !request.no_explain,
        relay_streams: request.relay_streams,
        fold: false,
    };
    plan::plan_table(catalog, &table)
}

/// Plans a serialized `QueryPlanRequest` over a catalog handle into a serialized `PlannedQuery`
/// (what `RowKeyTable` calls for every scan, aggregate and explain).
pub fn plan_query_request_on(catalog: &Catalog, request: &[u8]) -> Result<Vec<u8>> {
    let request: QueryPlanRequest = wire::parse(request, "query plan request")?;
    let plan = plan_query(catalog, &request)?;
    wire::serialize(&plan, "query plan")
}

/// The plan of the request's query over `catalog` (`plan::plan_query`), as its reply.
pub fn plan_query(catalog: &Catalog, request: &QueryPlanRequest) -> Result<PlannedQuery> {
    if request.branches.is_empty() {
        return Err(Error::Corrupt {
            what: "query plan request",
            detail: "a query of no branch".into(),
        });
    }
    let query = Query {
        branches: &request.branches,
        any_of: request.any_of,
        source: SourceQuery {
            conditions: &[],
            max_ranges: max_ranges_or_default(request.max_ranges),
            table_rows: table_rows_or_default(request.table_rows),
            hint: index_hint(request.hint, "query plan request")?,
            hint_index: &request.hint_index,
            key_only: request.key_only && !request.data_cells_expire,
            columns: if request.data_cells_expire {
                &[]
            } else {
                &request.columns
            },
            families: if request.data_cells_expire {
                &[]
            } else {
                &request.families
            },
        },
        reads_no_cell: request.key_only,
        leapfrog: request.leapfrog,
        limit: request.limit,
        reversed: request.reversed,
        explain: !request.no_explain,
        aggregate: request.aggregate,
    };
    plan::plan_query(catalog, &query)
}

/// The joins of the request's query over `catalog` (`plan::plan_join`), as its reply.
pub fn plan_join(catalog: &Catalog, request: &JoinPlanRequest) -> Result<JoinPlan> {
    let join = JoinQuery {
        branches: &request.branches,
        max_ranges: max_ranges_or_default(request.max_ranges),
        hint: index_hint(request.hint, "join plan request")?,
        hint_index: &request.hint_index,
        leapfrog: request.leapfrog,
        limit: request.limit,
        reversed: request.reversed,
        explain: !request.no_explain,
        reads: None,
    };
    plan::plan_join(catalog, &join)
}

/// The key streams of one AND-branch (`plan::plan_join_branch`), `max_ranges` as a request gives
/// it (0 asks for the default).
pub fn plan_join_branch(
    catalog: &Catalog,
    conditions: &[Condition],
    max_ranges: u32,
    hint: IndexHint,
    hint_index: &str,
    leapfrog: bool,
) -> Result<JoinBranchPlan> {
    plan::plan_join_branch(
        catalog,
        conditions,
        max_ranges_or_default(max_ranges),
        hint,
        hint_index,
        leapfrog,
    )
}
