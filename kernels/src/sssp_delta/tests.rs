use super::*;
use generator::{Edge, EdgeGenerator, EdgeList, Kronecker};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Weights in [0, 1) from each tuple's position, every 97th exactly 0
/// (zero-weight ties are where parent trees can go wrong); kernel 3's
/// tests and the relabelling's share them.
pub(crate) fn weights(m: usize) -> Vec<f32> {
    (0..m)
        .map(|i| {
            let h = (i as u64 + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            if i % 97 == 0 {
                0.0
            } else {
                h as f32 / (1u32 << 24) as f32
            }
        })
        .collect()
}

/// Plain sequential Dijkstra over the same arcs, in f32 along paths.
fn dijkstra(g: &WeightedCsr, root: Vertex) -> Vec<f32> {
    let mut dist = vec![f32::INFINITY; g.num_vertices()];
    let mut heap = BinaryHeap::new();
    dist[root as usize] = 0.0;
    heap.push(Reverse((0f32.to_bits(), root)));
    while let Some(Reverse((bits, u))) = heap.pop() {
        let d = f32::from_bits(bits);
        if d > dist[u as usize] {
            continue;
        }
        for a in g.arcs(u) {
            let nd = d + a.weight;
            if nd < dist[a.target as usize] {
                dist[a.target as usize] = nd;
                heap.push(Reverse((nd.to_bits(), a.target)));
            }
        }
    }
    dist
}

/// Searches `root` on `threads` threads of `backend`, on `g` (one
/// thread), its rows split at delta (two) or split and renumbered by
/// degree (three, `relabelled`), taking bins one at a
/// time and unfused on 2 threads and merged and fused otherwise, and
/// checks, in `g`'s labels: the distances
/// are Dijkstra's bit for bit (-1 unreached); every reached vertex's
/// parent gives its distance exactly through an arc; following parents
/// always ends at the root (a tree, also with zero weights); the
/// reached count and largest distance; nedge is half the reached degree
/// sum. Returns the heavy phases pulled.
fn check_search(
    g: &Arc<WeightedCsr>,
    [split, relabelled]: [&Arc<WeightedCsr>; 2],
    params: SsspParams,
    (threads, backend): (usize, Backend),
    root: Vertex,
    what: &str,
) -> u32 {
    let n = g.num_vertices();
    let (mut parents, mut dist) = (vec![0i64; n], vec![0f32; n]);
    let graph = [g, split, relabelled][threads.min(3) - 1];
    let (stats, nedge, pulls) = par::in_pool(threads, || {
        par::with_pool(threads, || {
            let mut engine = DeltaStepping::on(backend, Arc::clone(graph), params);
            if threads == 2 {
                engine.shared_mut().merge = 0;
                engine.shared_mut().fuse = 0;
            }
            engine.reset();
            let stats = engine.search(root);
            engine.write_results(&mut parents, &mut dist);
            // Pulls need rows split at delta.
            assert!(threads > 1 || engine.pulls == 0, "{what}");
            (stats, engine.nedge(), engine.pulls)
        })
    })
    .unwrap();
    let want = dijkstra(g, root);
    for v in 0..n {
        let expected = if want[v].is_finite() { want[v] } else { -1.0 };
        assert_eq!(dist[v].to_bits(), expected.to_bits(), "{what}: vertex {v}");
    }
    let reached: Vec<u32> = (0..n as u32).filter(|&v| dist[v as usize] >= 0.0).collect();
    assert_eq!(stats.reached, reached.len() as u64, "{what}");
    let farthest = (want.iter())
        .filter(|d| d.is_finite())
        .fold(0f32, |m, &d| m.max(d));
    assert_eq!(stats.max_dist, farthest, "{what}");
    let degrees: u64 = reached.iter().map(|&v| g.degree(v)).sum();
    assert_eq!(nedge, degrees / 2, "{what}");
    assert_eq!(parents[root as usize], i64::from(root), "{what}");
    for &v in reached.iter().filter(|&&v| v != root) {
        let p = parents[v as usize] as u32;
        let via = (g.arcs(p).iter())
            .any(|a| a.target == v && dist[p as usize] + a.weight == dist[v as usize]);
        assert!(via, "{what}: {v} from {p}");
        let mut x = v;
        for _ in 0..n {
            x = parents[x as usize] as u32;
        }
        assert_eq!(x, root, "{what}: {v} does not lead to the root");
    }
    pulls
}

/// Checks every search from `roots` of the graph of `list` weighted
/// `w`, for each of `deltas`, on 1-3 threads of both backends
/// ([`check_search`]). Returns the heavy phases pulled.
fn check_searches(list: &EdgeList, w: &[f32], deltas: &[f32], roots: usize) -> u32 {
    let g = Arc::new(WeightedCsr::build(list.num_vertices(), list.edges(), w));
    let n = g.num_vertices();
    let roots: Vec<Vertex> = (0..n as u32)
        .filter(|&v| g.degree(v) > 0)
        .step_by(n / roots)
        .collect();
    let mut split = (*g).clone();
    let mut pulls = 0;
    for &delta in deltas {
        let params = SsspParams::new(delta).unwrap();
        split.split_light(params.delta());
        let relabelled = Arc::new(g.relabelled_on(Backend::Rayon, params.delta()));
        let split = Arc::new(split.clone());
        let runs = [1, 2, 3]
            .into_iter()
            .flat_map(|t| Backend::ALL.map(|b| (t, b)));
        for run in runs {
            for &root in &roots {
                let what = format!(
                    "{n} vertices, root {root}, delta {delta}, {} threads on {}",
                    run.0,
                    run.1.name()
                );
                pulls += check_search(&g, [&split, &relabelled], params, run, root, &what);
            }
        }
    }
    pulls
}

/// Guards kernel 3: for several graphs, roots, deltas (the narrowest
/// take fewer bins per bucket), thread counts, both backends, bins
/// taken one at a time or merged, and rows in their original labels or
/// renumbered by degree, the search is right
/// ([`check_search`]), and some heavy phases are pulled.
#[test]
fn distances_are_dijkstras_and_parents_form_a_shortest_path_tree() {
    for (scale, seed) in [(8, 1), (10, 2), (12, 3)] {
        let list = Kronecker::new(scale, 16, seed).unwrap().generate();
        let deltas = [SsspParams::MIN_DELTA * 2.0, 0.02, DEFAULT_DELTA, 0.5, 4.0];
        let pulls = check_searches(&list, &weights(list.len()), &deltas, 5);
        assert!(pulls > 0, "scale {scale}: no heavy phase was pulled");
    }
}

/// Guards weights of any size an input file may bring (up to 2^64):
/// distances far past 2^24 buckets, where a heavy arc can leave a
/// distance unchanged in f32, stay Dijkstra's, and the bins follow the
/// vertices waiting rather than the span of their distances (a bin per
/// bucket up to 10^19 / 2^-13 would not fit in memory).
#[test]
fn weights_of_any_size_give_dijkstras_distances_in_bounded_bins() {
    let list = Kronecker::new(9, 16, 5).unwrap().generate();
    let w: Vec<f32> = weights(list.len())
        .iter()
        .enumerate()
        .map(|(i, &x)| x * [1e-3, 1.0, 1e6, 1e12, 1e18][i % 5])
        .collect();
    assert!(w.iter().all(|&x| generator::is_weight(x)));
    let deltas = [SsspParams::MIN_DELTA * 2.0, DEFAULT_DELTA, 4.0];
    check_searches(&list, &w, &deltas, 3);
    // A path of heavy arcs: every bucket its own, far apart.
    let n = 300u32;
    let edges: Vec<Edge> = (0..n - 1).map(|v| Edge::new(v, v + 1)).collect();
    let w: Vec<f32> = (0..n - 1).map(|i| 1e15 + i as f32 * 1e13).collect();
    let path = EdgeList::new(u64::from(n), edges).unwrap();
    check_searches(&path, &w, &[SsspParams::MIN_DELTA], 2);
}

/// Guards the exact buckets the skipping of done targets rests on:
/// delta is rounded down to a power of two, and too narrow or
/// non-finite widths are refused.
#[test]
fn delta_is_rounded_down_to_a_power_of_two() {
    for (asked, got) in [
        (0.1, 0.0625),
        (0.03125, 0.03125),
        (1.0, 1.0),
        (3.0, 2.0),
        (0.02, 0.015625),
    ] {
        assert_eq!(SsspParams::new(asked).unwrap().delta(), got, "{asked}");
    }
    assert_eq!(SsspParams::DEFAULT.delta().log2().fract(), 0.0);
    for bad in [
        0.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
        SsspParams::MIN_DELTA / 2.0,
    ] {
        assert!(SsspParams::new(bad).is_err(), "{bad}");
    }
}

/// Guards the bucket width chosen from a graph's size: a power of two,
/// wider on smaller graphs: for Graph500 weights at edgefactor 16, 2^-5
/// at SCALE 18 to 20 and 2^-6 from SCALE 21 on (never narrower); scaling
/// with the weights; the default for weights that say nothing.
#[test]
fn delta_by_graph_size_widens_small_graphs_buckets_only() {
    let arcs = |scale: u32| 32u64 << scale;
    for (scale, want) in [
        (10, 0.125),
        (14, 0.0625),
        (18, 0.03125),
        (20, 0.03125),
        (21, DEFAULT_DELTA),
        (22, DEFAULT_DELTA),
        (30, DEFAULT_DELTA),
    ] {
        assert_eq!(
            SsspParams::for_graph(arcs(scale), 0.5).delta(),
            want,
            "SCALE {scale}"
        );
    }
    assert_eq!(SsspParams::for_graph(arcs(20), 0.5 * 1024.0).delta(), 32.0);
    for mean in [0.0, -1.0, f64::NAN] {
        assert_eq!(
            SsspParams::for_graph(arcs(20), mean),
            SsspParams::DEFAULT,
            "{mean}"
        );
    }
    assert_eq!(SsspParams::for_graph(0, f64::INFINITY), SsspParams::DEFAULT);
}

/// Guards reuse: a second search on the same engine, after `reset`,
/// finds exactly what a fresh engine finds.
#[test]
fn a_reused_engine_searches_like_a_fresh_one() {
    let list = Kronecker::new(10, 16, 4).unwrap().generate();
    let w = weights(list.len());
    let g = Arc::new(WeightedCsr::build(list.num_vertices(), list.edges(), &w));
    let n = g.num_vertices();
    let mut reused = DeltaStepping::new(Arc::clone(&g), SsspParams::DEFAULT);
    for root in [3, 77, 500] {
        reused.reset();
        let stats = reused.search(root);
        let mut fresh = DeltaStepping::new(Arc::clone(&g), SsspParams::DEFAULT);
        // Phases depend on timing (a vertex improved before or after
        // it is processed); what was found does not.
        let again = fresh.search(root);
        assert_eq!(
            (again.reached, again.max_dist),
            (stats.reached, stats.max_dist)
        );
        let (mut d1, mut d2, mut p) = (vec![0f32; n], vec![0f32; n], vec![0i64; n]);
        reused.write_results(&mut p, &mut d1);
        fresh.write_results(&mut p, &mut d2);
        assert_eq!(d1, d2, "root {root}");
    }
}

/// A search of the split graph of `list` weighted `w` from `root` on
/// `threads` threads, fusing bins of up to `fuse` entries: its stats,
/// distances, and whether each vertex ends listed and done.
fn search_split(
    list: &EdgeList,
    w: &[f32],
    threads: usize,
    fuse: usize,
    root: Vertex,
) -> (SsspStats, Vec<f32>, Vec<(bool, bool)>, u32) {
    let mut g = WeightedCsr::build(list.num_vertices(), list.edges(), w);
    g.split_light(DEFAULT_DELTA);
    let n = g.num_vertices();
    par::in_pool(threads, || {
        let mut engine = DeltaStepping::new(Arc::new(g), SsspParams::DEFAULT);
        engine.shared_mut().fuse = fuse;
        engine.reset();
        let stats = engine.search(root);
        let (mut parents, mut dist) = (vec![0i64; n], vec![0f32; n]);
        engine.write_results(&mut parents, &mut dist);
        let s = &engine.shared;
        let listed = |v: usize| s.state[v].load(Relaxed) & LISTED != 0;
        let marks = (0..n).map(|v| (listed(v), s.done.get(v))).collect();
        (stats, dist, marks, engine.pulls)
    })
    .unwrap()
}

/// Guards bucket fusion: on one thread (so the phases do not depend on
/// timing), fusing a worker's small bins settles the same distances, bit
/// for bit, in fewer phases than taking every bin in a phase of its own.
#[test]
fn bucket_fusion_settles_the_same_distances_in_fewer_phases() {
    let list = Kronecker::new(12, 16, 6).unwrap().generate();
    let w = weights(list.len());
    let (fused, fused_dist, _, _) = search_split(&list, &w, 1, FUSE, 1);
    let (plain, plain_dist, _, _) = search_split(&list, &w, 1, 0, 1);
    let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&fused_dist), bits(&plain_dist));
    assert_eq!(fused.reached, plain.reached);
    assert!(
        fused.phases < plain.phases,
        "{} fused phases, {} unfused",
        fused.phases,
        plain.phases
    );
}

