//! `DistSssp`: delta-stepping across the ranks of a [`Comm`] (distributed
//! kernel 3), on each rank's [`WeightedLocalGraph`] over the 1-D block
//! [`Partition`](crate::Partition).
//!
//! The buckets of `kernels::DeltaStepping`: bucket `b` holds the vertices
//! whose tentative distance lies in `[b delta, (b + 1) delta)`. Every rank
//! settles the same bucket at a time: *light phases* (its waiting vertices
//! relax their arcs lighter than `delta`) until no rank has a vertex
//! waiting in it, then one *heavy phase* (every vertex it settled relaxes
//! its heavy arcs, once); the next bucket is the lowest one any rank has a
//! vertex waiting in. Each rank owns its vertices' state: distance (`f32`
//! bits), the bucket it waits in and two flags packed in one word
//! (`state.rs`), and the parent (global id). A phase scans the
//! queue, offering each arc's target `dist[u] + w`, sends the offers in one
//! exchange, applies those received (the least distance by compare-and-swap,
//! then the parent of an offer of that distance; on a rank of one thread
//! in one pass of plain loads and stores), and agrees on what comes next
//! in one all-reduce (`phase.rs`).
//!
//! What keeps the offers few, as the single process skips its done
//! targets and pulls its big buckets:
//! - when a bucket's light phases end, every rank publishes the vertices it
//!   settled and their distances (`done.rs`): every rank knows which
//!   vertices of the whole graph are done and offers them nothing;
//! - an offer to another rank's vertex goes out only if below every offer
//!   this rank sent it this search (each one sent was applied), and one to
//!   an own vertex only if below its distance;
//! - a heavy phase runs as a pull (`pull.rs`) when `kernels::SsspCost`
//!   finds it cheaper, from figures summed in the same publishing: each
//!   rank's open vertices read their done neighbours' published distances,
//!   and nothing is exchanged.
//!
//! Invariants:
//! - a phase's offers to other ranks' vertices are computed from the
//!   distances as it began, and so are all its offers on a rank of several
//!   threads; a rank of one thread applies an offer to its own vertex at
//!   once (`phase.rs`, `Scan::offer`), as one process's compare-and-swap
//!   does, so a vertex scanned later in the phase may offer from a
//!   distance the phase lowered. Either way distances only drop, and a
//!   vertex takes a parent only with the distance that parent's offer
//!   gave: `dist[v] == dist[parent] + w` exactly in `f32`, and the parents
//!   form a tree rooted at the root, also with zero weights
//!   (`DistSssp::apply`: each lowering is strict, so a link made to close
//!   a cycle would need its target's distance below itself);
//! - an offer is left unsent, and a pull passes an arc over, only where it
//!   could not lower its target, so each phase still leaves every vertex
//!   at the least of its distance and its offers: the distances are the
//!   single process's bit for bit (the least fixpoint of the `f32`
//!   relaxations) for any `P` and thread count, and so are the buckets
//!   and the vertices each settles (a vertex settles in the bucket of its
//!   final distance); the phases a bucket takes are the same for any `P`
//!   whose ranks run on several threads (one-thread ranks may need fewer);
//!   parents may differ;
//! - after a bucket's publishing every rank holds the same done set, the
//!   vertices of the buckets settled so far, with their final distances;
//! - a vertex waits in at most one bin (the bucket in its state) and never
//!   returns to a bucket it left, so a phase's queue holds it once and one
//!   worker at a time writes its state in a scan or a pull (an apply
//!   writes it only by compare-and-swap, or as the rank's one thread);
//! - only global values steer the collectives (the push or pull choice
//!   too), so every rank, one without vertices too, makes the same calls
//!   in the same order.
//!
//! Cost per phase: each queued vertex's light (or heavy) arcs and the
//! offers it sends (`3 size_of::<I>()` bytes each); one exchange (counts,
//! then offers) and one all-reduce. Per bucket two all-gathers publish its
//! settled vertices (`2 size_of::<I>()` bytes each to every other rank); a
//! pull reads every open vertex's heavy arcs. Two all-reduces end a search.
//! Memory: [`DistSssp::bytes_for`], and per rank `N / 8 + 4 N` bytes for
//! what it knows of the whole graph, up to 48 ranks (`done.rs` says why
//! that many; beyond, no rank shares its done vertices or pulls).
//! On rayon the buffers are kept from phase to phase and search to search,
//! so a search allocates nothing per bucket once warm; on pipes each loop
//! also starts `par`'s threads and lists its chunks
//! ([`Backend::for_each_chunk_init`]).

