//! The one way a serialized message from outside becomes a Rust value: a size check, then a
//! cheap pass over the protobuf wire format that bounds the parser's work, then the parser.
//!
//! Comparator and filter bytes come from any client and are parsed inside a RegionServer. The
//! protobuf parser allocates a message (and a map for its unknown fields) for every sub-message
//! it meets, so 1 MiB of repeated tiny fields used to cost ~300 ms and ~150 MiB before any of our
//! limits could look at the result. The pre-scan walks the bytes without allocating, following
//! the message descriptors generated from `proto/rowkey.proto`, and refuses before the parser
//! runs:
//! - a field number the message does not define (an unknown field is refused, not skipped: a
//!   newer client's field that this library ignored could change what a filter matches, so it
//!   must fail loudly; incompatible changes bump the format version instead),
//! - a wire type that does not fit the field, groups, truncated or overlong varints and lengths,
//! - a singular field or oneof given more than once (encoders never do; parsers would merge),
//! - more elements of a repeated field than `limits::repeated_field_cap` allows, counted across
//!   the whole message.

use std::collections::HashMap;

use protobuf::descriptor::field_descriptor_proto::Type;
use protobuf::reflect::{FieldDescriptor, MessageDescriptor, RuntimeFieldType, RuntimeType};
use protobuf::MessageFull;

use crate::error::{Error, Result};
use crate::limits;

/// Parses `bytes` as `M` after the size check and the pre-scan; `what` names the message in
/// errors ("schema", "comparator", ...).
pub(crate) fn parse<M: MessageFull>(bytes: &[u8], what: &'static str) -> Result<M> {
    check(&M::descriptor(), bytes, what)?;
    M::parse_from_bytes(bytes).map_err(|e| Error::Corrupt {
        what,
        detail: e.to_string(),
    })
}

/// The bytes of a message built here (no unknown fields, nothing to refuse).
pub(crate) fn serialize<M: MessageFull>(message: &M, what: &'static str) -> Result<Vec<u8>> {
    message
        .write_to_bytes()
        .map_err(|e| Error::Internal(format!("serializing a {what}: {e}")))
}

/// Refuses input longer than any message may be, before a byte of it is read: every buffer the
/// core is handed, whether a message or not (a flat row).
pub(crate) fn check_size(bytes: &[u8], what: &'static str) -> Result<()> {
    if bytes.len() > limits::MAX_MESSAGE_BYTES {
        return Err(Error::MessageTooLarge {
            what,
            found: bytes.len(),
            limit: limits::MAX_MESSAGE_BYTES,
        });
    }
    Ok(())
}

/// The size check and the pre-scan of [`parse`], without parsing.
pub(crate) fn check(descriptor: &MessageDescriptor, bytes: &[u8], what: &'static str) -> Result<()> {
    check_size(bytes, what)?;
    let mut scan = PreScan {
        what,
        repeated: HashMap::new(),
    };
    scan.message(descriptor, bytes)
}

struct PreScan {
    what: &'static str,
    /// Elements seen of each repeated field, by the field's full name.
    repeated: HashMap<String, usize>,
}

const WIRE_VARINT: u64 = 0;
const WIRE_FIXED64: u64 = 1;
const WIRE_LENGTH_DELIMITED: u64 = 2;
const WIRE_FIXED32: u64 = 5;

impl PreScan {
    fn corrupt(&self, detail: String) -> Error {
        Error::Corrupt {
            what: self.what,
            detail,
        }
    }

