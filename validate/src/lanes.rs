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
//! In a dense batch (`dense.rs`: cells for the vertices that have a tuple
//! only, where memory is short) the lines lie at the ends' dense indices,
//! while the words keep the ids' offsets in their blocks. There the pass
//! reads each run of `AHEAD` words twice: once to turn both ends into
//! offsets among their blocks' dense indices (each block's entries stay in
//! L2) and to prefetch their lines, then to judge them; the cells still
//! name parents by id.
//!
//! Three forms of the same pass: a portable one; on processors with
//! AVX-512 one in intrinsics whose lane tests become mask registers at
//! once (the portable form, compiled for AVX-512, built each tuple's masks
//! from the lanes' bytes with a chain of shuffles); and on processors with
//! AVX2 but not AVX-512 (AMD's Zen 3, for one) one in AVX2 intrinsics, a
//! line as two halves of eight lanes, where the portable form compiles to
//! SSE2 only. A test holds them to the same results.
//!
//! Why `unsafe`: the intrinsic forms must be compiled for their features
//! and called only where the processor has them (checked at run time), and
//! the AVX-512 form reads the lines through pointers.

use crate::dense::Numbering;
use crate::order::{BLOCK, Item};
use par::hint::prefetch;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

/// Searches judged together: sixteen 4-byte cells fill one cache line.
pub const LANES: usize = 16;
/// Vertices per tile: a tile is square.
pub(crate) const TILE: usize = LANES;
/// How many tuples ahead both ends' lines are prefetched.
const AHEAD: usize = 32;

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
    /// AVX2 intrinsics.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Form {
    /// The fastest form this processor runs.
    pub(crate) fn best() -> Form {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Form::Avx512;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Form::Avx2;
        }
        Form::Portable
    }
}

/// One work item's per-lane nedge and the lanes in which check 4 failed,
/// by the pass in `form`; marks the tree edges it shows in this worker's
/// `seen`. `tiles` and `seen` are by vertex id, padded to whole blocks, or
/// with `numbering` by dense index, a whole block past the last one's
/// base.
pub(crate) fn judge_item(
    form: Form,
    item: &Item,
    words: &[u32],
    tiles: &[Tile],
    seen: &[AtomicU16],
    layout: Layout,
    numbering: Option<&Numbering>,
) -> ([u64; LANES], u16) {
    let (low_block, high_block) = (item.low_base / BLOCK, item.high_base / BLOCK);
    let base = |b: usize| numbering.map_or(b * BLOCK, |d| d.block_base(b));
    let (low_base, high_base) = (base(low_block), base(high_block));
    let low: &[Tile; BLOCK / TILE] = block(tiles, low_base, TILE)
        .try_into()
        .expect("tiles are padded by a whole block");
    let high: &[Tile; BLOCK / TILE] = block(tiles, high_base, TILE)
        .try_into()
        .expect("tiles are padded by a whole block");
    let seen_low: &[AtomicU16; BLOCK] = block(seen, low_base, 1)
        .try_into()
        .expect("masks are padded by a whole block");
    let seen_high: &[AtomicU16; BLOCK] = block(seen, high_base, 1)
        .try_into()
        .expect("masks are padded by a whole block");
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
    let mut judged = Judged {
        nedge: [0; LANES],
        bad: 0,
    };
    let Some(numbering) = numbering else {
        judge_run::<false>(form, &ends, words, &[], &mut judged);
        return (judged.nedge.map(u64::from), judged.bad);
    };
    let (rank_low, rank_high) = (numbering.block(low_block), numbering.block(high_block));
    // Each run is numbered (and its lines prefetched) while the run before
    // it waits to be judged.
    let (mut now, mut next) = ([0u32; AHEAD], [0u32; AHEAD]);
    let (mut runs, mut ready) = (words.chunks(AHEAD), 0..0);
    loop {
        let run = runs.next();
        for (d, &w) in next.iter_mut().zip(run.unwrap_or_default()) {
            // Ends with a tuple: their entries are their dense offsets.
            let a = u32::from(rank_low[w as usize & 0xffff]);
            let b = u32::from(rank_high[w as usize >> 16]);
            prefetch(line(ends.low, a));
            prefetch(line(ends.high, b));
            *d = a | b << 16;
        }
        let judged_now = (&words[ready.clone()], &now[..ready.len()]);
        judge_run::<true>(form, &ends, judged_now.0, judged_now.1, &mut judged);
        let Some(run) = run else {
            return (judged.nedge.map(u64::from), judged.bad);
        };
        std::mem::swap(&mut now, &mut next);
        ready = ready.end..ready.end + run.len();
    }
}

