//! `DistBfs`: direction-optimizing BFS across the ranks of a [`Comm`]
//! (distributed kernel 2), over the 1-D block [`Partition`](crate::Partition).
//!
//! Level-synchronous; at every level all ranks take the same direction, by
//! Beamer's heuristic on global counts with the formulas of
//! `kernels::DoBfs` ([`DoParams`]): bottom-up when the frontier's edges
//! exceed `m_u / alpha` (`m_u`: edges not yet checked top-down); back
//! top-down when the frontier shrinks to at most `N / beta` vertices.
//! The ranks' defaults ([`DEFAULT_PARAMS`]) switch bottom-up sooner than
//! one process's.
//!
//! - **top-down**: each rank scans the rows of its frontier (a queue of
//!   local indices); a neighbour it owns it claims by its visited bit (an
//!   atomic OR), any other goes to its owner as a `(vertex, parent)` pair
//!   of type `I`, all of the level's pairs in one exchange, and the owner
//!   claims them the same way. `2 size_of::<I>()` bytes per arc to another
//!   rank, except the hubs' arcs: a hub (one of the few vertices of highest
//!   degree) is announced to every rank as one pair, and each rank claims
//!   its own neighbours of it from its *delegates*, the hub's arcs it holds
//!   as their reverse arcs (`delegates.rs`).
//! - **bottom-up**: each rank's frontier is a bitmap of its own words; one
//!   all-gather of them is the global frontier (`N / 8` bytes to each rank);
//!   each unreached vertex first tests its hub (its neighbour of highest
//!   degree class among its first arcs, `hubs.rs`), and only if the hub is
//!   not in the frontier scans its row for the first neighbour that is. The
//!   hub tests of the next word run before the rows of this one, so that
//!   the rows left for it are prefetched a word ahead, as in
//!   `kernels::DoBfs`. A worker owns whole words, so parents are stored
//!   without CAS.
//!
//! Collectives: one all-gather of `N` degree classes and one all-reduce
//! of the counts per class when the [`BfsIndex`] (the hubs, the
//! delegates) is built (by kernel 1, or by [`DistBfs::new`] when not
//! given one); one all-reduce to start a search (root degree, arcs);
//! per level one exchange or one all-gather, then one all-reduce of the
//! level's discovered vertices and their edges (the next direction, and
//! the end when none); two all-reduces to end (bytes summed, seconds
//! maxed, for all steps). Only global counts steer them, so every rank, one without
//! vertices too, makes the same calls in the same order.
//!
//! Invariants: a vertex gets its parent (the global id of a vertex of the
//! previous level) in the step that discovers it, once, and with it its
//! claimed level ([`DistBfs::claims`]: the step's level as a byte,
//! [`NO_LEVEL`] past 254 and for unreached vertices); `visited` holds the
//! reached and edgeless vertices and the padding past the rank's last one.
//! [`DistBfs::with_index`] allocates the per-search arrays; the steps
//! keep their buffers (a top-down step's pairs out and in, its threads'
//! shares: `crate::shares`), so a search allocates nothing once they have
//! grown (test `searches_allocate_nothing`).
//!
//! A rank's loops run on its [`Backend`] ([`DistBfs::on`]), each written
//! once against its chunked loops ([`Backend::for_each_chunk_init`] and
//! the like): on rayon, a task per piece; on pipes, `par`'s threads started
//! per loop (which allocates, by design).

use crate::comm::{Comm, Reduce, all_reduce};
use crate::{Id, LocalGraph};
use kernels::{Direction, DoParams, NO_LEVEL, SearchStats};
use par::Backend;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

pub use index::BfsIndex;

/// The parent of a vertex no search has reached (never a vertex id).
pub const NO_PARENT: u64 = u64::MAX;

/// The ranks' switching parameters when none are given: one process's
/// ([`DoParams::DEFAULT`]) but alpha 30, bottom-up sooner. A ranks'
/// top-down step sends every arc to a remote vertex as a pair, and the
/// rank that owns the hubs scans their rows alone, so its steps over a
/// few hubs cost 2-4 times one process's; switching sooner took 0.92 of
/// the search time at 2 ranks x 1 thread, SCALE 18, 20 and 22 (paired
/// over the same 64 roots; docs/history-kernels.md, dist-bfs).
pub const DEFAULT_PARAMS: DoParams = DoParams {
    alpha: 30,
    ..DoParams::DEFAULT
};

