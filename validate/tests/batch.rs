//! A [`Batch`] gives every search the verdict a single validation gives
//! it: valid trees, broken trees of every kind, mixed in one batch, full
//! and partial batches, one and two threads; and with levels claimed,
//! honestly or not, the same verdicts.
#![allow(clippy::cast_possible_truncation)]

use generator::{Edge, EdgeList};
use std::collections::VecDeque;
use std::sync::atomic::AtomicU8;
use validate::batch::LANES;
use validate::{Batch, Hold, Invalid, NO_LEVEL, TreeSummary, TupleBlocks, Validator};

/// A search to judge: its root, its parent array and the nedge it claims.
type Search = (u64, Vec<i64>, Option<u64>);

/// A sparse random graph over `n` vertices (some unreached from most
/// roots, a few self-loops and duplicates), as a list and in block order.
fn graph(n: u32) -> (EdgeList, TupleBlocks) {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 32) as u32 % n
    };
    let mut tuples: Vec<Edge> = (0..n + n / 2).map(|_| Edge::new(next(), next())).collect();
    tuples.extend_from_within(..50);
    tuples.push(Edge::new(7, 7));
    let list = EdgeList::new(n.into(), tuples).unwrap();
    let blocks = TupleBlocks::from_tuples(list.num_vertices(), list.edges().to_vec());
    (list, blocks)
}

/// A BFS tree of `list` from `root`.
fn bfs(list: &EdgeList, root: u32) -> Vec<i64> {
    let n = list.num_vertices();
    let mut adjacent = vec![Vec::new(); n];
    for e in list.edges() {
        adjacent[e.u as usize].push(e.v);
        adjacent[e.v as usize].push(e.u);
    }
    let mut parents = vec![-1i64; n];
    parents[root as usize] = root.into();
    let mut queue = VecDeque::from([root]);
    while let Some(u) = queue.pop_front() {
        for &v in &adjacent[u as usize] {
            if parents[v as usize] == -1 {
                parents[v as usize] = u.into();
                queue.push_back(v);
            }
        }
    }
    parents
}

/// The searches to judge: (root, parents, claimed nedge). Valid trees
/// from several roots, and each also broken in one way: a leaf given a
/// parent that is no neighbour (check 3), a reached leaf marked unreached
/// (check 4), a second root and a cycle (check 2), a wrong nedge (check
/// 6); and once with no nedge claimed.
fn searches(list: &EdgeList, blocks: &TupleBlocks) -> Vec<Search> {
    let n = list.num_vertices();
    let mut single = Validator::new(n);
    let mut out = Vec::new();
    for root in [0u32, 1, 5, 77, 1000, 4097, 70_000] {
        let tree = bfs(list, root);
        let nedge = single
            .validate(blocks, root.into(), &tree, None)
            .unwrap()
            .nedge;
        let root64 = u64::from(root);
        out.push((root64, tree.clone(), Some(nedge)));
        let reached: Vec<usize> = (0..n)
            .filter(|&v| tree[v] >= 0 && v != root as usize)
            .collect();
        if reached.len() < 3 {
            continue;
        }
        let has_child = |v: usize| tree.contains(&(v as i64));
        let leaf = *reached.iter().rev().find(|&&v| !has_child(v)).unwrap();
        let (a, b) = (reached[reached.len() / 3], reached[2 * reached.len() / 3]);
        let stranger = (0..n)
            .find(|&u| {
                u != leaf
                    && tree[u] >= 0
                    && !list.edges().iter().any(|e| {
                        (e.u as usize, e.v as usize) == (u, leaf)
                            || (e.v as usize, e.u as usize) == (u, leaf)
                    })
            })
            .unwrap();
        let changed = |changes: &[(usize, i64)]| {
            let mut p = tree.clone();
            for &(v, parent) in changes {
                p[v] = parent;
            }
            p
        };
        out.push((root64, changed(&[(leaf, stranger as i64)]), Some(nedge)));
        out.push((root64, changed(&[(leaf, -1)]), Some(nedge)));
        out.push((root64, changed(&[(a, a as i64)]), Some(nedge)));
        out.push((
            root64,
            changed(&[(a, b as i64), (b, a as i64)]),
            Some(nedge),
        ));
        out.push((root64, tree.clone(), Some(nedge + 1)));
        out.push((root64, tree, None));
    }
    out
}

