//! `Incidence`: the input tuples regrouped once, when a validator is made,
//! by the vertices they touch, so that a search's checks 3 and 4 need no
//! message about a tuple.
//!
//! Every tuple `(u, v)`, not a self-loop, becomes two arcs: one in the
//! list of `u` on `u`'s owner, one in the list of `v` on `v`'s owner.
//! An arc holds the *cell* of its other end: an own vertex's local index,
//! or, for a vertex another rank owns (a *ghost*), `rows +` its rank among
//! this rank's ghosts. A validator keeps one value per cell (a level);
//! the ghosts' values are all it ever learns from other ranks.
//!
//! The facts about the partition used here are which rank owns a vertex
//! and its index there ([`Partition::place`]), and that every rank's share
//! but the last is a whole number of 64-bit words. Ghosts are found by
//! their *slot*: rank `r`'s vertices take the bits `64 word_start[r] ..`
//! of one bitmap over every rank's vertices, `word_start[r]` the words of
//! the ranks before it; so a vertex's slot is its id, and finding a
//! ghost's cell needs no owner's division.
//!
//! Exactly one of a tuple's two arcs *judges* it (check 4 and nedge): by a
//! rule on the two ends' slots, so each rank judges about half its arcs.
//! A vertex's judged arcs come first in its run, then the others, each
//! part sorted by cell, so a search finds a parent among them by binary
//! search.
//!
//! For SSSP each arc also holds its tuple's weight (`weights`, beside
//! `arcs`), sorted with it.
//!
//! Invariants: each tuple that is not a self-loop has exactly one arc in
//! its `u`'s list and one in its `v`'s (a tuple whose ends share an owner
//! has both on that rank), and exactly one of the two is judged; cells
//! are below `u32::MAX - 1`, or there is no `Incidence` (see
//! [`Incidence::build`]).
//!
//! Cost: built in two passes over the rank's tuples, each in rounds of
//! `round` tuples sending every end's owner `(local index, other end)`, as
//! wide as the tuples (`4 s` bytes a tuple, and 8 more with weights,
//! untimed), then a sort of each run. Kept: 4 bytes an arc (8 with
//! weights), 12 an own vertex, and 16 bytes per 64 slots.

use crate::Partition;
use crate::check::rounds;
use crate::comm::{Comm, Reduce, all_reduce, exchange, exchange_into, exchange_known_into};
use crate::route::{Outbox, Sends, route_into};
use bytemuck::Pod;
use generator::Tuple;
use par::hint::prefetch;
use rayon::prelude::*;

/// The largest cell plus one; `u32::MAX - 1` and `u32::MAX` mark cells
/// that are not there.
const CELLS: u64 = u32::MAX as u64 - 1;
/// How many arcs ahead the build's two passes prefetch an arc's
/// random reads.
const AHEAD: usize = 16;

/// One rank's arcs by own vertex, and where its ghosts' cells are.
#[derive(Debug)]
pub(crate) struct Incidence {
    /// The rank's vertices; their cells are `0..rows`.
    rows: usize,
    /// `arcs[offsets[i]..offsets[i + 1]]` are own vertex `i`'s arcs.
    offsets: Vec<usize>,
    /// How many of own vertex `i`'s arcs come first as the ones it judges.
    judged: Vec<u32>,
    /// Each arc's other end, as a cell; each vertex's judged arcs, then
    /// the others, each part ascending.
    arcs: Vec<u32>,
    /// Each arc's weight, if built with weights (else empty).
    weights: Vec<f32>,
    /// The ghosts' slots.
    ghosts: Ghosts,
}

/// 64 slots: one bit each, whether it is a ghost here, and the ghosts in
/// the slots before (16 bytes, so never across two cache lines).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
struct SlotWord {
    present: u64,
    before: u32,
}

/// The ghosts of a rank, by slot.
#[derive(Debug)]
pub(crate) struct Ghosts {
    /// The first word of each rank's slots, and the total (`P + 1`).
    word_start: Vec<usize>,
    /// Per 64 slots, which are ghosts here and the ghosts before them,
    /// side by side: a ghost's cell costs one random load, not two.
    words: Vec<SlotWord>,
    /// How many.
    count: usize,
}