    fn message(&mut self, descriptor: &MessageDescriptor, mut bytes: &[u8]) -> Result<()> {
        // Singular fields (and oneofs) seen in this message: numbers are small, a few per message.
        let mut seen_singular: Vec<u32> = Vec::new();
        let mut seen_oneofs: Vec<String> = Vec::new();
        while !bytes.is_empty() {
            let tag = self.varint(&mut bytes)?;
            let number = u32::try_from(tag >> 3).unwrap_or(0);
            let wire_type = tag & 7;
            let Some(field) = (number != 0).then(|| descriptor.field_by_number(number)).flatten() else {
                return Err(self.corrupt(format!(
                    "field number {number} of {} is unknown to this version of hbase-rowkey",
                    descriptor.name()
                )));
            };
            self.check_wire_type(descriptor, &field, wire_type)?;
            let sub_message = match field.runtime_field_type() {
                RuntimeFieldType::Singular(t) => {
                    if seen_singular.contains(&number) {
                        return Err(self.corrupt(format!("{} is given more than once", field.full_name())));
                    }
                    seen_singular.push(number);
                    if let Some(oneof) = field.containing_oneof() {
                        let name = oneof.name().to_owned();
                        if seen_oneofs.contains(&name) {
                            return Err(self.corrupt(format!(
                                "more than one member of {}.{} is given",
                                descriptor.name(),
                                name
                            )));
                        }
                        seen_oneofs.push(name);
                    }
                    message_type(t)
                }
                RuntimeFieldType::Repeated(t) => {
                    self.count_element(&field)?;
                    message_type(t)
                }
                RuntimeFieldType::Map(..) => {
                    return Err(self.corrupt(format!("{} is a map, which no message here has", field.full_name())))
                }
            };
            match wire_type {
                WIRE_VARINT => {
                    self.varint(&mut bytes)?;
                }
                WIRE_FIXED64 => self.skip(&mut bytes, 8)?,
                WIRE_FIXED32 => self.skip(&mut bytes, 4)?,
                _ => {
                    let length = self.varint(&mut bytes)?;
                    let length = usize::try_from(length)
                        .ok()
                        .filter(|&n| n <= bytes.len())
                        .ok_or_else(|| {
                            self.corrupt(format!(
                                "{} claims {length} bytes, {} are left",
                                field.full_name(),
                                bytes.len()
                            ))
                        })?;
                    let (body, rest) = bytes.split_at(length);
                    bytes = rest;
                    if let Some(sub) = sub_message {
                        self.message(&sub, body)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn count_element(&mut self, field: &FieldDescriptor) -> Result<()> {
        let name = field.full_name();
        let cap = limits::repeated_field_cap(&name);
        let count = self.repeated.entry(name).or_insert(0);
        *count += 1;
        if *count > cap {
            return Err(Error::LimitExceeded {
                what: limits::repeated_field_what(&field.full_name()).into(),
                found: *count,
                limit: cap,
            });
        }
        Ok(())
    }

    /// The wire type the field's declared type is written with (a packed repeated scalar may
    /// also come length-delimited).
    fn check_wire_type(&self, descriptor: &MessageDescriptor, field: &FieldDescriptor, wire_type: u64) -> Result<()> {
        let expected = match field.proto().type_() {
            Type::TYPE_DOUBLE | Type::TYPE_FIXED64 | Type::TYPE_SFIXED64 => WIRE_FIXED64,
            Type::TYPE_FLOAT | Type::TYPE_FIXED32 | Type::TYPE_SFIXED32 => WIRE_FIXED32,
            Type::TYPE_STRING | Type::TYPE_BYTES | Type::TYPE_MESSAGE | Type::TYPE_GROUP => WIRE_LENGTH_DELIMITED,
            _ => WIRE_VARINT,
        };
        let packed = field.is_repeated() && expected != WIRE_LENGTH_DELIMITED && wire_type == WIRE_LENGTH_DELIMITED;
        if wire_type != expected && !packed {
            return Err(self.corrupt(format!(
                "field {} of {} has wire type {wire_type}, not {expected}",
                field.name(),
                descriptor.name()
            )));
        }
        Ok(())
    }

    fn varint(&self, bytes: &mut &[u8]) -> Result<u64> {
        let mut value = 0u64;
        for (i, &b) in bytes.iter().enumerate().take(10) {
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                if i == 9 && b > 1 {
                    break;
                }
                *bytes = &bytes[i + 1..];
                return Ok(value);
            }
        }
        Err(self.corrupt("a truncated or overlong varint".into()))
    }

    fn skip(&self, bytes: &mut &[u8], n: usize) -> Result<()> {
        if bytes.len() < n {
            return Err(self.corrupt(format!("a fixed-width value needs {n} bytes, {} are left", bytes.len())));
        }
        *bytes = &bytes[n..];
        Ok(())
    }
}

fn message_type(t: RuntimeType) -> Option<MessageDescriptor> {
    match t {
        RuntimeType::Message(m) => Some(m),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::rowkey::{Condition, FieldSpec, PredicateSpec, SchemaSpec, Value};
    use protobuf::Message;

    fn schema_bytes() -> Vec<u8> {
        let mut schema = SchemaSpec::new();
        let mut field = FieldSpec::new();
        field.name = "n".into();
        field.type_ = crate::proto::rowkey::FieldType::INT32.into();
        schema.fields.push(field);
        schema.write_to_bytes().unwrap()
    }

    #[test]
    fn valid_messages_parse() {
        let parsed: SchemaSpec = parse(&schema_bytes(), "schema").unwrap();
        assert_eq!(parsed.fields[0].name, "n");
    }

    #[test]
    fn unknown_fields_are_refused_at_every_level() {
        let mut top = schema_bytes();
        top.extend_from_slice(&[0x78, 0x01]); // field 15, varint
        let err = parse::<SchemaSpec>(&top, "schema").unwrap_err().to_string();
        assert!(err.contains("field number 15 of SchemaSpec is unknown"), "{err}");

        // FieldSpec { name: "n", 15: 1 } inside SchemaSpec.fields
        let nested = [0x12, 0x05, 0x0a, 0x01, b'n', 0x78, 0x01];
        let err = parse::<SchemaSpec>(&nested, "schema").unwrap_err().to_string();
        assert!(err.contains("field number 15 of FieldSpec is unknown"), "{err}");
    }

    #[test]
    fn repeated_fields_are_capped_before_parsing() {
        // 1 MiB of empty FieldSpecs: refused at element MAX_FIELDS + 1.
        let flood: Vec<u8> = [0x12, 0x00].repeat(limits::MAX_MESSAGE_BYTES / 2);
        let err = parse::<SchemaSpec>(&flood, "schema").unwrap_err();
        assert!(
            matches!(err, Error::LimitExceeded { found, limit, .. } if limit == limits::MAX_FIELDS && found == limit + 1),
            "{err}"
        );

        // Values are counted across every condition of the predicate.
        let mut predicate = PredicateSpec::new();
        for _ in 0..3 {
            let mut c = Condition::new();
            c.values = vec![Value::new(); limits::MAX_IN_VALUES / 2];
            predicate.conditions.push(c);
        }
        let err = parse::<PredicateSpec>(&predicate.write_to_bytes().unwrap(), "predicate").unwrap_err();
        assert!(err.to_string().contains("number of condition values"), "{err}");
    }

    #[test]
    fn singular_fields_and_oneofs_are_given_once() {
        let twice = [0x0a, 0x01, b'a', 0x0a, 0x01, b'b']; // FieldSpec.name twice
        let err = parse::<FieldSpec>(&twice, "field").unwrap_err().to_string();
        assert!(err.contains("rowkey.FieldSpec.name is given more than once"), "{err}");
        let two_members = [0x08, 0x01, 0x10, 0x01]; // Value.int_value and Value.bool_value
        let err = parse::<Value>(&two_members, "value").unwrap_err().to_string();
        assert!(err.contains("more than one member of Value.kind"), "{err}");
    }

    #[test]
    fn malformed_wire_data_is_corrupt() {
        for (bytes, expected) in [
            (&[0x0a, 0x05, b'a'][..], "claims 5 bytes"),
            (&[0x10][..], "truncated or overlong varint"),
            (
                &[0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02][..],
                "overlong varint",
            ),
            (&[0x0b][..], "wire type 3"),
            (&[0x0d, 0, 0, 0, 0][..], "wire type 5"),
            (&[0x00][..], "field number 0"),
        ] {
            let err = parse::<FieldSpec>(bytes, "field").unwrap_err().to_string();
            assert!(err.contains(expected), "{bytes:02x?}: {err}");
        }
    }

    #[test]
    fn oversized_messages_are_refused_by_name() {
        let err = parse::<SchemaSpec>(&vec![0; limits::MAX_MESSAGE_BYTES + 1], "schema").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "limit exceeded: serialized schema is {} bytes, at most {} allowed",
                limits::MAX_MESSAGE_BYTES + 1,
                limits::MAX_MESSAGE_BYTES
            )
        );
    }
}
