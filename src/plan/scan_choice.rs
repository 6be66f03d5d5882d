//! Which way a planned scan reads its ranges: every row of them, with the residual conditions
//! filtered per row, or with the skip scan, which seeks from runs of failing rows to the next key
//! that can match.
//!
//! How many rows a seek passes depends on the data, which the planner does not see: the bytes
//! between what every range fixes (its common prefix) and the first condition the ranges do not
//! enforce vary freely, and the skip scan seeks at most once per distinct value of them per range.
//! At most `MAX_FREE_BYTES` such bytes bound the seeks whatever the data; more (a hash, an id, a
//! date) may hold a distinct value per row. The skip scan is still chosen there, because the
//! filter adapts to the data it meets: it seeks from the second row failing towards the same next
//! key (from the first once runs prove long), stops asking for next keys where rows never share
//! one, and drops rows it does not seek from in `filterRowKey`, as the plain filter does, so it
//! costs about what the plain filter costs where seeks do not pay (`cargo make bench-skip`, README
//! "Skip scan"). The plain filter is kept only where the ranges enforce every condition. Index
//! plans are chosen the same way, on the index's key.

use crate::key::{Predicate, Schema};
use crate::ranges::{Plan, Range};

/// Free bytes before the first residual condition up to which the seeks are bounded by the key.
pub(super) const MAX_FREE_BYTES: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScanMethod {
    /// Read every row of the ranges; the residual conditions filtered per row.
    RangesAndFilter,
    /// Seek from each row that fails to the next key that can match.
    SkipScan,
}

/// Why a method was chosen (written out by `explain` for `explain()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reason {
    /// The plan has no range.
    NothingToRead,
    /// The ranges enforce every condition.
    AllEnforced,
    /// `field` is the first condition the ranges leave to the filter; `free` bytes vary before
    /// it in some range: those of the `varying` fields, and the salt byte when `salt_varies`.
    Filtered {
        field: usize,
        free: usize,
        varying: Vec<usize>,
        salt_varies: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Choice {
    pub(super) method: ScanMethod,
    pub(super) reason: Reason,
}

/// Chooses how to read `plan`'s ranges for `predicate`.
pub(super) fn choose(schema: &Schema, predicate: &Predicate, plan: &Plan) -> Choice {
    let filter = |reason: Reason| Choice {
        method: ScanMethod::RangesAndFilter,
        reason,
    };
    if plan.ranges.is_empty() {
        return filter(Reason::NothingToRead);
    }
    let fields = schema.fields();
    let Some(&(first, _)) = predicate
        .constraints
        .iter()
        .find(|(i, _)| !plan.exact_fields.contains(i))
    else {
        return filter(Reason::AllEnforced);
    };
    let fixed = plan.ranges.iter().map(fixed_bytes).min().unwrap_or(0);
    let start = fields[first].location.offset();
    let free = start.saturating_sub(fixed);
    let varying: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].location.end() > fixed && fields[i].location.offset() < start)
        .collect();
    let salt_varies = schema.salt().is_some() && fixed == 0 && start > 0;
    Choice {
        method: ScanMethod::SkipScan,
        reason: Reason::Filtered {
            field: first,
            free,
            varying,
            salt_varies,
        },
    }
}

/// The leading bytes every key of the range shares.
fn fixed_bytes(range: &Range) -> usize {
    let Some(stop) = &range.stop else { return 0 };
    // Keys in [start, stop) share the common prefix of start and stop, except where stop is the
    // successor of a prefix (…x, …x+1 00…): then they share that prefix, one byte longer.
    let common = range.start.iter().zip(stop).take_while(|(a, b)| a == b).count();
    let rest_is_zero = |k: &[u8]| k.iter().skip(common + 1).all(|&b| b == 0);
    let successor_of_prefix = range.start.len() > common
        && stop.len() > common
        && range.start[common].checked_add(1) == Some(stop[common])
        && rest_is_zero(stop)
        && range.start.len() == common + 1;
    if successor_of_prefix {
        common + 1
    } else {
        common
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_bytes_of_ranges() {
        let r = |start: &[u8], stop: Option<&[u8]>| Range {
            start: start.to_vec(),
            stop: stop.map(<[u8]>::to_vec),
        };
        assert_eq!(
            fixed_bytes(&r(&[1, 2], Some(&[1, 3]))),
            2,
            "the keys starting with 01 02"
        );
        assert_eq!(fixed_bytes(&r(&[1, 2, 5], Some(&[1, 2, 9]))), 2);
        assert_eq!(fixed_bytes(&r(&[1, 2, 5], Some(&[1, 3, 0]))), 1);
        assert_eq!(fixed_bytes(&r(&[], None)), 0);
        assert_eq!(fixed_bytes(&r(&[7], None)), 0);
    }
}
