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
//!
//! Since block `b`'s stream depends only on `b`, generated edges never depend
//! on which thread makes them or in what order.

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

    /// The streams of edge blocks `0..count`, in order. Costs one jump
    /// (256 steps of the generator) per block.
    pub fn edge_blocks(&self, count: usize) -> Vec<Stream> {
        let mut state = self.base.clone();
        (0..count)
            .map(|_| {
                let stream = Stream(state.clone());
                state.jump();
                stream
            })
            .collect()
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
        let heads: Vec<u64> = blocks.into_iter().map(first).collect();
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
}
