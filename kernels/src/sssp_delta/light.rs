//! Light phases: the queued vertices still waiting relax their arcs
//! lighter than delta (a row's prefix when split), each taken off its bin
//! by one atomic step; then bucket fusion, a worker going on with its own
//! small bins of the bucket; and the relaxation itself, one CAS on a
//! vertex's packed distance and parent.

use super::{AHEAD, ARC_AHEAD, LISTED, QUEUED, ROW_AHEAD, Shared, Worker, dist, improved};
use crate::WeightedArc;
use generator::Vertex;
use par::hint::{ROW_LINES, prefetch, prefetch_start};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

impl Shared {
    /// Relaxes the light arcs of the queued vertices `range` still
    /// waiting, and lists the ones not listed yet as settled by this
    /// bucket.
    pub(super) fn light_phase(&self, range: Range<usize>) {
        let mut worker = self.worker();
        self.light_entries(&mut worker, &self.queue[range]);
        self.fuse(&mut worker);
    }

    /// Bucket fusion (after GAPBS): once its share of the queue is done,
    /// a worker takes its own entries in the bins of the bucket from the lowest
    /// this phase gathered, lowest bin first, while the bin holds at most
    /// [`FUSE`](super::FUSE) of them, and processes them at once instead of in
    /// a later phase; it stops at the first larger bin, which a later phase
    /// gathers with the other workers' entries. With other workers, it also
    /// stops once it fused [`FUSE`](super::FUSE) entries in the phase: a
    /// worker fusing a chain of small bins alone (in the bucket of the hubs'
    /// neighbours) held the others at the phase's end.
    fn fuse(&self, worker: &mut Worker) {
        let mut entries = std::mem::take(&mut worker.fused);
        let alone = self.workers.len() == 1;
        for bin in self.fusing.clone() {
            loop {
                let len = worker.bins.len(bin);
                if len == 0 {
                    break;
                }
                if len > self.fuse || (!alone && worker.fused_in_phase + len > self.fuse) {
                    worker.fused = entries;
                    return;
                }
                worker.fused_in_phase += len;
                entries.clear();
                worker.bins.drain_into(bin, &mut entries);
                self.light_entries(worker, &entries);
            }
        }
        worker.fused = entries;
    }

    /// Relaxes the light arcs of `entries` still waiting, and lists the
    /// ones not listed yet as settled by this bucket, in two passes: the
    /// first takes every entry still waiting off its bin and keeps those
    /// with light arcs (a sixty-fourth of the weights are light: most
    /// queued vertices have none), the second relaxes the kept ones' arcs
    /// with their rows prefetched [`ROW_AHEAD`] kept entries on, where
    /// [`ROW_AHEAD`] queue entries on held a row or two in flight: paired,
    /// 0.97-0.98 of kernel 3's time at SCALE 18 and 20 on 1 and 2 threads
    /// (docs/history-kernels.md, `sssp_delta`), as the ranks' light queues
    /// gained.
    fn light_entries(&self, worker: &mut Worker, entries: &[Vertex]) {
        let delta = self.delta;
        let mut work = std::mem::take(&mut worker.work);
        work.clear();
        for (i, &u) in entries.iter().enumerate() {
            if let Some(&far) = entries.get(i + AHEAD) {
                self.prefetch_bounds(far, true);
            }
            // Stale unless marked: a vertex that improved into another bin
            // was queued there too, and its first entry taken clears the
            // mark. A marked one waits in the bin of its distance, which
            // only fell since this entry's bin and is not below the lowest
            // bin gathered: it waits in a bin of this phase.
            // Taken off its bin and listed, reading its distance, in one
            // atomic step: an improvement before it is read here, one after
            // it finds the mark clear and queues the vertex anew. Of two
            // entries for it in one phase, only one finds the mark set.
            let Some(taken) = take(&self.state[u as usize]) else {
                continue;
            };
            // Listed once a search, at its first processing, so that a hub
            // relaxes its heavy arcs once.
            let (light, heavy) = self.light_parts(u);
            if taken & LISTED == 0 {
                worker.settled.push(u);
                worker.settled_heavy_arcs += heavy.len() as u64;
            }
            if !light.is_empty() {
                work.push((u, dist(taken)));
            }
        }
        for (i, &(u, du)) in work.iter().enumerate() {
            if let Some(&(near, _)) = work.get(i + ROW_AHEAD) {
                prefetch_start(self.light_parts(near).0, ROW_LINES);
            }
            let row = self.light_parts(u).0;
            for (j, arc) in row.iter().enumerate().filter(|(_, a)| a.weight < delta) {
                if let Some(ahead) = row.get(j + ARC_AHEAD) {
                    prefetch(&self.state[ahead.target as usize]);
                }
                self.relax(worker, u, du + arc.weight, arc.target);
            }
        }
        worker.work = work;
    }

