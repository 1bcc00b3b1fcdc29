//! The driver of a search: building the engine, settling bucket after
//! bucket (its light phases, then its heavy phase, pushed or pulled by
//! [`Cost`]), and reading the result out; each parallel phase runs as a
//! [`Phase`] on the engine's [`Loops`].

use super::{
    BucketStep, Cost, DeltaStepping, FUSE, GRAIN, MERGE, PULL_GRAIN, QUEUED, SUB_BINS, Shared,
    SsspParams, SsspStats, TRANSLATE_GRAIN, UNREACHED, dist, lock, pack, parent,
};
use crate::bins::EXACT_BUCKETS;
use crate::loops::Loops;
use crate::{Backend, Bitmap, WeightedCsr};
use generator::Vertex;
use par::LoopBody;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How many settled vertices ahead [`DeltaStepping::mark_done`] prefetches
/// the done bitmap's word: they come at random.
const MARK_AHEAD: usize = 16;

/// One parallel phase of a search, as a loop body.
pub(super) struct Phase {
    shared: Arc<Shared>,
    step: Parallel,
}

/// The parallel phases of a search, and their `0..len`.
#[derive(Clone, Copy)]
enum Parallel {
    /// Over the queue: relaxes light arcs ([`Shared::light_phase`]).
    Light,
    /// Over the queue: relaxes heavy arcs ([`Shared::push`]).
    Push,
    /// Over the done bitmap's words ([`Shared::pull`]).
    Pull { bucket: u64 },
    /// Over the rows of a relabelled graph ([`Shared::translate`]).
    Translate,
}

impl LoopBody for Phase {
    type Local<'a> = ();
    type Out = ();

    fn local(&self) {}

    fn chunk(&self, (): &mut (), range: Range<usize>) {
        let s = &*self.shared;
        match self.step {
            Parallel::Light => s.light_phase(range),
            Parallel::Push => s.push(range),
            Parallel::Pull { bucket } => s.pull(bucket, range),
            Parallel::Translate => s.translate(range),
        }
    }

    fn reduce(&self, (): (), (): ()) {}
}

impl DeltaStepping {
    /// The most vertices a graph may have: a state packs the parent's id
    /// in 31 bits beside its listed mark (`LISTED`). One process's
    /// generated graphs (SCALE 31 at most) fit; a file may not, and the
    /// harness refuses it before building.
    pub const MAX_VERTICES: usize = 1 << 31;

    /// An engine for `graph` with `params` on rayon; [`DeltaStepping::on`].
    pub fn new(graph: Arc<WeightedCsr>, params: SsspParams) -> Self {
        DeltaStepping::on(Backend::Rayon, graph, params)
    }

    /// An engine for `graph` with `params` whose phases run on `backend`.
    /// Allocates 8 bytes per vertex and a bitmap (and, on pipes, its
    /// reusable loop); one parallel pass over the row bounds. Panics if
    /// `graph` has more than [`DeltaStepping::MAX_VERTICES`] vertices.
    pub fn on(backend: Backend, graph: Arc<WeightedCsr>, params: SsspParams) -> Self {
        let delta = params.delta();
        let n = graph.num_vertices();
        assert!(
            n <= Self::MAX_VERTICES,
            "{n} vertices: delta-stepping names at most 2^31"
        );
        let mut sub = SUB_BINS;
        while sub > 1 && delta / (sub as f32) < SsspParams::MIN_DELTA {
            sub /= 2;
        }
        let sub = sub as u64;
        let mut shared = Shared {
            state: (0..n)
                .into_par_iter()
                .map(|_| AtomicU64::new(UNREACHED))
                .collect(),
            workers: Vec::new(),
            backend,
            sub,
            bins_per_unit: sub as f32 / delta,
            exact_bins: (EXACT_BUCKETS * sub) as f32,
            merge: MERGE,
            split: graph.light_below() == Some(delta),
            done: Bitmap::new(n),
            results: if graph.labels().is_some() {
                (0..n)
                    .into_par_iter()
                    .map(|_| AtomicU64::new(UNREACHED))
                    .collect()
            } else {
                Vec::new()
            },
            queue: Vec::new(),
            fusing: 0..0,
            fuse: FUSE,
            pull_end: n,
            graph,
            delta,
        };
        let heavy = |v: usize| {
            let v = Vertex::try_from(v).expect("ids fit Vertex");
            shared.heavy_part(v).len()
        };
        let heavy_arcs = (0..n).into_par_iter().map(|v| heavy(v) as u64).sum();
        // No pull can improve a vertex without heavy arcs: past the last
        // one with any, a pull has nothing to visit.
        shared.pull_end = past_last(n, |v| heavy(v) > 0);
        // Rows from here on have no arc: the translation passes them.
        let arcs_end = past_last(n, |v| {
            shared
                .graph
                .degree(Vertex::try_from(v).expect("ids fit Vertex"))
                > 0
        });
        DeltaStepping {
            shared: Arc::new(shared),
            heavy_arcs,
            done_heavy_arcs: 0,
            done_vertices: 0,
            done_pullable: 0,
            farthest: Vec::new(),
            pulls: 0,
            tracing: false,
            steps: Vec::new(),
            loops: Loops::new(backend),
            arcs_end,
            tail_root: None,
        }
    }

