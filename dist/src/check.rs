//! `DistValidator`: proof, across the ranks, that a distributed parent
//! array is a BFS tree of the input tuples, and the search's nedge.
//!
//! It reads only the tuples and the parents, never a kernel's graph, so it
//! judges the distributed kernels independently. Its checks and failures
//! are those of `validate` ([`Invalid`], with global ids and positions):
//!
//! 1. locally: parents are `-1` or below `N`, the root is its own parent
//!    and no other vertex is (a second root fails check 2);
//! 2. levels, one round per level: each vertex still without a level asks
//!    its parent's owner for the parent's level and takes it plus one; the
//!    answer "unreached" is `ParentUnreached`. If instead a round teaches
//!    nothing, the vertices still waiting lie on or hang off loops of
//!    parents; pointer jumping (`ceil(log2 N)` doublings) lands on a loop,
//!    which is named (`Cycle`);
//! 3. and 4. in rounds of at most `ROUND` tuples per rank, the holder of a
//!    tuple `(u, v)`, not a self-loop, asks `owner(u)` for `u`'s level
//!    (sending `local(u)` and `v`), and `owner(v)` likewise; an owner asked
//!    about `x` with `parent[x]` as the other end marks `x` confirmed. The
//!    holder judges the tuple: both ends reached or neither
//!    (`HalfReachedEdge`), levels at most one apart (`LevelGap`), and if
//!    reached it counts toward nedge. Every reached vertex but the root must
//!    end confirmed (`NotAnEdge`);
//! 6. the global nedge equals the claimed one (`NedgeMismatch`).
//!
//! With the tuples regrouped (`Incidence`), checks 2-5 are first a proof
//! that names nothing (`Levels`): levels in one round per level, then
//! checks 3 and 4 on the arcs with no message; a search it does not
//! settle goes to the rounds above, which name the failure. A run of many
//! searches holds up to 16 proven trees ([`DistValidator::hold`]) and
//! judges checks 3 and 4 for all of them in one pass over the arcs
//! ([`DistValidator::settle`], `Batch`); a search's validation then costs
//! its checks 1 and 2 and a sixteenth of that pass. A kernel that claims
//! each vertex's level ([`DistValidator::hold_claimed`]) spares the level
//! rounds: one exchange of a byte per ghost and one pass prove the claims
//! (`levels/claims.rs`), and a failed claim anywhere falls back to the
//! rounds, so the verdicts are those without claims.
//!
//! Invariants. Every rank calls the same collectives in the same order:
//! round counts come from all-reduces, and each phase ends in an agreement
//! (all-reduces: one of a word when no rank failed, else four that pick
//! the first failure's record, `comm::all_reduce_first`) after which all
//! stop or all go on. All ranks pick the same failure: the lowest
//! check, then the lowest vertex or tuple position, then the lowest rank;
//! for checks 1, 3, 4 and 6 that is the one the single-process validator
//! names. Replies return in request order and `route` keeps each
//! destination's items in input order, so a holder finds a tuple's two
//! replies with one cursor per rank: positions never travel.
//!
//! Files: this one holds the validator's state and a search's way through
//! the proof; `held.rs` the batch of held searches; `by_tuples.rs` the
//! tuple rounds' checks, which name failures; `tree.rs` the per-vertex
//! state both validators share; `tuple_rounds.rs` a round of requests
//! about tuples' ends; `record.rs` failures as all-reduce records.
//!
//! The SSSP validator (`sssp_check.rs`) shares all of this but the
//! answers and the judgement: [`Tree`] holds the per-vertex state and runs
//! check 1's scan, check 2, the confirmations' tally and the agreements;
//! [`TupleRounds`] runs a round of requests about tuples' ends. Its proof
//! shares the regrouping (`Incidence`, built with the weights) and the
//! level rounds (`Levels::tree`).

use crate::Partition;
use crate::comm::Comm;
use generator::Tuple;
use validate::{Invalid, TreeSummary};

mod batch;
mod by_tuples;
mod held;
mod incidence;
mod levels;
mod record;
mod tree;
mod tuple_rounds;

use batch::Batch;
#[cfg(test)]
use batch::LANES;

pub(crate) use incidence::{GhostRoutes, Incidence};
pub(crate) use levels::{Certified, Levels, NO_PARENT, Shares};
#[cfg(test)]
pub(crate) use record::{AGREED, RECORD};
pub(crate) use record::{first, same_nedge};
pub(crate) use tree::{Tree, local32};
pub(crate) use tuple_rounds::{TupleRounds, rounds};

