//! The lanes of a [`Batch`](crate::Batch): how a held search's cell of a
//! vertex is laid out (`Layout`), the cells of a tile of vertices by lanes
//! (`Tile`), and the batch's edge pass over one block pair (`judge_item`).
//!
//! A tile is 256 cells: 16 vertices by 16 lanes, or, in the narrow layout,
//! 32 vertices by 8 lanes (half the bytes a vertex, for a run whose free
//! memory does not hold sixteen: `Batch::lanes_within`). Before a settle a lane's cells of the tile's
//! vertices are contiguous; after its transposition a vertex's cells are,
//! and because every tile holds 256 cells, vertex `v`'s `L` cells then lie
//! at `v L` of the tiles seen as one array: the pass reads them as
//! `[u32; L]` by vertex.
//!
//! The pass judges one tuple per step in all its lanes: the two ends'
//! cells (64 bytes each with 16 lanes, 32 with 8) are loaded whole, and
//! per lane the level test of check 4, nedge and the two tree-edge tests
//! are lane-wise arithmetic. Both ends' cells are prefetched `AHEAD`
//! tuples early: the lower end's are read at random in its block, and the
//! higher end's, although they come in order, were not fetched early
//! enough by the processor (`docs/history-validate.md` has the
//! measurement).
//!
//! Two forms of the same pass: a portable one, and on processors with
//! AVX-512 one in intrinsics whose lane tests become mask registers at
//! once (the portable form, compiled for AVX-512, built each tuple's masks
//! from the lanes' bytes with a chain of shuffles); with 8 lanes the
//! vector's upper half is loaded as zeros (two unreached-free level-0
//! cells: never bad, never a tree edge) and its results dropped. A test
//! holds the two forms to the same results in both layouts.
//!
//! Why `unsafe`: the AVX-512 form must be compiled for it and called only
//! where the processor has it (checked at run time), and it reads the
//! cells through pointers.

use crate::order::{BLOCK, Item};
use par::hint::prefetch;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

/// The most searches judged together: sixteen 4-byte cells fill one cache
/// line.
pub const LANES: usize = 16;
/// Cells per tile: 16 vertices by 16 lanes, or 32 by 8.
pub(crate) const CELLS: usize = LANES * LANES;
/// How many tuples ahead both ends' cells are prefetched.
const AHEAD: usize = 32;

/// How a lane's 4-byte cell holds a vertex's level and parent: the parent
/// in the low `shift` bits (24, or as many as the graph's ids need above
/// `2^24` vertices), the level above it, all ones for unreached (two
/// above the deepest level held, so that one test catches both failures
/// of check 4); and how many lanes a tile has (16, or 8).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub(crate) shift: u32,
    pub(crate) lanes: usize,
}

