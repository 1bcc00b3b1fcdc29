//! Each rule of the SSSP validator rejects the broken search it exists
//! for, naming the vertex or tuple; valid searches pass with their figures.
//!
//! The graph and its search are `fixtures/nine.rs`'s (N = 9, root 0; the
//! tuples listed there in position order), shared with the distributed
//! validator's tests.

#[path = "../fixtures/nine.rs"]
mod nine;

use crate::support::{Graph, Search};
use nine::{DIST, PARENTS, SUMMARY, TRIPLES};
use validate::{ExactF32, Invalid, SsspSummary, SsspValidator};

fn graph() -> Graph {
    Graph::from_triples(9, &TRIPLES)
}

fn search() -> Search {
    Search {
        root: 0,
        parents: PARENTS.to_vec(),
        dist: DIST.to_vec(),
    }
}

/// The valid search with `parents` and `dist` entries changed.
fn mutated(parents: &[(usize, i64)], dist: &[(usize, f32)]) -> Search {
    let mut s = search();
    parents.iter().for_each(|&(v, p)| s.parents[v] = p);
    dist.iter().for_each(|&(v, d)| s.dist[v] = d);
    s
}

/// The failure of `s` on `g`; asserts that its message opens with its
/// check number and that 1 and 2 threads name the same failure.
fn failure(g: &Graph, s: &Search) -> Invalid {
    let error = g.validate_on(1, s, None).unwrap_err();
    assert_eq!(g.validate_on(2, s, None), Err(error.clone()));
    let opening = format!("check {} (", error.check());
    assert!(error.to_string().starts_with(&opening), "{error}");
    error
}

fn f(x: f32) -> ExactF32 {
    x.into()
}

#[test]
fn valid_searches_pass_with_their_figures() {
    let g = graph();
    assert_eq!(g.validate(&search(), Some(10)), Ok(SUMMARY));
    // 8 hangs from 4 instead (also by a zero-weight tuple): one level deeper.
    let other = mutated(&[(8, 4)], &[]);
    let deeper = SsspSummary {
        depth: 5,
        ..SUMMARY
    };
    assert_eq!(g.validate(&other, None), Ok(deeper));
    // Dijkstra's tree passes too, and the reference's rules pass all three.
    let dijkstra = g.dijkstra(0);
    assert_eq!(dijkstra.dist, DIST);
    assert!(g.validate(&dijkstra, None).is_ok());
    for s in [search(), other, dijkstra] {
        assert!(g.reference_rules_pass(&s));
    }
    // -0.0 is a distance 0 for the root, as in the reference.
    assert!(g.validate(&mutated(&[], &[(0, -0.0)]), None).is_ok());
}

#[test]
fn one_validator_serves_many_searches_and_roots() {
    let g = graph();
    let mut validator = SsspValidator::new(9);
    let mut run =
        |s: &Search| validator.validate(&g.edges, &g.weights, s.root, &s.parents, &s.dist, None);
    assert!(run(&mutated(&[(4, 1)], &[])).is_err());
    assert_eq!(run(&search()), Ok(SUMMARY));
    let from_5 = Search {
        root: 5,
        parents: vec![-1, -1, -1, -1, -1, 5, 5, -1, -1],
        dist: vec![-1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 0.0, -1.0, -1.0],
    };
    let summary = SsspSummary {
        nedge: 1,
        reached: 2,
        max_dist: 0.0,
        depth: 1,
    };
    assert_eq!(run(&from_5), Ok(summary));
    let mut from_7 = Search {
        root: 7,
        parents: vec![-1; 9],
        dist: vec![-1.0; 9],
    };
    from_7.parents[7] = 7;
    from_7.dist[7] = 0.0;
    let alone = SsspSummary {
        nedge: 0,
        reached: 1,
        max_dist: 0.0,
        depth: 0,
    };
    assert_eq!(run(&from_7), Ok(alone));
    assert_eq!(SsspValidator::bytes_for(1 << 20), 5 << 20);
}

#[test]
fn check1_rejects_arrays_of_the_wrong_length() {
    let g = graph();
    let mut s = search();
    s.parents.pop();
    assert_eq!(
        failure(&g, &s),
        Invalid::WrongLength {
            found: 8,
            expected: 9
        }
    );
    let mut s = search();
    s.dist.extend([1.0, 2.0]);
    let long = Invalid::DistWrongLength {
        found: 11,
        expected: 9,
    };
    assert_eq!(failure(&g, &s), long);
    let mut short = graph();
    short.weights.pop();
    let weights = Invalid::WeightCount {
        found: 11,
        expected: 12,
    };
    assert_eq!(failure(&short, &search()), weights);
    // Several at once: parents, then distances, then weights.
    assert_eq!(failure(&short, &s), long);
}

