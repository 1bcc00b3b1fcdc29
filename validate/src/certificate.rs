//! Checks 1 and 2 from a certificate: levels the kernel claims, checked
//! instead of found.
//!
//! A search kernel knows the level at which it found each vertex. If it
//! hands those levels over (one byte a vertex, [`NO_LEVEL`] for unreached),
//! one pass over the vertices proves them, with no walk:
//!
//! - every parent is `-1` or a vertex id (check 1);
//! - a vertex is unreached (parent `-1`) exactly when its claimed level is
//!   [`NO_LEVEL`];
//! - the root is its own parent, at level 0;
//! - every other reached vertex claims a level of at least 1, and its
//!   parent claims one less.
//!
//! Then the claims are the tree depths (check 2): only the root is at level
//! 0, and from any other reached vertex the parent chain descends one level
//! a step through reached vertices, so it ends at the root within its level
//! in steps, and no chain loops. Nothing is trusted: each vertex costs its
//! parent, its claim and its parent's claim (a random read of an `N`-byte
//! array, in cache where the walks' 4-byte levels were not), and the chunk's
//! cells are written while its levels are at hand, as the walks do.
//!
//! If any claim fails, the pass says only that: the caller runs checks 1
//! and 2 the usual way (`tree.rs`), so a tree is judged, and its error
//! named, exactly as without a certificate, and a wrong claim never makes
//! a wrong tree pass.

use crate::ParentArray;
use crate::tree::{UNREACHED, VERTEX_GRAIN, add_counts};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// How many vertices ahead a parent's claim is prefetched.
const CLAIM_AHEAD: usize = 32;

/// The claimed level of an unreached vertex (or of one too deep to claim).
pub const NO_LEVEL: u8 = u8::MAX;

/// Checks `claims` as the levels of `parents`, a search from `root`, and
/// on success writes every chunk's output as
/// [`walk_and_fill_with`](crate::tree::walk_and_fill_with) does (`fill`,
/// `per`, `out` as there) and returns (reached, deepest level). `None` if
/// any claim fails or a length or the root is wrong. O(N), parallel.
pub(crate) fn certify_and_fill_with<P, T, F>(
    parents: &P,
    root: u64,
    claims: &[AtomicU8],
    out: &mut [T],
    per: usize,
    fill: F,
) -> Option<(u64, u32)>
where
    P: ParentArray + ?Sized,
    T: Send,
    F: Fn(usize, &[u32], &mut [T]) -> (u64, u32) + Sync,
{
    let n = parents.entries();
    let root = usize::try_from(root).ok().filter(|&r| r < n)?;
    // The root must be reached: the pass only checks reached vertices
    // against the root's rule.
    if claims.len() != n || parents.parent(root) != root as i64 {
        return None;
    }
    out[..n.div_ceil(per)]
        .par_chunks_mut(VERTEX_GRAIN / per)
        .enumerate()
        .map_init(Vec::new, |levels, (block, out)| {
            let chunk = block * VERTEX_GRAIN..(block * VERTEX_GRAIN + VERTEX_GRAIN).min(n);
            let first = chunk.start;
            certify_chunk(chunk, root, parents, claims, levels).then(|| fill(first, levels, out))
        })
        .try_reduce(|| (0, 0), |a, b| Some(add_counts(a, b)))
}

/// The claims of the vertices of `chunk`, checked; their levels (or
/// [`UNREACHED`]) into `levels`. True when every claim holds.
fn certify_chunk<P: ParentArray + ?Sized>(
    chunk: std::ops::Range<usize>,
    root: usize,
    parents: &P,
    claims: &[AtomicU8],
    levels: &mut Vec<u32>,
) -> bool {
    let last = claims.len() - 1;
    levels.clear();
    let mut holds = true;
    let end = chunk.end;
    for v in chunk {
        // The parent's claim is a random read: ask for it early.
        if v + CLAIM_AHEAD < end {
            let ahead = parents.parent(v + CLAIM_AHEAD);
            #[allow(clippy::cast_sign_loss)]
            let ahead = (ahead as u64).min(last as u64);
            prefetch(&claims[usize::try_from(ahead).unwrap_or(last)]);
        }
        let parent = parents.parent(v);
        let claim = claims[v].load(Relaxed);
        // No branch on reached: reached and unreached vertices interleave
        // at random, so such a branch cannot be predicted (the timings are
        // in `docs/history-validate.md`). An unreached vertex's parent,
        // `-1`, reads vertex `last`'s claim, unused.
        let reached = parent != -1;
        // In range: 0 <= parent <= last, as one unsigned comparison; an
        // id out of range reads vertex `last` and fails anyway.
        #[allow(clippy::cast_sign_loss)]
        let id = parent as u64;
        let in_range = id <= last as u64;
        let above = claims[usize::try_from(id).unwrap_or(last).min(last)].load(Relaxed);
        let claim_holds = if v == root {
            (id == root as u64) & (claim == 0)
        } else {
            (claim != 0) & (claim != NO_LEVEL) & (above.wrapping_add(1) == claim)
        };
        holds &= if reached {
            in_range & claim_holds
        } else {
            claim == NO_LEVEL
        };
        levels.push(if reached { u32::from(claim) } else { UNREACHED });
    }
    holds
}
