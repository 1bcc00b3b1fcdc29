//! The generator crate's error type.

use std::path::PathBuf;

/// What can go wrong when making, reading or writing a graph.
///
/// Every variant that concerns a file names it; the text of each is one line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A parameter is outside the range the generator supports.
    #[error("{name} = {value} is out of range: {range}")]
    Parameter {
        /// The parameter's name as the user knows it (`scale`, `edgefactor`).
        name: &'static str,
        /// The value given.
        value: u64,
        /// The accepted range, in words.
        range: String,
    },
    /// The operating system refused an operation on a file.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said (part of the message, so not
        /// also reported as a source).
        cause: std::io::Error,
    },
    /// A file's contents do not have the form its format requires.
    #[error("{}: {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where (a line, an edge, a header field).
        what: String,
    },
    /// An edge names a vertex the graph does not have.
    #[error("edge {edge} ({u}, {v}) names a vertex outside 0..{num_vertices}")]
    VertexOutOfRange {
        /// Position of the edge in the list, from 0.
        edge: u64,
        /// One end.
        u: u64,
        /// The other end.
        v: u64,
        /// The graph's vertex count.
        num_vertices: u64,
    },
    /// Edge weights that do not pair one to one with the tuples.
    #[error("{weights} weights for {tuples} edge tuples: each tuple needs one")]
    WeightCount {
        /// The number of weights.
        weights: u64,
        /// The number of tuples.
        tuples: u64,
    },
    /// An edge weight that is NaN, infinite, negative or 2^64 and up.
    #[error("edge {edge} has weight {weight}: weights must be finite, not negative and below 2^64")]
    BadWeight {
        /// Position of the edge (and its weight) in the list, from 0.
        edge: u64,
        /// The weight.
        weight: f32,
    },
    /// More vertices than [`crate::MAX_VERTICES`].
    #[error("{num_vertices} vertices is more than the {max} this build supports")]
    TooManyVertices {
        /// The vertex count asked for.
        num_vertices: u64,
        /// [`crate::MAX_VERTICES`].
        max: u64,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub(crate) fn io(path: &std::path::Path, cause: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            cause,
        }
    }

    /// An [`Error::Format`] for `path`.
    pub(crate) fn format(path: &std::path::Path, what: impl Into<String>) -> Self {
        Error::Format {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}
