//! `WeightedCsr`: kernel 1 for kernel 3, the graph with a weight on every
//! arc.
//!
//! The same rows as [`Csr`] (every tuple `(u, v)` that is not a self-loop
//! gives `u -> v` and `v -> u`, duplicates kept, a row in tuple order), each
//! arc an 8-byte [`WeightedArc`]: its target and its tuple's weight, side by
//! side, so a relaxation reads both from one cache line. Built by the same
//! propagation-blocking passes as [`Csr`] (`csr::build_rows`), with 8-byte
//! words in the regions instead of 4.
//!
//! Memory: `8 (N + 1)` bytes of offsets and `8 * 2 * M` of arcs, once split
//! 8 more per vertex (light counts and lightest heavy weights), plus what
//! building adds ([`WeightedCsr::bytes_for`]). [`WeightedCsr::unweighted`]
//! copies out the [`Csr`] a BFS runs on, in one streaming pass, so a run of
//! both kernels builds once.

use crate::csr::{Offsets, build_rows};
use crate::{Backend, Csr};
use generator::{NarrowTuple, Vertex};

mod relabel;
pub use relabel::Labels;

/// Rows per piece of [`WeightedCsr::split_light`]'s pass.
const ROWS: usize = 1 << 12;
/// Arcs per piece of that pass, past its first row.
const PIECE_ARCS: u64 = 1 << 16;

/// One arc of a weighted row: the target and the weight of its tuple.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WeightedArc {
    /// The other end.
    pub target: Vertex,
    /// The tuple's weight.
    pub weight: f32,
}

/// An undirected weighted graph in compressed sparse rows.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedCsr {
    offsets: Vec<u64>,
    /// A [`WeightedArc`] per word: the target in the low half, the weight's
    /// bits in the high half (kernel 1's 8-byte row word).
    arcs: Vec<u64>,
    /// When set, every row holds its arcs lighter than this first, then
    /// the others, each part in tuple order ([`WeightedCsr::split_light`]).
    light_below: Option<f32>,
    /// Per vertex, how many of its arcs are light (empty unless split).
    light: Vec<u32>,
    /// Per vertex, the weight of its lightest heavy arc, infinite if none
    /// (empty unless split).
    lightest_heavy: Vec<f32>,
    /// When set, row `i` is the original vertex `labels.original(i)`
    /// ([`WeightedCsr::relabelled_on`]).
    labels: Option<Labels>,
}

impl WeightedCsr {
    /// [`WeightedCsr::build_on`] rayon's current pool.
    pub fn build<T: NarrowTuple>(num_vertices: usize, edges: &[T], weights: &[f32]) -> WeightedCsr {
        WeightedCsr::build_on(Backend::Rayon, num_vertices, edges, weights)
    }

    /// Kernel 1 with weights: the graph of `edges` over `num_vertices`
    /// vertices, `weights[i]` on both arcs of tuple `i`. Every id must be
    /// below `num_vertices` and there must be one weight per tuple (panics
    /// otherwise). Parallel on `backend`'s current pool; the same passes
    /// and cost as [`Csr::build_on`] with twice the bytes per arc; compiled
    /// for each tuple type as it is.
    pub fn build_on<T: NarrowTuple>(
        backend: Backend,
        num_vertices: usize,
        edges: &[T],
        weights: &[f32],
    ) -> WeightedCsr {
        assert_eq!(weights.len(), edges.len(), "one weight per tuple");
        let (offsets, arcs) = build_rows::<u64, u64, T>(backend, num_vertices, edges, weights);
        WeightedCsr::of_rows(offsets, arcs)
    }

    /// The graph of these rows, not split and in its original labels.
    fn of_rows(offsets: Vec<u64>, arcs: Vec<u64>) -> WeightedCsr {
        WeightedCsr {
            offsets,
            arcs,
            light_below: None,
            light: Vec::new(),
            lightest_heavy: Vec::new(),
            labels: None,
        }
    }

