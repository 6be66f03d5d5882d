//! Native objects handed to a foreign caller (JNI or FFM) as opaque 64-bit handles, with a count
//! of the live ones so leaks show up in tests.

use std::sync::atomic::{AtomicI64, Ordering};

static LIVE: AtomicI64 = AtomicI64::new(0);

/// Number of objects made into handles and not yet freed.
pub(crate) fn live_objects() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// Moves `value` to the heap and returns its address as a handle (never 0).
pub fn into_handle<T>(value: T) -> i64 {
    LIVE.fetch_add(1, Ordering::Relaxed);
    Box::into_raw(Box::new(value)) as i64
}

/// Borrows the object behind a handle; `None` for the null handle.
///
/// # Safety
/// `handle` must be 0 or come from [`into_handle::<T>`] and not have been freed yet, and it must
/// stay alive for `'a` (the Java owner guarantees both: it frees only once, after the last use).
pub(crate) unsafe fn borrow<'a, T>(handle: i64) -> Option<&'a T> {
    // SAFETY: guaranteed by the caller, see above.
    unsafe { (handle as *const T).as_ref() }
}

/// Drops the object behind a handle; the null handle is ignored.
///
/// # Safety
/// `handle` must be 0 or come from [`into_handle::<T>`], and be freed at most once.
pub unsafe fn free<T>(handle: i64) {
    if handle != 0 {
        // SAFETY: guaranteed by the caller, see above.
        drop(unsafe { Box::from_raw(handle as *mut T) });
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}
