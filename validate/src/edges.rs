//! Checks 3 and 4, and nedge: one parallel pass over the input tuples.
//!
//! For each tuple `(u, v)` that is not a self-loop, the pass reads the two
//! [`Cell`]s: if both ends are unreached the tuple is outside the search; if
//! exactly one is reached, or the levels differ by more than one, check 4
//! fails; otherwise the tuple counts toward nedge, and if `v` is one level
//! below `u` and `u` may be its parent (confirmed against the parent array
//! when the cell holds only a print of it), `v`'s tree edge is marked
//! present (and likewise for `u`). A tree edge always joins adjacent levels,
//! so no tree edge is missed by marking only there. Afterwards every reached
//! vertex but the root must have its tree edge marked (check 3).
//!
//! The loop is written for speed: two cell reads per tuple (prefetched in
//! the list's order; in block order both lie in two cache-resident blocks)
//! and one rarely taken branch for the rare cases (an error, a possible
//! tree edge). Block order's whole groups of sixteen tuples go through the
//! wide loop of `wide.rs` where the processor has it and the cell type
//! has one ([`EdgeCell`]); possible tree edges are confirmed through
//! `confirm.rs`. A block that meets an error keeps marking tree edges to
//! its end, so check 3's verdict never depends on where a check-4 error
//! was found; check 3 is reported first when both fail, and within a
//! check the lowest tuple or vertex.
//!
//! Cells know nothing of either loop: `cells.rs` uses none of the passes,
//! `wide.rs` uses the cells and `confirm.rs`, and this module all three.

use crate::cells::{Cell, Exact64, Packed, Word};
use crate::confirm::Pending;
use crate::order::{BLOCK, Item, TupleBlocks};
use crate::{Invalid, ParentArray, Tuples};
use generator::{Edge, Vertex};
use par::first_index;
use par::hint::prefetch;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Tuples per parallel work item.
const EDGE_GRAIN: usize = 1 << 14;
/// How many tuples ahead the cells are prefetched.
const AHEAD: usize = 16;

/// A [`Cell`] the edge pass reads, and the wide loop it has, if any: the
/// hook by which [`check_item`] hands whole groups of block-ordered
/// tuples to `wide.rs` for the cell types it serves.
pub(crate) trait EdgeCell: Cell {
    /// The edge pass over the whole groups of sixteen at the start of
    /// `words`, block-ordered words of `item`, in the wide loop
    /// (`wide.rs`): how many words it judged, their nedge and whether
    /// check 4 failed among them, having marked the confirmed tree edges
    /// in `seen`; `None` where this cell type or processor has no wide
    /// loop.
    fn check_words_wide<P: ParentArray + ?Sized>(
        _item: &Item,
        _words: &[u32],
        _cells: &[Self],
        _parents: &P,
        _seen: &[AtomicBool],
    ) -> Option<(usize, u64, bool)> {
        None
    }
}

impl<W: Word> EdgeCell for Packed<W> {
    #[cfg(target_arch = "x86_64")]
    fn check_words_wide<P: ParentArray + ?Sized>(
        item: &Item,
        words: &[u32],
        cells: &[Self],
        parents: &P,
        seen: &[AtomicBool],
    ) -> Option<(usize, u64, bool)> {
        let whole = words.len() - words.len() % crate::wide::LANES;
        crate::wide::available().then(|| {
            let (nedge, failed) =
                crate::wide::check_words(item, &words[..whole], cells, parents, seen);
            (whole, nedge, failed)
        })
    }
}

impl EdgeCell for Exact64 {}

