use super::record::{decode, encode, order};
use super::*;
use crate::ThreadRanks;
use std::sync::atomic::Ordering::Relaxed;
use validate::ExactF32;

/// The 8-vertex graph of `validate`'s check tests and its trees, from
/// their one source.
#[path = "../../../validate/tests/fixtures/eight.rs"]
mod eight;

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
    /// and its own vertices' parents, judging `round` tuples per round.
    /// Asserts that every rank agrees.
    fn distributed(&self, p: usize, round: usize, parents: &[i64], claimed: Option<u64>) -> Run {
        self.distributed_as::<Edge>(p, round, parents, claimed)
    }

    /// [`Case::distributed`] with the tuples as `T`.
    fn distributed_as<T: Tuple>(
        &self,
        p: usize,
        round: usize,
        parents: &[i64],
        claimed: Option<u64>,
    ) -> Run {
        let tuples: Vec<T> = (self.list.edges().iter())
            .map(|e| T::from_ends(e.u.into(), e.v.into()))
            .collect();
        self.distributed_on(&tuples, p, round, parents, claimed)
    }

    /// [`Case::distributed`] over `tuples` instead of the case's own.
    fn distributed_on<T: Tuple>(
        &self,
        tuples: &[T],
        p: usize,
        round: usize,
        parents: &[i64],
        claimed: Option<u64>,
    ) -> Run {
        self.claimed_on(tuples, (p, round), (parents, None), claimed)
    }

    /// [`Case::distributed_on`] with the levels a kernel `claims` for
    /// every vertex (each rank passes its own vertices' claims).
    fn claimed_on<T: Tuple>(
        &self,
        tuples: &[T],
        (p, round): (usize, usize),
        (parents, claims): (&[i64], Option<&[u8]>),
        claimed: Option<u64>,
    ) -> Run {
        let part = Partition::new(self.n() as u64, p);
        let m = tuples.len();
        let got = ThreadRanks::run(p, |c| {
            let r = c.rank();
            let (lo, hi) = (m * r / p, m * (r + 1) / p);
            let first = part.first(r) as usize;
            // -1 becomes u64::MAX, the unreached mark.
            let mine: Vec<u64> = parents[first..first + part.count(r)]
                .iter()
                .map(|&x| x as u64)
                .collect();
            let mut validator =
                DistValidator::with_round(c, part, &tuples[lo..hi], lo as u64, round);
            let claims = claims.map(|all| &all[first..first + part.count(r)]);
            let before = c.bytes_sent();
            let verdict = validator.check_claimed(self.root, &mine, claims, claimed);
            let paths = (validator.unproven(), validator.certified());
            (verdict, c.bytes_sent() - before, paths)
        });
        for (r, (verdict, _, paths)) in got.iter().enumerate() {
            assert_eq!(verdict, &got[0].0, "P {p}: rank {r} disagrees with rank 0");
            assert_eq!(*paths, got[0].2, "P {p}: rank {r} took another path");
        }
        Run {
            verdict: got[0].0.clone(),
            bytes: got.iter().map(|g| g.1).sum(),
            unproven: got[0].2.0,
            certified: got[0].2.1,
        }
    }

    /// The single process's verdict on `tuples` instead of the case's own.
    fn single_on(&self, tuples: &[Edge], parents: &[i64], claimed: Option<u64>) -> Verdict {
        let list = EdgeList::new(self.n() as u64, tuples.to_vec()).unwrap();
        Validator::new(self.n()).validate(&list, self.root, parents, claimed)
    }
}

type Verdict = Result<TreeSummary, Invalid>;

/// What the ranks made of one search.
struct Run {
    /// Their common verdict.
    verdict: Verdict,
    /// The bytes all ranks sent during the check (not the construction).
    bytes: u64,
    /// Whether the proof left the search to the tuple rounds (0 or 1).
    unproven: u64,
    /// Whether the claimed levels held (0 or 1).
    certified: u64,
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
            let run = c.distributed(p, ROUND, &c.parents, Some(c.nedge));
            assert_eq!(run.verdict, Ok(want), "scale {scale} P {p}");
            assert_eq!(run.unproven, 0, "scale {scale} P {p}: the proof settles it");
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
                let got = c.distributed(p, ROUND, &parents, claimed).verdict;
                let got = got.unwrap_err();
                assert_eq!(got.check(), want.check(), "{name}, P {p}: {got} vs {want}");
                if want.check() != 2 {
                    assert_eq!(got, want, "{name}, P {p}");
                }
            }
        }
    }
}