use crate::comm::Comm;
use crate::shares::{lock, one_per_thread};
use crate::{Id, NO_PARENT, WeightedLocalGraph};
use done::{Done, FIGURES};
use kernels::{Bins, Bitmap, BucketStep, SsspParams, SsspStats};
use par::Backend;
use phase::index;
use state::UNREACHED_STATE;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod done;
mod phase;
mod pull;
mod results;
mod state;

/// Vertices per parallel task of the passes over all of them.
const RESET_GRAIN: usize = 1 << 14;
const COUNT_GRAIN: usize = 1 << 12;

/// Which arcs a phase relaxes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Light,
    Heavy,
}

/// One worker's share: its offers by destination rank, its bins (local
/// indices by bucket), the current bucket's vertices it settled, and the
/// vertices of its range of a pull that pull.
struct Worker<I> {
    out: Vec<Vec<[I; 3]>>,
    bins: Bins<u32>,
    settled: Vec<u32>,
    visit: Vec<u32>,
}

/// A distributed delta-stepping engine: one per rank, bound to that rank's
/// [`WeightedLocalGraph`] and the ranks of `comm`.
pub struct DistSssp<'c, I: Id> {
    comm: &'c dyn Comm,
    /// What runs this rank's parallel loops.
    backend: Backend,
    /// Whether they run on one thread (the current search's pool: one
    /// [`Backend::slots`]), so that no other thread writes this rank's
    /// arrays meanwhile and plain loads and stores replace the locked
    /// instructions (`phase.rs`, `done.rs`).
    alone: bool,
    graph: Arc<WeightedLocalGraph<I>>,
    delta: f32,
    /// Whether the rows are split at `delta` (light arcs a prefix).
    split: bool,
    /// Split rows only: the own vertices with a light arc, so that a light
    /// scan passes the others (most of a Kronecker graph's: `delta` is
    /// about a sixty-fourth of the weights) without reading their rows'
    /// bounds: `N / (8 P)` bytes, which stay in cache where the bounds
    /// (12 bytes a row) do not.
    light_rows: Bitmap,
    /// Split rows only: per own vertex a lower bound on its heavy arcs'
    /// weights (infinite without any), which a pull reads in vertex order
    /// to pass a vertex that cannot improve without reading its row
    /// (`N / P` floats); and the vertices below the last one with a heavy
    /// arc, the only ones a pull visits (the degree order puts the
    /// vertices without arcs last). Rows not split: no bounds, every row.
    lightest_heavy: Vec<f32>,
    pull_end: usize,
    /// The rows below the last one with an arc: no search reaches a row
    /// from here on unless it is the root, so the report passes them (their
    /// reported entries stay unreached, but a root's, which `reset`
    /// restores: `tail_root`).
    arcs_end: usize,
    tail_root: Option<usize>,
    tracing: bool,
    /// Per own vertex: distance bits, the bucket it waits in, lowered by
    /// the current apply, listed as settled by the bucket (`state.rs`);
    /// and its parent.
    state: Vec<AtomicU64>,
    parents: Vec<AtomicU64>,
    /// The last search's parents (original ids) and distances (`-1`
    /// unreached) by original local index, written as it ends
    /// (`results.rs`): the graph's rows are renumbered by degree.
    reported: Vec<AtomicU64>,
    reported_dist: Vec<AtomicU32>,
    /// The vertices of every rank whose distance is final.
    done: Done<I>,
    /// This rank's heavy arcs, and its vertices below `pull_end` and
    /// heavy arcs not done.
    heavy_arcs: u64,
    open: [u64; 2],
    /// Heavy phases of the last search run as pulls.
    pulls: u32,
    workers: Vec<Mutex<Worker<I>>>,
    /// The vertices the current phase scans (local indices).
    queue: Vec<u32>,
    /// The phase's offers by destination rank, and those received (with
    /// their count from each rank).
    send: Vec<[I; 3]>,
    send_counts: Vec<usize>,
    received: Vec<[I; 3]>,
    recv_counts: Vec<usize>,
    /// The last search's buckets when traced, and per traced bucket this
    /// rank's settled vertices and nanoseconds until reduced.
    steps: Vec<BucketStep>,
    sums: Vec<u64>,
    maxes: Vec<u64>,
    /// Bytes all ranks sent in the last search.
    bytes: u64,
}

impl<'c, I: Id> DistSssp<'c, I> {
    /// Shares no done vertex with the other ranks, as beyond
    /// `SHARED_UP_TO` ranks (for tests of that path at small `P`). Every
    /// rank must make the same call.
    #[cfg(test)]
    pub(crate) fn share_nothing(&mut self) {
        self.done = Done::new(self.graph.partition(), false);
    }

