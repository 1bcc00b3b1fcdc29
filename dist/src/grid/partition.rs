//! `Grid`: the ranks as an `R x C` grid and the vertex space cut to match
//! (the layout of Buluç and Madduri, SC 2011, and Yoo et al., SC 2005).
//!
//! Shape: `R * C = P` with `R <= C` and `R` the largest divisor of `P` not
//! above `sqrt(P)` (P = 6: 2 x 3; P = 8: 2 x 4; P = 12: 3 x 4; a prime P:
//! 1 x P). `R <= C` because the grid column (R ranks) carries the
//! expand, an all-gather whose volume grows with the group, while the
//! grid row (C ranks) carries the fold, a sparse all-to-all of discovered
//! vertices only. A prime P gives 1 x P, not P x 1: with one grid row the
//! expand is free (each column group is one rank) and the fold is the 1-D
//! exchange of `(vertex, parent)` pairs, so the 2-D engine degenerates to
//! the 1-D one we know; P x 1 would all-gather the whole frontier to every
//! rank at every level.
//!
//! Ranks are numbered column-major: rank `r` sits at `(i, j) = (r % R,
//! r / R)`. Vertex ownership is exactly the 1-D [`Partition`] over P
//! (pieces of `ceil(N / P)` ids rounded up to 64), so parents come out in
//! the 1-D layout and the 1-D validator applies unchanged. Then:
//! - column block `j` = the pieces of ranks `(0..R, j)` = ranks `j R ..
//!   (j + 1) R`: consecutive ids `first(jR) .. first((j+1)R)`;
//! - row block `i` = the pieces of ranks `(i, 0..C)` = ranks `i, i + R, i +
//!   2R, ...`: C pieces, strided. Its local index of `u` is `(owner(u) /
//!   R) * piece + local(u)` (`piece` the full piece size; short pieces
//!   leave holes at the end of the index space);
//! - arc `(u, v)` (u the target, v the source of a top-down step) lives on
//!   the rank at `(row of u, column of v)`. Every vertex `v` owned by `(i,
//!   j)` lies in row block `i` and column block `j`.

use crate::Partition;

/// `P` ranks as an `R x C` grid over `N` vertices; see the module header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    part: Partition,
    rows: usize,
    cols: usize,
    /// The size of a full piece (rank 0's share): the stride of row-block
    /// indices.
    piece: u64,
    /// `floor((2^64 - 1) / R) + 1`: the high half of its product with a
    /// rank is the rank over `R` (`R` and ranks below `2^32`, as
    /// [`Partition`]'s owners), one multiplication where a division would
    /// cost tens of cycles an arc in kernel 1 and the top-down scans.
    rows_magic: u64,
}

impl Grid {
    /// The shape `(R, C)` for `p` ranks: `R * C = p`, `R <= C`, `R` the
    /// largest divisor of `p` not above `sqrt(p)`.
    pub fn shape(p: usize) -> (usize, usize) {
        assert!(p > 0, "at least one rank");
        let r = (1..=p)
            .take_while(|r| r * r <= p)
            .filter(|r| p.is_multiple_of(*r))
            .last()
            .unwrap_or(1);
        (r, p / r)
    }

    /// `num_vertices` vertices over `ranks` ranks in the grid of
    /// [`Grid::shape`].
    pub fn new(num_vertices: u64, ranks: usize) -> Self {
        let (rows, cols) = Grid::shape(ranks);
        Grid::with_shape(num_vertices, rows, cols)
    }

    /// `num_vertices` vertices over an explicit `rows x cols` grid.
    pub fn with_shape(num_vertices: u64, rows: usize, cols: usize) -> Self {
        assert!(rows > 0 && cols > 0, "a grid has ranks");
        assert!(rows * cols <= u32::MAX as usize, "ranks below 2^32");
        let part = Partition::new(num_vertices, rows * cols);
        Grid {
            part,
            rows,
            cols,
            piece: part.count(0) as u64,
            rows_magic: (u64::MAX / rows as u64).wrapping_add(1),
        }
    }

    /// The 1-D partition of vertex ownership (rank `r` owns piece `r`).
    pub fn partition(&self) -> &Partition {
        &self.part
    }

