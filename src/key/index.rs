//! Secondary indexes (`docs/indexes.md`): the table catalog and each index's key, a schema of its
//! own derived from the data schema:
//!
//! ```text
//! [index salt byte] <index fields> [the data key's salt byte, as a 1-byte field] <the other data fields, in data order>
//! ```
//!
//! Every field keeps its stored bytes, so an index key is the data key's bytes rearranged (and an
//! index salt computed): a pure function of the data key, and back. For fixed values of the index
//! fields, index keys sort as their data keys do.

use super::schema::{check_version, Location, Schema, FORMAT_VERSION};
use crate::error::{Error, Result};
use crate::limits;
use crate::proto::rowkey::{FieldSpec, FieldType, IndexSpec, IndexState, SaltSpec, SchemaSpec, TableCatalog};
use crate::wire;

/// The index schema's field holding the data key's salt byte (when the data key is salted).
pub const DATA_SALT_FIELD: &str = "__data_salt";

/// A data table's schema and its indexes, validated.
#[derive(Debug)]
pub struct Catalog {
    schema: Schema,
    indexes: Vec<Index>,
    canonical: Vec<u8>,
}

#[derive(Debug)]
pub struct Index {
    name: String,
    state: IndexState,
    /// The index key's layout.
    schema: Schema,
    /// Where the index key's bytes and bits are in its data key, adjacent fields as one run.
    moves: Vec<Move>,
    /// Covered columns (family, qualifier).
    include: Vec<(Vec<u8>, Vec<u8>)>,
    /// Wholly covered families.
    include_families: Vec<Vec<u8>>,
    /// How many fields the index is on: the first of its schema's fields.
    indexed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The data field with this index.
    Field(usize),
    /// The data key's salt byte.
    DataSalt,
}

/// Stored bytes or one bool's bit that an index key holds at `index` and its data key at `data`:
/// an index key is its data key's bytes moved (and an index salt), a dozen fields in a few runs.
#[derive(Debug, Clone, Copy)]
enum Move {
    Bytes {
        index: usize,
        data: usize,
        width: usize,
    },
    Bit {
        index: usize,
        index_mask: u8,
        data: usize,
        data_mask: u8,
    },
}

impl Move {
    /// The moves of an index key's fields from where `sources` says they are in the data key:
    /// the fields after one another in both keys (the data salt byte and the data key's first
    /// fields, say) merged into one run.
    fn of(name: &str, index: &Schema, data: &Schema, sources: &[Source]) -> Result<Vec<Move>> {
        let mut moves: Vec<Move> = Vec::with_capacity(sources.len());
        for (field, source) in index.fields().iter().zip(sources) {
            let from = match *source {
                Source::Field(i) => data.fields()[i].location,
                Source::DataSalt => Location::Bytes { offset: 0, width: 1 },
            };
            let next = match (field.location, from) {
                (Location::Bytes { offset, width }, Location::Bytes { offset: data, .. }) => {
                    if let Some(Move::Bytes {
                        index: i,
                        data: d,
                        width: w,
                    }) = moves.last_mut()
                    {
                        if *i + *w == offset && *d + *w == data {
                            *w += width;
                            continue;
                        }
                    }
                    Move::Bytes {
                        index: offset,
                        data,
                        width,
                    }
                }
                (
                    Location::Bit { offset, mask },
                    Location::Bit {
                        offset: data,
                        mask: data_mask,
                    },
                ) => Move::Bit {
                    index: offset,
                    index_mask: mask,
                    data,
                    data_mask,
                },
                // Not made: an index field is its data field's spec, so a bool is a bit in both keys.
                _ => {
                    return Err(invalid(
                        name,
                        format!("field '{}' is bytes in one key, a bit in the other", field.name),
                    ))
                }
            };
            moves.push(next);
        }
        Ok(moves)
    }

