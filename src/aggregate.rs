//! Aggregates folded natively where the rows are (docs/aggregates.md): an `AggregationSpec`
//! compiled against its schema, a fold of batches of rows (row keys and numeric cells) into
//! groups, a partial state that crosses the network, and the merge of partials into the answer.
//!
//! Group keys are kept in value order: each group field's bytes are rewritten so that plain byte
//! order is value order (descending fields inverted back, integers and timestamps as sign-flipped
//! big-endian 8 bytes, truncated timestamps truncated first). Sorting groups by those bytes is
//! sorting them by value, and the bytes are the same whether the rows came from the data table or
//! an index (a field keeps its stored bytes there).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use protobuf::EnumOrUnknown;

use crate::error::{Error, Result};
use crate::key::{check_version, Catalog, Kind, Location, Schema};
use crate::limits;
use crate::proto::rowkey::{
    aggregate_value, value::Kind as ValueKind, AggregateFunction, AggregateResult, AggregateRow, AggregateValue,
    AggregationSpec, CellType, Column, ColumnList, IndexRowsOf, TimeUnit, Value,
};
use crate::wire;

/// Bytes of one cell in a fold batch: a tag (0: the row has no such cell; else the value's length
/// plus one, 255 for 254 bytes or more), then the value's first 8 bytes, zero-padded.
pub const CELL_SLOT_BYTES: usize = 9;
/// First byte of a serialized partial state.
const PARTIAL_FORMAT: u8 = 1;
/// Bytes of one aggregate's state in a partial: rows (u64), integer accumulator (i128), float (f64).
const STATE_BYTES: usize = 8 + 16 + 8;
/// Bytes of a partial's header: format, groups, aggregates, group key width.
const PARTIAL_HEADER_BYTES: usize = 1 + 4 + 4 + 4;
/// The RegionServer's (and the client's) configuration setting of the bytes an aggregation's
/// groups may hold (`limits::DEFAULT_AGGREGATE_BYTES`), which its error names.
pub const MAX_BYTES_SETTING: &str = "rowkey.aggregate.max.bytes";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Function {
    Count,
    Sum,
    Min,
    Max,
    Avg,
}

impl Function {
    fn name(self) -> &'static str {
        match self {
            Function::Count => "count",
            Function::Sum => "sum",
            Function::Min => "min",
            Function::Max => "max",
            Function::Avg => "avg",
        }
    }
}

/// An integer key field, read from a whole key.
#[derive(Debug, Clone, Copy)]
struct IntField {
    offset: usize,
    /// 4 (int32) or 8.
    width: usize,
    reversed_timestamp: bool,
    descending: bool,
}

impl IntField {
    #[inline(always)]
    fn read(&self, key: &[u8]) -> Result<i64> {
        let bytes = &key[self.offset..self.offset + self.width];
        let flip = if self.descending { u64::MAX } else { 0 };
        if self.width == 4 {
            let raw = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) ^ flip as u32;
            return Ok(i64::from((raw ^ 0x8000_0000) as i32));
        }
        let mut eight = [0u8; 8];
        eight.copy_from_slice(bytes);
        let raw = u64::from_be_bytes(eight) ^ flip;
        if self.reversed_timestamp {
            if raw > i64::MAX as u64 {
                return Err(Error::Corrupt {
                    what: "row key",
                    detail: "a reversed timestamp's stored bytes have the top bit set".into(),
                });
            }
            return Ok(i64::MAX - raw as i64);
        }
        Ok((raw ^ 0x8000_0000_0000_0000) as i64)
    }
}

#[derive(Debug, Clone, Copy)]
enum Input {
    /// count of rows
    Rows,
    Field(IntField),
    /// The cell at this index of `columns`.
    Cell {
        column: usize,
        float: bool,
    },
}

#[derive(Debug, Clone)]
struct Aggregate {
    function: Function,
    input: Input,
    /// "sum(queue)", "count(*)", "max(f:q)": what errors and explain call it.
    label: String,
}

impl Aggregate {
    fn is_float(&self) -> bool {
        matches!(self.input, Input::Cell { float: true, .. })
    }
}

/// One part of a group key.
#[derive(Debug, Clone)]
enum GroupPart {
    /// An integer or timestamp field, as 8 sign-flipped big-endian bytes of its (truncated) value.
    Int { field: IntField, unit_millis: i64 },
    /// A byte field's stored bytes, un-inverted when descending.
    Bytes {
        offset: usize,
        width: usize,
        descending: bool,
        kind: Kind,
        name: String,
    },
    /// A bool as one byte, 0 or 1.
    Bool { offset: usize, mask: u8, descending: bool },
}

impl GroupPart {
    fn width(&self) -> usize {
        match self {
            GroupPart::Int { .. } => 8,
            GroupPart::Bytes { width, .. } => *width,
            GroupPart::Bool { .. } => 1,
        }
    }

