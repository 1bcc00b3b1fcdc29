//! Checks 1 and 2: parent ranges, and tree levels by walking parent chains.
//!
//! Levels live in one `AtomicU32` per vertex: [`UNREACHED`] for parent `-1`,
//! [`PENDING`] for a reached vertex whose level is not known yet, otherwise
//! the level. Workers take vertices in blocks; from each pending vertex a
//! worker follows parents, stacking the pending ones, until it meets a known
//! level (the root's 0 at the latest), then assigns levels down the stack.
//! A block's pending vertices are listed first, without a branch per
//! vertex, and most of them need no walk: their parent's level is known by
//! then, one read. (Testing each vertex in turn mispredicted about every
//! other one and kept the reads from overlapping; the timings are in
//! `docs/history-validate.md`.)
//!
//! A level, once written, is the vertex's true tree depth, and every worker
//! that writes it writes the same value, so racing workers only repeat work.
//! A chain that never meets a known level is broken: it reaches a second
//! self-parent, a vertex marked unreached, or loops. A walk longer than N
//! steps has certainly entered a loop. The vertices of a broken chain never
//! get a level, so the walk from a given vertex, and the error it reports,
//! is the same whatever the other workers do; the error of the lowest such
//! vertex is reported.

use crate::cells::Cell;
pub(crate) use crate::cells::UNREACHED;
use crate::{Invalid, ParentArray};
use par::hint::prefetch;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The level of a reached vertex not yet walked.
const PENDING: u32 = u32::MAX - 1;
/// Vertices per parallel work item.
pub(crate) const VERTEX_GRAIN: usize = 1 << 12;
/// How many pending vertices ahead a parent's level is prefetched.
const LEVEL_AHEAD: usize = 16;

/// Check 1, fused with the first step of check 2 so that the parents are
/// read once: the length, the root, every parent in range, the root its
/// own parent; and every level set to [`UNREACHED`] (parent `-1`) or
/// [`PENDING`], the root's to 0, for [`walk_levels`]. Errors name the
/// lowest bad vertex, whatever the thread count.
pub(crate) fn check_ranges<P: ParentArray + ?Sized>(
    n: usize,
    root: u64,
    parents: &P,
    levels: &[AtomicU32],
) -> Result<(), Invalid> {
    if parents.entries() != n {
        return Err(Invalid::WrongLength {
            found: parents.entries(),
            expected: n,
        });
    }
    let Some(root_index) = usize::try_from(root).ok().filter(|&r| r < n) else {
        return Err(Invalid::RootOutOfRange {
            root,
            num_vertices: n,
        });
    };
    // `-1 <= p < n` as one unsigned comparison, so the loop has no branch.
    #[allow(clippy::cast_sign_loss)]
    let in_range = |p: i64| p.wrapping_add(1) as u64 <= n as u64;
    let first_bad_chunk = levels[..n]
        .par_chunks(VERTEX_GRAIN)
        .enumerate()
        .filter_map(|(chunk, levels)| {
            let first = chunk * VERTEX_GRAIN;
            let mut bad = false;
            for (v, level) in (first..).zip(levels) {
                let p = parents.parent(v);
                bad |= !in_range(p);
                level.store(if p == -1 { UNREACHED } else { PENDING }, Relaxed);
            }
            bad.then_some(chunk)
        })
        .min();
    if let Some(chunk) = first_bad_chunk {
        let first = chunk * VERTEX_GRAIN;
        let v = (first..n)
            .find(|&v| !in_range(parents.parent(v)))
            .expect("the chunk holds a bad parent");
        return Err(Invalid::ParentOutOfRange {
            vertex: v as u64,
            parent: parents.parent(v),
        });
    }
    if parents.parent(root_index) != root as i64 {
        return Err(Invalid::RootNotOwnParent {
            root,
            parent: parents.parent(root_index),
        });
    }
    levels[root_index].store(0, Relaxed);
    Ok(())
}

/// Check 2: gives every pending vertex its tree depth in `levels`, which
/// [`check_ranges`] marked. `parents` must have passed it.
pub(crate) fn walk_levels<P: ParentArray + ?Sized>(
    parents: &P,
    levels: &[AtomicU32],
) -> Result<(), Invalid> {
    let first_error = levels[..parents.entries()]
        .par_chunks(VERTEX_GRAIN)
        .enumerate()
        .map_init(Scratch::default, |scratch, (block, chunk)| {
            let first = block * VERTEX_GRAIN;
            walk_chunk(first..first + chunk.len(), parents, levels, scratch)
        })
        .find_first(Option::is_some)
        .flatten();
    first_error.map_or(Ok(()), Err)
}