impl Layout {
    /// The layout for graphs of `num_vertices` vertices, with `lanes`
    /// lanes (16 or 8).
    pub(crate) fn new(num_vertices: usize, lanes: usize) -> Layout {
        assert!(lanes == LANES || lanes == LANES / 2, "16 or 8 lanes");
        let id_bits = usize::BITS - num_vertices.saturating_sub(1).leading_zeros();
        Layout {
            shift: id_bits.max(24),
            lanes,
        }
    }
    /// Vertices per tile.
    pub(crate) fn per_tile(self) -> usize {
        CELLS / self.lanes
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

/// One cache line of cells.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(crate) struct Line(pub(crate) [u32; LANES]);

/// [`CELLS`] cells: a tile of vertices by lanes, lane-major while a batch
/// holds searches, vertex-major after its transposition.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub(crate) struct Tile(pub(crate) [Line; LANES]);

impl Tile {
    /// Every cell unreached.
    pub(crate) fn unreached(layout: Layout) -> Tile {
        Tile([Line([layout.unreached(); LANES]); LANES])
    }
    /// The cells in order.
    pub(crate) fn cells(&self) -> &[u32; CELLS] {
        bytemuck::cast_ref(self)
    }
    /// The cells in order, to write.
    pub(crate) fn cells_mut(&mut self) -> &mut [u32; CELLS] {
        bytemuck::cast_mut(self)
    }
}

/// The cells of vertex `v` of transposed `tiles` in `layout`.
pub(crate) fn vertex_cells(tiles: &[Tile], layout: Layout, v: usize) -> &[u32] {
    let lanes = layout.lanes;
    &bytemuck::cast_slice::<Tile, u32>(tiles)[v * lanes..(v + 1) * lanes]
}

/// The cells of `BLOCK` vertices from `base` of transposed `tiles`, by
/// vertex.
fn block_cells<const L: usize>(tiles: &[Tile], base: usize) -> &[[u32; L]; BLOCK] {
    let (cells, _) = bytemuck::cast_slice::<Tile, u32>(tiles).as_chunks::<L>();
    cells[base..base + BLOCK]
        .try_into()
        .expect("tiles are padded to whole blocks")
}

/// The masks of `BLOCK` vertices from `base`.
fn block_marks(seen: &[AtomicU16], base: usize) -> &[AtomicU16; BLOCK] {
    seen[base..base + BLOCK]
        .try_into()
        .expect("masks are padded to whole blocks")
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
/// `seen`. `tiles` are transposed.
pub(crate) fn judge_item(
    form: Form,
    item: &Item,
    words: &[u32],
    tiles: &[Tile],
    seen: &[AtomicU16],
    layout: Layout,
) -> ([u64; LANES], u16) {
    match layout.lanes {
        LANES => judge_item_in::<LANES>(form, item, words, tiles, seen, layout),
        _ => judge_item_in::<{ LANES / 2 }>(form, item, words, tiles, seen, layout),
    }
}

/// [`judge_item`] with `L` lanes.
fn judge_item_in<const L: usize>(
    form: Form,
    item: &Item,
    words: &[u32],
    tiles: &[Tile],
    seen: &[AtomicU16],
    layout: Layout,
) -> ([u64; LANES], u16) {
    let ends = Ends::<L> {
        low: block_cells(tiles, item.low_base),
        high: block_cells(tiles, item.high_base),
        seen_low: block_marks(seen, item.low_base),
        seen_high: block_marks(seen, item.high_base),
        #[allow(clippy::cast_possible_truncation)] // ids below 2^26
        low_base: item.low_base as u32,
        #[allow(clippy::cast_possible_truncation)]
        high_base: item.high_base as u32,
        layout,
    };
    let (nedge, bad) = match form {
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
    };
    let mask = u16::MAX >> (LANES - L);
    (
        std::array::from_fn(|k| if k < L { nedge[k] } else { 0 }),
        bad & mask,
    )
}

/// What [`judge_words`] reads and writes of one block pair, with `L`
/// lanes.
struct Ends<'a, const L: usize> {
    low: &'a [[u32; L]; BLOCK],
    high: &'a [[u32; L]; BLOCK],
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
/// names the upper as its parent. Nedge of the first `L` lanes.
#[inline(always)]
fn judge_words<const L: usize>(ends: &Ends<'_, L>, words: &[u32]) -> ([u64; LANES], u16) {
    let (shift, print) = (ends.layout.shift, ends.layout.print());
    let unreached = ends.layout.unreached_level();
    let mut nedge = [0u32; LANES];
    let mut bad = [false; L];
    for (i, &w) in words.iter().enumerate() {
        if let Some(&ahead) = words.get(i + AHEAD) {
            prefetch(&ends.low[(ahead & 0xffff) as usize]);
            prefetch(&ends.high[(ahead >> 16) as usize]);
        }
        let (a, b) = (w & 0xffff, w >> 16);
        let (cells_a, cells_b) = (&ends.low[a as usize], &ends.high[b as usize]);
        let (id_a, id_b) = (ends.low_base | a, ends.high_base | b);
        let (mut b_child, mut a_child) = (0u16, 0u16);
        for k in 0..L {
            let (x, y) = (cells_a[k], cells_b[k]);
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
    let bad = (0..L).fold(0u16, |m, k| m | (u16::from(bad[k]) << k));
    (nedge.map(u64::from), bad)
}

/// The same pass as [`judge_words`], in AVX-512 intrinsics: a vertex's
/// `L` cells in the low lanes of one vector, zeros above.
///
/// # Safety
/// The processor has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f")]
unsafe fn judge_words_avx512<const L: usize>(
    ends: &Ends<'_, L>,
    words: &[u32],
) -> ([u64; LANES], u16) {
    use std::arch::x86_64::{
        __m512i, _mm_cvtsi32_si128, _mm512_add_epi32, _mm512_and_si512, _mm512_cmpeq_epi32_mask,
        _mm512_cmpgt_epu32_mask, _mm512_cmpneq_epi32_mask, _mm512_mask_add_epi32,
        _mm512_mask_cmpeq_epi32_mask, _mm512_maskz_loadu_epi32, _mm512_set1_epi32,
        _mm512_setzero_si512, _mm512_srl_epi32, _mm512_storeu_si512, _mm512_sub_epi32,
    };
    let layout = ends.layout;
    let shift = _mm_cvtsi32_si128(layout.shift.cast_signed());
    let print = _mm512_set1_epi32(layout.print().cast_signed());
    let unreached = _mm512_set1_epi32(layout.unreached_level().cast_signed());
    let (one, two) = (_mm512_set1_epi32(1), _mm512_set1_epi32(2));
    let mut nedge = _mm512_setzero_si512();
    let mut bad = 0u16;
    let lanes = u16::MAX >> (LANES - L);
    let vector = |cells: &[u32; L]| -> __m512i {
        // SAFETY: the mask reads the `L` cells of `cells` only (an
        // unaligned load of borrowed memory; lanes above `L` are zero).
        unsafe { _mm512_maskz_loadu_epi32(lanes, cells.as_ptr().cast()) }
    };
    for (i, &w) in words.iter().enumerate() {
        if let Some(&ahead) = words.get(i + AHEAD) {
            prefetch(&ends.low[(ahead & 0xffff) as usize]);
            prefetch(&ends.high[(ahead >> 16) as usize]);
        }
        let (a, b) = (w & 0xffff, w >> 16);
        let (x, y) = (
            vector(&ends.low[a as usize]),
            vector(&ends.high[b as usize]),
        );
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
        mark(&ends.seen_high[b as usize], b_child & lanes);
        mark(&ends.seen_low[a as usize], a_child & lanes);
    }
    let mut counts = [0u32; LANES];
    // SAFETY: `counts` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(counts.as_mut_ptr().cast::<__m512i>(), nedge) };
    (counts.map(u64::from), bad & lanes)
}

/// Adds `lanes` to a vertex's marks (this worker's own: a plain load and
/// store).
#[inline(always)]
fn mark(marks: &AtomicU16, lanes: u16) {
    marks.store(marks.load(Relaxed) | lanes, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the AVX-512 form: on random lines of two blocks (levels
    /// that pass, fail and are unreached; parents that often are the
    /// other end) it gives the portable form's nedge, failed lanes and
    /// marks, for the narrow and a wider cell, with 16 lanes and with 8.
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
        for (shift, lanes) in [(24, 16), (26, 16), (24, 8), (26, 8)] {
            let layout = Layout { shift, lanes };
            let blocks = 3;
            let (low_base, high_base) = (BLOCK, 2 * BLOCK);
            let words: Vec<u32> = (0..20_000)
                .map(|_| next(BLOCK as u32) | next(BLOCK as u32) << 16)
                .collect();
            // Lines whose levels lie in 3..6 or are unreached, and whose
            // parents are often the end at the other side of some tuple;
            // the first four lanes unreached throughout.
            let mut tiles = vec![Tile::unreached(layout); blocks * BLOCK / layout.per_tile()];
            for tile in &mut tiles {
                for vertex in tile.cells_mut().chunks_exact_mut(lanes) {
                    // Lanes 0 to 3 stay unreached: they never fail.
                    for cell in &mut vertex[4..] {
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
                let k = 4 + next(lanes as u32 - 4) as usize;
                let cells: &mut [u32] = bytemuck::cast_slice_mut(&mut tiles);
                let level_a = cells[a * lanes + k] >> shift;
                if level_a != layout.unreached_level() {
                    cells[b * lanes + k] = (level_a + 1) << shift | a as u32;
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
            assert_eq!(portable, wide, "shift {shift}, {lanes} lanes");
            let failing = (u16::MAX >> (LANES - lanes)) & !0xf;
            assert!(portable.1 == failing, "some lanes fail, not all");
            let bits = |s: &[AtomicU16]| s.iter().map(|m| m.load(Relaxed)).collect::<Vec<_>>();
            assert_eq!(bits(&seen_portable), bits(&seen_wide));
            assert!(
                bits(&seen_portable).iter().filter(|&&m| m != 0).count() > 100,
                "tree edges marked"
            );
        }
    }
}
