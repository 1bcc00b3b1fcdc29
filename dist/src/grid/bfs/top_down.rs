//! A top-down grid level's proposals: the frontier's ids all-gathered in
//! the grid column, then each frontier `v` of the column block proposes
//! each neighbour `u` of its column in the cell that this rank has not
//! proposed before.
//!
//! A hub of the column frontier (`grid/hubs.rs`) is not scanned: it is
//! announced to every member of the grid row in the fold, and each owner
//! takes its own neighbours of it from its lists.
//!
//! Invariant: `proposed` (one bit per row-block index) is set exactly for
//! the vertices this rank proposed in this search; a worker claims a bit
//! by `fetch_or`, so each `u` is proposed at most once per rank (which
//! frontier vertex wins may vary between runs, the level may not).

use super::super::{Grid, GridGraph, Group};
use super::fold::Fold;
use crate::Id;
use crate::comm::{Comm, all_gather};
use crate::shares::{claim, each_mut, one_per_thread};
use par::Backend;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Frontier vertices per work item of a top-down scan.
const TOP_DOWN_GRAIN: usize = 256;

/// One thread's part of a top-down scan, kept (`crate::shares`): the
/// proposals it made, `(row-block index, column index of the parent)`,
/// and the hubs it met (column indices).
#[derive(Default)]
struct Share {
    found: Vec<(usize, u64)>,
    met: Vec<usize>,
}

/// The buffers of a top-down level, kept across levels and searches, so
/// that a level allocates nothing once they have grown.
#[derive(Default)]
pub(super) struct TopDown<I> {
    sizes: Vec<u64>,
    counts: Vec<usize>,
    column_frontier: Vec<I>,
    shares: Vec<Mutex<Share>>,
    /// The hubs of the level's column frontier (column indices),
    /// announced instead of scanned.
    hubs: Vec<usize>,
}

impl<I: Id> TopDown<I> {
    /// Expands `frontier` (this rank's part) in `column` and queues this
    /// rank's new proposals on `fold`, and the hubs met to every member of
    /// `row`; returns how many hubs it met.
    pub(super) fn propose(
        &mut self,
        backend: Backend,
        graph: &GridGraph<I>,
        frontier: &[I],
        (column, row): (&Group, &Group),
        proposed: &[AtomicU64],
        fold: &mut Fold,
    ) -> u64 {
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
        let hubs = graph.hubs();
        one_per_thread(&mut self.shares, backend.threads(), Share::default);
        let shares = &self.shares[..];
        backend.for_each_chunk_init(
            column_frontier,
            TOP_DOWN_GRAIN,
            || claim(shares),
            |share, chunk| {
                for &v in chunk {
                    let c = usize::try_from(v.to_u64() - first).expect("fits memory");
                    if hubs.is_hub(c) {
                        share.met.push(c);
                        continue;
                    }
                    for &u in graph.neighbors(c) {
                        let k = grid.row_local(u.to_u64());
                        let bit = 1u64 << (k % 64);
                        if proposed[k / 64].load(Relaxed) & bit == 0
                            && proposed[k / 64].fetch_or(bit, Relaxed) & bit == 0
                        {
                            share.found.push((k, c as u64));
                        }
                    }
                }
            },
        );
        let piece = grid.piece();
        self.hubs.clear();
        for share in each_mut(&mut self.shares) {
            for (k, parent) in share.found.drain(..) {
                fold.push(k / piece, k % piece, parent);
            }
            self.hubs.append(&mut share.met);
        }
        for &c in &self.hubs {
            for to in 0..row.size() {
                fold.announce(to, c as u64);
            }
        }
        self.hubs.len() as u64
    }
}
