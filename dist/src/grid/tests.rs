use super::*;
use crate::comm::Reduce;
use crate::{Solo, ThreadRanks, all_gather, all_reduce, exchange};

/// Guards the shape rule: R * C = P, R <= C, R the largest divisor not
/// above sqrt(P); primes give one grid row.
#[test]
fn grid_shape_is_as_square_as_the_divisors_allow() {
    let want = [
        (1, (1, 1)),
        (2, (1, 2)),
        (3, (1, 3)),
        (4, (2, 2)),
        (6, (2, 3)),
        (7, (1, 7)),
        (8, (2, 4)),
        (9, (3, 3)),
        (12, (3, 4)),
        (16, (4, 4)),
        (18, (3, 6)),
    ];
    for (p, shape) in want {
        assert_eq!(Grid::shape(p), shape, "P {p}");
    }
}

/// Guards the grid places found by multiplication (`Grid::coords`) against
/// division, for every rank of small grids and the last ranks of wide ones
/// (up to 2^31 ranks), and `cells` against `cell` both ways.
#[test]
fn grid_coords_by_multiplication_equal_coords_by_division() {
    for (rows, cols) in [
        (1, 1),
        (1, 7),
        (2, 3),
        (3, 3),
        (7, 9),
        (64, 64),
        (1 << 15, 1 << 16),
    ] {
        let g = Grid::with_shape(1 << 40, rows, cols);
        let p = rows * cols;
        let ranks = (0..p.min(4096)).chain(p.saturating_sub(4096)..p);
        for rank in ranks {
            assert_eq!(
                g.coords(rank),
                (rank % rows, rank / rows),
                "{rows} x {cols}, rank {rank}"
            );
            assert_eq!(g.rank_at(rank % rows, rank / rows), rank);
        }
    }
    let g = Grid::new(1000, 6);
    for (u, v) in [(0, 999), (170, 3), (512, 511), (999, 999)] {
        assert_eq!(g.cells(u, v), (g.cell(u, v), g.cell(v, u)), "({u}, {v})");
    }
}

/// Guards ownership and blocks for P = 1..16 and awkward N: each vertex
/// has one owner, which sits in the vertex's row and column; column blocks
/// and row blocks each cover 0..N once; row-block indices are distinct;
/// each arc maps to exactly the rank at (row of u, column of v).
#[test]
fn grid_blocks_cover_every_vertex_once_for_p_1_to_16() {
    for p in 1..=16 {
        for n in [1u64, 10, 64, 100, 1000, 4096] {
            let g = Grid::new(n, p);
            let (r, c) = (g.rows(), g.cols());
            assert_eq!(r * c, p);
            let mut in_column = vec![0u32; n as usize];
            for j in 0..c {
                for v in g.column_range(j) {
                    in_column[v as usize] += 1;
                    assert_eq!(g.column_of(v), j);
                    assert_eq!(g.column_local(v) as u64, v - g.column_range(j).start);
                }
            }
            assert!(in_column.iter().all(|&k| k == 1), "P {p} N {n}");
            let mut seen = vec![vec![false; g.row_len()]; r];
            for v in 0..n {
                let owner = g.owner(v);
                let (i, j) = g.coords(owner);
                assert_eq!(g.rank_at(i, j), owner);
                assert_eq!((g.row_of(v), g.column_of(v)), (i, j), "P {p} N {n} v {v}");
                assert!(g.row_ranks(i).contains(&owner));
                assert!(g.column_ranks(j).contains(&owner));
                let slot = &mut seen[i][g.row_local(v)];
                assert!(!*slot, "row index reused: P {p} N {n} v {v}");
                *slot = true;
            }
            let owned: usize = (0..p).map(|k| g.partition().count(k)).sum();
            assert_eq!(owned as u64, n);
            for (u, v) in [(0, n - 1), (n - 1, 0), (n / 2, n / 3), (n / 3, n / 3)] {
                let cells: Vec<usize> = (0..p)
                    .filter(|&k| g.coords(k) == (g.row_of(u), g.column_of(v)))
                    .collect();
                assert_eq!(cells, vec![g.cell(u, v)], "P {p} N {n} ({u}, {v})");
            }
        }
    }
}

