//! The Python binding: translation only. Python values become the core's `Value`s and back, the
//! core's one error type becomes `RowKeyError` (here, in `error`), and every decision stays in the
//! core (`hbase_rowkey`): the schema grammar, encodings, where clauses, plans, aggregates.

use protobuf::{Message, MessageField};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyTuple};

use hbase_rowkey::aggregate::{Aggregation, Aggregator};
use hbase_rowkey::key::{Catalog, Schema as CoreSchema};
use hbase_rowkey::proto::rowkey::{
    aggregate_value::Kind as AggregateKind, comparator_spec::Kind as SpecKind, value::Kind as ValueKind,
    AggregateFunction, AggregateRequest, AggregateSpec, AggregationSpec, ComparatorSpec, GroupKey, NamedValue,
    ScanPlan, ScanPlanRequest, TimeUnit, Value,
};
use hbase_rowkey::{plan_wire, text, Error, ErrorClass};

create_exception!(
    _native,
    RowKeyError,
    PyValueError,
    "Bad input to hbase-rowkey: a schema, value, key, where clause or aggregation it refuses; the message names what."
);
create_exception!(
    _native,
    InternalError,
    pyo3::exceptions::PyRuntimeError,
    "A bug in hbase-rowkey's native core (please report it with the message)."
);

/// The one place the core's errors become Python exceptions.
fn error(e: Error) -> PyErr {
    match e.class() {
        ErrorClass::InvalidInput => RowKeyError::new_err(e.to_string()),
        ErrorClass::Internal => InternalError::new_err(e.to_string()),
    }
}

fn serialize<M: Message>(message: &M, what: &str) -> PyResult<Vec<u8>> {
    message
        .write_to_bytes()
        .map_err(|e| InternalError::new_err(format!("serializing {what}: {e}")))
}

/// A Python value as the core's: bool before int (a Python bool is an int too).
fn to_value(field: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let kind = if value.is_instance_of::<PyBool>() {
        ValueKind::BoolValue(value.extract()?)
    } else if let Ok(i) = value.extract::<i64>() {
        ValueKind::IntValue(i)
    } else if let Ok(s) = value.extract::<String>() {
        ValueKind::StringValue(s)
    } else if let Ok(b) = value.cast::<PyBytes>() {
        ValueKind::BytesValue(b.as_bytes().to_vec())
    } else {
        return Err(RowKeyError::new_err(format!(
            "field '{field}': a {} is not a key value (int, bool, str or bytes; an int within 64 bits)",
            value.get_type().name()?
        )));
    };
    let mut v = Value::new();
    v.kind = Some(kind);
    Ok(v)
}

fn from_value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match &value.kind {
        Some(ValueKind::IntValue(i)) => i.into_pyobject(py)?.into_any(),
        Some(ValueKind::BoolValue(b)) => PyBool::new(py, *b).to_owned().into_any(),
        Some(ValueKind::StringValue(s)) => s.into_pyobject(py)?.into_any(),
        Some(ValueKind::BytesValue(b)) => PyBytes::new(py, b).into_any(),
        _ => py.None().into_bound(py),
    })
}

/// A row key schema: its fields in key order, their encodings, the salt. Made from the text form
/// (`Schema("md5url md5(8), code int32, free bool")`) or a table's catalog.
#[pyclass(module = "hbase_rowkey", frozen, eq)]
struct Schema {
    core: CoreSchema,
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.core.canonical_bytes() == other.core.canonical_bytes()
    }
}

