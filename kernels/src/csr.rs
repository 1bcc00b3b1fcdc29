//! Kernel 1: `Csr`, the graph in compressed sparse rows.
//!
//! `targets[offsets[v]..offsets[v + 1]]` are the neighbours of `v`. Every
//! edge tuple `(u, v)` with `u != v` appears twice, as `u -> v` and `v -> u`;
//! self-loops are dropped, duplicate tuples kept (as the reference does).
//! Neighbour order within a row is unspecified.
//!
//! Construction, all passes parallel (rayon):
//! 1. count each vertex's degree with atomic increments into `ends`;
//! 2. turn the counts into inclusive prefix sums, so `ends[v]` is the end of
//!    `v`'s row;
//! 3. place every arc by atomically decrementing `ends[source]` and writing
//!    the target at the slot it returns.
//!
//! After step 3 each `ends[v]` has come down to the start of `v`'s row, so the
//! counter array *is* the offset array: no copy, no second N-sized array.
//! Memory: `8 (N + 1)` bytes of offsets and `4 * 2 * M` bytes of targets.

use crate::Parents;
use generator::{Edge, EdgeList, Vertex};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Edge tuples per parallel work item in construction.
const EDGE_GRAIN: usize = 1 << 12;
/// Entries per block of the parallel prefix sum.
const SCAN_BLOCK: usize = 1 << 16;

/// An undirected graph in compressed sparse rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<Vertex>,
}

impl Csr {
    /// Kernel 1: builds the graph of `edges`. Parallel on the current pool.
    pub fn from_edge_list(edges: &EdgeList) -> Csr {
        Csr::build(edges.num_vertices(), edges.edges())
    }

    /// Builds the graph of `edges` over `num_vertices` vertices; every id
    /// must be below `num_vertices` (panics otherwise).
    pub fn build(num_vertices: usize, edges: &[Edge]) -> Csr {
        let ends: Vec<AtomicU64> = (0..=num_vertices)
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect();
        for_each_arc(edges, &ends, |source, _| {
            ends[source as usize].fetch_add(1, Relaxed);
        });

        let mut ends: Vec<u64> = ends.into_iter().map(AtomicU64::into_inner).collect();
        inclusive_prefix_sum(&mut ends[..num_vertices]);
        let num_arcs = num_vertices.checked_sub(1).map_or(0, |last| ends[last]);
        ends[num_vertices] = num_arcs;
        let ends: Vec<AtomicU64> = ends.into_iter().map(AtomicU64::new).collect();

        let num_arcs = usize::try_from(num_arcs).expect("arcs fit in memory");
        let targets: Vec<AtomicU32> = (0..num_arcs)
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        for_each_arc(edges, &ends, |source, target| {
            let slot = ends[source as usize].fetch_sub(1, Relaxed) - 1;
            targets[usize::try_from(slot).expect("slot in memory")].store(target, Relaxed);
        });

        Csr {
            offsets: ends.into_iter().map(AtomicU64::into_inner).collect(),
            targets: targets.into_iter().map(AtomicU32::into_inner).collect(),
        }
    }

    /// Peak bytes of building, and then holding, the graph of `num_edges`
    /// tuples over `num_vertices` vertices: `8 (N + 1)` of offsets and 4 per
    /// arc, two arcs per tuple (fewer with self-loops, so an upper bound).
    /// The atomic arrays of construction become the final arrays in place,
    /// so building needs no more than holding.
    pub fn bytes_for(num_vertices: u64, num_edges: u64) -> u64 {
        8 * (num_vertices + 1) + 2 * 4 * num_edges
    }

    /// `N`.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Directed entries: twice the tuples that are not self-loops.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// Heap bytes of the offsets and targets: what a clone copies.
    pub fn heap_bytes(&self) -> u64 {
        (self.offsets.len() * size_of::<u64>() + self.targets.len() * size_of::<Vertex>()) as u64
    }

