//! Issue 33's first lever, measured before it is built: what would a
//! degree-ordered relabelling inside kernel 1 buy each kernel, and cost?
//!
//! The run's graph (`graph500 --scale S --keys K`, xoshiro generator) is
//! built twice, untimed by the comparison: as generated, and with its
//! vertices renumbered by decreasing degree (ties by id), so the hubs get
//! the smallest ids and share cache lines. Each round then runs the same
//! searches (the run's keys, renumbered) on both graphs, alternating, with
//! the kernels and parameters of a default run (`dobfs`, delta-stepping
//! with the light split): the ratio of mean times is the gain the
//! relabelling could give each kernel, before translating parents back to
//! the original labels (one more pass over N, counted in the cost row).
//!
//! The cost row times what kernel 1 would add: the order (a sort of the
//! degrees), the renumbered tuples (a gather per tuple end) and the
//! translation of one search's parents back; beside kernel 1's own build.
//!
//! Kernel 3's rows are what kernel 1 builds for it: the weighted graph
//! split in place, against `WeightedCsr::relabelled_on` (renumbered by
//! degree class and split in one pass; each search ends by translating its
//! result back, timed), with the seconds of both steps.
//!
//! Run: `cargo bench --bench relabel`. Environment: `GRAPH500_BENCH_SCALE`
//! (default 18), `GRAPH500_BENCH_KEYS` (16), `GRAPH500_BENCH_ROUNDS` (3),
//! `RAYON_NUM_THREADS`.

#![allow(clippy::print_stdout)]

#[path = "shared/run_env.rs"]
mod run_env;

use generator::{Edge, EdgeList, generate_weights};
use kernels::{
    Backend, Bfs, Csr, DeltaStepping, DoBfs, DoParams, SearchKey, SsspParams, WeightedCsr,
};
use rayon::prelude::*;
use run_env::{BenchRun, env, median};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// Seconds `f` takes, and what it returned.
fn timed<R>(f: impl FnOnce() -> R) -> (f64, R) {
    let start = Instant::now();
    let r = black_box(f());
    (start.elapsed().as_secs_f64(), r)
}

/// `x` as a vertex id (every graph here has 32-bit ids).
fn id(x: usize) -> u32 {
    u32::try_from(x).expect("a 32-bit id")
}

