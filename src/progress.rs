//! Progress on stderr: bars when stderr is a terminal, plain lines when it
//! is not (a log keeps them), nothing with `--quiet`. Never updated inside
//! a timed region: bars move between searches and between phases, and no
//! bar ticks by itself while a kernel is being timed.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Where progress goes.
pub(crate) struct Progress {
    mode: Mode,
}

enum Mode {
    Quiet,
    Lines,
    Bars(MultiProgress),
}

/// A progress bar, or nothing where there are no bars.
pub(crate) struct Bar(Option<ProgressBar>);

impl Progress {
    /// Progress for this process's stderr: silent if `quiet`.
    pub(crate) fn new(quiet: bool) -> Self {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Bars(MultiProgress::with_draw_target(ProgressDrawTarget::stderr()))
        } else {
            Mode::Lines
        };
        Progress { mode }
    }

    /// A line of news, above the bars or on its own line.
    pub(crate) fn say(&self, line: &str) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => crate::console::err_line(&format!("graph500: {line}")),
            Mode::Bars(bars) => {
                let _ = bars.println(format!("graph500: {line}"));
            }
        }
    }

    /// A line of detail that a bar already shows: printed only without bars
    /// (one per search would bury the bars).
    pub(crate) fn detail(&self, line: &str) {
        if let Mode::Lines = self.mode {
            crate::console::err_line(&format!("graph500: {line}"));
        }
    }

    /// A bar of `len` steps labelled `what` (a no-op without bars).
    pub(crate) fn bar(&self, len: u64, what: &str) -> Bar {
        match &self.mode {
            Mode::Bars(bars) => {
                let bar = bars.add(ProgressBar::new(len));
                let style = ProgressStyle::with_template(
                    "{prefix:>12} [{bar:30}] {pos}/{len} {elapsed:>4} {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> ");
                bar.set_style(style);
                bar.set_prefix(what.to_string());
                Bar(Some(bar))
            }
            Mode::Quiet | Mode::Lines => Bar(None),
        }
    }
}

impl Bar {
    /// Advances by `n` steps.
    pub(crate) fn inc(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }

    /// Sets the text after the bar.
    pub(crate) fn message(&self, text: String) {
        if let Some(bar) = &self.0 {
            bar.set_message(text);
        }
    }

    /// Fills the bar and leaves it with a last message.
    pub(crate) fn finish(&self, text: String) {
        if let Some(bar) = &self.0 {
            bar.finish_with_message(text);
        }
    }
}