/// Guards row and column groups: all-gathers, exchanges and all-reduces
/// stay within the group (every rank calls at once), members in order,
/// and the bytes counted are those sent to other members.
#[test]
fn grid_row_and_column_groups_gather_within_themselves() {
    for p in [1, 2, 3, 4, 6, 9, 12] {
        let grid = Grid::new(64 * p as u64, p);
        let got = ThreadRanks::run(p, |c| {
            let me = c.rank() as u64;
            let row = grid.row_group(c);
            let col = grid.column_group(c);
            let before = c.bytes_sent();
            let mut row_all = vec![0u64; 2 * row.size()];
            all_gather(&row, &[me, me + 100], &vec![2; row.size()], &mut row_all);
            let row_bytes = c.bytes_sent() - before;
            let mut col_all = vec![0u64; col.size()];
            all_gather(&col, &[me], &vec![1; col.size()], &mut col_all);
            let col_sum = all_reduce(&col, [me, 1], Reduce::Sum);
            let row_max = all_reduce(&row, [me], Reduce::Max);
            // Each sends its rank to every row member, k + 1 copies to
            // the k-th.
            let send: Vec<u64> = (0..row.size())
                .flat_map(|k| std::iter::repeat_n(me, k + 1))
                .collect();
            let counts: Vec<usize> = (1..=row.size()).collect();
            let (recv, recv_counts) = exchange(&row, &send, &counts);
            (
                row_all,
                row_bytes,
                col_all,
                col_sum,
                row_max,
                recv,
                recv_counts,
                row.rank(),
            )
        });
        for (k, (row_all, row_bytes, col_all, col_sum, row_max, recv, rc, row_rank)) in
            got.into_iter().enumerate()
        {
            let (i, j) = grid.coords(k);
            let rows: Vec<u64> = grid.row_ranks(i).iter().map(|&m| m as u64).collect();
            let cols: Vec<u64> = grid.column_ranks(j).iter().map(|&m| m as u64).collect();
            let want: Vec<u64> = rows.iter().flat_map(|&m| [m, m + 100]).collect();
            assert_eq!(row_all, want, "P {p} rank {k}");
            assert_eq!(row_bytes, 16 * (rows.len() as u64 - 1), "P {p} rank {k}");
            assert_eq!(col_all, cols);
            assert_eq!(col_sum, [cols.iter().sum(), cols.len() as u64]);
            assert_eq!(row_max, [*rows.last().unwrap()]);
            assert_eq!(row_rank, j);
            assert_eq!(rc, vec![j + 1; rows.len()]);
            let want: Vec<u64> = rows.iter().flat_map(|&m| vec![m; j + 1]).collect();
            assert_eq!(recv, want);
        }
    }
}

/// Guards the one-rank grid: its groups are Solo's copies.
#[test]
fn grid_groups_of_one_rank_copy() {
    let grid = Grid::new(10, 1);
    let solo = Solo;
    let row = grid.row_group(&solo);
    let mut all = [0u32; 2];
    all_gather(&row, &[3, 4], &[2], &mut all);
    assert_eq!(all, [3, 4]);
    assert_eq!(all_reduce(&grid.column_group(&solo), [5], Reduce::Min), [5]);
}

/// Guards the ring shift of the bottom-up row step, in grid rows and
/// columns (groups over `ThreadRanks`) and over all ranks: each rank gets
/// what the previous one sent, and counts only bytes to another rank.
#[test]
fn grid_groups_shift_to_the_next_member() {
    for p in [1, 2, 4, 6, 9] {
        let grid = Grid::new(64 * p as u64, p);
        let got = ThreadRanks::run(p, |c| {
            let me = c.rank() as u64;
            let row = grid.row_group(c);
            let mut from_row = [0u64; 2];
            let before = c.bytes_sent();
            row.shift(
                bytemuck::cast_slice(&[me, me + 100]),
                bytemuck::cast_slice_mut(&mut from_row),
            );
            let row_bytes = c.bytes_sent() - before;
            let mut from_all = [0u64];
            c.shift(
                bytemuck::bytes_of(&me),
                bytemuck::cast_slice_mut(&mut from_all),
            );
            (from_row, row_bytes, from_all[0])
        });
        for (k, (from_row, row_bytes, from_all)) in got.into_iter().enumerate() {
            let (i, j) = grid.coords(k);
            let c = grid.cols();
            let previous = grid.rank_at(i, (j + c - 1) % c) as u64;
            assert_eq!(from_row, [previous, previous + 100], "P {p} rank {k}");
            assert_eq!(row_bytes, if c > 1 { 16 } else { 0 }, "P {p} rank {k}");
            assert_eq!(from_all, ((k + p - 1) % p) as u64, "P {p} rank {k}");
        }
    }
}

