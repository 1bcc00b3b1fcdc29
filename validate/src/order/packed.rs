//! Block order of a packed list ([`PackedEdge`]s, 7 bytes a tuple), in
//! its own bytes: the same words and items as [`TupleBlocks::from_tuples`]
//! gives for the same tuples unpacked.
//!
//! Idea: rdst's in-place passes are slower on 7-byte records than on
//! 8-byte ones (two overlapping 4-byte moves each, a seventh of them
//! across a cache line; sorting the whole 56-bit key that way took 1.5x
//! the unpacked list's time). So only one in-place radix level runs on the
//! records, on the key's top byte, which [`KeyLayout`] makes the top
//! eight bits of the block pair's code at any number of blocks: up to 256
//! buckets, none above 1% of the tuples at SCALE 24 and 26. Each bucket is then
//! copied out as `u64`s, sorted there, and its words written to the start
//! of the allocation, bucket after bucket.
//!
//! Invariants: a bucket's words (4 bytes each) land on bytes of its own
//! records or of earlier buckets', all copied out already, never on a
//! later bucket's (4 < 7); the result depends only on the tuples (the
//! whole key is sorted, so equal keys are equal tuples).
//!
//! Cost: the keys made in one parallel pass, one in-place level, then
//! each tuple copied out, sorted as a `u64` and written once. Memory
//! beyond the list's 7 bytes a tuple: one bucket's `u64`s, at most an
//! eighth of a byte a tuple (or 8 MiB); a bucket above that (only where
//! the graph has few blocks, so few codes) is sorted in place as 7-byte
//! keys instead.

use super::{BLOCK, TILE_BITS, TupleBlocks, items_of, pack, pair_code, pair_of};
use generator::{Edge, NarrowTuple, PackedEdge};
use rayon::prelude::*;
use rdst::{RadixKey, RadixSort};

impl TupleBlocks {
    /// [`TupleBlocks::from_tuples`] of `len` [`PackedEdge`]s held in the
    /// first `7 len` bytes of `words`, in place (the module's overview),
    /// the allocation shrunk to the words. Parallel on the current rayon
    /// pool. Every id must be below `num_vertices` and below `2^28` (what
    /// a [`PackedEdge`] names).
    pub fn from_packed(num_vertices: usize, words: Vec<u32>, len: usize) -> TupleBlocks {
        TupleBlocks::from_packed_in_buckets(num_vertices, words, len, (len / 64).max(1 << 20))
    }

    /// [`TupleBlocks::from_packed`], buckets above `cap` tuples sorted in
    /// place.
    fn from_packed_in_buckets(
        num_vertices: usize,
        mut words: Vec<u32>,
        len: usize,
        cap: usize,
    ) -> TupleBlocks {
        let layout = KeyLayout::new(num_vertices);
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        let keys: &mut [PackedKey] = bytemuck::cast_slice_mut(&mut bytes[..7 * len]);
        let self_loops: usize = keys
            .par_iter_mut()
            .with_min_len(1 << 14)
            .map(|k| {
                *k = layout.key(*k);
                usize::from(*k == PackedKey::SELF_LOOP)
            })
            .sum();
        let tops: &mut [TopByte] = bytemuck::cast_slice_mut(keys);
        tops.radix_sort_builder().with_low_mem_tuner().sort();
        let bounds: Vec<usize> = (0..=256)
            .map(|top| tops.partition_point(|k| usize::from(k.0.0[6]) < top))
            .collect();
        let mut buffer: Vec<u64> = Vec::new();
        let mut items = Vec::new();
        let mut kept = 0;
        for bucket in bounds.windows(2) {
            let (start, end) = (bucket[0], bucket[1]);
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
            let keys: &mut [PackedKey] = bytemuck::cast_slice_mut(&mut bytes[7 * start..7 * end]);
            if keys.len() > cap {
                keys.radix_sort_builder().with_low_mem_tuner().sort();
                let real = keys.partition_point(|&k| k != PackedKey::SELF_LOOP);
                let code = |k: &PackedKey| layout.code(k.value());
                items.extend(items_of(&keys[..real], code, start));
                // Word i (bytes 4i..4i + 4) is read from record i (bytes
                // 7i..7i + 7) before it is written: packing forwards
                // overwrites only records already read.
                for i in start..start + real {
                    let bytes: &[u8] = bytemuck::cast_slice(&words);
                    let key: PackedKey = bytemuck::pod_read_unaligned(&bytes[7 * i..7 * i + 7]);
                    words[i] = key.word();
                }
                kept = start + real;
                continue;
            }
            buffer.clear();
            keys.par_iter()
                .with_min_len(1 << 14)
                .map(|k| k.value())
                .collect_into_vec(&mut buffer);
            buffer.radix_sort_builder().with_low_mem_tuner().sort();
            let real = buffer.partition_point(|&k| k != PackedKey::SELF_LOOP.value());
            items.extend(items_of(&buffer[..real], |&k| layout.code(k), start));
            // This bucket's words overwrite its own records (copied out)
            // and earlier buckets' bytes only.
            #[allow(clippy::cast_possible_truncation)] // the word: the low 32 bits
            words[start..start + real]
                .par_iter_mut()
                .zip(&buffer[..real])
                .with_min_len(1 << 14)
                .for_each(|(w, &k)| *w = k as u32);
            kept = start + real;
        }
        debug_assert_eq!(kept, len - self_loops);
        TupleBlocks::packed(num_vertices, words, kept, items, self_loops)
    }
}

