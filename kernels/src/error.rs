//! The kernels crate's error type.

/// What the kernels refuse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// A root that is not a vertex of the graph.
    #[error("root {root} is not a vertex: the graph has vertices 0..{num_vertices}")]
    RootOutOfRange {
        /// The root asked for.
        root: u64,
        /// The graph's vertex count.
        num_vertices: u64,
    },
    /// Fewer vertices qualify as search keys than were asked for.
    #[error(
        "{wanted} search keys asked for, but only {eligible} of the {num_vertices} vertices have an edge that is not a self-loop"
    )]
    TooFewSearchKeys {
        /// Keys asked for.
        wanted: usize,
        /// Vertices with at least one edge that is not a self-loop.
        eligible: usize,
        /// The graph's vertex count.
        num_vertices: usize,
    },
    /// The reference's key rule ran out of checked candidates and then
    /// accepted a vertex with no edge but self-loops, whose search would
    /// count no edge (the reference would report zero TEPS for it).
    #[error(
        "search key {index}: after trying {tried} candidates the reference's rule accepts vertex {vertex} unchecked, but it has no edge that is not a self-loop; ask for fewer keys"
    )]
    ReferenceKeysExhausted {
        /// Which key (from 0).
        index: usize,
        /// Candidates tried with checks (`N`).
        tried: u64,
        /// The vertex accepted unchecked.
        vertex: u64,
    },
    /// A kernel parameter out of its range.
    #[error("{0}")]
    Parameter(String),
}
