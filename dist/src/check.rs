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
//! The SSSP validator (`sssp_check.rs`) shares all of this but the
//! answers and the judgement: [`Tree`] holds the per-vertex state and runs
//! check 1's scan, check 2, the confirmations' tally and the agreements;
//! [`TupleRounds`] runs a round of requests about tuples' ends. Its proof
//! shares the regrouping (`Incidence`, built with the weights) and the
//! level rounds (`Levels::tree`).

use crate::Partition;
use crate::comm::{
    Comm, Reduce, all_reduce, all_reduce_first, exchange, exchange_into, exchange_known,
    exchange_known_into,
};
use crate::route::{Outbox, Sends, route, route_into};
use bytemuck::Pod;
use generator::Tuple;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use validate::{ExactF32, Invalid, TreeSummary};

mod batch;
mod incidence;
mod levels;

use batch::{Batch, Held, LANES};

pub(crate) use incidence::{GhostRoutes, Incidence};
pub(crate) use levels::{Certified, Levels, NO_PARENT, Shares};

/// Tuples a rank judges per round of checks 3 and 4: a round's buffers
/// take 48 bytes a tuple with 32-bit ids (requests out and in, answers,
/// replies; 80 with 64-bit ids), so 2^19 tuples are 24 MiB. Larger rounds
/// bought no speed and broke the ranks' memory bound
/// (`docs/history-validate.md`).
pub(crate) const ROUND: usize = 1 << 19;
/// Levels of vertices not reached (parent `-1`, `u64::MAX` here) and of
/// reached ones whose level is not known yet.
const UNREACHED: u32 = u32::MAX;
const PENDING: u32 = u32::MAX - 1;
/// Words of a failure record: order, subject, variant, five fields.
pub(crate) const RECORD: usize = 8;
/// Bytes a rank counts per other rank for an agreement no rank fails
/// ([`Tree::agree`]: one all-reduce of a word).
#[cfg(test)]
pub(crate) const AGREED: u64 = 8;
/// Tuples per parallel work item.
const GRAIN: usize = 1 << 14;

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
    /// announcements), the held searches' `Batch` (16 bytes a cell, 192 an own
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

    /// How many searches [`DistValidator::hold`] keeps for one
    /// [`DistValidator::settle`]: 16, or 1 without the regrouped tuples
    /// (each search then goes to the tuple rounds at once).
    pub fn lanes(&self) -> usize {
        if self.incidence.is_some() { LANES } else { 1 }
    }

    /// COLLECTIVE. [`DistValidator::check`] in two steps, for a run that
    /// validates many searches: checks 1 and 2 of the search from `root`
    /// now, and checks 3 and 4 and nedge with up to [`DistValidator::lanes`]
    /// searches at once, in one pass over the arcs, at the next
    /// [`DistValidator::settle`]. `Ok(None)`: held (then `parents` is
    /// swapped for a spare buffer of the same length, whose contents are
    /// unspecified); `Ok(Some)` or `Err`: judged at once, the verdict of
    /// [`DistValidator::check`] (a search the proof does not settle goes
    /// to the tuple rounds). Hold no more than `lanes()` searches between
    /// two settles.
    ///
    /// Cost per search: what [`DistValidator::check`] costs but its pass
    /// over the arcs, which the settle does once for all held searches,
    /// plus a copy of one byte per cell; no more bytes sent.
    pub fn hold(
        &mut self,
        root: u64,
        parents: &mut Vec<u64>,
        claimed_nedge: Option<u64>,
    ) -> Result<Option<TreeSummary>, Invalid> {
        self.hold_claimed(root, parents, None, claimed_nedge)
    }

    /// COLLECTIVE. [`DistValidator::hold`] with the levels the kernel
    /// claims, as [`DistValidator::check_claimed`] takes them.
    pub fn hold_claimed(
        &mut self,
        root: u64,
        parents: &mut Vec<u64>,
        claims: Option<&[u8]>,
        claimed_nedge: Option<u64>,
    ) -> Result<Option<TreeSummary>, Invalid> {
        if self.incidence.is_none() {
            return self.check(root, parents, claimed_nedge).map(Some);
        }
        if let Some((reached, depth)) = self.tree(root, parents, claims)? {
            let held = Held {
                root,
                claimed_nedge,
                reached,
                depth,
            };
            let mut ups = Vec::new();
            self.levels.swap_parent_cells(&mut ups);
            self.batch
                .hold(self.levels.cells(), &mut ups, held, parents);
            self.levels.swap_parent_cells(&mut ups);
            return Ok(None);
        }
        self.unproven += 1;
        self.by_tuples(root, parents, claimed_nedge).map(Some)
    }

    /// COLLECTIVE. The verdicts of the searches held since the last
    /// settle, in the order held: checks 3 and 4 and nedge for all of them
    /// in one pass over the arcs, then, for each that fails there, the tuple
    /// rounds, which name its failure. Holds none after.
    ///
    /// Cost: one pass over this rank's judged arcs, grouped by block, one
    /// over all its arcs, and one all-reduce of `2 LANES` words, plus the
    /// tuple rounds of each failed search.
    pub fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        let (Some(incidence), true) = (&self.incidence, self.batch.len() > 0) else {
            return Vec::new();
        };
        let comm = self.tree.comm;
        let (bad, nedge) = self.batch.judge(incidence);
        let sums: [u64; 2 * LANES] = std::array::from_fn(|k| {
            if k < LANES {
                u64::from(bad[k])
            } else {
                nedge[k - LANES]
            }
        });
        let sums = all_reduce(comm, sums, Reduce::Sum);
        let mut verdicts = Vec::with_capacity(self.batch.len());
        for (lane, (held, parents)) in self.batch.take().into_iter().enumerate() {
            let verdict = if sums[lane] == 0 {
                let nedge = sums[LANES + lane];
                same_nedge(nedge, held.claimed_nedge).map(|()| TreeSummary {
                    nedge,
                    reached: held.reached,
                    depth: u32::try_from(held.depth).expect("a level"),
                })
            } else {
                self.unproven += 1;
                self.by_tuples(held.root, &parents, held.claimed_nedge)
            };
            self.batch.give_back(lane, parents);
            verdicts.push(verdict);
        }
        verdicts
    }

    /// Check 1's root range (the same on every rank: no message).
    fn root_in_range(&self, root: u64) -> Result<(), Invalid> {
        let n = self.tree.part.num_vertices();
        if root >= n {
            let num_vertices = usize::try_from(n).expect("N fits memory");
            return Err(Invalid::RootOutOfRange { root, num_vertices });
        }
        Ok(())
    }

    /// Check 1's root range, then check 1 and second roots on every rank's
    /// entries (one agreement).
    fn check_root_and_pointers(&self, root: u64, parents: &[u64]) -> Result<(), Invalid> {
        self.root_in_range(root)?;
        self.tree.agree(self.check_pointers(root, parents))
    }

    /// Checks 2-6 by the tuple rounds, which name the failure as one
    /// process does.
    fn by_tuples(
        &mut self,
        root: u64,
        parents: &[u64],
        claimed_nedge: Option<u64>,
    ) -> Result<TreeSummary, Invalid> {
        self.tree.assign_levels(root, parents)?;
        let (nedge, found) = self.check_tuples(parents);
        let (reached, depth) = self.tree.reached_and_depth();
        let comm = self.tree.comm;
        let [nedge, reached] = all_reduce(comm, [nedge, reached], Reduce::Sum);
        let [depth] = all_reduce(comm, [depth], Reduce::Max);
        self.tree.conclude(found, nedge, claimed_nedge)?;
        Ok(TreeSummary {
            nedge,
            reached,
            depth: u32::try_from(depth).expect("a level"),
        })
    }

    /// Check 1 and second roots, on this rank's entries alone.
    fn check_pointers(&self, root: u64, parents: &[u64]) -> Found {
        let (n, start) = (self.tree.part.num_vertices(), self.tree.start());
        if parents.len() != self.tree.rows() {
            let (found, expected) = (parents.len(), self.tree.rows());
            return Some((0, Invalid::WrongLength { found, expected }));
        }
        // Entries print as the Graph500 int64 they stand for, bit for bit.
        let entry = |i: usize| {
            let (vertex, parent) = (start + i as u64, parents[i]);
            let parent = (parent != u64::MAX && parent >= n).then_some(parent as i64)?;
            Some(Invalid::ParentOutOfRange { vertex, parent })
        };
        let root_entry = |r: usize| {
            let parent = (parents[r] != root).then_some(parents[r] as i64)?;
            Some(Invalid::RootNotOwnParent { root, parent })
        };
        self.tree.check_entries(root, parents, entry, root_entry)
    }

    /// Checks 3 and 4 over this rank's tuples, in rounds: this rank's nedge
    /// and its first failure.
    fn check_tuples(&mut self, parents: &[u64]) -> (u64, Found) {
        let (comm, part, tuples) = (self.tree.comm, self.tree.part, self.tuples);
        self.tree.clear_confirmed();
        let (levels, confirmed) = (&self.tree.levels, &self.tree.confirmed);
        let b = &mut self.rounds;
        let ends = |e: &T| (!e.is_self_loop()).then(|| e.ends());
        let (mut nedge, mut found) = (0, None);
        for range in rounds(comm, tuples.len(), self.round) {
            let chunk = &tuples[range.clone()];
            let asked_counts = b.send(comm, part, chunk, ends);
            b.answer(comm, &asked_counts, |_, x, other| {
                if parents[x] == other {
                    confirmed[x].store(true, Relaxed);
                }
                levels[x].load(Relaxed)
            });
            let position = self.first_tuple + range.start as u64;
            let (count, error) = b.judge(part, chunk, position, ends, |edge, e, replies| {
                replies.map_or(Ok(false), |[lu, lv]| judge_tuple(edge, e.ends(), lu, lv))
            });
            nedge += count;
            found = first(found, error);
        }
        let start = self.tree.start();
        let missing = (self.tree.unconfirmed())
            .map(|i| (start + i as u64, parents[i]))
            .map(|(vertex, parent)| (vertex, Invalid::NotAnEdge { vertex, parent }));
        (nedge, first(missing, found))
    }
}

