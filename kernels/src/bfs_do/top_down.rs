//! The top-down step of [`DoBfs`], and the conversions
//! between its two frontier forms that a change of direction needs.
//!
//! Idea: each frontier vertex (the queue's window, in chunks of
//! `TOP_DOWN_GRAIN`) scans its row and claims every unreached neighbour
//! ([`claim_neighbors_by`]) by its `visited` bit: a load, then an atomic
//! OR on a bitmap word that stays in cache (1 bit a vertex), not a CAS on
//! a parent slot, which misses and, being a locked instruction, holds up
//! the loads after it. The winner then stores its parent and level
//! plainly, and joins the next window through the worker's
//! [`LocalBuffer`].
//!
//! Invariants: a vertex is claimed once (the OR that set its bit), by a
//! vertex of the previous level, and only its claimer writes its parent
//! and level; `visited` holds every claimed vertex by the end of the
//! step, so the next bottom-up step skips them; the step returns the
//! degree sum of the vertices it claimed (`m_f` for the switch).

use super::{
    BOTTOM_UP_GRAIN, CLEAR_GRAIN, DoBfs, Parallel, QUEUE_GRAIN, Shared, TOP_DOWN_GRAIN,
    first_vertex_of_word,
};
use crate::frontier::{claim_by_bit, claim_neighbors_by};
use crate::{Csr, LocalBuffer, Vertex};
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

impl DoBfs {
    /// Claims the neighbours of the queue's window; returns the degree sum
    /// of the claimed vertices and, when `COUNT`, the adjacency entries read.
    pub(super) fn top_down_step<const COUNT: bool>(&mut self) -> (u64, u64) {
        let len = self.shared.queue.current().len();
        self.run(
            Parallel::TopDown { count: COUNT },
            len,
            top_down_grain(len, self.backend().threads()),
        )
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

/// Frontier vertices per work item of a top-down step over `len` of them
/// on `threads`: [`TOP_DOWN_GRAIN`], or fewer in a window too short to
/// give each worker 16 items. The levels after the root are a few dozen
/// vertices that hold the hubs: in items of 64 they were one or two items,
/// so one worker scanned the hubs' rows while the other waited (such
/// levels took as long on 2 threads as on 1). One thread keeps whole items.
fn top_down_grain(len: usize, threads: usize) -> usize {
    match threads {
        0 | 1 => TOP_DOWN_GRAIN,
        threads => (len / (16 * threads)).clamp(1, TOP_DOWN_GRAIN),
    }
}

/// Vertices claimed per batch of [`Scout`].
const SCOUT_BATCH: usize = 64;

/// The degree sum of the vertices a piece of a top-down step claims (the
/// next level's `m_f`), summed a batch at a time after their claims
/// ([`Csr::degree_sum`]): read at each claim, a degree's random read held
/// up the next claim's atomic OR (docs/history-kernels.md#bfs_do).
struct Scout {
    won: [Vertex; SCOUT_BATCH],
    len: usize,
    sum: u64,
}

impl Default for Scout {
    fn default() -> Self {
        Scout {
            won: [0; SCOUT_BATCH],
            len: 0,
            sum: 0,
        }
    }
}

impl Scout {
    /// Adds `v`, claimed; sums the batch when it is full.
    #[inline]
    fn push(&mut self, graph: &Csr, v: Vertex) {
        self.won[self.len] = v;
        self.len += 1;
        if self.len == SCOUT_BATCH {
            self.sum += graph.degree_sum(&self.won);
            self.len = 0;
        }
    }

    /// The degree sum of every vertex pushed.
    fn sum(self, graph: &Csr) -> u64 {
        self.sum + graph.degree_sum(&self.won[..self.len])
    }
}

impl Shared {
    /// The top-down step for the queue entries `range` of its window.
    pub(super) fn top_down<const COUNT: bool>(
        &self,
        next: &mut LocalBuffer<'_>,
        range: Range<usize>,
    ) -> (u64, u64) {
        let (graph, parents, queue, visited) =
            (&*self.graph, &self.parents, &self.queue, &self.visited);
        let chunk = &queue.current()[range];
        let level = self.discovering.load(Relaxed);
        let mut scout = Scout::default();
        let examined = claim_neighbors_by::<COUNT>(
            graph,
            chunk,
            |v| visited.get(v as usize),
            |v, u| claim_by_bit(visited, parents, v, u),
            |v| {
                parents.record_level(v, level);
                next.push(v);
                scout.push(graph, v);
            },
        );
        (scout.sum(graph), examined)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the balance of the levels after the root: a window of a
    /// hundred vertices on 2 threads is cut into items of a few vertices
    /// (at least 16 items a worker), a long window keeps items of
    /// [`TOP_DOWN_GRAIN`], and one thread keeps whole items.
    #[test]
    fn a_short_top_down_window_gives_every_worker_many_items() {
        for (len, threads) in [(107, 2), (5, 2), (1000, 4), (1, 8)] {
            let grain = top_down_grain(len, threads);
            assert!(grain >= 1, "{len} on {threads}");
            assert!(
                len.div_ceil(grain) >= (16 * threads).min(len),
                "{len} vertices on {threads} threads: items of {grain}"
            );
        }
        assert_eq!(top_down_grain(1 << 20, 2), TOP_DOWN_GRAIN);
        assert_eq!(top_down_grain(107, 1), TOP_DOWN_GRAIN);
    }

    /// Guards the batched scout: the degree sum of every vertex pushed,
    /// across full batches and a partial last one.
    #[test]
    fn scout_sums_the_degrees_of_every_claimed_vertex() {
        let n: u32 = 300;
        let edges = (0..n)
            .flat_map(|u| (1..=u % 5).map(move |k| generator::Edge { u, v: (u + k) % n }))
            .collect();
        let list = generator::EdgeList::new(u64::from(n), edges).unwrap();
        let graph = Csr::from_edge_list(&list);
        for count in [0, 1, SCOUT_BATCH - 1, SCOUT_BATCH, 2 * SCOUT_BATCH + 3] {
            let won: Vec<Vertex> = (0..count as Vertex).map(|i| (i * 7) % n).collect();
            let mut scout = Scout::default();
            won.iter().for_each(|&v| scout.push(&graph, v));
            let plain: u64 = won.iter().map(|&v| graph.degree(v)).sum();
            assert_eq!(scout.sum(&graph), plain, "{count} claimed");
        }
    }
}
