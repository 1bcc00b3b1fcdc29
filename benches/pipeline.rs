//! Criterion benchmarks of the pipeline at SCALE 16: generation (the
//! default generator and the reference one), kernel 1 (also with weights,
//! `construct_weighted`, and that graph's light-first split at the default
//! delta, `split_light`), one search per BFS kernel, one validation (also
//! on the tuples in a blocked order), one SSSP validation (`sssp_validate`, of a Dijkstra
//! search over hashed weights in `[0, 1)`), sixteen validations batched
//! in one pass (`validate_batched_16`, as a run validates), and the floors under any
//! kernel 1, a search and kernel 3 (`shared/floors.rs`) and any single
//! validation (read every tuple and two random cells per tuple).
//!
//! Throughput is reported in edge tuples per second, so the search rows read
//! as (approximately) TEPS. A search is timed like the benchmark times it:
//! the engine's reset runs outside the measured region.
//!
//! Run: `cargo bench --bench pipeline` (add `-- bfs` to run only searches).
//! `GRAPH500_BENCH_SCALE=20 cargo bench --bench pipeline` runs it at another
//! scale (default 16).

#[path = "shared/floors.rs"]
mod floors;
#[path = "shared/weight.rs"]
mod weight;
use weight::bench_weight;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use generator::{DEFAULT_SEED, EdgeGenerator, Kronecker, ReferenceKronecker, SeedStreams};
use kernels::{Csr, DEFAULT_DELTA, Kernel, WeightedCsr, choose_search_keys};
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use validate::{SsspValidator, Validator};

