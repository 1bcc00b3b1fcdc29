//! The 2-D engine (issue 32 §1): ranks in an `R x C` grid, each holding
//! the arcs between one row block and one column block of the vertices
//! (Buluç and Madduri, "Parallel breadth-first search on distributed
//! memory systems", SC 2011; Yoo et al., SC 2005).
//!
//! # Layout
//!
//! - [`Grid`] (`grid/partition.rs`): the shape (`R <= C`, as square as P's
//!   divisors allow; a prime P gives 1 x P, which is the 1-D engine), rank
//!   `r` at `(r % R, r / R)`, vertex ownership the 1-D
//!   [`Partition`](crate::Partition) over P, column block `j` = the pieces
//!   of grid column `j` (consecutive ids), row block `i` = the pieces of
//!   grid row `i` (strided), arc `(u, v)` on the rank at `(row of u, column
//!   of v)`.
//! - [`Group`] (`grid/group.rs`): a grid row or column as a `Comm`, over
//!   any parent `Comm` (one parent all-to-all per call, bytes only to
//!   members); every rank calls the same group collective at once.
//! - [`GridGraph`] (`grid/graph.rs`): kernel 1; each tuple `(a, b)` makes
//!   arcs `(a, b)` and `(b, a)`, each routed to its cell in one all-to-all;
//!   each rank keeps its cell by column (CSC: for each `v` of column block
//!   `j`, the `u` of row block `i` adjacent to it; top-down) and by row
//!   (CSR over the row block's indices; bottom-up), global ids, both
//!   sorted in cache-sized passes (`grid/sort.rs`); each cell row's hub
//!   (the 1-D rule) and a bit for the rows with arcs in the cell, for the
//!   bottom-up scans.
//! - `GridHubs` (`grid/hubs.rs`): kernel 1 also chooses the hubs (the 1-D
//!   rule, on the owners' degrees) and sends each owner its own
//!   neighbours of each hub, once, for the top-down levels.
//! - [`GridBfs`] (`grid/bfs.rs`): kernel 2, top-down, bottom-up or
//!   switching between them by Beamer's rule ([`Direction`]).
//!
//! # One level
//!
//! Top-down:
//! 1. expand, within grid column `j` (R ranks): all-gather of the
//!    frontier's ids (each owner's part), so each rank knows the frontier
//!    of column block `j`;
//! 2. local: for each frontier `v`, for each `u` in its column of the
//!    cell, propose `(u, v)` unless this rank proposed `u` before (a
//!    bitmap over row block `i`: a proposed vertex is reached at that
//!    level, so later proposals could only lose); a hub's column is not
//!    scanned but announced to the row, whose owners take their own
//!    neighbours of it from lists kernel 1 made (`grid/hubs.rs`);
//! 3. fold, within grid row `i` (C ranks): the proposals go to the owners
//!    of `u` (all in row `i`), which keep the first for each unvisited `u`
//!    and make the next frontier;
//! 4. one all-reduce (over all P) of the next frontier's size and arcs.
//!
//! Bottom-up: 1. expand the frontier as a bitmap in grid column `j` (the
//! owners' pieces are whole words, so they concatenate into the column
//! block's bitmap); 2. the row step, pipelined around grid row `i`
//! (Buluç and Madduri): in C sub-steps each cell scans one owner's piece
//! of the row block, its own first, and passes that piece's "reached or
//! found" bits to the next cell of the row ([`Comm::shift`]), so each
//! unreached `u` is proposed once, by the first cell (in ring order from
//! its owner) that holds a frontier neighbour of it; 3 and 4 as
//! top-down.
//!
//! The fold packs a proposal as `u`'s index in its owner's piece and the
//! parent's index in the proposing cell's column block, each in the
//! fewest bytes that hold a piece, or R pieces (`b` bytes a pair: 4 on a
//! 4 x 4 grid at SCALE 16, against two 4-byte ids).
//!
//! # Traffic model, bytes a rank sends per level
//!
//! `w` = bytes of an id (4, or 8 beyond 2^32 vertices); `f` = frontier
//! vertices (global), `n'` = vertices reached at this level, `m_f` = arcs
//! out of the frontier (global), per-rank shares taken as even (the
//! generator scrambles labels). `8 (g - 1)` is a count to each other
//! member of a group of `g`.
//!
//! Top-down:
//! - expand: `w (f / P) (R - 1) + 8 (R - 1)`;
//! - fold: `b s (C - 1) / C + 12 (C - 1)`, with `s` the proposals of a
//!   rank, `s <= min((m_f - d) / P, n' / R)` (each new vertex of row block
//!   `i` is proposed at most once by each of the row's C cells; `d` the
//!   arcs of the frontier's hubs, which make no pair), and `a h' (C - 1)`
//!   for the `h'` hubs of the rank's column frontier (`a` bytes each: a
//!   column index, as narrow as a pair's parent);
//! - level's end: `16 (P - 1)` (the all-reduce of two counts, as `Comm`
//!   counts it).
//!
//! So `w f (R - 1) / P + b min(m_f / P, n' / R)` plus `8 (R + C + 2P)`
//! of counts, against 1-D's `2 w (m_f / P) (P - 1) / P` (`DistBfs` sends
//! one pair per arc out of the frontier to another rank, no dedup): the
//! grid trades the frontier's ids to `R - 1` ranks for pairs bounded by
//! `n' / R` instead of `m_f / P`.
//!
//! Bottom-up (frontier and row-step bits as bitmaps, pieces 64-aligned):
//! - expand: all-gather in column `j` of the frontier bitmap: `8 (R - 1)
//!   words_r`, `words_r ~ N / (64 P)`, so `~(R - 1) N / (8 P)`;
//! - the row step: `C - 1` shifts of a piece's bits, `8 (C - 1) ceil(piece
//!   / 64)`, `~(C - 1) N / (8 P)`;
//! - fold: `b s' + 12 (C - 1)`, `s'` the vertices this rank found in other
//!   owners' pieces: each new vertex is proposed once in its row, and not
//!   at all when its owner finds it (on 4 x 4 at SCALE 16, 41% of the
//!   found vertices travel);
//! - level's end: `16 (P - 1)`.
//!
//! So `(R + C - 2) N / (8 P)` bytes of bitmaps (`~N / (4 sqrt(P))` on a
//! square grid) plus at most `b n' / P` of pairs, against 1-D's `(P - 1)
//! N / (8 P)` (`~N / 8`).
//!
//! # Kernel 3 stays on 1-D rows
//!
//! A 2-D run (`graph500 --partition 2d`) builds the 1-D weighted rows
//! ([`WeightedLocalGraph`](crate::WeightedLocalGraph)) beside its cell and
//! runs [`DistSssp`](crate::DistSssp) on them. Delta-stepping relaxes the
//! arcs of the vertices settled in a phase and sends each offer `(u, d,
//! parent)` (`2 w + 4` bytes) to `u`'s owner. With 1-D rows the settling
//! rank holds all of `v`'s arcs: one exchange per phase, `(2 w + 4) a
//! (P - 1) / P` bytes for `a` relaxed arcs of a rank. Over the grid, `v`'s
//! arcs lie in the R cells of its grid column, so a phase needs two
//! rounds: `v`'s distance expanded in the column (`(w + 4) (R - 1)` per
//! settled vertex) and the offers folded in the row (`(2 w + 4) a'
//! (C - 1) / C`, `a'` after keeping the least offer per target in a cell).
//! Delta-stepping makes many small phases (several per bucket), so at the
//! P of this machine and of the CI (1 to 4) the round trips, not the
//! volume, are the cost, and the grid's saving (the row's share against
//! the whole world's, and duplicates within a cell) is small: at P = 4
//! (2 x 2), w = 4, the fold sends `12 a / 2` bytes against 1-D's `12 a 3 /
//! 4`, plus `8` per settled vertex to expand: at most a third less volume
//! for twice the rounds. At thousands of ranks the volume wins; kernel 3
//! over the grid is left for then. The price now: a 2-D run with `--sssp`
//! holds the weighted rows too (`w + 4` bytes an arc) and kernel 1 sends
//! the tuples twice (rows and cell).
//!
//! # Design note for the next session
//!
//! - Memory: a cell's CSC has `N / C + 1` offsets (R times the 1-D
//!   share), and its CSR `8 (N / R + 1)`; both orientations double the
//!   arcs. For large grids this wants Buluç's doubly compressed columns
//!   (DCSC: only non-empty columns), and perhaps one orientation plus the
//!   transpose's cell (`(j, i)`) when `R = C`.
//! - The direction rule is Beamer's, as `DistBfs` applies it, from the
//!   owners' degrees (summed over the grid row in kernel 1). Give the
//!   bottom-up scan the single process's hubs; the top-down expand could
//!   send piece-local indices as narrow as the fold's (2 bytes at SCALE
//!   16 on 4 x 4).
//! - Tests check bytes per level exactly against the model under
//!   `ThreadRanks`; the check of measured against modelled bytes
//!   can reuse `GridLevel`.
//! - Kernel 1 exchanges everything in one round; the 1-D build's rounds of
//!   `ROUND_TUPLES` and propagation blocking (`graph.rs`) carry over: the
//!   cell is the 1-D build with `(row block, column block)` for `rank`.
//! - Parents are in the 1-D layout (rank `r` owns piece `r`), so
//!   `DistValidator` validates a 2-D search unchanged; the harness runs
//!   `GridBfs` under `--partition 2d` (`src/engine/ranks.rs`).

mod bfs;
mod graph;
mod group;
mod hubs;
mod partition;
mod sort;
#[cfg(test)]
mod tests;

pub use bfs::{Direction, GridBfs, GridLevel};
pub use graph::GridGraph;
pub use group::Group;
pub use partition::Grid;

use crate::comm::Comm;

impl Grid {
    /// The ranks of this rank's grid row, as a [`Group`] (the fold).
    /// Collective: every rank makes its row's group at once.
    pub fn row_group<'c>(&self, comm: &'c dyn Comm) -> Group<'c> {
        assert_eq!(comm.size(), self.ranks(), "the grid is the communicator's");
        let (i, _) = self.coords(comm.rank());
        Group::split(comm, self.row_ranks(i), i)
    }

    /// The ranks of this rank's grid column, as a [`Group`] (the expand).
    /// Collective: every rank makes its column's group at once.
    pub fn column_group<'c>(&self, comm: &'c dyn Comm) -> Group<'c> {
        assert_eq!(comm.size(), self.ranks(), "the grid is the communicator's");
        let (_, j) = self.coords(comm.rank());
        Group::split(comm, self.column_ranks(j), j)
    }
}
