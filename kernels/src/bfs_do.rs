//! `DoBfs`: direction-optimizing BFS (Beamer, Asanović and Patterson, 2012).
//!
//! A level-synchronous search that picks, per level, the cheaper direction:
//!
//! - **top-down**: scan the neighbours of each frontier vertex (a queue,
//!   [`Frontier`]) and claim the unreached ones by CAS, as [`ParBfs`] does.
//!   Cost: the edges of the frontier, `m_f`.
//! - **bottom-up**: every unreached vertex scans its own neighbours for one
//!   in the frontier (a [`Bitmap`]) and stops at the first. Cost: at most the
//!   edges of the unreached vertices, usually far less, since in the middle
//!   levels of a small-world graph most unreached vertices have a frontier
//!   neighbour early in their list. Each vertex is handled by one worker, so
//!   parents are written without CAS, and workers own whole 64-vertex words
//!   of the next bitmap, so it is written without atomics either.
//!
//! Switching (Beamer's heuristic; [`DoParams`]): go bottom-up when
//! `m_f > m_u / alpha`, where `m_u` counts the edges not yet checked by
//! top-down steps; go back top-down when the frontier shrinks and holds
//! fewer than `N / beta` vertices. `m_f` is the degree sum of the vertices
//! the last top-down step claimed, gathered as they are claimed.
//!
//! Invariants: a vertex gets its parent in the step that discovers it, from
//! a vertex of the previous level, and only once (CAS top-down; one owner
//! bottom-up). All working memory (parents, queue, two bitmaps) is allocated
//! once per engine; a search allocates nothing.
//!
//! [`ParBfs`]: crate::ParBfs

use crate::frontier::claim_neighbors;
use crate::{
    Bfs, Bitmap, Csr, Direction, Frontier, LocalBuffer, Parents, SearchKey, SearchStats, Step,
    StepLog, Vertex,
};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

const WORD_BITS: usize = Bitmap::WORD_BITS;

/// Frontier vertices per work item of a top-down step.
const TOP_DOWN_GRAIN: usize = 64;
/// Bitmap words (64 vertices each) per work item of a bottom-up step.
const BOTTOM_UP_GRAIN: usize = 16;

/// The switching parameters of [`DoBfs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DoParams {
    /// Go bottom-up when the frontier's edges exceed the unexplored edges
    /// divided by `alpha`. Larger: switch sooner (at a smaller frontier).
    pub alpha: u64,
    /// Go back top-down when the frontier is shrinking and holds fewer than
    /// `N / beta` vertices. Larger: stay bottom-up longer.
    pub beta: u64,
    /// Ablation switch, off by default: bottom-up steps look at every vertex
    /// and read its parent, instead of taking the clear bits of the visited
    /// bitmap (which skips reached and edgeless vertices 64 at a time). Exists
    /// to measure that optimisation (`benches/ablation.sh`).
    pub scan_every_vertex: bool,
}

impl DoParams {
    /// Beamer's values, also GAPBS's defaults.
    pub const DEFAULT: DoParams = DoParams {
        alpha: 15,
        beta: 18,
        scan_every_vertex: false,
    };
}

impl Default for DoParams {
    fn default() -> Self {
        DoParams::DEFAULT
    }
}

/// A direction-optimizing parallel BFS on rayon.
pub struct DoBfs {
    graph: Arc<Csr>,
    params: DoParams,
    parents: Parents,
    queue: Frontier,
    front: Bitmap,
    next: Bitmap,
    /// Reached vertices, plus every vertex no search can reach through an
    /// edge (degree 0) and the padding bits past N: bottom-up steps look
    /// only at its clear bits, 64 vertices per word read.
    visited: Bitmap,
    /// `visited`'s state before a search: the degree-0 vertices and padding.
    unreachable: Bitmap,
    log: StepLog,
    /// Count the entries bottom-up steps read ([`Bfs::set_tracing`]).
    tracing: bool,
}

impl DoBfs {
    /// An engine for `graph`; allocates its parent array, queue and bitmaps.
    pub fn new(graph: Arc<Csr>, params: DoParams) -> Self {
        let n = graph.num_vertices();
        DoBfs {
            params,
            parents: Parents::new(n),
            queue: Frontier::new(n),
            front: Bitmap::new(n),
            next: Bitmap::new(n),
            visited: Bitmap::new(n),
            unreachable: degree_zero_bitmap(&graph),
            log: StepLog::default(),
            tracing: false,
            graph,
        }
    }

