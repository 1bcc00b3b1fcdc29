use super::*;
use crate::{Kronecker, ListTuples, MAX_SCALE, ReferenceKronecker};

fn both(scale: u32) -> [Box<dyn EdgeGenerator>; 2] {
    [
        Box::new(Kronecker::new(scale, 16, 7).unwrap()),
        Box::new(ReferenceKronecker::new(scale, 16).unwrap()),
    ]
}

#[test]
fn wide_tuples_are_the_narrow_ones_widened() {
    for g in both(12) {
        let blocks = 1..g.num_blocks();
        let narrow: Vec<Edge> = generate_blocks(&*g, blocks.clone(), &|| {});
        let wide: Vec<WideEdge> = generate_blocks(&*g, blocks, &|| {});
        assert_eq!(narrow.len(), wide.len());
        assert!(narrow.iter().zip(&wide).all(|(n, w)| n.ends() == w.ends()));
        let first = EDGES_PER_BLOCK as u64;
        assert_eq!(
            EdgeList::checksum_terms(&narrow, first),
            EdgeList::checksum_terms(&wide, first),
            "{}",
            g.name()
        );
    }
}

#[test]
fn wide_tuples_reach_past_32_bits_beyond_scale_31() {
    // One block from the middle of a SCALE 36 list: ids cover 36 bits
    // (scrambled, about half the ends have bit 35 set; an eighth is
    // asked), and the block is the same each time it is made.
    for g in both(36) {
        let block = g.num_blocks() / 2 + 3;
        let wide: Vec<WideEdge> = generate_blocks(&*g, block..block + 1, &|| {});
        assert_eq!(wide.len(), EDGES_PER_BLOCK);
        let ends = || wide.iter().flat_map(|e| [e.u, e.v]);
        assert!(ends().all(|x| x < 1 << 36), "{}", g.name());
        let high = ends().filter(|x| x >> 35 == 1).count();
        assert!(high > EDGES_PER_BLOCK / 4, "{}: {high}", g.name());
        let again: Vec<WideEdge> = generate_blocks(&*g, block..block + 1, &|| {});
        assert_eq!(wide, again);
    }
}

/// The weights' bit patterns (so that equality is exact).
fn bits(weights: &[f32]) -> Vec<u32> {
    weights.iter().map(|w| w.to_bits()).collect()
}

#[test]
fn weights_are_the_same_on_one_and_two_threads_and_for_any_block_range() {
    // Four whole blocks; one block and a short one; shorter than a lane.
    for (scale, edgefactor) in [(12, 16), (11, 9), (1, 1)] {
        let gens: [Box<dyn EdgeGenerator>; 2] = [
            Box::new(Kronecker::new(scale, edgefactor, 7).unwrap()),
            Box::new(ReferenceKronecker::new(scale, edgefactor).unwrap()),
        ];
        for g in gens {
            let n = g.num_blocks();
            let all = || generate_weights(&*g, 0..n, &|| {});
            let one = par::in_pool(1, all).unwrap();
            let two = par::in_pool(2, all).unwrap();
            assert_eq!(one.len(), g.num_edges());
            assert_eq!(bits(&one), bits(&two), "{}", g.name());
            for start in 0..=n {
                for end in start..=n {
                    let part = generate_weights(&*g, start..end, &|| {});
                    let from = (start * EDGES_PER_BLOCK).min(one.len());
                    let to = (end * EDGES_PER_BLOCK).min(one.len());
                    assert_eq!(
                        bits(&part),
                        bits(&one[from..to]),
                        "{} {start}..{end}",
                        g.name()
                    );
                }
            }
        }
    }
}

