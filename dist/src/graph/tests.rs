use super::*;
use crate::ThreadRanks;
use generator::{Edge, EdgeGenerator, Kronecker, WideEdge};
use kernels::Csr;

fn widen(e: &Edge) -> WideEdge {
    WideEdge::from_ends(e.u.into(), e.v.into())
}

/// Guards kernel 1 across ranks: for P = 1..4 every rank's rows hold
/// exactly the neighbours the single-process CSR gives its vertices
/// (as multisets; the order within a row may differ), with u32 ids from
/// 32-bit tuples and u64 ids from 64-bit tuples; the rows' ends are
/// narrow (their arcs fit `u32`) and give each row's degree.
#[test]
fn the_ranks_rows_are_the_single_process_graph() {
    let g = Kronecker::new(10, 8, 3).unwrap();
    let list = g.generate();
    let csr = Csr::from_edge_list(&list);
    for p in 1..=4 {
        let check = |rows: Vec<(u64, Vec<Vec<u64>>)>| {
            for (first, rows) in rows {
                for (i, mut row) in rows.into_iter().enumerate() {
                    let v = u32::try_from(first + i as u64).unwrap();
                    let mut want: Vec<u64> =
                        csr.neighbors(v).iter().map(|&t| u64::from(t)).collect();
                    row.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(row, want, "P {p} vertex {v}");
                }
            }
        };
        let share = |rank: usize| {
            let m = list.len();
            &list.edges()[m * rank / p..m * (rank + 1) / p]
        };
        let part = Partition::new(list.num_vertices() as u64, p);
        check(ThreadRanks::run(p, |c| {
            let graph = LocalGraph::<u32>::build(c, part, share(c.rank()));
            assert!(
                matches!(graph.offsets, Offsets::Narrow(_)),
                "ids' ends are narrow"
            );
            let rows = (0..graph.num_rows())
                .map(|r| {
                    assert_eq!(graph.degree(r), graph.neighbors(r).len() as u64);
                    graph.neighbors(r).iter().map(|&t| t.to_u64()).collect()
                })
                .collect();
            (graph.first(), rows)
        }));
        check(ThreadRanks::run(p, |c| {
            let wide: Vec<WideEdge> = share(c.rank()).iter().map(widen).collect();
            let graph = LocalGraph::<u64>::build(c, part, &wide);
            let rows = (0..graph.num_rows())
                .map(|r| graph.neighbors(r).to_vec())
                .collect();
            (graph.first(), rows)
        }));
    }
}

/// Guards the weighted build: for P = 1..4, u32 and u64 ids, every
/// rank's row of `v` holds exactly the `(target, weight)` arcs the tuples
/// give `v` (as multisets, self-loops dropped), light ones (lighter than
/// the bound) first, the light part is a prefix of the row, and the
/// heavy part is ordered by weight band (a pull of kernel 3 stops at the
/// first band that cannot help): no arc's weight below an earlier arc's
/// band floor.
#[test]
fn weighted_rows_carry_each_tuple_weight_light_arcs_first_heavy_by_band() {
    let g = Kronecker::new(9, 8, 5).unwrap();
    let list = g.generate();
    let weights = generator::generate_weights(&g, 0..g.num_blocks(), &|| {});
    let n = list.num_vertices();
    let mut want: Vec<Vec<(u64, u32)>> = vec![Vec::new(); n];
    for (e, w) in list.edges().iter().zip(&weights) {
        if !e.is_self_loop() {
            want[e.u as usize].push((e.v.into(), w.to_bits()));
            want[e.v as usize].push((e.u.into(), w.to_bits()));
        }
    }
    for row in &mut want {
        row.sort_unstable();
    }
    let below = 0.3;
    for p in 1..=4 {
        let part = Partition::new(n as u64, p);
        let share = |rank: usize| {
            let m = list.len();
            m * rank / p..m * (rank + 1) / p
        };
        // Each rank's rows as (first id, per row (light arcs, heavy arcs)).
        type Rows = (u64, Vec<(Vec<(u64, f32)>, Vec<(u64, f32)>)>);
        // By original id: the rows and targets are renumbered by degree.
        fn rows_of<I: Id>(graph: &WeightedLocalGraph<I>) -> Rows {
            let original = |arcs: Vec<(u64, f32)>| {
                arcs.into_iter()
                    .map(|(t, w)| (graph.original(t), w))
                    .collect()
            };
            let rows = (0..graph.num_rows())
                .map(|x| {
                    let r = graph.row_of(x);
                    let (light, heavy) = graph.light_and_heavy(r);
                    assert_eq!(
                        light.len() + heavy.len(),
                        graph.degree(r) as usize,
                        "row {r}"
                    );
                    assert!(graph.arcs(r).eq(light.clone().chain(heavy.clone())));
                    let least = heavy.clone().map(|(_, w)| w).fold(f32::INFINITY, f32::min);
                    let bound = graph.heavy_lower_bound(r);
                    assert!(bound <= least, "row {r}: {bound} > {least}");
                    if heavy.len() <= 32 {
                        assert_eq!(bound, least, "row {r}: a sorted part's first weight");
                    }
                    (original(light.collect()), original(heavy.collect()))
                })
                .collect();
            (graph.first(), rows)
        }
        let narrow = ThreadRanks::run(p, |c| {
            let r = share(c.rank());
            let graph = WeightedLocalGraph::<u32>::build_weighted(
                c,
                part,
                &list.edges()[r.clone()],
                &weights[r],
                below,
            );
            assert_eq!(graph.light_below(), below);
            assert!(
                matches!(graph.offsets, Offsets::Wide(_)),
                "weighted ends stay wide"
            );
            let plain = graph.unweighted();
            assert!(
                matches!(plain.offsets, Offsets::Narrow(_)),
                "the BFS copy narrows"
            );
            for x in 0..graph.num_rows() {
                let targets = graph.arcs(graph.row_of(x)).map(|(t, _)| graph.original(t));
                assert!(targets.eq(plain.neighbors(x).iter().map(|&t| u64::from(t))));
            }
            rows_of(&graph)
        });
        let wide = ThreadRanks::run(p, |c| {
            let r = share(c.rank());
            let tuples: Vec<WideEdge> = list.edges()[r.clone()].iter().map(widen).collect();
            let graph =
                WeightedLocalGraph::<u64>::build_weighted(c, part, &tuples, &weights[r], below);
            rows_of(&graph)
        });
        assert_eq!(narrow.len(), p);
        for (first, rows) in narrow.into_iter().chain(wide) {
            for (i, (light, heavy)) in rows.into_iter().enumerate() {
                let v = first as usize + i;
                assert!(light.iter().all(|a| a.1 < below), "P {p} vertex {v}");
                assert!(heavy.iter().all(|a| a.1 >= below), "P {p} vertex {v}");
                assert!(
                    heavy.is_sorted_by(|a, b| heavy_floor(a.1) <= b.1),
                    "P {p} vertex {v}"
                );
                if heavy.len() <= 32 {
                    assert!(heavy.is_sorted_by(|a, b| a.1 <= b.1), "P {p} vertex {v}");
                }
                let mut got: Vec<(u64, u32)> = light
                    .iter()
                    .chain(&heavy)
                    .map(|&(t, w)| (t, w.to_bits()))
                    .collect();
                got.sort_unstable();
                assert_eq!(got, want[v], "P {p} vertex {v}");
            }
        }
    }
}

