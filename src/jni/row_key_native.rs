//! Exports of `org.rowkey.hbase.RowKeyNative` (all `static native`).
//!
//! Most exports are defined with [`jni_export!`]: a thin wrapper that upgrades the `EnvUnowned`
//! (which also catches panics), calls the matching plain `intern_*` function or core function, and
//! resolves the outcome with [`ThrowJavaException`], the one error-to-exception mapping of the
//! crate (`errors.rs`). The per-row exports are written out by hand (see there).
//!
//! Handles: a `long` from `schemaParse` / `comparatorParse` is a pointer made by
//! [`handle::into_handle`]. The Java owner (`NativeHandle`) frees it exactly once, after its last
//! use, and passes 0 once closed; 0 becomes `IllegalStateException("... already closed")`.
#![allow(non_snake_case)] // JNI export names

use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ::jni::objects::{JByteArray, JByteBuffer, JString};
use ::jni::refs::Reference as _;
use ::jni::sys::{self, jbyte, jint, jlong};
use ::jni::{Env, EnvUnowned};

use super::errors::{BridgeError, BridgeResult, ThrowJavaException};
use crate::error::Error;
use crate::eval::Comparator;
use crate::handle;
use crate::key::{Catalog, Index, Schema};
use crate::limits::{MAX_KEY_BYTES, MAX_MESSAGE_BYTES};

// ---------------------------------------------------------------------------------------------
// schema

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaParse<'local>(env, spec: JByteArray<'local>) -> jlong {
        let schema = Schema::from_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(handle::into_handle(schema))
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaCanonical<'local>(env, schema: jlong) -> JByteArray<'local> {
        let bytes = schema_ref(schema)?.canonical_bytes();
        Ok(env.byte_array_from_slice(&bytes)?)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaKeyLength<'local>(_env, schema: jlong) -> jint {
        as_jint(schema_ref(schema)?.key_length())
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaEncode<'local>(env, schema: jlong, values: JByteArray<'local>) -> JByteArray<'local> {
        let schema = schema_ref(schema)?;
        let key = schema.encode_flat(&read_message(env, &values, "values")?)?;
        Ok(env.byte_array_from_slice(&key)?)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaDecode<'local>(
        env,
        schema: jlong,
        key: JByteArray<'local>,
        offset: jint,
        length: jint,
    ) -> JByteArray<'local> {
        intern_schema_decode(env, schema, &key, offset, length)
    }
}

fn intern_schema_decode<'local>(
    env: &mut Env<'local>,
    schema: jlong,
    key: &JByteArray<'_>,
    offset: jint,
    length: jint,
) -> BridgeResult<JByteArray<'local>> {
    let schema = schema_ref(schema)?;
    if key.is_null() {
        return Err(BridgeError::NullArgument("key"));
    }
    if offset < 0 {
        return Err(BridgeError::InvalidArgument(format!("offset {offset} is negative")));
    }
    if length < 0 {
        return Err(BridgeError::InvalidArgument(format!("length {length} is negative")));
    }
    let array_length = key.len(env)?;
    let (_, length) = checked_region(offset, length, array_length).ok_or_else(|| {
        BridgeError::InvalidArgument(format!(
            "offset {offset} + length {length} is beyond the end of the key array ({array_length} bytes)"
        ))
    })?;
    if length > MAX_KEY_BYTES {
        return Err(Error::LimitExceeded {
            what: "row key length".into(),
            found: length,
            limit: MAX_KEY_BYTES,
        }
        .into());
    }
    let row = with_key_buffer(length, |key_bytes| -> BridgeResult<Vec<u8>> {
        key.get_region(env, offset, as_jbytes_mut(key_bytes))?;
        Ok(schema.decode_to_row_message(key_bytes)?)
    })?;
    Ok(env.byte_array_from_slice(&row)?)
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_schemaFree<'local>(_env, schema: jlong) -> () {
        // SAFETY: `schema` is 0 (ignored) or a handle made by `schemaParse` (a `Schema`), and the
        // Java owner frees it exactly once, after its last use.
        unsafe { handle::free::<Schema>(schema) };
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// comparators

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorParse<'local>(env, spec: JByteArray<'local>) -> jlong {
        let comparator = Comparator::from_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(handle::into_handle(comparator))
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorCanonical<'local>(env, comparator: jlong) -> JByteArray<'local> {
        Ok(env.byte_array_from_slice(comparator_ref(comparator)?.canonical_bytes())?)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorKeyLength<'local>(_env, comparator: jlong) -> jint {
        as_jint(comparator_ref(comparator)?.key_length())
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorKind<'local>(_env, comparator: jlong) -> jint {
        Ok(comparator_ref(comparator)?.kind_number())
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorWrongLengthResult<'local>(_env, comparator: jlong) -> jint {
        Ok(comparator_ref(comparator)?.wrong_length_result())
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_comparatorFree<'local>(_env, comparator: jlong) -> () {
        // SAFETY: `comparator` is 0 (ignored) or a handle made by `comparatorParse` (a
        // `Comparator`), and the Java owner frees it exactly once, after its last use.
        unsafe { handle::free::<Comparator>(comparator) };
        Ok(())
    }
}

