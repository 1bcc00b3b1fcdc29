//! On Kronecker graphs (SCALE 8 to 12, test weights with exact zeros and
//! duplicate tuples): Dijkstra's trees pass with their figures on 1 and 2
//! threads, the nedge is the BFS rule's, and broken searches fail naming
//! the vertex or tuple that a plain scan finds first, on any thread count.

use crate::support::{Graph, Search, depth, leaves};
use generator::Edge;
use validate::{Invalid, SsspSummary};

/// The figures of a valid search, computed from it directly.
fn figures(g: &Graph, s: &Search) -> SsspSummary {
    let reached: Vec<f32> = s.dist.iter().copied().filter(|&d| d != -1.0).collect();
    SsspSummary {
        nedge: g.nedge(s),
        reached: reached.len() as u64,
        max_dist: reached.iter().copied().fold(0.0, f32::max),
        depth: depth(s.root, &s.parents),
    }
}

/// Roots to search from: the busiest vertex, the ends of two tuples in the
/// middle of the list, and a vertex without tuples.
fn roots(g: &Graph) -> Vec<u32> {
    let mut degree = vec![0u32; g.n];
    for e in g.edges.iter().filter(|e| e.u != e.v) {
        degree[e.u as usize] += 1;
        degree[e.v as usize] += 1;
    }
    let busiest = (0..g.n).max_by_key(|&v| degree[v]).unwrap() as u32;
    let m = g.edges.len();
    let isolated = (0..g.n).find(|&v| degree[v] == 0).unwrap() as u32;
    vec![busiest, g.edges[m / 3].u, g.edges[2 * m / 3].v, isolated]
}

/// The failure of `s` on `g` (claiming `claimed`), the same on 1, 2 and 3
/// threads.
fn failure(g: &Graph, s: &Search, claimed: Option<u64>) -> Invalid {
    let error = g.validate_on(1, s, claimed).unwrap_err();
    for threads in [2, 3] {
        assert_eq!(g.validate_on(threads, s, claimed), Err(error.clone()));
    }
    error
}

/// The first tuple that breaks the triangle rule, by a plain scan.
fn first_broken_triangle(g: &Graph, s: &Search) -> Option<Invalid> {
    let d = &s.dist;
    let (i, (e, &w)) = g
        .edges
        .iter()
        .zip(&g.weights)
        .enumerate()
        .find(|(_, (e, w))| {
            let (du, dv) = (d[e.u as usize], d[e.v as usize]);
            e.u != e.v && du >= 0.0 && dv >= 0.0 && (du + **w < dv || dv + **w < du)
        })?;
    Some(Invalid::TriangleRule {
        edge: i as u64,
        u: e.u.into(),
        v: e.v.into(),
        weight: w.into(),
        dist_u: d[e.u as usize].into(),
        dist_v: d[e.v as usize].into(),
    })
}

/// True when tuple `i` joins two reached vertices and confirms neither.
fn confirms_nothing(g: &Graph, s: &Search, i: usize) -> bool {
    let (e, w, d) = (g.edges[i], g.weights[i], &s.dist);
    let (du, dv) = (d[e.u as usize], d[e.v as usize]);
    e.u != e.v && du >= 0.0 && dv >= 0.0 && dv != du + w && du != dv + w
}

#[test]
fn dijkstra_trees_pass_with_their_figures_on_1_and_2_threads() {
    for (scale, seed) in [(8, 1), (9, 2), (10, 3), (11, 4), (12, 5)] {
        let g = Graph::kronecker(scale, seed);
        assert!(g.weights.contains(&0.0));
        for root in roots(&g) {
            let s = g.dijkstra(root);
            let want = figures(&g, &s);
            let tag = format!("SCALE {scale} root {root}");
            assert_eq!(g.validate_on(1, &s, Some(want.nedge)), Ok(want), "{tag}");
            assert_eq!(g.validate_on(2, &s, Some(want.nedge)), Ok(want), "{tag}");
            assert_eq!(g.bfs_figures(root), (want.nedge, want.reached), "{tag}");
            assert!(g.reference_rules_pass(&s), "{tag}");
        }
        // The busiest vertex reaches most of the graph, at some depth.
        let main = figures(&g, &g.dijkstra(roots(&g)[0]));
        assert!(main.reached > (g.n / 4) as u64 && main.depth >= 3);
    }
}

