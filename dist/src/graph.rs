//! Distributed kernel 1: `LocalGraph`, one rank's rows of the graph.
//!
//! Every tuple `(u, v)` that is not a self-loop becomes two arcs, `u -> v`
//! sent to the owner of `u` and `v -> u` sent to the owner of `v` (a rank
//! may send to itself). Each rank keeps the rows of the vertices it owns
//! in compressed sparse rows, with the targets as global ids of type `I`
//! (`u32`, or `u64` when `N` exceeds 2^32 or a run forces wide ids).
//!
//! Propagation blocking, as in the single-process build (kernels'
//! `csr.rs`), with the messages in the middle. A rank's vertices are cut
//! into blocks of `2^b` rows; a block's arcs have a *region* of `targets`.
//! 1. count: each rank counts its arcs per block of every rank (a local
//!    pass; `N / 2^b` counters) and sends each rank its blocks' counts (one
//!    all-to-all of `4 N / 2^b` bytes in all), so every rank knows its
//!    regions, and inside each region a slice per source rank;
//! 2. exchange: the tuples go out in rounds of at most [`ROUND_TUPLES`]
//!    (bounded buffers), each arc packed by its sender as `target << b |
//!    row offset` (`size_of::<I>()` bytes) and routed by block, so each
//!    destination's run arrives grouped by block in order; with the
//!    round's counts per block (sent first), the receiver copies each
//!    run into its source's slice of the block's region: no per-arc work;
//! 3. sort: each region is counting-sorted by row offset through a
//!    scratch buffer, in parallel over blocks, which unpacks the targets
//!    and gives the block's `offsets`.
//!
//! Peak memory per rank: its rows (`8 (N/P + 1) + size_of::<I>() * arcs`,
//! the regions being the final `targets`), a round's buffers and a sort
//! scratch per worker; never a second copy of its arcs. The arcs of a row
//! are in the order source ranks, then tuples: fixed for a given `P`.

use crate::comm::{Comm, Reduce, all_reduce, exchange_into, exchange_known, exchange_known_into};
use crate::route::{Outbox, Sends, route_into};
use crate::{Id, Partition};
use generator::Tuple;
use rayon::prelude::*;

/// Tuples a rank sends per round of kernel 1 (each makes up to two arcs).
pub const ROUND_TUPLES: usize = 1 << 20;

/// The most rows a block holds, as a power of two: its region (32 arcs a
/// row on average) and its sort scratch fit in L2.
const MAX_BLOCK_BITS: u32 = 11;

/// One rank's rows: the neighbours of each vertex it owns, as global ids.
#[derive(Debug)]
pub struct LocalGraph<I> {
    part: Partition,
    rank: usize,
    offsets: Vec<u64>,
    targets: Vec<I>,
}

/// How every rank's rows are cut into blocks, numbered over all ranks in
/// rank order.
struct Blocks {
    bits: u32,
    /// The global number of each rank's first block, and the total last.
    first: Vec<usize>,
}

impl Blocks {
    fn new<I: Id>(part: &Partition) -> Self {
        let id_bits = u64::BITS - part.num_vertices().saturating_sub(1).leading_zeros();
        let bits = MAX_BLOCK_BITS.min(I::BITS.saturating_sub(id_bits));
        let mut first = vec![0];
        for r in 0..part.ranks() {
            first.push(first[r] + part.count(r).div_ceil(1 << bits));
        }
        Blocks { bits, first }
    }

    /// The global block of the vertex at `(owner, local)`
    /// ([`Partition::place`]).
    #[inline]
    fn of(&self, (owner, local): (usize, usize)) -> usize {
        self.first[owner] + (local >> self.bits)
    }

    /// How many blocks rank `r` has.
    fn count(&self, r: usize) -> usize {
        self.first[r + 1] - self.first[r]
    }
}