/// Every rank's cell as `(rank, [u, v])` arcs with global ids, from each
/// rank's share of `list`'s tuples.
fn cells(list: &generator::EdgeList, p: usize) -> Vec<(usize, Vec<[u64; 2]>)> {
    let grid = Grid::new(list.num_vertices() as u64, p);
    ThreadRanks::run(p, |c| {
        let m = list.len();
        let share = &list.edges()[m * c.rank() / p..m * (c.rank() + 1) / p];
        let g = GridGraph::<u32>::build(c, grid, share);
        let first = g.first_column();
        let mut arcs = Vec::new();
        for col in 0..g.num_columns() {
            for &u in g.neighbors(col) {
                arcs.push([u64::from(u), first + col as u64]);
            }
        }
        assert_eq!(arcs.len(), g.num_arcs());
        // The same arcs by row.
        let (i, _) = grid.coords(c.rank());
        let mut by_row = Vec::new();
        for k in 0..grid.row_len() {
            let sources = g.sources(k);
            match grid.row_vertex(i, k) {
                Some(u) => by_row.extend(sources.iter().map(|&v| [u, u64::from(v)])),
                None => assert!(sources.is_empty(), "a hole has no arcs"),
            }
        }
        let mut by_column = arcs.clone();
        by_column.sort_unstable();
        by_row.sort_unstable();
        assert_eq!(by_row, by_column, "P {p} rank {}", c.rank());
        (c.rank(), arcs)
    })
}

/// Guards grid kernel 1 for P = 1, 2, 3, 4, 6, 9: every arc sits in the
/// cell at (row of u, column of v), and the cells together hold exactly
/// both directions of every tuple that is not a self-loop (as multisets,
/// and by a checksum that does not depend on the order); each cell's rows
/// hold the same arcs as its columns.
#[test]
fn grid_cells_hold_both_directions_of_every_tuple_once() {
    use generator::EdgeGenerator;
    let list = generator::Kronecker::new(9, 8, 7).unwrap().generate();
    let mut want: Vec<[u64; 2]> = list
        .edges()
        .iter()
        .filter(|e| e.u != e.v)
        .flat_map(|e| {
            let (a, b) = (u64::from(e.u), u64::from(e.v));
            [[a, b], [b, a]]
        })
        .collect();
    want.sort_unstable();
    let checksum = |arcs: &[[u64; 2]]| {
        arcs.iter().fold(0u64, |s, &[u, v]| {
            s.wrapping_add((u.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ v).wrapping_mul(31))
        })
    };
    assert!(
        list.edges().iter().any(|e| e.u == e.v),
        "self-loops present"
    );
    for p in [1, 2, 3, 4, 6, 9] {
        let grid = Grid::new(list.num_vertices() as u64, p);
        let mut got = Vec::new();
        for (rank, arcs) in cells(&list, p) {
            for &[u, v] in &arcs {
                assert_eq!(grid.cell(u, v), rank, "P {p} arc ({u}, {v})");
            }
            got.extend(arcs);
        }
        assert_eq!(checksum(&got), checksum(&want), "P {p}");
        got.sort_unstable();
        assert_eq!(got, want, "P {p}");
    }
}

/// Depths from `root` by a plain queue over the one-process CSR
/// (`u32::MAX` where unreached).
fn depths(csr: &kernels::Csr, root: u32) -> Vec<u32> {
    let mut depth = vec![u32::MAX; csr.num_vertices()];
    depth[root as usize] = 0;
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(v) = queue.pop_front() {
        for &u in csr.neighbors(v) {
            if depth[u as usize] == u32::MAX {
                depth[u as usize] = depth[v as usize] + 1;
                queue.push_back(u);
            }
        }
    }
    depth
}

/// Guards the grid BFS, top-down, bottom-up and switching, for P = 1, 2,
/// 3, 4, 6, 9: for each root the ranks' parents form a BFS tree of the
/// one-process graph (every vertex reached exactly when the one-process
/// search reaches it, each parent a neighbour one level up), with its
/// reached count and depth; and each rank's bytes per level are exactly
/// the traffic model's (`grid.rs`): top-down `8 (R - 1) + 4 f_r (R - 1)`
/// to expand, bottom-up `8 words_r (R - 1)` to expand and `8 (piece / 64)
/// (C - 1)` for the row step's bits; `8 (C - 1) + b s` to fold (`b` the
/// packed pair's bytes; `4 (C - 1)` more for the counts of hubs
/// announced and `h` bytes a hub to each other member), `16 (P - 1)` to agree (the next frontier's size
/// and arcs).
#[test]
fn grid_bfs_is_a_bfs_tree_with_the_modelled_bytes() {
    let shapes: Vec<(usize, usize)> = [1, 2, 3, 4, 6, 9].map(Grid::shape).to_vec();
    for direction in [
        Direction::TopDown,
        Direction::BottomUp,
        Direction::Optimizing(kernels::DoParams::DEFAULT),
    ] {
        grid_bfs_against_one_process(direction, &shapes, 2);
    }
}