/// Guards the bound a pull of kernel 3 stops on: `heavy_floor(w)` is at
/// most `w`, never falls as `w` grows, and is exact at band edges, for
/// weights from 0 through the edges of the bands to huge ones.
#[test]
fn heavy_floor_is_a_monotone_lower_bound_of_the_weight() {
    let mut weights: Vec<f32> = (0..=200).map(|i| i as f32 / 128.0).collect();
    weights.extend([1e-30, 0.999_999_9, 1.0, 3.5, 1e30, f32::MAX]);
    weights.extend((0..64).map(|b| f32::from_bits((b as f32 / 64.0).to_bits().wrapping_sub(1))));
    weights.retain(|w| w.is_finite() && *w >= 0.0);
    weights.sort_by(f32::total_cmp);
    for w in &weights {
        assert!(heavy_floor(*w) <= *w, "{w}");
    }
    for pair in weights.windows(2) {
        assert!(heavy_floor(pair[0]) <= heavy_floor(pair[1]), "{pair:?}");
    }
    assert_eq!(heavy_floor(1.0 / 64.0), 1.0 / 64.0);
    assert_eq!(heavy_floor(0.5), 0.5);
    assert_eq!(heavy_floor(1e30), 63.0 / 64.0);
}

/// Guards kernel 1's renumbering by degree (`renumber.rs`): for P = 1..4
/// each rank's weighted rows are a permutation of its own vertices
/// (`row_of` one-to-one, `original` its inverse on the rank's ids, owners
/// unchanged), ordered by degree, highest first, ties by original id;
/// every target's original id is a vertex; and the BFS rows copied out
/// are by original id, as the unrenumbered build gives them.
#[test]
fn weighted_rows_are_renumbered_by_degree_within_each_rank() {
    let g = Kronecker::new(9, 8, 7).unwrap();
    let list = g.generate();
    let weights = generator::generate_weights(&g, 0..g.num_blocks(), &|| {});
    let n = list.num_vertices();
    for p in 1..=4 {
        let part = Partition::new(n as u64, p);
        let share = |rank: usize| list.len() * rank / p..list.len() * (rank + 1) / p;
        ThreadRanks::run(p, |c| {
            let r = share(c.rank());
            let tuples = &list.edges()[r.clone()];
            let graph =
                WeightedLocalGraph::<u32>::build_weighted(c, part, tuples, &weights[r], 0.1);
            let (first, rows) = (graph.first(), graph.num_rows());
            let mut seen = vec![false; rows];
            for x in 0..rows {
                let row = graph.row_of(x);
                assert!(!seen[row], "P {p} row {row} twice");
                seen[row] = true;
                assert_eq!(graph.original(first + row as u64), first + x as u64);
            }
            let degree = |row: usize| graph.degree(row);
            for row in 1..rows {
                let (a, b) = (degree(row - 1), degree(row));
                let (xa, xb) = (
                    graph.original(first + row as u64 - 1),
                    graph.original(first + row as u64),
                );
                assert!(a > b || (a == b && xa < xb), "P {p} rows {row}");
            }
            if rows > 1 {
                assert!(degree(0) > degree(rows - 1), "P {p}: the degrees differ");
            }
            for row in 0..rows {
                assert!(graph.arcs(row).all(|(t, _)| graph.original(t) < n as u64));
            }
            let plain = graph.unweighted();
            let unrenumbered = LocalGraph::<u32>::build(c, part, tuples);
            for x in 0..rows {
                let mut got = plain.neighbors(x).to_vec();
                let mut want = unrenumbered.neighbors(x).to_vec();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "P {p} vertex {}", first + x as u64);
            }
        });
    }
}
