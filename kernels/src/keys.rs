//! Search keys: the roots of the benchmark's searches.
//!
//! A key must be a vertex with at least one edge that is not a self-loop
//! (degree > 0 in the [`Csr`], which drops self-loops). Keys are distinct and
//! drawn uniformly among those vertices from the seed's search-key stream by
//! a partial Fisher-Yates shuffle of the eligible list, so the same seed and
//! graph give the same keys for any thread count, and asking for every
//! eligible vertex terminates. The list is never built: [`Eligible`] is a
//! bitmap that finds its `k`-th vertex, which a distributed run assembles
//! from its ranks' words, so it draws the same keys as one process.
//!
//! [`choose_reference_search_keys`] instead follows the Graph500 reference
//! code's rule over its candidate stream, so that a graph of its generator
//! gets its keys too.

use crate::{Csr, Error, Vertex};
use generator::Stream;
use rayon::prelude::*;

/// A root: a vertex of a particular graph, checked in range. Held as a
/// `u64`, the id a distributed graph may need beyond 2^32 vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SearchKey(u64);

impl SearchKey {
    /// `root` as a key of `graph`, if it is one of its vertices. (Any vertex
    /// may be searched from; only the benchmark's own keys must have edges.)
    pub fn new(root: u64, graph: &Csr) -> Result<Self, Error> {
        SearchKey::below(root, graph.num_vertices() as u64)
    }

    /// `root` as a key of a graph of `num_vertices` vertices, if it is one
    /// of them (a rank of a distributed run knows `N`, not the whole graph).
    pub fn below(root: u64, num_vertices: u64) -> Result<Self, Error> {
        if root < num_vertices {
            Ok(SearchKey(root))
        } else {
            Err(Error::RootOutOfRange { root, num_vertices })
        }
    }

    /// The root's id.
    pub fn id(self) -> u64 {
        self.0
    }

    /// The root as a vertex of a single-process graph, whose ids all fit a
    /// [`Vertex`] (panics on a key of a larger distributed graph).
    pub fn vertex(self) -> Vertex {
        Vertex::try_from(self.0).expect("a single-process graph's ids fit Vertex")
    }
}

/// The vertices a benchmark key may be: those with an edge that is not a
/// self-loop. A bitmap with the running count of its set bits per word,
/// so the `k`-th eligible vertex is a binary search away: `N / 8 + N / 8`
/// bytes. A distributed run assembles it from every rank's words, so both
/// kinds of run draw their keys from the same object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eligible {
    num_vertices: u64,
    words: Vec<u64>,
    before: Vec<u64>,
}

impl Eligible {
    /// The eligible vertices of `graph` (degree > 0). One parallel pass.
    pub fn of(graph: &Csr) -> Self {
        let n = graph.num_vertices();
        let words = (0..n.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                let first = w * 64;
                (first..(first + 64).min(n)).fold(0u64, |bits, v| {
                    let v = Vertex::try_from(v).expect("ids fit Vertex");
                    bits | u64::from(graph.degree(v) > 0) << (v % 64)
                })
            })
            .collect();
        Eligible::from_words(n as u64, words)
    }

    /// The set whose bit `v % 64` of word `v / 64` says whether `v` is
    /// eligible; `words` holds `ceil(num_vertices / 64)` words.
    pub fn from_words(num_vertices: u64, words: Vec<u64>) -> Self {
        assert_eq!(
            words.len() as u64,
            num_vertices.div_ceil(64),
            "one bit per vertex"
        );
        let before = words
            .iter()
            .scan(0u64, |sum, w| {
                let at = *sum;
                *sum += u64::from(w.count_ones());
                Some(at)
            })
            .collect();
        Eligible {
            num_vertices,
            words,
            before,
        }
    }

    /// `N`.
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// How many vertices are eligible.
    pub fn count(&self) -> u64 {
        self.before.last().map_or(0, |&b| b)
            + self.words.last().map_or(0, |w| u64::from(w.count_ones()))
    }

    /// Whether `v` (below `N`) is eligible.
    pub fn contains(&self, v: u64) -> bool {
        let w = usize::try_from(v / 64).expect("a word index");
        self.words[w] >> (v % 64) & 1 == 1
    }

    /// The `k`-th eligible vertex in id order (`k < count()`). O(log N).
    pub fn select(&self, k: u64) -> u64 {
        let w = self.before.partition_point(|&b| b <= k) - 1;
        let mut bits = self.words[w];
        for _ in 0..k - self.before[w] {
            bits &= bits - 1;
        }
        w as u64 * 64 + u64::from(bits.trailing_zeros())
    }
}

