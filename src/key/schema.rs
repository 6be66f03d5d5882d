//! The key layout: typed fields at fixed offsets, an optional salt byte in front.
//! Built from a `SchemaSpec` message and validated once; every other module works on `Schema`.

use std::collections::HashMap;

use protobuf::Message;

use crate::error::{Error, Result};
use crate::limits;
use crate::proto::rowkey::{FieldSpec, FieldType, FormatVersion, SaltSpec, SchemaSpec};
use crate::wire;

/// The format version this library writes and reads up to (`proto/rowkey.proto`).
pub const FORMAT_VERSION: u32 = FormatVersion::FORMAT_VERSION_CURRENT as u32;

/// A field's type, with its width where the type has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int32,
    Int64,
    Timestamp,
    ReversedTimestamp,
    Bool,
    FixedString(usize),
    FixedBytes(usize),
    Md5(usize),
    JavaHash,
}

impl Kind {
    /// Bytes the field takes in the key (a bool takes one bit, reported as 0).
    pub fn width(self) -> usize {
        match self {
            Kind::Int32 | Kind::JavaHash => 4,
            Kind::Int64 | Kind::Timestamp | Kind::ReversedTimestamp => 8,
            Kind::Bool => 0,
            Kind::FixedString(w) | Kind::FixedBytes(w) | Kind::Md5(w) => w,
        }
    }

    /// Whether byte order of the encoding follows value order, so ranges are meaningful.
    pub fn is_ordered(self) -> bool {
        !matches!(self, Kind::Bool | Kind::Md5(_) | Kind::JavaHash)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Int32 => "int32",
            Kind::Int64 => "int64",
            Kind::Timestamp => "timestamp",
            Kind::ReversedTimestamp => "reversed timestamp",
            Kind::Bool => "bool",
            Kind::FixedString(_) => "fixed string",
            Kind::FixedBytes(_) => "fixed bytes",
            Kind::Md5(_) => "md5",
            Kind::JavaHash => "java hash",
        }
    }
}

/// Where a field's encoded value sits in the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Bytes {
        offset: usize,
        width: usize,
    },
    /// One bit of the byte at `offset`.
    Bit {
        offset: usize,
        mask: u8,
    },
}

impl Location {
    pub fn offset(self) -> usize {
        match self {
            Location::Bytes { offset, .. } | Location::Bit { offset, .. } => offset,
        }
    }

    /// The offset just past the field's bytes (a bool's whole shared byte).
    pub fn end(self) -> usize {
        match self {
            Location::Bytes { offset, width } => offset + width,
            Location::Bit { offset, .. } => offset + 1,
        }
    }
}

/// One slot of the key as the range planner and the skip scan walk it, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySlot {
    /// The salt byte, at offset 0 (first, on a salted schema only).
    Salt,
    /// The field `field`: `width` bytes at `offset`.
    Field { field: usize, offset: usize, width: usize },
    /// The bools sharing the byte at `offset`: each one's field index and bit mask.
    Bits { offset: usize, members: Vec<(usize, u8)> },
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub kind: Kind,
    pub descending: bool,
    pub location: Location,
}

impl Field {
    /// True when larger values have smaller bytes (descending XOR reversed timestamp).
    pub(crate) fn byte_order_reversed(&self) -> bool {
        self.descending != (self.kind == Kind::ReversedTimestamp)
    }
}

#[derive(Debug, Clone)]
pub struct Salt {
    pub buckets: u32,
    /// Indexes of the fields hashed into the salt byte, in the spec's order.
    pub fields: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct Schema {
    fields: Vec<Field>,
    by_name: HashMap<String, usize>,
    salt: Option<Salt>,
    key_length: usize,
    canonical: SchemaSpec,
}

impl Schema {
    /// Parses and validates a serialized `SchemaSpec`.
    pub fn from_bytes(spec: &[u8]) -> Result<Schema> {
        Schema::from_parsed(&wire::parse::<SchemaSpec>(spec, "schema")?)
    }

    /// Validates a `SchemaSpec` built in Rust; it goes through the same checks as bytes from
    /// outside (unknown fields included), so its canonical bytes are those of the wire.
    pub fn from_spec(spec: &SchemaSpec) -> Result<Schema> {
        Schema::from_bytes(&wire::serialize(spec, "schema")?)
    }

