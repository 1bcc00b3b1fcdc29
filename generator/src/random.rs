//! Random streams derived from one seed.
//!
//! A seed fixes one xoshiro256++ state, the *base*. Every consumer gets its own
//! stretch of the base's period, far enough apart that none can overlap:
//!
//! | consumer | stream |
//! | --- | --- |
//! | edge block `b` | base jumped `b` times (`b * 2^128` draws ahead) |
//! | label scrambling keys | base long-jumped once (`2^192` draws ahead) |
//! | search keys | base long-jumped twice |
//! | edge weights of block `b` | base long-jumped three times, then jumped `b` times |
//!
//! Since block `b`'s streams depend only on `b`, generated edges and weights
//! never depend on which thread makes them or in what order. The weights
//! have streams of their own so that every graph made before them stays the
//! same; tuple `i` of a block gets the block's weight draw `i`, of which
//! [`unit_f32`] keeps the top 24 bits.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// One independent random stream (xoshiro256++).
#[derive(Clone, Debug)]
pub struct Stream(Xoshiro256PlusPlus);

impl Stream {
    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `0..n`; see [`uniform_below`].
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        uniform_below(|| self.next_u64(), n)
    }
}

/// A uniform integer in `0..n` from 64-bit draws, exactly unbiased
/// (Lemire's multiply-and-reject: one draw on average, a few more for `n`
/// close to `2^64`). Panics if `n == 0`.
#[inline]
pub fn uniform_below(mut draw: impl FnMut() -> u64, n: u64) -> u64 {
    assert!(n > 0, "uniform_below needs a non-empty range");
    // Low products below (2^64 mod n) would make some results more likely.
    let reject_below = n.wrapping_neg() % n;
    loop {
        let product = u128::from(draw()) * u128::from(n);
        #[allow(clippy::cast_possible_truncation)] // the low 64 bits, on purpose
        if product as u64 >= reject_below {
            return (product >> 64) as u64;
        }
    }
}

/// A weight in `[0, 1)` from the top 24 bits of a draw: `bits >> 40`
/// times `2^-24`, exact (every multiple of `2^-24` below 1 is an `f32`).
#[inline]
pub fn unit_f32(bits: u64) -> f32 {
    // 24 bits: exact in an f32's significand.
    #[allow(clippy::cast_precision_loss)]
    let top = (bits >> 40) as f32;
    top * UNIT_F32_STEP
}

/// `2^-24`, the spacing of [`unit_f32`]'s values.
const UNIT_F32_STEP: f32 = 1.0 / 16_777_216.0;

/// The streams a seed gives; see the module documentation for the layout.
#[derive(Clone, Debug)]
pub struct SeedStreams {
    base: Xoshiro256PlusPlus,
}

