//! On-disk edge-list formats.
//!
//! | format | name | chosen by | layout |
//! | --- | --- | --- | --- |
//! | graph500 binary | `binary` | any other extension (`.g500` by convention) | header and `u32` pairs, see [`binary`] |
//! | text (SNAP style) | `text` | `.el`, `.txt`, `.snap` | one `u v` pair per line, see [`text`] |
//! | Matrix Market | `mtx` | `.mtx` | coordinate entries, 1-based, see [`mtx`] |
//! | reference packed | `packed48` | `.pe48` | 12-byte records of 48-bit ids, see [`packed48`] |
//!
//! Edge weights (kernel 3) travel with the tuples where the list has them:
//! binary version 2 appends them, text adds a third column, Matrix Market
//! uses a `real` field, and packed48 keeps them in `FILE.weights` beside
//! the file ([`EdgeFormat::weights_file`]).
//!
//! Readers take a path (they map the file) and fail with an [`Error`] naming
//! the file and the place (line, edge, header field). Writers are encoders
//! onto any [`Write`]: where the bytes go (a temporary file renamed into
//! place, a pipe, a device) and what stops them is the caller's business, so
//! this crate owns no temporary file and no signal handler. A writer fails
//! only when its sink does, with the sink's [`std::io::Error`]. (The parent
//! array format lives beside the validator that reads it, in the
//! `graph500-validate` crate.)

pub mod binary;
mod lines;
pub mod mtx;
pub mod packed48;
pub mod text;

use crate::{EdgeList, Error, FileError};
use rayon::prelude::*;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// An edge-list file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeFormat {
    /// The project's binary format ([`binary`]).
    Binary,
    /// Whitespace-separated `u v` lines, SNAP style ([`text`]).
    Text,
    /// Matrix Market coordinate files ([`mtx`]).
    MatrixMarket,
    /// The reference code's packed 48-bit records ([`packed48`]).
    Packed48,
}

impl EdgeFormat {
    /// Every format.
    pub const ALL: [EdgeFormat; 4] = [
        EdgeFormat::Binary,
        EdgeFormat::Text,
        EdgeFormat::MatrixMarket,
        EdgeFormat::Packed48,
    ];

    /// The format's name (`--format`).
    pub fn name(self) -> &'static str {
        match self {
            EdgeFormat::Binary => "binary",
            EdgeFormat::Text => "text",
            EdgeFormat::MatrixMarket => "mtx",
            EdgeFormat::Packed48 => "packed48",
        }
    }

    /// The format a file name implies: text for `.el`, `.txt` and `.snap`,
    /// Matrix Market for `.mtx`, packed for `.pe48`, else binary.
    pub fn for_path(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            "el" | "txt" | "snap" => EdgeFormat::Text,
            "mtx" => EdgeFormat::MatrixMarket,
            "pe48" => EdgeFormat::Packed48,
            _ => EdgeFormat::Binary,
        }
    }

    /// The file beside `path` that holds the weights in this format, if
    /// the format keeps them apart: `path.weights` for packed48
    /// ([`packed48::weights_path`]); `None` for the formats that hold them
    /// in the file itself.
    pub fn weights_file(self, path: &Path) -> Option<PathBuf> {
        match self {
            EdgeFormat::Packed48 => Some(packed48::weights_path(path)),
            EdgeFormat::Binary | EdgeFormat::Text | EdgeFormat::MatrixMarket => None,
        }
    }

    /// Reads an edge list in this format, with its weights if the file has
    /// them.
    pub fn read(self, path: &Path) -> Result<EdgeList, Error> {
        match self {
            EdgeFormat::Binary => binary::read(path),
            EdgeFormat::Text => text::read(path),
            EdgeFormat::MatrixMarket => mtx::read(path),
            EdgeFormat::Packed48 => packed48::read(path),
        }
    }

    /// Encodes an edge list in this format onto `out`, with its weights
    /// if it has them, except for packed48, whose weights go to a second
    /// file ([`EdgeFormat::weights_file`], [`packed48::write_weights`]).
    /// Fails only when `out` does. Writes in pieces of at most about 1 MiB,
    /// so a sink that checks for interruption per write stops within one
    /// piece.
    pub fn write(self, out: &mut dyn Write, edges: &EdgeList) -> std::io::Result<()> {
        match self {
            EdgeFormat::Binary => binary::write(out, edges),
            EdgeFormat::Text => text::write(out, edges),
            EdgeFormat::MatrixMarket => mtx::write(out, edges),
            EdgeFormat::Packed48 => packed48::write(out, edges),
        }
    }
}

