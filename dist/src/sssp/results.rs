//! What a search of [`DistSssp`] leaves: the closing sums of its figures,
//! and this rank's part of the result (parents, distances, nedge, the
//! trace). The invariants are the module's ([`super`]).

use super::state::{UNREACHED, dist_bits};
use super::{COUNT_GRAIN, DistSssp};
use crate::comm::Reduce;
use crate::{Id, NO_PARENT};
use kernels::{BucketStep, SsspStats};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

impl<I: Id> DistSssp<'_, I> {
    /// Ends a search: the global reached count and largest distance, the
    /// bytes sent, and the trace's sums and maxima, in two all-reduces.
    pub(super) fn finish(&mut self, sent: u64, buckets: u32, phases: u32) -> SsspStats {
        let states = &self.state;
        let (reached, max_bits) = (self.backend)
            .map_ranges(states.len(), COUNT_GRAIN, |r| {
                (states[r].iter().map(|s| dist_bits(s.load(Relaxed))))
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
        self.report();
        let max_bits = u32::try_from(self.maxes[0]).expect("distance bits");
        SsspStats {
            reached: self.sums[0],
            max_dist: f32::from_bits(max_bits),
            buckets,
            phases,
        }
    }

    /// Writes what the last search reports, by original local index and
    /// with original ids ([`WeightedLocalGraph::row_of`](crate::WeightedLocalGraph::row_of)):
    /// a gather of each vertex's state and parent, and a lookup of the
    /// parent's original id. Part of the search. O(local N), parallel.
    pub(super) fn report(&mut self) {
        let (graph, states, parents) = (&*self.graph, &self.state, &self.parents);
        let pieces: Vec<_> = (self.reported.chunks_mut(COUNT_GRAIN))
            .zip(self.reported_dist.chunks_mut(COUNT_GRAIN))
            .enumerate()
            .collect();
        self.backend.map(pieces, |(piece, (parents_out, dist))| {
            let first = piece * COUNT_GRAIN;
            for (i, (p, d)) in parents_out.iter_mut().zip(dist).enumerate() {
                let u = graph.row_of(first + i);
                let bits = dist_bits(states[u].load(Relaxed));
                (*p, *d) = if bits == UNREACHED {
                    (NO_PARENT, -1.0)
                } else {
                    let parent = graph.original(parents[u].load(Relaxed));
                    (parent, f32::from_bits(bits))
                };
            }
        });
    }

    /// The parents of this rank's vertices after the last search, by
    /// (original) local index, as original global ids: [`NO_PARENT`] if
    /// unreached, the root's is the root.
    pub fn parents(&self) -> &[u64] {
        &self.reported
    }

    /// The last search's result for this rank's vertices, by (original)
    /// local index: `parents[u]` (an original global id, [`NO_PARENT`]
    /// unreached) and `dist[u]` (`-1` unreached). Both slices must have
    /// the rank's vertex count of entries. O(local N); not collective.
    pub fn write_results(&self, parents: &mut [u64], dist: &mut [f32]) {
        assert_eq!(parents.len(), self.reported.len(), "a parent per vertex");
        assert_eq!(dist.len(), self.reported.len(), "a distance per vertex");
        parents.copy_from_slice(&self.reported);
        dist.copy_from_slice(&self.reported_dist);
    }

    /// The last search's nedge: input tuples (self-loops excluded,
    /// duplicates included) with an end reached, as half the reached
    /// vertices' degree sum over all ranks (the rule of
    /// `kernels::DeltaStepping::nedge`). Collective; one all-reduce and
    /// O(local N), parallel.
    pub fn nedge(&self) -> u64 {
        let (graph, states) = (&*self.graph, &self.state);
        let arcs: u64 = (self.backend)
            .map_ranges(states.len(), COUNT_GRAIN, |r| {
                r.filter(|&u| dist_bits(states[u].load(Relaxed)) != UNREACHED)
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

    /// How many heavy phases of the last search ran as pulls, the same on
    /// every rank.
    pub fn pulls(&self) -> u32 {
        self.pulls
    }

    /// Bytes all ranks sent in the last search (its two closing
    /// all-reduces aside).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}
