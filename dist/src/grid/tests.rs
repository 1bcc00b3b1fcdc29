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
        (c.rank(), arcs)
    })
}

/// Guards grid kernel 1 for P = 1, 2, 3, 4, 6, 9: every arc sits in the
/// cell at (row of u, column of v), and the cells together hold exactly
/// both directions of every tuple that is not a self-loop (as multisets,
/// and by a checksum that does not depend on the order).
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
