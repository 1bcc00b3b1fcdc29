//! The two backends (rayon, pipes) on every kernel, alternated inside one
//! process, so both meet the same noise.
//!
//! For each SCALE and thread count T the graph (the default generator and
//! seed, weights a hash of the tuple's position in `[0, 1)`) and the keys
//! are made once. Then, for ROUNDS rounds, each kernel runs on rayon and on
//! pipes back to back, which goes first swapping every round:
//!
//! - `kernel 1`: `Csr::build_on`;
//! - `kernel 1 (weighted)`: `WeightedCsr::build_on`, its `unweighted_on`
//!   copy and `split_light_on` at the default delta, as `--sssp` builds;
//! - `par`, `dobfs`: KEYS searches, their mean (the reset before each
//!   search untimed, as the benchmark does);
//! - `sssp`: KEYS delta-stepping searches at the default delta, their mean.
//!
//! rayon runs on a pool of T threads (`install`: the caller is one of its
//! workers); pipes on a `par` pool of T workers installed on the calling
//! thread, which joins every loop as its first participant (the harness's
//! arrangement). Printed: per kernel, SCALE and T, the median of each
//! backend's time over the rounds (milliseconds), their ratio pipes/rayon
//! (above 1: pipes slower), the median of the per-round ratios, and the
//! ratio of each backend's fastest round (interference from other work on
//! a shared host only ever adds time, so the fastest rounds are the ones
//! it touched least).
//!
//! Run: `cargo bench --bench backends` (SCALE 18, 1 and 2 threads, 5
//! rounds, 16 keys); set `GRAPH500_BENCH_SCALES="18 20 22"`,
//! `GRAPH500_BENCH_THREADS="1 2"`, `GRAPH500_BENCH_ROUNDS`,
//! `GRAPH500_BENCH_KEYS`, and `GRAPH500_BENCH_KERNELS` (names separated by
//! commas, e.g. `dobfs,sssp`) to run only some kernels.
//! `benches/backends.sh` compares whole runs of the binary instead (a
//! process per run, noisier).

// A benchmark program: its table is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "shared/weight.rs"]
mod weight;
use weight::bench_weight;

use generator::{DEFAULT_SEED, EdgeGenerator, Kronecker, SeedStreams};
use harness::stats::Summary;
use kernels::par;
use kernels::{
    Backend, Csr, DEFAULT_DELTA, DeltaStepping, DoParams, Kernel, SearchKey, SsspParams,
    WeightedCsr, choose_search_keys,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// The kernels compared, in the order they are printed.
const KERNELS: [&str; 5] = ["kernel 1", "kernel 1 (weighted)", "par", "dobfs", "sssp"];

fn env_list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split_whitespace()
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("{name}: {s:?} is not a number"))
        })
        .collect()
}

/// Seconds `f` takes.
fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// One SCALE's inputs, shared by every run.
struct Inputs {
    num_vertices: usize,
    edges: generator::EdgeList,
    weights: Vec<f32>,
    graph: Arc<Csr>,
    weighted: Arc<WeightedCsr>,
    keys: Vec<SearchKey>,
}

impl Inputs {
    fn new(scale: u32, keys: usize) -> Inputs {
        let edges = Kronecker::new(scale, 16, DEFAULT_SEED)
            .expect("a scale in 1..=31")
            .generate();
        let n = edges.num_vertices();
        let weights: Vec<f32> = (0..edges.len() as u64).map(bench_weight).collect();
        let graph = Arc::new(Csr::build_on(Backend::Rayon, n, edges.edges()));
        let mut weighted = WeightedCsr::build_on(Backend::Rayon, n, edges.edges(), &weights);
        weighted.split_light_on(Backend::Rayon, DEFAULT_DELTA);
        let mut stream = SeedStreams::new(DEFAULT_SEED).search_keys();
        let keys = choose_search_keys(&graph, keys, &mut stream).expect("a graph with keys");
        Inputs {
            num_vertices: n,
            edges,
            weights,
            graph,
            weighted: Arc::new(weighted),
            keys,
        }
    }