#[test]
fn each_broken_search_fails_naming_its_vertex_or_tuple() {
    let g = Graph::kronecker(10, 7);
    let root = roots(&g)[0];
    let s = g.dijkstra(root);
    let (n, d, p) = (g.n, &s.dist, &s.parents);
    let leaves = leaves(&s);
    let leaf = leaves[leaves.len() / 2];
    let unreached = (0..n).find(|&v| d[v] == -1.0).unwrap();
    let with = |changes: &[(usize, i64, f32)]| {
        let mut t = s.clone();
        for &(v, parent, dist) in changes {
            (t.parents[v], t.dist[v]) = (parent, dist);
        }
        t
    };
    let above = f32::from_bits(d[leaf].to_bits() + 1);
    let stranger = (0..n)
        .find(|&q| d[q] >= 0.0 && q != leaf && g.edges.iter().all(|e| !joins(e, q, leaf)))
        .unwrap();
    // A leaf with another reached neighbour farther than its own
    // distance: hung from there, it is confirmed, but the triangle breaks.
    let (far_leaf, far, far_dist) = leaves
        .iter()
        .find_map(|&v| {
            let other = |e: &Edge| if e.u as usize == v { e.v } else { e.u } as usize;
            let (e, &w) = g.edges.iter().zip(&g.weights).find(|(e, w)| {
                let touches = e.u as usize == v || e.v as usize == v;
                let q = other(e);
                touches && q != v && p[v] != q as i64 && d[q] + **w > d[v]
            })?;
            Some((v, other(e), d[other(e)] + w))
        })
        .unwrap();
    let longer = with(&[(far_leaf, far as i64, far_dist)]);
    let quiet = (0..g.edges.len())
        .find(|&i| confirms_nothing(&g, &s, i))
        .unwrap();
    let mut nan_weight = g.clone();
    nan_weight.weights[quiet] = f32::NAN;
    let mut beyond = g.clone();
    beyond.edges.push(Edge::new(root, n as u32));
    beyond.weights.push(0.5);
    let first_touching_leaf = g
        .edges
        .iter()
        .position(|e| (e.u as usize == leaf) != (e.v as usize == leaf))
        .unwrap();
    let other_end = |e: Edge| u64::from(if e.u as usize == leaf { e.v } else { e.u });
    let nedge = g.nedge(&s);

    let cases: Vec<(&str, &Graph, Search, Option<u64>, Invalid)> = vec![
        (
            "parent out of range",
            &g,
            with(&[(leaf, n as i64, d[leaf])]),
            None,
            Invalid::ParentOutOfRange {
                vertex: leaf as u64,
                parent: n as i64,
            },
        ),
        (
            "distance NaN",
            &g,
            with(&[(leaf, p[leaf], f32::NAN)]),
            None,
            Invalid::DistOutOfRange {
                vertex: leaf as u64,
                dist: f32::NAN.into(),
            },
        ),
        (
            "unreached vertex with a distance",
            &g,
            with(&[(unreached, -1, 1.0)]),
            None,
            Invalid::ReachMismatch {
                vertex: unreached as u64,
                parent: -1,
                dist: 1.0.into(),
            },
        ),
        (
            "root not at 0",
            &g,
            with(&[(root as usize, root.into(), 0.25)]),
            None,
            Invalid::RootDist {
                root: root.into(),
                dist: 0.25.into(),
            },
        ),
        (
            "second root",
            &g,
            with(&[(leaf, leaf as i64, d[leaf])]),
            None,
            Invalid::SecondRoot {
                vertex: leaf as u64,
            },
        ),
        (
            "parent unreached",
            &g,
            with(&[(leaf, unreached as i64, d[leaf])]),
            None,
            Invalid::ParentUnreached {
                vertex: leaf as u64,
                parent: unreached as u64,
            },
        ),
        (
            "a leaf one ulp farther",
            &g,
            with(&[(leaf, p[leaf], above)]),
            None,
            Invalid::Unconfirmed {
                vertex: leaf as u64,
                parent: p[leaf] as u64,
                dist: above.into(),
                parent_dist: d[p[leaf] as usize].into(),
            },
        ),
        (
            "a parent that is no neighbour",
            &g,
            with(&[(leaf, stranger as i64, d[leaf])]),
            None,
            Invalid::Unconfirmed {
                vertex: leaf as u64,
                parent: stranger as u64,
                dist: d[leaf].into(),
                parent_dist: d[stranger].into(),
            },
        ),
        (
            "a leaf marked unreached",
            &g,
            with(&[(leaf, -1, -1.0)]),
            None,
            Invalid::HalfReachedEdge {
                edge: first_touching_leaf as u64,
                reached: other_end(g.edges[first_touching_leaf]),
                unreached: leaf as u64,
            },
        ),
        (
            "a leaf hung from a farther neighbour",
            &g,
            longer.clone(),
            None,
            first_broken_triangle(&g, &longer).unwrap(),
        ),
        (
            "a NaN weight",
            &nan_weight,
            s.clone(),
            None,
            Invalid::WeightOutOfRange {
                edge: quiet as u64,
                weight: f32::NAN.into(),
            },
        ),
        (
            "a tuple beyond the vertices",
            &beyond,
            s.clone(),
            None,
            Invalid::TupleOutOfRange {
                edge: g.edges.len() as u64,
                u: root.into(),
                v: n as u64,
                num_vertices: n,
            },
        ),
        (
            "a wrong nedge",
            &g,
            s.clone(),
            Some(nedge + 1),
            Invalid::NedgeMismatch {
                counted: nedge,
                claimed: nedge + 1,
            },
        ),
    ];
    for (name, graph, search, claimed, want) in cases {
        assert_eq!(failure(graph, &search, claimed), want, "{name}");
    }
}

