//! Kernel 1's sort of a cell's arcs by one of their ends (`grid/graph.rs`:
//! by column for the top-down steps, by row for the bottom-up ones), a
//! counting sort in two passes whose random accesses land in cache.
//!
//! One counting pass over all the keys would write each arc to a random
//! place of the whole result through a random counter of all `keys`: two
//! cache misses an arc once the cell outgrows the caches (at SCALE 20 on
//! 2 ranks, 16 million arcs into 64 MiB through 8 MiB of counters, most
//! of the grid's kernel 1). Instead:
//! 1. *bucket*: keys are cut into buckets of `2^BUCKET_BITS`; one pass
//!    counts the arcs of each bucket, a second appends each arc's entry,
//!    with its key's offset in the bucket, to the bucket's run of a
//!    staging array (a write stream per bucket, whose open lines the
//!    caches hold);
//! 2. *sort*: each bucket's run, in parallel on the backend, is
//!    counting-sorted by that offset into the bucket's region of the
//!    result (its counters in L1, its region in L2), which also gives its
//!    rows' offsets.
//!
//! Invariants: both passes are stable, so a row lists its arcs in the
//! order of the input (fixed for a given `P`); every slot of the result
//! is written by one bucket's task through its own slice.
//!
//! Cost: O(arcs + keys); the arcs read twice and `key` taken twice an
//! arc; the staging array, `4 + size_of::<I>()` bytes an arc (8 for
//! `u32` ids), lives while the sort runs. The staging array and the
//! result are fresh and mapped before they are written
//! ([`kernels::prefault`]): a trap a page cost about a tenth of the grid's
//! kernel 1 (`docs/history-kernels.md`).

use crate::Id;
use par::Backend;

/// Keys a bucket holds, as a power of two: its counters (16 KiB) stay in
/// L1 and its region of the result (about 32 arcs a key at SCALE 20 on 2
/// ranks, 256 KiB of `u32`) in L2.
const BUCKET_BITS: u32 = 11;

/// The arcs' `entry`, grouped by `key` (below `keys`), and the offsets
/// (the rows' ends, from 0): key `k`'s entries are
/// `entries[offsets[k]..offsets[k + 1]]`, in the order of `arcs`.
pub(super) fn sort_by<I: Id>(
    backend: Backend,
    arcs: &[[I; 2]],
    keys: usize,
    key: impl Fn([I; 2]) -> usize,
    entry: impl Fn([I; 2]) -> I,
) -> (Vec<u64>, Vec<I>) {
    let width = 1usize << BUCKET_BITS;
    let buckets = keys.div_ceil(width).max(1);
    // 1. bucket.
    let mut starts = vec![0usize; buckets + 1];
    for &arc in arcs {
        starts[(key(arc) >> BUCKET_BITS) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    // Fresh arrays mapped in one call a piece, not a trap a page (the
    // 1-D build's `kernels::prefault`).
    let mut staged: Vec<(u32, I)> = bytemuck::zeroed_vec(arcs.len());
    kernels::prefault(backend, &mut staged);
    let mut fill = starts.clone();
    for &arc in arcs {
        let k = key(arc);
        let slot = &mut fill[k >> BUCKET_BITS];
        // Below 2^BUCKET_BITS.
        #[allow(clippy::cast_possible_truncation)]
        let offset = (k & (width - 1)) as u32;
        staged[*slot] = (offset, entry(arc));
        *slot += 1;
    }
    drop(fill);
    // 2. sort, each bucket into its own slices of the result.
    let mut offsets = vec![0u64; keys + 1];
    let mut entries: Vec<I> = bytemuck::zeroed_vec(arcs.len());
    kernels::prefault(backend, &mut entries);
    let mut tasks = Vec::with_capacity(buckets);
    let (mut rest, mut ends) = (&mut entries[..], &mut offsets[1..]);
    for b in 0..buckets {
        let region;
        (region, rest) = rest.split_at_mut(starts[b + 1] - starts[b]);
        let rows;
        (rows, ends) = ends.split_at_mut(width.min(keys - b * width));
        tasks.push((b, region, rows));
    }
    let (staged, starts) = (&staged, &starts);
    backend.for_each_init(
        tasks,
        || vec![0usize; width],
        |counts, (b, region, rows)| {
            let run = &staged[starts[b]..starts[b + 1]];
            let counts = &mut counts[..rows.len()];
            counts.fill(0);
            for &(offset, _) in run {
                counts[offset as usize] += 1;
            }
            let mut sum = 0;
            for (count, end) in counts.iter_mut().zip(rows.iter_mut()) {
                (*count, sum) = (sum, sum + *count);
                *end = (starts[b] + sum) as u64;
            }
            for &(offset, x) in run {
                let slot = &mut counts[offset as usize];
                region[*slot] = x;
                *slot += 1;
            }
        },
    );
    (offsets, entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the two passes against one plain counting sort: the same
    /// offsets and the same entries in the same (input) order, for keys
    /// spanning several buckets, empty keys and an empty input.
    #[test]
    fn bucketed_sort_equals_one_counting_sort() {
        let keys = 3 * (1 << BUCKET_BITS) + 17;
        let arcs: Vec<[u32; 2]> = (0..50_000u32)
            .map(|i| [i.wrapping_mul(2_654_435_761) % keys as u32, i])
            .collect();
        for backend in Backend::ALL {
            for arcs in [&arcs[..], &arcs[..0]] {
                let (offsets, entries) = sort_by(backend, arcs, keys, |a| a[0] as usize, |a| a[1]);
                let mut rows = vec![Vec::new(); keys];
                for a in arcs {
                    rows[a[0] as usize].push(a[1]);
                }
                assert_eq!(offsets.len(), keys + 1);
                for (k, row) in rows.iter().enumerate() {
                    let row_at = offsets[k] as usize..offsets[k + 1] as usize;
                    assert_eq!(&entries[row_at], &row[..], "key {k}");
                }
            }
        }
    }
}
