//! Exports of `org.rowkey.hbase.NativeAggregator` (its `static native` methods), the native side
//! of server-side aggregates (docs/aggregates.md): one call per batch of rows, never one per row.
//!
//! A `long` from `nativeCreate` is a pointer made by [`handle::into_handle::<Mutex<Aggregator>>`];
//! its Java owner (`NativeHandle`) frees it exactly once, after its last use, and passes 0 once closed.
//! The mutex makes a handle shared by two threads by mistake a wait, never a data race.
#![allow(non_snake_case)] // JNI export names

use std::sync::{Mutex, MutexGuard};

use ::jni::objects::JByteArray;
use ::jni::sys::{jint, jlong};
use ::jni::Env;

use super::errors::{BridgeError, BridgeResult};
use super::row_key_native::read_message;
use crate::aggregate::{Aggregation, Aggregator};
use crate::handle;
use crate::wire;

jni_export! {
    /// Parses and compiles a serialized `AggregationSpec`; returns an empty aggregator's handle.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeCreate<'local>(env, spec: JByteArray<'local>) -> jlong {
        let aggregation = Aggregation::from_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(handle::into_handle(Mutex::new(Aggregator::new(aggregation))))
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
    fn Java_org_rowkey_hbase_NativeAggregator_nativeTakePartial<'local>(env, aggregator: jlong) -> JByteArray<'local> {
        let partial = lock(aggregator)?.take_partial();
        Ok(env.byte_array_from_slice(&partial)?)
    }
}

jni_export! {
    /// Merges a partial state of the same aggregation.
    fn Java_org_rowkey_hbase_NativeAggregator_nativeMerge<'local>(env, aggregator: jlong, partial: JByteArray<'local>) -> () {
        // A partial may be larger than a message (up to max_groups groups): its structure is checked
        // byte for byte by the merge.
        let bytes = read_array(env, &partial, "partial")?;
        Ok(lock(aggregator)?.merge(&bytes)?)
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

fn read_array(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    Ok(env.convert_byte_array(array)?)
}
