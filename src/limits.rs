//! What a serialized spec may ask for. Comparator bytes come from any client and are parsed inside
//! a RegionServer, so every size that drives memory or time is capped and refused by name.

/// Serialized schema, comparator or row message.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Fields in one schema.
pub const MAX_FIELDS: usize = 256;
/// Bytes in one row key.
pub const MAX_KEY_BYTES: usize = 4096;
/// Width of one fixed string or fixed bytes field.
pub const MAX_FIELD_WIDTH: usize = 1024;
/// Conditions in one predicate.
pub const MAX_CONDITIONS: usize = 1024;
/// Values in one IN list, and in all IN lists of a predicate together.
pub const MAX_IN_VALUES: usize = 100_000;
/// Bytes of compiled program (masks, bounds, sets) for one comparator.
pub const MAX_PROGRAM_BYTES: usize = 8 << 20;
/// Length of a field name.
pub const MAX_NAME_BYTES: usize = 256;
