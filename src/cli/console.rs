//! stdout and stderr without panics (`print!` and `eprintln!` panic when a
//! write fails; nothing in this binary uses them).
//!
//! - stdout: [`out`] writes and flushes at once, so an error surfaces where
//!   the text is written. A closed pipe (`EPIPE`: `graph500 ... | head -1`)
//!   is what a reader that has seen enough does: it ends stdout quietly, with
//!   no message, later text is dropped, and the command finishes with the
//!   exit status it would have had (its files are still written; `validate`
//!   still exits 1 for an invalid tree). Any other error (`> /dev/full`) is
//!   an error of the command: one line on stderr, exit status 2.
//! - stderr: [`err_line`] ignores every error: there is nowhere left to
//!   report it.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Set once a write to stdout met a closed pipe.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout and flushes it. `Ok` also when stdout is a closed
/// pipe (the text is dropped); `Err` naming stdout for any other failure.
pub(crate) fn out(text: &str) -> anyhow::Result<()> {
    if STDOUT_CLOSED.load(Relaxed) {
        return Ok(());
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Relaxed);
            Ok(())
        }
        Err(e) => Err(anyhow::anyhow!("writing to stdout: {e}")),
    }
}

/// [`out`] of `line` and a newline.
pub(crate) fn out_line(line: &str) -> anyhow::Result<()> {
    out(&format!("{line}\n"))
}

/// Writes `line` and a newline to stderr in one write; errors are ignored.
pub(crate) fn err_line(line: &str) {
    let mut text = String::with_capacity(line.len() + 1);
    text.push_str(line);
    text.push('\n');
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// clap's error text on one line: each paragraph of its message (the error,
/// then any `tip:` such as "a similar argument exists"), lines joined by
/// spaces and paragraphs by `; `, without the usage block and the pointer
/// to `--help`.
pub(crate) fn clap_one_line(error: &clap::Error) -> String {
    let text = error.to_string();
    let mut paragraphs: Vec<String> = Vec::new();
    for paragraph in text.split("\n\n") {
        let lines: Vec<&str> = paragraph
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        match lines.first() {
            None => {}
            Some(first)
                if first.starts_with("Usage:") || first.starts_with("For more information") => {}
            Some(_) => paragraphs.push(lines.join(" ")),
        }
    }
    paragraphs.join("; ")
}
