//! `--generator graph500` against the numbers the Graph500 reference code
//! printed (`data/graph500-reference-vectors.txt`): its random stream, skips
//! and doubles; per scale the first and last edges, the self-loop count,
//! checksums over every edge in order, and all 64 search keys.

#![allow(clippy::cast_possible_truncation)] // indices of test-sized lists

use generator::{EdgeGenerator, EdgeList, Mrg, ReferenceKronecker, Transition};
use kernels::{Csr, choose_reference_search_keys};
use std::collections::HashMap;

const VECTORS: &str = include_str!("../data/graph500-reference-vectors.txt");

/// The words after `key` on each line that starts with `key`, outside
/// the per-scale sections.
fn global_words(key: &str) -> Vec<Vec<&'static str>> {
    let head = VECTORS.split("[scale").next().unwrap();
    head.lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
        .map(|rest| rest.split_whitespace().collect())
        .collect()
}

/// [`global_words`] that are decimal numbers (labels such as `state` dropped).
fn global(key: &str) -> Vec<Vec<u64>> {
    global_words(key)
        .into_iter()
        .map(|words| words.iter().filter_map(|w| w.parse().ok()).collect())
        .collect()
}

fn number(word: &str) -> u64 {
    word.parse()
        .unwrap_or_else(|_| panic!("{word:?} in the vectors is not a number"))
}

/// The section of one scale: key -> the numbers of each of its lines.
fn section(scale: u32) -> HashMap<String, Vec<Vec<u64>>> {
    let start = format!("[scale {scale}]\n");
    let text = VECTORS.split(&start).nth(1).expect("scale in the vectors");
    let text = text.split("[end]").next().unwrap();
    let mut map: HashMap<String, Vec<Vec<u64>>> = HashMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let key = words.next().unwrap().to_string();
        map.entry(key)
            .or_default()
            .push(words.map(number).collect());
    }
    map
}

fn one(section: &HashMap<String, Vec<Vec<u64>>>, key: &str) -> u64 {
    section[key][0][0]
}

#[test]
fn mrg_draws_and_skips_match_the_reference() {
    let seed = Mrg::from_user_seeds(2, 3);
    assert_eq!(seed.state().to_vec(), global("mrg mrg_seed_state")[0]);
    let mut m = seed;
    let draws: Vec<u64> = (0..10).map(|_| m.next_u31()).collect();
    assert_eq!(draws, global("mrg first_10_uints_from_seed")[0]);
    let skips = global("mrg skip_hi_mid_lo");
    assert!(skips.len() >= 5);
    for line in skips {
        // hi mid lo, the state after the skip and one draw, that draw.
        let mut skipped = seed.skipped(&Transition::skip(line[0], line[1], line[2]));
        let at = format!("skip {:?}", &line[..3]);
        assert_eq!(skipped.next_u31(), line[8], "{at}");
        assert_eq!(skipped.state().to_vec(), line[3..8], "{at}");
    }
}

#[test]
fn doubles_match_the_reference_bit_for_bit() {
    let mut m = Mrg::from_user_seeds(2, 3).skipped(&Transition::skip(2, 0, 0));
    let bits = global_words("doubles double_bits");
    assert_eq!(bits.len(), 8);
    for (i, line) in bits.iter().enumerate() {
        assert_eq!(number(line[0]), i as u64);
        let theirs = u64::from_str_radix(line[1], 16).unwrap();
        assert_eq!(m.next_double().to_bits(), theirs, "double {i}");
    }
}

/// Every number of `scale`'s section, from our generator and key rule.
fn check_scale(scale: u32) {
    let s = section(scale);
    let g = ReferenceKronecker::new(scale, 16).unwrap();
    assert_eq!(
        g.scramble_keys(),
        [one(&s, "scramble_val0"), one(&s, "scramble_val1")]
    );
    let n = 1u64 << scale;
    let scrambled: Vec<u64> = [0, 1, 2, n - 1].map(|v| g.scramble(v)).to_vec();
    assert_eq!(scrambled, s["scramble_of_0_1_2_last"][0]);

    let edges: EdgeList = g.generate();
    assert_eq!(edges.len() as u64, one(&s, "nedges"));
    let pairs: Vec<(u64, u64)> = edges
        .edges()
        .iter()
        .map(|e| (e.u.into(), e.v.into()))
        .collect();
    for line in &s["edge"] {
        assert_eq!(
            pairs[line[0] as usize],
            (line[1], line[2]),
            "edge {}",
            line[0]
        );
    }
    let last = &s["last_edge"][0];
    assert_eq!(pairs[last[0] as usize], (last[1], last[2]));
    assert_eq!(last[0] as usize, pairs.len() - 1);
    let loops = pairs.iter().filter(|(u, v)| u == v).count() as u64;
    assert_eq!(loops, one(&s, "self_loops"), "self-loops");
    let (mut sum_u, mut sum_v, mut wsum, mut xor) = (0u64, 0u64, 0u64, 0u64);
    for (i, &(u, v)) in pairs.iter().enumerate() {
        let w = u << 32 | v;
        sum_u = sum_u.wrapping_add(u);
        sum_v = sum_v.wrapping_add(v);
        wsum = wsum.wrapping_add((i as u64 + 1).wrapping_mul(w));
        xor ^= w;
    }
    assert_eq!(
        [sum_u, sum_v, wsum, xor],
        ["sum_u", "sum_v", "wsum", "xor"].map(|k| one(&s, k)),
        "checksums over all edges"
    );

    let graph = Csr::from_edge_list(&edges);
    let keys = choose_reference_search_keys(&graph, 64, g.root_candidates()).unwrap();
    let ours: Vec<u64> = keys.iter().map(|k| k.id()).collect();
    let theirs: Vec<u64> = s["root"].iter().map(|l| l[1]).collect();
    assert_eq!(theirs.len(), 64);
    assert_eq!(ours, theirs, "search keys");
}

#[test]
fn scale_8_matches_the_reference() {
    check_scale(8);
}

#[test]
fn scale_10_matches_the_reference() {
    check_scale(10);
}

#[test]
fn scale_12_matches_the_reference() {
    check_scale(12);
}

#[test]
fn scale_16_matches_the_reference() {
    check_scale(16);
}

#[test]
fn scale_20_matches_the_reference() {
    check_scale(20);
}

#[test]
fn reference_edges_are_identical_on_one_and_two_threads() {
    let g = ReferenceKronecker::new(13, 16).unwrap();
    assert!(g.num_blocks() >= 8);
    let on = |threads| kernels::par::in_pool(threads, || g.generate()).unwrap();
    assert_eq!(on(1).edges(), on(2).edges());
}