    /// Writes this move's bytes or bit of `from` (a data key, or an index key when `to_data`) into `to`.
    fn apply(self, to_data: bool, from: &[u8], to: &mut [u8]) {
        match self {
            Move::Bytes { index, data, width } => {
                let (from_at, to_at) = if to_data { (index, data) } else { (data, index) };
                to[to_at..to_at + width].copy_from_slice(&from[from_at..from_at + width]);
            }
            Move::Bit {
                index,
                index_mask,
                data,
                data_mask,
            } => {
                let ((from_at, from_mask), (to_at, to_mask)) = if to_data {
                    ((index, index_mask), (data, data_mask))
                } else {
                    ((data, data_mask), (index, index_mask))
                };
                if from[from_at] & from_mask != 0 {
                    to[to_at] |= to_mask;
                } else {
                    to[to_at] &= !to_mask;
                }
            }
        }
    }
}

impl Catalog {
    /// Parses and validates a serialized `TableCatalog` (from a table descriptor: checked like any
    /// message from outside).
    pub fn from_bytes(bytes: &[u8]) -> Result<Catalog> {
        Catalog::from_parsed_spec(&wire::parse::<TableCatalog>(bytes, "table catalog")?)
    }

    /// Validates a `TableCatalog` built in Rust, with the same checks as bytes from outside.
    pub fn from_spec(spec: &TableCatalog) -> Result<Catalog> {
        Catalog::from_bytes(&wire::serialize(spec, "table catalog")?)
    }

    /// Validates a catalog that came through `wire::parse` (alone or inside another message).
    pub(crate) fn from_parsed_spec(spec: &TableCatalog) -> Result<Catalog> {
        check_version("table catalog", spec.format_version)?;
        let schema_spec = spec.schema.as_ref().ok_or_else(|| Error::Corrupt {
            what: "table catalog",
            detail: "the schema is missing".into(),
        })?;
        let schema = Schema::from_parsed(schema_spec)?;
        let mut indexes: Vec<Index> = Vec::with_capacity(spec.indexes.len());
        for index_spec in &spec.indexes {
            let index = Index::new(&schema, index_spec)?;
            if indexes.iter().any(|i| i.name == index.name) {
                return Err(invalid(&index.name, "an index of this name is declared twice".into()));
            }
            indexes.push(index);
        }
        let mut canonical = spec.clone();
        canonical.format_version = FORMAT_VERSION;
        canonical.schema = protobuf::MessageField::some(schema.canonical_spec().clone());
        Ok(Catalog {
            schema,
            indexes,
            canonical: wire::serialize(&canonical, "table catalog")?,
        })
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn indexes(&self) -> &[Index] {
        &self.indexes
    }

    pub fn index(&self, name: &str) -> Option<&Index> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// Where a plan names its source for the readers: the index's place in the catalog, or -1 for
    /// the data table (the empty name, or one the catalog does not have).
    pub(crate) fn index_number(&self, name: &str) -> i32 {
        if name.is_empty() {
            return -1;
        }
        self.indexes
            .iter()
            .position(|i| i.name == name)
            .map_or(-1, |n| n as i32)
    }

    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }
}