#[pymethods]
impl Schema {
    /// Parses the schema's text form; `RowKeyError` names the character and what was expected.
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        let spec = text::parse_schema(text).map_err(error)?;
        Ok(Schema {
            core: CoreSchema::from_spec(&spec).map_err(error)?,
        })
    }

    /// The schema of a serialized table catalog (what the scan observer returns for a table made
    /// by `RowKeyTable.create`).
    #[staticmethod]
    fn from_catalog(catalog: &[u8]) -> PyResult<Self> {
        let catalog = Catalog::from_bytes(catalog).map_err(error)?;
        Ok(Schema {
            core: catalog.schema().clone(),
        })
    }

    /// The text form, which `Schema(text)` parses back to an equal schema.
    #[getter]
    fn text(&self) -> String {
        text::describe_schema(self.core.canonical_spec())
    }

    /// Bytes in every key of this schema.
    #[getter]
    fn key_length(&self) -> usize {
        self.core.key_length()
    }

    /// The fields in key order: (name, type, width in bytes; a bool's 0), a DESC field's type
    /// with " desc" after it.
    #[getter]
    fn fields(&self) -> Vec<(String, String, usize)> {
        self.core
            .fields()
            .iter()
            .map(|f| {
                let kind = if f.descending {
                    format!("{} desc", f.kind.name())
                } else {
                    f.kind.name().to_owned()
                };
                (f.name.clone(), kind, f.kind.width())
            })
            .collect()
    }

    /// The number of salt buckets, or None.
    #[getter]
    fn salt_buckets(&self) -> Option<u32> {
        self.core.salt().map(|s| s.buckets)
    }

    /// The row key of `row`: every field once (int, bool, str, or bytes for a fixed-bytes field
    /// or a hash's digest).
    fn encode<'py>(&self, py: Python<'py>, row: &Bound<'py, PyDict>) -> PyResult<Bound<'py, PyBytes>> {
        let mut values = Vec::with_capacity(row.len());
        for (name, value) in row.iter() {
            let name: String = name.extract().map_err(|_| {
                RowKeyError::new_err(format!(
                    "a field name must be a str, not {}",
                    name.get_type().name().map_or_else(|_| "?".into(), |n| n.to_string())
                ))
            })?;
            let mut named = NamedValue::new();
            named.value = MessageField::some(to_value(&name, &value)?);
            named.field = name;
            values.push(named);
        }
        let key = self.core.encode(&values).map_err(error)?;
        Ok(PyBytes::new(py, &key))
    }

    /// The fields of `key`, in key order: int, bool, str; bytes for fixed bytes and for the
    /// digests an md5 or javaHash field stores.
    fn decode<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for named in self.core.decode(key).map_err(error)? {
            dict.set_item(&named.field, from_value(py, named.value.get_or_default())?)?;
        }
        Ok(dict)
    }

    /// The where clause checked on this schema, as the RegionServer will parse it; returns its
    /// canonical text, raises `RowKeyError` with the parser's message.
    #[pyo3(name = "where")]
    fn where_(&self, clause: &str) -> PyResult<String> {
        let spec = text::parse_where(&self.core, clause).map_err(error)?;
        Ok(text::describe_where(&spec))
    }

    /// What a scan of `clause` reads: its key ranges (or the skip scan) and the conditions filtered
    /// per row, as `RowKeyQuery.explain()` says it.
    #[pyo3(signature = (clause, max_ranges = 0))]
    fn explain(&self, clause: &str, max_ranges: u32) -> PyResult<String> {
        let plan = self.plan(clause, max_ranges)?;
        Ok(format!("{}\n{}", self.where_(clause)?, plan.explain))
    }

    /// The planned key ranges of `clause`: a list of (start, stop) byte strings (an empty stop:
    /// the table's end), sorted and disjoint; empty when no row can match.
    #[pyo3(signature = (clause, max_ranges = 0))]
    fn ranges<'py>(&self, py: Python<'py>, clause: &str, max_ranges: u32) -> PyResult<Bound<'py, PyList>> {
        let plan = self.plan(clause, max_ranges)?;
        let ranges = PyList::empty(py);
        for r in &plan.ranges {
            ranges.append(PyTuple::new(
                py,
                [PyBytes::new(py, &r.start), PyBytes::new(py, &r.stop)],
            )?)?;
        }
        Ok(ranges)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Schema({})",
            pyo3::types::PyString::new(py, &self.text()).repr()?
        ))
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.core.canonical_bytes().hash(&mut h);
        h.finish()
    }
}

impl Schema {
    fn plan(&self, clause: &str, max_ranges: u32) -> PyResult<ScanPlan> {
        let predicate = text::parse_where(&self.core, clause).map_err(error)?;
        let mut query = ComparatorSpec::new();
        query.format_version = hbase_rowkey::key::FORMAT_VERSION;
        query.schema = MessageField::some(self.core.canonical_spec().clone());
        query.kind = Some(SpecKind::Predicate(predicate));
        let mut request = ScanPlanRequest::new();
        request.query = MessageField::some(query);
        request.max_ranges = max_ranges;
        let reply = plan_wire::plan_request(&serialize(&request, "a scan plan request")?).map_err(error)?;
        ScanPlan::parse_from_bytes(&reply).map_err(|e| InternalError::new_err(format!("reading the scan plan: {e}")))
    }
}

const FUNCTIONS: [(&str, AggregateFunction); 5] = [
    ("count", AggregateFunction::COUNT),
    ("sum", AggregateFunction::SUM),
    ("min", AggregateFunction::MIN),
    ("max", AggregateFunction::MAX),
    ("avg", AggregateFunction::AVG),
];

const UNITS: [(&str, TimeUnit); 3] = [
    ("minute", TimeUnit::MINUTE),
    ("hour", TimeUnit::HOUR),
    ("day", TimeUnit::DAY),
];

/// `count`, `count(*)`, `sum(field)`, ...: a function of a key field (or of the rows).
fn aggregate_of(text: &str) -> PyResult<AggregateSpec> {
    let t = text.trim();
    let (name, field) = match t.find('(') {
        Some(open) if t.ends_with(')') => (t[..open].trim(), t[open + 1..t.len() - 1].trim()),
        None => (t, ""),
        _ => {
            return Err(RowKeyError::new_err(format!(
                "aggregate '{text}': expected function(field), e.g. sum(queue)"
            )))
        }
    };
    let function = FUNCTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, f)| f)
        .ok_or_else(|| {
            RowKeyError::new_err(format!(
                "aggregate '{text}': unknown function '{name}' (count, sum, min, max, avg)"
            ))
        })?;
    let mut spec = AggregateSpec::new();
    spec.function = function.into();
    match field {
        "" | "*" if function == AggregateFunction::COUNT => {}
        "" | "*" => {
            return Err(RowKeyError::new_err(format!(
                "aggregate '{text}': {name} needs a key field"
            )))
        }
        f => spec.field = f.to_owned(),
    }
    Ok(spec)
}