impl Incidence {
    /// COLLECTIVE. Regroups `tuples`, this rank's share, by their ends'
    /// owners, `round` tuples per rank at a time, each arc with its
    /// tuple's weight if `weights` (one per tuple) are given. `None` on
    /// every rank if any rank holds a tuple with an end `>= N`, or
    /// weights not one per tuple, or would have more than `u32::MAX - 2`
    /// cells (then validation keeps to the tuple rounds).
    pub(crate) fn build<T: Tuple>(
        comm: &dyn Comm,
        part: Partition,
        tuples: &[T],
        weights: Option<&[f32]>,
        round: usize,
    ) -> Option<Incidence> {
        let (me, n) = (comm.rank(), part.num_vertices());
        let outside = tuples.iter().any(|e| {
            let (u, v) = e.ends();
            u >= n || v >= n
        });
        let miscounted = weights.is_some_and(|w| w.len() != tuples.len());
        if all_reduce(comm, [u64::from(outside || miscounted)], Reduce::Max) == [1] {
            return None;
        }
        let rows = part.count(me);
        let mut word_start = vec![0];
        for r in 0..comm.size() {
            word_start.push(word_start[r] + part.count(r).div_ceil(64));
        }
        let words = word_start[comm.size()];
        let first = part.first(me);
        let mut present = vec![0u64; words];
        let mut degree = vec![0usize; rows + 1];
        let (mut out, mut asked) = (Outbox::default(), Vec::new());
        // Pass 1: degrees and ghosts.
        for range in rounds(comm, tuples.len(), round) {
            send(comm, part, &tuples[range], &mut out, &mut asked);
            for (k, q) in asked.iter().enumerate() {
                // An arc's random reads `AHEAD` arcs on.
                if let Some(far) = asked.get(k + AHEAD) {
                    let (local, other) = far.ends();
                    if let Some(d) = degree.get(usize::try_from(local).unwrap_or(usize::MAX)) {
                        prefetch(d);
                    }
                    if let Some(w) = present.get(usize::try_from(other / 64).unwrap_or(usize::MAX))
                    {
                        prefetch(w);
                    }
                }
                let (local, other) = q.ends();
                degree[usize::try_from(local).expect("a local index")] += 1;
                if other.wrapping_sub(first) >= rows as u64 {
                    // A ghost; its slot is its id (`Ghosts::slot_of`).
                    let s = usize::try_from(other).expect("below N");
                    present[s / 64] |= 1 << (s % 64);
                }
            }
        }
        let mut count = 0usize;
        let mut slot_words = Vec::with_capacity(words);
        for &w in &present {
            let before = u32::try_from(count).unwrap_or(u32::MAX);
            slot_words.push(SlotWord { present: w, before });
            count += w.count_ones() as usize;
        }
        drop(present);
        let fits = (rows + count) as u64 <= CELLS;
        if all_reduce(comm, [u64::from(!fits)], Reduce::Max) == [1] {
            return None;
        }
        let ghosts = Ghosts {
            word_start,
            words: slot_words,
            count,
        };
        // Offsets from the degrees; `degree` becomes each list's next free
        // place.
        let mut offsets = Vec::with_capacity(rows + 1);
        let mut at = 0;
        for d in &mut degree {
            offsets.push(at);
            at += std::mem::replace(d, at);
        }
        let mut arcs = vec![0u32; at];
        let mut arc_weights = vec![0f32; if weights.is_some() { at } else { 0 }];
        let (mut weights_out, mut asked_weights) = (Outbox::default(), Vec::new());
        // Pass 2: the arcs, those this end judges from the front of the
        // vertex's run, the others from its back.
        let mut back: Vec<usize> = offsets[1..].to_vec();
        for range in rounds(comm, tuples.len(), round) {
            send(comm, part, &tuples[range.clone()], &mut out, &mut asked);
            if let Some(w) = weights {
                // The weights go the way their tuples' requests went.
                let pairs = tuples[range.clone()].iter().zip(&w[range]);
                let pairs: Vec<(&T, &f32)> = pairs.collect();
                route_into(&pairs, comm.size(), &mut weights_out, |&(e, &w)| {
                    if e.is_self_loop() {
                        return Sends::none();
                    }
                    let (u, v) = e.ends();
                    Sends::two(part.owner(u), w, part.owner(v), w)
                });
                let (items, counts) = (&weights_out.items, &weights_out.counts);
                exchange_into(comm, items, counts, &mut asked_weights);
            }
            for (k, q) in asked.iter().enumerate() {
                // An arc's random reads `AHEAD` arcs on: its far end's
                // slot word and its vertex's two cursors.
                if let Some(far) = asked.get(k + AHEAD) {
                    // Every end is below `N`, every local index below
                    // `rows` (checked above and by `send`).
                    let (local, other) = far.ends();
                    ghosts.prefetch(part, other);
                    let local = usize::try_from(local).unwrap_or(usize::MAX);
                    if let (Some(d), Some(b)) = (degree.get(local), back.get(local)) {
                        prefetch(d);
                        prefetch(b);
                    }
                }
                let (local, other) = q.ends();
                let local = usize::try_from(local).expect("a local index");
                let cell = (ghosts.cell(part, me, rows, other)).expect("every end was seen");
                let (mine, theirs) = (
                    ghosts.slot_of(part, first + local as u64),
                    ghosts.slot_of(part, other),
                );
                let at = if judges(mine, theirs) {
                    degree[local] += 1;
                    degree[local] - 1
                } else {
                    back[local] -= 1;
                    back[local]
                };
                arcs[at] = cell;
                if weights.is_some() {
                    arc_weights[at] = asked_weights[k];
                }
            }
        }
        let judged: Vec<u32> = (degree[..rows].iter().zip(&offsets))
            .map(|(&front, &first)| u32::try_from(front - first).expect("a degree below 2^32"))
            .collect();
        let mut incidence = Incidence {
            rows,
            offsets,
            judged,
            arcs,
            weights: arc_weights,
            ghosts,
        };
        incidence.sort();
        Some(incidence)
    }