#[test]
fn check1_rejects_a_root_that_is_not_a_vertex() {
    let s = Search {
        root: 9,
        ..search()
    };
    assert_eq!(
        failure(&graph(), &s),
        Invalid::RootOutOfRange {
            root: 9,
            num_vertices: 9
        }
    );
}

#[test]
fn check1_rejects_parents_out_of_range() {
    for bad in [9, -2, i64::MAX, i64::MIN] {
        let error = failure(&graph(), &mutated(&[(4, bad)], &[]));
        assert_eq!(
            error,
            Invalid::ParentOutOfRange {
                vertex: 4,
                parent: bad
            }
        );
    }
}

#[test]
fn check1_rejects_distances_out_of_range() {
    for bad in [
        -0.5,
        -1.5,
        f32::MIN,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
    ] {
        let error = failure(&graph(), &mutated(&[], &[(4, bad)]));
        assert_eq!(
            error,
            Invalid::DistOutOfRange {
                vertex: 4,
                dist: f(bad)
            }
        );
    }
}

#[test]
fn check1_rejects_parents_and_distances_that_disagree_on_reach() {
    let error = failure(&graph(), &mutated(&[], &[(7, 3.0)]));
    assert_eq!(
        error,
        Invalid::ReachMismatch {
            vertex: 7,
            parent: -1,
            dist: f(3.0)
        }
    );
    let error = failure(&graph(), &mutated(&[], &[(4, -1.0)]));
    assert_eq!(
        error,
        Invalid::ReachMismatch {
            vertex: 4,
            parent: 3,
            dist: f(-1.0)
        }
    );
}

#[test]
fn check1_names_the_lowest_vertex_whatever_breaks_it() {
    let s = mutated(&[(8, 99)], &[(4, f32::NAN), (6, 1.0)]);
    assert_eq!(
        failure(&graph(), &s),
        Invalid::DistOutOfRange {
            vertex: 4,
            dist: f(f32::NAN)
        }
    );
}

#[test]
fn check1_rejects_a_root_not_its_own_parent_or_not_at_distance_0() {
    let error = failure(&graph(), &mutated(&[(0, 1)], &[]));
    assert_eq!(error, Invalid::RootNotOwnParent { root: 0, parent: 1 });
    let error = failure(&graph(), &mutated(&[], &[(0, 0.5)]));
    assert_eq!(
        error,
        Invalid::RootDist {
            root: 0,
            dist: f(0.5)
        }
    );
}

#[test]
fn check2_rejects_a_second_self_parent() {
    let s = mutated(&[(5, 5)], &[(5, 7.0)]);
    assert_eq!(failure(&graph(), &s), Invalid::SecondRoot { vertex: 5 });
}

#[test]
fn check2_rejects_a_parent_marked_unreached() {
    let error = failure(&graph(), &mutated(&[(4, 5)], &[]));
    assert_eq!(
        error,
        Invalid::ParentUnreached {
            vertex: 4,
            parent: 5
        }
    );
}

/// Guards the check the reference lacks: 3 -> 8 -> 4 -> 3 by zero-weight
/// tuples, every distance 2.5, so each vertex is "confirmed" by its parent
/// and every triangle holds; the root's own tree is cut at 3.
#[test]
fn check2_rejects_a_zero_weight_cycle_among_reached_vertices() {
    let g = graph();
    let s = mutated(&[(3, 8), (8, 4), (4, 3)], &[]);
    assert!(g.reference_rules_pass(&s), "the reference passes it");
    let error = failure(&g, &s);
    assert!(
        matches!(error, Invalid::Cycle { vertex: 3 | 4 | 8 }),
        "{error}"
    );
}

/// Guards the other blind spot: 5 and 6 point at each other across their
/// zero-weight tuple, marked reached at one distance, with no path from
/// the root.
#[test]
fn check2_rejects_a_cycle_cut_off_from_the_root() {
    let g = graph();
    let s = mutated(&[(5, 6), (6, 5)], &[(5, 7.0), (6, 7.0)]);
    assert!(g.reference_rules_pass(&s), "the reference passes it");
    let error = failure(&g, &s);
    assert!(matches!(error, Invalid::Cycle { vertex: 5 | 6 }), "{error}");
}

#[test]
fn check3_rejects_a_parent_that_is_no_neighbour() {
    // 4 at its true distance, but hung from 1: no tuple joins 1 and 4.
    let error = failure(&graph(), &mutated(&[(4, 1)], &[]));
    assert_eq!(
        error,
        Invalid::Unconfirmed {
            vertex: 4,
            parent: 1,
            dist: f(2.5),
            parent_dist: f(1.0)
        }
    );
}

#[test]
fn check3_rejects_a_distance_not_reached_through_the_parent() {
    // 1-3 is a tuple, but of weight 2: 1 + 2 is not 2.5.
    let error = failure(&graph(), &mutated(&[(3, 1)], &[]));
    assert_eq!(
        error,
        Invalid::Unconfirmed {
            vertex: 3,
            parent: 1,
            dist: f(2.5),
            parent_dist: f(1.0)
        }
    );
}

