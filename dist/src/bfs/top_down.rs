//! The top-down step of [`DistBfs`]: each rank scans the
//! rows of its queue; a neighbour it owns it claims at once by its visited
//! bit, any other goes to its owner as a `(vertex, parent)` pair, all of
//! the level's pairs in one exchange, and the owner claims those the same
//! way. The claimed vertices become the next queue; the step returns their
//! count and degree sum (the next level's `m_f`), summed over each piece's
//! claimed vertices once its claims are done (summed at each claim, each
//! degree's random read held up the next claim's atomic OR:
//! docs/history-kernels.md, dist-bfs).
//!
//! Invariant: a vertex is claimed once (the atomic OR that set its visited
//! bit; every reached vertex's bit is set: the root's, the bottom-up
//! steps' and these claims'), and its parent and claimed level are written
//! by the claim that won.

use super::{DistBfs, TOP_DOWN_GRAIN, pieces_of};
use crate::Id;
use crate::comm::exchange;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

impl<I: Id> DistBfs<'_, I> {
    /// Claims the neighbours of the queue's vertices: its own at once, the
    /// others' through one exchange, at `level`. Makes the claimed local
    /// vertices the queue; returns how many and their degree sum.
    pub(super) fn top_down_step(&mut self, level: u8) -> (u64, u64) {
        let (graph, parents, visited) = (&*self.graph, &self.parents[..], &self.visited[..]);
        let found = Found {
            parents,
            visited,
            claims: &self.claims,
            level,
        };
        let part = *graph.partition();
        let (rank, first) = (graph.rank(), graph.first());
        // Per piece of the queue: flattened (vertex, parent) pairs per
        // rank, and the vertices claimed here.
        let queue = &self.queue;
        let grain = pieces_of(queue.len(), self.backend.threads(), TOP_DOWN_GRAIN);
        let pieces: Vec<(Vec<Vec<I>>, Vec<usize>, u64)> =
            self.backend.map_ranges(queue.len(), grain, |r| {
                let (mut out, mut won) = (vec![Vec::new(); part.ranks()], Vec::new());
                for &u in &queue[r] {
                    let parent = first + u as u64;
                    for &v in graph.neighbors(u) {
                        let (owner, local) = part.place(v.to_u64());
                        if owner != rank {
                            out[owner].extend([v, I::from_u64(parent)]);
                        } else if found.claim(local, parent) {
                            won.push(local);
                        }
                    }
                }
                let scout = graph.degree_sum(&won);
                (out, won, scout)
            });
        self.send.clear();
        for (r, count) in self.send_counts.iter_mut().enumerate() {
            let before = self.send.len();
            for (out, ..) in &pieces {
                self.send.extend_from_slice(&out[r]);
            }
            *count = self.send.len() - before;
        }
        let (received, _) = exchange(self.comm, &self.send, &self.send_counts);
        let pairs = received.len() / 2;
        let grain = pieces_of(pairs, self.backend.threads(), TOP_DOWN_GRAIN);
        let won_for_others: Vec<(Vec<usize>, u64)> = self.backend.map_ranges(pairs, grain, |r| {
            let mut won = Vec::new();
            for pair in received[2 * r.start..2 * r.end].chunks_exact(2) {
                let u = part.local(pair[0].to_u64());
                if found.claim(u, pair[1].to_u64()) {
                    won.push(u);
                }
            }
            let scout = graph.degree_sum(&won);
            (won, scout)
        });
        self.next_queue.clear();
        let mut scout = 0;
        for (_, won, s) in &pieces {
            self.next_queue.extend_from_slice(won);
            scout += s;
        }
        for (won, s) in &won_for_others {
            self.next_queue.extend_from_slice(won);
            scout += s;
        }
        std::mem::swap(&mut self.queue, &mut self.next_queue);
        (self.queue.len() as u64, scout)
    }
}

/// What a top-down step writes when it finds a vertex.
struct Found<'a> {
    parents: &'a [AtomicU64],
    visited: &'a [AtomicU64],
    claims: &'a [AtomicU8],
    /// The step's level, as claimed.
    level: u8,
}

impl Found<'_> {
    /// Makes `parent` the parent of local vertex `u` if it has none yet,
    /// claims the step's level for it; true if this call did it. The claim
    /// is `u`'s bit in `visited` (a plain load first skips reached
    /// vertices; then one atomic OR on a word that stays in cache, not a
    /// CAS on the parent slot, which misses), and only the OR that set the
    /// bit writes the parent and level, plainly.
    #[inline]
    fn claim(&self, u: usize, parent: u64) -> bool {
        let (word, bit) = (&self.visited[u / 64], 1 << (u % 64));
        if word.load(Relaxed) & bit != 0 || word.fetch_or(bit, Relaxed) & bit != 0 {
            return false;
        }
        self.parents[u].store(parent, Relaxed);
        self.claims[u].store(self.level, Relaxed);
        true
    }
}
