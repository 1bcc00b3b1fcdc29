//! The hubs' rows held by their neighbours' owners, for `DistBfs`'s
//! top-down steps ("delegates", after Pearce, Gokhale and Amato).
//!
//! A small frontier that holds a hub costs a 1-D top-down step the hub's
//! whole row on one rank: its owner scans every arc alone and sends half
//! of them (at 2 ranks) as `(vertex, parent)` pairs, which the other rank
//! then claims while the owner waits. The graph is symmetric, so the arcs
//! `h -> v` of a hub `h` are also the arcs `v -> h` in the rows of their
//! targets, on the targets' owners. Each rank keeps, per hub, the list of
//! its own vertices adjacent to it (a transposed piece of the hub's row,
//! built from its own rows, no message). A top-down step then skips a
//! hub's row: the owner announces the hub to every other rank in the
//! step's exchange (one pair `(h, h)`, which no arc can make: a vertex's
//! row is on its owner, so no rank proposes a vertex as its own parent),
//! and every rank claims its own vertices of the hub's list locally. The
//! hub's arcs are scanned by all ranks at once and none crosses the
//! network.
//!
//! Which vertices are hubs: those of degree class (`kernels::degree_class`)
//! at least a bound, the lowest bound of at least [`MIN_DEGREE`] whose
//! hubs number at most [`MAX_HUBS`] and hold at most [`BUDGET_EIGHTHS`]
//! eighths of the arcs (one all-reduce of the ranks' counts and arcs per class, so
//! every rank takes the same bound). The lists cost that share of the
//! rank's arc words again.
//!
//! Invariants: a hub's lists over all ranks hold its row (each arc once as
//! its reverse arc); [`Delegates::index`] and [`Delegates::find`] agree on
//! a hub's index; every rank holds the same hubs in the same order.

use crate::comm::{Comm, Reduce};
use crate::{Id, LocalGraph};
use kernels::degree_class;
use par::Backend;
use std::ops::Range;

/// The least degree of a hub: smaller rows cost a top-down step little,
/// and every hub costs a few bytes on every rank and a pair to each rank
/// when announced. At SCALE 16 and above the hubs are bounded by
/// [`MAX_HUBS`] and [`BUDGET_EIGHTHS`] instead.
pub(super) const MIN_DEGREE: u64 = 64;
/// At most this many hubs (their ids are held by every rank).
pub(crate) const MAX_HUBS: u64 = 1 << 14;
/// At most this many eighths of all arcs lead to hubs: the lists' memory.
pub(crate) const BUDGET_EIGHTHS: u64 = 3;
/// Rows per work item of the build.
const PIECE: usize = 1 << 14;
/// Degree classes (`degree_class` is at most 251).
const CLASSES: usize = 256;

/// Per hub, this rank's vertices adjacent to it.
pub(super) struct Delegates<I: Id> {
    /// The hubs' global ids, ascending, the same on every rank.
    ids: Vec<I>,
    /// Which local rows are hubs, and their indices.
    mine: HubBits,
    /// Hub `k`'s local vertices are `members[offsets[k]..offsets[k + 1]]`.
    offsets: Vec<usize>,
    members: Vec<I>,
}

impl<I: Id> Delegates<I> {
    /// Hubs over all ranks.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The hub index of local row `u`, if it is a hub. O(1).
    #[inline]
    pub(super) fn index(&self, u: usize) -> Option<usize> {
        self.mine.index(u)
    }

    /// The index of global vertex `h`, if it is a hub. O(log hubs).
    pub(super) fn find(&self, h: u64) -> Option<usize> {
        self.ids.binary_search_by_key(&h, |id| id.to_u64()).ok()
    }

    /// Hub `k`'s global id.
    pub(super) fn id(&self, k: usize) -> u64 {
        self.ids[k].to_u64()
    }

    /// This rank's vertices adjacent to hub `k`, as local rows.
    pub(super) fn members(&self, k: usize) -> &[I] {
        &self.members[self.offsets[k]..self.offsets[k + 1]]
    }
}

/// 64 vertices' hub bits and the hubs before them over all ranks: a hub's
/// index is the count plus the hubs before it in the word. One read.
#[derive(Clone, Copy)]
struct HubWord {
    bits: u64,
    before: u32,
}

/// The hub words of a run of ids that starts at a multiple of 64.
struct HubBits {
    words: Vec<HubWord>,
}

impl HubBits {
    /// The hub index of the run's vertex `v`, if it is a hub. O(1).
    #[inline]
    fn index(&self, v: usize) -> Option<usize> {
        let (w, bit) = (v / 64, v % 64);
        let HubWord { bits, before } = *self.words.get(w)?;
        let below = (bits & ((1 << bit) - 1)).count_ones() as usize;
        (bits >> bit & 1 != 0).then(|| before as usize + below)
    }

