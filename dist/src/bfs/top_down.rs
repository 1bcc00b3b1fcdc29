//! The top-down step of [`DistBfs`]: each rank scans the
//! rows of its queue; a neighbour it owns it claims at once by CAS on the
//! parent slot, any other goes to its owner as a `(vertex, parent)` pair,
//! all of the level's pairs in one exchange, and the owner claims those by
//! CAS. The claimed vertices become the next queue; the step returns their
//! count and degree sum (the next level's `m_f`).
//!
//! Invariant: a vertex is claimed once (the CAS), and its visited bit and
//! claimed level are written by the claim that won.

use super::{DistBfs, NO_PARENT, SCOUT_GRAIN, TOP_DOWN_GRAIN, pieces_of};
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
        let pieces: Vec<(Vec<Vec<I>>, Vec<usize>)> =
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
                (out, won)
            });
        self.send.clear();
        for (r, count) in self.send_counts.iter_mut().enumerate() {
            let before = self.send.len();
            for (out, _) in &pieces {
                self.send.extend_from_slice(&out[r]);
            }
            *count = self.send.len() - before;
        }
        let (received, _) = exchange(self.comm, &self.send, &self.send_counts);
        let pairs = received.len() / 2;
        let grain = pieces_of(pairs, self.backend.threads(), TOP_DOWN_GRAIN);
        let won_for_others: Vec<Vec<usize>> = self.backend.map_ranges(pairs, grain, |r| {
            (received[2 * r.start..2 * r.end].chunks_exact(2))
                .filter_map(|pair| {
                    let u = part.local(pair[0].to_u64());
                    found.claim(u, pair[1].to_u64()).then_some(u)
                })
                .collect()
        });
        self.next_queue.clear();
        for (_, won) in &pieces {
            self.next_queue.extend_from_slice(won);
        }
        for won in &won_for_others {
            self.next_queue.extend_from_slice(won);
        }
        std::mem::swap(&mut self.queue, &mut self.next_queue);
        let queue = &self.queue;
        let scout = (self.backend)
            .map_ranges(queue.len(), SCOUT_GRAIN, |r| {
                queue[r].iter().map(|&u| graph.degree(u)).sum::<u64>()
            })
            .into_iter()
            .sum();
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
    /// marks it visited and claims the step's level for it; true if this
    /// call did it. A plain load first skips the CAS for vertices already
    /// reached.
    #[inline]
    fn claim(&self, u: usize, parent: u64) -> bool {
        let slot = &self.parents[u];
        let won = slot.load(Relaxed) == NO_PARENT
            && slot
                .compare_exchange(NO_PARENT, parent, Relaxed, Relaxed)
                .is_ok();
        if won {
            self.visited[u / 64].fetch_or(1 << (u % 64), Relaxed);
            self.claims[u].store(self.level, Relaxed);
        }
        won
    }
}
