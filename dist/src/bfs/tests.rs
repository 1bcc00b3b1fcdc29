use super::*;
use crate::{Partition, ThreadRanks};
use generator::{EdgeGenerator, EdgeList, Kronecker, Tuple};
use kernels::{Csr, Kernel, SearchKey};
use validate::Validator;

/// Only top-down steps: `m_f <= m_u` always, so `m_f > m_u / 1` never holds.
const TOP_DOWN_ONLY: DoParams = DoParams {
    alpha: 1,
    beta: u64::MAX,
    ..DoParams::DEFAULT
};
/// Bottom-up from the first level on (`m_u / alpha` is 0) and never back
/// (`N / beta` is 0).
const BOTTOM_UP_ONLY: DoParams = DoParams {
    alpha: u64::MAX,
    beta: u64::MAX,
    ..DoParams::DEFAULT
};

/// What one rank reports of one search.
#[derive(Debug)]
struct Report {
    first: u64,
    parents: Vec<u64>,
    stats: SearchStats,
    nedge: u64,
    steps: Vec<DistStep>,
}

/// Searches from each of `roots` on `p` ranks (ids of type `I`), each
/// rank building its rows from its share of the tuples; one report per
/// root per rank.
fn run_ranks<I: Id>(
    list: &EdgeList,
    p: usize,
    (params, backend): (DoParams, Backend),
    roots: &[u64],
) -> Vec<Vec<Report>> {
    let part = Partition::new(list.num_vertices() as u64, p);
    ThreadRanks::run(p, |c| {
        let m = list.len();
        let share = &list.edges()[m * c.rank() / p..m * (c.rank() + 1) / p];
        // u64 ids come from 64-bit tuples, as in a run beyond SCALE 31.
        let share: Vec<I::Tuple> = (share.iter())
            .map(|e| Tuple::from_ends(e.u.into(), e.v.into()))
            .collect();
        let graph = Arc::new(LocalGraph::<I>::build(c, part, &share));
        let mut bfs = DistBfs::on(backend, c, Arc::clone(&graph), params);
        roots
            .iter()
            .map(|&root| {
                bfs.reset();
                let stats = bfs.search(root);
                Report {
                    first: graph.first(),
                    parents: bfs.parents().iter().map(|p| p.load(Relaxed)).collect(),
                    stats,
                    nedge: bfs.nedge(),
                    steps: bfs.steps().to_vec(),
                }
            })
            .collect()
    })
}

/// Checks every search of `run_ranks` against the single-process
/// direction-optimizing BFS and the validator; returns the steps of
/// each search (rank 0's, which all ranks share).
fn check<I: Id>(list: &EdgeList, p: usize, params: DoParams, roots: &[u64]) -> Vec<Vec<DistStep>> {
    check_on::<I>(list, p, (params, Backend::Rayon), roots)
}

/// [`check`] with the ranks' loops on `backend`.
fn check_on<I: Id>(
    list: &EdgeList,
    p: usize,
    (params, backend): (DoParams, Backend),
    roots: &[u64],
) -> Vec<Vec<DistStep>> {
    let n = list.num_vertices();
    let csr = Arc::new(Csr::from_edge_list(list));
    let mut single = Kernel::Dobfs(DoParams::DEFAULT).engine(Arc::clone(&csr));
    let mut validator = Validator::new(n);
    let reports = run_ranks::<I>(list, p, (params, backend), roots);
    let mut all_steps = Vec::new();
    for (i, &root) in roots.iter().enumerate() {
        let what = format!(
            "P {p} root {root} {params:?} {backend:?} {}",
            std::any::type_name::<I>()
        );
        single.reset();
        let want = single.search(SearchKey::new(root, &csr).unwrap());
        let want_nedge = csr.nedge(single.parents());
        let mut parents = vec![-1i64; n];
        for rank in &reports {
            let r = &rank[i];
            assert_eq!(r.stats, want, "{what}");
            assert_eq!(r.nedge, want_nedge, "{what}");
            assert_eq!(
                r.steps, reports[0][i].steps,
                "{what}: every rank has the same steps"
            );
            for (u, &parent) in r.parents.iter().enumerate() {
                let v = usize::try_from(r.first).unwrap() + u;
                parents[v] = if parent == NO_PARENT {
                    -1
                } else {
                    i64::try_from(parent).unwrap()
                };
            }
        }
        let summary = validator
            .validate(list, root, &parents, Some(want_nedge))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            (summary.reached, summary.depth),
            (want.reached, want.depth),
            "{what}"
        );
        let steps = reports[0][i].steps.clone();
        assert_eq!(
            steps.len() as u32,
            want.depth + 1,
            "{what}: one step per level, and the empty one"
        );
        assert_eq!(
            steps.iter().map(|s| s.discovered).sum::<u64>() + 1,
            want.reached,
            "{what}"
        );
        all_steps.push(steps);
    }
    all_steps
}

