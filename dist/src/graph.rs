//! Distributed kernel 1: `LocalGraph`, one rank's rows of the graph.
//!
//! Every tuple `(u, v)` that is not a self-loop becomes two arcs, `u -> v`
//! sent to the owner of `u` and `v -> u` sent to the owner of `v` (a rank
//! may send to itself). Each rank keeps the rows of the vertices it owns
//! in compressed sparse rows, with the targets as global ids of type `I`
//! (`u32`, or `u64` when `N` exceeds 2^32 or a run forces wide ids).
//!
//! The tuples go out in rounds of at most [`ROUND_TUPLES`] so that the
//! send and receive buffers stay bounded, in two passes: the first sends
//! only each arc's local row (4 bytes) and the receiver counts its rows'
//! degrees, which fixes `offsets`; the second sends row and target and the
//! receiver places each arc behind its row's cursor. Peak memory per rank
//! is the rows (`8 (N/P + 1) + size_of::<I>() * arcs`) plus a round's
//! buffers, never a copy of all its arcs. The arcs of a row are in the
//! order rounds, then source ranks, then tuples: fixed for a given `P`.

use crate::comm::{Comm, Reduce, all_reduce, exchange};
use crate::route::route;
use crate::{Id, Partition};
use generator::Edge;

/// Tuples a rank sends per round of kernel 1 (each makes up to two arcs).
pub const ROUND_TUPLES: usize = 1 << 22;

/// One rank's rows: the neighbours of each vertex it owns, as global ids.
#[derive(Debug)]
pub struct LocalGraph<I> {
    part: Partition,
    rank: usize,
    offsets: Vec<u64>,
    targets: Vec<I>,
}

impl<I: Id> LocalGraph<I> {
    /// Kernel 1 across the ranks of `comm`: each rank passes its share of
    /// the tuples (any share; ids below `N`) and gets the rows it owns.
    /// Collective.
    pub fn build(comm: &dyn Comm, part: Partition, tuples: &[Edge]) -> Self {
        let rank = comm.rank();
        let ranks = comm.size();
        let rows = part.count(rank);
        let rounds = all_reduce(
            comm,
            [tuples.len().div_ceil(ROUND_TUPLES) as u64],
            Reduce::Max,
        )[0];
        let round = |i: u64| {
            let i = usize::try_from(i).expect("a round index");
            let start = (i * ROUND_TUPLES).min(tuples.len());
            &tuples[start..(start + ROUND_TUPLES).min(tuples.len())]
        };
        let arcs = |e: &Edge, push: &mut dyn FnMut(usize, (u64, u64))| {
            if !e.is_self_loop() {
                let (u, v) = (u64::from(e.u), u64::from(e.v));
                push(part.owner(u), (u, v));
                push(part.owner(v), (v, u));
            }
        };
        let local_row = |source: u64| -> u32 {
            u32::try_from(part.local(source)).expect("a rank owns fewer than 2^32 vertices")
        };

        // Pass 1: degrees.
        let mut offsets = vec![0u64; rows + 1];
        for i in 0..rounds {
            let out = route(round(i), ranks, |e, push| {
                arcs(e, &mut |r, (s, _)| push(r, local_row(s)));
            });
            let (received, _) = exchange(comm, &out.items, &out.counts);
            for row in received {
                offsets[row as usize + 1] += 1;
            }
        }
        for v in 0..rows {
            offsets[v + 1] += offsets[v];
        }

        // Pass 2: placement.
        let total = usize::try_from(offsets[rows]).expect("a rank's arcs fit memory");
        let mut targets = vec![I::from_u64(0); total];
        let mut cursor: Vec<u64> = offsets[..rows].to_vec();
        for i in 0..rounds {
            let out = route(round(i), ranks, |e, push| {
                arcs(e, &mut |r, (s, t)| push(r, (local_row(s), I::from_u64(t))));
            });
            let (rows_of, targets_of): (Vec<u32>, Vec<I>) = out.items.into_iter().unzip();
            let (received_rows, _) = exchange(comm, &rows_of, &out.counts);
            let (received_targets, _) = exchange(comm, &targets_of, &out.counts);
            for (row, target) in received_rows.into_iter().zip(received_targets) {
                let slot = &mut cursor[row as usize];
                targets[usize::try_from(*slot).expect("in memory")] = target;
                *slot += 1;
            }
        }
        LocalGraph {
            part,
            rank,
            offsets,
            targets,
        }
    }
}

