//! The grid's hubs and their lists: delegates for the top-down levels of
//! `GridBfs` (`grid/bfs/top_down.rs`), as the 1-D search has them
//! (`bfs/delegates.rs`, after Pearce, Gokhale and Amato).
//!
//! A small frontier that holds a hub `h` of column block `j` costs the R
//! cells of grid column `j` the hub's whole column: each proposes every
//! neighbour of `h` in its row block to that neighbour's owner, about
//! `b deg(h) (C - 1) / C` bytes of the fold. The graph is fixed across
//! searches, so kernel 1 sends each owner, once, its own vertices
//! adjacent to each hub (the *lists*); a top-down level then skips a hub's
//! column and announces the hub to the members of its grid row (its index
//! in the column block, [`Fold::announce`]), and every owner takes its
//! own neighbours of it from its lists. The hub's arcs cost its
//! announcement, `R (C - 1)` of them over the grid, instead of a pair each.
//!
//! Which vertices are hubs: the rule of the 1-D delegates
//! (`least_hub_class`: the highest degree classes of at least 64, at most
//! 2^14 hubs and 3/8 of the arcs), on the owners' degrees, so both
//! partitions choose the same hubs.
//!
//! Kernel 1's cost (collective): the all-reduce of 512 counts per class
//! (the hub bits come from the column block's degree classes, which
//! `grid/graph.rs` gathers for the rows' hubs too) and one fold in the
//! grid row of the hubs' arcs to their owners (`b` bytes a pair to
//! another member, and the fold's counts and header). Memory: a bit per
//! vertex of the column block, 4 bytes a listed arc, 16 bytes a listed
//! hub ([`GridHubs::bytes_for`]).
//!
//! Invariants: for every hub `h` and every owner, `list(h)` is exactly
//! the owner's vertices adjacent to `h` (each arc once); `is_hub(c)` is
//! the same on the R cells of a grid column.

use super::Grid;
use super::bfs::fold::Fold;
use crate::Id;
use crate::bfs::delegates::{BUDGET_EIGHTHS, MAX_HUBS, least_hub_class};
use crate::comm::Comm;

/// The hubs of a rank's column block and its lists.
#[derive(Debug)]
pub(crate) struct GridHubs {
    /// One bit per vertex of the column block, set for the hubs.
    column: Vec<u64>,
    /// The hubs with neighbours in this rank's piece (global ids,
    /// ascending); hub `k`'s are `members[offsets[k]..offsets[k + 1]]`
    /// (indices in the piece).
    ids: Vec<u64>,
    offsets: Vec<usize>,
    members: Vec<u32>,
    /// The pairs `(neighbour, hub)` this rank sent other ranks for them.
    listed_out: u64,
}

impl GridHubs {
    /// COLLECTIVE. The hubs among the vertices this rank owns (their
    /// `degrees`; `classes`, the degree class of every vertex of the
    /// column block, as `grid/graph.rs` gathers them) and the columns'
    /// lists; `column(c)` is the cell's column `c` (the `u` of the row
    /// block adjacent to the column block's vertex `c`).
    pub(crate) fn build<'g, I: Id + 'g>(
        comm: &dyn Comm,
        grid: &Grid,
        degrees: &[u64],
        classes: &[u8],
        column: impl Fn(usize) -> &'g [I],
    ) -> GridHubs {
        let least = least_hub_class(comm, degrees.iter().copied());
        let mut bits = vec![0u64; classes.len().div_ceil(64)];
        for (c, &class) in classes.iter().enumerate() {
            if usize::from(class) >= least {
                bits[c / 64] |= 1 << (c % 64);
            }
        }
        let row = grid.row_group(comm);
        let (mut fold, piece) = (Fold::new(grid, comm.rank()), grid.piece());
        for (w, &word) in bits.iter().enumerate() {
            for b in (0..64).filter(|b| word >> b & 1 != 0) {
                let c = w * 64 + b;
                for &u in column(c) {
                    let k = grid.row_local(u.to_u64());
                    fold.push(k / piece, k % piece, c as u64);
                }
            }
        }
        let listed_out = fold.proposals_out();
        // The pairs come grouped by hub: senders in row order, whose column
        // blocks ascend, each with its hubs' columns in ascending order.
        let (mut ids, mut offsets, mut members) = (Vec::new(), Vec::new(), Vec::new());
        fold.deliver(
            &row,
            grid,
            |_| &[],
            |index, hub| {
                if ids.last() != Some(&hub) {
                    debug_assert!(ids.last() < Some(&hub), "grouped by hub");
                    ids.push(hub);
                    offsets.push(members.len());
                }
                members.push(u32::try_from(index).expect("a piece counts in 32 bits"));
            },
        );
        offsets.push(members.len());
        GridHubs {
            column: bits,
            ids,
            offsets,
            members,
            listed_out,
        }
    }

    /// Whether the column block's vertex `c` is a hub. O(1).
    #[inline]
    pub(crate) fn is_hub(&self, c: usize) -> bool {
        self.column[c / 64] >> (c % 64) & 1 != 0
    }

    /// This rank's vertices (indices in its piece) adjacent to hub `h`
    /// (a global id): empty for a vertex that is no hub. O(log hubs).
    pub(crate) fn list(&self, h: u64) -> &[u32] {
        match self.ids.binary_search(&h) {
            Ok(k) => &self.members[self.offsets[k]..self.offsets[k + 1]],
            Err(_) => &[],
        }
    }

    /// The pairs this rank sent other ranks to make the lists.
    pub(crate) fn listed_out(&self) -> u64 {
        self.listed_out
    }

    /// About the most bytes the hubs of a rank with a column block of
    /// `columns` vertices and `owned_arcs` arcs at its own vertices take:
    /// a bit a column, the lists (at most [`BUDGET_EIGHTHS`] eighths of the
    /// arcs, 4 bytes each, and while building 12 more) and 16 bytes a hub.
    pub(crate) fn bytes_for(columns: u64, owned_arcs: u64) -> u64 {
        columns.div_ceil(64) * 8 + owned_arcs / 8 * BUDGET_EIGHTHS * 16 + 16 * MAX_HUBS
    }
}
