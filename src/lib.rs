//! hbase-rowkey: fixed-width composite row keys for Apache HBase, with native comparators and scan
//! planning. Everything outside `jni` is plain Rust, usable and testable without a JVM.

#![warn(unreachable_pub)]

pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/proto/mod.rs"));
}

pub mod aggregate;
pub mod error;
pub mod eval;
#[cfg(feature = "java")]
pub mod ffi;
#[cfg(feature = "java")]
pub mod handle;
pub mod key;
pub mod limits;
pub mod memory;
pub mod plan;
pub mod plan_wire;
pub mod ranges;
pub mod text;
mod wire;

#[cfg(feature = "java")]
mod jni;

pub use error::{Error, ErrorClass, Result};
pub use eval::Comparator;
pub use key::Schema;
