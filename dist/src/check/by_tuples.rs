//! The tuple rounds' checks: checks 1-6 judged over the input tuples as
//! they lie on the ranks, with messages, naming the failure exactly as
//! one process does. Searches the proof does not settle come here.
//!
//! Check 1 scans this rank's entries and agrees; check 2 is
//! [`Tree::assign_levels`](super::Tree::assign_levels); checks 3 and 4 go in rounds of at most
//! `round` tuples a rank: each tuple's holder asks both ends' owners for
//! their levels ([`TupleRounds`](super::TupleRounds)), an owner asked about `x` with
//! `parent[x]` as the other end marks `x` confirmed, and the holder
//! judges the tuple from the two answers ([`judge_tuple`]).
//!
//! Invariants: every rank runs the same rounds (their count from an
//! all-reduce) and ends in one agreement, so all return the same verdict;
//! a round's answers return in request order, so no position travels.

use super::{DistValidator, Found, first, rounds, tree::UNREACHED};
use crate::comm::{Reduce, all_reduce};
use generator::Tuple;
use std::sync::atomic::Ordering::Relaxed;
use validate::{Invalid, TreeSummary};

impl<T: Tuple> DistValidator<'_, T> {
    /// Check 1's root range (the same on every rank: no message).
    pub(super) fn root_in_range(&self, root: u64) -> Result<(), Invalid> {
        let n = self.tree.part.num_vertices();
        if root >= n {
            let num_vertices = usize::try_from(n).expect("N fits memory");
            return Err(Invalid::RootOutOfRange { root, num_vertices });
        }
        Ok(())
    }

    /// Check 1's root range, then check 1 and second roots on every rank's
    /// entries (one agreement).
    pub(super) fn check_root_and_pointers(
        &self,
        root: u64,
        parents: &[u64],
    ) -> Result<(), Invalid> {
        self.root_in_range(root)?;
        self.tree.agree(self.check_pointers(root, parents))
    }

    /// Checks 2-6 by the tuple rounds, which name the failure as one
    /// process does.
    pub(super) fn by_tuples(
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
    pub(super) fn check_pointers(&self, root: u64, parents: &[u64]) -> Found {
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
    pub(super) fn check_tuples(&mut self, parents: &[u64]) -> (u64, Found) {
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

/// Check 4 on tuple `e` at position `edge`, given its ends' levels: whether
/// it counts toward nedge, or its failure.
#[rustfmt::skip]
pub(super) fn judge_tuple(edge: u64, (u, v): (u64, u64), level_u: u32, level_v: u32) -> Result<bool, Invalid> {
    match (level_u == UNREACHED, level_v == UNREACHED) {
        (true, true) => Ok(false),
        (false, true) => Err(Invalid::HalfReachedEdge { edge, reached: u, unreached: v }),
        (true, false) => Err(Invalid::HalfReachedEdge { edge, reached: v, unreached: u }),
        _ if level_u.abs_diff(level_v) > 1 => Err(Invalid::LevelGap { edge, u, v, level_u, level_v }),
        _ => Ok(true),
    }
}
