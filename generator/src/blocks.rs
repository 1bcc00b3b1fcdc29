//! `EdgeGenerator`: what the Kronecker generators share. Each cuts its edge
//! list into blocks of [`EDGES_PER_BLOCK`] edges that it can fill in any
//! order from the parameters alone, so generation runs in parallel and the
//! list is the same for any thread count.

use crate::{Edge, EdgeList, Tuple, WideEdge};
use rayon::prelude::*;
use std::ops::Range;

/// Edges per block: the unit of parallel work and of progress reports.
/// (The default generator also draws each block from its own stream, so
/// changing it would change its graphs.)
pub const EDGES_PER_BLOCK: usize = 1 << 14;

/// A deterministic generator of `edgefactor * 2^scale` edge tuples on
/// `2^scale` vertices.
pub trait EdgeGenerator: Sync {
    /// `log2` of the vertex count.
    fn scale(&self) -> u32;

    /// Edge tuples per vertex.
    fn edgefactor(&self) -> u64;

    /// A short name: `xoshiro` or `graph500`.
    fn name(&self) -> &'static str;

    /// The name and the seeds, for people: `xoshiro generator, seed 1`.
    fn label(&self) -> String;

    /// Writes the edges of block `block` into `out`, whose length must be
    /// the block's length (`EDGES_PER_BLOCK`, or less for the last block).
    /// Panics if the scale exceeds [`MAX_SCALE`](crate::MAX_SCALE): ids of
    /// larger graphs need [`fill_block_wide`](EdgeGenerator::fill_block_wide).
    fn fill_block(&self, block: usize, out: &mut [Edge]);

    /// [`fill_block`](EdgeGenerator::fill_block) with 64-bit ends, at any
    /// scale: the same tuples, widened.
    fn fill_block_wide(&self, block: usize, out: &mut [WideEdge]);

    /// `N = 2^scale`.
    fn num_vertices(&self) -> usize {
        1 << self.scale()
    }

    /// `M = edgefactor * N`.
    fn num_edges(&self) -> usize {
        usize::try_from(self.edgefactor() << self.scale()).expect("fits memory")
    }

    /// The number of blocks (the last may be short).
    fn num_blocks(&self) -> usize {
        self.num_edges().div_ceil(EDGES_PER_BLOCK)
    }

    /// The whole edge list, generated in parallel on the current rayon pool.
    /// Allocates `8 * M` bytes (zeroed lazily by the allocator).
    fn generate(&self) -> EdgeList {
        self.generate_reporting(&|| {})
    }

    /// [`generate`](EdgeGenerator::generate), calling `block_done` (from
    /// any worker) after each of the [`num_blocks`](EdgeGenerator::num_blocks)
    /// blocks: for progress reports.
    fn generate_reporting(&self, block_done: &(dyn Fn() + Sync)) -> EdgeList {
        let edges = generate_blocks(self, 0..self.num_blocks(), block_done);
        EdgeList::from_trusted(self.num_vertices(), edges)
    }

    /// The blocks that rank `rank` of `ranks` generates in a distributed
    /// run: consecutive blocks, about `num_blocks / ranks` of them, so the
    /// ranks' lists, concatenated in rank order, are the whole list.
    fn block_share(&self, rank: usize, ranks: usize) -> Range<usize> {
        let blocks = self.num_blocks();
        blocks * rank / ranks..blocks * (rank + 1) / ranks
    }
}

/// The tuples of `blocks` of `generator` (the first is tuple number
/// `blocks.start * EDGES_PER_BLOCK` of the whole list), as [`Edge`]s or
/// [`WideEdge`]s, generated in parallel on the current pool, calling
/// `block_done` after each block. Allocates `size_of::<T>()` bytes per tuple.
/// Panics if `T` cannot name every vertex of the generator's graph.
pub fn generate_blocks<T: Tuple, G: EdgeGenerator + ?Sized>(
    generator: &G,
    blocks: Range<usize>,
    block_done: &(dyn Fn() + Sync),
) -> Vec<T> {
    assert!(
        generator.num_vertices() as u64 <= T::MAX_VERTICES,
        "2^{} vertices need wider tuples",
        generator.scale()
    );
    let first = blocks.start * EDGES_PER_BLOCK;
    let end = (blocks.end * EDGES_PER_BLOCK).min(generator.num_edges());
    let mut edges: Vec<T> = bytemuck::zeroed_vec(end.saturating_sub(first));
    edges
        .par_chunks_mut(EDGES_PER_BLOCK)
        .enumerate()
        .for_each(|(i, out)| {
            T::fill(generator, blocks.start + i, out);
            block_done();
        });
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kronecker, MAX_SCALE, ReferenceKronecker};

    fn both(scale: u32) -> [Box<dyn EdgeGenerator>; 2] {
        [
            Box::new(Kronecker::new(scale, 16, 7).unwrap()),
            Box::new(ReferenceKronecker::new(scale, 16).unwrap()),
        ]
    }

    #[test]
    fn wide_tuples_are_the_narrow_ones_widened() {
        for g in both(12) {
            let blocks = 1..g.num_blocks();
            let narrow: Vec<Edge> = generate_blocks(&*g, blocks.clone(), &|| {});
            let wide: Vec<WideEdge> = generate_blocks(&*g, blocks, &|| {});
            assert_eq!(narrow.len(), wide.len());
            assert!(narrow.iter().zip(&wide).all(|(n, w)| n.ends() == w.ends()));
            let first = EDGES_PER_BLOCK as u64;
            assert_eq!(
                EdgeList::checksum_terms(&narrow, first),
                EdgeList::checksum_terms(&wide, first),
                "{}",
                g.name()
            );
        }
    }

    #[test]
    fn wide_tuples_reach_past_32_bits_beyond_scale_31() {
        // One block from the middle of a SCALE 36 list: ids cover 36 bits
        // (scrambled, about half the ends have bit 35 set; an eighth is
        // asked), and the block is the same each time it is made.
        for g in both(36) {
            let block = g.num_blocks() / 2 + 3;
            let wide: Vec<WideEdge> = generate_blocks(&*g, block..block + 1, &|| {});
            assert_eq!(wide.len(), EDGES_PER_BLOCK);
            let ends = || wide.iter().flat_map(|e| [e.u, e.v]);
            assert!(ends().all(|x| x < 1 << 36), "{}", g.name());
            let high = ends().filter(|x| x >> 35 == 1).count();
            assert!(high > EDGES_PER_BLOCK / 4, "{}: {high}", g.name());
            let again: Vec<WideEdge> = generate_blocks(&*g, block..block + 1, &|| {});
            assert_eq!(wide, again);
        }
    }

    #[test]
    #[should_panic(expected = "need wider tuples")]
    fn narrow_tuples_refuse_a_graph_they_cannot_name() {
        let g = Kronecker::new(MAX_SCALE + 1, 1, 1).unwrap();
        let _: Vec<Edge> = generate_blocks(&g, 0..1, &|| {});
    }
}
