//! On-disk formats: edge lists and parent arrays.
//!
//! | format | name | chosen by | layout |
//! | --- | --- | --- | --- |
//! | graph500 binary | `binary` | any other extension (`.g500` by convention) | header and `u32` pairs, see [`binary`] |
//! | text (SNAP style) | `text` | `.el`, `.txt`, `.snap` | one `u v` pair per line, see [`text`] |
//! | Matrix Market | `mtx` | `.mtx` | coordinate entries, 1-based, see [`mtx`] |
//! | reference packed | `packed48` | `.pe48` | 12-byte records of 48-bit ids, see [`packed48`] |
//! | parent array | | (always) | `N` little-endian `i64`, `-1` for unreached |
//!
//! Reading fails with an [`Error`] naming the file and the place (line, edge,
//! header field). Writing goes to a temporary file in the target's folder that
//! is renamed into place only when complete ([`write_atomic`]), so an
//! interrupted write leaves the old file or the new one, never half of one.

pub mod binary;
mod lines;
pub mod mtx;
pub mod packed48;
pub mod parents;
pub mod text;

use crate::{EdgeList, Error};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

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

    /// Reads an edge list in this format.
    pub fn read(self, path: &Path) -> Result<EdgeList, Error> {
        match self {
            EdgeFormat::Binary => binary::read(path),
            EdgeFormat::Text => text::read(path),
            EdgeFormat::MatrixMarket => mtx::read(path),
            EdgeFormat::Packed48 => packed48::read(path),
        }
    }

    /// Writes an edge list in this format, atomically.
    pub fn write(self, path: &Path, edges: &EdgeList) -> Result<(), Error> {
        match self {
            EdgeFormat::Binary => binary::write(path, edges),
            EdgeFormat::Text => text::write(path, edges),
            EdgeFormat::MatrixMarket => mtx::write(path, edges),
            EdgeFormat::Packed48 => packed48::write(path, edges),
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

/// Writes an edge list in the format its name implies, atomically.
pub fn write_edge_list(path: &Path, edges: &EdgeList) -> Result<(), Error> {
    EdgeFormat::for_path(path).write(path, edges)
}

/// Writes `path` through `write`, atomically: the bytes go to a temporary
/// file in the same folder, which replaces `path` only after `write` and the
/// final flush succeed. On any error the temporary file is removed and `path`
/// is untouched. (Atomic against interruption, not against power loss: there
/// is no fsync.)
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&File>) -> std::io::Result<()>,
) -> Result<(), Error> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".graph500-").suffix(".partial");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let io = |e| Error::io(path, e);
    let temp = builder.tempfile_in(folder).map_err(io)?;
    {
        let mut out = BufWriter::with_capacity(1 << 20, temp.as_file());
        write(&mut out).map_err(io)?;
        out.flush().map_err(io)?;
    }
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Opens `path` for reading; fails if it is not a regular file.
fn open_regular(path: &Path) -> Result<(File, u64), Error> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::format(path, "not a regular file"));
    }
    Ok((file, meta.len()))
}

/// Maps `file` read-only.
///
/// The one `unsafe` of the file readers: mapping instead of reading saves a
/// copy of the whole file (gigabytes at large scales) and lets binary edge
/// lists be used in place.
fn map(file: &File, path: &Path) -> Result<memmap2::Mmap, Error> {
    #[allow(unsafe_code)]
    // SAFETY: the map is read-only and private to this process. memmap2 asks
    // that nobody modify or truncate the file while it is mapped; graph500
    // never writes a file it reads (writes go to a fresh temporary file that
    // is renamed, which leaves a mapped old inode intact). Another program
    // truncating the file meanwhile could still fault the process (SIGBUS);
    // that is the documented limit of reading through a map.
    let map = unsafe { memmap2::Mmap::map(file) };
    map.map_err(|e| Error::io(path, e))
}

/// Rewrites a path-less error (an edge naming a bad vertex, too many
/// vertices) as a format error of the file `path`.
fn in_file(path: &Path) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::Io { .. } | Error::Format { .. } => e,
        other => Error::format(path, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "old contents").unwrap();
        let failed = write_atomic(&path, |out| {
            out.write_all(&[b'x'; 5_000_000])?;
            Err(std::io::Error::other("interrupted half way"))
        });
        assert!(matches!(failed, Err(Error::Io { .. })), "{failed:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents");
        assert_eq!(names_in(dir.path()), ["out.json"]);
    }

    #[test]
    fn a_completed_write_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "old").unwrap();
        write_atomic(&path, |out| out.write_all(b"new contents")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents");
        assert_eq!(names_in(dir.path()), ["out.json"]);
    }
}
