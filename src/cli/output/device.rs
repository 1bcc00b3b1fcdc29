//! Writing a device, FIFO or socket in place without blocking beyond a
//! signal: a [`Checked`] writer looks at the signal flag before every
//! write, a FIFO's open waits for a reader only until the first signal,
//! and a write its reader does not take waits in short polls.

use crate::cli::interrupt;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::time::Duration;

/// The error a [`Checked`] writer returns once a signal has come.
#[derive(Debug)]
pub(super) struct StopRequested;

impl std::fmt::Display for StopRequested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stop requested")
    }
}

impl std::error::Error for StopRequested {}

/// A file whose every write first checks the signal flag. A device or
/// FIFO is open non-blocking: a write its reader does not take waits in
/// [`wait_writable`], which returns at the first signal.
pub(super) struct Checked(pub(super) File);

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
pub(super) fn open_through(device: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(device)
}

/// [`open_through`], waiting for a reader of a FIFO until the first signal.
pub(super) fn open_through_waiting(device: &Path) -> std::io::Result<File> {
    loop {
        stop_check()?;
        match open_through(device) {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => std::thread::sleep(READER_WAIT),
            opened => return opened,
        }
    }
}
