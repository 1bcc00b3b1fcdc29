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
//!   neighbour early in their list. Before it opens a row, the step tests
//!   the vertex's hub ([`Csr::hub`], its highest-degree neighbour, which
//!   kernel 1 recorded): in those middle levels the hub is usually in the
//!   frontier, and then the row, a cache miss, is not read at all. Each
//!   vertex is handled by one worker, so
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
//! bottom-up); the same step records its level beside the parent
//! ([`Parents::levels`]), which the validator may check instead of walking
//! the tree. All working memory (parents and levels, queue, three bitmaps)
//! is allocated once per engine; a search allocates nothing.
//!
//! Backends: the engine's arrays and its graph sit in one `Arc` (`Shared`)
//! that every parallel step holds, so the steps run as `'static` tasks on
//! either [`Backend`] through the engine's [`Loops`]: a top-down step over
//! chunks of the queue's window, a bottom-up step over ranges of the
//! bitmaps' words, each writing parents and bits in place. The code of a
//! step is the same on both; only who runs the chunks differs.
//!
//! [`ParBfs`]: crate::ParBfs

use crate::frontier::claim_neighbors;
use crate::loops::Loops;
use crate::{
    Backend, Bfs, Bitmap, Csr, Direction, Frontier, LocalBuffer, Parents, SearchKey, SearchStats,
    Step, StepLog, Vertex,
};
use par::LoopBody;
use par::hint::prefetch;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::time::Instant;

const WORD_BITS: usize = Bitmap::WORD_BITS;

/// Frontier vertices per work item of a top-down step.
const TOP_DOWN_GRAIN: usize = 64;
/// Bitmap words (64 vertices each) per work item of a bottom-up step.
const BOTTOM_UP_GRAIN: usize = 16;
/// Bitmap words per work item of clearing the frontier bitmap.
const CLEAR_GRAIN: usize = 1 << 12;
/// Queue entries per work item of turning the queue into a bitmap.
const QUEUE_GRAIN: usize = 1 << 10;

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
    /// On by default: bottom-up steps test each vertex's hub
    /// ([`Csr::hub`]) before its row. Off exists to measure that
    /// (`benches/ablation.sh`). The ranks' 1-D search (`graph500-dist`)
    /// always tests its hubs: it ignores this, as it does
    /// `scan_every_vertex`.
    pub ask_hubs: bool,
}

impl DoParams {
    /// Beamer's values, also GAPBS's defaults.
    pub const DEFAULT: DoParams = DoParams {
        alpha: 15,
        beta: 18,
        scan_every_vertex: false,
        ask_hubs: true,
    };
}

impl Default for DoParams {
    fn default() -> Self {
        DoParams::DEFAULT
    }
}

/// A direction-optimizing parallel BFS, on rayon or on `par`.
pub struct DoBfs {
    shared: Arc<Shared>,
    params: DoParams,
    /// `visited`'s state before a search: the degree-0 vertices and padding.
    unreachable: Bitmap,
    log: StepLog,
    /// Count the entries bottom-up steps read ([`Bfs::set_tracing`]).
    tracing: bool,
    loops: Loops<Pass>,
}

/// What the steps of a search share: the graph and the per-search arrays.
struct Shared {
    graph: Arc<Csr>,
    parents: Parents,
    queue: Frontier,
    front: Bitmap,
    next: Bitmap,
    /// Reached vertices, plus every vertex no search can reach through an
    /// edge (degree 0) and the padding bits past N: bottom-up steps look
    /// only at its clear bits, 64 vertices per word read.
    visited: Bitmap,
    /// The level the running step discovers (set between steps), which
    /// each discovery records beside its parent ([`Parents::record_level`]).
    discovering: AtomicU32,
}

/// One parallel step of a search, as a loop body: the shared state and
/// which step.
struct Pass {
    shared: Arc<Shared>,
    step: Parallel,
}

/// The parallel steps of a search, and their `0..len`.
#[derive(Clone, Copy)]
enum Parallel {
    /// Over the queue's window: claims the neighbours of each vertex.
    TopDown { count: bool },
    /// Over `front`'s words: finds a frontier parent for each unreached
    /// vertex.
    BottomUp { count: bool, ablation: Ablation },
    /// Over `front`'s words: clears them.
    ClearFront,
    /// Over the queue's window: sets its vertices' bits in `front`.
    QueueToBitmap,
    /// Over `front`'s words: appends their vertices to the queue.
    BitmapToQueue,
}

impl LoopBody for Pass {
    type Local<'a> = Option<LocalBuffer<'a>>;
    /// The degree sum of the vertices claimed (top-down) or how many were
    /// found (bottom-up), and, when counting, the adjacency entries read.
    type Out = (u64, u64);