/// What both distributed validators keep per own vertex, and the phases
/// they share: check 1's scan of the entries, check 2's level rounds, the
/// tally of confirmations (check 3) and the agreements on failures.
/// 9 bytes per own vertex.
pub(crate) struct Tree<'c> {
    pub(crate) comm: &'c dyn Comm,
    pub(crate) part: Partition,
    /// The tree level of each own vertex, or a code above.
    levels: Vec<AtomicU32>,
    /// Whether an input tuple joins the vertex to its parent (for SSSP,
    /// also giving its distance).
    pub(crate) confirmed: Vec<AtomicBool>,
    /// Own vertices still waiting for a level, ascending local indices.
    pending: Vec<u32>,
}

impl<'c> Tree<'c> {
    /// The state for this rank's vertices. Not collective.
    pub(crate) fn new(comm: &'c dyn Comm, part: Partition) -> Self {
        let rows = part.count(comm.rank());
        local32(rows); // Local indices travel as u32: fail now, not mid-check.
        Tree {
            comm,
            part,
            levels: (0..rows).map(|_| AtomicU32::new(UNREACHED)).collect(),
            confirmed: (0..rows).map(|_| AtomicBool::new(false)).collect(),
            pending: Vec::with_capacity(rows),
        }
    }

    /// How many vertices this rank owns.
    pub(crate) fn rows(&self) -> usize {
        self.levels.len()
    }

