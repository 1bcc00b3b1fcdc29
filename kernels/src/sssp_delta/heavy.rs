//! Heavy phases: once a bucket has settled, its vertices' heavy arcs are
//! relaxed once, either pushed from the settled vertices or pulled by
//! every vertex not done, lightest arc first up to the first that cannot
//! help (a vertex whose lightest heavy arc cannot help is passed over
//! without reading its row); [`Cost`] chooses.

use super::{PULL_AHEAD, Shared, Worker, dist, improved};
use crate::bins::EXACT_BUCKETS;
use crate::{Bitmap, WeightedArc};
use generator::Vertex;
use par::hint::prefetch;
use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

/// What a heavy phase is expected to cost, in pushed arcs: a push reads
/// each heavy arc of the settled vertices, and a pull every vertex not
/// done and, at most, its heavy arcs (it stops early). A vertex not done
/// weighs [`Cost::OPEN_VERTEX`] arcs of the pull, and a pushed arc
/// [`Cost::pushed_arc`]; both weights were chosen by measurement
/// (docs/history-kernels.md#sssp_delta), the second per processor. Public
/// for the distributed engine's own choice between the two.
pub struct Cost;

impl Cost {
    /// A pull's arcs each vertex not done costs.
    pub const OPEN_VERTEX: u64 = 6;
    /// A pull's arcs each pushed arc costs, where measured best: 5 on AMD
    /// EPYC (and any processor not measured), [`Cost::PUSHED_ARC_INTEL`]
    /// on Intel Xeon.
    pub const PUSHED_ARC: u64 = 5;
    /// A pull's arcs each pushed arc costs on an Intel processor: its
    /// pulls ran faster against its pushes (paired searches at SCALE 18
    /// and 20 on an Intel Xeon: 0.97-0.99 of the time with the push priced
    /// 1.4 times higher, 2 times still 0.97-0.99, 3 times 0.99).
    pub const PUSHED_ARC_INTEL: u64 = 7;

    /// A pull's arcs each pushed arc costs on this processor (its vendor
    /// read once).
    pub fn pushed_arc() -> u64 {
        static WEIGHT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        *WEIGHT.get_or_init(|| {
            if intel() {
                Self::PUSHED_ARC_INTEL
            } else {
                Self::PUSHED_ARC
            }
        })
    }

    /// A pull over `open_vertices` vertices not done, with `heavy_arcs`.
    pub fn pull(open_vertices: u64, heavy_arcs: u64) -> u64 {
        Self::OPEN_VERTEX * open_vertices + heavy_arcs
    }

    /// A push of `arcs` heavy arcs.
    pub fn push(arcs: u64) -> u64 {
        Self::pushed_arc() * arcs
    }
}

/// Whether this processor's vendor is Intel (`cpuid` leaf 0).
fn intel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // Safe to call in recent Rust; the block keeps older compilers,
        // down to the workspace's `rust-version`, building.
        #[allow(unused_unsafe, unsafe_code)]
        // SAFETY: `cpuid` exists on every x86_64 processor, and leaf 0 (the
        // vendor) is defined on all of them; it reads no memory.
        let id = unsafe { std::arch::x86_64::__cpuid(0) };
        [id.ebx, id.edx, id.ecx] == [0x756e_6547, 0x4965_6e69, 0x6c65_746e] // "GenuineIntel"
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

impl Shared {
    /// Relaxes the heavy arcs of the queue's vertices `range` (the
    /// bucket's settled ones, marked done already).
    pub(super) fn push(&self, range: Range<usize>) {
        let chunk = &self.queue[range];
        let mut worker = self.worker();
        for (i, &u) in chunk.iter().enumerate() {
            self.prefetch_ahead(chunk, i);
            let du = dist(self.state[u as usize].load(Relaxed));
            self.relax_heavy(&mut worker, u, du);
        }
    }

    /// Offers `u`'s heavy neighbours `du` plus their arc's weight.
    #[inline]
    fn relax_heavy(&self, worker: &mut Worker, u: Vertex, du: f32) {
        let delta = self.delta;
        for arc in self.parts(u).1.iter().filter(|a| a.weight >= delta) {
            self.relax(worker, u, du + arc.weight, arc.target);
        }
    }