    fn local(&self) -> Option<LocalBuffer<'_>> {
        None
    }

    fn chunk<'a>(&'a self, local: &mut Option<LocalBuffer<'a>>, range: Range<usize>) -> (u64, u64) {
        let s = &*self.shared;
        match self.step {
            Parallel::TopDown { count: true } => s.top_down::<true>(buffer(local, s), range),
            Parallel::TopDown { count: false } => s.top_down::<false>(buffer(local, s), range),
            Parallel::BottomUp {
                count: true,
                ablation,
            } => s.bottom_up::<true>(ablation, range),
            Parallel::BottomUp {
                count: false,
                ablation,
            } => s.bottom_up::<false>(ablation, range),
            Parallel::ClearFront => {
                range.for_each(|w| s.front.store_word(w, 0));
                (0, 0)
            }
            Parallel::QueueToBitmap => {
                let front = &s.front;
                s.queue.current()[range]
                    .iter()
                    .for_each(|v| front.set_atomic(v.load(Relaxed) as usize));
                (0, 0)
            }
            Parallel::BitmapToQueue => {
                s.bitmap_to_queue(buffer(local, s), range);
                (0, 0)
            }
        }
    }

    fn reduce(&self, a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
        (a.0 + b.0, a.1 + b.1)
    }
}

/// The switches of a bottom-up step that [`DoParams`] can turn off.
#[derive(Clone, Copy)]
struct Ablation {
    scan_every_vertex: bool,
    ask_hubs: bool,
}

/// A word's hub tests: the vertices they found a parent for, the rest to
/// scan by row, and (when counting) the entries read, one per test.
#[derive(Clone, Copy, Default)]
struct Asked {
    found: u64,
    rest: u64,
    examined: u64,
}

/// The participant's buffer of discoveries, made at its first use.
fn buffer<'l, 'a>(
    local: &'l mut Option<LocalBuffer<'a>>,
    shared: &'a Shared,
) -> &'l mut LocalBuffer<'a> {
    local.get_or_insert_with(|| LocalBuffer::new(&shared.queue))
}

impl DoBfs {
    /// An engine for `graph` on rayon; [`DoBfs::on`].
    pub fn new(graph: Arc<Csr>, params: DoParams) -> Self {
        DoBfs::on(Backend::Rayon, graph, params)
    }

    /// An engine for `graph` whose steps run on `backend`; allocates its
    /// parent array, queue and bitmaps (and, on pipes, its reusable loop).
    pub fn on(backend: Backend, graph: Arc<Csr>, params: DoParams) -> Self {
        let n = graph.num_vertices();
        DoBfs {
            params,
            unreachable: degree_zero_bitmap(&graph),
            log: StepLog::default(),
            tracing: false,
            loops: Loops::new(backend),
            shared: Arc::new(Shared {
                parents: Parents::with_levels(n),
                queue: Frontier::new(n),
                front: Bitmap::new(n),
                next: Bitmap::new(n),
                visited: Bitmap::new(n),
                discovering: AtomicU32::new(0),
                graph,
            }),
        }
    }

    /// The backend the steps run on.
    pub fn backend(&self) -> Backend {
        self.loops.backend()
    }

    /// Runs `step` over `0..len` in chunks of `grain`.
    fn run(&mut self, step: Parallel, len: usize, grain: usize) -> (u64, u64) {
        let pass = Pass {
            shared: Arc::clone(&self.shared),
            step,
        };
        self.loops.run(pass, len, grain).unwrap_or((0, 0))
    }

    /// Claims the neighbours of the queue's window; returns the degree sum
    /// of the claimed vertices and, when `COUNT`, the adjacency entries read.
    fn top_down_step<const COUNT: bool>(&mut self) -> (u64, u64) {
        let len = self.shared.queue.current().len();
        self.run(Parallel::TopDown { count: COUNT }, len, TOP_DOWN_GRAIN)
    }

    /// Finds a frontier parent for every unreached vertex that has one;
    /// writes them to `next` and `visited`; returns how many, and, when
    /// `COUNT`, the adjacency entries read (else 0: counting in this loop
    /// has a measured cost, docs/history-kernels.md#bfs_do).
    fn bottom_up_step<const COUNT: bool>(&mut self) -> (u64, u64) {
        let step = Parallel::BottomUp {
            count: COUNT,
            ablation: Ablation {
                scan_every_vertex: self.params.scan_every_vertex,
                ask_hubs: self.params.ask_hubs,
            },
        };
        let words = self.shared.front.num_words();
        self.run(step, words, BOTTOM_UP_GRAIN)
    }

    /// Sets the bits of the queue's window in `front` (after clearing it).
    fn queue_to_bitmap(&mut self) {
        let words = self.shared.front.num_words();
        self.run(Parallel::ClearFront, words, CLEAR_GRAIN);
        let len = self.shared.queue.current().len();
        self.run(Parallel::QueueToBitmap, len, QUEUE_GRAIN);
    }

    /// Appends the vertices of `front` to the queue and makes them its window.
    fn bitmap_to_queue(&mut self) {
        let words = self.shared.front.num_words();
        self.run(Parallel::BitmapToQueue, words, BOTTOM_UP_GRAIN);
        self.shared.queue.advance();
    }

