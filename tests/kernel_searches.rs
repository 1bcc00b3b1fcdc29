//! Every kernel's parent arrays validated on generated graphs, scales 8 to
//! 16, through the harness's run loop; kernels agree with each other, with
//! themselves across thread counts, and across backends (kernel 3's
//! distances too).

use generator::{EdgeGenerator, EdgeList, Kronecker, SeedStreams};
use harness::pass::sssp::{SsspChecker, SsspSearcher};
use harness::{BfsChecker, BfsSearcher, Silent, search_all};
use kernels::{
    Backend, Bfs, Csr, DoParams, Kernel, PipesBfs, SearchKey, Sharing, SsspParams, WeightedCsr,
    choose_search_keys,
};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

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
    search_all(
        "bfs",
        &mut searcher,
        Some(&mut checker),
        keys,
        trace,
        &Silent,
    )
    .unwrap()
    .unwrap_or_else(|invalid| {
        panic!(
            "search {} from root {}: {}",
            invalid.search, invalid.root, invalid.failure
        )
    })
}

/// (root, nedge, reached, depth) of validated searches of `kernel` on
/// `backend` (which also builds the graph) from `keys` keys of a generated
/// graph.
fn searches(
    (kernel, backend): (Kernel, Backend),
    scale: u32,
    keys: usize,
    seed: u64,
) -> Vec<(u64, u64, u64, u32)> {
    let edges = Kronecker::new(scale, 16, seed).unwrap().generate();
    let graph = Arc::new(Csr::build_on(backend, edges.num_vertices(), edges.edges()));
    let keys = choose_search_keys(&graph, keys, &mut SeedStreams::new(seed).search_keys()).unwrap();
    let engine = kernel.engine_on(backend, Arc::clone(&graph));
    validated(engine, &graph, &edges, &keys, false)
        .iter()
        .map(|r| (r.root, r.nedge, r.reached, r.depth))
        .collect()
}

#[test]
fn every_kernel_is_valid_on_generated_graphs_from_scale_8_to_16() {
    for scale in [8, 10, 12, 14, 16] {
        let keys = if scale == 16 { 3 } else { 6 };
        let seq = searches(SEQ, scale, keys, 100 + u64::from(scale));
        for engine in Kernel::ENGINES {
            // Different kernels build different trees, but the same
            // component, depth and nedge.
            let other = searches(engine, scale, keys, 100 + u64::from(scale));
            assert_eq!(seq, other, "{} at scale {scale}", engine.0.label(engine.1));
        }
        assert!(
            seq.iter().any(|s| s.3 >= 3),
            "scale {scale}: too shallow to test much"
        );
    }
}

const SEQ: (Kernel, Backend) = (Kernel::Seq, Backend::Rayon);
const DOBFS: Kernel = Kernel::Dobfs(DoParams::DEFAULT);

/// `f` with rayon's pool and `par`'s both of `threads` workers.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    kernels::par::in_pool(threads, || kernels::par::with_pool(threads, f)).unwrap()
}

#[test]
fn par_kernel_results_do_not_depend_on_the_thread_count() {
    let kernel = (Kernel::Par, Backend::Rayon);
    let one = kernels::par::in_pool(1, || searches(kernel, 13, 8, 7)).unwrap();
    let two = kernels::par::in_pool(2, || searches(kernel, 13, 8, 7)).unwrap();
    let four = kernels::par::in_pool(4, || searches(kernel, 13, 8, 7)).unwrap();
    assert_eq!(one, two);
    assert_eq!(one, four);
}

#[test]
fn dobfs_gives_the_same_validated_results_on_both_backends_and_thread_counts() {
    let seq = searches(SEQ, 13, 8, 9);
    for threads in [1, 2, 3] {
        for backend in Backend::ALL {
            let got = on_threads(threads, || searches((DOBFS, backend), 13, 8, 9));
            assert_eq!(got, seq, "dobfs/{} on {threads} threads", backend.name());
        }
    }
}

