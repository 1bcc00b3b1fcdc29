//! [`Numbering`]: the vertices that appear in some tuple, numbered densely,
//! so that a [`Batch`](crate::Batch) keeps cells for them only.
//!
//! A vertex with no tuple (other than self-loops) can show no tree edge
//! and meets no tuple in check 4: in a valid tree it is unreached or the
//! root. Kronecker graphs leave many such vertices (a search reaches about
//! half of `N` at SCALE 26), so the batch's tiles, masks and sweep cover
//! the *present* vertices only, and a reached vertex other than the root
//! with no tuple is failed while its cells are written.
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
//! Layout: per vertex, a `u16`: its dense index less its block's dense
//! base, or for a vertex with no tuple the next such offset (so a block's
//! offsets never decrease; they fit 16 bits, as a block's groups round up
//! to at most their own sizes); per vertex a presence bit; per block its
//! dense base. The pass reads only the offsets of a block pair's two
//! blocks (128 KiB each, in L2 beside the lines). Memory: 2 1/8 bytes a
//! vertex ([`Numbering::bytes_for`]; 0.13 bytes a tuple at edgefactor
//! 16). Built in one parallel pass over the block-ordered words into
//! presence bits (a bit is set only if not yet set: most ends were seen
//! before) and one over the vertices, block by block.

use crate::lanes::TILE;
use crate::order::{BLOCK, TupleBlocks};
use crate::tree::VERTEX_GRAIN;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Presence words per block.
const WORDS: usize = BLOCK / 64;

/// The dense indices of the vertices that appear in some tuple.
#[derive(Debug)]
pub(crate) struct Numbering {
    /// Per vertex (padded to a whole block): its dense index less its
    /// block's base, or for a vertex with no tuple the next one.
    offsets: Vec<u16>,
    /// Per vertex (padded to a whole block): whether it has a tuple.
    present: Vec<u64>,
    /// Per block, its first dense index; then the dense indices used (a
    /// multiple of [`TILE`]).
    bases: Vec<usize>,
}

impl Numbering {
    /// Bytes a numbering of `num_vertices` vertices keeps (vertices padded
    /// to a whole block): 2 1/8 a vertex.
    pub(crate) fn bytes_for(num_vertices: u64) -> u64 {
        let padded = num_vertices.next_multiple_of(BLOCK as u64);
        padded * size_of::<u16>() as u64 + padded / 8
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
        // Each block's offsets from 0 (each group's from a multiple of a
        // tile); the block's dense count.
        let number = |bits: &[u64], offsets: &mut [u16]| {
            let mut next = 0usize;
            for (w, &word) in bits.iter().enumerate() {
                if w % (VERTEX_GRAIN / 64) == 0 {
                    next = next.next_multiple_of(TILE);
                }
                for (i, offset) in offsets[w * 64..(w + 1) * 64].iter_mut().enumerate() {
                    *offset = u16::try_from(next).expect("a block's offsets fit 16 bits");
                    next += usize::from(word >> i & 1 != 0);
                }
            }
            next.next_multiple_of(TILE)
        };
        let mut offsets = vec![0u16; bits.len() * 64];
        let counts: Vec<usize> = offsets
            .par_chunks_mut(BLOCK)
            .zip(bits.par_chunks(WORDS))
            .map(|(offsets, bits)| number(bits, offsets))
            .collect();
        let mut bases = Vec::with_capacity(counts.len() + 1);
        let mut len = 0;
        for c in counts {
            bases.push(len);
            len += c;
        }
        bases.push(len);
        Numbering {
            offsets,
            present: bits,
            bases,
        }
    }

    /// The dense indices used (a multiple of [`TILE`]).
    pub(crate) fn len(&self) -> usize {
        *self.bases.last().expect("a base past the last block")
    }

    /// Vertex `v`'s entry: whether it has a tuple, and its dense index (for
    /// a vertex with none, the next one).
    #[inline(always)]
    pub(crate) fn entry(&self, v: usize) -> (bool, u32) {
        let has = self.has(v);
        let d = self.bases[v / BLOCK] + usize::from(self.offsets[v]);
        #[allow(clippy::cast_possible_truncation)] // dense indices below 2^26
        (has, d as u32)
    }

    /// True when vertex `v` has a tuple.
    #[inline(always)]
    pub(crate) fn has(&self, v: usize) -> bool {
        self.present[v / 64] >> (v % 64) & 1 != 0
    }

    /// The dense index of present vertex `v`.
    #[cfg(test)]
    pub(crate) fn rank(&self, v: usize) -> usize {
        self.entry(v).1 as usize
    }

    /// The dense index of the first vertex of group `g` (chunk `g` of
    /// [`VERTEX_GRAIN`] vertices).
    pub(crate) fn group_start(&self, g: usize) -> usize {
        let v = g * VERTEX_GRAIN;
        match self.offsets.get(v) {
            Some(&offset) => self.bases[v / BLOCK] + usize::from(offset),
            None => self.len(),
        }
    }

    /// The dense base of block `b`.
    #[inline(always)]
    pub(crate) fn block_base(&self, b: usize) -> usize {
        self.bases[b]
    }

    /// Block `b`'s offsets: a present vertex's offset in its block to its
    /// dense index less the block's base.
    #[inline(always)]
    pub(crate) fn block(&self, b: usize) -> &[u16; BLOCK] {
        self.offsets[b * BLOCK..(b + 1) * BLOCK]
            .try_into()
            .expect("whole blocks")
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

    /// Guards the numbering: dense indices of present vertices in vertex
    /// order, each group from a multiple of sixteen, a block within `BLOCK`
    /// of its base.
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
            assert_eq!(numbering.has(v), present.binary_search(&v).is_ok());
        }
        let ranks: Vec<usize> = present.iter().map(|&v| numbering.rank(v)).collect();
        assert!(ranks.windows(2).all(|r| r[0] < r[1]), "in vertex order");
        for (&v, &d) in present.iter().zip(&ranks) {
            assert!(d - numbering.block_base(v / BLOCK) < BLOCK);
            assert_eq!(numbering.entry(v), (true, d as u32));
        }
        for g in 0..=(n as usize).div_ceil(VERTEX_GRAIN) {
            assert_eq!(numbering.group_start(g) % TILE, 0);
        }
        assert!(numbering.len() < present.len() + 64 * TILE);
        assert_eq!(numbering.len() % TILE, 0);
        let every = Numbering::every(n as usize);
        assert!((0..n as usize).all(|v| every.rank(v) == v && every.has(v)));
    }
}
