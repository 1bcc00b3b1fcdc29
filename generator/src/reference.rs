//! `ReferenceKronecker`: the official Graph500 generator, bit for bit.
//!
//! The same edge tuples in the same order as the reference code
//! (graph500/graph500, `generate_kronecker_range`), and the same stream of
//! search-key candidates (`make_random_numbers` as its `main` uses it), for
//! its user seeds 2 and 3. Written from the specification and checked against
//! numbers the reference printed (`data/graph500-reference-vectors.txt`).
//!
//! - Every draw comes from one [`Mrg`]; edge `i` starts from the seeded
//!   state skipped `i * 2^64` steps, so edges are independent of each other.
//!   Here a block's first edges are reached by skips and each later edge by
//!   one application of a precomputed power: a 5x5 product per edge instead
//!   of the reference's one to three table lookups and products.
//! - Four edges ("lanes") are drawn in lockstep, so that the dependent
//!   multiply-fold chains of their streams overlap, and the quadrant pick is
//!   branch-free (the picks are random: branches mispredict); both measured
//!   to pay (docs/history-kernels.md#reference).
//! - Per level, most significant bit first: draw `r`, redraw while
//!   `r < 3647` (so that `r mod 10000` is unbiased), then `r mod 10000` picks
//!   B below 1900, C below 3800, A below 9500, else D. "Clip and flip": while
//!   every bit so far is equal for both ends, C becomes B, so the unscrambled
//!   source never exceeds the target.
//! - Labels go through the keyed `scramble` (add, multiply by key | constant,
//!   bit-reverse, twice); the keys are four draws from the state skipped
//!   `50 * 2^128 + 7 * 2^64` steps.
//! - Search-key candidates: from the state skipped `2 * 2^128` steps, pairs
//!   of doubles `(d0, d1)` give `((d0 + d1) * N) as i64 mod N`.
//!
//! - Weights (kernel 3): tuple `i`'s is the next draw of its stream after
//!   its edge's, rounded as the reference's `mrg_get_float_orig` does
//!   ([`Mrg::next_float`]); making them repeats the edge's draws.
//!
//! Cost per edge: `scale` draws (two multiplications and two folds each,
//! rare redraws), 25 multiplications to reach the next edge's stream, two
//! scrambles; no memory beyond the output and three skip matrices.

use crate::kronecker::{check_size, max_scale};
use crate::mrg::{Mrg, Transition};
use crate::{EDGES_PER_BLOCK, Edge, EdgeGenerator, Error, Tuple, WideEdge};

/// The user seeds the reference benchmark always uses.
pub const REFERENCE_USER_SEEDS: (u64, u64) = (2, 3);
/// A level's draw is redrawn while below this (`(2^31 - 1) mod 10000`).
const REDRAW_BELOW: u64 = 3_647;
/// Edges drawn side by side (see `draw_unscrambled`).
const LANES: usize = 4;
/// The constants OR-ed into the two scramble keys (both odd).
const SCRAMBLE_ODD: [u64; 2] = [0x4519_8402_1149_3211, 0x3050_8521_02C8_43A5];

/// The reference generator for one `(scale, edgefactor)`.
#[derive(Clone, Debug)]
pub struct ReferenceKronecker {
    scale: u32,
    edgefactor: u64,
    seed: Mrg,
    keys: [u64; 2],
    /// Skips one edge: `STEP^(2^64)`.
    next_edge: Transition,
    /// Skips as many edges as there are lanes: `STEP^(2^64 * LANES)`.
    next_lanes: Transition,
    /// Skips one block: `STEP^(2^64 * EDGES_PER_BLOCK)`.
    next_block: Transition,
}

impl ReferenceKronecker {
    /// The reference's graph of `2^scale` vertices and `edgefactor * 2^scale`
    /// edges with its user seeds 2 and 3. Fails on the sizes
    /// [`Kronecker::new`](crate::Kronecker::new) rejects.
    pub fn new(scale: u32, edgefactor: u64) -> Result<Self, Error> {
        check_size(scale, edgefactor)?;
        let (seed1, seed2) = REFERENCE_USER_SEEDS;
        let seed = Mrg::from_user_seeds(seed1, seed2);
        let mut key_stream = seed.skipped(&Transition::skip(50, 7, 0));
        let mut key = || key_stream.next_u31() * 0xFFFF_FFFF + key_stream.next_u31();
        let next_edge = Transition::STEP.pow2(64);
        Ok(ReferenceKronecker {
            scale,
            edgefactor,
            seed,
            keys: [key(), key()],
            next_lanes: next_edge.pow(LANES as u64),
            next_block: next_edge.pow(EDGES_PER_BLOCK as u64),
            next_edge,
        })
    }

    /// The two scramble keys.
    pub fn scramble_keys(&self) -> [u64; 2] {
        self.keys
    }

