//! `DeltaStepping`: kernel 3, single-source shortest paths by parallel
//! delta-stepping (Meyer and Sanders), on a [`WeightedCsr`].
//!
//! Bucket `b` holds the vertices whose tentative distance lies in `[b delta,
//! (b + 1) delta)`; buckets are settled in order. Settling one takes *light
//! phases* (its vertices relax their arcs lighter than `delta`, which may
//! refill it) until it stays empty, then one *heavy phase* (every vertex it
//! settled relaxes its heavy arcs, once). A bucket waits in [`SUB_BINS`] bins,
//! taken lowest first and merged while small ([`MERGE`]), so its vertices are
//! mostly processed once, in distance order. Within a light phase, a worker
//! done with its share of the queue goes on with its own small bins of the
//! bucket (*bucket fusion*, after GAPBS: [`FUSE`]), so a bucket's refills
//! mostly need no phase of their own.
//!
//! Near memory speed on Kronecker graphs, whose first buckets settle the hubs
//! and most arcs: `delta` is a power of two, so bucket bounds are exact in f32
//! and a heavy phase skips done targets (a bitmap) unread; a heavy phase runs
//! as a *pull* when that costs less ([`Cost`]), each unsettled vertex scanning
//! its heavy arcs, lightest first, up to the first that cannot help (after
//! direction-optimizing BFS and Chakaravarthy et al.'s push-pull SSSP); queue
//! loops prefetch ahead.
//!
//! Invariants:
//! - a vertex's state is one `AtomicU64`, its distance's f32 bits above its
//!   parent's id, replaced only by a strictly smaller distance, in one CAS (by
//!   a pull, which writes only unsettled vertices and reads only settled ones,
//!   in a plain store), so `dist[v]` is exactly `dist[parent] + w` and the
//!   parents form a tree even with zero weights;
//! - distances are the least fixpoint of the f32 relaxations from the root, the
//!   same for any thread count and backend (parents may differ);
//! - a vertex waits at most once in the bin of its distance, exactly when
//!   marked: its distance's sign bit, set by the CAS that improves it and
//!   cleared by the `fetch_and` that takes it, in one atomic step;
//! - buckets are exact for every finite distance ([`bucket_of`]);
//! - a vertex is listed as settled once a search, by its bucket, and marked
//!   done by its bucket's heavy phase: before a pull, as a phase of its own;
//!   in a push, by the chunk that pushes it (a heavy arc cannot improve a
//!   vertex of its own bucket, so an arc that finds it not yet done changes
//!   nothing);
//! - the phases run as `'static` [`LoopBody`]s on either [`Backend`]
//!   ([`Loops`]), sharing the graph and per-search arrays through one `Arc`
//!   (`Shared`); the workers' [`Bins`] ([`Backend::slot`]) are kept from search
//!   to search, so a search allocates nothing once warm.
//!
//! Cost: a vertex relaxes its light arcs once per light phase it is queued in
//! (usually one), its heavy arcs at most once; per phase a barrier and a gather
//! of the bins: a bucket takes its light phases and one heavy phase (two
//! when pulled). Memory: 8 bytes per vertex, two bitmaps of `N / 8` bytes, and
//! the bins ([`DeltaStepping::bytes_for`]).

use crate::bins::{Bins, EXACT_BUCKETS, bucket_of};
use crate::loops::Loops;
use crate::{Backend, Bitmap, WeightedArc, WeightedCsr};
use generator::Vertex;
use par::LoopBody;
use par::hint::prefetch;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

mod params;
pub use params::{BucketStep, DEFAULT_DELTA, SsspParams, SsspStats};

