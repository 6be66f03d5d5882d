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

use crate::planner::Plan;
use crate::predicate::Predicate;
use crate::schema::{Location, Schema};

/// Free bytes before the first residual condition up to which the seeks are bounded by the key.
pub const MAX_FREE_BYTES: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanMethod {
    /// Read every row of the ranges; the residual conditions filtered per row.
    RangesAndFilter,
    /// Seek from each row that fails to the next key that can match.
    SkipScan,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub method: ScanMethod,
    /// Why, for `explain()`.
    pub reason: String,
}

/// Chooses how to read `plan`'s ranges for `predicate`.
pub fn choose(schema: &Schema, predicate: &Predicate, plan: &Plan) -> Choice {
    let filter = |reason: String| Choice {
        method: ScanMethod::RangesAndFilter,
        reason,
    };
    if plan.ranges.is_empty() {
        return filter("nothing to read".into());
    }
    let fields = schema.fields();
    let Some(&(first, _)) = predicate
        .constraints
        .iter()
        .find(|(i, _)| !plan.exact_fields.contains(i))
    else {
        return filter("the ranges enforce every condition: nothing to skip".into());
    };
    let fixed = plan.ranges.iter().map(fixed_bytes).min().unwrap_or(0);
    let start = fields[first].location.offset();
    let free = start.saturating_sub(fixed);
    let varying: Vec<&str> = fields
        .iter()
        .filter(|f| {
            let end = match f.location {
                Location::Bytes { offset, width } => offset + width,
                Location::Bit { offset, .. } => offset + 1,
            };
            end > fixed && f.location.offset() < start
        })
        .map(|f| f.name.as_str())
        .collect();
    let salt_varies = schema.salt().is_some() && fixed == 0 && start > 0;
    let mut before = varying.join(", ");
    if salt_varies {
        before = if before.is_empty() {
            "the salt byte".into()
        } else {
            format!("the salt byte, {before}")
        };
    }
    let name = &fields[first].name;
    let reason = if free == 0 {
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
    };
    Choice {
        method: ScanMethod::SkipScan,
        reason,
    }
}

/// The leading bytes every key of the range shares.
fn fixed_bytes(range: &crate::planner::Range) -> usize {
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
    use crate::limits::DEFAULT_MAX_RANGES;
    use crate::planner::plan;
    use crate::proto::rowkey::{
        value::Kind as ValueKind, Condition, FieldSpec, FieldType, Op, SaltSpec, SchemaSpec, Value,
    };

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

    fn method(schema: &Schema, conditions: &[Condition]) -> Choice {
        let predicate = Predicate::from_conditions(schema, conditions).unwrap();
        choose(schema, &predicate, &plan(schema, &predicate, DEFAULT_MAX_RANGES))
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

    #[test]
    fn fixed_bytes_of_ranges() {
        let r = |start: &[u8], stop: Option<&[u8]>| crate::planner::Range {
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