    /// The global id of this rank's first vertex.
    pub(crate) fn start(&self) -> u64 {
        self.part.first(self.comm.rank())
    }

    /// Check 1's entries and second roots, on this rank's entries alone
    /// (`parents` of the right length): the lowest own vertex `i` (local)
    /// for which `entry(i)` names a failure; else, on the root's owner,
    /// `root_entry(local(root))`'s; else the lowest second root.
    pub(crate) fn check_entries(
        &self,
        root: u64,
        parents: &[u64],
        entry: impl Fn(usize) -> Option<Invalid> + Sync,
        root_entry: impl FnOnce(usize) -> Option<Invalid>,
    ) -> Found {
        let start = self.start();
        let own = |i: usize| parents[i] == start + i as u64 && parents[i] != root;
        // One pass over the entries finds the first suspect; the lowest bad
        // entry and the lowest second root lie at or after it.
        let len = parents.len();
        let from = first_where(len, |i| own(i) || entry(i).is_some()).unwrap_or(len);
        let bad = (from..len).find(|&i| entry(i).is_some());
        if let Some(i) = bad {
            return Some((start + i as u64, entry(i).expect("a bad entry")));
        }
        let owns_root = self.part.owner(root) == self.comm.rank();
        if let Some(e) = owns_root
            .then(|| root_entry(self.part.local(root)))
            .flatten()
        {
            return Some((root, e));
        }
        let vertex = start + (from..len).find(|&i| own(i))? as u64;
        Some((vertex, Invalid::SecondRoot { vertex }))
    }