/// The state of a vertex not reached: infinite distance, no parent.
const UNREACHED: u64 = (f32::INFINITY.to_bits() as u64) << 32 | u32::MAX as u64;
/// The mark of a vertex waiting in the bin of its distance's bucket, in
/// the distance's sign bit (distances are never negative), so that an
/// improvement within the bucket does not queue it again (a hub queued
/// twice would scan its row twice) and the mark is read and written in the
/// same atomic step as the distance.
const QUEUED: u64 = 1 << 63;
/// Queue entries per parallel task: fewer tasks for the same queues;
/// chosen by measurement (docs/history-kernels.md#sssp_delta).
const GRAIN: usize = 256;
/// Bins per bucket: light phases take a bucket's vertices bin by bin, in
/// order of distance, so that fewer are processed before their distance
/// settles; chosen by measurement (docs/history-kernels.md#sssp_delta).
const SUB_BINS: usize = 8;
/// The most vertices a light phase takes from several bins together (one
/// bin may hold more), so that the many small buckets of the tail take one
/// or two light phases; chosen by measurement
/// (docs/history-kernels.md#sssp_delta).
const MERGE: usize = 2048;
/// The most entries of one bin a worker takes on its own within a light
/// phase ([`Shared::fuse`]); GAPBS's threshold.
const FUSE: usize = 1000;
/// How far ahead of the vertex it reads a pull prefetches a row's heavy
/// part: rows are read in vertex order, but a few arcs of each, at strides
/// no hardware prefetcher follows.
const PULL_AHEAD: usize = 16;
/// Done-bitmap words per parallel task of a pull.
const PULL_GRAIN: usize = 64;
/// How far ahead in a queue a vertex's state and row bounds are
/// prefetched, and its row: a queue visits vertices at random, and the
/// locked `fetch_and` per vertex would otherwise serialize those misses.
const AHEAD: usize = 16;
const ROW_AHEAD: usize = 8;
/// How far ahead in a row a light arc's target state is prefetched.
const ARC_AHEAD: usize = 4;

/// What a heavy phase is expected to cost, in pushed arcs: a push reads
/// each heavy arc of the settled vertices, and a pull every vertex not
/// done and, at most, its heavy arcs (it stops early). A vertex not done
/// weighs [`Cost::OPEN_VERTEX`] arcs of the pull, and a pushed arc
/// [`Cost::PUSHED_ARC`]; both weights were chosen by measurement
/// (docs/history-kernels.md#sssp_delta). Public for the distributed
/// engine's own choice between the two.
pub struct Cost;

impl Cost {
    /// A pull's arcs each vertex not done costs.
    pub const OPEN_VERTEX: u64 = 6;
    /// A pull's arcs each pushed arc costs.
    pub const PUSHED_ARC: u64 = 5;

    /// A pull over `open_vertices` vertices not done, with `heavy_arcs`.
    pub fn pull(open_vertices: u64, heavy_arcs: u64) -> u64 {
        Self::OPEN_VERTEX * open_vertices + heavy_arcs
    }

    /// A push of `arcs` heavy arcs.
    pub fn push(arcs: u64) -> u64 {
        Self::PUSHED_ARC * arcs
    }
}

/// A delta-stepping engine bound to one weighted graph.
#[derive(Debug)]
pub struct DeltaStepping {
    shared: Arc<Shared>,
    /// Heavy arcs of all vertices, and of the done ones this search.
    heavy_arcs: u64,
    done_heavy_arcs: u64,
    /// Vertices settled this search.
    done_vertices: u64,
    /// The vertices of the last bucket that settled any.
    farthest: Vec<Vertex>,
    /// Heavy phases of the last search run as pulls.
    pulls: u32,
    /// Whether searches record their buckets ([`DeltaStepping::steps`]).
    tracing: bool,
    /// The buckets of the last traced search.
    steps: Vec<BucketStep>,
    loops: Loops<Phase>,
}