    /// Reorders every row so that its arcs lighter than `below` come first,
    /// in their order, and its heavy arcs (`below` and up) follow sorted by
    /// weight, lightest first. Delta-stepping then reads a row's light arcs
    /// as a prefix and its heavy ones as the rest, instead of scanning the
    /// whole row for each, and a pull of heavy arcs stops at the first arc
    /// too heavy to help ([`DeltaStepping`](crate::DeltaStepping)).
    /// One parallel pass over the arcs, a row's heavy arcs through a
    /// scratch buffer, plus the sort of each heavy part (`O(d log d)` for a
    /// row of `d < 1024` arcs, a radix sort of a few passes above);
    /// keeps each row's light count and the weight of its lightest heavy
    /// arc (4 bytes each per vertex).
    /// On rayon: [`WeightedCsr::split_light_on`].
    pub fn split_light(&mut self, below: f32) {
        self.split_light_on(Backend::Rayon, below);
    }

    /// [`WeightedCsr::split_light`], its pass on `backend`.
    pub fn split_light_on(&mut self, backend: Backend, below: f32) {
        self.split_rows_on(backend, below, |_, _| {});
    }

    /// Fills each row with `fill(row index, row)` (its offsets set, its
    /// words to be written) and splits it as [`WeightedCsr::split_light`]
    /// does, while it is in cache: one parallel pass over pieces of at
    /// most [`ROWS`] rows and, past their first row, [`PIECE_ARCS`] arcs
    /// (so that a piece of hubs is not one thread's whole share).
    fn split_rows_on(
        &mut self,
        backend: Backend,
        below: f32,
        fill: impl Fn(usize, &mut [u64]) + Sync + Send,
    ) {
        let n = self.num_vertices();
        let offsets = &self.offsets;
        self.light.resize(n, 0);
        self.lightest_heavy.resize(n, f32::INFINITY);
        let mut pieces = Vec::new();
        let (mut arcs, mut light, mut lightest) = (
            self.arcs.as_mut_slice(),
            self.light.as_mut_slice(),
            self.lightest_heavy.as_mut_slice(),
        );
        let mut first = 0;
        while first < n {
            let mut last = first + 1;
            while last < n
                && last - first < ROWS
                && offsets[last + 1] - offsets[first] <= PIECE_ARCS
            {
                last += 1;
            }
            let ends = &offsets[first..=last];
            let len = usize::try_from(ends[ends.len() - 1] - ends[0]).expect("in memory");
            let (piece, rest) = std::mem::take(&mut arcs).split_at_mut(len);
            let (counts, more) = std::mem::take(&mut light).split_at_mut(last - first);
            let (weights, further) = std::mem::take(&mut lightest).split_at_mut(last - first);
            pieces.push((first, piece, ends, counts, weights));
            (arcs, light, lightest, first) = (rest, more, further, last);
        }
        backend.for_each_init(
            pieces,
            HeavyArcs::default,
            |heavy, (first, piece, ends, light, lightest)| {
                let rows = ends.windows(2).zip(light).zip(lightest);
                for (i, ((row, count), lightest)) in rows.enumerate() {
                    let from = usize::try_from(row[0] - ends[0]).expect("in memory");
                    let to = usize::try_from(row[1] - ends[0]).expect("in memory");
                    let row = &mut piece[from..to];
                    fill(first + i, row);
                    *count = partition(row, below, heavy);
                    *lightest = row.get(*count as usize).map_or(f32::INFINITY, |&word| {
                        bytemuck::cast::<u64, WeightedArc>(word).weight
                    });
                }
            },
        );
        self.light_below = Some(below);
    }

    /// Starts loading `v`'s row bounds (its offsets), for a loop that will
    /// read `v`'s row a few vertices from now. A hint: nothing observable
    /// changes.
    #[inline]
    pub fn prefetch_offsets(&self, v: Vertex) {
        par::hint::prefetch(&self.offsets[v as usize]);
    }

    /// The bound of [`WeightedCsr::split_light`], if the rows are split.
    pub fn light_below(&self) -> Option<f32> {
        self.light_below
    }

    /// `v`'s light arcs (the prefix of its row) and its heavy arcs (the
    /// rest), in a graph split by [`WeightedCsr::split_light`]. O(1).
    /// Panics if the rows are not split.
    #[inline]
    pub fn light_and_heavy(&self, v: Vertex) -> (&[WeightedArc], &[WeightedArc]) {
        self.arcs(v).split_at(self.light[v as usize] as usize)
    }

    /// How many of `v`'s arcs are light (its row's prefix), in a graph
    /// split by [`WeightedCsr::split_light`]. O(1). Panics if the rows are
    /// not split.
    #[inline]
    pub fn light_count(&self, v: Vertex) -> usize {
        self.light[v as usize] as usize
    }