/// Checks 3 and 4 over `tuples`; returns nedge. `cells` holds at least
/// `N` cells, rounded up to a whole [`BLOCK`] for block-ordered tuples.
pub(crate) fn check_edges<C: EdgeCell, P: ParentArray + ?Sized>(
    tuples: Tuples<'_>,
    parents: &P,
    cells: &[C],
    seen: &[AtomicBool],
) -> Result<u64, Invalid> {
    seen.par_iter()
        .with_min_len(1 << 14)
        .for_each(|s| s.store(false, Relaxed));

    let (nedge, level_error) = match tuples {
        Tuples::List(list) => list
            .edges()
            .par_chunks(EDGE_GRAIN)
            .enumerate()
            .map(|(block, chunk)| check_chunk(block * EDGE_GRAIN, chunk, parents, cells, seen))
            .reduce(|| (0, None), |a, b| (a.0 + b.0, a.1.or(b.1))),
        Tuples::Blocks(blocks) => blocks
            .items()
            .par_iter()
            .map(|item| check_item(item, blocks.words(), parents, cells, seen))
            .reduce(|| (0, None), |a, b| (a.0 + b.0, a.1.or(b.1))),
    };

    // Only the root has level 0.
    let n = parents.entries();
    let missing = first_index(n, |v| {
        let level = cells[v].level();
        !C::is_unreached_level(level) && level != 0 && !seen[v].load(Relaxed)
    });
    if let Some(v) = missing {
        return Err(Invalid::NotAnEdge {
            vertex: v as u64,
            parent: parents.parent(v) as u64,
        });
    }
    match level_error {
        Some(error) => Err(error),
        None => Ok(nedge),
    }
}

/// One chunk of an edge list's tuples starting at position `first`: its
/// nedge and its first check-4 error. The cells are read at random, so
/// each is prefetched [`AHEAD`] tuples early.
fn check_chunk<C: Cell, P: ParentArray + ?Sized>(
    first: usize,
    chunk: &[Edge],
    parents: &P,
    cells: &[C],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let mut judge = Judge::<C, P>::new(parents, seen);
    for (i, &e) in chunk.iter().enumerate() {
        if let Some(ahead) = chunk.get(i + AHEAD) {
            prefetch(&cells[ahead.u as usize]);
            prefetch(&cells[ahead.v as usize]);
        }
        judge.tuple(
            first + i,
            e.u,
            e.v,
            cells[e.u as usize],
            cells[e.v as usize],
        );
    }
    judge.finish()
}

/// One work item of block-ordered tuples: both ends' cells lie in two
/// fixed 64 Ki-cell ranges, which stay in cache. Whole groups of
/// sixteen go through the wide loop where the cell type and the processor
/// allow it (`wide.rs`), the rest, and any item in which check 4 failed,
/// through the scalar loop, which names the first bad tuple.
fn check_item<C: EdgeCell, P: ParentArray + ?Sized>(
    item: &Item,
    words: &[u32],
    parents: &P,
    cells: &[C],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let words = &words[item.start..item.end];
    match C::check_words_wide(item, words, cells, parents, seen) {
        Some((whole, nedge, false)) => {
            let (rest, error) = check_words(item, whole, &words[whole..], parents, cells, seen);
            (nedge + rest, error)
        }
        Some((_, _, true)) | None => check_words(item, 0, words, parents, cells, seen),
    }
}

/// The scalar loop over `words`, the item's words from its `offset`-th.
/// The low 16 bits of each end index the block's cells without a bounds
/// check.
pub(crate) fn check_words<C: Cell, P: ParentArray + ?Sized>(
    item: &Item,
    offset: usize,
    words: &[u32],
    parents: &P,
    cells: &[C],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let block = |base: usize| -> &[C; BLOCK] {
        cells[base..base + BLOCK]
            .try_into()
            .expect("cells are padded to whole blocks")
    };
    let (low, high) = (block(item.low_base), block(item.high_base));
    let mut judge = Judge::<C, P>::new(parents, seen);
    for (i, &w) in words.iter().enumerate() {
        let (u, v) = TupleBlocks::ends(item, w);
        let (cell_u, cell_v) = (low[(w & 0xffff) as usize], high[(w >> 16) as usize]);
        judge.tuple(item.start + offset + i, u, v, cell_u, cell_v);
    }
    judge.finish()
}

/// The verdict on a run of tuples: nedge so far, the first check-4 error,
/// and the tree edges waiting for confirmation.
struct Judge<'a, C, P: ?Sized> {
    parents: &'a P,
    seen: &'a [AtomicBool],
    nedge: u64,
    error: Option<Invalid>,
    pending: Pending,
    /// Whether a cell's match must be confirmed in `parents`.
    confirm: bool,
    cell: PhantomData<C>,
}