/// The scale of the benchmarks: `GRAPH500_BENCH_SCALE`, or 16.
fn scale() -> u32 {
    std::env::var("GRAPH500_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16)
}

fn pipeline(c: &mut Criterion) {
    let scale = scale();
    let generator =
        Kronecker::new(scale, 16, DEFAULT_SEED).expect("GRAPH500_BENCH_SCALE in 1..=31");
    let edges = generator.generate();
    let graph = Arc::new(Csr::from_edge_list(&edges));
    let root = choose_search_keys(&graph, 1, &mut SeedStreams::new(DEFAULT_SEED).search_keys())
        .expect("a Kronecker graph has keys")[0];

    let mut group = c.benchmark_group(format!("scale{scale}"));
    group.throughput(Throughput::Elements(edges.len() as u64));
    group.bench_function("generate", |b| b.iter(|| generator.generate()));
    let reference = ReferenceKronecker::new(scale, 16).expect("GRAPH500_BENCH_SCALE in 1..=31");
    group.bench_function("generate_graph500", |b| b.iter(|| reference.generate()));
    group.bench_function("construct", |b| b.iter(|| Csr::from_edge_list(&edges)));
    // The floors under kernel 1 and a search (shared/floors.rs); `cargo
    // bench --bench floors` sets every phase beside its floor.
    group.bench_function("construct_floor", |b| {
        b.iter(|| floors::construct(edges.edges()))
    });
    let root32 = u32::try_from(root.id()).expect("a 32-bit id");
    let bfs_floor = floors::BfsFloor::new(&graph, root32);
    group.bench_function("bfs_floor", |b| b.iter(|| bfs_floor.run(&graph)));
    for (kernel, backend) in Kernel::ENGINES {
        let mut engine = kernel.engine_on(backend, Arc::clone(&graph));
        group.bench_function(
            format!("bfs_{}", kernel.label(backend).replace('/', "_")),
            |b| {
                b.iter_custom(|iterations| {
                    let mut searching = Duration::ZERO;
                    for _ in 0..iterations {
                        engine.reset();
                        let start = Instant::now();
                        black_box(engine.search(root));
                        searching += start.elapsed();
                    }
                    searching
                });
            },
        );
    }
    let mut engine = Kernel::Par.engine(Arc::clone(&graph));
    engine.reset();
    engine.search(root);
    let parents = engine.parents().to_i64();
    let mut validator = Validator::new(edges.num_vertices());
    group.bench_function("validate", |b| {
        b.iter(|| validator.validate(&edges, root.id(), &parents, None))
    });
    // The sort a run does before validating many searches, and the same
    // validation on the sorted tuples (docs/design.md, "Block order").
    let n = edges.num_vertices();
    group.bench_function("block_order", |b| {
        b.iter_batched(
            || edges.edges().to_vec(),
            |tuples| validate::TupleBlocks::from_tuples(n, tuples),
            criterion::BatchSize::LargeInput,
        )
    });
    let blocked = validate::TupleBlocks::from_tuples(n, edges.edges().to_vec());
    group.bench_function("validate_blocked", |b| {
        b.iter(|| validator.validate(&blocked, root.id(), &parents, None))
    });
    // Sixteen searches held and judged in one pass, as a run validates
    // them (`validate::Batch`); criterion's time is for all sixteen, so
    // divide by 16 for one search's share.
    let mut batch = validate::Batch::new(n);
    group.bench_function("validate_batched_16", |b| {
        b.iter(|| {
            for _ in 0..validate::batch::LANES {
                batch
                    .hold(&blocked, root.id(), parents.as_slice(), None, None)
                    .expect("a valid tree");
            }
            batch.settle(&blocked)
        })
    });
    // The floor under any validator that reads every tuple: stream the
    // tuples and read two random 2-byte cells each, nothing else.
    let cells: Vec<u16> = parents
        .iter()
        .map(|&p| u16::try_from(p.rem_euclid(1 << 16)).expect("below 2^16"))
        .collect();
    group.bench_function("validate_floor", |b| {
        b.iter(|| {
            edges
                .edges()
                .par_chunks(1 << 14)
                .map(|chunk| {
                    chunk
                        .iter()
                        .map(|e| u64::from(cells[e.u as usize] ^ cells[e.v as usize]))
                        .sum::<u64>()
                })
                .sum::<u64>()
        })
    });
    let weights: Vec<f32> = (0..edges.len() as u64).map(bench_weight).collect();
    // Kernel 1 for kernel 3: the weighted rows, then (on a copy, outside
    // the measured region) the light-first split at the default delta.
    group.bench_function("construct_weighted", |b| {
        b.iter(|| WeightedCsr::build(n, edges.edges(), &weights))
    });
    let weighted = WeightedCsr::build(n, edges.edges(), &weights);
    let sssp_floor = floors::SsspFloor::new(&weighted, root32);
    group.bench_function("sssp_floor", |b| b.iter(|| sssp_floor.run(&weighted)));
    group.bench_function("split_light", |b| {
        b.iter_batched_ref(
            || weighted.clone(),
            |g| g.split_light(DEFAULT_DELTA),
            BatchSize::LargeInput,
        )
    });
    // One SSSP validation: the search is a sequential Dijkstra (outside
    // the measured region), weights a hash of the tuple's position.
    let (sssp_parents, dist) = dijkstra(&edges, &weights, root.id());
    let mut sssp = SsspValidator::new(n);
    group.bench_function("sssp_validate", |b| {
        b.iter(|| {
            let tuples = edges.edges();
            let verdict = sssp.validate(tuples, &weights, root.id(), &sssp_parents, &dist, None);
            verdict.expect("Dijkstra's tree is valid")
        })
    });
    group.finish();
}

/// Shortest paths from `root` in `f32` by Dijkstra over a binary heap:
/// parents (`-1` unreached) and distances (`-1` unreached).
fn dijkstra(edges: &generator::EdgeList, weights: &[f32], root: u64) -> (Vec<i64>, Vec<f32>) {
    use std::cmp::Reverse;
    let n = edges.num_vertices();
    let mut adjacency = vec![Vec::new(); n];
    for (e, &w) in edges.edges().iter().zip(weights) {
        if e.u != e.v {
            adjacency[e.u as usize].push((e.v, w));
            adjacency[e.v as usize].push((e.u, w));
        }
    }
    let root = usize::try_from(root).expect("a vertex");
    let (mut parents, mut dist) = (vec![-1i64; n], vec![f32::INFINITY; n]);
    (parents[root], dist[root]) = (root as i64, 0.0);
    let mut done = vec![false; n];
    // Non-negative f32s order as their bits.
    let mut heap = std::collections::BinaryHeap::from([Reverse((0u32, root))]);
    while let Some(Reverse((_, u))) = heap.pop() {
        if std::mem::replace(&mut done[u], true) {
            continue;
        }
        for &(v, w) in &adjacency[u] {
            let via = dist[u] + w;
            if via < dist[v as usize] {
                (dist[v as usize], parents[v as usize]) = (via, u as i64);
                heap.push(Reverse((via.to_bits(), v as usize)));
            }
        }
    }
    dist.iter_mut()
        .filter(|d| d.is_infinite())
        .for_each(|d| *d = -1.0);
    (parents, dist)
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = pipeline
}
criterion_main!(benches);