    /// Starts loading `v`'s light count, for a loop that will read it a few
    /// vertices from now. A hint: nothing observable changes. Panics if the
    /// rows are not split.
    #[inline]
    pub fn prefetch_light_count(&self, v: Vertex) {
        par::hint::prefetch(&self.light[v as usize]);
    }

    /// The weight of `v`'s lightest heavy arc (the first of its heavy
    /// part), infinite if it has none, in a graph split by
    /// [`WeightedCsr::split_light`]: read in vertex order, it tells a pull
    /// which rows can help without reading them. O(1). Panics if the rows
    /// are not split.
    #[inline]
    pub fn lightest_heavy(&self, v: Vertex) -> f32 {
        self.lightest_heavy[v as usize]
    }

    /// Peak bytes of building, and then holding, the graph: [`Csr::bytes_for`]
    /// plus 4 more bytes per arc, 8 per vertex (the light counts and
    /// lightest heavy arcs), and the 4 per vertex by which these offsets,
    /// always 8 bytes, outweigh a narrow [`Csr`]'s.
    pub fn bytes_for(num_vertices: u64, num_edges: u64) -> u64 {
        let wider = (8 - Offsets::end_bytes(2 * num_edges)) * (num_vertices + 1);
        Csr::bytes_for(num_vertices, num_edges) + 4 * 2 * num_edges + 8 * num_vertices + wider
    }

    /// `N`.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Directed entries: twice the tuples that are not self-loops.
    pub fn num_arcs(&self) -> usize {
        self.arcs.len()
    }

    /// The arcs leaving `v`, one per arc (duplicates repeat). O(1).
    #[inline]
    pub fn arcs(&self, v: Vertex) -> &[WeightedArc] {
        let v = v as usize;
        // Offsets are at most num_arcs, which is a usize.
        #[allow(clippy::cast_possible_truncation)]
        let row = &self.arcs[self.offsets[v] as usize..self.offsets[v + 1] as usize];
        bytemuck::cast_slice(row)
    }

    /// The number of arcs leaving `v`. O(1).
    #[inline]
    pub fn degree(&self, v: Vertex) -> u64 {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The same graph without weights, for the BFS kernels: the offsets
    /// copied (narrowed when the arcs fit `u32`), each arc's target taken.
    /// Parallel streaming passes; allocates `4 (N + 1) + 4 * 2 M` bytes
    /// (8 a vertex of offsets if the arcs do not fit). On rayon:
    /// [`WeightedCsr::unweighted_on`].
    pub fn unweighted(&self) -> Csr {
        self.unweighted_on(Backend::Rayon)
    }

    /// [`WeightedCsr::unweighted`], its pass on `backend`.
    pub fn unweighted_on(&self, backend: Backend) -> Csr {
        const PIECE: usize = 1 << 14;
        let arcs: &[WeightedArc] = bytemuck::cast_slice(&self.arcs);
        let mut targets = vec![0; arcs.len()];
        let pieces = targets.chunks_mut(PIECE).zip(arcs.chunks(PIECE)).collect();
        backend.for_each_init(
            pieces,
            || (),
            |(), (targets, arcs): (&mut [Vertex], &[WeightedArc])| {
                targets
                    .iter_mut()
                    .zip(arcs)
                    .for_each(|(t, a)| *t = a.target);
            },
        );
        let offsets = Offsets::narrowed_on(backend, &self.offsets);
        Csr::from_parts_on(backend, offsets, targets)
    }
}

/// Stable partition of `row` (8-byte arc words) into arcs lighter than
/// `below`, then the others, the latter through `heavy` and sorted by
/// weight; the light count.
fn partition(row: &mut [u64], below: f32, heavy: &mut HeavyArcs) -> u32 {
    heavy.words.clear();
    let mut light = 0;
    for i in 0..row.len() {
        let word = row[i];
        let arc: WeightedArc = bytemuck::cast(word);
        if arc.weight < below {
            row[light] = word;
            light += 1;
        } else {
            heavy.words.push(word);
        }
    }
    heavy.sort_by_weight();
    row[light..].copy_from_slice(&heavy.words);
    u32::try_from(light).expect("a row of fewer than 2^32 arcs")
}

/// A row's heavy arcs on their way to being sorted by weight, and the
/// scratch of that sort; one per worker of [`WeightedCsr::split_light`].
///
/// An arc word holds the weight's bits above the target's, and the bits of
/// non-negative floats order as the floats do, so the sort key is the high
/// half. Short parts go through `sort_unstable`; from [`HeavyArcs::RADIX_FROM`]
/// arcs on, an LSD radix sort over the key's span in the part (its highest
/// minus its lowest key, 11 bits a pass: 3 passes for the weights of
/// `[2^-6, 1)`), `O(d)` where `sort_unstable` is `O(d log d)`: most arcs
/// of a large Kronecker graph lie in rows of thousands (measured:
/// docs/history-kernels.md#weighted).
#[derive(Debug, Default)]
struct HeavyArcs {
    words: Vec<u64>,
    spare: Vec<u64>,
    counts: Vec<u32>,
}

impl HeavyArcs {
    /// The shortest part sorted by radix.
    const RADIX_FROM: usize = 1 << 10;
    /// Key bits per radix pass.
    const DIGIT_BITS: u32 = 11;

