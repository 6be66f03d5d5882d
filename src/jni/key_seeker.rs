//! Exports of `org.rowkey.hbase.KeySeeker` (its `static native` methods), the native side of
//! the skip scan's seeker (for `SkipScanFilter` and the join streams), each a [`jni_export!`]
//! wrapper around a core call.
//!
//! A `long` from `nativeParse` is a pointer made by [`handle::into_handle::<SkipScanFilter>`]; its
//! Java owner (`NativeHandle`) frees it exactly once, after its last use, and passes 0 once closed.
#![allow(non_snake_case)] // JNI export names

use std::panic::{catch_unwind, AssertUnwindSafe};

use ::jni::objects::JByteArray;
use ::jni::sys::{self, jboolean, jbyte, jint, jlong};

use super::errors::{BridgeError, BridgeResult};
use super::row_key_native::{finish, read_message, with_key_buffer};
use crate::handle;
use crate::ranges::SkipScanFilter;

jni_export! {
    /// Parses and compiles a serialized `SkipScanFilterSpec`; returns its handle.
    fn Java_org_rowkey_hbase_KeySeeker_nativeParse<'local>(env, spec: JByteArray<'local>) -> jlong {
        let filter = SkipScanFilter::from_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(handle::into_handle(filter))
    }
}

jni_export! {
    /// The canonical serialized `SkipScanFilterSpec`.
    fn Java_org_rowkey_hbase_KeySeeker_nativeCanonical<'local>(env, filter: jlong) -> JByteArray<'local> {
        Ok(env.byte_array_from_slice(filter_ref(filter)?.canonical_bytes())?)
    }
}

jni_export! {
    /// A comparator handle (`RowKeyNative.comparator*`) of the filter's predicate: a copy of the
    /// one the filter compiled, so the predicate is not parsed and compiled a second time.
    fn Java_org_rowkey_hbase_KeySeeker_nativeComparator<'local>(_env, filter: jlong) -> jlong {
        Ok(handle::into_handle(filter_ref(filter)?.comparator().clone()))
    }
}

jni_export! {
    /// The salt buckets read, as 32 bytes: bit `b % 8` (least significant first) of byte `b / 8`.
    fn Java_org_rowkey_hbase_KeySeeker_nativeSaltSet<'local>(env, filter: jlong) -> JByteArray<'local> {
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
    fn Java_org_rowkey_hbase_KeySeeker_nativeDecidingPrefix<'local>(_env, filter: jlong) -> jint {
        let prefix = filter_ref(filter)?.skip_scan().deciding_prefix();
        jint::try_from(prefix).map_err(|_| BridgeError::InvalidArgument(format!("prefix {prefix}")))
    }
}

// `nativeSeekInto` runs once per skipped run of rows, so like the per-row compares it does not go
// through `with_env` (about 55 ns) nor allocate: the row is copied into a stack buffer, the key
// written into the caller's array, and an `Env` is built only to throw.

/// The key to seek to from row[offset, offset + length), written into `out[0, key length)`;
/// returns the key length, or -1 when no key beyond the row can match. Only the first
/// `key_length + 1` bytes of the row are copied: they give the same answer as the whole row (a
/// longer row is answered from its first `key_length` bytes and its being longer).
///
/// # Safety
/// Called by the JVM only, as the native method `KeySeeker.nativeSeekInto`: `env` is the current
/// thread's valid `JNIEnv`, `row` and `out` local references or null.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_rowkey_hbase_KeySeeker_nativeSeekInto(
    env: *mut sys::JNIEnv,
    _class: sys::jclass,
    filter: jlong,
    row: sys::jbyteArray,
    offset: jint,
    length: jint,
    reversed: jboolean,
    out: sys::jbyteArray,
) -> jint {
    // SAFETY: `env`, `row` and `out` come from the JVM for this call (see above).
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        raw_seek_into(env, filter, row, offset, length, reversed, out)
    }));
    // SAFETY: as above.
    unsafe { finish(env, outcome) }
}

/// # Safety
/// `env` is the current thread's valid `JNIEnv`; `row` and `out` are null or live `byte[]`
/// references.
#[inline(always)]
unsafe fn raw_seek_into(
    env: *mut sys::JNIEnv,
    filter: jlong,
    row: sys::jbyteArray,
    offset: jint,
    length: jint,
    reversed: jboolean,
    out: sys::jbyteArray,
) -> BridgeResult<jint> {
    let skip = filter_ref(filter)?.skip_scan();
    if row.is_null() {
        return Err(BridgeError::NullArgument("row"));
    }
    if out.is_null() {
        return Err(BridgeError::NullArgument("out"));
    }
    if offset < 0 || length < 0 {
        return Err(BridgeError::InvalidArgument(format!(
            "offset {offset}, length {length}: negative"
        )));
    }
    let key_length = skip.key_length();
    // Both fit a jint: `key_length <= MAX_KEY_BYTES`, and `copied <= length`.
    let copied = usize::try_from(length).map_or(0, |l| l.min(key_length + 1));
    with_key_buffer(copied, |bytes| {
        // SAFETY: `env` is valid for this thread, so `*env` is the JVM's function table, whose
        // `GetByteArrayRegion` (JNI 1.1) and `ExceptionCheck` (1.2) entries are always present.
        // `bytes` holds exactly `copied` bytes. A region beyond the end of `row` writes nothing
        // and leaves an ArrayIndexOutOfBoundsException pending, reported before `bytes` is read.
        unsafe {
            let functions = *env;
            ((*functions).v1_1.GetByteArrayRegion)(
                env,
                row,
                offset,
                copied as jint,
                bytes.as_mut_ptr().cast::<jbyte>(),
            );
            if ((*functions).v1_2.ExceptionCheck)(env) != sys::JNI_FALSE {
                return Err(BridgeError::Jni(::jni::errors::Error::JavaException));
            }
        }
        with_key_buffer(key_length, |key| {
            if !skip.seek_into(bytes, reversed, key)? {
                return Ok(-1);
            }
            // SAFETY: as above, with `SetByteArrayRegion` (JNI 1.1): `key` holds `key_length`
            // bytes; an `out` shorter than that gets nothing and an exception, reported here.
            unsafe {
                let functions = *env;
                ((*functions).v1_1.SetByteArrayRegion)(env, out, 0, key_length as jint, key.as_ptr().cast::<jbyte>());
                if ((*functions).v1_2.ExceptionCheck)(env) != sys::JNI_FALSE {
                    return Err(BridgeError::Jni(::jni::errors::Error::JavaException));
                }
            }
            Ok(key_length as jint)
        })
    })
}

jni_export! {
    fn Java_org_rowkey_hbase_KeySeeker_nativeFree<'local>(_env, filter: jlong) -> () {
        // SAFETY: `filter` is 0 (ignored) or a handle made by `nativeParse` (a `SkipScanFilter`), freed
        // exactly once by its `NativeHandle` owner after its last use.
        unsafe { handle::free::<SkipScanFilter>(filter) };
        Ok(())
    }
}

/// The filter behind a handle; the null handle means its Java owner was closed.
fn filter_ref<'a>(filter: jlong) -> BridgeResult<&'a SkipScanFilter> {
    // SAFETY: these handles reach native code only from `KeySeeker` callers, which pass 0 or
    // a handle made by `nativeParse` (`into_handle::<SkipScanFilter>`) that their `NativeHandle` owner
    // has not freed yet and frees only after its last use, so it outlives this call.
    unsafe { handle::borrow::<SkipScanFilter>(filter) }.ok_or(BridgeError::Closed("skip scan filter"))
}
