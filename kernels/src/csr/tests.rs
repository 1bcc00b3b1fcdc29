use super::*;
use generator::Edge;

fn graph(n: usize, pairs: &[(u32, u32)]) -> Csr {
    let edges: Vec<Edge> = pairs.iter().map(|&(u, v)| Edge::new(u, v)).collect();
    Csr::build(n, &edges)
}

fn sorted_neighbors(g: &Csr, v: u32) -> Vec<u32> {
    let mut n = g.neighbors(v).to_vec();
    n.sort_unstable();
    n
}

#[test]
fn both_directions_kept_self_loops_dropped_duplicates_kept() {
    let g = graph(4, &[(0, 1), (1, 2), (2, 2), (0, 1), (3, 3)]);
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.num_arcs(), 6);
    assert_eq!(sorted_neighbors(&g, 0), [1, 1]);
    assert_eq!(sorted_neighbors(&g, 1), [0, 0, 2]);
    assert_eq!(sorted_neighbors(&g, 2), [1]);
    assert!(g.neighbors(3).is_empty());
    assert_eq!(g.degree(1), 3);
}

#[test]
fn every_hub_is_a_neighbour_or_an_arcless_vertex_itself() {
    use generator::EdgeGenerator;
    let edges = generator::Kronecker::new(12, 8, 3).unwrap().generate();
    let g = Csr::from_edge_list(&edges);
    let n = g.num_vertices() as u32;
    let mut arcless = 0;
    for v in 0..n {
        let row = g.neighbors(v);
        if row.is_empty() {
            arcless += 1;
            assert_eq!(g.hub(v), v);
        } else {
            assert!(row.contains(&g.hub(v)), "{v}'s hub is not a neighbour");
            let sample = row.iter().take(crate::hubs::HUB_SAMPLE);
            let best = sample.map(|&t| g.degree(t)).max().unwrap();
            assert!(
                g.degree(g.hub(v)) * 2 > best,
                "{v}'s hub is far from its best"
            );
        }
    }
    assert!(arcless > 0, "the test should see arcless vertices");
}

#[test]
fn empty_graphs_build() {
    assert_eq!(graph(0, &[]).num_vertices(), 0);
    let g = graph(3, &[]);
    assert_eq!(g.num_arcs(), 0);
    assert!(g.neighbors(2).is_empty());
}

#[test]
fn rows_are_the_same_sets_for_any_number_of_parts() {
    let edges = generator::EdgeGenerator::generate(&generator::Kronecker::new(12, 16, 9).unwrap());
    let one = par::in_pool(1, || Csr::from_edge_list(&edges)).unwrap();
    for threads in [2, 3, 5] {
        let many = par::in_pool(threads, || Csr::from_edge_list(&edges)).unwrap();
        assert_eq!(many.offsets, one.offsets, "{threads} threads");
        for v in 0..edges.num_vertices() as u32 {
            assert_eq!(sorted_neighbors(&many, v), sorted_neighbors(&one, v));
        }
    }
}

/// Guards the narrow offsets: a graph whose arcs fit `u32` keeps 4-byte
/// ends, one that may not 8-byte ones, with the same rows, degrees and
/// nedge; the unweighted copy of a weighted graph narrows its ends too,
/// and ends past `u32` stay wide.
#[test]
fn narrow_and_wide_offsets_hold_the_same_rows() {
    let edges = generator::EdgeGenerator::generate(&generator::Kronecker::new(11, 16, 5).unwrap());
    let n = edges.num_vertices();
    let build = |arcs| Csr::build_ends_on(Backend::Rayon, n, edges.edges(), arcs);
    let (narrow, wide) = (build(2 * edges.len() as u64), build(1 << 32));
    assert!(matches!(narrow.offsets, Offsets::Narrow(_)));
    assert!(matches!(wide.offsets, Offsets::Wide(_)));
    assert_eq!((narrow.end_bytes(), wide.end_bytes()), (4, 8));
    assert_eq!(narrow.heap_bytes() + 4 * (n as u64 + 1), wide.heap_bytes());
    for v in 0..n as u32 {
        assert_eq!(narrow.neighbors(v), wide.neighbors(v), "row {v}");
        assert_eq!(narrow.degree(v), wide.degree(v));
    }
    let parents = crate::Parents::new(n);
    for v in (0..n as u32).step_by(3) {
        parents.slots()[v as usize].store(0, Relaxed);
    }
    assert_eq!(narrow.nedge(&parents), wide.nedge(&parents));
    assert!(narrow.nedge(&parents) > 0);
    let weights = vec![0.5; edges.len()];
    let weighted = crate::WeightedCsr::build(n, edges.edges(), &weights);
    assert_eq!(weighted.unweighted().offsets, narrow.offsets);
    let past = Offsets::narrowed_on(Backend::Rayon, &[0, 1 << 32]);
    assert_eq!(past, Offsets::Wide(vec![0, 1 << 32]));
}

