//! JNI exports: decode arguments, call the core, map errors. Nothing else lives here.
//!
//! One module per Java class with native methods (`row_key_native` for
//! `org.rowkey.hbase.RowKeyNative`); errors and panics become Java exceptions in one place
//! (`errors`).

mod errors;
mod load;
mod row_key_native;
mod skip_scan;
