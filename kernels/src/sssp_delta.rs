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
//! direction-optimizing BFS and Chakaravarthy et al.'s push-pull SSSP), and
//! none past the last vertex with a heavy arc (the vertices without arcs,
//! last once renumbered by degree, are neither visited nor priced); queue
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
//!   cleared by the CAS that takes it (and lists it), in one atomic step;
//! - buckets are exact for every finite distance
//!   ([`bucket_of`](crate::bucket_of));
//! - a vertex is listed as settled once a search, by its bucket (its
//!   [`LISTED`] bit, set by the step that first takes it), and marked
//!   done as its bucket's heavy phase begins, push or pull, between
//!   phases on the engine's thread (`DeltaStepping::mark_done`);
//! - the phases run as `'static` [`LoopBody`](par::LoopBody)s on either
//!   [`Backend`] ([`Loops`]), sharing the graph and per-search arrays through
//!   one `Arc` (`Shared`); the workers' [`Bins`](crate::Bins)
//!   ([`Backend::slot`]) are kept from search to search, so a search
//!   allocates nothing once warm.
//!
//! Cost: a vertex relaxes its light arcs once per light phase it is queued in
//! (usually one), its heavy arcs at most once; per phase a barrier and a gather
//! of the bins: a bucket takes its light phases and one heavy phase (two
//! when pulled). Memory: 8 bytes per vertex, a bitmap of `N / 8` bytes, and
//! the bins ([`DeltaStepping::bytes_for`]).

use crate::loops::Loops;
use crate::{Backend, Bitmap, WeightedCsr};
use generator::Vertex;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

mod buckets;
use buckets::{Worker, lock};
mod engine;
mod heavy;
mod light;
mod params;
pub use heavy::Cost;
pub use params::{BucketStep, DEFAULT_DELTA, SsspParams, SsspStats};

/// The state of a vertex not reached: infinite distance, no parent.
/// Its parent half is all ones but [`LISTED`], which an unreached vertex
/// is not.
const UNREACHED: u64 = (f32::INFINITY.to_bits() as u64) << 32 | (LISTED - 1);
/// The mark of a vertex waiting in the bin of its distance's bucket, in
/// the distance's sign bit (distances are never negative), so that an
/// improvement within the bucket does not queue it again (a hub queued
/// twice would scan its row twice) and the mark is read and written in the
/// same atomic step as the distance.
const QUEUED: u64 = 1 << 63;
/// The mark of a vertex listed as settled this search: by the bucket that
/// settles it, at its first processing there (a vertex taken in bucket `b`
/// has its distance in `b`, which can only fall, and earlier buckets are
/// final), so only a reset clears it. The top bit of the parent's half,
/// which no id uses (one process has at most `2^31` vertices), set by the
/// same atomic step that takes the vertex off its bin and kept by every
/// later improvement: one locked instruction on a line the step owns
/// already, where a shared bitmap's bit cost a second one on a line both
/// workers write (the hubs' bits share lines once rows are renumbered by
/// degree).
const LISTED: u64 = 1 << 31;
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
/// How many pulling vertices ahead of the one it reads a pull prefetches
/// a row's heavy part: rows are read in vertex order, but a few arcs of
/// each, at strides no hardware prefetcher follows.
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
/// Rows per parallel task of the translation of a relabelled graph's
/// result.
const TRANSLATE_GRAIN: usize = 1 << 14;
/// How many rows ahead the translation starts loading a reached vertex's
/// parent's original label.
const TRANSLATE_AHEAD: usize = 16;

/// A delta-stepping engine bound to one weighted graph.
#[derive(Debug)]
pub struct DeltaStepping {
    shared: Arc<Shared>,
    /// Heavy arcs of all vertices, and of the done ones this search.
    heavy_arcs: u64,
    done_heavy_arcs: u64,
    /// Vertices settled this search, and those of them below
    /// `Shared::pull_end`.
    done_vertices: u64,
    done_pullable: u64,
    /// The vertices of the last bucket that settled any.
    farthest: Vec<Vertex>,
    /// Heavy phases of the last search run as pulls.
    pulls: u32,
    /// Whether searches record their buckets ([`DeltaStepping::steps`]).
    tracing: bool,
    /// The buckets of the last traced search.
    steps: Vec<BucketStep>,
    loops: Loops<engine::Phase>,
    /// On a relabelled graph, the rows below the last one with an arc,
    /// the only ones the translation reads (no search reaches the others
    /// but as its root; their results stay [`UNREACHED`]); and the
    /// original label of a root among the others, whose result `reset`
    /// clears.
    arcs_end: usize,
    tail_root: Option<usize>,
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
    /// The vertices of the buckets settled so far, and of the current one
    /// once its heavy phase starts: their distances are final.
    done: Bitmap,
    /// On a relabelled graph, per original vertex, its state with its
    /// parent in the original labels, written at the end of a search
    /// ([`Shared::translate`]); empty otherwise.
    results: Vec<AtomicU64>,
    /// Whether the graph's rows are split at `delta` (light arcs first).
    split: bool,
    /// Bins per bucket, a power of two: [`SUB_BINS`], fewer when the bins
    /// would be narrower than [`SsspParams::MIN_DELTA`].
    sub: u64,
    /// `sub / delta`, a power of two: bins per unit of distance.
    bins_per_unit: f32,
    /// `EXACT_BUCKETS sub`: the bins of the buckets
    /// [`bucket_of`](crate::bucket_of) counts exactly.
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
    /// One past the last vertex with a heavy arc: a pull visits the
    /// vertices below it only (after a renumbering by degree, the
    /// vertices without arcs come last).
    pull_end: usize,
}

impl Shared {
    /// Writes the states of the rows `range` of a relabelled graph into
    /// `results`, in the original labels: each row's state read in
    /// sequence and stored at its original vertex, its parent renumbered
    /// back (a reached vertex's, whose original label is prefetched
    /// [`TRANSLATE_AHEAD`] rows ahead; an unreached one keeps
    /// [`UNREACHED`]). In row order rather than original order, so that
    /// the random accesses are stores, which wait in the store buffer,
    /// and not loads of each vertex's state, which stall.
    fn translate(&self, range: Range<usize>) {
        let labels = self.graph.labels().expect("a relabelled graph");
        let end = range.end;
        for r in range {
            let far = r + TRANSLATE_AHEAD;
            if far < end {
                let s = self.state[far].load(Relaxed);
                if s != UNREACHED {
                    labels.prefetch_original(parent(s));
                }
            }
            let row = Vertex::try_from(r).expect("ids fit Vertex");
            let s = self.state[r].load(Relaxed);
            let s = if s == UNREACHED {
                s
            } else {
                pack(dist(s), labels.original(parent(s)))
            };
            self.results[labels.original(row) as usize].store(s, Relaxed);
        }
    }
}

/// A vertex state: `d`'s bits above `parent`.
#[inline]
fn pack(d: f32, parent: Vertex) -> u64 {
    u64::from(d.to_bits()) << 32 | u64::from(parent)
}

/// The state that improves `current` to distance `d` through `parent`:
/// marked as waiting in a bin ([`QUEUED`]), and listed if `current` was
/// ([`LISTED`] survives every improvement, so a vertex is listed once).
#[inline]
fn improved(current: u64, d: f32, parent: Vertex) -> u64 {
    pack(d, parent) | QUEUED | (current & LISTED)
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
    let p = (state & !LISTED) as u32;
    p
}

#[cfg(test)]
pub(crate) mod tests;
