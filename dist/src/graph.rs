//! Distributed kernel 1: `LocalGraph`, one rank's rows of the graph.
//!
//! Every tuple `(u, v)` that is not a self-loop becomes two arcs, `u -> v`
//! sent to the owner of `u` and `v -> u` sent to the owner of `v` (a rank
//! may send to itself). Each rank keeps the rows of the vertices it owns
//! in compressed sparse rows, with the targets as global ids of type `I`
//! (`u32`, or `u64` when `N` exceeds 2^32 or a run forces wide ids).
//!
//! The rows hold one word per arc ([`RowWord`]): the target `I` for the
//! BFS ([`LocalGraph<I>`]), or the target and its tuple's weight (`[I;
//! 2]`) for kernel 3 ([`WeightedLocalGraph<I>`], built from the rank's
//! tuples and the parallel slice of their weights). The weighted rows come
//! out of the same passes, split light-first at a bound: the sort below
//! counts each row's arcs lighter than it and the others apart, so each
//! row holds its light arcs in arc order, then its heavy ones, which the
//! sort then orders by weight band (64 bands of `[0, 1)`; a part of at
//! most 32 arcs by weight), lowest first: a pull of kernel 3 reads a
//! row's heavy part only up to the first band that cannot help.
//!
//! Propagation blocking, as in the single-process build (kernels'
//! `csr.rs`), with the messages in the middle. A rank's vertices are cut
//! into blocks of `2^b` rows; a block's arcs have a *region* of the words.
//! 1. count: each rank counts its arcs per block of every rank (a local
//!    pass; `N / 2^b` counters) and sends each rank its blocks' counts (one
//!    all-to-all of `4 N / 2^b` bytes in all), so every rank knows its
//!    regions, and inside each region a slice per source rank;
//! 2. exchange: the tuples go out in rounds of at most [`ROUND_TUPLES`]
//!    (bounded buffers), each arc packed by its sender as `target << b |
//!    row offset` (`size_of::<I>()` bytes) and routed by block, so each
//!    destination's run arrives grouped by block in order; with the
//!    round's counts per block (sent first), the receiver copies each
//!    run into its source's slice of the block's region: no per-arc work;
//! 3. sort: each region is counting-sorted by row offset (and, weighted,
//!    light before heavy) through a scratch buffer, in parallel over
//!    blocks, which unpacks the targets and gives the block's `offsets`
//!    (and its rows' light counts); weighted, each row's heavy part is
//!    then ordered by weight band (a counting sort through the same
//!    scratch, `O(d)` for a part of `d` arcs; a short part is sorted).
//!
//! Peak memory per rank: its rows (`8 (N/P + 1) + size_of::<W>() * arcs`,
//! the regions being the final words, plus 4 bytes a row of light counts
//! when weighted), a round's buffers and a sort scratch per worker; never
//! a second copy of its arcs. Rows of ids alone then keep their ends in 4
//! bytes a row when the arcs fit `u32` ([`Offsets`]: a bottom-up step
//! reads two a visited row). The arcs of a row are in the order source
//! ranks, then tuples (the heavy ones of a weighted row by band first):
//! fixed for a given `P`.

use crate::comm::{Comm, Reduce, all_reduce, exchange_into, exchange_known, exchange_known_into};
use crate::route::{Outbox, Sends, route_indexed_on};
use crate::{Id, Partition};
use generator::Tuple;
use kernels::Offsets;
use par::Backend;
use par::hint::{ROW_LINES, prefetch, prefetch_start};
use renumber::{Plan, Renumbered};

/// Tuples a rank sends per round of kernel 1 (each makes up to two arcs).
pub const ROUND_TUPLES: usize = 1 << 20;

/// How many arcs ahead in a row the BFS copy of renumbered rows prefetches
/// a target's original id, for the same reason.
const ORIGINAL_AHEAD: usize = 16;

/// The most rows a block holds, as a power of two: its region (32 arcs a
/// row on average) and its sort scratch fit in L2.
const MAX_BLOCK_BITS: u32 = 11;