    /// The neighbours of `v`, one per arc (duplicates repeat). O(1).
    #[inline]
    pub fn neighbors(&self, v: Vertex) -> &[Vertex] {
        let v = v as usize;
        // Offsets are at most num_arcs, which is a usize.
        #[allow(clippy::cast_possible_truncation)]
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The number of arcs leaving `v`. O(1).
    #[inline]
    pub fn degree(&self, v: Vertex) -> u64 {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The search's nedge from the graph: half the degree sum of the reached
    /// vertices. For a valid BFS tree every non-self-loop tuple has both ends
    /// reached or neither, so this equals the reference rule (tuples,
    /// duplicates included, self-loops excluded, with an end in the searched
    /// component). The validator counts the same figure from the edge list
    /// independently and compares (check 6). O(N), parallel.
    pub fn nedge(&self, parents: &Parents) -> u64 {
        let n = Vertex::try_from(self.num_vertices()).expect("ids fit Vertex");
        let arcs: u64 = (0..n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .filter(|&v| parents.is_reached(v))
            .map(|v| self.degree(v))
            .sum();
        arcs / 2
    }
}

/// Calls `f(source, target)` for both directions of every tuple that is not
/// a self-loop, in parallel. `rows` holds the per-vertex slot `f` touches for
/// a source; the slots of the tuple 16 ahead are prefetched (kernel 1 at
/// SCALE 20 on 2 threads: counting 133 to 107 ms, placing 333 to 275 ms).
fn for_each_arc<T>(edges: &[Edge], rows: &[T], f: impl Fn(Vertex, Vertex) + Sync)
where
    T: Sync,
{
    const AHEAD: usize = 16;
    edges.par_chunks(EDGE_GRAIN).for_each(|chunk| {
        for (i, e) in chunk.iter().enumerate() {
            if let Some(ahead) = chunk.get(i + AHEAD) {
                prefetch(&rows[ahead.u as usize]);
                prefetch(&rows[ahead.v as usize]);
            }
            if !e.is_self_loop() {
                f(e.u, e.v);
                f(e.v, e.u);
            }
        }
    });
}

/// Replaces each value by the sum of itself and all before it. Parallel:
/// blocks scan locally, then each adds the total of the blocks before it.
fn inclusive_prefix_sum(values: &mut [u64]) {
    let block_totals: Vec<u64> = values
        .par_chunks_mut(SCAN_BLOCK)
        .map(|block| {
            let mut sum = 0;
            for x in block.iter_mut() {
                sum += *x;
                *x = sum;
            }
            sum
        })
        .collect();
    let carries: Vec<u64> = block_totals
        .iter()
        .scan(0, |carry, total| {
            let before = *carry;
            *carry += total;
            Some(before)
        })
        .collect();
    values
        .par_chunks_mut(SCAN_BLOCK)
        .zip(carries)
        .skip(1)
        .for_each(|(block, carry)| block.iter_mut().for_each(|x| *x += carry));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, pairs: &[(u32, u32)]) -> Csr {
        let edges: Vec<Edge> = pairs.iter().map(|&(u, v)| Edge::new(u, v)).collect();
        Csr::build(n, &edges)
    }

    fn sorted_neighbors(g: &Csr, v: u32) -> Vec<u32> {
        let mut n = g.neighbors(v).to_vec();
        n.sort_unstable();
        n
    }

    #[test]
    fn both_directions_kept_self_loops_dropped_duplicates_kept() {
        let g = graph(4, &[(0, 1), (1, 2), (2, 2), (0, 1), (3, 3)]);
        assert_eq!(g.num_vertices(), 4);
        assert_eq!(g.num_arcs(), 6);
        assert_eq!(sorted_neighbors(&g, 0), [1, 1]);
        assert_eq!(sorted_neighbors(&g, 1), [0, 0, 2]);
        assert_eq!(sorted_neighbors(&g, 2), [1]);
        assert!(g.neighbors(3).is_empty());
        assert_eq!(g.degree(1), 3);
    }

    #[test]
    fn empty_graphs_build() {
        assert_eq!(graph(0, &[]).num_vertices(), 0);
        let g = graph(3, &[]);
        assert_eq!(g.num_arcs(), 0);
        assert!(g.neighbors(2).is_empty());
    }

    #[test]
    fn prefix_sum_spans_blocks() {
        let mut values: Vec<u64> = (0..3 * SCAN_BLOCK as u64 + 5).collect();
        let expected: Vec<u64> = values
            .iter()
            .scan(0, |s, x| {
                *s += x;
                Some(*s)
            })
            .collect();
        inclusive_prefix_sum(&mut values);
        assert_eq!(values, expected);
    }

    #[test]
    fn build_matches_a_sequential_adjacency_on_a_generated_graph() {
        let edges =
            generator::EdgeGenerator::generate(&generator::Kronecker::new(11, 8, 3).unwrap());
        let g = Csr::from_edge_list(&edges);
        let mut expected = vec![Vec::new(); edges.num_vertices()];
        for e in edges.edges().iter().filter(|e| !e.is_self_loop()) {
            expected[e.u as usize].push(e.v);
            expected[e.v as usize].push(e.u);
        }
        for (v, mut want) in expected.into_iter().enumerate() {
            want.sort_unstable();
            assert_eq!(sorted_neighbors(&g, v as u32), want, "vertex {v}");
        }
    }
}
