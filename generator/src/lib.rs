//! Graph500 input graphs: the Kronecker generator, edge lists and their files.
//!
//! - [`Kronecker`] generates the benchmark's R-MAT edge list: `2^scale`
//!   vertices, `edgefactor * 2^scale` edge tuples, initiator probabilities
//!   A, B, C, D = 0.57, 0.19, 0.19, 0.05, vertex labels scrambled by a seeded
//!   bijection ([`Scrambler`]). Self-loops and duplicate tuples stay.
//! - Every block of [`EDGES_PER_BLOCK`] edges draws from its own xoshiro256++
//!   stream, reached from the seed by jump-ahead ([`SeedStreams`]), so the
//!   edge list is bit-identical for any number of threads.
//! - [`ReferenceKronecker`] is the official reference generator bit for bit
//!   (L'Ecuyer's MRG with skip-ahead, [`Mrg`]), with its search-key
//!   candidates. Both generators implement [`EdgeGenerator`].
//! - [`generate_weights`] gives the SSSP (kernel 3) edge weights, one `f32`
//!   per tuple in `[0, 1)`, in the same blocks and just as deterministic:
//!   the reference generator's bit for bit, the default one's from streams
//!   of its own ([`SeedStreams`]).
//! - [`EdgeList`] holds the tuples, either owned or memory-mapped straight
//!   from a binary file, and weights when asked for
//!   ([`EdgeList::with_weights`]); its [`EdgeList::checksum`] identifies a
//!   graph (tuples only).
//! - [`format`](mod@format) reads edge lists from files (binary, text, Matrix Market,
//!   packed 48-bit) and encodes them onto any `std::io::Write`.
//!
//! Vertex ids are [`Vertex`] (`u32`); a graph holds at most
//! [`MAX_VERTICES`] vertices so that `u32::MAX` stays free as a sentinel.

#![cfg_attr(test, allow(clippy::cast_possible_truncation))]

mod blocks;
mod edge_list;
mod error;
pub mod format;
mod kronecker;
mod mrg;
mod random;
mod reference;
mod scramble;
mod tuple;

pub use blocks::{EDGES_PER_BLOCK, EdgeGenerator, generate_blocks, generate_weights};
pub use edge_list::{EdgeList, ListTuples, WEIGHT_LIMIT, is_weight};
pub use error::{Error, FileError};
pub use kronecker::{
    DEFAULT_EDGEFACTOR, DEFAULT_SEED, Kronecker, MAX_EDGEFACTOR, MAX_SCALE, MAX_WIDE_SCALE,
    expected_named_vertices,
};
pub use mrg::{Mrg, Transition};
pub use random::{BlockJumps, SeedStreams, Stream, uniform_below, unit_f32};
pub use reference::{REFERENCE_USER_SEEDS, ReferenceKronecker, RootCandidates};
pub use scramble::Scrambler;
pub use tuple::{Edge, NarrowTuple, PackedEdge, Tuple, WideEdge};

/// A vertex id. Ids run from 0 to `num_vertices - 1`.
pub type Vertex = u32;

/// The most vertices a graph may have: every id fits a [`Vertex`] and
/// `Vertex::MAX` is never an id, so kernels may use it to mean "none".
pub const MAX_VERTICES: u64 = Vertex::MAX as u64;