    #[inline]
    fn write(&self, key: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match self {
            GroupPart::Int { field, unit_millis } => {
                let mut v = field.read(key)?;
                if *unit_millis > 1 {
                    // The bucket's start; only the lowest bucket's can lie below i64::MIN: it starts there.
                    v = v.div_euclid(*unit_millis).checked_mul(*unit_millis).unwrap_or(i64::MIN);
                }
                out.extend_from_slice(&((v as u64) ^ 0x8000_0000_0000_0000).to_be_bytes());
            }
            GroupPart::Bytes {
                offset,
                width,
                descending,
                ..
            } => {
                let bytes = &key[*offset..*offset + *width];
                if *descending {
                    out.extend(bytes.iter().map(|b| !b));
                } else {
                    out.extend_from_slice(bytes);
                }
            }
            GroupPart::Bool {
                offset,
                mask,
                descending,
            } => out.push(u8::from((key[*offset] & mask != 0) != *descending)),
        }
        Ok(())
    }

    /// The value of this part's bytes of a group key.
    fn value(&self, bytes: &[u8]) -> Result<Value> {
        let kind = match self {
            GroupPart::Int { .. } => {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(bytes);
                ValueKind::IntValue((u64::from_be_bytes(eight) ^ 0x8000_0000_0000_0000) as i64)
            }
            GroupPart::Bool { .. } => ValueKind::BoolValue(bytes[0] != 0),
            GroupPart::Bytes {
                kind: Kind::FixedString(_),
                name,
                ..
            } => {
                let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                ValueKind::StringValue(
                    String::from_utf8(bytes[..end].to_vec())
                        .map_err(|_| Error::value(name, "stored bytes are not valid UTF-8"))?,
                )
            }
            GroupPart::Bytes { .. } => ValueKind::BytesValue(bytes.to_vec()),
        };
        let mut value = Value::new();
        value.kind = Some(kind);
        Ok(value)
    }
}

/// A compiled, validated `AggregationSpec`.
#[derive(Debug, Clone)]
pub struct Aggregation {
    key_length: usize,
    groups: Vec<GroupPart>,
    group_width: usize,
    aggregates: Vec<Aggregate>,
    /// The distinct cells the aggregates read, in the order of a batch's cell slots.
    columns: Vec<Column>,
    /// How each column's value is written.
    column_types: Vec<CellType>,
    max_groups: usize,
    /// Bytes the spec allows its groups (`max_bytes`), when it asks for fewer than the settings.
    max_bytes: Option<usize>,
    /// Set when the rows are an index's: only keys that index could have written are folded.
    index_rows_of: Option<Arc<(Catalog, usize)>>,
}

