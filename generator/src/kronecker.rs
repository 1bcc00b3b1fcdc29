//! `Kronecker`: the Graph500 R-MAT edge generator.
//!
//! Each edge picks, for each of `scale` bit levels, one quadrant of the
//! adjacency matrix with probabilities A = 0.57 (0,0), B = 0.19 (0,1),
//! C = 0.19 (1,0), D = 0.05 (1,1); the picked bits, most significant first,
//! form `(u, v)`, which are then relabelled by a [`Scrambler`].
//!
//! Determinism: edge `i` lies in block `i / EDGES_PER_BLOCK`, and a block's
//! edges are drawn in order from that block's own stream ([`SeedStreams`]),
//! four levels per 64-bit draw (16 bits each, compared against the
//! cumulative probabilities rounded to 1/65536, within 1e-5 of the exact
//! ones). The list is therefore a function of `(scale, edgefactor, seed)`
//! alone, whatever the thread count. Edge weights come from separate
//! per-block streams, one draw per weight (see `random.rs`).
//!
//! Cost: `ceil(scale / 4)` draws and two scrambles per edge. The four
//! quadrants of a draw are picked at once, branch-free: the three
//! threshold compares run on all four 16-bit lanes of the 64-bit word
//! (SWAR), and one multiply gathers the row and column bits (`quadrants4`,
//! checked against the per-level definition on every 16-bit value).
//! Blocks are generated in parallel with rayon, straight into the output
//! vector.

use crate::blocks::each_block;
use crate::random::{BlockJumps, SeedStreams, Stream, unit_f32};
use crate::{EDGES_PER_BLOCK, Edge, EdgeGenerator, Error, Scrambler, Tuple, WideEdge};

/// The largest scale of [`Edge`] tuples: `2^31` vertices keeps every id
/// below `u32::MAX`. One process's limit.
pub const MAX_SCALE: u32 = 31;
/// The largest scale of [`WideEdge`] tuples, which only a distributed run
/// uses: Graph500's largest list entries are SCALE 41-42, and at edge
/// factor `2^16` a list of `2^58` tuples still counts its bytes in a u64.
pub const MAX_WIDE_SCALE: u32 = 42;
/// The Graph500 edge factor: edge tuples per vertex.
pub const DEFAULT_EDGEFACTOR: u64 = 16;
/// The largest supported edge factor.
pub const MAX_EDGEFACTOR: u64 = 1 << 16;
/// The seed used when none is given, so that two runs match.
pub const DEFAULT_SEED: u64 = 20_100_615;

/// A 16-bit draw below `T_A` picks quadrant A, below `T_AB` B, below `T_ABC`
/// C, otherwise D (rounded `p * 2^16` of the cumulative probabilities).
const T_A: u16 = 37_356; // 0.57
const T_AB: u16 = 49_807; // 0.57 + 0.19
const T_ABC: u16 = 62_259; // 0.57 + 0.19 + 0.19
/// Levels drawn from one 64-bit number.
const LEVELS_PER_DRAW: u32 = 4;

/// The generator for one `(scale, edgefactor, seed)`.
#[derive(Clone, Debug)]
pub struct Kronecker {
    scale: u32,
    edgefactor: u64,
    seed: u64,
    scrambler: Scrambler,
    /// Each block's starting stream, reached in `O(log blocks)`.
    blocks: BlockJumps,
    /// Each block's weight stream, likewise.
    weights: BlockJumps,
}

impl Kronecker {
    /// A generator of `2^scale` vertices and `edgefactor * 2^scale` edges.
    /// Fails if `scale` is not in `1..=MAX_WIDE_SCALE` or `edgefactor` not
    /// in `1..=MAX_EDGEFACTOR`; above [`MAX_SCALE`] it fills only
    /// [`WideEdge`]s.
    pub fn new(scale: u32, edgefactor: u64, seed: u64) -> Result<Self, Error> {
        check_size(scale, edgefactor)?;
        let streams = SeedStreams::new(seed);
        let num_edges = edgefactor << scale;
        let num_blocks = num_edges.div_ceil(EDGES_PER_BLOCK as u64);
        let num_blocks = usize::try_from(num_blocks).expect("fits memory");
        Ok(Kronecker {
            scale,
            edgefactor,
            seed,
            scrambler: Scrambler::new(scale, &mut streams.scramble()),
            blocks: streams.edge_blocks(num_blocks),
            weights: streams.weight_blocks(num_blocks),
        })
    }