fn kronecker(scale: u32, seed: u64) -> EdgeList {
    Kronecker::new(scale, 16, seed).unwrap().generate()
}

/// `count` roots with edges, spread over the id space.
fn roots(list: &EdgeList, count: usize) -> Vec<u64> {
    let csr = Csr::from_edge_list(list);
    let n = u32::try_from(csr.num_vertices()).unwrap();
    let with_edges: Vec<u32> = (0..n).filter(|&v| csr.degree(v) > 0).collect();
    let stride = with_edges.len() / count;
    with_edges
        .iter()
        .step_by(stride.max(1))
        .take(count)
        .map(|&v| u64::from(v))
        .collect()
}

/// Guards the distributed search as a whole: for P = 1..4, scales 8 to
/// 11, u32 and u64 ids, every tree validates and has the single-process
/// reached, depth and nedge, and every rank reports the same steps.
#[test]
fn trees_validate_and_match_one_process_for_1_to_4_ranks() {
    for scale in 8..=11 {
        let list = kronecker(scale, u64::from(scale));
        let roots = roots(&list, 3);
        for p in 1..=4 {
            check::<u32>(&list, p, DoParams::DEFAULT, &roots);
            check::<u64>(&list, p, DoParams::DEFAULT, &roots);
        }
    }
}

/// Guards the ranks' loops on the pipes backend (`par`'s threads):
/// trees, reach, depth, nedge and steps as on rayon, both directions.
#[test]
fn searches_on_pipes_validate_and_match_one_process() {
    let list = kronecker(10, 5);
    let roots = roots(&list, 3);
    for p in [1, 2, 3] {
        for params in [DoParams::DEFAULT, TOP_DOWN_ONLY, BOTTOM_UP_ONLY] {
            let rayon = check_on::<u32>(&list, p, (params, Backend::Rayon), &roots);
            let pipes = check_on::<u32>(&list, p, (params, Backend::Pipes), &roots);
            let shape = |steps: &[Vec<DistStep>]| -> Vec<Vec<(Direction, u64, u64)>> {
                (steps.iter())
                    .map(|s| {
                        s.iter()
                            .map(|s| (s.direction, s.frontier, s.discovered))
                            .collect()
                    })
                    .collect()
            };
            assert_eq!(shape(&rayon), shape(&pipes), "P {p} {params:?}");
        }
    }
}

/// Guards each direction on its own: with parameters that never leave
/// top-down, and with ones that go bottom-up at once and stay, the trees
/// still validate and match, and the steps went the way forced.
#[test]
fn top_down_only_and_bottom_up_only_searches_are_both_valid() {
    let list = kronecker(10, 7);
    let roots = roots(&list, 3);
    for p in [1, 2, 3, 4] {
        for (params, only) in [
            (TOP_DOWN_ONLY, Direction::TopDown),
            (BOTTOM_UP_ONLY, Direction::BottomUp),
        ] {
            for steps in check::<u32>(&list, p, params, &roots)
                .into_iter()
                .chain(check::<u64>(&list, p, params, &roots))
            {
                assert!(
                    steps.iter().all(|s| s.direction == only),
                    "{params:?}: {steps:?}"
                );
            }
        }
    }
}

