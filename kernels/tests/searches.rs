//! Every kernel's parent arrays validated on generated graphs, scales 8 to
//! 16, through the harness's run loop; kernels agree with each other and
//! with themselves across thread counts.

use generator::{EdgeGenerator, EdgeList, Kronecker, SeedStreams};
use harness::{BfsChecker, BfsSearcher, Silent, search_all};
use kernels::{
    Backend, Bfs, Csr, DoParams, Kernel, PipesBfs, SearchKey, Sharing, choose_search_keys,
};
use std::sync::Arc;

/// Every search of `engine` from `keys` run by the harness's loop, each
/// validated (the loop also checks that the kernel's reach and depth are
/// the validator's); per search (root, nedge, reached, depth).
fn validated(
    engine: Box<dyn Bfs>,
    graph: &Arc<Csr>,
    edges: &EdgeList,
    keys: &[SearchKey],
    trace: bool,
) -> Vec<harness::report::SearchRecord> {
    let mut searcher = BfsSearcher::new(engine, Arc::clone(graph));
    let mut checker = BfsChecker::new(edges);
    search_all(&mut searcher, Some(&mut checker), keys, trace, &Silent)
        .unwrap()
        .unwrap_or_else(|invalid| {
            panic!(
                "search {} from root {}: {}",
                invalid.search, invalid.root, invalid.failure
            )
        })
}

/// (root, nedge, reached, depth) of validated searches of `kernel` from
/// `keys` keys of a generated graph.
fn searches(kernel: Kernel, scale: u32, keys: usize, seed: u64) -> Vec<(u64, u64, u64, u32)> {
    let edges = Kronecker::new(scale, 16, seed).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = choose_search_keys(&graph, keys, &mut SeedStreams::new(seed).search_keys()).unwrap();
    let engine = kernel.engine(Arc::clone(&graph));
    validated(engine, &graph, &edges, &keys, false)
        .iter()
        .map(|r| (r.root, r.nedge, r.reached, r.depth))
        .collect()
}

#[test]
fn every_kernel_is_valid_on_generated_graphs_from_scale_8_to_16() {
    for scale in [8, 10, 12, 14, 16] {
        let keys = if scale == 16 { 3 } else { 6 };
        let seq = searches(Kernel::Seq, scale, keys, 100 + u64::from(scale));
        for kernel in Kernel::ALL {
            // Different kernels build different trees, but the same
            // component, depth and nedge.
            let other = searches(kernel, scale, keys, 100 + u64::from(scale));
            assert_eq!(seq, other, "{kernel} at scale {scale}");
        }
        assert!(
            seq.iter().any(|s| s.3 >= 3),
            "scale {scale}: too shallow to test much"
        );
    }
}

#[test]
fn par_kernel_results_do_not_depend_on_the_thread_count() {
    let kernel = Kernel::Par(Backend::Rayon);
    let one = par::in_pool(1, || searches(kernel, 13, 8, 7)).unwrap();
    let two = par::in_pool(2, || searches(kernel, 13, 8, 7)).unwrap();
    let four = par::in_pool(4, || searches(kernel, 13, 8, 7)).unwrap();
    assert_eq!(one, two);
    assert_eq!(one, four);
}

#[test]
fn an_engine_is_reusable_across_graph_sized_searches_without_leftovers() {
    // A search from an isolated root after a big one must see only the root:
    // the reset must clear every parent and the frontier.
    let edges = Kronecker::new(10, 16, 3).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let n = u32::try_from(graph.num_vertices()).unwrap();
    let isolated = (0..n)
        .find(|&v| graph.degree(v) == 0)
        .expect("R-MAT leaves isolated vertices");
    let busy = (0..n).max_by_key(|&v| graph.degree(v)).unwrap();
    let keys = [busy, isolated].map(|v| SearchKey::new(v.into(), &graph).unwrap());
    for kernel in Kernel::ALL {
        let records = validated(
            kernel.engine(Arc::clone(&graph)),
            &graph,
            &edges,
            &keys,
            false,
        );
        assert!(records[0].reached > 100, "{kernel}");
        assert_eq!((records[1].reached, records[1].depth), (1, 0), "{kernel}");
    }
}