/// The verdicts of `p` ranks on `trees` (parents, claimed nedge) from the
/// case's root, validated in order as the harness drives a batching
/// checker: each held, the held ones settled when the lanes are full and
/// after the last. Asserts that every rank agrees; with how many searches
/// the tuple rounds judged.
fn batched(c: &Case, p: usize, trees: &[(Vec<i64>, Option<u64>)]) -> (Vec<Verdict>, u64) {
    let (verdicts, unproven, _) = batched_claimed(c, p, trees, None);
    (verdicts, unproven)
}

/// [`batched`] with the levels a kernel `claims` for every vertex, the
/// same for every tree; also how many searches the claims certified.
fn batched_claimed(
    c: &Case,
    p: usize,
    trees: &[(Vec<i64>, Option<u64>)],
    claims: Option<&[u8]>,
) -> (Vec<Verdict>, u64, u64) {
    let part = Partition::new(c.n() as u64, p);
    let tuples = c.list.edges();
    let m = tuples.len();
    let got = ThreadRanks::run(p, |comm| {
        let r = comm.rank();
        let (lo, hi) = (m * r / p, m * (r + 1) / p);
        let first = part.first(r) as usize;
        let mut validator = DistValidator::new(comm, part, &tuples[lo..hi], lo as u64);
        let (mut verdicts, mut held) = (Vec::new(), Vec::new());
        for (k, (parents, claimed)) in trees.iter().enumerate() {
            let mut mine: Vec<u64> = (parents[first..first + part.count(r)].iter())
                .map(|&x| x as u64)
                .collect();
            verdicts.push(None);
            let claims = claims.map(|all| &all[first..first + part.count(r)]);
            match validator.hold_claimed(c.root, &mut mine, claims, *claimed) {
                Ok(None) => held.push(k),
                done => verdicts[k] = Some(done.map(|t| t.expect("judged"))),
            }
            if held.len() == validator.lanes() || k + 1 == trees.len() {
                let settled = validator.settle();
                assert_eq!(settled.len(), held.len());
                for (k, v) in held.drain(..).zip(settled) {
                    verdicts[k] = Some(v);
                }
            }
        }
        let verdicts: Vec<Verdict> = verdicts.into_iter().map(Option::unwrap).collect();
        (verdicts, validator.unproven(), validator.certified())
    });
    for (r, g) in got.iter().enumerate() {
        assert_eq!(g, &got[0], "P {p}: rank {r} disagrees with rank 0");
    }
    got.into_iter().next().unwrap()
}

