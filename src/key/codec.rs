//! Values to bytes and back, per field type (docs/design.md, section 2), and whole row keys.
//!
//! A field's encoded value (`FieldBytes`) is its `width` bytes for byte fields, or one byte
//! holding 0 or 1 for a bool (the stored bit, descending already applied).

use md5::{Digest, Md5};
use protobuf::Message;

use super::schema::{Field, Kind, Location, Schema};
use crate::error::{Error, Result};
use crate::proto::rowkey::{value::Kind as ValueKind, NamedValue, Row, Value};
use crate::wire;

pub type FieldBytes = Vec<u8>;

/// A value to encode, borrowed from a wire `Value` or from a flat buffer of values (`encode_flat`).
#[derive(Clone, Copy, Debug)]
enum ValueRef<'a> {
    Missing,
    Int(i64),
    Bool(bool),
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> From<&'a Value> for ValueRef<'a> {
    fn from(value: &'a Value) -> Self {
        match &value.kind {
            None => ValueRef::Missing,
            Some(ValueKind::IntValue(v)) => ValueRef::Int(*v),
            Some(ValueKind::BoolValue(b)) => ValueRef::Bool(*b),
            Some(ValueKind::StringValue(s)) => ValueRef::Str(s),
            Some(ValueKind::BytesValue(b)) => ValueRef::Bytes(b),
        }
    }
}

/// Encodes one value for `field`, checking its type and range.
pub fn encode_value(field: &Field, value: &Value) -> Result<FieldBytes> {
    encode_ref(field, value.into())
}

