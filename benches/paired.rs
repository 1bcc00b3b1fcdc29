//! dobfs's switches compared search by search in one process: the same
//! graph, the same keys and the same engine (its parent array, queue and
//! bitmaps at the same addresses), only [`DoParams`] changed between
//! searches ([`DoBfs::set_params`]).
//!
//! Why: two processes of the same binary can differ by up to 36% in mean
//! search time on these VMs (SCALE 24, AMD EPYC: 112 against 152 ms, the
//! same roots), more than most switches change it, so `benches/ablation.sh`
//! (one process per variant and round) needs many rounds to separate
//! them. Here every root is searched under every variant, in an order that
//! rotates from root to root and round to round, and the ratios are sums
//! of the same searches.
//!
//! Run: `cargo bench --bench paired`. Environment: `GRAPH500_BENCH_SCALE`
//! (default 18), `GRAPH500_BENCH_KEYS` (16), `GRAPH500_BENCH_ROUNDS` (3),
//! `RAYON_NUM_THREADS`. The keys are the benchmark's (`graph500 --scale S
//! --keys K`).

#![allow(clippy::print_stdout)]

#[path = "shared/run_env.rs"]
mod run_env;

use kernels::{Bfs, Csr, DoBfs, DoParams};
use run_env::{BenchRun, median};
use std::sync::Arc;
use std::time::Instant;

/// The variants: `benches/ablation.sh`'s dobfs rows, with alpha 30 beside
/// alpha 60, and Beamer's beta 18 and a larger one beside the default.
fn variants() -> Vec<(&'static str, DoParams)> {
    let d = DoParams::DEFAULT;
    vec![
        ("dobfs (alpha 15, beta 72)", d),
        (
            "no hub tests",
            DoParams {
                ask_hubs: false,
                ..d
            },
        ),
        (
            "scan every vertex",
            DoParams {
                scan_every_vertex: true,
                ..d
            },
        ),
        ("alpha 4 (switch later)", DoParams { alpha: 4, ..d }),
        ("alpha 30 (switch sooner)", DoParams { alpha: 30, ..d }),
        ("alpha 60", DoParams { alpha: 60, ..d }),
        (
            "beta 18 (Beamer's: back top-down sooner)",
            DoParams { beta: 18, ..d },
        ),
        (
            "beta 144 (stay bottom-up longer)",
            DoParams { beta: 144, ..d },
        ),
    ]
}

fn main() {
    let run = BenchRun::from_env();
    let (generator, rule) = run.spec.build().expect("a scale one process holds");
    let graph = Arc::new(Csr::from_edge_list(&generator.generate()));
    let roots = rule.choose(&graph, run.keys).expect("keys");
    let variants = variants();
    let mut engine = DoBfs::new(Arc::clone(&graph), DoParams::DEFAULT);
    // times[variant][round * keys + root]
    let mut times = vec![Vec::new(); variants.len()];
    let mut reached = vec![0; roots.len()];
    for round in 0..run.rounds {
        for (k, &root) in roots.iter().enumerate() {
            for j in 0..variants.len() {
                let i = (j + k + round) % variants.len();
                engine.set_params(variants[i].1);
                engine.reset();
                let start = Instant::now();
                let stats = engine.search(root);
                times[i].push(start.elapsed().as_secs_f64());
                // Every variant reaches the same vertices.
                assert!(
                    reached[k] == 0 || reached[k] == stats.reached,
                    "{}",
                    variants[i].0
                );
                reached[k] = stats.reached;
            }
        }
    }
    println!(
        "paired dobfs: SCALE {}, {} keys x {} rounds, {} threads, one engine",
        run.scale,
        roots.len(),
        run.rounds,
        rayon::current_num_threads(),
    );
    println!(
        "| variant | mean search (ms) | time / dobfs | median of the rounds' | searches faster |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    let base: f64 = times[0].iter().sum();
    let per_round =
        |t: &[f64]| -> Vec<f64> { t.chunks(roots.len()).map(|r| r.iter().sum()).collect() };
    let base_rounds = per_round(&times[0]);
    for ((name, _), t) in variants.iter().zip(&times) {
        let sum: f64 = t.iter().sum();
        let ratios = per_round(t)
            .iter()
            .zip(&base_rounds)
            .map(|(a, b)| a / b)
            .collect();
        let faster = t.iter().zip(&times[0]).filter(|(a, b)| a < b).count();
        println!(
            "| {name} | {:.3} | {:.3} | {:.3} | {faster} of {} |",
            1e3 * sum / t.len() as f64,
            sum / base,
            median(ratios),
            t.len()
        );
    }
}
