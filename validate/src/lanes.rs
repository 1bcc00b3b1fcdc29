//! The lanes of a [`Batch`](crate::Batch): how a held search's cell of a
//! vertex is laid out (`Layout`), sixteen vertices by sixteen lanes in a
//! `Tile`, and the batch's edge pass over one block pair (`judge_item`).
//!
//! The pass judges one tuple per step in all sixteen lanes: the two ends'
//! lines (64 bytes each, one per end) are loaded whole, and per lane the
//! level test of check 4, nedge and the two tree-edge tests are
//! lane-wise arithmetic. Both ends' lines are prefetched `AHEAD` tuples
//! early: the lower end's are read at random in its block, and the higher
//! end's, although they come in order, were not fetched early enough by
//! the processor (`docs/history-validate.md` has the measurement).
//!
//! Two forms of the same pass: a portable one, and on processors with
//! AVX-512 one in intrinsics whose lane tests become mask registers at
//! once (the portable form, compiled for AVX-512, built each tuple's masks
//! from the lanes' bytes with a chain of shuffles). A test holds the two
//! to the same results.
//!
//! Why `unsafe`: the AVX-512 form must be compiled for it and called only
//! where the processor has it (checked at run time), and it reads the
//! lines through pointers.

use crate::order::{BLOCK, Item};
use par::hint::prefetch;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

/// Searches judged together: sixteen 4-byte cells fill one cache line.
pub const LANES: usize = 16;
/// Vertices per tile: a tile is square.
pub(crate) const TILE: usize = LANES;
/// How many tuples ahead both ends' lines are prefetched.
const AHEAD: usize = 32;
/// How many tiles ahead a held search's fill prefetches the row it will
/// write: a row is one line a KiB from the next, never read before it is
/// written, and stores that wait on their lines leave few lines in flight
/// (`docs/history-validate.md` has the measurement).
pub(crate) const ROW_AHEAD: usize = 16;

/// How a lane's 4-byte cell holds a vertex's level and parent: the parent
/// in the low `shift` bits (24, or as many as the graph's ids need above
/// `2^24` vertices), the level above it, all ones for unreached (two
/// above the deepest level held, so that one test catches both failures
/// of check 4).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub(crate) shift: u32,
}

impl Layout {
    /// The layout for graphs of `num_vertices` vertices.
    pub(crate) fn for_vertices(num_vertices: usize) -> Layout {
        let id_bits = usize::BITS - num_vertices.saturating_sub(1).leading_zeros();
        Layout {
            shift: id_bits.max(24),
        }
    }
    /// The parent's bits.
    pub(crate) fn print(self) -> u32 {
        (1 << self.shift) - 1
    }
    /// The level of an unreached vertex.
    pub(crate) fn unreached_level(self) -> u32 {
        u32::MAX >> self.shift
    }
    /// The deepest level a cell holds.
    pub(crate) fn max_level(self) -> u32 {
        self.unreached_level() - 2
    }
    /// An unreached vertex's cell.
    pub(crate) fn unreached(self) -> u32 {
        self.unreached_level() << self.shift
    }
}

/// One vertex's cells, lane by lane (after `Batch::settle`'s
/// transposition), or one lane's cells of sixteen vertices (before).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u32; LANES]);

/// Sixteen lines: sixteen vertices by sixteen lanes.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Tile(pub(crate) [Line; TILE]);

impl Tile {
    /// Sixteen unreached vertices in every lane.
    pub(crate) fn unreached(layout: Layout) -> Tile {
        Tile([Line([layout.unreached(); LANES]); TILE])
    }
}

/// The blocks' tiles: the lines of `BLOCK` vertices from `base`.
fn block<T>(all: &[T], base: usize, per: usize) -> &[T] {
    &all[base / per..(base + BLOCK) / per]
}

/// Which form of the pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// Plain Rust, any processor.
    Portable,
    /// AVX-512 intrinsics.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Form {
    /// The fastest form this processor runs.
    pub(crate) fn best() -> Form {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Form::Avx512;
        }
        Form::Portable
    }
}

/// One work item's per-lane nedge and the lanes in which check 4 failed,
/// by the pass in `form`; marks the tree edges it shows in this worker's
/// `seen`.
pub(crate) fn judge_item(
    form: Form,
    item: &Item,
    words: &[u32],
    tiles: &[Tile],
    seen: &[AtomicU16],
    layout: Layout,
) -> ([u64; LANES], u16) {
    let low: &[Tile; BLOCK / TILE] = block(tiles, item.low_base, TILE)
        .try_into()
        .expect("tiles are padded to whole blocks");
    let high: &[Tile; BLOCK / TILE] = block(tiles, item.high_base, TILE)
        .try_into()
        .expect("tiles are padded to whole blocks");
    let seen_low: &[AtomicU16; BLOCK] = block(seen, item.low_base, 1)
        .try_into()
        .expect("masks are padded to whole blocks");
    let seen_high: &[AtomicU16; BLOCK] = block(seen, item.high_base, 1)
        .try_into()
        .expect("masks are padded to whole blocks");
    let ends = Ends {
        low,
        high,
        seen_low,
        seen_high,
        #[allow(clippy::cast_possible_truncation)] // ids below 2^26
        low_base: item.low_base as u32,
        #[allow(clippy::cast_possible_truncation)]
        high_base: item.high_base as u32,
        layout,
    };
    match form {
        Form::Portable => judge_words(&ends, words),
        #[cfg(target_arch = "x86_64")]
        Form::Avx512 => {
            assert!(std::arch::is_x86_feature_detected!("avx512f"));
            // SAFETY: the processor has AVX-512F (asserted just above).
            #[allow(unsafe_code)]
            unsafe {
                judge_words_avx512(&ends, words)
            }
        }
    }
}