/// What the phases of a search share: the graph and the per-search state.
#[derive(Debug)]
struct Shared {
    graph: Arc<WeightedCsr>,
    delta: f32,
    /// Distance bits above the parent, per vertex.
    state: Vec<AtomicU64>,
    /// One per [`Backend::slot`] of the backend.
    workers: Vec<Mutex<Worker>>,
    backend: Backend,
    /// The vertices listed as settled this search: each by the bucket
    /// that settles it, at its first processing there (a vertex taken in
    /// bucket `b` has its distance in `b`, which can only fall, and earlier
    /// buckets are final), so it is cleared only between searches.
    listed: Bitmap,
    /// The vertices of the buckets settled so far, and of the current one
    /// once its heavy phase starts: their distances are final.
    done: Bitmap,
    /// Whether the graph's rows are split at `delta` (light arcs first).
    split: bool,
    /// Bins per bucket, a power of two: [`SUB_BINS`], fewer when the bins
    /// would be narrower than [`SsspParams::MIN_DELTA`].
    sub: u64,
    /// `sub / delta`, a power of two: bins per unit of distance.
    bins_per_unit: f32,
    /// `EXACT_BUCKETS sub`: the bins of the buckets [`bucket_of`] counts
    /// exactly.
    exact_bins: f32,
    /// [`MERGE`] (tests take bins one at a time with 0).
    merge: usize,
    /// The queue of the phase being run.
    queue: Vec<Vertex>,
    /// The bins a light phase fuses ([`Shared::fuse`]): from the lowest it
    /// gathered to the end of its bucket.
    fusing: Range<u64>,
    /// [`FUSE`] (tests turn fusion off with 0).
    fuse: usize,
}

/// One parallel phase of a search, as a loop body.
struct Phase {
    shared: Arc<Shared>,
    step: Parallel,
}

/// The parallel phases of a search, and their `0..len`.
#[derive(Clone, Copy)]
enum Parallel {
    /// Over the queue: relaxes light arcs ([`Shared::light_phase`]).
    Light,
    /// Over the queue: marks the settled vertices done.
    Mark,
    /// Over the queue: relaxes heavy arcs ([`Shared::push`]).
    Push,
    /// Over the done bitmap's words ([`Shared::pull`]).
    Pull { bucket: u64 },
}

impl LoopBody for Phase {
    type Local<'a> = ();
    type Out = ();

    fn local(&self) {}

    fn chunk(&self, (): &mut (), range: Range<usize>) {
        let s = &*self.shared;
        match self.step {
            Parallel::Light => s.light_phase(range),
            Parallel::Mark => s.mark_done(range),
            Parallel::Push => s.push(range),
            Parallel::Pull { bucket } => s.pull(bucket, range),
        }
    }

    fn reduce(&self, (): (), (): ()) {}
}

/// One worker's share of the buckets and of the current bucket's settled
/// vertices.
#[derive(Debug, Default)]
struct Worker {
    bins: Bins<Vertex>,
    /// The vertices this worker listed as settled by the current bucket.
    settled: Vec<Vertex>,
    /// The heavy arcs of `settled`.
    settled_heavy_arcs: u64,
    /// The entries of a bin being fused ([`Shared::fuse`]), kept for
    /// their capacity.
    fused: Vec<Vertex>,
}

impl DeltaStepping {
    /// An engine for `graph` with `params` on rayon; [`DeltaStepping::on`].
    pub fn new(graph: Arc<WeightedCsr>, params: SsspParams) -> Self {
        DeltaStepping::on(Backend::Rayon, graph, params)
    }

