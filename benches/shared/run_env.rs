//! What the one-off benches (`floors`, `relabel`) read from the
//! environment, and the medians they report.

use harness::{GeneratorKind, GeneratorSpec};

/// `name` as a number, or `default`.
pub(crate) fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The run a bench measures: `GRAPH500_BENCH_SCALE` (default 18),
/// `GRAPH500_BENCH_KEYS` (16), `GRAPH500_BENCH_ROUNDS` (3), and the
/// generator of `graph500 --scale S` (xoshiro, edgefactor 16, the default
/// seed).
pub(crate) struct BenchRun {
    pub(crate) scale: u32,
    pub(crate) keys: usize,
    pub(crate) rounds: usize,
    pub(crate) spec: GeneratorSpec,
}

impl BenchRun {
    pub(crate) fn from_env() -> Self {
        let scale = u32::try_from(env("GRAPH500_BENCH_SCALE", 18)).expect("a scale");
        BenchRun {
            scale,
            keys: env("GRAPH500_BENCH_KEYS", 16),
            rounds: env("GRAPH500_BENCH_ROUNDS", 3),
            spec: GeneratorSpec {
                kind: GeneratorKind::Xoshiro,
                scale,
                edgefactor: 16,
                seed: None,
            },
        }
    }
}

/// The median of `xs` (the upper one of an even count).
pub(crate) fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
