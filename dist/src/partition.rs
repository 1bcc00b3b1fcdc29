//! `Partition`: which rank owns which vertex. One-dimensional and by
//! blocks: rank `r` owns the consecutive ids `r * chunk ..` up to the next
//! rank's first, where `chunk` is `ceil(N / P)` rounded up to a multiple of
//! 64.
//!
//! Why blocks and not the reference code's cyclic mapping (`v mod P`):
//! the bottom-up step shares the frontier as a bitmap of all N vertices,
//! and with blocks each rank's part of it is a run of whole 64-bit words,
//! so one all-gather of those runs is the global bitmap with no
//! reshuffling. Balance is not lost: the generator scrambles the vertex
//! labels, so degrees are spread evenly over the id space. (The last rank
//! may own fewer vertices, and when `N < 64 P` some own none.)

/// A 1-D block partition of `N` vertices over `P` ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    num_vertices: u64,
    ranks: usize,
    chunk: u64,
    /// `ceil(2^64 / chunk)`, for dividing ids below 2^32 by `chunk` with a
    /// multiplication (Lemire, Kaser and Kurz, "Faster remainder by direct
    /// computation", 2019): exact for 32-bit numerators and divisors. A
    /// division per arc costs measurably more
    /// (docs/history-kernels.md#dist-partition).
    magic: u64,
}

impl Partition {
    /// `num_vertices` vertices over `ranks` ranks.
    pub fn new(num_vertices: u64, ranks: usize) -> Self {
        assert!(ranks > 0, "at least one rank");
        let chunk = num_vertices
            .div_ceil(ranks as u64)
            .next_multiple_of(64)
            .max(64);
        Partition {
            num_vertices,
            ranks,
            chunk,
            magic: (u64::MAX / chunk).wrapping_add(1),
        }
    }

    /// `N`.
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// `P`.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The rank that owns `v`.
    #[inline]
    pub fn owner(&self, v: u64) -> usize {
        let owner = if v <= u64::from(u32::MAX) && self.chunk <= u64::from(u32::MAX) {
            // The high half of magic * v is v / chunk for 32-bit operands.
            (u128::from(self.magic) * u128::from(v)) >> 64
        } else {
            u128::from(v / self.chunk)
        };
        // At most ranks - 1: v < N <= ranks * chunk.
        #[allow(clippy::cast_possible_truncation)]
        let owner = owner as usize;
        owner
    }

    /// The first vertex of `rank` (or `N` if it owns none).
    #[inline]
    pub fn first(&self, rank: usize) -> u64 {
        (rank as u64 * self.chunk).min(self.num_vertices)
    }

    /// How many vertices `rank` owns.
    pub fn count(&self, rank: usize) -> usize {
        usize::try_from(self.first(rank + 1) - self.first(rank))
            .expect("a rank's share fits memory")
    }

    /// `v`'s index among its owner's vertices.
    #[inline]
    pub fn local(&self, v: u64) -> usize {
        self.place(v).1
    }

    /// `v`'s owner and its index there, from one division.
    #[inline]
    pub fn place(&self, v: u64) -> (usize, usize) {
        let owner = self.owner(v);
        let local = v - owner as u64 * self.chunk;
        // Below chunk, which is at most N / P rounded up: fits memory.
        #[allow(clippy::cast_possible_truncation)]
        let local = local as usize;
        (owner, local)
    }

    /// The number of 64-bit words of a bitmap over `rank`'s vertices (its
    /// part of the global bitmap: rank `r`'s words start at word
    /// `first(r) / 64`).
    pub fn words(&self, rank: usize) -> usize {
        self.count(rank).div_ceil(64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guards the division by multiplication: exact at the edges of the
    /// 32-bit range for awkward chunk sizes.
    #[test]
    fn owners_by_multiplication_equal_owners_by_division() {
        for (n, p) in [
            (u64::from(u32::MAX), 3usize),
            (1 << 32, 7),
            (1 << 31, 5),
            (1000, 7),
        ] {
            let part = Partition::new(n, p);
            let probes = [
                0,
                1,
                part.chunk - 1,
                part.chunk,
                part.chunk + 1,
                n - 1,
                n / 2,
                n / 3,
            ];
            for v in probes.into_iter().filter(|&v| v < n) {
                assert_eq!(part.owner(v) as u64, v / part.chunk, "n {n} p {p} v {v}");
                assert_eq!(part.local(v) as u64, v % part.chunk, "n {n} p {p} v {v}");
            }
        }
    }

    #[test]
    fn every_vertex_has_one_owner_and_ranges_are_word_aligned() {
        for (n, p) in [(1u64 << 10, 3usize), (100, 4), (64, 1), (1000, 7), (10, 4)] {
            let part = Partition::new(n, p);
            let total: usize = (0..p).map(|r| part.count(r)).sum();
            assert_eq!(total as u64, n);
            for r in (0..p).filter(|&r| part.count(r) > 0) {
                assert_eq!(part.first(r) % 64, 0, "n {n} p {p} r {r}");
                let words: usize = (0..r).map(|q| part.words(q)).sum();
                assert_eq!(words as u64, part.first(r) / 64);
            }
            for v in 0..n {
                let r = part.owner(v);
                assert!(part.first(r) <= v && v < part.first(r + 1), "v {v}");
                assert_eq!(part.first(r) + part.local(v) as u64, v);
            }
        }
    }
}