    /// An engine for `graph` with `params` whose phases run on `backend`.
    /// Allocates 8 bytes per vertex and two bitmaps (and, on pipes, its
    /// reusable loop); one parallel pass over the row bounds.
    pub fn on(backend: Backend, graph: Arc<WeightedCsr>, params: SsspParams) -> Self {
        let delta = params.delta();
        let n = graph.num_vertices();
        let mut sub = SUB_BINS;
        while sub > 1 && delta / (sub as f32) < SsspParams::MIN_DELTA {
            sub /= 2;
        }
        let sub = sub as u64;
        let shared = Shared {
            state: (0..n)
                .into_par_iter()
                .map(|_| AtomicU64::new(UNREACHED))
                .collect(),
            workers: Vec::new(),
            backend,
            listed: Bitmap::new(n),
            sub,
            bins_per_unit: sub as f32 / delta,
            exact_bins: (EXACT_BUCKETS * sub) as f32,
            merge: MERGE,
            split: graph.light_below() == Some(delta),
            done: Bitmap::new(n),
            queue: Vec::new(),
            fusing: 0..0,
            fuse: FUSE,
            graph,
            delta,
        };
        let heavy_arcs = (0..n)
            .into_par_iter()
            .map(|v| {
                shared
                    .heavy_part(Vertex::try_from(v).expect("ids fit Vertex"))
                    .len() as u64
            })
            .sum();
        DeltaStepping {
            shared: Arc::new(shared),
            heavy_arcs,
            done_heavy_arcs: 0,
            done_vertices: 0,
            farthest: Vec::new(),
            pulls: 0,
            tracing: false,
            steps: Vec::new(),
            loops: Loops::new(backend),
        }
    }

    /// The backend the phases run on.
    pub fn backend(&self) -> Backend {
        self.loops.backend()
    }

    /// Bytes an engine takes for `num_vertices` vertices (its bins and
    /// queue aside, which grow with the pushes of a search).
    pub fn bytes_for(num_vertices: u64) -> u64 {
        8 * num_vertices + 2 * num_vertices.div_ceil(8)
    }