/// Tuples a rank judges per round of checks 3 and 4: a round's buffers
/// take 48 bytes a tuple with 32-bit ids (requests out and in, answers,
/// replies; 80 with 64-bit ids), so 2^19 tuples are 24 MiB. Larger rounds
/// bought no speed and broke the ranks' memory bound
/// (`docs/history-validate.md`).
pub(crate) const ROUND: usize = 1 << 19;
/// A failure, and the vertex or tuple position that orders it in its kind.
pub(crate) type Found = Option<(u64, Invalid)>;

/// One rank's side of the distributed validator: the communicator, the
/// rank's tuples, and 9 bytes of working memory per vertex it owns.
pub struct DistValidator<'c, T: Tuple> {
    tree: Tree<'c>,
    tuples: &'c [T],
    first_tuple: u64,
    round: usize,
    /// A tuple round's buffers, kept from round to round and search to
    /// search (fresh ones cost a page fault per 4 KiB, about a sixth of a
    /// validation at SCALE 20 on 2 ranks).
    rounds: TupleRounds<T, u32>,
    /// The tuples regrouped by the vertices they touch, for the proof
    /// (`None`: every search goes through the tuple rounds).
    incidence: Option<Incidence>,
    /// The proof's levels and buffers.
    levels: Levels,
    /// Which own vertices each rank holds as ghosts, for claimed levels.
    shares: Shares,
    /// Proven searches waiting for check 4 ([`DistValidator::hold`]).
    batch: Batch,
    /// How many searches the proof did not settle (valid or not, the tuple
    /// rounds then judged them).
    unproven: u64,
    /// How many searches' claimed levels held.
    certified: u64,
}

impl<'c, T: Tuple> DistValidator<'c, T> {
    /// COLLECTIVE. `tuples`: this rank's share of the input tuples (global
    /// ids), which are the tuples numbered `first_tuple ..` in the global
    /// list (errors name global positions). Regroups the tuples by the
    /// vertices they touch (`Incidence`, two passes of messages in rounds
    /// of `ROUND` tuples) and allocates the per-vertex state, once
    /// ([`DistValidator::bytes_for`]).
    pub fn new(comm: &'c dyn Comm, part: Partition, tuples: &'c [T], first_tuple: u64) -> Self {
        Self::with_round(comm, part, tuples, first_tuple, ROUND)
    }

    /// [`DistValidator::new`] with rounds of `round` tuples, at
    /// construction and in the tuple rounds.
    pub(crate) fn with_round(
        comm: &'c dyn Comm,
        part: Partition,
        tuples: &'c [T],
        first_tuple: u64,
        round: usize,
    ) -> Self {
        let incidence = Incidence::build(comm, part, tuples, None, round);
        let shares =
            (incidence.as_ref()).map_or_else(Shares::default, |inc| Shares::build(comm, inc));
        DistValidator {
            tree: Tree::new(comm, part),
            tuples,
            first_tuple,
            round,
            rounds: TupleRounds::default(),
            batch: incidence.as_ref().map(Batch::new).unwrap_or_default(),
            incidence,
            levels: Levels::default(),
            shares,
            unproven: 0,
            certified: 0,
        }
    }

    /// About the most bytes a validator takes on a rank with `rows` own
    /// vertices and `tuples` tuples, of `n` vertices in all: the
    /// `Incidence` (8 bytes a tuple, 8 an own vertex, `3 n / 16`), the proof's
    /// `Levels` (4 a cell, 16 an own vertex, `n / 8` for a round's
    /// announcements), the held searches' `Batch` (32 bytes a cell, 192 an own
    /// vertex, 8 a tuple), 9 per own vertex for the tuple rounds' state, and
    /// the shares for claimed levels (6 bytes a ghost), the larger of their
    /// level round's buffers (about 32 per vertex) and
    /// a tuple round's (about `48 + 4 size_of::<T>()` per tuple of the
    /// round; the same as the incidence's construction needs).
    pub fn bytes_for(rows: u64, tuples: u64, n: u64) -> u64 {
        let per_tuple = 48 + 4 * size_of::<T>() as u64;
        Incidence::bytes_for(rows, tuples, n, false)
            + Levels::bytes_for(rows, tuples, n)
            + Shares::bytes_for(tuples, n)
            + Batch::bytes_for(rows, rows + n.min(2 * tuples), tuples)
            + 9 * rows
            + (32 * rows).max(per_tuple * tuples.min(ROUND as u64))
    }