/// Guards the batch: searches held and settled together, valid ones
/// among broken ones, in batches full and not, get each the verdict it
/// gets alone (the single process's check, and its failure for checks 1,
/// 3, 4 and 6); only those failing checks 2 to 5 past check 1's scan go
/// to the tuple rounds (to name the failure); every broken tree is
/// refused.
#[test]
fn a_batch_gives_each_search_the_verdict_it_gets_alone() {
    for (scale, seed) in [(8, 4), (10, 5)] {
        let c = case(scale, seed);
        let valid = (c.parents.clone(), Some(c.nedge));
        let mut trees = vec![valid.clone(); 3];
        for (_, parents, claimed) in mutations(&c) {
            trees.push((parents, claimed));
            trees.push(valid.clone());
        }
        assert!(trees.len() > super::LANES, "more than one batch");
        for p in 1..=4 {
            let (verdicts, unproven) = batched(&c, p, &trees);
            let mut failed_late = 0;
            for ((parents, claimed), got) in trees.iter().zip(&verdicts) {
                let want = c.single(parents, *claimed);
                let Err(want) = want else {
                    assert_eq!(got, &want, "P {p}: a valid tree");
                    continue;
                };
                let got = got.clone().unwrap_err();
                assert_eq!(got.check(), want.check(), "P {p}: {got} vs {want}");
                if want.check() != 2 {
                    assert_eq!(got, want, "P {p}");
                }
                // A second root fails check 2 in check 1's scan.
                let early = matches!(want, Invalid::SecondRoot { .. });
                failed_late += u64::from((2..=5).contains(&want.check()) && !early);
            }
            assert_eq!(
                unproven, failed_late,
                "P {p}: only trees failing checks 2-5 go to the tuple rounds"
            );
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
            assert_eq!(wide.verdict, narrow.verdict, "{name}, P {p}");
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
        match c.distributed(ranks, ROUND, &parents, None).verdict {
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
            let whole = c.distributed(p, ROUND, parents, claimed).verdict;
            for round in [1, 333, 1000] {
                assert_eq!(
                    c.distributed(p, round, parents, claimed).verdict,
                    whole,
                    "P {p}, round {round}"
                );
            }
        }
    }
}

/// The bytes all ranks send to prove a valid tree, by the model of
/// `levels.rs`: check 1's agreement, the level rounds
/// ([`level_rounds_model`]) and the verdict.
fn proof_model(c: &Case, p: usize) -> u64 {
    let (q, p64) = (p as u64 - 1, p as u64);
    p64 * q * (AGREED + 16) + level_rounds_model(&c.levels(), p)
}

/// The bytes all `p` ranks send in the level rounds of a tree whose
/// vertices have `levels` (`None` unreached): `depth + 2` rounds'
/// records and the announcements (each rank's level-`k` vertices as a
/// list of 4-byte indices, or as a bitmap of its vertices when shorter).
pub(crate) fn level_rounds_model(levels: &[Option<u32>], p: usize) -> u64 {
    let part = Partition::new(levels.len() as u64, p);
    let depth = levels.iter().flatten().copied().max().unwrap() as usize;
    let mut count = vec![vec![0u64; p]; depth + 1];
    for (v, l) in levels.iter().enumerate() {
        if let Some(l) = *l {
            count[l as usize][part.owner(v as u64)] += 1;
        }
    }
    let (p, q) = (p as u64, p as u64 - 1);
    let words = |r: usize| part.words(r) as u64;
    let announced: u64 = (count.iter())
        .map(|at| {
            (0..p as usize)
                .map(|r| at[r].min(2 * words(r)))
                .sum::<u64>()
        })
        .sum();
    p * q * 24 * (depth as u64 + 2) + 4 * q * announced
}

/// Guards the proof's volume: a valid tree costs exactly the bytes of
/// the model (no message about a tuple; each reached vertex announced
/// once, as a 4-byte index or within its rank's bitmap), far below the
/// tuple rounds' `24` bytes a tuple.
#[test]
fn a_proven_search_sends_what_the_model_says() {
    for (scale, seed) in [(9, 2), (10, 8), (11, 9)] {
        let c = case(scale, seed);
        for p in 1..=4 {
            let run = c.distributed(p, ROUND, &c.parents, Some(c.nedge));
            assert!(run.verdict.is_ok() && run.unproven == 0);
            let model = proof_model(&c, p);
            assert_eq!(run.bytes, model, "scale {scale}, P {p}");
            let tuples = c.list.len() as u64;
            assert!(run.bytes * 20 <= 24 * tuples, "scale {scale}, P {p}");
        }
    }
}

/// Guards the tuple rounds' volume, for a search the proof leaves to
/// them (a detached leaf): besides the proof's bytes, all ranks together
/// send at most 24 bytes per non-self-loop tuple, 8 per reached vertex and
/// level above it, and a few collectives of small records per level.
#[test]
fn bytes_sent_stay_within_the_documented_volume() {
    let c = case(10, 8);
    let levels = c.levels();
    let level_sum: u64 = levels.iter().flatten().map(|&l| u64::from(l)).sum();
    let depth = u64::from(levels.iter().flatten().copied().max().unwrap());
    let tuples = c.list.edges().iter().filter(|e| !e.is_self_loop()).count() as u64;
    let leaf = (0..c.n())
        .rev()
        .find(|&v| levels[v].is_some_and(|l| l > 0) && !c.parents.contains(&(v as i64)))
        .unwrap();
    let mut detached = c.parents.clone();
    detached[leaf] = -1;
    for p in 2..=4u64 {
        let run = c.distributed(p as usize, ROUND, &detached, Some(c.nedge));
        assert!(run.verdict.is_err() && run.unproven == 1);
        let bound = proof_model(&c, p as usize)
            + 24 * tuples
            + 8 * level_sum
            + p * (p - 1) * (3 * 8 * RECORD as u64 + 16 * (depth + 2) + 16);
        assert!(run.bytes <= bound, "P {p}: {} bytes > {bound}", run.bytes);
        let crossing = 24 * tuples * (p - 1) / p;
        assert!(
            run.bytes >= crossing / 2,
            "P {p}: {} bytes, expected about {crossing}",
            run.bytes
        );
    }
}

/// Guards the regrouping of the tuples: a tuple planted at the first,
/// middle or last place of any rank's share, joining the root to an
/// unreached vertex or to one two levels down, fails the search with the
/// single process's failure (the proof saw it, whichever rank held it, and
/// left it to the tuple rounds to name).
#[test]
fn a_tuple_planted_anywhere_is_found_whichever_rank_holds_it() {
    let c = case(9, 3);
    let levels = c.levels();
    let unreached = (0..c.n()).find(|&v| levels[v].is_none()).unwrap() as u32;
    let deep = (0..c.n()).find(|&v| levels[v] == Some(2)).unwrap() as u32;
    let root = c.root as u32;
    let m = c.list.len();
    for p in 1..=4 {
        let places = (0..p).flat_map(|r| {
            let (lo, hi) = (m * r / p, m * (r + 1) / p);
            [lo, (lo + hi) / 2, hi - 1]
        });
        for i in places {
            for other in [unreached, deep] {
                let mut tuples = c.list.edges().to_vec();
                tuples[i] = Edge::new(other, root);
                let want = c.single_on(&tuples, &c.parents, Some(c.nedge));
                let run = c.distributed_on(&tuples, p, ROUND, &c.parents, Some(c.nedge));
                assert!(want.is_err(), "P {p}, tuple {i}");
                assert_eq!(run.verdict, want, "P {p}, tuple {i} to {other}");
                assert_eq!(run.unproven, 1, "P {p}, tuple {i}");
            }
        }
    }
}

/// A path `0 - 1 - ... - (n - 1)` searched from 0: its tree is `n - 1`
/// levels deep.
fn path(n: u32) -> Case {
    let edges: Vec<Edge> = (0..n - 1).map(|v| Edge::new(v, v + 1)).collect();
    let list = EdgeList::new(u64::from(n), edges).unwrap();
    let csr = Arc::new(Csr::from_edge_list(&list));
    Case {
        list,
        csr,
        root: 0,
        parents: (0..i64::from(n)).map(|v| (v - 1).max(0)).collect(),
        nedge: u64::from(n) - 1,
    }
}

/// Guards the proof's byte levels: a tree 119 levels deep is proven, one
/// 299 deep is left to the tuple rounds, and both verdicts, valid or cut,
/// are the single process's.
#[test]
fn a_tree_deeper_than_a_bytes_levels_goes_to_the_tuple_rounds() {
    for (n, unproven) in [(120, 0), (300, 1)] {
        let c = path(n);
        let mut cut = c.parents.clone();
        cut[n as usize / 2] = -1;
        for p in 1..=4 {
            let run = c.distributed(p, ROUND, &c.parents, Some(c.nedge));
            assert_eq!(
                run.verdict,
                c.single(&c.parents, Some(c.nedge)),
                "n {n}, P {p}"
            );
            assert!(run.verdict.is_ok(), "n {n}, P {p}");
            assert_eq!(run.unproven, unproven, "n {n}, P {p}");
            let run = c.distributed(p, ROUND, &cut, None);
            assert_eq!(run.verdict, c.single(&cut, None), "n {n}, P {p}, cut");
        }
    }
}

/// Guards the level rounds on a deep tree: a path 99
/// levels deep over 3 ranks is proven, and with a loop of parents half
/// way down (two neighbours each other's parent) the vertices below wait
/// for ever, so the proof fails and the tuple rounds give the single
/// process's verdict.
#[test]
fn a_loop_of_parents_deep_in_a_path_fails_the_proof() {
    let c = path(100);
    let run = c.distributed(3, ROUND, &c.parents, Some(c.nedge));
    assert!(run.verdict.is_ok());
    assert_eq!(run.unproven, 0);
    let mut looped = c.parents.clone();
    (looped[60], looped[61]) = (61, 60);
    let run = c.distributed(3, ROUND, &looped, None);
    assert!(run.verdict.is_err());
    assert_eq!(run.verdict, c.single(&looped, None));
    assert_eq!(run.unproven, 1);
}

/// Guards ranks that own no vertex or hold no tuple: on the 8-vertex
/// graph of `validate`'s tests (`eight`), with up to 9 ranks and one tuple
/// per round, they take part in every phase and the verdicts are the
/// single-process ones.
#[test]
fn ranks_without_vertices_or_tuples_take_part_in_every_phase() {
    let list = eight::graph();
    let csr = Arc::new(Csr::from_edge_list(&list));
    let c = Case {
        list,
        csr,
        root: 0,
        parents: eight::VIA_1.to_vec(),
        nedge: eight::NEDGE,
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
            let ok = c.distributed(p, round, &c.parents, Some(c.nedge)).verdict;
            assert_eq!(ok, c.single(&c.parents, Some(c.nedge)), "P {p}");
            for changes in broken {
                let mut parents = c.parents.clone();
                changes.iter().for_each(|&(v, parent)| parents[v] = parent);
                let want = c.single(&parents, None).unwrap_err();
                let got = (c.distributed(p, round, &parents, None).verdict).unwrap_err();
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

mod claims;
