//! Checks 1 and 2: parent ranges, and tree levels by walking parent chains.
//!
//! Levels live in one `AtomicU32` per vertex: [`UNREACHED`] for parent `-1`,
//! [`PENDING`] for a reached vertex whose level is not known yet, otherwise
//! the level. Workers take vertices in blocks; from each pending vertex a
//! worker follows parents, stacking the pending ones, until it meets a known
//! level (the root's 0 at the latest), then assigns levels down the stack.
//!
//! A level, once written, is the vertex's true tree depth, and every worker
//! that writes it writes the same value, so racing workers only repeat work.
//! A chain that never meets a known level is broken: it reaches a second
//! self-parent, a vertex marked unreached, or loops. A walk longer than N
//! steps has certainly entered a loop. The vertices of a broken chain never
//! get a level, so the walk from a given vertex, and the error it reports,
//! is the same whatever the other workers do; the error of the lowest such
//! vertex is reported.

use crate::Invalid;
use crate::cells::Cell;
pub(crate) use crate::cells::UNREACHED;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The level of a reached vertex not yet walked.
const PENDING: u32 = u32::MAX - 1;
/// Vertices per parallel work item.
const VERTEX_GRAIN: usize = 1 << 12;

/// Check 1 for the length and the root; [`assign_levels`] checks every
/// parent's range as it reads it, and then that the root is its own
/// parent.
pub(crate) fn check_lengths(n: usize, root: u64, parents: &[i64]) -> Result<(), Invalid> {
    if parents.len() != n {
        return Err(Invalid::WrongLength {
            found: parents.len(),
            expected: n,
        });
    }
    if usize::try_from(root).is_ok_and(|r| r < n) {
        Ok(())
    } else {
        Err(Invalid::RootOutOfRange {
            root,
            num_vertices: n,
        })
    }
}

/// The rest of check 1 (every parent in range, the root its own parent),
/// then check 2: fills `levels` with tree depths. `parents` must have
/// passed [`check_lengths`]. Reached vertices and the depth are counted by
/// [`fill_cells`].
pub(crate) fn assign_levels(
    root: u64,
    parents: &[i64],
    levels: &[AtomicU32],
) -> Result<(), Invalid> {
    let n = parents.len();
    let in_range = |p: i64| p == -1 || usize::try_from(p).is_ok_and(|p| p < n);
    let out_of_range = levels
        .par_chunks(VERTEX_GRAIN)
        .zip(parents.par_chunks(VERTEX_GRAIN))
        .enumerate()
        .map(|(block, (levels, parents))| {
            for (level, &p) in levels.iter().zip(parents) {
                level.store(if p == -1 { UNREACHED } else { PENDING }, Relaxed);
            }
            let first = parents.iter().position(|&p| !in_range(p));
            first.map(|i| block * VERTEX_GRAIN + i)
        })
        .find_first(Option::is_some)
        .flatten();
    if let Some(v) = out_of_range {
        return Err(Invalid::ParentOutOfRange {
            vertex: v as u64,
            parent: parents[v],
        });
    }
    let root_index = index(root);
    if parents[root_index] != root as i64 {
        return Err(Invalid::RootNotOwnParent {
            root,
            parent: parents[root_index],
        });
    }
    levels[root_index].store(0, Relaxed);

    let first_error = levels
        .par_chunks(VERTEX_GRAIN)
        .enumerate()
        .map_init(Vec::new, |stack, (block, chunk)| {
            let first = block * VERTEX_GRAIN;
            (first..first + chunk.len())
                .filter(|&v| levels[v].load(Relaxed) == PENDING)
                .find_map(|v| walk(v, parents, levels, stack).err())
        })
        .find_first(Option::is_some)
        .flatten();
    match first_error {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Gives pending `v` (and the pending vertices above it) their levels, or reports
/// why `v`'s chain does not end at the root.
fn walk(
    v: usize,
    parents: &[i64],
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
        let parent = index(parents[x] as u64);
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

/// Writes each vertex's [`Cell`] from its level and parent, after
/// [`assign_levels`]; returns (reached, depth). A vertex deeper than
/// `C::MAX_LEVEL` gets an unreached cell: the caller must then fill cells
/// of a deeper kind. O(N), parallel.
pub(crate) fn fill_cells<C: Cell>(
    levels: &[AtomicU32],
    parents: &[i64],
    cells: &mut [C],
) -> (u64, u32) {
    cells
        .par_iter_mut()
        .zip(levels)
        .zip(parents)
        .with_min_len(VERTEX_GRAIN)
        .fold(
            || (0u64, 0u32),
            |(reached, depth), ((cell, level), &parent)| match level.load(Relaxed) {
                UNREACHED => {
                    *cell = C::unreached();
                    (reached, depth)
                }
                level => {
                    // A reached vertex's parent is a checked vertex id
                    // below 2^32.
                    #[allow(clippy::cast_possible_truncation)]
                    let parent = parent as u32;
                    *cell = if level <= C::MAX_LEVEL {
                        C::reached(level, parent)
                    } else {
                        C::unreached()
                    };
                    (reached + 1, depth.max(level))
                }
            },
        )
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)))
}