    /// Makes `next` the frontier bitmap. No step holds the shared state
    /// between steps ([`Loops::run`] drops its body before returning).
    fn swap_bitmaps(&mut self) {
        let shared = Arc::get_mut(&mut self.shared).expect("no step runs between steps");
        std::mem::swap(&mut shared.front, &mut shared.next);
    }
}

impl Shared {
    /// The top-down step for the queue entries `range` of its window.
    fn top_down<const COUNT: bool>(
        &self,
        next: &mut LocalBuffer<'_>,
        range: Range<usize>,
    ) -> (u64, u64) {
        let (graph, parents, queue, visited) =
            (&*self.graph, &self.parents, &self.queue, &self.visited);
        let chunk = &queue.current()[range];
        let level = self.discovering.load(Relaxed);
        let mut scout = 0;
        let examined = claim_neighbors::<COUNT>(
            graph,
            parents,
            chunk,
            |v| visited.get(v as usize),
            |v| {
                parents.record_level(v, level);
                next.push(v);
                visited.set_atomic(v as usize);
                scout += graph.degree(v);
            },
        );
        (scout, examined)
    }

    /// The bottom-up step for the bitmap words `words`. Per word, first
    /// the hub test of every vertex to scan ([`Shared::ask_hubs`]), then
    /// the rows of those whose hub is not in the frontier. The hub tests of
    /// word `w + 1` run before the rows of word `w`, so that the rows left
    /// for `w + 1` are prefetched a word ahead.
    fn bottom_up<const COUNT: bool>(&self, ablation: Ablation, words: Range<usize>) -> (u64, u64) {
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
    /// Returns those vertices and the rest, whose rows are still to scan.
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
        let mut found = 0;
        let mut bits = todo;
        while bits != 0 {
            let bit = bits.trailing_zeros();
            bits &= bits - 1;
            let u = first_vertex_of_word(w) + bit;
            let hub = self.graph.hub(u);
            if self.front.get(hub as usize) {
                self.parents.set(u, hub);
                self.parents.record_level(u, level);
                found |= 1 << bit;
            }
        }
        Asked {
            found,
            rest: todo & !found,
            examined,
        }
    }

    /// Appends the vertices of `front`'s words `words` to `buffer`.
    fn bitmap_to_queue(&self, buffer: &mut LocalBuffer<'_>, words: Range<usize>) {
        for w in words {
            let mut bits = self.front.word(w);
            while bits != 0 {
                buffer.push(first_vertex_of_word(w) + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
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

/// The first vertex of bitmap word `w`; ids fit a [`Vertex`] by the graph's
/// invariant, so this cannot fail for a word of the graph's bitmaps.
#[inline]
fn first_vertex_of_word(w: usize) -> Vertex {
    Vertex::try_from(w * WORD_BITS).expect("bitmap words cover vertex ids")
}

impl Bfs for DoBfs {
    fn reset(&mut self) {
        let shared = &self.shared;
        shared.parents.reset();
        shared.queue.reset();
        shared.visited.copy_from(&self.unreachable);
        self.log.clear();
    }

    /// Allocates nothing, on either backend.
    fn search(&mut self, root: SearchKey) -> SearchStats {
        let n = self.shared.graph.num_vertices() as u64;
        let (alpha, beta) = (self.params.alpha.max(1), self.params.beta.max(1));
        let root = root.vertex();
        self.shared.parents.set(root, root);
        self.shared.parents.record_level(root, 0);
        self.shared.visited.set_atomic(root as usize);
        self.shared.queue.append(&[root]);
        self.shared.queue.advance();
        let mut edges_to_check = self.shared.graph.num_arcs() as u64;
        let mut scout = self.shared.graph.degree(root);
        let (mut reached, mut depth) = (1u64, 0u32);
        while !self.shared.queue.is_empty() {
            if scout > edges_to_check / alpha {
                self.queue_to_bitmap();
                let mut awake = self.shared.queue.current().len() as u64;
                loop {
                    let previous = awake;
                    self.shared.discovering.store(depth + 1, Relaxed);
                    let start = Instant::now();
                    let examined;
                    (awake, examined) = if self.tracing {
                        self.bottom_up_step::<true>()
                    } else {
                        self.bottom_up_step::<false>()
                    };
                    self.swap_bitmaps();
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
                self.shared.discovering.store(depth + 1, Relaxed);
                let start = Instant::now();
                let frontier = self.shared.queue.current().len() as u64;
                let examined;
                (scout, examined) = if self.tracing {
                    self.top_down_step::<true>()
                } else {
                    self.top_down_step::<false>()
                };
                self.shared.queue.advance();
                let discovered = self.shared.queue.current().len() as u64;
                self.log.record(
                    Direction::TopDown,
                    frontier,
                    discovered,
                    self.tracing.then_some(examined),
                    start,
                );
                if !self.shared.queue.is_empty() {
                    reached += self.shared.queue.current().len() as u64;
                    depth += 1;
                }
            }
        }
        SearchStats { reached, depth }
    }

    fn parents(&self) -> &Parents {
        &self.shared.parents
    }

    fn steps(&self) -> &[Step] {
        self.log.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }
}
