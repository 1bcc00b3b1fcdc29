//! `Bitmap`: one bit per vertex, shared by workers.
//!
//! Words are `AtomicU64`. Readers use relaxed loads. Writers either set
//! single bits with `fetch_or` ([`Bitmap::set_atomic`]), or, when a worker
//! owns whole words (its vertex range starts and ends on a multiple of 64),
//! build a word privately and store it ([`Bitmap::store_word`]), which costs
//! no read-modify-write at all; a writer holding the bitmap alone (`&mut`)
//! sets bits with plain read-modify-writes ([`Bitmap::set`]). A
//! [`BitmapView`] reads the words through a `Copy` slice.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A fixed-size bitmap.
#[derive(Debug)]
pub struct Bitmap {
    words: Vec<AtomicU64>,
}

impl Bitmap {
    /// Bits per word.
    pub const WORD_BITS: usize = 64;

    /// `bits` bits, all clear. Allocates `bits / 8` bytes, rounded up to words.
    pub fn new(bits: usize) -> Self {
        Bitmap {
            words: par::huge::filled(bits.div_ceil(Self::WORD_BITS), |_| AtomicU64::new(0)),
        }
    }

    /// The number of words.
    pub fn num_words(&self) -> usize {
        self.words.len()
    }

    /// Clears every bit. O(N / 64), parallel.
    pub fn clear(&self) {
        self.words
            .par_iter()
            .with_min_len(1 << 12)
            .for_each(|w| w.store(0, Relaxed));
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.view().get(i)
    }

    /// The words, borrowed as a `Copy` value ([`BitmapView`]).
    #[inline]
    pub fn view(&self) -> BitmapView<'_> {
        BitmapView { words: &self.words }
    }

    /// Starts loading the word of bit `i` ([`par::hint::prefetch`]), for
    /// loops that set or test bits at random a few iterations ahead.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        par::hint::prefetch(&self.words[i / Self::WORD_BITS]);
    }

    /// Sets bit `i` of a bitmap no other thread can reach (`&mut`): a
    /// plain read-modify-write, no locked instruction.
    #[inline]
    pub fn set(&mut self, i: usize) {
        *self.words[i / Self::WORD_BITS].get_mut() |= 1 << (i % Self::WORD_BITS);
    }

    /// Sets bit `i`; safe against concurrent setters of the same word.
    #[inline]
    pub fn set_atomic(&self, i: usize) {
        self.words[i / Self::WORD_BITS].fetch_or(1 << (i % Self::WORD_BITS), Relaxed);
    }

    /// Sets bit `i` and says whether it was set before; one locked
    /// `fetch_or`, so of concurrent callers for one bit exactly one gets
    /// `false`.
    #[inline]
    pub fn test_and_set(&self, i: usize) -> bool {
        let bit = 1 << (i % Self::WORD_BITS);
        self.words[i / Self::WORD_BITS].fetch_or(bit, Relaxed) & bit != 0
    }

    /// Clears bit `i`; safe against concurrent writers of the same word.
    #[inline]
    pub fn clear_atomic(&self, i: usize) {
        self.words[i / Self::WORD_BITS].fetch_and(!(1 << (i % Self::WORD_BITS)), Relaxed);
    }

    /// Word `w`.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Relaxed)
    }

    /// Replaces word `w`; only for a worker that owns the word.
    #[inline]
    pub fn store_word(&self, w: usize, bits: u64) {
        self.words[w].store(bits, Relaxed);
    }

    /// Makes this bitmap a copy of `other` (same size). O(N / 64), parallel.
    pub fn copy_from(&self, other: &Bitmap) {
        assert_eq!(self.words.len(), other.words.len(), "bitmaps of one size");
        self.words
            .par_iter()
            .zip(other.words.par_iter())
            .with_min_len(1 << 12)
            .for_each(|(w, o)| w.store(o.load(Relaxed), Relaxed));
    }

    /// Exchanges the contents of two bitmaps of the same size. O(1).
    pub fn swap(&mut self, other: &mut Bitmap) {
        std::mem::swap(&mut self.words, &mut other.words);
    }
}

/// A [`Bitmap`]'s words, borrowed: a `Copy` slice that a loop keeps in
/// registers, where a `&Bitmap` reached through another reference is
/// reloaded at every iteration that also stores (the ranks' offer loop:
/// docs/history-kernels.md, dist-sssp).
#[derive(Clone, Copy, Debug)]
pub struct BitmapView<'a> {
    words: &'a [AtomicU64],
}

impl BitmapView<'_> {
    /// Bit `i`.
    #[inline]
    pub fn get(self, i: usize) -> bool {
        self.words[i / Bitmap::WORD_BITS].load(Relaxed) & (1 << (i % Bitmap::WORD_BITS)) != 0
    }

    /// The 64 bits from bit `i` on, bit `i` lowest, zeros past the end: a
    /// word's worth of bits at any offset, from one or two words. O(1).
    #[inline]
    pub fn bits_from(self, i: usize) -> u64 {
        let word = |w: usize| self.words.get(w).map_or(0, |x| x.load(Relaxed));
        let (w, shift) = (i / Bitmap::WORD_BITS, i % Bitmap::WORD_BITS);
        if shift == 0 {
            word(w)
        } else {
            word(w) >> shift | word(w + 1) << (Bitmap::WORD_BITS - shift)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_set_get_clear_and_swap() {
        let mut a = Bitmap::new(130);
        let mut b = Bitmap::new(130);
        assert_eq!(a.num_words(), 3);
        a.set_atomic(0);
        a.set_atomic(64);
        a.set_atomic(129);
        assert!(a.get(0) && a.get(64) && a.get(129) && !a.get(1) && !a.get(128));
        b.store_word(1, 0b101);
        assert!(b.get(64) && b.get(66) && !b.get(65));
        a.swap(&mut b);
        assert!(a.get(66) && !a.get(0) && b.get(129));
        assert!(!b.test_and_set(65) && b.test_and_set(65) && b.get(65));
        b.clear_atomic(64);
        assert!(!b.get(64) && b.get(65) && b.get(129));
        b.clear();
        assert!((0..130).all(|i| !b.get(i)));
        assert_eq!(a.word(1), 0b101);
    }

    #[test]
    fn bits_from_any_offset_read_across_words_and_zeros_past_the_end() {
        let map = Bitmap::new(130);
        for i in [0, 3, 63, 64, 70, 127, 129] {
            map.set_atomic(i);
        }
        let view = map.view();
        for from in 0..140 {
            let expected = (0..64)
                .filter(|k| from + k < 130 && map.get(from + k))
                .fold(0u64, |bits, k| bits | 1 << k);
            assert_eq!(view.bits_from(from), expected, "from bit {from}");
        }
    }
}