    /// Check 2: fills `levels`, one request/reply round per level.
    pub(crate) fn assign_levels(&mut self, root: u64, parents: &[u64]) -> Result<(), Invalid> {
        let (comm, part, levels) = (self.comm, self.part, &self.levels);
        levels.par_iter().zip(parents).for_each(|(l, &p)| {
            l.store(if p == u64::MAX { UNREACHED } else { PENDING }, Relaxed);
        });
        if part.owner(root) == comm.rank() {
            levels[part.local(root)].store(0, Relaxed);
        }
        let waiting = (0..levels.len())
            .into_par_iter()
            .filter(|&i| levels[i].load(Relaxed) == PENDING);
        self.pending.clear();
        self.pending.par_extend(waiting.map(local32));
        let mut orphan = None;
        let still = loop {
            let out = route(&self.pending, comm.size(), |&c| {
                let p = parents[c as usize];
                let (owner, local) = part.place(p);
                Sends::one(owner, (c, local32(local)))
            });
            let (children, targets): (Vec<u32>, Vec<u32>) = out.items.into_iter().unzip();
            let replies = ask(comm, &targets, &out.counts, |t| {
                levels[t as usize].load(Relaxed)
            });
            let answered = children.par_iter().zip(&replies);
            let learned = (answered.clone())
                .filter(|&(_, &r)| r < PENDING)
                .map(|(&c, &r)| levels[c as usize].store(r + 1, Relaxed))
                .count() as u64;
            let orphans = answered.filter(|&(_, &r)| r == UNREACHED).map(|(&c, _)| c);
            orphan = orphans.chain(orphan).min();
            self.pending
                .retain(|&c| levels[c as usize].load(Relaxed) == PENDING);
            let mine = [learned, self.pending.len() as u64];
            let [learned, still] = all_reduce(comm, mine, Reduce::Sum);
            if still == 0 || learned == 0 {
                break still;
            }
        };
        self.agree(orphan.map(|c| {
            let (vertex, parent) = (self.start() + u64::from(c), parents[c as usize]);
            (vertex, Invalid::ParentUnreached { vertex, parent })
        }))?;
        if still > 0 {
            return Err(self.agree(self.name_cycle(parents)).expect_err("a loop"));
        }
        Ok(())
    }

    /// After a round that taught nothing and found no orphan, every waiting
    /// vertex's parent waits too; jumping `ceil(log2 N)` doublings up from
    /// each lands on a loop. Names the loop above this rank's lowest waiting
    /// vertex. Collective; allocates 16 bytes per waiting vertex.
    fn name_cycle(&self, parents: &[u64]) -> Found {
        let (comm, part, pending) = (self.comm, self.part, &self.pending);
        let mut jump: Vec<u64> = pending.iter().map(|&c| parents[c as usize]).collect();
        let index: Vec<u32> = (0..pending.len()).map(local32).collect();
        for _ in 0..u64::BITS - (part.num_vertices().max(2) - 1).leading_zeros() {
            let out = route(&index, comm.size(), |&i| {
                let t = jump[i as usize];
                let (owner, local) = part.place(t);
                Sends::one(owner, (i, local32(local)))
            });
            let (from, targets): (Vec<u32>, Vec<u32>) = out.items.into_iter().unzip();
            let replies = ask(comm, &targets, &out.counts, |t| {
                jump[pending.binary_search(&t).expect("an ancestor waits")]
            });
            for (&i, &r) in from.iter().zip(&replies) {
                jump[i as usize] = r;
            }
        }
        let lowest = self.start() + u64::from(*pending.first()?);
        Some((lowest, Invalid::Cycle { vertex: jump[0] }))
    }

