//! The three comparators HBase runs: their serialized spec (schema included), parsed and
//! compiled once, then `compare(row)` per row with HBase's sign convention: the comparator's
//! constant compared to the row.

use std::cmp::Ordering;

use super::disjunction::Disjunction;
use super::program::Program;
use crate::error::{Error, Result};
use crate::key::{check_version, encode_value, FieldBytes, Location, Predicate, Schema, FORMAT_VERSION};
use crate::proto::rowkey::{comparator_spec::Kind as SpecKind, ComparatorSpec, Condition, Op};
use crate::wire;
use protobuf::MessageFull;

#[derive(Debug, Clone)]
pub struct Comparator {
    schema: Schema,
    canonical: Vec<u8>,
    #[cfg_attr(not(feature = "java"), allow(dead_code))]
    kind_number: i32,
    evaluator: Evaluator,
}

#[derive(Debug, Clone)]
enum Evaluator {
    /// Equal and predicate comparators: 0 when the row matches, 1 otherwise.
    Match { predicate: Predicate, program: Program },
    /// An OR predicate comparator (`any_of`): 0 when some branch matches, 1 otherwise.
    AnyOf(Disjunction),
    /// Range comparator: sign of (constant <=> field) in value order.
    Range {
        offset: usize,
        width: usize,
        constant: FieldBytes,
        reversed: bool,
    },
}

/// What a range comparator returns for a row of the wrong length: the row sorts below every
/// value, so LESS, LESS_OR_EQUAL and NOT_EQUAL keep it and the other operators drop it.
pub(super) const RANGE_WRONG_LENGTH_RESULT: i32 = 1;
/// What a match comparator returns for a row that does not match (including a wrong length).
pub(super) const NO_MATCH: i32 = 1;

impl Comparator {
    /// Parses, validates and compiles a serialized `ComparatorSpec`.
    pub fn from_bytes(spec: &[u8]) -> Result<Comparator> {
        Comparator::from_parsed(&wire::parse::<ComparatorSpec>(spec, "comparator")?)
    }

    /// Validates and compiles a `ComparatorSpec` built in Rust, with the same checks as bytes from
    /// outside.
    pub fn from_spec(spec: &ComparatorSpec) -> Result<Comparator> {
        Comparator::from_bytes(&wire::serialize(spec, "comparator")?)
    }

    /// Compiles a spec that came through `wire::parse` (alone or inside another message): it has
    /// no unknown fields, so its canonical form is the spec with the version set and the
    /// equalities in schema order.
    pub(crate) fn from_parsed(spec: &ComparatorSpec) -> Result<Comparator> {
        check_version("comparator", spec.format_version)?;
        let schema_spec = spec.schema.as_ref().ok_or_else(|| Error::Corrupt {
            what: "comparator",
            detail: "the schema is missing".into(),
        })?;
        let schema = Schema::from_parsed(schema_spec)?;
        let mut canonical = ComparatorSpec::new();
        canonical.format_version = FORMAT_VERSION;
        canonical.schema = protobuf::MessageField::some(schema.canonical_spec().clone());
        let evaluator = match &spec.kind {
            None => {
                return Err(Error::Corrupt {
                    what: "comparator",
                    detail: "the comparator kind is missing".into(),
                })
            }
            Some(SpecKind::Equal(equal)) => {
                let mut equalities = equal.equalities.clone();
                let mut indexes = Vec::with_capacity(equalities.len());
                for e in &equalities {
                    let index = schema.field_index(&e.field)?;
                    if indexes.contains(&index) {
                        return Err(Error::DuplicateField(e.field.clone()));
                    }
                    indexes.push(index);
                }
                // Canonical: equalities in schema order, so equal comparators have equal bytes.
                equalities.sort_by_key(|e| schema.field_index(&e.field).unwrap_or(usize::MAX));
                let conditions: Vec<Condition> = equalities
                    .iter()
                    .map(|e| {
                        let mut c = Condition::new();
                        c.field = e.field.clone();
                        c.op = Op::EQ.into();
                        c.values = vec![e.value.get_or_default().clone()];
                        c
                    })
                    .collect();
                let mut canonical_equal = equal.clone();
                canonical_equal.equalities = equalities;
                canonical.kind = Some(SpecKind::Equal(canonical_equal));
                match_evaluator(&schema, &conditions)?
            }
            Some(SpecKind::Predicate(predicate)) if predicate.any_of.is_empty() => {
                let conditions = &predicate.predicate.get_or_default().conditions;
                canonical.kind = Some(SpecKind::Predicate(predicate.clone()));
                match_evaluator(&schema, conditions)?
            }
            Some(SpecKind::Predicate(predicate)) => {
                if !predicate.predicate.get_or_default().conditions.is_empty() {
                    return Err(Error::Corrupt {
                        what: "comparator",
                        detail: "an OR predicate (any_of) has conditions outside its branches: put them in every \
                                 branch"
                            .into(),
                    });
                }
                // Canonical: the branches alone (an empty `predicate` given or not, the same bytes).
                let mut canonical_predicate = predicate.clone();
                canonical_predicate.predicate = protobuf::MessageField::none();
                canonical.kind = Some(SpecKind::Predicate(canonical_predicate));
                Evaluator::AnyOf(Disjunction::compile(&schema, &predicate.any_of)?)
            }
            Some(SpecKind::Range(range)) => {
                let index = schema.field_index(&range.field)?;
                let field = &schema.fields()[index];
                if !field.kind.is_ordered() {
                    return Err(Error::condition(
                        &field.name,
                        format!(
                            "a range comparator needs an ordered field, but a {} field has no order",
                            field.kind.name()
                        ),
                    ));
                }
                let constant = encode_value(field, range.value.get_or_default())?;
                let Location::Bytes { offset, width } = field.location else {
                    return Err(Error::Internal("an ordered field is stored as a bit".into()));
                };
                canonical.kind = Some(SpecKind::Range(range.clone()));
                Evaluator::Range {
                    offset,
                    width,
                    constant,
                    reversed: field.byte_order_reversed(),
                }
            }
        };
        let kind_name = match &spec.kind {
            Some(SpecKind::Equal(_)) => "equal",
            Some(SpecKind::Range(_)) => "range",
            _ => "predicate",
        };
        let kind_number = ComparatorSpec::descriptor()
            .field_by_name(kind_name)
            .map_or(0, |field| field.number());
        let canonical = wire::serialize(&canonical, "comparator")?;
        Ok(Comparator {
            schema,
            canonical,
            kind_number,
            evaluator,
        })
    }

    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn key_length(&self) -> usize {
        self.schema.key_length()
    }

