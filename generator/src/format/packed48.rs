//! The Graph500 reference code's packed edge file: no header, 12 bytes per
//! edge tuple, little-endian: `v0` low 32 bits, `v1` low 32 bits, then one
//! 32-bit word holding the high 16 bits of `v0` (low half) and of `v1` (high
//! half), each a signed 16-bit value, so ids span 48 bits. The vertex count
//! is the largest id plus one. graph500 reads ids up to 2^32 - 2 and writes
//! the high halves as zero.
//!
//! Weights live in a second file, `FILE.weights` beside `FILE` (the
//! reference's `TMPFILE` pair): one little-endian `f32` per tuple, in
//! tuple order, no header. [`read`] attaches them when that file exists;
//! [`write()`] encodes only the tuples, and [`write_weights`] the weights
//! for the caller to put at [`weights_path`].
//!
//! The two files are one thing, so a pair whose halves came apart (two
//! programs writing the same pair at once, a crash between the two renames)
//! must not pass for a graph. [`write_weights`] ends the weights with a
//! [`PairTrailer`] of [`TRAILER`] bytes: a magic, the tuple count and a
//! checksum of the tuples ([`EdgeList::checksum_terms`]), and [`read`]
//! refuses weights whose trailer names other tuples. The reference's own
//! weights files have no trailer (exactly 4 bytes per tuple) and are read
//! as they are, unchecked; the reference reads the first 4 bytes per tuple
//! of ours and ignores the rest.

use super::{decode_weights, in_file, map, open_regular};
use crate::{Edge, EdgeList, Error, MAX_VERTICES, Tuple, with_tuples};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes per packed tuple.
pub const RECORD: usize = 12;

/// The weights file of the packed edge file `path`: its name with
/// `.weights` appended (`g.pe48` → `g.pe48.weights`).
pub fn weights_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".weights");
    PathBuf::from(name)
}

/// Bytes of the [`PairTrailer`] that ends a weights file graph500 wrote.
pub const TRAILER: usize = 24;

/// The first 8 bytes of a [`PairTrailer`].
const MAGIC: [u8; 8] = *b"g500pair";

/// What ties a weights file to its packed tuples: the magic `g500pair`, then the
/// tuple count and [`EdgeList::checksum_terms`] of the tuples from 0,
/// each a little-endian `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairTrailer {
    /// How many tuples (and weights).
    pub tuples: u64,
    /// The tuples' checksum terms.
    pub checksum: u64,
}

impl PairTrailer {
    /// The trailer of `edges`' tuples, of either width (one parallel pass
    /// over them).
    pub fn of<T: Tuple>(edges: &[T]) -> Self {
        PairTrailer {
            tuples: edges.len() as u64,
            checksum: EdgeList::checksum_terms(edges, 0),
        }
    }

    /// The trailer's bytes.
    pub fn encode(self) -> [u8; TRAILER] {
        let mut bytes = [0u8; TRAILER];
        bytes[..8].copy_from_slice(&MAGIC);
        bytes[8..16].copy_from_slice(&self.tuples.to_le_bytes());
        bytes[16..].copy_from_slice(&self.checksum.to_le_bytes());
        bytes
    }

    /// The trailer in `bytes`, if they are one.
    pub fn decode(bytes: &[u8; TRAILER]) -> Option<Self> {
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        (bytes[..8] == MAGIC).then(|| PairTrailer {
            tuples: word(8),
            checksum: word(16),
        })
    }
}

/// Reads a packed edge file, with the weights of [`weights_path`] if that
/// file exists: it must then hold 4 bytes per tuple, followed by nothing
/// (the reference's) or by the [`PairTrailer`] of these tuples (graph500's).
pub fn read(path: &Path) -> Result<EdgeList, Error> {
    let list = read_tuples(path)?;
    match read_weights_beside(path, list.edges())? {
        Some((weights, weights_path)) => list.with_weights(weights).map_err(in_file(&weights_path)),
        None => Ok(list),
    }
}