/// Guards the switching: with Beamer's parameters (alpha 15, beta 18; the
/// default beta, 72, stays bottom-up to the end of so small a graph) a
/// scale-11 search goes top-down, then bottom-up, then top-down again, and
/// steps on several ranks move bytes (top-down pairs, bottom-up bitmaps)
/// while one rank sends nothing.
#[test]
fn beamers_parameters_switch_directions_and_count_bytes() {
    let list = kronecker(11, 1);
    let roots = roots(&list, 2);
    let beamer = DoParams {
        alpha: 15,
        beta: 18,
        ..DoParams::DEFAULT
    };
    for p in [1, 3] {
        for steps in check::<u32>(&list, p, beamer, &roots) {
            let directions: Vec<Direction> = steps.iter().map(|s| s.direction).collect();
            assert_eq!(directions.first(), Some(&Direction::TopDown), "{steps:?}");
            assert!(directions.contains(&Direction::BottomUp), "{steps:?}");
            let back = directions
                .windows(2)
                .any(|w| w == [Direction::BottomUp, Direction::TopDown]);
            assert!(back, "returns top-down: {steps:?}");
            for s in &steps {
                if p == 1 {
                    assert_eq!(s.bytes, 0, "{s:?}");
                } else {
                    assert!(s.bytes > 0, "{s:?}");
                }
            }
        }
    }
}

/// Guards ranks that own no vertex (N = 64 < 64 P: rank 0 owns all):
/// they still join every collective, and the trees are right.
#[test]
fn ranks_without_vertices_take_part_in_every_level() {
    let list = kronecker(6, 2);
    assert_eq!(Partition::new(64, 4).count(1), 0);
    let roots = roots(&list, 4);
    for params in [DoParams::DEFAULT, TOP_DOWN_ONLY, BOTTOM_UP_ONLY] {
        check::<u32>(&list, 4, params, &roots);
        check::<u64>(&list, 4, params, &roots);
    }
}

/// Guards a root without edges (any vertex may be searched from): it
/// reaches only itself, in one empty step, on every rank.
#[test]
fn a_root_without_edges_reaches_only_itself() {
    let list = kronecker(9, 3);
    let csr = Csr::from_edge_list(&list);
    let n = u32::try_from(csr.num_vertices()).unwrap();
    let root = (0..n)
        .find(|&v| csr.degree(v) == 0)
        .expect("an isolated vertex");
    for p in [1, 3] {
        for steps in check::<u32>(&list, p, DoParams::DEFAULT, &[u64::from(root)]) {
            assert_eq!(steps.len(), 1);
            assert_eq!(steps[0].discovered, 0);
        }
    }
}

/// Every row's hub is, among the row's first `HUB_SAMPLE` arcs, the first
/// of highest degree class by the vertices' global degrees (those of the
/// one-process rows), a row without arcs is its own hub, and a row is
/// marked alone exactly when every arc leads to its hub; for 1 to 3
/// ranks, so that hubs owned by other ranks are classed right.
#[test]
fn hubs_are_the_first_of_highest_global_degree_class_in_the_sample() {
    let list = kronecker(9, 5);
    let csr = Csr::from_edge_list(&list);
    let class = |v: u32| kernels::degree_class(csr.degree(v));
    for p in 1..=3 {
        let part = Partition::new(list.num_vertices() as u64, p);
        ThreadRanks::run(p, |c| {
            let m = list.len();
            let share = &list.edges()[m * c.rank() / p..m * (c.rank() + 1) / p];
            let graph = LocalGraph::<u32>::build(c, part, share);
            let classes = hubs::degree_classes(Backend::Rayon, c, &graph);
            let hubs = hubs::local_hubs(Backend::Rayon, &graph, &classes);
            assert_eq!(hubs.len(), graph.num_rows());
            let mut marked = 0;
            for u in 0..hubs.len() {
                let (hub, alone) = hubs.ask(u);
                assert!(
                    hub < list.num_vertices() as u64,
                    "P {p} row {u}: the mark leaked"
                );
                let hub = u32::try_from(hub).expect("below N");
                let row = graph.neighbors(u);
                assert_eq!(
                    alone,
                    !row.is_empty() && row.iter().all(|&v| v == hub),
                    "P {p} row {u}: alone exactly when every arc leads to the hub"
                );
                marked += usize::from(alone);
                let sample = &row[..graph.degree(u).min(kernels::HUB_SAMPLE as u64) as usize];
                let Some(i) = sample.iter().position(|&v| v == hub) else {
                    assert!(sample.is_empty(), "P {p} row {u}: hub {hub} not in sample");
                    assert_eq!(u64::from(hub), graph.first() + u as u64);
                    continue;
                };
                let best = sample.iter().map(|&v| class(v)).max().unwrap();
                assert_eq!(class(hub), best, "P {p} row {u}");
                assert!(
                    sample[..i].iter().all(|&v| class(v) < best),
                    "P {p} row {u}"
                );
            }
            assert!(marked > 0, "P {p}: a Kronecker graph has rows of degree 1");
        });
    }
}

