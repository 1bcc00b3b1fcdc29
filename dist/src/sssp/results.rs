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

/// How many rows ahead [`DistSssp::report`] starts loading a parent's
/// original id.
const REPORT_AHEAD: usize = 16;

impl<I: Id> DistSssp<'_, I> {
    /// Ends a search: this rank's result written out ([`DistSssp::report`],
    /// which counts its reached vertices and their largest distance on
    /// the way), then the global reached count and largest distance, the
    /// bytes sent, and the trace's sums and maxima, in two all-reduces.
    pub(super) fn finish(&mut self, sent: u64, buckets: u32, phases: u32) -> SsspStats {
        let (reached, max_bits) = self.report();
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

    /// Writes what the last search reports, by original local index and
    /// with original ids ([`WeightedLocalGraph::original`](crate::WeightedLocalGraph::original)):
    /// in row order, each row's state and parent read in sequence and
    /// stored at its original index, and the parent's original id looked
    /// up ([`REPORT_AHEAD`] rows ahead it is prefetched). Rows without
    /// arcs, last in the degree order, are not read: no search reaches
    /// them, their entries stay unreached, and a root among them is
    /// written alone (`tail_root`). Part of the search. Returns this
    /// rank's reached vertices and the bits of their largest distance,
    /// counted in the same pass. O(local N), parallel.
    ///
    /// In row order rather than original order: the latter read each
    /// row's state and parent at random (two misses a vertex, the loads
    /// that stall) to write in sequence; this way the misses are stores,
    /// which wait in the store buffer, and the one random load left, the
    /// parent's original id, is started ahead. Paired on 2 ranks of one
    /// thread at SCALE 18, 0.96 of the whole SSSP search time, where the
    /// report alone was about 0.07 of it (docs/history-kernels.md,
    /// dist-sssp).
    pub(super) fn report(&mut self) -> (u64, u32) {
        let (graph, states, parents) = (&*self.graph, &self.state, &self.parents);
        let (out_parents, out_dist) = (&self.reported, &self.reported_dist);
        let first = graph.first();
        let pieces = self.backend.map_ranges(self.arcs_end, COUNT_GRAIN, |rows| {
            let end = rows.end;
            let (mut reached, mut max_bits) = (0u64, 0u32);
            for u in rows {
                let far = u + REPORT_AHEAD;
                if far < end && dist_bits(states[far].load(Relaxed)) != UNREACHED {
                    graph.prefetch_original(parents[far].load(Relaxed));
                }
                #[allow(clippy::cast_possible_truncation)] // below the rank's rows
                let x = (graph.original(first + u as u64) - first) as usize;
                let bits = dist_bits(states[u].load(Relaxed));
                let (parent, dist) = if bits == UNREACHED {
                    (NO_PARENT, (-1f32).to_bits())
                } else {
                    (reached, max_bits) = (reached + 1, max_bits.max(bits));
                    (graph.original(parents[u].load(Relaxed)), bits)
                };
                out_parents[x].store(parent, Relaxed);
                out_dist[x].store(dist, Relaxed);
            }
            (reached, max_bits)
        });
        let mut sums = (pieces.into_iter()).fold((0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
        // A root without arcs, past the rows read: reached at distance 0.
        if let Some(x) = self.tail_root {
            out_parents[x].store(first + x as u64, Relaxed);
            out_dist[x].store(0f32.to_bits(), Relaxed);
            sums.0 += 1;
        }
        sums
    }

    /// The parents of this rank's vertices after the last search, by
    /// (original) local index, as original global ids: [`NO_PARENT`] if
    /// unreached, the root's is the root. O(local N): a copy.
    pub fn parents(&self) -> Vec<u64> {
        self.reported.iter().map(|p| p.load(Relaxed)).collect()
    }

    /// The last search's result for this rank's vertices, by (original)
    /// local index: `parents[u]` (an original global id, [`NO_PARENT`]
    /// unreached) and `dist[u]` (`-1` unreached). Both slices must have
    /// the rank's vertex count of entries. O(local N); not collective.
    pub fn write_results(&self, parents: &mut [u64], dist: &mut [f32]) {
        assert_eq!(parents.len(), self.reported.len(), "a parent per vertex");
        assert_eq!(dist.len(), self.reported.len(), "a distance per vertex");
        for (out, p) in parents.iter_mut().zip(&self.reported) {
            *out = p.load(Relaxed);
        }
        for (out, d) in dist.iter_mut().zip(&self.reported_dist) {
            *out = f32::from_bits(d.load(Relaxed));
        }
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
