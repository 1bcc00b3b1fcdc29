//! Grid kernel 2: `GridBfs`, a direction-optimizing BFS over the `R x C`
//! grid (the levels of the `grid.rs` header: expand in the grid column,
//! propose from the cell, fold in the grid row, agree on the next
//! frontier's size). Top-down levels (`bfs/top_down.rs`) expand the
//! frontier's ids and scan the cell by column; bottom-up levels
//! (`bfs/bottom_up.rs`) expand the frontier bitmap and pass the row
//! block's "reached or found" bits around the grid row, each cell in turn
//! scanning by row what no cell before it found; both fold their
//! proposals packed narrow (`bfs/fold.rs`).
//!
//! Invariants: a rank's `parents` are those of the vertices it owns (the
//! 1-D piece `r`, as [`DistBfs`](crate::DistBfs) lays them out), written
//! only by their owner, at the fold, first proposal wins, each with its
//! claimed level ([`GridBfs::claims`], the level as a byte, `NO_LEVEL`
//! past 254 and for unreached vertices), and `reached`, a bit each, set
//! with the parent (the fold's test, and the first `done` of a bottom-up
//! row step); `proposed`, one
//! bit per row-block index, is set when this rank proposes a vertex or
//! sees it reached in a bottom-up row step, and never cleared within a
//! search (such a vertex is reached, so proposing it again could only
//! lose). A bottom-up level proposes each vertex once in its row.
//!
//! A rank's scans run on its [`Backend`] ([`GridBfs::on`]): top-down over
//! pieces of the column's frontier, each claiming a row-block vertex by
//! `fetch_or` on its `proposed` bit (so which frontier vertex becomes the
//! parent may vary between runs; the level, and so the reached count and
//! depth, may not); bottom-up over runs of segment words, each worker
//! with its own proposals (each vertex proposed once in its row, so their
//! order changes no parent).
//! The frontier is a bitmap, `front`, which a level's fold clears and
//! sets afresh with the vertices it reaches: a bottom-up level expands
//! those bits as they are, a top-down level lists them as ids (and sums
//! their degrees for the next level's direction); so no list of the next
//! frontier is made. The frontier, the fold's
//! runs and the bitmaps are buffers of the `GridBfs`, kept across levels
//! and searches.
//!
//! Direction ([`Direction::Optimizing`]): Beamer's rule as
//! [`DistBfs`](crate::DistBfs) applies it, on global counts from the
//! owners' degrees ([`GridGraph::degree`]): bottom-up once the frontier's
//! arcs `m_f` exceed `m_u / alpha` (`m_u`: arcs not yet scanned top-down),
//! back top-down when a bottom-up level finds fewer vertices than its
//! frontier held and at most `N / beta`. `m_f` rides on the level's
//! closing all-reduce (two counts instead of one; 0 after a bottom-up
//! level, whose arcs steer nothing); the root's degree costs
//! one all-reduce at the start. So every rank takes the same direction.

mod bottom_up;
pub(super) mod fold;
mod top_down;

use super::{Grid, GridGraph};
use crate::comm::{Comm, Reduce, all_reduce};
use crate::{Id, NO_PARENT};
use bottom_up::{BottomUp, Place};
use fold::Fold;
use kernels::{DoParams, NO_LEVEL, SearchStats};
use par::Backend;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use top_down::TopDown;

/// The indices of the set bits of `words`, ascending.
fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let next = |&bits: &u64| Some(bits & (bits - 1)).filter(|&rest| rest != 0);
        std::iter::successors(Some(word).filter(|&bits| bits != 0), next)
            .map(move |bits| w * 64 + bits.trailing_zeros() as usize)
    })
}