    /// Sorts `words` by their high half (the weight's bits); ties in any
    /// order, the same for the same input.
    fn sort_by_weight(&mut self) {
        let key = |word: u64| (word >> 32) as u32;
        if self.words.len() < Self::RADIX_FROM {
            self.words.sort_unstable_by_key(|&w| key(w));
            return;
        }
        let (low, high) = self.words.iter().fold((u32::MAX, 0), |(lo, hi), &w| {
            (lo.min(key(w)), hi.max(key(w)))
        });
        let span_bits = u32::BITS - (high - low).leading_zeros();
        let buckets = 1usize << Self::DIGIT_BITS;
        let mask = (1u32 << Self::DIGIT_BITS) - 1;
        self.spare.resize(self.words.len(), 0);
        let mut shift = 0;
        while shift < span_bits {
            let digit = |w: u64| ((key(w) - low) >> shift & mask) as usize;
            self.counts.clear();
            self.counts.resize(buckets, 0);
            for &w in &self.words {
                self.counts[digit(w)] += 1;
            }
            let mut next = 0;
            for count in &mut self.counts {
                (*count, next) = (next, next + *count);
            }
            for &w in &self.words {
                let slot = &mut self.counts[digit(w)];
                self.spare[*slot as usize] = w;
                *slot += 1;
            }
            std::mem::swap(&mut self.words, &mut self.spare);
            shift += Self::DIGIT_BITS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use generator::{EdgeGenerator, Kronecker};

    /// A weight per tuple derived from its position, in [0, 1).
    fn weights(m: usize) -> Vec<f32> {
        (0..m)
            .map(|i| {
                let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                h as f32 / (1u32 << 24) as f32
            })
            .collect()
    }

    /// Guards the weighted build: for any thread count its targets are the
    /// unweighted CSR's, row by row in the same order, and each arc carries
    /// the weight of a tuple joining its ends (the tuple it came from: in
    /// tuple order, the k-th arc of `u -> v` is the k-th such tuple).
    #[test]
    fn rows_are_the_csr_rows_with_each_tuple_weight() {
        let list = Kronecker::new(11, 8, 5).unwrap().generate();
        let w = weights(list.len());
        let plain = Csr::from_edge_list(&list);
        let mut expected: std::collections::HashMap<(u32, u32), Vec<f32>> = Default::default();
        for (e, &x) in list.edges().iter().zip(&w) {
            if !e.is_self_loop() {
                expected.entry((e.u, e.v)).or_default().push(x);
                expected.entry((e.v, e.u)).or_default().push(x);
            }
        }
        let mut built = Vec::new();
        for threads in [1, 2, 3] {
            let rayon = par::in_pool(threads, || {
                WeightedCsr::build(list.num_vertices(), list.edges(), &w)
            })
            .unwrap();
            let pipes = par::with_pool(threads, || {
                let (n, tuples) = (list.num_vertices(), list.edges());
                let g = WeightedCsr::build_on(Backend::Pipes, n, tuples, &w);
                assert_eq!(g.unweighted_on(Backend::Pipes), plain, "pipes, {threads}");
                g
            });
            assert_eq!(pipes, rayon, "pipes on {threads} threads");
            built.push((threads, rayon));
        }
        for (threads, g) in built {
            assert_eq!(g.unweighted(), plain, "{threads} threads");
            let mut seen: std::collections::HashMap<(u32, u32), usize> = Default::default();
            for u in 0..g.num_vertices() as u32 {
                for a in g.arcs(u) {
                    let k = seen.entry((u, a.target)).or_default();
                    assert_eq!(
                        a.weight,
                        expected[&(u, a.target)][*k],
                        "arc {u} -> {}",
                        a.target
                    );
                    *k += 1;
                }
            }
        }
    }

    /// Guards the radix path of the heavy-part sort: for parts on both
    /// sides of its threshold, with ties, keys spanning every bit or one
    /// value, it orders the arcs by weight bits, the same arcs.
    #[test]
    fn heavy_parts_sort_by_weight_bits_at_every_length() {
        let mut heavy = HeavyArcs::default();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for len in [0, 1, 5, 1023, 1024, 1025, 5000, 40_000] {
            for key_mask in [0, 0x7, 0x00ff_ffff, u32::MAX] {
                let base = 0x3c80_0000_u32; // 2^-6
                let words: Vec<u64> = (0..len)
                    .map(|_| {
                        let r = next();
                        let key = base.wrapping_add((r >> 32) as u32 & key_mask);
                        (u64::from(key) << 32) | (r & 0xffff_ffff)
                    })
                    .collect();
                heavy.words.clone_from(&words);
                heavy.sort_by_weight();
                assert!(
                    heavy.words.is_sorted_by_key(|w| w >> 32),
                    "{len} {key_mask:x}"
                );
                let (mut got, mut want) = (heavy.words.clone(), words);
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{len} {key_mask:x}: the same arcs");
            }
        }
    }

    /// Guards the light-first split: each row becomes its light arcs in
    /// their order, then its heavy arcs sorted by weight (the same arcs),
    /// and the light count is the prefix's length; the BFS graph copied
    /// out before is unchanged.
    #[test]
    fn split_rows_are_light_arcs_in_order_then_heavy_arcs_by_weight() {
        let list = Kronecker::new(12, 16, 9).unwrap().generate();
        let w = weights(list.len());
        let g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
        let mut split = g.clone();
        split.split_light(0.25);
        assert_eq!(split.light_below(), Some(0.25));
        let mut on_pipes = g.clone();
        par::with_pool(2, || on_pipes.split_light_on(Backend::Pipes, 0.25));
        assert_eq!(on_pipes, split, "the same split on pipes");
        assert_eq!(split.unweighted().num_arcs(), g.num_arcs());
        for v in 0..g.num_vertices() as u32 {
            let row = g.arcs(v);
            let light: Vec<WeightedArc> = row.iter().copied().filter(|a| a.weight < 0.25).collect();
            let mut heavy: Vec<WeightedArc> =
                row.iter().copied().filter(|a| a.weight >= 0.25).collect();
            let (l, h) = split.light_and_heavy(v);
            assert!(h.is_sorted_by(|a, b| a.weight <= b.weight), "vertex {v}");
            let key = |a: &WeightedArc| (a.weight.to_bits(), a.target);
            heavy.sort_by_key(key);
            let mut got = h.to_vec();
            got.sort_by_key(key);
            assert_eq!((l, &got[..]), (&light[..], &heavy[..]), "vertex {v}");
        }
    }

    /// Guards the per-vertex figures a split keeps for delta-stepping: the
    /// light count is the light prefix's length, and the lightest heavy
    /// weight is the first heavy arc's (the least of the row's heavy
    /// weights), infinite for a row with no heavy arc (an isolated vertex,
    /// or one whose arcs are all light).
    #[test]
    fn a_split_keeps_each_light_count_and_lightest_heavy_weight() {
        let list = Kronecker::new(10, 16, 3).unwrap().generate();
        let w = weights(list.len());
        let mut g = WeightedCsr::build(list.num_vertices(), list.edges(), &w);
        g.split_light(0.75);
        let mut no_heavy = 0;
        for v in 0..g.num_vertices() as u32 {
            let row = g.arcs(v);
            let light = row.iter().filter(|a| a.weight < 0.75).count();
            let lightest = (row.iter().map(|a| a.weight))
                .filter(|&x| x >= 0.75)
                .fold(f32::INFINITY, f32::min);
            no_heavy += usize::from(lightest == f32::INFINITY);
            assert_eq!(g.light_count(v), light, "vertex {v}");
            assert_eq!(
                g.lightest_heavy(v).to_bits(),
                lightest.to_bits(),
                "vertex {v}"
            );
        }
        assert!(no_heavy > 0, "some row without heavy arcs is checked");
    }
}
