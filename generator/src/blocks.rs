//! `EdgeGenerator`: what the Kronecker generators share. Each cuts its edge
//! list into blocks of [`EDGES_PER_BLOCK`] edges that it can fill in any
//! order from the parameters alone, so generation runs in parallel and the
//! list is the same for any thread count. The edge weights of kernel 3
//! (SSSP) come in the same blocks, on request: one `f32` per tuple.

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
    fill_in_parallel(&mut edges, blocks.start, block_done, |block, out| {
        T::fill(generator, block, out);
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
    fill_in_parallel(&mut weights, blocks.start, block_done, |block, out| {
        generator.fill_weights(block, out);
    });
    weights
}

/// The number of tuples in `blocks` of `generator` (the last block of the
/// list may be short; blocks past the end hold none).
fn tuples_of<G: EdgeGenerator + ?Sized>(generator: &G, blocks: &Range<usize>) -> usize {
    let first = blocks.start * EDGES_PER_BLOCK;
    let end = (blocks.end * EDGES_PER_BLOCK).min(generator.num_edges());
    end.saturating_sub(first)
}

/// Fills `out`, the items of the blocks from `first_block` on, one block
/// per task on the current pool, calling `block_done` after each.
fn fill_in_parallel<X: Send>(
    out: &mut [X],
    first_block: usize,
    block_done: &(dyn Fn() + Sync),
    fill: impl Fn(usize, &mut [X]) + Sync,
) {
    out.par_chunks_mut(EDGES_PER_BLOCK)
        .enumerate()
        .for_each(|(i, chunk)| {
            fill(first_block + i, chunk);
            block_done();
        });
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

    /// The weights' bit patterns (so that equality is exact).
    fn bits(weights: &[f32]) -> Vec<u32> {
        weights.iter().map(|w| w.to_bits()).collect()
    }

    #[test]
    fn weights_are_the_same_on_one_and_two_threads_and_for_any_block_range() {
        // Four whole blocks; one block and a short one; shorter than a lane.
        for (scale, edgefactor) in [(12, 16), (11, 9), (1, 1)] {
            let gens: [Box<dyn EdgeGenerator>; 2] = [
                Box::new(Kronecker::new(scale, edgefactor, 7).unwrap()),
                Box::new(ReferenceKronecker::new(scale, edgefactor).unwrap()),
            ];
            for g in gens {
                let n = g.num_blocks();
                let all = || generate_weights(&*g, 0..n, &|| {});
                let one = par::in_pool(1, all).unwrap();
                let two = par::in_pool(2, all).unwrap();
                assert_eq!(one.len(), g.num_edges());
                assert_eq!(bits(&one), bits(&two), "{}", g.name());
                for start in 0..=n {
                    for end in start..=n {
                        let part = generate_weights(&*g, start..end, &|| {});
                        let from = (start * EDGES_PER_BLOCK).min(one.len());
                        let to = (end * EDGES_PER_BLOCK).min(one.len());
                        assert_eq!(
                            bits(&part),
                            bits(&one[from..to]),
                            "{} {start}..{end}",
                            g.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn weights_report_each_block_once() {
        let g = Kronecker::new(12, 16, 7).unwrap();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let bump = || {
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let weights = generate_weights(&g, 1..3, &bump);
        assert_eq!(weights.len(), 2 * EDGES_PER_BLOCK);
        assert_eq!(done.into_inner(), 2);
    }

    #[test]
    fn weights_lie_in_the_unit_interval_and_look_uniform() {
        // 2^18 weights: the mean's standard deviation is 0.29 / 512, so
        // 0.003 is five of them; each of 16 bins expects 16384 +- 124, so
        // 4% (655) is over five.
        for g in both(14) {
            let w = generate_weights(&*g, 0..g.num_blocks(), &|| {});
            assert!(w.iter().all(|x| (0.0..1.0).contains(x)), "{}", g.name());
            let mean = w.iter().map(|&x| f64::from(x)).sum::<f64>() / w.len() as f64;
            assert!((mean - 0.5).abs() < 0.003, "{}: mean {mean}", g.name());
            let mut bins = [0usize; 16];
            for &x in &w {
                bins[(x * 16.0) as usize] += 1;
            }
            let expected = w.len() / 16;
            for (i, &count) in bins.iter().enumerate() {
                let off = count.abs_diff(expected);
                assert!(off < expected / 25, "{}: bin {i} has {count}", g.name());
            }
        }
    }

    #[test]
    fn weights_are_not_the_edges_draws() {
        // The default generator's weights have streams of their own: no
        // weight equals the top bits of its block's first edge draws.
        let g = Kronecker::new(10, 16, 3).unwrap();
        let w = generate_weights(&g, 0..1, &|| {});
        let mut edges = crate::SeedStreams::new(3).edge_blocks(1).stream(0);
        let heads: Vec<f32> = (0..64).map(|_| crate::unit_f32(edges.next_u64())).collect();
        assert!(heads.iter().all(|h| !w[..64].contains(h)));
        let mut own = crate::SeedStreams::new(3).weight_blocks(2).stream(1);
        let second = generate_weights(&g, 1..2, &|| {});
        assert!(second.iter().all(|&x| x == crate::unit_f32(own.next_u64())));
    }

    #[test]
    #[should_panic(expected = "need wider tuples")]
    fn narrow_tuples_refuse_a_graph_they_cannot_name() {
        let g = Kronecker::new(MAX_SCALE + 1, 1, 1).unwrap();
        let _: Vec<Edge> = generate_blocks(&g, 0..1, &|| {});
    }
}