/// Guards the delegates: over the ranks, a hub's lists hold its row (the
/// one-process row, arc for arc as reverse arcs); the hubs are the
/// vertices of the highest degree classes, the same on every rank, at
/// least one; a local row's index and its global id's agree; for 1 to 3
/// ranks.
#[test]
fn delegates_hold_each_hubs_row_over_the_ranks() {
    let list = kronecker(10, 4);
    let csr = Csr::from_edge_list(&list);
    let n = list.num_vertices() as u64;
    for p in 1..=3 {
        let part = Partition::new(n, p);
        let lists = ThreadRanks::run(p, |c| {
            let m = list.len();
            let share = &list.edges()[m * c.rank() / p..m * (c.rank() + 1) / p];
            let graph = LocalGraph::<u32>::build(c, part, share);
            let classes = hubs::degree_classes(Backend::Rayon, c, &graph);
            let d = delegates::delegates(Backend::Rayon, c, &graph, &classes);
            for u in 0..graph.num_rows() {
                let global = graph.first() + u as u64;
                assert_eq!(d.index(u), d.find(global), "P {p} row {u}");
            }
            (0..d.len())
                .map(|k| {
                    let ids = d.members(k).iter().map(|&u| graph.first() + u64::from(u));
                    (d.id(k), ids.collect::<Vec<u64>>())
                })
                .collect::<Vec<_>>()
        });
        let hubs: Vec<u64> = lists[0].iter().map(|(h, _)| *h).collect();
        assert!(!hubs.is_empty(), "P {p}: a SCALE 10 graph has hubs");
        for rank in &lists {
            assert_eq!(rank.iter().map(|(h, _)| *h).collect::<Vec<_>>(), hubs);
        }
        let class = |v: u64| kernels::degree_class(csr.degree(v as u32));
        let least = hubs.iter().map(|&h| class(h)).min().unwrap();
        for v in 0..n {
            assert_eq!(class(v) >= least, hubs.contains(&v), "P {p} vertex {v}");
        }
        for (k, &h) in hubs.iter().enumerate() {
            let mut held: Vec<u64> = lists.iter().flat_map(|r| r[k].1.clone()).collect();
            let mut row: Vec<u64> = (csr.neighbors(h as u32).iter())
                .filter(|&&v| u64::from(v) != h)
                .map(|&v| u64::from(v))
                .collect();
            held.sort_unstable();
            row.sort_unstable();
            assert_eq!(held, row, "P {p} hub {h}");
        }
    }
}

/// Guards the hubs' top-down steps: on 2 and 3 ranks, searches whose
/// frontiers hold hubs leave those rows to the delegates (the steps
/// record hubs and their arcs), send fewer bytes than a pair per remote
/// arc would, and still match one process and validate.
#[test]
fn top_down_steps_leave_hub_rows_to_the_delegates() {
    let list = kronecker(11, 6);
    let roots = roots(&list, 8);
    for p in [2, 3] {
        let mut met = 0;
        for steps in check::<u32>(&list, p, TOP_DOWN_ONLY, &roots) {
            for s in steps.iter().filter(|s| s.hubs > 0) {
                met += 1;
                assert!(
                    s.delegated >= 64 * s.hubs && s.delegated <= s.scanned,
                    "{s:?}"
                );
                let pairs = 8 * (s.scanned - s.delegated);
                // At most a pair per arc left, the announcements, counts
                // and the closing all-reduce.
                let p = p as u64;
                assert!(
                    s.bytes <= pairs + 8 * s.hubs * (p - 1) + 48 * p * (p - 1),
                    "{s:?}"
                );
                assert!(s.bytes < 8 * s.scanned * (p - 1) / p, "{s:?}");
            }
        }
        assert!(met > 0, "P {p}: some frontier holds a hub");
    }
}
