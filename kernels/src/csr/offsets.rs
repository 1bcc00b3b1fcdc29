//! `Offsets`: where each row of a [`Csr`](crate::Csr) (or of a rank's
//! rows, in the distributed engine) ends, in 4 bytes a vertex when the
//! graph's arcs fit in `u32` (every graph up to SCALE 26 at edge factor 16,
//! whose `2^31` arcs do), else in 8.
//!
//! Why narrow: a bottom-up step reads the offsets of every vertex it
//! visits, and a top-down step those of every frontier vertex, so half the
//! bytes mean half the lines; at SCALE 22 the narrow offsets (16 MiB) fit
//! a 32 MiB L3 where the wide ones filled it. Paired searches, narrow
//! against wide offsets in one binary (`docs/history-kernels.md`, `csr`):
//! 0.96 of the search time at SCALE 20 and 22. They also take a quarter
//! of a byte a tuple off every phase after kernel 1.
//!
//! Invariants: `ends[0] == 0`, the ends never decrease, the last is the
//! number of arcs. Kernel 1 builds narrow offsets when twice its tuples
//! fit `u32` ([`Offsets::narrow_fits`]), a graph made from another's rows
//! when its arcs do; either way the same rows.

use crate::Backend;
use std::ops::Range;

/// How many rows ahead [`Offsets::degree_sum`] prefetches a row's ends.
const DEGREES_AHEAD: usize = 16;

/// A row's end as kernel 1 writes it: `u32` or `u64`.
pub(crate) trait RowEnd: Copy + Default + Send + Sync + Into<u64> + 'static {
    /// `x`, which the caller knows fits.
    fn of(x: u64) -> Self;
}

impl RowEnd for u32 {
    #[inline]
    fn of(x: u64) -> u32 {
        u32::try_from(x).expect("a narrow graph's arcs fit u32")
    }
}

impl RowEnd for u64 {
    #[inline]
    fn of(x: u64) -> u64 {
        x
    }
}

/// The ends of a graph's rows, `N + 1` of them from 0: narrow (`u32`) when
/// its arcs fit, else wide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offsets {
    /// Every end below `2^32`.
    Narrow(Vec<u32>),
    /// Ends of a graph with `2^32` arcs or more.
    Wide(Vec<u64>),
}

impl Offsets {
    /// Whether a graph of `arcs` arcs keeps narrow offsets.
    pub fn narrow_fits(arcs: u64) -> bool {
        arcs <= u64::from(u32::MAX)
    }

    /// Bytes of one end for a graph of `arcs` arcs.
    pub fn end_bytes(arcs: u64) -> u64 {
        if Offsets::narrow_fits(arcs) { 4 } else { 8 }
    }

    /// Bytes of one of these ends: 4 or 8.
    pub fn end_size(&self) -> u64 {
        match self {
            Offsets::Narrow(_) => 4,
            Offsets::Wide(_) => 8,
        }
    }

    /// A copy of `wide`, narrowed when its arcs fit: one parallel pass on
    /// `backend`.
    pub fn narrowed_on(backend: Backend, wide: &[u64]) -> Offsets {
        if !Offsets::narrow_fits(wide.last().copied().unwrap_or(0)) {
            return Offsets::Wide(wide.to_vec());
        }
        const PIECE: usize = 1 << 16;
        let mut narrow = vec![0u32; wide.len()];
        let pieces = narrow.chunks_mut(PIECE).zip(wide.chunks(PIECE)).collect();
        backend.for_each_init(
            pieces,
            || (),
            |(), (out, ends): (&mut [u32], &[u64])| {
                out.iter_mut().zip(ends).for_each(|(o, &e)| *o = u32::of(e));
            },
        );
        Offsets::Narrow(narrow)
    }

    /// A copy, narrowed when the arcs fit: one parallel pass on `backend`.
    pub fn narrowed(&self, backend: Backend) -> Offsets {
        match self {
            Offsets::Narrow(_) => self.clone(),
            Offsets::Wide(ends) => Offsets::narrowed_on(backend, ends),
        }
    }