fn encode_ref(field: &Field, value: ValueRef<'_>) -> Result<FieldBytes> {
    let name = field.name.as_str();
    let mismatch = |expected: &str| {
        Error::value(
            name,
            format!(
                "expected {expected} for a {} field, got {}",
                field.kind.name(),
                describe(&value)
            ),
        )
    };
    let mut bytes = match (field.kind, value) {
        (Kind::Int32, ValueRef::Int(v)) => {
            let v = i32::try_from(v).map_err(|_| {
                Error::value(
                    name,
                    format!("{v} is out of range for int32 [{}, {}]", i32::MIN, i32::MAX),
                )
            })?;
            ((v as u32) ^ 0x8000_0000).to_be_bytes().to_vec()
        }
        (Kind::Int64 | Kind::Timestamp, ValueRef::Int(v)) => {
            ((v as u64) ^ 0x8000_0000_0000_0000).to_be_bytes().to_vec()
        }
        (Kind::ReversedTimestamp, ValueRef::Int(v)) => {
            if v < 0 {
                return Err(Error::value(
                    name,
                    format!("a reversed timestamp must be >= 0, got {v}"),
                ));
            }
            ((i64::MAX - v) as u64).to_be_bytes().to_vec()
        }
        (Kind::Int32 | Kind::Int64 | Kind::Timestamp | Kind::ReversedTimestamp, _) => {
            return Err(mismatch("an integer"))
        }
        (Kind::Bool, ValueRef::Bool(b)) => vec![u8::from(b)],
        (Kind::Bool, _) => return Err(mismatch("a boolean")),
        (Kind::FixedString(width), ValueRef::Str(s)) => {
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
        (Kind::FixedBytes(width), ValueRef::Bytes(b)) => {
            if b.len() != width {
                return Err(Error::value(
                    name,
                    format!("expected exactly {width} bytes, got {}", b.len()),
                ));
            }
            b.to_vec()
        }
        (Kind::Md5(width), ValueRef::Str(s)) => Md5::digest(s.as_bytes())[..width].to_vec(),
        (Kind::JavaHash, ValueRef::Str(s)) => java_string_hash(s).to_be_bytes().to_vec(),
        // Bytes of the digest's width are a digest already (what decode gives back), so decoded
        // keys re-encode and queries can use stored digests.
        (Kind::Md5(_) | Kind::JavaHash, ValueRef::Bytes(b)) if b.len() == field.kind.width() => b.to_vec(),
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

/// The field's stored bytes in `key` (for a bool: one static byte, 0 or 1, so reading a field never
/// allocates: salt hashes and index keys read bools row by row).
pub fn read_field<'k>(field: &Field, key: &'k [u8]) -> &'k [u8] {
    match field.location {
        Location::Bytes { offset, width } => &key[offset..offset + width],
        Location::Bit { offset, mask } => {
            if key[offset] & mask != 0 {
                &[1]
            } else {
                &[0]
            }
        }
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

const FNV_OFFSET: u32 = 0x811c_9dc5;

/// One byte of FNV-1a (32 bit).
fn fnv_step(hash: u32, byte: u8) -> u32 {
    (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
}

/// FNV-1a (32 bit) of the salt fields' stored bytes, modulo the bucket count.
pub(super) fn salt_bucket<B: AsRef<[u8]>>(buckets: u32, stored_fields: impl IntoIterator<Item = B>) -> u8 {
    let mut hash = FNV_OFFSET;
    for bytes in stored_fields {
        hash = bytes.as_ref().iter().fold(hash, |hash, &b| fnv_step(hash, b));
    }
    (hash % buckets) as u8
}

fn describe(value: &ValueRef<'_>) -> &'static str {
    match value {
        ValueRef::Missing => "no value",
        ValueRef::Int(_) => "an integer",
        ValueRef::Bool(_) => "a boolean",
        ValueRef::Str(_) => "a string",
        ValueRef::Bytes(_) => "bytes",
    }
}

impl Schema {
    /// Encodes a whole row: every field exactly once, in any order.
    pub fn encode(&self, values: &[NamedValue]) -> Result<Vec<u8>> {
        let mut given: Vec<Option<ValueRef<'_>>> = vec![None; self.fields().len()];
        for named in values {
            let index = self.field_index(&named.field)?;
            if given[index].replace(named.value.get_or_default().into()).is_some() {
                return Err(Error::DuplicateField(named.field.clone()));
            }
        }
        let mut in_order = Vec::with_capacity(given.len());
        for (field, value) in self.fields().iter().zip(given) {
            in_order.push(value.ok_or_else(|| Error::MissingField(field.name.clone()))?);
        }
        self.encode_in_order(&in_order)
    }

    /// Encodes a whole row from a flat buffer of its values in field order (how the Java client
    /// passes a row: no message and no field names to build and parse for each key). Each value
    /// is a kind byte, then: 1 an int, 8 bytes big-endian; 2 a bool, one byte 0 or 1; 3 a
    /// string, a 4-byte big-endian length and its UTF-8; 4 bytes, a 4-byte length and the bytes.
    pub fn encode_flat(&self, flat: &[u8]) -> Result<Vec<u8>> {
        const WHAT: &str = "flat row";
        wire::check_size(flat, WHAT)?;
        let corrupt = |detail: String| Error::Corrupt { what: WHAT, detail };
        let mut rest = flat;
        let mut take = |n: usize, field: &str| -> Result<&[u8]> {
            if rest.len() < n {
                return Err(corrupt(format!("it ends inside the value of field '{field}'")));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        let mut values = Vec::with_capacity(self.fields().len());
        for field in self.fields() {
            let name = field.name.as_str();
            let value = match take(1, name)?[0] {
                1 => ValueRef::Int(i64::from_be_bytes(take(8, name)?.try_into().expect("8 bytes"))),
                2 => match take(1, name)?[0] {
                    0 => ValueRef::Bool(false),
                    1 => ValueRef::Bool(true),
                    other => return Err(corrupt(format!("field '{name}': bool byte {other}"))),
                },
                kind @ (3 | 4) => {
                    let length = u32::from_be_bytes(take(4, name)?.try_into().expect("4 bytes")) as usize;
                    let bytes = take(length, name)?;
                    if kind == 4 {
                        ValueRef::Bytes(bytes)
                    } else {
                        ValueRef::Str(
                            std::str::from_utf8(bytes)
                                .map_err(|_| corrupt(format!("field '{name}': the string is not UTF-8")))?,
                        )
                    }
                }
                other => return Err(corrupt(format!("field '{name}': value kind {other}"))),
            };
            values.push(value);
        }
        if !rest.is_empty() {
            return Err(corrupt(format!(
                "{} byte(s) after the values of all {} fields",
                rest.len(),
                values.len()
            )));
        }
        self.encode_in_order(&values)
    }

    fn encode_in_order(&self, values: &[ValueRef<'_>]) -> Result<Vec<u8>> {
        let mut key = vec![0u8; self.key_length()];
        for (field, value) in self.fields().iter().zip(values) {
            write_field(field, &mut key, &encode_ref(field, *value)?);
        }
        if self.salt().is_some() {
            key[0] = self.salts_of_keys::<1>(&key)[0];
        }
        Ok(key)
    }

    /// The salt byte for the given stored bytes of the salt fields, in the salt's field order.
    pub fn salt_of<B: AsRef<[u8]>>(&self, stored: impl IntoIterator<Item = B>) -> u8 {
        salt_bucket(self.salt().map_or(1, |s| s.buckets), stored)
    }

    /// [`Self::salt_of`] the salt fields of each of `LANES` keys of this schema laid end to end
    /// in `keys`. One key's hash is a chain of dependent multiplications, a few cycles a byte;
    /// the keys' chains are hashed in lockstep so that their multiplications overlap.
    pub(crate) fn salts_of_keys<const LANES: usize>(&self, keys: &[u8]) -> [u8; LANES] {
        let Some(salt) = self.salt() else {
            return [0; LANES];
        };
        let length = self.key_length();
        let mut hashes = [FNV_OFFSET; LANES];
        for &i in &salt.fields {
            let field = &self.fields()[i];
            let stored: [&[u8]; LANES] =
                std::array::from_fn(|k| read_field(field, &keys[k * length..(k + 1) * length]));
            for at in 0..stored[0].len() {
                for (hash, bytes) in hashes.iter_mut().zip(stored) {
                    *hash = fnv_step(*hash, bytes[at]);
                }
            }
        }
        hashes.map(|hash| (hash % salt.buckets) as u8)
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

    /// `decode` into a serialized `Row`.
    pub fn decode_to_row_message(&self, key: &[u8]) -> Result<Vec<u8>> {
        let mut row = Row::new();
        row.values = self.decode(key)?;
        row.write_to_bytes()
            .map_err(|e| Error::Internal(format!("serializing a decoded row: {e}")))
    }
}
