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
//! Invariants. Every rank calls the same collectives in the same order:
//! round counts come from all-reduces, and each phase ends in an agreement
//! (one all-gather of a fixed record of `u64` words per rank) after which
//! all stop or all go on. All ranks pick the same failure: the lowest
//! check, then the lowest vertex or tuple position, then the lowest rank;
//! for checks 1, 3, 4 and 6 that is the one the single-process validator
//! names. Replies return in request order and `route` keeps each
//! destination's items in input order, so a holder finds a tuple's two
//! replies with one cursor per rank: positions never travel.
//!
//! The SSSP validator (`sssp_check.rs`) shares all of this but the
//! answers and the judgement: [`Tree`] holds the per-vertex state and runs
//! check 1's scan, check 2, the confirmations' tally and the agreements;
//! [`TupleRounds`] runs a round of requests about tuples' ends.

use crate::Partition;
use crate::comm::{
    Comm, Reduce, all_gather, all_reduce, exchange, exchange_into, exchange_known,
    exchange_known_into,
};
use crate::route::{Outbox, Sends, route, route_into};
use bytemuck::Pod;
use generator::Tuple;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use validate::{ExactF32, Invalid, TreeSummary};

/// Tuples a rank judges per round of checks 3 and 4: a round's buffers
/// take 48 bytes a tuple with 32-bit ids (requests out and in, answers,
/// replies; 80 with 64-bit ids), so 2^19 tuples are 24 MiB; 2^21 put a rank at 478 MB at SCALE 22 on 4 ranks,
/// over issue 11's memory bound, for no measurable speed.
pub(crate) const ROUND: usize = 1 << 19;
/// Levels of vertices not reached (parent `-1`, `u64::MAX` here) and of
/// reached ones whose level is not known yet.
const UNREACHED: u32 = u32::MAX;
const PENDING: u32 = u32::MAX - 1;
/// Words of a failure record: order, subject, variant, five fields.
pub(crate) const RECORD: usize = 8;
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
}

impl<'c, T: Tuple> DistValidator<'c, T> {
    /// `tuples`: this rank's share of the input tuples (global ids), which
    /// are the tuples numbered `first_tuple ..` in the global list (errors
    /// name global positions). Allocates 9 bytes per own vertex, once.
    /// Not collective.
    pub fn new(comm: &'c dyn Comm, part: Partition, tuples: &'c [T], first_tuple: u64) -> Self {
        DistValidator {
            tree: Tree::new(comm, part),
            tuples,
            first_tuple,
            round: ROUND,
            rounds: TupleRounds::default(),
        }
    }

