//! The Graph500 reference code's packed edge file: no header, 12 bytes per
//! edge tuple, little-endian: `v0` low 32 bits, `v1` low 32 bits, then one
//! 32-bit word holding the high 16 bits of `v0` (low half) and of `v1` (high
//! half), each a signed 16-bit value, so ids span 48 bits. The vertex count
//! is the largest id plus one. graph500 reads ids up to 2^32 - 2 and writes
//! the high halves as zero.

use super::{in_file, map, open_regular};
use crate::{Edge, EdgeList, Error, MAX_VERTICES};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Bytes per packed tuple.
pub const RECORD: usize = 12;

/// Reads a packed edge file.
pub fn read(path: &Path) -> Result<EdgeList, Error> {
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

/// Encodes `edges` onto `out` as packed tuples, 768 KiB per write.
pub fn write(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    for chunk in edges.edges().chunks(1 << 16) {
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
    fn the_layout_is_low_low_high() {
        let r = encode(0x0001_0000_0002, 0x0003_0000_0004);
        assert_eq!(r, [2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 3, 0]);
    }
}
