//! The top-down step of [`DistBfs`]: each rank scans the
//! rows of its queue; a neighbour it owns it claims at once by its visited
//! bit, any other goes to its owner as a `(vertex, parent)` pair, all of
//! the level's pairs in one exchange, and the owner claims those the same
//! way. A hub's row is not scanned: its owner announces the hub to every
//! other rank in the same exchange, and each rank claims its own
//! neighbours of every announced hub from its delegates
//! (`delegates.rs`). The claimed vertices become the next queue; the step returns their
//! count and degree sum (the next level's `m_f`), summed over each piece's
//! claimed vertices once its claims are done (summed at each claim, each
//! degree's random read held up the next claim's atomic OR:
//! docs/history-kernels.md, dist-bfs).
//!
//! Invariant: a vertex is claimed once (the atomic OR that set its visited
//! bit; every reached vertex's bit is set: the root's, the bottom-up
//! steps' and these claims'), and its parent and claimed level are written
//! by the claim that won.

use super::delegates::Delegates;
use super::{DistBfs, TOP_DOWN_GRAIN, pieces_of};
use crate::Id;
use crate::comm::exchange;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// What a work item of a top-down step's scan of the queue made.
struct Piece<I> {
    /// Flattened `(vertex, parent)` pairs per rank.
    out: Vec<Vec<I>>,
    /// The vertices it claimed here, and their degree sum.
    won: Vec<usize>,
    scout: u64,
    /// The hubs it met: their rows are left to the delegates.
    hubs: Vec<usize>,
}

/// What a top-down step found and read, this rank's part.
pub(super) struct TopDown {
    /// Vertices claimed here (the next queue).
    pub(super) found: u64,
    /// Their degree sum (the next level's `m_f`).
    pub(super) scout: u64,
    /// The queue's hubs, announced instead of scanned.
    pub(super) hubs: u64,
    /// Their degree sum: the arcs the ranks' delegates scanned for them.
    pub(super) delegated: u64,
}

impl<I: Id> DistBfs<'_, I> {
    /// Claims the neighbours of the queue's vertices: its own at once, the
    /// others' through one exchange, those of every rank's hubs from this
    /// rank's delegates, at `level`. Makes the claimed local vertices the
    /// queue.
    pub(super) fn top_down_step(&mut self, level: u8) -> TopDown {
        let (graph, parents, visited) = (&*self.graph, &self.parents[..], &self.visited[..]);
        let delegates = &self.index.delegates;
        let found = Found {
            parents,
            visited,
            claims: &self.claims,
            level,
        };
        let part = *graph.partition();
        let (rank, first) = (graph.rank(), graph.first());
        let queue = &self.queue;
        let grain = pieces_of(queue.len(), self.backend.threads(), TOP_DOWN_GRAIN);
        let pieces: Vec<Piece<I>> = self.backend.map_ranges(queue.len(), grain, |r| {
            let (mut out, mut won) = (vec![Vec::new(); part.ranks()], Vec::new());
            let mut hubs = Vec::new();
            for &u in &queue[r] {
                if delegates.index(u).is_some() {
                    hubs.push(u);
                    continue;
                }
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
            Piece {
                out,
                won,
                scout,
                hubs,
            }
        });
        let hubs: Vec<usize> = pieces.iter().flat_map(|p| p.hubs.iter().copied()).collect();
        let delegated = graph.degree_sum(&hubs);
        // Each hub announced to every other rank as `(h, h)`, first.
        self.send.clear();
        for (r, count) in self.send_counts.iter_mut().enumerate() {
            let before = self.send.len();
            if r != rank {
                for &u in &hubs {
                    let h = I::from_u64(first + u as u64);
                    self.send.extend([h, h]);
                }
            }
            for piece in &pieces {
                self.send.extend_from_slice(&piece.out[r]);
            }
            *count = self.send.len() - before;
        }
        let (received, counts) = exchange(self.comm, &self.send, &self.send_counts);
        let mut active: Vec<usize> = hubs
            .iter()
            .map(|&u| delegates.index(u).expect("a hub"))
            .collect();
        let mut at = 0;
        for count in counts {
            let segment = received[at..at + count].chunks_exact(2);
            for pair in segment.take_while(|pair| pair[0] == pair[1]) {
                active.push(delegates.find(pair[0].to_u64()).expect("an announced hub"));
            }
            at += count;
        }
        let pairs = received.len() / 2;
        let grain = pieces_of(pairs, self.backend.threads(), TOP_DOWN_GRAIN);
        let won_for_others: Vec<(Vec<usize>, u64)> = self.backend.map_ranges(pairs, grain, |r| {
            let mut won = Vec::new();
            for pair in received[2 * r.start..2 * r.end].chunks_exact(2) {
                // An announced hub, taken above.
                if pair[0] == pair[1] {
                    continue;
                }
                let u = part.local(pair[0].to_u64());
                if found.claim(u, pair[1].to_u64()) {
                    won.push(u);
                }
            }
            let scout = graph.degree_sum(&won);
            (won, scout)
        });
        let won_for_hubs = self.claim_for_hubs(&found, &active);
        self.next_queue.clear();
        let mut scout = 0;
        for piece in &pieces {
            self.next_queue.extend_from_slice(&piece.won);
            scout += piece.scout;
        }
        for (won, s) in won_for_others.iter().chain(&won_for_hubs) {
            self.next_queue.extend_from_slice(won);
            scout += s;
        }
        std::mem::swap(&mut self.queue, &mut self.next_queue);
        TopDown {
            found: self.queue.len() as u64,
            scout,
            hubs: hubs.len() as u64,
            delegated,
        }
    }

    /// Claims this rank's vertices adjacent to the hubs `active` (their
    /// indices), from the delegates, each with its hub as parent: per work
    /// item a run of the hubs' lists laid end to end, its claims and their
    /// degree sum.
    fn claim_for_hubs(&self, found: &Found<'_>, active: &[usize]) -> Vec<(Vec<usize>, u64)> {
        let delegates: &Delegates<I> = &self.index.delegates;
        let mut ends = Vec::with_capacity(active.len());
        let mut total = 0;
        for &k in active {
            total += delegates.members(k).len();
            ends.push(total);
        }
        let graph = &*self.graph;
        let grain = pieces_of(total, self.backend.threads(), TOP_DOWN_GRAIN);
        self.backend.map_ranges(total, grain, |r| {
            let mut won = Vec::new();
            // The first hub whose list reaches past r.start.
            let mut i = ends.partition_point(|&end| end <= r.start);
            let mut at = r.start;
            while at < r.end {
                let k = active[i];
                let (start, end) = (ends[i] - delegates.members(k).len(), ends[i]);
                let parent = delegates.id(k);
                for &u in &delegates.members(k)[at - start..end.min(r.end) - start] {
                    let u = usize::try_from(u.to_u64()).expect("a local row");
                    if found.claim(u, parent) {
                        won.push(u);
                    }
                }
                at = end.min(r.end);
                i += 1;
            }
            let scout = graph.degree_sum(&won);
            (won, scout)
        })
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
