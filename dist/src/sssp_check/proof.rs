//! `Distances`: one SSSP search's proof over a weighted [`Incidence`]
//! (the tuples regrouped once by the vertices they touch, each arc with
//! its weight): the distance of every cell (own vertices, then ghosts),
//! then checks 2-5 on every arc with no message about a tuple.
//!
//! 1. The tree (check 2) and its figures come from the BFS proof's level
//!    rounds ([`Levels::tree`]): every reached vertex but the root gets
//!    its parent's level plus one, one all-gather per level, so parents
//!    form a tree from the root and every parent has a cell here (else
//!    the proof fails). The levels give the reached count and the depth.
//! 2. The ghosts' distances: when the validator is made, every rank learns
//!    which of its vertices are ghosts on each other rank (`GhostRoutes`,
//!    shared with the claimed levels' proof); per search it sends each rank those
//!    vertices' distances, in their slots' order, which is the order of
//!    that rank's ghost cells. Nothing else about a vertex or a tuple
//!    travels.
//! 3. One pass over each own vertex's arcs: every arc it judges (one per
//!    tuple, [`Incidence`]) passes `tuple_error` (weight range, both ends
//!    reached or neither, the triangle rule); a reached vertex but the
//!    root has an arc to its parent's cell whose weight `confirms` its
//!    distance (a binary search in each of its two parts, sorted by cell;
//!    duplicates of the tuple are all tried). nedge is the judged arcs of
//!    reached vertices.
//!
//! The rules are `validate`'s very functions, so a proof that passes
//! shows every check the tuple rounds make; one that fails names nothing,
//! and the validator then runs the tuple rounds, which name the failure.
//! Every rank returns the same outcome (`Levels::tree` agrees, and the
//! pass's failures are summed over the ranks).
//!
//! Cost per rank: `O(n_r L + arcs)` work (`L` the depth), parallel on the
//! current rayon pool. All ranks together send the level rounds' bytes
//! (`levels.rs`), 4 bytes per ghost (each rank's ghosts counted once:
//! at most `min(N (P - 1), 2 M)`, and at most `N` on 2 ranks) and
//! `24 P (P - 1)` for the verdict and the largest distance.

use crate::Partition;
use crate::check::{GhostRoutes, Incidence, Levels, NO_PARENT};
use crate::comm::{Comm, Reduce, all_reduce};
use rayon::prelude::*;
use validate::sssp::{confirms, tuple_error};

/// What a proof found, the same on every rank.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Proven {
    /// The judged arcs of reached vertices, summed over the ranks.
    pub(crate) nedge: u64,
    pub(crate) reached: u64,
    pub(crate) depth: u64,
    /// The largest distance of a reached vertex.
    pub(crate) max_dist: f32,
}

/// The cells' distances and the routes of the ghosts' distances, kept
/// from search to search.
#[derive(Debug)]
pub(crate) struct Distances {
    /// Which own vertices each other rank holds as ghosts.
    routes: GhostRoutes,
    /// The exported distances of a search, in the routes' order.
    out: Vec<f32>,
    /// The ghosts' distances, in their cells' order.
    received: Vec<f32>,
    /// The distance of each cell: own vertices, then ghosts.
    cells: Vec<f32>,
}

impl Distances {
    /// COLLECTIVE. The routes of the ghosts' distances over `inc`
    /// ([`GhostRoutes::build`]: 4 bytes a ghost, once).
    pub(crate) fn new(comm: &dyn Comm, inc: &Incidence) -> Self {
        Distances {
            routes: GhostRoutes::build(comm, inc),
            out: Vec::new(),
            received: Vec::new(),
            cells: Vec::new(),
        }
    }

    /// About the most bytes `Distances` take on a rank with `rows` own
    /// vertices and `tuples` tuples, of `n` in all: 4 per cell (at most
    /// `rows + min(n, 2 tuples)`), 4 per ghost received and 8 per vertex
    /// exported (about as many as the ghosts).
    pub(crate) fn bytes_for(rows: u64, tuples: u64, n: u64) -> u64 {
        let ghosts = n.min(2 * tuples);
        4 * (rows + ghosts) + 12 * ghosts
    }

    /// COLLECTIVE. Proves that `parents` and `dist` (this rank's, global
    /// ids, `u64::MAX` and `-1` unreached; passed check 1) are a
    /// shortest-path tree from `root` of the weighted tuples of `inc`:
    /// `Some` with the figures, the same on every rank, or `None` on
    /// every rank if any check fails anywhere.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prove(
        &mut self,
        comm: &dyn Comm,
        part: Partition,
        inc: &Incidence,
        levels: &mut Levels,
        root: u64,
        parents: &[u64],
        dist: &[f32],
    ) -> Option<Proven> {
        let (reached, depth) = levels.tree(comm, part, inc, root, parents)?;
        (self.routes).send(comm, |i| dist[i], &mut self.out, &mut self.received);
        self.cells.clear();
        self.cells.extend_from_slice(dist);
        self.cells.extend_from_slice(&self.received);
        let [bad, nedge] = all_reduce(comm, self.judge(inc, levels.parent_cells()), Reduce::Sum);
        let farthest = (dist.par_iter().copied())
            .filter(|&d| d > 0.0)
            .reduce(|| 0.0, f32::max);
        // Distances >= 0 order as their bits.
        let [farthest] = all_reduce(comm, [u64::from(farthest.to_bits())], Reduce::Max);
        (bad == 0).then(|| Proven {
            nedge,
            reached,
            depth,
            max_dist: f32::from_bits(u32::try_from(farthest).expect("f32 bits")),
        })
    }

    /// Step 3: `[own vertices unconfirmed or with a judged arc failing
    /// check 4, judged arcs of reached own vertices]`, given each own
    /// vertex's parent's cell (`parent`).
    fn judge(&self, inc: &Incidence, parent: &[u32]) -> [u64; 2] {
        let cells = &self.cells;
        let vertex = |[bad, nedge]: [u64; 2], i: usize| {
            let (own, up) = (cells[i], parent[i]);
            let up_dist = if up == NO_PARENT {
                0.0
            } else {
                cells[up as usize]
            };
            let ((judged, others), (judged_w, others_w)) = (inc.arcs(i), inc.weights(i));
            let mut wrong = false;
            for (&c, &w) in judged.iter().zip(judged_w) {
                wrong |= tuple_error(0, (0, 1), w, own, cells[c as usize]).is_some();
            }
            // Each part is sorted by cell: the parent's arcs are a run.
            let confirmed = |cells_of: &[u32], weights: &[f32]| {
                let from = cells_of.partition_point(|&c| c < up);
                let same = cells_of[from..].iter().take_while(|&&c| c == up).count();
                let weights = &weights[from..from + same];
                weights.iter().any(|&w| confirms(w, up_dist, own))
            };
            let found =
                up == NO_PARENT || confirmed(judged, judged_w) || confirmed(others, others_w);
            let ends = if own >= 0.0 { judged.len() } else { 0 };
            [bad + u64::from(wrong || !found), nedge + ends as u64]
        };
        (0..inc.rows())
            .into_par_iter()
            .with_min_len(1 << 12)
            .fold(|| [0, 0], vertex)
            .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
    }
}
