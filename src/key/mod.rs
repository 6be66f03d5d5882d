//! The key model: a key's fields and where they lie (`schema`), field values as bytes and back
//! (`codec`), an AND of conditions normalized to one constraint per field (`predicate`), and a
//! table's catalog, each index a key schema of its own derived from the data schema (`index`).
//! Every other layer works on these; they use only the plumbing (`error`, `limits`, `wire`).

mod codec;
mod index;
mod predicate;
mod schema;

pub use codec::{encode_value, read_field, FieldBytes};
pub use index::{Catalog, Index, DATA_SALT_FIELD};
pub use predicate::{Constraint, Predicate};
pub use schema::{Field, KeySlot, Kind, Location, Salt, Schema, FORMAT_VERSION};

pub(crate) use codec::{be_u64, increment};
pub(crate) use predicate::{check_encoded_bytes, encoded_bytes};
pub(crate) use schema::check_version;