/// Guards kernel 3 on both backends: on 1 and 2 threads, every search is
/// validated by the harness's loop (distances, tree, nedge), and the
/// distances are the same bit for bit, with the same reach and nedge, as
/// on rayon with one thread.
#[test]
fn sssp_gives_the_same_validated_distances_on_both_backends_and_thread_counts() {
    let edges = Kronecker::new(11, 16, 12).unwrap().generate();
    let weights: Vec<f32> = (0..edges.len())
        .map(|i| ((i as u64 * 2_654_435_761) % 1000) as f32 / 1000.0)
        .collect();
    let params = SsspParams::DEFAULT;
    let n = edges.num_vertices();
    /// The last search's distances, and (root, nedge, reached) per search.
    type Outcome = (Vec<f32>, Vec<(u64, u64, u64)>);
    let mut first: Option<Outcome> = None;
    for threads in [1, 2] {
        for backend in Backend::ALL {
            let what = format!("sssp/{} on {threads} threads", backend.name());
            let (dist, records) = on_threads(threads, || {
                let mut graph = WeightedCsr::build_on(backend, n, edges.edges(), &weights);
                graph.split_light_on(backend, params.delta());
                let graph = Arc::new(graph);
                let keys = choose_search_keys(
                    &graph.unweighted_on(backend),
                    6,
                    &mut SeedStreams::new(12).search_keys(),
                )
                .unwrap();
                let mut searcher = SsspSearcher::new(Arc::clone(&graph), params, backend);
                let mut checker = SsspChecker::new(n, edges.edges(), &weights);
                let records = search_all(
                    "sssp",
                    &mut searcher,
                    Some(&mut checker),
                    &keys,
                    false,
                    &Silent,
                )
                .unwrap()
                .unwrap_or_else(|e| panic!("{what}: {}", e.failure));
                // The last search's distances, written by the engine.
                let mut engine = kernels::DeltaStepping::on(backend, graph, params);
                engine.reset();
                engine.search(keys[keys.len() - 1].vertex());
                let (mut parents, mut dist) = (vec![0i64; n], vec![0f32; n]);
                engine.write_results(&mut parents, &mut dist);
                let records: Vec<_> = records
                    .iter()
                    .map(|r| (r.root, r.nedge, r.reached))
                    .collect();
                (dist, records)
            });
            assert!(records.iter().all(|r| r.2 > 100), "{what}: real searches");
            match &first {
                None => first = Some((dist, records)),
                Some((d, r)) => {
                    assert_eq!(&records, r, "{what}");
                    let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&dist), bits(d), "{what}");
                }
            }
        }
    }
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
    for (kernel, backend) in Kernel::ENGINES {
        let records = validated(
            kernel.engine_on(backend, Arc::clone(&graph)),
            &graph,
            &edges,
            &keys,
            false,
        );
        let kernel = kernel.label(backend);
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
    let baseline = searches(SEQ, 13, 6, 31);
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
        DoParams {
            ask_hubs: false,
            ..DoParams::DEFAULT
        },
        DoParams {
            scan_every_vertex: true,
            ask_hubs: false,
            ..DoParams::DEFAULT
        },
    ];
    for params in variants {
        for backend in Backend::ALL {
            assert_eq!(
                searches((Kernel::Dobfs(params), backend), 13, 6, 31),
                baseline,
                "{params:?} on {}",
                backend.name()
            );
        }
    }
}

#[test]
fn bottom_up_steps_take_a_frontier_hub_before_the_row() {
    // 0 is the root; 1 and 2 are its neighbours; 3's row is [1, 2], but 2
    // has many more arcs, so 2 is 3's hub. Bottom-up from the first step
    // (alpha huge), 3 is found in the frontier {1, 2}: through its hub, or,
    // without hub tests, through the first entry of its row.
    let mut tuples = vec![(0, 1), (0, 2), (3, 1), (3, 2)];
    tuples.extend((4..20).map(|leaf| (2, leaf)));
    let edges: Vec<generator::Edge> = tuples
        .into_iter()
        .map(|(u, v)| generator::Edge::new(u, v))
        .collect();
    let graph = Arc::new(Csr::build(20, &edges));
    assert_eq!(graph.neighbors(3), [1, 2]);
    assert_eq!(graph.hub(3), 2);
    for (ask_hubs, parent) in [(true, 2), (false, 1)] {
        let params = DoParams {
            alpha: 1_000_000,
            ask_hubs,
            ..DoParams::DEFAULT
        };
        let mut engine = kernels::DoBfs::new(Arc::clone(&graph), params);
        engine.reset();
        engine.search(SearchKey::new(0, &graph).unwrap());
        assert_eq!(engine.parents().get(3), Some(parent), "ask_hubs {ask_hubs}");
        let direction = engine.steps()[0].direction;
        assert_eq!(direction, kernels::Direction::BottomUp);
    }
}

