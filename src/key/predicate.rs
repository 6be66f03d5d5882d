//! A predicate (AND of conditions) normalized to one constraint per field, in *byte* order:
//! value-order bounds of descending and reversed-timestamp fields are flipped here, once, so the
//! evaluator and the scan planner only ever compare bytes.

use std::ops::Bound;

use super::codec::{encode_value, FieldBytes};
use super::schema::{Kind, Schema};
use crate::error::{Error, Result};
use crate::limits;
use crate::proto::rowkey::{Condition, Op, PredicateSpec, Value};

/// What the stored bytes of one field may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constraint {
    /// One of these values (sorted by bytes, no duplicates); empty means nothing matches.
    Points(Vec<FieldBytes>),
    /// Within the bounds and none of `excluded` (sorted, no duplicates).
    Range {
        low: Bound<FieldBytes>,
        high: Bound<FieldBytes>,
        excluded: Vec<FieldBytes>,
    },
}

impl Constraint {
    fn any() -> Constraint {
        Constraint::Range {
            low: Bound::Unbounded,
            high: Bound::Unbounded,
            excluded: Vec::new(),
        }
    }

    pub(super) fn is_any(&self) -> bool {
        matches!(self, Constraint::Range { low: Bound::Unbounded, high: Bound::Unbounded, excluded } if excluded.is_empty())
    }

    pub fn allows(&self, bytes: &[u8]) -> bool {
        match self {
            Constraint::Points(points) => points.binary_search_by(|p| p.as_slice().cmp(bytes)).is_ok(),
            Constraint::Range { low, high, excluded } => {
                above(low, bytes)
                    && below(high, bytes)
                    && excluded.binary_search_by(|p| p.as_slice().cmp(bytes)).is_err()
            }
        }
    }

    fn intersect(self, other: Constraint) -> Constraint {
        match (self, other) {
            (Constraint::Points(points), other) | (other, Constraint::Points(points)) => {
                Constraint::Points(points.into_iter().filter(|p| other.allows(p)).collect())
            }
            (
                Constraint::Range {
                    low: l1,
                    high: h1,
                    excluded: mut e1,
                },
                Constraint::Range {
                    low: l2,
                    high: h2,
                    excluded: e2,
                },
            ) => {
                e1.extend(e2);
                e1.sort();
                e1.dedup();
                Constraint::Range {
                    low: tighter_low(l1, l2),
                    high: tighter_high(h1, h2),
                    excluded: e1,
                }
            }
        }
    }

    /// Turns empty and single-point ranges into points, and bool ranges into their points.
    fn simplify(self, is_bit: bool) -> Constraint {
        let Constraint::Range { low, high, excluded } = self else {
            return self;
        };
        if is_bit {
            let allowed = Constraint::Range { low, high, excluded };
            return Constraint::Points(
                vec![vec![0], vec![1]]
                    .into_iter()
                    .filter(|p| allowed.allows(p))
                    .collect(),
            );
        }
        let empty = match (&low, &high) {
            (Bound::Included(l), Bound::Included(h)) => l > h,
            (Bound::Included(l) | Bound::Excluded(l), Bound::Excluded(h))
            | (Bound::Excluded(l), Bound::Included(h)) => l >= h,
            _ => false,
        };
        if empty {
            return Constraint::Points(Vec::new());
        }
        if let (Bound::Included(l), Bound::Included(h)) = (&low, &high) {
            if l == h {
                let point = l.clone();
                let keep = excluded.binary_search(&point).is_err();
                return Constraint::Points(if keep { vec![point] } else { Vec::new() });
            }
        }
        // Exclusions outside the bounds change nothing; drop them.
        let excluded = excluded
            .into_iter()
            .filter(|e| above(&low, e) && below(&high, e))
            .collect();
        Constraint::Range { low, high, excluded }
    }
}

fn above(low: &Bound<FieldBytes>, bytes: &[u8]) -> bool {
    match low {
        Bound::Unbounded => true,
        Bound::Included(l) => bytes >= l.as_slice(),
        Bound::Excluded(l) => bytes > l.as_slice(),
    }
}

