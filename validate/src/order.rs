//! Block order: the input tuples re-encoded once per run, in place, so that
//! the edge pass (`edges.rs`) finds both cells of every tuple in cache.
//!
//! Vertices fall into blocks of [`BLOCK`] (`2^16`) ids. Each tuple `(u, v)`
//! is turned so that `a = min(u, v)`, `b = max(u, v)` (the checks do not
//! depend on orientation), and the tuples are sorted by the block pair
//! `(a / BLOCK, b / BLOCK)`, the pairs in tiles of 32 by 32 blocks so that
//! above `2^21` vertices the blocks a tile reads stay in L3. A run of
//! tuples of one pair reads the cells of two 64 Ki-vertex ranges only (256
//! KiB each with 4-byte cells: both stay in L2), where the generated order
//! reads two random cells of the whole array per tuple. Inside a run a tuple needs only the low 16 bits of each
//! end: one `u32` word, `a mod 2^16` in the low half and `b mod 2^16` in
//! the high half, half the bytes of an [`Edge`], so the pass also streams
//! half the memory.
//!
//! Self-loops are left out: no check reads them (check 4 and nedge exclude
//! them, and no tree edge is a self-loop); their number is kept. Apart from
//! them the words hold every input tuple, turned and permuted: the same
//! multiset of undirected edges, so the validator still checks every tuple.
//! Positions in its errors are positions in this order.
//!
//! Cost: one parallel, mostly in-place radix sort (the `rdst` crate's
//! low-memory tuning; the key is the whole packed tuple, so the order is
//! the same for any thread count) and one sequential pass that packs the
//! words into the first half of the tuples' own allocation, which then
//! shrinks: no memory to speak of beyond the tuples', and 4 bytes per
//! tuple afterwards instead of 8. The radix sort beats rayon's comparison
//! sort; rdst's standard tuning is a little faster but needs memory that
//! grows with the graph, so the low-memory one is kept (figures in
//! `docs/history-validate.md`). A packed list (7 bytes a tuple) is put in
//! the same order in its own bytes by `order/packed.rs`.

use generator::{Edge, EdgeList, Vertex};
use rayon::prelude::*;
use rdst::{RadixKey, RadixSort};

mod packed;

/// Bits of a vertex id below its block number.
const BLOCK_BITS: u32 = 16;
/// Vertices per block.
pub(crate) const BLOCK: usize = 1 << BLOCK_BITS;
/// The most words one parallel work item reads.
const ITEM: usize = 1 << 15;

/// A run of words of one block pair: the unit of parallel work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// The first word's position.
    pub(crate) start: usize,
    /// One past the last word.
    pub(crate) end: usize,
    /// The first vertex of the lower end's block.
    pub(crate) low_base: usize,
    /// The first vertex of the higher end's block.
    pub(crate) high_base: usize,
}

/// The tuples of an edge list in block order, packed for validation.
#[derive(Debug)]
pub struct TupleBlocks {
    num_vertices: usize,
    words: Vec<u32>,
    items: Vec<Item>,
    self_loops: usize,
}

impl TupleBlocks {
    /// Bytes a `TupleBlocks` keeps for `num_edges` tuples: 4 per tuple (the
    /// work items are negligible). Building it from an owned list takes no
    /// memory beyond the list's 8 per tuple.
    pub fn bytes_for(num_edges: u64) -> u64 {
        4 * num_edges
    }

    /// Re-encodes `tuples`, every id below `num_vertices`, reusing their
    /// allocation. Parallel on the current rayon pool; the result depends
    /// only on the tuples.
    pub fn from_tuples(num_vertices: usize, mut tuples: Vec<Edge>) -> TupleBlocks {
        debug_assert!(
            tuples
                .iter()
                .all(|e| (e.u.max(e.v) as usize) < num_vertices)
        );
        tuples
            .par_iter_mut()
            .with_min_len(1 << 14)
            .for_each(|e| *e = pack(*e));
        let keys: &mut [SortKey] = bytemuck::cast_slice_mut(&mut tuples);
        keys.radix_sort_builder().with_low_mem_tuner().sort();
        let kept = tuples.partition_point(|&e| e != SELF_LOOP);
        let self_loops = tuples.len() - kept;
        let items = items_of(&tuples[..kept], |e| e.u, 0);
        let mut words: Vec<u32> = bytemuck::allocation::cast_vec(tuples);
        // Word i is the second half of tuple i, words 2i and 2i + 1: packing
        // forwards overwrites only words already read.
        for i in 0..kept {
            words[i] = words[2 * i + 1];
        }
        TupleBlocks::packed(num_vertices, words, kept, items, self_loops)
    }

