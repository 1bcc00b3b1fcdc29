//! Four blocks' edges at once, in AVX2.
//!
//! One 256-bit register holds the same word of four blocks' xoshiro256++
//! states, so each instruction advances four streams, picks four draws'
//! quadrants ([`quadrants4`](super::quadrants4)'s lane test and gather,
//! the gather's multiply written as the shifts and adds it stands for) and
//! scrambles four labels. Lane `l` computes, step for step, what
//! [`Kronecker::draw_unscrambled`] and
//! [`Scrambler::apply`](crate::Scrambler::apply) compute for block `l` of
//! the group, so the list is the same bit for bit whichever path made it
//! (`fill_blocks_is_the_block_by_block_fill` in the tests, at every SCALE
//! from 1 to 31).
//!
//! Why: the scalar loop is bound by its arithmetic, not by memory (seven
//! draws a tuple at SCALE 26, their quadrant picks, two scrambles: some
//! 250 operations by count of its code), and four lanes in one
//! instruction stream cost little more than one
//! (docs/history-kernels.md, `kronecker`).
//!
//! Limit: [`Edge`]s only, whose ids have at most 31 bits. The scrambler's
//! products are then needed modulo `2^scale <= 2^31` only, which one 32 by
//! 32-bit multiply (`vpmuludq`) gives exactly;
//! [`WideEdge`](crate::WideEdge)s take the scalar path.

use super::{GATHER_SHIFTS, Kronecker, LANE_LOW, LANE_TOP, LEVELS_PER_DRAW, T_A, T_AB, T_ABC};
use crate::{EDGES_PER_BLOCK, Edge};
use std::arch::x86_64::{
    __m128i, __m256i, _mm_cvtsi32_si128, _mm256_add_epi64, _mm256_and_si256, _mm256_mul_epu32,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_sll_epi64, _mm256_slli_epi64,
    _mm256_srl_epi64, _mm256_srli_epi64, _mm256_xor_si256,
};

/// Blocks filled side by side.
pub(super) const LANES: usize = 4;
const _: () = assert!(
    crate::MAX_SCALE <= 32,
    "a label and its products in 32 bits"
);

/// Whether this processor runs [`fill4`].
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// A `u64` constant in every lane. The bits are the constant's; the
/// intrinsic takes them as `i64`.
#[inline]
#[target_feature(enable = "avx2")]
#[allow(clippy::cast_possible_wrap)]
fn splat(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

/// A shift count for the `_sll`/`_srl` shifts, which take it in a register.
#[inline]
#[target_feature(enable = "avx2")]
#[allow(clippy::cast_possible_wrap)]
fn count(bits: u32) -> __m128i {
    _mm_cvtsi32_si128(bits as i32)
}

/// Four xoshiro256++ streams, word `k` of lane `l`'s state in lane `l` of
/// `s[k]`.
struct Streams {
    s: [__m256i; 4],
}

impl Streams {
    /// The next draw of each lane's stream: xoshiro256++'s output and step.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn next(&mut self) -> __m256i {
        let [s0, s1, s2, s3] = &mut self.s;
        let sum = _mm256_add_epi64(*s0, *s3);
        let out = _mm256_add_epi64(rotate_left::<23, 41>(sum), *s0);
        let t = _mm256_slli_epi64::<17>(*s1);
        *s2 = _mm256_xor_si256(*s2, *s0);
        *s3 = _mm256_xor_si256(*s3, *s1);
        *s1 = _mm256_xor_si256(*s1, *s2);
        *s0 = _mm256_xor_si256(*s0, *s3);
        *s2 = _mm256_xor_si256(*s2, t);
        *s3 = rotate_left::<45, 19>(*s3);
        out
    }
}

/// Each lane rotated left by `L` bits (`R = 64 - L`).
#[inline]
#[target_feature(enable = "avx2")]
fn rotate_left<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    const { assert!(L + R == 64) };
    _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
}

/// The thresholds' complements, per 16-bit lane, as `lanes_at_least` adds
/// them; and the lane masks.
struct Picker {
    low: __m256i,
    top: __m256i,
    past: [__m256i; 3],
    nibble: __m256i,
}

impl Picker {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new() -> Self {
        let complement = |t: u16| splat(((1u64 << 16) - u64::from(t)) * 0x0001_0001_0001_0001);
        Picker {
            low: splat(LANE_LOW),
            top: splat(LANE_TOP),
            past: [complement(T_A), complement(T_AB), complement(T_ABC)],
            nibble: splat(0xF),
        }
    }

    /// [`quadrants4`](super::quadrants4) of each lane: its row and column
    /// bits as two 4-bit numbers.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn quadrants4(&self, bits: __m256i) -> (__m256i, __m256i) {
        let (low, top) = (
            _mm256_and_si256(bits, self.low),
            _mm256_and_si256(bits, self.top),
        );
        let [past_a, past_b, past_c] = self
            .past
            .map(|c| _mm256_and_si256(top, _mm256_add_epi64(low, c)));
        let flips = _mm256_xor_si256(_mm256_xor_si256(past_a, past_b), past_c);
        let spread = _mm256_or_si256(
            _mm256_srli_epi64::<15>(past_b),
            _mm256_srli_epi64::<7>(flips),
        );
        // `spread * GATHER`: no two partial products overlap, so the sum of
        // the shifted copies is the product.
        let [a, b, c, d] = GATHER_SHIFTS.map(|s| _mm256_sll_epi64(spread, count(s)));
        let gathered = _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d));
        let gathered = _mm256_srli_epi64::<48>(gathered);
        (
            _mm256_and_si256(gathered, self.nibble),
            _mm256_and_si256(_mm256_srli_epi64::<8>(gathered), self.nibble),
        )
    }
}

