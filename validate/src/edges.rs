//! Checks 3 and 4, and nedge: one parallel pass over the input tuples.
//!
//! For each tuple `(u, v)` that is not a self-loop, the pass reads the two
//! [`Cell`]s: if both ends are unreached the tuple is outside the search; if
//! exactly one is reached, or the levels differ by more than one, check 4
//! fails; otherwise the tuple counts toward nedge, and if `v` is one level
//! below `u` and `u` may be its parent (confirmed against the parent array
//! when the cell only holds a fingerprint), `v`'s tree edge is marked
//! present (and likewise for `u`). A tree edge always joins adjacent levels,
//! so no tree edge is missed by marking only there. Afterwards every reached
//! vertex but the root must have its tree edge marked (check 3).
//!
//! The loop is written for speed: two random cell reads per tuple (the cell
//! array is small enough to stay in cache) and one rarely taken branch for
//! the rare cases (an error, a possible tree edge). A block that meets an
//! error keeps marking tree edges to its end, so check 3's verdict never
//! depends on where a check-4 error was found; check 3 is reported first
//! when both fail, and within a check the lowest tuple or vertex.

use crate::Invalid;
use crate::cells::Cell;
use generator::Edge;
use par::first_index;
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Tuples per parallel work item.
const EDGE_GRAIN: usize = 1 << 14;
/// How many tuples ahead the cells are prefetched.
const AHEAD: usize = 16;

/// Checks 3 and 4; returns nedge.
pub(crate) fn check_edges<C: Cell>(
    edges: &[Edge],
    parents: &[i64],
    cells: &[C],
    seen: &[AtomicBool],
) -> Result<u64, Invalid> {
    seen.par_iter()
        .with_min_len(1 << 14)
        .for_each(|s| s.store(false, Relaxed));

    let (nedge, level_error) = edges
        .par_chunks(EDGE_GRAIN)
        .enumerate()
        .map(|(block, chunk)| check_block(block * EDGE_GRAIN, chunk, parents, cells, seen))
        .reduce(|| (0, None), |a, b| (a.0 + b.0, a.1.or(b.1)));

    // Only the root has level 0.
    let missing = first_index(cells.len(), |v| {
        let level = cells[v].level();
        !C::is_unreached_level(level) && level != 0 && !seen[v].load(Relaxed)
    });
    if let Some(v) = missing {
        return Err(Invalid::NotAnEdge {
            vertex: v as u64,
            parent: parents[v] as u64,
        });
    }
    match level_error {
        Some(error) => Err(error),
        None => Ok(nedge),
    }
}

/// One block of tuples starting at position `first`: its nedge and its first
/// check-4 error.
#[inline]
fn check_block<C: Cell>(
    first: usize,
    chunk: &[Edge],
    parents: &[i64],
    cells: &[C],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let mut nedge = 0;
    let mut error = None;
    let mut pending = Pending::default();
    for (i, &e) in chunk.iter().enumerate() {
        if let Some(ahead) = chunk.get(i + AHEAD) {
            prefetch(&cells[ahead.u as usize]);
            prefetch(&cells[ahead.v as usize]);
        }
        let (cell_u, cell_v) = (cells[e.u as usize], cells[e.v as usize]);
        let (level_u, level_v) = (cell_u.level(), cell_v.level());
        // The unreached code is 2 away from every level: this one test
        // catches a half-reached tuple and a level gap.
        if level_u.abs_diff(level_v) > 1 {
            error.get_or_insert_with(|| level_error::<C>(first + i, e, level_u, level_v));
            continue;
        }
        // Both reached (then neither is) and not a self-loop: it counts.
        nedge += u64::from(!C::is_unreached_level(level_u) & (e.u != e.v));
        // Non-short-circuit `&`: the level comparisons are unpredictable,
        // their conjunction with a parent match is rare. A self-loop never
        // matches (equal levels); unreached codes never equal a level + 1.
        let v_below_u = (level_v == level_u.wrapping_add(1)) & cell_v.might_be_child_of(e.u);
        let u_below_v = (level_u == level_v.wrapping_add(1)) & cell_u.might_be_child_of(e.v);
        if v_below_u | u_below_v {
            if v_below_u {
                pending.push(e.v, e.u, parents, seen, C::NEEDS_CONFIRMATION);
            }
            if u_below_v {
                pending.push(e.u, e.v, parents, seen, C::NEEDS_CONFIRMATION);
            }
        }
    }
    pending.drain(parents, seen, C::NEEDS_CONFIRMATION);
    (nedge, error)
}

/// Possible tree edges waiting for their confirmation: each entry's parent
/// slot was prefetched when it was queued and is read `PENDING` candidates
/// later, by when it has usually arrived in cache.
#[derive(Default)]
struct Pending {
    entries: [(u32, u32); PENDING],
    len: usize,
    next: usize,
}

/// Entries of [`Pending`] (a power of two).
const PENDING: usize = 8;

impl Pending {
    #[inline]
    fn push(
        &mut self,
        child: u32,
        parent: u32,
        parents: &[i64],
        seen: &[AtomicBool],
        confirm: bool,
    ) {
        if !confirm {
            seen[child as usize].store(true, Relaxed);
            return;
        }
        prefetch(&parents[child as usize]);
        if self.len == PENDING {
            let (c, p) = self.entries[self.next];
            settle(c, p, parents, seen);
        } else {
            self.len += 1;
        }
        self.entries[self.next] = (child, parent);
        self.next = (self.next + 1) & (PENDING - 1);
    }

    fn drain(&mut self, parents: &[i64], seen: &[AtomicBool], confirm: bool) {
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
fn settle(child: u32, parent: u32, parents: &[i64], seen: &[AtomicBool]) {
    if parents[child as usize] == i64::from(parent) {
        seen[child as usize].store(true, Relaxed);
    }
}

/// The check-4 error of tuple `edge`, `e`, with the given levels.
#[cold]
fn level_error<C: Cell>(edge: usize, e: Edge, level_u: u32, level_v: u32) -> Invalid {
    let edge = edge as u64;
    match (
        C::is_unreached_level(level_u),
        C::is_unreached_level(level_v),
    ) {
        (false, true) => Invalid::HalfReachedEdge {
            edge,
            reached: e.u.into(),
            unreached: e.v.into(),
        },
        (true, false) => Invalid::HalfReachedEdge {
            edge,
            reached: e.v.into(),
            unreached: e.u.into(),
        },
        _ => Invalid::LevelGap {
            edge,
            u: e.u.into(),
            v: e.v.into(),
            level_u,
            level_v,
        },
    }
}