impl SeedStreams {
    /// The streams of `seed` (the base state comes from SplitMix64 of it).
    pub fn new(seed: u64) -> Self {
        SeedStreams {
            base: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    /// The streams of edge blocks `0..count`, each reachable on its own
    /// ([`BlockJumps::stream`]). Costs `log2(count)` squarings of the jump
    /// matrix (256 applications each) and 32 KiB per squaring.
    pub fn edge_blocks(&self, count: usize) -> BlockJumps {
        BlockJumps::new(words(&self.base.state()), count)
    }

    /// The weight streams of edge blocks `0..count`, as
    /// [`edge_blocks`](SeedStreams::edge_blocks) from the base long-jumped
    /// three times, at the same cost.
    pub fn weight_blocks(&self, count: usize) -> BlockJumps {
        let Stream(start) = self.long_jumped(3);
        BlockJumps::new(words(&start.state()), count)
    }

    /// The stream that draws the label-scrambling keys.
    pub fn scramble(&self) -> Stream {
        self.long_jumped(1)
    }

    /// The stream that draws the search keys (BFS roots).
    pub fn search_keys(&self) -> Stream {
        self.long_jumped(2)
    }

    fn long_jumped(&self, times: usize) -> Stream {
        let mut state = self.base.clone();
        for _ in 0..times {
            state.long_jump();
        }
        Stream(state)
    }
}

/// A generator state: 256 bits as four words, as xoshiro256++ holds them.
pub(crate) type State = [u64; 4];

/// The state of `bytes`, little-endian words (rand_xoshiro's layout).
fn words(bytes: &[u8; 32]) -> State {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8")))
}

/// The generator whose state is `state` (never all zero here: jumps are
/// invertible, so they never reach zero from a seeded state).
fn from_state(state: &State) -> Xoshiro256PlusPlus {
    let mut bytes = [0u8; 32];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(state) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// A linear map of states over GF(2) (xoshiro's steps and jumps are
/// linear), tabulated by nibble: `table[i][x]` is the image of the state
/// whose only set bits are nibble `i` holding `x`. 32 KiB; the image of a
/// state is 64 table reads xor-ed together.
#[derive(Clone, Debug)]
struct Linear {
    table: Box<[[State; 16]; NIBBLES]>,
}

/// Nibbles of a state.
const NIBBLES: usize = 64;

impl Linear {
    /// The map whose image of state bit `j` alone is `column(j)`.
    fn from_columns(column: impl Fn(usize) -> State) -> Self {
        let mut table = Box::new([[[0u64; 4]; 16]; NIBBLES]);
        for (i, images) in table.iter_mut().enumerate() {
            let bits: [State; 4] = std::array::from_fn(|b| column(4 * i + b));
            for x in 1..16usize {
                // x without its lowest set bit is already tabulated.
                let low = x.trailing_zeros() as usize;
                let rest = images[x & (x - 1)];
                images[x] = std::array::from_fn(|w| rest[w] ^ bits[low][w]);
            }
        }
        Linear { table }
    }

    /// One jump (`2^128` draws), read off the generator's own `jump`.
    fn jump() -> Self {
        Linear::from_columns(|j| {
            let mut unit = [0u64; 4];
            unit[j / 64] = 1 << (j % 64);
            let mut g = from_state(&unit);
            g.jump();
            words(&g.state())
        })
    }

    /// The image of `s`.
    fn apply(&self, s: &State) -> State {
        let mut out = [0u64; 4];
        for (i, images) in self.table.iter().enumerate() {
            let nibble = (s[i / 16] >> (4 * (i % 16))) & 0xF;
            let image = &images[usize::try_from(nibble).expect("a nibble")];
            for (o, x) in out.iter_mut().zip(image) {
                *o ^= x;
            }
        }
        out
    }

    /// This map applied twice.
    fn square(&self) -> Self {
        Linear::from_columns(|j| {
            let mut unit = [0u64; 4];
            unit[j / 64] = 1 << (j % 64);
            self.apply(&self.apply(&unit))
        })
    }
}

/// The starting streams of edge blocks `0..count`: block `b`'s is the base
/// jumped `b` times, reached in `popcount(b)` matrix applications (the
/// jump matrix squared `k` times jumps `2^k` blocks) instead of `b` jumps,
/// so no rank of a distributed run walks past the blocks before its share
/// and no table grows with the graph.
#[derive(Clone, Debug)]
pub struct BlockJumps {
    base: State,
    count: usize,
    /// `powers[k]`: `2^k` jumps.
    powers: Vec<Linear>,
}

impl BlockJumps {
    /// The streams of blocks `0..count` from `base` on, with the
    /// `log2(count)` powers of the jump they need.
    fn new(base: State, count: usize) -> Self {
        let needed = usize::BITS - count.saturating_sub(1).leading_zeros();
        let mut powers = vec![Linear::jump()];
        while powers.len() < needed as usize {
            let last = powers.last().expect("one power");
            powers.push(last.square());
        }
        BlockJumps {
            base,
            count,
            powers,
        }
    }

    /// Block `block`'s stream: one application of a tabulated map (64 table
    /// reads) per set bit of `block`.
    /// Panics if `block` is not below the count these jumps were made for.
    pub fn stream(&self, block: usize) -> Stream {
        Stream(from_state(&self.state(block)))
    }

    /// The state of block `block`'s stream, as [`stream`](Self::stream)
    /// starts it: for code that runs several streams side by side.
    pub(crate) fn state(&self, block: usize) -> State {
        assert!(block < self.count, "block {block} of {}", self.count);
        let mut state = self.base;
        for (k, power) in self.powers.iter().enumerate() {
            if block >> k & 1 == 1 {
                state = power.apply(&state);
            }
        }
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut s = SeedStreams::new(7).search_keys();
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[usize::try_from(s.below(5)).unwrap()] += 1;
        }
        // Each of 5 values expected 1000 times; 800 is over 6 sigma away.
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    #[test]
    fn below_rejects_the_biased_low_products() {
        // n = 3 * 2^62: 2^64 mod n = 2^62, so a draw of 0 (product 0) must be
        // rejected and the next draw used.
        let n = 3u64 << 62;
        let mut draws = [0u64, u64::MAX].into_iter();
        assert_eq!(uniform_below(|| draws.next().unwrap(), n), n - 1);
    }

    #[test]
    fn streams_of_one_seed_differ_and_repeat() {
        let a = SeedStreams::new(1);
        let first = |mut s: Stream| s.next_u64();
        let blocks = a.edge_blocks(3);
        let heads: Vec<u64> = (0..3).map(|b| first(blocks.stream(b))).collect();
        assert_ne!(heads[0], heads[1]);
        assert_ne!(heads[1], heads[2]);
        assert_ne!(first(a.scramble()), first(a.search_keys()));
        assert_eq!(
            first(a.search_keys()),
            first(SeedStreams::new(1).search_keys())
        );
        assert_ne!(
            first(a.search_keys()),
            first(SeedStreams::new(2).search_keys())
        );
    }

    #[test]
    fn block_streams_are_the_base_jumped_once_per_block() {
        // The definition the default generator's graphs were made with:
        // block b starts where the base stands after b jumps.
        let seeds = SeedStreams::new(11);
        let blocks = seeds.edge_blocks(5_000);
        let mut walked = seeds.base.clone();
        for b in 0..5_000 {
            if b < 70 || b % 997 == 0 || b == 4_095 || b == 4_999 {
                let (mut fast, mut slow) = (blocks.stream(b), Stream(walked.clone()));
                for _ in 0..4 {
                    assert_eq!(fast.next_u64(), slow.next_u64(), "block {b}");
                }
            }
            walked.jump();
        }
    }

    #[test]
    fn weight_streams_are_the_third_long_jump_jumped_per_block() {
        let seeds = SeedStreams::new(5);
        let weights = seeds.weight_blocks(3);
        let mut walked = seeds.base.clone();
        for _ in 0..3 {
            walked.long_jump();
        }
        for b in 0..3 {
            let (mut fast, mut slow) = (weights.stream(b), Stream(walked.clone()));
            assert_eq!(fast.next_u64(), slow.next_u64(), "block {b}");
            walked.jump();
        }
        let edge_heads: Vec<u64> = (0..3)
            .map(|b| seeds.edge_blocks(3).stream(b).next_u64())
            .collect();
        assert!(!edge_heads.contains(&weights.stream(0).next_u64()));
    }

    #[test]
    fn unit_floats_are_the_top_24_bits_exactly() {
        assert_eq!(unit_f32(0), 0.0);
        assert_eq!(unit_f32((1 << 40) - 1), 0.0);
        assert_eq!(unit_f32(1 << 40), 2f32.powi(-24));
        assert_eq!(unit_f32(1 << 63), 0.5);
        assert_eq!(unit_f32(u64::MAX), 1.0 - 2f32.powi(-24));
        assert!(unit_f32(u64::MAX) < 1.0);
        for bits in [0x1234_5678_9abc_def0_u64, 0xdead_beef_0000_0001] {
            let exact = (bits >> 40) as f64 / f64::from(1u32 << 24);
            assert_eq!(f64::from(unit_f32(bits)), exact);
        }
    }

    #[test]
    fn jump_powers_compose() {
        // 2^k jumps then 2^k more is 2^(k+1): squaring is composition.
        let blocks = SeedStreams::new(3).edge_blocks(1 << 12);
        let s = words(&SeedStreams::new(3).base.state());
        let twice = blocks.powers[4].apply(&blocks.powers[4].apply(&s));
        assert_eq!(twice, blocks.powers[5].apply(&s));
    }
}