jni_export! {
    /// The conditions of a serialized `ComparatorSpec` as text, for `toString()` and `explain()`.
    fn Java_org_rowkey_hbase_RowKeyNative_describeComparator<'local>(env, spec: JByteArray<'local>) -> JString<'local> {
        let text = crate::text::describe_comparator_bytes(&read_message(env, &spec, "spec")?)?;
        Ok(JString::from_str(env, text)?)
    }
}

// ---------------------------------------------------------------------------------------------
// text (the where-clause and schema grammar of `crate::text`); texts arrive as UTF-8 bytes

jni_export! {
    /// A where clause on a serialized `SchemaSpec`, as a serialized `PredicateComparatorSpec`.
    fn Java_org_rowkey_hbase_RowKeyNative_parseWhere<'local>(env, schema: JByteArray<'local>, text: JByteArray<'local>) -> JByteArray<'local> {
        let schema = Schema::from_bytes(&read_message(env, &schema, "schema")?)?;
        let text = read_text(env, &text)?;
        let spec = crate::text::parse_where(&schema, &text)?;
        Ok(env.byte_array_from_slice(&crate::wire::serialize(&spec, "predicate")?)?)
    }
}

jni_export! {
    /// A schema's text form as a canonical serialized `SchemaSpec`.
    fn Java_org_rowkey_hbase_RowKeyNative_parseSchemaText<'local>(env, text: JByteArray<'local>) -> JByteArray<'local> {
        let spec = crate::text::parse_schema(&read_text(env, &text)?)?;
        Ok(env.byte_array_from_slice(&Schema::from_spec(&spec)?.canonical_bytes())?)
    }
}

jni_export! {
    /// The text form of a serialized `SchemaSpec`.
    fn Java_org_rowkey_hbase_RowKeyNative_describeSchema<'local>(env, spec: JByteArray<'local>) -> JString<'local> {
        let schema = Schema::from_bytes(&read_message(env, &spec, "schema")?)?;
        Ok(JString::from_str(env, crate::text::describe_schema(schema.canonical_spec()))?)
    }
}

fn read_text(env: &Env<'_>, text: &JByteArray<'_>) -> BridgeResult<String> {
    if !text.is_null() && text.len(env)? > MAX_MESSAGE_BYTES {
        return Err(Error::LimitExceeded {
            what: "text length in bytes".into(),
            found: text.len(env)?,
            limit: MAX_MESSAGE_BYTES,
        }
        .into());
    }
    let bytes = read_message(env, text, "text")?;
    String::from_utf8(bytes).map_err(|e| {
        Error::Syntax {
            position: 0,
            found: format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
            expected: "UTF-8 text".into(),
        }
        .into()
    })
}

// The per-row exports (`compareArray`, `compareDirect`) do not go through `with_env`: upgrading
// an `EnvUnowned` costs about 55 ns per call, five times the JNI call itself. They take the raw
// `JNIEnv` pointer, call the JNI function table directly, catch panics themselves, and build an
// `Env` only on the rare error path, to throw through the same `ThrowJavaException` mapping as
// every other export.

/// The per-row hot path: no heap allocation, no `Env`. The row region is copied with
/// `GetByteArrayRegion` into an uninitialized stack buffer of the key's size and compared there.
/// (`GetPrimitiveArrayCritical` costs more than the copy of a short key: see docs/design.md, section 5.)
///
/// # Safety
/// Called by the JVM only, as the native method `RowKeyNative.compareArray`: `env` is the
/// current thread's valid `JNIEnv`, `row` a local reference or null.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_rowkey_hbase_RowKeyNative_compareArray(
    env: *mut sys::JNIEnv,
    _class: sys::jclass,
    comparator: jlong,
    row: sys::jbyteArray,
    offset: jint,
    length: jint,
) -> jint {
    // SAFETY: `env` and `row` come from the JVM for this call (see above).
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        raw_compare_array(env, comparator, row, offset, length)
    }));
    // SAFETY: as above.
    unsafe { finish(env, outcome) }
}