impl Index {
    fn new(data: &Schema, spec: &IndexSpec) -> Result<Index> {
        let name = spec.name.as_str();
        check_index_name(name)?;
        let state = spec
            .state
            .enum_value()
            .ok()
            .filter(|s| *s != IndexState::INDEX_STATE_UNSPECIFIED)
            .ok_or_else(|| invalid(name, "its state is not BUILDING, ACTIVE or DROPPING".into()))?;
        if spec.fields.is_empty() {
            return Err(invalid(name, "it has no field".into()));
        }
        let mut index_fields = Vec::with_capacity(spec.fields.len());
        for field in &spec.fields {
            let i = data.field_index(field).map_err(|_| {
                let known: Vec<&str> = data.fields().iter().map(|f| f.name.as_str()).collect();
                invalid(name, format!("unknown field '{field}' (fields: {})", known.join(", ")))
            })?;
            if index_fields.contains(&i) {
                return Err(invalid(name, format!("field '{field}' is named twice")));
            }
            index_fields.push(i);
        }
        if index_fields.iter().enumerate().all(|(position, &i)| position == i) {
            return Err(invalid(
                name,
                "its fields lead the data key in the same order, so it would order rows exactly as the data table does"
                    .into(),
            ));
        }
        if spec.salt_buckets > limits::MAX_SALT_BUCKETS {
            return Err(invalid(
                name,
                format!(
                    "salt buckets must be within 1..{}, got {}",
                    limits::MAX_SALT_BUCKETS,
                    spec.salt_buckets
                ),
            ));
        }
        let salted_data = data.salt().is_some();
        if salted_data && data.field_index(DATA_SALT_FIELD).is_ok() {
            return Err(invalid(
                name,
                format!("the data field name '{DATA_SALT_FIELD}' is reserved for the data key's salt byte"),
            ));
        }
        let mut include = Vec::with_capacity(spec.include.len());
        for column in &spec.include {
            if column.family.is_empty() {
                return Err(invalid(name, "a covered column has an empty family".into()));
            }
            if column.family.len() > limits::MAX_COLUMN_NAME_BYTES
                || column.qualifier.len() > limits::MAX_COLUMN_NAME_BYTES
            {
                return Err(Error::LimitExceeded {
                    what: "covered column family or qualifier length".into(),
                    found: column.family.len().max(column.qualifier.len()),
                    limit: limits::MAX_COLUMN_NAME_BYTES,
                });
            }
            let pair = (column.family.clone(), column.qualifier.clone());
            if include.contains(&pair) {
                return Err(invalid(name, "a covered column is named twice".into()));
            }
            include.push(pair);
        }
        let mut include_families: Vec<Vec<u8>> = Vec::with_capacity(spec.include_families.len());
        for family in &spec.include_families {
            if family.is_empty() {
                return Err(invalid(name, "a covered family is empty".into()));
            }
            if family.len() > limits::MAX_COLUMN_NAME_BYTES {
                return Err(Error::LimitExceeded {
                    what: "covered column family or qualifier length".into(),
                    found: family.len(),
                    limit: limits::MAX_COLUMN_NAME_BYTES,
                });
            }
            if include_families.contains(family) {
                return Err(invalid(name, "a covered family is named twice".into()));
            }
            if include.iter().any(|(f, _)| f == family) {
                return Err(invalid(
                    name,
                    "a column of a wholly covered family is named on its own too".into(),
                ));
            }
            include_families.push(family.clone());
        }

        let mut sources: Vec<Source> = index_fields.iter().map(|&i| Source::Field(i)).collect();
        if salted_data {
            sources.push(Source::DataSalt);
        }
        sources.extend(
            (0..data.fields().len())
                .filter(|i| !index_fields.contains(i))
                .map(Source::Field),
        );
        let data_fields = &data.canonical_spec().fields;
        let mut schema = SchemaSpec::new();
        schema.format_version = FORMAT_VERSION;
        schema.fields = sources
            .iter()
            .map(|source| match *source {
                Source::Field(i) => data_fields[i].clone(),
                Source::DataSalt => {
                    let mut salt = FieldSpec::new();
                    salt.name = DATA_SALT_FIELD.into();
                    salt.type_ = FieldType::FIXED_BYTES.into();
                    salt.width = 1;
                    salt
                }
            })
            .collect();
        if spec.salt_buckets > 0 {
            let mut salt = SaltSpec::new();
            salt.buckets = spec.salt_buckets;
            schema.salt = protobuf::MessageField::some(salt);
        }
        let schema = Schema::from_parsed(&schema)?;
        Ok(Index {
            name: name.to_owned(),
            state,
            moves: Move::of(name, &schema, data, &sources)?,
            schema,
            include,
            include_families,
            indexed: index_fields.len(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn state(&self) -> IndexState {
        self.state
    }

    /// The fields the index is on, in its order.
    pub fn key_fields(&self) -> impl Iterator<Item = &str> {
        self.schema.fields()[..self.indexed].iter().map(|f| f.name.as_str())
    }

    /// The index key's layout: plan and filter index rows with it.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Covered columns, (family, qualifier).
    pub fn include(&self) -> &[(Vec<u8>, Vec<u8>)] {
        &self.include
    }

    /// Wholly covered families.
    pub fn include_families(&self) -> &[Vec<u8>] {
        &self.include_families
    }

    /// Whether the index rows hold copies of data column `family:qualifier`.
    pub fn covers(&self, family: &[u8], qualifier: &[u8]) -> bool {
        self.include_families.iter().any(|f| f == family)
            || self.include.iter().any(|(f, q)| f == family && q == qualifier)
    }

    /// Whether the index rows hold every cell of a table with these families (none: unknown).
    pub(crate) fn covers_families(&self, families: &[Vec<u8>]) -> bool {
        !families.is_empty() && families.iter().all(|f| self.include_families.contains(f))
    }

    /// The index key of a data key. A salted data key whose salt byte is not the one its fields
    /// hash to is not a key of the schema (a row written by hand): an error, so that a write of it
    /// to an indexed table is refused instead of indexed where no reader can map it back.
    pub fn index_key(&self, data: &Schema, data_key: &[u8]) -> Result<Vec<u8>> {
        check_length(data, data_key)?;
        if data.salt().is_some() {
            let expected = data.salts_of_keys::<1>(data_key)[0];
            if data_key[0] != expected {
                return Err(Error::Corrupt {
                    what: "data row key",
                    detail: format!(
                        "its salt byte is {}, but its salt fields hash to {expected}: not a key of the schema (index '{}')",
                        data_key[0], self.name
                    ),
                });
            }
        }
        Ok(self.lay_out(data_key))
    }

    /// Where a read of this index meets the data keys from `position` on, in data-key order: the
    /// layout of `position`, a seek position (from a skip scan over well-formed keys: its salt byte
    /// need not be its fields' hash), whose salt byte and indexed fields the caller sets to those
    /// of the range it reads. For equal indexed fields, index keys sort as their data keys, so the
    /// keys at or above `position` are those whose index keys sort at or above it. A position that
    /// is not well formed ([`Schema::is_well_formed`]) would not: an error.
    pub fn seek_key(&self, data: &Schema, position: &[u8]) -> Result<Vec<u8>> {
        check_length(data, position)?;
        if !data.is_well_formed(position) {
            return Err(Error::Corrupt {
                what: "seek position",
                detail: format!(
                    "a byte of bools has a bit no bool owns: no key an encoder writes (index '{}')",
                    self.name
                ),
            });
        }
        Ok(self.lay_out(position))
    }

    /// The index key's fields read from a data key of the right length, and its salt byte.
    fn lay_out(&self, data_key: &[u8]) -> Vec<u8> {
        let mut key = vec![0u8; self.schema.key_length()];
        for m in &self.moves {
            m.apply(false, data_key, &mut key);
        }
        if self.schema.salt().is_some() {
            key[0] = self.schema.salts_of_keys::<1>(&key)[0];
        }
        key
    }

    /// The data key an index key stands for. An index key whose salt bytes are not the ones the
    /// data key would have was not written by the index (a foreign or corrupt row): an error.
    pub fn data_key(&self, data: &Schema, index_key: &[u8]) -> Result<Vec<u8>> {
        check_length(&self.schema, index_key)?;
        let mut key = vec![0u8; data.key_length()];
        self.write_data_keys::<1>(data, index_key, &mut key)?;
        Ok(key)
    }

    /// [`Self::data_key`] of each of `LANES` index keys laid end to end in `index_keys` (each of
    /// the index schema's length), written into `keys` (zeroed, the data keys' length each): a
    /// batch's keys are written in place, one allocation for all of them, and their salts are
    /// hashed in lockstep. The first key refused fails the call with its own error.
    fn write_data_keys<const LANES: usize>(&self, data: &Schema, index_keys: &[u8], keys: &mut [u8]) -> Result<()> {
        let (width, length) = (self.schema.key_length().max(1), data.key_length().max(1));
        for (index_key, key) in index_keys.chunks_exact(width).zip(keys.chunks_exact_mut(length)) {
            for m in &self.moves {
                m.apply(true, index_key, key);
            }
        }
        // The data salt byte each index key holds was moved to its data key's first byte; the
        // index salt is hashed from the index key's fields: they are the data key's, each moved
        // back where it came from, and the data salt is checked, so no key is laid out again.
        let expected_data_salts = data.salts_of_keys::<LANES>(keys);
        let expected_index_salts = self.schema.salts_of_keys::<LANES>(index_keys);
        for k in 0..LANES {
            if data.salt().is_some() && keys[k * length] != expected_data_salts[k] {
                return Err(self.corrupt("its data salt byte does not match its fields"));
            }
            if self.schema.salt().is_some() && index_keys[k * width] != expected_index_salts[k] {
                return Err(self.corrupt("its salt byte does not match its fields"));
            }
        }
        Ok(())
    }

    fn corrupt(&self, detail: &str) -> Error {
        Error::Corrupt {
            what: "index row key",
            detail: format!("index '{}': {detail}", self.name),
        }
    }

    /// Whether this index could have written the row `index_key` (its length and salt bytes are the
    /// ones its data key gives): readers skip any other row of the index table, and so do folds.
    pub(crate) fn wrote(&self, data: &Schema, index_key: &[u8]) -> bool {
        if data.salt().is_none() && self.schema.salt().is_none() {
            return index_key.len() == self.schema.key_length();
        }
        self.data_key(data, index_key).is_ok()
    }

    /// The data keys of `count` index keys laid end to end in `index_keys`, laid end to end in
    /// the same order: a reader maps a whole batch of index rows with one call. Every key must
    /// have the index schema's length; the first that is refused fails the batch.
    pub fn data_keys(&self, data: &Schema, index_keys: &[u8], count: usize) -> Result<Vec<u8>> {
        // Keys whose salts are hashed in lockstep (`Schema::salts_of_keys`).
        const LANES: usize = 4;
        let width = self.schema.key_length();
        if Some(index_keys.len()) != width.checked_mul(count) {
            return Err(Error::Corrupt {
                what: "index key batch",
                detail: format!(
                    "{} bytes for {count} keys of {width} bytes (index '{}')",
                    index_keys.len(),
                    self.name
                ),
            });
        }
        // At least 1 (a schema has a field): `chunks_exact` panics on 0, and no RegionServer code may.
        let (width, length) = (width.max(1), data.key_length().max(1));
        let mut keys = vec![0u8; count * length];
        let whole = count / LANES * LANES;
        let (index_lanes, index_rest) = index_keys.split_at(whole * width);
        let (lanes, rest) = keys.split_at_mut(whole * length);
        for (index_keys, keys) in index_lanes
            .chunks_exact(LANES * width)
            .zip(lanes.chunks_exact_mut(LANES * length))
        {
            self.write_data_keys::<LANES>(data, index_keys, keys)?;
        }
        for (index_key, key) in index_rest.chunks_exact(width).zip(rest.chunks_exact_mut(length)) {
            self.write_data_keys::<1>(data, index_key, key)?;
        }
        Ok(keys)
    }
}

fn check_length(schema: &Schema, key: &[u8]) -> Result<()> {
    if key.len() != schema.key_length() {
        return Err(Error::WrongKeyLength {
            expected: schema.key_length(),
            found: key.len(),
        });
    }
    Ok(())
}

/// Index names become part of a table name: `[A-Za-z0-9_]+`, at most `MAX_NAME_BYTES`.
fn check_index_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidIndex {
            index: String::new(),
            detail: "an index has an empty name".into(),
        });
    }
    if name.len() > limits::MAX_NAME_BYTES {
        return Err(Error::LimitExceeded {
            what: "index name length in bytes".into(),
            found: name.len(),
            limit: limits::MAX_NAME_BYTES,
        });
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(invalid(
            name,
            "an index name may hold only letters, digits and '_'".into(),
        ));
    }
    Ok(())
}

fn invalid(index: &str, detail: String) -> Error {
    Error::InvalidIndex {
        index: index.to_owned(),
        detail,
    }
}
