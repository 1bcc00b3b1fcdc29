//! `DistSsspValidator`: proof, across the ranks, that a distributed parent
//! array and distance array are a shortest-path tree of the weighted input
//! tuples (Graph500 kernel 3), and the search's nedge.
//!
//! The idea is the BFS validator's (`check.rs`), whose machinery it
//! shares. When made, it regroups the rank's tuples, with their weights,
//! by the vertices they touch (`Incidence`); a search is then proven
//! (`proof.rs`) with the BFS proof's level rounds, one exchange of the
//! distances of the vertices other ranks' arcs reach, and a local pass
//! over the arcs: no message about a tuple. A search the proof does not
//! settle (invalid, or deeper than 124 levels) goes through the tuple
//! rounds: the holder of a tuple asks the owners of its ends what it
//! needs to judge it, in rounds, and each owner confirms its vertex when
//! a tuple proves the vertex's parent and distance; they name the
//! failure. It reads only the tuples, their weights, the parents and the
//! distances, never a kernel's graph. Its rules, check numbers and
//! failures are those of `validate`'s [`SsspValidator`] (the very
//! per-vertex and per-tuple functions: [`entry_error`],
//! [`root_entry_error`], [`tuple_error`], [`confirms`]); the checks are
//! listed at [`DistSsspValidator::check`].
//!
//! Invariants (those of `check.rs`): every rank calls the same collectives
//! in the same order; each phase ends in an agreement after which all
//! stop or all go on; all ranks return the same failure: the lowest check,
//! then the lowest vertex or tuple position, then the lowest rank. For
//! checks 1, 3, 4 and 6 that is the failure `SsspValidator` names for the
//! same input (check 1's length failures name this rank's lengths); for
//! check 2, the same check. A round's requests, weights and replies keep
//! one order (`route`'s: by rank, then by tuple), so no position travels.
//! Confirmations do not depend on any failure of check 4, as in one
//! process, so check 3 is reported before check 4 whenever it fails.
//!
//! Cost per rank: `O((N/P) (L + 1) + M/P)` work; memory 8 bytes an arc
//! (two a tuple), a few words per vertex and the buffers of its rounds
//! ([`DistSsspValidator::bytes_for`]); the bytes sent are counted at
//! [`DistSsspValidator::check`].
//!
//! [`SsspValidator`]: validate::SsspValidator

use crate::Partition;
use crate::check::{
    Found, Incidence, Levels, ROUND, Tree, TupleRounds, first, local32, rounds, same_nedge,
};
use crate::comm::{Comm, Reduce, all_reduce, exchange_into, exchange_known_into};
use crate::route::{Outbox, Sends, route_into};
use generator::Tuple;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use validate::Invalid;
use validate::SsspSummary;
use validate::sssp::{confirms, entry_error, root_entry_error, tuple_error};

mod proof;

use proof::Distances;

/// One rank's side of the distributed SSSP validator: the communicator,
/// the rank's tuples and their weights regrouped by vertex, a few words
/// of working memory per vertex and the buffers of its rounds.
pub struct DistSsspValidator<'c, T: Tuple> {
    tree: Tree<'c>,
    tuples: &'c [T],
    weights: &'c [f32],
    first_tuple: u64,
    round: usize,
    /// The distance of each own reached vertex's parent, as `f32` bits.
    parent_dist: Vec<AtomicU32>,
    /// The requests and replies of a tuple round.
    rounds: TupleRounds<T, f32>,
    /// The other buffers, kept from round to round and search to search.
    buffers: Buffers<T>,
    /// The weighted tuples regrouped by the vertices they touch, and the
    /// routes of the ghosts' distances, for the proof (`None`: every
    /// search goes through the tuple rounds).
    incidence: Option<(Incidence, Distances)>,
    /// The proof's levels and buffers.
    levels: Levels,
    /// How many searches the proof did not settle (valid or not, the
    /// tuple rounds then judged them).
    unproven: u64,
}

/// The buffers of [`DistSsspValidator`] besides a round's requests.
#[derive(Debug, Default)]
struct Buffers<T> {
    /// A round's tuples beside their weights.
    pairs: Vec<(T, f32)>,
    /// The weights that go with the round's requests, in their order.
    weights_out: Outbox<f32>,
    /// The weights of the requests that came here.
    asked_weights: Vec<f32>,
    /// Own reached vertices but the root (local indices).
    children: Vec<u32>,
    /// Their parents by owner: `[parent's local index, child's]`.
    parents_out: Outbox<[u32; 2]>,
    /// The parents' local indices alone, as sent.
    targets: Vec<u32>,
    /// Parents whose distance was asked here.
    asked: Vec<u32>,
    /// Their distances.
    answers: Vec<f32>,
    /// The parents' distances, in request order.
    replies: Vec<f32>,
}

