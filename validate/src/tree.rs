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
use par::first_index;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The level of a reached vertex not yet walked.
const PENDING: u32 = u32::MAX - 1;
/// Vertices per parallel work item.
const VERTEX_GRAIN: usize = 1 << 12;

/// Check 1: the length, the root, every parent in range, the root its own
/// parent.
pub(crate) fn check_ranges(n: usize, root: u64, parents: &[i64]) -> Result<(), Invalid> {
    if parents.len() != n {
        return Err(Invalid::WrongLength {
            found: parents.len(),
            expected: n,
        });
    }
    let Some(root_index) = usize::try_from(root).ok().filter(|&r| r < n) else {
        return Err(Invalid::RootOutOfRange {
            root,
            num_vertices: n,
        });
    };
    let in_range = |p: i64| p == -1 || usize::try_from(p).is_ok_and(|p| p < n);
    if let Some(v) = first_index(parents.len(), |v| !in_range(parents[v])) {
        return Err(Invalid::ParentOutOfRange {
            vertex: v as u64,
            parent: parents[v],
        });
    }
    if parents[root_index] != root as i64 {
        return Err(Invalid::RootNotOwnParent {
            root,
            parent: parents[root_index],
        });
    }
    Ok(())
}

/// Check 2: fills `levels` with tree depths; returns (reached, depth).
/// `parents` must have passed [`check_ranges`].
pub(crate) fn assign_levels(
    root: u64,
    parents: &[i64],
    levels: &[AtomicU32],
) -> Result<(u64, u32), Invalid> {
    levels
        .par_iter()
        .zip(parents)
        .with_min_len(VERTEX_GRAIN)
        .for_each(|(level, &p)| {
            level.store(if p == -1 { UNREACHED } else { PENDING }, Relaxed);
        });
    levels[index(root)].store(0, Relaxed);

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
    if let Some(error) = first_error {
        return Err(error);
    }

    let (reached, depth) = levels
        .par_iter()
        .with_min_len(VERTEX_GRAIN)
        .map(|l| l.load(Relaxed))
        .filter(|&l| l != UNREACHED)
        .fold(|| (0u64, 0u32), |(count, max), l| (count + 1, max.max(l)))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    Ok((reached, depth))
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

/// Writes each vertex's [`Cell`] from its level and parent. O(N), parallel.
pub(crate) fn fill_cells<C: Cell>(levels: &[AtomicU32], parents: &[i64], cells: &mut [C]) {
    cells
        .par_iter_mut()
        .zip(levels)
        .zip(parents)
        .with_min_len(VERTEX_GRAIN)
        .for_each(|((cell, level), &parent)| {
            *cell = match level.load(Relaxed) {
                UNREACHED => C::unreached(),
                // A reached vertex's parent is a checked vertex id below 2^32.
                #[allow(clippy::cast_possible_truncation)]
                level => C::reached(level, parent as u32),
            };
        });
}
