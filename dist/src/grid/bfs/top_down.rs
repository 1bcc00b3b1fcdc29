//! A top-down grid level's proposals: the frontier's ids all-gathered in
//! the grid column, then each frontier `v` of the column block proposes
//! each neighbour `u` of its column in the cell that this rank has not
//! proposed before.
//!
//! Invariant: `proposed` (one bit per row-block index) is set exactly for
//! the vertices this rank proposed in this search; a worker claims a bit
//! by `fetch_or`, so each `u` is proposed at most once per rank (which
//! frontier vertex wins may vary between runs, the level may not).

use super::super::{Grid, GridGraph, Group};
use super::fold::Fold;
use crate::Id;
use crate::comm::{Comm, all_gather};
use par::Backend;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Frontier vertices per work item of a top-down scan.
const TOP_DOWN_GRAIN: usize = 256;

/// The buffers of a top-down level, kept across levels and searches.
#[derive(Default)]
pub(super) struct TopDown<I> {
    sizes: Vec<u64>,
    counts: Vec<usize>,
    column_frontier: Vec<I>,
}

impl<I: Id> TopDown<I> {
    /// Expands `frontier` (this rank's part) in `column` and queues this
    /// rank's new proposals on `fold`.
    pub(super) fn propose(
        &mut self,
        backend: Backend,
        graph: &GridGraph<I>,
        frontier: &[I],
        column: &Group,
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) {
        let grid: Grid = *graph.grid();
        self.sizes.resize(column.size(), 0);
        self.counts.clear();
        self.counts.resize(column.size(), 1);
        all_gather(
            column,
            &[frontier.len() as u64],
            &self.counts,
            &mut self.sizes,
        );
        self.counts.clear();
        (self.counts)
            .extend((self.sizes.iter()).map(|&s| usize::try_from(s).expect("fits memory")));
        let column_frontier = &mut self.column_frontier;
        column_frontier.resize(self.counts.iter().sum(), I::default());
        all_gather(column, frontier, &self.counts, column_frontier);
        let first = graph.first_column();
        let pieces = backend.map_ranges(column_frontier.len(), TOP_DOWN_GRAIN, |range| {
            let mut found = Vec::new();
            for &v in &column_frontier[range] {
                let c = usize::try_from(v.to_u64() - first).expect("fits memory");
                for &u in graph.neighbors(c) {
                    let k = grid.row_local(u.to_u64());
                    let bit = 1u64 << (k % 64);
                    if proposed[k / 64].load(Relaxed) & bit == 0
                        && proposed[k / 64].fetch_or(bit, Relaxed) & bit == 0
                    {
                        found.push((k, c as u64));
                    }
                }
            }
            found
        });
        let piece = grid.piece();
        for (k, parent) in pieces.into_iter().flatten() {
            fold.push(k / piece, k % piece, parent);
        }
    }
}
