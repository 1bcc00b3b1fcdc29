//! Claimed levels: a search's tree proven from the level its kernel claims
//! for each vertex (one byte, `validate::NO_LEVEL` for unreached or too
//! deep), in one exchange and one pass, instead of one round per level.
//!
//! [`Shares`], made once with the [`Incidence`] (untimed): every rank
//! learns, for each other rank, which of its own vertices that rank holds
//! as ghosts ([`GhostRoutes`]), so a search's claims reach the ghosts'
//! cells with no index sent.
//!
//! Per search ([`Levels::certify`]): one exchange of the ghosts' claims
//! (sizes known, one byte a ghost), the claims into the cells' levels (own
//! and ghosts', one array), then a pass over the own vertices in pieces,
//! each in four loops ([`Pass::piece`]): check 1 on the entries alone,
//! each parent's cell as the level rounds find it (`Levels::start`), then
//! each parent's claim from the cells, then the reached count and depth
//! from the claims; with selects, not branches, their random loads
//! prefetched, and compiled for `popcnt` where the processor has it
//! (`docs/history-validate.md`). A vertex holds when:
//! - unreached (parent `-1`) and claiming `NO_LEVEL`;
//! - the root (its own parent, by check 1) and claiming 0;
//! - otherwise its parent has a cell here (else no tuple joins them) and
//!   the parent's claim is exactly one less than its own, at most
//!   `DEEPEST - 1` (levels the batch's bytes hold).
//!
//! Then levels fall by one along every parent pointer down to the only level-0
//! vertex, the root: the parents form a tree (check 2) whose depths are the
//! claims, and the cells hold them as the rounds would have left them
//! (`UNREACHED` for `NO_LEVEL`), so checks 3 and 4 follow unchanged. One
//! agreement (an all-reduce of the failure flag and the depth, one of the
//! reached count) makes every rank take the same way: any claim failing
//! anywhere sends the search to the level rounds, which judge it exactly as
//! without claims. The claims are read, never trusted; nothing of a kernel's
//! graph or code is used.
//!
//! Cost per search: `O(n_r + ghosts)` work, parallel; all ranks together send
//! one byte per ghost (each rank's ghosts summed) and `24 P (P - 1)` bytes for
//! the agreement, `2 log2 P` messages deep. Memory: 5 bytes per vertex another
//! rank holds as a ghost and one per ghost ([`Shares::bytes_for`]).

use super::super::incidence::{GhostRoutes, Ghosts, Incidence};
use super::{Levels, MISSING, NO_PARENT, UNREACHED};
use crate::Partition;
use crate::comm::{Comm, Reduce, all_reduce};
use par::hint::prefetch;
use rayon::prelude::*;
use std::hint::select_unpredictable;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use validate::NO_LEVEL;

/// The deepest level a claim may name: the level rounds' bound, so the
/// cells hold what they would hold after the rounds.
const DEEPEST_CLAIM: u8 = super::DEEPEST - 1;
/// Own vertices per parallel work item of the pass.
const PIECE: usize = 1 << 12;
/// Above every claim (a byte): what a vertex must claim when its parent
/// cannot be one level above it.
const NOT_A_CLAIM: u16 = 1 << 8;
/// How many vertices ahead the pass prefetches a parent's slot word and
/// its claim.
const AHEAD: usize = 16;

/// The routes of the claims to the ghosts and the buffers of a search's
/// exchange, kept from search to search.
#[derive(Debug, Default)]
pub(crate) struct Shares {
    routes: GhostRoutes,
    /// A search's outgoing claims, in export order.
    out: Vec<u8>,
    /// Its ghosts' claims, in ghost-cell order.
    ghost_claims: Vec<u8>,
}

impl Shares {
    /// COLLECTIVE. The routes over `inc` ([`GhostRoutes::build`]).
    pub(crate) fn build(comm: &dyn Comm, inc: &Incidence) -> Shares {
        Shares {
            routes: GhostRoutes::build(comm, inc),
            ..Shares::default()
        }
    }

    /// About the most bytes the shares of a rank with `tuples` tuples, of
    /// `n` vertices in all, take: the routes, and a byte an export and a
    /// ghost, each at most `min(n, 2 tuples)` with tuples spread evenly.
    pub(crate) fn bytes_for(tuples: u64, n: u64) -> u64 {
        GhostRoutes::bytes_for(tuples, n) + 2 * n.min(2 * tuples)
    }
}