fn below(high: &Bound<FieldBytes>, bytes: &[u8]) -> bool {
    match high {
        Bound::Unbounded => true,
        Bound::Included(h) => bytes <= h.as_slice(),
        Bound::Excluded(h) => bytes < h.as_slice(),
    }
}

fn tighter_low(a: Bound<FieldBytes>, b: Bound<FieldBytes>) -> Bound<FieldBytes> {
    match (&a, &b) {
        (Bound::Unbounded, _) => b,
        (_, Bound::Unbounded) => a,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            if x > y || (x == y && matches!(a, Bound::Excluded(_))) {
                a
            } else {
                b
            }
        }
    }
}

fn tighter_high(a: Bound<FieldBytes>, b: Bound<FieldBytes>) -> Bound<FieldBytes> {
    match (&a, &b) {
        (Bound::Unbounded, _) => b,
        (_, Bound::Unbounded) => a,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            if x < y || (x == y && matches!(a, Bound::Excluded(_))) {
                a
            } else {
                b
            }
        }
    }
}

/// The normalized predicate: for each constrained field (by index, ascending), its constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Predicate {
    pub constraints: Vec<(usize, Constraint)>,
}

impl Predicate {
    /// True when some field allows no value at all, so no row can match.
    pub(crate) fn is_unsatisfiable(&self) -> bool {
        self.constraints
            .iter()
            .any(|(_, c)| matches!(c, Constraint::Points(p) if p.is_empty()))
    }

    pub fn constraint(&self, field: usize) -> Option<&Constraint> {
        self.constraints.iter().find(|(i, _)| *i == field).map(|(_, c)| c)
    }

    /// Brute-force check of one key against the constraints (the oracle's way, also used by tests).
    pub fn matches_key(&self, schema: &Schema, key: &[u8]) -> bool {
        key.len() == schema.key_length()
            && self
                .constraints
                .iter()
                .all(|(i, c)| c.allows(super::codec::read_field(&schema.fields()[*i], key)))
    }

    pub fn from_spec(schema: &Schema, spec: &PredicateSpec) -> Result<Predicate> {
        Predicate::from_conditions(schema, &spec.conditions)
    }

    pub fn from_conditions(schema: &Schema, conditions: &[Condition]) -> Result<Predicate> {
        if conditions.len() > limits::MAX_CONDITIONS {
            return Err(Error::LimitExceeded {
                what: "number of conditions".into(),
                found: conditions.len(),
                limit: limits::MAX_CONDITIONS,
            });
        }
        let total_values: usize = conditions.iter().map(|c| c.values.len()).sum();
        if total_values > limits::MAX_IN_VALUES {
            return Err(Error::LimitExceeded {
                what: "number of condition values".into(),
                found: total_values,
                limit: limits::MAX_IN_VALUES,
            });
        }
        check_encoded_bytes(encoded_bytes(schema, conditions))?;
        let mut per_field: Vec<Option<Constraint>> = vec![None; schema.fields().len()];
        for condition in conditions {
            let index = schema.field_index(&condition.field)?;
            let constraint = condition_constraint(schema, index, condition)?;
            let slot = &mut per_field[index];
            *slot = Some(match slot.take() {
                None => constraint,
                Some(existing) => existing.intersect(constraint),
            });
        }
        let constraints = per_field
            .into_iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let is_bit = schema.fields()[i].kind == Kind::Bool;
                c.map(|c| (i, c.simplify(is_bit)))
            })
            .filter(|(_, c)| !c.is_any())
            .collect();
        Ok(Predicate { constraints })
    }
}

/// The bytes the conditions' values take once encoded (a wide string padded to its width). Every
/// value is encoded before duplicates are dropped and the program is compiled: this bounds that
/// work by the program-size limit up front ([`check_encoded_bytes`]), or a 400 KB IN list of a
/// 1 KiB field allocates 100 MB before any check.
pub(crate) fn encoded_bytes(schema: &Schema, conditions: &[Condition]) -> usize {
    conditions
        .iter()
        .filter_map(|c| {
            let width = schema.fields()[schema.field_index(&c.field).ok()?].kind.width().max(1);
            Some(c.values.len().saturating_mul(width + 8))
        })
        .fold(0, usize::saturating_add)
}