/// [`Scrambler::apply`](crate::Scrambler::apply) of each lane, for labels
/// of at most 32 bits.
struct Scramble {
    rounds: [(__m256i, __m256i); 2],
    mask: __m256i,
    shift: __m128i,
}

impl Scramble {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(generator: &Kronecker) -> Self {
        let s = &generator.scrambler;
        Scramble {
            rounds: s.rounds.map(|(m, a)| (splat(m), splat(a))),
            mask: splat(s.mask),
            shift: count(s.shift),
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn apply(&self, mut x: __m256i) -> __m256i {
        for (multiplier, addend) in self.rounds {
            // `x < 2^32` and only the low `scale <= 32` bits are kept, so
            // the low words' product is the whole product's kept bits.
            x = _mm256_and_si256(
                _mm256_add_epi64(_mm256_mul_epu32(x, multiplier), addend),
                self.mask,
            );
            x = _mm256_xor_si256(x, _mm256_srl_epi64(x, self.shift));
        }
        x
    }
}

/// Fills `out`, [`LANES`] whole blocks from `first_block` on, one block a
/// lane. The caller checks [`available`].
#[target_feature(enable = "avx2")]
pub(super) fn fill4(generator: &Kronecker, first_block: usize, out: &mut [Edge]) {
    assert!(generator.scale <= crate::MAX_SCALE && out.len() == LANES * EDGES_PER_BLOCK);
    let states: [[u64; 4]; LANES] =
        std::array::from_fn(|l| generator.blocks.state(first_block + l));
    let mut streams = Streams {
        s: std::array::from_fn(|k| bytemuck::cast(states.map(|state| state[k]))),
    };
    let (picker, scramble) = (Picker::new(), Scramble::new(generator));
    let (full, rest) = (
        generator.scale / LEVELS_PER_DRAW,
        generator.scale % LEVELS_PER_DRAW,
    );
    let (rest_shift, unused) = (count(rest), count(LEVELS_PER_DRAW - rest));
    let (b0, tail) = out.split_at_mut(EDGES_PER_BLOCK);
    let (b1, tail) = tail.split_at_mut(EDGES_PER_BLOCK);
    let (b2, b3) = tail.split_at_mut(EDGES_PER_BLOCK);
    for (((e0, e1), e2), e3) in b0.iter_mut().zip(b1).zip(b2).zip(b3) {
        let (mut u, mut v) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for _ in 0..full {
            let (row, column) = picker.quadrants4(streams.next());
            u = _mm256_or_si256(_mm256_slli_epi64::<4>(u), row);
            v = _mm256_or_si256(_mm256_slli_epi64::<4>(v), column);
        }
        if rest > 0 {
            let (row, column) = picker.quadrants4(streams.next());
            u = _mm256_or_si256(
                _mm256_sll_epi64(u, rest_shift),
                _mm256_srl_epi64(row, unused),
            );
            v = _mm256_or_si256(
                _mm256_sll_epi64(v, rest_shift),
                _mm256_srl_epi64(column, unused),
            );
        }
        let (u, v): ([u64; LANES], [u64; LANES]) = (
            bytemuck::cast(scramble.apply(u)),
            bytemuck::cast(scramble.apply(v)),
        );
        // Both ends are below 2^scale <= 2^32.
        #[allow(clippy::cast_possible_truncation)]
        let edge = |l: usize| Edge::new(u[l] as u32, v[l] as u32);
        (*e0, *e1, *e2, *e3) = (edge(0), edge(1), edge(2), edge(3));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeedStreams;

    /// `Picker::quadrants4` of four words, as plain numbers.
    #[target_feature(enable = "avx2")]
    fn picked(words: [u64; LANES]) -> ([u64; LANES], [u64; LANES]) {
        let (rows, columns) = Picker::new().quadrants4(bytemuck::cast(words));
        (bytemuck::cast(rows), bytemuck::cast(columns))
    }

    #[test]
    fn lanes_pick_the_scalar_quadrants_of_every_16_bit_value() {
        assert!(
            available(),
            "this test checks the AVX2 lanes: the processor has none"
        );
        let mut stream = SeedStreams::new(9).scramble();
        for r in 0..=u16::MAX {
            let words: [u64; LANES] = std::array::from_fn(|l| {
                let others = stream.next_u64();
                (others & !(0xFFFF << (16 * l))) | (u64::from(r) << (16 * l))
            });
            // SAFETY: the processor runs AVX2, asserted above.
            #[allow(unsafe_code)]
            let (rows, columns) = unsafe { picked(words) };
            for l in 0..LANES {
                assert_eq!(
                    (rows[l], columns[l]),
                    super::super::quadrants4(words[l]),
                    "{:#x}",
                    words[l]
                );
            }
        }
    }
}
