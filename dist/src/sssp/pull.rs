//! The heavy phase of [`DistSssp`] turned round, as the single process's
//! (`kernels::DeltaStepping`): every vertex a rank owns that is not done
//! takes the best offer `dist[t] + w` of its done neighbours `t` through
//! its heavy arcs, reading their distances from what every rank published
//! ([`Done`](super::done::Done)). No offer is sent, so a pull needs no
//! exchange.
//!
//! Which one runs is one choice for all ranks, from figures summed over
//! them as the bucket's settled vertices are published: a pull when
//! `kernels::SsspCost` finds it cheaper than the push of the settled
//! vertices' heavy arcs. Kernel 1 orders each row's heavy part by weight
//! band ([`WeightedLocalGraph`](crate::WeightedLocalGraph)), so a pull
//! reads an open vertex's heavy arcs, lowest band first, only up to the
//! first arc whose band's low end added to the bucket's lower bound cannot
//! beat the vertex's distance (no later arc can then); rows not split at
//! `delta` are read whole. An arc whose own weight cannot help is passed
//! over without a look at its target.
//!
//! Exact: a pull leaves every vertex with the least of its distance and
//! the heavy offers of the done vertices, which is what the push leaves
//! (offers of vertices done in earlier buckets were applied in their own
//! heavy phases and cannot improve); each vertex is written only by the
//! worker that reads its row, with the distance one parent's offer gave.

use super::phase::{bucket_of, index};
use super::state::{dist_bits, waiting, with_dist, with_settled, with_waiting};
use super::{DistSssp, FIGURES};
use crate::Id;
use crate::graph::heavy_floor;
use crate::shares::claim;
use kernels::{Bitmap, EXACT_BUCKETS, SsspCost};
use std::sync::atomic::Ordering::Relaxed;

/// Own vertices per parallel task of a pull.
const PULL_GRAIN: usize = 1 << 10;
/// How many pulling vertices ahead of the one it reads a pull prefetches a
/// row's heavy part: rows are read in order, but a few arcs of each, at
/// strides no hardware prefetcher follows (as the single process's pull).
const PULL_AHEAD: usize = 16;

