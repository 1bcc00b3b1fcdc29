//! Checks 1 and 2 from a certificate: levels the kernel claims, checked
//! instead of found, for a [`Batch`](crate::Batch).
//!
//! A search kernel knows the level at which it found each vertex. If it
//! hands those levels over (one byte a vertex, [`NO_LEVEL`] for unreached),
//! one pass over the vertices checks each vertex on its own:
//!
//! - every parent is `-1` or a vertex id (check 1);
//! - a vertex is unreached (parent `-1`) exactly when its claimed level is
//!   [`NO_LEVEL`];
//! - the root is its own parent, at level 0;
//! - every other reached vertex claims a level of at least 1.
//!
//! The rest of check 2, that each parent claims one level less than its
//! child, is the batch's pass (`lanes.rs`): it marks a reached vertex's
//! tree edge only for a tuple `(parent, v)` whose ends' cells (the claims)
//! are exactly one level apart, and the sweep fails every lane in which
//! a reached vertex other than the root has none. A lane that passes both
//! therefore has claims that descend one level a step along every parent
//! chain, through reached vertices, to the only vertex at level 0, the
//! root: the claims are the tree depths and no chain loops. Nothing is
//! trusted, and this module's pass reads each vertex's own entries only,
//! in order: no random read of the parent's claim
//! (`docs/history-validate.md` has the timing against the pass that read
//! it).
//!
//! If any claim fails here, the pass says only that: the caller runs
//! checks 1 and 2 the usual way (`tree.rs`); if a claim passes here and
//! fails in the batch's pass, the lane is judged alone. Either way a tree
//! is judged, and its error named, exactly as without a certificate, and a
//! wrong claim never makes a wrong tree pass.

use crate::ParentArray;
use crate::tree::{UNREACHED, VERTEX_GRAIN, add_counts};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The claimed level of an unreached vertex (or of one too deep to claim).
pub const NO_LEVEL: u8 = u8::MAX;

/// Checks each vertex's own rules of `claims` as the levels of `parents`, a
/// search from `root` (the parents' claims are left to the batch's pass,
/// above), and on success writes every chunk's output as
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

/// The claims of the vertices of `chunk`, each checked against its own
/// parent entry; their levels (or [`UNREACHED`]) into `levels`. True when
/// every claim holds.
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
    for v in chunk {
        let parent = parents.parent(v);
        let claim = claims[v].load(Relaxed);
        // No branch on reached: reached and unreached vertices interleave
        // at random, so such a branch cannot be predicted (the timings are
        // in `docs/history-validate.md`).
        let reached = parent != -1;
        // In range: 0 <= parent <= last, as one unsigned comparison.
        #[allow(clippy::cast_sign_loss)]
        let id = parent as u64;
        let in_range = id <= last as u64;
        let claim_holds = if v == root {
            (id == root as u64) & (claim == 0)
        } else {
            (claim != 0) & (claim != NO_LEVEL)
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
