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
//! bits), parent (global id), the bucket it waits in. A phase scans the
//! queue, offering each arc's target `dist[u] + w` (an own target that
//! cannot improve is skipped), sends every offer in one exchange, applies
//! those received (the least distance by `fetch_min`, then the parent of an
//! offer of that distance), and agrees on what comes next in one
//! all-reduce ([`DistSssp::phase`]).
//!
//! Invariants:
//! - a phase's offers are computed from the distances as it began;
//!   distances only drop, and a vertex takes a parent only with the
//!   distance that parent's offer gave: `dist[v] == dist[parent] + w`
//!   exactly in `f32`, and the parents form a tree rooted at the root, also
//!   with zero weights ([`DistSssp::apply`]);
//! - the distances are the single process's bit for bit (the least fixpoint
//!   of the `f32` relaxations) for any `P` and thread count; parents may
//!   differ;
//! - a vertex waits in at most one bin (the bucket in `waiting`) and never
//!   returns to a bucket it left, so a phase's queue holds it once and one
//!   worker at a time writes its `waiting` and `settled` entries;
//! - only global values steer the collectives, so every rank, one without
//!   vertices too, makes the same calls in the same order.
//!
//! Cost per phase: each queued vertex's light (or heavy) arcs and the
//! offers it sends (`3 size_of::<I>()` bytes each); one exchange (counts,
//! then offers) and one all-reduce; two all-reduces end a search. Memory:
//! [`DistSssp::bytes_for`]. On rayon the buffers are kept from phase to
//! phase and search to search, so a search allocates nothing per bucket
//! once warm; on pipes each loop also starts `par`'s threads and lists its
//! chunks ([`Backend::for_each_chunk_init`]).

use crate::comm::{Comm, Reduce, exchange_into};
use crate::{Id, NO_PARENT, WeightedLocalGraph};
use kernels::{Bins, BucketStep, SsspParams, SsspStats};
use par::Backend;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The distance bits of a vertex not reached.
const UNREACHED: u32 = f32::INFINITY.to_bits();
/// The `waiting` entry of a vertex in no bin (never a bucket).
const NOT_WAITING: u32 = u32::MAX;
/// Queued vertices per parallel task.
const GRAIN: usize = 64;
/// Received offers per parallel task.
const OFFER_GRAIN: usize = 1 << 10;
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
/// indices by bucket) and the current bucket's vertices it settled.
struct Worker<I> {
    out: Vec<Vec<[I; 3]>>,
    bins: Bins<u32>,
    settled: Vec<u32>,
}

/// A distributed delta-stepping engine: one per rank, bound to that rank's
/// [`WeightedLocalGraph`] and the ranks of `comm`.
pub struct DistSssp<'c, I: Id> {
    comm: &'c dyn Comm,
    /// What runs this rank's parallel loops.
    backend: Backend,
    graph: Arc<WeightedLocalGraph<I>>,
    delta: f32,
    /// Whether the rows are split at `delta` (light arcs a prefix).
    split: bool,
    tracing: bool,
    /// Per own vertex: distance bits, parent, the bucket it waits in,
    /// lowered by the current apply, listed as settled by the bucket.
    dist: Vec<AtomicU32>,
    parents: Vec<AtomicU64>,
    waiting: Vec<AtomicU32>,
    lowered: Vec<AtomicBool>,
    settled: Vec<AtomicBool>,
    workers: Vec<Mutex<Worker<I>>>,
    /// The vertices the current phase scans (local indices).
    queue: Vec<u32>,
    /// The phase's offers by destination rank, and those received.
    send: Vec<[I; 3]>,
    send_counts: Vec<usize>,
    received: Vec<[I; 3]>,
    /// The last search's buckets when traced, and per traced bucket this
    /// rank's settled vertices and nanoseconds until reduced.
    steps: Vec<BucketStep>,
    sums: Vec<u64>,
    maxes: Vec<u64>,
    /// Bytes all ranks sent in the last search.
    bytes: u64,
}

