//! The edge pass over block-ordered words, sixteen tuples per step
//! (AVX-512), for 4-byte packed cells.
//!
//! The same verdict as the scalar loop of `edges.rs`, computed for sixteen
//! tuples at once: one load of sixteen words, two gathers of their cells
//! from the two cache-resident blocks, then lane-wise: the level test of
//! check 4 (accumulated into one mask), nedge (a population count), and
//! the tree-edge candidates (two masks, rarely non-zero in more than a few
//! lanes), whose lanes are then confirmed one by one against the parent
//! array. It only says *whether* check 4 failed: the caller re-runs a
//! failing item through the scalar loop, which names the first bad tuple,
//! so both paths report the same error.
//!
//! Why `unsafe`: the gathers and the vector load read memory through raw
//! pointers, and the function must be compiled for AVX-512 and called only
//! where the processor has it ([`available`] checks at run time). Measured
//! at SCALE 20 on 2 threads (AMD EPYC, README "Validation takes"), the
//! scalar loop takes about twice as long (62 against 30-34 ms of CPU per
//! validation).
#![allow(unsafe_code)] // each block below states why it is sound

use crate::cells::{Cell, Packed32};
use crate::edges::settle;
use crate::order::{BLOCK, Item, TupleBlocks};
use std::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_and_si512, _mm512_cmpeq_epi32_mask, _mm512_cmpgt_epu32_mask,
    _mm512_cmpneq_epi32_mask, _mm512_i32gather_epi32, _mm512_loadu_si512, _mm512_or_si512,
    _mm512_set1_epi32, _mm512_srli_epi32, _mm512_sub_epi32,
};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Tuples per step: one 512-bit vector of `u32` words.
pub(crate) const LANES: usize = crate::edges::WIDE_LANES;

/// True when this processor runs [`check_words`].
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

/// nedge of `item`'s `words` (a multiple of [`LANES`] of them) and whether
/// any failed check 4; marks confirmed tree edges in `seen`. Panics if
/// [`available`] is false.
pub(crate) fn check_words(
    item: &Item,
    words: &[u32],
    cells: &[Packed32],
    parents: &[i64],
    seen: &[AtomicBool],
) -> (u64, bool) {
    assert!(available(), "AVX-512 is required here");
    assert_eq!(words.len() % LANES, 0);
    assert!(item.low_base.max(item.high_base) + BLOCK <= cells.len());
    // SAFETY: the processor has AVX-512F (asserted above), and the bounds
    // that the function's reads rely on were asserted too.
    unsafe { check_words_avx512(item, words, cells, parents, seen) }
}