fn joins(e: &Edge, a: usize, b: usize) -> bool {
    let (u, v) = (e.u as usize, e.v as usize);
    (u, v) == (a, b) || (u, v) == (b, a)
}

/// Guards the tree check on a real graph: a tuple between two reached
/// vertices made weightless puts them at one distance, so each can claim
/// the other as parent and the reference's rules still pass; likewise two
/// vertices without tuples, joined by a new weightless one and marked
/// reached. Both are cycles, and fail check 2.
#[test]
fn zero_weight_cycles_that_pass_the_reference_fail_the_tree_check() {
    let mut g = Graph::kronecker(11, 8);
    let root = roots(&g)[0];
    let before = g.dijkstra(root);
    let reached = |v: u32| before.dist[v as usize] > 0.0;
    let t = (g.edges.iter())
        .position(|e| e.u != e.v && reached(e.u) && reached(e.v))
        .unwrap();
    let (a, b) = (g.edges[t].u as usize, g.edges[t].v as usize);
    g.weights[t] = 0.0;
    let mut s = g.dijkstra(root);
    assert_eq!(s.dist[a], s.dist[b]);
    (s.parents[a], s.parents[b]) = (b as i64, a as i64);
    assert!(g.reference_rules_pass(&s));
    let error = failure(&g, &s, None);
    assert!(
        error == Invalid::Cycle { vertex: a as u64 }
            || error == Invalid::Cycle { vertex: b as u64 },
        "{error}"
    );

    let mut g = Graph::kronecker(11, 8);
    let s = g.dijkstra(root);
    let mut alone = (0..g.n).filter(|&v| {
        g.edges
            .iter()
            .all(|e| e.u as usize != v && e.v as usize != v)
    });
    let (x, y) = (alone.next().unwrap(), alone.next().unwrap());
    g.edges.push(Edge::new(x as u32, y as u32));
    g.weights.push(0.0);
    let mut cut = s.clone();
    (cut.parents[x], cut.parents[y]) = (y as i64, x as i64);
    (cut.dist[x], cut.dist[y]) = (3.0, 3.0);
    assert!(g.reference_rules_pass(&cut));
    let error = failure(&g, &cut, None);
    assert!(
        error == Invalid::Cycle { vertex: x as u64 }
            || error == Invalid::Cycle { vertex: y as u64 },
        "{error}"
    );
}

/// Guards determinism across work items: with failures spread over the
/// tuple list (several chunks at SCALE 12) and over the vertices, 1, 2
/// and 3 threads name the lowest tuple, the lowest vertex, and check 3
/// before check 4.
#[test]
fn the_lowest_failure_is_named_for_any_thread_count() {
    let g = Graph::kronecker(12, 9);
    let s = g.dijkstra(roots(&g)[0]);
    let m = g.edges.len();
    assert!(m > 4 * (1 << 14), "several work items");
    let quiet_from = |start: usize| (start..m).find(|&i| confirms_nothing(&g, &s, i)).unwrap();
    let spots = [
        quiet_from(4 * m / 5),
        quiet_from(m / 3),
        quiet_from(3 * m / 5),
    ];
    let mut broken = g.clone();
    for &i in &spots {
        broken.weights[i] = -1.0;
    }
    assert_eq!(
        failure(&broken, &s, None),
        Invalid::WeightOutOfRange {
            edge: spots[1] as u64,
            weight: (-1.0).into()
        }
    );
    let leaves = leaves(&s);
    let picked = [
        leaves[leaves.len() - 1],
        leaves[leaves.len() / 3],
        leaves[leaves.len() / 2],
    ];
    let mut farther = s.clone();
    for &v in &picked {
        farther.dist[v] = f32::from_bits(s.dist[v].to_bits() + 1);
    }
    let lowest = picked[1];
    let want = Invalid::Unconfirmed {
        vertex: lowest as u64,
        parent: s.parents[lowest] as u64,
        dist: farther.dist[lowest].into(),
        parent_dist: s.dist[s.parents[lowest] as usize].into(),
    };
    assert_eq!(failure(&g, &farther, None), want);
    assert_eq!(failure(&broken, &farther, None), want, "check 3 first");
}
