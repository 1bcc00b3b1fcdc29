use super::*;
use crate::{Partition, ThreadRanks};
use generator::{Edge, EdgeGenerator, Kronecker, ReferenceKronecker, Tuple};
use kernels::{DeltaStepping, WeightedCsr};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use validate::SsspValidator;

/// A weighted tuple list.
struct Graph {
    n: usize,
    edges: Vec<Edge>,
    weights: Vec<f32>,
}

fn generated(g: &dyn EdgeGenerator) -> Graph {
    Graph {
        n: g.num_vertices(),
        edges: g.generate().edges().to_vec(),
        weights: generator::generate_weights(g, 0..g.num_blocks(), &|| {}),
    }
}

/// What one rank reports of one search.
#[derive(Debug)]
struct Report {
    first: u64,
    parents: Vec<u64>,
    dist: Vec<f32>,
    stats: SsspStats,
    nedge: u64,
    steps: Vec<BucketStep>,
    bytes: u64,
    pulls: u32,
}

/// Plain sequential Dijkstra over the tuples (self-loops left out), in
/// f32 along paths; infinity for the unreached.
fn dijkstra(g: &Graph, root: u64) -> Vec<f32> {
    let mut rows: Vec<Vec<(usize, f32)>> = vec![Vec::new(); g.n];
    for (e, &w) in g.edges.iter().zip(&g.weights) {
        if !e.is_self_loop() {
            rows[e.u as usize].push((e.v as usize, w));
            rows[e.v as usize].push((e.u as usize, w));
        }
    }
    let mut dist = vec![f32::INFINITY; g.n];
    let mut heap = BinaryHeap::new();
    dist[root as usize] = 0.0;
    heap.push(Reverse((0f32.to_bits(), root as usize)));
    while let Some(Reverse((d, u))) = heap.pop() {
        let d = f32::from_bits(d);
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &rows[u] {
            let nd = d + w;
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Reverse((nd.to_bits(), v)));
            }
        }
    }
    dist
}

/// How a run is made: ranks, workers per rank, bucket width, and
/// whether the rows are split at it (else at twice it, so the engine
/// picks light arcs from whole rows).
#[derive(Clone, Copy, Debug)]
struct Setup {
    p: usize,
    threads: usize,
    delta: f32,
    split: bool,
    backend: Backend,
    /// Whether the ranks share their done vertices (as up to
    /// `SHARED_UP_TO` ranks do).
    shared: bool,
}

fn setup(p: usize, threads: usize, delta: f32, split: bool) -> Setup {
    Setup {
        p,
        threads,
        delta,
        split,
        backend: Backend::Rayon,
        shared: true,
    }
}

/// Searches from each of `roots` as `setup` says (ids of type `I`),
/// one engine per rank reused with `reset`; one report per rank per
/// root.
fn run_ranks<I: Id>(g: &Graph, setup: Setup, roots: &[u64]) -> Vec<Vec<Report>> {
    let Setup {
        p,
        threads,
        delta,
        split,
        backend,
        shared,
    } = setup;
    let part = Partition::new(g.n as u64, p);
    ThreadRanks::run(p, |c| {
        // On pipes, `par`'s loops take their thread count from the
        // pool installed here.
        crate::on_threads(threads, || {
            kernels::par::with_pool(threads, || {
                let m = g.edges.len();
                let share = m * c.rank() / p..m * (c.rank() + 1) / p;
                // u64 ids come from 64-bit tuples, as in a run beyond SCALE 31.
                let tuples: Vec<I::Tuple> = g.edges[share.clone()]
                    .iter()
                    .map(|e| Tuple::from_ends(e.u.into(), e.v.into()))
                    .collect();
                // Split at the engine's width (`delta` rounded down to a
                // power of two), or the engine would find the rows unsplit.
                let params = SsspParams::new(delta).unwrap();
                let width = params.delta();
                let graph = Arc::new(WeightedLocalGraph::<I>::build_weighted(
                    c,
                    part,
                    &tuples,
                    &g.weights[share],
                    if split { width } else { 2.0 * width },
                ));
                let mut sssp = DistSssp::on(backend, c, Arc::clone(&graph), params);
                assert_eq!(sssp.split, split, "rows split as the setup says");
                if !shared {
                    sssp.share_nothing();
                }
                sssp.set_tracing(true);
                roots
                    .iter()
                    .map(|&root| {
                        sssp.reset();
                        let stats = sssp.search(root);
                        let rows = graph.num_rows();
                        let (mut parents, mut dist) = (vec![0; rows], vec![0.0; rows]);
                        sssp.write_results(&mut parents, &mut dist);
                        assert_eq!(sssp.parents(), parents);
                        Report {
                            first: graph.first(),
                            parents,
                            dist,
                            stats,
                            nedge: sssp.nedge(),
                            steps: sssp.steps().to_vec(),
                            bytes: sssp.bytes(),
                            pulls: sssp.pulls(),
                        }
                    })
                    .collect()
            })
        })
    })
}