impl<I: Id> DistSssp<'_, I> {
    /// The figures a rank publishes with its settled vertices (the queue):
    /// their heavy arcs, and its vertices a pull would visit (below
    /// `pull_end`) and heavy arcs not done once they are; the latter are
    /// kept for the next bucket. The settled vertices come at random: their
    /// row bounds are prefetched [`PULL_AHEAD`] on.
    pub(super) fn heavy_figures(&mut self) -> [u64; FIGURES] {
        let queue = &self.queue;
        let settled: u64 = (queue.iter().enumerate())
            .map(|(i, &u)| {
                if let Some(&far) = queue.get(i + PULL_AHEAD).filter(|_| self.split) {
                    self.graph.prefetch_bounds(far as usize);
                }
                self.heavy_degree(u as usize)
            })
            .sum();
        let end = self.pull_end;
        self.open[0] -= queue.iter().filter(|&&u| (u as usize) < end).count() as u64;
        self.open[1] -= settled;
        [settled, self.open[0], self.open[1]]
    }

    /// Publishes the bucket's settled vertices ([`Done::publish`](super::Done))
    /// and says whether its heavy phase should pull. Collective.
    pub(super) fn publish_pulls(&mut self) -> bool {
        let figures = self.heavy_figures();
        let mine = (self.graph.first(), &self.queue[..], &self.state[..]);
        let run = (self.backend, self.alone);
        let all = (self.done).publish(self.comm, run, mine, figures);
        Self::pull_pays(all)
    }

    /// Whether the heavy phase should pull, from the summed figures.
    pub(super) fn pull_pays(figures: [u64; FIGURES]) -> bool {
        let [settled, open_vertices, open_arcs] = figures;
        // One process's weights, with the push at its AMD EPYC weight on
        // every processor: the Intel weight made the ranks' searches 1.05
        // times as long at SCALE 18 (docs/history-kernels.md, dist-sssp).
        SsspCost::pull(open_vertices, open_arcs) < SsspCost::PUSHED_ARC * settled
    }

    /// The heavy arcs of own vertex `u`.
    pub(super) fn heavy_degree(&self, u: usize) -> u64 {
        if self.split {
            self.graph.light_and_heavy(u).1.len() as u64
        } else {
            let arcs = self.graph.arcs(u);
            arcs.filter(|&(_, w)| w >= self.delta).count() as u64
        }
    }

    /// The heavy phase of `bucket` as a pull over this rank's vertices not
    /// done; the bucket's settled vertices (the queue) leave their list.
    /// On split rows a vertex whose heavy arcs' lower bound, added to the
    /// bucket's, cannot beat its distance is passed over without reading
    /// or prefetching its row (as the single process's `may_pull`), and
    /// vertices from `pull_end` on (no heavy arc) are not visited.
    /// Not collective.
    pub(super) fn pull(&self, bucket: u32) {
        for &u in &self.queue {
            let state = &self.state[u as usize];
            state.store(with_settled(state.load(Relaxed), false), Relaxed);
        }
        // The bucket's lower bound, exact below EXACT_BUCKETS (a power of
        // two times an integer below 2^24); 0 past it, which only reads more.
        #[allow(clippy::cast_precision_loss)]
        let low = if u64::from(bucket) < EXACT_BUCKETS {
            bucket as f32 * self.delta
        } else {
            0.0
        };
        let (graph, done, workers) = (&*self.graph, self.done.view(), &self.workers);
        let first = graph.first();
        // Whether own vertex `u`, not done, at state `s`, may improve.
        let may_pull = |u: usize, s: u64| {
            let best = f32::from_bits(dist_bits(s));
            !self.split || low + self.lightest_heavy[u] < best
        };
        self.backend.map_ranges(self.pull_end, PULL_GRAIN, |range| {
            // The range's vertices that pull, found first in one pass over
            // their done bits, 64 at a time, and the open ones' states (in
            // order), so that the rows prefetched PULL_AHEAD on are rows
            // read: a pull reads about a quarter of them at SCALE 18, where
            // PULL_AHEAD vertices ahead held a handful of rows in flight
            // (paired on 2 ranks of one thread, 0.93-0.98 of the SSSP time
            // at SCALE 18 and 0.97 at SCALE 20, and the done bits a word at
            // a time 0.93-0.94 and 0.96 more; docs/history-kernels.md,
            // dist-sssp).
            let mut worker = claim(workers);
            let mut visit = std::mem::take(&mut worker.visit);
            visit.clear();
            for base in range.clone().step_by(Bitmap::WORD_BITS) {
                let n = (range.end - base).min(Bitmap::WORD_BITS);
                let mut open = !done.done_from(first + base as u64) & (u64::MAX >> (64 - n));
                while open != 0 {
                    let u = base + open.trailing_zeros() as usize;
                    open &= open - 1;
                    if may_pull(u, self.state[u].load(Relaxed)) {
                        visit.push(index(u));
                    }
                }
            }
            for (i, &u) in visit.iter().enumerate() {
                if let Some(&far) = visit.get(i + PULL_AHEAD).filter(|_| self.split) {
                    graph.prefetch_row(far as usize, true);
                }
                let u = u as usize;
                // This worker alone writes `u`'s state in the pull.
                let s = self.state[u].load(Relaxed);
                let (mut best, mut from) = (f32::from_bits(dist_bits(s)), None);
                // Takes the arc's offer if it helps; whether a later
                // arc of a banded part may (none can once the band's
                // low end cannot: `best` only drops).
                let mut look = |(t, w): (u64, f32)| {
                    if low + w >= best {
                        return low + heavy_floor(w) < best;
                    }
                    if done.has(t) {
                        let d = f32::from_bits(done.distance(t)) + w;
                        if d < best {
                            (best, from) = (d, Some(t));
                        }
                    }
                    true
                };
                if self.split {
                    let mut heavy = graph.light_and_heavy(u).1;
                    heavy.all(&mut look);
                } else {
                    graph
                        .arcs(u)
                        .filter(|&(_, w)| w >= self.delta)
                        .for_each(|arc| {
                            look(arc);
                        });
                }
                let Some(t) = from else { continue };
                let b = bucket_of(best, self.delta);
                let new = with_waiting(with_dist(s, best.to_bits()), b);
                self.state[u].store(new, Relaxed);
                self.parents[u].store(t, Relaxed);
                if waiting(s) != b {
                    worker.bins.push(b.into(), index(u));
                }
            }
            worker.visit = visit;
        });
    }
}
