use super::*;
use crate::ThreadRanks;
use crate::check::tests::level_rounds_model;
use generator::{Edge, EdgeGenerator, Kronecker, WideEdge, generate_weights};
use kernels::{DeltaStepping, SsspParams, WeightedCsr};
use std::sync::Arc;
use validate::SsspValidator;

/// The 9-vertex graph of `validate`'s SSSP rule tests and its search,
/// from their one source.
#[path = "../../../validate/tests/fixtures/nine.rs"]
mod nine;

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
    /// round, the bytes all ranks sent, and whether the proof left it to
    /// the tuple rounds (1) or not (0).
    fn distributed(&self, p: usize, round: usize, s: &Search) -> (Verdict, u64, u64) {
        self.distributed_as::<Edge>(p, round, std::slice::from_ref(s))[0].clone()
    }

    /// The verdicts of `p` ranks on `searches`, in turn, by one
    /// validator per rank (`round` tuples per round), each with the
    /// bytes all ranks sent for it and whether the proof left it to the
    /// tuple rounds. Rank `r` holds tuples `m r / p .. m (r + 1) / p` as
    /// `T`, their weights and its own vertices' entries. Asserts that
    /// every rank agrees, and takes the same path.
    fn distributed_as<T: Tuple>(
        &self,
        p: usize,
        round: usize,
        searches: &[Search],
    ) -> Vec<(Verdict, u64, u64)> {
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
                let parents: Vec<u64> = s.parents[mine.clone()].iter().map(|&x| x as u64).collect();
                let (before, unproven) = (c.bytes_sent(), validator.unproven());
                let verdict = validator.check(s.root, &parents, &s.dist[mine.clone()], s.claimed);
                (
                    verdict,
                    c.bytes_sent() - before,
                    validator.unproven() - unproven,
                )
            });
            verdicts.collect::<Vec<_>>()
        });
        (0..searches.len())
            .map(|i| {
                for (r, rank) in got.iter().enumerate() {
                    assert_eq!(rank[i].0, got[0][i].0, "P {p}: rank {r} disagrees");
                    assert_eq!(rank[i].2, got[0][i].2, "P {p}: rank {r} took another path");
                }
                let bytes = got.iter().map(|rank| rank[i].1).sum();
                (got[0][i].0.clone(), bytes, got[0][i].2)
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
                (x as i64 != s.parents[v] && x != root && levels[x].is_some() && longer > s.dist[v])
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
    // Every tuple between a leaf and its parent gone: nothing confirms it.
    let mut cut = g.clone();
    let joins_leaf = |e: &Edge| {
        let (u, v) = (e.u as usize, e.v as usize);
        (u, v) == (leaf, s.parents[leaf] as usize) || (v, u) == (leaf, s.parents[leaf] as usize)
    };
    let kept: Vec<usize> = (0..g.edges.len())
        .filter(|&t| !joins_leaf(&g.edges[t]))
        .collect();
    cut.edges = kept.iter().map(|&t| g.edges[t]).collect();
    cut.weights = kept.iter().map(|&t| g.weights[t]).collect();
    out.push(("tree tuple missing", cut, s.clone(), Some(3)));
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
            let (got, _, unproven) = g.distributed(p, ROUND, &s);
            assert_eq!(got, Ok(want), "scale {scale} P {p}");
            assert_eq!(unproven, 0, "scale {scale} P {p}: the proof settles it");
            assert_eq!(got.unwrap().max_dist.to_bits(), want.max_dist.to_bits());
        }
    }
}