    /// One R-MAT edge before relabelling: `scale` quadrant picks, four per
    /// draw ([`quadrants4`]); the last draw's unused lanes are dropped.
    #[inline(always)] // into `fill`'s loop (docs/history-kernels.md#kronecker)
    fn draw_unscrambled(&self, stream: &mut Stream) -> (u64, u64) {
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..self.scale / LEVELS_PER_DRAW {
            let (row, column) = quadrants4(stream.next_u64());
            u = (u << LEVELS_PER_DRAW) | row;
            v = (v << LEVELS_PER_DRAW) | column;
        }
        let rest = self.scale % LEVELS_PER_DRAW;
        if rest > 0 {
            let (row, column) = quadrants4(stream.next_u64());
            let unused = LEVELS_PER_DRAW - rest;
            u = (u << rest) | (row >> unused);
            v = (v << rest) | (column >> unused);
        }
        (u, v)
    }
}

impl EdgeGenerator for Kronecker {
    fn scale(&self) -> u32 {
        self.scale
    }

    fn edgefactor(&self) -> u64 {
        self.edgefactor
    }

    fn name(&self) -> &'static str {
        "xoshiro"
    }

    fn label(&self) -> String {
        format!("xoshiro generator, seed {}", self.seed)
    }

    fn fill_block(&self, block: usize, out: &mut [Edge]) {
        self.fill(block, out);
    }

    /// Four whole blocks at a time in AVX2 where the processor has it
    /// (`kronecker/lanes.rs`: the same tuples in about half the time), the
    /// rest block by block.
    fn fill_blocks(&self, first_block: usize, out: &mut [Edge]) {
        let mut filled = 0;
        #[cfg(target_arch = "x86_64")]
        if lanes::available() {
            let groups = out.chunks_exact_mut(lanes::LANES * EDGES_PER_BLOCK);
            for (i, group) in groups.enumerate() {
                // SAFETY: `available` found AVX2 on this processor, the one
                // target feature `fill4` is compiled for.
                #[allow(unsafe_code)]
                unsafe {
                    lanes::fill4(self, first_block + i * lanes::LANES, group)
                };
                filled += group.len();
            }
        }
        let first_left = first_block + filled / EDGES_PER_BLOCK;
        each_block(first_left, &mut out[filled..], |block, items| {
            self.fill(block, items);
        });
    }

    fn fill_block_wide(&self, block: usize, out: &mut [WideEdge]) {
        self.fill(block, out);
    }

    /// One draw of the block's weight stream per tuple, its top 24 bits
    /// as a multiple of `2^-24` ([`unit_f32`]).
    fn fill_weights(&self, block: usize, out: &mut [f32]) {
        let mut stream = self.weights.stream(block);
        for weight in out {
            *weight = unit_f32(stream.next_u64());
        }
    }
}

impl Kronecker {
    /// Block `block`'s edges into `out`, as tuples of type `T`.
    fn fill<T: Tuple>(&self, block: usize, out: &mut [T]) {
        assert!(
            self.scale <= max_scale::<T>(),
            "SCALE {} in narrow tuples",
            self.scale
        );
        let mut stream = self.blocks.stream(block);
        for edge in out {
            let (u, v) = self.draw_unscrambled(&mut stream);
            *edge = T::from_ends(self.scrambler.apply(u), self.scrambler.apply(v));
        }
    }
}

/// The expected number of vertices that some tuple of a Graph500
/// Kronecker list of `scale` and `edgefactor` names (either generator;
/// a vertex named only by self-loops counts), for memory estimates made
/// before the list exists.
///
/// An end of a tuple is a label whose `k` one bits among `scale` came from
/// the initiator's second row (or column) with probability
/// `(A + B)^(scale - k) (C + D)^k` (rows and columns alike, as `B = C`);
/// with `2M` ends, such a vertex is named by none with probability about
/// `exp(-2M p)`. The scramble permutes labels and keeps the count. The
/// count's standard deviation is below `sqrt(N) / 2`. About 0.49 `N` at
/// SCALE 26, 0.62 `N` at SCALE 20. Cost: `scale + 1` terms.
pub fn expected_named_vertices(scale: u32, edgefactor: u64) -> f64 {
    let ends = 2.0 * (edgefactor as f64) * (scale as f64).exp2();
    let (high, low) = (0.57 + 0.19, 0.19 + 0.05);
    let mut ways = 1.0; // C(scale, k)
    let mut named = 0.0;
    for k in 0..=scale {
        let p = f64::powi(high, (scale - k) as i32) * f64::powi(low, k as i32);
        named += ways * -(-ends * p).exp_m1();
        ways = ways * f64::from(scale - k) / f64::from(k + 1);
    }
    named
}

