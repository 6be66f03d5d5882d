//! The table planner: a query planned on the data table and on every index it may read
//! (`source_choice`), the cheapest source's scan plan, every alternative's estimate, and, when an
//! index that does not cover the query is chosen, the relay of the query's key streams (`join`).

use crate::error::{Error, Result};
use crate::key::{Catalog, Schema};
use crate::proto::rowkey::{IndexHint, IndexState, PlanAlternative, TablePlan};

use super::explain;
use super::join::relay_streams;
use super::scan::{scan_plan_of, OtherLengths};
use super::source_choice::{self, SourceQuery};

/// What a table plan is asked: the query and the sources it may read, and what to add to its plan.
pub(crate) struct TableQuery<'a> {
    pub(crate) query: SourceQuery<'a>,
    /// Write the plan's explain text.
    pub(crate) explain: bool,
    /// Plan the relay of the key streams when the chosen index does not cover the query.
    pub(crate) relay_streams: bool,
    /// The regions fold the rows read (an aggregate's plan): they skip rows of another key length.
    pub(crate) fold: bool,
}

/// The plan of `table`'s query over `catalog`'s table and indexes
/// ([`source_choice::choose_source`]).
pub(crate) fn plan_table(catalog: &Catalog, table: &TableQuery<'_>) -> Result<TablePlan> {
    let query = &table.query;
    if query.hint == IndexHint::USE_INDEX {
        match catalog.index(query.hint_index) {
            None => {
                return Err(Error::InvalidIndex {
                    index: query.hint_index.to_owned(),
                    detail: "the query asks for it, but the table has no index of this name".into(),
                })
            }
            Some(index) if index.state() != IndexState::ACTIVE => {
                return Err(Error::InvalidIndex {
                    index: query.hint_index.to_owned(),
                    detail: format!(
                        "the query asks for it, but it is {}",
                        explain::not_read_because(index.state())
                    ),
                })
            }
            Some(_) => {}
        }
    }
    let choice = source_choice::choose_source(catalog, query)?;
    let alternatives: Vec<PlanAlternative> = choice
        .alternatives
        .iter()
        .map(|a| {
            let mut alternative = PlanAlternative::new();
            alternative.index = a.index.to_owned();
            alternative.estimated_rows = a.estimated_rows;
            alternative.covered = a.covered;
            alternative.note = a.excluded.map(explain::exclusion_note).unwrap_or_default();
            alternative
        })
        .collect();
    let chosen = &choice.alternatives[choice.chosen];
    let (index, covered, schema): (String, bool, &Schema) = (chosen.index.to_owned(), chosen.covered, chosen.schema);
    let message = scan_plan_of(
        schema,
        &choice.predicate,
        &choice.plan,
        query.conditions,
        if !index.is_empty() {
            OtherLengths::NoneInTable
        } else if table.fold {
            OtherLengths::SkippedByFold
        } else {
            OtherLengths::Filtered
        },
        table.explain,
    );
    let mut out = TablePlan::new();
    out.index_number = catalog.index_number(&index);
    out.index = index;
    out.covered = !out.index.is_empty() && covered;
    if table.explain {
        out.explain = explain::describe_table_plan(&out.index, out.covered, &message.explain, &alternatives);
    }
    out.plan = protobuf::MessageField::some(message);
    out.alternatives = alternatives;
    if table.relay_streams && query.hint == IndexHint::INDEX_HINT_AUTOMATIC && !out.index.is_empty() && !out.covered {
        out.relay = relay_streams(catalog, query.conditions, query.max_ranges, &out.index, table.explain)?.into();
    }
    Ok(out)
}
