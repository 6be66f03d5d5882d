//! The one text form of conditions and plans, SQL-like: `code = 404 AND sdate BETWEEN 1 AND 9 AND
//! type IN (1, 2) AND status <> -1`, strings `'quoted'` (a quote doubled), bytes `x'0a1b'`. Java's
//! `toString()` of queries and comparators and the planner's `explain()` all come from here.

use std::fmt::Write as _;

use crate::error::Result;
use crate::planner::Plan;
use crate::proto::rowkey::{
    comparator_spec::Kind as SpecKind, value::Kind as ValueKind, ComparatorSpec, Condition, Op, Value,
};
use crate::schema::Schema;
use crate::text::{describe_where, quote_name};
use crate::wire;

/// A value as a literal.
pub fn describe_value(value: &Value) -> String {
    match &value.kind {
        Some(ValueKind::IntValue(i)) => i.to_string(),
        Some(ValueKind::BoolValue(b)) => b.to_string(),
        Some(ValueKind::StringValue(t)) => format!("'{}'", t.replace('\'', "''")),
        Some(ValueKind::BytesValue(b)) => format!("x'{}'", hex(b)),
        None => "NULL".into(),
    }
}

/// One condition, e.g. `sdate BETWEEN 1 AND 9`.
pub fn describe_condition(c: &Condition) -> String {
    let value = |i: usize| c.values.get(i).map_or_else(|| "?".to_owned(), describe_value);
    let field = quote_name(&c.field);
    let op = match c.op.enum_value() {
        Ok(Op::EQ) => "=",
        Ok(Op::NE) => "<>",
        Ok(Op::LT) => "<",
        Ok(Op::LE) => "<=",
        Ok(Op::GT) => ">",
        Ok(Op::GE) => ">=",
        Ok(Op::BETWEEN) => return format!("{field} BETWEEN {} AND {}", value(0), value(1)),
        Ok(Op::IN) => {
            let values: Vec<String> = c.values.iter().map(describe_value).collect();
            return format!("{field} IN ({})", values.join(", "));
        }
        Ok(Op::OP_UNSPECIFIED) | Err(_) => "?",
    };
    format!("{field} {op} {}", value(0))
}

/// Conditions AND-ed; `TRUE` for none.
pub fn describe_conditions<'a>(conditions: impl IntoIterator<Item = &'a Condition>) -> String {
    let text: Vec<String> = conditions.into_iter().map(describe_condition).collect();
    if text.is_empty() {
        "TRUE".into()
    } else {
        text.join(" AND ")
    }
}

/// What a comparator tests: its equalities or conditions, or `field <=> value` for a range
/// comparator (compared with HBase's operator).
pub fn describe_comparator(spec: &ComparatorSpec) -> String {
    match &spec.kind {
        Some(SpecKind::Equal(equal)) => {
            let text: Vec<String> = equal
                .equalities
                .iter()
                .map(|e| {
                    format!(
                        "{} = {}",
                        quote_name(&e.field),
                        describe_value(e.value.get_or_default())
                    )
                })
                .collect();
            if text.is_empty() {
                "TRUE".into()
            } else {
                text.join(" AND ")
            }
        }
        Some(SpecKind::Range(range)) => format!(
            "{} <=> {}",
            quote_name(&range.field),
            describe_value(range.value.get_or_default())
        ),
        Some(SpecKind::Predicate(p)) => describe_where(p),
        None => "no comparator kind".into(),
    }
}

/// [`describe_comparator`] of a serialized `ComparatorSpec` (checked like any message from outside).
pub fn describe_comparator_bytes(spec: &[u8]) -> Result<String> {
    Ok(describe_comparator(&wire::parse::<ComparatorSpec>(spec, "comparator")?))
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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(field: &str, op: Op, values: Vec<Value>) -> Condition {
        let mut c = Condition::new();
        c.field = field.into();
        c.op = op.into();
        c.values = values;
        c
    }

    fn value(kind: ValueKind) -> Value {
        let mut v = Value::new();
        v.kind = Some(kind);
        v
    }

    #[test]
    fn conditions_read_as_sql() {
        let conditions = vec![
            condition("code", Op::EQ, vec![value(ValueKind::IntValue(404))]),
            condition("status", Op::NE, vec![value(ValueKind::IntValue(-1))]),
            condition(
                "sdate",
                Op::BETWEEN,
                vec![value(ValueKind::IntValue(1)), value(ValueKind::IntValue(9))],
            ),
            condition(
                "site",
                Op::IN,
                vec![
                    value(ValueKind::StringValue("it's".into())),
                    value(ValueKind::BytesValue(vec![0x0a, 0xff])),
                ],
            ),
            condition("free", Op::EQ, vec![value(ValueKind::BoolValue(false))]),
            condition("type", Op::IN, vec![]),
        ];
        assert_eq!(
            describe_conditions(&conditions),
            "code = 404 AND status <> -1 AND sdate BETWEEN 1 AND 9 AND site IN ('it''s', x'0aff') AND free = false \
             AND type IN ()"
        );
        assert_eq!(describe_conditions(&[]), "TRUE");
    }
}
