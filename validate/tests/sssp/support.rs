//! What the SSSP tests share: weighted graphs, a plain Dijkstra that makes
//! valid trees, and the rules written as plain loops (the oracles the
//! validator is held against).

use generator::{Edge, EdgeGenerator, EdgeList, Kronecker};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use validate::{Invalid, SsspSummary, SsspValidator, Validator};

/// Tuples and one weight per tuple over vertices `0..n`.
#[derive(Clone, Debug)]
pub(crate) struct Graph {
    pub(crate) n: usize,
    pub(crate) edges: Vec<Edge>,
    pub(crate) weights: Vec<f32>,
}

/// One search's output.
#[derive(Clone, Debug)]
pub(crate) struct Search {
    pub(crate) root: u64,
    pub(crate) parents: Vec<i64>,
    pub(crate) dist: Vec<f32>,
}

/// A test weight for tuple `i`: a hash of `i` to 24 bits, as a multiple of
/// `2^-24` in `[0, 1)` (exact in `f32`), and an exact zero for every 29th
/// tuple.
fn test_weight(i: u64) -> f32 {
    if i.is_multiple_of(29) {
        return 0.0;
    }
    let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    (x >> 40) as f32 / (1u32 << 24) as f32
}

impl Graph {
    /// The Kronecker graph of `scale` and `seed` (edgefactor 16) with test
    /// weights, and duplicates added: every 23rd tuple again with another
    /// weight, every 31st again with its own.
    pub(crate) fn kronecker(scale: u32, seed: u64) -> Graph {
        let list = Kronecker::new(scale, 16, seed).unwrap().generate();
        let mut edges = list.edges().to_vec();
        let mut weights: Vec<f32> = (0..edges.len() as u64).map(test_weight).collect();
        let m = edges.len();
        for i in 0..m {
            if i.is_multiple_of(23) {
                edges.push(edges[i]);
                weights.push(test_weight((m + i) as u64));
            }
            if i.is_multiple_of(31) {
                edges.push(edges[i]);
                weights.push(weights[i]);
            }
        }
        Graph {
            n: list.num_vertices(),
            edges,
            weights,
        }
    }

    /// A graph from `(u, v, w)` triples.
    pub(crate) fn from_triples(n: usize, triples: &[(u32, u32, f32)]) -> Graph {
        Graph {
            n,
            edges: triples.iter().map(|&(u, v, _)| Edge::new(u, v)).collect(),
            weights: triples.iter().map(|&(_, _, w)| w).collect(),
        }
    }

    /// Neighbours and weights, self-loops left out.
    fn adjacency(&self) -> Vec<Vec<(u32, f32)>> {
        let mut adj = vec![Vec::new(); self.n];
        for (e, &w) in self.edges.iter().zip(&self.weights) {
            if e.u != e.v {
                adj[e.u as usize].push((e.v, w));
                adj[e.v as usize].push((e.u, w));
            }
        }
        adj
    }

    /// Shortest paths from `root` by Dijkstra in `f32` (a binary heap,
    /// stale entries skipped): a vertex takes a parent only on a strictly
    /// shorter path, so zero-weight ties make no cycle.
    pub(crate) fn dijkstra(&self, root: u32) -> Search {
        let adj = self.adjacency();
        let mut dist = vec![f32::INFINITY; self.n];
        let mut parents = vec![-1i64; self.n];
        let mut done = vec![false; self.n];
        dist[root as usize] = 0.0;
        parents[root as usize] = root.into();
        // Non-negative f32s order as their bits.
        let mut heap = BinaryHeap::from([Reverse((0u32, root))]);
        while let Some(Reverse((_, u))) = heap.pop() {
            if std::mem::replace(&mut done[u as usize], true) {
                continue;
            }
            for &(v, w) in &adj[u as usize] {
                let via = dist[u as usize] + w;
                if via < dist[v as usize] {
                    dist[v as usize] = via;
                    parents[v as usize] = u.into();
                    heap.push(Reverse((via.to_bits(), v)));
                }
            }
        }
        for d in &mut dist {
            if d.is_infinite() {
                *d = -1.0;
            }
        }
        Search {
            root: root.into(),
            parents,
            dist,
        }
    }

    /// The validator's verdict, on a fresh validator.
    pub(crate) fn validate(
        &self,
        s: &Search,
        claimed: Option<u64>,
    ) -> Result<SsspSummary, Invalid> {
        SsspValidator::new(self.n).validate(
            &self.edges,
            &self.weights,
            s.root,
            &s.parents,
            &s.dist,
            claimed,
        )
    }