/// The fewest frontier vertices (or received pairs) per work item of a
/// top-down step; a step makes about [`PIECES_PER_THREAD`] items a thread.
const TOP_DOWN_GRAIN: usize = 64;
/// Work items per thread of a top-down step: enough to balance skewed
/// degrees (each item's claims are summed after it, a pass of its own).
const PIECES_PER_THREAD: usize = 8;
/// Vertices per work item of a reset, of counting nedge.
const RESET_GRAIN: usize = 1 << 14;
const NEDGE_GRAIN: usize = 1 << 12;

/// Items of `len` per work item so that `threads` threads get about
/// [`PIECES_PER_THREAD`] each, at least `least`.
fn pieces_of(len: usize, threads: usize, least: usize) -> usize {
    len.div_ceil(threads * PIECES_PER_THREAD).max(least)
}

/// One step (level) of a distributed search, the same on every rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistStep {
    /// The direction every rank took.
    pub direction: Direction,
    /// Global vertices in the frontier the step started from.
    pub frontier: u64,
    /// Global vertices the step discovered.
    pub discovered: u64,
    /// Adjacency entries a top-down step scanned (the frontier's arcs,
    /// global); 0 for a bottom-up step, which does not count them.
    pub scanned: u64,
    /// Hubs in a top-down step's frontier, announced to every rank instead
    /// of scanned by their owners (0 bottom-up).
    pub hubs: u64,
    /// Their arcs, of `scanned`, which the ranks' delegates scanned: no
    /// pair crossed the network for them (0 bottom-up).
    pub delegated: u64,
    /// Bytes sent by all ranks in this step (its closing all-reduce
    /// included), summed.
    pub bytes: u64,
    /// Seconds the step took on the slowest rank.
    pub seconds: f64,
}

/// A distributed direction-optimizing BFS engine: one per rank, bound to
/// that rank's [`LocalGraph`] and the ranks of `comm`.
pub struct DistBfs<'c, I: Id> {
    comm: &'c dyn Comm,
    graph: Arc<LocalGraph<I>>,
    params: DoParams,
    /// What runs this rank's parallel loops.
    backend: Backend,
    /// Parents (global ids) by local index.
    parents: Vec<AtomicU64>,
    /// The level each vertex was found at, by local index (a claim).
    claims: Vec<AtomicU8>,
    /// Each local row's hub (global id), tested before its row bottom-up,
    /// and per hub of the graph this rank's neighbours of it (top-down).
    index: Arc<BfsIndex<I>>,
    /// Top-down frontiers (local indices); bottom-up ones (local words).
    queue: Vec<usize>,
    next_queue: Vec<usize>,
    front: Vec<u64>,
    next: Vec<u64>,
    /// The global frontier bitmap, every rank's words in rank order.
    global: Vec<u64>,
    /// Reached, edgeless and padding bits; `unreachable`: the last two.
    visited: Vec<AtomicU64>,
    unreachable: Vec<u64>,
    /// What the top-down steps keep; `partition.words(r)`.
    top_down: top_down::TopDownBuffers<I>,
    word_counts: Vec<usize>,
    steps: Vec<DistStep>,
    step_bytes: Vec<u64>,
    step_nanos: Vec<u64>,
}

impl<'c, I: Id> DistBfs<'c, I> {
    /// Bytes of the per-search arrays of a rank with `rows` vertices in a
    /// graph of `num_vertices`: parents (8 a vertex), claimed levels (1),
    /// two queues (8 each), four bitmaps of the rank's vertices, the
    /// global frontier bitmap (`N / 8`), and its [`BfsIndex`] over `arcs`
    /// ([`BfsIndex::bytes_for`]). A top-down step's messages come on
    /// top; they are bounded by the level's arcs to other ranks.
    pub fn bytes_for(rows: u64, num_vertices: u64, arcs: u64) -> u64 {
        let index = BfsIndex::<I>::bytes_for(rows, num_vertices, arcs);
        25 * rows + 4 * rows.div_ceil(64) * 8 + num_vertices.div_ceil(64) * 8 + index
    }

    /// An engine for this rank's `graph` (built over the same ranks as
    /// `comm`) whose loops run on rayon. Collective: builds its
    /// [`BfsIndex`] (one all-gather of `N` bytes). Allocates the per-search arrays once
    /// ([`DistBfs::bytes_for`]), the parents and claimed levels on huge
    /// pages where the system grants them (`par::huge`, as one process's).
    pub fn new(comm: &'c dyn Comm, graph: Arc<LocalGraph<I>>, params: DoParams) -> Self {
        DistBfs::on(Backend::Rayon, comm, graph, params)
    }