/// The largest scale whose ids tuples of type `T` can name.
pub(crate) fn max_scale<T: Tuple>() -> u32 {
    if T::MAX_VERTICES > 1 << MAX_WIDE_SCALE {
        MAX_WIDE_SCALE
    } else {
        MAX_SCALE
    }
}

/// Fails unless `scale` is in `1..=MAX_WIDE_SCALE` and `edgefactor` in
/// `1..=MAX_EDGEFACTOR`: the sizes every generator supports.
pub(crate) fn check_size(scale: u32, edgefactor: u64) -> Result<(), Error> {
    if !(1..=MAX_WIDE_SCALE).contains(&scale) {
        return Err(Error::Parameter {
            name: "scale",
            value: scale.into(),
            range: format!("1..={MAX_WIDE_SCALE}"),
        });
    }
    if !(1..=MAX_EDGEFACTOR).contains(&edgefactor) {
        return Err(Error::Parameter {
            name: "edgefactor",
            value: edgefactor,
            range: format!("1..={MAX_EDGEFACTOR}"),
        });
    }
    Ok(())
}

/// The `(row, column)` bits of the quadrant a 16-bit draw picks:
/// A = (0, 0), B = (0, 1), C = (1, 0), D = (1, 1). Branch-free: the row is
/// set from C on; the column flips at each threshold (set in B, clear in C,
/// set in D). The definition that [`quadrants4`] computes four at a time.
#[cfg(test)]
fn quadrant(r: u16) -> (u64, u64) {
    let (past_a, past_b, past_c) = (r >= T_A, r >= T_AB, r >= T_ABC);
    (u64::from(past_b), u64::from(past_a ^ past_b ^ past_c))
}

/// The low 15 bits of each 16-bit lane.
const LANE_LOW: u64 = 0x7FFF_7FFF_7FFF_7FFF;
/// The top bit of each 16-bit lane.
const LANE_TOP: u64 = 0x8000_8000_8000_8000;
/// Multiplying bits at 0, 16, 32, 48 (lanes 0..4) by this puts lane `i` at
/// bit `51 - i`, and bits at 8, 24, 40, 56 at `59 - i`; every other partial
/// product lands elsewhere without colliding, so nothing carries into them.
const GATHER: u64 = {
    let mut gather = 0;
    let mut i = 0;
    while i < GATHER_SHIFTS.len() {
        gather |= 1 << GATHER_SHIFTS[i];
        i += 1;
    }
    gather
};
/// The set bits of [`GATHER`]: the four shifted copies of a word that sum
/// to its product with it (the AVX2 lanes add them, having no 64-bit
/// multiply).
const GATHER_SHIFTS: [u32; 4] = [51, 34, 17, 0];

/// Bit 15 of each 16-bit lane of `low | top` set where the lane is at least
/// `threshold`. Every threshold exceeds `2^15`, so a lane passes when its top
/// bit is set and its low 15 bits plus `2^16 - threshold` reach `2^15`; that
/// sum stays below `2^16`, so no lane carries into the next.
#[inline]
fn lanes_at_least(low: u64, top: u64, threshold: u16) -> u64 {
    const { assert!(T_A > 1 << 15) };
    let complement = (1u64 << 16) - u64::from(threshold);
    top & (low + complement * 0x0001_0001_0001_0001)
}

/// `quadrant` of the four 16-bit lanes of `bits` at once, branch-free:
/// the row bits and the column bits as two 4-bit numbers, lane 0 (the low
/// 16 bits) the most significant.
#[inline]
fn quadrants4(bits: u64) -> (u64, u64) {
    let (low, top) = (bits & LANE_LOW, bits & LANE_TOP);
    let past_a = lanes_at_least(low, top, T_A);
    let past_b = lanes_at_least(low, top, T_AB);
    let past_c = lanes_at_least(low, top, T_ABC);
    let spread = (past_b >> 15) | ((past_a ^ past_b ^ past_c) >> 7);
    let gathered = spread.wrapping_mul(GATHER) >> 48;
    (gathered & 0xF, (gathered >> 8) & 0xF)
}

#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(test)]
mod tests;