/// Bytes that reading a file of `file_len` bytes had mapped besides the
/// tuples it returned: readers map the whole file, so a list copied out of
/// it (every format but width-4 binary) cost the file's pages too while it
/// was read; a list used in place (`edges` mapped) cost nothing more.
pub fn bytes_mapped_while_reading(edges: &EdgeList, file_len: u64) -> u64 {
    if edges.is_mapped() { 0 } else { file_len }
}

/// Reads an edge list in the format its name implies.
pub fn read_edge_list(path: &Path) -> Result<EdgeList, Error> {
    EdgeFormat::for_path(path).read(path)
}

/// Opens `path` (links followed) for reading, with its length; fails,
/// naming it, if it is not a regular file. Never waits: a FIFO, which a
/// plain `open` would block on until some program opened it for writing,
/// is opened without blocking and refused, as are devices, sockets and
/// folders. Every input file of graph500 (edge lists, their weights, parent
/// and distance arrays) is opened here.
pub fn open_regular(path: &Path) -> Result<(File, u64), FileError> {
    // Looked at first, for the words: a socket cannot even be opened.
    if let Some(meta) = std::fs::metadata(path).ok().filter(|m| !m.is_file()) {
        return Err(FileError::format(path, not_regular(&meta)));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Only opening is non-blocking: a regular file ignores the flag.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    if !meta.is_file() {
        return Err(FileError::format(path, not_regular(&meta)));
    }
    Ok((file, meta.len()))
}

/// Why a file that is not regular cannot be read, in words.
fn not_regular(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a FIFO (named pipe), not a regular file: graph500 reads its inputs whole; save the data to a file first";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device, not a regular file";
        }
        if kind.is_socket() {
            return "a socket, not a regular file";
        }
    }
    if meta.is_dir() {
        "a directory, not a regular file"
    } else {
        "not a regular file"
    }
}

/// Maps `file` read-only.
///
/// The one `unsafe` of the file readers: mapping instead of reading saves a
/// copy of the whole file (gigabytes at large scales) and lets binary edge
/// lists be used in place.
fn map(file: &File, path: &Path) -> Result<memmap2::Mmap, Error> {
    #[allow(unsafe_code)]
    // SAFETY: the map is read-only and private to this process. memmap2 asks
    // that nobody modify or truncate the file while it is mapped; the
    // graph500 binary refuses an output that is one of its inputs, and
    // replaces a regular file by renaming a fresh temporary file over it,
    // which leaves a mapped old inode intact. Another program
    // truncating the file meanwhile could still fault the process (SIGBUS);
    // that is the documented limit of reading through a map.
    let map = unsafe { memmap2::Mmap::map(file) };
    map.map_err(|e| Error::io(path, e))
}

/// Little-endian `f32`s of `bytes` (a multiple of 4 long), in order.
fn decode_weights(bytes: &[u8]) -> Vec<f32> {
    bytes
        .par_chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect()
}

/// Writes `weights` onto `out` as little-endian `f32`s, 256 KiB per write.
fn write_weights(out: &mut dyn Write, weights: &[f32]) -> std::io::Result<()> {
    for chunk in weights.chunks(1 << 16) {
        if cfg!(target_endian = "little") {
            out.write_all(bytemuck::cast_slice(chunk))?;
        } else {
            let bytes: Vec<u8> = chunk.iter().flat_map(|w| w.to_le_bytes()).collect();
            out.write_all(&bytes)?;
        }
    }
    Ok(())
}

/// Rewrites a path-less error (an edge naming a bad vertex, too many
/// vertices) as a format error of the file `path`.
fn in_file(path: &Path) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::File(_) => e,
        other => Error::format(path, other.to_string()),
    }
}