    /// Re-encodes the tuples of `list`, reusing its allocation: a packed
    /// list ([`PackedEdge`](generator::PackedEdge)s) is sorted and packed in its own 7 bytes a
    /// tuple ([`TupleBlocks::from_packed`]), an owned unpacked one as
    /// [`TupleBlocks::from_tuples`]; a list that views a mapped file comes
    /// back unchanged. The same blocks either way.
    pub fn from_list(list: EdgeList) -> Result<TupleBlocks, EdgeList> {
        let n = list.num_vertices();
        match list.into_packed_words() {
            Ok((words, len)) => Ok(TupleBlocks::from_packed(n, words, len)),
            Err(list) => list.into_tuples().map(|t| TupleBlocks::from_tuples(n, t)),
        }
    }

    /// The blocks of the first `kept` of `words`, packed in place; the
    /// allocation shrinks to them.
    fn packed(
        num_vertices: usize,
        mut words: Vec<u32>,
        kept: usize,
        items: Vec<Item>,
        self_loops: usize,
    ) -> TupleBlocks {
        words.truncate(kept);
        words.shrink_to_fit();
        TupleBlocks {
            num_vertices,
            words,
            items,
            self_loops,
        }
    }

    /// `N`.
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// The input tuples, self-loops included: `M`.
    pub fn len(&self) -> usize {
        self.words.len() + self.self_loops
    }

    /// True when there are no tuples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed words of the tuples that are not self-loops.
    pub(crate) fn words(&self) -> &[u32] {
        &self.words
    }

    /// The runs of words of one block pair, at most [`ITEM`] long each.
    pub(crate) fn items(&self) -> &[Item] {
        &self.items
    }

    /// The two ends of word `w` of `item`.
    #[inline]
    pub(crate) fn ends(item: &Item, w: u32) -> (Vertex, Vertex) {
        let low = item.low_base | (w & 0xffff) as usize;
        let high = item.high_base | (w >> BLOCK_BITS) as usize;
        #[allow(clippy::cast_possible_truncation)] // ids of an edge list fit Vertex
        (low as Vertex, high as Vertex)
    }
}

/// A packed tuple as the sort sees it: the key `(u, v)`, `u` the more
/// significant half. The whole tuple is the key, so equal keys are equal
/// tuples and the unstable sort's result does not depend on the thread
/// count.
#[repr(transparent)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct SortKey(Edge);

impl RadixKey for SortKey {
    const LEVELS: usize = 8;

    /// Byte `level` of the key, from the least significant.
    #[inline]
    fn get_level(&self, level: usize) -> u8 {
        let half = if level < 4 { self.0.v } else { self.0.u };
        half.to_le_bytes()[level % 4]
    }
}

/// A self-loop, packed: it sorts last, and no other tuple packs to it (a
/// turned tuple of the last block pair has `a < b`, so its word is below
/// `u32::MAX`).
const SELF_LOOP: Edge = Edge::new(u32::MAX, u32::MAX);

/// A tuple turned (`a = min`, `b = max`) and packed in place: `u` becomes
/// the [`pair_code`] of `(a / BLOCK, b / BLOCK)`, `v` the word. Ordered by
/// `(u, v)`, packed tuples run by block pair, the pairs tile by tile.
fn pack(e: Edge) -> Edge {
    if e.is_self_loop() {
        return SELF_LOOP;
    }
    let (a, b) = (e.u.min(e.v), e.u.max(e.v));
    let low = (1 << BLOCK_BITS) - 1;
    Edge::new(
        pair_code(a >> BLOCK_BITS, b >> BLOCK_BITS),
        (a & low) | ((b & low) << BLOCK_BITS),
    )
}

/// Block pairs go in tiles of `2^TILE_BITS` by `2^TILE_BITS` blocks: the
/// cells of a tile's 64 blocks (16 MiB) stay in L3 while its pairs are
/// read, where pair after pair of one low block would sweep every block.
const TILE_BITS: u32 = 5;