impl<'c, I: Id> DistSssp<'c, I> {
    /// Bytes of the per-search arrays of a rank with `rows` vertices: 18 a
    /// vertex (distance 4, parent 8, bucket 4, two flags). The phase
    /// buffers come on top and are kept at the largest phase's size: 4
    /// bytes per queued or waiting vertex, and per offer `3 size_of::<I>()`
    /// bytes in a worker's buffer, again in the outgoing run, and as many
    /// per offer received.
    pub fn bytes_for(rows: u64) -> u64 {
        18 * rows
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
        DistSssp {
            comm,
            backend,
            delta,
            split: graph.light_below() == delta,
            tracing: false,
            dist: (0..rows).map(|_| AtomicU32::new(UNREACHED)).collect(),
            parents: (0..rows).map(|_| AtomicU64::new(NO_PARENT)).collect(),
            waiting: (0..rows).map(|_| AtomicU32::new(NOT_WAITING)).collect(),
            lowered: (0..rows).map(|_| AtomicBool::new(false)).collect(),
            settled: (0..rows).map(|_| AtomicBool::new(false)).collect(),
            workers: Vec::new(),
            queue: Vec::new(),
            send: Vec::new(),
            send_counts: vec![0; comm.size()],
            received: Vec::new(),
            steps: Vec::new(),
            sums: Vec::new(),
            maxes: Vec::new(),
            bytes: 0,
            graph,
        }
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
        let rows = self.dist.len();
        self.backend.map_ranges(rows, RESET_GRAIN, |r| {
            for u in r {
                self.dist[u].store(UNREACHED, Relaxed);
                self.parents[u].store(NO_PARENT, Relaxed);
                self.waiting[u].store(NOT_WAITING, Relaxed);
                self.lowered[u].store(false, Relaxed);
                self.settled[u].store(false, Relaxed);
            }
        });
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
        if self.workers.len() != threads {
            let ranks = self.comm.size();
            self.workers = (0..threads)
                .map(|_| {
                    Mutex::new(Worker {
                        out: vec![Vec::new(); ranks],
                        bins: Bins::default(),
                        settled: Vec::new(),
                    })
                })
                .collect();
        }
        self.steps.clear();
        // The search's own figures first (set by `finish`), then the trace's.
        self.sums.clear();
        self.sums.extend([0, 0]);
        self.maxes.clear();
        self.maxes.push(0);
        let sent = self.comm.bytes_sent();
        if part.owner(root) == self.comm.rank() {
            let u = part.local(root);
            self.dist[u].store(0f32.to_bits(), Relaxed);
            self.parents[u].store(root, Relaxed);
            self.waiting[u].store(0, Relaxed);
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
            self.phase(Phase::Heavy, bucket);
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

    /// Ends a search: the global reached count and largest distance, the
    /// bytes sent, and the trace's sums and maxima, in two all-reduces.
    fn finish(&mut self, sent: u64, buckets: u32, phases: u32) -> SsspStats {
        let dist = &self.dist;
        let (reached, max_bits) = (self.backend)
            .map_ranges(dist.len(), COUNT_GRAIN, |r| {
                (dist[r].iter().map(|d| d.load(Relaxed)))
                    .filter(|&d| d != UNREACHED)
                    .fold((0u64, 0u32), |(c, m), d| (c + 1, m.max(d)))
            })
            .into_iter()
            .fold((0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
        (self.sums[0], self.sums[1]) = (reached, self.comm.bytes_sent() - sent);
        self.maxes[0] = max_bits.into();
        self.comm.all_reduce(&mut self.sums, Reduce::Sum);
        self.comm.all_reduce(&mut self.maxes, Reduce::Max);
        for (step, (&settled, &nanos)) in
            (self.steps.iter_mut()).zip(self.sums[2..].iter().zip(&self.maxes[1..]))
        {
            step.settled = settled;
            step.seconds = Duration::from_nanos(nanos).as_secs_f64();
        }
        self.bytes = self.sums[1];
        let max_bits = u32::try_from(self.maxes[0]).expect("distance bits");
        SsspStats {
            reached: self.sums[0],
            max_dist: f32::from_bits(max_bits),
            buckets,
            phases,
        }
    }

    /// The parents of this rank's vertices after the last search, by local
    /// index, as global ids: [`NO_PARENT`] if unreached, the root's is the
    /// root.
    pub fn parents(&self) -> &[AtomicU64] {
        &self.parents
    }

    /// The last search's result for this rank's vertices, by local index:
    /// `parents[u]` (a global id, [`NO_PARENT`] unreached) and `dist[u]`
    /// (`-1` unreached). Both slices must have the rank's vertex count of
    /// entries. O(local N), parallel; not collective.
    pub fn write_results(&self, parents: &mut [u64], dist: &mut [f32]) {
        assert_eq!(parents.len(), self.parents.len(), "a parent per vertex");
        assert_eq!(dist.len(), self.dist.len(), "a distance per vertex");
        let pieces: Vec<_> = (parents.chunks_mut(COUNT_GRAIN))
            .zip(dist.chunks_mut(COUNT_GRAIN))
            .enumerate()
            .collect();
        self.backend.map(pieces, |(piece, (parents, dist))| {
            let first = piece * COUNT_GRAIN;
            for (i, (p, d)) in parents.iter_mut().zip(dist).enumerate() {
                let bits = self.dist[first + i].load(Relaxed);
                (*p, *d) = if bits == UNREACHED {
                    (NO_PARENT, -1.0)
                } else {
                    (self.parents[first + i].load(Relaxed), f32::from_bits(bits))
                };
            }
        });
    }

    /// The last search's nedge: input tuples (self-loops excluded,
    /// duplicates included) with an end reached, as half the reached
    /// vertices' degree sum over all ranks (the rule of
    /// `kernels::DeltaStepping::nedge`). Collective; one all-reduce and
    /// O(local N), parallel.
    pub fn nedge(&self) -> u64 {
        let (graph, dist) = (&*self.graph, &self.dist);
        let arcs: u64 = (self.backend)
            .map_ranges(dist.len(), COUNT_GRAIN, |r| {
                r.filter(|&u| dist[u].load(Relaxed) != UNREACHED)
                    .map(|u| graph.degree(u))
                    .sum::<u64>()
            })
            .into_iter()
            .sum();
        crate::all_reduce(self.comm, [arcs], Reduce::Sum)[0] / 2
    }

    /// The buckets of the last search if traced (empty otherwise), the
    /// same on every rank: settled vertices summed over the ranks, seconds
    /// the slowest rank's.
    pub fn steps(&self) -> &[BucketStep] {
        &self.steps
    }

    /// Bytes all ranks sent in the last search (its two closing
    /// all-reduces aside).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Makes every worker's bin `bucket` the queue.
    fn gather(&mut self, bucket: u32) {
        self.queue.clear();
        for w in &self.workers {
            lock(w).bins.drain_into(bucket.into(), &mut self.queue);
        }
    }

    /// One phase over the queue, on every rank:
    /// 1. **scan**, in parallel over the queued vertices: `u` offers each
    ///    arc's target `t` the distance `d = dist[u] + w` (in `f32`, as the
    ///    single process computes it) with parent `u`. An offer to a vertex
    ///    of this rank that cannot improve it (`d >= dist[t]`) is dropped at
    ///    once; the others go into per-worker buffers by destination rank,
    ///    each as `[local index of t, bits of d, u]`;
    /// 2. **one exchange** of all the phase's offers, coalesced per
    ///    destination (the rank's own offers come back to it as a copy);
    /// 3. **apply** the offers received ([`DistSssp::apply`]);
    /// 4. the caller's **one all-reduce** (Min) of the lowest bucket, from
    ///    the current one on, with a vertex waiting in it
    ///    ([`DistSssp::lowest_waiting`]): after a light phase, whether the
    ///    bucket needs another; after the heavy phase, the next bucket, or
    ///    the end.
    ///
    /// A worker's share goes to whichever thread claims it first.
    fn phase(&mut self, phase: Phase, bucket: u32) {
        let scan = Scan {
            graph: &*self.graph,
            dist: &self.dist,
            rank: self.comm.rank(),
            delta: self.delta,
        };
        let (waiting, settled, workers) = (&self.waiting, &self.settled, &self.workers);
        let split = self.split;
        self.backend.for_each_chunk_init(
            &self.queue,
            GRAIN,
            || claim(workers),
            |worker, chunk| {
                for &u in chunk {
                    let u = u as usize;
                    if phase == Phase::Light {
                        if waiting[u].load(Relaxed) != bucket {
                            continue; // stale: it left the bucket
                        }
                        waiting[u].store(NOT_WAITING, Relaxed);
                        if !settled[u].load(Relaxed) {
                            settled[u].store(true, Relaxed);
                            worker.settled.push(index(u));
                        }
                    } else {
                        settled[u].store(false, Relaxed);
                    }
                    let light = phase == Phase::Light;
                    let out = &mut worker.out;
                    if split {
                        let (l, h) = scan.graph.light_and_heavy(u);
                        if light {
                            scan.offer(out, u, l);
                        } else {
                            scan.offer(out, u, h);
                        }
                    } else {
                        let arcs = scan.graph.arcs(u);
                        scan.offer(out, u, arcs.filter(|&(_, w)| (w < scan.delta) == light));
                    }
                }
            },
        );
        self.send.clear();
        for (r, count) in self.send_counts.iter_mut().enumerate() {
            let before = self.send.len();
            for w in &self.workers {
                let mut w = lock(w);
                self.send.extend_from_slice(&w.out[r]);
                w.out[r].clear();
            }
            *count = self.send.len() - before;
        }
        exchange_into(self.comm, &self.send, &self.send_counts, &mut self.received);
        self.apply();
    }

    /// Applies the offers received, in two parallel passes: the first
    /// lowers each target's distance to its least offer (`fetch_min` on the
    /// bits: non-negative `f32`s order as their bits) and marks the targets
    /// it lowered; the second gives each marked target the parent of one
    /// offer equal to its new distance (the first to take the mark, so one
    /// writer) and queues the target in its new bucket's bin unless it
    /// waits there already.
    ///
    /// Every offer was computed from the distances as the phase began, so
    /// `dist[v] == dist[parent] + w`; a later drop of the parent's distance
    /// keeps it so, since the parent then relaxes its arcs again and, `f32`
    /// addition being monotone, its new offer is strictly smaller (and
    /// taken) or equal. Every parent link `x -> y` keeps `dist[x] >=
    /// dist[y]` (made with `dist[x] = dist[y] + w`; `y`'s distance only
    /// drops), so a cycle made in a phase would lead, from a vertex the
    /// phase lowered, along links back to it with distances at its start
    /// no larger than its new one, which is below its old one: impossible,
    /// also with zero weights.
    fn apply(&self) {
        let (dist, lowered) = (&self.dist, &self.lowered);
        let received = &self.received;
        (self.backend).for_each_chunk_init(
            received,
            OFFER_GRAIN,
            || (),
            |(), chunk| {
                for offer in chunk {
                    let (v, d) = (local(offer[0]), bits(offer[1]));
                    if d < dist[v].load(Relaxed) && d < dist[v].fetch_min(d, Relaxed) {
                        lowered[v].store(true, Relaxed);
                    }
                }
            },
        );
        let workers = &self.workers;
        self.backend.for_each_chunk_init(
            received,
            OFFER_GRAIN,
            || claim(workers),
            |worker, chunk| {
                for offer in chunk {
                    let (v, d) = (local(offer[0]), bits(offer[1]));
                    let mark = &lowered[v];
                    if mark.load(Relaxed) && dist[v].load(Relaxed) == d && mark.swap(false, Relaxed)
                    {
                        self.parents[v].store(offer[2].to_u64(), Relaxed);
                        let b = bucket_of(f32::from_bits(d), self.delta);
                        if self.waiting[v].load(Relaxed) != b {
                            self.waiting[v].store(b, Relaxed);
                            worker.bins.push(b.into(), index(v));
                        }
                    }
                }
            },
        );
    }

    /// The lowest bucket from `from` on that a vertex of any rank waits
    /// in, or none. Drops the entries of vertices that left a bin on the
    /// way. Collective: one all-reduce.
    fn lowest_waiting(&self, from: u32) -> Option<u32> {
        let waiting = &self.waiting;
        let lowest = |w: &Mutex<Worker<I>>| {
            let mut w = lock(w);
            let mut from = u64::from(from);
            while let Some(b) = w.bins.lowest_from(from) {
                let bucket = u32::try_from(b).ok();
                w.bins
                    .retain(b, |&v| Some(waiting[v as usize].load(Relaxed)) == bucket);
                if w.bins.len(b) > 0 {
                    return Some(b);
                }
                from = b + 1;
            }
            None
        };
        let mine = self.workers.iter().filter_map(lowest).min();
        let mine = mine.unwrap_or(u64::MAX);
        let lowest = crate::all_reduce(self.comm, [mine], Reduce::Min)[0];
        u32::try_from(lowest).ok()
    }
}

/// What a scan reads: the rows, the distances, and where offers go.
struct Scan<'a, I: Id> {
    graph: &'a WeightedLocalGraph<I>,
    dist: &'a [AtomicU32],
    rank: usize,
    delta: f32,
}

impl<I: Id> Scan<'_, I> {
    /// Offers the targets of `arcs` the distance through local vertex `u`:
    /// dropped for an own target it cannot improve, else put in `out` by
    /// destination rank.
    #[inline]
    fn offer(&self, out: &mut [Vec<[I; 3]>], u: usize, arcs: impl Iterator<Item = (u64, f32)>) {
        let part = self.graph.partition();
        let du = f32::from_bits(self.dist[u].load(Relaxed));
        let parent = I::from_u64(self.graph.first() + u as u64);
        for (t, w) in arcs {
            let d = du + w;
            let (owner, v) = part.place(t);
            if owner == self.rank && d.to_bits() >= self.dist[v].load(Relaxed) {
                continue;
            }
            out[owner].push([
                I::from_u64(v as u64),
                I::from_u64(d.to_bits().into()),
                parent,
            ]);
        }
    }
}

/// A share for the calling thread for the rest of one loop's work on it:
/// the first share no other thread holds. There is a share per thread of
/// the backend and a thread holds at most one at a time (rayon makes a
/// split's local, and drops it, before the thread takes other work; a
/// thread of `par`'s makes one for the whole loop), so one is free; the
/// loop retries only while a thread that just finished lets go of its.
fn claim<I>(workers: &[Mutex<Worker<I>>]) -> MutexGuard<'_, Worker<I>> {
    loop {
        for w in workers {
            match w.try_lock() {
                Ok(guard) => return guard,
                Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
        }
        std::thread::yield_now();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bucket of distance `d` (finite, `>= 0`): [`kernels::bucket_of`],
/// exact for every `f32` and below 2^30 for every `delta` allowed, so it
/// never meets [`NOT_WAITING`].
#[inline]
fn bucket_of(d: f32, delta: f32) -> u32 {
    u32::try_from(kernels::bucket_of(d, delta)).unwrap_or(NOT_WAITING - 1)
}

/// A local index as a queue entry (below 2^32: checked by `new`).
#[inline]
fn index(u: usize) -> u32 {
    #[allow(clippy::cast_possible_truncation)]
    let u = u as u32;
    u
}

/// An offer's local index.
#[inline]
fn local<I: Id>(v: I) -> usize {
    #[allow(clippy::cast_possible_truncation)] // below the rank's vertex count
    let v = v.to_u64() as usize;
    v
}

/// An offer's distance bits.
#[inline]
fn bits<I: Id>(d: I) -> u32 {
    #[allow(clippy::cast_possible_truncation)] // made from a u32
    let d = d.to_u64() as u32;
    d
}

#[cfg(test)]
mod tests;