    /// The seconds of `kernel` on `backend` (a mean per search for the
    /// searches), on the current pools.
    fn time(&self, kernel: &str, backend: Backend) -> f64 {
        let (n, tuples) = (self.num_vertices, self.edges.edges());
        match kernel {
            "kernel 1" => seconds(|| {
                black_box(Csr::build_on(backend, n, tuples));
            }),
            "kernel 1 (weighted)" => seconds(|| {
                let mut g = WeightedCsr::build_on(backend, n, tuples, &self.weights);
                black_box(g.unweighted_on(backend));
                g.split_light_on(backend, DEFAULT_DELTA);
                black_box(g);
            }),
            "par" | "dobfs" => {
                let kind = if kernel == "par" {
                    Kernel::Par
                } else {
                    Kernel::Dobfs(DoParams::DEFAULT)
                };
                let mut engine = kind.engine_on(backend, Arc::clone(&self.graph));
                let mut total = 0.0;
                for &key in &self.keys {
                    engine.reset();
                    total += seconds(|| {
                        black_box(engine.search(key));
                    });
                }
                total / self.keys.len() as f64
            }
            "sssp" => {
                let params = SsspParams::new(DEFAULT_DELTA).expect("the default delta");
                let mut engine = DeltaStepping::on(backend, Arc::clone(&self.weighted), params);
                let mut total = 0.0;
                for &key in &self.keys {
                    engine.reset();
                    total += seconds(|| {
                        black_box(engine.search(key.vertex()));
                    });
                }
                total / self.keys.len() as f64
            }
            other => unreachable!("no kernel {other}"),
        }
    }
}

/// The summary of `xs` (not empty), as the run's statistics take it.
fn summary(xs: &[f64]) -> Summary {
    Summary::of(xs).expect("at least one round")
}

fn main() {
    let scales = env_list("GRAPH500_BENCH_SCALES", "18");
    let threads = env_list("GRAPH500_BENCH_THREADS", "1 2");
    let rounds = env_list("GRAPH500_BENCH_ROUNDS", "5")[0];
    let keys = env_list("GRAPH500_BENCH_KEYS", "16")[0];
    let only = std::env::var("GRAPH500_BENCH_KERNELS").unwrap_or_default();
    // (kernel, scale, threads) -> per-round seconds of (rayon, pipes).
    let mut times: BTreeMap<(usize, usize, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for &scale in &scales {
        let inputs = Inputs::new(u32::try_from(scale).expect("a small scale"), keys);
        for &t in &threads {
            // Named, so that a profile tells its workers from the caller.
            let rayon_pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .thread_name(|i| format!("rayon-{i}"))
                .build()
                .expect("a rayon pool");
            par::with_pool(t, || {
                for round in 0..rounds {
                    for (k, kernel) in KERNELS.iter().enumerate() {
                        if !only.is_empty() && !only.split(',').any(|o| o == *kernel) {
                            continue;
                        }
                        let run = |backend| match backend {
                            Backend::Rayon => rayon_pool.install(|| inputs.time(kernel, backend)),
                            Backend::Pipes => inputs.time(kernel, backend),
                        };
                        let (r, p) = if round % 2 == 0 {
                            let r = run(Backend::Rayon);
                            (r, run(Backend::Pipes))
                        } else {
                            let p = run(Backend::Pipes);
                            (run(Backend::Rayon), p)
                        };
                        times.entry((k, scale, t)).or_default().push((r, p));
                    }
                    eprintln!("round {}: SCALE {scale}, {t} threads done", round + 1);
                }
            });
        }
    }
    println!("{keys} keys a search kernel, medians of {rounds} rounds alternated in one process");
    println!();
    println!(
        "| kernel | SCALE | threads | rayon (ms) | pipes (ms) | pipes/rayon | median of round ratios | fastest rounds' ratio |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for ((k, scale, t), pairs) in &times {
        let r = summary(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
        let p = summary(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
        let ratios = summary(&pairs.iter().map(|(r, p)| p / r).collect::<Vec<_>>()).median;
        println!(
            "| {} | {scale} | {t} | {:.3} | {:.3} | {:.3} | {ratios:.3} | {:.3} |",
            KERNELS[*k],
            r.median * 1e3,
            p.median * 1e3,
            p.median / r.median,
            p.min / r.min
        );
    }
}