/// What [`judge_words`] reads and writes of one block pair.
struct Ends<'a> {
    low: &'a [Tile; BLOCK / TILE],
    high: &'a [Tile; BLOCK / TILE],
    seen_low: &'a [AtomicU16; BLOCK],
    seen_high: &'a [AtomicU16; BLOCK],
    low_base: u32,
    high_base: u32,
    layout: Layout,
}

/// The batch's edge pass over one block pair's `words`: per lane, each
/// tuple counts toward nedge if its ends are reached, fails check 4 if
/// exactly one is or the levels differ by more than one, and marks the
/// lower end's tree edge if the ends are one level apart and the lower
/// names the upper as its parent.
#[inline(always)]
fn judge_words(ends: &Ends<'_>, words: &[u32]) -> ([u64; LANES], u16) {
    let (shift, print) = (ends.layout.shift, ends.layout.print());
    let unreached = ends.layout.unreached_level();
    let mut nedge = [0u32; LANES];
    let mut bad = [false; LANES];
    for (i, &w) in words.iter().enumerate() {
        if let Some(&ahead) = words.get(i + AHEAD) {
            prefetch(line(ends.low, ahead & 0xffff));
            prefetch(line(ends.high, ahead >> 16));
        }
        let (a, b) = (w & 0xffff, w >> 16);
        let (cells_a, cells_b) = (line(ends.low, a), line(ends.high, b));
        let (id_a, id_b) = (ends.low_base | a, ends.high_base | b);
        let (mut b_child, mut a_child) = (0u16, 0u16);
        for k in 0..LANES {
            let (x, y) = (cells_a.0[k], cells_b.0[k]);
            let (level_a, level_b) = (x >> shift, y >> shift);
            // More than one apart, or exactly one end unreached (its level,
            // all ones, is two above any other).
            bad[k] |= level_a.wrapping_sub(level_b).wrapping_add(1) > 2;
            nedge[k] += u32::from(level_a != unreached);
            let b_below = (level_b == level_a + 1) & (y & print == id_a);
            let a_below = (level_a == level_b + 1) & (x & print == id_b);
            b_child |= u16::from(b_below) << k;
            a_child |= u16::from(a_below) << k;
        }
        mark(&ends.seen_high[b as usize], b_child);
        mark(&ends.seen_low[a as usize], a_child);
    }
    let bad = (0..LANES).fold(0u16, |m, k| m | (u16::from(bad[k]) << k));
    (nedge.map(u64::from), bad)
}

/// The same pass as [`judge_words`], in AVX-512 intrinsics.
///
/// # Safety
/// The processor has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f")]
unsafe fn judge_words_avx512(ends: &Ends<'_>, words: &[u32]) -> ([u64; LANES], u16) {
    use std::arch::x86_64::{
        __m512i, _mm_cvtsi32_si128, _mm512_add_epi32, _mm512_and_si512, _mm512_cmpeq_epi32_mask,
        _mm512_cmpgt_epu32_mask, _mm512_cmpneq_epi32_mask, _mm512_mask_add_epi32,
        _mm512_mask_cmpeq_epi32_mask, _mm512_set1_epi32, _mm512_setzero_si512, _mm512_srl_epi32,
        _mm512_storeu_si512, _mm512_sub_epi32,
    };
    let layout = ends.layout;
    let shift = _mm_cvtsi32_si128(layout.shift.cast_signed());
    let print = _mm512_set1_epi32(layout.print().cast_signed());
    let unreached = _mm512_set1_epi32(layout.unreached_level().cast_signed());
    let (one, two) = (_mm512_set1_epi32(1), _mm512_set1_epi32(2));
    let mut nedge = _mm512_setzero_si512();
    let mut bad = 0u16;
    let vector = |line: &Line| -> __m512i {
        // SAFETY: a `Line` is 64 bytes of 16 `u32`, aligned to 64: the
        // bytes of one `__m512i`.
        unsafe { std::mem::transmute::<Line, __m512i>(*line) }
    };
    for (i, &w) in words.iter().enumerate() {
        if let Some(&ahead) = words.get(i + AHEAD) {
            prefetch(line(ends.low, ahead & 0xffff));
            prefetch(line(ends.high, ahead >> 16));
        }
        let (a, b) = (w & 0xffff, w >> 16);
        let (x, y) = (vector(line(ends.low, a)), vector(line(ends.high, b)));
        let (level_a, level_b) = (_mm512_srl_epi32(x, shift), _mm512_srl_epi32(y, shift));
        let gap = _mm512_add_epi32(_mm512_sub_epi32(level_a, level_b), one);
        bad |= _mm512_cmpgt_epu32_mask(gap, two);
        let reached = _mm512_cmpneq_epi32_mask(level_a, unreached);
        nedge = _mm512_mask_add_epi32(nedge, reached, nedge, one);
        let id_a = _mm512_set1_epi32((ends.low_base | a).cast_signed());
        let id_b = _mm512_set1_epi32((ends.high_base | b).cast_signed());
        let b_next = _mm512_cmpeq_epi32_mask(level_b, _mm512_add_epi32(level_a, one));
        let b_child = _mm512_mask_cmpeq_epi32_mask(b_next, _mm512_and_si512(y, print), id_a);
        let a_next = _mm512_cmpeq_epi32_mask(level_a, _mm512_add_epi32(level_b, one));
        let a_child = _mm512_mask_cmpeq_epi32_mask(a_next, _mm512_and_si512(x, print), id_b);
        mark(&ends.seen_high[b as usize], b_child);
        mark(&ends.seen_low[a as usize], a_child);
    }
    let mut counts = [0u32; LANES];
    // SAFETY: `counts` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(counts.as_mut_ptr().cast::<__m512i>(), nedge) };
    (counts.map(u64::from), bad)
}

