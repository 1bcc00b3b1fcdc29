//! Each check of the validator rejects the broken tree it exists for, and
//! valid trees of either BFS order are accepted.
//!
//! The graph and its valid trees are `fixtures/eight.rs`'s (N = 8, root
//! 0: the square 0-1-3-2 with the tail 3-4, a self-loop on 4 and 0-1
//! twice; apart, the pair 5-6 and the isolated 7; levels 1 and 2 at 1, 3 at
//! 2, 4 at 3; nedge 6), shared with the distributed validator's tests.

#[path = "fixtures/eight.rs"]
mod eight;

use eight::{VIA_1, VIA_2, graph};
use generator::{Edge, EdgeList};
use std::sync::atomic::AtomicU32;
use validate::{Invalid, TreeSummary, TupleBlocks, Validator};

fn check(parents: &[i64]) -> Result<TreeSummary, Invalid> {
    Validator::new(8).validate(&graph(), 0, parents, None)
}

fn mutated(changes: &[(usize, i64)]) -> Vec<i64> {
    let mut p = VIA_1.to_vec();
    for &(v, parent) in changes {
        p[v] = parent;
    }
    p
}

#[test]
fn valid_trees_of_either_order_are_accepted_with_their_figures() {
    let expected = TreeSummary {
        nedge: 6,
        reached: 5,
        depth: 3,
    };
    assert_eq!(check(&VIA_1), Ok(expected));
    assert_eq!(check(&VIA_2), Ok(expected));
}

#[test]
fn check1_rejects_wrong_length() {
    let err = check(&VIA_1[..7]).unwrap_err();
    assert_eq!(
        err,
        Invalid::WrongLength {
            found: 7,
            expected: 8
        }
    );
}

#[test]
fn check1_rejects_a_root_that_is_not_a_vertex() {
    let err = Validator::new(8)
        .validate(&graph(), 8, &VIA_1, None)
        .unwrap_err();
    assert_eq!(err.check(), 1);
    assert!(matches!(err, Invalid::RootOutOfRange { root: 8, .. }));
}

#[test]
fn check1_rejects_parent_values_out_of_range() {
    for bad in [8, -2, i64::MAX, i64::MIN] {
        let err = check(&mutated(&[(4, bad)])).unwrap_err();
        assert_eq!(
            err,
            Invalid::ParentOutOfRange {
                vertex: 4,
                parent: bad
            }
        );
    }
}

#[test]
fn check1_rejects_a_root_that_is_not_its_own_parent() {
    let err = check(&mutated(&[(0, 1)])).unwrap_err();
    assert_eq!(err, Invalid::RootNotOwnParent { root: 0, parent: 1 });
}

#[test]
fn check2_rejects_a_second_self_parent() {
    let err = check(&mutated(&[(5, 5)])).unwrap_err();
    assert_eq!(err, Invalid::SecondRoot { vertex: 5 });
}

#[test]
fn check2_rejects_a_parent_marked_unreached() {
    let err = check(&mutated(&[(4, 5)])).unwrap_err();
    assert_eq!(
        err,
        Invalid::ParentUnreached {
            vertex: 4,
            parent: 5
        }
    );
}

#[test]
fn check2_rejects_a_cycle_among_reached_vertices() {
    let err = check(&mutated(&[(1, 3), (3, 1)])).unwrap_err();
    assert_eq!(err.check(), 2);
    assert!(matches!(err, Invalid::Cycle { vertex: 1 | 3 }), "{err}");
}

#[test]
fn check2_rejects_a_cycle_among_unreachable_vertices() {
    // 5 and 6 point at each other; the root's own tree is intact.
    let err = check(&mutated(&[(5, 6), (6, 5)])).unwrap_err();
    assert!(matches!(err, Invalid::Cycle { vertex: 5 | 6 }), "{err}");
}

#[test]
fn check3_rejects_a_tree_edge_that_is_not_an_input_edge() {
    // 4 hangs from 1 (same level as from 3) but 1-4 is no edge.
    let err = check(&mutated(&[(4, 1)])).unwrap_err();
    assert_eq!(
        err,
        Invalid::NotAnEdge {
            vertex: 4,
            parent: 1
        }
    );
}

