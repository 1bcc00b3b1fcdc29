//! The generator crate's error types: [`Error`], what can go wrong in
//! making, reading or writing a graph, and within it [`FileError`], a file
//! that could not be read or written, which `validate` also reports for
//! its parent-array and distance-array files (one type, one wording).

use std::path::{Path, PathBuf};

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
    /// A file could not be read or written, or its contents are not what
    /// its format requires.
    #[error(transparent)]
    File(#[from] FileError),
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

/// A file that could not be read or written: each variant names the file
/// and is one line.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The operating system refused an operation on the file.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said (part of the message, so not
        /// also reported as a source).
        cause: std::io::Error,
    },
    /// The file's contents do not have the form its format requires (a
    /// graph format, a parent or distance array).
    #[error("{}: {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where (a line, an edge, a header field).
        what: String,
    },
}

impl FileError {
    /// A [`FileError::Io`] for `path`.
    pub fn io(path: &Path, cause: std::io::Error) -> Self {
        FileError::Io {
            path: path.to_path_buf(),
            cause,
        }
    }

    /// A [`FileError::Format`] for `path`.
    pub fn format(path: &Path, what: impl Into<String>) -> Self {
        FileError::Format {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}

impl Error {
    /// An [`Error::File`] of [`FileError::Io`] for `path`.
    pub(crate) fn io(path: &Path, cause: std::io::Error) -> Self {
        FileError::io(path, cause).into()
    }

    /// An [`Error::File`] of [`FileError::Format`] for `path`.
    pub(crate) fn format(path: &Path, what: impl Into<String>) -> Self {
        FileError::format(path, what).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    /// Guards the wording of file errors, which the command line's tests
    /// and users read: `path: what` on one line, the same through
    /// [`Error::File`] as alone, with no source to repeat it.
    #[test]
    fn file_errors_read_path_colon_what_alike_through_error() {
        let path = Path::new("dir/g.el");
        let cases = [
            FileError::io(path, std::io::Error::other("denied")),
            FileError::format(path, "line 3: expected two vertex ids"),
        ];
        let expected = [
            "dir/g.el: denied",
            "dir/g.el: line 3: expected two vertex ids",
        ];
        for (e, text) in cases.into_iter().zip(expected) {
            assert_eq!(e.to_string(), text);
            assert!(e.source().is_none());
            let wrapped = Error::from(e);
            assert_eq!(wrapped.to_string(), text);
            assert!(wrapped.source().is_none());
        }
    }
}