/// One rank's rows: the arcs of each vertex it owns, one word `W` each
/// ([`RowWord`]): `LocalGraph<I>` holds the neighbours as global ids,
/// [`WeightedLocalGraph<I>`] each neighbour and its weight.
#[derive(Debug)]
pub struct LocalGraph<W: RowWord> {
    part: Partition,
    rank: usize,
    /// Narrow for ids alone when the arcs fit `u32`; wide for weighted rows.
    offsets: Offsets,
    words: Vec<W>,
    /// Weighted rows only: the bound they are split at, and each row's
    /// light count (empty for ids alone).
    light_below: Option<f32>,
    light: Vec<u32>,
    /// Weighted rows only: the renumbering by degree their rows and
    /// targets follow (`renumber.rs`).
    renumbered: Option<Renumbered<W::Id>>,
}

/// One rank's weighted rows (kernel 1 for kernel 3): each arc's target and
/// its tuple's weight, each row's light arcs first
/// ([`LocalGraph::build_weighted`]).
pub type WeightedLocalGraph<I> = LocalGraph<[I; 2]>;

/// What a row holds per arc: the target's global id `I`, or `[I; 2]`, the
/// target and the bits of its tuple's `f32` weight. While kernel 1 routes
/// an arc, the target part holds the target and the row offset packed.
pub trait RowWord: bytemuck::Pod + Default + Send + Sync + std::fmt::Debug {
    /// The global id type.
    type Id: Id;
    /// How the sort classes a row's arcs: 1 (one class), or 2 (light, then
    /// heavy).
    const CLASSES: usize;
    /// The word of an arc to `target` (or a packed target) of weight
    /// `weight`, which an id alone drops.
    fn arc(target: u64, weight: f32) -> Self;
    /// The target part.
    fn target(self) -> u64;
    /// This word with `target` as its target part.
    fn with_target(self, target: u64) -> Self;
    /// The class of this arc in a row split at `light_below`, below
    /// [`CLASSES`](Self::CLASSES): 0 light, 1 heavy.
    fn class(self, light_below: f32) -> usize;
    /// Puts a row's heavy part in its final order through `scratch`: for
    /// weighted words by weight band (64 bands of `[0, 1)`, the last open
    /// above; a part of at most 32 arcs by weight), lowest first, so that
    /// a pull of kernel 3 stops early; ids alone keep theirs.
    fn order_heavy(_heavy: &mut [Self], _scratch: &mut Vec<Self>) {}
}

impl<I: Id> RowWord for I {
    type Id = I;
    const CLASSES: usize = 1;
    #[inline]
    fn arc(target: u64, _: f32) -> Self {
        I::from_u64(target)
    }
    #[inline]
    fn target(self) -> u64 {
        self.to_u64()
    }
    #[inline]
    fn with_target(self, target: u64) -> Self {
        I::from_u64(target)
    }
    #[inline]
    fn class(self, _: f32) -> usize {
        0
    }
}

impl<I: Id> RowWord for [I; 2] {
    type Id = I;
    const CLASSES: usize = 2;
    #[inline]
    fn arc(target: u64, weight: f32) -> Self {
        [I::from_u64(target), I::from_u64(weight.to_bits().into())]
    }
    #[inline]
    fn target(self) -> u64 {
        self[0].to_u64()
    }
    #[inline]
    fn with_target(self, target: u64) -> Self {
        [I::from_u64(target), self[1]]
    }
    #[inline]
    fn class(self, light_below: f32) -> usize {
        usize::from(weight(self) >= light_below)
    }
    fn order_heavy(heavy: &mut [Self], scratch: &mut Vec<Self>) {
        if heavy.len() <= SORTED_UP_TO {
            // Non-negative floats order as their bits; the sort has no
            // randomness, so ties keep an order fixed by the input's.
            heavy.sort_unstable_by_key(|&word| weight(word).to_bits());
            return;
        }
        // A counting sort by band, stable.
        let mut next = [0usize; HEAVY_BANDS + 1];
        for &word in heavy.iter() {
            next[heavy_band(weight(word)) + 1] += 1;
        }
        for b in 1..=HEAVY_BANDS {
            next[b] += next[b - 1];
        }
        scratch.clear();
        scratch.resize(heavy.len(), Self::default());
        for &word in heavy.iter() {
            let at = &mut next[heavy_band(weight(word))];
            scratch[*at] = word;
            *at += 1;
        }
        heavy.copy_from_slice(scratch);
    }
}

