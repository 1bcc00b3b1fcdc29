//! `harness`: what a Graph500 run is, independent of any command line.
//!
//! - [`Plan`]: what to run, decided once: the graph's source
//!   ([`GraphSource`]: a generator or a file), the number of search keys,
//!   the kernel, validation and tracing.
//! - [`run()`]: the one run loop. It loads the graph, runs kernel 1, chooses
//!   the keys, then [`search_all`]: per key a reset, a timed search, its
//!   nedge and a timed validation. [`search_all`] is generic over the
//!   kernel ([`Searcher`]) and its independent check ([`Checker`]), so every
//!   command and test that runs searches runs them through it.
//! - [`Observer`]: how a caller watches a run (progress bars, logs) and stops
//!   it between steps (Ctrl-C); the harness itself never prints.
//! - [`stats`] and [`block`]: the reference code's statistics and its
//!   official output block, byte for byte, with C's `%g`.
//! - [`report`]: the one JSON schema of runs, sweeps and profiles, written
//!   and read back typed.
//! - [`run_distributed`]: the same run over the ranks of a [`dist::Comm`]
//!   (MPI, or ranks as threads), through the same [`search_all`].
//! - [`budget`] and [`system`]: a command's peak memory, summed from what
//!   each library says its part needs, against what the OS has.
//!
//! The command line (`src/main.rs`, `src/cli/`) turns options into a
//! [`Plan`], runs it and prints; nothing here knows about clap.

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

pub mod block;
pub mod budget;
mod distributed;
mod error;
mod kernel3;
mod observe;
mod plan;
pub mod report;
mod run;
pub mod stats;
pub mod system;

pub use budget::rank_bytes;
pub use distributed::run_distributed;
pub use error::Error;
pub use observe::{Event, Observer, Silent};
pub use plan::{GeneratorKind, GeneratorSpec, GraphSource, KeyRule, Plan};
pub use run::{
    BLOCK_ORDER_MIN_KEYS, BfsChecker, BfsSearcher, Checker, Failure, InvalidSearch, Measured,
    Outcome, Searcher, Searches, TupleOrder, on_pool_worker, run, run_with, search_all, timed,
};

pub use kernel3::{SsspChecker, SsspEngine, SsspSearcher};

use block::{KernelStatistics, Statistics};
use report::{GraphReport, RunOptions, RunReport};
use stats::Summary;

impl Plan {
    /// The statistics of the official block for `measured`, a run of this
    /// plan with at least one search.
    pub fn statistics(&self, measured: &Measured) -> Statistics {
        let at_least_one = "a run has at least one search";
        let of = |records: &[report::SearchRecord]| {
            let times: Vec<f64> = records.iter().map(|r| r.time).collect();
            let nedges: Vec<f64> = records.iter().map(|r| r.nedge as f64).collect();
            let validate: Option<Vec<f64>> = records.iter().map(|r| r.validate_time).collect();
            let k = KernelStatistics::of(&times, &nedges, validate.as_deref()).expect(at_least_one);
            (k, nedges)
        };
        let (bfs, bfs_nedges) = of(&measured.searches);
        let sssp = measured.sssp_searches.as_deref().map(of);
        // As the reference: in a run of both kernels, the nedge lines are
        // the SSSP searches' (the same roots give the same counts).
        let nedges = sssp.as_ref().map_or(&bfs_nedges, |(_, n)| n);
        let (scale, edgefactor) = match &self.source {
            GraphSource::Generated(g) => (g.scale, g.edgefactor),
            GraphSource::File { .. } => {
                let (m, n) = (measured.num_edges as u64, measured.num_vertices as u64);
                (
                    report::scale_of(measured.num_vertices),
                    (m + n / 2) / n.max(1),
                )
            }
        };
        Statistics {
            scale,
            edgefactor,
            nbfs: measured.searches.len(),
            graph_generation: measured.graph_generation,
            num_mpi_processes: measured
                .mpi
                .as_ref()
                .map_or(1, |m| u32::try_from(m.ranks).unwrap_or(u32::MAX)),
            construction_time: measured.construction_time,
            nedge: Summary::of(nedges).expect(at_least_one),
            bfs,
            sssp: sssp.as_ref().map(|(k, _)| *k),
        }
    }

    /// The options of this plan as a report records them; `threads` is the
    /// worker count the run had.
    pub fn options(&self, threads: usize) -> RunOptions {
        let (generated, file) = match &self.source {
            GraphSource::Generated(g) => (Some(g), None),
            GraphSource::File { path, format, seed } => (None, Some((path, format, *seed))),
        };
        let dobfs = match self.kernel {
            kernels::Kernel::Dobfs(p) => Some(p),
            _ => None,
        };
        RunOptions {
            generator: self.source.generator_name().to_string(),
            scale: generated.map(|g| g.scale),
            edgefactor: generated.map(|g| g.edgefactor),
            seed: generated.map_or(file.map(|f| f.2), GeneratorSpec::seed),
            input: file.map(|f| f.0.display().to_string()),
            format: file.map(|f| f.1.name().to_string()),
            keys: self.keys,
            kernel: self.kernel.name().to_string(),
            backend: Some(self.backend.name().to_string()),
            alpha: dobfs.map(|p| p.alpha),
            beta: dobfs.map(|p| p.beta),
            scan_all: dobfs.map(|p| p.scan_every_vertex),
            hubs: dobfs.map(|p| p.ask_hubs),
            threads,
            validate: self.validate,
            trace: self.trace,
            sssp_delta: self.sssp.map(kernels::SsspParams::delta),
        }
    }

    /// The JSON report of `measured`, a valid run of this plan on `threads`
    /// workers; the peak memory is this process's so far.
    pub fn report(&self, measured: &Measured, threads: usize) -> RunReport {
        RunReport {
            version: env!("CARGO_PKG_VERSION").to_string(),
            machine: system::describe_machine(),
            options: self.options(threads),
            graph: GraphReport {
                num_vertices: measured.num_vertices,
                num_edges: measured.num_edges,
                checksum: format!("{:#018x}", measured.checksum),
                tuple_order: measured.tuple_order.name().to_string(),
                tuple_order_seconds: measured.tuple_order.seconds(),
                validation_lanes: measured.validation_lanes,
                validation_certified: measured.validation_certified,
            },
            statistics: self.statistics(measured),
            searches: measured.searches.clone(),
            sssp_searches: measured.sssp_searches.clone(),
            memory_estimate_bytes: measured.memory_estimate,
            peak_memory_bytes: system::peak_resident_bytes(),
            mpi: measured.mpi.clone(),
        }
    }

    /// Lines of ours after the official block: where the graph came from
    /// (and its seed), for runs the reference could not have made. A run on
    /// the reference generator adds nothing, so its stdout differs from the
    /// reference's only in measured times and TEPS.
    pub fn block_lines(&self) -> Vec<(&'static str, String)> {
        match &self.source {
            GraphSource::Generated(g) => match g.seed() {
                Some(seed) => vec![
                    ("generator", g.kind.name().to_string()),
                    ("seed", seed.to_string()),
                ],
                None => Vec::new(),
            },
            GraphSource::File { .. } => vec![("generator", "file".to_string())],
        }
    }
}