#[test]
fn check3_rejects_an_unreachable_vertex_given_a_parent() {
    let error = failure(&graph(), &mutated(&[(7, 0)], &[(7, 1.0)]));
    assert_eq!(
        error,
        Invalid::Unconfirmed {
            vertex: 7,
            parent: 0,
            dist: f(1.0),
            parent_dist: f(0.0)
        }
    );
}

#[test]
fn check4_rejects_a_reachable_vertex_marked_unreached() {
    let error = failure(&graph(), &mutated(&[(4, -1)], &[(4, -1.0)]));
    assert_eq!(
        error,
        Invalid::HalfReachedEdge {
            edge: 5,
            reached: 3,
            unreached: 4
        }
    );
}

/// 3 hangs from 1 at 1 + 2 = 3 (confirmed), with 4 and 8 below it at 3:
/// every vertex is confirmed, but tuple 3 offers 3 the distance 1.5 + 1.
/// Both sides of the rule: the same in the graph with every tuple turned.
#[test]
fn check4_rejects_a_broken_triangle_rule_on_either_side() {
    let s = mutated(&[(3, 1)], &[(3, 3.0), (4, 3.0), (8, 3.0)]);
    let g = graph();
    assert!(!g.reference_rules_pass(&s));
    assert_eq!(
        failure(&g, &s),
        Invalid::TriangleRule {
            edge: 3,
            u: 2,
            v: 3,
            weight: f(1.0),
            dist_u: f(1.5),
            dist_v: f(3.0)
        }
    );
    let turned: Vec<_> = TRIPLES.iter().map(|&(u, v, w)| (v, u, w)).collect();
    assert_eq!(
        failure(&Graph::from_triples(9, &turned), &s),
        Invalid::TriangleRule {
            edge: 3,
            u: 3,
            v: 2,
            weight: f(1.0),
            dist_u: f(3.0),
            dist_v: f(1.5)
        }
    );
}

#[test]
fn check4_rejects_a_tuple_beyond_the_vertices() {
    for (u, v) in [(2, 9), (9, 9), (u32::MAX, 0)] {
        let mut g = graph();
        g.edges.push(generator::Edge::new(u, v));
        g.weights.push(1.0);
        let error = failure(&g, &search());
        assert_eq!(
            error,
            Invalid::TupleOutOfRange {
                edge: 12,
                u: u.into(),
                v: v.into(),
                num_vertices: 9
            }
        );
    }
}

#[test]
fn check4_rejects_a_weight_that_is_not_finite_and_non_negative() {
    // Tuple 4 (1-3) confirms nothing; tuple 8 joins unreached vertices.
    for (edge, bad) in [(4, -0.5), (4, f32::NAN), (4, f32::INFINITY), (8, f32::NAN)] {
        let mut g = graph();
        g.weights[edge] = bad;
        let error = failure(&g, &search());
        assert_eq!(
            error,
            Invalid::WeightOutOfRange {
                edge: edge as u64,
                weight: f(bad)
            }
        );
    }
    // A self-loop's weight is read by no rule (nor by the reference).
    let mut g = graph();
    g.weights[6] = f32::NAN;
    assert!(g.validate(&search(), None).is_ok());
}

#[test]
fn check3_is_reported_before_check4() {
    let mut g = graph();
    g.weights[1] = -1.0;
    let error = failure(&g, &mutated(&[(4, 1)], &[]));
    assert_eq!(error.check(), 3, "{error}");
}

#[test]
fn check6_rejects_a_wrong_nedge() {
    let g = graph();
    assert_eq!(g.validate(&search(), Some(10)), Ok(SUMMARY));
    assert_eq!(
        g.validate(&search(), Some(11)),
        Err(Invalid::NedgeMismatch {
            counted: 10,
            claimed: 11
        })
    );
}

/// Guards the messages: they show the very `f32` that failed (one ulp
/// above 2.5 prints as 2.5000002, not as a rounded 2.5).
#[test]
fn messages_show_the_values_that_failed() {
    let above = f32::from_bits(2.5f32.to_bits() + 1);
    let text = failure(&graph(), &mutated(&[], &[(4, above)])).to_string();
    assert_eq!(
        text,
        "check 3 (tree edges): vertex 4 has parent 3 and distance 2.5000002, but no input edge \
         joins them with a weight w such that 2.5000002 == 2.5 + w in f32"
    );
    let s = mutated(&[(3, 1)], &[(3, 3.0), (4, 3.0), (8, 3.0)]);
    let text = failure(&graph(), &s).to_string();
    assert_eq!(
        text,
        "check 4 (triangle rule): input edge 3 (2, 3) of weight 1 joins distance 1.5 to \
         distance 3; the distances of its ends may differ by at most its weight (in f32)"
    );
}
