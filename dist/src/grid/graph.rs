//! Grid kernel 1: `GridGraph`, one rank's cell of the adjacency matrix.
//!
//! Every tuple `(a, b)` that is not a self-loop becomes two arcs, `(a, b)`
//! and `(b, a)`; arc `(u, v)` goes to the rank at `(row of u, column of
//! v)` ([`Grid::cell`]), packed as `[u, v]` (`2 w` bytes), in one
//! all-to-all over the whole communicator. The receiver sorts its arcs
//! (`grid/sort.rs`, a counting sort in two cache-sized passes) by
//! [`Grid::column_local`] of `v`: a CSC over column block `j` whose
//! entries are the `u` (global ids) of row block `i`. The order within a
//! column is source rank, then tuple: fixed for a given `P`. The same arcs
//! are kept by row too (CSR over [`Grid::row_local`], entries the `v`),
//! for the bottom-up step.
//!
//! The owner of each vertex then learns its degree (the arcs of its row
//! summed over the C cells of its grid row): each rank sends each member
//! of its grid row the row lengths of that member's piece, one exchange of
//! `8 (C - 1) N / P` bytes, and one all-reduce gives the total. The
//! degrees pick the search keys (degree > 0), steer the search's direction
//! (Beamer's arc counts) and count nedge, as the 1-D rows' do. The owners'
//! degree classes, all-gathered in the grid column (a byte a vertex,
//! `(R - 1) N / P` bytes a rank), choose the hubs (`grid/hubs.rs`) and
//! each cell row's hub, the neighbour a bottom-up step tests first (the
//! 1-D rule, `bfs/hubs.rs`); a bit a row-block vertex marks the rows with
//! arcs in the cell, so a bottom-up step skips the others unread.
//!
//! Memory per rank: `e (N / C + 1) + e (C piece + 1)` bytes of offsets
//! (`e` = 4 bytes an end while the cell's arcs fit `u32`, kernels'
//! `Offsets`, else 8), `8 N / P` of degrees, `2 w` bytes per arc (both
//! orientations) and `w + 1/8` bytes a row-block vertex (its hub and
//! bit), plus the received `2 w` bytes per arc and the sort's staging
//! (`4 + w` bytes an arc) while sorting (one round; the 1-D build's
//! bounded rounds are the next step).

use super::Grid;
use super::hubs::GridHubs;
use super::sort::sort_by;
use crate::Id;
use crate::bfs::hubs::LocalHubs;
use crate::comm::{Comm, Reduce, all_gather, all_reduce, exchange};
use crate::route::{Sends, route};
use generator::Tuple;
use kernels::Offsets;
use par::Backend;

/// One rank's cell: for each `v` of its column block, the `u` of its row
/// block adjacent to it.
#[derive(Debug)]
pub struct GridGraph<I: Id> {
    grid: Grid,
    rank: usize,
    offsets: Offsets,
    targets: Vec<I>,
    /// The same arcs by row (CSR over the row block, indexed by
    /// [`Grid::row_local`]): for each `u`, the `v` adjacent to it.
    row_offsets: Offsets,
    sources: Vec<I>,
    /// The degree of each vertex this rank owns (its 1-D piece), over the
    /// whole graph.
    degrees: Vec<u64>,
    /// The arcs of the whole graph (twice the tuples that are not
    /// self-loops).
    total_arcs: u64,
    /// The hubs of the column block and this rank's lists of them.
    hubs: GridHubs,
    /// Each row's hub in the cell (the bottom-up steps' first test).
    row_hubs: LocalHubs<I>,
    /// A bit per row-block index, set where the row has arcs in the cell:
    /// for each of the C pieces of the row block, `ceil(piece / 64)` words.
    live: Vec<u64>,
}

impl<I: Id> GridGraph<I> {
    /// Kernel 1 over the grid: each rank passes its share of the tuples.
    /// Collective. [`GridGraph::build_on`] on rayon.
    pub fn build<T: Tuple>(comm: &dyn Comm, grid: Grid, tuples: &[T]) -> Self {
        GridGraph::build_on(Backend::Rayon, comm, grid, tuples)
    }

