//! `EdgeGenerator`: what the Kronecker generators share. Each cuts its edge
//! list into blocks of [`EDGES_PER_BLOCK`] edges that it can fill in any
//! order from the parameters alone, so generation runs in parallel and the
//! list is the same for any thread count. The edge weights of kernel 3
//! (SSSP) come in the same blocks, on request: one `f32` per tuple.

use crate::edge_list::{packed_records, packed_words};
use crate::{Edge, EdgeList, PackedEdge, Tuple, WideEdge};
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

    /// [`fill_block`](EdgeGenerator::fill_block) of the consecutive blocks
    /// from `first_block` on that `out` holds (whole blocks, the last
    /// perhaps the list's short one): what a worker's task fills. A
    /// generator that fills several blocks faster together overrides it.
    fn fill_blocks(&self, first_block: usize, out: &mut [Edge]) {
        each_block(first_block, out, |block, items| {
            self.fill_block(block, items)
        });
    }

    /// [`fill_block`](EdgeGenerator::fill_block) with 64-bit ends, at any
    /// scale: the same tuples, widened.
    fn fill_block_wide(&self, block: usize, out: &mut [WideEdge]);

    /// Writes the weights of block `block`'s tuples into `out`, whose
    /// length must be the block's length (as for
    /// [`fill_block`](EdgeGenerator::fill_block)): `out[i]` belongs to the
    /// block's tuple `i`. Weights lie in `[0, 1)` (the reference
    /// generator's in `[0, 1]`: it rounds as its C code does) and depend on
    /// the block alone, not on the edges having been generated. Any scale.
    fn fill_weights(&self, block: usize, out: &mut [f32]);

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

    /// [`generate_reporting`](EdgeGenerator::generate_reporting) into a
    /// packed list ([`PackedEdge`]s, 7 bytes a tuple: `7 M` bytes) when
    /// every id fits one (`N <= 2^28`), an unpacked one otherwise. The
    /// same tuples either way, so the same checksum and graph.
    fn generate_packed_reporting(&self, block_done: &(dyn Fn() + Sync)) -> EdgeList {
        let n = self.num_vertices();
        if !PackedEdge::names(n as u64) {
            return self.generate_reporting(block_done);
        }
        let m = self.num_edges();
        let mut words = packed_words(m);
        fill_in_parallel(
            packed_records(&mut words, m),
            0,
            block_done,
            |first_block, out| {
                PackedEdge::fill(self, first_block, out);
            },
        );
        EdgeList::from_packed(n, words, m)
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
    let mut edges: Vec<T> = bytemuck::zeroed_vec(tuples_of(generator, &blocks));
    fill_in_parallel(&mut edges, blocks.start, block_done, |first_block, out| {
        T::fill(generator, first_block, out);
    });
    edges
}

/// The weights of the tuples of `blocks` of `generator`
/// ([`EdgeGenerator::fill_weights`]): `weights[i]` belongs to tuple
/// `blocks.start * EDGES_PER_BLOCK + i` of the whole list, so the weights
/// of any block range are that slice of the whole list's, for any thread
/// count. Generated in parallel on the current pool, calling `block_done`
/// after each block. Allocates 4 bytes per tuple
/// ([`EdgeList::weight_bytes`]); costs about what generating the tuples
/// costs for the reference generator (its weight is the draw after the
/// edge's own), a fraction of it for the default one (one draw per weight).
pub fn generate_weights<G: EdgeGenerator + ?Sized>(
    generator: &G,
    blocks: Range<usize>,
    block_done: &(dyn Fn() + Sync),
) -> Vec<f32> {
    let mut weights: Vec<f32> = bytemuck::zeroed_vec(tuples_of(generator, &blocks));
    fill_in_parallel(
        &mut weights,
        blocks.start,
        block_done,
        |first_block, out| {
            each_block(first_block, out, |block, items| {
                generator.fill_weights(block, items)
            });
        },
    );
    weights
}

/// The number of tuples in `blocks` of `generator` (the last block of the
/// list may be short; blocks past the end hold none).
fn tuples_of<G: EdgeGenerator + ?Sized>(generator: &G, blocks: &Range<usize>) -> usize {
    let first = blocks.start * EDGES_PER_BLOCK;
    let end = (blocks.end * EDGES_PER_BLOCK).min(generator.num_edges());
    end.saturating_sub(first)
}

/// Calls `fill` with each block of `out` (the items of the consecutive
/// blocks from `first_block` on, the last perhaps short) and its number.
pub(crate) fn each_block<X>(
    first_block: usize,
    out: &mut [X],
    mut fill: impl FnMut(usize, &mut [X]),
) {
    for (i, items) in out.chunks_mut(EDGES_PER_BLOCK).enumerate() {
        fill(first_block + i, items);
    }
}

/// Blocks a task fills: four, so that a generator filling four at once
/// ([`EdgeGenerator::fill_blocks`]) gets whole groups.
const BLOCKS_PER_TASK: usize = 4;

/// Fills `out`, the items of the blocks from `first_block` on,
/// [`BLOCKS_PER_TASK`] blocks per task on the current pool (`fill` gets the
/// task's first block and its items), calling `block_done` after each
/// block.
fn fill_in_parallel<X: Send>(
    out: &mut [X],
    first_block: usize,
    block_done: &(dyn Fn() + Sync),
    fill: impl Fn(usize, &mut [X]) + Sync,
) {
    out.par_chunks_mut(BLOCKS_PER_TASK * EDGES_PER_BLOCK)
        .enumerate()
        .for_each(|(i, chunk)| {
            fill(first_block + i * BLOCKS_PER_TASK, chunk);
            for _ in 0..chunk.len().div_ceil(EDGES_PER_BLOCK) {
                block_done();
            }
        });
}

#[cfg(test)]
mod tests;