    /// `N`.
    pub fn num_vertices(&self) -> u64 {
        self.part.num_vertices()
    }

    /// `P = R * C`.
    pub fn ranks(&self) -> usize {
        self.rows * self.cols
    }

    /// `R`, the number of grid rows (and of row blocks).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `C`, the number of grid columns (and of column blocks).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `rank`'s place `(i, j)` in the grid (column-major).
    #[inline]
    pub fn coords(&self, rank: usize) -> (usize, usize) {
        let j = if self.rows == 1 {
            rank
        } else {
            // Below the rank count: fits.
            #[allow(clippy::cast_possible_truncation)]
            let j = ((u128::from(self.rows_magic) * rank as u128) >> 64) as usize;
            j
        };
        (rank - j * self.rows, j)
    }

    /// The rank at `(i, j)`.
    #[inline]
    pub fn rank_at(&self, i: usize, j: usize) -> usize {
        j * self.rows + i
    }

    /// The rank that owns `v` (its parent entry and its frontier bit).
    #[inline]
    pub fn owner(&self, v: u64) -> usize {
        self.part.owner(v)
    }

    /// The row block of `u`.
    #[inline]
    pub fn row_of(&self, u: u64) -> usize {
        self.coords(self.owner(u)).0
    }

    /// The column block of `v`.
    #[inline]
    pub fn column_of(&self, v: u64) -> usize {
        self.coords(self.owner(v)).1
    }

    /// The rank holding arc `(u, v)`: `(row of u, column of v)`.
    #[inline]
    pub fn cell(&self, u: u64, v: u64) -> usize {
        self.rank_at(self.row_of(u), self.column_of(v))
    }

    /// The cells of arcs `(u, v)` and `(v, u)`, the two owners found once.
    #[inline]
    pub fn cells(&self, u: u64, v: u64) -> (usize, usize) {
        let ((iu, ju), (iv, jv)) = (self.coords(self.owner(u)), self.coords(self.owner(v)));
        (self.rank_at(iu, jv), self.rank_at(iv, ju))
    }

    /// The ranks of grid row `i` (`(i, 0..C)`), ascending.
    pub fn row_ranks(&self, i: usize) -> Vec<usize> {
        (0..self.cols).map(|j| self.rank_at(i, j)).collect()
    }

    /// The ranks of grid column `j` (`(0..R, j)`), ascending.
    pub fn column_ranks(&self, j: usize) -> Vec<usize> {
        (0..self.rows).map(|i| self.rank_at(i, j)).collect()
    }

    /// The ids of column block `j`: `first .. end`.
    pub fn column_range(&self, j: usize) -> std::ops::Range<u64> {
        self.part.first(j * self.rows)..self.part.first((j + 1) * self.rows)
    }

    /// `v`'s index in its column block.
    #[inline]
    pub fn column_local(&self, v: u64) -> usize {
        let first = self.part.first(self.column_of(v) * self.rows);
        usize::try_from(v - first).expect("a column block fits memory")
    }

    /// The size of the index space of a row block, `C * piece` (holes
    /// included).
    pub fn row_len(&self) -> usize {
        usize::try_from(self.cols as u64 * self.piece).expect("a row block fits memory")
    }

    /// The size of a full piece (rank 0's share; a multiple of 64, or `N`
    /// when one rank holds everything): the stride of row-block indices.
    pub fn piece(&self) -> usize {
        usize::try_from(self.piece).expect("a piece fits memory")
    }

    /// The vertex at row-block index `k` of row block `i` (`None` in the
    /// holes after short pieces).
    pub fn row_vertex(&self, i: usize, k: usize) -> Option<u64> {
        let owner = self.rank_at(i, k / self.piece());
        let local = k % self.piece();
        (local < self.part.count(owner)).then(|| self.part.first(owner) + local as u64)
    }

    /// `u`'s index in its row block: `(owner / R) * piece + local`.
    #[inline]
    pub fn row_local(&self, u: u64) -> usize {
        let (owner, local) = self.part.place(u);
        usize::try_from(self.coords(owner).1 as u64 * self.piece).expect("fits") + local
    }
}