    /// Asks searches to record their buckets (a clock read per bucket).
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
    }

    /// The buckets of the last search, if traced; empty otherwise.
    pub fn steps(&self) -> &[BucketStep] {
        &self.steps
    }

    /// Clears the per-search state. O(N), parallel.
    pub fn reset(&mut self) {
        self.shared
            .state
            .par_iter()
            .for_each(|s| s.store(UNREACHED, Relaxed));
        self.shared.done.clear();
        self.shared.listed.clear();
        self.done_heavy_arcs = 0;
        self.done_vertices = 0;
        self.farthest.clear();
        self.pulls = 0;
        // Bins are empty after a search, but a window that slid up must
        // come back to 0 for the root's bin.
        for w in &self.shared.workers {
            lock(w).bins.clear();
        }
    }

    /// Shortest paths from `root` (below `N`; panics otherwise).
    pub fn search(&mut self, root: Vertex) -> SsspStats {
        let threads = self.shared.backend.slots();
        if self.shared.workers.len() != threads {
            self.shared_mut().workers = (0..threads).map(|_| Mutex::default()).collect();
        }
        self.shared.state[root as usize].store(pack(0.0, root) | QUEUED, Relaxed);
        lock(&self.shared.workers[0]).bins.push(0, root);
        self.steps.clear();
        let (mut bucket, mut buckets, mut phases) = (0, 0, 0);
        loop {
            buckets += 1;
            let (started, phases_before) = (self.tracing.then(Instant::now), phases);
            while self.gather(bucket) {
                phases += 1;
                self.light_phase();
            }
            phases += 1;
            let settled = self.heavy_phase(bucket);
            if let Some(started) = started {
                self.steps.push(BucketStep {
                    bucket: u32::try_from(bucket).unwrap_or(u32::MAX),
                    phases: phases - phases_before,
                    settled: settled as u64,
                    seconds: started.elapsed().as_secs_f64(),
                });
            }
            match self.shared.next_bucket(bucket) {
                Some(b) => bucket = b,
                None => break,
            }
        }
        // Every reached vertex was settled once, the farthest by the last
        // bucket that settled any (later ones may hold stale entries only).
        let max_dist = (self.farthest.iter())
            .map(|&v| dist(self.shared.state[v as usize].load(Relaxed)))
            .fold(0.0, f32::max);
        SsspStats {
            reached: self.done_vertices,
            max_dist,
            buckets,
            phases,
        }
    }

    /// The shared state, for a change between phases.
    fn shared_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.shared).expect("no phase runs between phases")
    }

    /// Runs `step` over `0..len` in chunks of `grain`.
    fn run(&mut self, step: Parallel, len: usize, grain: usize) {
        let phase = Phase {
            shared: Arc::clone(&self.shared),
            step,
        };
        self.loops.run(phase, len, grain);
    }

    /// Relaxes the light arcs of the queued vertices still waiting, and
    /// lists the ones not listed yet as settled by this bucket.
    fn light_phase(&mut self) {
        let len = self.shared.queue.len();
        self.run(Parallel::Light, len, GRAIN);
    }

    /// Relaxes the heavy arcs of every vertex the bucket settled, once:
    /// pushes their heavy arcs, marking them done on the way, or, when
    /// that costs less ([`Cost`]), marks them done and then pulls.
    /// Returns how many it settled, and keeps them as the farthest so far
    /// unless none.
    fn heavy_phase(&mut self, bucket: u64) -> usize {
        let shared = self.shared_mut();
        shared.queue.clear();
        let mut pushes = 0;
        for w in &shared.workers {
            let mut w = lock(w);
            shared.queue.extend_from_slice(&w.settled);
            w.settled.clear();
            pushes += std::mem::take(&mut w.settled_heavy_arcs);
        }
        let len = self.shared.queue.len();
        let pulls = self.heavy_arcs - self.done_heavy_arcs - pushes;
        self.done_heavy_arcs += pushes;
        self.done_vertices += len as u64;
        let open = self.shared.state.len() as u64 - self.done_vertices;
        if self.shared.split && Cost::pull(open, pulls) < Cost::push(pushes) {
            self.pulls += 1;
            self.run(Parallel::Mark, len, GRAIN);
            let words = self.shared.done.num_words();
            self.run(Parallel::Pull { bucket }, words, PULL_GRAIN);
        } else {
            self.run(Parallel::Push, len, GRAIN);
        }
        if len > 0 {
            let shared = Arc::get_mut(&mut self.shared).expect("no phase runs between phases");
            std::mem::swap(&mut shared.queue, &mut self.farthest);
        }
        len
    }

    /// Moves the lowest non-empty bin of `bucket`, and the bins after it
    /// while they hold at most [`MERGE`] vertices together, from every
    /// worker into the queue; false when the bucket's bins are all empty.
    fn gather(&mut self, bucket: u64) -> bool {
        let shared = self.shared_mut();
        let (workers, queue, sub) = (&shared.workers, &mut shared.queue, shared.sub);
        let size = |bin: u64| -> usize { (workers.iter()).map(|w| lock(w).bins.len(bin)).sum() };
        let end = (bucket + 1) * sub;
        let Some(low) = (bucket * sub..end).find(|&b| size(b) > 0) else {
            return false;
        };
        let (mut high, mut total) = (low + 1, size(low));
        while high < end && total + size(high) <= shared.merge {
            total += size(high);
            high += 1;
        }
        queue.clear();
        shared.fusing = low..end;
        for w in workers {
            let mut w = lock(w);
            for bin in low..high {
                w.bins.drain_into(bin, queue);
            }
        }
        true
    }

    /// The last search's result in the Graph500 form: `parents[v]` (`-1`
    /// unreached, the root its own parent) and `dist[v]` (`-1` unreached).
    /// Both slices must have `N` entries. O(N), parallel (on rayon).
    pub fn write_results(&self, parents: &mut [i64], dist_out: &mut [f32]) {
        (self.shared.state.par_iter())
            .zip(parents)
            .zip(dist_out)
            .for_each(|((s, p), d)| {
                let s = s.load(Relaxed);
                (*p, *d) = if s == UNREACHED {
                    (-1, -1.0)
                } else {
                    (i64::from(parent(s)), dist(s))
                };
            });
    }

    /// The last search's nedge: input tuples (self-loops excluded,
    /// duplicates included) with an end reached, as half the reached
    /// vertices' degree sum. O(N), parallel (on rayon).
    pub fn nedge(&self) -> u64 {
        let g = &self.shared.graph;
        let arcs: u64 = (self.shared.state.par_iter().enumerate())
            .filter(|(_, s)| s.load(Relaxed) != UNREACHED)
            .map(|(v, _)| g.degree(Vertex::try_from(v).expect("ids fit Vertex")))
            .sum();
        arcs / 2
    }
}

