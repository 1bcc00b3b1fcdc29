//! Claimed levels (`levels/claims.rs`): the kernels' claims certify their
//! trees, every verdict is the one without claims, wrong claims fall back,
//! and a certified search sends what the model says.

use super::*;
use crate::{DistBfs, Grid, GridBfs, GridGraph, LocalGraph};
use generator::EdgeGenerator;
use validate::NO_LEVEL;

/// Claims as a kernel makes them from tree `levels` (`None` unreached).
fn claims_of(levels: &[Option<u32>]) -> Vec<u8> {
    let byte = |l: u32| u8::try_from(l).unwrap_or(NO_LEVEL);
    levels.iter().map(|l| l.map_or(NO_LEVEL, byte)).collect()
}

/// What one rank made of one search by a kernel: the verdict without
/// claims, with them, and held with them in a batch.
type Verdicts = (Verdict, Verdict, Verdict);

/// A rank's search from a root: its parents, claims and nedge.
type Search<'a> = Box<dyn FnMut(u64) -> (Vec<u64>, Vec<u8>, u64) + 'a>;

/// Searches from each of `roots` with `DistBfs` (or `GridBfs` if `grid`)
/// on `p` ranks of `threads` threads, and validates each tree without
/// the kernel's claims, with them, and held with them (one batch). Every
/// rank's verdicts and certified count.
fn kernel_runs(
    list: &EdgeList,
    (p, threads, grid): (usize, usize, bool),
    roots: &[u64],
) -> Vec<(Vec<Verdicts>, u64)> {
    let n = list.num_vertices() as u64;
    let part = Partition::new(n, p);
    ThreadRanks::run(p, |c| {
        crate::on_threads(threads, || {
            let m = list.len();
            let (lo, hi) = (m * c.rank() / p, m * (c.rank() + 1) / p);
            let share = &list.edges()[lo..hi];
            let mut validator = DistValidator::new(c, part, share, lo as u64);
            let mut search: Search = if grid {
                let cell = Arc::new(GridGraph::<u32>::build(c, Grid::new(n, p), share));
                let direction = crate::GridDirection::Optimizing(DoParams::DEFAULT);
                let mut bfs = GridBfs::new(c, cell, direction);
                Box::new(move |root| {
                    bfs.search(root);
                    (bfs.parents().to_vec(), bfs.claims().to_vec(), bfs.nedge())
                })
            } else {
                let rows = Arc::new(LocalGraph::<u32>::build(c, part, share));
                let mut bfs = DistBfs::new(c, rows, DoParams::DEFAULT);
                Box::new(move |root| {
                    bfs.reset();
                    bfs.search(root);
                    let parents = bfs.parents().iter().map(|x| x.load(Relaxed));
                    let claims = bfs.claims().iter().map(|x| x.load(Relaxed));
                    (parents.collect(), claims.collect(), bfs.nedge())
                })
            };
            let mut verdicts = Vec::new();
            for &root in roots {
                let (mut parents, claims, nedge) = search(root);
                let plain = validator.check(root, &parents, Some(nedge));
                let claimed = validator.check_claimed(root, &parents, Some(&claims), Some(nedge));
                let held = validator.hold_claimed(root, &mut parents, Some(&claims), Some(nedge));
                let held = match held {
                    Ok(None) => validator.settle().pop().expect("the held search"),
                    done => done.map(|t| t.expect("judged")),
                };
                verdicts.push((plain, claimed, held));
            }
            (verdicts, validator.certified())
        })
    })
}

/// Guards the kernels' claims: the trees of `DistBfs` and `GridBfs` on 1
/// to 4 ranks, 1 and 2 threads a rank, are all certified by the levels
/// they claim, alone and held, with the figures of the validation without
/// claims, on every rank.
#[test]
fn kernel_trees_are_certified_by_their_claims_with_the_same_summaries() {
    let list = Kronecker::new(10, 16, 12).unwrap().generate();
    let csr = Csr::from_edge_list(&list);
    let n = list.num_vertices() as u32;
    let roots: Vec<u64> = (0..n)
        .step_by(131)
        .filter(|&v| csr.degree(v) > 0)
        .take(3)
        .chain([1])
        .map(u64::from)
        .collect();
    for p in 1..=4 {
        for threads in [1, 2] {
            for grid in [false, true] {
                let what = format!("P {p}, {threads} threads, grid {grid}");
                let runs = kernel_runs(&list, (p, threads, grid), &roots);
                for (verdicts, certified) in &runs {
                    assert_eq!(verdicts, &runs[0].0, "{what}: ranks agree");
                    assert_eq!(*certified, 2 * roots.len() as u64, "{what}");
                    for (plain, claimed, held) in verdicts {
                        assert!(plain.is_ok(), "{what}: {plain:?}");
                        assert_eq!(claimed, plain, "{what}");
                        assert_eq!(held, plain, "{what}");
                    }
                }
            }
        }
    }
}

