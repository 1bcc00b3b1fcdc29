//! Kernel 1: `Csr`, the graph in compressed sparse rows.
//!
//! `targets[offsets[v]..offsets[v + 1]]` are the neighbours of `v`. Every
//! edge tuple `(u, v)` with `u != v` appears twice, as `u -> v` and `v -> u`;
//! self-loops are dropped, duplicate tuples kept (as the reference does).
//! Neighbour order within a row is unspecified.
//!
//! Construction, with no locked read-modify-write per arc (on x86 each one
//! waits for the store buffer to drain, and the scattered stores of kernel 1
//! miss the cache, so every arc paid a full memory latency):
//! 1. the tuples are cut into `P` contiguous parts, one per worker (at most
//!    [`MAX_PARTS`]); each part counts its arcs per source vertex into its
//!    own `u32` array with plain increments;
//! 2. per vertex, the parts' counts become each part's first position inside
//!    the vertex's row, and their sum the row's length; a prefix sum of the
//!    lengths gives the offsets;
//! 3. each part places its arcs at `offsets[source] + cursor[source]`,
//!    bumping its own cursor: every slot of `targets` is written by exactly
//!    one part, so a plain (relaxed) store suffices.
//!
//! Both passes prefetch the per-vertex slots of the tuple 16 ahead.
//! Memory: `8 (N + 1)` bytes of offsets, `4 * 2 * M` bytes of targets, and
//! during construction `4 N P` bytes of counts (`P` at most `M / 2N`, so at
//! most 2 bytes per tuple).