impl Shared {
    /// Relaxes the light arcs of the queued vertices `range` still
    /// waiting, and lists the ones not listed yet as settled by this
    /// bucket.
    fn light_phase(&self, range: Range<usize>) {
        let mut worker = self.worker();
        self.light_entries(&mut worker, &self.queue[range]);
        self.fuse(&mut worker);
    }

    /// Bucket fusion (after GAPBS): once its share of the queue is done,
    /// a worker takes its own entries in the bins of the bucket from the
    /// lowest this phase gathered, lowest bin first, while the bin holds
    /// at most [`FUSE`] of them, and processes them at once instead of in
    /// a later phase; it stops at the first larger bin, which a later phase
    /// gathers with the other workers' entries.
    fn fuse(&self, worker: &mut Worker) {
        let mut entries = std::mem::take(&mut worker.fused);
        for bin in self.fusing.clone() {
            loop {
                let len = worker.bins.len(bin);
                if len == 0 {
                    break;
                }
                if len > self.fuse {
                    worker.fused = entries;
                    return;
                }
                entries.clear();
                worker.bins.drain_into(bin, &mut entries);
                self.light_entries(worker, &entries);
            }
        }
        worker.fused = entries;
    }

    /// Relaxes the light arcs of `entries` still waiting, and lists the
    /// ones not listed yet as settled by this bucket.
    fn light_entries(&self, worker: &mut Worker, entries: &[Vertex]) {
        let delta = self.delta;
        for (i, &u) in entries.iter().enumerate() {
            self.prefetch_ahead(entries, i);
            let state = &self.state[u as usize];
            // Stale unless marked: a vertex that improved into another bin
            // was queued there too, and its first entry taken clears the
            // mark. A marked one waits in the bin of its distance, which
            // only fell since this entry's bin and is not below the lowest
            // bin gathered: it waits in a bin of this phase.
            if state.load(Relaxed) & QUEUED == 0 {
                continue;
            }
            // Taken off its bin, reading its distance in the same atomic
            // step: an improvement before it is read here, one after it
            // finds the mark clear and queues the vertex anew. Of two
            // entries for it in one phase, only one finds the mark set.
            let taken = state.fetch_and(!QUEUED, Relaxed);
            if taken & QUEUED == 0 {
                continue;
            }
            let du = dist(taken);
            // Listed once per bucket, at its first processing (the bit
            // is tested before the locked set, which only the first
            // takes), so that a hub relaxes its heavy arcs once.
            let (row, heavy) = self.parts(u);
            if !self.listed.get(u as usize) && !self.listed.test_and_set(u as usize) {
                worker.settled.push(u);
                worker.settled_heavy_arcs += heavy.len() as u64;
            }
            for (j, arc) in row.iter().enumerate().filter(|(_, a)| a.weight < delta) {
                if let Some(ahead) = row.get(j + ARC_AHEAD) {
                    prefetch(&self.state[ahead.target as usize]);
                }
                self.relax(worker, u, du + arc.weight, arc.target);
            }
        }
    }

    /// Marks the queued vertices `range` (the bucket's settled ones) done.
    fn mark_done(&self, range: Range<usize>) {
        for &u in &self.queue[range] {
            self.done.set_atomic(u as usize);
        }
    }

    /// Marks the queue's vertices `range` done and relaxes their heavy
    /// arcs. Not a phase after the marks: a heavy arc offers a vertex of
    /// the bucket more than its distance (the bucket's bound is exact),
    /// so an arc that finds it not yet marked reads its state and leaves
    /// it unchanged, as the mark would have.
    fn push(&self, range: Range<usize>) {
        self.mark_done(range.clone());
        let chunk = &self.queue[range];
        let mut worker = self.worker();
        for (i, &u) in chunk.iter().enumerate() {
            self.prefetch_ahead(chunk, i);
            let du = dist(self.state[u as usize].load(Relaxed));
            self.relax_heavy(&mut worker, u, du);
        }
    }