/// Guards the staged scatter: on a graph of thousands of blocks
/// (over `2^22` vertices, so 512 a block), in groups of 16 blocks and
/// 1000 arcs a stage, it builds exactly the rows the direct scatter
/// builds: the same offsets and the same targets in the same order.
#[test]
fn the_staged_scatter_builds_the_direct_scatters_rows() {
    let n = (1 << 22) + 1;
    let mut x = 88_172_645_463_325_252u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        u32::try_from(x % n as u64).unwrap()
    };
    let mut edges: Vec<Edge> = (0..100_000).map(|_| Edge::new(next(), next())).collect();
    edges.extend((0..500).map(|i| Edge::new(i, i)));
    edges.extend((0..2000).map(|i| Edge::new(7, i)));
    let blocks = Blocks::new(n);
    assert!(blocks.count > 8000);
    let small = Staging {
        group_bits: 4,
        arcs: 1000,
    };
    for threads in [1, 2] {
        let (direct, staged) = par::in_pool(threads, || {
            (
                build_rows_as::<u32, u64, _>(Backend::Rayon, n, &edges, &[], None),
                build_rows_as::<u32, u64, _>(Backend::Rayon, n, &edges, &[], Some(small)),
            )
        })
        .unwrap();
        assert!(direct == staged, "{threads} threads");
        let packed = generator::EdgeList::new(n as u64, edges.clone())
            .unwrap()
            .to_packed()
            .unwrap();
        let generator::ListTuples::Packed(records) = packed.tuples() else {
            panic!("packed")
        };
        let packed_staged = par::in_pool(threads, || {
            build_rows_as::<u32, u64, _>(Backend::Rayon, n, records, &[], Some(small))
        })
        .unwrap();
        assert!(packed_staged == staged, "packed, {threads} threads");
    }
    assert_matches_adjacency(n, &edges);
}

#[test]
fn packed_and_unpacked_lists_build_the_same_graphs() {
    use crate::WeightedCsr;
    use generator::EdgeGenerator;
    let g = generator::Kronecker::new(12, 16, 5).unwrap();
    let weights = generator::generate_weights(&g, 0..g.num_blocks(), &|| {});
    let plain = g.generate();
    let packed = g.generate_packed_reporting(&|| {});
    assert!(packed.is_packed());
    let generator::ListTuples::Packed(records) = packed.tuples() else {
        panic!("packed")
    };
    let n = plain.num_vertices();
    let expected = Csr::from_edge_list(&plain);
    let expected_weighted = WeightedCsr::build(n, plain.edges(), &weights);
    for backend in [Backend::Rayon, Backend::Pipes] {
        for threads in [1, 2, 3] {
            let (graph, weighted) = par::in_pool(threads, || {
                (
                    Csr::from_list_on(backend, &packed),
                    WeightedCsr::build_on(backend, n, records, &weights),
                )
            })
            .unwrap();
            assert!(graph == expected, "{backend:?}, {threads} threads");
            assert!(
                weighted == expected_weighted,
                "{backend:?}, {threads} threads"
            );
        }
    }
}

#[test]
fn packed_lists_of_small_scales_with_loops_and_duplicates_build_the_same_graphs() {
    use generator::EdgeGenerator;
    for scale in [1, 2, 5, 8, 10] {
        let g = generator::Kronecker::new(scale, 16, u64::from(scale)).unwrap();
        let n = g.num_vertices();
        let mut edges = g.generate().edges().to_vec();
        // Self-loops and repeated tuples on top of the generator's own.
        let top = n as u32 - 1;
        edges.extend(
            [(0, 0), (top, top), (0, top), (0, top), (top, 0)].map(|(u, v)| Edge::new(u, v)),
        );
        edges.extend_from_within(..edges.len() / 4);
        let plain = EdgeList::new(n as u64, edges).unwrap();
        let packed = plain.to_packed().unwrap();
        assert!(packed.is_packed());
        assert_eq!(packed.checksum(), plain.checksum());
        let expected = Csr::from_edge_list(&plain);
        for threads in [1, 2] {
            for backend in [Backend::Rayon, Backend::Pipes] {
                let graph = par::in_pool(threads, || Csr::from_list_on(backend, &packed)).unwrap();
                assert!(
                    graph == expected,
                    "SCALE {scale}, {backend:?}, {threads} threads"
                );
            }
        }
        assert!(
            Csr::from_edge_list(&packed.unpack()) == expected,
            "SCALE {scale}"
        );
    }
}

