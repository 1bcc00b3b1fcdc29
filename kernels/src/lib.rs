//! graph500's kernels: kernel 1 builds a [`Csr`] from an edge list, kernel 2
//! runs breadth-first searches over it.
//!
//! - [`Csr`]: compressed sparse rows, both directions of every edge,
//!   self-loops dropped, duplicates kept; `u32` vertex ids, `u64` offsets.
//!   Built in parallel by propagation blocking, with no atomics (see
//!   `csr.rs`).
//! - [`Bfs`]: one search engine per run. It holds the graph through an
//!   [`Arc`] (shared, never copied) and its per-search arrays
//!   ([`Parents`], [`Frontier`]), allocated once and reset between searches.
//! - [`Kernel`] names the engines: [`SeqBfs`], a sequential queue search (the
//!   baseline); the level-synchronous parallel search, which claims
//!   vertices by compare-and-swap and writes parents in place, on rayon
//!   ([`ParBfs`]) or [`par`] futures and pipes ([`PipesBfs`]); and the
//!   direction-optimizing [`DoBfs`].
//! - [`Backend`]: what runs a kernel's parallel loops, rayon or `par`,
//!   chosen per engine (`X::on(backend, ..)`, [`Kernel::engine_on`]) for
//!   kernel 1, `par`, `dobfs` and kernel 3 ([`DeltaStepping`]) alike. Each
//!   kernel writes its loops once, against one helper (`loops.rs`);
//!   `Backend` itself is `par`'s, re-exported here.
//! - [`par`]: one-shot pipes, futures on a persistent pool, `map`; the
//!   `graph500-par` crate (`kernels/par/`), re-exported here.
//! - [`choose_search_keys`] draws the benchmark's roots from a seed stream;
//!   [`choose_reference_search_keys`] picks them by the reference code's rule.

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

mod bfs_do;
mod bfs_par;
mod bfs_pipes;
mod bfs_seq;
mod bins;
mod bitmap;
mod csr;
mod error;
mod frontier;
mod hubs;
mod keys;
mod loops;
mod parents;
mod sssp_delta;
mod trace;
mod weighted;

pub use bfs_do::{DoBfs, DoParams, bottom_up_grain};
pub use bfs_par::ParBfs;
pub use bfs_pipes::{PipesBfs, Sharing};
pub use bfs_seq::SeqBfs;
pub use bins::{Bins, EXACT_BUCKETS, bucket_of};
pub use bitmap::{Bitmap, BitmapView};

pub use csr::{Csr, Offsets, prefault};
pub use error::Error;
pub use frontier::{Frontier, LocalBuffer};
pub use generator::Vertex;
pub use hubs::{HUB_SAMPLE, alone_with, degree_class, hub_of};
pub use keys::{
    Eligible, SearchKey, choose_keys_among, choose_reference_keys_among,
    choose_reference_search_keys, choose_search_keys,
};
pub use par;
pub use par::Backend;
pub use parents::{NO_LEVEL, NO_PARENT, Parents};
pub use sssp_delta::{
    BucketStep, Cost as SsspCost, DEFAULT_DELTA, DeltaStepping, SsspParams, SsspStats,
};
pub use trace::{Direction, MAX_STEPS, Step, StepLog};
pub use weighted::{Labels, WeightedArc, WeightedCsr};

use std::sync::Arc;

/// What one search found, as the kernel saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Vertices reached, the root included.
    pub reached: u64,
    /// The largest BFS level reached (the root is level 0).
    pub depth: u32,
}

/// A breadth-first search engine bound to one graph.
///
/// Usage per search: [`reset`](Bfs::reset) (untimed, like the reference
/// code's `clean_pred`), then [`search`](Bfs::search) (timed), then read
/// [`parents`](Bfs::parents).
pub trait Bfs: Send {
    /// Clears the per-search state. O(N), parallel.
    fn reset(&mut self);
    /// Searches from `root`, filling [`parents`](Bfs::parents): the root is
    /// its own parent, unreached vertices have none. Each kernel states what
    /// it allocates; `seq`, `par` on rayon and `dobfs` on either backend
    /// allocate nothing.
    fn search(&mut self, root: SearchKey) -> SearchStats;
    /// The parent array of the last search.
    fn parents(&self) -> &Parents;

