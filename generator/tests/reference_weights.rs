//! The reference generator's SSSP weights, bit for bit: numbers taken from
//! the edge list and weights that the Graph500 reference benchmark
//! (graph500/graph500, branch newreference, commit f89d643,
//! `graph500_reference_bfs_sssp SCALE 16` with `TMPFILE` and `REUSEFILE`
//! set) wrote beside each other, decoded outside this project. Numbers
//! only: no reference code or file is in this repository.
//!
//! Per scale: the first eight weights' bit patterns, and this crate's
//! checksums of all the reference's tuples ([`EdgeList::checksum`] over
//! `2^scale` vertices) and weights ([`EdgeList::weights_checksum`]).

use generator::{EdgeGenerator, EdgeList, ReferenceKronecker, generate_weights};

struct Vectors {
    scale: u32,
    tuples_checksum: u64,
    weights_checksum: u64,
    first_weights: [u32; 8],
}

const VECTORS: [Vectors; 5] = [
    Vectors {
        scale: 8,
        tuples_checksum: 0x9c98_652a_0264_d370,
        weights_checksum: 0xf533_d694_8cd8_96fe,
        first_weights: [
            0x3ed8_8121,
            0x3f7b_1cfc,
            0x3ed3_76e0,
            0x3eef_2373,
            0x3f03_d28e,
            0x3e0d_0db0,
            0x3ea8_930a,
            0x3eb1_457e,
        ],
    },
    Vectors {
        scale: 10,
        tuples_checksum: 0xc37c_5198_2177_886d,
        weights_checksum: 0x4dcf_8982_662c_4292,
        first_weights: [
            0x3efa_f79e,
            0x3f07_4f26,
            0x3f26_bcd6,
            0x3e86_be0c,
            0x3ef1_f2f5,
            0x3f06_2c2a,
            0x3f1c_09b6,
            0x3f4e_8ce7,
        ],
    },
    Vectors {
        scale: 12,
        tuples_checksum: 0x2500_3b66_1ee5_f097,
        weights_checksum: 0x4b09_6d0b_5010_5cd2,
        first_weights: [
            0x3f0f_cb33,
            0x3f34_cb78,
            0x3e02_3d8f,
            0x3f26_450c,
            0x3ef6_b59d,
            0x3e14_81cd,
            0x3e9a_2eb9,
            0x3f21_2e15,
        ],
    },
    Vectors {
        scale: 14,
        tuples_checksum: 0x3ee8_de78_51ac_7f88,
        weights_checksum: 0xf041_3bdd_542b_1c4d,
        first_weights: [
            0x3e04_807b,
            0x3f30_e7c9,
            0x3eb1_9531,
            0x3f40_d8d9,
            0x3f12_c2b2,
            0x3f28_6d45,
            0x3d8c_aea6,
            0x3f14_e576,
        ],
    },
    Vectors {
        scale: 16,
        tuples_checksum: 0xe682_6bf6_8824_d27f,
        weights_checksum: 0xa346_9b6a_049e_32eb,
        first_weights: [
            0x3ee8_99e6,
            0x3f6a_4882,
            0x3eaa_9b60,
            0x3cd9_1bbd,
            0x3dea_1b40,
            0x3e37_b5da,
            0x3edd_b6eb,
            0x3ec9_db6b,
        ],
    },
];

#[test]
fn reference_weights_and_tuples_match_the_reference_benchmark() {
    for v in &VECTORS {
        let g = ReferenceKronecker::new(v.scale, 16).unwrap();
        let weights = generate_weights(&g, 0..g.num_blocks(), &|| {});
        assert_eq!(weights.len(), 16 << v.scale);
        let first: Vec<u32> = weights[..8].iter().map(|w| w.to_bits()).collect();
        assert_eq!(first, v.first_weights, "scale {}", v.scale);
        assert_eq!(
            EdgeList::weights_checksum(&weights),
            v.weights_checksum,
            "scale {}",
            v.scale
        );
        assert_eq!(
            g.generate().checksum(),
            v.tuples_checksum,
            "scale {}",
            v.scale
        );
    }
}

#[test]
fn weights_checksum_is_the_one_the_vectors_were_taken_with() {
    // Pins the hash itself, so that a failure above tells a changed
    // generator from a changed hash (the vectors would need taking again).
    assert_eq!(
        EdgeList::weights_checksum(&[0.5, 0.25, 0.0]),
        0xf123_f958_b279_423a
    );
    assert_eq!(EdgeList::weights_checksum(&[]), 0);
}
