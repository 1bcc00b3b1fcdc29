//! The binary edge-list format: a 32-byte header, then the tuples.
//!
//! All fields little-endian:
//!
//! | bytes | field | value |
//! | --- | --- | --- |
//! | 0..8 | magic | `G500EDGE` |
//! | 8..12 | version | `1` (tuples only) or `2` (tuples, then weights) |
//! | 12..16 | id width | `4` (`u32` ids) or `8` (`u64` ids) |
//! | 16..24 | vertex count | `N` |
//! | 24..32 | edge count | `M` |
//! | 32.. | tuples | `M` pairs `u, v` of id-width integers |
//! | after the tuples | weights (version 2 only) | `M` `f32`s, weight `i` of tuple `i` |
//!
//! The file length must be exactly `32 + M * 2 * width`, plus `4 * M` in
//! version 2. Width-4 files (what graph500 writes) are memory-mapped and
//! used in place, weights included; width-8 files are read and narrowed to
//! `u32`. graph500 writes version 2 only for a list that has weights, so
//! files without them still read in builds that know only version 1.

use super::{decode_weights, in_file, map, open_regular, write_weights};
use crate::edge_list::check_weights;
use crate::{Edge, EdgeList, Error, Tuple};
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::Path;

/// The first eight bytes of every binary edge list.
pub const MAGIC: [u8; 8] = *b"G500EDGE";
/// The format version of files without weights.
pub const VERSION: u32 = 1;
/// The format version of files whose tuples are followed by weights.
pub const WEIGHTED_VERSION: u32 = 2;
/// Bytes before the first tuple.
pub const HEADER_LEN: usize = 32;

/// The decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Bytes per vertex id: 4 or 8.
    pub id_width: u32,
    /// `N`.
    pub num_vertices: u64,
    /// `M`.
    pub num_edges: u64,
    /// `M` weights follow the tuples (version 2).
    pub weighted: bool,
}

impl Header {
    /// The header bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&MAGIC);
        let version = if self.weighted {
            WEIGHTED_VERSION
        } else {
            VERSION
        };
        out[8..12].copy_from_slice(&version.to_le_bytes());
        out[12..16].copy_from_slice(&self.id_width.to_le_bytes());
        out[16..24].copy_from_slice(&self.num_vertices.to_le_bytes());
        out[24..32].copy_from_slice(&self.num_edges.to_le_bytes());
        out
    }

    /// Decodes and checks a header; `what` describes the first problem.
    pub fn decode(bytes: &[u8; HEADER_LEN]) -> Result<Self, String> {
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        if bytes[0..8] != MAGIC {
            return Err(format!(
                "not a graph500 binary edge list (the first bytes are not {:?}); text edge lists must end in .el or .txt",
                String::from_utf8_lossy(&MAGIC)
            ));
        }
        let version = u32_at(8);
        if version != VERSION && version != WEIGHTED_VERSION {
            return Err(format!(
                "header: unknown version {version} (this build reads versions {VERSION} and {WEIGHTED_VERSION})"
            ));
        }
        let id_width = u32_at(12);
        if id_width != 4 && id_width != 8 {
            return Err(format!("header: id width {id_width}, expected 4 or 8"));
        }
        Ok(Header {
            id_width,
            num_vertices: u64_at(16),
            num_edges: u64_at(24),
            weighted: version == WEIGHTED_VERSION,
        })
    }

    /// The file length this header implies, if it fits a `u64`.
    pub fn file_len(&self) -> Option<u64> {
        let weight_bytes = if self.weighted { 4 } else { 0 };
        self.num_edges
            .checked_mul(2 * u64::from(self.id_width) + weight_bytes)?
            .checked_add(HEADER_LEN as u64)
    }

    /// The byte offset of the first weight (the end of the tuples), for a
    /// header whose [`file_len`](Header::file_len) fits.
    pub fn weights_offset(&self) -> u64 {
        HEADER_LEN as u64 + self.num_edges * 2 * u64::from(self.id_width)
    }
}

/// Reads and checks the header of a binary edge list (the file's length
/// included).
pub fn read_header(path: &Path) -> Result<Header, Error> {
    open_checked(path).map(|(_, header)| header)
}

