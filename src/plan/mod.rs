//! The planner's choosers: how to read a query's ranges (`scan_choice`), which source to read,
//! the data table or an index (`source_choice`), and a join branch's key streams
//! (`stream_choice`). Built on the ranges and the key model.

pub(crate) mod scan_choice;
pub(crate) mod source_choice;
pub(crate) mod stream_choice;

pub use stream_choice::{branch_cost, is_prefix_range, MAX_POINTS};