/// How many bands of weight order a weighted row's heavy part: band `b`
/// holds the weights in `[b, b + 1) / HEAVY_BANDS`, the last one all from
/// `(HEAVY_BANDS - 1) / HEAVY_BANDS` on. A power of two, so the bounds are
/// exact in `f32`; one band is 2^-6 wide, the default `delta` of kernel 3.
const HEAVY_BANDS: usize = 64;
/// Heavy parts of at most this many arcs are sorted by weight outright.
const SORTED_UP_TO: usize = 32;

/// The band of weight `w` (finite, `>= 0`) in a heavy part
/// ([`HEAVY_BANDS`]).
#[inline]
fn heavy_band(w: f32) -> usize {
    // Exact: a product by a power of two, truncated; saturates.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let band = (w * HEAVY_BANDS as f32) as usize;
    band.min(HEAVY_BANDS - 1)
}

/// A lower bound on the weight of every arc from one of weight `w` to the
/// end of a heavy part of a [`WeightedLocalGraph`] (whose heavy parts are
/// ordered by band): the low end of `w`'s band, exact in `f32`.
#[inline]
pub(crate) fn heavy_floor(w: f32) -> f32 {
    #[allow(clippy::cast_precision_loss)] // below 2^24
    let floor = heavy_band(w) as f32 / HEAVY_BANDS as f32;
    floor
}

/// The weight of a weighted word.
#[inline]
fn weight<I: Id>(word: [I; 2]) -> f32 {
    // The low half holds the bits the word was made from.
    #[allow(clippy::cast_possible_truncation)]
    f32::from_bits(word[1].to_u64() as u32)
}

/// How every rank's rows are cut into blocks, numbered over all ranks in
/// rank order.
struct Blocks {
    bits: u32,
    /// The global number of each rank's first block, and the total last.
    first: Vec<usize>,
}

impl Blocks {
    fn new<I: Id>(part: &Partition) -> Self {
        let id_bits = u64::BITS - part.num_vertices().saturating_sub(1).leading_zeros();
        let bits = MAX_BLOCK_BITS.min(I::BITS.saturating_sub(id_bits));
        let mut first = vec![0];
        for r in 0..part.ranks() {
            first.push(first[r] + part.count(r).div_ceil(1 << bits));
        }
        Blocks { bits, first }
    }

    /// The global block of the vertex at `(owner, local)`
    /// ([`Partition::place`]).
    #[inline]
    fn of(&self, (owner, local): (usize, usize)) -> usize {
        self.first[owner] + (local >> self.bits)
    }

    /// How many blocks rank `r` has.
    fn count(&self, r: usize) -> usize {
        self.first[r + 1] - self.first[r]
    }
}

impl<I: Id> LocalGraph<I> {
    /// Kernel 1 across the ranks of `comm`: each rank passes its share of
    /// the tuples (any share; ids below `N`; [`Edge`](generator::Edge)s
    /// or [`WideEdge`](generator::WideEdge)s) and gets the rows it owns.
    /// Collective.
    pub fn build<T: Tuple>(comm: &dyn Comm, part: Partition, tuples: &[T]) -> Self {
        Self::build_on(Backend::Rayon, comm, part, tuples)
    }

    /// [`build`](LocalGraph::build) with this rank's passes on `backend`.
    pub fn build_on<T: Tuple>(
        backend: Backend,
        comm: &dyn Comm,
        part: Partition,
        tuples: &[T],
    ) -> Self {
        Self::build_rows(backend, comm, part, tuples, |_| 0.0, f32::INFINITY, false)
    }

    /// The neighbours (global ids) of local vertex `row`. O(1).
    #[inline]
    pub fn neighbors(&self, row: usize) -> &[I] {
        self.row(row)
    }
}

