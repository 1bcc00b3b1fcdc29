//! Grid kernel 2: `GridBfs`, a top-down BFS over the `R x C` grid (the
//! level of the `grid.rs` header: expand in the grid column, propose from
//! the cell, fold in the grid row, agree on the next frontier's size).
//!
//! Invariants: a rank's `parents` are those of the vertices it owns (the
//! 1-D piece `r`, as [`DistBfs`](crate::DistBfs) lays them out), written
//! only by their owner, at the fold, first proposal wins; `proposed`, one
//! bit per row-block index, is set when this rank proposes a vertex and
//! never cleared within a search (a proposed vertex is reached at that
//! level, so proposing it again could only lose). The scan is sequential
//! for now (one worker per rank); the bottom-up step and parallel scans
//! come next.

use super::{Grid, GridGraph};
use crate::comm::{Comm, Reduce, all_gather, all_reduce, exchange};
use crate::{Id, NO_PARENT};
use kernels::SearchStats;
use std::sync::Arc;

/// What one rank saw of one level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridLevel {
    /// This rank's part of the level's frontier.
    pub frontier: u64,
    /// The proposals `(u, parent)` this rank sent to other ranks of its
    /// grid row.
    pub proposals_out: u64,
    /// Bytes this rank sent during the level (as its `Comm` counts them).
    pub bytes: u64,
}

/// A top-down BFS over a [`GridGraph`]; one per rank, reused over roots.
pub struct GridBfs<'c, I: Id> {
    comm: &'c dyn Comm,
    graph: Arc<GridGraph<I>>,
    parents: Vec<u64>,
    proposed: Vec<u64>,
    levels: Vec<GridLevel>,
}

impl<'c, I: Id> GridBfs<'c, I> {
    /// A search over `graph`, this rank's cell.
    pub fn new(comm: &'c dyn Comm, graph: Arc<GridGraph<I>>) -> Self {
        let grid = *graph.grid();
        let owned = grid.partition().count(comm.rank());
        GridBfs {
            comm,
            parents: vec![NO_PARENT; owned],
            proposed: vec![0; grid.row_len().div_ceil(64)],
            levels: Vec::new(),
            graph,
        }
    }

    /// The parents of this rank's vertices (`NO_PARENT` where unreached),
    /// from `partition().first(rank)` on.
    pub fn parents(&self) -> &[u64] {
        &self.parents
    }

    /// What this rank saw of each level of the last search.
    pub fn levels(&self) -> &[GridLevel] {
        &self.levels
    }

    /// Searches from `root`. Collective; every rank passes the same root.
    /// Returns the vertices reached and the depth, over all ranks.
    pub fn search(&mut self, root: u64) -> SearchStats {
        let grid: Grid = *self.graph.grid();
        let comm = self.comm;
        let part = *grid.partition();
        self.parents.fill(NO_PARENT);
        self.proposed.fill(0);
        self.levels.clear();
        let column = grid.column_group(comm);
        let row = grid.row_group(comm);
        let mut frontier: Vec<I> = Vec::new();
        if grid.owner(root) == comm.rank() {
            self.parents[part.local(root)] = root;
            frontier.push(I::from_u64(root));
        }
        let (mut reached, mut depth) = (1u64, 0u32);
        let mut outgoing: Vec<Vec<[I; 2]>> = vec![Vec::new(); row.size()];
        loop {
            let before = comm.bytes_sent();
            // Expand: the frontier of this column block.
            let mut sizes = vec![0u64; column.size()];
            all_gather(
                &column,
                &[frontier.len() as u64],
                &vec![1; column.size()],
                &mut sizes,
            );
            let sizes: Vec<usize> = sizes
                .iter()
                .map(|&s| usize::try_from(s).expect("fits memory"))
                .collect();
            let mut column_frontier = vec![I::default(); sizes.iter().sum()];
            all_gather(&column, &frontier, &sizes, &mut column_frontier);
            // Propose each new u of this row block once.
            for &v in &column_frontier {
                for &u in self.graph.neighbors(grid.column_local(v.to_u64())) {
                    let k = grid.row_local(u.to_u64());
                    let bit = 1u64 << (k % 64);
                    if self.proposed[k / 64] & bit == 0 {
                        self.proposed[k / 64] |= bit;
                        outgoing[grid.owner(u.to_u64()) / grid.rows()].push([u, v]);
                    }
                }
            }
            let counts: Vec<usize> = outgoing.iter().map(Vec::len).collect();
            let proposals_out = (counts.iter().sum::<usize>() - counts[row.rank()]) as u64;
            let send: Vec<[I; 2]> = outgoing.iter().flatten().copied().collect();
            outgoing.iter_mut().for_each(Vec::clear);
            // Fold: owners keep the first proposal for each unreached u.
            let (received, _) = exchange(&row, &send, &counts);
            let mut next = Vec::new();
            for &[u, v] in &received {
                let parent = &mut self.parents[part.local(u.to_u64())];
                if *parent == NO_PARENT {
                    *parent = v.to_u64();
                    next.push(u);
                }
            }
            let level_frontier = frontier.len() as u64;
            frontier = next;
            let [found] = all_reduce(comm, [frontier.len() as u64], Reduce::Sum);
            self.levels.push(GridLevel {
                frontier: level_frontier,
                proposals_out,
                bytes: comm.bytes_sent() - before,
            });
            if found == 0 {
                break;
            }
            reached += found;
            depth += 1;
        }
        SearchStats { reached, depth }
    }
}