/// A packed tuple (seven bytes, [`PackedEdge`]) as the sort sees it: a
/// little-endian 56-bit key whose low 32 bits are the word and whose top
/// bits are the block pair's code, cut to the bits the graph uses
/// ([`KeyLayout`]), so that keys sort as [`SortKey`](super::SortKey)s of
/// the same tuples do.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct PackedKey([u8; 7]);

impl PackedKey {
    /// A self-loop: all ones, sorting last; no other tuple's key (a code
    /// of all ones names a pair of one block, whose words are below
    /// `u32::MAX`; shorter codes leave zero bits below them).
    const SELF_LOOP: PackedKey = PackedKey([0xff; 7]);

    /// The key as a number: the record's 56 bits, as
    /// [`PackedEdge::bits`] reads them.
    #[inline]
    fn value(self) -> u64 {
        bytemuck::cast::<PackedKey, PackedEdge>(self).bits()
    }

    /// The key of the number `value` (56 bits), as
    /// [`PackedEdge::of_bits`] writes it.
    #[inline]
    fn of_value(value: u64) -> PackedKey {
        bytemuck::cast(PackedEdge::of_bits(value))
    }

    /// The packed word: the low 32 bits.
    #[inline]
    fn word(self) -> u32 {
        let b = self.0;
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl RadixKey for PackedKey {
    const LEVELS: usize = 7;

    /// Byte `level` of the key, from the least significant.
    #[inline]
    fn get_level(&self, level: usize) -> u8 {
        self.0[level]
    }
}

/// A [`PackedKey`] sorted by its top byte only: the first, in-place level
/// of [`TupleBlocks::from_packed`].
#[repr(transparent)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct TopByte(PackedKey);

impl RadixKey for TopByte {
    const LEVELS: usize = 1;

    #[inline]
    fn get_level(&self, _level: usize) -> u8 {
        self.0.0[6]
    }
}

/// Where a graph's block pair code sits in a [`PackedKey`]: the fields of
/// [`pair_code`] cut to the bits its `k = bits(blocks - 1)` block numbers
/// use (each id's tile in `k - min(k, 5)` bits, its place in the tile in
/// `min(k, 5)`), `2k` bits in all (24 at `2^28` vertices), at the top of
/// the 56 bits. The order of codes is kept, and the key's top byte is the
/// code's top eight bits, however many blocks there are.
#[derive(Clone, Copy, Debug)]
struct KeyLayout {
    /// Bits of a block's place in its tile.
    inside: u32,
    /// Bits of a block's tile.
    tiles: u32,
}

impl KeyLayout {
    fn new(num_vertices: usize) -> KeyLayout {
        let blocks = num_vertices.div_ceil(BLOCK).max(1);
        let k = usize::BITS - (blocks - 1).leading_zeros();
        debug_assert!(k <= 12, "ids below 2^28");
        let inside = k.min(TILE_BITS);
        KeyLayout {
            inside,
            tiles: k - inside,
        }
    }

    /// Where the code starts.
    fn shift(self) -> u32 {
        56 - 2 * (self.inside + self.tiles)
    }

    /// The key of `record`, a [`PackedEdge`] (turned and packed as
    /// [`pack`] does).
    fn key(self, record: PackedKey) -> PackedKey {
        let e: PackedEdge = bytemuck::cast(record);
        let (u, v) = e.vertices();
        if u == v {
            return PackedKey::SELF_LOOP;
        }
        let packed = pack(Edge::new(u, v));
        let (low, high) = pair_of(packed.u);
        let inside = (1 << TILE_BITS) - 1;
        let code = (low >> TILE_BITS) << (self.tiles + 2 * self.inside)
            | (high >> TILE_BITS) << (2 * self.inside)
            | (low & inside) << self.inside
            | (high & inside);
        PackedKey::of_value(u64::from(code) << self.shift() | u64::from(packed.v))
    }

    /// The [`pair_code`] of `key`'s block pair.
    fn code(self, key: u64) -> u32 {
        #[allow(clippy::cast_possible_truncation)] // at most 24 bits
        let code = (key >> self.shift()) as u32;
        let field = |at: u32, bits: u32| (code >> at) & ((1 << bits) - 1);
        let (inside, tiles) = (self.inside, self.tiles);
        let low = field(tiles + 2 * inside, tiles) << TILE_BITS | field(inside, inside);
        let high = field(2 * inside, tiles) << TILE_BITS | field(0, inside);
        pair_code(low, high)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::BLOCK_BITS;
    use crate::order::tests::tuples;
    use generator::EdgeList;

    #[test]
    fn a_packed_list_gives_the_blocks_of_the_same_tuples_unpacked() {
        for (n, mut original) in [
            (300_000, tuples(300_000, 200_000)),
            (1 << 28, tuples((1 << 28) - 1, 100_000)),
        ] {
            // Boundary ids: both ends of the id range, in and across blocks.
            let top = n - 1;
            original.extend(
                [(0, top), (top, top - 1), (top, 0), (top, top), (5, 0)]
                    .map(|(u, v)| Edge::new(u, v)),
            );
            let list = EdgeList::new(n as u64, original.clone()).unwrap();
            let expected = TupleBlocks::from_tuples(n as usize, original.clone());
            for threads in [1, 2, 3] {
                let packed = list.to_packed().unwrap();
                let blocks = par::in_pool(threads, || TupleBlocks::from_list(packed).unwrap());
                let blocks = blocks.unwrap();
                assert_eq!(blocks.words, expected.words, "{threads} threads");
                assert_eq!(blocks.items, expected.items, "{threads} threads");
                assert_eq!(blocks.len(), expected.len());
                assert_eq!(blocks.words.capacity(), blocks.words.len(), "shrunk");
            }
        }
        // A generated list, packed as a run generates it: duplicates and
        // self-loops of its own.
        use generator::EdgeGenerator;
        for scale in [3, 10, 14] {
            let g = generator::Kronecker::new(scale, 16, 7).unwrap();
            let plain = g.generate();
            let expected = TupleBlocks::from_tuples(plain.num_vertices(), plain.edges().to_vec());
            let blocks = TupleBlocks::from_list(g.generate_packed_reporting(&|| {})).unwrap();
            assert_eq!(blocks.words, expected.words, "SCALE {scale}");
            assert_eq!(blocks.items, expected.items, "SCALE {scale}");
            assert_eq!(blocks.self_loops, expected.self_loops, "SCALE {scale}");
        }
        let loops = EdgeList::new(5, vec![Edge::new(3, 3); 4]).unwrap();
        let loops = TupleBlocks::from_list(loops.to_packed().unwrap()).unwrap();
        assert_eq!((loops.len(), loops.words().len()), (4, 0));
    }

    /// Guards the buckets' two ways: sorted in place as 7-byte keys (every
    /// bucket, or those above a small cap) or copied out as `u64`s, the
    /// same blocks as unpacked, at 2^28 vertices too (where self-loops
    /// share the last bucket with the last pair's tuples).
    #[test]
    fn buckets_sorted_in_place_or_copied_out_give_the_same_blocks() {
        for n in [300_000u32, 1 << 28] {
            let mut original = tuples(n - 1, 100_000);
            let top = n - 1;
            original.extend(
                [(top, top - 1), (top, top), (top - 7, top - 9)].map(|(u, v)| Edge::new(u, v)),
            );
            let expected = TupleBlocks::from_tuples(n as usize, original.clone());
            let list = EdgeList::new(u64::from(n), original).unwrap();
            for cap in [0, 500, 5_000, usize::MAX] {
                let (words, len) = list.to_packed().unwrap().into_packed_words().unwrap();
                let blocks = TupleBlocks::from_packed_in_buckets(n as usize, words, len, cap);
                assert_eq!(blocks.words, expected.words, "{n} vertices, cap {cap}");
                assert_eq!(blocks.items, expected.items, "{n} vertices, cap {cap}");
                assert_eq!(blocks.self_loops, expected.self_loops);
            }
        }
    }

    /// Guards `KeyLayout`: for every number of blocks, a key's code reads
    /// back as the pair's `pair_code`, and keys order pairs as their codes
    /// do, the top byte first.
    #[test]
    fn key_layouts_keep_the_pair_order_at_every_block_count() {
        for k in 0..=12u32 {
            let n = (1usize << (16 + k)) - 3;
            let layout = KeyLayout::new(n);
            assert_eq!(layout.inside + layout.tiles, k);
            let blocks = n.div_ceil(BLOCK) as u32;
            let step = (blocks / 37).max(1);
            let mut keyed: Vec<(u64, u32)> = Vec::new();
            for low in (0..blocks).step_by(step as usize).chain([blocks - 1]) {
                for high in (low..blocks).step_by(step as usize).chain([blocks - 1]) {
                    let (a, b) = (low << BLOCK_BITS | 3, high << BLOCK_BITS | 9);
                    let record: PackedKey = bytemuck::cast(
                        <PackedEdge as generator::Tuple>::from_ends(u64::from(b), u64::from(a)),
                    );
                    let key = layout.key(record).value();
                    assert_eq!(layout.code(key), pair_code(low, high), "k {k}");
                    keyed.push((key, pair_code(low, high)));
                }
            }
            keyed.sort_unstable();
            assert!(keyed.windows(2).all(|w| w[0].1 <= w[1].1), "k {k}");
            assert!(
                keyed
                    .iter()
                    .all(|&(key, _)| key < PackedKey::SELF_LOOP.value())
            );
        }
    }
}
