//! `DistSsspValidator`: proof, across the ranks, that a distributed parent
//! array and distance array are a shortest-path tree of the weighted input
//! tuples (Graph500 kernel 3), and the search's nedge.
//!
//! The idea is the BFS validator's (`check.rs`), whose machinery it
//! shares: the tuples stay where they are; the holder of a tuple asks the
//! owners of its ends what it needs to judge it, in rounds, and each owner
//! confirms its vertex when a tuple proves the vertex's parent and
//! distance. It reads only the tuples, their weights, the parents and the
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
//! Cost per rank: `O((N/P) (L + 1) + M/P)` work, 13 bytes per own vertex
//! and the buffers of its rounds ([`DistSsspValidator::bytes_for`]); the
//! bytes sent are counted at [`DistSsspValidator::check`].
//!
//! [`SsspValidator`]: validate::SsspValidator

use crate::Partition;
use crate::check::{Found, ROUND, Tree, TupleRounds, first, local32, rounds};
use crate::comm::{Comm, Reduce, all_reduce, exchange_into, exchange_known_into};
use crate::route::{Outbox, Sends, route_into};
use generator::Tuple;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use validate::Invalid;
use validate::SsspSummary;
use validate::sssp::{confirms, entry_error, root_entry_error, tuple_error};

/// One rank's side of the distributed SSSP validator: the communicator,
/// the rank's tuples and their weights, 13 bytes of working memory per
/// vertex it owns and the buffers of its rounds.
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
    /// `tuples`: this rank's share of the input tuples (global ids), which
    /// are the tuples numbered `first_tuple ..` in the global list (errors
    /// name global positions); `weights[i]` is `tuples[i]`'s weight.
    /// Allocates 13 bytes per own vertex, once. Not collective.
    pub fn new(
        comm: &'c dyn Comm,
        part: Partition,
        tuples: &'c [T],
        weights: &'c [f32],
        first_tuple: u64,
    ) -> Self {
        let rows = part.count(comm.rank());
        DistSsspValidator {
            tree: Tree::new(comm, part),
            tuples,
            weights,
            first_tuple,
            round: ROUND,
            parent_dist: (0..rows).map(|_| AtomicU32::new(0)).collect(),
            rounds: TupleRounds::default(),
            buffers: Buffers::default(),
        }
    }

    /// About the most bytes a validator takes on a rank with `rows` own
    /// vertices and `tuples` tuples: 13 per vertex, 28 per vertex for the
    /// parents' distances (kept), a level round's buffers (about 32 per
    /// vertex, for a while) and a tuple round's (kept): per tuple of the
    /// round `4 size_of::<T>() + 32` (requests out and in, weights out and
    /// in, answers, replies) and the tuple beside its weight.
    pub fn bytes_for(rows: u64, tuples: u64) -> u64 {
        let per_tuple = (4 * size_of::<T>() + 32 + size_of::<(T, f32)>()) as u64;
        (13 + 28 + 32) * rows + per_tuple * tuples.min(ROUND as u64)
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
    /// rayon pool (`L`: the mean level of the reached vertices). All ranks
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
mod tests {
    use super::*;
    use crate::ThreadRanks;
    use generator::{Edge, EdgeGenerator, Kronecker, WideEdge, generate_weights};
    use kernels::{DeltaStepping, SsspParams, WeightedCsr};
    use std::sync::Arc;
    use validate::SsspValidator;

    /// Tuples and their weights over `n` vertices.
    #[derive(Clone, Debug)]
    struct Graph {
        n: usize,
        edges: Vec<Edge>,
        weights: Vec<f32>,
    }

    /// A search's result as one process holds it (`-1` unreached), and
    /// the nedge claimed for it.
    #[derive(Clone, Debug)]
    struct Search {
        root: u64,
        parents: Vec<i64>,
        dist: Vec<f32>,
        claimed: Option<u64>,
    }

    type Verdict = Result<SsspSummary, Invalid>;

    /// A Kronecker graph with the generator's weights, and a correct
    /// search of it from its busiest vertex by the single-process
    /// delta-stepping kernel, claiming the kernel's nedge.
    fn case(scale: u32, seed: u64) -> (Graph, Search) {
        let generator = Kronecker::new(scale, 16, seed).unwrap();
        let list = generator.generate();
        let weights = generate_weights(&generator, 0..generator.num_blocks(), &|| {});
        let n = list.num_vertices();
        let csr = Arc::new(WeightedCsr::build(n, list.edges(), &weights));
        let root = (0..n as u32).max_by_key(|&v| csr.degree(v)).unwrap();
        let g = Graph {
            n,
            edges: list.edges().to_vec(),
            weights,
        };
        (g, sssp(&csr, root))
    }

    /// The delta-stepping search of `csr` from `root`.
    fn sssp(csr: &Arc<WeightedCsr>, root: u32) -> Search {
        let n = csr.num_vertices();
        let mut engine = DeltaStepping::new(Arc::clone(csr), SsspParams::DEFAULT);
        engine.reset();
        engine.search(root);
        let (mut parents, mut dist) = (vec![0; n], vec![0.0; n]);
        engine.write_results(&mut parents, &mut dist);
        Search {
            root: root.into(),
            parents,
            dist,
            claimed: Some(engine.nedge()),
        }
    }

    impl Graph {
        fn single(&self, s: &Search) -> Verdict {
            let validator = &mut SsspValidator::new(self.n);
            let (parents, dist) = (&s.parents, &s.dist);
            validator.validate(&self.edges, &self.weights, s.root, parents, dist, s.claimed)
        }

        /// The verdict of `p` ranks on `s`, judging `round` tuples per
        /// round, and the bytes all ranks sent.
        fn distributed(&self, p: usize, round: usize, s: &Search) -> (Verdict, u64) {
            self.distributed_as::<Edge>(p, round, std::slice::from_ref(s))[0].clone()
        }

        /// The verdicts of `p` ranks on `searches`, in turn, by one
        /// validator per rank (`round` tuples per round), each with the
        /// bytes all ranks sent for it. Rank `r` holds tuples `m r / p ..
        /// m (r + 1) / p` as `T`, their weights and its own vertices'
        /// entries. Asserts that every rank agrees.
        fn distributed_as<T: Tuple>(
            &self,
            p: usize,
            round: usize,
            searches: &[Search],
        ) -> Vec<(Verdict, u64)> {
            let part = Partition::new(self.n as u64, p);
            let m = self.edges.len();
            let tuples: Vec<T> = (self.edges.iter())
                .map(|e| T::from_ends(e.u.into(), e.v.into()))
                .collect();
            let got = ThreadRanks::run(p, |c| {
                let r = c.rank();
                let (lo, hi) = (m * r / p, m * (r + 1) / p);
                let mine = part.first(r) as usize..(part.first(r) as usize + part.count(r));
                let (tuples, weights) = (&tuples[lo..hi], &self.weights[lo..hi]);
                let mut validator = DistSsspValidator::new(c, part, tuples, weights, lo as u64);
                validator.round = round;
                let verdicts = searches.iter().map(|s| {
                    // -1 becomes u64::MAX, the unreached mark.
                    let parents: Vec<u64> =
                        s.parents[mine.clone()].iter().map(|&x| x as u64).collect();
                    let before = c.bytes_sent();
                    let verdict =
                        validator.check(s.root, &parents, &s.dist[mine.clone()], s.claimed);
                    (verdict, c.bytes_sent() - before)
                });
                verdicts.collect::<Vec<_>>()
            });
            (0..searches.len())
                .map(|i| {
                    for (r, rank) in got.iter().enumerate() {
                        assert_eq!(rank[i].0, got[0][i].0, "P {p}: rank {r} disagrees");
                    }
                    (got[0][i].0.clone(), got.iter().map(|rank| rank[i].1).sum())
                })
                .collect()
        }

        /// Neighbours of every vertex with the positions of the tuples
        /// that join them, self-loops left out.
        fn adjacency(&self) -> Vec<Vec<(usize, usize)>> {
            let mut adj = vec![Vec::new(); self.n];
            for (t, e) in self.edges.iter().enumerate().filter(|(_, e)| e.u != e.v) {
                adj[e.u as usize].push((e.v as usize, t));
                adj[e.v as usize].push((e.u as usize, t));
            }
            adj
        }
    }

    impl Search {
        /// Tree levels (`None`: unreached) of a valid search.
        fn levels(&self) -> Vec<Option<u32>> {
            let level = |mut v: usize| {
                let mut l = 0;
                while v as u64 != self.root {
                    v = self.parents[v] as usize;
                    l += 1;
                }
                l
            };
            let reached = |v: usize| self.parents[v] != -1;
            (0..self.parents.len())
                .map(|v| reached(v).then(|| level(v)))
                .collect()
        }

        /// Reached vertices but the root that are no vertex's parent.
        fn leaves(&self) -> Vec<usize> {
            let n = self.parents.len();
            let mut has_child = vec![false; n];
            for (v, &p) in self.parents.iter().enumerate() {
                if p >= 0 && p as usize != v {
                    has_child[p as usize] = true;
                }
            }
            let root = self.root as usize;
            (0..n)
                .filter(|&v| self.parents[v] != -1 && v != root && !has_child[v])
                .collect()
        }
    }

    /// Broken copies of a valid search (and of its graph), by name, each
    /// with the check the single-process validator fails it on (`None`:
    /// still valid).
    fn mutations(g: &Graph, s: &Search) -> Vec<(&'static str, Graph, Search, Option<u8>)> {
        let n = g.n;
        let root = s.root as usize;
        let adj = g.adjacency();
        let levels = s.levels();
        let reached: Vec<usize> = (0..n)
            .filter(|&v| levels[v].is_some() && v != root)
            .collect();
        let unreached: Vec<usize> = (0..n).filter(|&v| levels[v].is_none()).collect();
        let leaves = s.leaves();
        let (leaf, last) = (leaves[0], *reached.last().unwrap());
        let child = *reached
            .iter()
            .find(|&&v| s.parents[v] == root as i64)
            .unwrap();
        let deep = *reached.iter().find(|&&v| levels[v] >= Some(2)).unwrap();
        let (a, b) = (unreached[0], unreached[1]);
        let is_tree_tuple = |t: usize| {
            let (u, v) = (g.edges[t].u as usize, g.edges[t].v as usize);
            s.parents[u] == v as i64 || s.parents[v] == u as i64
        };
        let adjacent = |v: usize, w: usize| adj[v].iter().any(|&(x, _)| x == w);
        let stranger = *reached
            .iter()
            .find(|&&w| w != leaf && !adjacent(leaf, w))
            .unwrap();
        // A tuple between reached ends at different distances, neither the
        // other's parent: a weight of 0 breaks the triangle rule there.
        let shortcut = (0..g.edges.len())
            .find(|&t| {
                let (u, v) = (g.edges[t].u as usize, g.edges[t].v as usize);
                u != v
                    && levels[u].is_some()
                    && levels[v].is_some()
                    && s.dist[u] != s.dist[v]
                    && !is_tree_tuple(t)
            })
            .unwrap();
        // A leaf and a neighbour other than its parent through which its
        // path is strictly longer: re-parented there, the tuple from its
        // old parent breaks the triangle rule.
        let (detour, via, via_weight) = leaves
            .iter()
            .find_map(|&v| {
                adj[v].iter().find_map(|&(x, t)| {
                    let longer = s.dist[x] + g.weights[t];
                    (x as i64 != s.parents[v]
                        && x != root
                        && levels[x].is_some()
                        && longer > s.dist[v])
                        .then_some((v, x, longer))
                })
            })
            .unwrap();
        // A leaf, a vertex not its neighbour nor farther, and the weight
        // that makes the tuple from the leaf's parent match the distance
        // from that vertex exactly: a confirmation needs the parent too.
        let (lookalike, impostor, from_parent, matching) = leaves
            .iter()
            .find_map(|&v| {
                let t = adj[v].iter().find(|&&(x, _)| x as i64 == s.parents[v])?.1;
                let w = (0..n).find(|&w| {
                    let d = s.dist[w];
                    levels[w].is_some()
                        && w != v
                        && !adjacent(v, w)
                        && d <= s.dist[v]
                        && d + (s.dist[v] - d) == s.dist[v]
                })?;
                Some((v, w, t, s.dist[v] - s.dist[w]))
            })
            .unwrap();
        let tree_tuple = (0..g.edges.len()).find(|&t| is_tree_tuple(t)).unwrap();
        let self_loop = (0..g.edges.len()).find(|&t| g.edges[t].u == g.edges[t].v);
        let other_tuple = (0..g.edges.len())
            .find(|&t| g.edges[t].u != g.edges[t].v && !is_tree_tuple(t))
            .unwrap();
        // A leaf and a reached neighbour but the root, by the tuple between.
        let (twin, zero_pair) = leaves
            .iter()
            .find_map(|&v| {
                let x = adj[v]
                    .iter()
                    .find(|&&(x, _)| x != root && levels[x].is_some());
                x.map(|&pair| (v, pair))
            })
            .unwrap();

        let with = |parents: &[(usize, i64)], dist: &[(usize, f32)]| {
            let mut m = s.clone();
            parents.iter().for_each(|&(v, p)| m.parents[v] = p);
            dist.iter().for_each(|&(v, d)| m.dist[v] = d);
            m
        };
        let weighted = |changes: &[(usize, f32)]| {
            let mut h = g.clone();
            changes.iter().for_each(|&(t, w)| h.weights[t] = w);
            h
        };
        let up = |x: f32| f32::from_bits(x.to_bits() + 1);
        let mut out = vec![
            (
                "parent out of range",
                g.clone(),
                with(&[(last, n as i64 + 5)], &[]),
                Some(1),
            ),
            (
                "parent -2",
                g.clone(),
                with(&[(reached[0], -2)], &[]),
                Some(1),
            ),
            (
                "distance NaN",
                g.clone(),
                with(&[], &[(deep, f32::NAN)]),
                Some(1),
            ),
            (
                "distance -2",
                g.clone(),
                with(&[], &[(last, -2.0)]),
                Some(1),
            ),
            (
                "distance infinite",
                g.clone(),
                with(&[], &[(leaf, f32::INFINITY)]),
                Some(1),
            ),
            (
                "reached by parent only",
                g.clone(),
                with(&[], &[(leaf, -1.0)]),
                Some(1),
            ),
            (
                "reached by distance only",
                g.clone(),
                with(&[(leaf, -1)], &[]),
                Some(1),
            ),
            (
                "root not own parent",
                g.clone(),
                with(&[(root, child as i64)], &[]),
                Some(1),
            ),
            (
                "root at distance 0.5",
                g.clone(),
                with(&[], &[(root, 0.5)]),
                Some(1),
            ),
            (
                "second root",
                g.clone(),
                with(&[(deep, deep as i64)], &[]),
                Some(2),
            ),
            (
                "parent unreached",
                g.clone(),
                with(&[(leaf, a as i64)], &[]),
                Some(2),
            ),
            (
                "2-cycle among reached",
                g.clone(),
                with(&[(s.parents[deep] as usize, deep as i64)], &[]),
                Some(2),
            ),
            (
                "zero-weight parent cycle",
                weighted(&[(zero_pair.1, 0.0)]),
                with(
                    &[(twin, zero_pair.0 as i64), (zero_pair.0, twin as i64)],
                    &[(twin, s.dist[zero_pair.0])],
                ),
                Some(2),
            ),
            (
                "cycle among unreached",
                g.clone(),
                with(&[(a, b as i64), (b, a as i64)], &[(a, 0.0), (b, 0.0)]),
                Some(2),
            ),
            (
                "parent not a neighbour",
                g.clone(),
                with(&[(leaf, stranger as i64)], &[]),
                Some(3),
            ),
            (
                "parent a non-neighbour at a distance some tuple matches",
                weighted(&[(from_parent, matching)]),
                with(&[(lookalike, impostor as i64)], &[]),
                Some(3),
            ),
            (
                "distance one ulp long",
                g.clone(),
                with(&[], &[(leaf, up(s.dist[leaf]))]),
                Some(3),
            ),
            (
                "distance too large, re-parented through a detour",
                g.clone(),
                with(&[(detour, via as i64)], &[(detour, via_weight)]),
                Some(4),
            ),
            (
                "triangle broken by a lighter weight",
                weighted(&[(shortcut, 0.0)]),
                s.clone(),
                Some(4),
            ),
            (
                "half-reached tuple",
                g.clone(),
                with(&[(leaf, -1)], &[(leaf, -1.0)]),
                Some(4),
            ),
            (
                "weight NaN",
                weighted(&[(other_tuple, f32::NAN)]),
                s.clone(),
                Some(4),
            ),
            (
                "weight -1",
                weighted(&[(other_tuple, -1.0)]),
                s.clone(),
                Some(4),
            ),
            (
                "weight infinite",
                weighted(&[(other_tuple, f32::INFINITY)]),
                s.clone(),
                Some(4),
            ),
            (
                "tree tuple's weight NaN",
                weighted(&[(tree_tuple, f32::NAN)]),
                s.clone(),
                None, // Check 3 or 4: whether a duplicate confirms too.
            ),
            (
                "wrong nedge",
                g.clone(),
                Search {
                    claimed: s.claimed.map(|c| c + 1),
                    ..s.clone()
                },
                Some(6),
            ),
        ];
        let mut far = g.clone();
        far.edges[other_tuple].v = n as u32 + 3;
        out.push(("tuple end out of range", far, s.clone(), Some(4)));
        if let Some(t) = self_loop {
            out.push((
                "NaN weight on a self-loop is not read",
                weighted(&[(t, f32::NAN)]),
                s.clone(),
                Some(0),
            ));
        }
        out
    }

    /// The expectation of a mutation: `Some(0)` valid, `Some(c)` failing
    /// check `c`, `None` failing some check.
    fn expect(name: &str, verdict: &Verdict, check: Option<u8>) {
        match (check, verdict) {
            (Some(0), v) => assert!(v.is_ok(), "{name}: {v:?}"),
            (Some(c), v) => assert_eq!(v.as_ref().map_err(Invalid::check), Err(c), "{name}"),
            (None, v) => assert!(v.is_err(), "{name}: {v:?}"),
        }
    }

    /// Guards the distributed verdict on correct searches: on 1 to 4 ranks
    /// it is Ok with the single-process validator's figures (nedge, which
    /// is also the kernel's, reached, largest distance, depth).
    #[test]
    fn valid_searches_pass_with_the_single_process_figures_on_1_to_4_ranks() {
        for (scale, seed) in [(8, 1), (9, 2), (10, 3)] {
            let (g, s) = case(scale, seed);
            let want = g.single(&s).unwrap();
            assert_eq!(Some(want.nedge), s.claimed);
            for p in 1..=4 {
                let (got, _) = g.distributed(p, ROUND, &s);
                assert_eq!(got, Ok(want), "scale {scale} P {p}");
                assert_eq!(got.unwrap().max_dist.to_bits(), want.max_dist.to_bits());
            }
        }
    }

    /// Guards every rule: each broken search fails, identically on every
    /// rank, with the single-process validator's check number, and for
    /// checks 1, 3, 4 and 6 with its very failure (vertex or tuple, and
    /// values).
    #[test]
    fn each_broken_search_fails_the_same_check_on_every_rank_as_in_one_process() {
        for (scale, seed) in [(8, 4), (10, 5)] {
            let (g, s) = case(scale, seed);
            for (name, g, s, check) in mutations(&g, &s) {
                let want = g.single(&s);
                expect(name, &want, check);
                for p in 1..=4 {
                    let (got, _) = g.distributed(p, ROUND, &s);
                    match (&got, &want) {
                        (Err(got), Err(want)) if want.check() == 2 => {
                            assert_eq!(got.check(), 2, "{name}, P {p}: {got} vs {want}");
                        }
                        _ => assert_eq!(got, want, "{name}, P {p}"),
                    }
                }
            }
        }
    }

    /// Guards the 64-bit path: with `WideEdge` tuples (wider requests)
    /// every verdict, good or broken, is the 32-bit one.
    #[test]
    fn wide_tuples_give_the_verdicts_of_narrow_ones() {
        let (g, s) = case(9, 8);
        let valid = [("valid", g.clone(), s.clone(), Some(0))];
        for (name, g, s, _) in valid.into_iter().chain(mutations(&g, &s)) {
            for p in [1, 3] {
                let narrow = g.distributed(p, ROUND, &s).0;
                let wide = g.distributed_as::<WideEdge>(p, ROUND, std::slice::from_ref(&s));
                assert_eq!(wide[0].0, narrow, "{name}, P {p}");
            }
        }
    }

    /// Guards the tuple rounds: small rounds (uneven across ranks) give
    /// the same figures, and name the same vertex or tuple, as one round.
    #[test]
    fn small_tuple_rounds_give_the_same_verdict() {
        let (g, s) = case(9, 7);
        let valid = [("valid", g.clone(), s.clone(), Some(0))];
        for (name, g, s, _) in valid.into_iter().chain(mutations(&g, &s)) {
            for p in [1, 2, 4] {
                let whole = g.distributed(p, ROUND, &s).0;
                for round in [1, 333, 1000] {
                    let got = g.distributed(p, round, &s).0;
                    assert_eq!(got, whole, "{name}, P {p}, round {round}");
                }
            }
        }
    }

    /// Guards the buffers kept between searches: one validator per rank
    /// judging valid and broken searches from several roots, in turn,
    /// returns each verdict a fresh validator returns.
    #[test]
    fn one_validator_serves_many_searches_like_fresh_ones() {
        let (g, s) = case(9, 9);
        let csr = Arc::new(WeightedCsr::build(g.n, &g.edges, &g.weights));
        let leaves = s.leaves();
        let others = leaves.iter().step_by(7).take(3);
        let others: Vec<Search> = others.map(|&v| sssp(&csr, v as u32)).collect();
        let same_graph = |m: &(_, Graph, _, _)| m.1.weights == g.weights && m.1.edges == g.edges;
        let broken = mutations(&g, &s).into_iter().filter(same_graph);
        let mut searches: Vec<Search> = broken.map(|m| m.2).step_by(2).collect();
        searches.splice(1..1, others);
        searches.push(s);
        for p in [1, 3] {
            let together = g.distributed_as::<Edge>(p, 500, &searches);
            for (s, (verdict, _)) in searches.iter().zip(together) {
                assert_eq!(
                    verdict,
                    g.distributed(p, 500, s).0,
                    "P {p}, root {}",
                    s.root
                );
                assert_eq!(verdict, g.single(s), "P {p}, root {}", s.root);
            }
        }
    }

    /// Guards the documented volume: all ranks together send at most
    /// `4 s + 16` bytes per non-self-loop tuple, 8 per reached vertex but
    /// the root, 8 per reached vertex and level above it, and a few
    /// collectives of small records per level.
    #[test]
    fn bytes_sent_stay_within_the_documented_volume() {
        let (g, s) = case(10, 8);
        let levels = s.levels();
        let level_sum: u64 = levels.iter().flatten().map(|&l| u64::from(l)).sum();
        let depth = u64::from(levels.iter().flatten().copied().max().unwrap());
        let reached = levels.iter().flatten().count() as u64;
        let tuples = g.edges.iter().filter(|e| e.u != e.v).count() as u64;
        let per_tuple = 4 * size_of::<Edge>() as u64 + 16;
        for p in 2..=4u64 {
            let (verdict, sent) = g.distributed(p as usize, ROUND, &s);
            assert!(verdict.is_ok());
            let records = 3 * 8 * crate::check::RECORD as u64;
            let bound = per_tuple * tuples
                + 8 * reached
                + 8 * level_sum
                + p * (p - 1) * (records + 24 * (depth + 2) + 64);
            assert!(sent <= bound, "P {p}: {sent} bytes > {bound}");
            let crossing = per_tuple * tuples * (p - 1) / p;
            assert!(
                sent >= crossing / 2,
                "P {p}: {sent} bytes, expected about {crossing}"
            );
        }
    }

    /// The graph of `validate`'s SSSP rule tests (N = 9, root 0): tuples
    /// `0-1 (1)`, `0-2 (2)`, `1-2 (0.5)`, `2-3 (1)`, `1-3 (2)`, `3-4 (0)`,
    /// the self-loop `4-4 (0.25)`, `1-0 (1)`, `5-6 (0)`, `4-8 (0)`,
    /// `8-3 (0)`, `0-1 (3)`; 7 isolated; and its shortest-path tree.
    fn small() -> (Graph, Search) {
        let triples = [
            (0, 1, 1.0),
            (0, 2, 2.0),
            (1, 2, 0.5),
            (2, 3, 1.0),
            (1, 3, 2.0),
            (3, 4, 0.0),
            (4, 4, 0.25),
            (1, 0, 1.0),
            (5, 6, 0.0),
            (4, 8, 0.0),
            (8, 3, 0.0),
            (0, 1, 3.0),
        ];
        let g = Graph {
            n: 9,
            edges: triples.iter().map(|&(u, v, _)| Edge::new(u, v)).collect(),
            weights: triples.iter().map(|t| t.2).collect(),
        };
        let s = Search {
            root: 0,
            parents: vec![0, 0, 1, 2, 3, -1, -1, -1, 3],
            dist: vec![0.0, 1.0, 1.5, 2.5, 2.5, -1.0, -1.0, -1.0, 2.5],
            claimed: Some(10),
        };
        (g, s)
    }

    /// Guards ranks that own no vertex or hold no tuple, and the rules on
    /// a graph small enough to read: with up to 9 ranks and one tuple per
    /// round every verdict is the single-process one, among them a cycle
    /// of zero-weight tuples whose distances the reference's rules pass
    /// (3 -> 8 -> 4 -> 3, all at 2.5), a cycle among unreached vertices,
    /// and bad weights on a tuple between unreached ends and on a
    /// self-loop (not read).
    #[test]
    fn ranks_without_vertices_or_tuples_take_part_in_every_phase() {
        let (g, s) = small();
        let with = |parents: &[(usize, i64)], dist: &[(usize, f32)]| {
            let mut m = s.clone();
            parents.iter().for_each(|&(v, p)| m.parents[v] = p);
            dist.iter().for_each(|&(v, d)| m.dist[v] = d);
            m.claimed = None;
            m
        };
        let weighted = |t: usize, w: f32| {
            let mut h = g.clone();
            h.weights[t] = w;
            h
        };
        let cases = [
            ("valid", g.clone(), s.clone(), Some(0)),
            ("8 below 4", g.clone(), with(&[(8, 4)], &[]), Some(0)),
            (
                "zero-weight cycle",
                g.clone(),
                with(&[(3, 8), (8, 4)], &[]),
                Some(2),
            ),
            (
                "unreached cycle",
                g.clone(),
                with(&[(5, 6), (6, 5)], &[(5, 0.0), (6, 0.0)]),
                Some(2),
            ),
            (
                "second root",
                g.clone(),
                with(&[(7, 7)], &[(7, 0.0)]),
                Some(2),
            ),
            ("unconfirmed", g.clone(), with(&[(3, 1)], &[]), Some(3)),
            (
                "parent 1 at 2.5 - 1.5",
                weighted(5, 1.5),
                with(&[(4, 1)], &[]),
                Some(3),
            ),
            (
                "3 too far",
                g.clone(),
                with(&[(3, 1), (4, 3), (8, 4)], &[(3, 3.0), (4, 3.0), (8, 3.0)]),
                Some(4),
            ),
            (
                "unreached ends, weight infinite",
                weighted(8, f32::INFINITY),
                s.clone(),
                Some(4),
            ),
            (
                "self-loop weight NaN",
                weighted(6, f32::NAN),
                s.clone(),
                Some(0),
            ),
            (
                "half reached",
                g.clone(),
                with(&[(8, -1)], &[(8, -1.0)]),
                Some(4),
            ),
            ("root dist -0", g.clone(), with(&[], &[(0, -0.0)]), Some(0)),
            (
                "wrong nedge",
                g.clone(),
                Search {
                    claimed: Some(11),
                    ..s.clone()
                },
                Some(6),
            ),
        ];
        for (name, g, s, check) in cases {
            let want = g.single(&s);
            expect(name, &want, check);
            for p in [1, 2, 3, 4, 9] {
                for round in [1, ROUND] {
                    let (got, _) = g.distributed(p, round, &s);
                    match (&got, &want) {
                        (Err(got), Err(want)) if want.check() == 2 => {
                            assert_eq!(got.check(), 2, "{name}, P {p}: {got}");
                        }
                        _ => assert_eq!(got, want, "{name}, P {p}, round {round}"),
                    }
                }
            }
        }
    }

    /// Guards check 1's lengths: a rank whose arrays are too short or
    /// whose weights do not match its tuples fails, and every rank with
    /// it (rank 0 owns the 9 vertices, both hold every tuple); the root
    /// out of range fails after them.
    #[test]
    fn wrong_lengths_and_roots_fail_check_1_on_every_rank() {
        let (g, s) = small();
        let part = Partition::new(9, 2);
        for (short, root) in [
            (None, 9),
            (Some(0), 0),
            (Some(1), 0),
            (Some(2), 0),
            (Some(2), 9),
        ] {
            let got = ThreadRanks::run(2, |c| {
                let r = c.rank();
                let mine = part.first(r) as usize..(part.first(r) as usize + part.count(r));
                let mut parents: Vec<u64> =
                    s.parents[mine.clone()].iter().map(|&x| x as u64).collect();
                let mut dist = s.dist[mine].to_vec();
                let mut weights = &g.weights[..];
                match short.filter(|_| r == 0) {
                    Some(0) => parents.truncate(8),
                    Some(1) => dist.truncate(8),
                    Some(_) => weights = &weights[1..],
                    None => {}
                }
                let mut validator = DistSsspValidator::new(c, part, &g.edges, weights, 0);
                validator.check(root, &parents, &dist, None)
            });
            let want = match short {
                None => Invalid::RootOutOfRange {
                    root: 9,
                    num_vertices: 9,
                },
                Some(0) => Invalid::WrongLength {
                    found: 8,
                    expected: 9,
                },
                Some(1) => Invalid::DistWrongLength {
                    found: 8,
                    expected: 9,
                },
                Some(_) => Invalid::WeightCount {
                    found: 11,
                    expected: 12,
                },
            };
            assert_eq!(
                got,
                vec![Err(want.clone()), Err(want)],
                "{short:?} root {root}"
            );
        }
    }
}