impl<I: Id> WeightedLocalGraph<I> {
    /// Kernel 1 with weights across the ranks of `comm`: as
    /// [`build`](LocalGraph::build), each arc with the weight of its tuple,
    /// `weights[i]` that of `tuples[i]` (one per tuple, panics otherwise;
    /// finite and `>= 0` for kernel 3). Each row holds its arcs lighter
    /// than `light_below` first ([`light_and_heavy`](Self::light_and_heavy)).
    /// Collective; the cost of `build` with `2 size_of::<I>()` bytes per
    /// arc.
    pub fn build_weighted<T: Tuple>(
        comm: &dyn Comm,
        part: Partition,
        tuples: &[T],
        weights: &[f32],
        light_below: f32,
    ) -> Self {
        Self::build_weighted_on(Backend::Rayon, comm, part, tuples, weights, light_below)
    }

    /// [`build_weighted`](Self::build_weighted) with this rank's passes on
    /// `backend`.
    pub fn build_weighted_on<T: Tuple>(
        backend: Backend,
        comm: &dyn Comm,
        part: Partition,
        tuples: &[T],
        weights: &[f32],
        light_below: f32,
    ) -> Self {
        assert_eq!(weights.len(), tuples.len(), "one weight per tuple");
        let weight = |i| weights[i];
        Self::build_rows(backend, comm, part, tuples, weight, light_below, true)
    }

    /// The same rows without weights, for the BFS, by original id (each
    /// row in this graph's order, light arcs first, its targets' original
    /// ids): one parallel pass over the arcs (a row gather and a lookup a
    /// target when renumbered); allocates `4 (N/P + 1) + size_of::<I>() *
    /// arcs` bytes (8 a row of ends if the arcs do not fit `u32`). Not
    /// collective: a run of both kernels builds once.
    pub fn unweighted(&self) -> LocalGraph<I> {
        self.unweighted_on(Backend::Rayon)
    }

    /// [`unweighted`](Self::unweighted) on `backend`.
    pub fn unweighted_on(&self, backend: Backend) -> LocalGraph<I> {
        const GRAIN: usize = 1 << 14;
        const ROWS: usize = 1 << 10;
        let mut targets = vec![I::default(); self.words.len()];
        let offsets = if self.renumbered.is_some() {
            let rows = self.num_rows();
            let mut offsets = vec![0u64; rows + 1];
            for x in 0..rows {
                offsets[x + 1] = offsets[x] + self.degree(self.row_of(x));
            }
            let (mut pieces, mut rest) = (Vec::new(), targets.as_mut_slice());
            for a in (0..rows).step_by(ROWS) {
                let b = (a + ROWS).min(rows);
                let len = usize::try_from(offsets[b] - offsets[a]).expect("in memory");
                let (piece, tail) = rest.split_at_mut(len);
                pieces.push((a..b, piece));
                rest = tail;
            }
            backend.map(pieces, |(rows, piece)| {
                let mut at = 0;
                for x in rows {
                    let row = self.row(self.row_of(x));
                    for (i, w) in row.iter().enumerate() {
                        if let Some(ahead) = row.get(i + ORIGINAL_AHEAD) {
                            self.prefetch_original(ahead.target());
                        }
                        piece[at] = I::from_u64(self.original(w.target()));
                        at += 1;
                    }
                }
            });
            Offsets::narrowed_on(backend, &offsets)
        } else {
            let pieces: Vec<_> = targets
                .chunks_mut(GRAIN)
                .zip(self.words.chunks(GRAIN))
                .collect();
            backend.map(pieces, |(targets, words)| {
                for (t, w) in targets.iter_mut().zip(words) {
                    *t = w[0];
                }
            });
            self.offsets.narrowed(backend)
        };
        LocalGraph {
            part: self.part,
            rank: self.rank,
            offsets,
            words: targets,
            light_below: None,
            light: Vec::new(),
            renumbered: None,
        }
    }

    /// The original global id of vertex `v` of this graph (the rows and
    /// targets are renumbered by degree: [`row_of`](Self::row_of)). O(1).
    #[inline]
    pub fn original(&self, v: u64) -> u64 {
        self.renumbered.as_ref().map_or(v, |r| r.original(v))
    }

