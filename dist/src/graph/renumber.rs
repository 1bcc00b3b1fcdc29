//! Kernel 1's renumbering of each rank's rows by degree, for kernel 3
//! over ranks (`WeightedLocalGraph`): a search's state is indexed by the
//! new ids, so the few vertices most arcs lead to (the hubs) sit together
//! in cache at the front of each rank's arrays, where the original ids
//! scatter them over all of it (as one process's relabelling, kernels'
//! `weighted/relabel.rs`).
//!
//! Owners stay those of the 1-D block [`Partition`] (by original id); only
//! a vertex's index among its owner's rows changes. Before kernel 1's
//! exchange, so that senders pack rows and targets already renumbered and
//! the build stays one pass:
//! 1. each rank counts its tuples' arcs per vertex (`N` counters) and sends
//!    each owner its vertices' counts (one all-to-all, `4 N (P - 1) / P`
//!    bytes a rank);
//! 2. each owner sums them into degrees and orders its rows by degree,
//!    highest first, ties by original id (a stable counting sort: fixed
//!    for a given `P`), and from the same counts gets what each source
//!    sends each of its new blocks (the block counts of the build);
//! 3. one all-gather of every rank's new local index of each of its
//!    vertices (`4 N / P` bytes from each rank to every other) gives every
//!    rank the table it packs arcs with ([`Plan::ends_of`]).
//!
//! Kept after the build ([`Renumbered`]): the original id of every new
//! global id (`size_of::<I>() N` bytes a rank, for parents found in a
//! search, which may be any rank's vertex) and this rank's new index of
//! each of its original rows (`4 N / P` bytes).

use crate::comm::{Comm, all_gather, exchange_known};
use crate::{Id, Partition};
use generator::Tuple;
use par::Backend;
use par::hint::prefetch;

/// Tuples per counting task (each task has its own `N` counters, so a few
/// per thread at most).
const COUNT_CHUNK: usize = 1 << 22;

/// How many tuples ahead [`Plan::ends_of`] prefetches the renumbering of
/// both ends: the lookups are random reads of an `N`-entry table that
/// would otherwise stall each tuple in turn.
const PLAN_AHEAD: usize = 16;
/// Tuples per task of [`Plan::ends_of`].
const ENDS_GRAIN: usize = 1 << 14;

/// The renumbering as kernel 1 packs with it.
pub(super) struct Plan {
    /// Every vertex's new index among its owner's rows, by original id.
    locals: Vec<u32>,
    /// Arcs each source rank sends each of this rank's new blocks
    /// (source-major).
    pub(super) mine: Vec<u64>,
}

/// What a renumbered graph keeps: the original global id of each new
/// global id, and this rank's new local index of each original local one.
#[derive(Debug)]
pub(super) struct Renumbered<I> {
    original: Vec<I>,
    new_local: Vec<u32>,
}

impl Plan {
    /// Steps 1-3 of the module comment over this rank's `tuples`, for blocks
    /// of `2^bits` rows. Collective: an all-to-all and an all-gather.
    pub(super) fn new<T: Tuple>(
        backend: Backend,
        comm: &dyn Comm,
        part: &Partition,
        tuples: &[T],
        bits: u32,
    ) -> Self {
        let n = usize::try_from(part.num_vertices()).expect("N counters fit memory");
        let (rank, ranks) = (comm.rank(), comm.size());
        let chunk = COUNT_CHUNK.max(tuples.len().div_ceil(backend.threads().max(1)));
        let counts = backend
            .map_ranges(tuples.len(), chunk, |r| {
                let mut counts = vec![0u32; n];
                for (u, v) in tuples[r].iter().map(|e| e.ends()).filter(|(u, v)| u != v) {
                    #[allow(clippy::cast_possible_truncation)] // below N
                    let (u, v) = (u as usize, v as usize);
                    counts[u] += 1;
                    counts[v] += 1;
                }
                counts
            })
            .into_iter()
            .reduce(|mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            })
            .unwrap_or_else(|| vec![0; n]);
        let shares: Vec<usize> = (0..ranks).map(|r| part.count(r)).collect();
        let rows = shares[rank];
        let from = exchange_known(comm, &counts, &shares, &vec![rows; ranks]);
        drop(counts);

        let mut degree = vec![0u64; rows];
        for source in from.chunks_exact(rows.max(1)).take(ranks) {
            degree
                .iter_mut()
                .zip(source)
                .for_each(|(d, &c)| *d += u64::from(c));
        }
        let new_local = by_degree(&degree);
        drop(degree);

