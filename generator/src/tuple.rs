//! The edge tuple types: [`Edge`] (32-bit ends, what one process holds),
//! [`PackedEdge`] (two 28-bit ends in 7 bytes, a generated run's list up
//! to SCALE 28) and [`WideEdge`] (64-bit ends, for distributed runs beyond
//! SCALE 31), and the [`Tuple`] trait that generators and kernels use for
//! any of them ([`NarrowTuple`] for those whose ends are [`Vertex`]es).

use crate::blocks::each_block;
use crate::edge_list::mix64;
use crate::{EdgeGenerator, MAX_VERTICES, Vertex};
use std::cell::RefCell;

/// One undirected edge tuple `(u, v)`. `u == v` is a self-loop.
///
/// `repr(C)` and `Pod`: eight bytes, `u` then `v`, so a little-endian binary
/// file of `u32` pairs can be viewed as `&[Edge]` without copying.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Edge {
    /// One end.
    pub u: Vertex,
    /// The other end.
    pub v: Vertex,
}

impl Edge {
    /// The tuple `(u, v)`.
    pub const fn new(u: Vertex, v: Vertex) -> Self {
        Edge { u, v }
    }

    /// True when both ends are the same vertex.
    pub const fn is_self_loop(self) -> bool {
        self.u == self.v
    }
}

/// One undirected edge tuple with 64-bit ends: what a distributed run
/// holds when `N` exceeds what an [`Edge`] can name (SCALE 32 and up),
/// or when a run forces wide ids. Sixteen bytes, `u` then `v`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WideEdge {
    /// One end.
    pub u: u64,
    /// The other end.
    pub v: u64,
}

/// An edge tuple type: [`Edge`] (32-bit ends) or [`WideEdge`] (64-bit).
/// Generators fill either ([`generate_blocks`](crate::generate_blocks)),
/// and the distributed kernels take either.
pub trait Tuple:
    bytemuck::Pod + Default + Send + Sync + PartialEq + std::fmt::Debug + 'static
{
    /// Every id of this type is below this.
    const MAX_VERTICES: u64;

    /// The tuple `(u, v)`; both must be below [`Tuple::MAX_VERTICES`].
    fn from_ends(u: u64, v: u64) -> Self;

    /// `(u, v)`.
    fn ends(self) -> (u64, u64);

    /// True when both ends are the same vertex.
    #[inline]
    fn is_self_loop(self) -> bool {
        let (u, v) = self.ends();
        u == v
    }

    /// Writes the consecutive blocks of `generator` from `first_block` on
    /// that `out` holds (whole blocks, the last perhaps the list's short
    /// one): the generator's [`fill_blocks`](EdgeGenerator::fill_blocks),
    /// or [`fill_block_wide`](EdgeGenerator::fill_block_wide) block by
    /// block.
    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, first_block: usize, out: &mut [Self]);

    /// What the checksum mixes for this tuple: `u << 32 | v` for ids below
    /// `2^32`, so a wide list's checksum equals the narrow list's.
    #[inline]
    fn checksum_key(self) -> u64 {
        let (u, v) = self.ends();
        let high = (u >> 32) << 32 | v >> 32;
        // mix64(0) == 0: ids below 2^32 leave the narrow key unchanged.
        (u << 32 | (v & 0xFFFF_FFFF)) ^ mix64(high)
    }
}

impl Tuple for Edge {
    const MAX_VERTICES: u64 = MAX_VERTICES;

    #[inline]
    fn from_ends(u: u64, v: u64) -> Self {
        debug_assert!(u < MAX_VERTICES && v < MAX_VERTICES);
        // The caller guarantees both fit (documented precondition).
        #[allow(clippy::cast_possible_truncation)]
        Edge::new(u as Vertex, v as Vertex)
    }

    #[inline]
    fn ends(self) -> (u64, u64) {
        (self.u.into(), self.v.into())
    }

    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, first_block: usize, out: &mut [Self]) {
        generator.fill_blocks(first_block, out);
    }
}

impl Tuple for WideEdge {
    const MAX_VERTICES: u64 = u64::MAX;

    #[inline]
    fn from_ends(u: u64, v: u64) -> Self {
        WideEdge { u, v }
    }

    #[inline]
    fn ends(self) -> (u64, u64) {
        (self.u, self.v)
    }

    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, first_block: usize, out: &mut [Self]) {
        each_block(first_block, out, |block, items| {
            generator.fill_block_wide(block, items);
        });
    }
}