    /// The reference's `scramble`: a bijection on `0..2^scale`.
    #[inline]
    pub fn scramble(&self, v: u64) -> u64 {
        let shift = 64 - self.scale;
        let [k0, k1] = self.keys;
        let v = v.wrapping_add(k0).wrapping_add(k1);
        let v = v.wrapping_mul(k0 | SCRAMBLE_ODD[0]).reverse_bits() >> shift;
        v.wrapping_mul(k1 | SCRAMBLE_ODD[1]).reverse_bits() >> shift
    }

    /// The candidates the reference's `main` tries as search keys, in order:
    /// an endless stream of vertices. Which it keeps is the caller's rule
    /// (see `kernels::choose_reference_search_keys`).
    pub fn root_candidates(&self) -> RootCandidates {
        RootCandidates {
            stream: self.seed.skipped(&Transition::skip(2, 0, 0)),
            num_vertices: 1 << self.scale,
        }
    }

    /// `LANES` edges before scrambling, each from its own stream, drawn in
    /// lockstep so that the streams' dependent multiply-folds overlap:
    /// `(source, target)` pairs with `source <= target`.
    #[inline(always)] // into `fill`'s loop (docs/history-kernels.md#reference)
    fn draw_unscrambled(&self, streams: &mut [Mrg; LANES]) -> [(u64, u64); LANES] {
        let mut ends = [(0u64, 0u64); LANES];
        for _ in 0..self.scale {
            for (stream, (src, tgt)) in streams.iter_mut().zip(&mut ends) {
                let mut r = stream.next_u31();
                while r < REDRAW_BELOW {
                    r = stream.next_u31();
                }
                let (so, to) = quadrant(r % 10_000);
                // Clip and flip: C (1, 0) becomes B (0, 1) while the ends agree.
                let flip = u64::from(*src == *tgt) & so & !to;
                *src = (*src << 1) | (so ^ flip);
                *tgt = (*tgt << 1) | (to ^ flip);
            }
        }
        ends
    }
}

/// The `(source, target)` bits that `r` in `0..10000` picks: B below 1900,
/// C below 3800, A below 9500, else D. Branch-free: the picks are random,
/// so branches would mispredict on about every other level.
#[inline]
fn quadrant(r: u64) -> (u64, u64) {
    let (b, c, d) = (r < 1_900, (1_900..3_800).contains(&r), r >= 9_500);
    (u64::from(c | d), u64::from(b | d))
}

impl EdgeGenerator for ReferenceKronecker {
    fn scale(&self) -> u32 {
        self.scale
    }

    fn edgefactor(&self) -> u64 {
        self.edgefactor
    }

    fn name(&self) -> &'static str {
        "graph500"
    }

    fn label(&self) -> String {
        let (seed1, seed2) = REFERENCE_USER_SEEDS;
        format!("graph500 reference generator, user seeds {seed1} and {seed2}")
    }

    fn fill_block(&self, block: usize, out: &mut [Edge]) {
        self.fill(block, out);
    }

    fn fill_block_wide(&self, block: usize, out: &mut [WideEdge]) {
        self.fill(block, out);
    }

    /// The reference's weight of tuple `i`: the next draw of its stream
    /// after its edge's draws (redraws included), as `mrg_get_float_orig`
    /// converts it ([`Mrg::next_float`]). The edges' draws are repeated
    /// (four lanes in lockstep, as for the edges) without the scrambles.
    fn fill_weights(&self, block: usize, out: &mut [f32]) {
        self.for_each_lanes(block, out, |weights, mut streams| {
            self.draw_unscrambled(&mut streams);
            for (weight, stream) in weights.iter_mut().zip(&mut streams) {
                *weight = stream.next_float();
            }
        });
    }
}

impl ReferenceKronecker {
    /// Block `block`'s edges into `out`, as tuples of type `T`.
    fn fill<T: Tuple>(&self, block: usize, out: &mut [T]) {
        assert!(
            self.scale <= max_scale::<T>(),
            "SCALE {} in narrow tuples",
            self.scale
        );
        self.for_each_lanes(block, out, |edges, mut streams| {
            let ends = self.draw_unscrambled(&mut streams);
            for (edge, (src, tgt)) in edges.iter_mut().zip(ends) {
                *edge = T::from_ends(self.scramble(src), self.scramble(tgt));
            }
        });
    }

    /// Calls `each` on `out`, the items of block `block`'s tuples, `LANES`
    /// at a time, with the starting streams of those tuples (the last call
    /// may have fewer items than streams). A block's first streams cost a
    /// skip of `O(log block)` products, each later group `LANES` products.
    #[inline(always)] // the closures' draws belong in the loop
    fn for_each_lanes<X>(
        &self,
        block: usize,
        out: &mut [X],
        mut each: impl FnMut(&mut [X], [Mrg; LANES]),
    ) {
        let first = self.seed.skipped(&self.next_block.pow(block as u64));
        let mut starts = [first; LANES];
        for lane in 1..LANES {
            starts[lane] = starts[lane - 1].skipped(&self.next_edge);
        }
        for chunk in out.chunks_mut(LANES) {
            each(chunk, starts);
            for start in &mut starts {
                *start = start.skipped(&self.next_lanes);
            }
        }
    }
}

