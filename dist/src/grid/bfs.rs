//! Grid kernel 2: `GridBfs`, a direction-optimizing BFS over the `R x C`
//! grid (the levels of the `grid.rs` header: expand in the grid column,
//! propose from the cell, fold in the grid row, agree on the next
//! frontier's size). Top-down levels expand the frontier's ids and scan
//! the cell by column; bottom-up levels expand the frontier bitmap and the
//! row's reached bitmap and scan the cell by row, each unreached vertex
//! stopping at its first frontier neighbour within the cell.
//!
//! Invariants: a rank's `parents` are those of the vertices it owns (the
//! 1-D piece `r`, as [`DistBfs`](crate::DistBfs) lays them out), written
//! only by their owner, at the fold, first proposal wins; `proposed`, one
//! bit per row-block index, is set when this rank proposes a vertex and
//! never cleared within a search (a proposed vertex is reached at that
//! level, so proposing it again could only lose). A bottom-up level
//! proposes each unreached `u` from each of the C cells of its row that
//! find a frontier neighbour (up to C proposals, the owner keeps the
//! first).
//!
//! A rank's scans run on its [`Backend`] ([`GridBfs::on`]): top-down over
//! pieces of the column's frontier, each claiming a row-block vertex by
//! `fetch_or` on its `proposed` bit (so which frontier vertex becomes the
//! parent may vary between runs; the level, and so the reached count and
//! depth, may not); bottom-up over runs of row-block words, each worker
//! with its own proposals, concatenated in word order (deterministic).
//!
//! Direction ([`Direction::Optimizing`]): Beamer's rule as
//! [`DistBfs`](crate::DistBfs) applies it, on global counts from the
//! owners' degrees ([`GridGraph::degree`]): bottom-up once the frontier's
//! arcs `m_f` exceed `m_u / alpha` (`m_u`: arcs not yet scanned top-down),
//! back top-down when a bottom-up level finds fewer vertices than its
//! frontier held and at most `N / beta`. `m_f` rides on the level's
//! closing all-reduce (two counts instead of one); the root's degree costs
//! one all-reduce at the start. So every rank takes the same direction.

