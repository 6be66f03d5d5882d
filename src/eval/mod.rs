//! What runs per row inside a RegionServer filter: a predicate compiled to a byte-level program
//! (`program`), an OR of them decided in one call (`disjunction`), and the three comparators HBase
//! runs, parsed and compiled once from their spec (`comparator`). Built on the key model.

mod comparator;
mod disjunction;
mod program;

pub use comparator::Comparator;

pub(crate) use disjunction::Disjunction;