    /// Offers `u`'s heavy neighbours `du` plus their arc's weight.
    #[inline]
    fn relax_heavy(&self, worker: &mut Worker, u: Vertex, du: f32) {
        let delta = self.delta;
        for arc in self.parts(u).1.iter().filter(|a| a.weight >= delta) {
            self.relax(worker, u, du + arc.weight, arc.target);
        }
    }

    /// The heavy phase of `bucket` turned round: every vertex not done
    /// takes the best offer `dist[u] + w` of its done neighbours `u`
    /// through its heavy arcs, read lightest first up to the first whose
    /// weight added to the bucket's lower bound cannot beat its distance
    /// (later ones cannot either; offers from earlier buckets were made in
    /// their own heavy phases). Needs rows split at `delta`. Writes only
    /// vertices not done and reads only done ones: plain loads and stores.
    /// For the done bitmap's words `words`.
    fn pull(&self, bucket: u64, words: Range<usize>) {
        // The bucket's lower bound, exact (a power of two times an integer
        // below 2^24); past 2^24 buckets `bucket as f32` could round up
        // and stop a pull too early, so the bound falls back to 0 there.
        #[allow(clippy::cast_precision_loss)]
        let low = if bucket < EXACT_BUCKETS {
            bucket as f32 * self.delta
        } else {
            0.0
        };
        let done = &self.done;
        words.for_each(|w| {
            let mut worker = None;
            let mut open = !done.word(w);
            while open != 0 {
                let v = w * Bitmap::WORD_BITS + open.trailing_zeros() as usize;
                open &= open - 1;
                let Some(state) = self.state.get(v) else {
                    break;
                };
                if v + PULL_AHEAD < self.state.len() {
                    let far = Vertex::try_from(v + PULL_AHEAD).expect("ids fit Vertex");
                    if let Some(first) = self.heavy_part(far).first() {
                        prefetch(first);
                    }
                }
                let v = Vertex::try_from(v).expect("ids fit Vertex");
                let current = state.load(Relaxed);
                let (mut best, mut from) = (dist(current), None);
                for arc in self.heavy_part(v) {
                    if low + arc.weight >= best {
                        break;
                    }
                    if done.get(arc.target as usize) {
                        let d = dist(self.state[arc.target as usize].load(Relaxed)) + arc.weight;
                        if d < best {
                            (best, from) = (d, Some(arc.target));
                        }
                    }
                }
                if let Some(u) = from {
                    state.store(pack(best, u) | QUEUED, Relaxed);
                    let worker = worker.get_or_insert_with(|| self.worker());
                    self.queue_in_bin(worker, v, current, best);
                }
            }
        });
    }

    /// Prefetches, for the vertex at `i` of `chunk`, the state and row
    /// bounds of the vertex [`AHEAD`] entries on, and the first arc of the
    /// row of the one [`ROW_AHEAD`] on (its light arcs, and the heavy ones
    /// after them).
    #[inline]
    fn prefetch_ahead(&self, chunk: &[Vertex], i: usize) {
        if let Some(&far) = chunk.get(i + AHEAD) {
            prefetch(&self.state[far as usize]);
            self.graph.prefetch_offsets(far);
        }
        if let Some(&near) = chunk.get(i + ROW_AHEAD)
            && let Some(first) = self.graph.arcs(near).first()
        {
            prefetch(first);
        }
    }

