//! Exports of `org.rowkey.hbase.SkipScanNative` (all `static native`), the native side of
//! `SkipScanFilter`, each a [`jni_export!`] wrapper around a core call.
//!
//! A `long` from `parse` is a pointer made by [`handle::into_handle::<SkipScanFilter>`]; its Java
//! owner (`NativeHandle`) frees it exactly once, after its last use, and passes 0 once closed.
#![allow(non_snake_case)] // JNI export names

use ::jni::objects::JByteArray;
use ::jni::sys::{jboolean, jint, jlong};

use super::errors::{BridgeError, BridgeResult};
use super::row_key_native::{as_jbytes_mut, checked_region, read_message};
use crate::handle;
use crate::skip::SkipScanFilter;

jni_export! {
    /// Parses and compiles a serialized `SkipScanFilterSpec`; returns its handle.
    fn Java_org_rowkey_hbase_SkipScanNative_parse<'local>(env, spec: JByteArray<'local>) -> jlong {
        let filter = SkipScanFilter::from_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(handle::into_handle(filter))
    }
}

jni_export! {
    /// The canonical serialized `SkipScanFilterSpec`.
    fn Java_org_rowkey_hbase_SkipScanNative_canonical<'local>(env, filter: jlong) -> JByteArray<'local> {
        Ok(env.byte_array_from_slice(filter_ref(filter)?.canonical_bytes())?)
    }
}

jni_export! {
    /// The canonical serialized predicate `ComparatorSpec` of the filter.
    fn Java_org_rowkey_hbase_SkipScanNative_predicate<'local>(env, filter: jlong) -> JByteArray<'local> {
        Ok(env.byte_array_from_slice(filter_ref(filter)?.predicate_bytes())?)
    }
}

jni_export! {
    /// The salt buckets read, as 32 bytes: bit `b % 8` (least significant first) of byte `b / 8`.
    fn Java_org_rowkey_hbase_SkipScanNative_saltSet<'local>(env, filter: jlong) -> JByteArray<'local> {
        let skip = filter_ref(filter)?.skip_scan();
        let mut set = [0u8; 32];
        for b in 0..=255u8 {
            if skip.salt_allows(b) {
                set[usize::from(b / 8)] |= 1 << (b % 8);
            }
        }
        Ok(env.byte_array_from_slice(&set)?)
    }
}

jni_export! {
    /// How many leading bytes decide a match (`SkipScan::deciding_prefix`).
    fn Java_org_rowkey_hbase_SkipScanNative_decidingPrefix<'local>(_env, filter: jlong) -> jint {
        let prefix = filter_ref(filter)?.skip_scan().deciding_prefix();
        jint::try_from(prefix).map_err(|_| BridgeError::InvalidArgument(format!("prefix {prefix}")))
    }
}

jni_export! {
    /// The key to seek to from row[offset, offset + length), or null when no key beyond it can
    /// match. Only the first `key_length + 1` bytes are copied: they give the same answer as the
    /// whole row (a longer row is answered from its first `key_length` bytes and its being longer).
    fn Java_org_rowkey_hbase_SkipScanNative_seek<'local>(
        env,
        filter: jlong,
        row: JByteArray<'local>,
        offset: jint,
        length: jint,
        reversed: jboolean,
    ) -> JByteArray<'local> {
        let skip = filter_ref(filter)?.skip_scan();
        if row.is_null() {
            return Err(BridgeError::NullArgument("row"));
        }
        let array_length = row.len(env)?;
        let (start, length) = checked_region(offset, length, array_length).ok_or_else(|| {
            BridgeError::InvalidArgument(format!(
                "offset {offset} + length {length} is beyond the end of the row array ({array_length} bytes)"
            ))
        })?;
        let mut bytes = vec![0u8; length.min(skip.key_length() + 1)];
        let start = jint::try_from(start).map_err(|_| BridgeError::InvalidArgument(format!("offset {offset}")))?;
        row.get_region(env, start, as_jbytes_mut(&mut bytes))?;
        match skip.seek(&bytes, reversed) {
            Some(key) => Ok(env.byte_array_from_slice(&key)?),
            None => Ok(JByteArray::default()),
        }
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_SkipScanNative_free<'local>(_env, filter: jlong) -> () {
        // SAFETY: `filter` is 0 (ignored) or a handle made by `parse` (a `SkipScanFilter`), freed
        // exactly once by its `NativeHandle` owner after its last use.
        unsafe { handle::free::<SkipScanFilter>(filter) };
        Ok(())
    }
}

/// The filter behind a handle; the null handle means its Java owner was closed.
fn filter_ref<'a>(filter: jlong) -> BridgeResult<&'a SkipScanFilter> {
    // SAFETY: these handles reach native code only from `SkipScanNative` callers, which pass 0 or
    // a handle made by `parse` (`into_handle::<SkipScanFilter>`) that their `NativeHandle` owner
    // has not freed yet and frees only after its last use, so it outlives this call.
    unsafe { handle::borrow::<SkipScanFilter>(filter) }.ok_or(BridgeError::Closed("skip scan filter"))
}