/// The reference's search-key candidates: see
/// [`ReferenceKronecker::root_candidates`].
#[derive(Clone, Debug)]
pub struct RootCandidates {
    stream: Mrg,
    num_vertices: u64,
}

impl Iterator for RootCandidates {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let (d0, d1) = (self.stream.next_double(), self.stream.next_double());
        // As the reference computes it: the sum scaled by N as a double,
        // truncated, then reduced (the product is below 2N, so exact enough
        // to fit an i64 and never negative).
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let root = ((d0 + d1) * self.num_vertices as f64) as i64 as u64 % self.num_vertices;
        Some(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edge `i` computed alone, as the reference defines it: its own
    /// stream, the seed skipped `i * 2^64` steps.
    fn edge_by_definition(g: &ReferenceKronecker, i: u64) -> Edge {
        let stream = g.seed.skipped(&Transition::skip(0, i, 0));
        let [(src, tgt), ..] = g.draw_unscrambled(&mut [stream; LANES]);
        #[allow(clippy::cast_possible_truncation)]
        Edge::new(g.scramble(src) as u32, g.scramble(tgt) as u32)
    }

    #[test]
    fn blocks_and_lanes_give_each_edge_its_own_stream() {
        // 2 blocks, the second short; and lists shorter than the lanes.
        for (scale, edgefactor) in [(11, 9), (1, 3), (1, 1)] {
            let g = ReferenceKronecker::new(scale, edgefactor).unwrap();
            let edges = g.generate();
            let m = edges.len();
            let mut probes = vec![0, 1, 2, 3, 4, m - 2, m - 1];
            if m > EDGES_PER_BLOCK {
                probes.extend([EDGES_PER_BLOCK - 1, EDGES_PER_BLOCK, EDGES_PER_BLOCK + 5]);
            }
            for i in probes.into_iter().filter(|&i| i < m) {
                assert_eq!(
                    edges.edges()[i],
                    edge_by_definition(&g, i as u64),
                    "edge {i}"
                );
            }
        }
    }

    #[test]
    fn each_weight_is_the_draw_after_its_edge() {
        // As the reference defines it: tuple i's stream, its edge drawn,
        // then one more draw. Blocks and lanes as for the edges.
        for (scale, edgefactor) in [(11, 9), (1, 3), (1, 1)] {
            let g = ReferenceKronecker::new(scale, edgefactor).unwrap();
            let weights = crate::generate_weights(&g, 0..g.num_blocks(), &|| {});
            let m = weights.len();
            let probes = [
                0,
                1,
                2,
                3,
                4,
                5,
                EDGES_PER_BLOCK - 1,
                EDGES_PER_BLOCK,
                m - 1,
            ];
            for i in probes.into_iter().filter(|&i| i < m) {
                let mut stream = [g.seed.skipped(&Transition::skip(0, i as u64, 0)); LANES];
                g.draw_unscrambled(&mut stream);
                let expected = stream[0].next_float();
                assert_eq!(weights[i].to_bits(), expected.to_bits(), "weight {i}");
            }
        }
    }

    #[test]
    fn scramble_is_a_bijection() {
        for scale in [1, 4, 13] {
            let g = ReferenceKronecker::new(scale, 1).unwrap();
            let mut images: Vec<u64> = (0..1 << scale).map(|v| g.scramble(v)).collect();
            images.sort_unstable();
            assert!(images.iter().copied().eq(0..1 << scale), "scale {scale}");
        }
    }

    #[test]
    fn quadrants_follow_the_reference_thresholds() {
        assert_eq!(quadrant(0), (0, 1)); // B
        assert_eq!(quadrant(1_899), (0, 1));
        assert_eq!(quadrant(1_900), (1, 0)); // C
        assert_eq!(quadrant(3_799), (1, 0));
        assert_eq!(quadrant(3_800), (0, 0)); // A
        assert_eq!(quadrant(9_499), (0, 0));
        assert_eq!(quadrant(9_500), (1, 1)); // D
        assert_eq!(quadrant(9_999), (1, 1));
    }

    #[test]
    fn unscrambled_sources_never_exceed_targets() {
        let g = ReferenceKronecker::new(12, 1).unwrap();
        let mut streams = [g.seed; LANES];
        for _ in 0..1_000 {
            for (src, tgt) in g.draw_unscrambled(&mut streams) {
                assert!(src <= tgt, "({src}, {tgt})");
            }
        }
    }
}
