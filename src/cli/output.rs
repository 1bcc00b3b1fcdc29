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
//! the signal handler held off ([`interrupt::committing`]), all are renamed
//! into place and a stale file the unit replaces (the `.weights` of an
//! earlier weighted `.pe48`) is removed: a signal leaves all the old files
//! or all the new ones. The renames hold an exclusive lock on the folder
//! of the unit's first file, so two graph500 processes writing the same
//! pair at once leave one pair or the other.
//!
//! A device or FIFO is written without ever blocking beyond a signal:
//! opening a FIFO that no program reads waits, and a write that a reader
//! does not take waits, each only until the first signal, which ends the
//! command.
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

use crate::cli::interrupt::{self, Interrupted};
use anyhow::{Context, anyhow, bail};
use generator::format::EdgeFormat;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

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

/// The error a [`Checked`] writer returns once a signal has come.
#[derive(Debug)]
struct StopRequested;

impl std::fmt::Display for StopRequested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stop requested")
    }
}

impl std::error::Error for StopRequested {}

/// A file whose every write first checks the signal flag. A device or
/// FIFO is open non-blocking: a write its reader does not take waits in
/// [`wait_writable`], which returns at the first signal.
struct Checked(File);

/// `Err(StopRequested)` once a signal has come.
fn stop_check() -> std::io::Result<()> {
    if interrupt::requested() {
        return Err(std::io::Error::other(StopRequested));
    }
    Ok(())
}

impl Write for Checked {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            stop_check()?;
            match self.0.write(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => wait_writable(&self.0),
                done => return done,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// How long one wait for a reader lasts before the signal flag is looked
/// at again.
const READER_WAIT: Duration = Duration::from_millis(50);

/// Waits until `file` (non-blocking) can take a write, or [`READER_WAIT`].
fn wait_writable(file: &File) {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    #[allow(clippy::cast_possible_truncation)] // 50 ms
    let timeout = READER_WAIT.as_millis() as libc::c_int;
    #[allow(unsafe_code)]
    // SAFETY: `poll` reads and writes exactly the one `pollfd` it is given,
    // which lives on this stack frame for the whole call; the descriptor is
    // `file`'s, open for the call's duration. Any result (ready, timeout,
    // EINTR) just leads back to the caller's write, which tells.
    unsafe {
        libc::poll(&raw mut poll, 1, timeout);
    }
}

/// Opens a device or FIFO for writing without blocking: a FIFO that no
/// program reads fails with ENXIO instead of waiting.
fn open_through(device: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(device)
}

/// [`open_through`], waiting for a reader of a FIFO until the first signal.
fn open_through_waiting(device: &Path) -> std::io::Result<File> {
    loop {
        stop_check()?;
        match open_through(device) {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => std::thread::sleep(READER_WAIT),
            opened => return opened,
        }
    }
}

/// A temporary file that removes itself unless kept.
struct Temporary {
    path: PathBuf,
    kept: bool,
}

impl Temporary {
    /// A new empty file `.graph500-<pid>-<n>.partial` in `folder`.
    fn create(folder: &Path) -> std::io::Result<(Self, File)> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        loop {
            let name = format!(
                ".graph500-{}-{}.partial",
                std::process::id(),
                NEXT.fetch_add(1, Relaxed)
            );
            let path = folder.join(name);
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o644);
            }
            // Tracked before it exists, so that a second signal at any
            // moment after the create finds it.
            interrupt::track_temporary(&path);
            match options.open(&path) {
                Ok(file) => return Ok((Temporary { path, kept: false }, file)),
                Err(e) => {
                    interrupt::untrack_temporary(&path);
                    if e.kind() != ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Renames the file to `target`.
    fn persist(mut self, target: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, target)?;
        self.kept = true;
        interrupt::untrack_temporary(&self.path);
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
            interrupt::untrack_temporary(&self.path);
        }
    }
}

/// Writes `path` with `encode` (see the module documentation for where the
/// bytes go). Errors name `path`; an interrupted write is
/// [`Interrupted`], with no temporary file left.
pub(crate) fn write(
    path: &Path,
    encode: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let mut unit = Unit::default();
    unit.add(path, encode)?;
    unit.commit()
}

/// Files written as one: all of them, or (after a failure or a signal)
/// none, the old files left as they were. See the module documentation.
#[derive(Default)]
pub(crate) struct Unit {
    /// Temporary files written, and the files they are renamed over.
    staged: Vec<(Temporary, PathBuf)>,
    /// Files the unit removes when it commits.
    stale: Vec<PathBuf>,
}

impl Unit {
    /// Writes `path`'s contents with `encode`: into a temporary file,
    /// renamed at [`Unit::commit`]; a device or FIFO is written now.
    pub(crate) fn add(
        &mut self,
        path: &Path,
        encode: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        interrupt::check()?;
        let name = |e: std::io::Error| -> anyhow::Error {
            if e.get_ref().is_some_and(|inner| inner.is::<StopRequested>()) {
                Interrupted.into()
            } else {
                anyhow!("{}: {e}", path.display())
            }
        };
        match destination(path)? {
            Destination::Replace(target) => {
                let (temporary, file) = Temporary::create(folder_of(&target)).map_err(name)?;
                let mut out = BufWriter::with_capacity(CHUNK, Checked(file));
                encode(&mut out).map_err(name)?;
                let file = out.into_inner().map_err(|e| name(e.into_error()))?;
                drop(file);
                self.staged.push((temporary, target));
                Ok(())
            }
            Destination::Through(device) => {
                let file = open_through_waiting(&device).map_err(name)?;
                let mut out = BufWriter::with_capacity(CHUNK, Checked(file));
                encode(&mut out).map_err(name)?;
                out.flush().map_err(name)
            }
        }
    }

