//! `first_index`: a parallel scan for the lowest index matching a predicate,
//! on rayon, for the checks that report the first bad entry of a big array.

use rayon::prelude::*;

/// Indices per parallel work item of [`first_index`].
const CHUNK: usize = 1 << 14;

/// The lowest index in `0..len` for which `pred` holds, if any.
///
/// Chunks of 16,384 indices are scanned in parallel, each sequentially
/// until its first match; the lowest match wins, so the answer does not
/// depend on the thread count. Unlike rayon's `position_first`, nothing is
/// shared between items, which matters for the common case of no match:
/// the scan then runs at the speed of a plain loop.
pub fn first_index(len: usize, pred: impl Fn(usize) -> bool + Sync) -> Option<usize> {
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .filter_map(|chunk| {
            let start = chunk * CHUNK;
            (start..(start + CHUNK).min(len)).find(|&i| pred(i))
        })
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_lowest_match_across_chunks() {
        let len = 5 * CHUNK + 3;
        assert_eq!(
            first_index(len, |i| i == 3 * CHUNK + 7 || i == 4 * CHUNK),
            Some(3 * CHUNK + 7)
        );
        assert_eq!(first_index(len, |i| i == len - 1), Some(len - 1));
        assert_eq!(first_index(len, |_| false), None);
        assert_eq!(first_index(0, |_| true), None);
    }
}