/// [`walk_levels`], and then, chunk by chunk while the chunk is in cache,
/// [`fill_cells`]: returns the reached vertices and the deepest level.
/// Once a chunk's own walks are over, all its vertices have their final
/// levels (a level another worker writes is the same true depth), so its
/// cells can be written at once. Errors are those of [`walk_levels`].
pub(crate) fn walk_and_fill<C: Cell, P: ParentArray + ?Sized>(
    parents: &P,
    levels: &[AtomicU32],
    cells: &mut [C],
) -> Result<(u64, u32), Invalid> {
    let n = parents.entries();
    walk_and_fill_with(parents, levels, &mut cells[..n], 1, |first, own, cells| {
        fill_chunk(own.iter().copied(), first, parents, cells)
    })
}

/// [`walk_and_fill`] into any output: `out` holds `per` vertices an
/// element (`per` divides [`VERTEX_GRAIN`]; `out` has at least
/// `ceil(N / per)` elements), and `fill(first, levels, out)` writes the
/// elements of the chunk of vertices from `first`, whose final levels are
/// `levels` (copied out of the shared array, [`UNREACHED`] for unreached),
/// returning what [`count_levels`] would for them.
pub(crate) fn walk_and_fill_with<P, T, F>(
    parents: &P,
    levels: &[AtomicU32],
    out: &mut [T],
    per: usize,
    fill: F,
) -> Result<(u64, u32), Invalid>
where
    P: ParentArray + ?Sized,
    T: Send,
    F: Fn(usize, &[u32], &mut [T]) -> (u64, u32) + Sync,
{
    debug_assert_eq!(VERTEX_GRAIN % per, 0);
    let n = parents.entries();
    out[..n.div_ceil(per)]
        .par_chunks_mut(VERTEX_GRAIN / per)
        .enumerate()
        .map_init(Scratch::default, |scratch, (block, out)| {
            let chunk = block * VERTEX_GRAIN..(block * VERTEX_GRAIN + VERTEX_GRAIN).min(n);
            match walk_chunk(chunk.clone(), parents, levels, scratch) {
                Some(error) => Err(error),
                None => {
                    scratch.levels.clear();
                    scratch
                        .levels
                        .extend(levels[chunk.clone()].iter().map(|l| l.load(Relaxed)));
                    Ok(fill(chunk.start, &scratch.levels, out))
                }
            }
        })
        // Adjacent results combine in order, so the lowest chunk's error wins.
        .reduce(|| Ok((0, 0)), |a, b| Ok(add_counts(a?, b?)))
}

/// The first error of the walks from the pending vertices of `chunk`.
fn walk_chunk<P: ParentArray + ?Sized>(
    chunk: Range<usize>,
    parents: &P,
    levels: &[AtomicU32],
    scratch: &mut Scratch,
) -> Option<Invalid> {
    // The chunk's pending vertices, listed without a branch per vertex: a
    // test of each vertex would be mispredicted about every other one.
    scratch.pending.resize(chunk.len(), 0);
    let mut found = 0;
    for v in chunk {
        scratch.pending[found] = u32::try_from(v).expect("ids fit u32");
        found += usize::from(levels[v].load(Relaxed) == PENDING);
    }
    let pending = &scratch.pending[..found];
    for (i, &v) in pending.iter().enumerate() {
        // The parent's level is a random read: ask for it early.
        if let Some(&ahead) = pending.get(i + LEVEL_AHEAD) {
            prefetch(&levels[index(parents.parent(ahead as usize) as u64)]);
        }
        let v = v as usize;
        // Most parents have their level by now: one read, no walk.
        let parent = index(parents.parent(v) as u64);
        let above = levels[parent].load(Relaxed);
        if above < PENDING {
            levels[v].store(above + 1, Relaxed);
        } else if levels[v].load(Relaxed) == PENDING
            && let Err(error) = walk(v, parents, levels, &mut scratch.stack)
        {
            return Some(error);
        }
    }
    None
}

/// A worker's buffers for [`walk_chunk`].
#[derive(Default)]
struct Scratch {
    /// The pending vertices of a chunk.
    pending: Vec<u32>,
    /// The chain of a walk.
    stack: Vec<u32>,
    /// A walked chunk's levels, for its fill.
    levels: Vec<u32>,
}