/// Checks every search of `run_ranks` against Dijkstra (distances bit
/// for bit, the same unreached vertices), the single-process
/// delta-stepping (distances, nedge) and the SSSP validator on the
/// gathered arrays; checks that every rank reports the same figures and
/// the trace adds up. Returns each search's schedule: per bucket its
/// index, phases and settled vertices.
fn check<I: Id>(g: &Graph, setup: Setup, roots: &[u64]) -> Vec<Vec<(u32, u32, u64)>> {
    let params = SsspParams::new(setup.delta).unwrap();
    let csr = Arc::new(WeightedCsr::build(g.n, &g.edges, &g.weights));
    let mut single = DeltaStepping::new(csr, params);
    let mut validator = SsspValidator::new(g.n);
    let reports = run_ranks::<I>(g, setup, roots);
    let (mut want_parents, mut want_dist) = (vec![0i64; g.n], vec![0f32; g.n]);
    let mut schedules = Vec::new();
    for (i, &root) in roots.iter().enumerate() {
        let what = format!("{setup:?} root {root} {}", std::any::type_name::<I>());
        single.reset();
        let want = single.search(u32::try_from(root).unwrap());
        single.write_results(&mut want_parents, &mut want_dist);
        let exact = dijkstra(g, root);
        let (mut parents, mut dist) = (vec![-2i64; g.n], vec![-2f32; g.n]);
        for rank in &reports {
            let r = &rank[i];
            assert_eq!(
                r.stats, reports[0][i].stats,
                "{what}: the same on every rank"
            );
            assert_eq!(
                r.steps, reports[0][i].steps,
                "{what}: the same on every rank"
            );
            assert_eq!(r.nedge, single.nedge(), "{what}");
            assert_eq!(r.bytes, reports[0][i].bytes, "{what}");
            assert_eq!(r.pulls, reports[0][i].pulls, "{what}");
            // Counts go to every other rank in each phase.
            assert_eq!(r.bytes > 0, setup.p > 1, "{what}: {} bytes", r.bytes);
            for (u, (&parent, &d)) in r.parents.iter().zip(&r.dist).enumerate() {
                let v = usize::try_from(r.first).unwrap() + u;
                parents[v] = if parent == NO_PARENT {
                    -1
                } else {
                    i64::try_from(parent).unwrap()
                };
                dist[v] = d;
            }
        }
        for v in 0..g.n {
            let expected = if exact[v].is_finite() { exact[v] } else { -1.0 };
            assert_eq!(dist[v].to_bits(), expected.to_bits(), "{what}: vertex {v}");
            assert_eq!(
                dist[v].to_bits(),
                want_dist[v].to_bits(),
                "{what}: vertex {v}"
            );
        }
        let summary = validator
            .validate(
                &g.edges,
                &g.weights,
                root,
                &parents,
                &dist,
                Some(reports[0][i].nedge),
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let stats = reports[0][i].stats;
        assert_eq!(stats.reached, want.reached, "{what}");
        assert_eq!(stats.reached, summary.reached, "{what}");
        assert_eq!(
            stats.max_dist.to_bits(),
            summary.max_dist.to_bits(),
            "{what}"
        );
        let steps = &reports[0][i].steps;
        assert_eq!(steps.len(), stats.buckets as usize, "{what}");
        assert_eq!(
            steps.iter().map(|s| s.phases).sum::<u32>(),
            stats.phases,
            "{what}"
        );
        assert!(
            steps.windows(2).all(|w| w[0].bucket <= w[1].bucket),
            "{what}"
        );
        let settled: u64 = steps.iter().map(|s| s.settled).sum();
        assert!(
            settled >= stats.reached,
            "{what}: each reached vertex settles"
        );
        schedules.push(
            steps
                .iter()
                .map(|s| (s.bucket, s.phases, s.settled))
                .collect(),
        );
    }
    schedules
}

/// [`check`] for each of `setups` (one graph, one delta). The buckets
/// and the vertices each settles must be the same for all: a vertex
/// settles in the bucket of its final distance, whatever the ranks,
/// workers or row layout (which also shows that light and heavy arcs go
/// to their own phases: a mixed-up phase would change them). The phases
/// too must be the same for all setups whose ranks run on several
/// workers: each phase lowers every vertex to the least of its distance
/// and the offers made from the distances as it began. A rank of one
/// worker applies its offers to its own vertices at once, which may end
/// a bucket in fewer phases.
fn check_all<I: Id>(g: &Graph, setups: &[Setup], roots: &[u64]) {
    let schedules: Vec<_> = setups.iter().map(|&s| check::<I>(g, s, roots)).collect();
    let settled = |schedule: &Vec<Vec<(u32, u32, u64)>>| -> Vec<Vec<(u32, u64)>> {
        let search = |s: &Vec<(u32, u32, u64)>| s.iter().map(|&(b, _, n)| (b, n)).collect();
        schedule.iter().map(search).collect()
    };
    for (setup, schedule) in setups.iter().zip(&schedules) {
        assert_eq!(
            settled(schedule),
            settled(&schedules[0]),
            "{setup:?} and {:?}",
            setups[0]
        );
    }
    let phased: Vec<_> = setups
        .iter()
        .zip(&schedules)
        .filter(|(s, _)| s.threads > 1)
        .collect();
    for (setup, schedule) in &phased {
        assert_eq!(*schedule, phased[0].1, "{setup:?} and {:?}", phased[0].0);
    }
}

/// `count` roots with edges, spread over the id space.
fn roots(g: &Graph, count: usize) -> Vec<u64> {
    let mut has_edge = vec![false; g.n];
    for e in g.edges.iter().filter(|e| !e.is_self_loop()) {
        has_edge[e.u as usize] = true;
        has_edge[e.v as usize] = true;
    }
    let with: Vec<u64> = (0..g.n as u64).filter(|&v| has_edge[v as usize]).collect();
    with.iter()
        .step_by((with.len() / count).max(1))
        .take(count)
        .copied()
        .collect()
}

/// Guards the distributed search as a whole: for both generators, P =
/// 1..4 ranks of 1 and 2 workers and deltas from fine to one bucket per
/// unit, the gathered distances are Dijkstra's bit for bit, nedge is
/// the single process's, and every result validates.
#[test]
fn distances_are_dijkstras_and_results_validate_for_1_to_4_ranks() {
    let graphs = [
        generated(&Kronecker::new(8, 16, 3).unwrap()),
        generated(&ReferenceKronecker::new(9, 16).unwrap()),
        generated(&Kronecker::new(10, 16, 11).unwrap()),
    ];
    for g in &graphs {
        let roots = roots(g, 3);
        for delta in [0.02, 0.1, 1.0] {
            let setups: Vec<Setup> = (1..=4)
                .flat_map(|p| [1, 2].map(|threads| setup(p, threads, delta, true)))
                .collect();
            check_all::<u32>(g, &setups, &roots);
        }
    }
}

/// Guards the ranks' loops on the pipes backend (`par`'s threads,
/// each claiming a worker's share): on 1 to 3 ranks of 1 and 2 threads,
/// split rows or not, the same answers and schedule as on rayon.
#[test]
fn searches_on_pipes_give_rayons_answers() {
    let g = generated(&Kronecker::new(9, 16, 7).unwrap());
    let roots = roots(&g, 3);
    let setups: Vec<Setup> = (1..=3)
        .flat_map(|p| {
            [(1, true), (2, true), (2, false)]
                .into_iter()
                .flat_map(move |(threads, split)| {
                    let rayon = setup(p, threads, 0.05, split);
                    [
                        rayon,
                        Setup {
                            backend: Backend::Pipes,
                            ..rayon
                        },
                    ]
                })
        })
        .collect();
    check_all::<u32>(&g, &setups, &roots);
}

/// Guards wide ids and rows not split at delta: the same answers with
/// u64 ids from 64-bit tuples, and with light arcs picked from whole
/// rows.
#[test]
fn wide_ids_and_unsplit_rows_give_the_same_answers() {
    let g = generated(&Kronecker::new(9, 16, 5).unwrap());
    let roots = roots(&g, 2);
    let setups: Vec<Setup> = [1, 3]
        .into_iter()
        .flat_map(|p| [true, false].map(|split| setup(p, 2, 0.1, split)))
        .collect();
    check_all::<u64>(&g, &setups, &roots);
    check_all::<u32>(&g, &setups, &roots);
}

/// Guards weights of any size an input file may bring (below 2^64):
/// distances whose buckets lie far past 2^24, where buckets once
/// saturated into one (and their bins grew with the distance), are
/// Dijkstra's on 1 to 3 ranks, from fine to wide deltas.
#[test]
fn weights_of_any_size_give_dijkstras_distances_over_ranks() {
    let mut g = generated(&Kronecker::new(8, 16, 9).unwrap());
    for (i, w) in g.weights.iter_mut().enumerate() {
        *w *= [1e-3, 1.0, 1e6, 1e12, 1e18][i % 5];
    }
    let roots = roots(&g, 2);
    for delta in [SsspParams::MIN_DELTA, 0.02, 4.0] {
        let setups: Vec<Setup> = (1..=3)
            .flat_map(|p| [1, 2].map(|threads| setup(p, threads, delta, p != 2)))
            .collect();
        check_all::<u32>(&g, &setups, &roots);
    }
}

/// Guards ties and small components: a fifth of the weights are 0 (so
/// zero-weight paths, where parents could make cycles), and a component
/// of four vertices with zero-weight arcs, a duplicate and a self-loop
/// is added on vertices that had no edge; roots in it, in the big
/// component and on an isolated vertex, then one in the big component
/// again (the isolated root unreached in it). Also ranks that own no vertex
/// (N = 64 < 64 P).
#[test]
fn zero_weights_small_components_and_empty_ranks_are_right() {
    let mut g = generated(&Kronecker::new(9, 16, 8).unwrap());
    for w in g.weights.iter_mut().step_by(5) {
        *w = 0.0;
    }
    let mut has_edge = vec![false; g.n];
    for e in g.edges.iter().filter(|e| !e.is_self_loop()) {
        has_edge[e.u as usize] = true;
        has_edge[e.v as usize] = true;
    }
    let free: Vec<u32> = (0..g.n as u32).filter(|&v| !has_edge[v as usize]).collect();
    assert!(free.len() >= 5, "isolated vertices to use");
    let [a, b, c, d, lone] = [free[0], free[1], free[2], free[3], free[4]];
    for (u, v, w) in [
        (a, b, 0.0),
        (b, c, 0.5),
        (c, a, 0.0),
        (a, b, 0.0),
        (c, d, 0.25),
        (d, d, 0.1),
    ] {
        g.edges.push(Edge::new(u, v));
        g.weights.push(w);
    }
    let mut keys = roots(&g, 2);
    // A search after the isolated root: its entry must read unreached
    // again (the report passes the rows without arcs).
    keys.extend([u64::from(b), u64::from(lone), keys[0]]);
    for delta in [0.02, 0.1, 1.0] {
        let setups: Vec<Setup> = (1..=4)
            .flat_map(|p| [1, 2].map(|threads| setup(p, threads, delta, p != 2)))
            .collect();
        check_all::<u32>(&g, &setups, &keys);
    }
    let tiny = generated(&Kronecker::new(6, 16, 2).unwrap());
    assert_eq!(Partition::new(64, 4).count(1), 0);
    let keys = roots(&tiny, 4);
    for delta in [0.02, 1.0] {
        check_all::<u32>(
            &tiny,
            &[setup(4, 2, delta, true), setup(1, 1, delta, false)],
            &keys,
        );
    }
}

/// Guards what a rank leaves unsent: offers to done vertices and offers
/// no lower than one it sent before. A root and a hub on rank 0, 128
/// leaves on rank 1 joined to both (weights 0.5 and 0.25): the leaves
/// settle in one bucket and their heavy phase offers the root (done)
/// nothing and the hub one offer, not one per leaf. The search sends the
/// root's offers to the leaves (12 bytes each), the leaves' ids when
/// they settle (4 each) and little more; sending every arc's offer would
/// take 36 bytes per leaf. Distances are still Dijkstra's, also with a
/// third and a fourth rank.
#[test]
fn ranks_send_no_offer_to_done_vertices_and_one_per_improvement() {
    let leaves = 128u32;
    let mut g = Graph {
        n: 2 * leaves as usize,
        edges: Vec::new(),
        weights: Vec::new(),
    };
    for leaf in leaves..2 * leaves {
        g.edges.extend([Edge::new(0, leaf), Edge::new(leaf, 1)]);
        g.weights.extend([0.5, 0.25]);
    }
    let bytes = run_ranks::<u32>(&g, setup(2, 2, 0.1, true), &[0])[0][0].bytes;
    let most = 16 * u64::from(leaves) + 1024;
    assert!(bytes <= most, "{bytes} bytes sent, at most {most} expected");
    let setups: Vec<Setup> = (1..=4).map(|p| setup(p, 2, 0.1, true)).collect();
    check_all::<u32>(&g, &setups, &[0, 1, u64::from(leaves)]);
}

/// Guards the choice of push or pull: on a Kronecker graph over 2 and 3
/// ranks some heavy phases pull (the big buckets) and some push, and
/// `check` finds the distances Dijkstra's all the same.
#[test]
fn heavy_phases_both_pull_and_push_on_kronecker_graphs() {
    let g = generated(&Kronecker::new(10, 16, 11).unwrap());
    let roots = roots(&g, 2);
    for p in [2, 3] {
        for search in &run_ranks::<u32>(&g, setup(p, 1, 0.02, true), &roots)[0] {
            let (pulls, buckets) = (search.pulls, search.stats.buckets);
            assert!(
                pulls > 0 && pulls < buckets,
                "{pulls} pulls, {buckets} buckets"
            );
        }
    }
}

/// Beyond `SHARED_UP_TO` ranks no rank shares its done vertices (their
/// cost grows with `P`): the search of before, with the same distances as
/// one process and Dijkstra, and no pull.
#[test]
fn ranks_that_share_nothing_give_the_same_distances_and_never_pull() {
    let g = generated(&Kronecker::new(10, 16, 11).unwrap());
    let roots = roots(&g, 2);
    for p in [2, 3] {
        let plain = Setup {
            shared: false,
            ..setup(p, 1, 0.02, true)
        };
        check_all::<u32>(&g, &[plain], &roots);
        for search in &run_ranks::<u32>(&g, plain, &roots)[0] {
            assert_eq!(search.pulls, 0);
        }
    }
}

/// Guards what a pull visits and skips: on every rank, for P = 1 to 3,
/// the vertices from `pull_end` on have no heavy arc and the one before
/// it has; each vertex's heavy lower bound is at most every heavy weight
/// of its row (the least where the part is sorted outright) and infinite
/// without heavy arcs; and searches that pull give Dijkstra's distances
/// and one process's.
#[test]
fn a_pull_visits_rows_up_to_the_last_heavy_one_and_passes_those_its_bound_rules_out() {
    let g = generated(&Kronecker::new(10, 16, 11).unwrap());
    for p in 1..=3 {
        let part = Partition::new(g.n as u64, p);
        ThreadRanks::run(p, |c| {
            let m = g.edges.len();
            let share = m * c.rank() / p..m * (c.rank() + 1) / p;
            let graph = Arc::new(WeightedLocalGraph::<u32>::build_weighted(
                c,
                part,
                &g.edges[share.clone()],
                &g.weights[share],
                1.0 / 64.0,
            ));
            let sssp = DistSssp::new(c, Arc::clone(&graph), SsspParams::new(1.0 / 64.0).unwrap());
            assert!(sssp.split);
            let heavy = |u: usize| graph.light_and_heavy(u).1;
            let end = sssp.pull_end;
            assert!(end > 0 && heavy(end - 1).len() > 0, "P {p}");
            assert!(
                (end..graph.num_rows()).all(|u| heavy(u).len() == 0),
                "P {p}"
            );
            for u in 0..graph.num_rows() {
                let bound = sssp.lightest_heavy[u];
                let least = heavy(u).map(|(_, w)| w).fold(f32::INFINITY, f32::min);
                assert!(bound <= least, "P {p} row {u}: {bound} > {least}");
                if heavy(u).len() <= 32 {
                    assert_eq!(bound, least, "P {p} row {u}");
                }
            }
        });
    }
    let roots = roots(&g, 3);
    let setups: Vec<Setup> = (1..=3).map(|p| setup(p, 1, 0.02, true)).collect();
    check_all::<u32>(&g, &setups, &roots);
    assert!(
        run_ranks::<u32>(&g, setups[1], &roots)[0]
            .iter()
            .all(|s| s.pulls > 0)
    );
}

/// Guards a one-thread rank's light queue (`DistSssp::settle_alone`): the
/// entries that left the bucket are dropped, every other one is taken off
/// it and listed as settled once (not again if listed before), and the
/// queue keeps only the vertices with light arcs, in index order.
#[test]
fn a_lone_ranks_light_queue_settles_every_entry_and_keeps_the_rows_to_scan() {
    let g = generated(&Kronecker::new(8, 16, 5).unwrap());
    let part = Partition::new(g.n as u64, 1);
    ThreadRanks::run(1, |c| {
        let graph = Arc::new(WeightedLocalGraph::<u32>::build_weighted(
            c,
            part,
            &g.edges,
            &g.weights,
            1.0 / 64.0,
        ));
        let mut sssp = DistSssp::new(c, Arc::clone(&graph), SsspParams::new(1.0 / 64.0).unwrap());
        sssp.workers = vec![Mutex::new(Worker {
            out: vec![Vec::new()],
            bins: Bins::default(),
            settled: Vec::new(),
            visit: Vec::new(),
        })];
        let light = |u: usize| graph.light_and_heavy(u).0.len() > 0;
        let with_light: Vec<usize> = (0..graph.num_rows()).filter(|&u| light(u)).collect();
        let without: Vec<usize> = (0..graph.num_rows()).filter(|&u| !light(u)).collect();
        assert!(with_light.len() >= 3 && without.len() >= 3);
        let d = 0.5f32.to_bits();
        // Waiting in bucket 2: two with light arcs, one without, and one
        // listed as settled by an earlier phase; one that left for bucket 1.
        let waiting = [with_light[2], without[0], with_light[0], without[1]];
        for &u in &waiting {
            sssp.state[u].store(state::pack(d, 2), Relaxed);
        }
        let listed = without[1];
        sssp.state[listed].store(state::with_settled(state::pack(d, 2), true), Relaxed);
        let stale = with_light[1];
        sssp.state[stale].store(state::pack(d, 1), Relaxed);
        sssp.queue = vec![waiting[0], waiting[1], stale, waiting[2], waiting[3]]
            .into_iter()
            .map(phase::index)
            .collect();
        sssp.settle_alone(2);
        assert_eq!(sssp.queue, [with_light[0], with_light[2]].map(phase::index));
        for &u in &waiting {
            let s = sssp.state[u].load(Relaxed);
            assert_eq!(
                (state::waiting(s), state::settled(s), state::dist_bits(s)),
                (state::NOT_WAITING, true, d),
                "vertex {u}"
            );
        }
        assert_eq!(state::waiting(sssp.state[stale].load(Relaxed)), 1);
        let settled = &lock(&sssp.workers[0]).settled;
        let expected = [waiting[0], waiting[1], waiting[2]].map(phase::index);
        assert_eq!(settled[..], expected[..], "listed once, in queue order");
    });
}
