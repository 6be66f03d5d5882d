//! What a query reads: the narrowest sorted set of key ranges of a predicate, or of an OR of them
//! (`key_ranges`), and the skip scan that seeks from a failing row to the next key that can match
//! (`skip_scan`), over the same walk of the key. Built on the key model and the per-row comparator.

mod key_ranges;
mod skip_scan;

pub use key_ranges::{plan, plan_union, successor, Plan, Range};
pub use skip_scan::{AnySkipScan, SkipScan, SkipScanFilter};
