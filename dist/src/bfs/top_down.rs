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
use crate::comm::exchange_counted_into;
use crate::shares::{claim, each_mut, one_per_thread};
use crate::{Id, LocalGraph};
use par::Backend;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// One thread's part of a top-down step: what its tasks found, kept from
/// step to step (`crate::shares`).
struct Share<I> {
    /// Flattened `(vertex, parent)` pairs per destination rank.
    out: Vec<Vec<I>>,
    /// The vertices it claimed, and their degree sum.
    won: Vec<usize>,
    scout: u64,
    /// The hubs it met: their rows are left to the delegates.
    hubs: Vec<usize>,
}

/// What the top-down steps keep from step to step and search to search,
/// so that a step allocates nothing once its vectors have grown: the
/// threads' shares, the step's hubs, its pairs out and in (with their
/// counts per rank), and the delegates' work (the hubs' indices, where
/// each one's list ends when laid end to end, the tasks' ranges of them).
pub(super) struct TopDownBuffers<I> {
    shares: Vec<Mutex<Share<I>>>,
    hubs: Vec<usize>,
    send: Vec<I>,
    send_counts: Vec<usize>,
    received: Vec<I>,
    recv_counts: Vec<usize>,
    active: Vec<usize>,
    ends: Vec<usize>,
    ranges: Vec<Range<usize>>,
}

impl<I> TopDownBuffers<I> {
    /// Empty buffers for `ranks` ranks.
    pub(super) fn new(ranks: usize) -> Self {
        TopDownBuffers {
            shares: Vec::new(),
            hubs: Vec::new(),
            send: Vec::new(),
            send_counts: vec![0; ranks],
            received: Vec::new(),
            recv_counts: Vec::new(),
            active: Vec::new(),
            ends: Vec::new(),
            ranges: Vec::new(),
        }
    }
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
    /// queue. Each task claims a share of the kept buffers
    /// ([`TopDownBuffers`]) for its work, so a step allocates nothing once
    /// they have grown, whatever the number of ranks.
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
        let (backend, threads) = (self.backend, self.backend.threads());
        let top = &mut self.top_down;
        one_per_thread(&mut top.shares, threads, || Share {
            out: vec![Vec::new(); part.ranks()],
            won: Vec::new(),
            scout: 0,
            hubs: Vec::new(),
        });
        let shares = &top.shares[..];
        let queue = &self.queue;
        let grain = pieces_of(queue.len(), threads, TOP_DOWN_GRAIN);
        claim_chunks(backend, graph, shares, (queue, grain), |share, chunk| {
            for &u in chunk {
                if delegates.index(u).is_some() {
                    share.hubs.push(u);
                    continue;
                }
                let parent = first + u as u64;
                for &v in graph.neighbors(u) {
                    let (owner, local) = part.place(v.to_u64());
                    if owner != rank {
                        share.out[owner].extend([v, I::from_u64(parent)]);
                    } else if found.claim(local, parent) {
                        share.won.push(local);
                    }
                }
            }
        });
        top.hubs.clear();
        for share in each_mut(&mut top.shares) {
            top.hubs.append(&mut share.hubs);
        }
        let delegated = graph.degree_sum(&top.hubs);
        // Each hub announced to every other rank as `(h, h)`, first.
        top.send.clear();
        for (r, count) in top.send_counts.iter_mut().enumerate() {
            let before = top.send.len();
            if r != rank {
                for &u in &top.hubs {
                    let h = I::from_u64(first + u as u64);
                    top.send.extend([h, h]);
                }
            }
            for share in each_mut(&mut top.shares) {
                top.send.append(&mut share.out[r]);
            }
            *count = top.send.len() - before;
        }
        let comm = self.comm;
        exchange_counted_into(
            comm,
            &top.send,
            &top.send_counts,
            &mut top.received,
            &mut top.recv_counts,
        );
        top.active.clear();
        (top.active).extend(top.hubs.iter().map(|&u| delegates.index(u).expect("a hub")));
        let mut at = 0;
        for &count in &top.recv_counts {
            let segment = top.received[at..at + count].chunks_exact(2);
            for pair in segment.take_while(|pair| pair[0] == pair[1]) {
                (top.active).push(delegates.find(pair[0].to_u64()).expect("an announced hub"));
            }
            at += count;
        }
        let shares = &top.shares[..];
        let pairs: &[[I; 2]] = bytemuck::cast_slice(&top.received);
        let grain = pieces_of(pairs.len(), threads, TOP_DOWN_GRAIN);
        claim_chunks(backend, graph, shares, (pairs, grain), |share, chunk| {
            for &[v, parent] in chunk {
                // An announced hub, taken above.
                if v == parent {
                    continue;
                }
                let u = part.local(v.to_u64());
                if found.claim(u, parent.to_u64()) {
                    share.won.push(u);
                }
            }
        });
        claim_for_hubs(backend, graph, delegates, &found, top);
        self.next_queue.clear();
        let mut scout = 0;
        for share in each_mut(&mut top.shares) {
            self.next_queue.append(&mut share.won);
            scout += std::mem::take(&mut share.scout);
        }
        std::mem::swap(&mut self.queue, &mut self.next_queue);
        TopDown {
            found: self.queue.len() as u64,
            scout,
            hubs: top.hubs.len() as u64,
            delegated,
        }
    }
}

/// Claims this rank's vertices adjacent to the hubs `top.active` (their
/// indices), from the delegates, each with its hub as parent: per task a
/// run of the hubs' lists laid end to end, its claims and their degree
/// sum going to the task's share.
fn claim_for_hubs<I: Id>(
    backend: Backend,
    graph: &LocalGraph<I>,
    delegates: &Delegates<I>,
    found: &Found<'_>,
    top: &mut TopDownBuffers<I>,
) {
    top.ends.clear();
    let mut total = 0;
    for &k in &top.active {
        total += delegates.members(k).len();
        top.ends.push(total);
    }
    let grain = pieces_of(total, backend.threads(), TOP_DOWN_GRAIN);
    top.ranges.clear();
    (top.ranges).extend(
        (0..total)
            .step_by(grain)
            .map(|at| at..(at + grain).min(total)),
    );
    let (shares, active, ends) = (&top.shares[..], &top.active, &top.ends);
    claim_chunks(backend, graph, shares, (&top.ranges, 1), |share, ranges| {
        for r in ranges {
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
                        share.won.push(u);
                    }
                }
                at = end.min(r.end);
                i += 1;
            }
        }
    });
}

/// Runs `body(share, chunk)` over `items` in chunks of `grain`, each task
/// on a share it claims, then adds the degree sum of the vertices the
/// chunk won to the share's `scout`: after the chunk's claims, not at each
/// (the module comment says why).
fn claim_chunks<I: Id, T: Sync>(
    backend: Backend,
    graph: &LocalGraph<I>,
    shares: &[Mutex<Share<I>>],
    (items, grain): (&[T], usize),
    body: impl Fn(&mut Share<I>, &[T]) + Sync + Send,
) {
    backend.for_each_chunk_init(
        items,
        grain,
        || claim(shares),
        |share, chunk| {
            let start = share.won.len();
            body(share, chunk);
            share.scout += graph.degree_sum(&share.won[start..]);
        },
    );
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