    /// [`DistBfs::new`] with this rank's loops on `backend` (on pipes,
    /// threads of `par` started per loop, [`Backend::map`]).
    pub fn on(
        backend: Backend,
        comm: &'c dyn Comm,
        graph: Arc<LocalGraph<I>>,
        params: DoParams,
    ) -> Self {
        let index = Arc::new(BfsIndex::build_on(backend, comm, &graph));
        DistBfs::with_index(backend, comm, graph, index, params)
    }

    /// [`DistBfs::on`] over an `index` kernel 1 built for `graph`
    /// ([`BfsIndex::build_on`]), shared, not copied. Not collective.
    ///
    /// # Panics
    /// If `graph` is not this rank's over the ranks of `comm`, or `index`
    /// was built over other rows.
    pub fn with_index(
        backend: Backend,
        comm: &'c dyn Comm,
        graph: Arc<LocalGraph<I>>,
        index: Arc<BfsIndex<I>>,
        params: DoParams,
    ) -> Self {
        let part = *graph.partition();
        assert_eq!(part.ranks(), comm.size(), "the graph's ranks are comm's");
        assert_eq!(graph.rank(), comm.rank(), "the graph is this rank's");
        assert_eq!(
            (index.rank, index.rows),
            (graph.rank(), graph.num_rows()),
            "the index is the graph's"
        );
        let rows = graph.num_rows();
        let words = part.words(comm.rank());
        let isolated = |u: usize| u >= rows || graph.degree(u) == 0;
        let unreachable: Vec<u64> = (0..words)
            .map(|w| {
                (0..64)
                    .filter(|&b| isolated(w * 64 + b))
                    .fold(0, |m, b| m | 1 << b)
            })
            .collect();
        let word_counts: Vec<usize> = (0..comm.size()).map(|r| part.words(r)).collect();
        DistBfs {
            index,
            comm,
            params,
            backend,
            parents: par::huge::filled(rows, |_| AtomicU64::new(NO_PARENT)),
            claims: par::huge::filled(rows, |_| AtomicU8::new(NO_LEVEL)),
            queue: Vec::with_capacity(rows),
            next_queue: Vec::with_capacity(rows),
            front: vec![0; words],
            next: vec![0; words],
            global: vec![0; word_counts.iter().sum()],
            visited: unreachable.iter().map(|&w| AtomicU64::new(w)).collect(),
            unreachable,
            top_down: top_down::TopDownBuffers::new(comm.size()),
            word_counts,
            steps: Vec::new(),
            step_bytes: Vec::new(),
            step_nanos: Vec::new(),
            graph,
        }
    }

    /// Clears the per-search state: every local vertex unreached, no
    /// steps. O(local N), parallel; not collective.
    pub fn reset(&mut self) {
        let (parents, claims) = (&self.parents, &self.claims);
        self.backend.map_ranges(parents.len(), RESET_GRAIN, |r| {
            parents[r.clone()]
                .iter()
                .for_each(|p| p.store(NO_PARENT, Relaxed));
            claims[r].iter().for_each(|l| l.store(NO_LEVEL, Relaxed));
        });
        for (v, &u) in self.visited.iter().zip(&self.unreachable) {
            v.store(u, Relaxed);
        }
        self.queue.clear();
        self.steps.clear();
        self.step_bytes.clear();
        self.step_nanos.clear();
    }

