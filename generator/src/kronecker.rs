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
//! alone, whatever the thread count.
//!
//! Cost: `ceil(scale / 4)` draws, `3 * scale` comparisons and two scrambles
//! per edge; blocks are generated in parallel with rayon, straight into the
//! output vector.

use crate::random::{SeedStreams, Stream};
use crate::{EDGES_PER_BLOCK, Edge, EdgeGenerator, Error, Scrambler};

/// The largest supported scale: `2^31` vertices keeps every id below
/// `u32::MAX` (far beyond what fits in memory today anyway).
pub const MAX_SCALE: u32 = 31;
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
    /// Starting stream of every block, computed once (one jump each).
    blocks: Vec<Stream>,
}

impl Kronecker {
    /// A generator of `2^scale` vertices and `edgefactor * 2^scale` edges.
    /// Fails if `scale` is not in `1..=MAX_SCALE` or `edgefactor` not in
    /// `1..=MAX_EDGEFACTOR`.
    pub fn new(scale: u32, edgefactor: u64, seed: u64) -> Result<Self, Error> {
        check_size(scale, edgefactor)?;
        let streams = SeedStreams::new(seed);
        let num_edges = edgefactor << scale;
        let num_blocks = num_edges.div_ceil(EDGES_PER_BLOCK as u64);
        Ok(Kronecker {
            scale,
            edgefactor,
            seed,
            scrambler: Scrambler::new(scale, &mut streams.scramble()),
            blocks: streams.edge_blocks(usize::try_from(num_blocks).expect("fits memory")),
        })
    }