#[test]
fn check3_rejects_an_unreachable_vertex_given_a_parent() {
    let err = check(&mutated(&[(7, 0)])).unwrap_err();
    assert_eq!(
        err,
        Invalid::NotAnEdge {
            vertex: 7,
            parent: 0
        }
    );
}

#[test]
fn check4_rejects_a_reachable_vertex_marked_unreached() {
    let err = check(&mutated(&[(4, -1)])).unwrap_err();
    assert_eq!(
        err,
        Invalid::HalfReachedEdge {
            edge: 4,
            reached: 3,
            unreached: 4
        }
    );
}

#[test]
fn check4_rejects_a_tree_deeper_than_bfs() {
    // 0 -> 1 -> 3 -> 2 uses real edges, but puts 2 at level 3 while its
    // neighbour 0 is at level 0.
    let err = check(&mutated(&[(2, 3)])).unwrap_err();
    assert_eq!(
        err,
        Invalid::LevelGap {
            edge: 1,
            u: 0,
            v: 2,
            level_u: 0,
            level_v: 3
        }
    );
}

#[test]
fn check6_rejects_a_wrong_nedge() {
    let mut validator = Validator::new(8);
    assert!(validator.validate(&graph(), 0, &VIA_1, Some(6)).is_ok());
    let err = validator
        .validate(&graph(), 0, &VIA_1, Some(7))
        .unwrap_err();
    assert_eq!(
        err,
        Invalid::NedgeMismatch {
            counted: 6,
            claimed: 7
        }
    );
}

#[test]
fn one_validator_serves_many_searches_and_roots() {
    let mut validator = Validator::new(8);
    assert!(
        validator
            .validate(&graph(), 0, &mutated(&[(4, -1)]), None)
            .is_err()
    );
    assert!(validator.validate(&graph(), 0, &VIA_2, None).is_ok());
    let from_5 = [-1, -1, -1, -1, -1, 5, 5, -1];
    let summary = validator.validate(&graph(), 5, &from_5, None).unwrap();
    assert_eq!((summary.nedge, summary.reached, summary.depth), (1, 2, 1));
    let from_7 = [-1, -1, -1, -1, -1, -1, -1, 7];
    assert_eq!(
        validator
            .validate(&graph(), 7, &from_7, None)
            .unwrap()
            .nedge,
        0
    );
}

#[test]
fn errors_are_the_same_for_one_and_two_threads() {
    // A long path 0 - 1 - ... - 99999 whose parents hold a cycle
    // 70000 <-> 70001: every vertex from 70000 on has a broken chain, and
    // the report must not depend on which worker walks which block first.
    let n = 100_000u32;
    let edges: Vec<Edge> = (0..n - 1).map(|v| Edge::new(v, v + 1)).collect();
    let graph = EdgeList::new(n.into(), edges).unwrap();
    let mut parents: Vec<i64> = (0..i64::from(n)).map(|v| (v - 1).max(0)).collect();
    parents[70_000] = 70_001;
    parents[70_001] = 70_000;
    let run = |threads| {
        par::in_pool(threads, || {
            Validator::new(0).validate(&graph, 0, &parents, None)
        })
        .unwrap()
    };
    let one = run(1).unwrap_err();
    assert_eq!(one.check(), 2);
    assert_eq!(one, run(2).unwrap_err());
}

/// Guards the confirmation above 2^24 vertices, where a cell keeps only
/// the parent's low 24 bits: in list order and in block order (whose
/// sixteen duplicate tuples go through the wide loop where the processor
/// has one), a print that matches must not pass a missing tree edge.
#[test]
fn a_print_collision_does_not_pass_a_missing_tree_edge() {
    // 300 claims parent 1, but its only edges go to far = 2^24 + 1, which
    // is on the same level as 1 and shares 1's low 24 bits: the print
    // matches, the confirmation against the parents must not.
    let far = (1u32 << 24) + 1;
    let n = u64::from(far) + 1;
    let mut edges = vec![Edge::new(0, 1), Edge::new(0, far)];
    edges.extend([Edge::new(far, 300); 16]);
    let list = EdgeList::new(n, edges.clone()).unwrap();
    let blocks = TupleBlocks::from_tuples(list.num_vertices(), edges);
    let mut parents = vec![-1i64; list.num_vertices()];
    parents[0] = 0;
    parents[1] = 0;
    parents[far as usize] = 0;
    parents[300] = 1;
    let mut validator = Validator::new(0);
    let missing = Invalid::NotAnEdge {
        vertex: 300,
        parent: 1,
    };
    assert_eq!(
        validator.validate(&list, 0, &parents, None),
        Err(missing.clone())
    );
    assert_eq!(validator.validate(&blocks, 0, &parents, None), Err(missing));
    parents[300] = i64::from(far);
    assert!(validator.validate(&list, 0, &parents, None).is_ok());
    assert!(validator.validate(&blocks, 0, &parents, None).is_ok());
}