/// Guards the pipelined bottom-up row step on every kind of grid (one
/// row, one column, square, oblong) and 1 and 2 threads a rank: the trees
/// are BFS trees with the one process's reached count and depth, the
/// bytes are the model's, and a bottom-up level proposes each vertex at
/// most once in its row (the proposals to other ranks, summed, at most
/// the vertices the level found; every cell proposing a vertex it can
/// reach would send up to C of them).
#[test]
fn grid_bottom_up_row_step_proposes_each_vertex_once_on_any_shape() {
    let shapes = [(1, 4), (4, 1), (2, 2), (2, 3), (3, 3)];
    for threads in [1, 2] {
        for direction in [
            Direction::BottomUp,
            Direction::Optimizing(kernels::DoParams::DEFAULT),
        ] {
            grid_bfs_against_one_process(direction, &shapes, threads);
        }
    }
}

fn grid_bfs_against_one_process(direction: Direction, shapes: &[(usize, usize)], threads: usize) {
    use generator::EdgeGenerator;
    let list = generator::Kronecker::new(10, 16, 11).unwrap().generate();
    let csr = kernels::Csr::from_edge_list(&list);
    let n = list.num_vertices() as u64;
    let roots: Vec<u32> = (0..n as u32)
        .step_by(97)
        .filter(|&v| csr.degree(v) > 0)
        .take(4)
        .chain([1])
        .collect();
    for &(r, c) in shapes {
        let p = r * c;
        let grid = Grid::with_shape(n, r, c);
        let (r, c) = (r as u64, c as u64);
        let runs = ThreadRanks::run(p, |comm| {
            crate::on_threads(threads, || {
                let m = list.len();
                let share = &list.edges()[m * comm.rank() / p..m * (comm.rank() + 1) / p];
                let graph = std::sync::Arc::new(GridGraph::<u32>::build(comm, grid, share));
                let mut bfs = GridBfs::new(comm, graph, direction);
                let runs: Vec<_> = (roots.iter())
                    .map(|&root| {
                        let stats = bfs.search(u64::from(root));
                        (stats, bfs.parents().to_vec(), bfs.levels().to_vec())
                    })
                    .collect();
                (runs, (bfs.pair_bytes() as u64, bfs.hub_bytes() as u64))
            })
        });
        let shape = format!("{direction:?} {r} x {c}, {threads} threads");
        let mut announced = 0;
        for (k, &root) in roots.iter().enumerate() {
            let want = depths(&csr, root);
            let mut parents = Vec::new();
            for (rank, (run, (pair, hub))) in runs.iter().enumerate() {
                let (stats, piece, levels) = &run[k];
                assert_eq!(
                    grid.partition().first(rank),
                    parents.len() as u64,
                    "pieces in order"
                );
                parents.extend_from_slice(piece);
                let reached = want.iter().filter(|&&d| d != u32::MAX).count() as u64;
                let depth = *want.iter().filter(|&&d| d != u32::MAX).max().unwrap();
                assert_eq!(
                    (stats.reached, stats.depth),
                    (reached, depth),
                    "{shape} root {root}"
                );
                assert_eq!(levels.len() as u32, depth + 1, "{shape} root {root}");
                let mut bottom_up = 0;
                for level in levels {
                    let expand = if level.bottom_up {
                        bottom_up += 1;
                        assert!(
                            level.all_proposals <= level.discovered,
                            "{shape} root {root}: {level:?}"
                        );
                        let words = grid.partition().words(rank) as u64;
                        let piece_words = grid.piece().div_ceil(64) as u64;
                        8 * words * (r - 1) + 8 * piece_words * (c - 1)
                    } else {
                        8 * (r - 1) + 4 * level.frontier * (r - 1)
                    };
                    let fold = 12 * (c - 1) + pair * level.proposals_out;
                    announced += level.hubs;
                    assert!(!level.bottom_up || level.hubs == 0, "{shape}: {level:?}");
                    let hubs = hub * level.hubs * (c - 1);
                    let model = expand + fold + hubs + 16 * (p as u64 - 1);
                    assert_eq!(level.bytes, model, "{shape} rank {rank} root {root}");
                }
                match direction {
                    Direction::TopDown => assert_eq!(bottom_up, 0),
                    Direction::BottomUp => assert_eq!(bottom_up, levels.len()),
                    Direction::Optimizing(_) if depth >= 3 => {
                        assert!(
                            0 < bottom_up && bottom_up < levels.len(),
                            "{shape} root {root}"
                        );
                    }
                    Direction::Optimizing(_) => {}
                }
            }
            for (u, &parent) in parents.iter().enumerate() {
                let d = want[u];
                if d == u32::MAX {
                    assert_eq!(parent, crate::NO_PARENT, "{shape} root {root} u {u}");
                } else if d == 0 {
                    assert_eq!(parent, u as u64);
                } else {
                    let parent = u32::try_from(parent).expect("reached");
                    assert_eq!(want[parent as usize] + 1, d, "{shape} root {root} u {u}");
                    assert!(csr.neighbors(u as u32).contains(&parent), "{shape} u {u}");
                }
            }
        }
        // Top-down levels leave hubs to the lists (the trees above hold).
        let top_down = direction != Direction::BottomUp;
        assert_eq!(announced > 0, top_down, "{shape}: hubs announced");
    }
}