#[test]
fn top_down_steps_cut_a_short_window_of_long_rows_by_arcs_and_claim_each_vertex_once() {
    // 0 is the root; 1, 2 and 3 its neighbours, each joined to every leaf
    // 4..6004: the second level is a window of 3 vertices and 18 003 arcs,
    // cut into work items of arcs that race for the same leaves. Top-down
    // throughout (alpha 1: never bottom-up).
    let leaves = 4..6004u32;
    let mut tuples = vec![(0, 1), (0, 2), (0, 3)];
    tuples.extend((1..4).flat_map(|hub| leaves.clone().map(move |leaf| (hub, leaf))));
    let edges: Vec<generator::Edge> = tuples
        .into_iter()
        .map(|(u, v)| generator::Edge::new(u, v))
        .collect();
    let graph = Arc::new(Csr::build(6004, &edges));
    let params = DoParams {
        alpha: 1,
        ..DoParams::DEFAULT
    };
    for backend in Backend::ALL {
        let mut engine = kernels::DoBfs::on(backend, Arc::clone(&graph), params);
        engine.reset();
        engine.set_tracing(true);
        engine.search(SearchKey::new(0, &graph).unwrap());
        let steps = engine.steps();
        assert!(
            steps
                .iter()
                .all(|s| s.direction == kernels::Direction::TopDown)
        );
        assert_eq!((steps[1].frontier, steps[1].discovered), (3, 6000));
        assert_eq!(
            steps[1].edges_examined,
            Some(3 * 6001),
            "every arc once (each row holds the root too)"
        );
        let levels = engine.parents().levels().expect("dobfs records levels");
        for leaf in leaves.clone() {
            let parent = engine.parents().get(leaf);
            assert!(
                parent.is_some_and(|p| (1..4).contains(&p)),
                "{leaf}: {parent:?}"
            );
            assert_eq!(levels[leaf as usize].load(Relaxed), 2);
        }
    }
}

#[test]
fn dobfs_records_every_vertexs_true_level_on_both_backends() {
    // The levels dobfs claims for the validator's certificate: each
    // reached vertex's BFS distance from the root, NO_LEVEL elsewhere,
    // also after a search from another root (the reset clears them).
    let edges = Kronecker::new(12, 16, 5).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = choose_search_keys(&graph, 3, &mut SeedStreams::new(5).search_keys()).unwrap();
    let n = graph.num_vertices();
    for backend in Backend::ALL {
        let mut engine = DOBFS.engine_on(backend, Arc::clone(&graph));
        for key in &keys {
            let mut distance = vec![kernels::NO_LEVEL; n];
            let root = key.vertex();
            distance[root as usize] = 0;
            let mut queue = std::collections::VecDeque::from([root]);
            while let Some(u) = queue.pop_front() {
                for &v in graph.neighbors(u) {
                    if distance[v as usize] == kernels::NO_LEVEL {
                        distance[v as usize] = distance[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
            }
            engine.reset();
            engine.search(*key);
            let levels = engine.parents().levels().expect("dobfs records levels");
            let claimed: Vec<u8> = levels.iter().map(|l| l.load(Relaxed)).collect();
            assert_eq!(claimed, distance, "root {root} on {}", backend.name());
        }
    }
}

#[test]
fn traces_account_for_every_vertex_and_chain_their_levels() {
    let edges = Kronecker::new(14, 16, 8).unwrap().generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let keys = choose_search_keys(&graph, 3, &mut SeedStreams::new(8).search_keys()).unwrap();
    for (kernel, backend) in [
        (Kernel::Par, Backend::Rayon),
        (DOBFS, Backend::Rayon),
        (DOBFS, Backend::Pipes),
    ] {
        let mut engine = kernel.engine_on(backend, Arc::clone(&graph));
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