/// Reads the tuples `M r / P .. M (r + 1) / P` of a binary edge list, rank
/// `r`'s share of `P` (what each rank of a distributed run reads: its own
/// byte range, never the whole file), as tuples of type `T`, with the
/// header and the global number of its first tuple. Checks that every id
/// of the share is below `N`, and `N` against what `T` can name; errors
/// name global tuple numbers. O(M / P) memory and reading.
pub fn read_share<T: Tuple>(
    path: &Path,
    rank: usize,
    ranks: usize,
) -> Result<(Header, Vec<T>, u64), Error> {
    use std::os::unix::fs::FileExt;
    let (file, header) = open_checked(path)?;
    if header.num_vertices > T::MAX_VERTICES {
        return Err(in_file(path)(Error::TooManyVertices {
            num_vertices: header.num_vertices,
            max: T::MAX_VERTICES,
        }));
    }
    let (first, count) = share(path, &header, rank, ranks)?;
    let width = header.id_width as usize;
    let mut bytes = vec![0u8; count * 2 * width];
    let offset = HEADER_LEN as u64 + first * 2 * u64::from(header.id_width);
    file.read_exact_at(&mut bytes, offset)
        .map_err(|e| Error::io(path, e))?;
    let id = |b: &[u8]| -> u64 {
        match b.len() {
            4 => u32::from_le_bytes(b.try_into().expect("4 bytes")).into(),
            _ => u64::from_le_bytes(b.try_into().expect("8 bytes")),
        }
    };
    let mut edges = Vec::with_capacity(count);
    for (i, pair) in bytes.chunks_exact(2 * width).enumerate() {
        let (u, v) = pair.split_at(width);
        let (u, v) = (id(u), id(v));
        if u >= header.num_vertices || v >= header.num_vertices {
            return Err(in_file(path)(Error::VertexOutOfRange {
                edge: first + i as u64,
                u,
                v,
                num_vertices: header.num_vertices,
            }));
        }
        edges.push(T::from_ends(u, v));
    }
    Ok((header, edges, first))
}

/// The weights of the tuples [`read_share`] reads for rank `rank` of
/// `ranks` (`weights[i]` belongs to its tuple `i`), or `None` if the file
/// has no weights (version 1). Fails with the first bad weight (NaN,
/// infinite or negative) by its global tuple number. O(M / P) memory and
/// reading.
pub fn read_weights_share(
    path: &Path,
    rank: usize,
    ranks: usize,
) -> Result<Option<Vec<f32>>, Error> {
    use std::os::unix::fs::FileExt;
    let (file, header) = open_checked(path)?;
    if !header.weighted {
        return Ok(None);
    }
    let (first, count) = share(path, &header, rank, ranks)?;
    let mut bytes = vec![0u8; count * 4];
    file.read_exact_at(&mut bytes, header.weights_offset() + 4 * first)
        .map_err(|e| Error::io(path, e))?;
    let weights = decode_weights(&bytes);
    check_weights(&weights, first).map_err(in_file(path))?;
    Ok(Some(weights))
}

/// The first tuple and the number of tuples of rank `rank`'s share of
/// `ranks`: tuples `M r / P .. M (r + 1) / P`.
fn share(path: &Path, header: &Header, rank: usize, ranks: usize) -> Result<(u64, usize), Error> {
    let m = header.num_edges;
    let (first, end) = (
        m * rank as u64 / ranks as u64,
        m * (rank as u64 + 1) / ranks as u64,
    );
    let count = usize::try_from(end - first)
        .map_err(|_| Error::format(path, "edge count does not fit this machine's memory"))?;
    Ok((first, count))
}

