//! An OR of AND-predicates (`RowKeyQuery.anyOf`, `PredicateComparatorSpec.any_of`): each branch
//! normalized and compiled on its own, a row matching when any branch matches, decided in one
//! native call per row that stops at the first branch that matches.

use super::program::Program;
use crate::error::{Error, Result};
use crate::key::{check_encoded_bytes, encoded_bytes, Predicate, Schema};
use crate::limits;
use crate::proto::rowkey::PredicateSpec;

#[derive(Debug, Clone)]
pub(crate) struct Disjunction {
    branches: Vec<Branch>,
}

#[derive(Debug, Clone)]
struct Branch {
    predicate: Predicate,
    program: Program,
}

impl Disjunction {
    /// Normalizes and compiles each branch. Refuses no branch, more than `MAX_OR_BRANCHES`, and
    /// branches whose values together exceed one program's size (each branch alone is checked
    /// too, as any predicate).
    pub(crate) fn compile(schema: &Schema, branches: &[PredicateSpec]) -> Result<Disjunction> {
        if branches.is_empty() || branches.len() > limits::MAX_OR_BRANCHES {
            return Err(Error::LimitExceeded {
                what: "number of OR branches".into(),
                found: branches.len(),
                limit: limits::MAX_OR_BRANCHES,
            });
        }
        check_encoded_bytes(
            branches
                .iter()
                .map(|b| encoded_bytes(schema, &b.conditions))
                .fold(0, usize::saturating_add),
        )?;
        let branches = branches
            .iter()
            .map(|spec| {
                let predicate = Predicate::from_spec(schema, spec)?;
                let program = Program::compile(schema, &predicate)?;
                Ok(Branch { predicate, program })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Disjunction { branches })
    }

    /// The branches' normalized predicates, in the spec's order.
    pub(crate) fn predicates(&self) -> impl Iterator<Item = &Predicate> {
        self.branches.iter().map(|b| &b.predicate)
    }

    /// Whether `row` (of any length) satisfies some branch; a wrong length never does.
    #[inline]
    pub(crate) fn matches(&self, row: &[u8]) -> bool {
        self.branches.iter().any(|b| b.program.matches(row))
    }

    /// The answer of the branches' cheap tests alone: `Some(true)` as soon as one branch passes
    /// them all with nothing else to ask, `Some(false)` when every branch fails them, `None` when
    /// some branch's other checks must decide. Cannot panic (see [`Program::quick_verdict`]).
    #[inline]
    #[deny(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable
    )]
    pub(super) fn quick_verdict(&self, row: &[u8]) -> Option<bool> {
        let mut undecided = false;
        for b in &self.branches {
            match b.program.quick_verdict(row) {
                Some(true) => return Some(true),
                Some(false) => {}
                None => undecided = true,
            }
        }
        if undecided {
            None
        } else {
            Some(false)
        }
    }
}
