//! A search allocates nothing: every kernel's `search` is run under a
//! counting global allocator (this test binary's only test, so no other test
//! thread allocates meanwhile).

use generator::{Kronecker, SeedStreams};
use kernels::{Csr, Kernel, choose_search_keys};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(SeqCst) {
            ALLOCATIONS.fetch_add(1, SeqCst);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(SeqCst) {
            ALLOCATIONS.fetch_add(1, SeqCst);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn searches_allocate_nothing() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let edges = Kronecker::new(14, 16, 2).unwrap().generate();
        let graph = Arc::new(Csr::from_edge_list(&edges));
        let keys = choose_search_keys(&graph, 4, &mut SeedStreams::new(2).search_keys()).unwrap();
        for kernel in Kernel::ALL {
            let mut engine = kernel.engine(Arc::clone(&graph));
            // The first search warms rayon's lazily created per-thread state.
            engine.reset();
            engine.search(keys[0]);
            for &key in &keys[1..] {
                engine.reset();
                ALLOCATIONS.store(0, SeqCst);
                COUNTING.store(true, SeqCst);
                let stats = engine.search(key);
                COUNTING.store(false, SeqCst);
                assert!(stats.reached > 1000, "a real search");
                assert_eq!(ALLOCATIONS.load(SeqCst), 0, "{} allocated", kernel.name());
            }
        }
    });
}