    /// Validates a spec that came through `wire::parse` (alone or inside another message).
    pub(crate) fn from_parsed(spec: &SchemaSpec) -> Result<Schema> {
        check_version("schema", spec.format_version)?;
        if spec.fields.is_empty() {
            return Err(Error::InvalidSchema("a schema needs at least one field".into()));
        }
        if spec.fields.len() > limits::MAX_FIELDS {
            return Err(Error::LimitExceeded {
                what: "number of fields".into(),
                found: spec.fields.len(),
                limit: limits::MAX_FIELDS,
            });
        }
        let salted = spec.salt.is_some();
        let mut layout = Layout {
            next_offset: usize::from(salted),
            open_bool_byte: None,
        };
        let mut fields = Vec::with_capacity(spec.fields.len());
        let mut by_name = HashMap::with_capacity(spec.fields.len());
        for field_spec in &spec.fields {
            let field = layout.place(field_spec)?;
            if by_name.insert(field.name.clone(), fields.len()).is_some() {
                return Err(Error::InvalidSchema(format!(
                    "field name '{}' is used twice",
                    field.name
                )));
            }
            fields.push(field);
        }
        let key_length = layout.next_offset;
        if key_length > limits::MAX_KEY_BYTES {
            return Err(Error::LimitExceeded {
                what: "row key length in bytes".into(),
                found: key_length,
                limit: limits::MAX_KEY_BYTES,
            });
        }
        let salt = match spec.salt.as_ref() {
            None => None,
            Some(salt) => Some(resolve_salt(salt, &by_name, fields.len())?),
        };
        let mut canonical = spec.clone();
        canonical.format_version = FORMAT_VERSION;
        Ok(Schema {
            fields,
            by_name,
            salt,
            key_length,
            canonical,
        })
    }

    pub fn canonical_spec(&self) -> &SchemaSpec {
        &self.canonical
    }

    pub fn canonical_bytes(&self) -> Vec<u8> {
        self.canonical
            .write_to_bytes()
            .expect("serializing a validated schema cannot fail")
    }

    pub fn key_length(&self) -> usize {
        self.key_length
    }

    /// Whether `key` has this schema's length and its shared bool bytes hold only their bools'
    /// bits, as every key an encoder writes does (its salt byte is not looked at). Only such keys
    /// keep their order when their fields are laid out again (an index key reads one bit of a
    /// bool byte).
    pub fn is_well_formed(&self, key: &[u8]) -> bool {
        key.len() == self.key_length
            && self.slots().into_iter().all(|slot| match slot {
                KeySlot::Bits { offset, members } => key[offset] & !members.iter().fold(0, |all, &(_, m)| all | m) == 0,
                _ => true,
            })
    }

    /// The key cut into slots: the salt byte, then each field, the bools sharing a byte forming
    /// one slot. The one walk of the key that the range planner and the skip scan share.
    pub fn slots(&self) -> Vec<KeySlot> {
        let fields = self.fields();
        let mut slots = Vec::with_capacity(fields.len() + 1);
        if self.salt().is_some() {
            slots.push(KeySlot::Salt);
        }
        let mut index = 0;
        while index < fields.len() {
            match fields[index].location {
                Location::Bit { offset, .. } => {
                    let members: Vec<(usize, u8)> = (index..fields.len())
                        .map_while(|i| match fields[i].location {
                            Location::Bit { offset: o, mask } if o == offset => Some((i, mask)),
                            _ => None,
                        })
                        .collect();
                    index += members.len();
                    slots.push(KeySlot::Bits { offset, members });
                }
                Location::Bytes { offset, width } => {
                    slots.push(KeySlot::Field {
                        field: index,
                        offset,
                        width,
                    });
                    index += 1;
                }
            }
        }
        slots
    }

    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    pub fn salt(&self) -> Option<&Salt> {
        self.salt.as_ref()
    }

    pub fn field_index(&self, name: &str) -> Result<usize> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| Error::UnknownField(shown(name)))
    }
}

/// Assigns offsets in declaration order; consecutive bools share a byte, high bit first.
struct Layout {
    next_offset: usize,
    /// Byte offset and next bit mask of the byte the previous bool opened.
    open_bool_byte: Option<(usize, u8)>,
}