    /// The backend the phases run on.
    pub fn backend(&self) -> Backend {
        self.loops.backend()
    }

    /// Bytes an engine takes for `num_vertices` vertices (its bins and
    /// queue aside, which grow with the pushes of a search).
    pub fn bytes_for(num_vertices: u64) -> u64 {
        8 * num_vertices + num_vertices.div_ceil(8)
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
        if let Some(x) = self.tail_root.take() {
            self.shared.results[x].store(UNREACHED, Relaxed);
        }
        self.done_heavy_arcs = 0;
        self.done_vertices = 0;
        self.done_pullable = 0;
        self.farthest.clear();
        self.pulls = 0;
        // Bins are empty after a search, but a window that slid up must
        // come back to 0 for the root's bin.
        for w in &self.shared.workers {
            lock(w).bins.clear();
        }
    }

    /// Shortest paths from `root` (below `N`; panics otherwise), in the
    /// graph's original labels: on a relabelled graph
    /// ([`WeightedCsr::relabelled_on`]) the root is renumbered, and the
    /// search ends with the translation of its result back
    /// ([`DeltaStepping::write_results`] then only reads it).
    pub fn search(&mut self, root: Vertex) -> SsspStats {
        let original = root;
        let root = (self.shared.graph.labels()).map_or(root, |labels| labels.new_label(root));
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
        if !self.shared.results.is_empty() {
            // Rows without arcs (last in the degree order) are not read:
            // only a root among them is reached, written alone.
            self.run(Parallel::Translate, self.arcs_end, TRANSLATE_GRAIN);
            if root as usize >= self.arcs_end {
                let x = original as usize;
                self.shared.results[x].store(pack(0.0, original), Relaxed);
                self.tail_root = Some(x);
            }
        }
        SsspStats {
            reached: self.done_vertices,
            max_dist,
            buckets,
            phases,
        }
    }

    /// The shared state, for a change between phases.
    pub(super) fn shared_mut(&mut self) -> &mut Shared {
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
    pub(super) fn light_phase(&mut self) {
        let len = self.shared.queue.len();
        self.run(Parallel::Light, len, GRAIN);
    }

    /// Relaxes the heavy arcs of every vertex the bucket settled, once:
    /// marks them done ([`DeltaStepping::mark_done`]), then pushes their
    /// heavy arcs or, when that costs less ([`Cost`]), pulls.
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
        let pull_end = self.shared.pull_end;
        self.done_pullable += (self.shared.queue.iter())
            .filter(|&&v| (v as usize) < pull_end)
            .count() as u64;
        // The vertices a pull would visit: those not done below `pull_end`.
        let open = pull_end as u64 - self.done_pullable;
        self.mark_done();
        if self.shared.split && Cost::pull(open, pulls) < Cost::push(pushes) {
            self.pulls += 1;
            let words = pull_end.div_ceil(Bitmap::WORD_BITS);
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

    /// Marks the queue's vertices (the bucket's settled ones) done, on the
    /// engine's thread between phases, with plain read-modify-writes of
    /// the bitmap's words, each prefetched [`MARK_AHEAD`] vertices on.
    /// The workers' locked `fetch_or`s did it in parallel at a higher
    /// cost: with this a search took 0.94-0.99 of the time on two threads
    /// and 0.95 on one (paired, Intel; docs/history-kernels.md,
    /// `sssp_delta`). A heavy arc cannot improve a vertex of its own
    /// bucket, so marking before the push as well as before the pull
    /// changes no distance.
    fn mark_done(&mut self) {
        let Shared { queue, done, .. } = self.shared_mut();
        for (i, &u) in queue.iter().enumerate() {
            if let Some(&far) = queue.get(i + MARK_AHEAD) {
                done.prefetch(far as usize);
            }
            done.set(u as usize);
        }
    }

    /// The last search's result in the Graph500 form: `parents[v]` (`-1`
    /// unreached, the root its own parent) and `dist[v]` (`-1` unreached).
    /// Both slices must have `N` entries. O(N), parallel (on rayon).
    pub fn write_results(&self, parents: &mut [i64], dist_out: &mut [f32]) {
        let states = if self.shared.results.is_empty() {
            &self.shared.state
        } else {
            &self.shared.results
        };
        (states.par_iter())
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

/// One past the last of `0..n` that `has`, or 0 if none does: a parallel
/// search from the end.
fn past_last(n: usize, has: impl Fn(usize) -> bool + Sync + Send) -> usize {
    (0..n)
        .into_par_iter()
        .rev()
        .find_first(|&v| has(v))
        .map_or(0, |v| v + 1)
}