/// Guards the marks of a search whose heavy phases are both pushed and
/// pulled, the pushes marking their vertices done as they go: every
/// reached vertex ends listed once and done, and no other vertex is
/// either. Listed once: the settled count is the reached vertices' (an
/// improvement that dropped the mark would list a vertex twice).
#[test]
fn every_reached_vertex_ends_listed_and_done_whether_pushed_or_pulled() {
    let list = Kronecker::new(12, 16, 7).unwrap().generate();
    let w = weights(list.len());
    for threads in [1, 2] {
        let (stats, dist, marks, pulls) = search_split(&list, &w, threads, FUSE, 2);
        assert!(pulls > 0 && pulls < stats.buckets, "{pulls} pulls");
        let reached = dist.iter().filter(|&&d| d >= 0.0).count();
        assert_eq!(stats.reached, reached as u64, "{threads} threads");
        for (v, (&d, &(listed, done))) in dist.iter().zip(&marks).enumerate() {
            let reached = d >= 0.0;
            assert_eq!(
                (listed, done),
                (reached, reached),
                "vertex {v}, {threads} threads"
            );
        }
    }
}

/// Guards the pull's pass over vertices whose lightest heavy arc cannot
/// help: a hub whose bucket is pulled (each leaf joined to it by two heavy
/// tuples, so a pull costs less than a push), leaves reached only through
/// it, a vertex at a distance no heavy arc can beat (a light path), one
/// that a later bucket's heavy arc improves, and one a light path reaches
/// that the hub's heavy arc improves. Distances are Dijkstra's, bit
/// for bit, on 1 and 2 threads.
#[test]
fn a_pull_passes_over_exactly_the_vertices_no_heavy_arc_can_improve() {
    let leaves = 200u32;
    let (mut edges, mut w) = hub_and_leaves(leaves);
    let mut tuple = |u: Vertex, v: Vertex, x: f32| {
        edges.push(Edge { u, v });
        w.push(x);
    };
    // A light path 0 - a - b into the next bucket, and b's heavy arc back.
    let (a, b) = (leaves + 1, leaves + 2);
    tuple(0, a, 0.01);
    tuple(a, b, 0.01);
    tuple(b, 0, 0.5);
    // A leaf improved by `b`'s bucket, below its hub arcs.
    tuple(b, 7, 0.02);
    // A vertex reached through a light path whose heavy arc to the hub,
    // lighter than that path, only the pull can offer.
    let c = leaves + 3;
    tuple(a, c, 0.015);
    tuple(c, 0, 0.02);
    let list = EdgeList::new(u64::from(leaves) + 4, edges).unwrap();
    let mut g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
    g.split_light(DEFAULT_DELTA);
    let want = dijkstra(&g, 0);
    for threads in [1, 2] {
        let (stats, dist, _, pulls) = search_split(&list, &w, threads, FUSE, 0);
        assert!(pulls > 0, "{threads} threads: the hub's bucket is pulled");
        assert_eq!(stats.reached, u64::from(leaves) + 4);
        assert_eq!(dist[c as usize], 0.02, "{threads} threads: pulled");
        let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dist), bits(&want), "{threads} threads");
    }
}