impl<I: Id> LocalGraph<I> {
    /// Kernel 1 across the ranks of `comm`: each rank passes its share of
    /// the tuples (any share; ids below `N`; [`Edge`](generator::Edge)s
    /// or [`WideEdge`](generator::WideEdge)s) and gets the rows it owns.
    /// Collective.
    pub fn build<T: Tuple>(comm: &dyn Comm, part: Partition, tuples: &[T]) -> Self {
        let (rank, ranks) = (comm.rank(), comm.size());
        let rows = part.count(rank);
        let blocks = Blocks::new::<I>(&part);
        let low = (1u64 << blocks.bits) - 1;

        // 1. count: this rank's arcs per block of every rank, sent to the
        // owners; `mine[s][k]`: arcs source s sends to my block k.
        let counts = tuples
            .par_chunks(ROUND_TUPLES)
            .map(|chunk| {
                let mut counts = vec![0u64; blocks.first[ranks]];
                for (u, v) in chunk.iter().map(|e| e.ends()).filter(|(u, v)| u != v) {
                    counts[blocks.of(part.place(u))] += 1;
                    counts[blocks.of(part.place(v))] += 1;
                }
                counts
            })
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            })
            .unwrap_or_else(|| vec![0; blocks.first[ranks]]);
        let per_rank: Vec<usize> = (0..ranks).map(|r| blocks.count(r)).collect();
        let mine_blocks = blocks.count(rank);
        let mine = exchange_known(comm, &counts, &per_rank, &vec![mine_blocks; ranks]);
        drop(counts);

        // Regions (block-major), a slice per source inside each; `cursor`
        // is source-major like `mine`.
        let mut cursor = vec![0u64; mine.len()];
        let mut block_start = Vec::with_capacity(mine_blocks + 1);
        let mut at = 0u64;
        for k in 0..mine_blocks {
            block_start.push(at);
            for s in 0..ranks {
                cursor[s * mine_blocks + k] = at;
                at += mine[s * mine_blocks + k];
            }
        }
        block_start.push(at);
        let total = usize::try_from(at).expect("a rank's arcs fit memory");
        let mut targets: Vec<I> = bytemuck::zeroed_vec(total);

        // 2. exchange, in rounds agreed on by every rank.
        let rounds = all_reduce(
            comm,
            [tuples.len().div_ceil(ROUND_TUPLES) as u64],
            Reduce::Max,
        )[0];
        // Arcs are routed by global block (so each destination's run comes
        // grouped by its blocks, in order), packed by the sender; a round's
        // counts per block travel first, then the arcs.
        let (mut out, mut received) = (Outbox::default(), Vec::new());
        let mut round_counts: Vec<u64> = Vec::new();
        for i in 0..rounds {
            let i = usize::try_from(i).expect("a round index");
            let start = (i * ROUND_TUPLES).min(tuples.len());
            let round = &tuples[start..(start + ROUND_TUPLES).min(tuples.len())];
            route_into(round, blocks.first[ranks], &mut out, |e| {
                let (u, v) = e.ends();
                if u == v {
                    return Sends::none();
                }
                let arc = |s: u64, t: u64| {
                    let place = part.place(s);
                    let packed = t << blocks.bits | (place.1 as u64 & low);
                    (blocks.of(place), I::from_u64(packed))
                };
                let ((bu, au), (bv, av)) = (arc(u, v), arc(v, u));
                Sends::two(bu, au, bv, av)
            });
            let per_block: Vec<u64> = out.counts.iter().map(|&c| c as u64).collect();
            exchange_known_into(
                comm,
                &per_block,
                &per_rank,
                &vec![mine_blocks; ranks],
                &mut round_counts,
            );
            let per_dest: Vec<usize> = (0..ranks)
                .map(|d| {
                    out.counts[blocks.first[d]..blocks.first[d + 1]]
                        .iter()
                        .sum()
                })
                .collect();
            exchange_into(comm, &out.items, &per_dest, &mut received);
            // Each source's run, block by block, behind that source's
            // slice of each region.
            let mut at = 0;
            for (slot, &count) in cursor.iter_mut().zip(&round_counts) {
                let count = usize::try_from(count).expect("in memory");
                let to = usize::try_from(*slot).expect("in memory");
                targets[to..to + count].copy_from_slice(&received[at..at + count]);
                *slot += count as u64;
                at += count;
            }
        }
        drop((out, received));

        // 3. sort each region by row offset.
        let mut offsets = vec![0u64; rows + 1];
        let mut regions = Vec::with_capacity(mine_blocks);
        let mut rest = targets.as_mut_slice();
        for k in 0..mine_blocks {
            let len = usize::try_from(block_start[k + 1] - block_start[k]).expect("in memory");
            let (region, tail) = rest.split_at_mut(len);
            regions.push((region, block_start[k]));
            rest = tail;
        }
        offsets[1..]
            .par_chunks_mut(1 << blocks.bits)
            .zip(regions)
            .for_each_init(Vec::new, |scratch, (ends, (region, start))| {
                sort_region(region, ends, start, blocks.bits, scratch);
            });
        LocalGraph {
            part,
            rank,
            offsets,
            targets,
        }
    }
}