/// Refuses more encoded bytes than one comparator's program may hold.
pub(crate) fn check_encoded_bytes(found: usize) -> Result<()> {
    if found > limits::MAX_PROGRAM_BYTES {
        return Err(Error::LimitExceeded {
            what: "compiled program size in bytes".into(),
            found,
            limit: limits::MAX_PROGRAM_BYTES,
        });
    }
    Ok(())
}

fn condition_constraint(schema: &Schema, index: usize, condition: &Condition) -> Result<Constraint> {
    let field = &schema.fields()[index];
    let name = field.name.as_str();
    let op = condition
        .op
        .enum_value()
        .map_err(|v| Error::condition(name, format!("unknown operator number {v}")))?;
    let expected_values = match op {
        Op::OP_UNSPECIFIED => return Err(Error::condition(name, "operator is not set")),
        Op::IN => None,
        Op::BETWEEN => Some(2),
        _ => Some(1),
    };
    if let Some(n) = expected_values {
        if condition.values.len() != n {
            return Err(Error::condition(
                name,
                format!("{} takes {n} value(s), got {}", op_name(op), condition.values.len()),
            ));
        }
    }
    let is_range = matches!(op, Op::LT | Op::LE | Op::GT | Op::GE | Op::BETWEEN);
    if is_range && !field.kind.is_ordered() {
        return Err(Error::condition(
            name,
            format!(
                "{} is a range condition, but a {} field has no order (only eq, ne and in are allowed)",
                op_name(op),
                field.kind.name()
            ),
        ));
    }
    let encode = |v: &Value| encode_value(field, v);
    let reversed = field.byte_order_reversed();
    // A value-order bound at the low (or high) end becomes a byte-order bound at the other end
    // when bytes are reversed.
    let value_bound = |low_end: bool, inclusive: bool, v: &Value| -> Result<Constraint> {
        let bytes = encode(v)?;
        let bound = if inclusive {
            Bound::Included(bytes)
        } else {
            Bound::Excluded(bytes)
        };
        let byte_low_end = low_end != reversed;
        Ok(if byte_low_end {
            Constraint::Range {
                low: bound,
                high: Bound::Unbounded,
                excluded: Vec::new(),
            }
        } else {
            Constraint::Range {
                low: Bound::Unbounded,
                high: bound,
                excluded: Vec::new(),
            }
        })
    };
    let values = &condition.values;
    Ok(match op {
        Op::EQ => Constraint::Points(vec![encode(&values[0])?]),
        Op::NE => Constraint::Range {
            low: Bound::Unbounded,
            high: Bound::Unbounded,
            excluded: vec![encode(&values[0])?],
        },
        Op::LT => value_bound(false, false, &values[0])?,
        Op::LE => value_bound(false, true, &values[0])?,
        Op::GT => value_bound(true, false, &values[0])?,
        Op::GE => value_bound(true, true, &values[0])?,
        Op::BETWEEN => value_bound(true, true, &values[0])?.intersect(value_bound(false, true, &values[1])?),
        Op::IN => {
            let mut points = values.iter().map(encode).collect::<Result<Vec<_>>>()?;
            points.sort();
            points.dedup();
            Constraint::Points(points)
        }
        Op::OP_UNSPECIFIED => Constraint::any(),
    })
}

pub(super) fn op_name(op: Op) -> &'static str {
    match op {
        Op::OP_UNSPECIFIED => "unset operator",
        Op::EQ => "=",
        Op::NE => "!=",
        Op::LT => "<",
        Op::LE => "<=",
        Op::GT => ">",
        Op::GE => ">=",
        Op::BETWEEN => "between",
        Op::IN => "in",
    }
}
