//! Checks 3 and 4, and nedge: one parallel pass over the input tuples.
//!
//! For each tuple that is not a self-loop: if both ends are unreached it is
//! outside the search; if exactly one is reached, check 4 fails; otherwise
//! the levels must differ by at most one, and the tuple counts toward nedge.
//! A tuple `(u, v)` with `parent[v] == u` (or `parent[u] == v`) marks the tree
//! edge of `v` (or `u`) as present. Afterwards every reached vertex but the
//! root must have its tree edge marked (check 3).
//!
//! A block that meets an error keeps marking tree edges to the end, so check
//! 3's verdict never depends on where a check-4 error was found, and check 3
//! is reported first when both fail. Within a failed check, the error of the
//! lowest tuple (or vertex) is reported.

use crate::Invalid;
use crate::tree::UNREACHED;
use generator::Edge;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

/// Tuples per parallel work item.
const EDGE_GRAIN: usize = 1 << 14;

/// Checks 3 and 4; returns nedge.
pub(crate) fn check_edges(
    edges: &[Edge],
    parents: &[i64],
    levels: &[AtomicU32],
    seen: &[AtomicBool],
) -> Result<u64, Invalid> {
    seen.par_iter()
        .with_min_len(1 << 14)
        .for_each(|s| s.store(false, Relaxed));

    let (nedge, level_error) = edges
        .par_chunks(EDGE_GRAIN)
        .enumerate()
        .map(|(block, chunk)| check_block(block * EDGE_GRAIN, chunk, parents, levels, seen))
        .reduce(|| (0, None), |a, b| (a.0 + b.0, a.1.or(b.1)));

    // Only the root has level 0.
    let missing = levels.par_iter().zip(seen).position_first(|(level, seen)| {
        let level = level.load(Relaxed);
        level != UNREACHED && level != 0 && !seen.load(Relaxed)
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
fn check_block(
    first: usize,
    chunk: &[Edge],
    parents: &[i64],
    levels: &[AtomicU32],
    seen: &[AtomicBool],
) -> (u64, Option<Invalid>) {
    let mut nedge = 0;
    let mut error = None;
    for (i, e) in chunk.iter().enumerate() {
        if e.is_self_loop() {
            continue;
        }
        let (u, v) = (e.u as usize, e.v as usize);
        if parents[v] == i64::from(e.u) {
            seen[v].store(true, Relaxed);
        }
        if parents[u] == i64::from(e.v) {
            seen[u].store(true, Relaxed);
        }
        let (level_u, level_v) = (levels[u].load(Relaxed), levels[v].load(Relaxed));
        let edge = (first + i) as u64;
        let found = match (level_u == UNREACHED, level_v == UNREACHED) {
            (true, true) => continue,
            (false, false) if level_u.abs_diff(level_v) <= 1 => {
                nedge += 1;
                continue;
            }
            (false, false) => Invalid::LevelGap {
                edge,
                u: e.u.into(),
                v: e.v.into(),
                level_u,
                level_v,
            },
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
        };
        error.get_or_insert(found);
    }
    (nedge, error)
}
