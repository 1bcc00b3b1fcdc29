//! `EdgeGenerator`: what the Kronecker generators share. Each cuts its edge
//! list into blocks of [`EDGES_PER_BLOCK`] edges that it can fill in any
//! order from the parameters alone, so generation runs in parallel and the
//! list is the same for any thread count.

use crate::{Edge, EdgeList};
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
    fn fill_block(&self, block: usize, out: &mut [Edge]);

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
        let edges = self.generate_blocks(0..self.num_blocks(), block_done);
        EdgeList::from_trusted(self.num_vertices(), edges)
    }

    /// The blocks that rank `rank` of `ranks` generates in a distributed
    /// run: consecutive blocks, about `num_blocks / ranks` of them, so the
    /// ranks' lists, concatenated in rank order, are the whole list.
    fn block_share(&self, rank: usize, ranks: usize) -> Range<usize> {
        let blocks = self.num_blocks();
        blocks * rank / ranks..blocks * (rank + 1) / ranks
    }

    /// The tuples of `blocks` (the first is tuple number
    /// `blocks.start * EDGES_PER_BLOCK` of the whole list), generated in
    /// parallel on the current pool, calling `block_done` after each block.
    fn generate_blocks(&self, blocks: Range<usize>, block_done: &(dyn Fn() + Sync)) -> Vec<Edge> {
        let first = blocks.start * EDGES_PER_BLOCK;
        let end = (blocks.end * EDGES_PER_BLOCK).min(self.num_edges());
        let mut edges: Vec<Edge> = bytemuck::zeroed_vec(end.saturating_sub(first));
        edges
            .par_chunks_mut(EDGES_PER_BLOCK)
            .enumerate()
            .for_each(|(i, out)| {
                self.fill_block(blocks.start + i, out);
                block_done();
            });
        edges
    }
}