    /// Starts loading the original id of vertex `v` of this graph.
    #[inline]
    pub(crate) fn prefetch_original(&self, v: u64) {
        if let Some(r) = &self.renumbered {
            r.prefetch(v);
        }
    }

    /// The row of this rank's vertex of original local index `x` (its
    /// original id minus [`first`](LocalGraph::first)): weighted rows are
    /// renumbered by degree, highest first, among each rank's own, so that
    /// a search's state of the vertices most arcs lead to sits together;
    /// row `r` is the vertex of global id `first + r` in this graph's
    /// labels (the targets' too), owned as by original id. O(1).
    #[inline]
    pub fn row_of(&self, x: usize) -> usize {
        self.renumbered.as_ref().map_or(x, |r| r.new_local(x))
    }

    /// The bound the rows are split at (light: lighter than it).
    pub fn light_below(&self) -> f32 {
        self.light_below.expect("weighted rows are split")
    }

    /// The arcs of local vertex `row`, as `(target, weight)`, light ones
    /// first. O(1) to make.
    #[inline]
    pub fn arcs(&self, row: usize) -> impl ExactSizeIterator<Item = (u64, f32)> + Clone + '_ {
        self.row(row).iter().map(|&w| (w.target(), weight(w)))
    }

    /// The light arcs of local vertex `row` (lighter than
    /// [`light_below`](Self::light_below), a prefix of its row) and its
    /// heavy ones (the rest), as `(target, weight)`. O(1) to make.
    #[inline]
    pub fn light_and_heavy(
        &self,
        row: usize,
    ) -> (
        impl ExactSizeIterator<Item = (u64, f32)> + Clone + '_,
        impl ExactSizeIterator<Item = (u64, f32)> + Clone + '_,
    ) {
        let (light, heavy) = self.row(row).split_at(self.light[row] as usize);
        let pair = |&w: &[I; 2]| (w.target(), weight(w));
        (light.iter().map(pair), heavy.iter().map(pair))
    }

    /// A lower bound on the weights of local vertex `row`'s heavy arcs,
    /// infinite if it has none: the first heavy weight where the part is
    /// sorted outright, else the low end of that weight's band (the part
    /// is ordered by band, lowest first). O(1): one read of the row.
    pub(crate) fn heavy_lower_bound(&self, row: usize) -> f32 {
        let heavy = &self.row(row)[self.light[row] as usize..];
        match heavy.first() {
            None => f32::INFINITY,
            Some(&w) if heavy.len() <= SORTED_UP_TO => weight(w),
            Some(&w) => heavy_floor(weight(w)),
        }
    }

    /// Starts loading the bounds of local vertex `row` (its offsets and
    /// light count), for a loop that visits rows out of order.
    #[inline]
    pub(crate) fn prefetch_bounds(&self, row: usize) {
        self.offsets.prefetch(row);
        prefetch(&self.light[row]);
    }

    /// Starts loading the arcs of local vertex `row` from its light one
    /// (`heavy` false) or its first heavy one: the part's first
    /// [`ROW_LINES`] lines, which a search reads at once.
    #[inline]
    pub(crate) fn prefetch_row(&self, row: usize, heavy: bool) {
        let (light, heavy_part) = self.row(row).split_at(self.light[row] as usize);
        prefetch_start(if heavy { heavy_part } else { light }, ROW_LINES);
    }
}

