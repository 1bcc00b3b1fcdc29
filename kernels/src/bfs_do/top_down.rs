//! The top-down step of [`DoBfs`](super::DoBfs), and the conversions
//! between its two frontier forms that a change of direction needs.
//!
//! Idea: each frontier vertex (the queue's window, in chunks of
//! `TOP_DOWN_GRAIN`) scans its row and claims every unreached neighbour
//! ([`claim_neighbors_by`]) by its `visited` bit: a load, then an atomic
//! OR on a bitmap word that stays in cache (1 bit a vertex), not a CAS on
//! a parent slot, which misses and, being a locked instruction, holds up
//! the loads after it. The winners are held ([`Wins`]) and their parents
//! and levels stored plainly 64 at a time, between claims, so that no
//! claim waits for those stores' misses; they join the next window
//! through the worker's [`LocalBuffer`]. A short window (at most
//! `SPLIT_WINDOW` vertices: the first levels, a few rows of high degree)
//! is cut by arcs instead, `TOP_DOWN_ARC_GRAIN` a work item, so that
//! every worker shares its long rows (docs/history-kernels.md#bfs_do).
//!
//! Invariants: a vertex is claimed once (the OR that set its bit), by a
//! vertex of the previous level, and only its claimer writes its parent
//! and level; `visited` holds every claimed vertex by the end of the
//! step, so the next bottom-up step skips them; the step returns the
//! degree sum of the vertices it claimed (`m_f` for the switch).

use super::{
    BOTTOM_UP_GRAIN, CLEAR_GRAIN, DoBfs, Parallel, QUEUE_GRAIN, SPLIT_WINDOW, Shared,
    TOP_DOWN_ARC_GRAIN, TOP_DOWN_GRAIN, first_vertex_of_word,
};
use crate::frontier::{claim_arcs, claim_neighbors_by};
use crate::{LocalBuffer, Vertex};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

impl DoBfs {
    /// Claims the neighbours of the queue's window; returns the degree sum
    /// of the claimed vertices and, when `COUNT`, the adjacency entries read.
    /// A window of at most [`SPLIT_WINDOW`] vertices is cut by arcs.
    pub(super) fn top_down_step<const COUNT: bool>(&mut self) -> (u64, u64) {
        let len = self.shared.queue.current().len();
        if len <= SPLIT_WINDOW {
            let arcs = self.sum_window_arcs();
            self.run(
                Parallel::TopDownArcs { count: COUNT },
                arcs,
                TOP_DOWN_ARC_GRAIN,
            )
        } else {
            self.run(Parallel::TopDown { count: COUNT }, len, TOP_DOWN_GRAIN)
        }
    }

    /// Fills [`Shared::window_arcs`] for the window (at most
    /// [`SPLIT_WINDOW`] vertices); returns its arcs.
    fn sum_window_arcs(&mut self) -> usize {
        let shared = Arc::get_mut(&mut self.shared).expect("no step runs between steps");
        let mut sum = 0;
        for (i, u) in shared.queue.current().iter().enumerate() {
            sum += shared.graph.neighbors(u.load(Relaxed)).len();
            shared.window_arcs[i + 1] = sum;
        }
        sum
    }

    /// Sets the bits of the queue's window in `front` (after clearing it).
    pub(super) fn queue_to_bitmap(&mut self) {
        let words = self.shared.front.num_words();
        self.run(Parallel::ClearFront, words, CLEAR_GRAIN);
        let len = self.shared.queue.current().len();
        self.run(Parallel::QueueToBitmap, len, QUEUE_GRAIN);
    }

    /// Appends the vertices of `front` to the queue and makes them its window.
    pub(super) fn bitmap_to_queue(&mut self) {
        let words = self.shared.front.num_words();
        self.run(Parallel::BitmapToQueue, words, BOTTOM_UP_GRAIN);
        self.shared.queue.advance();
    }
}

