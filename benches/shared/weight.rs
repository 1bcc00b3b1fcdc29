//! The weights the benchmarks give their tuples (no generator draws them).

/// A weight in `[0, 1)` for tuple `i`: a hash of `i` to 24 bits.
pub(crate) fn bench_weight(i: u64) -> f32 {
    let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    let bits = u32::try_from((x ^ (x >> 31)) >> 40).expect("24 bits");
    bits as f32 / (1u32 << 24) as f32
}
