//! The parent-array file: `N` little-endian `i64`, one per vertex in id
//! order; `parent[root] = root`, `-1` for a vertex the search did not reach.
//! This is what `graph500 bfs` writes and `graph500 validate` reads, and what
//! another BFS program must write to be validated.

use super::{open_regular, write_atomic};
use crate::Error;
use std::io::{Read, Write};
use std::path::Path;

/// Writes a parent array, atomically.
pub fn write(path: &Path, parents: &[i64]) -> Result<(), Error> {
    write_atomic(path, |out| {
        for chunk in parents.chunks(1 << 16) {
            if cfg!(target_endian = "little") {
                out.write_all(bytemuck::cast_slice(chunk))?;
            } else {
                for p in chunk {
                    out.write_all(&p.to_le_bytes())?;
                }
            }
        }
        Ok(())
    })
}

/// Reads a parent array. Fails if the file is not a whole number of `i64`.
pub fn read(path: &Path) -> Result<Vec<i64>, Error> {
    let (mut file, len) = open_regular(path)?;
    if len % 8 != 0 {
        return Err(Error::format(
            path,
            format!("{len} bytes is not a whole number of 8-byte parents"),
        ));
    }
    let count = usize::try_from(len / 8)
        .map_err(|_| Error::format(path, "too large for this machine's memory"))?;
    let mut parents: Vec<i64> = bytemuck::zeroed_vec(count);
    file.read_exact(bytemuck::cast_slice_mut(&mut parents))
        .map_err(|e| Error::io(path, e))?;
    if cfg!(target_endian = "big") {
        for p in &mut parents {
            *p = i64::from_le(*p);
        }
    }
    Ok(parents)
}