    /// About the most bytes a validator takes on a rank with `rows` own
    /// vertices and `tuples` tuples: 9 per vertex, and the larger of a level
    /// round's buffers (about 32 per vertex) and a tuple round's (about
    /// `48 + 4 size_of::<T>()` per tuple of the round).
    pub fn bytes_for(rows: u64, tuples: u64) -> u64 {
        let per_tuple = 48 + 4 * size_of::<T>() as u64;
        9 * rows + (32 * rows).max(per_tuple * tuples.min(ROUND as u64))
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
        let n = self.tree.part.num_vertices();
        if root >= n {
            let num_vertices = usize::try_from(n).expect("N fits memory");
            return Err(Invalid::RootOutOfRange { root, num_vertices });
        }
        self.tree.agree(self.check_pointers(root, parents))?;
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
        let bad = (0..parents.len())
            .into_par_iter()
            .find_first(|&i| entry(i).is_some());
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
        let own = |(i, &p): (usize, &u64)| p == start + i as u64 && p != root;
        let vertex = start + parents.par_iter().enumerate().position_first(own)? as u64;
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
    /// if any has one. Collective: one all-gather of `RECORD` words per rank.
    pub(crate) fn agree(&self, found: Found) -> Result<(), Invalid> {
        let mine = found.map_or([u64::MAX; RECORD], |(subject, e)| encode(subject, &e));
        let size = self.comm.size();
        let mut all = vec![0u64; size * RECORD];
        all_gather(self.comm, &mine, &vec![RECORD; size], &mut all);
        let records = all.chunks_exact(RECORD).filter(|r| r[0] != u64::MAX);
        records
            .min_by_key(|r| (r[0], r[1]))
            .map_or(Ok(()), |r| Err(decode(r)))
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
mod tests {
    use super::*;
    use crate::ThreadRanks;
    use generator::{Edge, EdgeGenerator, EdgeList, Kronecker, WideEdge};
    use kernels::{Csr, DoParams, Kernel, SearchKey};
    use std::sync::Arc;
    use validate::Validator;

    /// A Kronecker graph, a correct BFS tree of it from its busiest vertex
    /// (by the single-process `dobfs` kernel), and that search's nedge.
    struct Case {
        list: EdgeList,
        csr: Arc<Csr>,
        root: u64,
        parents: Vec<i64>,
        nedge: u64,
    }

    fn case(scale: u32, seed: u64) -> Case {
        let list = Kronecker::new(scale, 16, seed).unwrap().generate();
        let csr = Arc::new(Csr::from_edge_list(&list));
        let n = csr.num_vertices() as u32;
        let root = (0..n).max_by_key(|&v| csr.degree(v)).unwrap();
        let mut engine = Kernel::Dobfs(DoParams::DEFAULT).engine(Arc::clone(&csr));
        engine.search(SearchKey::new(root.into(), &csr).unwrap());
        let parents = engine.parents().to_i64();
        let nedge = csr.nedge(engine.parents());
        Case {
            list,
            csr,
            root: root.into(),
            parents,
            nedge,
        }
    }

    impl Case {
        fn n(&self) -> usize {
            self.parents.len()
        }

        /// The tree levels of the valid tree (`None`: unreached).
        fn levels(&self) -> Vec<Option<u32>> {
            let mut levels = vec![None; self.n()];
            levels[self.root as usize] = Some(0);
            for _ in 0..self.n() {
                for v in 0..self.n() {
                    let p = self.parents[v];
                    if levels[v].is_none() && p >= 0 {
                        levels[v] = levels[p as usize].map(|l| l + 1);
                    }
                }
            }
            levels
        }

        fn is_ancestor(&self, a: usize, mut v: usize) -> bool {
            while v != self.root as usize {
                if v == a {
                    return true;
                }
                v = self.parents[v] as usize;
            }
            a == v
        }

        fn single(&self, parents: &[i64], claimed: Option<u64>) -> Result<TreeSummary, Invalid> {
            Validator::new(self.n()).validate(&self.list, self.root, parents, claimed)
        }

        /// The verdict of `p` ranks, each with tuples `m r / p .. m (r + 1) / p`
        /// and its own vertices' parents, judging `round` tuples per round;
        /// also the bytes all ranks sent. Asserts that every rank agrees.
        fn distributed(
            &self,
            p: usize,
            round: usize,
            parents: &[i64],
            claimed: Option<u64>,
        ) -> (Result<TreeSummary, Invalid>, u64) {
            self.distributed_as::<Edge>(p, round, parents, claimed)
        }

        /// [`Case::distributed`] with the tuples as `T`.
        fn distributed_as<T: Tuple>(
            &self,
            p: usize,
            round: usize,
            parents: &[i64],
            claimed: Option<u64>,
        ) -> (Result<TreeSummary, Invalid>, u64) {
            let part = Partition::new(self.n() as u64, p);
            let m = self.list.len();
            let tuples: Vec<T> = (self.list.edges().iter())
                .map(|e| T::from_ends(e.u.into(), e.v.into()))
                .collect();
            let got = ThreadRanks::run(p, |c| {
                let r = c.rank();
                let (lo, hi) = (m * r / p, m * (r + 1) / p);
                let first = part.first(r) as usize;
                // -1 becomes u64::MAX, the unreached mark.
                let mine: Vec<u64> = parents[first..first + part.count(r)]
                    .iter()
                    .map(|&x| x as u64)
                    .collect();
                let mut validator = DistValidator::new(c, part, &tuples[lo..hi], lo as u64);
                validator.round = round;
                let verdict = validator.check(self.root, &mine, claimed);
                (verdict, c.bytes_sent())
            });
            for (r, (verdict, _)) in got.iter().enumerate() {
                assert_eq!(verdict, &got[0].0, "P {p}: rank {r} disagrees with rank 0");
            }
            (got[0].0.clone(), got.iter().map(|g| g.1).sum())
        }
    }

    /// Broken copies of the valid tree, by name, each built to fail one check.
    fn mutations(c: &Case) -> Vec<(&'static str, Vec<i64>, Option<u64>)> {
        let n = c.n();
        let levels = c.levels();
        let root = c.root as usize;
        let level = |v: usize| levels[v].unwrap_or(u32::MAX);
        let reached: Vec<usize> = (0..n)
            .filter(|&v| levels[v].is_some() && v != root)
            .collect();
        let unreached: Vec<usize> = (0..n).filter(|&v| levels[v].is_none()).collect();
        let has_child = |v: usize| c.parents.iter().any(|&p| p == v as i64 && v != root);
        let adjacent = |v: usize, w: usize| c.csr.neighbors(v as u32).contains(&(w as u32));
        let with = |changes: &[(usize, i64)]| {
            let mut p = c.parents.clone();
            for &(v, parent) in changes {
                p[v] = parent;
            }
            p
        };
        let child = *reached
            .iter()
            .find(|&&v| c.parents[v] == c.root as i64)
            .unwrap();
        let deep = *reached.iter().find(|&&v| level(v) >= 2).unwrap();
        let leaf = *reached.iter().rev().find(|&&v| !has_child(v)).unwrap();
        let stranger = reached
            .iter()
            .find_map(|&v| {
                let w = (0..n)
                    .find(|&w| levels[w].is_some_and(|l| l + 1 == level(v)) && !adjacent(v, w))?;
                Some((v, w))
            })
            .expect("a vertex and a non-neighbour one level up");
        let deeper = reached
            .iter()
            .filter(|&&v| level(v) == 1)
            .find_map(|&v| {
                let w = c.csr.neighbors(v as u32).iter().map(|&w| w as usize);
                Some((
                    v,
                    w.filter(|&w| level(w) >= 2 && !c.is_ancestor(v, w)).min()?,
                ))
            })
            .expect("a level-1 vertex with a deeper neighbour outside its subtree");
        let (a, b) = (unreached[0], unreached[1]);
        let last = *reached.last().unwrap();
        vec![
            ("parent out of range", with(&[(last, n as i64 + 5)]), None),
            ("parent -2", with(&[(reached[0], -2)]), None),
            ("root not own parent", with(&[(root, child as i64)]), None),
            ("second root", with(&[(deep, deep as i64)]), None),
            ("parent marked unreached", with(&[(leaf, a as i64)]), None),
            (
                "2-cycle among reached",
                with(&[(c.parents[deep] as usize, deep as i64)]),
                None,
            ),
            (
                "cycle among unreached",
                with(&[(a, b as i64), (b, a as i64)]),
                None,
            ),
            (
                "unreached vertex given a parent",
                with(&[(a, c.root as i64)]),
                None,
            ),
            ("reached leaf detached", with(&[(leaf, -1)]), None),
            (
                "parent a non-neighbour",
                with(&[(stranger.0, stranger.1 as i64)]),
                None,
            ),
            (
                "re-parented deeper",
                with(&[(deeper.0, deeper.1 as i64)]),
                None,
            ),
            ("wrong nedge", c.parents.clone(), Some(c.nedge + 1)),
        ]
    }

    /// Guards the distributed verdict on correct trees: on 1 to 4 ranks it
    /// is Ok with the single-process validator's nedge, reached and depth.
    #[test]
    fn valid_trees_pass_with_the_single_process_figures_on_1_to_4_ranks() {
        for (scale, seed) in [(8, 1), (9, 2), (10, 3)] {
            let c = case(scale, seed);
            let want = c.single(&c.parents, Some(c.nedge)).unwrap();
            for p in 1..=4 {
                let (got, _) = c.distributed(p, ROUND, &c.parents, Some(c.nedge));
                assert_eq!(got, Ok(want), "scale {scale} P {p}");
            }
        }
    }

    /// Guards every check: each broken tree fails, identically on every
    /// rank, with the single-process validator's check number; for checks
    /// 1, 3, 4 and 6 also the same vertex or tuple it names.
    #[test]
    fn each_broken_tree_fails_the_same_check_on_every_rank_as_in_one_process() {
        for (scale, seed) in [(8, 4), (10, 5)] {
            let c = case(scale, seed);
            for (name, parents, claimed) in mutations(&c) {
                let want = c.single(&parents, claimed).unwrap_err();
                for p in 1..=4 {
                    let (got, _) = c.distributed(p, ROUND, &parents, claimed);
                    let got = got.unwrap_err();
                    assert_eq!(got.check(), want.check(), "{name}, P {p}: {got} vs {want}");
                    if want.check() != 2 {
                        assert_eq!(got, want, "{name}, P {p}");
                    }
                }
            }
        }
    }

    /// Guards the 64-bit path: with `WideEdge` tuples (and so 16-byte
    /// requests) every verdict, good or broken, is the 32-bit one.
    #[test]
    fn wide_tuples_give_the_verdicts_of_narrow_ones() {
        let c = case(9, 8);
        let valid = [("valid", c.parents.clone(), Some(c.nedge))];
        for (name, parents, claimed) in valid.into_iter().chain(mutations(&c)) {
            for p in [1, 3] {
                let narrow = c.distributed(p, ROUND, &parents, claimed);
                let wide = c.distributed_as::<WideEdge>(p, ROUND, &parents, claimed);
                assert_eq!(wide.0, narrow.0, "{name}, P {p}");
            }
        }
    }

    /// Guards the naming of loops: the vertex a `Cycle` names lies on the
    /// loop, even when lower vertices only hang off it.
    #[test]
    fn a_cycle_is_named_by_a_vertex_on_it() {
        let c = case(9, 6);
        let levels = c.levels();
        let v = (0..c.n())
            .rev()
            .find(|&v| levels[v].is_some_and(|l| l >= 3))
            .unwrap();
        let p = c.parents[v] as usize;
        let mut parents = c.parents.clone();
        parents[p] = v as i64;
        for ranks in 1..=4 {
            match c.distributed(ranks, ROUND, &parents, None).0 {
                Err(Invalid::Cycle { vertex }) => {
                    assert!(
                        vertex == v as u64 || vertex == p as u64,
                        "P {ranks}: {vertex}"
                    );
                }
                other => panic!("P {ranks}: {other:?}"),
            }
        }
    }

    /// Guards the tuple rounds: small rounds (uneven across ranks) give
    /// the same figures and name the same tuple as one round.
    #[test]
    fn small_tuple_rounds_give_the_same_verdict() {
        let c = case(9, 7);
        let levels = c.levels();
        let leaf = (0..c.n())
            .rev()
            .find(|&v| levels[v].is_some_and(|l| l > 0) && !c.parents.contains(&(v as i64)))
            .unwrap();
        let mut detached = c.parents.clone();
        detached[leaf] = -1;
        for p in 1..=4 {
            for (parents, claimed) in [(&c.parents, Some(c.nedge)), (&detached, None)] {
                let whole = c.distributed(p, ROUND, parents, claimed).0;
                for round in [1, 333, 1000] {
                    assert_eq!(
                        c.distributed(p, round, parents, claimed).0,
                        whole,
                        "P {p}, round {round}"
                    );
                }
            }
        }
    }

    /// Guards the documented volume: all ranks together send at most 24
    /// bytes per non-self-loop tuple, 8 per reached vertex and level above
    /// it, and a few collectives of small records per level.
    #[test]
    fn bytes_sent_stay_within_the_documented_volume() {
        let c = case(10, 8);
        let levels = c.levels();
        let level_sum: u64 = levels.iter().flatten().map(|&l| u64::from(l)).sum();
        let depth = u64::from(levels.iter().flatten().copied().max().unwrap());
        let tuples = c.list.edges().iter().filter(|e| !e.is_self_loop()).count() as u64;
        for p in 2..=4u64 {
            let (verdict, sent) = c.distributed(p as usize, ROUND, &c.parents, Some(c.nedge));
            assert!(verdict.is_ok());
            let bound = 24 * tuples
                + 8 * level_sum
                + p * (p - 1) * (3 * 8 * RECORD as u64 + 16 * (depth + 2) + 16);
            assert!(sent <= bound, "P {p}: {sent} bytes > {bound}");
            let crossing = 24 * tuples * (p - 1) / p;
            assert!(
                sent >= crossing / 2,
                "P {p}: {sent} bytes, expected about {crossing}"
            );
        }
    }

    /// Guards ranks that own no vertex or hold no tuple: on the 8-vertex
    /// graph of `validate`'s tests, with up to 9 ranks and one tuple per
    /// round, they take part in every phase and the verdicts are the
    /// single-process ones.
    #[test]
    fn ranks_without_vertices_or_tuples_take_part_in_every_phase() {
        let pairs = [
            (0, 1),
            (0, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (4, 4),
            (1, 0),
            (5, 6),
        ];
        let edges = pairs.iter().map(|&(u, v)| Edge::new(u, v)).collect();
        let list = EdgeList::new(8, edges).unwrap();
        let csr = Arc::new(Csr::from_edge_list(&list));
        let parents = vec![0, 0, 0, 1, 3, -1, -1, -1];
        let c = Case {
            list,
            csr,
            root: 0,
            parents,
            nedge: 6,
        };
        let broken: [&[(usize, i64)]; 7] = [
            &[(4, -1)],
            &[(2, 3)],
            &[(4, 1)],
            &[(7, 0)],
            &[(5, 6), (6, 5)],
            &[(4, 5)],
            &[(5, 5)],
        ];
        for p in [1, 2, 3, 4, 9] {
            for round in [1, ROUND] {
                let ok = c.distributed(p, round, &c.parents, Some(6)).0;
                assert_eq!(ok, c.single(&c.parents, Some(6)), "P {p}");
                for changes in broken {
                    let mut parents = c.parents.clone();
                    changes.iter().for_each(|&(v, parent)| parents[v] = parent);
                    let want = c.single(&parents, None).unwrap_err();
                    let got = c.distributed(p, round, &parents, None).0.unwrap_err();
                    assert_eq!(got.check(), want.check(), "P {p} {changes:?}: {got}");
                    if want.check() != 2 {
                        assert_eq!(got, want, "P {p} {changes:?}");
                    }
                }
            }
        }
    }

    /// One failure of every kind, with fields that fill their words (ids
    /// near `u64::MAX`, negative parents, NaN, `-0.0` and infinite `f32`).
    fn every_kind() -> Vec<Invalid> {
        let f = |x: f32| ExactF32::from(x);
        let big = u64::MAX - 1;
        vec![
            Invalid::WrongLength {
                found: 3,
                expected: usize::MAX,
            },
            Invalid::RootOutOfRange {
                root: big,
                num_vertices: 7,
            },
            Invalid::ParentOutOfRange {
                vertex: big,
                parent: i64::MIN,
            },
            Invalid::RootNotOwnParent {
                root: 5,
                parent: -1,
            },
            Invalid::SecondRoot { vertex: big },
            Invalid::ParentUnreached {
                vertex: 1,
                parent: big,
            },
            Invalid::Cycle { vertex: big },
            Invalid::NotAnEdge {
                vertex: big,
                parent: 9,
            },
            Invalid::HalfReachedEdge {
                edge: big,
                reached: 2,
                unreached: u64::MAX,
            },
            Invalid::LevelGap {
                edge: 4,
                u: 5,
                v: big,
                level_u: u32::MAX,
                level_v: 0,
            },
            Invalid::NedgeMismatch {
                counted: big,
                claimed: 0,
            },
            Invalid::DistWrongLength {
                found: usize::MAX,
                expected: 0,
            },
            Invalid::WeightCount {
                found: 0,
                expected: 12,
            },
            Invalid::DistOutOfRange {
                vertex: big,
                dist: f(f32::NAN),
            },
            Invalid::ReachMismatch {
                vertex: 3,
                parent: i64::MIN,
                dist: f(-0.0),
            },
            Invalid::RootDist {
                root: big,
                dist: f(f32::NEG_INFINITY),
            },
            Invalid::Unconfirmed {
                vertex: big,
                parent: 1,
                dist: f(-1.0),
                parent_dist: f(f32::MAX),
            },
            Invalid::TupleOutOfRange {
                edge: big,
                u: u64::MAX,
                v: 0,
                num_vertices: usize::MAX,
            },
            Invalid::WeightOutOfRange {
                edge: 6,
                weight: ExactF32::from_bits(0xffc0_0001),
            },
            Invalid::TriangleRule {
                edge: big,
                u: 1,
                v: u64::MAX,
                weight: f(f32::MIN_POSITIVE),
                dist_u: f(f32::INFINITY),
                dist_v: ExactF32::from_bits(0x7fc0_1234),
            },
        ]
    }

    /// Guards the agreement records: every kind of failure comes back from
    /// its record field for field, bit for bit, and the list above holds
    /// each kind once (the exhaustive match fails to compile when a kind
    /// is added, so the list grows with it).
    #[test]
    #[rustfmt::skip]
    fn every_failure_round_trips_through_its_record() {
        let kind = |e: &Invalid| match e {
            Invalid::WrongLength { .. } => 0, Invalid::RootOutOfRange { .. } => 1,
            Invalid::ParentOutOfRange { .. } => 2, Invalid::RootNotOwnParent { .. } => 3,
            Invalid::SecondRoot { .. } => 4, Invalid::ParentUnreached { .. } => 5,
            Invalid::Cycle { .. } => 6, Invalid::NotAnEdge { .. } => 7,
            Invalid::HalfReachedEdge { .. } => 8, Invalid::LevelGap { .. } => 9,
            Invalid::NedgeMismatch { .. } => 10, Invalid::DistWrongLength { .. } => 11,
            Invalid::WeightCount { .. } => 12, Invalid::DistOutOfRange { .. } => 13,
            Invalid::ReachMismatch { .. } => 14, Invalid::RootDist { .. } => 15,
            Invalid::Unconfirmed { .. } => 16, Invalid::TupleOutOfRange { .. } => 17,
            Invalid::WeightOutOfRange { .. } => 18, Invalid::TriangleRule { .. } => 19,
        };
        let all = every_kind();
        let kinds: Vec<usize> = all.iter().map(kind).collect();
        assert_eq!(kinds, (0..20).collect::<Vec<_>>());
        for (subject, e) in all.iter().enumerate() {
            let record = encode(subject as u64, e);
            assert_eq!(record[1], subject as u64);
            assert_eq!(&decode(&record), e, "{e}");
            assert_eq!(decode(&record).to_string(), e.to_string());
        }
    }

    /// Guards the order of the ranks' failures: it follows the check
    /// numbers, and within check 1 the order the single-process
    /// validators look in (lengths, the root, entries, the root's own).
    #[test]
    fn failures_sort_by_check_then_by_the_single_process_order() {
        let all = every_kind();
        for a in &all {
            for b in &all {
                if a.check() < b.check() {
                    assert!(order(a) < order(b), "{a} before {b}");
                }
            }
        }
        let f = ExactF32::from(1.0);
        let check1 = [
            Invalid::WrongLength {
                found: 0,
                expected: 1,
            },
            Invalid::DistWrongLength {
                found: 0,
                expected: 1,
            },
            Invalid::WeightCount {
                found: 0,
                expected: 1,
            },
            Invalid::RootOutOfRange {
                root: 1,
                num_vertices: 1,
            },
            Invalid::DistOutOfRange { vertex: 0, dist: f },
            Invalid::RootNotOwnParent {
                root: 0,
                parent: -1,
            },
            Invalid::RootDist { root: 0, dist: f },
        ];
        assert!(check1.windows(2).all(|w| order(&w[0]) < order(&w[1])));
        let (parent, reach) = (
            Invalid::ParentOutOfRange {
                vertex: 9,
                parent: -2,
            },
            Invalid::ReachMismatch {
                vertex: 2,
                parent: -1,
                dist: f,
            },
        );
        assert_eq!(
            order(&parent),
            order(&reach),
            "one scan, lowest vertex wins"
        );
        assert_eq!(
            first(Some((9, parent)), Some((2, reach.clone()))),
            Some((2, reach))
        );
    }
}