impl<'c, T: Tuple> DistSsspValidator<'c, T> {
    /// COLLECTIVE. `tuples`: this rank's share of the input tuples (global
    /// ids), which are the tuples numbered `first_tuple ..` in the global
    /// list (errors name global positions); `weights[i]` is `tuples[i]`'s
    /// weight. Regroups the tuples and their weights by the vertices they
    /// touch (two passes of messages in rounds of `ROUND` tuples, and one
    /// exchange of ghost bitmaps) and allocates the per-vertex state, once
    /// ([`DistSsspValidator::bytes_for`]).
    pub fn new(
        comm: &'c dyn Comm,
        part: Partition,
        tuples: &'c [T],
        weights: &'c [f32],
        first_tuple: u64,
    ) -> Self {
        let rows = part.count(comm.rank());
        let incidence = Incidence::build(comm, part, tuples, Some(weights), ROUND);
        let incidence = incidence.map(|inc| {
            let distances = Distances::new(comm, &inc);
            (inc, distances)
        });
        DistSsspValidator {
            tree: Tree::new(comm, part),
            tuples,
            weights,
            first_tuple,
            round: ROUND,
            parent_dist: (0..rows).map(|_| AtomicU32::new(0)).collect(),
            rounds: TupleRounds::default(),
            buffers: Buffers::default(),
            incidence,
            levels: Levels::default(),
            unproven: 0,
        }
    }

    /// How many searches so far the proof did not settle, so that the
    /// tuple rounds judged them.
    #[cfg(test)]
    pub(crate) fn unproven(&self) -> u64 {
        self.unproven
    }

    /// About the most bytes a validator takes on a rank with `rows` own
    /// vertices and `tuples` tuples, of `n` vertices in all: the weighted
    /// `Incidence` (16 bytes a tuple), the proof's levels and distances
    /// (`Levels`, `Distances`), 13 per vertex, 28 per vertex for the
    /// parents' distances (kept), a level round's buffers (about 32 per
    /// vertex, for a while) and a tuple round's (kept): per tuple of the
    /// round `4 size_of::<T>() + 32` (requests out and in, weights out and
    /// in, answers, replies) and the tuple beside its weight.
    pub fn bytes_for(rows: u64, tuples: u64, n: u64) -> u64 {
        let per_tuple = (4 * size_of::<T>() + 32 + size_of::<(T, f32)>()) as u64;
        Incidence::bytes_for(rows, tuples, n, true)
            + Levels::bytes_for(rows, tuples, n)
            + Distances::bytes_for(rows, tuples, n)
            + (13 + 28 + 32) * rows
            + per_tuple * tuples.min(ROUND as u64)
    }