/// Guards every rule: each broken search fails, identically on every
/// rank, with the single-process validator's check number, and for
/// checks 1, 3, 4 and 6 with its very failure (vertex or tuple, and
/// values). The proof refuses every search that passes check 1's scan
/// and fails checks 2 to 4 (it leaves it to the tuple rounds, which
/// name the failure); check 6 it names itself.
#[test]
fn each_broken_search_fails_the_same_check_on_every_rank_as_in_one_process() {
    for (scale, seed) in [(8, 4), (10, 5)] {
        let (g, s) = case(scale, seed);
        for (name, g, s, check) in mutations(&g, &s) {
            let want = g.single(&s);
            expect(name, &want, check);
            let in_range = g.edges.iter().all(|e| (e.u.max(e.v) as usize) < g.n);
            // Second roots fail with check 1's scan, before the proof;
            // with a tuple out of range there is no proof.
            let refused = want.as_ref().is_err_and(|e| {
                (2..=4).contains(&e.check()) && !matches!(e, Invalid::SecondRoot { .. })
            });
            for p in 1..=4 {
                let (got, _, unproven) = g.distributed(p, ROUND, &s);
                let took_rounds = u64::from(refused && in_range);
                assert_eq!(unproven, took_rounds, "{name}, P {p}: path");
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
        for (s, (verdict, ..)) in searches.iter().zip(together) {
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

/// The bytes all `p` ranks send to prove a valid search `s` of `g`, by
/// the model of `proof.rs`: check 1's agreement, the level rounds
/// (`check`'s model), 4 bytes per ghost (a vertex another rank owns
/// that a tuple joins to one of a rank's own) and the verdict with the
/// largest distance.
fn proof_model(g: &Graph, s: &Search, p: usize) -> u64 {
    let part = Partition::new(g.n as u64, p);
    let mut ghost = vec![vec![false; g.n]; p];
    for e in g.edges.iter().filter(|e| e.u != e.v) {
        let (u, v) = (u64::from(e.u), u64::from(e.v));
        let (ou, ov) = (part.owner(u), part.owner(v));
        if ou != ov {
            ghost[ou][v as usize] = true;
            ghost[ov][u as usize] = true;
        }
    }
    let ghosts = ghost.iter().flatten().filter(|&&x| x).count() as u64;
    let (p64, q) = (p as u64, p as u64 - 1);
    p64 * q * (crate::check::AGREED + 24) + level_rounds_model(&s.levels(), p) + 4 * ghosts
}

/// Guards the proof's volume: a valid search costs exactly the bytes of
/// the model (no message about a tuple: each reached vertex announced once,
/// each ghost's distance sent once), under the level rounds and 4 bytes a
/// vertex for each other rank and, from SCALE 10, under a tenth of the tuple
/// rounds' `4 s + 16` bytes a tuple.
#[test]
fn a_proven_search_sends_what_the_model_says() {
    for (scale, seed) in [(8, 2), (10, 8)] {
        let (g, s) = case(scale, seed);
        let tuples = g.edges.iter().filter(|e| e.u != e.v).count() as u64;
        let per_tuple = 4 * size_of::<Edge>() as u64 + 16;
        for p in 1..=4 {
            let (verdict, sent, unproven) = g.distributed(p, ROUND, &s);
            assert!(verdict.is_ok() && unproven == 0, "scale {scale}, P {p}");
            assert_eq!(sent, proof_model(&g, &s, p), "scale {scale}, P {p}");
            // The rounds' records weigh more than the tuples on tiny graphs.
            if scale >= 10 {
                assert!(sent * 10 <= per_tuple * tuples, "scale {scale}, P {p}");
            }
            let rounds = level_rounds_model(&s.levels(), p);
            let fixed = (p * p * 100) as u64;
            let ghosts = (g.n * (p - 1)) as u64;
            assert!(sent <= rounds + 4 * ghosts + fixed, "scale {scale}, P {p}");
        }
    }
}

/// Guards the tuple rounds' volume, for a search the proof leaves to
/// them (a leaf one ulp too far): besides the proof's bytes, all ranks
/// together send at most `4 s + 16` bytes per non-self-loop tuple, 8
/// per reached vertex but the root, 8 per reached vertex and level
/// above it, and a few collectives of small records per level.
#[test]
fn bytes_sent_stay_within_the_documented_volume() {
    let (g, s) = case(10, 8);
    let levels = s.levels();
    let level_sum: u64 = levels.iter().flatten().map(|&l| u64::from(l)).sum();
    let depth = u64::from(levels.iter().flatten().copied().max().unwrap());
    let reached = levels.iter().flatten().count() as u64;
    let tuples = g.edges.iter().filter(|e| e.u != e.v).count() as u64;
    let per_tuple = 4 * size_of::<Edge>() as u64 + 16;
    let mut far = s.clone();
    let leaf = s.leaves()[0];
    far.dist[leaf] = f32::from_bits(s.dist[leaf].to_bits() + 1);
    for p in 2..=4u64 {
        let (verdict, sent, unproven) = g.distributed(p as usize, ROUND, &far);
        assert!(verdict.is_err() && unproven == 1);
        let records = 3 * 8 * crate::check::RECORD as u64;
        let bound = proof_model(&g, &s, p as usize)
            + per_tuple * tuples
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

/// Guards the confirmation among several tuples and ties: with a
/// heavier duplicate of every tree tuple, and with a vertex whose
/// distance two neighbours give exactly (either may be its parent),
/// every search is proven with the single process's figures on 1 to 4
/// ranks.
#[test]
fn ties_and_heavier_duplicates_are_proven() {
    let (g, s) = case(9, 11);
    let levels = s.levels();
    let mut doubled = g.clone();
    for (t, e) in g.edges.iter().enumerate() {
        let (u, v) = (e.u as usize, e.v as usize);
        if u != v && (s.parents[u] == v as i64 || s.parents[v] == u as i64) {
            doubled.edges.push(*e);
            doubled.weights.push(g.weights[t] + 0.25);
        }
    }
    // A vertex `v`, a reached neighbour `x` nearer the root but not its
    // parent, and the weight that makes `x`'s distance plus it `v`'s
    // exactly, given to every tuple between them.
    let (v, x, w) = (0..g.n)
        .filter(|&v| levels[v].is_some_and(|l| l > 0))
        .find_map(|v| {
            g.adjacency()[v].iter().find_map(|&(x, _)| {
                let (dv, dx) = (s.dist[v], s.dist[x]);
                let w = dv - dx;
                (levels[x].is_some() && x as i64 != s.parents[v] && dx < dv && dx + w == dv)
                    .then_some((v, x, w))
            })
        })
        .unwrap();
    let mut tied = g.clone();
    for (t, e) in g.edges.iter().enumerate() {
        let ends = (e.u as usize, e.v as usize);
        if ends == (v, x) || ends == (x, v) {
            tied.weights[t] = w;
        }
    }
    let mut other = s.clone();
    other.parents[v] = x as i64;
    let no_claim = |s: &Search| Search {
        claimed: None,
        ..s.clone()
    };
    let cases = [
        ("heavier duplicates", &doubled, no_claim(&s)),
        ("tie, first parent", &tied, s.clone()),
        ("tie, second parent", &tied, other),
    ];
    for (name, g, s) in cases {
        let want = g.single(&s);
        assert!(want.is_ok(), "{name}: {want:?}");
        for p in 1..=4 {
            let (got, _, unproven) = g.distributed(p, ROUND, &s);
            assert_eq!((got, unproven), (want.clone(), 0), "{name}, P {p}");
        }
    }
}

/// The graph of `validate`'s SSSP rule tests (`nine`: N = 9, root 0)
/// and its shortest-path tree.
fn small() -> (Graph, Search) {
    let g = Graph {
        n: nine::PARENTS.len(),
        edges: (nine::TRIPLES.iter())
            .map(|&(u, v, _)| Edge::new(u, v))
            .collect(),
        weights: nine::TRIPLES.iter().map(|t| t.2).collect(),
    };
    let s = Search {
        root: 0,
        parents: nine::PARENTS.to_vec(),
        dist: nine::DIST.to_vec(),
        claimed: Some(nine::SUMMARY.nedge),
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
                let (got, ..) = g.distributed(p, round, &s);
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
            let mut parents: Vec<u64> = s.parents[mine.clone()].iter().map(|&x| x as u64).collect();
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