/// Guards the layout promise of the grid: a 2-D search's parents are in
/// the 1-D layout, so the distributed validator accepts them as they are,
/// and its reached count and depth are the 1-D `DistBfs`'s; with u64 ids
/// from 64-bit tuples as well as u32.
#[test]
fn grid_bfs_parents_pass_the_1d_validator_and_match_dist_bfs() {
    use generator::{EdgeGenerator, Tuple};
    let list = generator::Kronecker::new(9, 16, 5).unwrap().generate();
    let n = list.num_vertices() as u64;
    fn run<I: crate::Id>(
        list: &generator::EdgeList,
        p: usize,
        roots: &[u64],
        direction: Direction,
    ) {
        let n = list.num_vertices() as u64;
        let grid = Grid::new(n, p);
        let got = ThreadRanks::run(p, |c| {
            let m = list.len();
            let (lo, hi) = (m * c.rank() / p, m * (c.rank() + 1) / p);
            let share: Vec<I::Tuple> = list.edges()[lo..hi]
                .iter()
                .map(|e| Tuple::from_ends(e.u.into(), e.v.into()))
                .collect();
            let cell = std::sync::Arc::new(GridGraph::<I>::build(c, grid, &share));
            let rows =
                std::sync::Arc::new(crate::LocalGraph::<I>::build(c, *grid.partition(), &share));
            let mut grid_bfs = GridBfs::new(c, cell, direction);
            let mut one_d = crate::DistBfs::new(c, rows, kernels::DoParams::DEFAULT);
            let mut validator = crate::DistValidator::new(c, *grid.partition(), &share, lo as u64);
            roots
                .iter()
                .map(|&root| {
                    let stats = grid_bfs.search(root);
                    let verdict = validator.check(root, grid_bfs.parents(), None);
                    one_d.reset();
                    let want = one_d.search(root);
                    (stats, want, verdict.map(|s| (s.reached, s.depth)))
                })
                .collect::<Vec<_>>()
        });
        for per_rank in got {
            for (stats, want, verdict) in per_rank {
                assert_eq!(
                    (stats.reached, stats.depth),
                    (want.reached, want.depth),
                    "P {p}"
                );
                assert_eq!(verdict, Ok((stats.reached, stats.depth)), "P {p}");
            }
        }
    }
    let roots = [0, n / 3, n / 2 + 1];
    for p in [2, 4, 6] {
        for direction in [
            Direction::TopDown,
            Direction::BottomUp,
            Direction::Optimizing(kernels::DoParams::DEFAULT),
        ] {
            run::<u32>(&list, p, &roots, direction);
            run::<u64>(&list, p, &roots, direction);
        }
    }
}