    /// How many searches so far the proof did not settle, so that the
    /// tuple rounds judged them.
    #[cfg(test)]
    pub(crate) fn unproven(&self) -> u64 {
        self.unproven
    }

    /// How many searches so far had checks 1 and 2 proven from the levels
    /// their kernel claimed ([`DistValidator::check_claimed`]), with no
    /// level rounds; the same on every rank.
    pub fn certified(&self) -> u64 {
        self.certified
    }

    /// COLLECTIVE. Checks the search from `root` (global, the same on every
    /// rank) whose result is `parents`: this rank's vertices' parents, by
    /// local index, global ids, `u64::MAX` for unreached (`-1`).
    /// `claimed_nedge` is the run's nedge (check 6 is skipped if `None`).
    /// Every rank returns the same verdict: global figures, or one failure.
    ///
    /// Cost per rank: `O((N/P) (L + 1) + M/P)` work, parallel on the current
    /// rayon pool (`L`: the mean level of the reached vertices). All ranks
    /// together send at most `4 s + 8` bytes per tuple that is not a
    /// self-loop (two requests of two `s`-byte ids, as wide as the input
    /// tuples, and two replies of 4), 8 per reached vertex and level
    /// above it (a request and a reply of 4 each round it waits), and
    /// `O(P^2 (depth + 4))` in agreements and reductions; spread uniformly,
    /// a fraction `(P - 1) / P` of the first two leaves its rank.
    pub fn check(
        &mut self,
        root: u64,
        parents: &[u64],
        claimed_nedge: Option<u64>,
    ) -> Result<TreeSummary, Invalid> {
        self.check_claimed(root, parents, None, claimed_nedge)
    }

    /// COLLECTIVE. [`DistValidator::check`] with the level the kernel
    /// claims for each of this rank's vertices (`claims`, by local index,
    /// `validate::NO_LEVEL` for unreached or too deep; every rank passes
    /// claims, or none does). The claims are proven in one exchange and
    /// one pass instead of the level rounds (`levels/claims.rs`); if any
    /// fails, the search is judged as without claims, so the verdict is
    /// the same either way. Costs one byte a ghost and one agreement more
    /// than a proof without claims when a claim fails; saves the rounds
    /// when they hold.
    pub fn check_claimed(
        &mut self,
        root: u64,
        parents: &[u64],
        claims: Option<&[u8]>,
        claimed_nedge: Option<u64>,
    ) -> Result<TreeSummary, Invalid> {
        if let Some(tree) = self.tree(root, parents, claims)? {
            let (comm, incidence) = (self.tree.comm, self.incidence.as_ref());
            let incidence = incidence.expect("a tree proven over the incidence");
            if let Some(proven) = self.levels.prove(comm, incidence, tree) {
                let nedge = proven.nedge;
                same_nedge(nedge, claimed_nedge)?;
                return Ok(TreeSummary {
                    nedge,
                    reached: proven.reached,
                    depth: u32::try_from(proven.depth).expect("a level"),
                });
            }
        }
        if self.incidence.is_some() {
            self.unproven += 1;
        }
        self.by_tuples(root, parents, claimed_nedge)
    }

    /// COLLECTIVE. Check 1 (`Err`: its failure), then check 2 and every
    /// parent's cell, over the incidence: from `claims` if given and they
    /// all hold (counted as certified; check 1 then fused into their
    /// pass), else by the level rounds. The reached vertices and the
    /// depth, or `None` (on every rank) without an incidence or if the
    /// tree fails.
    fn tree(
        &mut self,
        root: u64,
        parents: &[u64],
        claims: Option<&[u8]>,
    ) -> Result<Option<(u64, u64)>, Invalid> {
        let (comm, part) = (self.tree.comm, self.tree.part);
        match (&self.incidence, claims) {
            (Some(incidence), Some(claims)) => {
                self.root_in_range(root)?;
                let (search, shares) = ((root, parents, claims), &mut self.shares);
                match self.levels.certify(comm, part, incidence, shares, search) {
                    Certified::Tree(reached, depth) => {
                        self.certified += 1;
                        return Ok(Some((reached, depth)));
                    }
                    // Some rank's entries fail: check 1 names the failure.
                    Certified::Entries => self.check_root_and_pointers(root, parents)?,
                    Certified::Claims => {}
                }
            }
            _ => self.check_root_and_pointers(root, parents)?,
        }
        let Some(incidence) = &self.incidence else {
            return Ok(None);
        };
        Ok(self.levels.tree(comm, part, incidence, root, parents))
    }
}

#[cfg(test)]
pub(crate) mod tests;
