//! The bottom-up step of [`DoBfs`].
//!
//! Idea: every unreached vertex (a clear bit of `visited`, 64 a word read)
//! looks for a parent in the frontier bitmap `front`: first its hub
//! ([`Csr::hub`], read in vertex order, no row), then its row, stopping at
//! the first frontier neighbour; a vertex whose every arc leads to its hub
//! (a quarter of those with arcs in a Kronecker graph, marked in its hub
//! entry) is done after the hub test, whatever it says. The hub tests of
//! word `w + 1` run before the rows of word `w`, so the rows word `w + 1`
//! still needs are prefetched a word ahead. A word's hub tests gather their outcomes
//! without a branch on them, then write the parents of those found
//! (docs/history-kernels.md#bfs_do).
//!
//! Invariants: one worker owns each word of `next` and `visited` (ranges
//! of words, `BOTTOM_UP_GRAIN` a chunk), so parents, levels and bits are
//! written without atomics; a vertex found gets a parent from the
//! frontier and the level being discovered; `visited` starts each search
//! as the degree-0 vertices and padding (`degree_zero_bitmap`), which no
//! step ever scans.

use super::{
    Ablation, Asked, BOTTOM_UP_GRAIN, DoBfs, Parallel, Shared, WORD_BITS, first_vertex_of_word,
};
use crate::{Bitmap, Csr};
use par::hint::prefetch;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

impl DoBfs {
    /// Finds a frontier parent for every unreached vertex that has one;
    /// writes them to `next` and `visited`; returns how many, and, when
    /// `COUNT`, the adjacency entries read (else 0: counting in this loop
    /// has a measured cost, docs/history-kernels.md#bfs_do).
    pub(super) fn bottom_up_step<const COUNT: bool>(&mut self) -> (u64, u64) {
        let step = Parallel::BottomUp {
            count: COUNT,
            ablation: Ablation {
                scan_every_vertex: self.params.scan_every_vertex,
                ask_hubs: self.params.ask_hubs,
            },
        };
        let words = self.shared.front.num_words();
        self.run(
            step,
            words,
            bottom_up_grain(words, self.backend().threads()),
        )
    }
}

/// Bitmap words per work item of a bottom-up step over `words` of them on
/// `threads`: 64 words (4096 vertices), or fewer where that
/// would give a worker fewer than 16 items, but not fewer than 16 words.
/// Each item restarts the step's pipeline (its first word's rows are not
/// prefetched a word ahead) and is one task of the loop: items of 64 words
/// took 0.963-0.969 of the search time of items of 16 at SCALE 20 and 22
/// on 1 and 2 threads (paired, docs/history-kernels.md#bfs_do). The
/// ranks' 1-D search (`graph500-dist`) cuts its steps by the same rule.
pub fn bottom_up_grain(words: usize, threads: usize) -> usize {
    (words / (16 * threads.max(1))).clamp(16, BOTTOM_UP_GRAIN)
}

impl Shared {
    /// The bottom-up step for the bitmap words `words`. Per word, first
    /// the hub test of every vertex to scan ([`Shared::ask_hubs`]), then
    /// the rows of those whose hub is not in the frontier. The hub tests of
    /// word `w + 1` run before the rows of word `w`, so that the rows left
    /// for `w + 1` are prefetched a word ahead.
    pub(super) fn bottom_up<const COUNT: bool>(
        &self,
        ablation: Ablation,
        words: Range<usize>,
    ) -> (u64, u64) {
        let (graph, parents, front, next, visited) = (
            &*self.graph,
            &self.parents,
            &self.front,
            &self.next,
            &self.visited,
        );
        let num_words = front.num_words();
        let level = self.discovering.load(Relaxed);
        let (mut total_found, mut total_examined) = (0, 0);
        let mut ahead = self.ask_hubs::<COUNT>(ablation, words.start);
        for w in words.clone() {
            let seen = visited.word(w);
            let Asked {
                mut found,
                rest,
                mut examined,
            } = ahead;
            if w + 1 < words.end {
                ahead = self.ask_hubs::<COUNT>(ablation, w + 1);
                prefetch_rows(graph, w + 1, ahead.rest);
            } else if w + 1 < num_words {
                prefetch_rows(graph, w + 1, self.to_scan(ablation, w + 1));
            }
            let mut todo = rest;
            while todo != 0 {
                let bit = todo.trailing_zeros();
                todo &= todo - 1;
                let u = first_vertex_of_word(w) + bit;
                let neighbors = graph.neighbors(u);
                if COUNT {
                    match neighbors.iter().position(|&v| front.get(v as usize)) {
                        Some(i) => {
                            parents.set(u, neighbors[i]);
                            parents.record_level(u, level);
                            found |= 1 << bit;
                            examined += i as u64 + 1;
                        }
                        None => examined += neighbors.len() as u64,
                    }
                } else if let Some(&v) = neighbors.iter().find(|&&v| front.get(v as usize)) {
                    parents.set(u, v);
                    parents.record_level(u, level);
                    found |= 1 << bit;
                }
            }
            next.store_word(w, found);
            if found != 0 {
                visited.store_word(w, seen | found);
            }
            total_found += u64::from(found.count_ones());
            total_examined += examined;
        }
        (total_found, total_examined)
    }