    /// [`GridGraph::build`] with this rank's loops on `backend`.
    pub fn build_on<T: Tuple>(backend: Backend, comm: &dyn Comm, grid: Grid, tuples: &[T]) -> Self {
        assert_eq!(comm.size(), grid.ranks(), "the grid is the communicator's");
        let out = route(tuples, grid.ranks(), |t| {
            let (a, b) = t.ends();
            if a == b {
                return Sends::none();
            }
            let (ia, ib) = (I::from_u64(a), I::from_u64(b));
            let (ab, ba) = grid.cells(a, b);
            Sends::two(ab, [ia, ib], ba, [ib, ia])
        });
        let (arcs, _) = exchange(comm, &out.items, &out.counts);
        drop(out);
        let rank = comm.rank();
        let (_, j) = grid.coords(rank);
        let range = grid.column_range(j);
        let columns = usize::try_from(range.end - range.start).expect("fits memory");
        // Every v here is of column block j: its index is `v - first`.
        let column_local = |v: I| usize::try_from(v.to_u64() - range.start).expect("fits memory");
        let column_key = |[_, v]: [I; 2]| column_local(v);
        let (ends, targets) = sort_by(backend, &arcs, columns, column_key, |[u, _]| u);
        let offsets = Offsets::narrowed_on(backend, &ends);
        let rows = grid.row_len();
        let row_local = |[u, _]: [I; 2]| grid.row_local(u.to_u64());
        let (ends, sources) = sort_by(backend, &arcs, rows, row_local, |[_, v]| v);
        let row_offsets = Offsets::narrowed_on(backend, &ends);
        drop((ends, arcs));
        let degrees = owned_degrees(comm, grid, &row_offsets);
        let [total_arcs] = all_reduce(comm, [degrees.iter().sum::<u64>()], Reduce::Sum);
        let classes = column_classes(comm, &grid, &degrees);
        let hubs = GridHubs::build(comm, &grid, &degrees, &classes, |c| {
            &targets[offsets.row(c)]
        });
        let sources_of = |k: usize| &sources[row_offsets.row(k)];
        let row_hubs = LocalHubs::of_rows(
            backend,
            rows,
            grid.num_vertices(),
            sources_of,
            |v: I| classes[column_local(v)],
            |_| I::from_u64(range.start),
        );
        let (piece, piece_words) = (grid.piece(), grid.piece().div_ceil(64));
        let mut live = vec![0u64; grid.cols() * piece_words];
        for k in (0..rows).filter(|&k| row_offsets.degree(k) > 0) {
            let (segment, l) = (k / piece, k % piece);
            live[segment * piece_words + l / 64] |= 1 << (l % 64);
        }
        GridGraph {
            grid,
            rank,
            offsets,
            targets,
            row_offsets,
            sources,
            degrees,
            total_arcs,
            hubs,
            row_hubs,
            live,
        }
    }

    /// Bytes a rank holds for its cell in a graph of `num_vertices` over
    /// `ranks`, with `arcs` arcs in the cell: both orientations' offsets
    /// and ids, the owned vertices' degrees, the rows' hubs and bits, and
    /// the hubs' lists (`GridHubs`, the owned vertices' arcs taken as the
    /// cell's).
    pub fn bytes_for(num_vertices: u64, ranks: usize, arcs: u64) -> u64 {
        let grid = Grid::new(num_vertices, ranks);
        let columns = num_vertices.div_ceil(grid.cols() as u64);
        let (owned, rows) = (grid.piece() as u64, grid.row_len() as u64);
        let id = size_of::<I>() as u64;
        let end = Offsets::end_bytes(arcs);
        end * (columns + 1)
            + end * (rows + 1)
            + 8 * owned
            + 2 * arcs * id
            + rows * id
            + rows.div_ceil(8)
            + GridHubs::bytes_for(columns, arcs)
    }
}

