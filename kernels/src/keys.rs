//! Search keys: the roots of the benchmark's searches.
//!
//! A key must be a vertex with at least one edge that is not a self-loop
//! (degree > 0 in the [`Csr`], which drops self-loops). Keys are distinct and
//! drawn uniformly among those vertices from the seed's search-key stream by
//! a partial Fisher-Yates shuffle of the eligible list, so the same seed and
//! graph give the same keys for any thread count, and asking for every
//! eligible vertex terminates.
//!
//! [`choose_reference_search_keys`] instead follows the Graph500 reference
//! code's rule over its candidate stream, so that a graph of its generator
//! gets its keys too.

use crate::{Csr, Error, Vertex};
use generator::Stream;
use rayon::prelude::*;

/// A root: a vertex of a particular graph, checked in range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SearchKey(Vertex);

impl SearchKey {
    /// `root` as a key of `graph`, if it is one of its vertices. (Any vertex
    /// may be searched from; only the benchmark's own keys must have edges.)
    pub fn new(root: u64, graph: &Csr) -> Result<Self, Error> {
        let n = graph.num_vertices() as u64;
        match Vertex::try_from(root) {
            Ok(v) if root < n => Ok(SearchKey(v)),
            _ => Err(Error::RootOutOfRange {
                root,
                num_vertices: n,
            }),
        }
    }

    /// The root vertex.
    pub fn vertex(self) -> Vertex {
        self.0
    }
}

/// Draws `count` distinct keys among the vertices of `graph` that have an
/// edge other than a self-loop. O(N) to list them, O(count) to draw.
pub fn choose_search_keys(
    graph: &Csr,
    count: usize,
    stream: &mut Stream,
) -> Result<Vec<SearchKey>, Error> {
    let n = Vertex::try_from(graph.num_vertices()).expect("ids fit Vertex");
    let mut eligible: Vec<Vertex> = (0..n)
        .into_par_iter()
        .filter(|&v| graph.degree(v) > 0)
        .collect();
    if eligible.len() < count {
        return Err(Error::TooFewSearchKeys {
            wanted: count,
            eligible: eligible.len(),
            num_vertices: graph.num_vertices(),
        });
    }
    for i in 0..count {
        let remaining = (eligible.len() - i) as u64;
        let pick = i + usize::try_from(stream.below(remaining)).expect("below a usize");
        eligible.swap(i, pick);
    }
    Ok(eligible[..count].iter().map(|&v| SearchKey(v)).collect())
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
    let n = graph.num_vertices() as u64;
    let mut candidates = candidates.into_iter().enumerate();
    let mut keys: Vec<SearchKey> = Vec::with_capacity(count);
    while keys.len() < count {
        let (tried, root) = candidates.next().expect("the candidate stream is endless");
        let key = SearchKey::new(root, graph)?;
        let isolated = graph.degree(key.vertex()) == 0;
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