/// [`check_words`] once its preconditions hold.
///
/// # Safety
/// The processor has AVX-512F; `words.len()` is a multiple of [`LANES`];
/// `cells` holds at least `max(low_base, high_base) + BLOCK` cells.
#[target_feature(enable = "avx512f")]
unsafe fn check_words_avx512(
    item: &Item,
    words: &[u32],
    cells: &[Packed32],
    parents: &[i64],
    seen: &[AtomicBool],
) -> (u64, bool) {
    let confirm = Packed32::needs_confirmation(parents.len());
    let low = cells[item.low_base..].as_ptr().cast::<i32>();
    let high = cells[item.high_base..].as_ptr().cast::<i32>();
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // 24-bit prints
    let print_of = |base: usize| _mm512_set1_epi32((base as u32 & Packed32::PRINT) as i32);
    let (low_print, high_print) = (print_of(item.low_base), print_of(item.high_base));
    let low_half = _mm512_set1_epi32(0xffff);
    let print = _mm512_set1_epi32(Packed32::PRINT.cast_signed());
    let unreached = _mm512_set1_epi32(0xff);
    let one = _mm512_set1_epi32(1);
    let two = _mm512_set1_epi32(2);
    let mut bad = 0u16;
    let mut nedge = 0u64;
    for group in words.chunks_exact(LANES) {
        // SAFETY: `group` holds LANES u32s, 64 bytes; the load is unaligned.
        let w = unsafe { _mm512_loadu_si512(group.as_ptr().cast::<__m512i>()) };
        let index_low = _mm512_and_si512(w, low_half);
        let index_high = _mm512_srli_epi32::<16>(w);
        // SAFETY: an index is below BLOCK, and each block's BLOCK cells lie
        // inside `cells` (checked by the caller); `Packed32` is a
        // `repr(transparent)` u32.
        let (cell_low, cell_high) = unsafe {
            (
                _mm512_i32gather_epi32::<4>(index_low, low),
                _mm512_i32gather_epi32::<4>(index_high, high),
            )
        };
        let level_low = _mm512_srli_epi32::<24>(cell_low);
        let level_high = _mm512_srli_epi32::<24>(cell_high);
        // |a - b| > 1 as one unsigned test: a - b + 1 > 2.
        let gap = _mm512_add_epi32(_mm512_sub_epi32(level_low, level_high), one);
        bad |= _mm512_cmpgt_epu32_mask(gap, two);
        nedge += u64::from(_mm512_cmpneq_epi32_mask(level_low, unreached).count_ones());
        // A child is one level below and holds the other end's print.
        let high_child = _mm512_cmpeq_epi32_mask(level_high, _mm512_add_epi32(level_low, one))
            & _mm512_cmpeq_epi32_mask(
                _mm512_and_si512(cell_high, print),
                _mm512_or_si512(index_low, low_print),
            );
        let low_child = _mm512_cmpeq_epi32_mask(level_low, _mm512_add_epi32(level_high, one))
            & _mm512_cmpeq_epi32_mask(
                _mm512_and_si512(cell_low, print),
                _mm512_or_si512(index_high, high_print),
            );
        for (mask, child_is_high) in [(high_child, true), (low_child, false)] {
            let mut m = mask;
            while m != 0 {
                let lane = m.trailing_zeros() as usize;
                m &= m - 1;
                let (a, b) = TupleBlocks::ends(item, group[lane]);
                let (child, parent) = if child_is_high { (b, a) } else { (a, b) };
                if confirm {
                    settle(child, parent, parents, seen);
                } else {
                    seen[child as usize].store(true, Relaxed);
                }
            }
        }
    }
    (nedge, bad != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::TupleBlocks;
    use generator::Edge;

    /// A fixed pseudo-random sequence.
    fn sequence(seed: u64) -> impl FnMut() -> u32 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        }
    }

    /// Guards the wide loop against the scalar one: on tuples spanning
    /// several blocks (the last one partial), with random levels and
    /// parents chosen so that many tuples are tree edges, both give the
    /// same verdict on check 4, the same marks and, when check 4 holds,
    /// the same nedge (a failing item is re-run by the scalar loop, whose
    /// nedge then does not count).
    #[test]
    fn the_wide_loop_agrees_with_the_scalar_loop() {
        if !available() {
            return; // this processor runs the scalar loop only
        }
        let n = 3 * BLOCK + 1234;
        let mut next = sequence(7);
        for gap in [false, true] {
            // Levels 3 and 4 only (no check-4 failure), or also 6.
            let levels: Vec<u32> = (0..n)
                .map(|_| match next() % 8 {
                    0 if gap => 6,
                    0..4 => 3,
                    _ => 4,
                })
                .collect();
            let tuples: Vec<Edge> = (0..400_000)
                .map(|_| Edge::new(next() % n as u32, next() % n as u32))
                .collect();
            // A vertex's parent: the far end of one of its tuples.
            let mut parent: Vec<u32> = (0..n as u32).collect();
            for e in &tuples {
                parent[e.v as usize] = e.u;
            }
            let blocks = TupleBlocks::from_tuples(n, tuples);
            let mut cells = vec![Packed32::unreached(); n.next_multiple_of(BLOCK)];
            for v in 0..n {
                cells[v] = Packed32::reached(levels[v], parent[v]);
            }
            let parents: Vec<i64> = parent.iter().map(|&p| i64::from(p)).collect();
            let fresh = || (0..n).map(|_| AtomicBool::new(false)).collect::<Vec<_>>();
            let (seen_wide, seen_scalar) = (fresh(), fresh());
            let (mut wide, mut scalar) = ((0, false), (0, false));
            for item in blocks.items() {
                let words = &blocks.words()[item.start..item.end];
                let words = &words[..words.len() - words.len() % LANES];
                let w = check_words(item, words, &cells, &parents, &seen_wide);
                let s = crate::edges::check_words(item, 0, words, &parents, &cells, &seen_scalar);
                wide = (wide.0 + w.0, wide.1 | w.1);
                scalar = (scalar.0 + s.0, scalar.1 | s.1.is_some());
            }
            assert_eq!((wide.1, scalar.1), (gap, gap));
            if !gap {
                assert_eq!(wide.0, scalar.0, "nedge");
            }
            let marks =
                |s: &[AtomicBool]| -> Vec<bool> { s.iter().map(|b| b.load(Relaxed)).collect() };
            assert_eq!(marks(&seen_wide), marks(&seen_scalar));
            assert!(marks(&seen_wide).iter().filter(|&&m| m).count() > 1000);
        }
    }
}