impl<I: Id> LocalGraph<I> {
    /// The partition the rows follow.
    pub fn partition(&self) -> &Partition {
        &self.part
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The global id of this rank's first vertex.
    pub fn first(&self) -> u64 {
        self.part.first(self.rank)
    }

    /// The number of vertices this rank owns.
    pub fn num_rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Arcs held here (both directions of each tuple end up on the owners
    /// of their sources).
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// The neighbours (global ids) of local vertex `row`. O(1).
    #[inline]
    pub fn neighbors(&self, row: usize) -> &[I] {
        // Offsets are at most the arc count, a usize.
        #[allow(clippy::cast_possible_truncation)]
        &self.targets[self.offsets[row] as usize..self.offsets[row + 1] as usize]
    }

    /// The degree of local vertex `row`. O(1).
    #[inline]
    pub fn degree(&self, row: usize) -> u64 {
        self.offsets[row + 1] - self.offsets[row]
    }

    /// Heap bytes of the rows.
    pub fn heap_bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * size_of::<I>()) as u64
    }

    /// The most bytes a rank's rows and kernel 1's round buffers take, for
    /// `arcs` arcs on `rows` vertices.
    pub fn bytes_for(rows: u64, arcs: u64) -> u64 {
        let round = 2 * ROUND_TUPLES as u64 * (8 + 2 * (4 + size_of::<I>() as u64));
        8 * (rows + 1) * 2 + size_of::<I>() as u64 * arcs + round
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadRanks;
    use generator::{EdgeGenerator, Kronecker};
    use kernels::Csr;

    /// Guards kernel 1 across ranks: for P = 1..4 every rank's rows hold
    /// exactly the neighbours the single-process CSR gives its vertices
    /// (as multisets; the order within a row may differ), with u32 and u64 ids.
    #[test]
    fn the_ranks_rows_are_the_single_process_graph() {
        let g = Kronecker::new(10, 8, 3).unwrap();
        let list = g.generate();
        let csr = Csr::from_edge_list(&list);
        for p in 1..=4 {
            let check = |rows: Vec<(u64, Vec<Vec<u64>>)>| {
                for (first, rows) in rows {
                    for (i, mut row) in rows.into_iter().enumerate() {
                        let v = u32::try_from(first + i as u64).unwrap();
                        let mut want: Vec<u64> =
                            csr.neighbors(v).iter().map(|&t| u64::from(t)).collect();
                        row.sort_unstable();
                        want.sort_unstable();
                        assert_eq!(row, want, "P {p} vertex {v}");
                    }
                }
            };
            let share = |rank: usize| {
                let m = list.len();
                &list.edges()[m * rank / p..m * (rank + 1) / p]
            };
            let part = Partition::new(list.num_vertices() as u64, p);
            check(ThreadRanks::run(p, |c| {
                let graph = LocalGraph::<u32>::build(c, part, share(c.rank()));
                let rows = (0..graph.num_rows())
                    .map(|r| graph.neighbors(r).iter().map(|&t| t.to_u64()).collect())
                    .collect();
                (graph.first(), rows)
            }));
            check(ThreadRanks::run(p, |c| {
                let graph = LocalGraph::<u64>::build(c, part, share(c.rank()));
                let rows = (0..graph.num_rows())
                    .map(|r| graph.neighbors(r).to_vec())
                    .collect();
                (graph.first(), rows)
            }));
        }
    }
}