    /// Sorts each vertex's two parts of arcs (with their weights, if
    /// any, ties by weight's bits), in parallel.
    fn sort(&mut self) {
        let mut parts = Vec::with_capacity(2 * self.rows);
        let mut rest = self.arcs.as_mut_slice();
        let mut rest_w = self.weights.as_mut_slice();
        for i in 0..self.rows {
            let len = self.offsets[i + 1] - self.offsets[i];
            let (run, tail) = rest.split_at_mut(len);
            let (judged, others) = run.split_at_mut(self.judged[i] as usize);
            rest = tail;
            let (run_w, tail_w) = rest_w.split_at_mut(if rest_w.is_empty() { 0 } else { len });
            let (judged_w, others_w) = run_w.split_at_mut(judged.len().min(run_w.len()));
            parts.push((judged, judged_w));
            parts.push((others, others_w));
            rest_w = tail_w;
        }
        parts
            .into_par_iter()
            .for_each_init(Vec::new, |pairs, (cells, w)| {
                if w.is_empty() {
                    cells.sort_unstable();
                    return;
                }
                pairs.clear();
                pairs.extend(cells.iter().zip(w.iter()).map(|(&c, &x)| (c, x.to_bits())));
                pairs.sort_unstable();
                for ((c, x), &(cell, bits)) in cells.iter_mut().zip(w.iter_mut()).zip(pairs.iter())
                {
                    (*c, *x) = (cell, f32::from_bits(bits));
                }
            });
    }

    /// About the most bytes an incidence takes on a rank with `rows` own
    /// vertices and `tuples` tuples, of `n` vertices in all: 4 an arc
    /// (two a tuple; 8 `weighted`), 12 an own vertex and 16 per 64 slots;
    /// while it is built, 16 more an own vertex (the two ends of its
    /// runs, then its two parts to sort) and 8 more per 64 slots.
    pub(crate) fn bytes_for(rows: u64, tuples: u64, n: u64, weighted: bool) -> u64 {
        let per_arc = if weighted { 8 } else { 4 };
        2 * per_arc * tuples + 28 * (rows + 1) + 24 * n.div_ceil(64)
    }

    /// How many own vertices (cells `0..rows`).
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// How many cells: own vertices, then ghosts.
    pub(crate) fn cells(&self) -> usize {
        self.rows + self.ghosts.count
    }

    /// The arcs of own vertex `i`, its neighbours' cells, one per tuple:
    /// those it judges and the others, each ascending.
    #[inline]
    pub(crate) fn arcs(&self, i: usize) -> (&[u32], &[u32]) {
        self.arcs[self.offsets[i]..self.offsets[i + 1]].split_at(self.judged[i] as usize)
    }