    /// Words `range` of the run (their counts stay those over all ranks).
    fn slice(&self, range: Range<usize>) -> HubBits {
        HubBits {
            words: self.words[range].to_vec(),
        }
    }
}

/// The lowest class of a hub from the arcs and vertices of each class over
/// all ranks, or `None` if no class qualifies. The same on every rank.
fn bound(vertices: &[u64], arcs: &[u64]) -> Option<usize> {
    let total: u64 = arcs.iter().sum();
    let budget = total / 8 * BUDGET_EIGHTHS;
    let least = usize::from(degree_class(MIN_DEGREE));
    let (mut hubs, mut held, mut best) = (0, 0, None);
    for c in (least..CLASSES).rev() {
        hubs += vertices[c];
        held += arcs[c];
        if hubs > MAX_HUBS || held > budget {
            break;
        }
        if vertices[c] > 0 {
            best = Some(c);
        }
    }
    best
}

/// COLLECTIVE. The least degree class of a hub (`CLASSES` if none), from
/// the `degrees` of this rank's own vertices: one all-reduce of 512
/// counts (vertices and arcs per class), so every rank takes the same
/// bound. Both partitions choose their hubs by it.
pub(crate) fn least_hub_class(comm: &dyn Comm, degrees: impl Iterator<Item = u64>) -> usize {
    let mut counts = vec![0u64; 2 * CLASSES];
    for d in degrees {
        let c = usize::from(degree_class(d));
        counts[c] += 1;
        counts[CLASSES + c] += d;
    }
    comm.all_reduce(&mut counts, Reduce::Sum);
    bound(&counts[..CLASSES], &counts[CLASSES..]).unwrap_or(CLASSES)
}

/// The delegates of `graph`, whose vertices' degree classes over all
/// ranks are `classes` (in id order). Collective: one all-reduce of 512
/// counts. O(rows + N / 64 + arcs into hubs), a pass over the rank's arcs.
pub(super) fn delegates<I: Id>(
    backend: Backend,
    comm: &dyn Comm,
    graph: &LocalGraph<I>,
    classes: &[u8],
) -> Delegates<I> {
    let rows = graph.num_rows();
    let first = usize::try_from(graph.first()).expect("ids fit memory");
    let least = least_hub_class(comm, (0..rows).map(|u| graph.degree(u)));
    let is_hub = |v: usize| usize::from(classes[v]) >= least;
    // Every vertex's hub bit, and the hubs before each word.
    let bits: Vec<u64> = backend
        .map_ranges(classes.len().div_ceil(64), PIECE, |r| {
            r.map(|w| {
                (0..64)
                    .filter(|&b| w * 64 + b < classes.len() && is_hub(w * 64 + b))
                    .fold(0u64, |m, b| m | 1 << b)
            })
            .collect::<Vec<u64>>()
        })
        .concat();
    let mut hubs = 0u32;
    let words = (bits.iter())
        .map(|&bits| {
            let before = hubs;
            hubs += bits.count_ones();
            HubWord { bits, before }
        })
        .collect();
    let all = HubBits { words };
    let ids: Vec<I> = (bits.iter().enumerate())
        .flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word >> b & 1 != 0)
                .map(move |b| I::from_u64((w * 64 + b) as u64))
        })
        .collect();
    // (hub index, local row) per arc into a hub, then grouped by hub.
    let global = |v: I| usize::try_from(v.to_u64()).expect("ids fit memory");
    let pairs: Vec<Vec<(u32, I)>> = backend.map_ranges(rows, PIECE, |r| {
        let mut out = Vec::new();
        for u in r {
            for &v in graph.neighbors(u) {
                if let Some(k) = all.index(global(v)) {
                    // At most MAX_HUBS hubs.
                    #[allow(clippy::cast_possible_truncation)]
                    out.push((k as u32, I::from_u64(u as u64)));
                }
            }
        }
        out
    });
    // first is a multiple of 64 (partition.rs): local words are a slice.
    let mine = all.slice(first / 64..(first + rows).div_ceil(64));
    drop((all, bits));
    let hubs = ids.len();
    let mut offsets = vec![0usize; hubs + 1];
    for &(k, _) in pairs.iter().flatten() {
        offsets[k as usize + 1] += 1;
    }
    for k in 0..hubs {
        offsets[k + 1] += offsets[k];
    }
    let mut members = vec![I::default(); offsets[hubs]];
    let mut at = offsets.clone();
    for &(k, u) in pairs.iter().flatten() {
        members[at[k as usize]] = u;
        at[k as usize] += 1;
    }
    Delegates {
        ids,
        mine,
        offsets,
        members,
    }
}