/// `compareTo(row, offset, length)`. The Java caller checks the bounds; this stays defined anyway:
/// a negative offset or length, or a length above `MAX_KEY_BYTES`, is not read and gives the
/// comparator's wrong-length result. A region beyond the end of the array
/// leaves the JVM's `ArrayIndexOutOfBoundsException` pending (and returns 0).
///
/// # Safety
/// `env` is the current thread's valid `JNIEnv`; `row` is null or a live `byte[]` reference.
#[inline(always)]
unsafe fn raw_compare_array(
    env: *mut sys::JNIEnv,
    comparator: jlong,
    row: sys::jbyteArray,
    offset: jint,
    length: jint,
) -> BridgeResult<jint> {
    let comparator = comparator_ref(comparator)?;
    if row.is_null() {
        return Err(BridgeError::NullArgument("row"));
    }
    let Some(length) = readable_key_length(offset, length) else {
        return Ok(comparator.wrong_length_result());
    };
    let mut buffer = MaybeUninit::<[u8; MAX_KEY_BYTES]>::uninit();
    let start = buffer.as_mut_ptr().cast::<u8>();
    // SAFETY: `env` is valid for this thread, so `*env` is the JVM's function table, whose
    // `GetByteArrayRegion` (JNI 1.1) and `ExceptionCheck` (1.2) entries are always present.
    // `length <= MAX_KEY_BYTES` (checked above) is the buffer's size and fits a jsize because it
    // came from one. GetByteArrayRegion either writes exactly `length` bytes at `start` or writes
    // nothing and leaves an ArrayIndexOutOfBoundsException pending, which ExceptionCheck reports
    // before a byte is read: so `row_bytes` only ever covers initialized memory, and it does not
    // outlive `buffer`.
    unsafe {
        let functions = *env;
        ((*functions).v1_1.GetByteArrayRegion)(env, row, offset, length as jint, start.cast::<jbyte>());
        if ((*functions).v1_2.ExceptionCheck)(env) != sys::JNI_FALSE {
            return Err(BridgeError::Jni(::jni::errors::Error::JavaException));
        }
        let row_bytes = std::slice::from_raw_parts(start.cast_const(), length);
        Ok(comparator.compare(row_bytes))
    }
}

/// The per-row path for off-heap cells: compares in place, no copy, no `Env`.
///
/// # Safety
/// Called by the JVM only, as the native method `RowKeyNative.compareDirect`: `env` is the
/// current thread's valid `JNIEnv`, `direct` a local reference or null.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_rowkey_hbase_RowKeyNative_compareDirect(
    env: *mut sys::JNIEnv,
    _class: sys::jclass,
    comparator: jlong,
    direct: sys::jobject,
    offset: jint,
    length: jint,
) -> jint {
    // SAFETY: `env` and `direct` come from the JVM for this call (see above).
    let outcome = catch_unwind(AssertUnwindSafe(|| unsafe {
        raw_compare_direct(env, comparator, direct, offset, length)
    }));
    // SAFETY: as above.
    unsafe { finish(env, outcome) }
}

