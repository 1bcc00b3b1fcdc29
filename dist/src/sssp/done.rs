//! `Done`: which vertices of the whole graph have a final distance, known
//! to every rank, and the least distance this rank offered each vertex of
//! the others, so that no rank sends an offer that cannot improve.
//!
//! A vertex is done once the bucket that settled it reaches its heavy
//! phase: every rank then publishes the vertices it settled in that bucket
//! (one all-gather of their global ids) and sets their bits in its copy of
//! the bitmap, one bit per vertex of the graph, and their final distances
//! (which a pull reads). A done vertex's distance
//! is final (delta-stepping settles buckets in order, and bucket bounds are
//! exact, `kernels::bucket_of`), so an offer to it can only fail: the
//! single process skips the same targets (`kernels::DeltaStepping`'s done
//! bitmap), and skipping them changes no distance.
//!
//! A rank also keeps, per vertex of the graph, the least distance it has
//! offered it this search ([`DoneView::worth_sending`]): an offer goes out
//! only if it is below that, since each one sent is applied in its phase,
//! after which the target's distance is at most it. So a rank sends a
//! target at most one offer per distinct improvement, not one per arc.
//!
//! Invariant: after [`Done::publish`] every rank's bitmap is the same, the
//! union of the settled lists of all ranks so far this search.
//!
//! Only for few ranks ([`SHARED_UP_TO`]): what every rank receives grows
//! with `P` (each reached vertex's id and distance from its owner) and the
//! state is `O(N)` a rank, while the offers it saves do not grow with `P`
//! (at most one an arc, whatever the ranks). With Graph500's mean degree of
//! 32 arcs, publishing (`2 (P - 1)` ids a reached vertex) costs less than
//! the offers it can save (3 ids an arc, 96 a vertex) up to `P = 49`, and
//! `4.125 N` bytes of state stay below a rank's share of the weighted rows
//! (`256 N / P`) up to `P = 62`. Beyond [`SHARED_UP_TO`] ranks a `Done` is
//! off: nothing is done, every offer is worth sending, and no rank
//! publishes or pulls (the search of before, every rank deciding alike from
//! `P`).
//!
//! Cost: per bucket one all-gather of the counts (with the figures the
//! choice of push or pull needs) and one of the ids and distances
//! (`2 size_of::<I>()` bytes per settled vertex to each other rank, so
//! `2 size_of::<I>() (P - 1)` bytes per reached vertex in a search); `N / 8`
//! bytes of bitmap per rank.

use crate::comm::{Comm, all_gather};
use crate::{Id, Partition};
use kernels::{Bitmap, BitmapView};
use par::Backend;
use par::hint::prefetch;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Published ids per parallel task of setting their bits.
const SET_GRAIN: usize = 1 << 12;
/// The most ranks that share their done vertices (see the header).
pub(super) const SHARED_UP_TO: usize = 48;
/// How many figures [`Done::publish`] sums over the ranks.
pub(super) const FIGURES: usize = 3;
/// Vertices per parallel task of clearing.
const CLEAR_GRAIN: usize = 1 << 16;
/// How far ahead publishing prefetches what it reads or writes of a
/// vertex: the settled vertices' states, and the published vertices'
/// distances and bitmap words, come at random and the latter are stores
/// to lines not read before (each would hold a store-buffer entry while
/// its line is fetched).
const AHEAD: usize = 16;

/// [`Done`]'s bits and distances as `Copy` slices: an offer loop keeps
/// them in registers, where reading them through `&Done` reloaded the
/// vectors' pointers at every arc (paired, 0.98-0.99 of the ranks' SSSP
/// time; docs/history-kernels.md, dist-sssp).
#[derive(Clone, Copy)]
pub(super) struct DoneView<'a> {
    bits: BitmapView<'a>,
    /// Empty unless the ranks share their done vertices.
    offered: &'a [AtomicU32],
}

impl DoneView<'_> {
    /// Whether the ranks share their done vertices ([`Done::shared`]).
    #[inline]
    pub(super) fn shared(self) -> bool {
        !self.offered.is_empty()
    }

    /// Whether global vertex `v` is done.
    #[inline]
    pub(super) fn has(self, v: u64) -> bool {
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        let v = v as usize;
        self.shared() && self.bits.get(v)
    }

    /// The done bits of the 64 global vertices from `v` on (`v`'s lowest),
    /// none past the graph's end, nor when the ranks share nothing.
    #[inline]
    pub(super) fn done_from(self, v: u64) -> u64 {
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        let v = v as usize;
        if self.shared() {
            self.bits.bits_from(v)
        } else {
            0
        }
    }

    /// The final distance bits of done vertex `v` (published with it).
    #[inline]
    pub(super) fn distance(self, v: u64) -> u32 {
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        self.offered[v as usize].load(Relaxed)
    }

    /// Whether an offer of distance bits `d` to global vertex `v` of
    /// another rank can improve it: `v` not done and `d` below every
    /// distance this rank offered it, which `d` becomes. Of equal offers
    /// made at once, one is worth sending. `alone`: the rank's loops run
    /// on one thread, so a plain store does what the locked `fetch_min`
    /// does (which would hold back the loads after it: the next targets'
    /// misses).
    #[inline]
    pub(super) fn worth_sending(self, v: u64, d: u32, alone: bool) -> bool {
        if !self.shared() {
            return true;
        }
        #[allow(clippy::cast_possible_truncation)] // below N, checked by `new`
        let least = &self.offered[v as usize];
        if d >= least.load(Relaxed) {
            return false;
        }
        if alone {
            least.store(d, Relaxed);
            return true;
        }
        d < least.fetch_min(d, Relaxed)
    }
}

