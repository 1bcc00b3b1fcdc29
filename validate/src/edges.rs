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
//! wide loop of `wide.rs` where the processor has it. A block that meets an
//! error keeps marking tree edges to its end, so check 3's verdict never
//! depends on where a check-4 error was found; check 3 is reported first
//! when both fail, and within a check the lowest tuple or vertex.

use crate::cells::Cell;
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
/// Tuples per step of the wide loop (`wide.rs`): the whole groups an item
/// hands it.
pub(crate) const WIDE_LANES: usize = 16;

/// Checks 3 and 4 over `tuples`; returns nedge. `cells` holds at least
/// `N` cells, rounded up to a whole [`BLOCK`] for block-ordered tuples.
pub(crate) fn check_edges<C: Cell, P: ParentArray + ?Sized>(
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
fn check_item<C: Cell, P: ParentArray + ?Sized>(
    item: &Item,
    words: &[u32],
    parents: &P,
    cells: &[C],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let words = &words[item.start..item.end];
    let whole = words.len() - words.len() % WIDE_LANES;
    match C::check_words_wide(item, &words[..whole], cells, parents, seen) {
        Some((nedge, false)) => {
            let (rest, error) = check_words(item, whole, &words[whole..], parents, cells, seen);
            (nedge + rest, error)
        }
        Some((_, true)) | None => check_words(item, 0, words, parents, cells, seen),
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

/// Possible tree edges waiting for their confirmation: each entry's parent
/// slot was prefetched when it was queued and is read `PENDING` candidates
/// later, by when it has usually arrived in cache. Also the SSSP pass's
/// (`sssp/tuples.rs`), which always confirms.
#[derive(Default)]
pub(crate) struct Pending {
    entries: [(u32, u32); PENDING],
    len: usize,
    next: usize,
}

/// Entries of [`Pending`] (a power of two).
const PENDING: usize = 8;

impl Pending {
    /// Queues `child`'s possible tree edge to `parent`; with `confirm`
    /// false, marks it at once (the cell already named the parent).
    #[inline]
    pub(crate) fn push<P: ParentArray + ?Sized>(
        &mut self,
        child: u32,
        parent: u32,
        parents: &P,
        seen: &[AtomicBool],
        confirm: bool,
    ) {
        if !confirm {
            seen[child as usize].store(true, Relaxed);
            return;
        }
        parents.prefetch(child as usize);
        if self.len == PENDING {
            let (c, p) = self.entries[self.next];
            settle(c, p, parents, seen);
        } else {
            self.len += 1;
        }
        self.entries[self.next] = (child, parent);
        self.next = (self.next + 1) & (PENDING - 1);
    }

    /// Settles every queued entry.
    pub(crate) fn drain<P: ParentArray + ?Sized>(
        &mut self,
        parents: &P,
        seen: &[AtomicBool],
        confirm: bool,
    ) {
        if confirm {
            for &(c, p) in &self.entries[..self.len] {
                settle(c, p, parents, seen);
            }
        }
        self.len = 0;
    }
}

/// Marks `child`'s tree edge present if `parent` really is its parent.
#[inline]
pub(crate) fn settle<P: ParentArray + ?Sized>(
    child: u32,
    parent: u32,
    parents: &P,
    seen: &[AtomicBool],
) {
    if parents.parent(child as usize) == i64::from(parent) {
        seen[child as usize].store(true, Relaxed);
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
