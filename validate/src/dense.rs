//! [`Numbering`]: the vertices that appear in some tuple, numbered densely,
//! so that a [`Batch`](crate::Batch) keeps cells for them only.
//!
//! A vertex with no tuple (other than self-loops) can show no tree edge
//! and meets no tuple in check 4: in a valid tree it is unreached or the
//! root. Kronecker graphs leave many such vertices (a search reaches about
//! half of `N` at SCALE 26), so the batch's tiles, masks and sweep cover
//! the *present* vertices only, and a reached vertex with no tuple (or a
//! parent with none) is failed while its cells are written.
//!
//! The numbering follows the vertex order: block by block ([`BLOCK`] ids),
//! and inside a block group by group ([`VERTEX_GRAIN`] ids, the chunks in
//! which checks 1 and 2 hand over their levels), each group's present
//! vertices take consecutive dense indices from a multiple of sixteen (a
//! tile: each chunk then writes whole tiles of its own). A block's present
//! vertices lie within [`BLOCK`] dense indices of its dense base, so a
//! tuple's 16-bit offsets in its block pair become 16-bit offsets among
//! the blocks' dense indices.
//!
//! Layout: a presence bit per vertex, and per 64-bit word of bits the dense
//! index of its first present vertex relative to its block's dense base
//! (`u16`), and per block that base: `rank(v)` is the base, the word's
//! offset and a population count, all within a block's 10 KiB. Memory: a
//! fifth of a byte a vertex ([`Numbering::bytes_for`]). Built in one
//! parallel pass over the block-ordered words (a bit is set only if not
//! yet set: most ends were seen before) and one over the words of bits.

use crate::lanes::TILE;
use crate::order::{BLOCK, TupleBlocks};
use crate::tree::VERTEX_GRAIN;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Presence words per block.
const WORDS: usize = BLOCK / 64;
/// Presence words per group of [`VERTEX_GRAIN`] vertices.
const GROUP_WORDS: usize = VERTEX_GRAIN / 64;

/// The dense indices of the vertices that appear in some tuple.
#[derive(Debug)]
pub(crate) struct Numbering {
    /// Bit `v % 64` of word `v / 64`: vertex `v` has a tuple.
    bits: Vec<u64>,
    /// Per word: the dense index of its first present vertex, from its
    /// block's base.
    offset: Vec<u16>,
    /// Per block: the dense index of its first present vertex, a multiple
    /// of [`TILE`]; one more entry, the dense count.
    base: Vec<u32>,
}

impl Numbering {
    /// Bytes a numbering of `num_vertices` vertices keeps (vertices padded
    /// to a whole block): a bit and a sixty-fourth of a `u16` a vertex.
    pub(crate) fn bytes_for(num_vertices: u64) -> u64 {
        let words = num_vertices.next_multiple_of(BLOCK as u64) / 64;
        words * (size_of::<u64>() + size_of::<u16>()) as u64
    }

    /// The numbering of the vertices of `tuples`' words. Parallel.
    pub(crate) fn of(tuples: &TupleBlocks) -> Numbering {
        let words = crate::padded(tuples.num_vertices()) / 64;
        let bits: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
        tuples.items().par_iter().for_each(|item| {
            for &w in &tuples.words()[item.start..item.end] {
                let (a, b) = TupleBlocks::ends(item, w);
                set(&bits, a as usize);
                set(&bits, b as usize);
            }
        });
        let bits: Vec<u64> = bits.into_iter().map(AtomicU64::into_inner).collect();
        Numbering::from_bits(bits)
    }

    /// The numbering of the set `bits` (whole blocks).
    fn from_bits(bits: Vec<u64>) -> Numbering {
        debug_assert_eq!(bits.len() % WORDS, 0);
        let mut offset = vec![0u16; bits.len()];
        // Each block's offsets and dense count, in parallel.
        let counts: Vec<usize> = offset
            .par_chunks_mut(WORDS)
            .zip(bits.par_chunks(WORDS))
            .map(|(offset, bits)| {
                let mut count = 0usize;
                for (w, (o, b)) in offset.iter_mut().zip(bits).enumerate() {
                    if w % GROUP_WORDS == 0 {
                        count = count.next_multiple_of(TILE);
                    }
                    *o = u16::try_from(count).expect("a block's offsets fit 16 bits");
                    count += b.count_ones() as usize;
                }
                count.next_multiple_of(TILE)
            })
            .collect();
        let mut base = Vec::with_capacity(counts.len() + 1);
        let mut total = 0;
        base.push(0);
        for c in counts {
            total += c;
            base.push(u32::try_from(total).expect("dense indices fit 32 bits"));
        }
        Numbering { bits, offset, base }
    }

    /// The dense indices used (a multiple of [`TILE`]).
    pub(crate) fn len(&self) -> usize {
        *self.base.last().expect("one base at least") as usize
    }

    /// True when vertex `v` has a tuple.
    #[inline(always)]
    pub(crate) fn present(&self, v: usize) -> bool {
        self.bits[v / 64] >> (v % 64) & 1 != 0
    }