/// Every search's verdict from `batch`, holding `per` at a time.
fn batched(
    batch: &mut Batch,
    blocks: &TupleBlocks,
    searches: &[Search],
    per: usize,
) -> Vec<Result<TreeSummary, Invalid>> {
    batched_with_levels(batch, blocks, searches, &vec![None; searches.len()], per)
}

/// [`batched`], each search with its claimed levels, if any.
fn batched_with_levels(
    batch: &mut Batch,
    blocks: &TupleBlocks,
    searches: &[Search],
    levels: &[Option<Vec<u8>>],
    per: usize,
) -> Vec<Result<TreeSummary, Invalid>> {
    let mut verdicts = Vec::new();
    for (group, levels) in searches.chunks(per).zip(levels.chunks(per)) {
        // Held searches' verdicts come from the settle, in order.
        let mut slots = Vec::new();
        for ((root, parents, claimed), levels) in group.iter().zip(levels) {
            let claims: Option<Vec<AtomicU8>> = levels
                .as_ref()
                .map(|l| l.iter().map(|&x| AtomicU8::new(x)).collect());
            match batch.hold(
                blocks,
                *root,
                parents.as_slice(),
                claims.as_deref(),
                *claimed,
            ) {
                Ok(Hold::Held) => slots.push(None),
                Ok(Hold::Done(tree)) => slots.push(Some(Ok(tree))),
                Err(e) => slots.push(Some(Err(e))),
            }
        }
        let mut settled = batch.settle(blocks).into_iter();
        verdicts.extend(
            slots
                .into_iter()
                .map(|s| s.unwrap_or_else(|| settled.next().unwrap())),
        );
        assert!(settled.next().is_none() && batch.is_empty());
    }
    verdicts
}

/// A batch of each kind for `blocks`: by id, and dense (cells for the
/// vertices with a tuple only). Every test holds both to a single
/// validation's verdicts.
fn both(blocks: &TupleBlocks) -> [Batch; 2] {
    [Batch::new(blocks.num_vertices()), Batch::dense(blocks)]
}

/// The verdict tests' graph of `n` vertices in block order, its
/// [`searches`], and the verdict a single validation gives each.
fn judged(n: u32) -> (TupleBlocks, Vec<Search>, Vec<Result<TreeSummary, Invalid>>) {
    let (list, blocks) = graph(n);
    let searches = searches(&list, &blocks);
    let mut single = Validator::new(n as usize);
    let expected = searches
        .iter()
        .map(|(root, parents, claimed)| single.validate(&blocks, *root, parents, *claimed))
        .collect();
    (blocks, searches, expected)
}

#[test]
fn a_batch_gives_every_search_the_verdict_a_single_validation_gives() {
    let n = 2 * (1 << 16) + 1234;
    let (blocks, searches, expected) = judged(n);
    let valid = expected.iter().filter(|v| v.is_ok()).count();
    let checks: std::collections::BTreeSet<u8> = expected
        .iter()
        .filter_map(|v| v.as_ref().err().map(Invalid::check))
        .collect();
    assert!(valid >= 7, "the unbroken trees are valid");
    assert_eq!(checks, [2, 3, 4, 6].into(), "broken in every way");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for mut batch in both(&blocks) {
                for per in [LANES, 5, 1] {
                    let got = batched(&mut batch, &blocks, &searches, per);
                    assert_eq!(got, expected, "{threads} threads, {per} a batch");
                }
            }
        });
    }
}

/// Each vertex's depth in `parents` (the steps of its chain to `root`),
/// or [`NO_LEVEL`] when unreached, when its chain does not end at `root`
/// or is over 254 steps: what an honest kernel claims.
fn depths(parents: &[i64], root: u64) -> Vec<u8> {
    (0..parents.len())
        .map(|v| {
            let (mut x, mut steps) = (v as i64, 0u32);
            while x >= 0 && x as u64 != root && steps <= 254 {
                x = parents[x as usize];
                steps += 1;
            }
            match u8::try_from(steps) {
                Ok(level) if x >= 0 && x as u64 == root && level < NO_LEVEL => level,
                _ => NO_LEVEL,
            }
        })
        .collect()
}

