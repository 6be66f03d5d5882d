//! Plain C-ABI per-row functions, for callers that are not JNI: on Java 22+ the shim calls them
//! through foreign-function (FFM) downcalls with `Linker.Option.critical(true)`, which pass a heap
//! `byte[]` as a pointer without copying it. They know nothing of JNI: no `JNIEnv`, no exceptions.
//!
//! Contract of every function here:
//! - it never unwinds: a panic is caught and becomes [`FFI_ERROR`];
//! - it never allocates, blocks or calls back into the JVM (a critical downcall must not);
//! - [`FFI_ERROR`] means "not answered": the caller repeats the call through JNI, which answers or
//!   throws the matching Java exception (closed comparator, bad region, panic). Construction,
//!   parsing and errors stay on JNI.
//!
//! The handle is a comparator handle made by `comparatorParse` and kept alive by its Java owner
//! for the whole call, exactly as for the JNI exports.
//!
//! `#[unsafe(no_mangle)]`: sound because every name here has the `rowkey_` prefix, which no other
//! library the JVM loads defines.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::eval::Comparator;
use crate::handle;

/// What a per-row function returns when it could not answer. No comparator ever returns it: match
/// comparators answer 0 or 1, range comparators -1, 0 or 1.
pub const FFI_ERROR: i32 = i32::MIN;

/// HBase's `compareTo` of the comparator behind `comparator` over `base[offset, offset + length)`.
///
/// Returns [`FFI_ERROR`] for the null handle, a null `base`, a negative `offset` or `length`, or
/// a caught panic.
///
/// # Safety
/// `comparator` must be 0 or a live comparator handle (made by `comparatorParse`, not yet freed,
/// and not freed during the call). Unless `base` is null, `base + offset` must point to `length`
/// readable bytes that nothing writes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rowkey_compare(comparator: i64, base: *const u8, offset: i64, length: i64) -> i32 {
    // SAFETY: the caller's guarantees about the handle and the region, see above.
    unsafe { compare_guarded(comparator, base, offset, length) }
}

/// [`rowkey_compare`] for the other per-row exports of this library (JNI), inlined into them
/// rather than called through the exported, interposable symbol.
///
/// The handle and region checks and the cheap tests cannot panic (clippy's lints on them reject
/// indexing, overflowing arithmetic, unwrap and panics), so only the rest of the compare runs
/// under `catch_unwind`, whose frame costs about as much as the cheap tests themselves.
///
/// # Safety
/// As [`rowkey_compare`].
#[inline(always)]
pub(crate) unsafe fn compare_guarded(comparator: i64, base: *const u8, offset: i64, length: i64) -> i32 {
    // SAFETY: the caller's guarantees about the handle and the region, see above.
    let Some((comparator, row)) = (unsafe { comparator_and_row(comparator, base, offset, length) }) else {
        return FFI_ERROR;
    };
    if let Some(answer) = comparator.compare_quickly(row) {
        return answer;
    }
    catch_unwind(AssertUnwindSafe(move || comparator.compare(row))).unwrap_or(FFI_ERROR)
}

/// The comparator behind the handle and the row region; `None` for the null handle, a null
/// `base`, or a negative `offset` or `length`.
///
/// # Safety
/// As [`rowkey_compare`]; the references live as long as the caller's guarantees hold.
#[inline(always)]
#[deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
unsafe fn comparator_and_row<'a>(
    comparator: i64,
    base: *const u8,
    offset: i64,
    length: i64,
) -> Option<(&'a Comparator, &'a [u8])> {
    // SAFETY: `comparator` is 0 or a live comparator handle (the caller's guarantee).
    let comparator = unsafe { handle::borrow::<Comparator>(comparator) }?;
    let (Ok(offset), Ok(length)) = (usize::try_from(offset), usize::try_from(length)) else {
        return None;
    };
    if base.is_null() {
        return None;
    }
    // SAFETY: `base + offset` points to `length` readable bytes that nothing writes during the call
    // (the caller's guarantee: a pinned heap array region or a direct buffer region, both checked
    // against their bounds in Java); the slice does not outlive this call. u8 has no alignment or
    // validity requirements.
    let row = unsafe { std::slice::from_raw_parts(base.add(offset), length) };
    Some((comparator, row))
}

/// The cost floor of a per-row downcall: the same arguments as [`rowkey_compare`], no work;
/// always 0. Benchmarks only: compiled only with the `test-hooks` feature.
#[cfg(feature = "test-hooks")]
#[unsafe(no_mangle)]
pub extern "C" fn rowkey_call_floor(comparator: i64, base: *const u8, offset: i64, length: i64) -> i32 {
    let _ = (comparator, base, offset, length);
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::rowkey::{
        comparator_spec, ComparatorSpec, EqualComparatorSpec, FieldSpec, FieldType, SchemaSpec,
    };

    fn comparator_handle() -> i64 {
        let mut field = FieldSpec::new();
        field.name = "n".into();
        field.type_ = FieldType::INT32.into();
        let mut schema = SchemaSpec::new();
        schema.format_version = crate::key::FORMAT_VERSION;
        schema.fields.push(field);
        let mut spec = ComparatorSpec::new();
        spec.format_version = crate::key::FORMAT_VERSION;
        spec.schema = protobuf::MessageField::some(schema);
        spec.kind = Some(comparator_spec::Kind::Equal(EqualComparatorSpec::new()));
        handle::into_handle(Comparator::from_spec(&spec).expect("comparator"))
    }

    #[test]
    fn answers_like_the_comparator_and_refuses_what_it_cannot_read() {
        let h = comparator_handle();
        // SAFETY: `h` is live until freed below; every region is inside `row`.
        unsafe {
            let c = handle::borrow::<Comparator>(h).unwrap();
            let key = vec![0u8; c.key_length()];
            let mut row = vec![9u8; 3];
            row.extend_from_slice(&key);
            assert_eq!(rowkey_compare(h, row.as_ptr(), 3, key.len() as i64), c.compare(&key));
            assert_eq!(rowkey_compare(h, row.as_ptr(), 0, 1), c.compare(&row[..1]));
            assert_eq!(rowkey_compare(0, row.as_ptr(), 0, 1), FFI_ERROR);
            assert_eq!(rowkey_compare(h, std::ptr::null(), 0, 0), FFI_ERROR);
            assert_eq!(rowkey_compare(h, row.as_ptr(), -1, 1), FFI_ERROR);
            assert_eq!(rowkey_compare(h, row.as_ptr(), 0, -1), FFI_ERROR);
            handle::free::<Comparator>(h);
        }
    }
}
