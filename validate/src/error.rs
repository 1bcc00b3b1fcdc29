//! `Invalid`: why a parent array is not a BFS tree; `FileError`: why a
//! parent-array file could not be read.

use std::path::PathBuf;

/// A parent-array file that could not be read: each variant names the file
/// and is one line.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The operating system refused an operation on the file.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said (part of the message, so not also
        /// reported as a source).
        cause: std::io::Error,
    },
    /// The file's contents are not a parent array.
    #[error("{}: {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// A failed check, naming its number (see the crate documentation) and one
/// vertex or edge that breaks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    /// The parent array's length is not the vertex count.
    #[error(
        "check 1 (parent range): the parent array has {found} entries but the graph has {expected} vertices"
    )]
    WrongLength {
        /// Entries in the parent array.
        found: usize,
        /// Vertices in the graph.
        expected: usize,
    },
    /// The root is not a vertex.
    #[error("check 1 (parent range): root {root} is not a vertex (0..{num_vertices})")]
    RootOutOfRange {
        /// The root.
        root: u64,
        /// The vertex count.
        num_vertices: usize,
    },
    /// A parent that is neither -1 nor a vertex id.
    #[error(
        "check 1 (parent range): vertex {vertex} has parent {parent}, which is neither -1 nor a vertex id"
    )]
    ParentOutOfRange {
        /// The vertex.
        vertex: u64,
        /// Its parent entry.
        parent: i64,
    },
    /// The root's parent is not the root.
    #[error("check 1 (root): the root {root} has parent {parent}, not itself")]
    RootNotOwnParent {
        /// The root.
        root: u64,
        /// Its parent entry.
        parent: i64,
    },
    /// A vertex other than the root is its own parent.
    #[error("check 2 (tree): vertex {vertex} is its own parent but is not the root")]
    SecondRoot {
        /// The vertex.
        vertex: u64,
    },
    /// A parent chain reaches a vertex marked unreached.
    #[error("check 2 (tree): vertex {vertex} has parent {parent}, which is marked unreached (-1)")]
    ParentUnreached {
        /// The vertex.
        vertex: u64,
        /// Its unreached parent.
        parent: u64,
    },
    /// Parent pointers that loop.
    #[error("check 2 (tree): vertex {vertex} lies on a cycle of parent pointers")]
    Cycle {
        /// A vertex on the cycle.
        vertex: u64,
    },
    /// A tree edge that is not in the input.
    #[error(
        "check 3 (tree edges): vertex {vertex} has parent {parent}, but ({vertex}, {parent}) is not an input edge"
    )]
    NotAnEdge {
        /// The vertex.
        vertex: u64,
        /// Its parent.
        parent: u64,
    },
    /// An input edge from a reached vertex to an unreached one.
    #[error(
        "check 4 (reach): input edge {edge} joins reached vertex {reached} to unreached vertex {unreached}, so the root's component is not fully reached"
    )]
    HalfReachedEdge {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// The reached end.
        reached: u64,
        /// The unreached end.
        unreached: u64,
    },
    /// An input edge whose ends' levels differ by more than one.
    #[error(
        "check 4 (levels): input edge {edge} ({u}, {v}) joins level {level_u} to level {level_v}; BFS levels of neighbours differ by at most one"
    )]
    LevelGap {
        /// Position of the tuple in the edge list.
        edge: u64,
        /// One end.
        u: u64,
        /// The other end.
        v: u64,
        /// Tree level of `u`.
        level_u: u32,
        /// Tree level of `v`.
        level_v: u32,
    },
    /// The run's nedge differs from the validator's count.
    #[error(
        "check 6 (nedge): the validator counts {counted} edges in the searched component but the run reported {claimed}"
    )]
    NedgeMismatch {
        /// The validator's count.
        counted: u64,
        /// What the run reported.
        claimed: u64,
    },
}

impl Invalid {
    /// The number of the failed check (1 to 6).
    pub fn check(&self) -> u8 {
        match self {
            Invalid::WrongLength { .. }
            | Invalid::RootOutOfRange { .. }
            | Invalid::ParentOutOfRange { .. }
            | Invalid::RootNotOwnParent { .. } => 1,
            Invalid::SecondRoot { .. }
            | Invalid::ParentUnreached { .. }
            | Invalid::Cycle { .. } => 2,
            Invalid::NotAnEdge { .. } => 3,
            Invalid::HalfReachedEdge { .. } | Invalid::LevelGap { .. } => 4,
            Invalid::NedgeMismatch { .. } => 6,
        }
    }
}