#[test]
fn claimed_levels_never_change_a_verdict() {
    // Every search of the verdict test, valid or broken, with the levels
    // an honest kernel would claim for its parent array, and with claims
    // forged in each way the certificate must catch: one level off, a
    // second level 0, a level for an unreached vertex, none at all, all
    // shifted by one. Each verdict must be the single validation's.
    let n = 2 * (1 << 16) + 1234;
    let (blocks, searches, expected) = judged(n);
    let reached = |parents: &[i64], root: u64| {
        let mut all = (0..parents.len()).filter(|&v| parents[v] >= 0 && v as u64 != root);
        all.next_back().unwrap()
    };
    type Forgery<'a> = &'a dyn Fn(&mut Vec<u8>, &[i64], u64);
    let forgeries: [Forgery; 6] = [
        &|_, _, _| {},
        &|c, p, root| c[reached(p, root)] = c[reached(p, root)].wrapping_add(1),
        &|c, p, root| c[reached(p, root)] = 0,
        &|c, p, _| c[p.iter().position(|&x| x < 0).unwrap()] = 1,
        &|c, _, _| c.fill(NO_LEVEL),
        &|c, _, _| c.iter_mut().for_each(|l| *l = l.saturating_add(1)),
    ];
    for mut batch in both(&blocks) {
        for (i, forge) in forgeries.iter().enumerate() {
            let levels: Vec<Option<Vec<u8>>> = searches
                .iter()
                .map(|(root, parents, _)| {
                    let mut claims = depths(parents, *root);
                    forge(&mut claims, parents, *root);
                    Some(claims)
                })
                .collect();
            let before = batch.certified();
            let got = batched_with_levels(&mut batch, &blocks, &searches, &levels, LANES);
            assert_eq!(got, expected, "forgery {i}");
            let certified = batch.certified() - before;
            if i == 0 {
                // Honest claims, with the pass, prove every tree that passes
                // checks 3 and 4: the valid tree of each root, also with a
                // wrong nedge claimed and with none (the broken trees fail
                // the pass and are judged alone).
                assert!(
                    certified >= searches.len() as u64 * 3 / 7,
                    "{certified} certified"
                );
            } else {
                assert_eq!(certified, 0, "forgery {i} was believed");
            }
        }
    }
}

#[test]
fn a_claim_for_an_unreached_parent_is_not_believed() {
    // An inner vertex of a valid tree marked unreached, its children still
    // pointing at it, and every claim from the unbroken tree: the children
    // claim one more than their parent's stale claim. The certificate must
    // fail on the unreached vertex's claim, and the walk name the error.
    let n = 5000;
    let (list, blocks) = graph(n);
    let tree = bfs(&list, 1);
    let claims: Vec<AtomicU8> = depths(&tree, 1).into_iter().map(AtomicU8::new).collect();
    let inner = (0..n as usize)
        .find(|&v| v != 1 && tree[v] >= 0 && tree.contains(&(v as i64)))
        .unwrap();
    let mut broken = tree.clone();
    broken[inner] = -1;
    let expected = Validator::new(n as usize).validate(&blocks, 1, &broken, None);
    assert!(
        matches!(expected, Err(Invalid::ParentUnreached { .. })),
        "{expected:?}"
    );
    for mut batch in both(&blocks) {
        let held = batch.hold(&blocks, 1, broken.as_slice(), Some(&claims), None);
        assert_eq!(
            held.map(|_| ()),
            expected.as_ref().map(|_| ()).map_err(Clone::clone)
        );
        assert_eq!(batch.certified(), 0);
        let held = batch.hold(&blocks, 1, tree.as_slice(), Some(&claims), None);
        assert!(matches!(held, Ok(Hold::Held)));
        assert!(batch.settle(&blocks)[0].is_ok());
        assert_eq!(batch.certified(), 1);
    }
}