    /// The verdict on a rayon pool of `threads`.
    pub(crate) fn validate_on(
        &self,
        threads: usize,
        s: &Search,
        claimed: Option<u64>,
    ) -> Result<SsspSummary, Invalid> {
        par::in_pool(threads, || self.validate(s, claimed)).unwrap()
    }

    /// nedge by the BFS rule: tuples, not self-loops, with an end reached.
    pub(crate) fn nedge(&self, s: &Search) -> u64 {
        let reached = |v: u32| s.dist[v as usize] != -1.0;
        let counted = self.edges.iter().filter(|e| e.u != e.v);
        counted.filter(|e| reached(e.u) || reached(e.v)).count() as u64
    }

    /// The BFS validator's figures for a BFS tree from the same root (by a
    /// plain queue): the nedge and reach the SSSP search must share.
    pub(crate) fn bfs_figures(&self, root: u32) -> (u64, u64) {
        let adj = self.adjacency();
        let mut parents = vec![-1i64; self.n];
        parents[root as usize] = root.into();
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(u) = queue.pop_front() {
            for &(v, _) in &adj[u as usize] {
                if parents[v as usize] == -1 {
                    parents[v as usize] = u.into();
                    queue.push_back(v);
                }
            }
        }
        let list = EdgeList::new(self.n as u64, self.edges.clone()).unwrap();
        let tree = Validator::new(self.n)
            .validate(&list, root.into(), &parents, None)
            .unwrap();
        (tree.nedge, tree.reached)
    }

    /// The reference code's rules (its `validate.c`), as plain loops, with
    /// the distance range as the specification states it (finite `>= 0`,
    /// or `-1`): no tree check, and no check of the tuples' own ranges.
    pub(crate) fn reference_rules_pass(&self, s: &Search) -> bool {
        let n = self.n;
        let (p, d) = (&s.parents, &s.dist);
        let root = s.root as usize;
        let ranges = p.iter().all(|&x| x == -1 || (0..n as i64).contains(&x))
            && d.iter().all(|&x| x == -1.0 || (x.is_finite() && x >= 0.0))
            && (0..n).all(|v| (p[v] == -1) == (d[v] == -1.0));
        if !ranges || p[root] != root as i64 || d[root] != 0.0 {
            return false;
        }
        let mut confirmed = vec![false; n];
        confirmed[root] = true;
        for (e, &w) in self.edges.iter().zip(&self.weights) {
            let (u, v) = (e.u as usize, e.v as usize);
            if u == v || (p[u] == -1 && p[v] == -1) {
                continue;
            }
            if (p[u] == -1) != (p[v] == -1) || d[u] + w < d[v] || d[v] + w < d[u] {
                return false;
            }
            confirmed[v] |= p[v] == u as i64 && d[v] == d[u] + w;
            confirmed[u] |= p[u] == v as i64 && d[u] == d[v] + w;
        }
        (0..n).all(|v| p[v] == -1 || confirmed[v])
    }
}

/// True when `parents` (entries in range) form one tree rooted at `root`:
/// every reached vertex's chain meets the root within `n` steps.
pub(crate) fn is_tree(root: u64, parents: &[i64]) -> bool {
    let n = parents.len();
    (0..n).filter(|&v| parents[v] != -1).all(|v| {
        let mut x = v;
        for _ in 0..=n {
            if x as u64 == root {
                return true;
            }
            match parents[x] {
                p if p < 0 || p as usize == x => return false,
                p => x = p as usize,
            }
        }
        false
    })
}

/// The deepest tree level of a valid tree.
pub(crate) fn depth(root: u64, parents: &[i64]) -> u32 {
    let level = |mut v: usize| {
        let mut l = 0;
        while v as u64 != root {
            v = parents[v] as usize;
            l += 1;
        }
        l
    };
    (0..parents.len())
        .filter(|&v| parents[v] != -1)
        .map(level)
        .max()
        .unwrap()
}

/// Reached vertices with no child, root excluded, ascending.
pub(crate) fn leaves(s: &Search) -> Vec<usize> {
    let mut has_child = vec![false; s.parents.len()];
    for (v, &p) in s.parents.iter().enumerate() {
        if p >= 0 && p as usize != v {
            has_child[p as usize] = true;
        }
    }
    (0..s.parents.len())
        .filter(|&v| s.parents[v] != -1 && v as u64 != s.root && !has_child[v])
        .collect()
}
