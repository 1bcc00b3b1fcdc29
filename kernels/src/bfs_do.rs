//! `DoBfs`: direction-optimizing BFS (Beamer, Asanović and Patterson, 2012).
//!
//! A level-synchronous search that picks, per level, the cheaper direction:
//!
//! - **top-down**: scan the neighbours of each frontier vertex (a queue,
//!   [`Frontier`]) and claim the unreached ones, as [`ParBfs`](crate::ParBfs) does, but by
//!   an atomic OR on their `visited` bit rather than a CAS on their parent.
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
//! a vertex of the previous level, and only once (its `visited` bit
//! top-down; one owner bottom-up); the same step records its level beside
//! the parent ([`Parents::levels`]), which the validator may check instead
//! of walking the tree. All working memory (parents and levels, queue,
//! three bitmaps) is allocated once per engine; a search allocates nothing.
//!
//! Backends: the engine's arrays and its graph sit in one `Arc` (`Shared`)
//! that every parallel step holds, so the steps run as `'static` tasks on
//! either [`Backend`] through the engine's [`Loops`]: a top-down step over
//! chunks of the queue's window, a bottom-up step over ranges of the
//! bitmaps' words, each writing parents and bits in place. The code of a
//! step is the same on both; only who runs the chunks differs.
//!
//!
//! Files: this one holds the parameters, the engine and its shared state,
//! and the dispatch of the parallel steps; `bfs_do/top_down.rs` the
//! top-down step and the queue/bitmap conversions, `bfs_do/bottom_up.rs`
//! the bottom-up step (hub tests, row scans, prefetching), and
//! `bfs_do/switch.rs` the search itself: which direction each level takes.

mod bottom_up;
pub use bottom_up::bottom_up_grain;
mod switch;
mod top_down;

use crate::loops::Loops;
use crate::{Backend, Bitmap, Csr, Frontier, LocalBuffer, Parents, StepLog, Vertex};
use bottom_up::degree_zero_bitmap;
use par::LoopBody;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

const WORD_BITS: usize = Bitmap::WORD_BITS;

/// Frontier vertices per work item of a top-down step.
const TOP_DOWN_GRAIN: usize = 64;
/// Bitmap words (64 vertices each) per work item of a bottom-up step
/// (at most; `bottom_up_grain`) and of turning the bitmap
/// into the queue.
const BOTTOM_UP_GRAIN: usize = 64;
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
    /// Beamer's alpha (GAPBS's default), and beta 72 where Beamer and
    /// GAPBS have 18: this kernel's bottom-up steps (hub tests, skipped
    /// rows) are cheap enough that staying bottom-up until the shrinking
    /// frontier holds `N / 72` vertices paid at SCALE 18-24 on 1 and 2
    /// threads, one process and two ranks (`benches/paired.rs`;
    /// docs/history-kernels.md, "beta 72").
    pub const DEFAULT: DoParams = DoParams {
        alpha: 15,
        beta: 72,
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
    /// Count the entries bottom-up steps read ([`Bfs::set_tracing`](crate::Bfs::set_tracing)).
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

    /// The switching parameters of the next searches. Costs nothing: no
    /// array of the engine depends on them, so one engine can compare
    /// parameters search by search on the same memory
    /// (`benches/paired.rs`).
    pub fn set_params(&mut self, params: DoParams) {
        self.params = params;
    }

    /// Runs `step` over `0..len` in chunks of `grain`.
    fn run(&mut self, step: Parallel, len: usize, grain: usize) -> (u64, u64) {
        let pass = Pass {
            shared: Arc::clone(&self.shared),
            step,
        };
        self.loops.run(pass, len, grain).unwrap_or((0, 0))
    }
}

/// The first vertex of bitmap word `w`; ids fit a [`Vertex`] by the graph's
/// invariant, so this cannot fail for a word of the graph's bitmaps.
#[inline]
fn first_vertex_of_word(w: usize) -> Vertex {
    Vertex::try_from(w * WORD_BITS).expect("bitmap words cover vertex ids")
}