use super::{Grid, GridGraph, Group};
use crate::comm::{Comm, Reduce, all_gather, all_reduce, exchange};
use crate::{Id, NO_PARENT};
use kernels::{DoParams, SearchStats};
use par::Backend;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Frontier vertices per work item of a top-down scan.
const TOP_DOWN_GRAIN: usize = 256;
/// Row-block bitmap words (64 vertices each) per work item of a bottom-up
/// scan.
const BOTTOM_UP_GRAIN: usize = 16;

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
    /// grid row.
    pub proposals_out: u64,
    /// Bytes this rank sent during the level (as its `Comm` counts them).
    pub bytes: u64,
    /// Seconds the level took on this rank.
    pub seconds: f64,
    /// `bytes`, summed over the ranks (at the search's end).
    pub all_bytes: u64,
    /// `proposals_out`, summed over the ranks (at the search's end).
    pub all_proposals: u64,
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
    groups: Option<(Group<'c>, Group<'c>)>,
    direction: Direction,
    graph: Arc<GridGraph<I>>,
    /// What runs this rank's scans.
    backend: Backend,
    parents: Vec<u64>,
    proposed: Vec<AtomicU64>,
    levels: Vec<GridLevel>,
    /// Bytes the last search sent, summed over the ranks.
    search_bytes: u64,
    /// The search's end's all-reduce: its bytes, then each level's bytes
    /// and proposals (kept, so a search allocates no new buffer for it).
    sums: Vec<u64>,
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
            proposed: (0..grid.row_len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            levels: Vec::new(),
            search_bytes: 0,
            sums: Vec::new(),
            graph,
        }
    }

    /// Bytes of the per-search arrays of a rank of `grid`: the owned
    /// vertices' parents and the row block's proposal bits; a level's
    /// messages and bitmaps come on top.
    pub fn bytes_for(grid: &Grid) -> u64 {
        8 * grid.piece() as u64 + grid.row_len().div_ceil(64) as u64 * 8
    }

    /// The bytes the last search sent (its start, levels and end), summed
    /// over the ranks; the same on every rank.
    pub fn search_bytes(&self) -> u64 {
        self.search_bytes
    }

    /// The last search's nedge: half the degree sum of the reached
    /// vertices over all ranks (the rule of `kernels::Csr::nedge`).
    /// Collective; one all-reduce.
    pub fn nedge(&self) -> u64 {
        let graph = &*self.graph;
        let arcs = (self.parents.iter().enumerate())
            .filter(|&(_, &p)| p != NO_PARENT)
            .map(|(l, _)| graph.degree(l))
            .sum::<u64>();
        all_reduce(self.comm, [arcs], Reduce::Sum)[0] / 2
    }

    /// The parents of this rank's vertices (`NO_PARENT` where unreached),
    /// from `partition().first(rank)` on.
    pub fn parents(&self) -> &[u64] {
        &self.parents
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
        self.proposed.iter().for_each(|w| w.store(0, Relaxed));
        self.levels.clear();
        let (column, row) = self.groups.take().expect("no search runs");
        let mut frontier: Vec<I> = Vec::new();
        let mut root_degree = 0;
        if grid.owner(root) == comm.rank() {
            self.parents[part.local(root)] = root;
            root_degree = self.graph.degree(part.local(root));
            frontier.push(I::from_u64(root));
        }
        let [mut scout] = all_reduce(comm, [root_degree], Reduce::Sum);
        let mut edges_to_check = self.graph.total_arcs();
        let (mut reached, mut depth, mut global_frontier) = (1u64, 0u32, 1u64);
        let mut bottom_up = self.direction == Direction::BottomUp;
        let mut outgoing: Vec<Vec<[I; 2]>> = vec![Vec::new(); row.size()];
        loop {
            let start = Instant::now();
            let before = comm.bytes_sent();
            if let Direction::Optimizing(params) = self.direction
                && !bottom_up
                && scout > edges_to_check / params.alpha.max(1)
            {
                bottom_up = true;
            }
            if bottom_up {
                self.propose_bottom_up(&frontier, &column, &row, &mut outgoing);
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout);
                self.propose_top_down(&frontier, &column, &mut outgoing);
            }
            let counts: Vec<usize> = outgoing.iter().map(Vec::len).collect();
            let proposals_out = (counts.iter().sum::<usize>() - counts[row.rank()]) as u64;
            let send: Vec<[I; 2]> = outgoing.iter().flatten().copied().collect();
            outgoing.iter_mut().for_each(Vec::clear);
            // Fold: owners keep the first proposal for each unreached u.
            let (received, _) = exchange(&row, &send, &counts);
            let (mut next, mut next_arcs) = (Vec::new(), 0u64);
            for &[u, v] in &received {
                let local = part.local(u.to_u64());
                let parent = &mut self.parents[local];
                if *parent == NO_PARENT {
                    *parent = v.to_u64();
                    next_arcs += self.graph.degree(local);
                    next.push(u);
                }
            }
            let level_frontier = frontier.len() as u64;
            frontier = next;
            let [found, found_arcs] =
                all_reduce(comm, [frontier.len() as u64, next_arcs], Reduce::Sum);
            self.levels.push(GridLevel {
                frontier: level_frontier,
                discovered: found,
                bottom_up,
                proposals_out,
                bytes: comm.bytes_sent() - before,
                seconds: start.elapsed().as_secs_f64(),
                all_bytes: 0,
                all_proposals: 0,
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
        // bytes and each level's bytes and proposals.
        let sums = &mut self.sums;
        sums.clear();
        sums.push(comm.bytes_sent() - start_bytes);
        sums.extend(self.levels.iter().flat_map(|l| [l.bytes, l.proposals_out]));
        comm.all_reduce(sums, Reduce::Sum);
        self.search_bytes = sums[0];
        for (level, sum) in self.levels.iter_mut().zip(sums[1..].chunks_exact(2)) {
            (level.all_bytes, level.all_proposals) = (sum[0], sum[1]);
        }
        SearchStats { reached, depth }
    }

    /// Top-down: expand the frontier's ids in the grid column, then
    /// propose each new `u` of this row block once.
    fn propose_top_down(&mut self, frontier: &[I], column: &Group, outgoing: &mut [Vec<[I; 2]>]) {
        let grid = *self.graph.grid();
        let mut sizes = vec![0u64; column.size()];
        all_gather(
            column,
            &[frontier.len() as u64],
            &vec![1; column.size()],
            &mut sizes,
        );
        let sizes: Vec<usize> = sizes
            .iter()
            .map(|&s| usize::try_from(s).expect("fits memory"))
            .collect();
        let mut column_frontier = vec![I::default(); sizes.iter().sum()];
        all_gather(column, frontier, &sizes, &mut column_frontier);
        let (graph, proposed) = (&*self.graph, &self.proposed);
        let first = graph.first_column();
        let pieces = self
            .backend
            .map_ranges(column_frontier.len(), TOP_DOWN_GRAIN, |range| {
                let mut found = Vec::new();
                for &v in &column_frontier[range] {
                    let c = usize::try_from(v.to_u64() - first).expect("fits memory");
                    for &u in graph.neighbors(c) {
                        let k = grid.row_local(u.to_u64());
                        let bit = 1u64 << (k % 64);
                        if proposed[k / 64].load(Relaxed) & bit == 0
                            && proposed[k / 64].fetch_or(bit, Relaxed) & bit == 0
                        {
                            found.push((k, [u, v]));
                        }
                    }
                }
                found
            });
        for (k, pair) in pieces.into_iter().flatten() {
            outgoing[k / grid.piece()].push(pair);
        }
    }

    /// Bottom-up: all-gather the frontier bitmap in the grid column and
    /// the reached bitmap in the grid row, then each unreached `u` of this
    /// row block proposes its first neighbour `v` (of this column block)
    /// in the frontier.
    fn propose_bottom_up(
        &mut self,
        frontier: &[I],
        column: &Group,
        row: &Group,
        outgoing: &mut [Vec<[I; 2]>],
    ) {
        let grid = *self.graph.grid();
        let part = *grid.partition();
        let rank = self.comm.rank();
        // The frontier of this column block: pieces are runs of whole
        // words (64-aligned), so the owners' bitmaps concatenate.
        let mut mine = vec![0u64; part.words(rank)];
        for &v in frontier {
            let l = part.local(v.to_u64());
            mine[l / 64] |= 1 << (l % 64);
        }
        let words: Vec<usize> = column.members().iter().map(|&m| part.words(m)).collect();
        let mut in_frontier = vec![0u64; words.iter().sum()];
        all_gather(column, &mine, &words, &mut in_frontier);
        // The reached vertices of this row block, a piece-wide run each.
        let piece_words = grid.piece().div_ceil(64);
        let mut reached = vec![0u64; piece_words];
        for (l, &p) in self.parents.iter().enumerate() {
            if p != NO_PARENT {
                reached[l / 64] |= 1 << (l % 64);
            }
        }
        let mut row_reached = vec![0u64; piece_words * row.size()];
        all_gather(
            row,
            &reached,
            &vec![piece_words; row.size()],
            &mut row_reached,
        );
        let (i, _) = grid.coords(rank);
        let graph = &*self.graph;
        let first = graph.first_column();
        let pieces = self
            .backend
            .map_ranges(row_reached.len(), BOTTOM_UP_GRAIN, |words| {
                let mut found = Vec::new();
                for w in words {
                    let mut unreached = !row_reached[w];
                    while unreached != 0 {
                        let bit = unreached.trailing_zeros() as usize;
                        unreached &= unreached - 1;
                        let k = w / piece_words * grid.piece() + (w % piece_words) * 64 + bit;
                        let Some(u) = grid.row_vertex(i, k) else {
                            continue;
                        };
                        let parent = graph.sources(k).iter().find(|v| {
                            let c = usize::try_from(v.to_u64() - first).expect("fits memory");
                            in_frontier[c / 64] & (1 << (c % 64)) != 0
                        });
                        if let Some(&v) = parent {
                            found.push((k, [I::from_u64(u), v]));
                        }
                    }
                }
                found
            });
        for (k, pair) in pieces.into_iter().flatten() {
            self.proposed[k / 64].fetch_or(1 << (k % 64), Relaxed);
            outgoing[k / grid.piece()].push(pair);
        }
    }
}