    /// Forgets the last search's confirmations.
    pub(crate) fn clear_confirmed(&self) {
        (self.confirmed.par_iter()).for_each(|c| c.store(false, Relaxed));
    }

    /// The lowest own reached vertex but the root that no tuple confirmed
    /// (check 3): its local index.
    pub(crate) fn unconfirmed(&self) -> Option<usize> {
        let levels = self.levels.par_iter().zip(&self.confirmed);
        levels.position_first(|(l, c)| {
            let l = l.load(Relaxed);
            l != UNREACHED && l != 0 && !c.load(Relaxed)
        })
    }

    /// This rank's reached vertices and their deepest level.
    pub(crate) fn reached_and_depth(&self) -> (u64, u64) {
        let levels = self.levels.par_iter().map(|l| l.load(Relaxed));
        levels
            .filter(|&l| l != UNREACHED)
            .fold(|| (0, 0), |(c, d), l| (c + 1, d.max(u64::from(l))))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)))
    }

    /// The last agreement: this rank's first failure `found` from the
    /// tuples, or else check 6 on the global nedge `counted`.
    pub(crate) fn conclude(
        &self,
        found: Found,
        counted: u64,
        claimed: Option<u64>,
    ) -> Result<(), Invalid> {
        let wrong = claimed.filter(|&claimed| claimed != counted);
        let mismatch = wrong.map(|claimed| (0, Invalid::NedgeMismatch { counted, claimed }));
        self.agree(first(found, mismatch))
    }

    /// Agrees on the ranks' failures: `Err` with the same one on every rank
    /// if any has one: the lowest `(order, subject)`, ties to the lowest
    /// rank. Collective: one all-reduce of a word if no rank failed, else
    /// four (`all_reduce_first`).
    pub(crate) fn agree(&self, found: Found) -> Result<(), Invalid> {
        let mine = found.map(|(subject, e)| encode(subject, &e));
        all_reduce_first(self.comm, mine, 2).map_or(Ok(()), |r| Err(decode(&r)))
    }
}

/// Check 6 on a proven search: `Err` if the run `claimed` another
/// nedge than the `counted` one (the same on every rank).
pub(crate) fn same_nedge(counted: u64, claimed: Option<u64>) -> Result<(), Invalid> {
    match claimed.filter(|&c| c != counted) {
        Some(claimed) => Err(Invalid::NedgeMismatch { counted, claimed }),
        None => Ok(()),
    }
}

/// The ranges of this rank's `len` tuples, `round` at a time, in as many
/// rounds as the rank with the most tuples needs (the later ones empty
/// here), so every rank runs the same rounds. Collective: one all-reduce.
pub(crate) fn rounds(
    comm: &dyn Comm,
    len: usize,
    round: usize,
) -> impl Iterator<Item = Range<usize>> + use<> {
    let [count] = all_reduce(comm, [len.div_ceil(round) as u64], Reduce::Max);
    (0..usize::try_from(count).expect("rounds")).map(move |i| {
        let start = (i * round).min(len);
        start..(start + round).min(len)
    })
}

/// The buffers of a round of requests about tuples' ends, kept from round
/// to round and search to search, and the round's steps: requests to the
/// ends' owners ([`TupleRounds::send`]), their answers, `A`
/// ([`TupleRounds::answer`]), and the judgement of each tuple from its
/// ends' answers ([`TupleRounds::judge`]).
#[derive(Debug, Default)]
pub(crate) struct TupleRounds<T, A> {
    /// Requests, by owner of the end: tuples `(local index of the end,
    /// global id of the other end)`, so they are as wide as the input's.
    out: Outbox<T>,
    /// Requests that came here.
    asked: Vec<T>,
    /// Their answers.
    answers: Vec<A>,
    /// The answers to this rank's requests, in request order.
    replies: Vec<A>,
}

