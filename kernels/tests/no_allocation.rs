//! The kernels that promise it allocate nothing during a search: `search` is
//! run under the counting global allocator (this test binary's only test, so
//! no other test thread allocates meanwhile). The pipes backend allocates a
//! job and a pipe per task by design; `graph500 profile` reports how much.

use generator::{EdgeGenerator, Kronecker, SeedStreams};
use kernels::{
    Backend, CountingAllocator, Csr, DoParams, Kernel, choose_search_keys, count_allocations,
    is_counting_installed,
};
use std::sync::Arc;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn searches_allocate_nothing() {
    assert!(is_counting_installed());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let edges = Kronecker::new(14, 16, 2).unwrap().generate();
        let graph = Arc::new(Csr::from_edge_list(&edges));
        let keys = choose_search_keys(&graph, 4, &mut SeedStreams::new(2).search_keys()).unwrap();
        for kernel in [
            Kernel::Seq,
            Kernel::Par(Backend::Rayon),
            Kernel::Dobfs(DoParams::DEFAULT),
        ] {
            let mut engine = kernel.engine(Arc::clone(&graph));
            // The first search warms rayon's lazily created per-thread state.
            engine.reset();
            engine.search(keys[0]);
            for &key in &keys[1..] {
                engine.reset();
                let (stats, allocated) = count_allocations(|| engine.search(key));
                assert!(stats.reached > 1000, "a real search");
                assert_eq!(allocated.allocations, 0, "{kernel} allocated {allocated:?}");
            }
        }
    });
}