/// Guards the verdicts with claims: every broken tree of `mutations`,
/// checked with the valid tree's claims (which no longer fit it), gets
/// the verdict it gets without claims, alone and in a batch; only the
/// trees whose levels the claims still are (the valid one, the wrong
/// nedge, and a parent one level up that is no neighbour, which checks 3
/// and 4 then refuse) are certified.
#[test]
fn every_broken_tree_gets_the_same_verdict_with_and_without_claims() {
    for (scale, seed) in [(8, 4), (10, 5)] {
        let c = case(scale, seed);
        let claims = claims_of(&c.levels());
        let valid = (c.parents.clone(), Some(c.nedge));
        let mut trees = vec![valid.clone()];
        for (name, parents, claimed) in mutations(&c) {
            for p in 1..=4 {
                let plain = c.distributed(p, ROUND, &parents, claimed);
                let edges = c.list.edges();
                let with = c.claimed_on(edges, (p, ROUND), (&parents, Some(&claims)), claimed);
                assert_eq!(with.verdict, plain.verdict, "{name}, P {p}");
                assert_eq!(with.unproven, plain.unproven, "{name}, P {p}");
                let fits = matches!(name, "wrong nedge" | "parent a non-neighbour");
                assert_eq!(with.certified, u64::from(fits), "{name}, P {p}");
            }
            trees.push((parents, claimed));
        }
        for p in 1..=4 {
            let (plain, unproven) = batched(&c, p, &trees);
            let (with, with_unproven, certified) = batched_claimed(&c, p, &trees, Some(&claims));
            assert_eq!(with, plain, "P {p}: batched");
            assert_eq!(with_unproven, unproven, "P {p}: batched");
            assert_eq!(certified, 3, "P {p}: the trees the claims fit");
        }
    }
}

/// Guards the claims' proof against wrong claims on a valid tree: one off
/// by one, every level shifted by one (so only the root's 0 is wrong), a
/// level claimed for an unreached vertex, a reached vertex claimed
/// unreached (or too deep), and claims that would hide a loop of parents
/// (each of two vertices claims one more than the other): each falls back
/// to the level rounds, which prove the tree with the figures of no
/// claims; a loop of parents under such claims still fails as in one
/// process.
#[test]
fn wrong_claims_fall_back_and_give_the_verdict_without_claims() {
    let c = case(9, 6);
    let levels = c.levels();
    let good = claims_of(&levels);
    let root = c.root as usize;
    let reached = |v: &usize| levels[*v].is_some() && *v != root;
    let deep = (0..c.n())
        .rev()
        .find(|v| reached(v) && good[*v] >= 3)
        .unwrap();
    let up = c.parents[deep] as usize;
    let unreached = (0..c.n()).find(|&v| levels[v].is_none()).unwrap();
    let change = |v: usize, claim: u8| {
        let mut claims = good.clone();
        claims[v] = claim;
        claims
    };
    let shifted: Vec<u8> = (good.iter())
        .map(|&l| if l == NO_LEVEL { l } else { l + 1 })
        .collect();
    let mut hiding = good.clone();
    (hiding[deep], hiding[up]) = (good[up] + 2, good[up] + 1);
    let wrong = [
        ("off by one", change(deep, good[deep] + 1)),
        ("root not 0", shifted),
        ("unreached claims a level", change(unreached, 2)),
        ("reached claims unreached", change(deep, NO_LEVEL)),
        ("claims hiding a loop", hiding.clone()),
    ];
    let want = c.single(&c.parents, Some(c.nedge));
    assert!(want.is_ok());
    let edges = c.list.edges();
    for p in 1..=4 {
        let good = c.claimed_on(edges, (p, ROUND), (&c.parents, Some(&good)), Some(c.nedge));
        assert_eq!((good.verdict, good.certified), (want.clone(), 1), "P {p}");
        for (name, claims) in &wrong {
            let run = c.claimed_on(edges, (p, ROUND), (&c.parents, Some(claims)), Some(c.nedge));
            assert_eq!(run.verdict, want, "{name}, P {p}");
            assert_eq!((run.certified, run.unproven), (0, 0), "{name}, P {p}");
        }
        let mut looped = c.parents.clone();
        looped[up] = deep as i64;
        let run = c.claimed_on(edges, (p, ROUND), (&looped, Some(&hiding)), None);
        assert_eq!(run.verdict, c.single(&looped, None), "loop, P {p}");
        assert_eq!(run.certified, 0, "loop, P {p}");
    }
}