/// Opens a binary edge list and checks its header against its length.
fn open_checked(path: &Path) -> Result<(std::fs::File, Header), Error> {
    let (mut file, len) = open_regular(path)?;
    let mut bytes = [0u8; HEADER_LEN];
    if len < HEADER_LEN as u64 {
        return Err(Error::format(
            path,
            format!(
                "{len} bytes is shorter than the {HEADER_LEN}-byte header of a binary edge list"
            ),
        ));
    }
    file.read_exact(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let header = Header::decode(&bytes).map_err(|what| Error::format(path, what))?;
    if header.file_len() != Some(len) {
        return Err(Error::format(
            path,
            format!(
                "header says {} edges of {}-byte ids{} ({} bytes with the header) but the file has {len} bytes",
                header.num_edges,
                header.id_width,
                if header.weighted { " with weights" } else { "" },
                header
                    .file_len()
                    .map_or("too many".to_string(), |l| l.to_string()),
            ),
        ));
    }
    Ok((file, header))
}

/// Reads a binary edge list, with its weights if it has them, mapping
/// width-4 files in place.
pub fn read(path: &Path) -> Result<EdgeList, Error> {
    let (file, header) = open_checked(path)?;
    let num_edges = usize::try_from(header.num_edges)
        .map_err(|_| Error::format(path, "edge count does not fit this machine's memory"))?;
    // The offset lies within the mapped file, whose length was checked.
    let weights_at = usize::try_from(header.weights_offset()).expect("within the mapped file");
    let map = map(&file, path)?;
    if header.id_width == 4 && cfg!(target_endian = "little") {
        let weights = header.weighted.then_some(weights_at);
        return EdgeList::from_map(header.num_vertices, map, HEADER_LEN, num_edges, weights)
            .map_err(in_file(path));
    }
    // N first: an id of a width-8 file that does not fit a `u32` is outside
    // 0..N only once N is known to be one this build holds.
    crate::edge_list::checked_vertex_count(header.num_vertices).map_err(in_file(path))?;
    let body = &map[HEADER_LEN..];
    let width = header.id_width as usize;
    let id = |i: usize| -> u64 {
        let b = &body[i * width..(i + 1) * width];
        if width == 4 {
            u32::from_le_bytes(b.try_into().expect("4 bytes")).into()
        } else {
            u64::from_le_bytes(b.try_into().expect("8 bytes"))
        }
    };
    let mut edges = Vec::with_capacity(num_edges);
    for i in 0..num_edges {
        let (u, v) = (id(2 * i), id(2 * i + 1));
        match (u32::try_from(u), u32::try_from(v)) {
            (Ok(u), Ok(v)) => edges.push(Edge::new(u, v)),
            _ => {
                return Err(in_file(path)(Error::VertexOutOfRange {
                    edge: i as u64,
                    u,
                    v,
                    num_vertices: header.num_vertices,
                }));
            }
        }
    }
    let list = EdgeList::new(header.num_vertices, edges).map_err(in_file(path))?;
    if !header.weighted {
        return Ok(list);
    }
    let weights = decode_weights(&map[weights_at..]);
    list.with_weights(weights).map_err(in_file(path))
}

/// Encodes `edges` onto `out` as a width-4 binary edge list, 512 KiB of
/// tuples per write: version 1, or version 2 with the weights after the
/// tuples if the list has them.
pub fn write(out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
    let header = Header {
        id_width: 4,
        num_vertices: edges.num_vertices() as u64,
        num_edges: edges.len() as u64,
        weighted: edges.weights().is_some(),
    };
    out.write_all(&header.encode())?;
    for chunk in edges.edge_chunks(1 << 16) {
        out.write_all(&little_endian_bytes(&chunk))?;
    }
    match edges.weights() {
        Some(weights) => write_weights(out, weights),
        None => Ok(()),
    }
}

/// The tuples' bytes in file order: a view on little-endian machines.
fn little_endian_bytes(edges: &[Edge]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(edges))
    } else {
        Cow::Owned(
            edges
                .iter()
                .flat_map(|e| [e.u.to_le_bytes(), e.v.to_le_bytes()])
                .flatten()
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let h = Header {
            id_width: 4,
            num_vertices: 10,
            num_edges: 3,
            weighted: false,
        };
        let bytes = h.encode();
        assert_eq!(Header::decode(&bytes), Ok(h));
        let mut bad = bytes;
        bad[0] = b'X';
        assert!(
            Header::decode(&bad)
                .unwrap_err()
                .contains("not a graph500 binary")
        );
        let mut bad = bytes;
        bad[8] = 3;
        assert!(
            Header::decode(&bad)
                .unwrap_err()
                .contains("unknown version 3")
        );
        let weighted = Header {
            weighted: true,
            ..h
        };
        assert_eq!(weighted.encode()[8..12], 2u32.to_le_bytes());
        assert_eq!(Header::decode(&weighted.encode()), Ok(weighted));
        assert_eq!(weighted.file_len(), Some(32 + 3 * 12));
        assert_eq!(weighted.weights_offset(), 32 + 3 * 8);
        let mut bad = bytes;
        bad[12] = 5;
        assert!(Header::decode(&bad).unwrap_err().contains("id width 5"));
        assert_eq!(h.file_len(), Some(32 + 3 * 8));
        let huge = Header {
            num_edges: u64::MAX / 4,
            ..h
        };
        assert_eq!(huge.file_len(), None);
    }
}
