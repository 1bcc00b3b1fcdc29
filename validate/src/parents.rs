//! The parent-array file: `N` little-endian `i64`, one per vertex in id
//! order; `parent[root] = root`, `-1` for a vertex the search did not reach.
//! This is what `graph500 bfs` writes and `graph500 validate` reads, and what
//! another BFS program must write to be validated.
//!
//! [`read`] takes a path; [`write()`] encodes onto any [`Write`], so where the
//! bytes go (and how an interrupted write is cleaned up) is the caller's
//! choice.

use crate::FileError;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// Parents per `write` call of [`write()`] (512 KiB).
const CHUNK: usize = 1 << 16;

/// Encodes a parent array onto `out`, 512 KiB per write. Fails only when
/// `out` does.
pub fn write(out: &mut dyn Write, parents: &[i64]) -> std::io::Result<()> {
    for chunk in parents.chunks(CHUNK) {
        if cfg!(target_endian = "little") {
            out.write_all(bytemuck::cast_slice(chunk))?;
        } else {
            let bytes: Vec<u8> = chunk.iter().flat_map(|p| p.to_le_bytes()).collect();
            out.write_all(&bytes)?;
        }
    }
    Ok(())
}

/// Reads a parent array. Fails, naming `path`, if it cannot be read, is not
/// a regular file, or is not a whole number of `i64`.
pub fn read(path: &Path) -> Result<Vec<i64>, FileError> {
    let io = |cause| FileError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let format = |what: String| FileError::Format {
        path: path.to_path_buf(),
        what,
    };
    let mut file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(format("not a regular file".into()));
    }
    let len = meta.len();
    if len % 8 != 0 {
        return Err(format(format!(
            "{len} bytes is not a whole number of 8-byte parents"
        )));
    }
    let count = usize::try_from(len / 8)
        .map_err(|_| format("too large for this machine's memory".into()))?;
    let mut parents: Vec<i64> = bytemuck::zeroed_vec(count);
    file.read_exact(bytemuck::cast_slice_mut(&mut parents))
        .map_err(io)?;
    if cfg!(target_endian = "big") {
        for p in &mut parents {
            *p = i64::from_le(*p);
        }
    }
    Ok(parents)
}