#[test]
fn weights_report_each_block_once() {
    let g = Kronecker::new(12, 16, 7).unwrap();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let bump = || {
        done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let weights = generate_weights(&g, 1..3, &bump);
    assert_eq!(weights.len(), 2 * EDGES_PER_BLOCK);
    assert_eq!(done.into_inner(), 2);
}

#[test]
fn weights_lie_in_the_unit_interval_and_look_uniform() {
    // 2^18 weights: the mean's standard deviation is 0.29 / 512, so
    // 0.003 is five of them; each of 16 bins expects 16384 +- 124, so
    // 4% (655) is over five.
    for g in both(14) {
        let w = generate_weights(&*g, 0..g.num_blocks(), &|| {});
        assert!(w.iter().all(|x| (0.0..1.0).contains(x)), "{}", g.name());
        let mean = w.iter().map(|&x| f64::from(x)).sum::<f64>() / w.len() as f64;
        assert!((mean - 0.5).abs() < 0.003, "{}: mean {mean}", g.name());
        let mut bins = [0usize; 16];
        for &x in &w {
            bins[(x * 16.0) as usize] += 1;
        }
        let expected = w.len() / 16;
        for (i, &count) in bins.iter().enumerate() {
            let off = count.abs_diff(expected);
            assert!(off < expected / 25, "{}: bin {i} has {count}", g.name());
        }
    }
}

#[test]
fn weights_are_not_the_edges_draws() {
    // The default generator's weights have streams of their own: no
    // weight equals the top bits of its block's first edge draws.
    let g = Kronecker::new(10, 16, 3).unwrap();
    let w = generate_weights(&g, 0..1, &|| {});
    let mut edges = crate::SeedStreams::new(3).edge_blocks(1).stream(0);
    let heads: Vec<f32> = (0..64).map(|_| crate::unit_f32(edges.next_u64())).collect();
    assert!(heads.iter().all(|h| !w[..64].contains(h)));
    let mut own = crate::SeedStreams::new(3).weight_blocks(2).stream(1);
    let second = generate_weights(&g, 1..2, &|| {});
    assert!(second.iter().all(|&x| x == crate::unit_f32(own.next_u64())));
}

#[test]
#[should_panic(expected = "need wider tuples")]
fn narrow_tuples_refuse_a_graph_they_cannot_name() {
    let g = Kronecker::new(MAX_SCALE + 1, 1, 1).unwrap();
    let _: Vec<Edge> = generate_blocks(&g, 0..1, &|| {});
}

#[test]
fn packed_generation_holds_the_same_tuples_on_any_thread_count() {
    for g in both(12) {
        let plain = g.generate();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let packed = pool.install(|| g.generate_packed_reporting(&|| {}));
            assert!(packed.is_packed() && !plain.is_packed(), "{}", g.name());
            assert_eq!(packed.len(), plain.len());
            assert_eq!(packed.checksum(), plain.checksum(), "{}", g.name());
            assert_eq!(packed.self_loops(), plain.self_loops());
            let ListTuples::Packed(records) = packed.tuples() else {
                panic!("packed")
            };
            let ends = |e: Edge| (u64::from(e.u), u64::from(e.v));
            assert!(
                records
                    .iter()
                    .zip(plain.edges())
                    .all(|(p, &e)| p.ends() == ends(e))
            );
            assert_eq!(packed.unpack().edges(), plain.edges(), "{}", g.name());
        }
    }
}

/// A generator of `2^29` vertices and no tuples: too many ids to pack.
struct Empty29;

impl EdgeGenerator for Empty29 {
    fn scale(&self) -> u32 {
        29
    }
    fn edgefactor(&self) -> u64 {
        0
    }
    fn name(&self) -> &'static str {
        "empty"
    }
    fn label(&self) -> String {
        "empty".into()
    }
    fn fill_block(&self, _: usize, _: &mut [Edge]) {}
    fn fill_block_wide(&self, _: usize, _: &mut [WideEdge]) {}
    fn fill_weights(&self, _: usize, _: &mut [f32]) {}
}

#[test]
fn a_graph_of_more_than_2_to_the_28_vertices_stays_unpacked() {
    let list = Empty29.generate_packed_reporting(&|| {});
    assert!(!list.is_packed());
    assert_eq!(list.num_vertices(), 1 << 29);
    assert!(list.to_packed().is_none());
    let at_limit = EdgeList::new(1 << 28, vec![Edge::new(0, (1 << 28) - 1)]).unwrap();
    assert!(at_limit.to_packed().unwrap().is_packed());
}