/// The done vertices of the whole graph, and the buffers of publishing.
pub(super) struct Done<I> {
    bits: Bitmap,
    /// Per vertex, the bits of the least distance offered this search;
    /// once done, of its final distance.
    offered: Vec<AtomicU32>,
    mine: Vec<[I; 2]>,
    counts: Vec<u64>,
    sizes: Vec<usize>,
    all: Vec<[I; 2]>,
}

impl<I: Id> Done<I> {
    /// The bytes a rank's `Done` holds for `n` vertices over `ranks`.
    pub(super) fn bytes_for(n: u64, ranks: usize) -> u64 {
        if ranks <= SHARED_UP_TO {
            n / 8 + 4 * n
        } else {
            0
        }
    }

    /// Whether the ranks share their done vertices (the same on every
    /// rank: a function of `P`).
    pub(super) fn shared(&self) -> bool {
        self.view().shared()
    }

    /// No vertex of `part`'s graph done; off unless `shared` (which
    /// [`SHARED_UP_TO`] decides, except in tests).
    pub(super) fn new(part: &Partition, shared: bool) -> Self {
        let n = if shared {
            usize::try_from(part.num_vertices()).expect("N fits usize")
        } else {
            0
        };
        Done {
            bits: Bitmap::new(n),
            offered: (0..n)
                .map(|_| AtomicU32::new(super::state::UNREACHED))
                .collect(),
            mine: Vec::new(),
            counts: vec![0; (FIGURES + 1) * part.ranks()],
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
                .for_each(|d| d.store(super::state::UNREACHED, Relaxed));
        });
    }

    /// The done bits and the distances, borrowed for a loop
    /// ([`DoneView`]).
    #[inline]
    pub(super) fn view(&self) -> DoneView<'_> {
        DoneView {
            bits: self.bits.view(),
            offered: &self.offered,
        }
    }

    /// Marks done the vertices every rank settled, with their distances:
    /// here the local indices `settled` of the rank whose first vertex is
    /// `first`, distances in `state` (`state.rs`). Returns `figures`
    /// summed over the ranks. Collective: two all-gathers. `alone`: the
    /// rank's loops run on one thread, so the bits are set by plain loads
    /// and stores, not by locked instructions (each of which would wait
    /// for the distance stored before it, a random miss).
    pub(super) fn publish(
        &mut self,
        comm: &dyn Comm,
        (backend, alone): (Backend, bool),
        (first, settled, state): (u64, &[u32], &[AtomicU64]),
        figures: [u64; FIGURES],
    ) -> [u64; FIGURES] {
        self.mine.clear();
        self.mine.extend(settled.iter().enumerate().map(|(i, &u)| {
            if let Some(&far) = settled.get(i + AHEAD) {
                prefetch(&state[far as usize]);
            }
            let d = super::state::dist_bits(state[u as usize].load(Relaxed));
            [I::from_u64(first + u64::from(u)), I::from_u64(d.into())]
        }));
        let ranks = comm.size();
        let mut row = [self.mine.len() as u64; FIGURES + 1];
        row[1..].copy_from_slice(&figures);
        all_gather(comm, &row, &vec![FIGURES + 1; ranks], &mut self.counts);
        let mut sums = [0; FIGURES];
        self.sizes.clear();
        for r in self.counts.chunks_exact(FIGURES + 1) {
            self.sizes.push(usize::try_from(r[0]).expect("a count"));
            sums.iter_mut().zip(&r[1..]).for_each(|(s, f)| *s += f);
        }
        self.all
            .resize(self.sizes.iter().sum(), [I::from_u64(0); 2]);
        all_gather(comm, &self.mine, &self.sizes, &mut self.all);
        let (all, bits, known) = (&self.all, &self.bits, &self.offered);
        backend.map_ranges(all.len(), SET_GRAIN, |r| {
            let piece = &all[r];
            for (i, &[v, d]) in piece.iter().enumerate() {
                if let Some(&[far, _]) = piece.get(i + AHEAD) {
                    #[allow(clippy::cast_possible_truncation)] // below N
                    let far = far.to_u64() as usize;
                    prefetch(&known[far]);
                    bits.prefetch(far);
                }
                #[allow(clippy::cast_possible_truncation)] // below N; distance bits
                let (v, d) = (v.to_u64() as usize, d.to_u64() as u32);
                known[v].store(d, Relaxed);
                if alone {
                    let w = v / Bitmap::WORD_BITS;
                    bits.store_word(w, bits.word(w) | 1 << (v % Bitmap::WORD_BITS));
                } else {
                    bits.set_atomic(v);
                }
            }
        });
        sums
    }
}