    /// COLLECTIVE. Checks the search from `root` (global, the same on every
    /// rank) whose result is `parents` and `dist`: this rank's vertices'
    /// parents, by local index, global ids, `u64::MAX` for unreached
    /// (`-1`), and their distances, `-1.0` for unreached. `claimed_nedge`
    /// is the run's nedge (check 6 is skipped if `None`). Every rank
    /// returns the same verdict: global figures, or one failure. Never
    /// panics on the arrays' values or lengths.
    ///
    /// The checks:
    /// 1. locally: the arrays' lengths (the rank's vertices; one weight per
    ///    tuple), the root below `N`; then the lowest vertex whose parent is
    ///    not `-1` or a vertex, whose distance is not finite `>= 0` or exactly
    ///    `-1`, or whose parent is `-1` and distance not (or the reverse); then
    ///    the root its own parent at distance 0;
    /// 2. the tree, as for BFS (`Tree::assign_levels`): no second root, no
    ///    reached vertex below an unreached one, no cycle of parents, also
    ///    among unreached vertices and along zero-weight tuples;
    /// 3. before the tuples, each reached vertex but the root learns its
    ///    parent's distance from the parent's owner (one request and reply).
    ///    Then in rounds of at most `ROUND` tuples per rank, the holder of a
    ///    tuple `(u, v)` of weight `w`, not a self-loop and both ends below
    ///    `N`, sends `owner(u)` the request `(local(u), v)` and `w`, and
    ///    `owner(v)` likewise; the owner answers with the end's distance and
    ///    marks it confirmed if its parent is the other end and `dist ==
    ///    parent's dist + w` exactly, in `f32` (`confirms`). Every reached
    ///    vertex but the root must end confirmed (`Unconfirmed`);
    /// 4. the holder judges each tuple from its ends' distances
    ///    (`tuple_error`): both ends below `N` (`TupleOutOfRange`, self-loops
    ///    too); for the others not self-loops, the weight finite and `>= 0`,
    ///    both ends reached or neither, neither end's distance above the
    ///    other's plus the weight. A tuple with an end reached counts toward
    ///    nedge.
    ///
    /// Then check 6: the global nedge equals the claimed one
    /// (`NedgeMismatch`).
    ///
    /// Cost per rank: `O((N/P) (L + 1) + M/P)` work, parallel on the current
    /// rayon pool (`L`: the mean level of the reached vertices). A search
    /// the proof settles costs check 1's agreement (`64 P (P - 1)` bytes
    /// in all) and the proof's bytes (`proof.rs`: the level rounds, 4
    /// bytes per ghost, at most `4 N (P - 1)` whatever `M`, and
    /// `24 P (P - 1)`). Otherwise, besides these, all ranks
    /// together send at most `4 s + 16` bytes per tuple that is not a
    /// self-loop (two requests of two `s`-byte ids, as wide as the input
    /// tuples, two weights of 4 and two replies of 4), 8 per reached vertex
    /// but the root (its parent's distance: a request and a reply of 4),
    /// 8 per reached vertex and level above it (check 2), and
    /// `O(P^2 (depth + 5))` in agreements and reductions; spread uniformly,
    /// a fraction `(P - 1) / P` of it leaves its rank.
    pub fn check(
        &mut self,
        root: u64,
        parents: &[u64],
        dist: &[f32],
        claimed_nedge: Option<u64>,
    ) -> Result<SsspSummary, Invalid> {
        self.tree.agree(self.check_entries(root, parents, dist))?;
        let (comm, part) = (self.tree.comm, self.tree.part);
        if let Some((inc, distances)) = &mut self.incidence {
            let levels = &mut self.levels;
            if let Some(proven) = distances.prove(comm, part, inc, levels, root, parents, dist) {
                let nedge = proven.nedge;
                same_nedge(nedge, claimed_nedge)?;
                return Ok(SsspSummary {
                    nedge,
                    reached: proven.reached,
                    max_dist: proven.max_dist,
                    depth: u32::try_from(proven.depth).expect("a level"),
                });
            }
            self.unproven += 1;
        }
        self.tree.assign_levels(root, parents)?;
        self.fetch_parent_dists(root, parents, dist);
        let (nedge, found) = self.check_tuples(parents, dist);
        let (reached, depth) = self.tree.reached_and_depth();
        let farthest = (dist.par_iter().copied())
            .filter(|&d| d > 0.0)
            .reduce(|| 0.0, f32::max);
        let comm = self.tree.comm;
        let [nedge, reached] = all_reduce(comm, [nedge, reached], Reduce::Sum);
        // Distances >= 0 order as their bits.
        let mine = [depth, u64::from(farthest.to_bits())];
        let [depth, farthest] = all_reduce(comm, mine, Reduce::Max);
        self.tree.conclude(found, nedge, claimed_nedge)?;
        Ok(SsspSummary {
            nedge,
            reached,
            max_dist: f32::from_bits(u32::try_from(farthest).expect("f32 bits")),
            depth: u32::try_from(depth).expect("a level"),
        })
    }

    /// Check 1 and second roots, on this rank's entries alone.
    fn check_entries(&self, root: u64, parents: &[u64], dist: &[f32]) -> Found {
        let (n, rows, start) = (
            self.tree.part.num_vertices(),
            self.tree.rows(),
            self.tree.start(),
        );
        let num_vertices = usize::try_from(n).expect("N fits memory");
        let fail = |e| Some((0, e));
        if parents.len() != rows {
            let (found, expected) = (parents.len(), rows);
            return fail(Invalid::WrongLength { found, expected });
        }
        if dist.len() != rows {
            let (found, expected) = (dist.len(), rows);
            return fail(Invalid::DistWrongLength { found, expected });
        }
        if self.weights.len() != self.tuples.len() {
            let (found, expected) = (self.weights.len(), self.tuples.len());
            return fail(Invalid::WeightCount { found, expected });
        }
        if root >= n {
            return fail(Invalid::RootOutOfRange { root, num_vertices });
        }
        // Parents print as the Graph500 int64 they stand for, bit for bit.
        let entry =
            |i: usize| entry_error(num_vertices, start + i as u64, parents[i] as i64, dist[i]);
        let root_entry = |r: usize| root_entry_error(root, parents[r] as i64, dist[r]);
        self.tree.check_entries(root, parents, entry, root_entry)
    }