use crate::Parents;
use generator::{Edge, EdgeList, Vertex};
use par::hint::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The most parts construction cuts the tuples into; beyond this many
/// workers, more parts would cost more memory (`4 N` each) than they save.
pub(crate) const MAX_PARTS: usize = 16;
/// Vertices per parallel work item when the counts become cursors.
const VERTEX_GRAIN: usize = 1 << 14;
/// Entries per block of the parallel prefix sum.
const SCAN_BLOCK: usize = 1 << 16;
/// Tuples ahead whose per-vertex slots are prefetched.
const AHEAD: usize = 16;

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
    /// must be below `num_vertices` (panics otherwise). Parallel on the
    /// current pool, in at most [`Csr::parts`] parts.
    pub fn build(num_vertices: usize, edges: &[Edge]) -> Csr {
        let parts = Csr::parts(num_vertices, edges.len(), rayon::current_num_threads());
        let pieces: Vec<&[Edge]> = edges.chunks(edges.len().div_ceil(parts).max(1)).collect();
        let mut cursors: Vec<Vec<u32>> = pieces
            .par_iter()
            .map(|piece| count_arcs(piece, num_vertices))
            .collect();
        let offsets = row_offsets(&mut cursors, num_vertices);
        let num_arcs = usize::try_from(offsets[num_vertices]).expect("arcs fit in memory");
        let targets: Vec<AtomicU32> = (0..num_arcs)
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        pieces
            .par_iter()
            .zip(cursors.par_iter_mut())
            .for_each(|(piece, cursor)| place_arcs(piece, &offsets, cursor, &targets));
        Csr {
            offsets,
            targets: targets.into_iter().map(AtomicU32::into_inner).collect(),
        }
    }

    /// How many parts construction cuts `num_edges` tuples into for
    /// `workers` workers: one per worker, at most `MAX_PARTS` (16) and at most
    /// `M / 2N` (so the counts take at most 2 bytes per tuple), at least
    /// one, and enough that no part holds `2^31` tuples (its counts are
    /// `u32`).
    pub fn parts(num_vertices: usize, num_edges: usize, workers: usize) -> usize {
        let by_memory = num_edges / (2 * num_vertices.max(1));
        let by_width = num_edges.div_ceil(1 << 31);
        workers.min(MAX_PARTS).min(by_memory).max(by_width).max(1)
    }

    /// Peak bytes of building, and then holding, the graph of `num_edges`
    /// tuples over `num_vertices` vertices: `8 (N + 1)` of offsets, 4 per
    /// arc (two arcs per tuple; fewer with self-loops, so an upper bound),
    /// and while building `4 N` per part for the most parts any worker count
    /// gives ([`Csr::parts`]).
    pub fn bytes_for(num_vertices: u64, num_edges: u64) -> u64 {
        let as_usize = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        let parts = Csr::parts(as_usize(num_vertices), as_usize(num_edges), MAX_PARTS) as u64;
        8 * (num_vertices + 1) + 2 * 4 * num_edges + 4 * num_vertices * parts
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

/// Step 1 for one part: its arcs per source vertex. Self-loops are not
/// arcs.
fn count_arcs(piece: &[Edge], num_vertices: usize) -> Vec<u32> {
    let mut counts = vec![0u32; num_vertices];
    for (i, e) in piece.iter().enumerate() {
        if let Some(ahead) = piece.get(i + AHEAD) {
            prefetch(&counts[ahead.u as usize]);
            prefetch(&counts[ahead.v as usize]);
        }
        if !e.is_self_loop() {
            counts[e.u as usize] += 1;
            counts[e.v as usize] += 1;
        }
    }
    counts
}

/// Step 2: turns every part's counts into its first position inside each
/// row (the counts of the parts before it) and returns the `N + 1` row
/// offsets. Parallel over blocks of vertices.
fn row_offsets(cursors: &mut [Vec<u32>], num_vertices: usize) -> Vec<u64> {
    let mut offsets = vec![0u64; num_vertices + 1];
    // Block b of every part's array, gathered so one task owns them all.
    let mut blocks: Vec<Vec<&mut [u32]>> = Vec::new();
    for part in cursors.iter_mut() {
        for (b, block) in part.chunks_mut(VERTEX_GRAIN).enumerate() {
            if b == blocks.len() {
                blocks.push(Vec::new());
            }
            blocks[b].push(block);
        }
    }
    offsets[1..]
        .par_chunks_mut(VERTEX_GRAIN)
        .zip(blocks)
        .for_each(|(lengths, mut parts)| {
            for (i, length) in lengths.iter_mut().enumerate() {
                let mut row = 0u64;
                for part in &mut parts {
                    let count = part[i];
                    part[i] = u32::try_from(row).expect("a part's position in a row fits u32");
                    row += u64::from(count);
                }
                *length = row;
            }
        });
    inclusive_prefix_sum(&mut offsets[1..]);
    offsets
}

/// Step 3 for one part: writes each arc at its source's row start plus the
/// part's cursor, which it then advances. The part owns those slots, so the
/// store needs no lock.
fn place_arcs(piece: &[Edge], offsets: &[u64], cursor: &mut [u32], targets: &[AtomicU32]) {
    for (i, e) in piece.iter().enumerate() {
        if let Some(ahead) = piece.get(i + AHEAD) {
            for x in [ahead.u as usize, ahead.v as usize] {
                prefetch(&offsets[x]);
                prefetch(&cursor[x]);
            }
        }
        if !e.is_self_loop() {
            place_arc(e.u, e.v, offsets, cursor, targets);
            place_arc(e.v, e.u, offsets, cursor, targets);
        }
    }
}

/// Writes `target` at `source`'s next free slot of this part.
#[inline]
fn place_arc(
    source: Vertex,
    target: Vertex,
    offsets: &[u64],
    cursor: &mut [u32],
    targets: &[AtomicU32],
) {
    let s = source as usize;
    let slot = offsets[s] + u64::from(cursor[s]);
    cursor[s] += 1;
    targets[usize::try_from(slot).expect("slot in memory")].store(target, Relaxed);
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
    fn rows_are_the_same_sets_for_any_number_of_parts() {
        let edges =
            generator::EdgeGenerator::generate(&generator::Kronecker::new(12, 16, 9).unwrap());
        let one = par::in_pool(1, || Csr::from_edge_list(&edges)).unwrap();
        for threads in [2, 3, 5] {
            let many = par::in_pool(threads, || Csr::from_edge_list(&edges)).unwrap();
            assert_eq!(many.offsets, one.offsets, "{threads} threads");
            for v in 0..edges.num_vertices() as u32 {
                assert_eq!(sorted_neighbors(&many, v), sorted_neighbors(&one, v));
            }
        }
    }

    #[test]
    fn a_hub_whose_arcs_span_every_part_gets_them_all() {
        // Vertex 0 meets every other vertex eight times; the parts cut the
        // list, so each holds some of the hub's arcs.
        let n = 50;
        let pairs: Vec<(u32, u32)> = (0..4)
            .flat_map(|_| (1..n).flat_map(|v| [(0, v), (v, 0)]))
            .collect();
        assert!(Csr::parts(n as usize, pairs.len(), 4) >= 3);
        let g = par::in_pool(4, || graph(n as usize, &pairs)).unwrap();
        assert_eq!(g.degree(0), 8 * u64::from(n - 1));
        let mut want: Vec<u32> = (1..n).flat_map(|v| [v; 8]).collect();
        want.sort_unstable();
        assert_eq!(sorted_neighbors(&g, 0), want);
        assert!((1..n).all(|v| sorted_neighbors(&g, v) == [0; 8]));
    }

    #[test]
    fn parts_follow_workers_within_memory_and_width() {
        assert_eq!(Csr::parts(1 << 20, 16 << 20, 2), 2);
        assert_eq!(Csr::parts(1 << 20, 16 << 20, 64), 8, "at most M / 2N");
        assert_eq!(Csr::parts(1 << 22, 3, 2), 1, "a sparse graph counts once");
        assert_eq!(Csr::parts(0, 0, 4), 1);
        assert_eq!(Csr::parts(1 << 31, 1 << 36, 1), 32, "u32 counts per part");
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