impl<T: Tuple, A: Pod + Send + Sync> TupleRounds<T, A> {
    /// Sends, for each of `items` whose `ends` are `(u, v)`, `(local(u), v)`
    /// to `owner(u)` and `(local(v), u)` to `owner(v)`; items whose `ends`
    /// are `None` send nothing. Returns how many requests came from each
    /// rank. Collective: one exchange (and one of counts).
    pub(crate) fn send<I: Sync>(
        &mut self,
        comm: &dyn Comm,
        part: Partition,
        items: &[I],
        ends: impl Fn(&I) -> Option<(u64, u64)> + Sync,
    ) -> Vec<usize> {
        route_into(items, comm.size(), &mut self.out, |item| {
            let Some((u, v)) = ends(item) else {
                return Sends::none();
            };
            let ((ou, lu), (ov, lv)) = (part.place(u), part.place(v));
            Sends::two(
                ou,
                T::from_ends(lu as u64, v),
                ov,
                T::from_ends(lv as u64, u),
            )
        });
        exchange_into(comm, &self.out.items, &self.out.counts, &mut self.asked)
    }

    /// Answers the requests that came (`asked_counts` from each rank):
    /// `answer(i, x, other)` for the `i`th, about own vertex `x` (a local
    /// index) from a tuple whose other end is `other`; then sends the
    /// answers back, where they wait in request order for
    /// [`TupleRounds::judge`]. Collective: one exchange.
    pub(crate) fn answer(
        &mut self,
        comm: &dyn Comm,
        asked_counts: &[usize],
        answer: impl Fn(usize, usize, u64) -> A + Sync,
    ) {
        self.answers.clear();
        let asked = self.asked.par_iter().enumerate();
        self.answers.par_extend(asked.map(|(i, q)| {
            let (x, other) = q.ends();
            answer(i, usize::try_from(x).expect("a local index"), other)
        }));
        let (answers, counts) = (&self.answers, &self.out.counts);
        exchange_known_into(comm, answers, asked_counts, counts, &mut self.replies);
    }

    /// Judges the round's `items` (those [`TupleRounds::send`] got), the
    /// first at global position `position`: `judge(edge, item, ends)`
    /// with the answers about the item's two ends, or `None` if it sent
    /// no request; `Ok(true)` counts toward nedge. This rank's share of
    /// nedge and its first failure.
    pub(crate) fn judge<I: Sync>(
        &self,
        part: Partition,
        items: &[I],
        position: u64,
        ends: impl Fn(&I) -> Option<(u64, u64)> + Sync,
        judge: impl Fn(u64, &I, Option<[A; 2]>) -> Result<bool, Invalid> + Sync,
    ) -> (u64, Found) {
        let (replies, counts) = (&self.replies, &self.out.counts);
        let owners = |item: &I| ends(item).map(|(u, v)| [part.owner(u), part.owner(v)]);
        let per_piece = items.par_chunks(GRAIN).map(|piece| {
            let mut sent = vec![0; counts.len()];
            for r in piece.iter().filter_map(owners).flatten() {
                sent[r] += 1;
            }
            sent
        });
        // Each piece's cursor into each rank's run of replies.
        let mut next: Vec<usize> = counts
            .iter()
            .scan(0, |s, &c| Some(std::mem::replace(s, *s + c)))
            .collect();
        let mut cursors: Vec<Vec<usize>> = per_piece.collect();
        for sent in &mut cursors {
            for (n, c) in next.iter_mut().zip(sent) {
                (*n, *c) = (*n + *c, *n);
            }
        }
        let pieces = items.par_chunks(GRAIN).zip(cursors).enumerate();
        pieces
            .map(|(k, (piece, mut cursor))| {
                let mut verdict = (0, None);
                for (j, item) in piece.iter().enumerate() {
                    let answers = owners(item).map(|ranks| {
                        ranks.map(|r| {
                            cursor[r] += 1;
                            replies[cursor[r] - 1]
                        })
                    });
                    let edge = position + (k * GRAIN + j) as u64;
                    match judge(edge, item, answers) {
                        Ok(counted) => verdict.0 += u64::from(counted),
                        Err(e) => verdict.1 = first(verdict.1, Some((edge, e))),
                    }
                }
                verdict
            })
            .reduce(|| (0, None), |a, b| (a.0 + b.0, first(a.1, b.1)))
    }
}