/// The ghosts of all `p` ranks summed: for each rank, the vertices others
/// own that a tuple, not a self-loop, joins to one of its own.
fn ghosts(c: &Case, p: usize) -> u64 {
    let part = Partition::new(c.n() as u64, p);
    let mut seen = std::collections::HashSet::new();
    for e in c.list.edges().iter().filter(|e| !e.is_self_loop()) {
        let (u, v) = (u64::from(e.u), u64::from(e.v));
        let (ou, ov) = (part.owner(u), part.owner(v));
        if ou != ov {
            seen.insert((ou, v));
            seen.insert((ov, u));
        }
    }
    seen.len() as u64
}

/// Guards the volume of a certified search: exactly one byte a ghost, the
/// claims' agreement (which carries check 1's: no agreement of its own)
/// and the verdict.
#[test]
fn a_certified_search_sends_a_byte_a_ghost_and_the_agreements() {
    for (scale, seed) in [(9, 2), (10, 8), (11, 9)] {
        let c = case(scale, seed);
        let claims = claims_of(&c.levels());
        let edges = c.list.edges();
        for p in 1..=4 {
            let run = c.claimed_on(
                edges,
                (p, ROUND),
                (&c.parents, Some(&claims)),
                Some(c.nedge),
            );
            assert!(
                run.verdict.is_ok() && run.certified == 1,
                "scale {scale}, P {p}"
            );
            let (p64, q) = (p as u64, p as u64 - 1);
            let model = p64 * q * (24 + 16) + ghosts(&c, p);
            assert_eq!(run.bytes, model, "scale {scale}, P {p}");
        }
    }
}

/// Guards check 1 under claims that do not fit: every rank's claims one
/// short and a parent out of range still give check 1's failure, the one
/// without claims (the claims' pass tests the entries whatever the
/// claims).
#[test]
fn claims_of_the_wrong_length_leave_check_1_its_failure() {
    let c = case(9, 6);
    let claims = claims_of(&c.levels());
    let mut bad = c.parents.clone();
    let v = (0..c.n())
        .rev()
        .find(|&v| bad[v] >= 0 && v as u64 != c.root)
        .unwrap();
    bad[v] = c.n() as i64 + 5;
    let want = c.single(&bad, Some(c.nedge));
    assert!(matches!(want, Err(Invalid::ParentOutOfRange { .. })));
    let edges = c.list.edges();
    let m = edges.len();
    for p in 1..=4 {
        let part = Partition::new(c.n() as u64, p);
        let got = ThreadRanks::run(p, |comm| {
            let r = comm.rank();
            let (lo, hi) = (m * r / p, m * (r + 1) / p);
            let (first, count) = (part.first(r) as usize, part.count(r));
            let mine: Vec<u64> = bad[first..first + count]
                .iter()
                .map(|&x| x as u64)
                .collect();
            let mut validator =
                DistValidator::with_round(comm, part, &edges[lo..hi], lo as u64, ROUND);
            let short = &claims[first..first + count.saturating_sub(1)];
            validator.check_claimed(c.root, &mine, Some(short), Some(c.nedge))
        });
        for verdict in got {
            assert_eq!(verdict, want, "P {p}");
        }
    }
}

/// Guards the deepest claim: on a path, claims as deep as
/// `DEEPEST_CLAIM` (124) certify the tree, one level more falls back to
/// the level rounds and on to the tuple rounds, never certified past what
/// the cells hold; the verdict is the single process's either way.
#[test]
fn claims_deeper_than_the_deepest_claim_are_not_certified() {
    for (n, certified) in [(125, 1), (126, 0)] {
        let c = path(n);
        let claims = claims_of(&c.levels());
        for p in [1, 3] {
            let run = c.claimed_on(
                c.list.edges(),
                (p, ROUND),
                (&c.parents, Some(&claims)),
                Some(c.nedge),
            );
            let want = c.single(&c.parents, Some(c.nedge));
            assert!(want.is_ok());
            assert_eq!(run.verdict, want, "n {n}, P {p}");
            assert_eq!(run.certified, certified, "n {n}, P {p}");
        }
    }
}