/// The sort code of the block pair `(low, high)`, both below `2^16`:
/// tile-major, `low tile (11 bits) | high tile (11) | low in tile (5) |
/// high in tile (5)`.
fn pair_code(low: u32, high: u32) -> u32 {
    let inside = (1 << TILE_BITS) - 1;
    ((low >> TILE_BITS) << 21)
        | ((high >> TILE_BITS) << 10)
        | ((low & inside) << TILE_BITS)
        | (high & inside)
}

/// The block pair `(low, high)` of a [`pair_code`].
fn pair_of(code: u32) -> (u32, u32) {
    let inside = (1 << TILE_BITS) - 1;
    (
        ((code >> 21) << TILE_BITS) | ((code >> TILE_BITS) & inside),
        (((code >> 10) & 0x7ff) << TILE_BITS) | (code & inside),
    )
}

/// Cuts sorted packed tuples, whose block pairs' codes `code` reads, into
/// runs of one block pair, at most [`ITEM`] long, numbered from `offset`.
fn items_of<T: Sync>(sorted: &[T], code: impl Fn(&T) -> u32 + Sync, offset: usize) -> Vec<Item> {
    let starts = run_starts(sorted, &code);
    let mut items = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(sorted.len());
        let (low, high) = pair_of(code(&sorted[start]));
        let (low_base, high_base) = ((low as usize) << BLOCK_BITS, (high as usize) << BLOCK_BITS);
        for s in (start..end).step_by(ITEM) {
            items.push(Item {
                start: offset + s,
                end: offset + (s + ITEM).min(end),
                low_base,
                high_base,
            });
        }
    }
    items
}

/// Where each run of one block pair starts in `sorted`, in order. Runs are
/// long (about `M / pairs` tuples), so each chunk of the tuples gallops
/// from run start to run start instead of comparing every neighbour:
/// O(log) reads a run. (Comparing every neighbour in a parallel filter
/// took 42 ms of the block order's 0.28 s at SCALE 20.)
fn run_starts<T: Sync>(sorted: &[T], code: &(impl Fn(&T) -> u32 + Sync)) -> Vec<usize> {
    const CHUNK: usize = 1 << 16;
    let chunks: Vec<Vec<usize>> = (0..sorted.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let end = ((c + 1) * CHUNK).min(sorted.len());
            let mut i = c * CHUNK;
            if i > 0 && code(&sorted[i]) == code(&sorted[i - 1]) {
                i = next_run(sorted, code, i);
            }
            let mut starts = Vec::new();
            while i < end {
                starts.push(i);
                i = next_run(sorted, code, i);
            }
            starts
        })
        .collect();
    chunks.concat()
}