/// Reached vertices and the deepest level among `levels`, once the walks
/// are over.
pub(crate) fn count_levels(levels: &mut [AtomicU32]) -> (u64, u32) {
    levels
        .par_chunks_mut(VERTEX_GRAIN)
        .map(|chunk| count(chunk.iter_mut().map(|l| *l.get_mut())))
        .reduce(|| (0, 0), add_counts)
}

/// Reached vertices and the deepest level among `levels`, one chunk's.
pub(crate) fn count(levels: impl Iterator<Item = u32>) -> (u64, u32) {
    let (mut reached, mut depth) = (0u32, 0u32);
    for level in levels {
        let is_reached = level != UNREACHED;
        reached += u32::from(is_reached);
        depth = depth.max(if is_reached { level } else { 0 });
    }
    (reached.into(), depth)
}

/// Gives pending `v` (and the pending vertices above it) their levels, or reports
/// why `v`'s chain does not end at the root.
fn walk<P: ParentArray + ?Sized>(
    v: usize,
    parents: &P,
    levels: &[AtomicU32],
    stack: &mut Vec<u32>,
) -> Result<(), Invalid> {
    stack.clear();
    let mut x = v;
    let base = loop {
        let level = levels[x].load(Relaxed);
        if level < PENDING {
            break level;
        }
        if level == UNREACHED {
            // Only reachable from a pending child: its parent is unreached.
            let child = *stack.last().expect("v is pending, so x is not v");
            return Err(Invalid::ParentUnreached {
                vertex: child.into(),
                parent: x as u64,
            });
        }
        let parent = index(parents.parent(x) as u64);
        if parent == x {
            return Err(Invalid::SecondRoot { vertex: x as u64 });
        }
        stack.push(u32::try_from(x).expect("ids fit u32"));
        if stack.len() > levels.len() {
            return Err(Invalid::Cycle { vertex: x as u64 });
        }
        x = parent;
    };
    for (above, &w) in stack.iter().rev().enumerate() {
        let level = u32::try_from(above)
            .ok()
            .and_then(|a| (base + 1).checked_add(a));
        levels[w as usize].store(level.expect("levels stay below N < 2^32 - 2"), Relaxed);
    }
    Ok(())
}

fn index(v: u64) -> usize {
    usize::try_from(v).expect("a checked vertex id")
}

/// Writes each vertex's [`Cell`] from its level and parent (the wider
/// cells' pass, once [`walk_and_fill`] has found a tree too deep for the
/// narrow cells). A level deeper than `C::MAX_LEVEL` gets an unreached cell.
/// O(N), parallel.
pub(crate) fn fill_cells<C: Cell, P: ParentArray + ?Sized>(
    levels: &[AtomicU32],
    parents: &P,
    cells: &mut [C],
) {
    cells
        .par_chunks_mut(VERTEX_GRAIN)
        .zip(levels.par_chunks(VERTEX_GRAIN))
        .enumerate()
        .for_each(|(chunk, (cells, levels))| {
            let own = levels.iter().map(|l| l.load(Relaxed));
            fill_chunk(own, chunk * VERTEX_GRAIN, parents, cells);
        });
}

/// [`fill_cells`] on the chunk of vertices from `first`; returns what [`count_levels`] would
/// (reached vertices, deepest level), so that [`walk_and_fill`] needs no
/// pass of its own to count. A caller seeing a depth above `C::MAX_LEVEL`
/// starts again with a wider cell.
fn fill_chunk<C: Cell, P: ParentArray + ?Sized>(
    levels: impl Iterator<Item = u32> + Clone,
    first: usize,
    parents: &P,
    cells: &mut [C],
) -> (u64, u32) {
    for ((v, cell), level) in (first..).zip(cells.iter_mut()).zip(levels.clone()) {
        let parent = parents.parent(v);
        *cell = if level <= C::MAX_LEVEL {
            // A reached vertex's parent is a checked id below 2^32.
            #[allow(clippy::cast_possible_truncation)]
            C::reached(level, parent as u32)
        } else {
            C::unreached()
        };
    }
    count(levels)
}

/// Two (reached, depth) counts as one.
pub(crate) fn add_counts(a: (u64, u32), b: (u64, u32)) -> (u64, u32) {
    (a.0 + b.0, a.1.max(b.1))
}
