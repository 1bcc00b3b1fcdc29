//! `Mrg`: L'Ecuyer's fifth-order multiple recursive generator, the random
//! source of the Graph500 reference generator, with exact skip-ahead.
//!
//! The recurrence is `x[n] = (107374182 x[n-1] + 104480 x[n-5]) mod p` with
//! `p = 2^31 - 1` (GSL's `mrg`). The state holds the last five values,
//! newest first; a draw steps once and returns the new value, in `0..p`.
//!
//! One step is the linear map [`Transition::STEP`] on the state, so skipping
//! `n` steps is multiplying the state by `STEP^n`, computed by repeated
//! squaring ([`Transition::pow`]); every operation is exact modulo `p`, so
//! any way of forming the power gives the state `n` single steps would.
//! Reduction modulo the Mersenne prime `p` folds the high bits onto the low
//! ones (`2^31 = 1 mod p`) instead of dividing.
//!
//! Cost: a draw is two multiplications and a fold; a skip is one 5x5 matrix
//! product per bit of the exponent (precompute the matrix to skip often).

/// The modulus, `2^31 - 1`.
const P: u64 = (1 << 31) - 1;
/// The multiplier of the newest value.
const X: u64 = 107_374_182;
/// The multiplier of the value five steps back.
const Y: u64 = 104_480;
/// `0.000000000465661287524579692`, the reference's weight of a double's
/// first draw, as the C compiler rounds it.
const DOUBLE_HIGH: u64 = 0x3E00_0000_0020_0000;
/// `0.0000000000000000002168404346990492787`, the second draw's weight.
const DOUBLE_LOW: u64 = 0x3C10_0000_0040_0000;

/// `x mod p` for any `x`: two folds bring it below `2p`, one subtraction
/// below `p`.
#[inline]
fn mod_p(x: u64) -> u64 {
    let x = (x & P) + (x >> 31);
    let x = (x & P) + (x >> 31);
    if x >= P { x - P } else { x }
}

/// `a * b` folded once, below `2^32` for `a, b < p`: summing five of these
/// cannot overflow before the final [`mod_p`].
#[inline]
fn mul_fold(a: u64, b: u64) -> u64 {
    let x = a * b;
    (x & P) + (x >> 31)
}

/// The generator's state: the last five values, newest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mrg {
    z: [u64; 5],
}

impl Mrg {
    /// The state the reference derives from two user seeds (its
    /// `make_mrg_seed`): 30-bit pieces of each, plus one, so none is zero.
    pub fn from_user_seeds(seed1: u64, seed2: u64) -> Self {
        let piece = |s: u64, shift: u32| ((s >> shift) & 0x3FFF_FFFF) + 1;
        Mrg {
            z: [
                piece(seed1, 0),
                piece(seed1, 30),
                piece(seed2, 0),
                piece(seed2, 30),
                ((seed2 >> 60) << 4) + (seed1 >> 60) + 1,
            ],
        }
    }

    /// The five values, newest first.
    pub fn state(&self) -> [u64; 5] {
        self.z
    }

    /// Steps once and returns the new value, in `0..2^31 - 1`.
    #[inline]
    pub fn next_u31(&mut self) -> u64 {
        let new = mod_p(X * self.z[0] + Y * self.z[4]);
        self.z = [new, self.z[0], self.z[1], self.z[2], self.z[3]];
        new
    }

    /// A double in `[0, 1)` from two draws, bit for bit as the reference's
    /// `mrg_get_double_orig` compiled by GCC (first draw the high part).
    #[inline]
    pub fn next_double(&mut self) -> f64 {
        // Draws are below 2^31: exact as doubles.
        #[allow(clippy::cast_precision_loss)]
        let (high, low) = (self.next_u31() as f64, self.next_u31() as f64);
        high * f64::from_bits(DOUBLE_HIGH) + low * f64::from_bits(DOUBLE_LOW)
    }

    /// A weight from one draw, bit for bit as the reference's
    /// `mrg_get_float_orig`: the draw rounded to `f32`, times
    /// `1 / (2^31 - 1)` in `f64`, rounded to `f32`. In `[0, 1]`: the 63
    /// largest draws give exactly 1.0.
    #[inline]
    pub fn next_float(&mut self) -> f32 {
        float_of_draw(self.next_u31())
    }

    /// This state skipped ahead by `t`'s number of steps.
    #[must_use]
    #[inline] // the reference generator skips per edge (docs/history-kernels.md#mrg)
    pub fn skipped(&self, t: &Transition) -> Self {
        let mut z = [0; 5];
        for (out, row) in z.iter_mut().zip(&t.m) {
            *out = mod_p(row.iter().zip(&self.z).map(|(&a, &b)| mul_fold(a, b)).sum());
        }
        Mrg { z }
    }
}

/// The reference's float of a draw `u` (its `mrg_get_float_orig`:
/// `(float)u * .000000000465661287524579692` in C): `u` rounded to an
/// `f32` first (to 24 bits, nearest even), then multiplied in `f64` by
/// the constant `1 / (2^31 - 1)`, then rounded to `f32`. In `[0, 1]`, not
/// `[0, 1)`: the 63 draws from `2^31 - 64` up round to `2^31` and give
/// exactly 1.0 (about 3e-8 of all draws).
#[inline]
pub(crate) fn float_of_draw(u: u64) -> f32 {
    // The two roundings are the reference's, on purpose.
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let w = (f64::from(u as f32) * f64::from_bits(DOUBLE_HIGH)) as f32;
    w
}

