//! Progress lines on stderr, silenced by `--quiet`. Never called inside a
//! timed region.

/// Where progress goes.
pub(crate) struct Progress {
    quiet: bool,
}

impl Progress {
    /// Progress that prints unless `quiet`.
    pub(crate) fn new(quiet: bool) -> Self {
        Progress { quiet }
    }

    /// One line on stderr.
    pub(crate) fn say(&self, line: &str) {
        if !self.quiet {
            eprintln!("graph500: {line}");
        }
    }
}