impl<'a, C: Cell, P: ParentArray + ?Sized> Judge<'a, C, P> {
    fn new(parents: &'a P, seen: &'a [AtomicBool]) -> Self {
        Judge {
            parents,
            seen,
            nedge: 0,
            error: None,
            pending: Pending::default(),
            confirm: C::needs_confirmation(parents.entries()),
            cell: PhantomData,
        }
    }

    /// Judges tuple `(u, v)` at `position`, whose ends have these cells.
    #[inline(always)]
    fn tuple(&mut self, position: usize, u: Vertex, v: Vertex, cell_u: C, cell_v: C) {
        let (level_u, level_v) = (cell_u.level(), cell_v.level());
        // The unreached code is 2 away from every level: this one test
        // catches a half-reached tuple and a level gap.
        if level_u.abs_diff(level_v) > 1 {
            self.error
                .get_or_insert_with(|| level_error::<C>(position, u, v, level_u, level_v));
            return;
        }
        // Both reached (then neither is) and not a self-loop: it counts.
        self.nedge += u64::from(!C::is_unreached_level(level_u) & (u != v));
        // Non-short-circuit `&`: the level comparisons are unpredictable,
        // their conjunction with a parent match is rare. A self-loop never
        // matches (equal levels); unreached codes never equal a level + 1.
        let v_below_u = (level_v == level_u.wrapping_add(1)) & cell_v.might_be_child_of(u);
        let u_below_v = (level_u == level_v.wrapping_add(1)) & cell_u.might_be_child_of(v);
        if v_below_u | u_below_v {
            let (parents, seen) = (self.parents, self.seen);
            if v_below_u {
                self.pending.push(v, u, parents, seen, self.confirm);
            }
            if u_below_v {
                self.pending.push(u, v, parents, seen, self.confirm);
            }
        }
    }

    /// Settles the waiting tree edges; returns nedge and the first error.
    fn finish(mut self) -> (u64, Option<Invalid>) {
        self.pending.drain(self.parents, self.seen, self.confirm);
        (self.nedge, self.error)
    }
}

/// The check-4 error of tuple `(u, v)` at position `edge`, with the given
/// levels.
#[cold]
fn level_error<C: Cell>(edge: usize, u: Vertex, v: Vertex, level_u: u32, level_v: u32) -> Invalid {
    let edge = edge as u64;
    match (
        C::is_unreached_level(level_u),
        C::is_unreached_level(level_v),
    ) {
        (false, true) => Invalid::HalfReachedEdge {
            edge,
            reached: u.into(),
            unreached: v.into(),
        },
        (true, false) => Invalid::HalfReachedEdge {
            edge,
            reached: v.into(),
            unreached: u.into(),
        },
        _ => Invalid::LevelGap {
            edge,
            u: u.into(),
            v: v.into(),
            level_u,
            level_v,
        },
    }
}

// The wide loop exists on x86-64 only, and so do these tests of it.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::cells::{Narrow, Packed16, Packed32};
    use crate::wide::{LANES, available};

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
    #[cfg_attr(not(avx512_tests), ignore = "needs AVX-512F: this processor lacks it")]
    fn the_wide_loop_agrees_with_the_scalar_loop() {
        crate::assert_avx512(available());
        wide_agrees_with_scalar::<Packed32>();
        wide_agrees_with_scalar::<Packed16>();
    }

    fn wide_agrees_with_scalar<C: Narrow>() {
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
            let mut cells = vec![C::unreached(); n.next_multiple_of(BLOCK)];
            for v in 0..n {
                cells[v] = C::reached(levels[v], parent[v]);
            }
            let parents: Vec<i64> = parent.iter().map(|&p| i64::from(p)).collect();
            let fresh = || (0..n).map(|_| AtomicBool::new(false)).collect::<Vec<_>>();
            let (seen_wide, seen_scalar) = (fresh(), fresh());
            let (mut wide, mut scalar) = ((0, false), (0, false));
            for item in blocks.items() {
                let words = &blocks.words()[item.start..item.end];
                let words = &words[..words.len() - words.len() % LANES];
                let w = crate::wide::check_words(item, words, &cells, &parents[..], &seen_wide);
                let s = check_words(item, 0, words, &parents[..], &cells, &seen_scalar);
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
