//! Grid kernel 1: `GridGraph`, one rank's cell of the adjacency matrix.
//!
//! Every tuple `(a, b)` that is not a self-loop becomes two arcs, `(a, b)`
//! and `(b, a)`; arc `(u, v)` goes to the rank at `(row of u, column of
//! v)` ([`Grid::cell`]), packed as `[u, v]` (`2 w` bytes), in one
//! all-to-all over the whole communicator. The receiver counting-sorts its
//! arcs by [`Grid::column_local`] of `v`: a CSC over column block `j`
//! whose entries are the `u` (global ids) of row block `i`. The order
//! within a column is source rank, then tuple: fixed for a given `P`. The
//! same arcs are kept by row too (CSR over [`Grid::row_local`], entries
//! the `v`), for the bottom-up step.
//!
//! Memory per rank: `8 (N / C + 1) + 8 (C piece + 1)` bytes of offsets
//! and `2 w` bytes per arc (both orientations), plus the received `2 w` bytes per arc while sorting (one round;
//! the 1-D build's bounded rounds are the next step).

use super::Grid;
use crate::Id;
use crate::comm::{Comm, exchange};
use crate::route::{Sends, route};
use generator::Tuple;

/// One rank's cell: for each `v` of its column block, the `u` of its row
/// block adjacent to it.
#[derive(Debug)]
pub struct GridGraph<I> {
    grid: Grid,
    rank: usize,
    offsets: Vec<usize>,
    targets: Vec<I>,
    /// The same arcs by row (CSR over the row block, indexed by
    /// [`Grid::row_local`]): for each `u`, the `v` adjacent to it.
    row_offsets: Vec<usize>,
    sources: Vec<I>,
}

impl<I: Id> GridGraph<I> {
    /// Kernel 1 over the grid: each rank passes its share of the tuples.
    /// Collective.
    pub fn build<T: Tuple>(comm: &dyn Comm, grid: Grid, tuples: &[T]) -> Self {
        assert_eq!(comm.size(), grid.ranks(), "the grid is the communicator's");
        let out = route(tuples, grid.ranks(), |t| {
            let (a, b) = t.ends();
            if a == b {
                return Sends::none();
            }
            let (ia, ib) = (I::from_u64(a), I::from_u64(b));
            Sends::two(grid.cell(a, b), [ia, ib], grid.cell(b, a), [ib, ia])
        });
        let (arcs, _) = exchange(comm, &out.items, &out.counts);
        drop(out);
        let rank = comm.rank();
        let (_, j) = grid.coords(rank);
        let range = grid.column_range(j);
        let columns = usize::try_from(range.end - range.start).expect("fits memory");
        let mut offsets = vec![0usize; columns + 1];
        for &[_, v] in &arcs {
            offsets[grid.column_local(v.to_u64()) + 1] += 1;
        }
        for c in 0..columns {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![I::default(); arcs.len()];
        for &[u, v] in &arcs {
            let c = grid.column_local(v.to_u64());
            targets[fill[c]] = u;
            fill[c] += 1;
        }
        let rows = grid.row_len();
        let mut row_offsets = vec![0usize; rows + 1];
        for &[u, _] in &arcs {
            row_offsets[grid.row_local(u.to_u64()) + 1] += 1;
        }
        for k in 0..rows {
            row_offsets[k + 1] += row_offsets[k];
        }
        let mut fill = row_offsets.clone();
        let mut sources = vec![I::default(); arcs.len()];
        for &[u, v] in &arcs {
            let k = grid.row_local(u.to_u64());
            sources[fill[k]] = v;
            fill[k] += 1;
        }
        GridGraph {
            grid,
            rank,
            offsets,
            targets,
            row_offsets,
            sources,
        }
    }
}

impl<I: Id> GridGraph<I> {
    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The first id of this rank's column block.
    pub fn first_column(&self) -> u64 {
        self.grid.column_range(self.grid.coords(self.rank).1).start
    }

    /// The number of columns (the vertices of the column block).
    pub fn num_columns(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The arcs of the cell.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// The `u` adjacent to the column block's `column`-th vertex, within
    /// this rank's row block.
    #[inline]
    pub fn neighbors(&self, column: usize) -> &[I] {
        &self.targets[self.offsets[column]..self.offsets[column + 1]]
    }

    /// The `v` of this rank's column block adjacent to the row block's
    /// vertex at index `row` ([`Grid::row_local`]).
    #[inline]
    pub fn sources(&self, row: usize) -> &[I] {
        &self.sources[self.row_offsets[row]..self.row_offsets[row + 1]]
    }
}