impl Levels {
    /// COLLECTIVE. Check 1 on `parents` but the root's range (`root` below
    /// `N`), fused into one pass with the proof of `claims` (this rank's
    /// own vertices', by local index) as the levels of `parents`, a
    /// search from `root`: [`Certified`], the same on every rank. After
    /// `Certified::Tree` the cells and parent cells are those
    /// [`Levels::tree`] leaves. Every rank passes claims (of any length: a
    /// wrong one fails).
    pub(crate) fn certify(
        &mut self,
        comm: &dyn Comm,
        part: Partition,
        inc: &Incidence,
        shares: &mut Shares,
        (root, parents, claims): (u64, &[u64], &[u8]),
    ) -> Certified {
        let (me, rows) = (comm.rank(), inc.rows());
        let fits = claims.len() == rows && parents.len() == rows;
        let claim = |i: usize| if fits { claims[i] } else { NO_LEVEL };
        let (out, ghost) = (&mut shares.out, &mut shares.ghost_claims);
        shares.routes.send(comm, claim, out, ghost);
        if self.levels.len() != inc.cells() {
            self.levels = (0..inc.cells()).map(|_| Default::default()).collect();
        }
        self.parent.resize(rows, 0);
        let (own, theirs) = self.levels.split_at(rows);
        let as_level = |c: u8| if c == NO_LEVEL { UNREACHED } else { c };
        (theirs.par_iter().zip(&shares.ghost_claims))
            .with_min_len(1 << 12)
            .for_each(|(l, &c)| l.store(as_level(c), Relaxed));
        if fits {
            // Own cells first, so that the pass reads every parent's claim
            // from one array of cells, own or ghost, with no branch.
            (own.par_iter().zip(claims))
                .with_min_len(1 << 12)
                .for_each(|(l, &c)| l.store(as_level(c), Relaxed));
        }
        let pass = Pass {
            parents,
            claims,
            ghosts: inc.ghosts(),
            levels: &self.levels[..],
            part,
            me,
            rows,
            own_root: (part.owner(root) == me).then(|| part.local(root)),
            fits,
        };
        #[cfg(target_arch = "x86_64")]
        let popcnt = std::arch::is_x86_feature_detected!("popcnt");
        let pieces = self.parent.par_chunks_mut(PIECE).enumerate();
        let (failed, reached, depth) = pieces
            .map(|(k, ups)| {
                #[cfg(target_arch = "x86_64")]
                if popcnt {
                    // SAFETY: the processor has popcnt, detected above.
                    #[allow(unsafe_code)]
                    return unsafe { piece_popcnt(&pass, k, ups) };
                }
                pass.piece(k, ups)
            })
            .reduce(
                || (Outcome::Tree, 0, 0),
                |a, b| (a.0.max(b.0), a.1 + b.1, a.2.max(b.2)),
            );
        let [failed, depth] = all_reduce(comm, [failed as u64, u64::from(depth)], Reduce::Max);
        let [reached] = all_reduce(comm, [reached], Reduce::Sum);
        match failed {
            0 => Certified::Tree(reached, depth),
            1 => Certified::Claims,
            _ => Certified::Entries,
        }
    }
}

/// One search's pass over this rank's own vertices, a piece at a time.
struct Pass<'a> {
    /// The search's parents, by local index.
    parents: &'a [u64],
    /// Its claimed levels, by local index.
    claims: &'a [u8],
    ghosts: &'a Ghosts,
    /// Each cell's claim (own, then ghosts), as a level.
    levels: &'a [AtomicU8],
    part: Partition,
    me: usize,
    rows: usize,
    /// The root's local index, if this rank owns it.
    own_root: Option<usize>,
    /// Whether the claims are one a vertex (else check 1 only).
    fits: bool,
}

/// [`Pass::piece`] compiled for `popcnt`: a ghost's cell counts the
/// ghosts below it in its slot word with one instruction, not the
/// baseline's dozen (paired, 0.92-0.94 of the pass's time on Intel Xeon;
/// docs/history-validate.md).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn piece_popcnt(pass: &Pass<'_>, k: usize, ups: &mut [u32]) -> (Outcome, u64, u8) {
    pass.piece(k, ups)
}

