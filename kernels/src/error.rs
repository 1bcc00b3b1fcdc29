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
}
