//! Every timed phase of a run beside its floor (`shared/floors.rs`): kernel
//! 1, the BFS, its validation and kernel 3, each as a multiple of the least
//! memory traffic its job needs, on this machine, in one alternating run.
//!
//! The phases are timed by the harness itself (`harness::run`, the code
//! and defaults of `graph500 --scale S --keys K`, and `--sssp
//! --no-validate` for kernel 3), so their figures are the run's own; the
//! floors use the same graph, weights and keys, built here untimed. Each
//! round runs the two plans, then every floor; the table gives medians of
//! the rounds' means.
//!
//! Run: `cargo bench --bench floors`. Environment: `GRAPH500_BENCH_SCALE`
//! (default 18), `GRAPH500_BENCH_KEYS` (16), `GRAPH500_BENCH_ROUNDS` (3),
//! `RAYON_NUM_THREADS` (the threads of both).

#![allow(clippy::print_stdout)]

#[path = "shared/run_env.rs"]
mod run_env;

#[path = "shared/floors.rs"]
mod floors;

use floors::{BfsFloor, SsspFloor, read_parents, stream_tuples};
use generator::generate_weights;
use harness::report::SearchRecord;
use harness::{GraphSource, Outcome, Pass, Plan, Silent};
use kernels::{Csr, SsspParams, WeightedCsr};
use run_env::{BenchRun, median};
use std::hint::black_box;
use std::time::Instant;

/// Seconds `f` takes.
fn seconds<R>(f: impl FnOnce() -> R) -> f64 {
    let start = Instant::now();
    black_box(f());
    start.elapsed().as_secs_f64()
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// The records of `plan`'s run of `kernel`, and its kernel 1 time.
fn run(plan: &Plan, kernel: &str) -> (f64, Vec<SearchRecord>) {
    match harness::run(plan, &Silent).expect("the run") {
        Outcome::Valid(m) => (
            m.construction_time,
            m.searches(kernel).expect("searched").to_vec(),
        ),
        Outcome::Invalid(e) => panic!("a search failed validation: {e:?}"),
    }
}

fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn main() {
    let BenchRun {
        scale,
        keys,
        rounds,
        spec,
    } = BenchRun::from_env();
    let mut bfs_plan = Plan::new(GraphSource::Generated(spec));
    bfs_plan.keys = keys;
    let mut sssp_plan = bfs_plan.clone();
    sssp_plan.passes = vec![Pass::Sssp(SsspParams::DEFAULT)];
    sssp_plan.validate = false;

    // The run's graph, weights and keys, for the floors.
    let (generator, rule) = spec.build().expect("a scale one process holds");
    let edges = generator.generate();
    let weights = generate_weights(&*generator, 0..generator.num_blocks(), &|| ());
    let n = edges.num_vertices();
    let graph = Csr::from_edge_list(&edges);
    let weighted = WeightedCsr::build(n, edges.edges(), &weights);
    let roots: Vec<u32> = rule
        .choose(&graph, keys)
        .expect("keys")
        .iter()
        .map(|k| u32::try_from(k.id()).expect("a 32-bit id"))
        .collect();
    let bfs_floors: Vec<BfsFloor> = roots.iter().map(|&r| BfsFloor::new(&graph, r)).collect();
    let sssp_floors: Vec<SsspFloor> = roots
        .iter()
        .map(|&r| SsspFloor::new(&weighted, r))
        .collect();
    let lanes = validate::batch::LANES as f64;

    let mut rows: [Vec<f64>; 8] = Default::default();
    for _ in 0..rounds {
        let (kernel1, bfs) = run(&bfs_plan, "bfs");
        let (_, sssp) = run(&sssp_plan, "sssp");
        rows[0].push(kernel1);
        rows[1].push(seconds(|| floors::construct(edges.edges())));
        rows[2].push(mean(bfs.iter().map(|r| r.time)));
        rows[3].push(mean(bfs_floors.iter().map(|f| seconds(|| f.run(&graph)))));
        rows[4].push(mean(
            bfs.iter().map(|r| r.validate_time.expect("validated")),
        ));
        let stream = seconds(|| stream_tuples(edges.edges()));
        let tree = mean(
            bfs_floors
                .iter()
                .map(|f| seconds(|| read_parents(&f.tree, &f.depth))),
        );
        rows[5].push(tree + stream / lanes);
        rows[6].push(mean(sssp.iter().map(|r| r.time)));
        rows[7].push(mean(
            sssp_floors.iter().map(|f| seconds(|| f.run(&weighted))),
        ));
    }
    let m: Vec<f64> = rows.into_iter().map(median).collect();
    let bfs_bytes = mean(bfs_floors.iter().map(|f| f.bytes as f64));
    let sssp_bytes = mean(sssp_floors.iter().map(|f| f.bytes as f64));
    println!(
        "floors: SCALE {scale}, {keys} keys, {} threads, {} ({}), medians of {rounds} rounds",
        rayon::current_num_threads(),
        cpu(),
        std::env::consts::ARCH
    );
    println!("| phase | time (s) | floor (s) | multiple | floor's bytes |");
    println!("| --- | --- | --- | --- | --- |");
    let tuples = 8.0 * edges.len() as f64;
    let table = [
        ("kernel 1", m[0], m[1], tuples + 8.0 * edges.len() as f64),
        ("bfs, mean", m[2], m[3], bfs_bytes),
        (
            "validation, mean",
            m[4],
            m[5],
            9.0 * n as f64 + tuples / lanes,
        ),
        ("kernel 3, mean", m[6], m[7], sssp_bytes),
    ];
    for (phase, time, floor, bytes) in table {
        println!(
            "| {phase} | {time:.6} | {floor:.6} | {:.2}x | {:.1} MB |",
            time / floor,
            bytes / 1e6
        );
    }
}
