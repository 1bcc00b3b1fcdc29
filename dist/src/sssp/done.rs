//! `Done`: which vertices of the whole graph have a final distance, known
//! to every rank, and the least distance this rank offered each vertex of
//! the others, so that no rank sends an offer that cannot improve.
//!
//! A vertex is done once the bucket that settled it reaches its heavy
//! phase: every rank then publishes the vertices it settled in that bucket
//! (one all-gather of their global ids) and sets their bits in its copy of
//! the bitmap, one bit per vertex of the graph. A done vertex's distance
//! is final (delta-stepping settles buckets in order, and bucket bounds are
//! exact, `kernels::bucket_of`), so an offer to it can only fail: the
//! single process skips the same targets (`kernels::DeltaStepping`'s done
//! bitmap), and skipping them changes no distance.
//!
//! A rank also keeps, per vertex of the graph, the least distance it has
//! offered it this search ([`Done::worth_sending`]): an offer goes out
//! only if it is below that, since each one sent is applied in its phase,
//! after which the target's distance is at most it. So a rank sends a
//! target at most one offer per distinct improvement, not one per arc.
//!
//! Invariant: after [`Done::publish`] every rank's bitmap is the same, the
//! union of the settled lists of all ranks so far this search.
//!
//! Cost: per bucket one all-gather of the counts and one of the ids
//! (`size_of::<I>()` bytes per settled vertex to each other rank, so
//! `size_of::<I>() (P - 1)` bytes per reached vertex in a search); `N / 8`
//! bytes of bitmap per rank.

use crate::comm::{Comm, all_gather};
use crate::{Id, Partition};
use kernels::Bitmap;
use par::Backend;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Published ids per parallel task of setting their bits.
const SET_GRAIN: usize = 1 << 12;
/// Vertices per parallel task of clearing.
const CLEAR_GRAIN: usize = 1 << 16;

/// The done vertices of the whole graph, and the buffers of publishing.
pub(super) struct Done<I> {
    bits: Bitmap,
    /// Per vertex, the bits of the least distance offered this search.
    offered: Vec<AtomicU32>,
    mine: Vec<I>,
    counts: Vec<u64>,
    sizes: Vec<usize>,
    all: Vec<I>,
}

impl<I: Id> Done<I> {
    /// No vertex of `part`'s graph done.
    pub(super) fn new(part: &Partition) -> Self {
        let n = usize::try_from(part.num_vertices()).expect("N fits usize");
        Done {
            bits: Bitmap::new(n),
            offered: (0..n).map(|_| AtomicU32::new(super::UNREACHED)).collect(),
            mine: Vec::new(),
            counts: vec![0; part.ranks()],
            sizes: Vec::new(),
            all: Vec::new(),
        }
    }

    /// Makes every vertex not done and not offered again. O(N), parallel;
    /// not collective.
    pub(super) fn clear(&self, backend: Backend) {
        self.bits.clear();
        let offered = &self.offered;
        backend.map_ranges(offered.len(), CLEAR_GRAIN, |r| {
            offered[r]
                .iter()
                .for_each(|d| d.store(super::UNREACHED, Relaxed));
        });
    }

    /// Whether an offer of distance bits `d` to global vertex `v` of
    /// another rank can improve it: `v` not done and `d` below every
    /// distance this rank offered it, which `d` becomes. Of equal offers
    /// made at once, one is worth sending.
    #[inline]
    pub(super) fn worth_sending(&self, v: u64, d: u32) -> bool {
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        let least = &self.offered[v as usize];
        d < least.load(Relaxed) && d < least.fetch_min(d, Relaxed)
    }

    /// Whether global vertex `v` is done.
    #[inline]
    pub(super) fn has(&self, v: u64) -> bool {
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        let v = v as usize;
        self.bits.get(v)
    }

    /// Marks done the vertices every rank settled: here the local indices
    /// `settled` of the rank whose first vertex is `first`. Collective: two
    /// all-gathers.
    pub(super) fn publish(
        &mut self,
        comm: &dyn Comm,
        backend: Backend,
        first: u64,
        settled: &[u32],
    ) {
        self.mine.clear();
        (self.mine).extend(settled.iter().map(|&u| I::from_u64(first + u64::from(u))));
        let ones = vec![1; comm.size()];
        all_gather(comm, &[self.mine.len() as u64], &ones, &mut self.counts);
        self.sizes.clear();
        (self.sizes).extend(
            self.counts
                .iter()
                .map(|&c| usize::try_from(c).expect("a count")),
        );
        self.all.resize(self.sizes.iter().sum(), I::from_u64(0));
        all_gather(comm, &self.mine, &self.sizes, &mut self.all);
        let (all, bits) = (&self.all, &self.bits);
        backend.map_ranges(all.len(), SET_GRAIN, |r| {
            for v in &all[r] {
                #[allow(clippy::cast_possible_truncation)] // below N
                bits.set_atomic(v.to_u64() as usize);
            }
        });
    }
}
