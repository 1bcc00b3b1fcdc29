//! `harness`: what a Graph500 run is, independent of any command line.
//!
//! - [`Plan`]: what to run, decided once: the graph's source
//!   ([`GraphSource`]: a generator or a file), the number of search keys,
//!   the kernels as a list of [`Pass`]es, validation and tracing.
//! - [`drive`]: the one Graph500 sequence (budget, load, kernel 1, keys,
//!   then each pass over every key), for any [`Engine`]: [`run`] drives
//!   one process ([`OneProcess`]), [`run_distributed`] the ranks of a
//!   [`dist::Comm`] (MPI, or ranks as threads).
//! - [`search_all`]: the one search loop, generic over the kernel
//!   ([`Searcher`]) and its independent check ([`Checker`]): per key a
//!   reset, a timed search, its nedge and a timed validation. Every
//!   command and test that runs searches runs them through it.
//! - [`pass`]: each kernel's adapters (searchers and checkers per engine)
//!   and its memory need.
//! - [`ranked`]: one search of a file over the ranks (`graph500 bfs` and
//!   `graph500 sssp` under mpirun), rank 0 holding the whole answer.
//! - [`Observer`]: how a caller watches a run (progress bars, logs) and
//!   stops it between steps (Ctrl-C); the harness itself never prints.
//! - [`stats`] and [`block`]: the reference code's statistics and its
//!   official output block, byte for byte, with C's `%g`.
//! - [`report`]: the one JSON schema of runs, sweeps and profiles, written
//!   and read back typed.
//! - [`budget`] and [`system`]: a command's peak memory, summed from what
//!   each library says its part needs, against what the OS has.
//! - [`alloc_count`]: the counting global allocator of `graph500 profile`
//!   and of the tests that hold searches to allocating nothing.
//!
//! The command line (`src/main.rs`, `src/cli/`) turns options into a
//! [`Plan`], runs it and prints; nothing here knows about clap.

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

pub mod alloc_count;
pub mod block;
pub mod budget;
mod engine;
mod error;
mod observe;
pub mod pass;
mod plan;
pub mod ranked;
pub mod report;
mod searches;
pub mod stats;
pub mod system;

pub use engine::one::{BLOCK_ORDER_MIN_KEYS, OneGraph, OneProcess, memory_estimate};
pub use engine::ranks::{rank_memory_estimate, run_distributed};
pub use engine::{Engine, Loaded, Measured, Outcome, PassResult, RankFigures, TupleOrder, drive};
pub use error::Error;
pub use observe::{Event, Observer, Silent};
pub use pass::Pass;
pub use pass::bfs::{BfsChecker, BfsSearcher};
pub use plan::{GeneratorKind, GeneratorSpec, GraphSource, KeyRule, Memory, Partitioning, Plan};
pub use searches::{
    Checker, Failure, InvalidSearch, PassOutput, Prepared, Searcher, Searches, Searching,
    on_pool_worker, search_all, timed,
};

/// Runs the benchmark that `plan` describes in this process. Errors are
/// bad input (unreadable file, too few keys), too little memory, or a stop
/// request.
pub fn run(plan: &Plan, observer: &dyn Observer) -> Result<Outcome, Error> {
    drive(&mut OneProcess::new(), plan, observer)
}