/// Guards the pull's end: a pull visits no vertex past the last one with
/// a heavy arc (here a light-only tail and isolated vertices), yet the hub's
/// bucket is still pulled and the distances are Dijkstra's, bit for bit,
/// on 1 and 2 threads.
#[test]
fn a_pull_ends_at_the_last_vertex_with_a_heavy_arc() {
    let leaves = 200u32;
    let (mut edges, mut w) = hub_and_leaves(leaves);
    let mut tuple = |u: Vertex, v: Vertex, x: f32| {
        edges.push(Edge { u, v });
        w.push(x);
    };
    // The last vertex with a heavy arc, then a tail of light arcs only.
    let last = leaves + 1;
    tuple(3, last, 0.5);
    tuple(last, last + 1, 0.01);
    tuple(last + 1, last + 2, 0.01);
    // And 100 isolated vertices.
    let list = EdgeList::new(u64::from(leaves) + 103, edges).unwrap();
    let mut g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
    g.split_light(DEFAULT_DELTA);
    // Unreached: -1 in the results, infinite in Dijkstra's.
    let want: Vec<f32> = (dijkstra(&g, 0).into_iter())
        .map(|d| if d.is_finite() { d } else { -1.0 })
        .collect();
    let g = Arc::new(g);
    for threads in [1, 2] {
        let (pull_end, pulls, dist) = par::in_pool(threads, || {
            let mut engine = DeltaStepping::new(Arc::clone(&g), SsspParams::DEFAULT);
            engine.reset();
            engine.search(0);
            let n = g.num_vertices();
            let (mut parents, mut dist) = (vec![0i64; n], vec![0f32; n]);
            engine.write_results(&mut parents, &mut dist);
            (engine.shared.pull_end, engine.pulls, dist)
        })
        .unwrap();
        assert_eq!(pull_end, last as usize + 1, "{threads} threads");
        assert!(pulls > 0, "{threads} threads: the hub's bucket is pulled");
        let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dist), bits(&want), "{threads} threads");
    }
}