impl<W: RowWord> LocalGraph<W> {
    /// Kernel 1 for any word: `weight(i)` is the weight of `tuples[i]`,
    /// and weighted rows are split at `light_below`; rows and targets
    /// renumbered by degree if `renumber` (`renumber.rs`).
    fn build_rows<T: Tuple>(
        backend: Backend,
        comm: &dyn Comm,
        part: Partition,
        tuples: &[T],
        weight: impl Fn(usize) -> f32 + Sync,
        light_below: f32,
        renumber: bool,
    ) -> Self {
        let (rank, ranks) = (comm.rank(), comm.size());
        let rows = part.count(rank);
        let blocks = Blocks::new::<W::Id>(&part);
        let low = (1u64 << blocks.bits) - 1;
        let mine_blocks = blocks.count(rank);

        // 1. count: this rank's arcs per block of every rank, sent to the
        // owners; `mine[s][k]`: arcs source s sends to my block k. When
        // renumbering, the plan's per-vertex counts give them.
        let mut planned = renumber.then(|| Plan::new(backend, comm, &part, tuples, blocks.bits));
        let mine = match &mut planned {
            Some(plan) => std::mem::take(&mut plan.mine),
            None => block_counts(backend, comm, &part, tuples, &blocks),
        };
        let plan = planned.as_ref();
        let per_rank: Vec<usize> = (0..ranks).map(|r| blocks.count(r)).collect();

        // Regions (block-major), a slice per source inside each; `cursor`
        // is source-major like `mine`.
        let mut cursor = vec![0u64; mine.len()];
        let mut block_start = Vec::with_capacity(mine_blocks + 1);
        let mut at = 0u64;
        for k in 0..mine_blocks {
            block_start.push(at);
            for s in 0..ranks {
                cursor[s * mine_blocks + k] = at;
                at += mine[s * mine_blocks + k];
            }
        }
        block_start.push(at);
        let total = usize::try_from(at).expect("a rank's arcs fit memory");
        let mut words: Vec<W> = bytemuck::zeroed_vec(total);

        // 2. exchange, in rounds agreed on by every rank.
        let rounds = all_reduce(
            comm,
            [tuples.len().div_ceil(ROUND_TUPLES) as u64],
            Reduce::Max,
        )[0];
        // Arcs are routed by global block (so each destination's run comes
        // grouped by its blocks, in order), packed by the sender; a round's
        // counts per block travel first, then the arcs.
        let (mut out, mut received) = (Outbox::default(), Vec::new());
        let mut round_counts: Vec<u64> = Vec::new();
        // When renumbering, the new local index of both ends of each of a
        // round's tuples, looked up once: the route reads each tuple twice
        // (its count pass, then its fill pass).
        let mut renamed: Vec<[u32; 2]> = Vec::new();
        for i in 0..rounds {
            let i = usize::try_from(i).expect("a round index");
            let start = (i * ROUND_TUPLES).min(tuples.len());
            let round = &tuples[start..(start + ROUND_TUPLES).min(tuples.len())];
            if let Some(plan) = plan {
                plan.ends_of(backend, round, &mut renamed);
            }
            route_indexed_on(backend, round, blocks.first[ranks], &mut out, |j, e| {
                let (u, v) = e.ends();
                if u == v {
                    return Sends::none();
                }
                let w = weight(start + j);
                // An end's owner, index there and id, renumbered if planned.
                let end = |x: u64, new: Option<u32>| {
                    let (owner, local) = part.place(x);
                    match new {
                        Some(local) => {
                            let local = local as usize;
                            (owner, local, part.first(owner) + local as u64)
                        }
                        None => (owner, local, x),
                    }
                };
                let arc = |(owner, local, _), (_, _, t): (usize, usize, u64)| {
                    let packed = t << blocks.bits | (local as u64 & low);
                    (blocks.of((owner, local)), W::arc(packed, w))
                };
                let new = renamed.get(j);
                let (u, v) = (end(u, new.map(|n| n[0])), end(v, new.map(|n| n[1])));
                let ((bu, au), (bv, av)) = (arc(u, v), arc(v, u));
                Sends::two(bu, au, bv, av)
            });
            let per_block: Vec<u64> = out.counts.iter().map(|&c| c as u64).collect();
            exchange_known_into(
                comm,
                &per_block,
                &per_rank,
                &vec![mine_blocks; ranks],
                &mut round_counts,
            );
            let per_dest: Vec<usize> = (0..ranks)
                .map(|d| {
                    out.counts[blocks.first[d]..blocks.first[d + 1]]
                        .iter()
                        .sum()
                })
                .collect();
            exchange_into(comm, &out.items, &per_dest, &mut received);
            // Each source's run, block by block, behind that source's
            // slice of each region.
            let mut at = 0;
            for (slot, &count) in cursor.iter_mut().zip(&round_counts) {
                let count = usize::try_from(count).expect("in memory");
                let to = usize::try_from(*slot).expect("in memory");
                words[to..to + count].copy_from_slice(&received[at..at + count]);
                *slot += count as u64;
                at += count;
            }
        }
        drop((out, received));

        // 3. sort each region by row offset (and class).
        let weighted = W::CLASSES > 1;
        let mut offsets = vec![0u64; rows + 1];
        let mut light = vec![0u32; if weighted { rows } else { 0 }];
        let mut regions = Vec::with_capacity(mine_blocks);
        let (mut rest, mut light_rest) = (words.as_mut_slice(), light.as_mut_slice());
        for k in 0..mine_blocks {
            let len = usize::try_from(block_start[k + 1] - block_start[k]).expect("in memory");
            let (region, tail) = rest.split_at_mut(len);
            let counts = if weighted {
                let rows_here = (rows - (k << blocks.bits)).min(1 << blocks.bits);
                let (counts, tail) = light_rest.split_at_mut(rows_here);
                light_rest = tail;
                counts
            } else {
                &mut []
            };
            regions.push((region, block_start[k], counts));
            rest = tail;
        }
        let sort = Sort {
            bits: blocks.bits,
            light_below,
        };
        let items: Vec<_> = offsets[1..]
            .chunks_mut(1 << blocks.bits)
            .zip(regions)
            .collect();
        backend.for_each_init(
            items,
            Vec::new,
            |scratch, (ends, (region, start, light))| {
                sort.region(region, ends, light, start, scratch);
            },
        );
        // Weighted rows keep wide ends: one process's narrow weighted ends
        // gained nothing (docs/history-kernels.md, `csr`).
        let offsets = if weighted {
            Offsets::Wide(offsets)
        } else {
            Offsets::narrowed_on(backend, &offsets)
        };
        LocalGraph {
            part,
            rank,
            offsets,
            words,
            light_below: weighted.then_some(light_below),
            light,
            renumbered: planned.map(|plan| plan.kept(&part, rank)),
        }
    }
}

