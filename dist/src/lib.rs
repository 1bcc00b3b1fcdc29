//! graph500 across processes: the same benchmark on P ranks, with the same
//! answers as one process.
//!
//! - [`Comm`]: the collectives the distributed run needs (all-to-all,
//!   all-gather, all-reduce), implemented over MPI (`Mpi`, feature `mpi`),
//!   for one rank ([`Solo`]) and for P ranks as threads of one process
//!   ([`ThreadRanks`], which the tests use).
//! - [`Partition`]: vertices over ranks, 1-D by blocks of consecutive ids.
//! - [`LocalGraph`]: distributed kernel 1; each rank's rows, global ids of
//!   type [`Id`] (`u32`, or `u64` beyond 2^32 vertices);
//!   [`WeightedLocalGraph`], the same rows with each tuple's weight, light
//!   arcs first (kernel 1 for kernel 3).
//! - [`DistBfs`]: distributed kernel 2, direction-optimizing; top-down
//!   steps exchange `(vertex, parent)` pairs, bottom-up steps all-gather
//!   the frontier bitmap.
//! - [`Grid`], [`GridGraph`], [`GridBfs`]: the 2-D engine (issue 32), ranks
//!   in an `R x C` grid each holding one cell of the adjacency matrix;
//!   kernel 1 and a direction-optimizing kernel 2 whose expand and fold
//!   run in grid columns and rows ([`Group`]). Design and traffic model in `grid.rs`.
//! - [`DistSssp`]: distributed kernel 3, delta-stepping; each phase's
//!   relaxations to other ranks go as `(vertex, distance, parent)` offers
//!   in one exchange, buckets and phases agreed on by all-reduces.
//! - [`DistValidator`]: validation of a distributed BFS tree from the input
//!   tuples alone (checks 1-6 of `validate`), independent of the kernels.
//! - [`DistSsspValidator`]: the same for a distributed shortest-path tree
//!   and its distances (kernel 3), from the tuples and their weights.
//!
//! Nothing here prints or exits; every function that takes a [`Comm`] is
//! collective (every rank calls it, in the same order).

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

mod bfs;
mod check;
mod comm;
mod graph;
mod grid;
#[cfg(feature = "mpi")]
mod mpi;
mod partition;
mod route;
mod shares;
mod sssp;
mod sssp_check;

pub use bfs::{BfsIndex, DEFAULT_PARAMS, DistBfs, DistStep, NO_PARENT};
pub use check::DistValidator;
pub use comm::{
    Comm, Reduce, Solo, ThreadRanks, agree, all_gather, all_reduce, exchange, exchange_into,
    exchange_known, exchange_known_into,
};
pub use graph::{LocalGraph, ROUND_TUPLES, RowWord, WeightedLocalGraph};
pub use grid::{Direction as GridDirection, Grid, GridBfs, GridGraph, GridLevel, Group};
#[cfg(feature = "mpi")]
pub use mpi::Mpi;
pub use partition::Partition;
pub use route::{Outbox, Sends, route, route_indexed_into, route_indexed_on, route_into};
pub use sssp::DistSssp;
pub use sssp_check::DistSsspValidator;

/// A global vertex id as the distributed code stores and sends it: `u32`
/// while `N` fits (half the bytes per arc and per message), `u64` beyond.
pub trait Id: bytemuck::Pod + Default + Eq + Send + Sync + std::fmt::Debug + 'static {
    /// Bits of the type.
    const BITS: u32;
    /// The input tuples that go with these ids: [`Edge`](generator::Edge)
    /// for `u32`, [`WideEdge`](generator::WideEdge) for `u64`.
    type Tuple: generator::Tuple;
    /// `v`, which must fit.
    fn from_u64(v: u64) -> Self;
    /// The id as a `u64`.
    fn to_u64(self) -> u64;
}

impl Id for u32 {
    const BITS: u32 = u32::BITS;
    type Tuple = generator::Edge;
    #[inline]
    fn from_u64(v: u64) -> Self {
        debug_assert!(v <= u64::from(u32::MAX));
        // The caller picks u32 only when every id fits.
        #[allow(clippy::cast_possible_truncation)]
        let v = v as u32;
        v
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
}

impl Id for u64 {
    const BITS: u32 = u64::BITS;
    type Tuple = generator::WideEdge;
    #[inline]
    fn from_u64(v: u64) -> Self {
        v
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
}

/// Runs `f` on a rayon pool of `threads` threads: a rank's workers in the
/// tests that run ranks as threads.
#[cfg(test)]
pub(crate) fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(f)
}