/// Judges a run of `words` in `form`: by id each word holds its ends'
/// offsets itself (`at` is not read); with `DENSE` their ends' dense
/// offsets are `at`, one a word, their lines already asked for.
#[inline(always)]
fn judge_run<const DENSE: bool>(
    form: Form,
    ends: &Ends<'_>,
    words: &[u32],
    at: &[u32],
    judged: &mut Judged,
) {
    match form {
        Form::Portable => judge_words::<DENSE>(ends, words, at, judged),
        #[cfg(target_arch = "x86_64")]
        Form::Avx512 => {
            assert!(std::arch::is_x86_feature_detected!("avx512f"));
            // SAFETY: the processor has AVX-512F (asserted just above).
            #[allow(unsafe_code)]
            unsafe {
                judge_words_avx512::<DENSE>(ends, words, at, judged);
            }
        }
        #[cfg(target_arch = "x86_64")]
        Form::Avx2 => {
            assert!(std::arch::is_x86_feature_detected!("avx2"));
            // SAFETY: the processor has AVX2 (asserted just above).
            #[allow(unsafe_code)]
            unsafe {
                judge_words_avx2::<DENSE>(ends, words, at, judged);
            }
        }
    }
}

/// What the judging of a work item's runs has found so far.
struct Judged {
    /// Per lane, the tuples with both ends reached.
    nedge: [u32; LANES],
    /// The lanes in which check 4 failed.
    bad: u16,
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

/// The batch's edge pass over one block pair's `words`, whose ends' lines
/// lie at the words' own offsets (by id), or with `DENSE` at `at`, their
/// ends' offsets among their blocks' dense indices, prefetched by the
/// caller: per lane, each tuple counts toward nedge if its ends are
/// reached, fails check 4 if exactly one is or the levels differ by more
/// than one, and marks the lower end's tree edge if the ends are one level
/// apart and the lower names the upper as its parent.
#[inline(always)]
fn judge_words<const DENSE: bool>(ends: &Ends<'_>, words: &[u32], at: &[u32], judged: &mut Judged) {
    let (shift, print) = (ends.layout.shift, ends.layout.print());
    let unreached = ends.layout.unreached_level();
    let nedge = &mut judged.nedge;
    let mut bad = [false; LANES];
    each_word::<DENSE>(ends, words, at, |w, a, b| {
        let (cells_a, cells_b) = (line(ends.low, a), line(ends.high, b));
        let (id_a, id_b) = (ends.low_base | w & 0xffff, ends.high_base | w >> 16);
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
    });
    judged.bad |= (0..LANES).fold(0u16, |m, k| m | (u16::from(bad[k]) << k));
}

/// The same pass as [`judge_words`], in AVX-512 intrinsics.
///
/// # Safety
/// The processor has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx512f")]
unsafe fn judge_words_avx512<const DENSE: bool>(
    ends: &Ends<'_>,
    words: &[u32],
    at: &[u32],
    judged: &mut Judged,
) {
    use std::arch::x86_64::{
        __m512i, _mm_cvtsi32_si128, _mm512_add_epi32, _mm512_and_si512, _mm512_cmpeq_epi32_mask,
        _mm512_cmpgt_epu32_mask, _mm512_cmpneq_epi32_mask, _mm512_loadu_si512,
        _mm512_mask_add_epi32, _mm512_mask_cmpeq_epi32_mask, _mm512_set1_epi32, _mm512_srl_epi32,
        _mm512_storeu_si512, _mm512_sub_epi32,
    };
    let layout = ends.layout;
    let shift = _mm_cvtsi32_si128(layout.shift.cast_signed());
    let print = _mm512_set1_epi32(layout.print().cast_signed());
    let unreached = _mm512_set1_epi32(layout.unreached_level().cast_signed());
    let (one, two) = (_mm512_set1_epi32(1), _mm512_set1_epi32(2));
    // SAFETY: `nedge` is 64 readable bytes; the load is unaligned.
    let mut nedge = unsafe { _mm512_loadu_si512(judged.nedge.as_ptr().cast::<__m512i>()) };
    let mut bad = 0u16;
    let vector = |line: &Line| -> __m512i {
        // SAFETY: a `Line` is 64 bytes of 16 `u32`, aligned to 64: the
        // bytes of one `__m512i`.
        unsafe { std::mem::transmute::<Line, __m512i>(*line) }
    };
    each_word::<DENSE>(ends, words, at, |w, a, b| {
        let (x, y) = (vector(line(ends.low, a)), vector(line(ends.high, b)));
        let (level_a, level_b) = (_mm512_srl_epi32(x, shift), _mm512_srl_epi32(y, shift));
        let gap = _mm512_add_epi32(_mm512_sub_epi32(level_a, level_b), one);
        bad |= _mm512_cmpgt_epu32_mask(gap, two);
        let reached = _mm512_cmpneq_epi32_mask(level_a, unreached);
        nedge = _mm512_mask_add_epi32(nedge, reached, nedge, one);
        let id_a = _mm512_set1_epi32((ends.low_base | w & 0xffff).cast_signed());
        let id_b = _mm512_set1_epi32((ends.high_base | w >> 16).cast_signed());
        let b_next = _mm512_cmpeq_epi32_mask(level_b, _mm512_add_epi32(level_a, one));
        let b_child = _mm512_mask_cmpeq_epi32_mask(b_next, _mm512_and_si512(y, print), id_a);
        let a_next = _mm512_cmpeq_epi32_mask(level_a, _mm512_add_epi32(level_b, one));
        let a_child = _mm512_mask_cmpeq_epi32_mask(a_next, _mm512_and_si512(x, print), id_b);
        mark(&ends.seen_high[b as usize], b_child);
        mark(&ends.seen_low[a as usize], a_child);
    });
    // SAFETY: `nedge` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(judged.nedge.as_mut_ptr().cast::<__m512i>(), nedge) };
    judged.bad |= bad;
}

/// The same pass as [`judge_words`], in AVX2 intrinsics: each line as two
/// halves of eight lanes; AVX2 has no unsigned compare, so check 4's
/// `gap > 2` is `max(gap, 3) == gap`, and no mask registers, so nedge adds
/// one less the unreached compare's all-ones and the tree-edge lanes come
/// out by `movemask`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn judge_words_avx2<const DENSE: bool>(
    ends: &Ends<'_>,
    words: &[u32],
    at: &[u32],
    judged: &mut Judged,
) {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi32_si128, _mm256_add_epi32, _mm256_and_si256, _mm256_castsi256_ps,
        _mm256_cmpeq_epi32, _mm256_max_epu32, _mm256_movemask_ps, _mm256_or_si256,
        _mm256_set1_epi32, _mm256_setzero_si256, _mm256_srl_epi32, _mm256_sub_epi32,
    };
    /// The lanes of a half whose compare is all ones, as bits.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes_set(compare: __m256i) -> u16 {
        // Eight sign bits.
        #[allow(clippy::cast_possible_truncation)]
        let bits = _mm256_movemask_ps(_mm256_castsi256_ps(compare)) as u16;
        bits
    }
    let layout = ends.layout;
    let shift = _mm_cvtsi32_si128(layout.shift.cast_signed());
    let print = _mm256_set1_epi32(layout.print().cast_signed());
    let unreached = _mm256_set1_epi32(layout.unreached_level().cast_signed());
    let (one, three) = (_mm256_set1_epi32(1), _mm256_set1_epi32(3));
    let mut nedge: [__m256i; 2] = bytemuck::cast(judged.nedge);
    let mut bad = [_mm256_setzero_si256(); 2];
    each_word::<DENSE>(ends, words, at, |w, a, b| {
        let xs: [__m256i; 2] = bytemuck::cast(line(ends.low, a).0);
        let ys: [__m256i; 2] = bytemuck::cast(line(ends.high, b).0);
        let id_a = _mm256_set1_epi32((ends.low_base | w & 0xffff).cast_signed());
        let id_b = _mm256_set1_epi32((ends.high_base | w >> 16).cast_signed());
        let (mut b_child, mut a_child) = (0u16, 0u16);
        for h in 0..2 {
            let (x, y) = (xs[h], ys[h]);
            let (level_a, level_b) = (_mm256_srl_epi32(x, shift), _mm256_srl_epi32(y, shift));
            let gap = _mm256_add_epi32(_mm256_sub_epi32(level_a, level_b), one);
            let far = _mm256_cmpeq_epi32(_mm256_max_epu32(gap, three), gap);
            bad[h] = _mm256_or_si256(bad[h], far);
            let counted = _mm256_add_epi32(one, _mm256_cmpeq_epi32(level_a, unreached));
            nedge[h] = _mm256_add_epi32(nedge[h], counted);
            let b_next = _mm256_cmpeq_epi32(level_b, _mm256_add_epi32(level_a, one));
            let b_names_a = _mm256_cmpeq_epi32(_mm256_and_si256(y, print), id_a);
            b_child |= lanes_set(_mm256_and_si256(b_next, b_names_a)) << (8 * h);
            let a_next = _mm256_cmpeq_epi32(level_a, _mm256_add_epi32(level_b, one));
            let a_names_b = _mm256_cmpeq_epi32(_mm256_and_si256(x, print), id_b);
            a_child |= lanes_set(_mm256_and_si256(a_next, a_names_b)) << (8 * h);
        }
        mark(&ends.seen_high[b as usize], b_child);
        mark(&ends.seen_low[a as usize], a_child);
    });
    judged.nedge = bytemuck::cast(nedge);
    judged.bad |= lanes_set(bad[0]) | lanes_set(bad[1]) << 8;
}