/// Sends each of `requests` to its rank (`counts` per rank, in `route`'s
/// grouping), where `answer` answers it; returns the answers in request
/// order. Collective: two exchanges.
fn ask<Q, A>(
    comm: &dyn Comm,
    requests: &[Q],
    counts: &[usize],
    answer: impl Fn(Q) -> A + Sync,
) -> Vec<A>
where
    Q: bytemuck::Pod + Send + Sync,
    A: bytemuck::Pod + Send,
{
    let (asked, asked_counts) = exchange(comm, requests, counts);
    let answers: Vec<A> = asked.par_iter().map(|&q| answer(q)).collect();
    exchange_known(comm, &answers, &asked_counts, counts)
}

/// Check 4 on tuple `e` at position `edge`, given its ends' levels: whether
/// it counts toward nedge, or its failure.
#[rustfmt::skip]
fn judge_tuple(edge: u64, (u, v): (u64, u64), level_u: u32, level_v: u32) -> Result<bool, Invalid> {
    match (level_u == UNREACHED, level_v == UNREACHED) {
        (true, true) => Ok(false),
        (false, true) => Err(Invalid::HalfReachedEdge { edge, reached: u, unreached: v }),
        (true, false) => Err(Invalid::HalfReachedEdge { edge, reached: v, unreached: u }),
        _ if level_u.abs_diff(level_v) > 1 => Err(Invalid::LevelGap { edge, u, v, level_u, level_v }),
        _ => Ok(true),
    }
}

/// The lowest `i` below `len` for which `test(i)` holds: pieces of
/// `GRAIN` in parallel, each a plain loop (rayon's `find_first` per index
/// took 15-40 ns an index at SCALE 20 on 2 ranks, longer than the proof's
/// own pass over the vertices).
fn first_where(len: usize, test: impl Fn(usize) -> bool + Sync) -> Option<usize> {
    let pieces = (0..len.div_ceil(GRAIN)).into_par_iter();
    pieces.find_map_first(|k| (k * GRAIN..len.min((k + 1) * GRAIN)).find(|&i| test(i)))
}

/// A local index as messages carry it.
pub(crate) fn local32(i: usize) -> u32 {
    u32::try_from(i).expect("a rank owns fewer than 2^32 vertices")
}