    /// The normalized predicate of an equal or (single, not OR) predicate comparator.
    pub fn predicate(&self) -> Option<&Predicate> {
        match &self.evaluator {
            Evaluator::Match { predicate, .. } => Some(predicate),
            Evaluator::AnyOf(_) | Evaluator::Range { .. } => None,
        }
    }

    /// The normalized AND-predicates whose OR this comparator matches: one for an equal or
    /// predicate comparator, each branch of an OR predicate, none for a range comparator.
    pub fn branches(&self) -> Vec<&Predicate> {
        match &self.evaluator {
            Evaluator::Match { predicate, .. } => vec![predicate],
            Evaluator::AnyOf(disjunction) => disjunction.predicates().collect(),
            Evaluator::Range { .. } => Vec::new(),
        }
    }

    /// What `compare` returns for any row whose length is not the key length, so callers can
    /// answer such rows without the call.
    pub fn wrong_length_result(&self) -> i32 {
        match self.evaluator {
            Evaluator::Match { .. } | Evaluator::AnyOf(_) => NO_MATCH,
            Evaluator::Range { .. } => RANGE_WRONG_LENGTH_RESULT,
        }
    }

    /// Which kind of comparator this is, as the number of its field in `ComparatorSpec.kind`:
    /// what Java's `KindCase.forNumber` reads.
    #[cfg(feature = "java")]
    pub(crate) fn kind_number(&self) -> i32 {
        self.kind_number
    }

    /// HBase's `compareTo(row)`; defined for any row, never panics.
    #[inline]
    pub fn compare(&self, row: &[u8]) -> i32 {
        match &self.evaluator {
            Evaluator::Match { program, .. } => {
                if program.matches(row) {
                    0
                } else {
                    NO_MATCH
                }
            }
            Evaluator::AnyOf(disjunction) => {
                if disjunction.matches(row) {
                    0
                } else {
                    NO_MATCH
                }
            }
            Evaluator::Range {
                offset,
                width,
                constant,
                reversed,
            } => self.compare_range(row, *offset, *width, constant, *reversed),
        }
    }

    /// `compare(row)` when the cheap tests alone decide it, `None` otherwise. Cannot panic (see
    /// `Program::quick_verdict`), so it needs no panic guard.
    #[inline]
    pub fn compare_quickly(&self, row: &[u8]) -> Option<i32> {
        match &self.evaluator {
            Evaluator::Match { program, .. } => program.quick_verdict(row).map(|m| if m { 0 } else { NO_MATCH }),
            Evaluator::AnyOf(disjunction) => disjunction.quick_verdict(row).map(|m| if m { 0 } else { NO_MATCH }),
            Evaluator::Range { .. } => None,
        }
    }

    /// Kept out of line: the match evaluator is the per-row hot path, and stays small without it.
    #[inline(never)]
    fn compare_range(&self, row: &[u8], offset: usize, width: usize, constant: &[u8], reversed: bool) -> i32 {
        if row.len() != self.schema.key_length() {
            return RANGE_WRONG_LENGTH_RESULT;
        }
        let Some(field) = row.get(offset..offset + width) else {
            return RANGE_WRONG_LENGTH_RESULT;
        };
        let order = constant.cmp(field);
        match if reversed { order.reverse() } else { order } {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }
}

fn match_evaluator(schema: &Schema, conditions: &[Condition]) -> Result<Evaluator> {
    let predicate = Predicate::from_conditions(schema, conditions)?;
    let program = Program::compile(schema, &predicate)?;
    Ok(Evaluator::Match { predicate, program })
}
