//! [`Tree`]: what both distributed validators keep per own vertex (a
//! level and a confirmation flag, 9 bytes with the waiting list), and
//! the phases they share: check 1's scan of the entries, check 2's level
//! rounds (one request and reply per waiting vertex each level, pointer
//! jumping to name a loop), the tally of confirmations (check 3) and the
//! agreements on failures.
//!
//! Invariants: a level is `UNREACHED` (parent `-1`), `PENDING` (reached,
//! not known yet) or the vertex's depth; the rounds stop on every rank
//! at once (their counts from all-reduces); every agreement picks the
//! same failure on every rank (`record.rs`).

use super::record::{decode, encode};
use super::tuple_rounds::ask;
use super::{Found, first};
use crate::Partition;
use crate::comm::{Comm, Reduce, all_reduce, all_reduce_first};
use crate::route::{Sends, route};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use validate::Invalid;

/// Levels of vertices not reached (parent `-1`, `u64::MAX` here) and of
/// reached ones whose level is not known yet.
pub(super) const UNREACHED: u32 = u32::MAX;
const PENDING: u32 = u32::MAX - 1;
/// Tuples (or vertices) per parallel work item.
pub(super) const GRAIN: usize = 1 << 14;

/// What both distributed validators keep per own vertex, and the phases
/// they share: check 1's scan of the entries, check 2's level rounds, the
/// tally of confirmations (check 3) and the agreements on failures.
/// 9 bytes per own vertex.
pub(crate) struct Tree<'c> {
    pub(crate) comm: &'c dyn Comm,
    pub(crate) part: Partition,
    /// The tree level of each own vertex, or a code above.
    pub(super) levels: Vec<AtomicU32>,
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