    /// The heavy phase of `bucket` turned round: every vertex not done
    /// takes the best offer `dist[u] + w` of its done neighbours `u`
    /// through its heavy arcs, read lightest first up to the first whose
    /// weight added to the bucket's lower bound cannot beat its distance
    /// (later ones cannot either; offers from earlier buckets were made in
    /// their own heavy phases). Needs rows split at `delta`. Writes only
    /// vertices not done and reads only done ones: plain loads and stores.
    /// For the done bitmap's words `words`.
    pub(super) fn pull(&self, bucket: u64, words: Range<usize>) {
        // The bucket's lower bound, exact (a power of two times an integer
        // below 2^24); past 2^24 buckets `bucket as f32` could round up
        // and stop a pull too early, so the bound falls back to 0 there.
        #[allow(clippy::cast_precision_loss)]
        let low = if bucket < EXACT_BUCKETS {
            bucket as f32 * self.delta
        } else {
            0.0
        };
        let done = &self.done;
        // The task's vertices that pull, listed first in one pass over
        // their done words and the open ones' states and bounds (in
        // order), so that the rows prefetched PULL_AHEAD on are rows read,
        // where PULL_AHEAD vertices on, many of them ruled out by their
        // bound, held few rows in flight (as the ranks' pulls, dist-sssp;
        // paired 0.92-0.93 of kernel 3's time at SCALE 20 and 22:
        // docs/history-kernels.md, `sssp_delta`).
        let mut worker = self.worker();
        let mut visit = std::mem::take(&mut worker.visit);
        visit.clear();
        for w in words {
            let mut open = !done.word(w);
            while open != 0 {
                let v = w * Bitmap::WORD_BITS + open.trailing_zeros() as usize;
                open &= open - 1;
                let Some(state) = self.state.get(v) else {
                    break;
                };
                let v = Vertex::try_from(v).expect("ids fit Vertex");
                if self.may_pull(v, dist(state.load(Relaxed)), low) {
                    visit.push(v);
                }
            }
        }
        for (i, &v) in visit.iter().enumerate() {
            if let Some(first) =
                (visit.get(i + PULL_AHEAD)).and_then(|&far| self.heavy_part(far).first())
            {
                prefetch(first);
            }
            let state = &self.state[v as usize];
            let current = state.load(Relaxed);
            let (mut best, mut from) = (dist(current), None);
            for arc in self.heavy_part(v) {
                if low + arc.weight >= best {
                    break;
                }
                if done.get(arc.target as usize) {
                    let d = dist(self.state[arc.target as usize].load(Relaxed)) + arc.weight;
                    if d < best {
                        (best, from) = (d, Some(arc.target));
                    }
                }
            }
            if let Some(u) = from {
                state.store(improved(current, best, u), Relaxed);
                self.queue_in_bin(&mut worker, v, current, best);
            }
        }
        worker.visit = visit;
    }

    /// Whether `v`, at distance `best`, may take an offer through a heavy
    /// arc from a vertex of the bucket that starts at `low`: only if its
    /// lightest heavy arc, added to `low`, beats `best` (the pull's stopping
    /// rule at its first arc, read from the graph's per-vertex array in
    /// vertex order instead of from the row, so that the rows of vertices
    /// that cannot improve are neither read nor prefetched). Needs rows
    /// split at `delta`.
    #[inline]
    fn may_pull(&self, v: Vertex, best: f32, low: f32) -> bool {
        low + self.graph.lightest_heavy(v) < best
    }

    /// The part of `u`'s row that holds its heavy arcs: the rest of a split
    /// row, found from the graph's light counts (for loops in vertex order,
    /// which read them in sequence), else the whole row.
    #[inline]
    pub(super) fn heavy_part(&self, u: Vertex) -> &[WeightedArc] {
        if self.split {
            self.graph.light_and_heavy(u).1
        } else {
            self.graph.arcs(u)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the push's price per processor: the vendor `cpuid` gives is
    /// the one the kernel reports, and the push is priced by its weight.
    #[test]
    fn a_push_is_priced_by_this_processors_weight() {
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        {
            let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
            let vendor = info.lines().find(|l| l.starts_with("vendor_id")).unwrap();
            assert_eq!(intel(), vendor.ends_with("GenuineIntel"), "{vendor}");
        }
        let weight = if intel() {
            Cost::PUSHED_ARC_INTEL
        } else {
            Cost::PUSHED_ARC
        };
        assert_eq!(Cost::pushed_arc(), weight);
        assert_eq!(Cost::push(10), 10 * weight);
    }
}