    /// Searches from the global vertex `root`, filling
    /// [`parents`](Self::parents). Collective: every rank passes the same
    /// root, after [`reset`](Self::reset) if it searched before. Returns the
    /// global reached count and depth (the same on every rank); ends with a
    /// collective, so every rank has finished. Cost per level: the local
    /// frontier's rows (top-down) or the unreached local vertices' rows up
    /// to their first frontier neighbour (bottom-up), plus the level's
    /// collectives (see the module comment).
    pub fn search(&mut self, root: u64) -> SearchStats {
        let part = *self.graph.partition();
        let n = part.num_vertices();
        assert!(root < n, "root {root} is not a vertex ({n} vertices)");
        let (alpha, beta) = (self.params.alpha.max(1), self.params.beta.max(1));
        let mut root_degree = 0;
        if part.owner(root) == self.comm.rank() {
            let u = part.local(root);
            self.parents[u].store(root, Relaxed);
            self.claims[u].store(0, Relaxed);
            self.visited[u / 64].fetch_or(1 << (u % 64), Relaxed);
            self.queue.push(u);
            root_degree = self.graph.degree(u);
        }
        let arcs = self.graph.num_arcs() as u64;
        let [mut scout, mut edges_to_check] =
            all_reduce(self.comm, [root_degree, arcs], Reduce::Sum);
        let (mut frontier, mut reached, mut depth) = (1u64, 1u64, 0u32);
        let mut direction = Direction::TopDown;
        // This rank's part of the queue's degree sum (what a top-down step
        // scans), known wherever the queue is made: no pass of its own.
        let mut queue_arcs = root_degree;
        loop {
            let start = Instant::now();
            let sent = self.comm.bytes_sent();
            if direction == Direction::TopDown && scout > edges_to_check / alpha {
                self.queue_to_front();
                direction = Direction::BottomUp;
            }
            // The level this step's vertices are found at, as claimed.
            let level = u8::try_from(depth + 1).unwrap_or(NO_LEVEL);
            let (found, found_scout, scanned, hubs, delegated) = match direction {
                Direction::TopDown => {
                    edges_to_check = edges_to_check.saturating_sub(scout);
                    let step = self.top_down_step(level);
                    let scanned = std::mem::replace(&mut queue_arcs, step.scout);
                    (step.found, step.scout, scanned, step.hubs, step.delegated)
                }
                Direction::BottomUp => (self.bottom_up_step(level), 0, 0, 0, 0),
            };
            let counts = [found, found_scout, scanned, hubs, delegated];
            let [discovered, next_scout, scanned, hubs, delegated] =
                all_reduce(self.comm, counts, Reduce::Sum);
            self.steps.push(DistStep {
                direction,
                frontier,
                discovered,
                scanned,
                hubs,
                delegated,
                bytes: 0,
                seconds: 0.0,
            });
            self.step_bytes.push(self.comm.bytes_sent() - sent);
            self.step_nanos
                .push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
            if discovered == 0 {
                break;
            }
            reached += discovered;
            depth += 1;
            match direction {
                Direction::TopDown => scout = next_scout,
                Direction::BottomUp => {
                    if discovered < frontier && discovered <= n / beta {
                        queue_arcs = self.front_to_queue();
                        direction = Direction::TopDown;
                        scout = 1;
                    }
                }
            }
            frontier = discovered;
        }
        // Every rank made the same number of steps.
        self.comm.all_reduce(&mut self.step_bytes, Reduce::Sum);
        self.comm.all_reduce(&mut self.step_nanos, Reduce::Max);
        for ((step, &bytes), &nanos) in self
            .steps
            .iter_mut()
            .zip(&self.step_bytes)
            .zip(&self.step_nanos)
        {
            step.bytes = bytes;
            step.seconds = std::time::Duration::from_nanos(nanos).as_secs_f64();
        }
        SearchStats { reached, depth }
    }

    /// The parents of this rank's vertices after the last search, by local
    /// index, as global ids: [`NO_PARENT`] if unreached, the root's is the
    /// root.
    pub fn parents(&self) -> &[AtomicU64] {
        &self.parents
    }

    /// The level at which the last search found each of this rank's
    /// vertices, by local index: 0 for the root, [`NO_LEVEL`] for the
    /// unreached and past level 254. Recorded with each parent, a byte
    /// store; a claim for the validator to prove, not a proof.
    pub fn claims(&self) -> &[AtomicU8] {
        &self.claims
    }

    /// The last search's nedge: half the degree sum of the reached vertices
    /// over all ranks (the rule of `kernels::Csr::nedge`). Collective; one
    /// all-reduce and O(local N), parallel.
    pub fn nedge(&self) -> u64 {
        let (graph, parents) = (&*self.graph, &self.parents);
        let arcs: u64 = (self.backend)
            .map_ranges(parents.len(), NEDGE_GRAIN, |r| {
                r.filter(|&u| parents[u].load(Relaxed) != NO_PARENT)
                    .map(|u| graph.degree(u))
                    .sum::<u64>()
            })
            .into_iter()
            .sum();
        all_reduce(self.comm, [arcs], Reduce::Sum)[0] / 2
    }

    /// The levels of the last search, the same on every rank.
    pub fn steps(&self) -> &[DistStep] {
        &self.steps
    }
}

pub(crate) mod bottom_up;
pub(crate) mod delegates;
pub(crate) mod hubs;
mod index;
#[cfg(test)]
mod tests;
mod top_down;