/// The failure that sorts first: the lower order, then the lower subject.
pub(crate) fn first(a: Found, b: Found) -> Found {
    let key = |f: &(u64, Invalid)| (order(&f.1), f.0);
    match (a, b) {
        (Some(a), Some(b)) => Some(if key(&b) < key(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// A failure as a record: `[order, subject, variant, fields..]`, the
/// order from [`order`].
#[rustfmt::skip]
fn encode(subject: u64, e: &Invalid) -> [u64; RECORD] {
    let wide = |x: usize| x as u64;
    let bits = |x: ExactF32| u64::from(x.to_bits());
    let (variant, [a, b, c, d, f]) = match *e {
        Invalid::WrongLength { found, expected } => (0, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::RootOutOfRange { root, num_vertices } => (1, [root, wide(num_vertices), 0, 0, 0]),
        Invalid::ParentOutOfRange { vertex, parent } => (2, [vertex, parent as u64, 0, 0, 0]),
        Invalid::RootNotOwnParent { root, parent } => (3, [root, parent as u64, 0, 0, 0]),
        Invalid::SecondRoot { vertex } => (4, [vertex, 0, 0, 0, 0]),
        Invalid::ParentUnreached { vertex, parent } => (5, [vertex, parent, 0, 0, 0]),
        Invalid::Cycle { vertex } => (6, [vertex, 0, 0, 0, 0]),
        Invalid::NotAnEdge { vertex, parent } => (7, [vertex, parent, 0, 0, 0]),
        Invalid::HalfReachedEdge { edge, reached, unreached } => (8, [edge, reached, unreached, 0, 0]),
        Invalid::LevelGap { edge, u, v, level_u, level_v } => (9, [edge, u, v, pair(level_u, level_v), 0]),
        Invalid::NedgeMismatch { counted, claimed } => (10, [counted, claimed, 0, 0, 0]),
        Invalid::DistWrongLength { found, expected } => (11, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::WeightCount { found, expected } => (12, [wide(found), wide(expected), 0, 0, 0]),
        Invalid::DistOutOfRange { vertex, dist } => (13, [vertex, bits(dist), 0, 0, 0]),
        Invalid::ReachMismatch { vertex, parent, dist } => (14, [vertex, parent as u64, bits(dist), 0, 0]),
        Invalid::RootDist { root, dist } => (15, [root, bits(dist), 0, 0, 0]),
        Invalid::Unconfirmed { vertex, parent, dist, parent_dist } => {
            (16, [vertex, parent, pair(dist.to_bits(), parent_dist.to_bits()), 0, 0])
        }
        Invalid::TupleOutOfRange { edge, u, v, num_vertices } => (17, [edge, u, v, wide(num_vertices), 0]),
        Invalid::WeightOutOfRange { edge, weight } => (18, [edge, bits(weight), 0, 0, 0]),
        Invalid::TriangleRule { edge, u, v, weight, dist_u, dist_v } => {
            (19, [edge, u, v, bits(weight), pair(dist_u.to_bits(), dist_v.to_bits())])
        }
    };
    [order(e), subject, variant, a, b, c, d, f]
}

/// The failure a record from [`encode`] holds.
#[rustfmt::skip]
fn decode(r: &[u64]) -> Invalid {
    let [_, _, variant, a, b, c, d, f] = r.try_into().expect("a whole record");
    let narrow = |x: u64| usize::try_from(x).expect("a length");
    let exact = |x: u64| ExactF32::from_bits(u32::try_from(x).expect("f32 bits"));
    let (high, low) = halves(d);
    let (high_c, low_c) = halves(c);
    let (high_f, low_f) = halves(f);
    match variant {
        0 => Invalid::WrongLength { found: narrow(a), expected: narrow(b) },
        1 => Invalid::RootOutOfRange { root: a, num_vertices: narrow(b) },
        2 => Invalid::ParentOutOfRange { vertex: a, parent: b as i64 },
        3 => Invalid::RootNotOwnParent { root: a, parent: b as i64 },
        4 => Invalid::SecondRoot { vertex: a },
        5 => Invalid::ParentUnreached { vertex: a, parent: b },
        6 => Invalid::Cycle { vertex: a },
        7 => Invalid::NotAnEdge { vertex: a, parent: b },
        8 => Invalid::HalfReachedEdge { edge: a, reached: b, unreached: c },
        9 => Invalid::LevelGap { edge: a, u: b, v: c, level_u: high, level_v: low },
        10 => Invalid::NedgeMismatch { counted: a, claimed: b },
        11 => Invalid::DistWrongLength { found: narrow(a), expected: narrow(b) },
        12 => Invalid::WeightCount { found: narrow(a), expected: narrow(b) },
        13 => Invalid::DistOutOfRange { vertex: a, dist: exact(b) },
        14 => Invalid::ReachMismatch { vertex: a, parent: b as i64, dist: exact(c) },
        15 => Invalid::RootDist { root: a, dist: exact(b) },
        16 => Invalid::Unconfirmed {
            vertex: a, parent: b, dist: ExactF32::from_bits(high_c), parent_dist: ExactF32::from_bits(low_c),
        },
        17 => Invalid::TupleOutOfRange { edge: a, u: b, v: c, num_vertices: narrow(d) },
        18 => Invalid::WeightOutOfRange { edge: a, weight: exact(b) },
        19 => Invalid::TriangleRule {
            edge: a, u: b, v: c, weight: exact(d),
            dist_u: ExactF32::from_bits(high_f), dist_v: ExactF32::from_bits(low_f),
        },
        _ => unreachable!("records come from encode"),
    }
}

/// Where a failure's kind sorts among the ranks' failures, as one record
/// word: [`Invalid::precedence`], its check number, then its step within
/// the check (below 16).
fn order(e: &Invalid) -> u64 {
    let (check, step) = e.precedence();
    debug_assert!(step < 16);
    16 * u64::from(check) + u64::from(step)
}

/// Two 32-bit fields in one record word, `high` first.
fn pair(high: u32, low: u32) -> u64 {
    (u64::from(high) << 32) | u64::from(low)
}

/// The two fields of a [`pair`] word.
fn halves(x: u64) -> (u32, u32) {
    let half = |y: u64| u32::try_from(y & 0xffff_ffff).expect("32 bits");
    (half(x >> 32), half(x))
}

#[cfg(test)]
pub(crate) mod tests;