    /// Bytes of the per-search arrays of a rank with `rows` vertices: 32 a
    /// vertex (a state word of distance, bucket and two flags, 8; parent
    /// 8; the parent and distance reported by original index, 12; the
    /// lower bound of its heavy arcs, 4), and a bit a vertex of which have
    /// light arcs; and the graph's renumbering
    /// ([`WeightedLocalGraph::original`]: `size_of::<I>()` bytes a vertex
    /// of the graph and 4 an own one). The phase
    /// buffers come on top and are kept at the largest phase's size: 4
    /// bytes per queued or waiting vertex, and per offer `3 size_of::<I>()`
    /// bytes in a worker's buffer, again in the outgoing run, and as many
    /// per offer received; so do `N / 8 + 4 N` bytes of what the rank
    /// knows of the whole graph (the module comment).
    pub fn bytes_for(rows: u64, num_vertices: u64, ranks: usize) -> u64 {
        let renumbering = size_of::<I>() as u64 * num_vertices + 4 * rows;
        32 * rows + rows.div_ceil(64) * 8 + renumbering + Done::<I>::bytes_for(num_vertices, ranks)
    }

    /// An engine for this rank's `graph` (built over the same ranks as
    /// `comm`), with buckets of width `params.delta()`; the light arcs are
    /// read as a row prefix when the graph is split at that width
    /// ([`WeightedLocalGraph::light_below`]), else picked from each row.
    /// Not collective. Allocates the per-search arrays once
    /// ([`DistSssp::bytes_for`]). Panics if the rank owns 2^32 vertices or
    /// more. Its loops run on rayon.
    pub fn new(comm: &'c dyn Comm, graph: Arc<WeightedLocalGraph<I>>, params: SsspParams) -> Self {
        DistSssp::on(Backend::Rayon, comm, graph, params)
    }

    /// [`DistSssp::new`] with this rank's loops on `backend` (on pipes,
    /// threads of `par` started per loop, [`Backend::map`]).
    pub fn on(
        backend: Backend,
        comm: &'c dyn Comm,
        graph: Arc<WeightedLocalGraph<I>>,
        params: SsspParams,
    ) -> Self {
        let part = *graph.partition();
        assert_eq!(part.ranks(), comm.size(), "the graph's ranks are comm's");
        assert_eq!(graph.rank(), comm.rank(), "the graph is this rank's");
        let rows = graph.num_rows();
        assert!(
            u32::try_from(rows).is_ok(),
            "a rank counts its vertices in 32 bits"
        );
        let delta = params.delta();
        let split = graph.light_below() == delta;
        let light_rows = Bitmap::new(if split { rows } else { 0 });
        if split {
            backend.map_ranges(rows, COUNT_GRAIN, |r| {
                r.filter(|&u| graph.light_and_heavy(u).0.len() > 0)
                    .for_each(|u| light_rows.set_atomic(u));
            });
        }
        let lightest_heavy = if split {
            let parts = backend.map_ranges(rows, COUNT_GRAIN, |r| {
                r.map(|u| graph.heavy_lower_bound(u)).collect::<Vec<_>>()
            });
            parts.concat()
        } else {
            Vec::new()
        };
        let pull_end = if split {
            let last = lightest_heavy.iter().rposition(|w| w.is_finite());
            last.map_or(0, |u| u + 1)
        } else {
            rows
        };
        let arcs_end = (0..rows)
            .rposition(|u| graph.degree(u) > 0)
            .map_or(0, |u| u + 1);
        let mut engine = DistSssp {
            comm,
            backend,
            alone: false,
            delta,
            split,
            light_rows,
            lightest_heavy,
            pull_end,
            arcs_end,
            tail_root: None,
            tracing: false,
            state: (0..rows).map(|_| AtomicU64::new(UNREACHED_STATE)).collect(),
            parents: (0..rows).map(|_| AtomicU64::new(NO_PARENT)).collect(),
            reported: (0..rows).map(|_| AtomicU64::new(NO_PARENT)).collect(),
            reported_dist: (0..rows)
                .map(|_| AtomicU32::new((-1f32).to_bits()))
                .collect(),
            done: Done::new(&part, part.ranks() <= done::SHARED_UP_TO),
            heavy_arcs: 0,
            open: [0; 2],
            pulls: 0,
            workers: Vec::new(),
            queue: Vec::new(),
            send: Vec::new(),
            send_counts: vec![0; comm.size()],
            received: Vec::new(),
            recv_counts: Vec::new(),
            steps: Vec::new(),
            sums: Vec::new(),
            maxes: Vec::new(),
            bytes: 0,
            graph,
        };
        let heavy = backend.map_ranges(rows, COUNT_GRAIN, |r| {
            r.map(|u| engine.heavy_degree(u)).sum::<u64>()
        });
        engine.heavy_arcs = heavy.into_iter().sum();
        engine.open = [engine.pull_end as u64, engine.heavy_arcs];
        engine
    }

