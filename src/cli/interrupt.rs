//! Ctrl-C (SIGINT), SIGTERM and SIGHUP: the first asks the program to stop
//! at the next step boundary (between reading, building, searching,
//! validating and writing; between searches, profile rows or sweep runs;
//! between the chunks of a file being written), so it stops cleanly:
//! destructors run, the temporary file of a write in progress is removed,
//! nothing is half written, and it exits with status 130 whichever of the
//! three signals came (the handler is not told which). A second signal exits
//! at once, status 130, after removing the temporary file of any write in
//! progress; the file being replaced is never touched. While files that
//! belong together are being renamed into place ([`committing`]), the
//! second signal waits for the renames, so it never leaves half of a pair;
//! once a unit is in place, the second signal's line says its files were
//! written, since status 130 alone would suggest that nothing was.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// The exit status after a signal.
pub(crate) const EXIT_STATUS: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Set once the process has said why it ends and only waits to exit
/// (see [`ending`]): a signal then says nothing.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Temporary files being written now (see [`crate::cli::output`]).
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Held while a unit of files is renamed into place; the second signal
/// takes it before it exits. True once a unit is in place.
static COMMIT: Mutex<bool> = Mutex::new(false);

/// Why a command stopped early.
#[derive(Debug)]
pub(crate) struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "interrupted (Ctrl-C, SIGTERM or SIGHUP): stopped before finishing; no results written",
        )
    }
}

impl std::error::Error for Interrupted {}

/// Installs the handler of SIGINT, SIGTERM and SIGHUP. Fails only if
/// another handler is installed.
pub(crate) fn install() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        // Under mpirun every rank gets the signal; only rank 0 says so.
        let speaks = crate::cli::ranks::speaks() && !ENDING.load(SeqCst);
        if INTERRUPTED.swap(true, SeqCst) {
            // Never between the renames of a unit: after them, or before.
            let written = lock(&COMMIT);
            remove_temporaries();
            if speaks {
                crate::cli::console::err_line(if *written {
                    "graph500: interrupted again; exiting now (after the command's files were written)"
                } else {
                    "graph500: interrupted again; exiting now"
                });
            }
            std::process::exit(EXIT_STATUS.into());
        }
        if speaks {
            crate::cli::console::err_line(
                "graph500: interrupted; stopping after the current step (again to stop at once)",
            );
        }
    })
}

/// Marks the process as ending: its outcome is decided and reported, and
/// it only waits for the other ranks before it exits. Under mpirun, the
/// first rank to exit with an error makes mpirun signal the others; rank
/// 0, having printed the error, must not then also say "interrupted"
/// (regression: `a_refusal_before_mpi_starts_is_printed_once`, which
/// failed in CI on a 1-core machine).
pub(crate) fn ending() {
    ENDING.store(true, SeqCst);
}

/// True once a signal has come.
pub(crate) fn requested() -> bool {
    INTERRUPTED.load(SeqCst)
}

/// `Err(Interrupted)` once a signal has come.
pub(crate) fn check() -> Result<(), Interrupted> {
    if requested() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// `mutex` locked; a poisoned lock still guards what it guarded (a list
/// of paths, or nothing).
fn lock<T>(mutex: &'static Mutex<T>) -> std::sync::MutexGuard<'static, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    lock(&TEMPORARIES)
}

/// Runs `renames` with the second signal held off until it returns (the
/// signal handler runs on a thread of its own, which waits).
pub(crate) fn committing<T, E>(renames: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let mut written = lock(&COMMIT);
    let done = renames();
    *written |= done.is_ok();
    done
}

/// Notes a temporary file that a second signal (or a fault,
/// [`remove_temporaries_in_handler`]) must remove.
pub(crate) fn track_temporary(path: &Path) {
    temporaries().push(path.to_path_buf());
    signal_safe::track(path);
}

/// Forgets a temporary file (renamed into place or removed).
pub(crate) fn untrack_temporary(path: &Path) {
    temporaries().retain(|p| p != path);
    signal_safe::untrack(path);
}

/// Removes the temporary files being written, from inside a signal
/// handler: no lock, no allocation, only `unlink`.
pub(crate) fn remove_temporaries_in_handler() {
    signal_safe::remove_all();
}

/// The temporary files again, as C strings in lock-free slots, for a
/// handler that may not lock or allocate (SIGBUS, [`crate::cli::mapped`]).
/// A command writes at most a few files at once; past [`signal_safe::SLOTS`]
/// at once, the rest are only in the list above.
mod signal_safe {
    use std::ffi::{CString, c_char};
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering::SeqCst};

    /// Files tracked at once.
    pub(super) const SLOTS: usize = 16;

    static PATHS: [AtomicPtr<c_char>; SLOTS] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

    fn c_path(path: &Path) -> Option<CString> {
        use std::os::unix::ffi::OsStrExt;
        CString::new(path.as_os_str().as_bytes()).ok()
    }

    pub(super) fn track(path: &Path) {
        let Some(c) = c_path(path) else { return };
        let raw = c.into_raw();
        for slot in &PATHS {
            if slot
                .compare_exchange(std::ptr::null_mut(), raw, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
        }
        // No free slot: this file is only in the locked list.
        #[allow(unsafe_code)]
        // SAFETY: `raw` came from `CString::into_raw` just above and was
        // published nowhere.
        drop(unsafe { CString::from_raw(raw) });
    }

    pub(super) fn untrack(path: &Path) {
        let Some(c) = c_path(path) else { return };
        for slot in &PATHS {
            let raw = slot.load(SeqCst);
            #[allow(unsafe_code)]
            // SAFETY: a non-null slot holds a string from `track`'s
            // `into_raw`, never freed (see below).
            let same = !raw.is_null() && unsafe { std::ffi::CStr::from_ptr(raw) } == c.as_c_str();
            if same
                && slot
                    .compare_exchange(raw, std::ptr::null_mut(), SeqCst, SeqCst)
                    .is_ok()
            {
                // Left allocated: a handler on another thread may be
                // reading it now. A few bytes per file written.
                return;
            }
        }
    }

    pub(super) fn remove_all() {
        for slot in &PATHS {
            let raw = slot.swap(std::ptr::null_mut(), SeqCst);
            if !raw.is_null() {
                #[allow(unsafe_code)]
                // SAFETY: a string from `track`, never freed; `unlink` is
                // async-signal-safe.
                unsafe {
                    libc::unlink(raw);
                }
            }
        }
    }
}

/// Removes every tracked temporary file (the second signal).
fn remove_temporaries() {
    for path in temporaries().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}