impl Shared {
    /// The top-down step for the queue entries `range` of its window.
    pub(super) fn top_down<const COUNT: bool>(
        &self,
        next: &mut LocalBuffer<'_>,
        range: Range<usize>,
    ) -> (u64, u64) {
        let (graph, queue, visited) = (&*self.graph, &self.queue, &self.visited);
        let chunk = &queue.current()[range];
        let mut wins = Wins::default();
        let mut scout = 0;
        let examined = claim_neighbors_by::<COUNT>(
            graph,
            chunk,
            |v| visited.get(v as usize),
            |v, _| !visited.test_and_set(v as usize),
            |v, u| {
                if wins.hold(v, u) {
                    scout += self.settle(&mut wins, next);
                }
            },
        );
        scout += self.settle(&mut wins, next);
        (scout, examined)
    }

    /// The top-down step for the arcs `arcs` of a short window (numbered
    /// in window order by [`Shared::window_arcs`]): the pieces of the rows
    /// that hold them, claimed as [`Shared::top_down`] claims whole rows.
    pub(super) fn top_down_arcs<const COUNT: bool>(
        &self,
        next: &mut LocalBuffer<'_>,
        arcs: Range<usize>,
    ) -> (u64, u64) {
        let (graph, visited) = (&*self.graph, &self.visited);
        let window = self.queue.current();
        let starts = &self.window_arcs[..=window.len()];
        let mut wins = Wins::default();
        let mut scout = 0;
        let reached = |v: u32| visited.get(v as usize);
        let claim = |v: u32, _| !visited.test_and_set(v as usize);
        let mut won = |v, u| {
            if wins.hold(v, u) {
                scout += self.settle(&mut wins, next);
            }
        };
        let (mut at, end) = (arcs.start, arcs.end);
        // The window vertex whose row holds arc `at` (rows of no arcs skipped).
        let mut i = starts.partition_point(|&s| s <= at) - 1;
        while at < end {
            let u = window[i].load(Relaxed);
            let (from, to) = (at - starts[i], end.min(starts[i + 1]) - starts[i]);
            claim_arcs(u, &graph.neighbors(u)[from..to], &reached, &claim, &mut won);
            at = starts[i + 1];
            i += 1;
        }
        scout += self.settle(&mut wins, next);
        let examined = if COUNT { arcs.len() as u64 } else { 0 };
        (scout, examined)
    }

    /// Stores the parents and levels of the vertices `wins` holds, appends
    /// them to `next`, and returns their degree sum; empties `wins`.
    fn settle(&self, wins: &mut Wins, next: &mut LocalBuffer<'_>) -> u64 {
        let (graph, parents) = (&*self.graph, &self.parents);
        let level = self.discovering.load(Relaxed);
        let mut scout = 0;
        for &(v, u) in &wins.pairs[..wins.len] {
            parents.set(v, u);
            parents.record_level(v, level);
            next.push(v);
            scout += graph.degree(v);
        }
        wins.len = 0;
        scout
    }

    /// Appends the vertices of `front`'s words `words` to `buffer`.
    pub(super) fn bitmap_to_queue(&self, buffer: &mut LocalBuffer<'_>, words: Range<usize>) {
        for w in words {
            let mut bits = self.front.word(w);
            while bits != 0 {
                buffer.push(first_vertex_of_word(w) + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

/// Claimed vertices a top-down work item holds before it settles them.
const WINS: usize = 64;

/// A top-down work item's claimed vertices and their parents, not yet
/// stored. Each claim is a locked OR, and a locked instruction waits for
/// every store before it to reach the cache: a parent and a level stored
/// right after their claim (two far-apart lines, not read before) made
/// the next claim wait for both misses. Held here, they are stored
/// [`WINS`] at a time with no claim between them, so their misses overlap.
struct Wins {
    pairs: [(Vertex, Vertex); WINS],
    len: usize,
}

impl Default for Wins {
    fn default() -> Self {
        Wins {
            pairs: [(0, 0); WINS],
            len: 0,
        }
    }
}

impl Wins {
    /// Holds `v`, claimed for parent `u`; true when full.
    #[inline]
    fn hold(&mut self, v: Vertex, u: Vertex) -> bool {
        self.pairs[self.len] = (v, u);
        self.len += 1;
        self.len == WINS
    }
}