/// `new_id[v]`: `v`'s rank when the vertices are ordered by decreasing
/// degree, ties by id.
fn degree_order(graph: &Csr) -> Vec<u32> {
    // A stable counting sort by decreasing degree: what kernel 1 would do,
    // O(N + the largest degree).
    let n = graph.num_vertices();
    let degrees: Vec<usize> = (0..id(n))
        .into_par_iter()
        .map(|v| usize::try_from(graph.degree(v)).expect("a degree"))
        .collect();
    let most = degrees.iter().copied().max().unwrap_or(0);
    let mut starts = vec![0u32; most + 2];
    for &d in &degrees {
        starts[most - d + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut new_id = vec![0u32; n];
    for (v, &d) in degrees.iter().enumerate() {
        new_id[v] = starts[most - d];
        starts[most - d] += 1;
    }
    new_id
}

/// Only the `hubs` highest-degree vertices move: to ids `0..hubs` in
/// degree order, and the vertices that held those ids into the hubs' old
/// places; every other vertex keeps its id.
fn hubs_first(graph: &Csr, hubs: usize) -> Vec<u32> {
    let full = degree_order(graph);
    let mut new_id: Vec<u32> = (0..id(graph.num_vertices())).collect();
    let mut by_rank = vec![0u32; hubs];
    for (v, &r) in full.iter().enumerate() {
        if (r as usize) < hubs {
            by_rank[r as usize] = id(v);
        }
    }
    // Swap each hub with the vertex holding its new id, in rank order.
    let mut holder: Vec<u32> = (0..id(graph.num_vertices())).collect(); // holder[id] = vertex
    for (r, &h) in by_rank.iter().enumerate() {
        let (hid, other) = (new_id[h as usize], holder[r]);
        new_id.swap(h as usize, other as usize);
        holder.swap(r, hid as usize);
    }
    new_id
}

/// `roots` under `new_id`.
fn rename(roots: &[u64], new_id: &[u32]) -> Vec<u64> {
    roots
        .iter()
        .map(|&r| new_id[usize::try_from(r).expect("a vertex")].into())
        .collect()
}

fn renumber(edges: &[Edge], new_id: &[u32]) -> Vec<Edge> {
    edges
        .par_iter()
        .map(|e| Edge {
            u: new_id[e.u as usize],
            v: new_id[e.v as usize],
        })
        .collect()
}

/// Mean seconds of a `dobfs` search from each root.
fn bfs_mean(graph: &Arc<Csr>, roots: &[u64]) -> f64 {
    let mut bfs = DoBfs::new(Arc::clone(graph), DoParams::DEFAULT);
    let total: f64 = roots
        .iter()
        .map(|&r| {
            let key = SearchKey::new(r, graph).expect("a vertex");
            bfs.reset();
            timed(|| bfs.search(key)).0
        })
        .sum();
    total / roots.len() as f64
}

/// Mean seconds of a delta-stepping search from each root.
fn sssp_mean(graph: &Arc<WeightedCsr>, roots: &[u64]) -> f64 {
    let mut sssp = DeltaStepping::new(Arc::clone(graph), SsspParams::DEFAULT);
    let total: f64 = roots
        .iter()
        .map(|&r| {
            sssp.reset();
            timed(|| sssp.search(u32::try_from(r).expect("a vertex"))).0
        })
        .sum();
    total / roots.len() as f64
}

/// Seconds to write one search's parents (from `root` in `graph`, whose
/// vertex `new_id[v]` is the original `v`) in the original labels, into an
/// array allocated beforehand, as a relabelling kernel would at the end of
/// its timed search: two gathers a vertex.
fn translate_seconds(graph: &Arc<Csr>, new_id: &[u32], root: u64) -> f64 {
    let mut old_id = vec![0u32; new_id.len()];
    for (v, &to) in new_id.iter().enumerate() {
        old_id[to as usize] = id(v);
    }
    let mut bfs = DoBfs::new(Arc::clone(graph), DoParams::DEFAULT);
    bfs.search(SearchKey::new(root, graph).expect("a vertex"));
    let slots = bfs.parents().slots();
    let mut out = vec![u32::MAX; new_id.len()];
    timed(|| {
        out.par_iter_mut()
            .zip(new_id.par_iter())
            .with_min_len(1 << 14)
            .for_each(|(o, &to)| {
                let p = slots[to as usize].load(std::sync::atomic::Ordering::Relaxed);
                *o = old_id.get(p as usize).copied().unwrap_or(u32::MAX);
            })
    })
    .0
}

/// The weighted graph split at the default delta, and the same renumbered
/// by degree as kernel 1 does for kernel 3 (`WeightedCsr::relabelled_on`),
/// with the seconds of each step (the split in place, the renumbering with
/// its split) as medians of `rounds`.
fn weighted(
    n: usize,
    edges: &[Edge],
    weights: &[f32],
    rounds: usize,
) -> (Arc<WeightedCsr>, Arc<WeightedCsr>, f64, f64) {
    let built = WeightedCsr::build(n, edges, weights);
    let delta = SsspParams::DEFAULT.delta();
    let (mut split_s, mut relabel_s) = (Vec::new(), Vec::new());
    let (mut split, mut relabelled) = (None, None);
    for _ in 0..rounds.max(1) {
        let mut w = built.clone();
        split_s.push(timed(|| w.split_light(delta)).0);
        split = Some(w);
        let (s, r) = timed(|| built.relabelled_on(Backend::Rayon, delta));
        relabel_s.push(s);
        relabelled = Some(r);
    }
    (
        Arc::new(split.expect("a round")),
        Arc::new(relabelled.expect("a round")),
        median(split_s),
        median(relabel_s),
    )
}

fn main() {
    let run = BenchRun::from_env();
    let (scale, keys, rounds) = (run.scale, run.keys, run.rounds);
    let (generator, rule) = run.spec.build().expect("a scale one process holds");
    let edges: EdgeList = generator.generate();
    let weights = generate_weights(&*generator, 0..generator.num_blocks(), &|| ());
    let n = edges.num_vertices();

    let (build, graph) = timed(|| Csr::from_edge_list(&edges));
    let graph = Arc::new(graph);
    let (order, new_id) = timed(|| degree_order(&graph));
    let (gather, renumbered) = timed(|| renumber(edges.edges(), &new_id));
    let relabelled = Arc::new(Csr::build(n, &renumbered));
    let hubs = env("GRAPH500_RELABEL_HUBS", n / 64);
    let partial_id = hubs_first(&graph, hubs);
    let partial = Arc::new(Csr::build(n, &renumber(edges.edges(), &partial_id)));

    let roots: Vec<u64> = rule
        .choose(&graph, keys)
        .expect("keys")
        .iter()
        .map(|k| k.id())
        .collect();
    let new_roots = rename(&roots, &new_id);
    let partial_roots = rename(&roots, &partial_id);
    let translate = translate_seconds(&relabelled, &new_id, new_roots[0]);
    let (plain_w, relabelled_w, split_s, relabel_s) = weighted(n, edges.edges(), &weights, rounds);

    let mut rows: [Vec<f64>; 5] = Default::default();
    for _ in 0..rounds {
        rows[0].push(bfs_mean(&graph, &roots));
        rows[1].push(bfs_mean(&relabelled, &new_roots));
        rows[4].push(bfs_mean(&partial, &partial_roots));
        rows[2].push(sssp_mean(&plain_w, &roots));
        rows[3].push(sssp_mean(&relabelled_w, &roots));
    }
    let m: Vec<f64> = rows.into_iter().map(median).collect();
    println!(
        "relabel: SCALE {scale}, {keys} keys, {} threads, medians of {rounds} rounds",
        rayon::current_num_threads()
    );
    println!("| kernel | as generated (s) | by degree (s) | gain |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| bfs, mean | {:.6} | {:.6} | {:.3}x |",
        m[0],
        m[1],
        m[0] / m[1]
    );
    println!(
        "| bfs, {hubs} hubs first | {:.6} | {:.6} | {:.3}x |",
        m[0],
        m[4],
        m[0] / m[4]
    );
    println!(
        "| sssp (kernel 1's relabelled_on, parents translated back), mean | {:.6} | {:.6} | {:.3}x |",
        m[2],
        m[3],
        m[2] / m[3]
    );
    println!(
        "kernel 1 {build:.4} s; the relabelling would add: order {order:.4} s, renumbered tuples {gather:.4} s, parents back {translate:.4} s a search"
    );
    println!(
        "kernel 3's graph: split in place {split_s:.4} s, renumbered by degree class and split (relabelled_on) {relabel_s:.4} s"
    );
}
