//! The parent-array file: `N` little-endian `i64`, one per vertex in id
//! order; `parent[root] = root`, `-1` for a vertex the search did not reach.
//! This is what `graph500 bfs` writes and `graph500 validate` reads, and what
//! another BFS program must write to be validated.
//!
//! [`read`] takes a path; [`write()`] encodes onto any [`Write`], so where the
//! bytes go (and how an interrupted write is cleaned up) is the caller's
//! choice.

use crate::{FileError, array_file};
use std::io::Write;
use std::path::Path;

/// Encodes a parent array onto `out`, 512 KiB per write. Fails only when
/// `out` does.
pub fn write(out: &mut dyn Write, parents: &[i64]) -> std::io::Result<()> {
    array_file::write(out, parents)
}

/// Reads a parent array. Fails, naming `path`, if it cannot be read, is not
/// a regular file, or is not a whole number of `i64`.
pub fn read(path: &Path) -> Result<Vec<i64>, FileError> {
    array_file::read(path, "parents")
}
