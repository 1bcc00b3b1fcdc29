//! Every file the binary writes (edge lists, parent arrays, JSON, CSV, SVG)
//! goes through [`write()`]; every command calls [`check`] on its inputs and
//! outputs before doing any work.
//!
//! What [`write()`] does depends on what the output path is:
//!
//! | the path | what is written |
//! | --- | --- |
//! | nothing yet, or a regular file | a temporary file `.graph500-*.partial` in the same folder, renamed over the path when complete |
//! | a device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe) | the path itself, opened for writing: never replaced, never created |
//! | a symbolic link | written through: the link stays a link. The link's final target is handled as above: a regular (or not yet existing) target is replaced atomically by a temporary file in the target's folder; a device or FIFO is written into |
//! | a directory, or a link to one | refused by [`check`] |
//!
//! A write that fails or is interrupted (the signal flag is checked before
//! every write of about 1 MiB) removes its temporary file and leaves the
//! old file as it was; the error names the path the user gave, never the
//! temporary one. (Atomic against interruption, not against power loss:
//! there is no fsync.)
//!
//! Files that belong together are written as a unit ([`Unit`]): a `.pe48`
//! and its `.weights`, the parent and distance arrays of `sssp`, the JSON
//! and CSV of `run`. Every temporary file is written first; then, with
//! the signal handler held off
//! ([`crate::cli::interrupt::committing`]), all are renamed into place
//! and a stale file the unit replaces (the `.weights` of an earlier
//! weighted `.pe48`) is removed: a signal leaves all the old files or all
//! the new ones. The renames hold an exclusive lock on the folder
//! of the unit's first file, so two graph500 processes writing the same
//! pair at once leave one pair or the other.
//!
//! A device or FIFO is written without ever blocking beyond a signal:
//! opening a FIFO that no program reads waits, and a write that a reader
//! does not take waits, each only until the first signal, which ends the
//! command (`output/device.rs`); temporary files and units are in
//! `output/unit.rs`.
//!
//! [`check`] refuses, before any work: an input that is there but is not a
//! regular file (a FIFO, which would block its reader; a device); an
//! output that is a directory; an
//! output whose folder does not exist, is not a directory or cannot take a
//! new file (tried by creating and removing one); a device or FIFO that
//! cannot be opened for writing; an output that is the same file as an
//! input (by device and inode where both exist, so links and other
//! spellings are caught); two outputs that are the same file. Callers pass
//! every file a command reads and writes, sidecars included
//! ([`edge_list_files`]).

mod device;
mod unit;

pub(crate) use unit::{Unit, write};

use anyhow::{Context, bail};
use device::open_through;
use generator::format::EdgeFormat;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use unit::Temporary;

/// Bytes buffered between checks of the signal flag.
const CHUNK: usize = 1 << 20;

/// No inputs, for [`check`].
pub(crate) const NO_INPUTS: [&Path; 0] = [];

/// Where the bytes for an output path go.
#[derive(Debug, PartialEq, Eq)]
enum Destination {
    /// A temporary file beside this regular (or not yet existing) file,
    /// renamed over it.
    Replace(PathBuf),
    /// Opened and written in place: a device, FIFO or socket.
    Through(PathBuf),
}

/// The most links followed when resolving one (as the kernel's limit).
const MAX_LINKS: usize = 40;

/// Where `path` leads: itself, or the final target of its links. Errors
/// name `path`.
fn destination(path: &Path) -> anyhow::Result<Destination> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            // Nothing there yet; a missing or non-folder parent is
            // reported by `check`.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(Destination::Replace(current));
            }
            Err(e) => bail!("{}: {e}", path.display()),
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)
                    .with_context(|| format!("{}: reading the link", path.display()))?;
                current = match current.parent() {
                    Some(folder) if target.is_relative() => folder.join(target),
                    _ => target,
                };
            }
            Ok(meta) if meta.is_dir() => {
                if current == path {
                    bail!("{}: is a directory, not a file", path.display());
                }
                bail!(
                    "{}: is a link to the directory {}, not a file",
                    path.display(),
                    current.display()
                );
            }
            Ok(meta) if meta.is_file() => return Ok(Destination::Replace(current)),
            Ok(_) => return Ok(Destination::Through(path.to_path_buf())),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

/// The folder a file at `path` goes in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A file's identity: device and inode where it exists.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file (links followed).
    File(u64, u64),
    /// A file not yet there: its canonical folder and name.
    Planned(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    match std::fs::metadata(path) {
        Ok(meta) => Some(file_id(&meta)),
        Err(_) => {
            let folder = std::fs::canonicalize(folder_of(path)).ok()?;
            Some(Identity::Planned(folder.join(path.file_name()?)))
        }
    }
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::File(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Identity {
    unreachable!("graph500 builds for Unix")
}

/// Checks, before any work, that every output can be written and none is an
/// input or another output (see the module documentation). `inputs` that do
/// not exist are left to their readers.
pub(crate) fn check<I, O>(inputs: I, outputs: O) -> anyhow::Result<()>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
    O: IntoIterator,
    O::Item: AsRef<Path>,
{
    let outputs: Vec<O::Item> = outputs.into_iter().collect();
    let mut seen: Vec<(&Path, Identity)> = Vec::new();
    for output in &outputs {
        let output = output.as_ref();
        match destination(output)? {
            Destination::Replace(file) => {
                let folder = folder_of(&file);
                match std::fs::metadata(folder) {
                    Ok(meta) if meta.is_dir() => {}
                    Ok(_) => bail!("{}: {} is not a folder", output.display(), folder.display()),
                    Err(e) if e.kind() == ErrorKind::NotFound => bail!(
                        "{}: folder {} does not exist",
                        output.display(),
                        folder.display()
                    ),
                    Err(e) => bail!("{}: folder {}: {e}", output.display(), folder.display()),
                }
                // The one sure test that a folder takes a new file.
                if let Err(e) = Temporary::create(folder) {
                    bail!(
                        "{}: folder {} cannot take a new file: {e}",
                        output.display(),
                        folder.display()
                    );
                }
            }
            Destination::Through(device) => {
                if let Err(e) = open_through(&device) {
                    // A FIFO no program reads yet is waited for when written.
                    if e.raw_os_error() != Some(libc::ENXIO) {
                        bail!("{}: {e}", output.display());
                    }
                }
            }
        }
        if let Some(id) = identity(output) {
            if let Some((other, _)) = seen.iter().find(|(_, seen)| *seen == id) {
                bail!(
                    "{} and {} are the same file: give each output its own",
                    other.display(),
                    output.display()
                );
            }
            seen.push((output, id));
        }
    }
    for input in inputs {
        let input = input.as_ref();
        let Ok(meta) = std::fs::metadata(input) else {
            continue;
        };
        if !meta.is_file() {
            // The reader's own words, now rather than after other work.
            generator::format::open_regular(input)?;
        }
        let id = file_id(&meta);
        if let Some((output, _)) = seen.iter().find(|(_, seen)| *seen == id) {
            bail!(
                "{}: is the input {}; writing it would destroy what is read: choose another output",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Every file of the edge list at `path` in `format`: the file, then its
/// sidecar (`FILE.weights` of a `.pe48`), which is read and written with
/// it as one.
pub(crate) fn edge_list_files(path: &Path, format: EdgeFormat) -> Vec<PathBuf> {
    std::iter::once(path.to_path_buf())
        .chain(format.weights_file(path))
        .collect()
}

#[cfg(test)]
mod tests;