/// Guards the translation back of a relabelled graph's searches: on one
/// thread, an engine reused over several roots of the graph renumbered
/// by degree gives, in the original labels, the distances of the same
/// searches on the graph as built, bit for bit, parents that give each
/// distance through an arc of the original graph, and the same reached
/// count and nedge; also from a root without arcs and after it.
#[test]
fn a_relabelled_graph_gives_results_in_the_original_labels() {
    let list = Kronecker::new(11, 16, 8).unwrap().generate();
    let w = weights(list.len());
    let g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
    let n = g.num_vertices();
    let relabelled = Arc::new(g.relabelled_on(Backend::Rayon, DEFAULT_DELTA));
    let mut split = g.clone();
    split.split_light(DEFAULT_DELTA);
    par::in_pool(1, || {
        let mut renumbered = DeltaStepping::new(relabelled, SsspParams::DEFAULT);
        let mut plain = DeltaStepping::new(Arc::new(split), SsspParams::DEFAULT);
        // A vertex without arcs among the roots, then others: the
        // translation passes the rows without arcs, so its result must be
        // written alone and cleared by the next reset.
        let lone = (0..n as u32)
            .find(|&v| g.degree(v) == 0)
            .expect("an isolated vertex");
        for root in [0, 5, lone, 1000, 2047] {
            renumbered.reset();
            plain.reset();
            let (a, b) = (renumbered.search(root), plain.search(root));
            assert_eq!(
                (a.reached, a.max_dist),
                (b.reached, b.max_dist),
                "root {root}"
            );
            assert_eq!(renumbered.nedge(), plain.nedge(), "root {root}");
            let (mut d1, mut d2) = (vec![0f32; n], vec![0f32; n]);
            let (mut p1, mut p2) = (vec![0i64; n], vec![0i64; n]);
            renumbered.write_results(&mut p1, &mut d1);
            plain.write_results(&mut p2, &mut d2);
            let bits = |d: &[f32]| d.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&d1), bits(&d2), "root {root}");
            assert_eq!(p1[root as usize], i64::from(root));
            for v in (0..n as u32).filter(|&v| v != root && d1[v as usize] >= 0.0) {
                let p = p1[v as usize] as u32;
                let via = (g.arcs(p).iter())
                    .any(|a| a.target == v && d1[p as usize] + a.weight == d1[v as usize]);
                assert!(via, "root {root}: {v} from {p}");
            }
        }
    })
    .unwrap();
}

/// Vertex 0 joined both ways to `leaves` leaves, by arcs of weights that
/// vary with the leaf: the hub whose bucket the pull tests pull. The
/// tuples and their weights.
fn hub_and_leaves(leaves: u32) -> (Vec<Edge>, Vec<f32>) {
    let (mut edges, mut w) = (Vec::new(), Vec::new());
    for i in 1..=leaves {
        let x = 0.1 + (i % 37) as f32 / 64.0;
        edges.extend([Edge { u: 0, v: i }, Edge { u: i, v: 0 }]);
        w.extend([x, x + (i % 5) as f32 / 128.0]);
    }
    (edges, w)
}
