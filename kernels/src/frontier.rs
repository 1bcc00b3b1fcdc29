//! `Frontier`: the queue of a level-synchronous search, and `LocalBuffer`,
//! a worker's private batch of discoveries.
//!
//! One array of N slots holds every vertex the search discovers, in order of
//! discovery. The *current* level is the window `[start, end)`; workers append
//! the next level behind `end` by reserving a range with one atomic add on
//! `tail` and filling it. [`Frontier::advance`] slides the window onto what
//! was appended. Since each vertex is discovered once, `tail <= N` and the
//! array never grows: nothing is allocated per level or per search (after the
//! GAP Benchmark Suite's `SlidingQueue`).
//!
//! Workers do not touch `tail` per vertex: each fills a [`LocalBuffer`] on its
//! stack and appends it in one reservation when full or finished.
//!
//! Every method takes `&self`, so a frontier can sit behind an `Arc` shared
//! with `'static` tasks; [`Frontier::reset`] and [`Frontier::advance`] must
//! only be called between levels, when no worker is appending.

use generator::Vertex;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// Vertices a [`LocalBuffer`] holds before it appends (4 KiB of stack).
const LOCAL_CAPACITY: usize = 1024;

/// A sliding-window queue over one preallocated array.
#[derive(Debug)]
pub struct Frontier {
    slots: Vec<AtomicU32>,
    start: AtomicUsize,
    end: AtomicUsize,
    tail: AtomicUsize,
}

impl Frontier {
    /// A queue for a graph of `n` vertices. Allocates `4 n` bytes.
    pub fn new(n: usize) -> Self {
        Frontier {
            slots: par::huge::filled(n, |_| AtomicU32::new(0)),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        }
    }

    /// Empties the queue. O(1). Between levels only.
    pub fn reset(&self) {
        self.start.store(0, Relaxed);
        self.end.store(0, Relaxed);
        self.tail.store(0, Relaxed);
    }

    /// Appends `items` behind the current window. One atomic add.
    pub fn append(&self, items: &[Vertex]) {
        let at = self.tail.fetch_add(items.len(), Relaxed);
        for (slot, &v) in self.slots[at..at + items.len()].iter().zip(items) {
            slot.store(v, Relaxed);
        }
    }

    /// Makes everything appended since the last advance the current window.
    /// Between levels only.
    pub fn advance(&self) {
        self.start.store(self.end.load(Relaxed), Relaxed);
        self.end.store(self.tail.load(Relaxed), Relaxed);
    }

    /// The current window (one BFS level).
    pub fn current(&self) -> &[AtomicU32] {
        &self.slots[self.start.load(Relaxed)..self.end.load(Relaxed)]
    }

    /// True when the current window is empty.
    pub fn is_empty(&self) -> bool {
        self.start.load(Relaxed) == self.end.load(Relaxed)
    }

    /// Vertices appended since the last reset.
    pub fn appended(&self) -> usize {
        self.tail.load(Relaxed)
    }
}

/// A worker's stack buffer of discoveries for one [`Frontier`]; appends
/// itself when full and when dropped.
pub struct LocalBuffer<'a> {
    frontier: &'a Frontier,
    items: [Vertex; LOCAL_CAPACITY],
    len: usize,
}

impl<'a> LocalBuffer<'a> {
    /// An empty buffer that flushes into `frontier`.
    pub fn new(frontier: &'a Frontier) -> Self {
        LocalBuffer {
            frontier,
            items: [0; LOCAL_CAPACITY],
            len: 0,
        }
    }

    /// Adds `v`; appends the batch when the buffer is full.
    #[inline]
    pub fn push(&mut self, v: Vertex) {
        self.items[self.len] = v;
        self.len += 1;
        if self.len == LOCAL_CAPACITY {
            self.flush();
        }
    }

    /// Appends the buffered vertices to the frontier.
    pub fn flush(&mut self) {
        if self.len > 0 {
            self.frontier.append(&self.items[..self.len]);
            self.len = 0;
        }
    }
}

/// The top-down step for one piece of a level: every unreached neighbour of
/// the vertices in `window` is claimed for it (one CAS on `parents`), and
/// `won(v)` is called for each vertex this call claimed (typically: push it
/// to the next level). Returns, when `COUNT`, the adjacency entries read
/// (else 0: even this count has a measured cost,
/// docs/history-kernels.md#frontier).
/// Used by every level-synchronous kernel, whatever splits the level among
/// workers. `reached(v)` may say that `v` certainly has a parent already
/// (a kernel with a small visited bitmap answers from cache, sparing a
/// random read of the parent array); `|_| false` always asks `parents`.
#[inline]
pub(crate) fn claim_neighbors<const COUNT: bool>(
    graph: &crate::Csr,
    parents: &crate::Parents,
    window: &[AtomicU32],
    reached: impl Fn(Vertex) -> bool,
    won: impl FnMut(Vertex),
) -> u64 {
    claim_neighbors_by::<COUNT>(graph, window, reached, |v, u| parents.claim(v, u), won)
}

