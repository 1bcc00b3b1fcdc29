//! The distance-array file of an SSSP search: `N` little-endian `f32`, one
//! per vertex in id order; `0` for the root, `-1` for a vertex the search did
//! not reach. Beside the parent-array file ([`crate::parents`]) it is what
//! an SSSP program writes and `graph500 validate --sssp --dist` reads.
//!
//! [`read`] takes a path; [`write()`] encodes onto any [`Write`]. Values are
//! kept bit for bit (NaN payloads, `-0.0`): judging them is the
//! validator's job ([`crate::SsspValidator`]), not the reader's.

use crate::{FileError, array_file};
use std::io::Write;
use std::path::Path;

/// Encodes a distance array onto `out`, 512 KiB per write. Fails only when
/// `out` does.
pub fn write(out: &mut dyn Write, dist: &[f32]) -> std::io::Result<()> {
    array_file::write(out, dist)
}

/// Reads a distance array. Fails, naming `path`, if it cannot be read, is
/// not a regular file, or is not a whole number of `f32`.
pub fn read(path: &Path) -> Result<Vec<f32>, FileError> {
    array_file::read(path, "distances")
}