        let my_blocks = rows.div_ceil(1 << bits);
        let mut mine = vec![0u64; ranks * my_blocks];
        if rows > 0 {
            for (s, source) in from.chunks_exact(rows).enumerate() {
                let blocks = &mut mine[s * my_blocks..(s + 1) * my_blocks];
                for (&c, &x) in source.iter().zip(&new_local) {
                    blocks[(x >> bits) as usize] += u64::from(c);
                }
            }
        }
        drop(from);
        let mut locals = vec![0u32; n];
        all_gather(comm, &new_local, &shares, &mut locals);
        Plan { locals, mine }
    }

    /// The new local index at its owner of each end of each of `tuples`,
    /// into `ends` (resized; self-loops too): one pass of lookups,
    /// prefetched ahead, in parallel.
    pub(super) fn ends_of<T: Tuple>(
        &self,
        backend: Backend,
        tuples: &[T],
        ends: &mut Vec<[u32; 2]>,
    ) {
        ends.resize(tuples.len(), [0; 2]);
        let pieces: Vec<_> = ends
            .chunks_mut(ENDS_GRAIN)
            .zip(tuples.chunks(ENDS_GRAIN))
            .collect();
        backend.map(pieces, |(ends, tuples)| {
            for (j, (new, e)) in ends.iter_mut().zip(tuples).enumerate() {
                if let Some(ahead) = tuples.get(j + PLAN_AHEAD) {
                    let (u, v) = ahead.ends();
                    #[allow(clippy::cast_possible_truncation)] // below N
                    let (u, v) = (u as usize, v as usize);
                    prefetch(&self.locals[u]);
                    prefetch(&self.locals[v]);
                }
                let (u, v) = e.ends();
                #[allow(clippy::cast_possible_truncation)] // below N
                let (u, v) = (u as usize, v as usize);
                *new = [self.locals[u], self.locals[v]];
            }
        });
    }

    /// What the built graph of `rank` keeps.
    pub(super) fn kept<I: Id>(self, part: &Partition, rank: usize) -> Renumbered<I> {
        let mut original = vec![I::default(); self.locals.len()];
        for r in 0..part.ranks() {
            let first = part.first(r);
            #[allow(clippy::cast_possible_truncation)] // below N
            let at = first as usize;
            for (x, &j) in self.locals[at..at + part.count(r)].iter().enumerate() {
                original[at + j as usize] = I::from_u64(first + x as u64);
            }
        }
        #[allow(clippy::cast_possible_truncation)] // below N
        let at = part.first(rank) as usize;
        let new_local = self.locals[at..at + part.count(rank)].to_vec();
        Renumbered {
            original,
            new_local,
        }
    }
}

impl<I: Id> Renumbered<I> {
    /// The original global id of new global id `v`.
    #[inline]
    pub(super) fn original(&self, v: u64) -> u64 {
        #[allow(clippy::cast_possible_truncation)] // below N
        let v = v as usize;
        self.original[v].to_u64()
    }

    /// Starts loading the original id of new global id `v`.
    #[inline]
    pub(super) fn prefetch(&self, v: u64) {
        #[allow(clippy::cast_possible_truncation)] // below N
        prefetch(&self.original[v as usize]);
    }

    /// This rank's new local index of its original local index `x`.
    #[inline]
    pub(super) fn new_local(&self, x: usize) -> usize {
        self.new_local[x] as usize
    }

    /// Heap bytes kept.
    pub(super) fn heap_bytes(&self) -> u64 {
        (self.original.len() * size_of::<I>() + self.new_local.len() * 4) as u64
    }
}

/// The new index of each row of degrees `degree`: rows by degree, highest
/// first, ties in index order (a stable counting sort over the distinct
/// degrees, capped where few rows are so heavy that their order among
/// themselves hardly matters: `O(rows + cap)`).
fn by_degree(degree: &[u64]) -> Vec<u32> {
    const CAP: usize = 1 << 16;
    let key = |d: u64| CAP - usize::try_from(d).map_or(CAP, |d| d.min(CAP));
    let mut next = vec![0u32; CAP + 2];
    for &d in degree {
        next[key(d) + 1] += 1;
    }
    for k in 1..next.len() {
        next[k] += next[k - 1];
    }
    degree
        .iter()
        .map(|&d| {
            let at = &mut next[key(d)];
            *at += 1;
            *at - 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::by_degree;

    #[test]
    fn rows_are_ordered_by_degree_highest_first_ties_by_index() {
        let degree = [3, 0, 7, 3, 1 << 20, 7, 0];
        assert_eq!(by_degree(&degree), vec![3, 5, 1, 4, 0, 2, 6]);
        assert!(by_degree(&[]).is_empty());
    }
}