    /// One R-MAT edge before relabelling: `scale` quadrant picks.
    #[inline]
    fn draw_unscrambled(&self, stream: &mut Stream) -> (u64, u64) {
        let (mut u, mut v) = (0u64, 0u64);
        let mut levels_left = self.scale;
        while levels_left > 0 {
            let bits = stream.next_u64();
            let levels = levels_left.min(LEVELS_PER_DRAW);
            for lane in 0..levels {
                #[allow(clippy::cast_possible_truncation)] // 16 of the 64 bits
                let r = (bits >> (16 * lane)) as u16;
                let (bit_u, bit_v) = quadrant(r);
                u = (u << 1) | bit_u;
                v = (v << 1) | bit_v;
            }
            levels_left -= levels;
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
        let mut stream = self.blocks[block].clone();
        for edge in out {
            let (u, v) = self.draw_unscrambled(&mut stream);
            // Scrambled labels are below 2^scale <= 2^31: they fit a Vertex.
            #[allow(clippy::cast_possible_truncation)]
            let scrambled = |x| self.scrambler.apply(x) as u32;
            *edge = Edge::new(scrambled(u), scrambled(v));
        }
    }
}

/// Fails unless `scale` is in `1..=MAX_SCALE` and `edgefactor` in
/// `1..=MAX_EDGEFACTOR`: the sizes every generator supports.
pub(crate) fn check_size(scale: u32, edgefactor: u64) -> Result<(), Error> {
    if !(1..=MAX_SCALE).contains(&scale) {
        return Err(Error::Parameter {
            name: "scale",
            value: scale.into(),
            range: format!("1..={MAX_SCALE}"),
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
/// set in D).
#[inline]
fn quadrant(r: u16) -> (u64, u64) {
    let (past_a, past_b, past_c) = (r >= T_A, r >= T_AB, r >= T_ABC);
    (u64::from(past_b), u64::from(past_a ^ past_b ^ past_c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(f)
    }

    #[test]
    fn thresholds_are_the_rounded_initiator_probabilities() {
        let scaled = |p: f64| (p * 65_536.0).round();
        assert_eq!(f64::from(T_A), scaled(0.57));
        assert_eq!(f64::from(T_AB), scaled(0.57 + 0.19));
        assert_eq!(f64::from(T_ABC), scaled(0.57 + 0.19 + 0.19));
    }

    #[test]
    fn quadrants_follow_the_initiator_order() {
        assert_eq!(quadrant(0), (0, 0));
        assert_eq!(quadrant(T_A - 1), (0, 0));
        assert_eq!(quadrant(T_A), (0, 1));
        assert_eq!(quadrant(T_AB), (1, 0));
        assert_eq!(quadrant(T_ABC), (1, 1));
        assert_eq!(quadrant(T_AB - 1), (0, 1));
        assert_eq!(quadrant(T_ABC - 1), (1, 0));
        assert_eq!(quadrant(u16::MAX), (1, 1));
    }

    #[test]
    fn same_seed_gives_identical_edges_on_one_and_two_threads() {
        // Scale 12: 65536 edges, four blocks, so two threads really split it.
        let g = Kronecker::new(12, 16, 5).unwrap();
        assert!(g.num_blocks() >= 4);
        let one = in_pool(1, || g.generate());
        let two = in_pool(2, || g.generate());
        assert_eq!(one.edges(), two.edges());
        assert_eq!(one.checksum(), two.checksum());
    }

    #[test]
    fn another_seed_gives_another_graph() {
        let a = Kronecker::new(10, 16, 1).unwrap().generate();
        let b = Kronecker::new(10, 16, 2).unwrap().generate();
        assert_ne!(a.checksum(), b.checksum());
        let same = a
            .edges()
            .iter()
            .zip(b.edges())
            .filter(|(x, y)| x == y)
            .count();
        assert!(same < a.len() / 100, "{same} of {} tuples equal", a.len());
    }

    #[test]
    fn counts_follow_scale_and_edgefactor() {
        for (scale, ef) in [(1, 1), (5, 16), (11, 3)] {
            let g = Kronecker::new(scale, ef, 9).unwrap();
            let edges = g.generate();
            assert_eq!(edges.num_vertices(), 1 << scale);
            assert_eq!(edges.len() as u64, ef << scale);
        }
    }

    #[test]
    fn out_of_range_parameters_are_rejected() {
        assert!(Kronecker::new(0, 16, 1).is_err());
        assert!(Kronecker::new(MAX_SCALE + 1, 16, 1).is_err());
        assert!(Kronecker::new(10, 0, 1).is_err());
        assert!(Kronecker::new(10, MAX_EDGEFACTOR + 1, 1).is_err());
    }

    #[test]
    fn degrees_are_skewed_like_rmat() {
        // R-MAT at scale 12: the heaviest vertex expects about
        // 2 * M * 0.76^12 ~ 4800 edge ends against a mean of 32; an
        // Erdos-Renyi graph of the same size would top out near 60.
        let edges = Kronecker::new(12, 16, 11).unwrap().generate();
        let mut degree = vec![0u32; edges.num_vertices()];
        for e in edges.edges() {
            degree[e.u as usize] += 1;
            degree[e.v as usize] += 1;
        }
        let max = *degree.iter().max().unwrap();
        let mean = 2.0 * edges.len() as f64 / degree.len() as f64;
        assert!(
            f64::from(max) > 40.0 * mean,
            "max degree {max}, mean {mean}"
        );
        let isolated = degree.iter().filter(|&&d| d == 0).count();
        assert!(isolated > degree.len() / 20, "{isolated} isolated vertices");
    }

    #[test]
    fn quadrant_frequencies_match_the_initiator() {
        // Over many levels, the (row, column) bit pairs before scrambling
        // occur with frequencies A, B, C, D.
        let g = Kronecker::new(20, 1, 4).unwrap();
        let mut stream = g.blocks[0].clone();
        let mut count = [0u32; 4];
        let draws = 20_000;
        for _ in 0..draws {
            let (u, v) = g.draw_unscrambled(&mut stream);
            for level in 0..20 {
                count[(((u >> level) & 1) * 2 + ((v >> level) & 1)) as usize] += 1;
            }
        }
        let total = f64::from(draws * 20);
        for (c, p) in count.iter().zip([0.57, 0.19, 0.19, 0.05]) {
            let f = f64::from(*c) / total;
            assert!((f - p).abs() < 0.005, "frequency {f} for probability {p}");
        }
    }
}
