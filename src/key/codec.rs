//! Values to bytes and back, per field type (docs/design.md, section 2), and whole row keys.
//!
//! A field's encoded value (`FieldBytes`) is its `width` bytes for byte fields, or one byte
//! holding 0 or 1 for a bool (the stored bit, descending already applied).

use md5::{Digest, Md5};
use protobuf::Message;

use super::schema::{Field, Kind, Location, Schema};
use crate::error::{Error, Result};
use crate::proto::rowkey::{value::Kind as ValueKind, NamedValue, Row, Value};

pub type FieldBytes = Vec<u8>;

/// Encodes one value for `field`, checking its type and range.
pub fn encode_value(field: &Field, value: &Value) -> Result<FieldBytes> {
    let name = field.name.as_str();
    let mismatch = |expected: &str| {
        Error::value(
            name,
            format!(
                "expected {expected} for a {} field, got {}",
                field.kind.name(),
                describe(value)
            ),
        )
    };
    let mut bytes = match (field.kind, &value.kind) {
        (Kind::Int32, Some(ValueKind::IntValue(v))) => {
            let v = i32::try_from(*v).map_err(|_| {
                Error::value(
                    name,
                    format!("{v} is out of range for int32 [{}, {}]", i32::MIN, i32::MAX),
                )
            })?;
            ((v as u32) ^ 0x8000_0000).to_be_bytes().to_vec()
        }
        (Kind::Int64 | Kind::Timestamp, Some(ValueKind::IntValue(v))) => {
            ((*v as u64) ^ 0x8000_0000_0000_0000).to_be_bytes().to_vec()
        }
        (Kind::ReversedTimestamp, Some(ValueKind::IntValue(v))) => {
            if *v < 0 {
                return Err(Error::value(
                    name,
                    format!("a reversed timestamp must be >= 0, got {v}"),
                ));
            }
            ((i64::MAX - *v) as u64).to_be_bytes().to_vec()
        }
        (Kind::Int32 | Kind::Int64 | Kind::Timestamp | Kind::ReversedTimestamp, _) => {
            return Err(mismatch("an integer"))
        }
        (Kind::Bool, Some(ValueKind::BoolValue(b))) => vec![u8::from(*b)],
        (Kind::Bool, _) => return Err(mismatch("a boolean")),
        (Kind::FixedString(width), Some(ValueKind::StringValue(s))) => {
            if s.len() > width {
                return Err(Error::value(
                    name,
                    format!(
                        "string of {} UTF-8 bytes is longer than the field's width {width}",
                        s.len()
                    ),
                ));
            }
            if s.contains('\0') {
                return Err(Error::value(
                    name,
                    "a fixed string may not contain U+0000 (it is the padding byte)",
                ));
            }
            let mut padded = s.as_bytes().to_vec();
            padded.resize(width, 0);
            padded
        }
        (Kind::FixedBytes(width), Some(ValueKind::BytesValue(b))) => {
            if b.len() != width {
                return Err(Error::value(
                    name,
                    format!("expected exactly {width} bytes, got {}", b.len()),
                ));
            }
            b.clone()
        }
        (Kind::Md5(width), Some(ValueKind::StringValue(s))) => Md5::digest(s.as_bytes())[..width].to_vec(),
        (Kind::JavaHash, Some(ValueKind::StringValue(s))) => java_string_hash(s).to_be_bytes().to_vec(),
        // Bytes of the digest's width are a digest already (what decode gives back), so decoded
        // keys re-encode and queries can use stored digests.
        (Kind::Md5(_) | Kind::JavaHash, Some(ValueKind::BytesValue(b))) if b.len() == field.kind.width() => b.clone(),
        (Kind::Md5(_) | Kind::JavaHash, _) => {
            return Err(mismatch(&format!(
                "a string (or its {}-byte digest)",
                field.kind.width()
            )))
        }
        (Kind::FixedString(_), _) => return Err(mismatch("a string")),
        (Kind::FixedBytes(_), _) => return Err(mismatch("bytes")),
    };
    if field.descending {
        invert(field, &mut bytes);
    }
    Ok(bytes)
}

/// Decodes the field's value from a whole key of the schema's length.
pub(super) fn decode_value(field: &Field, key: &[u8]) -> Result<Value> {
    let mut bytes = read_field(field, key).to_vec();
    if field.descending {
        invert(field, &mut bytes);
    }
    let kind = match field.kind {
        Kind::Int32 => ValueKind::IntValue(i64::from((be_u64(&bytes) as u32 ^ 0x8000_0000) as i32)),
        Kind::Int64 | Kind::Timestamp => ValueKind::IntValue((be_u64(&bytes) ^ 0x8000_0000_0000_0000) as i64),
        Kind::ReversedTimestamp => {
            let stored = be_u64(&bytes);
            if stored > i64::MAX as u64 {
                return Err(Error::value(
                    &field.name,
                    "stored bytes are not a reversed timestamp (top bit set)",
                ));
            }
            ValueKind::IntValue(i64::MAX - stored as i64)
        }
        Kind::Bool => ValueKind::BoolValue(bytes[0] != 0),
        Kind::FixedString(_) => {
            let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
            bytes.truncate(end);
            ValueKind::StringValue(
                String::from_utf8(bytes).map_err(|_| Error::value(&field.name, "stored bytes are not valid UTF-8"))?,
            )
        }
        Kind::FixedBytes(_) | Kind::Md5(_) | Kind::JavaHash => ValueKind::BytesValue(bytes),
    };
    let mut value = Value::new();
    value.kind = Some(kind);
    Ok(value)
}