/// Draws `count` distinct keys among the vertices of `graph` that have an
/// edge other than a self-loop ([`choose_keys_among`] of [`Eligible::of`]).
pub fn choose_search_keys(
    graph: &Csr,
    count: usize,
    stream: &mut Stream,
) -> Result<Vec<SearchKey>, Error> {
    choose_keys_among(&Eligible::of(graph), count, stream)
}

/// Draws `count` distinct keys among `eligible`: a partial Fisher-Yates
/// shuffle of the eligible vertices in id order, the moved entries kept in
/// a map instead of a list of them all. O(count log N).
pub fn choose_keys_among(
    eligible: &Eligible,
    count: usize,
    stream: &mut Stream,
) -> Result<Vec<SearchKey>, Error> {
    let total = eligible.count();
    if total < count as u64 {
        return Err(Error::TooFewSearchKeys {
            wanted: count,
            eligible: usize::try_from(total).expect("below count"),
            num_vertices: usize::try_from(eligible.num_vertices()).expect("fits memory"),
        });
    }
    let mut moved: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let at = |moved: &std::collections::HashMap<u64, u64>, j: u64| {
        moved.get(&j).copied().unwrap_or_else(|| eligible.select(j))
    };
    let mut keys = Vec::with_capacity(count);
    for i in 0..count as u64 {
        let pick = i + stream.below(total - i);
        let (here, there) = (at(&moved, i), at(&moved, pick));
        moved.insert(pick, here);
        keys.push(SearchKey(there));
    }
    Ok(keys)
}

/// The reference code's keys: it walks `candidates` (for its own graphs,
/// [`generator::ReferenceKronecker::root_candidates`]) and keeps a candidate
/// unless it is already a key or has no edge but self-loops. Its guard:
/// candidates from number `N` on (counting from 0, over all keys) are kept
/// unchecked. Such a duplicate is kept as the reference keeps it; such an
/// isolated vertex is an error rather than a search of nothing.
/// O(count^2 + candidates tried).
pub fn choose_reference_search_keys(
    graph: &Csr,
    count: usize,
    candidates: impl IntoIterator<Item = u64>,
) -> Result<Vec<SearchKey>, Error> {
    choose_reference_keys_among(&Eligible::of(graph), count, candidates)
}

