//! The bottom-up step of [`DistBfs`]: each unreached
//! vertex this rank owns tests its hub, then reads its row until it meets
//! a vertex of the global frontier bitmap, and claims that as its parent
//! (and the step's level as its own).
//! Workers take runs of bitmap words; the rows of a word are prefetched
//! while the next word's hubs are tested. The step starts with one
//! all-gather of every rank's frontier words (the global frontier, `N / 8`
//! bytes to each rank); the conversions between the top-down queue and the
//! bottom-up bitmap live here too.

use super::DistBfs;
use super::hubs::LocalHubs;
use crate::comm::all_gather;
use crate::{Id, LocalGraph};
use par::hint::prefetch;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// What a bottom-up step reads and writes, shared by its workers.
pub(super) struct BottomUp<'a, I: Id> {
    pub(super) graph: &'a LocalGraph<I>,
    pub(super) parents: &'a [AtomicU64],
    pub(super) claims: &'a [AtomicU8],
    /// The step's level, as claimed.
    pub(super) level: u8,
    pub(super) hubs: &'a LocalHubs<I>,
    pub(super) visited: &'a [AtomicU64],
    pub(super) global: &'a [u64],
}

impl<I: Id> BottomUp<'_, I> {
    /// The step for the local words from `first` on, whose next-frontier
    /// words are `next`; returns how many vertices it found. Per word, the
    /// hub tests of its unreached vertices, then the rows of those whose
    /// hub is not in the frontier; the next word's hub tests run before
    /// this word's rows, so that its rows are prefetched a word ahead.
    pub(super) fn words(&self, first: usize, next: &mut [u64]) -> u64 {
        let (mut count, len) = (0, next.len());
        let mut ahead = self.ask_hubs(first);
        for (i, next_word) in next.iter_mut().enumerate() {
            let w = first + i;
            let (mut found, mut todo) = ahead;
            if i + 1 < len {
                ahead = self.ask_hubs(w + 1);
                prefetch_rows(self.graph, w + 1, ahead.1);
            } else if w + 1 < self.visited.len() {
                // The next piece's first word, most likely this worker's
                // next: its unreached rows, hubs not yet asked.
                prefetch_rows(self.graph, w + 1, !self.visited[w + 1].load(Relaxed));
            }
            while todo != 0 {
                let bit = todo.trailing_zeros();
                todo &= todo - 1;
                let u = w * 64 + bit as usize;
                let row = self.graph.neighbors(u);
                if let Some(&v) = row.iter().find(|&&v| in_frontier(self.global, v.to_u64())) {
                    self.parents[u].store(v.to_u64(), Relaxed);
                    self.claims[u].store(self.level, Relaxed);
                    found |= 1 << bit;
                }
            }
            *next_word = found;
            if found != 0 {
                let seen = self.visited[w].load(Relaxed);
                self.visited[w].store(seen | found, Relaxed);
            }
            count += u64::from(found.count_ones());
        }
        count
    }

    /// The hub tests of word `w`: each unreached vertex whose hub is in the
    /// frontier gets it as its parent. Returns those vertices and the rest,
    /// whose rows are still to scan (not those alone with their hub, whose
    /// rows hold nothing else). The hubs are read in order.
    fn ask_hubs(&self, w: usize) -> (u64, u64) {
        let todo = !self.visited[w].load(Relaxed);
        // First every test, without a branch on its outcome (in the first
        // bottom-up level a hub is in the frontier about as often as not,
        // so a branch there mispredicts; `kernels::DoBfs` does the same),
        // then the parents of the found, their hubs reread from L1.
        let (mut found, mut alone, mut bits) = (0, 0, todo);
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            let (hub, only) = self.hubs.ask(w * 64 + bit as usize);
            found |= u64::from(in_frontier(self.global, hub)) << bit;
            alone |= u64::from(only) << bit;
        }
        let mut bits = found;
        while bits != 0 {
            let u = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.parents[u].store(self.hubs.ask(u).0, Relaxed);
            self.claims[u].store(self.level, Relaxed);
        }
        (found, todo & !found & !alone)
    }
}

/// Whether the global vertex `v` is in the gathered frontier bitmap.
#[inline]
pub(crate) fn in_frontier(global: &[u64], v: u64) -> bool {
    // v < N, so v / 64 indexes the bitmap, which is in memory.
    #[allow(clippy::cast_possible_truncation)]
    let word = global[(v / 64) as usize];
    word >> (v % 64) & 1 != 0
}

/// Starts loading the first arc of each row of local word `w` whose bit
/// is set in `rows`: the rows the next word of a bottom-up step will scan,
/// which the hardware prefetcher misses (unevenly spaced, mostly a cache
/// line apart).
#[inline]
fn prefetch_rows<I: Id>(graph: &LocalGraph<I>, w: usize, mut rows: u64) {
    while rows != 0 {
        let u = w * 64 + rows.trailing_zeros() as usize;
        rows &= rows - 1;
        if let Some(first) = graph.neighbors(u).first() {
            prefetch(first);
        }
    }
}

impl<I: Id> DistBfs<'_, I> {
    /// Gathers the global frontier from every rank's `front`, finds a
    /// frontier parent for every unreached local vertex that has one, and
    /// makes those the new `front` (found at `level`); returns how many.
    pub(super) fn bottom_up_step(&mut self, level: u8) -> u64 {
        all_gather(self.comm, &self.front, &self.word_counts, &mut self.global);
        let scan = BottomUp {
            graph: &self.graph,
            parents: &self.parents,
            claims: &self.claims,
            level,
            hubs: &self.index.hubs,
            visited: &self.visited,
            global: &self.global,
        };
        let grain = kernels::bottom_up_grain(self.next.len(), self.backend.threads());
        // Summed per task, so that the step allocates nothing.
        let found = AtomicU64::new(0);
        (self.backend).for_each_chunk_mut_init(
            &mut self.next,
            grain,
            || (),
            |(), at, words| {
                found.fetch_add(scan.words(at, words), Relaxed);
            },
        );
        std::mem::swap(&mut self.front, &mut self.next);
        found.into_inner()
    }

    /// Sets the bits of the queue's vertices in `front` (after clearing it).
    /// O(local words + queue).
    pub(super) fn queue_to_front(&mut self) {
        self.front.fill(0);
        for &u in &self.queue {
            self.front[u / 64] |= 1 << (u % 64);
        }
    }

    /// Makes the vertices of `front` the queue; returns their degree sum.
    /// O(local words + frontier).
    pub(super) fn front_to_queue(&mut self) -> u64 {
        self.queue.clear();
        let mut arcs = 0;
        for (w, &word) in self.front.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let u = w * 64 + bits.trailing_zeros() as usize;
                self.queue.push(u);
                arcs += self.graph.degree(u);
                bits &= bits - 1;
            }
        }
        arcs
    }
}