/// `compareTo(buffer, offset, length)` over a direct buffer's absolute `[offset, offset+length)`.
/// A negative offset or length, or a region beyond the buffer's capacity, throws
/// `IndexOutOfBoundsException` (it would be a bug in the caller, and reading outside the buffer is
/// not an option). A heap (non-direct) buffer throws `IllegalArgumentException`. Like
/// `compareArray`, a length above `MAX_KEY_BYTES` gives the wrong-length result, so
/// both paths answer the same for every row.
///
/// # Safety
/// `env` is the current thread's valid `JNIEnv`; `direct` is null or a live `ByteBuffer` reference.
#[inline(always)]
unsafe fn raw_compare_direct(
    env: *mut sys::JNIEnv,
    comparator: jlong,
    direct: sys::jobject,
    offset: jint,
    length: jint,
) -> BridgeResult<jint> {
    let comparator = comparator_ref(comparator)?;
    if direct.is_null() {
        return Err(BridgeError::NullArgument("direct buffer"));
    }
    // SAFETY: `env` is valid for this thread, so `*env` is the JVM's function table, whose
    // `GetDirectBufferAddress` and `GetDirectBufferCapacity` (JNI 1.4) entries are present on
    // every JVM this jar runs on; `direct` is a live local reference to a ByteBuffer. Neither
    // function throws: they return null / -1 for a buffer that is not direct.
    let (address, capacity) = unsafe {
        let functions = *env;
        (
            ((*functions).v1_4.GetDirectBufferAddress)(env, direct).cast::<u8>(),
            ((*functions).v1_4.GetDirectBufferCapacity)(env, direct),
        )
    };
    let capacity = match usize::try_from(capacity) {
        Ok(capacity) if !address.is_null() => capacity,
        _ => {
            return Err(BridgeError::InvalidArgument(
                "the buffer is not a direct ByteBuffer".to_owned(),
            ))
        }
    };
    let (start, length) = checked_region(offset, length, capacity).ok_or_else(|| {
        BridgeError::IndexOutOfBounds(format!(
            "region [{offset}, {offset} + {length}) is outside the direct buffer (capacity {capacity})"
        ))
    })?;
    if length > MAX_KEY_BYTES {
        return Ok(comparator.wrong_length_result());
    }
    // SAFETY: `address` is the non-null start of the direct buffer's memory and `capacity` its
    // size, both reported by the JVM; `start + length <= capacity` was checked above, so the
    // slice stays inside that memory. `direct` is a live local reference for this whole native
    // call, so the buffer cannot be garbage-collected (and its memory freed) while the slice is
    // used, and the slice does not outlive this function. HBase does not write a cell while a
    // filter reads it. u8 has no alignment or validity requirements.
    let row = unsafe { std::slice::from_raw_parts(address.add(start).cast_const(), length) };
    Ok(comparator.compare(row))
}

/// The end of a raw per-row export: the answer, or (rarely) an `Env` is built to throw the
/// error or the caught panic through [`ThrowJavaException`], like every other export.
///
/// # Safety
/// `env` is the current thread's valid `JNIEnv` of the running native method.
#[cold]
#[inline(never)]
unsafe fn throw_from_raw(env: *mut sys::JNIEnv, failure: std::thread::Result<BridgeResult<jint>>) -> jint {
    // SAFETY: `env` is the valid `JNIEnv` of the native method running on this thread, and the
    // `EnvUnowned` does not outlive this call (inside that method's JNI frame).
    let mut unowned_env = unsafe { EnvUnowned::from_raw(env) };
    unowned_env
        .with_env(move |_env| match failure {
            Ok(result) => result,
            // Re-raised inside `with_env`, which catches it and hands it to
            // `ThrowJavaException::on_panic`; `resume_unwind` does not run the panic hook again.
            Err(payload) => std::panic::resume_unwind(payload),
        })
        .resolve::<ThrowJavaException>()
}

/// # Safety
/// As [`throw_from_raw`].
#[inline(always)]
pub(super) unsafe fn finish(env: *mut sys::JNIEnv, outcome: std::thread::Result<BridgeResult<jint>>) -> jint {
    match outcome {
        Ok(Ok(answer)) => answer,
        // SAFETY: the caller's guarantee.
        failure => unsafe { throw_from_raw(env, failure) },
    }
}

/// The cheapest JNI per-row path: the Java caller has copied the row into a direct scratch buffer
/// it owns, so this export makes no JNI call at all (a `GetByteArrayRegion` enters the VM and
/// costs more than the compare). Answers like [`crate::ffi::rowkey_compare`], including
/// `FFI_ERROR` when it cannot: the caller then repeats the call with `compareArray`, which throws.
///
/// # Safety
/// Called by the JVM only, as `RowKeyNative.compareAddress`, whose caller guarantees that
/// `comparator` is 0 or a live comparator handle and that `address` is the start of a live direct
/// buffer holding at least `length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn Java_org_rowkey_hbase_RowKeyNative_compareAddress(
    _env: *mut sys::JNIEnv,
    _class: sys::jclass,
    comparator: jlong,
    address: jlong,
    length: jint,
) -> jint {
    // SAFETY: the caller's guarantees above are those of `rowkey_compare` with offset 0; a null
    // address or negative length is refused there. `rowkey_compare` never unwinds.
    unsafe { crate::ffi::compare_guarded(comparator, address as usize as *const u8, 0, i64::from(length)) }
}