/// Guards the grid's hubs (`grid/hubs.rs`) on every kind of grid: the
/// hubs are the 1-D rule's on the one-process degrees (the highest degree
/// classes of at least 64 within the budgets), every cell of a grid column
/// marks the same ones, and each owner's list of a hub is exactly its own
/// vertices adjacent to the hub, each arc once.
#[test]
fn grid_hubs_lists_are_each_hubs_neighbours_at_their_owners() {
    use generator::EdgeGenerator;
    let list = generator::Kronecker::new(10, 16, 11).unwrap().generate();
    let csr = kernels::Csr::from_edge_list(&list);
    let n = list.num_vertices() as u64;
    let degrees = (0..n as u32).map(|v| csr.degree(v));
    let least = crate::bfs::delegates::least_hub_class(&Solo, degrees);
    let hubs: Vec<u32> = (0..n as u32)
        .filter(|&v| usize::from(kernels::degree_class(csr.degree(v))) >= least)
        .collect();
    assert!(hubs.len() > 4, "SCALE 10 has hubs: {}", hubs.len());
    for (r, c) in [(1, 1), (1, 4), (4, 1), (2, 2), (2, 3), (3, 3)] {
        let p = r * c;
        let grid = Grid::with_shape(n, r, c);
        let part = *grid.partition();
        ThreadRanks::run(p, |comm| {
            let m = list.len();
            let share = &list.edges()[m * comm.rank() / p..m * (comm.rank() + 1) / p];
            let graph = GridGraph::<u32>::build(comm, grid, share);
            let (first, owned) = (graph.first_column(), part.first(comm.rank()));
            for col in 0..graph.num_columns() {
                let v = u32::try_from(first + col as u64).unwrap();
                let hub = hubs.binary_search(&v).is_ok();
                assert_eq!(graph.hubs().is_hub(col), hub, "{r} x {c}: vertex {v}");
            }
            let range = owned..owned + part.count(comm.rank()) as u64;
            for &h in &hubs {
                let mut want: Vec<u64> = (csr.neighbors(h).iter())
                    .map(|&u| u64::from(u))
                    .filter(|u| range.contains(u))
                    .collect();
                let mut got: Vec<u64> = (graph.hubs().list(u64::from(h)).iter())
                    .map(|&k| owned + u64::from(k))
                    .collect();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{r} x {c} rank {}: hub {h}", comm.rank());
            }
        });
    }
}

/// Guards the grid's counts for Beamer's rule (a top-down level's found
/// arcs, summed from the owners' degrees after the fold): on the same
/// graph, roots and P, every level goes the way the 1-D engine's does,
/// for values of `alpha` close enough together that a count off by a
/// factor of two moves some switch.
#[test]
fn grid_levels_take_the_1d_engines_directions() {
    for alpha in [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 90, 128, 256] {
        let params = kernels::DoParams {
            alpha,
            ..crate::DEFAULT_PARAMS
        };
        grid_levels_take_the_1d_directions_with(params);
    }
}

fn grid_levels_take_the_1d_directions_with(params: kernels::DoParams) {
    use crate::{DistBfs, LocalGraph, Partition};
    use generator::EdgeGenerator;
    use std::sync::Arc;
    let list = generator::Kronecker::new(11, 16, 5).unwrap().generate();
    let n = list.num_vertices() as u64;
    let roots = [0u64, 7, 300, 1021];
    for p in [1, 2, 4] {
        let runs = ThreadRanks::run(p, |comm| {
            let m = list.len();
            let share = &list.edges()[m * comm.rank() / p..m * (comm.rank() + 1) / p];
            let rows = Arc::new(LocalGraph::<u32>::build(comm, Partition::new(n, p), share));
            let cell = Arc::new(GridGraph::<u32>::build(comm, Grid::new(n, p), share));
            let mut one_d = DistBfs::new(comm, rows, params);
            let mut grid = GridBfs::new(comm, cell, Direction::Optimizing(params));
            (roots.iter())
                .map(|&root| {
                    one_d.reset();
                    let want = one_d.search(root);
                    let got = grid.search(root);
                    assert_eq!((got.reached, got.depth), (want.reached, want.depth));
                    let steps = one_d.steps().iter();
                    let one_d_ways = steps.map(|s| s.direction == kernels::Direction::BottomUp);
                    let grid_ways = grid.levels().iter().map(|l| l.bottom_up);
                    (
                        one_d_ways.collect::<Vec<_>>(),
                        grid_ways.collect::<Vec<_>>(),
                    )
                })
                .collect::<Vec<_>>()
        });
        for (rank, run) in runs.iter().enumerate() {
            for (k, (one_d, grid)) in run.iter().enumerate() {
                let root = roots[k];
                assert_eq!(
                    grid, one_d,
                    "alpha {} P {p} rank {rank} root {root}",
                    params.alpha
                );
            }
        }
    }
}