/// Adds `lanes` to a vertex's marks (this worker's own: a plain load and
/// store).
#[inline(always)]
fn mark(marks: &AtomicU16, lanes: u16) {
    marks.store(marks.load(Relaxed) | lanes, Relaxed);
}

/// Line `index` of a block's tiles.
#[inline(always)]
fn line(tiles: &[Tile; BLOCK / TILE], index: u32) -> &Line {
    &tiles[(index as usize / TILE) % (BLOCK / TILE)].0[index as usize % TILE]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the AVX-512 form: on random lines of two blocks (levels
    /// that pass, fail and are unreached; parents that often are the
    /// other end) it gives the portable form's nedge, failed lanes and
    /// marks, for the narrow and a wider layout.
    #[cfg(target_arch = "x86_64")]
    #[test]
    #[cfg_attr(not(avx512_tests), ignore = "needs AVX-512F: this processor lacks it")]
    fn the_avx512_pass_judges_as_the_portable_pass() {
        crate::assert_avx512(Form::best() == Form::Avx512);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32 % bound
        };
        for shift in [24, 26] {
            let layout = Layout { shift };
            let blocks = 3;
            let (low_base, high_base) = (BLOCK, 2 * BLOCK);
            let words: Vec<u32> = (0..20_000)
                .map(|_| next(BLOCK as u32) | next(BLOCK as u32) << 16)
                .collect();
            // Lines whose levels lie in 3..6 or are unreached, and whose
            // parents are often the end at the other side of some tuple;
            // the first four lanes unreached throughout.
            let mut tiles = vec![Tile::unreached(layout); blocks * BLOCK / TILE];
            for tile in &mut tiles {
                for line in &mut tile.0 {
                    // Lanes 0 to 3 stay unreached: they never fail.
                    for cell in &mut line.0[4..] {
                        let level = if next(5) == 0 {
                            layout.unreached_level()
                        } else {
                            3 + next(3)
                        };
                        let w = words[next(words.len() as u32) as usize];
                        let parent = match next(2) {
                            0 => low_base as u32 | (w & 0xffff),
                            _ => high_base as u32 | (w >> 16),
                        };
                        *cell = level << shift | parent;
                    }
                }
            }
            // Tree edges: the higher end of some tuples one level below
            // the lower, naming it as parent.
            for &w in &words[..3000] {
                let (a, b) = (
                    low_base + (w & 0xffff) as usize,
                    high_base + (w >> 16) as usize,
                );
                let k = 4 + next(12) as usize;
                let level_a = tiles[a / TILE].0[a % TILE].0[k] >> shift;
                if level_a != layout.unreached_level() {
                    tiles[b / TILE].0[b % TILE].0[k] = (level_a + 1) << shift | a as u32;
                }
            }
            let item = Item {
                start: 0,
                end: words.len(),
                low_base,
                high_base,
            };
            let marks =
                || -> Vec<AtomicU16> { (0..blocks * BLOCK).map(|_| AtomicU16::new(0)).collect() };
            let (seen_portable, seen_wide) = (marks(), marks());
            let portable = judge_item(
                Form::Portable,
                &item,
                &words,
                &tiles,
                &seen_portable,
                layout,
            );
            let wide = judge_item(Form::Avx512, &item, &words, &tiles, &seen_wide, layout);
            assert_eq!(portable, wide, "shift {shift}");
            assert!(portable.1 == 0xfff0, "some lanes fail, not all");
            let bits = |s: &[AtomicU16]| s.iter().map(|m| m.load(Relaxed)).collect::<Vec<_>>();
            assert_eq!(bits(&seen_portable), bits(&seen_wide));
            assert!(
                bits(&seen_portable).iter().filter(|&&m| m != 0).count() > 100,
                "tree edges marked"
            );
        }
    }
}