jni_export! {
    /// The address of a direct buffer (for `compareAddress`); `IllegalArgumentException` for a heap one.
    fn Java_org_rowkey_hbase_RowKeyNative_directAddress<'local>(env, direct: JByteBuffer<'local>) -> jlong {
        if direct.is_null() {
            return Err(BridgeError::NullArgument("direct buffer"));
        }
        let address = env.get_direct_buffer_address(&direct).map_err(|e| match e {
            ::jni::errors::Error::NullPtr(_) => {
                BridgeError::InvalidArgument("the buffer is not a direct ByteBuffer".to_owned())
            }
            e => e.into(),
        })?;
        Ok(address as usize as jlong)
    }
}

// ---------------------------------------------------------------------------------------------
// scan planning

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_planScan<'local>(env, request: JByteArray<'local>) -> JByteArray<'local> {
        let plan = crate::plan_wire::plan_request(&read_message(env, &request, "request")?)?;
        Ok(env.byte_array_from_slice(&plan)?)
    }
}

// ---------------------------------------------------------------------------------------------
// table catalogs and their indexes

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_catalogParse<'local>(env, catalog: JByteArray<'local>) -> jlong {
        let catalog = Catalog::from_bytes(&read_message(env, &catalog, "catalog")?)?;
        Ok(handle::into_handle(catalog))
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_catalogCanonical<'local>(env, catalog: jlong) -> JByteArray<'local> {
        Ok(env.byte_array_from_slice(catalog_ref(catalog)?.canonical_bytes())?)
    }
}

jni_export! {
    /// The canonical `SchemaSpec` of index number `index` (in catalog order).
    fn Java_org_rowkey_hbase_RowKeyNative_catalogIndexSchema<'local>(env, catalog: jlong, index: jint) -> JByteArray<'local> {
        let (_, index) = index_ref(catalog, index)?;
        Ok(env.byte_array_from_slice(&index.schema().canonical_bytes())?)
    }
}

jni_export! {
    /// The key in index number `index` of a data key.
    fn Java_org_rowkey_hbase_RowKeyNative_catalogIndexKey<'local>(env, catalog: jlong, index: jint, data_key: JByteArray<'local>) -> JByteArray<'local> {
        let (catalog, index) = index_ref(catalog, index)?;
        let key = index.index_key(catalog.schema(), &read_message(env, &data_key, "data key")?)?;
        Ok(env.byte_array_from_slice(&key)?)
    }
}

jni_export! {
    /// Where a read of index number `index` meets the data keys from seek position `position` on
    /// (`Index::seek_key`).
    fn Java_org_rowkey_hbase_RowKeyNative_catalogIndexSeekKey<'local>(env, catalog: jlong, index: jint, position: JByteArray<'local>) -> JByteArray<'local> {
        let (catalog, index) = index_ref(catalog, index)?;
        let key = index.seek_key(catalog.schema(), &read_message(env, &position, "seek position")?)?;
        Ok(env.byte_array_from_slice(&key)?)
    }
}

jni_export! {
    /// The data key an index key of index number `index` stands for.
    fn Java_org_rowkey_hbase_RowKeyNative_catalogDataKey<'local>(env, catalog: jlong, index: jint, index_key: JByteArray<'local>) -> JByteArray<'local> {
        let (catalog, index) = index_ref(catalog, index)?;
        let key = index.data_key(catalog.schema(), &read_message(env, &index_key, "index key")?)?;
        Ok(env.byte_array_from_slice(&key)?)
    }
}

jni_export! {
    /// The data keys of `count` index keys of index number `index` laid end to end, end to end.
    fn Java_org_rowkey_hbase_RowKeyNative_catalogDataKeys<'local>(env, catalog: jlong, index: jint, index_keys: JByteArray<'local>, count: jint) -> JByteArray<'local> {
        let (catalog, index) = index_ref(catalog, index)?;
        let count = usize::try_from(count).map_err(|_| Error::Corrupt {
            what: "index key batch",
            detail: format!("a count of {count} keys"),
        })?;
        let keys = index.data_keys(catalog.schema(), &read_message(env, &index_keys, "index keys")?, count)?;
        Ok(env.byte_array_from_slice(&keys)?)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_catalogFree<'local>(_env, catalog: jlong) -> () {
        // SAFETY: `catalog` is 0 (ignored) or a handle made by `catalogParse` (a `Catalog`), and
        // the Java owner frees it exactly once, after its last use.
        unsafe { handle::free::<Catalog>(catalog) };
        Ok(())
    }
}