    /// The levels of the last search, for kernels that record them (`dobfs`
    /// and `par` on rayon); empty otherwise.
    fn steps(&self) -> &[Step] {
        &[]
    }

    /// Asks for complete traces, at some cost in speed (`dobfs` then counts
    /// the entries its bottom-up steps read). Off by default.
    fn set_tracing(&mut self, _on: bool) {}
}

/// The BFS kernels, by name; the [`Backend`] is chosen with the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// [`SeqBfs`]: one thread, a FIFO queue.
    Seq,
    /// Level-synchronous, parallel over each level's frontier: [`ParBfs`] on
    /// rayon, [`PipesBfs`] (sharing [`Sharing::ArcInPlace`]) on pipes.
    Par,
    /// [`DoBfs`]: direction-optimizing (top-down and bottom-up steps).
    Dobfs(DoParams),
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 3] = [Kernel::Seq, Kernel::Par, Kernel::Dobfs(DoParams::DEFAULT)];

    /// Every kernel on every backend it runs on (`seq`, which has no
    /// parallel loop, on rayon only).
    pub const ENGINES: [(Kernel, Backend); 5] = [
        (Kernel::Seq, Backend::Rayon),
        (Kernel::Par, Backend::Rayon),
        (Kernel::Par, Backend::Pipes),
        (Kernel::Dobfs(DoParams::DEFAULT), Backend::Rayon),
        (Kernel::Dobfs(DoParams::DEFAULT), Backend::Pipes),
    ];

    /// The kernel's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Seq => "seq",
            Kernel::Par => "par",
            Kernel::Dobfs(_) => "dobfs",
        }
    }

    /// Whether the kernel runs on a [`Backend`] (all but `seq`).
    pub fn is_parallel(self) -> bool {
        self != Kernel::Seq
    }

    /// The kernel and its backend as reports name them: `seq`,
    /// `par/pipes`, `dobfs/rayon`.
    pub fn label(self, backend: Backend) -> String {
        if self.is_parallel() {
            format!("{}/{}", self.name(), backend.name())
        } else {
            self.name().to_string()
        }
    }

    /// Bytes of the per-search arrays of this kernel's engine for a graph of
    /// `num_vertices` vertices (what [`Kernel::engine`] allocates): the
    /// parent array and the queue, 4 bytes per vertex each, plus for `dobfs`
    /// four bitmaps of one bit per vertex and its claimed levels, a byte per
    /// vertex ([`Parents::with_levels`]).
    pub fn engine_bytes(self, num_vertices: u64) -> u64 {
        let parents_and_queue = 8 * num_vertices;
        match self {
            Kernel::Seq | Kernel::Par => parents_and_queue,
            Kernel::Dobfs(_) => {
                parents_and_queue + 4 * num_vertices.div_ceil(64) * 8 + num_vertices
            }
        }
    }

    /// A search engine of this kind for `graph` on rayon:
    /// [`Kernel::engine_on`] with [`Backend::Rayon`].
    pub fn engine(self, graph: Arc<Csr>) -> Box<dyn Bfs> {
        self.engine_on(Backend::Rayon, graph)
    }

    /// A search engine of this kind for `graph`, its parallel steps on
    /// `backend` (`seq` has none); allocates its per-search arrays (O(N))
    /// now, once ([`Kernel::engine_bytes`]).
    pub fn engine_on(self, backend: Backend, graph: Arc<Csr>) -> Box<dyn Bfs> {
        match (self, backend) {
            (Kernel::Seq, _) => Box::new(SeqBfs::new(graph)),
            (Kernel::Par, Backend::Rayon) => Box::new(ParBfs::new(graph)),
            (Kernel::Par, Backend::Pipes) => Box::new(PipesBfs::new(graph, Sharing::ArcInPlace)),
            (Kernel::Dobfs(params), backend) => Box::new(DoBfs::on(backend, graph, params)),
        }
    }
}

impl std::fmt::Display for Kernel {
    /// `seq`, `par` or `dobfs`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