/// The weights beside `path` and their file, if that file exists; fails
/// naming it if it cannot be read, is not 4 bytes per tuple of `edges`
/// (with or without a trailer), or has the trailer of other tuples.
fn read_weights_beside(path: &Path, edges: &[Edge]) -> Result<Option<(Vec<f32>, PathBuf)>, Error> {
    let weights_path = weights_path(path);
    match std::fs::symlink_metadata(&weights_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    let (file, len) = open_regular(&weights_path)?;
    let num_edges = edges.len();
    let expected = 4 * num_edges as u64;
    if len != expected && len != expected + TRAILER as u64 {
        return Err(Error::format(
            &weights_path,
            format!(
                "{len} bytes of weights for the {num_edges} edges of {}: expected {expected} (4 per edge), or {} with graph500's pair trailer",
                path.display(),
                expected + TRAILER as u64
            ),
        ));
    }
    let map = map(&file, &weights_path)?;
    let (weights, trailer) = map.split_at(4 * num_edges);
    if let Ok(trailer) = <&[u8; TRAILER]>::try_from(trailer) {
        let belongs = PairTrailer::decode(trailer).map(|t| t == PairTrailer::of(edges));
        match belongs {
            Some(true) => {}
            Some(false) => {
                return Err(Error::format(
                    &weights_path,
                    format!(
                        "holds the weights of another edge list, not of {} (the pair came apart: written by two programs at once, or stopped between its files): write the pair again",
                        path.display()
                    ),
                ));
            }
            None => {
                return Err(Error::format(
                    &weights_path,
                    format!(
                        "its last {TRAILER} bytes are not graph500's pair trailer: {len} bytes is not 4 per edge of {} ({expected})",
                        path.display()
                    ),
                ));
            }
        }
    }
    Ok(Some((decode_weights(weights), weights_path)))
}

/// The tuples of a packed edge file.
fn read_tuples(path: &Path) -> Result<EdgeList, Error> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(Error::format(path, "empty file: no packed edge tuples"));
    }
    if len % RECORD as u64 != 0 {
        return Err(Error::format(
            path,
            format!("{len} bytes is not a whole number of 12-byte packed edges"),
        ));
    }
    let map = map(&file, path)?;
    let decoded: Result<Vec<Edge>, (usize, i64, i64)> = map
        .par_chunks(RECORD)
        .enumerate()
        .map(|(i, record)| {
            let (u, v) = decode(record.try_into().expect("12 bytes"));
            match (u32::try_from(u), u32::try_from(v)) {
                (Ok(a), Ok(b)) if u64::from(a.max(b)) < MAX_VERTICES => Ok(Edge::new(a, b)),
                _ => Err((i, u, v)),
            }
        })
        .collect();
    let edges = decoded.map_err(|(i, u, v)| {
        Error::format(
            path,
            format!("edge {i} ({u}, {v}) has an id outside 0..{MAX_VERTICES}"),
        )
    })?;
    let n = edges
        .par_iter()
        .map(|e| u64::from(e.u.max(e.v)) + 1)
        .max()
        .unwrap_or(0);
    EdgeList::new(n, edges).map_err(in_file(path))
}

/// Encodes `edges`' weights onto `out` as the contents of its
/// [`weights_path`] file, 256 KiB per write, then their [`PairTrailer`]
/// (nothing at all if it has no weights).
pub fn write_weights(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    match edges.weights() {
        Some(weights) => {
            super::write_weights(out, weights)?;
            let trailer = with_tuples!(edges, |tuples| PairTrailer::of(tuples));
            out.write_all(&trailer.encode())
        }
        None => Ok(()),
    }
}

/// Encodes `edges`' tuples onto `out` as packed tuples, 768 KiB per write
/// (the weights go to another file: [`write_weights`]).
pub fn write(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    for chunk in edges.edge_chunks(1 << 16) {
        let bytes: Vec<u8> = chunk
            .iter()
            .flat_map(|e| encode(e.u.into(), e.v.into()))
            .collect();
        out.write_all(&bytes)?;
    }
    Ok(())
}

/// The two ids of a record (sign-extended from 48 bits).
fn decode(record: &[u8; RECORD]) -> (i64, i64) {
    let word = |i: usize| u32::from_le_bytes(record[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let high = word(2);
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // the halves, signed
    let (high_u, high_v) = (
        i64::from(high as u16 as i16),
        i64::from((high >> 16) as u16 as i16),
    );
    (
        i64::from(word(0)) | (high_u << 32),
        i64::from(word(1)) | (high_v << 32),
    )
}

/// The record of ids `u` and `v` (each within 48 bits).
fn encode(u: i64, v: i64) -> [u8; RECORD] {
    let mut record = [0u8; RECORD];
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // the low and high parts
    let (low_u, low_v, high) = (
        u as u32,
        v as u32,
        ((u >> 32) as u32 & 0xffff) | (((v >> 32) as u32 & 0xffff) << 16),
    );
    record[0..4].copy_from_slice(&low_u.to_le_bytes());
    record[4..8].copy_from_slice(&low_v.to_le_bytes());
    record[8..12].copy_from_slice(&high.to_le_bytes());
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_including_48_bit_and_negative_ids() {
        for (u, v) in [
            (0, 0),
            (7, 1 << 33),
            ((1 << 47) - 1, 5),
            (-1, 3),
            (-(1 << 40), 2),
        ] {
            assert_eq!(decode(&encode(u, v)), (u, v));
        }
    }

    #[test]
    fn weights_sit_beside_with_a_suffix() {
        assert_eq!(
            weights_path(Path::new("/d/g.pe48")),
            Path::new("/d/g.pe48.weights")
        );
        assert_eq!(weights_path(Path::new("g")), Path::new("g.weights"));
    }

    #[test]
    fn the_layout_is_low_low_high() {
        let r = encode(0x0001_0000_0002, 0x0003_0000_0004);
        assert_eq!(r, [2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 3, 0]);
    }
}