jni_export! {
    /// Plans a serialized `QueryPlanRequest` over a catalog handle; returns a serialized
    /// `PlannedQuery`: the one planning call of every scan, aggregate and explain.
    fn Java_org_rowkey_hbase_RowKeyNative_catalogPlanQuery<'local>(env, catalog: jlong, request: JByteArray<'local>) -> JByteArray<'local> {
        let catalog = catalog_ref(catalog)?;
        let plan = crate::plan_wire::plan_query_request_on(catalog, &read_message(env, &request, "request")?)?;
        Ok(env.byte_array_from_slice(&plan)?)
    }
}

// ---------------------------------------------------------------------------------------------
// limits and diagnostics

jni_export! {
    /// `limits::MAX_KEY_BYTES`, so Java sizes its buffers from the one definition.
    fn Java_org_rowkey_hbase_RowKeyNative_maxKeyBytes<'local>(_env) -> jint {
        as_jint(MAX_KEY_BYTES)
    }
}

jni_export! {
    fn Java_org_rowkey_hbase_RowKeyNative_liveObjects<'local>(_env) -> jlong {
        Ok(handle::live_objects())
    }
}

jni_export! {
    /// `memory::bytes_in_use`: the RegionServer's `NativeBytesInUse` metric; -1 when not counted.
    fn Java_org_rowkey_hbase_RowKeyNative_nativeBytesInUse<'local>(_env) -> jlong {
        Ok(crate::memory::bytes_in_use().map_or(-1, |b| jlong::try_from(b).unwrap_or(jlong::MAX)))
    }
}

// ---------------------------------------------------------------------------------------------
// helpers

/// The schema behind a handle; the null handle means its Java owner was closed.
fn schema_ref<'a>(schema: jlong) -> BridgeResult<&'a Schema> {
    // SAFETY: schema handles reach native code only from `RowKeyNative` callers, which pass 0 or
    // a handle made by `schemaParse` (`into_handle::<Schema>`) that their `NativeHandle` owner has
    // not freed yet and frees only after its last use, so the `Schema` outlives this native call.
    unsafe { handle::borrow::<Schema>(schema) }.ok_or(BridgeError::Closed("schema"))
}

/// The comparator behind a handle; the null handle means its Java owner was closed.
fn comparator_ref<'a>(comparator: jlong) -> BridgeResult<&'a Comparator> {
    // SAFETY: as in `schema_ref`, for handles made by `comparatorParse`
    // (`into_handle::<Comparator>`).
    unsafe { handle::borrow::<Comparator>(comparator) }.ok_or(BridgeError::Closed("comparator"))
}

/// The catalog behind a handle; the null handle means its Java owner was closed.
fn catalog_ref<'a>(catalog: jlong) -> BridgeResult<&'a Catalog> {
    // SAFETY: as in `schema_ref`, for handles made by `catalogParse` (`into_handle::<Catalog>`).
    unsafe { handle::borrow::<Catalog>(catalog) }.ok_or(BridgeError::Closed("catalog"))
}

/// The catalog and its index number `index`.
fn index_ref<'a>(catalog: jlong, index: jint) -> BridgeResult<(&'a Catalog, &'a Index)> {
    let catalog = catalog_ref(catalog)?;
    let found = usize::try_from(index).ok().and_then(|i| catalog.indexes().get(i));
    let index = found.ok_or_else(|| {
        BridgeError::InvalidArgument(format!(
            "index number {index} is not one of the catalog's {}",
            catalog.indexes().len()
        ))
    })?;
    Ok((catalog, index))
}

/// Copies a whole serialized message (spec, row) out of a Java array, refusing oversized ones
/// before copying them.
pub(super) fn read_message(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    let length = array.len(env)?;
    if length > MAX_MESSAGE_BYTES {
        return Err(Error::LimitExceeded {
            what: "serialized message size".into(),
            found: length,
            limit: MAX_MESSAGE_BYTES,
        }
        .into());
    }
    Ok(env.convert_byte_array(array)?)
}

/// A size as a Java `int`.
fn as_jint(n: usize) -> BridgeResult<jint> {
    jint::try_from(n).map_err(|_| Error::Internal(format!("{n} does not fit in an int")).into())
}