impl Aggregation {
    /// Parses and compiles a serialized `AggregationSpec` (bytes from outside: checked by `wire`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Aggregation> {
        Aggregation::compile(&wire::parse::<AggregationSpec>(bytes, "aggregation")?)
    }

    /// Compiles a spec that came through `wire::parse` (alone or inside another message).
    pub(crate) fn compile(spec: &AggregationSpec) -> Result<Aggregation> {
        check_version("aggregation", spec.format_version)?;
        let schema_spec = spec.schema.as_ref().ok_or_else(|| Error::Corrupt {
            what: "aggregation",
            detail: "the schema is missing".into(),
        })?;
        let schema = Schema::from_parsed(schema_spec)?;
        if spec.aggregates.is_empty() {
            return Err(Error::InvalidSchema(
                "an aggregation needs at least one aggregate".into(),
            ));
        }
        let max_groups = match spec.max_groups as usize {
            0 => limits::DEFAULT_MAX_GROUPS,
            n if n > limits::MAX_GROUPS => {
                return Err(Error::LimitExceeded {
                    what: "max_groups of an aggregation".into(),
                    found: n,
                    limit: limits::MAX_GROUPS,
                })
            }
            n => n,
        };
        let max_bytes = match usize::try_from(spec.max_bytes).unwrap_or(usize::MAX) {
            0 => None,
            n if n > limits::MAX_AGGREGATE_BYTES => {
                return Err(Error::LimitExceeded {
                    what: "max_bytes of an aggregation".into(),
                    found: n,
                    limit: limits::MAX_AGGREGATE_BYTES,
                })
            }
            n => Some(n),
        };
        let mut groups = Vec::with_capacity(spec.group_by.len());
        let mut grouped: Vec<usize> = Vec::new();
        for group in &spec.group_by {
            let index = schema.field_index(&group.field)?;
            if grouped.contains(&index) {
                return Err(Error::condition(&group.field, "grouped by more than once"));
            }
            grouped.push(index);
            groups.push(group_part(&schema, index, group.truncate)?);
        }
        let mut columns: Vec<Column> = Vec::new();
        let mut column_types: Vec<CellType> = Vec::new();
        let mut aggregates = Vec::with_capacity(spec.aggregates.len());
        for a in &spec.aggregates {
            let function = match a.function.enum_value() {
                Ok(AggregateFunction::COUNT) => Function::Count,
                Ok(AggregateFunction::SUM) => Function::Sum,
                Ok(AggregateFunction::MIN) => Function::Min,
                Ok(AggregateFunction::MAX) => Function::Max,
                Ok(AggregateFunction::AVG) => Function::Avg,
                Ok(AggregateFunction::AGGREGATE_FUNCTION_UNSPECIFIED) | Err(_) => {
                    return Err(Error::InvalidSchema(format!(
                        "an aggregate has no known function (number {})",
                        a.function.value()
                    )))
                }
            };
            let (input, label) = match (a.field.is_empty(), a.cell.as_ref()) {
                (false, Some(_)) => {
                    return Err(Error::condition(
                        &a.field,
                        format!("{} names both a field and a cell", function.name()),
                    ))
                }
                (true, None) if function == Function::Count => (Input::Rows, "count(*)".to_owned()),
                (true, None) => {
                    return Err(Error::InvalidSchema(format!(
                        "{} needs a key field or a numeric cell to aggregate",
                        function.name()
                    )))
                }
                (false, None) => {
                    let field = &schema.fields()[schema.field_index(&a.field)?];
                    let label = format!("{}({})", function.name(), field.name);
                    if function == Function::Count {
                        // A key field is never absent: count(field) is count(*).
                        (Input::Rows, label)
                    } else {
                        (Input::Field(int_field(&schema, &a.field, function)?), label)
                    }
                }
                (true, Some(cell)) => {
                    let label = format!(
                        "{}({}:{})",
                        function.name(),
                        String::from_utf8_lossy(&cell.family),
                        String::from_utf8_lossy(&cell.qualifier)
                    );
                    let cell_type = match cell.type_.enum_value() {
                        Ok(CellType::CELL_TYPE_UNSPECIFIED) | Err(_) => {
                            return Err(Error::InvalidSchema(format!(
                                "{label}: the cell's type (int32, int64 or double) is not set"
                            )))
                        }
                        Ok(t) => t,
                    };
                    if cell.family.is_empty() {
                        return Err(Error::InvalidSchema(format!("{label}: the cell's family is empty")));
                    }
                    if cell.family.len() > limits::MAX_COLUMN_NAME_BYTES
                        || cell.qualifier.len() > limits::MAX_COLUMN_NAME_BYTES
                    {
                        return Err(Error::LimitExceeded {
                            what: "bytes of an aggregated cell's family or qualifier".into(),
                            found: cell.family.len().max(cell.qualifier.len()),
                            limit: limits::MAX_COLUMN_NAME_BYTES,
                        });
                    }
                    let found = columns
                        .iter()
                        .position(|c| c.family == cell.family && c.qualifier == cell.qualifier);
                    let column = match found {
                        Some(i) if column_types[i] != cell_type => {
                            return Err(Error::InvalidSchema(format!(
                                "{label}: the cell is read as two different types"
                            )))
                        }
                        Some(i) => i,
                        None => {
                            let mut c = Column::new();
                            c.family = cell.family.clone();
                            c.qualifier = cell.qualifier.clone();
                            columns.push(c);
                            column_types.push(cell_type);
                            columns.len() - 1
                        }
                    };
                    let float = cell_type == CellType::CELL_DOUBLE;
                    (Input::Cell { column, float }, label)
                }
            };
            aggregates.push(Aggregate { function, input, label });
        }
        let group_width = groups.iter().map(GroupPart::width).sum();
        let index_rows_of = match spec.index_rows_of.as_ref() {
            None => None,
            Some(of) => Some(Arc::new(index_rows_of(of, &schema)?)),
        };
        Ok(Aggregation {
            index_rows_of,
            key_length: schema.key_length(),
            groups,
            group_width,
            aggregates,
            columns,
            column_types,
            max_groups,
            max_bytes,
        })
    }

    /// Whether `key` is a row of the rows folded: always, unless they are an index's and that index
    /// could not have written it.
    #[inline]
    fn folds(&self, key: &[u8]) -> bool {
        match self.index_rows_of.as_deref() {
            None => true,
            Some((catalog, index)) => catalog.indexes()[*index].wrote(catalog.schema(), key),
        }
    }

    /// Bytes of one row in a fold batch: its key, then one slot per column.
    pub(crate) fn row_stride(&self) -> usize {
        self.key_length + self.columns.len() * CELL_SLOT_BYTES
    }

    pub fn key_length(&self) -> usize {
        self.key_length
    }

    /// The distinct cells the aggregates read, in slot order, as a serialized `ColumnList`.
    pub fn columns_message(&self) -> Result<Vec<u8>> {
        let mut list = ColumnList::new();
        list.columns = self.columns.clone();
        wire::serialize(&list, "column list")
    }

    /// Labels of the aggregates, for explain: "count(*), sum(queue)".
    pub fn describe(&self) -> String {
        self.aggregates
            .iter()
            .map(|a| a.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The index an aggregation's rows come from, checked to be the one its schema describes.
fn index_rows_of(of: &IndexRowsOf, schema: &Schema) -> Result<(Catalog, usize)> {
    let spec = of.catalog.as_ref().ok_or_else(|| Error::Corrupt {
        what: "aggregation",
        detail: "the catalog of the index whose rows are folded is missing".into(),
    })?;
    let catalog = Catalog::from_parsed_spec(spec)?;
    let index = of.index as usize;
    match catalog.indexes().get(index) {
        Some(i) if i.schema().key_length() == schema.key_length() => Ok((catalog, index)),
        _ => Err(Error::Corrupt {
            what: "aggregation",
            detail: format!("index number {index} of its catalog is not an index of the aggregation's key length"),
        }),
    }
}

fn group_part(schema: &Schema, index: usize, unit: EnumOrUnknown<TimeUnit>) -> Result<GroupPart> {
    let field = &schema.fields()[index];
    let unit_millis = match unit.enum_value() {
        Err(number) => {
            return Err(Error::condition(
                &field.name,
                format!("unknown time unit number {number}"),
            ))
        }
        Ok(TimeUnit::TIME_UNIT_UNSPECIFIED) => 1,
        Ok(TimeUnit::MINUTE) => 60_000,
        Ok(TimeUnit::HOUR) => 3_600_000,
        Ok(TimeUnit::DAY) => 86_400_000,
    };
    if unit_millis > 1 && !matches!(field.kind, Kind::Timestamp | Kind::ReversedTimestamp) {
        return Err(Error::condition(
            &field.name,
            format!(
                "only a timestamp field can be truncated to a time unit, not a {} field",
                field.kind.name()
            ),
        ));
    }
    Ok(match (field.kind, field.location) {
        (Kind::Int32 | Kind::Int64 | Kind::Timestamp | Kind::ReversedTimestamp, Location::Bytes { offset, width }) => {
            GroupPart::Int {
                field: IntField {
                    offset,
                    width,
                    reversed_timestamp: field.kind == Kind::ReversedTimestamp,
                    descending: field.descending,
                },
                unit_millis,
            }
        }
        (_, Location::Bit { offset, mask }) => GroupPart::Bool {
            offset,
            mask,
            descending: field.descending,
        },
        (kind, Location::Bytes { offset, width }) => GroupPart::Bytes {
            offset,
            width,
            descending: field.descending,
            kind,
            name: field.name.clone(),
        },
    })
}

fn int_field(schema: &Schema, name: &str, function: Function) -> Result<IntField> {
    let field = &schema.fields()[schema.field_index(name)?];
    match (field.kind, field.location) {
        (Kind::Int32 | Kind::Int64 | Kind::Timestamp | Kind::ReversedTimestamp, Location::Bytes { offset, width }) => {
            Ok(IntField {
                offset,
                width,
                reversed_timestamp: field.kind == Kind::ReversedTimestamp,
                descending: field.descending,
            })
        }
        (kind, _) => Err(Error::condition(
            name,
            format!(
                "{} of a {} field: only integer and timestamp key fields (or numeric cells) can be aggregated{}",
                function.name(),
                kind.name(),
                if kind.is_ordered() {
                    ""
                } else {
                    " (a hashed or boolean field has no numeric value)"
                }
            ),
        )),
    }
}

/// One aggregate's state in one group.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct State {
    /// Rows that gave a value (every row for count(*)).
    rows: u64,
    /// Sum, or the min/max so far, of integer inputs.
    int: i128,
    /// Sum, or the min/max so far, of double inputs.
    float: f64,
}

/// An aggregation's groups: folded from rows, merged from partials, turned into the answer.
///
/// Its memory is bounded in bytes (docs/aggregates.md, "Memory bound"): each group counts
/// [`Aggregator::bytes_per_group`], a new group past the limit is refused before anything is
/// allocated for it, and every allocation whose size the input chooses is fallible.
#[derive(Debug)]
pub struct Aggregator {
    aggregation: Aggregation,
    /// Group key -> group number: the one copy of each key. Empty when nothing is grouped (one
    /// group, number 0, with the empty key).
    index: HashMap<Box<[u8]>, u32, BuildHasherDefault<WordHasher>>,
    /// States, `aggregates.len()` per group, in group number order.
    states: Vec<State>,
    scratch: Vec<u8>,
    /// Each column's value in the current row, when it has one.
    cell_values: Vec<Option<CellValue>>,
    /// Bytes the groups may hold, and whether the spec's `max_bytes` set it (else the setting).
    max_bytes: usize,
    limited_by_spec: bool,
    bytes_per_group: usize,
}

/// Groups a state array grows by at least.
const MIN_GROWTH_GROUPS: usize = 16;
/// Bytes of the pieces a partial state is handed out in (`Aggregator::drain_partial`).
const PARTIAL_PIECE_BYTES: usize = 64 << 10;

#[derive(Debug, Clone, Copy)]
enum CellValue {
    Int(i64),
    Float(f64),
}

impl Aggregator {
    /// An empty aggregator whose groups may hold [`limits::DEFAULT_AGGREGATE_BYTES`] (or fewer, if
    /// the spec asks).
    pub fn new(aggregation: Aggregation) -> Aggregator {
        Aggregator::with_max_bytes(aggregation, 0)
    }

    /// An empty aggregator whose groups may hold `setting` bytes (the RegionServer's or client's
    /// [`MAX_BYTES_SETTING`]; 0: the default; at most [`limits::MAX_AGGREGATE_BYTES`]),
    /// or fewer, if the spec asks.
    pub fn with_max_bytes(aggregation: Aggregation, setting: usize) -> Aggregator {
        let setting = match setting {
            0 => limits::DEFAULT_AGGREGATE_BYTES,
            n => n.min(limits::MAX_AGGREGATE_BYTES),
        };
        let (max_bytes, limited_by_spec) = match aggregation.max_bytes {
            Some(asked) if asked < setting => (asked, true),
            _ => (setting, false),
        };
        let columns = aggregation.columns.len();
        Aggregator {
            bytes_per_group: Aggregator::bytes_per_group(&aggregation),
            aggregation,
            index: HashMap::default(),
            states: Vec::new(),
            scratch: Vec::new(),
            cell_values: vec![None; columns],
            max_bytes,
            limited_by_spec,
        }
    }

    /// Bytes one group of `aggregation` holds at most: its states and, when grouped, its key in an
    /// allocation of its own (with the allocator's header and rounding) and its map slot (the boxed
    /// key, the group number and a control byte; the map doubles when 7/8 full: up to 16/7 slots a
    /// group).
    pub fn bytes_per_group(aggregation: &Aggregation) -> usize {
        let states = aggregation.aggregates.len() * std::mem::size_of::<State>();
        if aggregation.groups.is_empty() {
            return states;
        }
        let key = aggregation.group_width.next_multiple_of(16) + 16;
        let slot = std::mem::size_of::<(Box<[u8]>, u32)>() + 1;
        states + key + (slot * 16).div_ceil(7)
    }

    /// Bytes the groups may hold.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The most groups the byte limit and the group cap allow (one when nothing is grouped).
    fn most_groups(&self) -> usize {
        if self.aggregation.groups.is_empty() {
            return 1;
        }
        (self.max_bytes / self.bytes_per_group).min(self.aggregation.max_groups)
    }

    /// What the byte limit is called in its errors.
    fn byte_limit_name(&self) -> String {
        if self.limited_by_spec {
            "the aggregation's max_bytes".to_owned()
        } else {
            format!("the setting {}", MAX_BYTES_SETTING)
        }
    }

    pub fn aggregation(&self) -> &Aggregation {
        &self.aggregation
    }

    pub fn group_count(&self) -> usize {
        self.states.len() / self.aggregation.aggregates.len()
    }

    /// Folds `rows` rows laid end to end in `batch`, each `row_stride()` bytes: its key, then one
    /// cell slot per column (see [`CELL_SLOT_BYTES`]).
    pub fn fold_batch(&mut self, batch: &[u8], rows: usize) -> Result<()> {
        let stride = self.aggregation.row_stride();
        if rows.checked_mul(stride) != Some(batch.len()) {
            return Err(Error::Corrupt {
                what: "aggregation batch",
                detail: format!("{} bytes are not {rows} rows of {stride} bytes", batch.len()),
            });
        }
        let key_length = self.aggregation.key_length;
        let every_row = self.aggregation.index_rows_of.is_none();
        if rows > 0 && every_row && self.aggregation.groups.is_empty() && self.aggregation.columns.is_empty() {
            return self.fold_keys_ungrouped(batch, rows);
        }
        for row in batch.chunks_exact(stride.max(1)).take(rows) {
            let (key, cells) = row.split_at(key_length);
            if every_row || self.aggregation.folds(key) {
                self.fold_row(key, cells)?;
            }
        }
        Ok(())
    }

    /// The common case of one group and key fields only: no group lookup, no cell slots per row.
    fn fold_keys_ungrouped(&mut self, keys: &[u8], rows: usize) -> Result<()> {
        self.group_of(&keys[..self.aggregation.key_length])?;
        let count = self.aggregation.aggregates.len();
        for (state, aggregate) in self.states[..count].iter_mut().zip(&self.aggregation.aggregates) {
            match aggregate.input {
                Input::Rows => state.rows += rows as u64,
                Input::Field(field) => {
                    for key in keys.chunks_exact(self.aggregation.key_length) {
                        update(state, aggregate.function, CellValue::Int(field.read(key)?));
                    }
                }
                Input::Cell { .. } => unreachable!("no columns"),
            }
        }
        Ok(())
    }

    /// Folds one row: a whole key of the schema and its cell slots.
    #[inline]
    pub fn fold_row(&mut self, key: &[u8], cells: &[u8]) -> Result<()> {
        self.read_cells(cells)?;
        let group = self.group_of(key)?;
        let count = self.aggregation.aggregates.len();
        let states = &mut self.states[group * count..(group + 1) * count];
        for (state, aggregate) in states.iter_mut().zip(&self.aggregation.aggregates) {
            let value = match aggregate.input {
                Input::Rows => {
                    state.rows += 1;
                    continue;
                }
                Input::Field(field) => CellValue::Int(field.read(key)?),
                Input::Cell { column, .. } => match self.cell_values[column] {
                    Some(v) => v,
                    None => continue, // a row without the cell gives no value, as SQL's NULL
                },
            };
            update(state, aggregate.function, value);
        }
        Ok(())
    }

    fn read_cells(&mut self, cells: &[u8]) -> Result<()> {
        for (i, slot) in cells.chunks_exact(CELL_SLOT_BYTES).enumerate() {
            let column = &self.aggregation.columns[i];
            self.cell_values[i] = match slot[0] {
                0 => None,
                tag => {
                    let length = usize::from(tag - 1);
                    let cell_type = self.aggregation.column_types[i];
                    let expected = if cell_type == CellType::CELL_INT32 { 4 } else { 8 };
                    if length != expected {
                        return Err(Error::InvalidValue {
                            field: format!(
                                "{}:{}",
                                String::from_utf8_lossy(&column.family),
                                String::from_utf8_lossy(&column.qualifier)
                            ),
                            detail: format!(
                                "a cell of {}{length} bytes is not {} ({expected} bytes, as Bytes.toBytes writes it)",
                                if tag == u8::MAX { "at least " } else { "" },
                                match cell_type {
                                    CellType::CELL_INT32 => "an int",
                                    CellType::CELL_INT64 => "a long",
                                    _ => "a double",
                                }
                            ),
                        });
                    }
                    let mut eight = [0u8; 8];
                    eight.copy_from_slice(&slot[1..9]);
                    Some(match cell_type {
                        CellType::CELL_INT32 => {
                            CellValue::Int(i64::from(i32::from_be_bytes([eight[0], eight[1], eight[2], eight[3]])))
                        }
                        CellType::CELL_INT64 => CellValue::Int(i64::from_be_bytes(eight)),
                        _ => CellValue::Float(f64::from_bits(u64::from_be_bytes(eight))),
                    })
                }
            };
        }
        Ok(())
    }

    /// The group number of the row with `key`, made when new (failing past the group cap).
    #[inline]
    fn group_of(&mut self, key: &[u8]) -> Result<usize> {
        if self.aggregation.groups.is_empty() {
            if self.states.is_empty() {
                self.new_group(&[])?;
            }
            return Ok(0);
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        for part in &self.aggregation.groups {
            part.write(key, &mut scratch)?;
        }
        let group = match self.index.get(scratch.as_slice()) {
            Some(&g) => g as usize,
            None => self.new_group(&scratch)?,
        };
        self.scratch = scratch;
        Ok(group)
    }

    /// Makes a group, refused by name past the group cap or the byte limit, before anything is
    /// allocated for it.
    fn new_group(&mut self, key: &[u8]) -> Result<usize> {
        let group = self.group_count();
        if group >= self.aggregation.max_groups {
            return Err(Error::LimitExceeded {
                what: "number of groups of the aggregation (its max_groups cap)".into(),
                found: group + 1,
                limit: self.aggregation.max_groups,
            });
        }
        let bytes = (group + 1) * self.bytes_per_group;
        if bytes > self.max_bytes {
            return Err(Error::LimitExceeded {
                what: format!(
                    "bytes of the aggregation's groups ({group} so far and a new one, {} bytes each; {})",
                    self.bytes_per_group,
                    self.byte_limit_name()
                )
                .into(),
                found: bytes,
                limit: self.max_bytes,
            });
        }
        let count = self.aggregation.aggregates.len();
        if self.states.len() == self.states.capacity() {
            // Doubling, but never past the groups the limits allow: the array stays within them.
            let groups = (group * 2).max(MIN_GROWTH_GROUPS).min(self.most_groups());
            try_reserve_exact(&mut self.states, (groups - group) * count, "aggregate states")?;
        }
        if !self.aggregation.groups.is_empty() {
            self.index.try_reserve(1).map_err(|_| Error::OutOfMemory {
                what: "the aggregation's group map",
                // About the doubled map it grows into.
                bytes: self.index.capacity().max(1) * 2 * std::mem::size_of::<(Box<[u8]>, u32)>(),
            })?;
            let mut owned = Vec::new();
            try_reserve_exact(&mut owned, key.len(), "a group key")?;
            owned.extend_from_slice(key);
            // Exactly as long as reserved: no reallocation.
            self.index.insert(owned.into_boxed_slice(), group as u32);
        }
        self.states.resize(self.states.len() + count, State::default());
        Ok(group)
    }

    /// Each group's key and number (in no order).
    fn groups(&self) -> impl Iterator<Item = (&[u8], usize)> {
        let ungrouped = if self.aggregation.groups.is_empty() {
            self.group_count()
        } else {
            0
        };
        (0..ungrouped)
            .map(|g| (&[][..], g))
            .chain(self.index.iter().map(|(key, &g)| (&key[..], g as usize)))
    }

    /// Bytes of one group in a partial state: its key, then per aggregate rows, int and float.
    fn partial_group_bytes(&self) -> usize {
        self.aggregation.group_width + self.aggregation.aggregates.len() * STATE_BYTES
    }

    /// Bytes of the partial state of the groups so far: less than the groups hold, so within the
    /// byte limit.
    pub fn partial_len(&self) -> usize {
        PARTIAL_HEADER_BYTES + self.group_count() * self.partial_group_bytes()
    }

    /// Hands the partial state of every group so far ([`Aggregator::partial_len`] bytes) to `out`
    /// in pieces of about 64 KiB, so that it is never held twice; then empties the aggregator and
    /// releases its memory, which an idle scanner then does not hold.
    pub(crate) fn drain_partial<E>(
        &mut self,
        mut out: impl FnMut(&[u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let count = self.aggregation.aggregates.len();
        let mut piece = Vec::with_capacity(PARTIAL_PIECE_BYTES + self.partial_group_bytes());
        piece.push(PARTIAL_FORMAT);
        piece.extend_from_slice(&(self.group_count() as u32).to_be_bytes());
        piece.extend_from_slice(&(count as u32).to_be_bytes());
        piece.extend_from_slice(&(self.aggregation.group_width as u32).to_be_bytes());
        let mut written = Ok(());
        for (key, g) in self.groups() {
            piece.extend_from_slice(key);
            for s in &self.states[g * count..(g + 1) * count] {
                piece.extend_from_slice(&s.rows.to_be_bytes());
                piece.extend_from_slice(&s.int.to_be_bytes());
                piece.extend_from_slice(&s.float.to_bits().to_be_bytes());
            }
            if piece.len() >= PARTIAL_PIECE_BYTES {
                written = out(&piece);
                if written.is_err() {
                    break;
                }
                piece.clear();
            }
        }
        if written.is_ok() && !piece.is_empty() {
            written = out(&piece);
        }
        self.index = HashMap::default();
        self.states = Vec::new();
        written
    }

    /// The partial state of every group so far, and the aggregator emptied for the next batch.
    pub fn take_partial(&mut self) -> Result<Vec<u8>> {
        let mut partial = Vec::new();
        try_reserve_exact(&mut partial, self.partial_len(), "a partial state")?;
        self.drain_partial(|piece| {
            partial.extend_from_slice(piece);
            Ok::<(), Error>(())
        })?;
        Ok(partial)
    }

    /// Refuses, before it is read, a partial state longer than any the byte limit could merge: a
    /// group's partial bytes are fewer than the bytes it holds.
    pub(crate) fn check_partial_len(&self, len: usize) -> Result<()> {
        let limit = PARTIAL_HEADER_BYTES + self.max_bytes;
        if len > limit {
            return Err(Error::LimitExceeded {
                what: format!("bytes of a partial state to merge ({})", self.byte_limit_name()).into(),
                found: len,
                limit,
            });
        }
        Ok(())
    }

    /// Merges a partial state of the same aggregation (from `take_partial`, here or in a region).
    pub fn merge(&mut self, partial: &[u8]) -> Result<()> {
        let corrupt = |detail: String| Error::Corrupt {
            what: "aggregate partial state",
            detail,
        };
        self.check_partial_len(partial.len())?;
        if partial.len() < PARTIAL_HEADER_BYTES || partial[0] != PARTIAL_FORMAT {
            return Err(corrupt(format!(
                "{} bytes without a format {PARTIAL_FORMAT} header",
                partial.len()
            )));
        }
        let u32_at =
            |at: usize| u32::from_be_bytes([partial[at], partial[at + 1], partial[at + 2], partial[at + 3]]) as usize;
        let (groups, count, width) = (u32_at(1), u32_at(5), u32_at(9));
        if count != self.aggregation.aggregates.len() || width != self.aggregation.group_width {
            return Err(corrupt(format!(
                "it has {count} aggregates and {width}-byte group keys, this aggregation {} and {}",
                self.aggregation.aggregates.len(),
                self.aggregation.group_width
            )));
        }
        let group_bytes = width + count * STATE_BYTES;
        if groups.checked_mul(group_bytes) != Some(partial.len() - PARTIAL_HEADER_BYTES) {
            return Err(corrupt(format!("{} bytes are not {groups} groups", partial.len())));
        }
        for group in partial[PARTIAL_HEADER_BYTES..]
            .chunks_exact(group_bytes.max(1))
            .take(groups)
        {
            let (key, states) = group.split_at(width);
            let g = if self.aggregation.groups.is_empty() {
                if self.states.is_empty() {
                    self.new_group(&[])?;
                }
                0
            } else {
                match self.index.get(key) {
                    Some(&g) => g as usize,
                    None => self.new_group(key)?,
                }
            };
            for (i, s) in states.chunks_exact(STATE_BYTES).enumerate() {
                let other = State {
                    rows: u64::from_be_bytes(s[0..8].try_into().expect("8 bytes")),
                    int: i128::from_be_bytes(s[8..24].try_into().expect("16 bytes")),
                    float: f64::from_bits(u64::from_be_bytes(s[24..32].try_into().expect("8 bytes"))),
                };
                let aggregate = &self.aggregation.aggregates[i];
                let mine = &mut self.states[g * count + i];
                combine(mine, &other, aggregate).map_err(corrupt)?;
            }
        }
        Ok(())
    }

    /// The answer: one row per group in group value order (one row, even with no rows folded, when
    /// nothing is grouped, as SQL's aggregates without GROUP BY).
    pub fn finish(&mut self) -> Result<AggregateResult> {
        if self.aggregation.groups.is_empty() && self.states.is_empty() {
            self.new_group(&[])?;
        }
        let count = self.aggregation.aggregates.len();
        let mut order = Vec::new();
        try_reserve_exact(&mut order, self.group_count(), "the order of the groups")?;
        order.extend(self.groups());
        order.sort_unstable_by_key(|&(key, _)| key);
        let mut result = AggregateResult::new();
        for (key, g) in order {
            let mut row = AggregateRow::new();
            let mut at = 0;
            for part in &self.aggregation.groups {
                row.group.push(part.value(&key[at..at + part.width()])?);
                at += part.width();
            }
            for (state, aggregate) in self.states[g * count..(g + 1) * count]
                .iter()
                .zip(&self.aggregation.aggregates)
            {
                row.values.push(final_value(state, aggregate)?);
            }
            result.rows.push(row);
        }
        Ok(result)
    }
}

/// `vec.try_reserve_exact(additional)`, a refusal as an error naming `what`.
fn try_reserve_exact<T>(vec: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    vec.try_reserve_exact(additional).map_err(|_| Error::OutOfMemory {
        what,
        bytes: additional.saturating_mul(std::mem::size_of::<T>()),
    })
}

#[inline(always)]
fn update(state: &mut State, function: Function, value: CellValue) {
    let first = state.rows == 0;
    state.rows += 1;
    match (function, value) {
        (Function::Count, _) => {}
        (Function::Sum | Function::Avg, CellValue::Int(v)) => state.int += i128::from(v),
        (Function::Sum | Function::Avg, CellValue::Float(v)) => state.float += v,
        (Function::Min, CellValue::Int(v)) if first || i128::from(v) < state.int => state.int = i128::from(v),
        (Function::Max, CellValue::Int(v)) if first || i128::from(v) > state.int => state.int = i128::from(v),
        (Function::Min, CellValue::Float(v)) if first || float_before(v, state.float) => state.float = v,
        (Function::Max, CellValue::Float(v)) if first || float_before(state.float, v) => state.float = v,
        (Function::Min | Function::Max, _) => {}
    }
}

/// The order of min and max over doubles, total so that the answer does not depend on the order
/// rows and partial states arrive in: every NaN is greater than every number (as in PostgreSQL),
/// and -0.0 comes before 0.0.
#[inline(always)]
fn float_before(a: f64, b: f64) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.total_cmp(&b) == std::cmp::Ordering::Less,
        (a_nan, _) => !a_nan,
    }
}

fn combine(mine: &mut State, other: &State, aggregate: &Aggregate) -> std::result::Result<(), String> {
    if other.rows == 0 {
        return Ok(());
    }
    let first = mine.rows == 0;
    mine.rows = mine
        .rows
        .checked_add(other.rows)
        .ok_or_else(|| format!("{}: the row count overflows", aggregate.label))?;
    let float = aggregate.is_float();
    match aggregate.function {
        Function::Count => {}
        Function::Sum | Function::Avg if float => mine.float += other.float,
        Function::Sum | Function::Avg => {
            mine.int = mine
                .int
                .checked_add(other.int)
                .ok_or_else(|| format!("{}: the sum overflows 128 bits", aggregate.label))?
        }
        Function::Min if float => {
            if first || float_before(other.float, mine.float) {
                mine.float = other.float
            }
        }
        Function::Max if float => {
            if first || float_before(mine.float, other.float) {
                mine.float = other.float
            }
        }
        Function::Min => {
            if first || other.int < mine.int {
                mine.int = other.int
            }
        }
        Function::Max => {
            if first || other.int > mine.int {
                mine.int = other.int
            }
        }
    }
    Ok(())
}

fn final_value(state: &State, aggregate: &Aggregate) -> Result<AggregateValue> {
    let mut value = AggregateValue::new();
    let overflow = |what: &str| Error::InvalidValue {
        field: aggregate.label.clone(),
        detail: format!("{what} overflows int64"),
    };
    if aggregate.function == Function::Count {
        value.kind = Some(aggregate_value::Kind::IntValue(
            i64::try_from(state.rows).map_err(|_| overflow("the count"))?,
        ));
        return Ok(value);
    }
    if state.rows == 0 {
        return Ok(value); // NULL: no row gave a value
    }
    let float = aggregate.is_float();
    value.kind = Some(match aggregate.function {
        Function::Avg if float => aggregate_value::Kind::DoubleValue(state.float / state.rows as f64),
        Function::Avg => aggregate_value::Kind::DoubleValue(state.int as f64 / state.rows as f64),
        _ if float => aggregate_value::Kind::DoubleValue(state.float),
        _ => aggregate_value::Kind::IntValue(i64::try_from(state.int).map_err(|_| overflow("the sum"))?),
    });
    Ok(value)
}

/// FNV-style multiply-xor over 8-byte words: group keys are short and come from our own rows, so
/// the default SipHash's protection against chosen keys buys nothing but time (a third of a
/// grouped fold). A hostile spec cannot choose the keys; the byte limit bounds the map anyway.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let word = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
}