    /// Prefetches what taking queued vertex `v` reads: its state and row
    /// bounds, and with `light` on split rows its light count.
    #[inline(always)]
    fn prefetch_bounds(&self, v: Vertex, light: bool) {
        prefetch(&self.state[v as usize]);
        self.graph.prefetch_offsets(v);
        if light && self.split {
            self.graph.prefetch_light_count(v);
        }
    }

    /// Prefetches, for the vertex at `i` of a push's `chunk`, the state
    /// and row bounds of the vertex [`AHEAD`] entries on, and the first
    /// [`ROW_LINES`] lines of the row of the one [`ROW_AHEAD`] on.
    ///
    /// Always inlined: left to the compiler it stayed a call in the light
    /// and push loops (7.7% of a SCALE 18 run's samples on Intel), and
    /// inlined the searches took 0.96-0.98 of the time, paired
    /// (docs/history-kernels.md, `sssp_delta`).
    #[inline(always)]
    pub(super) fn prefetch_ahead(&self, chunk: &[Vertex], i: usize) {
        if let Some(&far) = chunk.get(i + AHEAD) {
            self.prefetch_bounds(far, false);
        }
        if let Some(&near) = chunk.get(i + ROW_AHEAD) {
            prefetch_start(self.graph.arcs(near), ROW_LINES);
        }
    }

    /// Offers `v` the distance `d` through `u`: taken if strictly smaller,
    /// and then `v` is queued in `d`'s bucket, unless it waits in that
    /// bucket's bin already (its mark set and its old distance there).
    #[inline]
    pub(super) fn relax(&self, worker: &mut Worker, u: Vertex, d: f32, v: Vertex) {
        if self.done.get(v as usize) {
            return; // final: a done vertex's distance is below `d`
        }
        let state = &self.state[v as usize];
        let mut current = state.load(Relaxed);
        while d < dist(current) {
            match state.compare_exchange_weak(current, improved(current, d, u), Relaxed, Relaxed) {
                Ok(_) => return self.queue_in_bin(worker, v, current, d),
                Err(now) => current = now,
            }
        }
    }

    /// The parts of `u`'s row that hold its light and its heavy arcs, for
    /// a light phase: on a row split at `delta`
    /// ([`WeightedCsr::split_light`](crate::WeightedCsr::split_light)) the
    /// light prefix and the rest, from the graph's light counts (prefetched
    /// with the row bounds), so that a vertex without light arcs costs no
    /// line of its row; else the whole row twice.
    #[inline]
    fn light_parts(&self, u: Vertex) -> (&[WeightedArc], &[WeightedArc]) {
        if self.split {
            self.graph.light_and_heavy(u)
        } else {
            let row = self.graph.arcs(u);
            (row, row)
        }
    }

    /// The parts of `u`'s row that hold its light and its heavy arcs, for
    /// a push, which reads the row anyway: on a row split at `delta` the
    /// light prefix and the rest, found by reading the row rather than the
    /// graph's light counts (one random line less a vertex); else the
    /// whole row twice.
    #[inline]
    pub(super) fn parts(&self, u: Vertex) -> (&[WeightedArc], &[WeightedArc]) {
        let row = self.graph.arcs(u);
        if self.split {
            let light = row.iter().take_while(|a| a.weight < self.delta).count();
            row.split_at(light)
        } else {
            (row, row)
        }
    }
}

/// Takes a marked vertex off its bin and lists it: clears its [`QUEUED`]
/// mark and sets [`LISTED`], in one step; its state before, or `None` if
/// it was not marked (a stale entry).
#[inline]
fn take(state: &AtomicU64) -> Option<u64> {
    let mut current = state.load(Relaxed);
    while current & QUEUED != 0 {
        let new = (current & !QUEUED) | LISTED;
        match state.compare_exchange_weak(current, new, Relaxed, Relaxed) {
            Ok(_) => return Some(current),
            Err(now) => current = now,
        }
    }
    None
}