#[test]
fn an_unreached_root_is_never_certified() {
    // Every parent -1 and every claim "unreached": each claim holds on its
    // own, but the root is not its own parent (check 1).
    let n = 5000;
    let (_, blocks) = graph(n);
    let parents = vec![-1i64; n as usize];
    let claims: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(NO_LEVEL)).collect();
    let expected = Validator::new(n as usize).validate(&blocks, 1, &parents, None);
    assert!(matches!(expected, Err(Invalid::RootNotOwnParent { .. })));
    for mut batch in both(&blocks) {
        let held = batch.hold(&blocks, 1, parents.as_slice(), Some(&claims), None);
        assert_eq!(
            held.map(|_| ()),
            expected.as_ref().map(|_| ()).map_err(Clone::clone)
        );
        assert_eq!(batch.certified(), 0);
    }
}

#[test]
fn claims_for_an_array_of_another_length_are_not_believed() {
    // One more vertex, unreached, and claims of that length that hold on
    // their own: the array is refused as it is without claims.
    let n = 5000;
    let (list, blocks) = graph(n);
    let tree = bfs(&list, 1);
    for mut batch in both(&blocks) {
        let mut long = tree.clone();
        long.push(-1);
        let mut claims: Vec<AtomicU8> = depths(&tree, 1).into_iter().map(AtomicU8::new).collect();
        claims.push(AtomicU8::new(NO_LEVEL));
        let held = batch.hold(&blocks, 1, long.as_slice(), Some(&claims), None);
        assert!(matches!(held, Err(Invalid::WrongLength { .. })), "{held:?}");
        assert_eq!(batch.certified(), 0);
    }
}

/// A path of 300 vertices from the root: too deep for a lane's cell.
#[test]
fn a_tree_too_deep_for_a_lane_is_validated_alone_at_once() {
    let n = 400u32;
    let tuples: Vec<Edge> = (0..299).map(|v| Edge::new(v, v + 1)).collect();
    let list = EdgeList::new(n.into(), tuples).unwrap();
    let blocks = TupleBlocks::from_tuples(list.num_vertices(), list.edges().to_vec());
    let tree = bfs(&list, 0);
    let mut single = Validator::new(n as usize);
    let expected = single.validate(&blocks, 0, &tree, Some(299)).unwrap();
    assert_eq!(expected.depth, 299);
    for mut batch in both(&blocks) {
        let held = batch.hold(&blocks, 0, tree.as_slice(), None, Some(299));
        assert_eq!(held, Ok(Hold::Done(expected)));
        assert!(batch.is_empty());
        let mut broken = tree.clone();
        broken[299] = 100;
        assert_eq!(
            batch
                .hold(&blocks, 0, broken.as_slice(), None, Some(299))
                .map(|_| ()),
            single.validate(&blocks, 0, &broken, Some(299)).map(|_| ()),
        );
    }
}

/// Guards the wider layout above `2^24` vertices, where a lane's cell
/// gives the parent 25 bits: a small graph among the highest ids (and a
/// tree through vertex `2^24`, whose id needs the 25th bit) is judged as a
/// single validation judges it. Takes about 1.3 GiB.
#[test]
fn above_2_to_the_24_vertices_a_batch_still_judges_as_a_single_validation() {
    let n: u32 = (1 << 24) + 3;
    let top = n - 1;
    // A five-cycle through 2^24 - 2 .. 2^24 + 2, and one more edge.
    let pairs = [
        (top, top - 1),
        (top - 1, top - 2),
        (top - 2, top - 3),
        (top - 3, top - 4),
        (top - 4, top),
        (top - 6, top - 7),
    ];
    let tuples: Vec<Edge> = pairs.iter().map(|&(u, v)| Edge::new(u, v)).collect();
    let list = EdgeList::new(n.into(), tuples).unwrap();
    let blocks = TupleBlocks::from_tuples(list.num_vertices(), list.edges().to_vec());
    let tree = bfs(&list, top);
    assert_eq!(tree[1 << 24], i64::from(top - 1));
    let mut not_an_edge = tree.clone();
    not_an_edge[(1 << 24) as usize] = i64::from(top);
    let mut unreached = tree.clone();
    unreached[(top - 3) as usize] = -1;
    let mut single = Validator::new(n as usize);
    for mut batch in both(&blocks) {
        let all = [tree.clone(), not_an_edge.clone(), unreached.clone()];
        let mut slots = Vec::new();
        for parents in &all {
            let held = batch.hold(&blocks, top.into(), parents.as_slice(), None, Some(5));
            slots.push(held);
        }
        let mut settled = batch.settle(&blocks).into_iter();
        for (parents, held) in all.iter().zip(slots) {
            let expected = single.validate(&blocks, top.into(), parents, Some(5));
            let got = match held {
                Ok(Hold::Held) => settled.next().unwrap(),
                Ok(Hold::Done(tree)) => Ok(tree),
                Err(e) => Err(e),
            };
            assert_eq!(got, expected);
        }
        assert_eq!(
            single
                .validate(&blocks, top.into(), &all[0], Some(5))
                .map(|t| t.reached),
            Ok(5)
        );
    }
}