    /// Asks searches to record their buckets ([`steps`](Self::steps)): a
    /// clock read per bucket, and the figures ride on the two all-reduces
    /// that end a search.
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }

    /// Clears the per-search state: every local vertex unreached and in no
    /// bin. O(local N), parallel; not collective.
    pub fn reset(&mut self) {
        let rows = self.state.len();
        self.backend.map_ranges(rows, RESET_GRAIN, |r| {
            for u in r {
                self.state[u].store(UNREACHED_STATE, Relaxed);
                self.parents[u].store(NO_PARENT, Relaxed);
            }
        });
        if let Some(x) = self.tail_root.take() {
            self.reported[x].store(NO_PARENT, Relaxed);
            self.reported_dist[x].store((-1f32).to_bits(), Relaxed);
        }
        self.done.clear(self.backend);
        self.open = [self.pull_end as u64, self.heavy_arcs];
        self.pulls = 0;
        for w in &self.workers {
            let mut w = lock(w);
            w.bins.clear();
            w.out.iter_mut().for_each(Vec::clear);
            w.settled.clear();
        }
        self.steps.clear();
    }

    /// Shortest paths from the global vertex `root`, filling this rank's
    /// part of the result ([`parents`](Self::parents),
    /// [`write_results`](Self::write_results)). Collective: every rank
    /// passes the same root, after [`reset`](Self::reset) if it searched
    /// before. Returns the global reached count, largest distance, buckets
    /// and phases (the same on every rank); ends with a collective, so every
    /// rank has finished. Cost: see the module comment.
    pub fn search(&mut self, root: u64) -> SsspStats {
        let part = *self.graph.partition();
        let n = part.num_vertices();
        assert!(root < n, "root {root} is not a vertex ({n} vertices)");
        let threads = self.backend.threads();
        self.alone = self.backend.slots() == 1;
        let ranks = self.comm.size();
        one_per_thread(&mut self.workers, threads, || Worker {
            out: vec![Vec::new(); ranks],
            bins: Bins::default(),
            settled: Vec::new(),
            visit: Vec::new(),
        });
        self.steps.clear();
        // The search's own figures first (set by `finish`), then the trace's.
        self.sums.clear();
        self.sums.extend([0, 0]);
        self.maxes.clear();
        self.maxes.push(0);
        let sent = self.comm.bytes_sent();
        if part.owner(root) == self.comm.rank() {
            let x = part.local(root);
            let u = self.graph.row_of(x);
            if u >= self.arcs_end {
                self.tail_root = Some(x);
            }
            self.state[u].store(state::pack(0f32.to_bits(), 0), Relaxed);
            self.parents[u].store(self.graph.first() + u as u64, Relaxed);
            let mut w = lock(&self.workers[0]);
            w.bins.push(0, index(u));
        }
        let (mut bucket, mut buckets, mut phases) = (0u32, 0u32, 0u32);
        loop {
            buckets += 1;
            let (started, phases_before) = (self.tracing.then(Instant::now), phases);
            loop {
                self.gather(bucket);
                phases += 1;
                self.phase(Phase::Light, bucket);
                if self.lowest_waiting(bucket) != Some(bucket) {
                    break;
                }
            }
            self.queue.clear();
            for w in &self.workers {
                let mut w = lock(w);
                self.queue.extend_from_slice(&w.settled);
                w.settled.clear();
            }
            let settled = self.queue.len() as u64;
            phases += 1;
            if self.done.shared() && self.publish_pulls() {
                self.pulls += 1;
                self.pull(bucket);
            } else {
                self.phase(Phase::Heavy, bucket);
            }
            let next = self.lowest_waiting(bucket);
            if let Some(started) = started {
                self.steps.push(BucketStep {
                    bucket,
                    phases: phases - phases_before,
                    settled: 0,
                    seconds: 0.0,
                });
                self.sums.push(settled);
                let nanos = started.elapsed().as_nanos();
                self.maxes.push(u64::try_from(nanos).unwrap_or(u64::MAX));
            }
            match next {
                Some(b) => bucket = b,
                None => break,
            }
        }
        self.finish(sent, buckets, phases)
    }
}

#[cfg(test)]
mod tests;