#[test]
fn a_hub_whose_arcs_span_every_part_gets_them_all() {
    // Vertex 0 meets every other vertex eight times; the parts cut the
    // list, so each holds some of the hub's arcs.
    let n = 50;
    let pairs: Vec<(u32, u32)> = (0..4)
        .flat_map(|_| (1..n).flat_map(|v| [(0, v), (v, 0)]))
        .collect();
    assert!(Csr::parts(n as usize, pairs.len(), 4) >= 3);
    let g = par::in_pool(4, || graph(n as usize, &pairs)).unwrap();
    assert_eq!(g.degree(0), 8 * u64::from(n - 1));
    let mut want: Vec<u32> = (1..n).flat_map(|v| [v; 8]).collect();
    want.sort_unstable();
    assert_eq!(sorted_neighbors(&g, 0), want);
    assert!((1..n).all(|v| sorted_neighbors(&g, v) == [0; 8]));
}

#[test]
fn parts_follow_workers_within_memory_and_width() {
    assert_eq!(Csr::parts(1 << 20, 16 << 20, 2), 2);
    assert_eq!(Csr::parts(1 << 20, 16 << 20, 64), 8, "at most M / 2N");
    assert_eq!(Csr::parts(1 << 22, 3, 2), 1, "a sparse graph counts once");
    assert_eq!(Csr::parts(0, 0, 4), 1);
    assert_eq!(Csr::parts(1 << 31, 1 << 36, 1), 32, "u32 counts per part");
}

/// Every vertex's row, as a multiset, against a plain per-vertex list.
fn assert_matches_adjacency(n: usize, edges: &[Edge]) -> Csr {
    let g = Csr::build(n, edges);
    let mut expected = vec![Vec::new(); n];
    for e in edges.iter().filter(|e| !e.is_self_loop()) {
        expected[e.u as usize].push(e.v);
        expected[e.v as usize].push(e.u);
    }
    assert_eq!(g.num_vertices(), n);
    for (v, mut want) in expected.into_iter().enumerate() {
        want.sort_unstable();
        assert_eq!(sorted_neighbors(&g, v as u32), want, "vertex {v}");
    }
    g
}

#[test]
fn build_matches_a_sequential_adjacency_on_a_generated_graph() {
    let edges = generator::EdgeGenerator::generate(&generator::Kronecker::new(11, 8, 3).unwrap());
    assert_matches_adjacency(edges.num_vertices(), edges.edges());
}

#[test]
fn the_csr_is_identical_for_any_thread_count() {
    // Rows in tuple order, whatever the parts: the regions fill in
    // tuple order and the sort is stable.
    let edges = generator::EdgeGenerator::generate(&generator::Kronecker::new(13, 16, 5).unwrap());
    let one = par::in_pool(1, || Csr::from_edge_list(&edges)).unwrap();
    for threads in [2, 3, 5] {
        let many = par::in_pool(threads, || Csr::from_edge_list(&edges)).unwrap();
        assert!(many == one, "{threads} threads");
    }
    // And on the pipes backend, whose passes run on scoped threads.
    for threads in [1, 2, 3] {
        let (n, tuples) = (edges.num_vertices(), edges.edges());
        let pipes = par::with_pool(threads, || Csr::build_on(Backend::Pipes, n, tuples));
        assert!(pipes == one, "pipes on {threads} threads");
    }
    let mut rows = vec![Vec::new(); edges.num_vertices()];
    for e in edges.edges().iter().filter(|e| !e.is_self_loop()) {
        rows[e.u as usize].push(e.v);
        rows[e.v as usize].push(e.u);
    }
    assert!((0..rows.len()).all(|v| one.neighbors(v as u32) == rows[v]));
}

#[test]
fn blocks_leave_room_for_the_source_offset_beside_any_id() {
    for (n, bits) in [
        (0, MAX_BLOCK_BITS),
        (1, MAX_BLOCK_BITS),
        (1 << 20, MAX_BLOCK_BITS),
        (1 << 22, 10),
        ((1 << 22) + 1, 9),
        (1 << 31, 1),
        (1 << 32, 0),
    ] {
        let blocks = Blocks::new(n);
        assert_eq!(blocks.bits, bits, "N = {n}");
        assert_eq!(blocks.count, n.div_ceil(1 << bits));
        let last = (n.max(1) - 1) as u32;
        let low = (1 << bits) - 1;
        for (source, target) in [(last, last), (0, last), (last, 0)] {
            let arc = blocks.pack(source, target);
            assert_eq!((arc >> bits, arc & low), (target, source & low));
        }
    }
}

