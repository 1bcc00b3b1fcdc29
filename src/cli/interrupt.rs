//! Ctrl-C (SIGINT), SIGTERM and SIGHUP: the first asks the program to stop
//! at the next step boundary (between reading, building, searching,
//! validating and writing; between searches, profile rows or sweep runs;
//! between the chunks of a file being written), so it stops cleanly:
//! destructors run, the temporary file of a write in progress is removed,
//! nothing is half written, and it exits with status 130 whichever of the
//! three signals came (the handler is not told which). A second signal exits
//! at once, status 130, after removing the temporary file of any write in
//! progress; the file being replaced is never touched.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// The exit status after a signal.
pub(crate) const EXIT_STATUS: u8 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Temporary files being written now (see [`crate::cli::output`]).
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

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
        let speaks = crate::cli::ranks::speaks();
        if INTERRUPTED.swap(true, SeqCst) {
            remove_temporaries();
            if speaks {
                crate::cli::console::err_line("graph500: interrupted again; exiting now");
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

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A poisoned list is still a list of paths.
    TEMPORARIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Notes a temporary file that a second signal must remove.
pub(crate) fn track_temporary(path: &Path) {
    temporaries().push(path.to_path_buf());
}

/// Forgets a temporary file (renamed into place or removed).
pub(crate) fn untrack_temporary(path: &Path) {
    temporaries().retain(|p| p != path);
}

/// Removes every tracked temporary file (the second signal).
fn remove_temporaries() {
    for path in temporaries().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}