/// The first position after `i` whose block pair differs from `i`'s, or
/// the length: a galloping search.
fn next_run<T>(sorted: &[T], code: impl Fn(&T) -> u32, i: usize) -> usize {
    let first = code(&sorted[i]);
    let (mut last, mut step) = (i, 1);
    while last + step < sorted.len() && code(&sorted[last + step]) == first {
        last += step;
        step *= 2;
    }
    let bound = (last + step).min(sorted.len());
    last + 1 + sorted[last + 1..bound].partition_point(|e| code(e) == first)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(super) fn tuples(n: u32, m: u32) -> Vec<Edge> {
        // A scattered but fixed sequence of tuples over n vertices, with
        // some self-loops.
        (0..m)
            .map(|i| {
                let u = i.wrapping_mul(2_654_435_761) % n;
                let v = if i % 97 == 0 {
                    u
                } else {
                    i.wrapping_mul(40_503).wrapping_add(7) % n
                };
                Edge::new(u, v)
            })
            .collect()
    }

    /// The undirected tuples, self-loops left out, as a sorted multiset.
    fn multiset(t: impl IntoIterator<Item = (Vertex, Vertex)>) -> Vec<(Vertex, Vertex)> {
        let mut t: Vec<_> = t
            .into_iter()
            .filter(|(u, v)| u != v)
            .map(|(u, v)| (u.min(v), u.max(v)))
            .collect();
        t.sort_unstable();
        t
    }

    fn decoded(blocks: &TupleBlocks) -> Vec<(Vertex, Vertex)> {
        blocks
            .items()
            .iter()
            .flat_map(|item| {
                blocks.words()[item.start..item.end]
                    .iter()
                    .map(|&w| TupleBlocks::ends(item, w))
            })
            .collect()
    }

    #[test]
    fn blocks_hold_every_tuple_but_self_loops_in_pair_order() {
        let n = 300_000;
        let original = tuples(n, 200_000);
        let blocks = TupleBlocks::from_tuples(n as usize, original.clone());
        let loops = original.iter().filter(|e| e.is_self_loop()).count();
        assert!(loops > 0);
        assert_eq!(blocks.len(), original.len());
        assert_eq!(blocks.words().len(), original.len() - loops);
        let ends = decoded(&blocks);
        assert_eq!(
            multiset(ends.clone()),
            multiset(original.iter().map(|e| (e.u, e.v)))
        );
        assert!(ends.iter().all(|(a, b)| a < b), "turned low end first");
        let pair = |(a, b): &(Vertex, Vertex)| pair_code(a >> BLOCK_BITS, b >> BLOCK_BITS);
        assert!(ends.windows(2).all(|w| pair(&w[0]) <= pair(&w[1])));
        // Items tile the words, each within one pair and at most ITEM long.
        let mut next = 0;
        for item in blocks.items() {
            assert_eq!(item.start, next);
            assert!(item.end > item.start && item.end - item.start <= ITEM);
            next = item.end;
        }
        assert_eq!(next, blocks.words().len());
    }

    #[test]
    fn blocks_are_the_same_for_any_thread_count() {
        let original = tuples(1 << 18, 200_000);
        let run = |threads| {
            par::in_pool(threads, || {
                let b = TupleBlocks::from_tuples(1 << 18, original.clone());
                (b.words, b.items)
            })
            .unwrap()
        };
        let one = run(1);
        assert_eq!(run(2), one);
        assert_eq!(run(3), one);
    }

    #[test]
    fn pair_codes_run_tile_by_tile_and_decode() {
        let tile = 1 << TILE_BITS;
        for (low, high) in [
            (0, 0),
            (3, 40),
            (31, 31),
            (32, 0),
            (0xffff, 0xffff),
            (1234, 65000),
        ] {
            assert_eq!(pair_of(pair_code(low, high)), (low, high));
        }
        // Every pair of the first tile comes before any pair of the next.
        assert!(pair_code(tile - 1, tile - 1) < pair_code(0, tile));
        assert!(pair_code(0, tile) < pair_code(1, tile));
        assert_eq!(pair_code(0xffff, 0xffff), SELF_LOOP.u);
    }

    /// Guards the galloping search: run starts are those a comparison of
    /// every neighbour finds, with runs of one tuple, runs across the
    /// chunks' edges and one run longer than a chunk.
    #[test]
    fn run_starts_are_where_the_pair_changes() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut lengths = std::iter::from_fn(move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Some(match x % 4 {
                0 => 1,
                1 => (x >> 8) as usize % 40 + 1,
                2 => (x >> 8) as usize % 5000 + 1,
                _ => (x >> 8) as usize % 70_000 + 1,
            })
        });
        let mut sorted = Vec::new();
        let mut code = 0;
        while sorted.len() < 5 << 16 {
            let run = lengths.next().unwrap();
            sorted.extend((0..run).map(|i| Edge::new(code, i as u32)));
            code += 1 + code % 3;
        }
        sorted.extend((0..200_000).map(|i| Edge::new(code, i)));
        let naive: Vec<usize> = (0..sorted.len())
            .filter(|&i| i == 0 || sorted[i].u != sorted[i - 1].u)
            .collect();
        assert_eq!(run_starts(&sorted, &|e: &Edge| e.u), naive);
        assert_eq!(run_starts(&sorted[..1], &|e: &Edge| e.u), [0]);
        assert!(run_starts::<Edge>(&[], &|e| e.u).is_empty());
    }

    #[test]
    fn empty_and_all_self_loop_lists_make_empty_blocks() {
        let none = TupleBlocks::from_tuples(5, Vec::new());
        assert!(none.is_empty() && none.items().is_empty());
        let loops = TupleBlocks::from_tuples(5, vec![Edge::new(3, 3); 4]);
        assert_eq!((loops.len(), loops.words().len()), (4, 0));
        assert!(loops.items().is_empty());
    }
}