impl Layout {
    fn place(&mut self, spec: &FieldSpec) -> Result<Field> {
        let name = spec.name.clone();
        if name.is_empty() {
            return Err(Error::InvalidSchema("a field has an empty name".into()));
        }
        if name.len() > limits::MAX_NAME_BYTES {
            return Err(Error::LimitExceeded {
                what: "field name length in bytes".into(),
                found: name.len(),
                limit: limits::MAX_NAME_BYTES,
            });
        }
        let kind = kind_of(spec)?;
        let location = if kind == Kind::Bool {
            let (offset, mask) = match self.open_bool_byte {
                Some((offset, mask)) => (offset, mask),
                None => {
                    self.next_offset += 1;
                    (self.next_offset - 1, 0x80)
                }
            };
            self.open_bool_byte = if mask > 1 { Some((offset, mask >> 1)) } else { None };
            Location::Bit { offset, mask }
        } else {
            self.open_bool_byte = None;
            let offset = self.next_offset;
            // Saturating: an absurd width is caught by the key-length limit, not an overflow.
            self.next_offset = self.next_offset.saturating_add(kind.width());
            Location::Bytes {
                offset,
                width: kind.width(),
            }
        };
        Ok(Field {
            name,
            kind,
            descending: spec.descending,
            location,
        })
    }
}

fn kind_of(spec: &FieldSpec) -> Result<Kind> {
    let field_type = spec
        .type_
        .enum_value()
        .map_err(|v| Error::InvalidSchema(format!("field '{}' has unknown type number {v}", spec.name)))?;
    let width = spec.width as usize;
    let width_error = |detail: String| Error::InvalidSchema(format!("field '{}': {detail}", spec.name));
    let sized = |make: fn(usize) -> Kind, min: usize, max: usize| -> Result<Kind> {
        if width < min || width > max {
            Err(width_error(format!(
                "width {} of {} field is outside {min}..{max}",
                spec.width,
                make(0).name()
            )))
        } else {
            Ok(make(width))
        }
    };
    let unsized_kind = |kind: Kind| -> Result<Kind> {
        if spec.width != 0 {
            Err(width_error(format!(
                "a {} field takes no width (got {})",
                kind.name(),
                spec.width
            )))
        } else {
            Ok(kind)
        }
    };
    match field_type {
        FieldType::FIELD_TYPE_UNSPECIFIED => Err(width_error("field type is not set".into())),
        FieldType::INT32 => unsized_kind(Kind::Int32),
        FieldType::INT64 => unsized_kind(Kind::Int64),
        FieldType::TIMESTAMP => unsized_kind(Kind::Timestamp),
        FieldType::REVERSED_TIMESTAMP => unsized_kind(Kind::ReversedTimestamp),
        FieldType::BOOL => unsized_kind(Kind::Bool),
        FieldType::JAVA_HASH => unsized_kind(Kind::JavaHash),
        FieldType::FIXED_STRING => sized(Kind::FixedString, 1, limits::MAX_FIELD_WIDTH),
        FieldType::FIXED_BYTES => sized(Kind::FixedBytes, 1, limits::MAX_FIELD_WIDTH),
        FieldType::MD5 => sized(Kind::Md5, 1, 16),
    }
}

fn resolve_salt(salt: &SaltSpec, by_name: &HashMap<String, usize>, field_count: usize) -> Result<Salt> {
    if !(1..=limits::MAX_SALT_BUCKETS).contains(&salt.buckets) {
        return Err(Error::InvalidSchema(format!(
            "salt buckets must be within 1..{}, got {}",
            limits::MAX_SALT_BUCKETS,
            salt.buckets
        )));
    }
    let fields = if salt.fields.is_empty() {
        (0..field_count).collect()
    } else {
        let mut indexes = Vec::with_capacity(salt.fields.len());
        for name in &salt.fields {
            let index = *by_name.get(name.as_str()).ok_or_else(|| {
                Error::InvalidSchema(format!("salt field '{}' is not a field of the schema", shown(name)))
            })?;
            if indexes.contains(&index) {
                return Err(Error::InvalidSchema(format!("salt field '{name}' is named twice")));
            }
            indexes.push(index);
        }
        indexes
    };
    Ok(Salt {
        buckets: salt.buckets,
        fields,
    })
}

/// A name from the input as an error shows it: cut to `MAX_NAME_BYTES` (no longer name can be a
/// field's), so an error, which may end up in a RegionServer's log, never echoes megabytes.
fn shown(name: &str) -> String {
    if name.len() <= limits::MAX_NAME_BYTES {
        return name.to_owned();
    }
    let mut end = limits::MAX_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &name[..end], name.len())
}

pub(crate) fn check_version(what: &'static str, found: u32) -> Result<()> {
    // 0 is an absent field in proto3: read as version 1.
    if found > FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            what,
            found,
            supported: FORMAT_VERSION,
        });
    }
    Ok(())
}