#[test]
fn every_sharing_strategy_of_the_pipes_backend_is_valid() {
    // Kernel::ALL covers arc+inplace; copy and arc exist for the profile and
    // must be just as correct.
    let edges = Kronecker::new(12, 16, 21).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = choose_search_keys(&graph, 4, &mut SeedStreams::new(21).search_keys()).unwrap();
    for sharing in Sharing::ALL {
        let engine = Box::new(PipesBfs::new(Arc::clone(&graph), sharing));
        validated(engine, &graph, &edges, &keys, false);
        // What each strategy moves by value, per search.
        let mut engine = PipesBfs::new(Arc::clone(&graph), sharing);
        for &key in &keys {
            engine.reset();
            engine.search(key);
            let copies_graph = sharing == Sharing::Copy;
            let returns_by_value = sharing != Sharing::ArcInPlace;
            assert_eq!(
                engine.bytes_copied() >= graph.heap_bytes(),
                copies_graph,
                "{}",
                sharing.name()
            );
            assert_eq!(
                engine.bytes_copied() > 0,
                returns_by_value,
                "{}",
                sharing.name()
            );
        }
    }
}

#[test]
fn dobfs_is_valid_for_any_switching_parameters() {
    // Never bottom-up, bottom-up at once, leave it at once or never, and
    // the ablation that scans every vertex: all must give valid trees with
    // the same reach, depth and nedge as the sequential kernel.
    let baseline = searches(Kernel::Seq, 13, 6, 31);
    let variants = [
        DoParams {
            alpha: 1_000_000,
            ..DoParams::DEFAULT
        },
        DoParams {
            alpha: 1,
            ..DoParams::DEFAULT
        },
        DoParams {
            beta: 1,
            ..DoParams::DEFAULT
        },
        DoParams {
            beta: 1_000_000,
            ..DoParams::DEFAULT
        },
        DoParams {
            scan_every_vertex: true,
            ..DoParams::DEFAULT
        },
    ];
    for params in variants {
        assert_eq!(
            searches(Kernel::Dobfs(params), 13, 6, 31),
            baseline,
            "{params:?}"
        );
    }
}

#[test]
fn traces_account_for_every_vertex_and_chain_their_levels() {
    let edges = Kronecker::new(14, 16, 8).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = choose_search_keys(&graph, 3, &mut SeedStreams::new(8).search_keys()).unwrap();
    for kernel in [
        Kernel::Par(Backend::Rayon),
        Kernel::Dobfs(DoParams::DEFAULT),
    ] {
        let mut engine = kernel.engine(Arc::clone(&graph));
        engine.set_tracing(true);
        for record in validated(engine, &graph, &edges, &keys, true) {
            let steps = record.trace.expect("traced");
            assert_eq!(
                steps[0].frontier, 1,
                "{kernel}: the first frontier is the root"
            );
            assert_eq!(
                steps.last().unwrap().discovered,
                0,
                "{kernel}: the last step finds nothing"
            );
            let discovered: u64 = steps.iter().map(|s| s.discovered).sum();
            assert_eq!(discovered + 1, record.reached, "{kernel}");
            for pair in steps.windows(2) {
                assert_eq!(
                    pair[1].frontier, pair[0].discovered,
                    "{kernel}: levels chain"
                );
            }
            for s in &steps {
                let examined = s.edges_examined.expect("counted while tracing");
                assert!(examined <= graph.num_arcs() as u64 && s.seconds >= 0.0);
            }
            let bottom_up = steps.iter().filter(|s| s.is_bottom_up()).count();
            match kernel {
                Kernel::Dobfs(_) => {
                    assert!(bottom_up > 0, "dobfs never went bottom-up at scale 14")
                }
                _ => assert_eq!(bottom_up, 0),
            }
        }
    }
    // Kernels that record nothing say so with an empty trace.
    let seq = validated(
        Kernel::Seq.engine(Arc::clone(&graph)),
        &graph,
        &edges,
        &keys,
        true,
    );
    assert!(seq[0].trace.as_ref().is_some_and(Vec::is_empty));
}
