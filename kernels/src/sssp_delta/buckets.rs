//! Bucket bookkeeping: which bin a distance waits in, queueing an improved
//! vertex there once, gathering a light phase's queue from every worker's bins
//! (merging small neighbouring bins, [`MERGE`](super::MERGE)), and finding the
//! next bucket that holds any vertex. Each worker keeps its own bins
//! ([`Worker`]), locked by the phase chunk that runs on its thread.

use super::{DeltaStepping, QUEUED, Shared, dist};
use crate::bins::Bins;
use crate::bins::bucket_of;
use generator::Vertex;
use std::sync::{Mutex, MutexGuard, PoisonError};

impl DeltaStepping {
    /// Moves the lowest non-empty bin of `bucket`, and the bins after it while
    /// they hold at most [`MERGE`](super::MERGE) vertices together, from every
    /// worker into the queue; false when the bucket's bins are all empty.
    pub(super) fn gather(&mut self, bucket: u64) -> bool {
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
            w.fused_in_phase = 0;
            for bin in low..high {
                w.bins.drain_into(bin, queue);
            }
        }
        true
    }
}

impl Shared {
    /// Puts `v`, whose state went from `old` to distance `d` (marked), in
    /// `d`'s bin, unless it waits in that bin already.
    #[inline]
    pub(super) fn queue_in_bin(&self, worker: &mut Worker, v: Vertex, old: u64, d: f32) {
        let b = self.bin_of(d);
        if old & QUEUED != 0 && self.bin_of(dist(old)) == b {
            return; // it waits in that bin already
        }
        worker.bins.push(b, v);
    }

    /// The lowest bucket from `from` on that some worker holds vertices
    /// of.
    pub(super) fn next_bucket(&self, from: u64) -> Option<u64> {
        // Each worker's lowest non-empty bin, then the lowest of those: no
        // list of guards (this runs inside the timed search, once a bucket).
        let lowest = |w: &Mutex<Worker>| lock(w).bins.lowest_from(from * self.sub);
        Some(self.workers.iter().filter_map(lowest).min()? / self.sub)
    }

    /// The running worker's bins (one per thread of the backend).
    pub(super) fn worker(&self) -> MutexGuard<'_, Worker> {
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

/// One worker's share of the buckets and of the current bucket's settled
/// vertices.
#[derive(Debug, Default)]
pub(super) struct Worker {
    pub(super) bins: Bins<Vertex>,
    /// The vertices this worker listed as settled by the current bucket.
    pub(super) settled: Vec<Vertex>,
    /// The heavy arcs of `settled`.
    pub(super) settled_heavy_arcs: u64,
    /// The entries of a bin being fused ([`Shared::fuse`]), kept for
    /// their capacity.
    pub(super) fused: Vec<Vertex>,
    /// The entries this worker fused in the current phase.
    pub(super) fused_in_phase: usize,
    /// The entries of a light phase taken with light arcs, and their
    /// distances as taken (`Shared::light_entries`), kept for their
    /// capacity.
    pub(super) work: Vec<(Vertex, f32)>,
    /// The vertices of a pull's task that pull (`Shared::pull`), kept for
    /// their capacity.
    pub(super) visit: Vec<Vertex>,
}

pub(super) fn lock(w: &Mutex<Worker>) -> MutexGuard<'_, Worker> {
    w.lock().unwrap_or_else(PoisonError::into_inner)
}