    /// Offers `v` the distance `d` through `u`: taken if strictly smaller,
    /// and then `v` is queued in `d`'s bucket, unless it waits in that
    /// bucket's bin already (its mark set and its old distance there).
    #[inline]
    fn relax(&self, worker: &mut Worker, u: Vertex, d: f32, v: Vertex) {
        if self.done.get(v as usize) {
            return; // final: a done vertex's distance is below `d`
        }
        let state = &self.state[v as usize];
        let mut current = state.load(Relaxed);
        while d < dist(current) {
            match state.compare_exchange_weak(current, pack(d, u) | QUEUED, Relaxed, Relaxed) {
                Ok(_) => return self.queue_in_bin(worker, v, current, d),
                Err(now) => current = now,
            }
        }
    }

    /// Puts `v`, whose state went from `old` to distance `d` (marked), in
    /// `d`'s bin, unless it waits in that bin already.
    #[inline]
    fn queue_in_bin(&self, worker: &mut Worker, v: Vertex, old: u64, d: f32) {
        let b = self.bin_of(d);
        if old & QUEUED != 0 && self.bin_of(dist(old)) == b {
            return; // it waits in that bin already
        }
        worker.bins.push(b, v);
    }

    /// The lowest bucket from `from` on that some worker holds vertices
    /// of.
    fn next_bucket(&self, from: u64) -> Option<u64> {
        // Each worker's lowest non-empty bin, then the lowest of those: no
        // list of guards (this runs inside the timed search, once a bucket).
        let lowest = |w: &Mutex<Worker>| lock(w).bins.lowest_from(from * self.sub);
        Some(self.workers.iter().filter_map(lowest).min()? / self.sub)
    }

    /// The parts of `u`'s row that hold its light and its heavy arcs: on a
    /// row split at `delta` ([`WeightedCsr::split_light`]) the light prefix
    /// and the rest, found by reading the row, whose first line is read
    /// anyway, rather than the graph's light counts (one random line less a
    /// vertex); else the whole row twice.
    #[inline]
    fn parts(&self, u: Vertex) -> (&[WeightedArc], &[WeightedArc]) {
        let row = self.graph.arcs(u);
        if self.split {
            let light = row.iter().take_while(|a| a.weight < self.delta).count();
            row.split_at(light)
        } else {
            (row, row)
        }
    }

    /// The part of `u`'s row that holds its heavy arcs: the rest of a split
    /// row, found from the graph's light counts (for loops in vertex order,
    /// which read them in sequence), else the whole row.
    #[inline]
    fn heavy_part(&self, u: Vertex) -> &[WeightedArc] {
        if self.split {
            self.graph.light_and_heavy(u).1
        } else {
            self.graph.arcs(u)
        }
    }

    /// The running worker's bins (one per thread of the backend).
    fn worker(&self) -> MutexGuard<'_, Worker> {
        let i = self.backend.slot() % self.workers.len();
        lock(&self.workers[i])
    }

    /// The bin of distance `d` (finite, not negative): `d` times a power
    /// of two, exact, while its bucket is below 2^24; past that the
    /// bucket's first bin ([`bucket_of`]: a bucket per f32 value there).
    #[inline]
    fn bin_of(&self, d: f32) -> u64 {
        let bins = d * self.bins_per_unit;
        if bins < self.exact_bins {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let b = bins as u64;
            b
        } else {
            bucket_of(d, self.delta) * self.sub
        }
    }
}

fn lock(w: &Mutex<Worker>) -> MutexGuard<'_, Worker> {
    w.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A vertex state: `d`'s bits above `parent`.
#[inline]
fn pack(d: f32, parent: Vertex) -> u64 {
    u64::from(d.to_bits()) << 32 | u64::from(parent)
}

/// The distance of a state, its mark cleared.
#[inline]
fn dist(state: u64) -> f32 {
    #[allow(clippy::cast_possible_truncation)] // the high half, on purpose
    f32::from_bits(((state & !QUEUED) >> 32) as u32)
}

#[inline]
fn parent(state: u64) -> Vertex {
    #[allow(clippy::cast_possible_truncation)] // the low half, on purpose
    let p = state as u32;
    p
}

#[cfg(test)]
mod tests;