    /// The vertices of word `w` a bottom-up step looks at: the clear bits
    /// of `visited`, or, when scanning every vertex, all of them.
    fn to_scan(&self, ablation: Ablation, w: usize) -> u64 {
        if ablation.scan_every_vertex {
            vertices_of_word(w, self.graph.num_vertices())
        } else {
            !self.visited.word(w)
        }
    }

    /// The hub tests of word `w` (none for a word past the bitmap): each
    /// vertex to scan whose hub is in the frontier gets it as its parent.
    /// Returns those vertices and the rest, whose rows are still to scan
    /// (not those alone with their hub, whose rows hold nothing else).
    /// The hubs array is read in order, so a hit costs no row at all.
    fn ask_hubs<const COUNT: bool>(&self, ablation: Ablation, w: usize) -> Asked {
        if w >= self.front.num_words() {
            return Asked::default();
        }
        let mut todo = self.to_scan(ablation, w);
        if ablation.scan_every_vertex {
            let mut bits = todo;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                if self.parents.is_reached(first_vertex_of_word(w) + bit) {
                    todo &= !(1 << bit);
                }
            }
        }
        if !ablation.ask_hubs {
            return Asked {
                rest: todo,
                ..Asked::default()
            };
        }
        let examined = if COUNT { todo.count_ones().into() } else { 0 };
        let level = self.discovering.load(Relaxed);
        // First every test, without a branch on its outcome (a hub is in
        // the frontier about as often as not in the first bottom-up level,
        // so a branch there mispredicts), then the parents of the found.
        // A vertex alone with its hub has no row left to scan either way.
        let (mut found, mut alone) = (0, 0);
        let mut bits = todo;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            let ask = self.graph.ask_hub(first_vertex_of_word(w) + bit);
            found |= u64::from(self.front.get(ask.hub as usize)) << bit;
            alone |= u64::from(ask.alone) << bit;
        }
        let mut bits = found;
        while bits != 0 {
            let u = first_vertex_of_word(w) + bits.trailing_zeros();
            bits &= bits - 1;
            self.parents.set(u, self.graph.hub(u));
            self.parents.record_level(u, level);
        }
        Asked {
            found,
            rest: todo & !found & !alone,
            examined,
        }
    }
}

/// A bitmap of the vertices without neighbours, and of the padding bits
/// past the last vertex.
pub(super) fn degree_zero_bitmap(graph: &Csr) -> Bitmap {
    let n = graph.num_vertices();
    let bitmap = Bitmap::new(n);
    (0..bitmap.num_words()).into_par_iter().for_each(|w| {
        let first = first_vertex_of_word(w);
        let bits = (0..64u32).fold(0u64, |bits, b| {
            let v = first + b;
            let isolated = (v as usize) >= n || graph.degree(v) == 0;
            bits | (u64::from(isolated) << b)
        });
        bitmap.store_word(w, bits);
    });
    bitmap
}

/// The bits of word `w` that stand for vertices (all but the padding past
/// `n` in the last word).
fn vertices_of_word(w: usize, n: usize) -> u64 {
    match n.saturating_sub(w * WORD_BITS) {
        rest if rest >= WORD_BITS => u64::MAX,
        rest => (1u64 << rest) - 1,
    }
}

/// Starts loading the first adjacency entry of each vertex of word `w`
/// whose bit is set in `vertices`: the rows the next word of a bottom-up
/// step will scan. Rows lie in vertex order, but unevenly spaced and mostly
/// a cache line apart, so the hardware prefetcher misses them and every
/// scanned vertex would wait for memory (measured:
/// docs/history-kernels.md#bfs_do).
#[inline]
fn prefetch_rows(graph: &Csr, w: usize, mut vertices: u64) {
    while vertices != 0 {
        let u = first_vertex_of_word(w) + vertices.trailing_zeros();
        vertices &= vertices - 1;
        if let Some(first) = graph.neighbors(u).first() {
            prefetch(first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the bottom-up items: whole items of `BOTTOM_UP_GRAIN` words
    /// where every worker still gets 16, shorter ones (not below 16 words)
    /// for small graphs or many threads.
    #[test]
    fn a_bottom_up_step_gives_every_worker_many_items_of_many_words() {
        assert_eq!(bottom_up_grain(1 << 14, 2), BOTTOM_UP_GRAIN);
        assert_eq!(bottom_up_grain(1 << 14, 1), BOTTOM_UP_GRAIN);
        assert_eq!(bottom_up_grain(1 << 10, 2), 32);
        assert_eq!(bottom_up_grain(1 << 10, 64), 16);
        assert_eq!(bottom_up_grain(3, 0), 16);
        for (words, threads) in [(1 << 12, 4), (1 << 16, 8), (5000, 3)] {
            let grain = bottom_up_grain(words, threads);
            assert!((16..=BOTTOM_UP_GRAIN).contains(&grain));
            assert!(
                grain == 16 || words.div_ceil(grain) >= 16 * threads,
                "{words} words on {threads} threads: items of {grain}"
            );
        }
    }
}
