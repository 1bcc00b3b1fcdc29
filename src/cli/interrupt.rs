//! Ctrl-C: the first one asks the program to stop at the next step boundary
//! (between phases, searches, profile rows or sweep runs), so it stops
//! cleanly: destructors run, temporary files are removed, nothing is half
//! written, and it exits with status 130. A second one exits at once (a
//! temporary `.graph500-*.partial` file of a write in progress may then stay
//! behind; the file being replaced is never touched).

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Why a command stopped early.
#[derive(Debug)]
pub(crate) struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted (Ctrl-C): stopped before finishing; no results written")
    }
}

impl std::error::Error for Interrupted {}

/// Installs the Ctrl-C handler. Fails only if another handler is installed.
pub(crate) fn install() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, SeqCst) {
            eprintln!("graph500: interrupted again; exiting now");
            std::process::exit(130);
        }
        eprintln!(
            "graph500: interrupted; stopping after the current step (Ctrl-C again to stop at once)"
        );
    })
}

/// `Err(Interrupted)` once Ctrl-C has been pressed.
pub(crate) fn check() -> Result<(), Interrupted> {
    if INTERRUPTED.load(SeqCst) {
        Err(Interrupted)
    } else {
        Ok(())
    }
}
