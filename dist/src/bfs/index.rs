//! `BfsIndex`: what kernel 1 adds to a rank's rows for `DistBfs`, as one
//! process's kernel 1 adds each row's hub to its `Csr`: each local row's
//! hub (bottom-up, `hubs.rs`) and the delegates of the graph's hubs
//! (top-down, `delegates.rs`).
//!
//! Built once per graph, inside kernel 1's time when the harness builds it
//! (`Ranks::build`), and shared through an `Arc` by every engine made over
//! the same rows: a search never rebuilds or copies it.
//!
//! Invariant: built over the same rows and ranks as the engines that
//! read it (checked by [`DistBfs::with_index`](super::DistBfs::with_index)).
//!
//! Cost: O(rows x `HUB_SAMPLE` + N / 64 + the rank's arcs), parallel on
//! the backend; collective: one all-gather of `N` degree classes (a byte a
//! vertex) and one all-reduce of 512 counts. Memory: see
//! [`BfsIndex::bytes_for`].

use super::delegates::{self, Delegates};
use super::hubs::{self, LocalHubs};
use crate::comm::Comm;
use crate::{Id, LocalGraph};
use par::Backend;

/// Each local row's hub and the delegates of the graph's hubs.
pub struct BfsIndex<I: Id> {
    pub(super) hubs: LocalHubs<I>,
    pub(super) delegates: Delegates<I>,
    /// The rank and rows it was built over.
    pub(super) rank: usize,
    pub(super) rows: usize,
}

impl<I: Id> BfsIndex<I> {
    /// COLLECTIVE. The index of this rank's `graph` (built over the ranks
    /// of `comm`), its loops on `backend`.
    pub fn build_on(backend: Backend, comm: &dyn Comm, graph: &LocalGraph<I>) -> Self {
        let classes = hubs::degree_classes(backend, comm, graph);
        let hubs = hubs::local_hubs(backend, graph, &classes);
        let delegates = delegates::delegates(backend, comm, graph, &classes);
        BfsIndex {
            hubs,
            delegates,
            rank: comm.rank(),
            rows: graph.num_rows(),
        }
    }

    /// About the most bytes the index of a rank with `rows` vertices and
    /// `arcs` arcs, of `num_vertices` in all, takes: a hub (an id) a row
    /// and, while choosing them, a byte for each of the `N` vertices; the
    /// lists (at most 3/8 of the arcs, `delegates.rs`'s budget,
    /// an id each), the rows' hub words and the hubs' ids.
    pub fn bytes_for(rows: u64, num_vertices: u64, arcs: u64) -> u64 {
        let id = size_of::<I>() as u64;
        let hubs = id * rows + num_vertices;
        let lists = arcs / 8 * delegates::BUDGET_EIGHTHS;
        hubs + id * lists + 2 * rows.div_ceil(8) + 16 * delegates::MAX_HUBS
    }
}
