//! The planner, on Rust values: how to read a query's ranges (`scan_choice`), which source to
//! read, the data table or an index (`source_choice`), a join branch's key streams
//! (`stream_choice`); the scan, table and join plans they make (`scan`, `table`, `join`), the one
//! decision between them for a query (`query`); and every
//! line of their explain text (`explain`). It builds the reply messages; the requests are parsed
//! and the replies serialized above it, in `plan_wire`.

mod explain;
mod join;
mod query;
mod scan;
mod scan_choice;
mod source_choice;
mod stream_choice;
mod table;

pub use stream_choice::{branch_cost, is_prefix_range, MAX_POINTS};

pub(crate) use join::{plan_join, plan_join_branch, JoinQuery};
pub(crate) use query::{plan_query, Query};
pub(crate) use scan::scan_plan;
pub(crate) use source_choice::{SourceQuery, DEFAULT_TABLE_ROWS};
pub(crate) use table::{plan_table, TableQuery};
