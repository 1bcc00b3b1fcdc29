//! A phase of [`DistSssp`]: scan the queue into offers, exchange them
//! with the facts that say what comes next (`facts.rs`), apply them; with
//! the helpers the phases share. The invariants are the module's
//! ([`super`]).

use super::facts::{Facts, NONE};
use super::{DistSssp, FIGURES, NOT_WAITING, Phase, Worker, done::Done};
use crate::comm::exchange_known_into;
use crate::{Id, WeightedLocalGraph};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Queued vertices per parallel task.
const GRAIN: usize = 64;
/// Received offers per parallel task.
const OFFER_GRAIN: usize = 1 << 10;

impl<I: Id> DistSssp<'_, I> {
    /// Makes every worker's bin `bucket` the queue.
    pub(super) fn gather(&mut self, bucket: u32) {
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
    /// 2. **one exchange**: the heads (each rank's count and its
    ///    [`Facts`]), then, unless no rank scanned a vertex, all the
    ///    phase's offers, coalesced per destination (the rank's own offers
    ///    come back to it as a copy);
    /// 3. **apply** the offers received ([`DistSssp::apply`]).
    ///
    /// Returns the facts summed over the ranks, the same on every rank.
    /// A worker's share goes to whichever thread claims it first.
    pub(super) fn phase(&mut self, phase: Phase, bucket: u32) -> Facts {
        let scan = Scan {
            graph: &*self.graph,
            dist: &self.dist,
            rank: self.comm.rank(),
            delta: self.delta,
            done: &self.done,
        };
        let (waiting, settled, workers) = (&self.waiting, &self.settled, &self.workers);
        let (split, engine) = (self.split, &*self);
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
                            worker.settled_heavy += engine.heavy_degree(u);
                        }
                    } else {
                        settled[u].store(false, Relaxed);
                    }
                    worker.scanned += 1;
                    let light = phase == Phase::Light;
                    let out = &mut worker.out;
                    worker.in_bucket += if split {
                        let (l, h) = scan.graph.light_and_heavy(u);
                        if light {
                            scan.offer(out, u, l, bucket)
                        } else {
                            scan.offer(out, u, h, bucket)
                        }
                    } else {
                        let arcs = scan.graph.arcs(u);
                        let arcs = arcs.filter(|&(_, w)| (w < scan.delta) == light);
                        scan.offer(out, u, arcs, bucket)
                    };
                }
            },
        );
        let (mut mine, mut scanned) = (Facts::default(), 0);
        self.send.clear();
        for (r, count) in self.send_counts.iter_mut().enumerate() {
            let before = self.send.len();
            for w in &self.workers {
                let mut w = lock(w);
                self.send.extend_from_slice(&w.out[r]);
                w.out[r].clear();
                (scanned, mine.in_bucket) = (
                    scanned + std::mem::take(&mut w.scanned),
                    mine.in_bucket + std::mem::take(&mut w.in_bucket),
                );
            }
            *count = self.send.len() - before;
        }
        mine.lowest = if scanned > 0 {
            bucket.into()
        } else if phase == Phase::Light {
            self.lowest_waiting(u64::from(bucket) + 1)
        } else {
            NONE
        };
        if phase == Phase::Light {
            (mine.settled, mine.figures) = self.settled_figures();
        }
        let heads = &mut self.heads;
        heads.exchange(self.comm, &self.send_counts, mine);
        if heads.all.lowest == u64::from(bucket) {
            let recv_counts = &heads.recv_counts;
            exchange_known_into(
                self.comm,
                &self.send,
                &self.send_counts,
                recv_counts,
                &mut self.received,
            );
            self.apply();
        }
        self.heads.all
    }

    /// This rank's vertices settled so far in the bucket, and the figures
    /// a rank publishes with them: their heavy arcs, and its vertices and
    /// heavy arcs not done once they are.
    pub(super) fn settled_figures(&self) -> (u64, [u64; FIGURES]) {
        let (mut settled, mut heavy) = (0, 0);
        for w in &self.workers {
            let w = lock(w);
            (settled, heavy) = (settled + w.settled.len() as u64, heavy + w.settled_heavy);
        }
        let [vertices, arcs] = self.open;
        (settled, [heavy, vertices - settled, arcs - heavy])
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

    /// The lowest bucket from `from` on that a vertex of this rank waits
    /// in, or [`NONE`]. Drops the entries of vertices that left a bin on
    /// the way. Not collective.
    pub(super) fn lowest_waiting(&self, from: u64) -> u64 {
        let waiting = &self.waiting;
        let lowest = |w: &Mutex<Worker<I>>| {
            let mut w = lock(w);
            let mut from = from;
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
        let lowest = self.workers.iter().filter_map(lowest).min();
        lowest.unwrap_or(NONE)
    }
}

/// What a scan reads: the rows, the distances, and where offers go.
struct Scan<'a, I: Id> {
    graph: &'a WeightedLocalGraph<I>,
    dist: &'a [AtomicU32],
    rank: usize,
    delta: f32,
    done: &'a Done<I>,
}

impl<I: Id> Scan<'_, I> {
    /// Offers the targets of `arcs` the distance through local vertex `u`:
    /// dropped for a done target, an own target it cannot improve and a
    /// target of another rank offered no more before
    /// ([`Done::worth_sending`]), else put in `out` by destination rank.
    /// Returns how many of those lie in `bucket` (or below).
    #[inline]
    fn offer(
        &self,
        out: &mut [Vec<[I; 3]>],
        u: usize,
        arcs: impl Iterator<Item = (u64, f32)>,
        bucket: u32,
    ) -> u64 {
        let mut in_bucket = 0;
        let part = self.graph.partition();
        let du = f32::from_bits(self.dist[u].load(Relaxed));
        let parent = I::from_u64(self.graph.first() + u as u64);
        for (t, w) in arcs {
            if self.done.has(t) {
                continue; // final: no offer improves it
            }
            let d = du + w;
            let (owner, v) = part.place(t);
            let improves = if owner == self.rank {
                d.to_bits() < self.dist[v].load(Relaxed)
            } else {
                self.done.worth_sending(t, d.to_bits())
            };
            if !improves {
                continue;
            }
            in_bucket += u64::from(bucket_of(d, self.delta) <= bucket);
            out[owner].push([
                I::from_u64(v as u64),
                I::from_u64(d.to_bits().into()),
                parent,
            ]);
        }
        in_bucket
    }
}

/// A share for the calling thread for the rest of one loop's work on it:
/// the first share no other thread holds. There is a share per thread of
/// the backend and a thread holds at most one at a time (rayon makes a
/// split's local, and drops it, before the thread takes other work; a
/// thread of `par`'s makes one for the whole loop), so one is free; the
/// loop retries only while a thread that just finished lets go of its.
pub(super) fn claim<I>(workers: &[Mutex<Worker<I>>]) -> MutexGuard<'_, Worker<I>> {
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

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bucket of distance `d` (finite, `>= 0`): [`kernels::bucket_of`],
/// exact for every `f32` and below 2^30 for every `delta` allowed, so it
/// never meets [`NOT_WAITING`].
#[inline]
pub(super) fn bucket_of(d: f32, delta: f32) -> u32 {
    u32::try_from(kernels::bucket_of(d, delta)).unwrap_or(NOT_WAITING - 1)
}

/// A local index as a queue entry (below 2^32: checked by `new`).
#[inline]
pub(super) fn index(u: usize) -> u32 {
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
