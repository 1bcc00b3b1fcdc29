//! Block order: the input tuples permuted in place so that the edge pass
//! (`edges.rs`) finds both cells of consecutive tuples in small ranges.
//!
//! Tuples are sorted by (source block, target block), blocks of
//! [`SOURCE_BLOCK`] and [`TARGET_BLOCK`] vertices: a run of tuples reads
//! the cells of one 128 KiB source range (in L2) and of one 8 KiB target
//! range (in L1) at a time, where the generated order reads two random
//! cells of the whole array. A permutation of the tuples is the same input:
//! the validator still checks every tuple, and positions in its errors are
//! positions in the permuted list.
//!
//! Cost: one parallel in-place sort (rayon's unstable quicksort; no memory
//! besides the tuples). Its result depends only on the tuples, never on the
//! thread count. Measured at SCALE 20 on 2 threads (AMD EPYC): the sort
//! took 0.25 s (`GRAPH500_BENCH_SCALE=20 cargo bench --bench pipeline --
//! block_order`) and the mean validation of `graph500 --scale 20 --keys 64`
//! fell from 100.3 to 77.3 ms (alternating runs), so it pays after about
//! 11 validations of one graph.

use generator::Edge;
use rayon::slice::ParallelSliceMut;

/// Vertices per source block (`2^16`: 128 KiB of 2-byte cells).
pub(crate) const SOURCE_BLOCK: u32 = 1 << 16;
/// Vertices per target block (`2^12`: 8 KiB of 2-byte cells).
pub(crate) const TARGET_BLOCK: u32 = 1 << 12;

/// Permutes `tuples` into block order, in place. Parallel on the current
/// rayon pool; deterministic.
pub fn block_order(tuples: &mut [Edge]) {
    tuples.par_sort_unstable_by_key(block_key);
}

/// The (source block, target block) of a tuple.
fn block_key(e: &Edge) -> (u32, u32) {
    (e.u / SOURCE_BLOCK, e.v / TARGET_BLOCK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuples(n: u32, m: u32) -> Vec<Edge> {
        // A scattered but fixed sequence of tuples over n vertices.
        (0..m)
            .map(|i| Edge {
                u: i.wrapping_mul(2_654_435_761) % n,
                v: i.wrapping_mul(40_503).wrapping_add(7) % n,
            })
            .collect()
    }

    #[test]
    fn block_order_is_a_permutation_sorted_by_blocks() {
        let original = tuples(1 << 18, 100_000);
        let mut blocked = original.clone();
        block_order(&mut blocked);
        assert!(
            blocked
                .windows(2)
                .all(|w| block_key(&w[0]) <= block_key(&w[1]))
        );
        let sorted = |mut t: Vec<Edge>| {
            t.sort_unstable_by_key(|e| (e.u, e.v));
            t
        };
        assert_eq!(sorted(blocked), sorted(original));
    }

    #[test]
    fn block_order_is_the_same_for_any_thread_count() {
        let original = tuples(1 << 18, 200_000);
        let run = |threads| {
            par::in_pool(threads, || {
                let mut t = original.clone();
                block_order(&mut t);
                t
            })
            .unwrap()
        };
        let one = run(1);
        assert_eq!(run(2), one);
        assert_eq!(run(3), one);
    }
}