    /// Each own reached vertex but the root asks its parent's owner for the
    /// parent's distance (`parent_dist`). After check 2, so every such
    /// parent is reached. Collective: two exchanges and one of counts.
    fn fetch_parent_dists(&mut self, root: u64, parents: &[u64], dist: &[f32]) {
        let (comm, part, start) = (self.tree.comm, self.tree.part, self.tree.start());
        let b = &mut self.buffers;
        let child = |&i: &usize| parents[i] != u64::MAX && start + i as u64 != root;
        b.children.clear();
        (b.children).par_extend(
            (0..parents.len())
                .into_par_iter()
                .filter(child)
                .map(local32),
        );
        route_into(&b.children, comm.size(), &mut b.parents_out, |&c| {
            let (owner, local) = part.place(parents[c as usize]);
            Sends::one(owner, [local32(local), c])
        });
        b.targets.clear();
        b.targets
            .par_extend(b.parents_out.items.par_iter().map(|q| q[0]));
        let counts = &b.parents_out.counts;
        let asked_counts = exchange_into(comm, &b.targets, counts, &mut b.asked);
        b.answers.clear();
        (b.answers).par_extend(b.asked.par_iter().map(|&p| dist[p as usize]));
        exchange_known_into(comm, &b.answers, &asked_counts, counts, &mut b.replies);
        let learned = b.parents_out.items.par_iter().zip(&b.replies);
        learned.for_each(|(q, d)| self.parent_dist[q[1] as usize].store(d.to_bits(), Relaxed));
    }

    /// Checks 3 and 4 over this rank's tuples, in rounds: this rank's nedge
    /// and its first failure.
    fn check_tuples(&mut self, parents: &[u64], dist: &[f32]) -> (u64, Found) {
        let (comm, part) = (self.tree.comm, self.tree.part);
        let (tuples, weights, n) = (self.tuples, self.weights, part.num_vertices());
        let num_vertices = usize::try_from(n).expect("N fits memory");
        self.tree.clear_confirmed();
        let (confirmed, parent_dist) = (&self.tree.confirmed, &self.parent_dist);
        let (r, b) = (&mut self.rounds, &mut self.buffers);
        // The tuples whose ends are asked about: in range, not self-loops.
        let ends = |(e, _): &(T, f32)| {
            let (u, v) = e.ends();
            (u != v && u < n && v < n).then_some((u, v))
        };
        let (mut nedge, mut found) = (0, None);
        for range in rounds(comm, tuples.len(), self.round) {
            b.pairs.clear();
            let (chunk, w) = (&tuples[range.clone()], &weights[range.clone()]);
            b.pairs
                .par_extend(chunk.par_iter().copied().zip(w.par_iter().copied()));
            let asked_counts = r.send(comm, part, &b.pairs, ends);
            route_into(&b.pairs, comm.size(), &mut b.weights_out, |pair| {
                let Some((u, v)) = ends(pair) else {
                    return Sends::none();
                };
                Sends::two(part.owner(u), pair.1, part.owner(v), pair.1)
            });
            let (out, asked_weights) = (&b.weights_out, &mut b.asked_weights);
            exchange_known_into(comm, &out.items, &out.counts, &asked_counts, asked_weights);
            let asked_weights = &b.asked_weights;
            r.answer(comm, &asked_counts, |i, x, other| {
                let parent = f32::from_bits(parent_dist[x].load(Relaxed));
                if parents[x] == other && confirms(asked_weights[i], parent, dist[x]) {
                    confirmed[x].store(true, Relaxed);
                }
                dist[x]
            });
            let position = self.first_tuple + range.start as u64;
            let (count, error) = r.judge(part, &b.pairs, position, ends, |edge, &(e, w), d| {
                let (u, v) = e.ends();
                if u >= n || v >= n {
                    return Err(Invalid::TupleOutOfRange {
                        edge,
                        u,
                        v,
                        num_vertices,
                    });
                }
                let Some([du, dv]) = d else {
                    return Ok(false); // A self-loop.
                };
                tuple_error(edge, (u, v), w, du, dv).map_or(Ok(du >= 0.0 || dv >= 0.0), Err)
            });
            nedge += count;
            found = first(found, error);
        }
        let start = self.tree.start();
        let missing = self.tree.unconfirmed().map(|i| {
            let (vertex, parent) = (start + i as u64, parents[i]);
            let parent_dist = f32::from_bits(parent_dist[i].load(Relaxed)).into();
            let dist = dist[i].into();
            let e = Invalid::Unconfirmed {
                vertex,
                parent,
                dist,
                parent_dist,
            };
            (vertex, e)
        });
        (nedge, first(missing, found))
    }
}

#[cfg(test)]
mod tests;