/// Guards the dense batch (only vertices with a tuple have cells): on
/// a graph where every seventh vertex has no tuple and the last tile is
/// partial, valid trees, an isolated root (its tree is itself), and
/// forged trees that reach a vertex with no tuple or hang a vertex on a
/// parent with none get the verdicts of a single validation, batched and
/// one at a time, with levels claimed and without.
#[test]
fn vertices_without_tuples_get_the_verdict_a_single_validation_gives() {
    let n: u32 = (1 << 16) + 4096 + 37;
    let (full, _) = graph(n);
    let isolated = |v: u32| v.is_multiple_of(7) && v != n - 1;
    let tuples: Vec<Edge> = full
        .edges()
        .iter()
        .filter(|e| !isolated(e.u) && !isolated(e.v))
        .copied()
        .chain([Edge::new(n - 2, n - 1)])
        .collect();
    let list = EdgeList::new(n.into(), tuples).unwrap();
    let blocks = TupleBlocks::from_tuples(list.num_vertices(), list.edges().to_vec());
    let mut single = Validator::new(n as usize);
    let mut searches: Vec<Search> = Vec::new();
    for root in [1u32, 5, 4100, n - 1] {
        let tree = bfs(&list, root);
        let nedge = single
            .validate(&blocks, root.into(), &tree, None)
            .unwrap()
            .nedge;
        let (root, stray) = (u64::from(root), 7 * (root as usize % 100 + 3));
        let leaf = (0..n as usize)
            .rev()
            .find(|&v| tree[v] >= 0 && v as u64 != root && !tree.contains(&(v as i64)))
            .unwrap();
        searches.push((root, tree.clone(), Some(nedge)));
        // A vertex with no tuple reached as a leaf.
        let mut forged = tree.clone();
        forged[stray] = root as i64;
        searches.push((root, forged.clone(), Some(nedge)));
        // ... and a leaf hung on it: a parent with no tuple.
        forged[leaf] = stray as i64;
        searches.push((root, forged, Some(nedge)));
    }
    // An isolated root: alone, valid; with a vertex hung on it, not.
    let root = 7 * 11;
    let mut alone = vec![-1i64; n as usize];
    alone[root] = root as i64;
    searches.push((root as u64, alone.clone(), Some(0)));
    searches.push((root as u64, alone.clone(), None));
    alone[1] = root as i64;
    searches.push((root as u64, alone, Some(0)));

    let expected: Vec<_> = searches
        .iter()
        .map(|(root, parents, claimed)| single.validate(&blocks, *root, parents, *claimed))
        .collect();
    let ok = |i: usize| expected[i].as_ref().ok().map(|t| (t.reached, t.nedge));
    assert_eq!(ok(12), Some((1, 0)), "an isolated root's tree is itself");
    assert!((0..4).all(|k| ok(3 * k).is_some() && ok(3 * k + 1).is_none()));
    assert!(expected.iter().filter(|v| v.is_err()).count() == 9);
    let honest: Vec<Option<Vec<u8>>> = searches
        .iter()
        .map(|(root, parents, _)| Some(depths(parents, *root)))
        .collect();
    for mut batch in both(&blocks) {
        for per in [LANES, 4, 1] {
            assert_eq!(batched(&mut batch, &blocks, &searches, per), expected);
            let got = batched_with_levels(&mut batch, &blocks, &searches, &honest, per);
            assert_eq!(got, expected, "levels claimed, {per} a batch");
        }
    }
}