/// The field's stored bytes in `key` (for a bool: one byte, 0 or 1).
pub fn read_field<'k>(field: &Field, key: &'k [u8]) -> std::borrow::Cow<'k, [u8]> {
    match field.location {
        Location::Bytes { offset, width } => std::borrow::Cow::Borrowed(&key[offset..offset + width]),
        Location::Bit { offset, mask } => std::borrow::Cow::Owned(vec![u8::from(key[offset] & mask != 0)]),
    }
}

/// Writes a field's stored bytes (for a bool: one byte, 0 or 1) into `key`.
pub(super) fn write_field(field: &Field, key: &mut [u8], bytes: &[u8]) {
    match field.location {
        Location::Bytes { offset, width } => key[offset..offset + width].copy_from_slice(bytes),
        Location::Bit { offset, mask } => {
            if bytes[0] != 0 {
                key[offset] |= mask;
            } else {
                key[offset] &= !mask;
            }
        }
    }
}

fn invert(field: &Field, bytes: &mut [u8]) {
    match field.location {
        Location::Bytes { .. } => bytes.iter_mut().for_each(|b| *b = !*b),
        Location::Bit { .. } => bytes[0] ^= 1,
    }
}

/// Big-endian +1 in place; the caller knows the value is not all 0xFF.
pub(crate) fn increment(bytes: &mut [u8]) {
    for b in bytes.iter_mut().rev() {
        let (sum, carry) = b.overflowing_add(1);
        *b = sum;
        if !carry {
            return;
        }
    }
}

/// The bytes as a big-endian unsigned integer (at most 8 of them).
pub(crate) fn be_u64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Java's `String.hashCode()`: over UTF-16 code units, wrapping.
pub(super) fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)))
}

/// FNV-1a (32 bit) of the salt fields' stored bytes, modulo the bucket count.
pub(super) fn salt_bucket<B: AsRef<[u8]>>(buckets: u32, stored_fields: impl IntoIterator<Item = B>) -> u8 {
    let mut hash: u32 = 0x811c_9dc5;
    for bytes in stored_fields {
        for &b in bytes.as_ref() {
            hash ^= u32::from(b);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    (hash % buckets) as u8
}

fn describe(value: &Value) -> &'static str {
    match value.kind {
        None => "no value",
        Some(ValueKind::IntValue(_)) => "an integer",
        Some(ValueKind::BoolValue(_)) => "a boolean",
        Some(ValueKind::StringValue(_)) => "a string",
        Some(ValueKind::BytesValue(_)) => "bytes",
    }
}

impl Schema {
    /// Encodes a whole row: every field exactly once, in any order.
    pub fn encode(&self, values: &[NamedValue]) -> Result<Vec<u8>> {
        let mut given: Vec<Option<&Value>> = vec![None; self.fields().len()];
        for named in values {
            let index = self.field_index(&named.field)?;
            if given[index].replace(named.value.get_or_default()).is_some() {
                return Err(Error::DuplicateField(named.field.clone()));
            }
        }
        let mut key = vec![0u8; self.key_length()];
        for (field, value) in self.fields().iter().zip(&given) {
            let value = value.ok_or_else(|| Error::MissingField(field.name.clone()))?;
            write_field(field, &mut key, &encode_value(field, value)?);
        }
        if let Some(salt) = self.salt() {
            key[0] = self.salt_of(salt.fields.iter().map(|&i| read_field(&self.fields()[i], &key)));
        }
        Ok(key)
    }

    /// The salt byte for the given stored bytes of the salt fields, in the salt's field order.
    pub fn salt_of<B: AsRef<[u8]>>(&self, stored: impl IntoIterator<Item = B>) -> u8 {
        salt_bucket(self.salt().map_or(1, |s| s.buckets), stored)
    }

    /// Decodes a whole key into its field values, in schema order (the salt byte is not a field).
    pub fn decode(&self, key: &[u8]) -> Result<Vec<NamedValue>> {
        if key.len() != self.key_length() {
            return Err(Error::WrongKeyLength {
                expected: self.key_length(),
                found: key.len(),
            });
        }
        self.fields()
            .iter()
            .map(|field| {
                let mut named = NamedValue::new();
                named.field = field.name.clone();
                named.value = protobuf::MessageField::some(decode_value(field, key)?);
                Ok(named)
            })
            .collect()
    }

    /// `encode` over a serialized `Row`.
    pub fn encode_row_message(&self, row: &[u8]) -> Result<Vec<u8>> {
        let row: Row = crate::wire::parse(row, "row")?;
        self.encode(&row.values)
    }

    /// `decode` into a serialized `Row`.
    pub fn decode_to_row_message(&self, key: &[u8]) -> Result<Vec<u8>> {
        let mut row = Row::new();
        row.values = self.decode(key)?;
        row.write_to_bytes()
            .map_err(|e| Error::Internal(format!("serializing a decoded row: {e}")))
    }
}