/// A tuple whose ends are [`Vertex`]es: what kernel 1 of one process
/// reads, monomorphised for each ([`Edge`] and [`PackedEdge`]).
pub trait NarrowTuple: Tuple {
    /// `(u, v)`.
    fn vertices(self) -> (Vertex, Vertex);
}

impl NarrowTuple for Edge {
    #[inline(always)]
    fn vertices(self) -> (Vertex, Vertex) {
        (self.u, self.v)
    }
}

/// Bits of each end of a [`PackedEdge`].
const PACKED_BITS: u32 = 28;

/// One undirected edge tuple in seven bytes: `u` in the low 28 bits and `v`
/// in the next 28 of a little-endian 56-bit number. Alignment 1, so a
/// list of them is `7 M` bytes with no padding: a generated run holds its
/// list this way while its ids fit ([`PackedEdge::MAX_VERTICES`], SCALE
/// 28), 1 byte a tuple less than [`Edge`]s.
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PackedEdge([u8; 7]);

impl PackedEdge {
    /// Whether a graph of `num_vertices` vertices has ids a packed tuple
    /// holds: at most `2^28` of them (SCALE 28).
    pub fn names(num_vertices: u64) -> bool {
        num_vertices <= <PackedEdge as Tuple>::MAX_VERTICES
    }

    /// The record as a 56-bit number (its seven bytes, little-endian). The
    /// validator's sort keys of packed tuples are records of this same
    /// layout.
    #[inline(always)]
    pub fn bits(self) -> u64 {
        let b = self.0;
        u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            | u64::from(u16::from_le_bytes([b[4], b[5]])) << 32
            | u64::from(b[6]) << 48
    }

    /// The record of the 56-bit number `bits` (its bits above 56 dropped).
    #[inline(always)]
    pub fn of_bits(bits: u64) -> PackedEdge {
        let b = bits.to_le_bytes();
        PackedEdge([b[0], b[1], b[2], b[3], b[4], b[5], b[6]])
    }
}

impl std::fmt::Debug for PackedEdge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (u, v) = self.vertices();
        write!(f, "PackedEdge({u}, {v})")
    }
}

impl NarrowTuple for PackedEdge {
    #[inline(always)]
    fn vertices(self) -> (Vertex, Vertex) {
        let bits = self.bits();
        let mask = (1 << PACKED_BITS) - 1;
        // Both halves are below 2^28.
        #[allow(clippy::cast_possible_truncation)]
        ((bits & mask) as Vertex, (bits >> PACKED_BITS) as Vertex)
    }
}

thread_local! {
    /// A worker's blocks of [`Edge`]s, filled and then packed: one
    /// allocation a thread instead of one a task.
    static UNPACKED: RefCell<Vec<Edge>> = const { RefCell::new(Vec::new()) };
}

impl Tuple for PackedEdge {
    const MAX_VERTICES: u64 = 1 << PACKED_BITS;

    #[inline]
    fn from_ends(u: u64, v: u64) -> Self {
        debug_assert!(u < Self::MAX_VERTICES && v < Self::MAX_VERTICES);
        PackedEdge::of_bits(u | v << PACKED_BITS)
    }

    #[inline]
    fn ends(self) -> (u64, u64) {
        let (u, v) = self.vertices();
        (u.into(), v.into())
    }

    /// The generator's [`Edge`]s, packed.
    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, first_block: usize, out: &mut [Self]) {
        UNPACKED.with_borrow_mut(|edges| {
            edges.clear();
            edges.resize(out.len(), Edge::default());
            generator.fill_blocks(first_block, edges);
            for (packed, e) in out.iter_mut().zip(edges.iter()) {
                *packed = PackedEdge::from_ends(e.u.into(), e.v.into());
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_record_round_trips_every_boundary_id() {
        let top = PackedEdge::MAX_VERTICES - 1;
        let ids = [
            0,
            1,
            2,
            0xFF,
            0x100,
            0xFFFF,
            1 << 24,
            top >> 1,
            top - 1,
            top,
        ];
        for u in ids {
            for v in ids {
                let e = PackedEdge::from_ends(u, v);
                assert_eq!(e.ends(), (u, v));
                assert_eq!(e.is_self_loop(), u == v);
                assert_eq!(e.checksum_key(), Edge::from_ends(u, v).checksum_key());
            }
        }
        assert_eq!(size_of::<PackedEdge>(), 7);
        assert_eq!(align_of::<PackedEdge>(), 1);
        assert_eq!(PackedEdge::MAX_VERTICES, 1 << 28);
    }
}