/// The degree class of every vertex of this rank's column block, in id
/// order: the owners' classes all-gathered in the grid column (a byte a
/// vertex, `(R - 1) piece` bytes from each rank). Collective.
fn column_classes(comm: &dyn Comm, grid: &Grid, degrees: &[u64]) -> Vec<u8> {
    let part = *grid.partition();
    let mine: Vec<u8> = degrees.iter().map(|&d| kernels::degree_class(d)).collect();
    // The column block's pieces are consecutive ids.
    let group = grid.column_group(comm);
    let counts: Vec<usize> = group.members().iter().map(|&m| part.count(m)).collect();
    let mut classes = vec![0u8; counts.iter().sum()];
    all_gather(&group, &mine, &counts, &mut classes);
    classes
}

/// The degrees of the vertices this rank owns: each member of the grid
/// row gets the row lengths of its piece from every cell of the row, and
/// sums them. Collective.
fn owned_degrees(comm: &dyn Comm, grid: Grid, row_offsets: &Offsets) -> Vec<u64> {
    let part = *grid.partition();
    let row = grid.row_group(comm);
    let counts: Vec<usize> = row.members().iter().map(|&m| part.count(m)).collect();
    let mut send = Vec::with_capacity(counts.iter().sum());
    for (j, &count) in counts.iter().enumerate() {
        let first = j * grid.piece();
        send.extend((first..first + count).map(|k| row_offsets.degree(k)));
    }
    let (received, _) = exchange(&row, &send, &counts);
    let mut degrees = vec![0u64; part.count(comm.rank())];
    for piece in received.chunks(degrees.len().max(1)) {
        degrees.iter_mut().zip(piece).for_each(|(d, &x)| *d += x);
    }
    degrees
}

impl<I: Id> GridGraph<I> {
    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The first id of this rank's column block.
    pub fn first_column(&self) -> u64 {
        self.grid.column_range(self.grid.coords(self.rank).1).start
    }

    /// The number of columns (the vertices of the column block).
    pub fn num_columns(&self) -> usize {
        self.offsets.rows()
    }

    /// The arcs of the cell.
    pub fn num_arcs(&self) -> usize {
        self.targets.len()
    }

    /// The `u` adjacent to the column block's `column`-th vertex, within
    /// this rank's row block.
    #[inline]
    pub fn neighbors(&self, column: usize) -> &[I] {
        &self.targets[self.offsets.row(column)]
    }

    /// The degree of the `local`-th vertex this rank owns (over the whole
    /// graph, as the 1-D rows count it).
    #[inline]
    pub fn degree(&self, local: usize) -> u64 {
        self.degrees[local]
    }

    /// The vertices this rank owns.
    pub fn num_owned(&self) -> usize {
        self.degrees.len()
    }

    /// The hubs of the column block and this rank's lists of them
    /// (`grid/hubs.rs`).
    pub(crate) fn hubs(&self) -> &GridHubs {
        &self.hubs
    }

    /// The pairs `(neighbour, hub)` this rank sent other ranks in kernel 1
    /// for the hubs' lists.
    pub fn listed_out(&self) -> u64 {
        self.hubs.listed_out()
    }

    /// The arcs of the whole graph.
    pub fn total_arcs(&self) -> u64 {
        self.total_arcs
    }

    /// The `v` of this rank's column block adjacent to the row block's
    /// vertex at index `row` ([`Grid::row_local`]).
    #[inline]
    pub fn sources(&self, row: usize) -> &[I] {
        &self.sources[self.row_offsets.row(row)]
    }

    /// The hub of row `row` in the cell (a `v` of the column block, the
    /// rule of `bfs/hubs.rs`), and whether every arc of the row leads to
    /// it. Only for a row with arcs here ([`GridGraph::live`]). O(1).
    #[inline]
    pub(crate) fn row_hub(&self, row: usize) -> (u64, bool) {
        self.row_hubs.ask(row)
    }

    /// The rows of the row block's `segment`-th piece (of the grid row's
    /// member `segment`) that have arcs in the cell: a bit a vertex of the
    /// piece, `ceil(piece / 64)` words.
    pub(crate) fn live(&self, segment: usize) -> &[u64] {
        let words = self.grid.piece().div_ceil(64);
        &self.live[segment * words..(segment + 1) * words]
    }
}
