//! `CountingAllocator`: the system allocator, plus counts of allocations
//! and bytes while a [`count_allocations`] region runs: the measure
//! behind `graph500 profile` (what copying versus sharing allocates) and
//! behind the tests that hold kernels and readers to allocating nothing
//! per search or per line.
//!
//! Install it in a binary with
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator;`.
//! Outside a counting region each allocation costs one relaxed load and a
//! predictable branch more than the system allocator; inside, two atomic
//! adds. Allocations on every thread are counted (tasks run on workers), so
//! only one region should be open at a time, and frees are not subtracted:
//! the figures are what was allocated, not what is live.

#![allow(unsafe_code)] // implementing GlobalAlloc is unsafe by definition

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// A global allocator that counts while [`count_allocations`] runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAllocator;

/// What a counting region allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocationCount {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes those calls asked for (`realloc` counts its new size).
    pub bytes: u64,
}

#[inline]
fn note(bytes: usize) {
    if COUNTING.load(Relaxed) {
        ALLOCATIONS.fetch_add(1, Relaxed);
        BYTES.fetch_add(bytes as u64, Relaxed);
    }
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; counting touches only static atomics
// and never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc`, passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on as is.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: the caller's contract for `realloc`, passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns what was allocated meanwhile, on any thread. Counts
/// zero unless [`CountingAllocator`] is the global allocator (see
/// [`is_counting_installed`]).
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, AllocationCount) {
    ALLOCATIONS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    let value = f();
    COUNTING.store(false, Relaxed);
    let count = AllocationCount {
        allocations: ALLOCATIONS.load(Relaxed),
        bytes: BYTES.load(Relaxed),
    };
    (value, count)
}

/// True if [`CountingAllocator`] is this program's global allocator.
pub fn is_counting_installed() -> bool {
    let ((), count) = count_allocations(|| drop(std::hint::black_box(Box::new(0u64))));
    count.allocations > 0
}
