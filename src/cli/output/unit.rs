//! Temporary files renamed into place: [`write()`] for one file, [`Unit`]
//! for files that belong together (all renamed, or none).

use super::device::{Checked, StopRequested, open_through_waiting};
use super::{CHUNK, Destination, destination, folder_of};
use crate::cli::interrupt::{self, Interrupted};
use anyhow::{Context, anyhow, bail};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A temporary file that removes itself unless kept.
pub(super) struct Temporary {
    path: PathBuf,
    kept: bool,
}

impl Temporary {
    /// A new empty file `.graph500-<pid>-<n>.partial` in `folder`.
    pub(super) fn create(folder: &Path) -> std::io::Result<(Self, File)> {
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
