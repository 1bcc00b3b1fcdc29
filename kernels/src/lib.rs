//! graph500's kernels: kernel 1 builds a [`Csr`] from an edge list, kernel 2
//! runs breadth-first searches over it.
//!
//! - [`Csr`]: compressed sparse rows, both directions of every edge,
//!   self-loops dropped, duplicates kept; `u32` vertex ids, `u64` offsets.
//!   Built in parallel with atomic counters (see `csr.rs`).
//! - [`Bfs`]: one search engine per run. It holds the graph through an
//!   [`Arc`](std::sync::Arc) (shared, never copied) and its per-search arrays
//!   ([`Parents`], [`Frontier`]), allocated once and reset between searches.
//! - [`Kernel`] names the engines: [`SeqBfs`], a sequential queue search (the
//!   baseline), and [`ParBfs`], a level-synchronous parallel search that claims
//!   vertices by compare-and-swap and writes parents in place.
//! - [`choose_search_keys`] draws the benchmark's roots from a seed stream.

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

mod bfs_par;
mod bfs_seq;
mod csr;
mod error;
mod frontier;
mod keys;
mod parents;

pub use bfs_par::ParBfs;
pub use bfs_seq::SeqBfs;
pub use csr::Csr;
pub use error::Error;
pub use frontier::{Frontier, LocalBuffer};
pub use generator::Vertex;
pub use keys::{SearchKey, choose_search_keys};
pub use parents::{NO_PARENT, Parents};

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
    /// its own parent, unreached vertices have none. Allocates nothing.
    fn search(&mut self, root: SearchKey) -> SearchStats;
    /// The parent array of the last search.
    fn parents(&self) -> &Parents;
}

/// The BFS kernels, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// [`SeqBfs`]: one thread, a FIFO queue.
    Seq,
    /// [`ParBfs`]: level-synchronous, parallel over each level's frontier.
    Par,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 2] = [Kernel::Seq, Kernel::Par];

    /// The kernel's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Seq => "seq",
            Kernel::Par => "par",
        }
    }

    /// A search engine of this kind for `graph`; allocates its per-search
    /// arrays (O(N)) now, once.
    pub fn engine(self, graph: Arc<Csr>) -> Box<dyn Bfs> {
        match self {
            Kernel::Seq => Box::new(SeqBfs::new(graph)),
            Kernel::Par => Box::new(ParBfs::new(graph)),
        }
    }
}