/// `STEP^n` for some `n`: skips `n` steps when applied to a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    m: [[u64; 5]; 5],
}

impl Transition {
    /// One step: the new value in row 0, the others shifted down.
    pub const STEP: Transition = Transition {
        m: [
            [X, 0, 0, 0, Y],
            [1, 0, 0, 0, 0],
            [0, 1, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 0, 1, 0],
        ],
    };

    /// No step.
    pub const IDENTITY: Transition = Transition {
        m: [
            [1, 0, 0, 0, 0],
            [0, 1, 0, 0, 0],
            [0, 0, 1, 0, 0],
            [0, 0, 0, 1, 0],
            [0, 0, 0, 0, 1],
        ],
    };

    /// `self` then `other`, i.e. the sum of their step counts.
    #[must_use]
    pub fn then(&self, other: &Transition) -> Transition {
        let mut m = [[0; 5]; 5];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell = mod_p((0..5).map(|k| mul_fold(other.m[i][k], self.m[k][j])).sum());
            }
        }
        Transition { m }
    }

    /// `self` applied `n` times. O(log n) matrix products.
    #[must_use]
    pub fn pow(&self, mut n: u64) -> Transition {
        let (mut result, mut square) = (Transition::IDENTITY, self.clone());
        while n > 0 {
            if n & 1 == 1 {
                result = result.then(&square);
            }
            square = square.then(&square);
            n >>= 1;
        }
        result
    }

    /// `self` applied `2^k` times: `k` squarings.
    #[must_use]
    pub fn pow2(&self, k: u32) -> Transition {
        (0..k).fold(self.clone(), |t, _| t.then(&t))
    }

    /// The skip of `hi * 2^128 + mid * 2^64 + lo` steps, the reference's
    /// `mrg_skip(hi, mid, lo)`.
    pub fn skip(hi: u64, mid: u64, lo: u64) -> Transition {
        let two64 = Transition::STEP.pow2(64);
        let two128 = two64.pow2(64);
        two128
            .pow(hi)
            .then(&two64.pow(mid))
            .then(&Transition::STEP.pow(lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> Mrg {
        Mrg::from_user_seeds(2, 3)
    }

    #[test]
    fn reference_user_seeds_give_the_documented_state() {
        assert_eq!(reference().state(), [3, 1, 4, 1, 1]);
    }

    #[test]
    fn a_draw_is_one_step_of_the_recurrence() {
        let mut m = reference();
        assert_eq!(m.next_u31(), 107_374_182 * 3 + 104_480);
        assert_eq!(m.state(), [322_227_026, 3, 1, 4, 1]);
    }

    #[test]
    fn mod_p_is_exact_at_the_edges() {
        for x in [
            0,
            1,
            P - 1,
            P,
            P + 1,
            2 * P,
            P * P,
            u64::MAX,
            (P - 1) * (P - 1),
        ] {
            assert_eq!(mod_p(x), x % P, "{x}");
        }
    }

    #[test]
    fn skipping_equals_stepping() {
        for n in [0, 1, 5, 6, 100, 1_000, 123_457] {
            let mut stepped = reference();
            for _ in 0..n {
                stepped.next_u31();
            }
            assert_eq!(reference().skipped(&Transition::STEP.pow(n)), stepped);
        }
    }

    #[test]
    fn skips_compose_by_adding_steps() {
        let a = Transition::STEP.pow(1 << 40);
        let b = Transition::STEP.pow(12_345);
        assert_eq!(a.then(&b), Transition::STEP.pow((1 << 40) + 12_345));
        assert_eq!(a.then(&b), b.then(&a));
        assert_eq!(Transition::STEP.pow2(10), Transition::STEP.pow(1024));
    }

    #[test]
    fn floats_round_the_draw_first_as_the_reference_does() {
        // The C literal, digit for digit, as a double is the constant the
        // doubles use.
        #[allow(clippy::excessive_precision)]
        let literal = 4.656_612_875_245_796_92e-10_f64;
        assert_eq!(literal.to_bits(), DOUBLE_HIGH);
        assert_eq!(float_of_draw(0), 0.0);
        // 2^24 + 1 rounds to 2^24 as a float before the product.
        assert_eq!(
            float_of_draw((1 << 24) + 1),
            (16_777_216.0 * f64::from_bits(DOUBLE_HIGH)) as f32
        );
        // The top draws round to 2^31: exactly 1.0; the one below does not.
        assert_eq!(float_of_draw(P - 1), 1.0);
        assert_eq!(float_of_draw(P - 63), 1.0);
        assert!(float_of_draw(P - 65) < 1.0);
        let mut m = reference();
        let (mut a, mut b) = (m, m);
        assert_eq!(a.next_float(), float_of_draw(b.next_u31()));
        assert_eq!(a, b);
        assert!((0..10_000).all(|_| (0.0..=1.0).contains(&m.next_float())));
    }

    #[test]
    fn doubles_lie_in_the_unit_interval() {
        let mut m = reference();
        for _ in 0..10_000 {
            let d = m.next_double();
            assert!((0.0..1.0).contains(&d), "{d}");
        }
    }
}