/// Counting-sorts one block's region (`target << bits | row offset`) by
/// row offset through `scratch`, unpacking the targets, and writes `ends[r]
/// = start + the end of row r` for the block's rows.
fn sort_region<I: Id>(
    region: &mut [I],
    ends: &mut [u64],
    start: u64,
    bits: u32,
    scratch: &mut Vec<I>,
) {
    let low = (1u64 << bits) - 1;
    let mut next = vec![0usize; ends.len()];
    for arc in region.iter() {
        next[usize::try_from(arc.to_u64() & low).expect("a row offset")] += 1;
    }
    let mut sum = 0;
    for (n, end) in next.iter_mut().zip(ends.iter_mut()) {
        let count = *n;
        *n = sum;
        sum += count;
        *end = start + sum as u64;
    }
    scratch.clear();
    scratch.resize(region.len(), I::default());
    for arc in region.iter() {
        let a = arc.to_u64();
        let row = &mut next[usize::try_from(a & low).expect("a row offset")];
        scratch[*row] = I::from_u64(a >> bits);
        *row += 1;
    }
    region.copy_from_slice(scratch);
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

    /// About the most bytes a rank's rows and kernel 1's buffers take, for
    /// `arcs` arcs on `rows` vertices: the rows, a round's outgoing and
    /// incoming arcs (two `[I; 2]` per tuple each way), and a sort scratch
    /// per worker (a typical region: 64 arcs a row of a block; a hub's
    /// region takes more).
    pub fn bytes_for(rows: u64, arcs: u64) -> u64 {
        let id = size_of::<I>() as u64;
        let round = 2 * 2 * 2 * id * ROUND_TUPLES as u64;
        let scratch = (rayon::current_num_threads() as u64 * id * 64) << MAX_BLOCK_BITS;
        8 * (rows + 1) + id * arcs + round + scratch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ThreadRanks;
    use generator::{Edge, EdgeGenerator, Kronecker, WideEdge};
    use kernels::Csr;

    fn widen(e: &Edge) -> WideEdge {
        WideEdge::from_ends(e.u.into(), e.v.into())
    }

    /// Guards kernel 1 across ranks: for P = 1..4 every rank's rows hold
    /// exactly the neighbours the single-process CSR gives its vertices
    /// (as multisets; the order within a row may differ), with u32 ids from
    /// 32-bit tuples and u64 ids from 64-bit tuples.
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
                let wide: Vec<WideEdge> = share(c.rank()).iter().map(widen).collect();
                let graph = LocalGraph::<u64>::build(c, part, &wide);
                let rows = (0..graph.num_rows())
                    .map(|r| graph.neighbors(r).to_vec())
                    .collect();
                (graph.first(), rows)
            }));
        }
    }
}