/// What one rank saw of one level.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridLevel {
    /// This rank's part of the level's frontier.
    pub frontier: u64,
    /// The vertices the level found, over all ranks.
    pub discovered: u64,
    /// Whether the level went bottom-up.
    pub bottom_up: bool,
    /// The proposals `(u, parent)` this rank sent to other ranks of its
    /// grid row (each `Fold::index_bytes + Fold::parent_bytes` bytes,
    /// see [`GridBfs::pair_bytes`]).
    pub proposals_out: u64,
    /// The hubs of this rank's column frontier whose columns a top-down
    /// level left to the lists (`grid/hubs.rs`), each announced to the
    /// C - 1 other members of the grid row; 0 bottom-up.
    pub hubs: u64,
    /// Bytes this rank sent during the level (as its `Comm` counts them).
    pub bytes: u64,
    /// Seconds the level took on this rank.
    pub seconds: f64,
    /// `bytes`, summed over the ranks (at the search's end).
    pub all_bytes: u64,
    /// `proposals_out`, summed over the ranks (at the search's end).
    pub all_proposals: u64,
    /// `hubs`, summed over the ranks (at the search's end): R times the
    /// hubs of the level's frontier.
    pub all_hubs: u64,
}

/// Which way each level goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Every level top-down.
    TopDown,
    /// Every level bottom-up.
    BottomUp,
    /// Beamer's rule with these `alpha` and `beta` (see the module
    /// header), as the 1-D [`DistBfs`](crate::DistBfs) and one process's
    /// `DoBfs` use it.
    Optimizing(DoParams),
}

/// A direction-optimizing BFS over a [`GridGraph`]; one per rank, reused
/// over roots.
pub struct GridBfs<'c, I: Id> {
    comm: &'c dyn Comm,
    /// This rank's grid column and row, made once (under MPI each is a
    /// communicator of its own, [`Comm::split`]); out of the struct only
    /// while a search runs.
    groups: Option<(super::Group<'c>, super::Group<'c>)>,
    direction: Direction,
    graph: Arc<GridGraph<I>>,
    /// What runs this rank's scans.
    backend: Backend,
    parents: Vec<u64>,
    /// The level each owned vertex was found at (a claim).
    claims: Vec<u8>,
    /// A bit per owned vertex, set once it has a parent (the owner's
    /// test at the fold, and the bottom-up row step's first `done`).
    reached: Vec<u64>,
    /// This rank's part of the frontier, as bits: the vertices the last
    /// fold reached (the root at the start; a top-down level lists them as
    /// ids).
    front: Vec<u64>,
    proposed: Vec<AtomicU64>,
    levels: Vec<GridLevel>,
    /// Bytes the last search sent, summed over the ranks.
    search_bytes: u64,
    /// The search's end's all-reduce: its bytes, then each level's bytes
    /// and proposals (kept, so a search allocates no new buffer for it).
    sums: Vec<u64>,
    /// This rank's part of the frontier, as ids (top-down levels).
    frontier: Vec<I>,
    fold: Fold,
    top_down: TopDown<I>,
    bottom_up: BottomUp,
}

impl<'c, I: Id> GridBfs<'c, I> {
    /// A search over `graph`, this rank's cell, its scans on rayon.
    pub fn new(comm: &'c dyn Comm, graph: Arc<GridGraph<I>>, direction: Direction) -> Self {
        GridBfs::on(Backend::Rayon, comm, graph, direction)
    }