/// Step 1 of kernel 1 without renumbering: this rank's arcs per block of
/// every rank, sent to the owners; returns `mine[s][k]`, the arcs source
/// `s` sends to this rank's block `k` (source-major). Collective.
fn block_counts<T: Tuple>(
    backend: Backend,
    comm: &dyn Comm,
    part: &Partition,
    tuples: &[T],
    blocks: &Blocks,
) -> Vec<u64> {
    let ranks = comm.size();
    let counts = backend
        .map_ranges(tuples.len(), ROUND_TUPLES, |r| {
            let mut counts = vec![0u64; blocks.first[ranks]];
            for (u, v) in tuples[r].iter().map(|e| e.ends()).filter(|(u, v)| u != v) {
                counts[blocks.of(part.place(u))] += 1;
                counts[blocks.of(part.place(v))] += 1;
            }
            counts
        })
        .into_iter()
        .reduce(|mut a, b| {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(|| vec![0; blocks.first[ranks]]);
    let per_rank: Vec<usize> = (0..ranks).map(|r| blocks.count(r)).collect();
    exchange_known(
        comm,
        &counts,
        &per_rank,
        &vec![blocks.count(comm.rank()); ranks],
    )
}

/// How kernel 1 sorts a block's region: row offsets in the low `bits` of
/// each word's target part, and for weighted words the light bound.
struct Sort {
    bits: u32,
    light_below: f32,
}

impl Sort {
    /// Counting-sorts one block's region (`target << bits | row offset`)
    /// by row offset, and within a row by class ([`RowWord::class`]),
    /// through `scratch`, unpacking the targets; writes `ends[r] = start +
    /// the end of row r` for the block's rows, and, for words of two
    /// classes, `light[r]` = row r's light arcs.
    fn region<W: RowWord>(
        &self,
        region: &mut [W],
        ends: &mut [u64],
        light: &mut [u32],
        start: u64,
        scratch: &mut Vec<W>,
    ) {
        let (bits, classes) = (self.bits, W::CLASSES);
        let low = (1u64 << bits) - 1;
        // The slot of an arc: its row's, then its class's inside the row.
        let slot = |arc: W| {
            usize::try_from(arc.target() & low).expect("a row offset") * classes
                + arc.class(self.light_below)
        };
        let mut next = vec![0usize; ends.len() * classes];
        for &arc in region.iter() {
            next[slot(arc)] += 1;
        }
        let mut sum = 0;
        for (r, (row, end)) in next.chunks_mut(classes).zip(ends.iter_mut()).enumerate() {
            if let Some(count) = light.get_mut(r) {
                *count = u32::try_from(row[0]).expect("a row of fewer than 2^32 arcs");
            }
            for n in row {
                let count = *n;
                *n = sum;
                sum += count;
            }
            *end = start + sum as u64;
        }
        scratch.clear();
        scratch.resize(region.len(), W::default());
        for &arc in region.iter() {
            let at = &mut next[slot(arc)];
            scratch[*at] = arc.with_target(arc.target() >> bits);
            *at += 1;
        }
        region.copy_from_slice(scratch);
        if classes > 1 {
            let mut from = 0;
            for (&end, &light) in ends.iter().zip(light.iter()) {
                let end = usize::try_from(end - start).expect("in memory");
                W::order_heavy(&mut region[from + light as usize..end], scratch);
                from = end;
            }
        }
    }
}

impl<W: RowWord> LocalGraph<W> {
    /// The partition the rows follow.
    pub fn partition(&self) -> &Partition {
        &self.part
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The global id of this rank's first vertex.
    pub fn first(&self) -> u64 {
        self.part.first(self.rank)
    }

    /// The number of vertices this rank owns.
    pub fn num_rows(&self) -> usize {
        self.offsets.rows()
    }

    /// Arcs held here (both directions of each tuple end up on the owners
    /// of their sources).
    pub fn num_arcs(&self) -> usize {
        self.words.len()
    }

    /// The words of local vertex `row`.
    #[inline]
    fn row(&self, row: usize) -> &[W] {
        &self.words[self.offsets.row(row)]
    }

    /// The degree of local vertex `row`. O(1).
    #[inline]
    pub fn degree(&self, row: usize) -> u64 {
        self.offsets.degree(row)
    }

    /// The degree sum of the local vertices `rows`, read in that order (at
    /// random, the misses overlapped: `kernels::Offsets::degree_sum`).
    /// O(`rows`).
    pub fn degree_sum(&self, rows: &[usize]) -> u64 {
        self.offsets.degree_sum(rows, |row| row)
    }

    /// Heap bytes of the rows (and light counts, and the renumbering's
    /// tables, `renumber.rs`).
    pub fn heap_bytes(&self) -> u64 {
        let renumbered = self.renumbered.as_ref().map_or(0, Renumbered::heap_bytes);
        self.offsets.heap_bytes()
            + (self.words.len() * size_of::<W>() + self.light.len() * 4) as u64
            + renumbered
    }

    /// About the most bytes a rank's rows and kernel 1's buffers take, for
    /// `arcs` arcs on `rows` vertices: the rows (and for weighted words 4
    /// bytes a row of light counts), a round's outgoing and incoming arcs
    /// (two `[W; 2]` per tuple each way, and for weighted words the
    /// renumbering's 8 bytes a tuple), and a sort scratch per worker (a
    /// typical region: 64 arcs a row of a block; a hub's region takes
    /// more).
    pub fn bytes_for(rows: u64, arcs: u64) -> u64 {
        let word = size_of::<W>() as u64;
        let weighted = W::CLASSES > 1;
        let light = if weighted { 4 * rows } else { 0 };
        let renamed = if weighted { 8 } else { 0 };
        let round = (2 * 2 * 2 * word + renamed) * ROUND_TUPLES as u64;
        let scratch = (rayon::current_num_threads() as u64 * word * 64) << MAX_BLOCK_BITS;
        8 * (rows + 1) + word * arcs + light + round + scratch
    }
}

mod renumber;

#[cfg(test)]
mod tests;
