//! Edge weights through every file format: what each writes, that each
//! reads it back bit for bit, that a distributed run's shares of a binary
//! file's weights add up to the whole, and that every kind of bad weight
//! input is one error line naming the file and the place.

#![allow(clippy::cast_possible_truncation)] // small test files

use generator::format::{EdgeFormat, binary, packed48, read_edge_list};
use generator::{Edge, EdgeGenerator, EdgeList, Kronecker, ReferenceKronecker, generate_weights};
use std::path::{Path, PathBuf};

/// A fresh folder and a path named `name` in it (the folder lives as long
/// as the returned guard).
fn path_in_temp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    (dir, path)
}

/// `list` encoded in `format`.
fn encoded(format: EdgeFormat, list: &EdgeList) -> Vec<u8> {
    let mut bytes = Vec::new();
    format.write(&mut bytes, list).unwrap();
    bytes
}

/// A small weighted list: ten tuples over 7 vertices.
fn small_weighted() -> EdgeList {
    let edges = (0..10u32).map(|i| Edge::new(i % 7, (i * 3) % 7)).collect();
    let weights = (0..10u16).map(|i| f32::from(i) / 10.0).collect();
    EdgeList::new(7, edges)
        .unwrap()
        .with_weights(weights)
        .unwrap()
}

/// The weights' bit patterns.
fn bits(weights: &[f32]) -> Vec<u32> {
    weights.iter().map(|w| w.to_bits()).collect()
}

/// The error of reading `path`, checked to be one line naming `named`.
fn read_error(path: &Path, named: &Path) -> String {
    let err = read_edge_list(path).unwrap_err().to_string();
    assert!(!err.contains('\n'), "{err}");
    assert!(err.starts_with(&named.display().to_string()), "{err}");
    err
}

