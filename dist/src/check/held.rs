//! Held searches: a run of many searches holds up to [`LANES`] proven
//! trees (their parents, the proof's levels and parent cells, swapped
//! into the batch) and judges checks 3 and 4 and nedge for all of them in
//! one pass over the arcs at the settle (`batch.rs`).
//!
//! Invariants: a held search passed checks 1 and 2 (its levels proven or
//! certified); the settle gives the verdicts in the order held, and a
//! search that fails in the batch goes to the tuple rounds, which name
//! its failure exactly as [`DistValidator::check`] would, so holding
//! never changes a verdict. All ranks hold and settle the same searches
//! (every step is collective).

use super::batch::{Held, LANES};
use super::{DistValidator, same_nedge};
use crate::comm::{Reduce, all_reduce};
use generator::Tuple;
use validate::{Invalid, TreeSummary};

impl<T: Tuple> DistValidator<'_, T> {
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
    /// plus, at the settle, a sixteenth of filling the batch's lines (16
    /// bytes a cell); no more bytes sent.
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
            let (mut levels, mut ups) = (Vec::new(), Vec::new());
            self.levels.swap_proof(&mut levels, &mut ups);
            self.batch.hold(&mut levels, &mut ups, held, parents);
            self.levels.swap_proof(&mut levels, &mut ups);
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
}