    /// The arcs of own vertex `i`, those it judges and the others, as
    /// one run.
    #[inline]
    pub(crate) fn run(&self, i: usize) -> &[u32] {
        &self.arcs[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The weights of own vertex `i`'s arcs, split as [`Incidence::arcs`]
    /// (empty without weights).
    #[inline]
    pub(crate) fn weights(&self, i: usize) -> (&[f32], &[f32]) {
        if self.weights.is_empty() {
            return (&[], &[]);
        }
        self.weights[self.offsets[i]..self.offsets[i + 1]].split_at(self.judged[i] as usize)
    }

    /// The ghosts.
    pub(crate) fn ghosts(&self) -> &Ghosts {
        &self.ghosts
    }
}

impl Ghosts {
    /// The cell of vertex `v` on rank `me` (which has `rows` own
    /// vertices): its local index if `me` owns it, its ghost's cell if
    /// some arc here reaches it, else `None`.
    #[inline(always)]
    pub(crate) fn cell(&self, part: Partition, me: usize, rows: usize, v: u64) -> Option<u32> {
        let local = v.wrapping_sub(part.first(me));
        if local < rows as u64 {
            return Some(u32::try_from(local).expect("a rank owns fewer than 2^32 vertices"));
        }
        self.cell_of_slot(rows, self.slot_of(part, v))
    }

    /// [`Ghosts::cell`], `missing` for `None`, with selects instead of
    /// branches (whether `v` is own is a coin flip for a predictor): one
    /// load of a slot word whatever the owner.
    #[inline(always)]
    pub(crate) fn cell_or(
        &self,
        part: Partition,
        me: usize,
        rows: usize,
        v: u64,
        missing: u32,
    ) -> u32 {
        // No owner's division: `v`'s slot is `v` (`Ghosts::slot_of`), and
        // `v` is own exactly when its index from `me`'s first is below
        // `rows`.
        let local = v.wrapping_sub(part.first(me));
        let own = local < rows as u64;
        let slot = self.slot_of(part, v);
        let (w, bit) = (slot / 64, slot % 64);
        let SlotWord { present, before } = self.words[w];
        let below = (present & ((1 << bit) - 1)).count_ones();
        // Cells are below `u32::MAX - 1` (`CELLS`), so these fit.
        #[allow(clippy::cast_possible_truncation)]
        let (ghost, local) = (rows as u32 + before + below, local as u32);
        let ghost = if present >> bit & 1 == 1 {
            ghost
        } else {
            missing
        };
        if own { local } else { ghost }
    }

    /// The slot of `v` (below `N`): `v` itself. Every rank's share but
    /// the last is `Partition`'s chunk, a whole number of words, so rank
    /// `r`'s slots start at its first vertex (`64 word_start[r]` is
    /// `Partition::first(r)`); checked in debug builds.
    #[inline(always)]
    fn slot_of(&self, part: Partition, v: u64) -> usize {
        // Below `N`, which fits memory (the slot bitmap has a bit each).
        #[allow(clippy::cast_possible_truncation)]
        let slot = v as usize;
        debug_assert_eq!(
            slot,
            {
                let (owner, local) = part.place(v);
                64 * self.word_start[owner] + local
            },
            "a vertex's slot is its id"
        );
        slot
    }

    /// Prefetches the slot word [`Ghosts::cell_or`] reads for `v` (below
    /// `N`).
    #[inline(always)]
    pub(crate) fn prefetch(&self, part: Partition, v: u64) {
        par::hint::prefetch(&self.words[self.slot_of(part, v) / 64]);
    }

    /// The cell of the ghost in `slot`, if it is one; `rows` own vertices.
    #[inline(always)]
    pub(crate) fn cell_of_slot(&self, rows: usize, slot: usize) -> Option<u32> {
        let (w, bit) = (slot / 64, slot % 64);
        let SlotWord { present, before } = self.words[w];
        if present & (1 << bit) == 0 {
            return None;
        }
        let below = (present & ((1 << bit) - 1)).count_ones();
        u32::try_from(rows).ok().map(|r| r + before + below)
    }

    /// Rank `r`'s words of the slot bitmap: `word_start[r]..word_start[r + 1]`.
    pub(crate) fn words_of(&self, r: usize) -> std::ops::Range<usize> {
        self.word_start[r]..self.word_start[r + 1]
    }

    /// The presence word `w` (one bit per slot) and the ghosts before it.
    #[inline]
    pub(crate) fn word(&self, w: usize) -> (u64, u32) {
        let SlotWord { present, before } = self.words[w];
        (present, before)
    }
}

/// The routes of per-vertex values to the ranks that hold the vertices as
/// ghosts: which own vertices each other rank holds (its *exports* from
/// here, ascending), learned once. A rank's ghosts of one owner are
/// consecutive cells in slot order, which is the owner's local order, so
/// values sent in export order land, concatenated in rank order, exactly
/// in ghost-cell order: no index travels with them.
#[derive(Debug, Default)]
pub(crate) struct GhostRoutes {
    /// Each other rank's exports (local indices, ascending), in rank order.
    exports: Vec<u32>,
    /// Entries of `exports` per rank (0 for this rank).
    export_counts: Vec<usize>,
    /// This rank's ghosts per owner (0 for this rank).
    import_counts: Vec<usize>,
}

impl GhostRoutes {
    /// COLLECTIVE. Each rank sends each owner of its ghosts their local
    /// indices (4 bytes a ghost, one exchange and one of counts).
    pub(crate) fn build(comm: &dyn Comm, inc: &Incidence) -> GhostRoutes {
        let (me, size) = (comm.rank(), comm.size());
        let ghosts = inc.ghosts();
        let (mut wanted, mut import_counts) = (Vec::new(), vec![0; size]);
        let others = import_counts.iter_mut().enumerate();
        for (r, count) in others.filter(|&(r, _)| r != me) {
            let before = wanted.len();
            for (j, w) in ghosts.words_of(r).enumerate() {
                let mut bits = ghosts.word(w).0;
                while bits != 0 {
                    let local = 64 * j + bits.trailing_zeros() as usize;
                    wanted
                        .push(u32::try_from(local).expect("a rank owns fewer than 2^32 vertices"));
                    bits &= bits - 1;
                }
            }
            *count = wanted.len() - before;
        }
        let (exports, export_counts) = exchange(comm, &wanted, &import_counts);
        GhostRoutes {
            exports,
            export_counts,
            import_counts,
        }
    }

    /// About the most bytes the routes of a rank with `tuples` tuples, of
    /// `n` vertices in all, take: 4 an export, at most `min(n, 2 tuples)`
    /// with tuples spread evenly.
    pub(crate) fn bytes_for(tuples: u64, n: u64) -> u64 {
        4 * n.min(2 * tuples)
    }

    /// COLLECTIVE. Sends `value(i)` of each exported own vertex `i` to the
    /// ranks that hold it; `received` gets this rank's ghosts' values in
    /// ghost-cell order (`out`: the outgoing buffer). One exchange of
    /// known sizes: `size_of::<V>()` bytes a ghost, all ranks together.
    pub(crate) fn send<V: Pod + Send + Sync>(
        &self,
        comm: &dyn Comm,
        value: impl Fn(usize) -> V + Sync,
        out: &mut Vec<V>,
        received: &mut Vec<V>,
    ) {
        out.clear();
        out.par_extend(self.exports.par_iter().map(|&i| value(i as usize)));
        exchange_known_into(
            comm,
            out,
            &self.export_counts,
            &self.import_counts,
            received,
        );
    }
}

/// Whether the arc from the vertex in slot `a` to the one in slot `b`
/// judges their tuple: exactly one of a tuple's two arcs does (`a != b`),
/// the one at the lower slot when the slots' sum is even, so that each
/// rank judges about half its arcs.
#[inline]
fn judges(a: usize, b: usize) -> bool {
    (a < b) != ((a ^ b) & 1 == 1)
}

/// How a tuple `(u, v)` is asked about: `(local(u), v)` to `u`'s owner
/// and `(local(v), u)` to `v`'s.
pub(super) fn to_both_ends<T: Tuple>(part: Partition, u: u64, v: u64) -> Sends<T> {
    let ((ou, lu), (ov, lv)) = (part.place(u), part.place(v));
    Sends::two(
        ou,
        T::from_ends(lu as u64, v),
        ov,
        T::from_ends(lv as u64, u),
    )
}

/// Sends each tuple `(u, v)` of `chunk`, not a self-loop, as
/// `(local(u), v)` to `u`'s owner and `(local(v), u)` to `v`'s; what came
/// here lands in `asked`. Collective: one exchange and one of counts.
fn send<T: Tuple>(
    comm: &dyn Comm,
    part: Partition,
    chunk: &[T],
    out: &mut Outbox<T>,
    asked: &mut Vec<T>,
) {
    route_into(chunk, comm.size(), out, |e| {
        if e.is_self_loop() {
            return Sends::none();
        }
        let (u, v) = e.ends();
        to_both_ends(part, u, v)
    });
    exchange_into(comm, &out.items, &out.counts, asked);
}