    /// [`GridBfs::new`] with this rank's scans on `backend`.
    pub fn on(
        backend: Backend,
        comm: &'c dyn Comm,
        graph: Arc<GridGraph<I>>,
        direction: Direction,
    ) -> Self {
        let grid = *graph.grid();
        let owned = grid.partition().count(comm.rank());
        GridBfs {
            comm,
            groups: Some((grid.column_group(comm), grid.row_group(comm))),
            direction,
            backend,
            parents: vec![NO_PARENT; owned],
            claims: vec![NO_LEVEL; owned],
            reached: vec![0; owned.div_ceil(64)],
            front: vec![0; owned.div_ceil(64)],
            proposed: (0..grid.row_len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            levels: Vec::new(),
            search_bytes: 0,
            sums: Vec::new(),
            frontier: Vec::new(),
            fold: Fold::new(&grid, comm.rank()),
            top_down: TopDown::default(),
            bottom_up: BottomUp::default(),
            graph,
        }
    }

    /// Bytes of the per-search arrays of a rank of `grid`: the owned
    /// vertices' parents, claimed levels and two bitmaps (reached,
    /// frontier) and the row block's proposal bits; a level's
    /// messages and bitmaps come on top.
    pub fn bytes_for(grid: &Grid) -> u64 {
        9 * grid.piece() as u64
            + 2 * grid.piece().div_ceil(64) as u64 * 8
            + grid.row_len().div_ceil(64) as u64 * 8
    }

    /// The grid this engine searches over.
    pub fn grid(&self) -> &Grid {
        self.graph.grid()
    }

    /// Bytes of a hub's announcement in the fold (its index in the
    /// column block, as narrow as a proposal's parent).
    pub fn hub_bytes(&self) -> usize {
        self.fold.parent_bytes()
    }

    /// Bytes of a proposal in the fold (a row-block index and a parent,
    /// each as narrow as the grid allows; see `grid/bfs/fold.rs`).
    pub fn pair_bytes(&self) -> usize {
        self.fold.index_bytes() + self.fold.parent_bytes()
    }

    /// The bytes the last search sent (its start, levels and end), summed
    /// over the ranks; the same on every rank.
    pub fn search_bytes(&self) -> u64 {
        self.search_bytes
    }

    /// The last search's nedge: half the degree sum of the reached
    /// vertices over all ranks (the rule of `kernels::Csr::nedge`).
    /// Collective; one all-reduce. Reads the reached bits (set exactly
    /// where a parent is) and the reached vertices' degrees, not the
    /// parents.
    pub fn nedge(&self) -> u64 {
        let graph = &*self.graph;
        let arcs = ones(&self.reached).map(|l| graph.degree(l)).sum::<u64>();
        all_reduce(self.comm, [arcs], Reduce::Sum)[0] / 2
    }

    /// The parents of this rank's vertices (`NO_PARENT` where unreached),
    /// from `partition().first(rank)` on.
    pub fn parents(&self) -> &[u64] {
        &self.parents
    }

    /// The level at which the last search found each of this rank's
    /// vertices, from `partition().first(rank)` on: 0 for the root,
    /// `NO_LEVEL` for the unreached and past level 254. Recorded with
    /// each parent, a byte store; a claim for the validator to prove.
    pub fn claims(&self) -> &[u8] {
        &self.claims
    }

    /// What this rank saw of each level of the last search.
    pub fn levels(&self) -> &[GridLevel] {
        &self.levels
    }

    /// Searches from `root`. Collective; every rank passes the same root.
    /// Returns the vertices reached and the depth, over all ranks.
    pub fn search(&mut self, root: u64) -> SearchStats {
        let grid: Grid = *self.graph.grid();
        let comm = self.comm;
        let part = *grid.partition();
        let n = grid.num_vertices();
        assert!(root < n, "root {root} is not a vertex ({n} vertices)");
        let start_bytes = comm.bytes_sent();
        self.parents.fill(NO_PARENT);
        self.claims.fill(NO_LEVEL);
        self.reached.fill(0);
        self.front.fill(0);
        self.proposed.iter().for_each(|w| w.store(0, Relaxed));
        self.levels.clear();
        let (column, row) = self.groups.take().expect("no search runs");
        let mut root_degree = 0;
        let mut local_frontier = 0;
        if grid.owner(root) == comm.rank() {
            self.parents[part.local(root)] = root;
            self.claims[part.local(root)] = 0;
            self.reached[part.local(root) / 64] |= 1 << (part.local(root) % 64);
            self.front[part.local(root) / 64] |= 1 << (part.local(root) % 64);
            root_degree = self.graph.degree(part.local(root));
            local_frontier = 1;
        }
        let [mut scout] = all_reduce(comm, [root_degree], Reduce::Sum);
        let mut edges_to_check = self.graph.total_arcs();
        let (mut reached, mut depth, mut global_frontier) = (1u64, 0u32, 1u64);
        let mut bottom_up = self.direction == Direction::BottomUp;
        let first = part.first(comm.rank());
        loop {
            let start = Instant::now();
            let before = comm.bytes_sent();
            if let Direction::Optimizing(params) = self.direction
                && !bottom_up
                && scout > edges_to_check / params.alpha.max(1)
            {
                bottom_up = true;
            }
            self.fold.clear();
            let hubs = if bottom_up {
                let at = Place {
                    backend: self.backend,
                    graph: &self.graph,
                    rank: comm.rank(),
                    column: &column,
                    row: &row,
                };
                (self.bottom_up).propose(
                    &at,
                    &self.front,
                    &self.reached,
                    &self.proposed,
                    &mut self.fold,
                );
                0
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout);
                self.frontier.clear();
                (self.frontier).extend(ones(&self.front).map(|l| I::from_u64(first + l as u64)));
                self.top_down.propose(
                    self.backend,
                    &self.graph,
                    &self.frontier,
                    (&column, &row),
                    &self.proposed,
                    &mut self.fold,
                )
            };
            let proposals_out = self.fold.proposals_out();
            // Fold: owners keep the first proposal for each unreached u,
            // and the next frontier is what it reaches.
            self.front.fill(0);
            let mut next_frontier = 0u64;
            let (parents, graph, front) = (&mut self.parents, &*self.graph, &mut self.front);
            let (claims, seen, level) = (
                &mut self.claims,
                &mut self.reached,
                u8::try_from(depth + 1).unwrap_or(NO_LEVEL),
            );
            let lists = |h| graph.hubs().list(h);
            self.fold.deliver(&row, &grid, lists, |local, v| {
                let (word, bit) = (local / 64, 1 << (local % 64));
                if seen[word] & bit == 0 {
                    seen[word] |= bit;
                    front[word] |= bit;
                    parents[local] = v;
                    claims[local] = level;
                    next_frontier += 1;
                }
            });
            // Only a top-down level's arcs steer the next level (back
            // top-down, `scout` restarts at 1): its finds' degrees, read
            // in id order rather than as the proposals come.
            let next_arcs = match bottom_up {
                false => ones(&self.front).map(|l| graph.degree(l)).sum::<u64>(),
                true => 0,
            };
            let level_frontier = std::mem::replace(&mut local_frontier, next_frontier);
            let [found, found_arcs] = all_reduce(comm, [next_frontier, next_arcs], Reduce::Sum);
            self.levels.push(GridLevel {
                frontier: level_frontier,
                discovered: found,
                bottom_up,
                proposals_out,
                hubs,
                bytes: comm.bytes_sent() - before,
                seconds: start.elapsed().as_secs_f64(),
                all_bytes: 0,
                all_proposals: 0,
                all_hubs: 0,
            });
            if found == 0 {
                break;
            }
            reached += found;
            depth += 1;
            match self.direction {
                Direction::Optimizing(params) if bottom_up => {
                    if found < global_frontier && found <= n / params.beta.max(1) {
                        bottom_up = false;
                        scout = 1;
                    }
                }
                _ => scout = found_arcs,
            }
            global_frontier = found;
        }
        self.groups = Some((column, row));
        // Every rank made the same levels: one all-reduce sums the search's
        // bytes and each level's bytes, proposals and hubs.
        let sums = &mut self.sums;
        sums.clear();
        sums.push(comm.bytes_sent() - start_bytes);
        sums.extend((self.levels.iter()).flat_map(|l| [l.bytes, l.proposals_out, l.hubs]));
        comm.all_reduce(sums, Reduce::Sum);
        self.search_bytes = sums[0];
        for (level, sum) in self.levels.iter_mut().zip(sums[1..].chunks_exact(3)) {
            (level.all_bytes, level.all_proposals, level.all_hubs) = (sum[0], sum[1], sum[2]);
        }
        SearchStats { reached, depth }
    }
}
