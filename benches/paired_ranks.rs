//! The ranks' BFS kernel beside one process's, search by search in one
//! process: `DistBfs` on one rank ([`Solo`]: its collectives copy and send
//! nothing) and `DoBfs`, on the same graph, the same keys and the same
//! switching parameters, in an order that alternates from root to root and
//! round to round. Both run on rayon's pool (`RAYON_NUM_THREADS`; 1 gives
//! one rank's thread beside one process's).
//!
//! What it shows: the cost of the ranks' code itself, level by level, with
//! no message and no imbalance between ranks: a ratio above 1 is work a
//! rank does that one process does not (docs/history-kernels.md,
//! dist-bfs). Under `mpirun` each rank adds its messages and its wait for
//! the slowest, which `benches/mpi_side_by_side.sh` measures.
//!
//! Run: `cargo bench --bench paired_ranks`. Environment:
//! `GRAPH500_BENCH_SCALE` (default 18), `GRAPH500_BENCH_KEYS` (16),
//! `GRAPH500_BENCH_ROUNDS` (3), `RAYON_NUM_THREADS`, and
//! `GRAPH500_BENCH_ALPHA` (15, one process's: the same for both, so that
//! both take the same steps).

#![allow(clippy::print_stdout)]

#[path = "shared/run_env.rs"]
mod run_env;

use dist::{DistBfs, LocalGraph, Partition, Solo};
use kernels::{Bfs, Csr, Direction, DoBfs, DoParams};
use run_env::{BenchRun, env, median};
use std::sync::Arc;
use std::time::Instant;

/// Levels reported; deeper ones are summed into the last row.
const LEVELS: usize = 8;

/// Seconds and bottom-up steps per level, summed over searches.
#[derive(Clone, Copy, Default)]
struct Level {
    seconds: f64,
    bottom_up: usize,
}

/// Adds a search's steps (direction and seconds) to `levels`.
fn add(levels: &mut [Level], steps: impl Iterator<Item = (Direction, f64)>) {
    for (i, (direction, seconds)) in steps.enumerate() {
        let level = &mut levels[i.min(LEVELS - 1)];
        level.seconds += seconds;
        level.bottom_up += usize::from(direction == Direction::BottomUp);
    }
}

fn main() {
    let run = BenchRun::from_env();
    let (generator, rule) = run.spec.build().expect("a scale one process holds");
    let list = generator.generate();
    let graph = Arc::new(Csr::from_edge_list(&list));
    let roots = rule.choose(&graph, run.keys).expect("keys");
    let part = Partition::new(graph.num_vertices() as u64, 1);
    let rows = Arc::new(LocalGraph::<u32>::build(&Solo, part, list.edges()));
    drop(list);
    let params = DoParams {
        alpha: env("GRAPH500_BENCH_ALPHA", 15) as u64,
        ..DoParams::DEFAULT
    };
    let mut one = DoBfs::new(Arc::clone(&graph), params);
    let mut rank = DistBfs::new(&Solo, rows, params);
    let (mut one_levels, mut rank_levels) =
        ([Level::default(); LEVELS], [Level::default(); LEVELS]);
    let (mut one_total, mut rank_total) = (0.0, 0.0);
    // Each round's time of the ranks' kernel over one process's.
    let mut ratios = Vec::new();
    for round in 0..run.rounds {
        let (one_before, rank_before) = (one_total, rank_total);
        for (k, &root) in roots.iter().enumerate() {
            for turn in 0..2 {
                if (turn + k + round) % 2 == 0 {
                    one.reset();
                    let start = Instant::now();
                    one.search(root);
                    one_total += start.elapsed().as_secs_f64();
                    add(
                        &mut one_levels,
                        one.steps().iter().map(|s| (s.direction, s.seconds)),
                    );
                } else {
                    rank.reset();
                    let start = Instant::now();
                    rank.search(root.id());
                    rank_total += start.elapsed().as_secs_f64();
                    add(
                        &mut rank_levels,
                        rank.steps().iter().map(|s| (s.direction, s.seconds)),
                    );
                }
            }
        }
        ratios.push((rank_total - rank_before) / (one_total - one_before));
    }
    let searches = (run.rounds * roots.len()) as f64;
    let ms = |seconds: f64| 1e3 * seconds / searches;
    println!(
        "paired ranks: SCALE {}, {} keys x {} rounds, {} threads, alpha {}: DistBfs on one rank beside DoBfs",
        run.scale,
        roots.len(),
        run.rounds,
        rayon::current_num_threads(),
        params.alpha,
    );
    println!("| level | one process (ms) | bottom-up | one rank (ms) | bottom-up | rank / one |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for (i, (o, r)) in one_levels.iter().zip(&rank_levels).enumerate() {
        if o.seconds + r.seconds > 0.0 {
            let label = if i + 1 == LEVELS {
                format!("{i}+")
            } else {
                i.to_string()
            };
            println!(
                "| {label} | {:.3} | {} | {:.3} | {} | {:.3} |",
                ms(o.seconds),
                o.bottom_up,
                ms(r.seconds),
                r.bottom_up,
                r.seconds / o.seconds
            );
        }
    }
    println!(
        "| search | {:.3} | | {:.3} | | {:.3} (median of the rounds' {:.3}) |",
        ms(one_total),
        ms(rank_total),
        rank_total / one_total,
        median(ratios)
    );
}
