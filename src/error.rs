//! The one error type of the crate. Every failure is a value, never a panic; the JNI layer maps
//! each variant to a Java exception in one place (`jni::errors`).

use std::borrow::Cow;

/// Which Java exception a failure becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The caller gave something wrong: `IllegalArgumentException` (or, in `parseFrom`,
    /// HBase's `DeserializationException`).
    InvalidInput,
    /// A bug in this library: `IllegalStateException`.
    Internal,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("corrupt serialized {what}: {detail}")]
    Corrupt { what: &'static str, detail: String },
    #[error("unsupported format version {found} of {what} (this library reads up to {supported})")]
    UnsupportedVersion {
        what: &'static str,
        found: u32,
        supported: u32,
    },
    #[error("invalid schema: {0}")]
    InvalidSchema(String),
    #[error("unknown field '{0}'")]
    UnknownField(String),
    #[error("field '{0}' is missing")]
    MissingField(String),
    #[error("field '{0}' is given more than once")]
    DuplicateField(String),
    #[error("field '{field}': {detail}")]
    InvalidValue { field: String, detail: String },
    #[error("field '{field}': {detail}")]
    InvalidCondition { field: String, detail: String },
    /// A query the planner cannot answer the way it was asked to (an aggregate of joins).
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    #[error("invalid index '{index}': {detail}")]
    InvalidIndex { index: String, detail: String },
    #[error("row key has {found} bytes, the schema's key has {expected}")]
    WrongKeyLength { expected: usize, found: usize },
    #[error("limit exceeded: serialized {what} is {found} bytes, at most {limit} allowed")]
    MessageTooLarge {
        what: &'static str,
        found: usize,
        limit: usize,
    },
    /// `what` is a fixed name, or one that says more (the aggregate byte limit names its groups).
    #[error("limit exceeded: {what} is {found}, at most {limit} allowed")]
    LimitExceeded {
        what: Cow<'static, str>,
        found: usize,
        limit: usize,
    },
    /// The allocator refused memory whose size the input chose (`try_reserve`): an error, never
    /// the abort of the process (a RegionServer) that an infallible allocation would be.
    #[error("out of memory: {bytes} bytes for {what} could not be allocated")]
    OutOfMemory { what: &'static str, bytes: usize },
    /// A where clause or schema text that does not follow the grammar (`text`).
    #[error("syntax error at character {position}: expected {expected}, found {found}")]
    Syntax {
        position: usize,
        found: String,
        expected: String,
    },
    /// An error of the part of a text that starts at `position` (a character, from 1).
    #[error("at character {position}: {source}")]
    AtPosition { position: usize, source: Box<Error> },
    #[error("internal error in hbase-rowkey (please report): {0}")]
    Internal(String),
}

impl Error {
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Internal(_) => ErrorClass::Internal,
            _ => ErrorClass::InvalidInput,
        }
    }

    pub(crate) fn value(field: &str, detail: impl Into<String>) -> Error {
        Error::InvalidValue {
            field: field.to_owned(),
            detail: detail.into(),
        }
    }

    pub(crate) fn condition(field: &str, detail: impl Into<String>) -> Error {
        Error::InvalidCondition {
            field: field.to_owned(),
            detail: detail.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
