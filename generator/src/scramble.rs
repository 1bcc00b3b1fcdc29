//! `Scrambler`: a seeded bijection on `0..2^scale` that hides the generator's
//! locality in vertex labels, without an O(N) permutation table.
//!
//! Two rounds of: multiply by an odd key and add a key, modulo `2^scale`
//! (a bijection, since odd numbers are invertible modulo powers of two), then
//! xor with itself shifted right by half the width (a bijection too, as in
//! the finalisers of MurmurHash and SplitMix, that carries the well-mixed
//! high bits of the product down to the low bits, which multiplication alone
//! never changes). A composition of bijections is one. Cost: eight integer
//! operations per label.

use crate::random::Stream;

/// A keyed bijection on `0..2^scale`.
#[derive(Clone, Debug)]
pub struct Scrambler {
    /// Half the width, rounded up: the xorshift distance.
    pub(crate) shift: u32,
    pub(crate) mask: u64,
    /// `(multiplier, addend)` per round; multipliers are odd.
    pub(crate) rounds: [(u64, u64); 2],
}

impl Scrambler {
    /// A scrambler for `0..2^scale` keyed by four draws of `keys`.
    /// `scale` must be in `1..=63`.
    pub fn new(scale: u32, keys: &mut Stream) -> Self {
        assert!((1..64).contains(&scale), "scale {scale} outside 1..=63");
        let mut round = || (keys.next_u64() | 1, keys.next_u64());
        Scrambler {
            shift: scale.div_ceil(2),
            mask: (1u64 << scale) - 1,
            rounds: [round(), round()],
        }
    }

    /// The image of `x`, which must be below `2^scale`.
    #[inline]
    pub fn apply(&self, mut x: u64) -> u64 {
        debug_assert!(x <= self.mask);
        for &(multiplier, addend) in &self.rounds {
            x = x.wrapping_mul(multiplier).wrapping_add(addend) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeedStreams;

    #[test]
    fn scramble_is_a_bijection() {
        for scale in [1, 2, 5, 12] {
            let s = Scrambler::new(scale, &mut SeedStreams::new(3).scramble());
            let mut images: Vec<u64> = (0..1u64 << scale).map(|x| s.apply(x)).collect();
            images.sort_unstable();
            let identity: Vec<u64> = (0..1u64 << scale).collect();
            assert_eq!(images, identity, "scale {scale}");
        }
    }

    #[test]
    fn high_bits_of_the_input_reach_the_low_bits_of_the_output() {
        // Flipping the top input bit must flip each low output bit for
        // about half the inputs; multiplication alone would never.
        let s = Scrambler::new(16, &mut SeedStreams::new(5).scramble());
        let flips = (0..1u64 << 15)
            .filter(|&x| (s.apply(x) ^ s.apply(x | 1 << 15)) & 1 == 1)
            .count();
        assert!((8_000..24_000).contains(&flips), "{flips} of 32768");
    }

    #[test]
    fn scramble_moves_most_labels() {
        let s = Scrambler::new(16, &mut SeedStreams::new(3).scramble());
        let fixed = (0..1u64 << 16).filter(|&x| s.apply(x) == x).count();
        assert!(fixed < 64, "{fixed} fixed points of 65536");
    }
}
