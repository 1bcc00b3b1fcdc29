//! Each local row's hub, for `DistBfs`'s bottom-up steps: the rule of the
//! single process's hubs (`kernels::hub_of`: the neighbour of highest
//! degree class among a row's first `kernels::HUB_SAMPLE` arcs), over the
//! ranks.
//!
//! In the big middle levels of a small-world graph an unreached vertex
//! almost always has a frontier neighbour, and that neighbour is almost
//! always a high-degree one. A bottom-up step tests the hub's bit of the
//! global frontier before it opens the row: a hit costs a sequential read
//! of this array and a bit of the gathered bitmap, where the row costs its
//! offsets and a cache line of targets from memory.
//!
//! A row's targets live on every rank, so their degrees are not all known
//! here: each rank classes its own rows' degrees (one byte a vertex) and
//! one all-gather of those bytes gives every rank the classes of all `N`
//! vertices, in id order (a rank's vertices are consecutive ids, ranks in
//! order). They are dropped once the hubs are chosen.
//!
//! A row whose every arc leads to its hub (degree 1, or the hub repeated)
//! is marked *alone* in the top bit of its hub entry, as the single
//! process marks it (`kernels` `hubs.rs`): when its hub test fails, its row
//! holds nothing else to test, so the step skips it. The bit is free
//! while `N <= 2^(bits - 1)` for the ids' type; above, no row is marked.
//!
//! The grid's cells keep the same hubs for their rows (`grid/graph.rs`,
//! [`LocalHubs::of_rows`]): a row of a cell holds the arcs of one row-block
//! vertex into the cell's column block, its hub the one of highest class
//! among their first arcs.
//!
//! Invariant: [`LocalHubs::ask`]'s hub is a neighbour (global id) of local
//! row `u`, or, when it has no arcs, `u`'s own global id (1-D: it is never
//! in the frontier when scanned, so the test fails and costs nothing else;
//! the grid never asks for such a row); a marked row has arcs, and all
//! lead to its hub.

use crate::comm::{Comm, all_gather};
use crate::{Id, LocalGraph};
use par::Backend;

/// Rows per work item.
const PIECE: usize = 1 << 14;

/// Each local row's hub (a global id), with the alone mark.
#[derive(Debug)]
pub(crate) struct LocalHubs<I: Id> {
    hubs: Vec<I>,
    /// The mark's bit, or 0 where the ids need every bit.
    mark: u64,
}

impl<I: Id> LocalHubs<I> {
    /// Local row `u`'s hub (global id), and whether every arc of `u` leads
    /// to it, from one read.
    #[inline]
    pub(crate) fn ask(&self, u: usize) -> (u64, bool) {
        let entry = self.hubs[u].to_u64();
        (entry & !self.mark, entry & self.mark != 0)
    }

    /// Rows held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.hubs.len()
    }
}

/// The degree class of every vertex over all ranks, in id order, for
/// [`local_hubs`] and the delegates. Collective: one all-gather of `N`
/// bytes (the caller holds them while it chooses). O(rows).
pub(super) fn degree_classes<I: Id>(
    backend: Backend,
    comm: &dyn Comm,
    graph: &LocalGraph<I>,
) -> Vec<u8> {
    let part = *graph.partition();
    let mine: Vec<u8> = backend
        .map_ranges(graph.num_rows(), PIECE, |r| {
            r.map(|u| kernels::degree_class(graph.degree(u)))
                .collect::<Vec<u8>>()
        })
        .concat();
    let counts: Vec<usize> = (0..comm.size()).map(|r| part.count(r)).collect();
    let mut classes = vec![0u8; counts.iter().sum()];
    all_gather(comm, &mine, &counts, &mut classes);
    classes
}

/// The hubs of `graph`'s rows (global ids), on `backend`, from every
/// vertex's degree class ([`degree_classes`]). O(rows × `HUB_SAMPLE`),
/// reading at most the first lines of each row.
pub(super) fn local_hubs<I: Id>(
    backend: Backend,
    graph: &LocalGraph<I>,
    classes: &[u8],
) -> LocalHubs<I> {
    let first = graph.first();
    // Targets are below N, whose classes are all in memory.
    #[allow(clippy::cast_possible_truncation)]
    let class = |v: I| classes[v.to_u64() as usize];
    LocalHubs::of_rows(
        backend,
        graph.num_rows(),
        graph.partition().num_vertices(),
        |u| graph.neighbors(u),
        class,
        |u| I::from_u64(first + u as u64),
    )
}

impl<I: Id> LocalHubs<I> {
    /// The hubs of `rows` rows of targets (global ids among
    /// `num_vertices`), `row(u)` each, by the targets' degree `class`;
    /// `empty(u)` stands for the hub of a row without arcs. On `backend`,
    /// O(rows × `HUB_SAMPLE`). Shared by the 1-D rows ([`local_hubs`])
    /// and the grid's cells (`grid/graph.rs`).
    pub(crate) fn of_rows<'g>(
        backend: Backend,
        rows: usize,
        num_vertices: u64,
        row: impl Fn(usize) -> &'g [I] + Sync,
        class: impl Fn(I) -> u8 + Sync,
        empty: impl Fn(usize) -> I + Sync,
    ) -> Self
    where
        I: 'g,
    {
        let top = 1u64 << (I::BITS - 1);
        let mark = if num_vertices <= top { top } else { 0 };
        let hubs = backend
            .map_ranges(rows, PIECE, |r| {
                r.map(|u| {
                    let row = row(u);
                    match kernels::hub_of(row, &class) {
                        Some(hub) if kernels::alone_with(row, hub) => {
                            I::from_u64(hub.to_u64() | mark)
                        }
                        Some(hub) => hub,
                        None => empty(u),
                    }
                })
                .collect::<Vec<I>>()
            })
            .concat();
        LocalHubs { hubs, mark }
    }
}