impl Pass<'_> {
    /// Piece `k` of the own vertices, whose parent cells go to `ups`, in
    /// four loops: check 1 on the entries alone, with no branch or early
    /// exit; each parent's cell, its slot word prefetched `AHEAD`
    /// vertices early (its address is the parent's id over 64, no
    /// owner's division); each vertex's claim against
    /// the one it must make, from its parent's in the one array of cells,
    /// prefetched likewise; the reached count and depth from the claims
    /// alone. Which rank owns a parent, and whether a vertex is reached,
    /// are coin flips to a predictor: `select_unpredictable`, since LLVM
    /// made a plain `if` on an unreached parent a branch. What the piece
    /// found, the vertices it reached and its deepest claim.
    #[inline(always)]
    fn piece(&self, k: usize, ups: &mut [u32]) -> (Outcome, u64, u8) {
        let Pass {
            parents,
            claims,
            ghosts,
            levels,
            part,
            me,
            rows,
            own_root,
            fits,
        } = *self;
        if parents.len() != rows {
            return (Outcome::Entries, 0, 0);
        }
        let (n, first) = (part.num_vertices(), k * PIECE);
        let entries = &parents[first..first + ups.len()];
        // The root's index in the piece, if there (`usize::MAX` is none).
        let root_at = own_root.map_or(usize::MAX, |r| r.wrapping_sub(first));
        // Check 1's entry (`DistValidator::check_pointers`): in range or
        // unreached, and its own parent exactly when the root. Tested
        // whatever the claims, so `Claims` means check 1 holds.
        let v0 = part.first(me) + first as u64;
        let mut bad = false;
        for (j, &p) in entries.iter().enumerate() {
            let out_of_range = (p != u64::MAX) & (p >= n);
            bad |= out_of_range | ((p == v0 + j as u64) != (j == root_at));
        }
        if bad {
            return (Outcome::Entries, 0, 0);
        }
        // Without claims to prove, check 1 is all this pass does: the
        // level rounds find the parents' cells.
        if !fits {
            return (Outcome::Claims, 0, 0);
        }
        // Unreached and the root have no parent cell (`NO_PARENT`); the
        // entries are below `N` or unreached now.
        for (j, up) in ups.iter_mut().enumerate() {
            if let Some(&far) = entries.get(j + AHEAD) {
                ghosts.prefetch(part, if far < n { far } else { 0 });
            }
            let p = entries[j];
            let none = (p == u64::MAX) | (j == root_at);
            let q = select_unpredictable(none, 0, p);
            let cell = ghosts.cell_or(part, me, rows, q, MISSING);
            *up = select_unpredictable(none, NO_PARENT, cell);
        }
        // The claim each vertex must make: `NO_LEVEL` unreached, 0 the
        // root, else its parent's claim plus one, if the parent has a cell
        // and a claim below `DEEPEST_CLAIM` (`NOT_A_CLAIM` otherwise).
        let mut fails = false;
        let at = |cell: u32| if cell < NO_PARENT { cell as usize } else { 0 };
        let claims = &claims[first..first + ups.len()];
        for (j, (&cell, &c)) in ups.iter().zip(claims).enumerate() {
            if let Some(&far) = ups.get(j + AHEAD) {
                prefetch(&levels[at(far)]);
            }
            let above = u16::from(levels[at(cell)].load(Relaxed));
            let edge = (cell < NO_PARENT) & (above < u16::from(DEEPEST_CLAIM));
            let want = select_unpredictable(edge, above + 1, NOT_A_CLAIM);
            let want = select_unpredictable(cell == NO_PARENT, u16::from(NO_LEVEL), want);
            let want = select_unpredictable(j == root_at, 0, want);
            fails |= u16::from(c) != want;
        }
        // Where every claim holds, the reached vertices are those claiming
        // a level and the depth is the deepest claim: from the claims
        // alone, in a loop of its own that vectorises.
        let (mut reached, mut depth) = (0u64, 0u8);
        for &c in claims {
            let unreached = c == NO_LEVEL;
            reached += u64::from(!unreached);
            depth = depth.max(if unreached { 0 } else { c });
        }
        let outcome = if fails {
            Outcome::Claims
        } else {
            Outcome::Tree
        };
        (outcome, reached, depth)
    }
}

/// What a rank's pass found, the worst first when ranks or pieces meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Tree = 0,
    Claims = 1,
    Entries = 2,
}

/// What [`Levels::certify`] proved, the same on every rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Certified {
    /// Checks 1 and 2 hold and the claims are the levels: the reached
    /// vertices and the depth.
    Tree(u64, u64),
    /// Check 1 holds on every rank, but some claim fails.
    Claims,
    /// Some rank's entries fail check 1 (which then names the failure).
    Entries,
}