/// Writes `list` as a binary file at `path`, and `weights` over its
/// weights (as bit patterns, to plant bad ones).
fn binary_with_weight_bits(path: &Path, list: &EdgeList, weights: &[u32]) {
    let mut bytes = encoded(EdgeFormat::Binary, list);
    let at = bytes.len() - 4 * weights.len();
    for (i, w) in weights.iter().enumerate() {
        bytes[at + 4 * i..at + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn binary_is_version_1_without_weights_and_version_2_with_them() {
    let weighted = small_weighted();
    let plain = EdgeList::new(7, weighted.edges().to_vec()).unwrap();
    let v1 = encoded(EdgeFormat::Binary, &plain);
    assert_eq!(v1[8..12], 1u32.to_le_bytes());
    assert_eq!(v1.len(), 32 + 10 * 8);
    let v2 = encoded(EdgeFormat::Binary, &weighted);
    assert_eq!(v2[8..12], 2u32.to_le_bytes());
    assert_eq!(v2.len(), 32 + 10 * 12);
    assert_eq!(v2[..32 + 80], {
        let mut same = v1.clone();
        same[8] = 2;
        same
    });
    let (_dir, path) = path_in_temp("g.g500");
    std::fs::write(&path, &v2).unwrap();
    let back = read_edge_list(&path).unwrap();
    assert!(back.is_mapped(), "tuples and weights are used in place");
    assert_eq!(back.edges(), weighted.edges());
    assert_eq!(
        bits(back.weights().unwrap()),
        bits(weighted.weights().unwrap())
    );
    std::fs::write(&path, &v1).unwrap();
    let back = read_edge_list(&path).unwrap();
    assert_eq!((back.edges(), back.weights()), (plain.edges(), None));
}

#[test]
fn binary_weight_errors_name_the_file_and_the_tuple() {
    let list = small_weighted();
    let (_dir, path) = path_in_temp("g.g500");
    let mut weights = bits(list.weights().unwrap());
    weights[2] = f32::NAN.to_bits();
    weights[5] = (-1.0f32).to_bits();
    binary_with_weight_bits(&path, &list, &weights);
    let err = read_error(&path, &path);
    assert!(err.contains("edge 2 has weight NaN"), "{err}");
    // A version-2 file cut short, or a version-1 file that says 2.
    let bytes = encoded(EdgeFormat::Binary, &list);
    std::fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
    let err = read_error(&path, &path);
    assert!(err.contains("with weights (152 bytes"), "{err}");
    let mut relabelled = encoded(
        EdgeFormat::Binary,
        &EdgeList::new(7, list.edges().to_vec()).unwrap(),
    );
    relabelled[8] = 2;
    std::fs::write(&path, relabelled).unwrap();
    assert!(read_error(&path, &path).contains("has 112 bytes"));
}

#[test]
fn wide_binary_files_carry_weights_too() {
    let list = small_weighted();
    let header = binary::Header {
        id_width: 8,
        num_vertices: 7,
        num_edges: 10,
        weighted: true,
    };
    let mut bytes = header.encode().to_vec();
    for e in list.edges() {
        bytes.extend_from_slice(&u64::from(e.u).to_le_bytes());
        bytes.extend_from_slice(&u64::from(e.v).to_le_bytes());
    }
    for w in list.weights().unwrap() {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let (_dir, path) = path_in_temp("wide.g500");
    std::fs::write(&path, &bytes).unwrap();
    let back = read_edge_list(&path).unwrap();
    assert_eq!(back.edges(), list.edges());
    assert_eq!(back.weights(), list.weights());
    let at = bytes.len() - 4;
    bytes[at..].copy_from_slice(&f32::INFINITY.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    assert!(read_error(&path, &path).contains("edge 9 has weight inf"));
}

#[test]
fn rank_shares_of_the_weights_make_the_whole() {
    let g = Kronecker::new(10, 16, 4).unwrap();
    let weights = generate_weights(&g, 0..g.num_blocks(), &|| {});
    let list = g.generate().with_weights(weights.clone()).unwrap();
    let (_dir, path) = path_in_temp("g.g500");
    std::fs::write(&path, encoded(EdgeFormat::Binary, &list)).unwrap();
    for ranks in 1..=5 {
        let mut tuples = Vec::new();
        let mut joined = Vec::new();
        for rank in 0..ranks {
            let (_, share, first) = binary::read_share::<Edge>(&path, rank, ranks).unwrap();
            let w = binary::read_weights_share(&path, rank, ranks)
                .unwrap()
                .unwrap();
            assert_eq!(first as usize, tuples.len());
            assert_eq!(w.len(), share.len(), "rank {rank} of {ranks}");
            tuples.extend(share);
            joined.extend(w);
        }
        assert_eq!(tuples, list.edges(), "{ranks} ranks");
        assert_eq!(bits(&joined), bits(&weights), "{ranks} ranks");
    }
    // A bad weight fails the share that holds it, by its global number.
    let mut planted = bits(&weights);
    let bad = weights.len() / 2 + 3;
    planted[bad] = (-0.25f32).to_bits();
    binary_with_weight_bits(&path, &list, &planted);
    assert!(binary::read_weights_share(&path, 0, 2).is_ok());
    let err = binary::read_weights_share(&path, 1, 2)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("edge {bad} has weight -0.25")),
        "{err}"
    );
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    // Version 1: no weights.
    let plain = EdgeList::new(list.num_vertices() as u64, list.edges().to_vec()).unwrap();
    std::fs::write(&path, encoded(EdgeFormat::Binary, &plain)).unwrap();
    assert_eq!(binary::read_weights_share(&path, 0, 2).unwrap(), None);
}

#[test]
fn text_weights_are_all_or_none_and_errors_name_the_line() {
    let (_dir, path) = path_in_temp("g.el");
    let cases = [
        (
            "0 1 0.5\n1 2\n",
            "line 2: no weight, but the edge lines before have one",
        ),
        (
            "# c\n0 1\n\n1 2 0.5\n",
            "line 4: a weight, but the edge lines before have none",
        ),
        ("0 1 0.5\n1 2 -2\n", "line 2: weight -2 is negative"),
        (
            "0 1 0.5\n1 2 1e40\n",
            "line 2: weight 1e40 is not below 2^64",
        ),
        ("0 1 0,5\n", "line 1: expected a weight"),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, text).unwrap();
        let err = read_error(&path, &path);
        assert!(err.contains(expected), "{text:?}: {err}");
    }
    std::fs::write(&path, "0 1 0.5\n% c\n1 2 1e-3\n").unwrap();
    let list = read_edge_list(&path).unwrap();
    assert_eq!(list.weights(), Some(&[0.5, 1e-3][..]));
}

#[test]
fn a_text_mix_is_found_past_the_first_parse_chunk() {
    // About 2 MB of weighted lines, then one without: the line number
    // counts from the start of the file.
    let mut text = String::new();
    for i in 0..200_000u32 {
        text.push_str(&format!("{} {} 0.{}\n", i % 100, i % 97, i % 10));
    }
    text.push_str("5 6\n");
    let (_dir, path) = path_in_temp("big.el");
    std::fs::write(&path, &text).unwrap();
    let err = read_error(&path, &path);
    assert!(err.contains("line 200001: no weight"), "{err}");
}

#[test]
fn matrix_market_real_values_are_the_weights() {
    let (_dir, path) = path_in_temp("g.mtx");
    let list = small_weighted();
    let bytes = encoded(EdgeFormat::MatrixMarket, &list);
    assert!(bytes.starts_with(b"%%MatrixMarket matrix coordinate real general\n"));
    std::fs::write(&path, &bytes).unwrap();
    let back = read_edge_list(&path).unwrap();
    assert_eq!(bits(back.weights().unwrap()), bits(list.weights().unwrap()));
    let integer = "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 -4\n2 3 7\n";
    std::fs::write(&path, integer).unwrap();
    assert_eq!(read_edge_list(&path).unwrap().weights(), None);
    // A real matrix with a value that is no weight (negative, NaN) reads
    // without weights: a BFS runs on it, an SSSP run refuses it.
    for value in ["-2", "nan"] {
        let real = format!(
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 2 0.5\n2 3 {value}\n"
        );
        std::fs::write(&path, real).unwrap();
        let list = read_edge_list(&path).unwrap();
        assert_eq!((list.len(), list.weights()), (2, None), "{value}");
    }
    let unparsable = "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 x\n";
    std::fs::write(&path, unparsable).unwrap();
    assert!(read_error(&path, &path).contains("line 3: expected a number"));
}

#[test]
fn packed48_weights_are_read_from_beside_the_file() {
    let (_dir, path) = path_in_temp("g.pe48");
    let list = small_weighted();
    std::fs::write(&path, encoded(EdgeFormat::Packed48, &list)).unwrap();
    assert_eq!(
        read_edge_list(&path).unwrap().weights(),
        None,
        "no file beside"
    );
    let beside = EdgeFormat::Packed48.weights_file(&path).unwrap();
    assert_eq!(beside, path.with_file_name("g.pe48.weights"));
    // The reference's layout, written by hand: little-endian f32s.
    let raw: Vec<u8> = list
        .weights()
        .unwrap()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let mut ours = Vec::new();
    packed48::write_weights(&mut ours, &list).unwrap();
    assert_eq!(ours[..raw.len()], raw, "the reference's bytes first");
    assert_eq!(
        ours.len(),
        raw.len() + packed48::TRAILER,
        "then the trailer"
    );
    // The reference's file (no trailer) and ours read alike.
    for contents in [&raw, &ours] {
        std::fs::write(&beside, contents).unwrap();
        let back = read_edge_list(&path).unwrap();
        assert_eq!(back.edges(), list.edges());
        assert_eq!(bits(back.weights().unwrap()), bits(list.weights().unwrap()));
    }
    // A wrong length, a bad weight, a folder: errors naming the weights file.
    std::fs::write(&beside, &raw[..36]).unwrap();
    assert!(read_error(&path, &beside).contains("36 bytes of weights for the 10 edges"));
    let mut no_trailer = raw.clone();
    no_trailer.extend_from_slice(&[7u8; packed48::TRAILER]);
    std::fs::write(&beside, &no_trailer).unwrap();
    assert!(read_error(&path, &beside).contains("not graph500's pair trailer"));
    let mut bad = raw.clone();
    bad[4..8].copy_from_slice(&(-3.5f32).to_le_bytes());
    std::fs::write(&beside, &bad).unwrap();
    assert!(read_error(&path, &beside).contains("edge 1 has weight -3.5"));
    std::fs::remove_file(&beside).unwrap();
    std::fs::create_dir(&beside).unwrap();
    assert!(read_error(&path, &beside).contains("not a regular file"));
    assert_eq!(EdgeFormat::Binary.weights_file(&path), None);
}

#[test]
fn a_reference_generator_pair_round_trips_through_packed48() {
    // What the reference benchmark's TMPFILE pair holds: its tuples packed,
    // its weights beside them.
    let g = ReferenceKronecker::new(8, 16).unwrap();
    let weights = generate_weights(&g, 0..g.num_blocks(), &|| {});
    let list = g.generate().with_weights(weights).unwrap();
    let (_dir, path) = path_in_temp("ref.pe48");
    std::fs::write(&path, encoded(EdgeFormat::Packed48, &list)).unwrap();
    let mut beside = Vec::new();
    packed48::write_weights(&mut beside, &list).unwrap();
    assert_eq!(beside.len(), 4 * list.len() + packed48::TRAILER);
    // The reference's own weights file: the weights alone.
    beside.truncate(4 * list.len());
    std::fs::write(packed48::weights_path(&path), beside).unwrap();
    let back = read_edge_list(&path).unwrap();
    assert_eq!(back.edges(), list.edges());
    assert_eq!(
        EdgeList::weights_checksum(back.weights().unwrap()),
        EdgeList::weights_checksum(list.weights().unwrap())
    );
}

/// Guards issue 31's mismatched pair: weights written for one edge list
/// beside another of the same length must not pass for that list's.
#[test]
fn packed48_weights_of_another_list_are_refused_by_their_trailer() {
    let (_dir, path) = path_in_temp("g.pe48");
    let list = small_weighted();
    let beside = packed48::weights_path(&path);
    let mut weights = Vec::new();
    packed48::write_weights(&mut weights, &list).unwrap();
    std::fs::write(&beside, &weights).unwrap();
    // Other tuples, as many of them: the same lengths on disk.
    let mut other: Vec<Edge> = list.edges().to_vec();
    other.swap(0, 1);
    assert_ne!(other, list.edges());
    let other = EdgeList::new(list.num_vertices() as u64, other).unwrap();
    std::fs::write(&path, encoded(EdgeFormat::Packed48, &other)).unwrap();
    let err = read_error(&path, &beside);
    assert!(
        err.contains("holds the weights of another edge list"),
        "{err}"
    );
    // Its own tuples: accepted.
    std::fs::write(&path, encoded(EdgeFormat::Packed48, &list)).unwrap();
    assert!(read_edge_list(&path).unwrap().weights().is_some());
}