/// Claims `v` for parent `u` by its bit in `visited` (an atomic OR on a
/// word that stays in cache, not a CAS on the parent slot), then stores
/// the parent plainly: true for exactly one caller per vertex and search,
/// the one whose OR set the bit.
#[inline]
pub(crate) fn claim_by_bit(
    visited: &crate::Bitmap,
    parents: &crate::Parents,
    v: Vertex,
    u: Vertex,
) -> bool {
    let won = !visited.test_and_set(v as usize);
    if won {
        parents.set(v, u);
    }
    won
}

/// [`claim_neighbors`] with the claim itself given: `claim(v, u)` makes
/// `u` the parent of `v` and is true for exactly one caller per vertex and
/// search (a kernel with a visited bitmap claims by its bit, an atomic OR
/// on a cached word, then stores the parent plainly).
#[inline]
pub(crate) fn claim_neighbors_by<const COUNT: bool>(
    graph: &crate::Csr,
    window: &[AtomicU32],
    reached: impl Fn(Vertex) -> bool,
    claim: impl Fn(Vertex, Vertex) -> bool,
    mut won: impl FnMut(Vertex),
) -> u64 {
    let mut examined = 0;
    for u in window.iter().map(|slot| slot.load(Relaxed)) {
        let neighbors = graph.neighbors(u);
        if COUNT {
            examined += neighbors.len() as u64;
        }
        for &v in neighbors {
            if !reached(v) && claim(v, u) {
                won(v);
            }
        }
    }
    examined
}

impl Drop for LocalBuffer<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    fn window(f: &Frontier) -> Vec<u32> {
        let mut w: Vec<u32> = f.current().iter().map(|a| a.load(Relaxed)).collect();
        w.sort_unstable();
        w
    }

    #[test]
    fn window_slides_over_appended_levels() {
        let f = Frontier::new(10);
        f.append(&[7]);
        f.advance();
        assert_eq!(window(&f), [7]);
        f.append(&[1, 2]);
        f.append(&[3]);
        assert_eq!(window(&f), [7]);
        f.advance();
        assert_eq!(window(&f), [1, 2, 3]);
        f.advance();
        assert!(f.is_empty());
        assert_eq!(f.appended(), 4);
        f.reset();
        assert_eq!(f.appended(), 0);
    }

    #[test]
    fn parallel_local_buffers_lose_nothing() {
        let n = 5 * LOCAL_CAPACITY + 17;
        let f = Frontier::new(n);
        (0..n as u32).into_par_iter().chunks(700).for_each(|chunk| {
            let mut local = LocalBuffer::new(&f);
            chunk.into_iter().for_each(|v| local.push(v));
        });
        f.advance();
        assert_eq!(window(&f), (0..n as u32).collect::<Vec<_>>());
    }

    #[test]
    fn claims_by_visited_bit_give_each_neighbour_one_parent_from_the_window() {
        use crate::{Bitmap, Csr, Parents};
        use generator::Edge;
        // Window 0..64, each joined to the 200 vertices 64..264 (shared
        // by all): parallel chunks race to claim every one of them.
        let edges: Vec<Edge> = (0..64u32)
            .flat_map(|u| (64..264u32).map(move |v| Edge::new(u, v)))
            .collect();
        let graph = Csr::build(264, &edges);
        let (visited, parents) = (Bitmap::new(264), Parents::new(264));
        (0..64).for_each(|u| visited.set_atomic(u));
        let window: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
        let won: Vec<u32> = window
            .par_chunks(3)
            .flat_map_iter(|chunk| {
                let mut won = Vec::new();
                claim_neighbors_by::<false>(
                    &graph,
                    chunk,
                    |v| visited.get(v as usize),
                    |v, u| claim_by_bit(&visited, &parents, v, u),
                    |v| won.push(v),
                );
                won
            })
            .collect();
        let mut sorted = won.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (64..264).collect::<Vec<_>>(), "each claimed once");
        assert!((64..264).all(|v| parents.get(v).is_some_and(|p| p < 64)));
        assert!(
            (0..64).all(|u| parents.get(u).is_none()),
            "window untouched"
        );
    }
}
