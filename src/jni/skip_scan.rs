//! Exports of `org.rowkey.hbase.SkipScanNative` (all `static native`), the native side of
//! `SkipScanFilter`: thin wrappers as in `row_key_native`, each calling an `intern_*` function.
//!
//! A `long` from `parse` is a pointer made by [`handle::into_handle::<SkipScan>`]; its Java owner
//! (`NativeHandle`) frees it exactly once, after its last use, and passes 0 once closed.
#![allow(non_snake_case)] // JNI export names

use ::jni::objects::{JByteArray, JClass};
use ::jni::sys::{jboolean, jint, jlong};
use ::jni::{Env, EnvUnowned};

use super::errors::{BridgeError, BridgeResult, ThrowJavaException};
use super::row_key_native::{as_jbytes_mut, checked_region, read_message};
use crate::handle;
use crate::skip::SkipScan;

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rowkey_hbase_SkipScanNative_parse<'local>(
    mut unowned_env: EnvUnowned<'local>,
    _class: JClass<'local>,
    predicate: JByteArray<'local>,
) -> jlong {
    unowned_env
        .with_env(|env| intern_parse(env, &predicate))
        .resolve::<ThrowJavaException>()
}

fn intern_parse(env: &mut Env<'_>, predicate: &JByteArray<'_>) -> BridgeResult<jlong> {
    let spec = read_message(env, predicate, "predicate")?;
    Ok(handle::into_handle(SkipScan::from_comparator_bytes(&spec)?))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rowkey_hbase_SkipScanNative_saltSet<'local>(
    mut unowned_env: EnvUnowned<'local>,
    _class: JClass<'local>,
    skip: jlong,
) -> JByteArray<'local> {
    unowned_env
        .with_env(|env| intern_salt_set(env, skip))
        .resolve::<ThrowJavaException>()
}

/// The salt buckets read, as 32 bytes: bit `b % 8` (least significant first) of byte `b / 8`.
fn intern_salt_set<'local>(env: &mut Env<'local>, skip: jlong) -> BridgeResult<JByteArray<'local>> {
    let skip = skip_ref(skip)?;
    let mut set = [0u8; 32];
    for b in 0..=255u8 {
        if skip.salt_allows(b) {
            set[usize::from(b / 8)] |= 1 << (b % 8);
        }
    }
    Ok(env.byte_array_from_slice(&set)?)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rowkey_hbase_SkipScanNative_seek<'local>(
    mut unowned_env: EnvUnowned<'local>,
    _class: JClass<'local>,
    skip: jlong,
    row: JByteArray<'local>,
    offset: jint,
    length: jint,
    reversed: jboolean,
) -> JByteArray<'local> {
    unowned_env
        .with_env(|env| intern_seek(env, skip, &row, offset, length, reversed))
        .resolve::<ThrowJavaException>()
}

/// The key to seek to from row[offset, offset + length), or null when no key beyond it can match.
/// Only the first `key_length + 1` bytes are copied: they give the same answer as the whole row
/// (a longer row is answered from its first `key_length` bytes and the fact it is longer).
fn intern_seek<'local>(
    env: &mut Env<'local>,
    skip: jlong,
    row: &JByteArray<'_>,
    offset: jint,
    length: jint,
    reversed: jboolean,
) -> BridgeResult<JByteArray<'local>> {
    let skip = skip_ref(skip)?;
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

#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rowkey_hbase_SkipScanNative_free<'local>(
    mut unowned_env: EnvUnowned<'local>,
    _class: JClass<'local>,
    skip: jlong,
) {
    unowned_env
        .with_env(|_env| -> BridgeResult<()> {
            // SAFETY: `skip` is 0 (ignored) or a handle made by `parse` (a `SkipScan`), freed
            // exactly once by its `NativeHandle` owner after its last use.
            unsafe { handle::free::<SkipScan>(skip) };
            Ok(())
        })
        .resolve::<ThrowJavaException>()
}

/// The skip scan behind a handle; the null handle means its Java owner was closed.
fn skip_ref<'a>(skip: jlong) -> BridgeResult<&'a SkipScan> {
    // SAFETY: skip handles reach native code only from `SkipScanNative` callers, which pass 0 or
    // a handle made by `parse` (`into_handle::<SkipScan>`) that their `NativeHandle` owner has
    // not freed yet and frees only after its last use, so the `SkipScan` outlives this call.
    unsafe { handle::borrow::<SkipScan>(skip) }.ok_or(BridgeError::Closed("skip scan"))
}