#[test]
fn trees_deeper_than_254_levels_are_checked_exactly() {
    // A path 0 - 1 - ... - 999 searched from 0 is 999 levels deep.
    let n = 1000u32;
    let edges: Vec<Edge> = (0..n - 1).map(|v| Edge::new(v, v + 1)).collect();
    let graph = EdgeList::new(n.into(), edges).unwrap();
    let parents: Vec<i64> = (0..i64::from(n)).map(|v| (v - 1).max(0)).collect();
    let mut validator = Validator::new(0);
    let tree = validator.validate(&graph, 0, &parents, None).unwrap();
    assert_eq!((tree.depth, tree.reached, tree.nedge), (999, 1000, 999));
    // 700 hangs from 698 instead of 699: no such edge, and levels shift.
    let mut broken = parents.clone();
    broken[700] = 698;
    assert_eq!(
        validator.validate(&graph, 0, &broken, None).unwrap_err(),
        Invalid::NotAnEdge {
            vertex: 700,
            parent: 698
        }
    );
}

/// Check 2 on a long chain: a path labelled against its direction (root
/// `n - 1`, each vertex's parent the next id) gets exact levels, and a
/// cycle cut into it is named by the walk from the lowest vertex whose
/// chain is broken.
#[test]
fn a_cycle_below_a_long_chain_is_named_from_its_lowest_vertex() {
    let n = 20_000u32;
    let edges: Vec<Edge> = (0..n - 1).map(|v| Edge::new(v, v + 1)).collect();
    let graph = EdgeList::new(n.into(), edges).unwrap();
    let root = n - 1;
    let parents: Vec<i64> = (0..i64::from(n))
        .map(|v| (v + 1).min(i64::from(root)))
        .collect();
    let mut validator = Validator::new(0);
    let tree = validator
        .validate(&graph, root.into(), &parents, None)
        .unwrap();
    assert_eq!(
        (tree.depth, tree.reached, tree.nedge),
        (n - 1, u64::from(n), u64::from(n - 1))
    );
    // 5000 -> 5001 -> ... -> 5100 -> 5000: a cycle below the root's chain.
    let mut broken = parents.clone();
    broken[5100] = 5000;
    assert_eq!(
        validator.validate(&graph, root.into(), &broken, None),
        // The walk from 0, the lowest vertex of a broken chain, stacks 0 to
        // 5100 and goes round the cycle of 101 until it has stacked more
        // than n vertices, the last 5000 + (n - 5101) mod 101.
        Err(Invalid::Cycle {
            vertex: 5000 + (u64::from(n) - 5101) % 101
        })
    );
}

/// The 32-bit form kernels write (`u32::MAX` unreached) is judged as its
/// `int64` image is: the same figures for a valid tree, the same errors
/// for broken ones, also for a value out of range.
#[test]
fn parents_in_the_32_bit_form_are_judged_as_their_int64_image() {
    let slots = |parents: &[i64]| -> Vec<AtomicU32> {
        parents
            .iter()
            .map(|&p| AtomicU32::new(u32::try_from(p).unwrap_or(u32::MAX)))
            .collect()
    };
    let mut validator = Validator::new(8);
    let in_place = |validator: &mut Validator, parents: &[i64]| {
        validator.validate_any(&graph(), 0, slots(parents).as_slice(), None)
    };
    for parents in [
        VIA_1.to_vec(),
        VIA_2.to_vec(),
        mutated(&[(4, -1)]),
        mutated(&[(3, 4), (4, 3)]),
        mutated(&[(5, 9)]),
        mutated(&[(4, 0)]),
    ] {
        assert_eq!(in_place(&mut validator, &parents), check(&parents));
    }
    assert_eq!(
        in_place(&mut validator, &mutated(&[(5, 9)])),
        Err(Invalid::ParentOutOfRange {
            vertex: 5,
            parent: 9
        })
    );
}
