//! The edge pass over block-ordered words, sixteen tuples per step
//! (AVX-512), for the narrow cells (`Packed32`, `Packed16`: level in the
//! high byte, a print of the parent below).
//!
//! The same verdict as the scalar loop of `edges.rs`, computed for sixteen
//! tuples at once: one load of sixteen words, their 32 cells read one by
//! one from the two cache-resident blocks into two vectors, then
//! lane-wise: the level test of check 4 (accumulated into one mask), nedge
//! (a population count), and the tree-edge candidates (two masks), whose
//! (child, parent) pairs are compressed into a small batch
//! ([`Candidates`]) and settled 512 at a time against the parent array.
//! It only says *whether* check 4 failed: the caller re-runs a failing
//! item through the scalar loop, which names the first bad tuple, so both
//! paths report the same error.
//!
//! Cost per sixteen tuples: one vector load of their words, 32 plain loads
//! of cells (rather than two 16-lane gathers: a gather of lanes that miss
//! L1 costs more than its loads one by one), a few lane-wise operations,
//! and a compress-store of the candidates, each then settled with one read
//! of the parent array where prints are not whole parents (rather than a
//! branch per candidate lane). The timings behind both choices are in
//! `docs/history-validate.md`.
//!
//! Why `unsafe`: the vector loads and stores go through raw pointers, and
//! the function must be compiled for AVX-512 and called only where the
//! processor has it ([`available`] checks at run time).
#![allow(unsafe_code)] // each block below states why it is sound

use crate::ParentArray;
use crate::cells::Narrow;
use crate::confirm::settle;
use crate::order::{BLOCK, Item};
use std::arch::x86_64::{
    __m512i, __mmask16, _mm512_add_epi32, _mm512_and_si512, _mm512_cmpeq_epi32_mask,
    _mm512_cmpgt_epu32_mask, _mm512_cmpneq_epi32_mask, _mm512_loadu_si512,
    _mm512_maskz_compress_epi32, _mm512_or_si512, _mm512_set1_epi32, _mm512_srli_epi32,
    _mm512_storeu_si512, _mm512_sub_epi32,
};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Tuples per step: one 512-bit vector of `u32` words.
pub(crate) const LANES: usize = 16;

/// True when this processor runs [`check_words`].
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("popcnt")
}

/// nedge of `item`'s `words` (a multiple of [`LANES`] of them) and whether
/// any failed check 4; marks confirmed tree edges in `seen`. Panics if
/// [`available`] is false.
pub(crate) fn check_words<C: Narrow, P: ParentArray + ?Sized>(
    item: &Item,
    words: &[u32],
    cells: &[C],
    parents: &P,
    seen: &[AtomicBool],
) -> (u64, bool) {
    assert!(available(), "AVX-512 is required here");
    assert_eq!(words.len() % LANES, 0);
    assert!(item.low_base.max(item.high_base) + BLOCK <= cells.len());
    // SAFETY: the processor has AVX-512F (asserted above), and the bounds
    // that the function's reads rely on were asserted too. The shift is an
    // immediate operand, so it must be a constant here.
    unsafe {
        match C::LEVEL_SHIFT {
            24 => check_words_avx512::<C, P, 24>(item, words, cells, parents, seen),
            8 => check_words_avx512::<C, P, 8>(item, words, cells, parents, seen),
            shift => unreachable!("no wide loop for levels from bit {shift}"),
        }
    }
}