    /// Claims the neighbours of the queue's window; returns the degree sum
    /// of the claimed vertices and, when `COUNT`, the adjacency entries read.
    fn top_down_step<const COUNT: bool>(&self) -> (u64, u64) {
        let (graph, parents, queue, visited) =
            (&*self.graph, &self.parents, &self.queue, &self.visited);
        queue
            .current()
            .par_chunks(TOP_DOWN_GRAIN)
            .map_init(
                || LocalBuffer::new(queue),
                |next, chunk| {
                    let mut scout = 0;
                    let examined = claim_neighbors::<COUNT>(
                        graph,
                        parents,
                        chunk,
                        |v| visited.get(v as usize),
                        |v| {
                            next.push(v);
                            visited.set_atomic(v as usize);
                            scout += graph.degree(v);
                        },
                    );
                    (scout, examined)
                },
            )
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Finds a frontier parent for every unreached vertex that has one;
    /// writes them to `next` and `visited`; returns how many, and, when
    /// `COUNT`, the adjacency entries read (else 0: counting in this loop
    /// costs about 10% of a search).
    fn bottom_up_step<const COUNT: bool>(&self) -> (u64, u64) {
        let (graph, parents, front, next, visited) = (
            &*self.graph,
            &self.parents,
            &self.front,
            &self.next,
            &self.visited,
        );
        let scan_every_vertex = self.params.scan_every_vertex;
        let n = graph.num_vertices();
        let words = front.num_words();
        let to_scan = |w: usize| {
            if scan_every_vertex {
                vertices_of_word(w, n)
            } else {
                !visited.word(w)
            }
        };
        (0..words)
            .into_par_iter()
            .with_min_len(BOTTOM_UP_GRAIN)
            .map(|w| {
                let seen = visited.word(w);
                let mut todo = to_scan(w);
                if w + 1 < words {
                    prefetch_rows(graph, w + 1, to_scan(w + 1));
                }
                let (mut found, mut examined) = (0u64, 0u64);
                while todo != 0 {
                    let bit = todo.trailing_zeros();
                    todo &= todo - 1;
                    let u = first_vertex_of_word(w) + bit;
                    if scan_every_vertex && parents.is_reached(u) {
                        continue;
                    }
                    let neighbors = graph.neighbors(u);
                    if COUNT {
                        match neighbors.iter().position(|&v| front.get(v as usize)) {
                            Some(i) => {
                                parents.set(u, neighbors[i]);
                                found |= 1 << bit;
                                examined += i as u64 + 1;
                            }
                            None => examined += neighbors.len() as u64,
                        }
                    } else if let Some(&v) = neighbors.iter().find(|&&v| front.get(v as usize)) {
                        parents.set(u, v);
                        found |= 1 << bit;
                    }
                }
                next.store_word(w, found);
                if found != 0 {
                    visited.store_word(w, seen | found);
                }
                (u64::from(found.count_ones()), examined)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Sets the bits of the queue's window in `front` (after clearing it).
    fn queue_to_bitmap(&self) {
        self.front.clear();
        let front = &self.front;
        self.queue
            .current()
            .par_iter()
            .with_min_len(1 << 10)
            .for_each(|v| front.set_atomic(v.load(Relaxed) as usize));
    }

    /// Appends the vertices of `front` to the queue and makes them its window.
    fn bitmap_to_queue(&self) {
        let (front, queue) = (&self.front, &self.queue);
        (0..front.num_words())
            .into_par_iter()
            .with_min_len(BOTTOM_UP_GRAIN)
            .for_each_init(
                || LocalBuffer::new(queue),
                |buffer, w| {
                    let mut bits = front.word(w);
                    while bits != 0 {
                        buffer.push(first_vertex_of_word(w) + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                },
            );
        queue.advance();
    }
}

/// A bitmap of the vertices without neighbours, and of the padding bits
/// past the last vertex.
fn degree_zero_bitmap(graph: &Csr) -> Bitmap {
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
/// scanned vertex waited for memory. With this, the mean search of
/// `graph500 --scale 20 --keys 64 --no-validate --threads T` went from 19.2
/// to 14.5 ms on 2 threads (medians of five alternating runs) and from 31.7
/// to 23.9 ms on 1 (three), on an AMD EPYC shared with other builds.
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

/// The first vertex of bitmap word `w`; ids fit a [`Vertex`] by the graph's
/// invariant, so this cannot fail for a word of the graph's bitmaps.
#[inline]
fn first_vertex_of_word(w: usize) -> Vertex {
    Vertex::try_from(w * WORD_BITS).expect("bitmap words cover vertex ids")
}

impl Bfs for DoBfs {
    fn reset(&mut self) {
        self.parents.reset();
        self.queue.reset();
        self.visited.copy_from(&self.unreachable);
        self.log.clear();
    }

    fn search(&mut self, root: SearchKey) -> SearchStats {
        let n = self.graph.num_vertices() as u64;
        let (alpha, beta) = (self.params.alpha.max(1), self.params.beta.max(1));
        let root = root.vertex();
        self.parents.set(root, root);
        self.visited.set_atomic(root as usize);
        self.queue.append(&[root]);
        self.queue.advance();
        let mut edges_to_check = self.graph.num_arcs() as u64;
        let mut scout = self.graph.degree(root);
        let (mut reached, mut depth) = (1u64, 0u32);
        while !self.queue.is_empty() {
            if scout > edges_to_check / alpha {
                self.queue_to_bitmap();
                let mut awake = self.queue.current().len() as u64;
                loop {
                    let previous = awake;
                    let start = Instant::now();
                    let examined;
                    (awake, examined) = if self.tracing {
                        self.bottom_up_step::<true>()
                    } else {
                        self.bottom_up_step::<false>()
                    };
                    std::mem::swap(&mut self.front, &mut self.next);
                    let examined = self.tracing.then_some(examined);
                    self.log
                        .record(Direction::BottomUp, previous, awake, examined, start);
                    if awake == 0 {
                        break;
                    }
                    reached += awake;
                    depth += 1;
                    if awake < previous && awake <= n / beta {
                        break;
                    }
                }
                self.bitmap_to_queue();
                scout = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout);
                let start = Instant::now();
                let frontier = self.queue.current().len() as u64;
                let examined;
                (scout, examined) = if self.tracing {
                    self.top_down_step::<true>()
                } else {
                    self.top_down_step::<false>()
                };
                self.queue.advance();
                let discovered = self.queue.current().len() as u64;
                self.log.record(
                    Direction::TopDown,
                    frontier,
                    discovered,
                    self.tracing.then_some(examined),
                    start,
                );
                if !self.queue.is_empty() {
                    reached += self.queue.current().len() as u64;
                    depth += 1;
                }
            }
        }
        SearchStats { reached, depth }
    }

    fn parents(&self) -> &Parents {
        &self.parents
    }

    fn steps(&self) -> &[Step] {
        self.log.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }
}
