//! The edge tuple types: [`Edge`] (32-bit ends, what one process holds)
//! and [`WideEdge`] (64-bit ends, for distributed runs beyond SCALE 31),
//! and the [`Tuple`] trait that generators and kernels use for either.

use crate::edge_list::mix64;
use crate::{EdgeGenerator, MAX_VERTICES, Vertex};

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

    /// Writes block `block` of `generator` into `out`: the generator's
    /// [`fill_block`](EdgeGenerator::fill_block) or
    /// [`fill_block_wide`](EdgeGenerator::fill_block_wide).
    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, block: usize, out: &mut [Self]);

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

    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, block: usize, out: &mut [Self]) {
        generator.fill_block(block, out);
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

    fn fill<G: EdgeGenerator + ?Sized>(generator: &G, block: usize, out: &mut [Self]) {
        generator.fill_block_wide(block, out);
    }
}
