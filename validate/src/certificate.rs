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
use crate::lanes::{ROW_AHEAD, TILE};
use crate::tree::{UNREACHED, VERTEX_GRAIN, add_counts, count};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// How many tiles ahead the parents' claims are prefetched.
const CLAIMS_AHEAD: usize = 2;

/// The claimed level of an unreached vertex (or of one too deep to claim).
pub const NO_LEVEL: u8 = u8::MAX;

/// Sixteen vertices' levels ([`UNREACHED`] for unreached) and parents (the
/// low 32 bits; a reached vertex's is a checked id), as the certificate
/// proved them.
pub(crate) struct Proved {
    pub(crate) levels: [u32; TILE],
    pub(crate) parents: [u32; TILE],
}

/// Checks `claims` as the levels of `parents`, a search from `root`, and
/// on success hands each tile's proved levels and parents to `fill` with
/// the tile's slot of `out` (one per [`TILE`] vertices; the last tile's
/// vertices past `N` are unreached), then returns (reached, deepest
/// level). `ahead(slot)` is called a few tiles before `fill` writes that
/// slot, to prefetch it. `None` if any claim fails or a length or the root
/// is wrong. O(N), parallel.
pub(crate) fn certify_and_fill_with<P, T, F, A>(
    parents: &P,
    root: u64,
    claims: &[AtomicU8],
    out: &mut [T],
    fill: F,
    ahead: A,
) -> Option<(u64, u32)>
where
    P: ParentArray + ?Sized,
    T: Send,
    F: Fn(&Proved, &mut T) + Sync,
    A: Fn(&T) + Sync,
{
    let n = parents.entries();
    let root = usize::try_from(root).ok().filter(|&r| r < n)?;
    // The root must be reached: the pass only checks reached vertices
    // against the root's rule.
    if claims.len() != n || parents.parent(root) != root as i64 {
        return None;
    }
    let tiles = n.div_ceil(TILE);
    out[..tiles]
        .par_chunks_mut(VERTEX_GRAIN / TILE)
        .enumerate()
        .map(|(chunk, out)| {
            let first = chunk * VERTEX_GRAIN;
            let mut holds = true;
            let mut counts = (0, 0);
            for t in 0..out.len() {
                let start = first + t * TILE;
                if let Some(slot) = out.get(t + ROW_AHEAD) {
                    ahead(slot);
                }
                if start + CLAIMS_AHEAD * TILE < n {
                    prefetch_claims(start + CLAIMS_AHEAD * TILE, parents, claims);
                }
                let (proved, tile_holds) = certify_tile(start, root, parents, claims);
                holds &= tile_holds;
                fill(&proved, &mut out[t]);
                counts = add_counts(counts, count(proved.levels.iter().copied()));
            }
            holds.then_some(counts)
        })
        .try_reduce(|| (0, 0), |a, b| Some(add_counts(a, b)))
}

/// Prefetches the claims of the parents of the tile from `start` (up to
/// sixteen vertices, fewer at the end).
#[inline(always)]
fn prefetch_claims<P: ParentArray + ?Sized>(start: usize, parents: &P, claims: &[AtomicU8]) {
    let last = claims.len() - 1;
    for v in start..(start + TILE).min(claims.len()) {
        #[allow(clippy::cast_sign_loss)]
        let parent = (parents.parent(v) as u64).min(last as u64);
        prefetch(&claims[usize::try_from(parent).unwrap_or(last)]);
    }
}

/// The claims of the sixteen vertices from `start` checked: their proved
/// levels and parents, and true when every claim holds. Vertices past the
/// end are unreached (and read the last vertex's parent and claims).
#[inline(always)]
fn certify_tile<P: ParentArray + ?Sized>(
    start: usize,
    root: usize,
    parents: &P,
    claims: &[AtomicU8],
) -> (Proved, bool) {
    let last = claims.len() - 1;
    // The loads, one by one; -1, and any id out of range, reads vertex
    // `last`'s claim, unused.
    let vertex = |i: usize| (start + i).min(last);
    #[allow(clippy::cast_sign_loss)]
    let id: [u64; TILE] = std::array::from_fn(|i| parents.parent(vertex(i)) as u64);
    let claim: [u8; TILE] = std::array::from_fn(|i| claims[vertex(i)].load(Relaxed));
    let above: [u8; TILE] = std::array::from_fn(|i| {
        claims[usize::try_from(id[i]).unwrap_or(last).min(last)].load(Relaxed)
    });
    // The tests and selects, lane-wise and without branches: reached and
    // unreached vertices interleave at random.
    let mut holds = [false; TILE];
    let mut levels = [0u32; TILE];
    let mut ids = [0u32; TILE];
    for i in 0..TILE {
        let exists = start + i <= last;
        let reached = (id[i] != u64::MAX) & exists;
        // In range: 0 <= parent <= last, as one unsigned comparison.
        let in_range = id[i] <= last as u64;
        let (c, a) = (claim[i], above[i]);
        let claim_holds = (c != 0) & (c != NO_LEVEL) & (a.wrapping_add(1) == c);
        holds[i] = (reached & in_range & claim_holds) | (!reached & ((c == NO_LEVEL) | !exists));
        levels[i] = if reached { u32::from(c) } else { UNREACHED };
        #[allow(clippy::cast_possible_truncation)] // a reached vertex's id is checked
        let low = id[i] as u32;
        ids[i] = low;
    }
    // The root's own rule: its own parent, at level 0.
    if let Some(i) = root.checked_sub(start).filter(|&i| i < TILE) {
        holds[i] = (id[i] == root as u64) & (claim[i] == 0);
    }
    let proved = Proved {
        levels,
        parents: ids,
    };
    (proved, holds.iter().all(|&h| h))
}