    /// The dense index of present vertex `v` (for a vertex with no tuple,
    /// that of the next present one).
    #[inline(always)]
    pub(crate) fn rank(&self, v: usize) -> usize {
        self.base[v / BLOCK] as usize + self.in_block(v / BLOCK)(v % BLOCK) as usize
    }

    /// The dense index of the first vertex of group `g` (chunk `g` of
    /// [`VERTEX_GRAIN`] vertices).
    pub(crate) fn group_start(&self, g: usize) -> usize {
        let word = g * GROUP_WORDS;
        if word == self.bits.len() {
            return self.len();
        }
        self.base[word / WORDS] as usize + usize::from(self.offset[word])
    }

    /// The dense base of block `b`.
    #[inline(always)]
    pub(crate) fn block_base(&self, b: usize) -> usize {
        self.base[b] as usize
    }

    /// Block `b`'s rank: a present vertex's offset in its block to its
    /// dense offset from the block's base.
    #[inline(always)]
    pub(crate) fn in_block(&self, b: usize) -> impl Fn(usize) -> u32 + '_ {
        let bits: &[u64; WORDS] = self.bits[b * WORDS..(b + 1) * WORDS]
            .try_into()
            .expect("whole blocks");
        let offset: &[u16; WORDS] = self.offset[b * WORDS..(b + 1) * WORDS]
            .try_into()
            .expect("whole blocks");
        move |a| {
            let (w, bit) = ((a / 64) % WORDS, a % 64);
            u32::from(offset[w]) + (bits[w] & ((1u64 << bit) - 1)).count_ones()
        }
    }

    /// The vertex of dense index `d`, which [`Numbering::rank`] gave a
    /// present vertex. A binary search: for naming errors only.
    pub(crate) fn vertex(&self, d: usize) -> usize {
        let block = self.base.partition_point(|&b| b as usize <= d) - 1;
        let r = d - self.base[block] as usize;
        let words = &self.offset[block * WORDS..(block + 1) * WORDS];
        let word = words.partition_point(|&o| usize::from(o) <= r) - 1;
        let mut bits = self.bits[block * WORDS + word];
        for _ in 0..r - usize::from(words[word]) {
            bits &= bits - 1;
        }
        block * BLOCK + word * 64 + bits.trailing_zeros() as usize
    }

    /// Every vertex of `num_vertices` present: dense indices are the ids
    /// (for tests of the pass).
    #[cfg(test)]
    pub(crate) fn every(num_vertices: usize) -> Numbering {
        let mut bits = vec![u64::MAX; crate::padded(num_vertices) / 64];
        for v in num_vertices..bits.len() * 64 {
            bits[v / 64] &= !(1 << (v % 64));
        }
        Numbering::from_bits(bits)
    }
}

/// Sets `v`'s bit, with a locked write only the first time.
#[inline(always)]
fn set(bits: &[AtomicU64], v: usize) {
    let (word, bit) = (&bits[v / 64], 1u64 << (v % 64));
    if word.load(Relaxed) & bit == 0 {
        word.fetch_or(bit, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use generator::Edge;

    /// Guards rank and its inverse: dense indices of present vertices in
    /// vertex order, each group from a multiple of sixteen, a block within
    /// `BLOCK` of its base; `vertex` undoes `rank`.
    #[test]
    fn present_vertices_are_numbered_in_order_and_back() {
        let n: u32 = 3 * (1 << 16) + 777;
        // Every third vertex of the first block, a run in the second,
        // none in the third, a few in the last (partial) block.
        let mut tuples: Vec<Edge> = (0..20_000).map(|i| Edge::new(3 * i, 3 * i + 3)).collect();
        tuples.extend((70_000..71_000).map(|v| Edge::new(v, v + 1)));
        tuples.push(Edge::new(3 << 16, n - 1));
        tuples.push(Edge::new(9, 9));
        let blocks = TupleBlocks::from_tuples(n as usize, tuples.clone());
        let numbering = Numbering::of(&blocks);
        let mut present: Vec<usize> = tuples
            .iter()
            .filter(|e| !e.is_self_loop())
            .flat_map(|e| [e.u as usize, e.v as usize])
            .collect();
        present.sort_unstable();
        present.dedup();
        for v in 0..n as usize {
            assert_eq!(numbering.present(v), present.binary_search(&v).is_ok());
        }
        let ranks: Vec<usize> = present.iter().map(|&v| numbering.rank(v)).collect();
        assert!(ranks.windows(2).all(|r| r[0] < r[1]), "in vertex order");
        for (&v, &d) in present.iter().zip(&ranks) {
            assert_eq!(numbering.vertex(d), v);
            assert!(d - numbering.block_base(v / BLOCK) < BLOCK);
        }
        for g in 0..=(n as usize).div_ceil(VERTEX_GRAIN) {
            assert_eq!(numbering.group_start(g) % TILE, 0);
        }
        assert!(numbering.len() < present.len() + 64 * TILE);
        assert_eq!(numbering.len() % TILE, 0);
        let every = Numbering::every(n as usize);
        assert!((0..n as usize).all(|v| every.rank(v) == v && every.present(v)));
    }
}