/// `field` or `field by hour` (a timestamp truncated to a minute, hour or UTC day).
fn group_of(text: &str) -> PyResult<GroupKey> {
    let mut group = GroupKey::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        [field] => group.field = (*field).to_owned(),
        [field, by, unit] if by.eq_ignore_ascii_case("by") => {
            group.field = (*field).to_owned();
            group.truncate = UNITS
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(unit))
                .map(|&(_, u)| u)
                .ok_or_else(|| {
                    RowKeyError::new_err(format!("group by '{text}': unknown unit '{unit}' (minute, hour, day)"))
                })?
                .into();
        }
        _ => {
            return Err(RowKeyError::new_err(format!(
                "group by '{text}': expected a key field, or 'field by hour'"
            )))
        }
    }
    Ok(group)
}

/// An aggregation of a table's rows on `schema`: what `RowKeyScanObserver` folds in each region
/// (the request, a scan attribute) and the client's merge of the regions' partial states.
#[pyclass(module = "hbase_rowkey")]
struct Aggregate {
    merged: Aggregator,
    request: Vec<u8>,
    columns: Vec<String>,
}

#[pymethods]
impl Aggregate {
    /// `group_by`: key fields (`"ts by hour"` truncates a timestamp); `aggregates`: `count`,
    /// `sum(field)`, `min(field)`, `max(field)`, `avg(field)` of key fields.
    #[new]
    #[pyo3(signature = (schema, group_by, aggregates))]
    fn new(schema: &Schema, group_by: Vec<String>, aggregates: Vec<String>) -> PyResult<Self> {
        let mut spec = AggregationSpec::new();
        spec.format_version = hbase_rowkey::key::FORMAT_VERSION;
        spec.schema = MessageField::some(schema.core.canonical_spec().clone());
        for g in &group_by {
            spec.group_by.push(group_of(g)?);
        }
        for a in &aggregates {
            spec.aggregates.push(aggregate_of(a)?);
        }
        if spec.aggregates.is_empty() {
            return Err(RowKeyError::new_err(
                "an aggregation needs at least one aggregate, e.g. count",
            ));
        }
        let bytes = serialize(&spec, "an aggregation")?;
        let aggregation = Aggregation::from_bytes(&bytes).map_err(error)?;
        let mut request = AggregateRequest::new();
        request.format_version = hbase_rowkey::key::FORMAT_VERSION;
        request.aggregation = MessageField::some(spec);
        let columns = group_by.iter().chain(&aggregates).cloned().collect();
        Ok(Aggregate {
            merged: Aggregator::new(aggregation),
            request: serialize(&request, "an aggregate request")?,
            columns,
        })
    }

    /// The scan attribute's value (`rowkey.aggregate`) that makes each region fold its rows.
    #[getter]
    fn request<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.request)
    }

    /// The result's column names: the group fields, then the aggregates, as given.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.columns.clone()
    }

    /// Merges one region's partial state (the value of a partial cell).
    fn merge(&mut self, partial: &[u8]) -> PyResult<()> {
        self.merged.merge(partial).map_err(error)
    }

    /// The answer: one tuple per group in group order (the group values, then the aggregates:
    /// int, float for avg, None where no row had a value).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let result = self.merged.finish().map_err(error)?;
        let rows = PyList::empty(py);
        for row in &result.rows {
            let mut items: Vec<Bound<'py, PyAny>> = Vec::with_capacity(row.group.len() + row.values.len());
            for g in &row.group {
                items.push(from_value(py, g)?);
            }
            for v in &row.values {
                items.push(match &v.kind {
                    Some(AggregateKind::IntValue(i)) => i.into_pyobject(py)?.into_any(),
                    Some(AggregateKind::DoubleValue(d)) => d.into_pyobject(py)?.into_any(),
                    _ => py.None().into_bound(py),
                });
            }
            rows.append(PyTuple::new(py, items)?)?;
        }
        Ok(rows)
    }
}

/// The filter-language string `RowKeyWhere('<where>'[, '<schema>'])`: each argument quoted, a
/// quote inside doubled, as HBase's `ParseFilter` reads it.
#[pyfunction]
#[pyo3(signature = (clause, schema = None))]
fn filter_string(clause: &str, schema: Option<&Schema>) -> String {
    fn quoted(text: &str) -> String {
        format!("'{}'", text.replace('\'', "''"))
    }
    match schema {
        None => format!("RowKeyWhere({})", quoted(clause)),
        Some(s) => format!("RowKeyWhere({}, {})", quoted(clause), quoted(&s.text())),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Schema>()?;
    m.add_class::<Aggregate>()?;
    m.add_function(wrap_pyfunction!(filter_string, m)?)?;
    m.add("RowKeyError", m.py().get_type::<RowKeyError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("FORMAT_VERSION", hbase_rowkey::key::FORMAT_VERSION)?;
    Ok(())
}
