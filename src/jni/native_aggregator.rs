//! Exports of `org.rowkey.hbase.NativeAggregator` (its `static native` methods), the native side
//! of server-side aggregates (docs/aggregates.md): one call per batch of rows, never one per row.
//!
//! A `long` from `nativeCreate` is a pointer made by [`handle::into_handle::<Mutex<Aggregator>>`];
//! its Java owner (`NativeHandle`) frees it exactly once, after its last use, and passes 0 once closed.
//! The mutex makes a handle shared by two threads by mistake a wait, never a data race.
#![allow(non_snake_case)] // JNI export names

use std::sync::{Mutex, MutexGuard};

use ::jni::objects::JByteArray;
use ::jni::sys::{jbyte, jint, jlong, jsize};

use super::errors::{BridgeError, BridgeResult};
use super::row_key_native::{checked_region, read_message};
use crate::aggregate::{Aggregation, Aggregator};
use crate::error::Error;
use crate::handle;
use crate::wire;

jni_export! {
    /// Parses and compiles a serialized `AggregationSpec`; returns an empty aggregator's handle,
    /// whose groups may hold `max_bytes` (the setting; 0 or less: the default), or fewer if the
    /// spec asks.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeCreate<'local>(env, spec: JByteArray<'local>, max_bytes: jlong) -> jlong {
        let aggregation = Aggregation::from_bytes(&read_message(env, &spec, "spec")?)?;
        let setting = usize::try_from(max_bytes).unwrap_or(0);
        Ok(handle::into_handle(Mutex::new(Aggregator::with_max_bytes(aggregation, setting))))
    }
}

jni_export! {
    /// The distinct cells the aggregation reads, in batch slot order: a serialized `ColumnList`.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeColumns<'local>(env, aggregator: jlong) -> JByteArray<'local> {
        let columns = lock(aggregator)?.aggregation().columns_message()?;
        Ok(env.byte_array_from_slice(&columns)?)
    }
}

jni_export! {
    /// Bytes of a row key of the aggregation's schema.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeKeyLength<'local>(_env, aggregator: jlong) -> jint {
        Ok(jint::try_from(lock(aggregator)?.aggregation().key_length()).unwrap_or(jint::MAX))
    }
}

jni_export! {
    /// Folds `rows` rows laid end to end in `batch` (key, then one 9-byte slot per column).
    fn Java_org_rowkey_hbase_NativeAggregator_nativeFold<'local>(env, aggregator: jlong, batch: JByteArray<'local>, rows: jint) -> () {
        let rows = usize::try_from(rows).map_err(|_| BridgeError::InvalidArgument(format!("{rows} rows")))?;
        let bytes = read_message(env, &batch, "batch")?;
        Ok(lock(aggregator)?.fold_batch(&bytes, rows)?)
    }
}

jni_export! {
    /// The partial state of every group folded or merged so far; the aggregator is empty after.
    /// Written into the Java array a piece at a time: never held whole in native memory too.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeTakePartial<'local>(env, aggregator: jlong) -> JByteArray<'local> {
        let mut aggregator = lock(aggregator)?;
        // Within the byte limit (at most 1 GiB): a Java array holds it.
        let partial = JByteArray::new(env, aggregator.partial_len())?;
        let mut at = 0;
        aggregator.drain_partial(|piece| -> BridgeResult<()> {
            partial.set_region(env, jsize_of(at)?, as_jbytes(piece))?;
            at += piece.len();
            Ok(())
        })?;
        Ok(partial)
    }
}

jni_export! {
    /// Merges the partial state of the same aggregation in `array[offset, offset + length)`.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeMerge<'local>(env, aggregator: jlong, array: JByteArray<'local>, offset: jint, length: jint) -> () {
        if array.is_null() {
            return Err(BridgeError::NullArgument("partial"));
        }
        let (start, length) = checked_region(offset, length, array.len(env)?).ok_or_else(|| {
            BridgeError::IndexOutOfBounds(format!("partial state at {offset}, {length} bytes, outside its array"))
        })?;
        let mut aggregator = lock(aggregator)?;
        // A partial is larger than a message: refused by its length before it is copied when the
        // byte limit could not merge it, its structure then checked byte for byte by the merge.
        aggregator.check_partial_len(length)?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(length).map_err(|_| Error::OutOfMemory { what: "a partial state to merge", bytes: length })?;
        bytes.resize(length, 0);
        array.get_region(env, jsize_of(start)?, as_jbytes_mut(&mut bytes))?;
        Ok(aggregator.merge(&bytes)?)
    }
}

jni_export! {
    /// The answer, groups in value order: a serialized `AggregateResult`.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeFinish<'local>(env, aggregator: jlong) -> JByteArray<'local> {
        let result = lock(aggregator)?.finish()?;
        Ok(env.byte_array_from_slice(&wire::serialize(&result, "aggregate result")?)?)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_NativeAggregator_nativeFree<'local>(_env, aggregator: jlong) -> () {
        // SAFETY: `aggregator` is 0 (ignored) or a handle made by `nativeCreate` (a `Mutex<Aggregator>`),
        // and the Java owner frees it exactly once, after its last use.
        unsafe { handle::free::<Mutex<Aggregator>>(aggregator) };
        Ok(())
    }
}

fn lock<'a>(aggregator: jlong) -> BridgeResult<MutexGuard<'a, Aggregator>> {
    // SAFETY: `aggregator` is 0 or a live handle made by `nativeCreate`, which its Java owner keeps alive
    // for the duration of the call.
    let mutex = unsafe { handle::borrow::<Mutex<Aggregator>>(aggregator) }.ok_or(BridgeError::Closed("aggregator"))?;
    // A panic inside a call poisons the lock: the state may be half updated, so the aggregator is unusable.
    mutex
        .lock()
        .map_err(|_| BridgeError::InvalidArgument("the aggregator failed in an earlier call and cannot be used".into()))
}

fn jsize_of(n: usize) -> BridgeResult<jsize> {
    jsize::try_from(n).map_err(|_| Error::Internal(format!("{n} does not fit in an int")).into())
}

fn as_jbytes(bytes: &[u8]) -> &[jbyte] {
    // SAFETY: u8 and i8 have the same size and alignment, and every bit pattern is valid for both.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<jbyte>(), bytes.len()) }
}

fn as_jbytes_mut(bytes: &mut [u8]) -> &mut [jbyte] {
    // SAFETY: as in `as_jbytes`; the slice is borrowed mutably for as long as the result lives.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<jbyte>(), bytes.len()) }
}
