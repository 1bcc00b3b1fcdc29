//! A phase of [`DistSssp`]: scan the queue into offers, exchange them,
//! apply them, and the all-reduce that says what comes next; with the
//! helpers the phases share. The invariants are the module's
//! ([`super`]).

use super::state::{
    self, NOT_WAITING, dist_bits, settled, waiting, with_dist, with_settled, with_waiting,
};
use super::{DistSssp, Phase, Worker, done::Done};
use crate::comm::{Reduce, exchange_counted_into};
use crate::shares::{claim, lock};
use crate::{Id, WeightedLocalGraph};
use kernels::{Bins, Bitmap};
use par::hint::prefetch;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Queued vertices per parallel task.
const GRAIN: usize = 64;
/// Received offers per parallel task.
const OFFER_GRAIN: usize = 1 << 10;
/// How far ahead in a queue a vertex's state and row bounds are
/// prefetched, and its row (as the single process's queues).
const AHEAD: usize = 16;
const ROW_AHEAD: usize = 8;

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
    ///    once, and on a rank of one thread one that can is applied at once
    ///    ([`Scan::offer`]); the others go into per-worker buffers by
    ///    destination rank, each as `[local index of t, bits of d, u]`. A
    ///    light phase on a rank of one thread settles its queue first and
    ///    scans only the vertices with light arcs
    ///    ([`DistSssp::settle_alone`]);
    /// 2. **one exchange** of all the phase's offers, coalesced per
    ///    destination (a rank of several threads gets its own offers back
    ///    as a copy);
    /// 3. **apply** the offers received ([`DistSssp::apply`]);
    /// 4. the caller's **one all-reduce** (Min) of the lowest bucket, from
    ///    the current one on, with a vertex waiting in it
    ///    ([`DistSssp::lowest_waiting`]): after a light phase, whether the
    ///    bucket needs another; after the heavy phase, the next bucket, or
    ///    the end.
    ///
    /// A worker's share goes to whichever thread claims it first.
    pub(super) fn phase(&mut self, phase: Phase, bucket: u32) {
        let (split, light) = (self.split, phase == Phase::Light);
        // On a rank of one thread the light queue keeps only the entries
        // with light arcs, each settled already (`settle_alone`).
        let settled_ahead = light && split && self.alone;
        if settled_ahead {
            self.settle_alone(bucket);
        }
        let scan = Scan {
            graph: &*self.graph,
            state: &self.state,
            rank: self.comm.rank(),
            delta: self.delta,
            split: self.split,
            light_rows: &self.light_rows,
            done: &self.done,
            alone: self.alone,
            parents: &self.parents,
        };
        let (states, workers) = (&self.state, &self.workers);
        self.backend.for_each_chunk_init(
            &self.queue,
            GRAIN,
            || claim(workers),
            |worker, chunk| {
                for (i, &u) in chunk.iter().enumerate() {
                    scan.prefetch_ahead(chunk, i, light);
                    let u = u as usize;
                    // This worker alone writes `u`'s state in the scan.
                    let s = states[u].load(Relaxed);
                    if settled_ahead {
                        // Settled by `settle_alone`; lowered again since by
                        // an earlier scan of this phase if it waits in the
                        // bucket again: this scan relaxes its arcs from the
                        // new distance, leaving the bin's entry stale.
                        if waiting(s) == bucket {
                            states[u].store(with_waiting(s, NOT_WAITING), Relaxed);
                        }
                    } else if light {
                        if waiting(s) != bucket {
                            continue; // stale: it left the bucket
                        }
                        if !settled(s) {
                            worker.settled.push(index(u));
                        }
                        states[u].store(with_settled(with_waiting(s, NOT_WAITING), true), Relaxed);
                    } else {
                        states[u].store(with_settled(s, false), Relaxed);
                    }
                    // (`settle_alone` kept only vertices with light arcs.)
                    if light && !settled_ahead && !scan.has_light(u) {
                        continue; // no arc to relax: leave its row unread
                    }
                    let du = f32::from_bits(dist_bits(s));
                    let worker = &mut *worker;
                    if split {
                        let (l, h) = scan.graph.light_and_heavy(u);
                        if light {
                            scan.offer(worker, (u, du), l);
                        } else {
                            scan.offer(worker, (u, du), h);
                        }
                    } else {
                        let arcs = scan.graph.arcs(u);
                        let arcs = arcs.filter(|&(_, w)| (w < scan.delta) == light);
                        scan.offer(worker, (u, du), arcs);
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
        exchange_counted_into(
            self.comm,
            &self.send,
            &self.send_counts,
            &mut self.received,
            &mut self.recv_counts,
        );
        self.apply();
    }

    /// Settles the light queue of `bucket` on a rank whose loops run on one
    /// thread, ahead of its scan: one pass over the queue drops the entries
    /// that left the bucket, takes every other one off it (listed as settled
    /// by the bucket if it was not) and keeps only those with light arcs,
    /// in index order (their rows' order). The scan then reads rows only,
    /// [`ROW_AHEAD`] of them in flight, where a queue mostly of vertices
    /// without light arcs (a sixty-fourth of the weights are light) left
    /// few rows to prefetch: paired on 2 ranks of one thread, 0.94-0.95 of
    /// the SSSP time at SCALE 18 and 0.93 at SCALE 20
    /// (docs/history-kernels.md, dist-sssp). Split rows only (the light
    /// rows' bitmap).
    pub(super) fn settle_alone(&mut self, bucket: u32) {
        let mut worker = lock(&self.workers[0]);
        let states = &self.state;
        let queue = &mut self.queue;
        let mut kept = 0;
        for i in 0..queue.len() {
            if let Some(&far) = queue.get(i + AHEAD) {
                prefetch(&states[far as usize]);
            }
            let u = queue[i];
            let s = states[u as usize].load(Relaxed);
            if waiting(s) != bucket {
                continue; // stale: it left the bucket
            }
            if !settled(s) {
                worker.settled.push(u);
            }
            states[u as usize].store(with_settled(with_waiting(s, NOT_WAITING), true), Relaxed);
            if self.light_rows.get(u as usize) {
                queue[kept] = u;
                kept += 1;
            }
        }
        queue.truncate(kept);
        queue.sort_unstable();
    }

    /// Applies the offers received, in two parallel passes: the first
    /// lowers each target's distance to its least offer (a minimum on the
    /// bits: non-negative `f32`s order as their bits) and marks the targets
    /// it lowered ([`state::lower`]); the second gives each marked target
    /// the parent of one offer equal to its new distance (the first to take
    /// the mark, so one writer) and queues the target in its new bucket's
    /// bin unless it waits there already ([`state::claim_lowered`]).
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
    ///
    /// On a rank whose loops run on one thread, [`DistSssp::apply_alone`]
    /// instead.
    fn apply(&self) {
        if self.alone {
            return self.apply_alone();
        }
        let states = &self.state;
        let received = &self.received;
        (self.backend).for_each_chunk_init(
            received,
            OFFER_GRAIN,
            || (),
            |(), chunk| {
                for offer in chunk {
                    state::lower(&states[local(offer[0])], bits(offer[1]));
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
                    let b = bucket_of(f32::from_bits(d), self.delta);
                    if let Some(before) = state::claim_lowered(&states[v], d, b) {
                        self.parents[v].store(offer[2].to_u64(), Relaxed);
                        if before != b {
                            worker.bins.push(b.into(), index(v));
                        }
                    }
                }
            },
        );
    }

    /// [`DistSssp::apply`] on a rank whose loops run on one thread: one
    /// pass in the order received, with plain loads and stores, where the
    /// two passes' compare-and-swaps are locked instructions that on x86
    /// wait for their line and hold back the loads after them, so that
    /// each offer's random miss would come in turn. An offer below its
    /// target's distance gives it that distance, its parent and its bucket
    /// at once: the distances and the parents are the two passes' (the
    /// least offer; of equal ones the first received), and so is the
    /// invariant of the parents. A target lowered twice into different
    /// buckets leaves an entry in the first one's bin, which the scans and
    /// [`DistSssp::lowest_waiting`] pass over as any vertex that left a
    /// bin (its bucket is no longer the one in its state, and never is
    /// again: distances only drop).
    ///
    /// The state and the parent of the target [`AHEAD`] offers on are
    /// prefetched: the targets come at random, and the parent is a store
    /// to a line not read before, which would hold its store-buffer entry
    /// while the line is fetched.
    fn apply_alone(&self) {
        let mut worker = lock(&self.workers[0]);
        let received = &self.received;
        for (i, offer) in received.iter().enumerate() {
            if let Some(far) = received.get(i + AHEAD) {
                let far = local(far[0]);
                prefetch(&self.state[far]);
                prefetch(&self.parents[far]);
            }
            let (v, d) = (local(offer[0]), bits(offer[1]));
            let s = self.state[v].load(Relaxed);
            if d < dist_bits(s) {
                let arrays = (&self.state[..], &self.parents[..]);
                lower_alone(
                    arrays,
                    &mut worker.bins,
                    self.delta,
                    (v, s),
                    (d, offer[2].to_u64()),
                );
            }
        }
    }

    /// The lowest bucket from `from` on that a vertex of any rank waits
    /// in, or none. A bin counts once one of its entries still waits in it
    /// (nearly always its first: only a vertex lowered again into a lower
    /// bucket leaves a bin), so a bin's states are not all read twice, here
    /// and at random again in its scan; the entries that left a bin that
    /// counts stay for the scan to pass over, and a bin all of whose
    /// entries left is emptied. Collective: one all-reduce.
    pub(super) fn lowest_waiting(&self, from: u32) -> Option<u32> {
        let states = &self.state;
        let lowest = |w: &Mutex<Worker<I>>| {
            let mut w = lock(w);
            let mut from = u64::from(from);
            while let Some(b) = w.bins.lowest_from(from) {
                let bucket = u32::try_from(b).ok();
                let waits = |&v: &u32| Some(waiting(states[v as usize].load(Relaxed))) == bucket;
                if w.bins.items(b).iter().any(waits) {
                    return Some(b);
                }
                w.bins.retain(b, |_| false);
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
    state: &'a [AtomicU64],
    rank: usize,
    delta: f32,
    split: bool,
    light_rows: &'a Bitmap,
    done: &'a Done<I>,
    /// Whether the rank's loops run on one thread (`DistSssp::alone`).
    alone: bool,
    /// Where a rank of one thread writes an own target's parent at once.
    parents: &'a [AtomicU64],
}

impl<I: Id> Scan<'_, I> {
    /// Prefetches, for the vertex at `i` of `chunk`, the state and row
    /// bounds of the one [`AHEAD`] entries on and the row (from its light
    /// or its heavy arcs) of the one [`ROW_AHEAD`] on: a queue visits
    /// vertices at random, so each would otherwise miss the cache in
    /// turn; in a light phase, only the rows of vertices with light arcs.
    /// A split graph only (the rows' light counts).
    #[inline]
    fn prefetch_ahead(&self, chunk: &[u32], i: usize, light: bool) {
        if !self.split {
            return;
        }
        if let Some(&far) = chunk.get(i + AHEAD) {
            let far = far as usize;
            prefetch(&self.state[far]);
            if !light || self.has_light(far) {
                self.graph.prefetch_bounds(far);
            }
        }
        if let Some(&near) = chunk.get(i + ROW_AHEAD) {
            let near = near as usize;
            if !light || self.has_light(near) {
                self.graph.prefetch_row(near, !light);
            }
        }
    }

    /// Whether own vertex `u` may have light arcs (on rows not split, any).
    #[inline]
    fn has_light(&self, u: usize) -> bool {
        !self.split || self.light_rows.get(u)
    }

    /// Offers the targets of `arcs` the distance through local vertex `u`
    /// (at distance `du`): dropped for a done target, an own target it
    /// cannot improve and a target of another rank offered no more before
    /// ([`DoneView::worth_sending`](super::done::DoneView::worth_sending)),
    /// else put in the worker's buffer for the destination rank. On a rank
    /// of one thread an offer that improves an own target is applied at
    /// once, as [`DistSssp::apply_alone`] would apply it after the exchange
    /// (distance, bucket, parent and bin), so that it costs neither the
    /// buffer, the copy nor the second random read of the target: paired
    /// on 2 ranks of one thread, 0.96 of the SSSP time at SCALE 18 and 20
    /// (docs/history-kernels.md, dist-sssp).
    /// Always inlined: the compiler kept it a call; inlined, 0.985-0.987 of
    /// the time at SCALE 18, paired (about 1.0 at SCALE 20).
    #[inline(always)]
    fn offer(
        &self,
        worker: &mut Worker<I>,
        (u, du): (usize, f32),
        arcs: impl Iterator<Item = (u64, f32)>,
    ) {
        let part = self.graph.partition();
        let parent = I::from_u64(self.graph.first() + u as u64);
        // Copies, kept in registers across the loop's stores.
        let (done, arrays) = (self.done.view(), (self.state, self.parents));
        let (rank, alone, delta) = (self.rank, self.alone, self.delta);
        for (t, w) in arcs {
            if done.has(t) {
                continue; // final: no offer improves it
            }
            let d = du + w;
            let (owner, v) = part.place(t);
            let improves = if owner == rank {
                let s = arrays.0[v].load(Relaxed);
                let better = d.to_bits() < dist_bits(s);
                if better && alone {
                    // Applied at once, as `apply_alone` would: one thread
                    // writes this rank's state.
                    let offer = (d.to_bits(), parent.to_u64());
                    lower_alone(arrays, &mut worker.bins, delta, (v, s), offer);
                    continue;
                }
                better
            } else {
                done.worth_sending(t, d.to_bits(), alone)
            };
            if !improves {
                continue;
            }
            worker.out[owner].push([
                I::from_u64(v as u64),
                I::from_u64(d.to_bits().into()),
                parent,
            ]);
        }
    }
}

/// Lowers own vertex `v`, whose state `s` the caller read, to distance
/// bits `d` (below its own) with `parent`, on a rank whose loops run on one
/// thread (plain stores): distance and bucket in one store, the parent,
/// and a bin entry unless it waits in that bucket already. The one write
/// of an offer for [`DistSssp::apply_alone`] and the scan's own targets.
#[inline]
fn lower_alone(
    (states, parents): (&[AtomicU64], &[AtomicU64]),
    bins: &mut Bins<u32>,
    delta: f32,
    (v, s): (usize, u64),
    (d, parent): (u32, u64),
) {
    let b = bucket_of(f32::from_bits(d), delta);
    states[v].store(with_waiting(with_dist(s, d), b), Relaxed);
    parents[v].store(parent, Relaxed);
    if waiting(s) != b {
        bins.push(b.into(), index(v));
    }
}

/// The bucket of distance `d` (finite, `>= 0`): [`kernels::bucket_of`],
/// exact for every `f32` and below 2^30 for every `delta` allowed, so it
/// never meets [`NOT_WAITING`].
#[inline]
pub(super) fn bucket_of(d: f32, delta: f32) -> u32 {
    let b = kernels::bucket_of(d, delta).min((NOT_WAITING - 1).into());
    #[allow(clippy::cast_possible_truncation)] // below NOT_WAITING
    let b = b as u32;
    b
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