    /// Starts loading row `v`'s start, for a loop that will read its row
    /// a few vertices from now. A hint: nothing observable changes.
    #[inline]
    pub fn prefetch(&self, v: usize) {
        match self {
            Offsets::Narrow(ends) => par::hint::prefetch(&ends[v]),
            Offsets::Wide(ends) => par::hint::prefetch(&ends[v]),
        }
    }

    /// The degree sum of the rows `rows` (each `index(r)`), read in that
    /// order, at random: each row's ends prefetched 16 rows
    /// ahead, so that the misses overlap. O(`rows`).
    #[inline]
    pub fn degree_sum<T: Copy>(&self, rows: &[T], index: impl Fn(T) -> usize) -> u64 {
        let mut sum = 0;
        for (i, &row) in rows.iter().enumerate() {
            if let Some(&ahead) = rows.get(i + DEGREES_AHEAD) {
                self.prefetch(index(ahead));
            }
            sum += self.degree(index(row));
        }
        sum
    }

    /// The rows, `N` (one end fewer).
    pub fn rows(&self) -> usize {
        let ends = match self {
            Offsets::Narrow(ends) => ends.len(),
            Offsets::Wide(ends) => ends.len(),
        };
        ends.saturating_sub(1)
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> u64 {
        match self {
            Offsets::Narrow(ends) => size_of_val(ends.as_slice()) as u64,
            Offsets::Wide(ends) => size_of_val(ends.as_slice()) as u64,
        }
    }

    /// Where row `v`'s arcs lie in the targets. O(1).
    #[inline]
    pub fn row(&self, v: usize) -> Range<usize> {
        // Ends are at most the number of arcs, a usize.
        #[allow(clippy::cast_possible_truncation)]
        match self {
            Offsets::Narrow(ends) => ends[v] as usize..ends[v + 1] as usize,
            Offsets::Wide(ends) => ends[v] as usize..ends[v + 1] as usize,
        }
    }

    /// Row `v`'s arc count. O(1).
    #[inline]
    pub fn degree(&self, v: usize) -> u64 {
        match self {
            Offsets::Narrow(ends) => u64::from(ends[v + 1] - ends[v]),
            Offsets::Wide(ends) => ends[v + 1] - ends[v],
        }
    }

    /// End `i` (`0..=N`).
    #[cfg(test)]
    pub(crate) fn end(&self, i: usize) -> u64 {
        match self {
            Offsets::Narrow(ends) => ends[i].into(),
            Offsets::Wide(ends) => ends[i],
        }
    }

    /// The degree sum of the vertices `first..first + reached.len()` whose
    /// flag is set: one stream over their ends, each degree masked by its
    /// flag (no branch).
    pub fn masked_degrees(&self, first: usize, reached: impl Iterator<Item = bool>) -> u64 {
        fn sum<O: RowEnd>(ends: &[O], reached: impl Iterator<Item = bool>) -> u64 {
            let degrees = ends.windows(2).map(|w| w[1].into() - w[0].into());
            reached.zip(degrees).map(|(r, d)| d * u64::from(r)).sum()
        }
        match self {
            Offsets::Narrow(ends) => sum(&ends[first..], reached),
            Offsets::Wide(ends) => sum(&ends[first..], reached),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the prefetched degree sum: the plain sum of the degrees of
    /// the rows listed, in any order and with repeats, for lists shorter
    /// and longer than the prefetch distance, in both widths.
    #[test]
    fn degree_sum_is_the_sum_of_the_listed_rows_degrees() {
        let wide: Vec<u64> = (0..200u64)
            .scan(0, |end, v| {
                let start = *end;
                *end += v % 7;
                Some(start)
            })
            .collect();
        let rows: Vec<u32> = (0..150u32).map(|i| (i * 37) % 199).chain([5, 5]).collect();
        for offsets in [
            Offsets::Wide(wide.clone()),
            Offsets::narrowed_on(Backend::Rayon, &wide),
        ] {
            for len in [0, 1, DEGREES_AHEAD, DEGREES_AHEAD + 1, rows.len()] {
                let listed = &rows[..len];
                let plain: u64 = listed.iter().map(|&v| offsets.degree(v as usize)).sum();
                assert_eq!(
                    offsets.degree_sum(listed, |v| v as usize),
                    plain,
                    "{len} rows"
                );
            }
            assert!(offsets.degree_sum(&rows, |v| v as usize) > 0);
        }
    }
}