/// `Some(length)` when a `compareArray` region may be copied into the stack buffer: offset and
/// length not negative, length at most `MAX_KEY_BYTES`. (The array bound is checked by the JVM.)
fn readable_key_length(offset: jint, length: jint) -> Option<usize> {
    let length = usize::try_from(length).ok()?;
    (offset >= 0 && length <= MAX_KEY_BYTES).then_some(length)
}

/// `Some((start, length))` when `[offset, offset + length)` lies inside `0..bound`.
pub(super) fn checked_region(offset: jint, length: jint, bound: usize) -> Option<(usize, usize)> {
    let start = usize::try_from(offset).ok()?;
    let length = usize::try_from(length).ok()?;
    let end = start.checked_add(length)?;
    (end <= bound).then_some((start, length))
}

/// Row keys up to this many bytes are copied into a small stack buffer, longer ones (up to
/// `MAX_KEY_BYTES`) into a full-size one. Zeroing a 4 KiB buffer costs about 65 ns per call on our
/// test machine, more than the JNI call and the compare together; 256 bytes cost a few ns.
const SMALL_KEY_BYTES: usize = 256;

/// Runs `f` over a zeroed stack buffer of exactly `length` bytes (`length <= MAX_KEY_BYTES + 1`:
/// a key, or a key and the byte that tells a longer row). No heap allocation.
#[inline(always)]
pub(super) fn with_key_buffer<R>(length: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    if length <= SMALL_KEY_BYTES {
        let mut buf = [0u8; SMALL_KEY_BYTES];
        f(&mut buf[..length])
    } else {
        let mut buf = [0u8; MAX_KEY_BYTES + 1];
        f(&mut buf[..length])
    }
}

/// Views a byte buffer as the `jbyte` (i8) slice that `Get<Byte>ArrayRegion` fills.
pub(super) fn as_jbytes_mut(bytes: &mut [u8]) -> &mut [jbyte] {
    // SAFETY: u8 and i8 have the same size and alignment and every bit pattern is valid for
    // both; the new slice has the same length and reborrows `bytes` exclusively for its lifetime.
    unsafe { &mut *(bytes as *mut [u8] as *mut [jbyte]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_inside_the_bound_only() {
        assert_eq!(checked_region(0, 0, 0), Some((0, 0)));
        assert_eq!(checked_region(2, 3, 5), Some((2, 3)));
        assert_eq!(checked_region(2, 4, 5), None);
        assert_eq!(checked_region(-1, 1, 5), None);
        assert_eq!(checked_region(1, -1, 5), None);
        assert_eq!(
            checked_region(jint::MAX, jint::MAX, usize::MAX),
            Some((jint::MAX as usize, jint::MAX as usize))
        );
        assert_eq!(checked_region(jint::MAX, jint::MAX, jint::MAX as usize), None);
    }

    #[test]
    fn readable_lengths_fit_the_stack_buffer() {
        assert_eq!(readable_key_length(0, 0), Some(0));
        assert_eq!(readable_key_length(5, 37), Some(37));
        assert_eq!(readable_key_length(0, MAX_KEY_BYTES as jint), Some(MAX_KEY_BYTES));
        assert_eq!(readable_key_length(0, MAX_KEY_BYTES as jint + 1), None);
        assert_eq!(readable_key_length(-1, 4), None);
        assert_eq!(readable_key_length(0, -4), None);
    }

    #[test]
    fn key_buffers_have_the_asked_length() {
        for length in [0, 1, SMALL_KEY_BYTES, SMALL_KEY_BYTES + 1, MAX_KEY_BYTES] {
            let (len, zeroed) = with_key_buffer(length, |b| (b.len(), b.iter().all(|&x| x == 0)));
            assert_eq!((len, zeroed), (length, true));
        }
    }

    #[test]
    fn jbyte_view_keeps_the_bits() {
        let mut bytes = [0u8, 1, 0x7f, 0x80, 0xff];
        let view = as_jbytes_mut(&mut bytes);
        assert_eq!(view, &[0i8, 1, 127, -128, -1]);
        view[0] = -2;
        assert_eq!(bytes[0], 0xfe);
    }

    #[test]
    fn null_handles_are_closed_objects() {
        assert!(matches!(schema_ref(0), Err(BridgeError::Closed("schema"))));
        assert!(matches!(comparator_ref(0), Err(BridgeError::Closed("comparator"))));
    }
}