/// [`check_words`] once its preconditions hold; `SHIFT` is
/// `C::LEVEL_SHIFT`.
///
/// # Safety
/// The processor has AVX-512F; `words.len()` is a multiple of [`LANES`];
/// `cells` holds at least `max(low_base, high_base) + BLOCK` cells.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn check_words_avx512<C: Narrow, P: ParentArray + ?Sized, const SHIFT: u32>(
    item: &Item,
    words: &[u32],
    cells: &[C],
    parents: &P,
    seen: &[AtomicBool],
) -> (u64, bool) {
    let confirm = C::needs_confirmation(parents.entries());
    // Fixed-size views, so that an index below 2^16 needs no bounds check.
    let block = |base: usize| -> &[C; BLOCK] {
        cells[base..base + BLOCK].try_into().expect("a whole block")
    };
    let (low, high) = (block(item.low_base), block(item.high_base));
    // A vertex's print is its id's low bits: its block's base's, above the
    // 16 bits of its index in the block, if the print has any there.
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // prints below 2^24
    let print_of = |base: usize| _mm512_set1_epi32((base as u32 & C::PRINT) as i32);
    let (low_print, high_print) = (print_of(item.low_base), print_of(item.high_base));
    let low_half = _mm512_set1_epi32(0xffff);
    let print = _mm512_set1_epi32(C::PRINT.cast_signed());
    let unreached = _mm512_set1_epi32(0xff);
    let one = _mm512_set1_epi32(1);
    let two = _mm512_set1_epi32(2);
    let mut bad = 0u16;
    let mut nedge = 0u64;
    // The prints of ends with these indices in a block whose print bits
    // above the index are `base_print`; a print narrower than the index
    // (`Packed16`) also drops the index's high bits.
    let print_of_ends = |index: __m512i, base_print: __m512i| {
        let ends = _mm512_or_si512(index, base_print);
        if C::PRINT < 0xffff {
            _mm512_and_si512(ends, print)
        } else {
            ends
        }
    };
    let (mut lows, mut highs) = ([0u32; LANES], [0u32; LANES]);
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // ids below 2^32
    let (low_base, high_base) = (
        _mm512_set1_epi32(item.low_base as i32),
        _mm512_set1_epi32(item.high_base as i32),
    );
    let (mut candidates, mut kept) = (Candidates::new(), 0);
    for group in words.chunks_exact(LANES) {
        // The cells, read one by one: 32 plain loads beat two 16-lane
        // gathers (docs/history-validate.md).
        for ((&word, low_cell), high_cell) in group.iter().zip(&mut lows).zip(&mut highs) {
            *low_cell = low[(word & 0xffff) as usize].bits();
            *high_cell = high[(word >> 16) as usize].bits();
        }
        // SAFETY: `group`, `lows` and `highs` each hold LANES u32s, 64
        // bytes; the loads are unaligned.
        let (w, cell_low, cell_high) = unsafe {
            (
                _mm512_loadu_si512(group.as_ptr().cast::<__m512i>()),
                _mm512_loadu_si512(lows.as_ptr().cast::<__m512i>()),
                _mm512_loadu_si512(highs.as_ptr().cast::<__m512i>()),
            )
        };
        let index_low = _mm512_and_si512(w, low_half);
        let index_high = _mm512_srli_epi32::<16>(w);
        let (base_low, base_high) = (
            _mm512_add_epi32(index_low, low_base),
            _mm512_add_epi32(index_high, high_base),
        );
        let level_low = _mm512_srli_epi32::<SHIFT>(cell_low);
        let level_high = _mm512_srli_epi32::<SHIFT>(cell_high);
        // |a - b| > 1 as one unsigned test: a - b + 1 > 2.
        let gap = _mm512_add_epi32(_mm512_sub_epi32(level_low, level_high), one);
        bad |= _mm512_cmpgt_epu32_mask(gap, two);
        nedge += u64::from(_mm512_cmpneq_epi32_mask(level_low, unreached).count_ones());
        // A child is one level below and holds the other end's print.
        let high_child = _mm512_cmpeq_epi32_mask(level_high, _mm512_add_epi32(level_low, one))
            & _mm512_cmpeq_epi32_mask(
                _mm512_and_si512(cell_high, print),
                print_of_ends(index_low, low_print),
            );
        let low_child = _mm512_cmpeq_epi32_mask(level_low, _mm512_add_epi32(level_high, one))
            & _mm512_cmpeq_epi32_mask(
                _mm512_and_si512(cell_low, print),
                print_of_ends(index_high, high_print),
            );
        // The candidates' (child, parent) pairs, kept for a batch: one
        // branch per candidate here would be mispredicted more often than not.
        kept = candidates.push(kept, high_child, base_high, base_low);
        kept = candidates.push(kept, low_child, base_low, base_high);
        if kept > Candidates::BATCH {
            candidates.settle(kept, confirm, parents, seen);
            kept = 0;
        }
    }
    candidates.settle(kept, confirm, parents, seen);
    (nedge, bad != 0)
}

/// Tree-edge candidates of the vector loop, settled in batches. Their
/// count is the caller's local, passed in and out, so that it stays in a
/// register: kept in the struct, it was stored and reloaded around every
/// push, a chain through memory from one push to the next.
struct Candidates {
    children: [u32; Self::CAPACITY],
    parents: [u32; Self::CAPACITY],
}

impl Candidates {
    /// Candidates kept before they are settled.
    const BATCH: usize = 512;
    /// Room for one more step's two pushes of up to LANES each.
    const CAPACITY: usize = Self::BATCH + 2 * LANES;

    fn new() -> Self {
        Candidates {
            children: [0; Self::CAPACITY],
            parents: [0; Self::CAPACITY],
        }
    }

    /// Appends the lanes of `mask` after the first `len` candidates:
    /// children from `child`, parents from `parent` (absolute vertex ids).
    /// Returns the new count. Needs `len <= BATCH + LANES`.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn push(&mut self, len: usize, mask: __mmask16, child: __m512i, parent: __m512i) -> usize {
        assert!(len + LANES <= Self::CAPACITY);
        // SAFETY: LANES u32s from `len` on lie inside both arrays (asserted
        // above); the stores are unaligned.
        unsafe {
            let at = |a: &mut [u32; Self::CAPACITY]| a.as_mut_ptr().add(len).cast::<__m512i>();
            _mm512_storeu_si512(
                at(&mut self.children),
                _mm512_maskz_compress_epi32(mask, child),
            );
            _mm512_storeu_si512(
                at(&mut self.parents),
                _mm512_maskz_compress_epi32(mask, parent),
            );
        }
        len + mask.count_ones() as usize
    }

    /// Marks each of the first `len` children whose parent is confirmed
    /// (all of them when prints are whole parents); the batch is then
    /// empty.
    fn settle<P: ParentArray + ?Sized>(
        &self,
        len: usize,
        confirm: bool,
        parents: &P,
        seen: &[AtomicBool],
    ) {
        let pairs = self.children[..len].iter().zip(&self.parents[..len]);
        if confirm {
            pairs.for_each(|(&child, &parent)| settle(child, parent, parents, seen));
        } else {
            pairs.for_each(|(&child, _)| seen[child as usize].store(true, Relaxed));
        }
    }
}