/// [`choose_reference_search_keys`] over an [`Eligible`] set.
pub fn choose_reference_keys_among(
    eligible: &Eligible,
    count: usize,
    candidates: impl IntoIterator<Item = u64>,
) -> Result<Vec<SearchKey>, Error> {
    let n = eligible.num_vertices();
    let mut candidates = candidates.into_iter().enumerate();
    let mut keys: Vec<SearchKey> = Vec::with_capacity(count);
    while keys.len() < count {
        let (tried, root) = candidates.next().expect("the candidate stream is endless");
        let key = SearchKey::below(root, n)?;
        let isolated = !eligible.contains(root);
        if tried as u64 >= n {
            if isolated {
                return Err(Error::ReferenceKeysExhausted {
                    index: keys.len(),
                    tried: n,
                    vertex: root,
                });
            }
            keys.push(key);
        } else if !isolated && !keys.contains(&key) {
            keys.push(key);
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use generator::{Edge, SeedStreams};

    fn star_with_loops() -> Csr {
        // 0 is the centre of 1..=3; 4 has only a self-loop; 5 is isolated.
        let edges = [(0, 1), (0, 2), (0, 3), (4, 4)].map(|(u, v)| Edge::new(u, v));
        Csr::build(6, &edges)
    }

    #[test]
    fn keys_are_distinct_eligible_and_repeatable() {
        let g = star_with_loops();
        let keys = choose_search_keys(&g, 4, &mut SeedStreams::new(1).search_keys()).unwrap();
        let mut vertices: Vec<u32> = keys.iter().map(|k| k.vertex()).collect();
        let again = choose_search_keys(&g, 4, &mut SeedStreams::new(1).search_keys()).unwrap();
        assert_eq!(keys, again);
        vertices.sort_unstable();
        assert_eq!(vertices, [0, 1, 2, 3]);
    }

    /// Guards the keys of every seed: the shuffle over the bitmap draws
    /// what the shuffle of the listed eligible vertices drew before it.
    #[test]
    fn the_bitmap_shuffle_draws_what_the_listed_shuffle_drew() {
        let edges: Vec<Edge> = (0..3000u32)
            .filter(|v| v % 7 != 3)
            .map(|v| Edge::new(v, (v * 13 + 5) % 3001))
            .collect();
        let g = Csr::build(3001, &edges);
        let mut listed: Vec<u32> = (0..3001).filter(|&v| g.degree(v) > 0).collect();
        let mut stream = SeedStreams::new(5).search_keys();
        for i in 0..100 {
            let pick = i + stream.below((listed.len() - i) as u64) as usize;
            listed.swap(i, pick);
        }
        let keys = choose_search_keys(&g, 100, &mut SeedStreams::new(5).search_keys()).unwrap();
        let drawn: Vec<u32> = keys.iter().map(|k| k.vertex()).collect();
        assert_eq!(drawn, listed[..100]);
        let eligible = Eligible::of(&g);
        assert_eq!(
            eligible.count(),
            (0..3001).filter(|&v| g.degree(v) > 0).count() as u64
        );
        for (k, v) in (0..3001u32).filter(|&v| g.degree(v) > 0).enumerate() {
            assert_eq!(eligible.select(k as u64), u64::from(v));
        }
    }

    #[test]
    fn too_few_eligible_vertices_is_an_error_not_a_hang() {
        let g = star_with_loops();
        let err = choose_search_keys(&g, 5, &mut SeedStreams::new(1).search_keys()).unwrap_err();
        assert_eq!(
            err,
            Error::TooFewSearchKeys {
                wanted: 5,
                eligible: 4,
                num_vertices: 6
            }
        );
    }

    #[test]
    fn keys_spread_over_the_eligible_vertices() {
        let edges: Vec<Edge> = (0..1000).map(|v| Edge::new(v, v + 1)).collect();
        let g = Csr::build(1001, &edges);
        let keys = choose_search_keys(&g, 64, &mut SeedStreams::new(9).search_keys()).unwrap();
        let low = keys.iter().filter(|k| k.vertex() < 500).count();
        assert!((16..=48).contains(&low), "{low} of 64 keys below 500");
    }

    #[test]
    fn reference_rule_skips_duplicates_and_isolated_vertices() {
        let g = star_with_loops();
        // 4 has only a self-loop, 5 nothing; 1 repeats.
        let keys = choose_reference_search_keys(&g, 3, [1, 4, 1, 5, 0, 2, 3]).unwrap();
        let vertices: Vec<u32> = keys.iter().map(|k| k.vertex()).collect();
        assert_eq!(vertices, [1, 0, 2]);
    }

    #[test]
    fn reference_guard_keeps_candidates_from_n_on_unchecked() {
        let g = star_with_loops(); // N = 6: candidates 0..=5 are checked.
        let mut candidates = vec![4, 4, 4, 4, 4, 0];
        // The guard keeps the duplicate 0 as the reference does...
        candidates.push(0);
        let keys = choose_reference_search_keys(&g, 2, candidates.clone()).unwrap();
        assert_eq!(keys.iter().map(|k| k.vertex()).collect::<Vec<_>>(), [0, 0]);
        // ...but refuses a vertex without edges.
        candidates[6] = 5;
        assert_eq!(
            choose_reference_search_keys(&g, 2, candidates),
            Err(Error::ReferenceKeysExhausted {
                index: 1,
                tried: 6,
                vertex: 5
            })
        );
    }

    #[test]
    fn out_of_range_root_is_rejected() {
        let g = star_with_loops();
        assert!(SearchKey::new(5, &g).is_ok());
        assert_eq!(
            SearchKey::new(6, &g),
            Err(Error::RootOutOfRange {
                root: 6,
                num_vertices: 6
            })
        );
        assert!(SearchKey::new(u64::MAX, &g).is_err());
    }
}