#[test]
fn rows_span_block_boundaries_and_a_last_partial_block() {
    // N is not a multiple of the block size; every tuple joins
    // neighbouring blocks, and the last block holds 5 vertices.
    let block = 1u32 << MAX_BLOCK_BITS;
    let n = 3 * block + 5;
    let mut edges = Vec::new();
    for i in 0..20_000u32 {
        let u = i.wrapping_mul(2_654_435_761) % n;
        let v = (u + block - 1 + i % 3) % n;
        edges.push(Edge::new(u, v));
    }
    edges.push(Edge::new(n - 1, 0));
    let g = par::in_pool(3, || assert_matches_adjacency(n as usize, &edges)).unwrap();
    assert_eq!(g.offsets.end(n as usize) as usize, g.num_arcs());
    for tiny in [1, 2] {
        let g = assert_matches_adjacency(tiny, &[Edge::new(0, tiny as u32 - 1)]);
        assert_eq!(g.num_arcs(), 2 * (tiny - 1));
    }
}

#[test]
fn a_hub_region_too_big_for_the_scratch_is_sorted_in_place() {
    // Vertex 0 meets every other vertex of a small graph in turn, so
    // block 0's region (the hub's arcs and its neighbours' in block 0)
    // holds more than SORT_CAP arcs.
    let n = 3000u32;
    let edges: Vec<Edge> = (0..SORT_CAP as u32 + 1000)
        .map(|i| Edge::new(i % (n - 1) + 1, 0))
        .collect();
    let g = par::in_pool(2, || assert_matches_adjacency(n as usize, &edges)).unwrap();
    assert!(g.offsets.end(1 << MAX_BLOCK_BITS) as usize > SORT_CAP);
    assert_eq!(g.degree(0), edges.len() as u64);
}

#[test]
fn building_adds_under_half_a_byte_per_tuple_to_the_csr_at_scale_22() {
    let (n, m) = (1u64 << 22, 1u64 << 26);
    let csr = Csr::graph_bytes(n, m);
    assert_eq!(csr, 4 * (n + 1) + 4 * n + 2 * 4 * m, "narrow offsets");
    let (big_n, big_m) = (1u64 << 27, 1u64 << 31);
    let wide = 8 * (big_n + 1) + 4 * big_n + 2 * 4 * big_m;
    assert_eq!(
        Csr::graph_bytes(big_n, big_m),
        wide,
        "2^32 arcs: wide offsets"
    );
    let extra = Csr::bytes_for(n, m) - csr;
    assert!(extra > 0 && extra <= m / 2, "{extra} bytes beyond the CSR");
    let g = graph(5, &[(0, 1), (3, 4), (2, 2)]);
    assert!(Csr::bytes_for(5, 3) >= g.heap_bytes());
}

/// Guards the masked stream of `nedge`: across several of its chunks,
/// with self-loops, duplicates and arcless vertices, it is half the degree
/// sum of the reached vertices for any reached set, and for a closed one
/// (none, all) the tuples, self-loops excluded, with an end reached.
#[test]
fn nedge_is_half_the_degree_sum_of_the_reached_vertices() {
    use generator::EdgeGenerator;
    let edges = generator::Kronecker::new(15, 4, 5).unwrap().generate();
    let g = Csr::from_edge_list(&edges);
    let n = u32::try_from(g.num_vertices()).unwrap();
    for every in [0, 1, 2, 3, 7] {
        let reached = |v: u32| every == 1 || (every > 1 && v.is_multiple_of(every));
        let parents = Parents::new(n as usize);
        (0..n)
            .filter(|&v| reached(v))
            .for_each(|v| parents.set(v, 0));
        let degrees: u64 = (0..n).filter(|&v| reached(v)).map(|v| g.degree(v)).sum();
        assert_eq!(g.nedge(&parents), degrees / 2, "every {every}th reached");
    }
    let all = Parents::new(n as usize);
    (0..n).for_each(|v| all.set(v, 0));
    assert!(edges.self_loops() > 0);
    assert_eq!(g.nedge(&all), (edges.len() - edges.self_loops()) as u64);
    assert_eq!(g.nedge(&Parents::new(n as usize)), 0);
}

/// Guards the pages mapped ahead of the scatter (`pages.rs`): on a graph
/// whose `targets` is big enough to be mapped so, in parallel pieces,
/// every row holds exactly its tuples' arcs.
#[test]
fn a_graph_whose_pages_are_mapped_ahead_has_the_rows_of_its_tuples() {
    let edges = generator::EdgeGenerator::generate(&generator::Kronecker::new(15, 16, 7).unwrap());
    let g = par::in_pool(2, || Csr::from_edge_list(&edges)).unwrap();
    assert!(
        size_of_val(g.targets.as_slice()) >= pages::MIN_BYTES,
        "mapped ahead"
    );
    let mut rows = vec![Vec::new(); edges.num_vertices()];
    for e in edges.edges().iter().filter(|e| !e.is_self_loop()) {
        rows[e.u as usize].push(e.v);
        rows[e.v as usize].push(e.u);
    }
    for (v, row) in rows.iter_mut().enumerate() {
        row.sort_unstable();
        assert_eq!(sorted_neighbors(&g, v as u32), *row, "row {v}");
    }
}