/// Walks `words` as every form of the pass does, calling `judge` with
/// each word and its ends' offsets: by id a word is its own offsets, and
/// the lines of the word `AHEAD` on are asked for here; with `DENSE` the
/// offsets are `at`'s, one a word, their lines asked for by the caller.
#[inline(always)]
fn each_word<const DENSE: bool>(
    ends: &Ends<'_>,
    words: &[u32],
    at: &[u32],
    mut judge: impl FnMut(u32, u32, u32),
) {
    for (i, &w) in words.iter().enumerate() {
        let d = if DENSE { at[i] } else { w };
        if !DENSE && let Some(&ahead) = words.get(i + AHEAD) {
            prefetch(line(ends.low, ahead & 0xffff));
            prefetch(line(ends.high, ahead >> 16));
        }
        judge(w, d & 0xffff, d >> 16);
    }
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

    /// Guards the AVX-512 form: it judges as the portable form.
    #[cfg(target_arch = "x86_64")]
    #[test]
    #[cfg_attr(not(avx512_tests), ignore = "needs AVX-512F: this processor lacks it")]
    fn the_avx512_pass_judges_as_the_portable_pass() {
        crate::assert_avx512(Form::best() == Form::Avx512);
        judged_as_the_portable_pass(Form::Avx512);
    }

    /// Guards the AVX2 form, which every x86-64 processor these runs meet
    /// has (and which processors without AVX-512 take).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_pass_judges_as_the_portable_pass() {
        assert!(
            std::arch::is_x86_feature_detected!("avx2"),
            "needs AVX2: this processor lacks it"
        );
        judged_as_the_portable_pass(Form::Avx2);
    }

    /// On random lines of two blocks (levels that pass, fail and are
    /// unreached; parents that often are the other end) `form` gives the
    /// portable form's nedge, failed lanes and marks, for the narrow and a
    /// wider layout, by id and dense.
    #[cfg(target_arch = "x86_64")]
    fn judged_as_the_portable_pass(form: Form) {
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
            // the lower, naming it as parent; then the lower end of others
            // below the higher.
            for (i, &w) in words[..6000].iter().enumerate() {
                let (a, b) = (
                    low_base + (w & 0xffff) as usize,
                    high_base + (w >> 16) as usize,
                );
                let (parent, child) = if i < 3000 { (a, b) } else { (b, a) };
                let k = 4 + next(12) as usize;
                let level = tiles[parent / TILE].0[parent % TILE].0[k] >> shift;
                if level != layout.unreached_level() {
                    tiles[child / TILE].0[child % TILE].0[k] = (level + 1) << shift | parent as u32;
                }
            }
            let marks =
                || -> Vec<AtomicU16> { (0..blocks * BLOCK).map(|_| AtomicU16::new(0)).collect() };
            // Both forms, by id and by a numbering in which every vertex
            // has a tuple (dense indices are the ids): the same results.
            let every = Numbering::every(blocks * BLOCK);
            let bits = |s: &[AtomicU16]| s.iter().map(|m| m.load(Relaxed)).collect::<Vec<_>>();
            let judged = |form: Form, numbering: Option<&Numbering>, words: &[u32]| {
                let seen = marks();
                let item = Item {
                    start: 0,
                    end: words.len(),
                    low_base,
                    high_base,
                };
                let got = judge_item(form, &item, words, &tiles, &seen, layout, numbering);
                (got, bits(&seen))
            };
            let forms = [
                (form, None),
                (Form::Portable, Some(&every)),
                (form, Some(&every)),
            ];
            let portable = judged(Form::Portable, None, &words);
            for (form, numbering) in forms {
                let got = judged(form, numbering, &words);
                assert_eq!(got, portable, "shift {shift}, {form:?}");
            }
            // Tuple by tuple too, where the failed lanes are not all of
            // them: each lane's check 4 on its own.
            for tuple in words[5800..6200].chunks(1) {
                let portable = judged(Form::Portable, None, tuple);
                for (form, numbering) in forms {
                    let got = judged(form, numbering, tuple);
                    assert_eq!(got, portable, "shift {shift}, {form:?}, {tuple:?}");
                }
            }
            assert!(portable.0.1 == 0xfff0, "some lanes fail, not all");
            assert!(
                portable.1.iter().filter(|&&m| m != 0).count() > 100,
                "tree edges marked"
            );
        }
    }
}