    /// Removes `path` at [`Unit::commit`], if it is there: a link is
    /// removed, not its target.
    pub(crate) fn remove(&mut self, path: &Path) {
        self.stale.push(path.to_path_buf());
    }

    /// Renames every temporary file into place and removes the stale
    /// files, with no signal in between; nothing if a signal came first.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        let Unit { staged, stale } = self;
        // Before the signal handler is held off: another writer's renames
        // are waited for here, not in a second signal's exit.
        let _folder = staged.first().and_then(|(_, target)| lock_folder(target));
        interrupt::check()?;
        interrupt::committing(|| {
            for (temporary, target) in staged {
                temporary
                    .persist(&target)
                    .with_context(|| format!("{}: renaming into place", target.display()))?;
            }
            for path in stale {
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != ErrorKind::NotFound => {
                        bail!("{}: removing: {e}", path.display());
                    }
                    _ => {}
                }
            }
            Ok(())
        })
    }
}

/// An exclusive lock (`flock`) on the folder of `target`, held by every
/// graph500 process while it renames a unit whose first file is there: two
/// programs writing the same pair at once then leave one pair or the
/// other, never halves of both (the pair trailer still catches other
/// writers). `None` where the folder cannot be opened or locked (some
/// network file systems): the renames go ahead unlocked.
fn lock_folder(target: &Path) -> Option<File> {
    let folder = File::open(folder_of(target)).ok()?;
    folder.lock().ok()?;
    Some(folder)
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
        let failed = write(&path, |out| {
            out.write_all(&[b'x'; 5_000_000])?;
            Err(std::io::Error::other("interrupted half way"))
        });
        let message = failed.unwrap_err().to_string();
        assert_eq!(
            message,
            format!("{}: interrupted half way", path.display()),
            "names the user's path, not the temporary"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents");
        assert_eq!(names_in(dir.path()), ["out.json"]);
    }

    #[test]
    fn a_completed_write_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "old").unwrap();
        write(&path, |out| out.write_all(b"new contents")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents");
        assert_eq!(names_in(dir.path()), ["out.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn destinations_follow_links_to_their_final_target() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let link = dir.path().join("link");
        symlink("file", &link).unwrap();
        let chain = dir.path().join("chain");
        symlink(&link, &chain).unwrap();
        let dangling = dir.path().join("dangling");
        symlink("new", &dangling).unwrap();
        let to_null = dir.path().join("null");
        symlink("/dev/null", &to_null).unwrap();
        let to_dir = dir.path().join("dir");
        symlink(".", &to_dir).unwrap();
        let loop_ = dir.path().join("loop");
        symlink("loop", &loop_).unwrap();

        let replace = |p: &Path| Destination::Replace(p.to_path_buf());
        assert_eq!(destination(&file).unwrap(), replace(&file));
        assert_eq!(destination(&link).unwrap(), replace(&file));
        assert_eq!(destination(&chain).unwrap(), replace(&file));
        assert_eq!(
            destination(&dangling).unwrap(),
            replace(&dir.path().join("new"))
        );
        assert_eq!(
            destination(&to_null).unwrap(),
            Destination::Through(to_null.clone())
        );
        assert_eq!(
            destination(Path::new("/dev/null")).unwrap(),
            Destination::Through("/dev/null".into())
        );
        let err = destination(&to_dir).unwrap_err().to_string();
        assert!(err.contains("link to the directory"), "{err}");
        let err = destination(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        let err = destination(&loop_).unwrap_err().to_string();
        assert!(err.contains("too many levels"), "{err}");
    }

    #[test]
    fn check_refuses_inputs_directories_missing_folders_and_twins() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::write(&input, "x").unwrap();
        let out = dir.path().join("out");
        check([&input], [&out]).unwrap();
        let err = check([&input], [&input]).unwrap_err().to_string();
        assert!(err.contains("is the input"), "{err}");
        let spelled = dir.path().join(".").join("in");
        let err = check([&input], [&spelled]).unwrap_err().to_string();
        assert!(err.contains("is the input"), "{err}");
        let err = check(NO_INPUTS, [&out, &out]).unwrap_err().to_string();
        assert!(err.contains("same file"), "{err}");
        let err = check(NO_INPUTS, [dir.path()]).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        let err = check(NO_INPUTS, [dir.path().join("missing/x")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not exist"), "{err}");
        let err = check(NO_INPUTS, [input.join("x")]).unwrap_err().to_string();
        assert!(err.contains("is not a folder"), "{err}");
    }
}
