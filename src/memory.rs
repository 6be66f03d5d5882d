//! The native memory this library holds, counted: with the `count-memory` feature (the library
//! the jar ships), every allocation of the process's Rust code goes through [`Counting`] (the
//! global allocator), which keeps the bytes in use in one relaxed atomic. Operators read it from the RegionServer's metrics (`NativeBytesInUse`): the heap
//! outside Java that schemas, comparators, plans and aggregates hold, which no JVM tool shows.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes it hands out and takes back.
pub struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is the system allocator's, with the same arguments; only a count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as alloc.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as alloc.
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as alloc.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                IN_USE.fetch_add(new_size - layout.size(), Ordering::Relaxed);
            } else {
                IN_USE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[cfg(feature = "count-memory")]
#[global_allocator]
static GLOBAL: Counting = Counting;

/// The bytes this process's Rust code holds now (allocated and not yet freed), or None when the
/// library was built without the `count-memory` feature.
pub fn bytes_in_use() -> Option<usize> {
    cfg!(feature = "count-memory").then(|| IN_USE.load(Ordering::Relaxed))
}

#[cfg(all(test, feature = "count-memory"))]
mod tests {
    use super::bytes_in_use;

    #[test]
    fn a_large_allocation_is_counted_while_it_lives() {
        // Other tests allocate at once in other threads: a margin far below the 64 MiB measured.
        let in_use = || bytes_in_use().expect("counted");
        let before = in_use();
        let held = vec![7u8; 64 << 20];
        assert!(in_use() >= before + (60 << 20), "{} then {}", before, in_use());
        drop(held);
        assert!(in_use() < before + (32 << 20), "{} then {}", before, in_use());
    }
}
