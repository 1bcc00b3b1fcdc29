//! Progress on stderr: bars when stderr is a terminal, plain lines when it
//! is not (a log keeps them), nothing with `--quiet`. Never updated inside
//! a timed region: `Progress` is the run's [`Observer`], which the harness
//! calls only between phases and between searches, and no bar ticks by
//! itself while a kernel is being timed. It also relays Ctrl-C: the run
//! stops at the next step boundary once [`crate::cli::interrupt`] has seen
//! a signal.

use harness::{Event, Observer};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where progress goes.
pub(crate) struct Progress {
    mode: Mode,
    /// The bars of the run in progress: (generation or kernel 1, searches,
    /// validations).
    bars: Mutex<[Bar; 3]>,
    /// Whether the searches under way count their tree's levels: a BFS's
    /// do; kernel 3's do not (their records say depth 0), and their lines
    /// leave the depth out.
    levels: AtomicBool,
}

enum Mode {
    Quiet,
    Lines,
    Bars(MultiProgress),
}

/// A progress bar, or nothing where there are no bars.
#[derive(Default)]
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
        Progress {
            mode,
            bars: Mutex::default(),
            levels: AtomicBool::new(true),
        }
    }

    /// A line of news, above the bars or on its own line.
    pub(crate) fn say(&self, line: &str) {
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => crate::cli::console::err_line(&format!("graph500: {line}")),
            Mode::Bars(bars) => {
                let _ = bars.println(format!("graph500: {line}"));
            }
        }
    }

    /// A line of detail that a bar already shows: printed only without bars
    /// (one per search would bury the bars).
    fn detail(&self, line: &str) {
        if let Mode::Lines = self.mode {
            crate::cli::console::err_line(&format!("graph500: {line}"));
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

    fn with_bars(&self, f: impl FnOnce(&mut [Bar; 3])) {
        f(&mut self
            .bars
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner));
    }
}

impl Observer for Progress {
    fn event(&self, event: Event<'_>) {
        match event {
            Event::Loading { what, blocks } => {
                self.say(what);
                if blocks > 0 {
                    let bar = self.bar(blocks, "generating");
                    self.with_bars(|b| b[0] = bar);
                }
            }
            Event::Loaded {
                vertices,
                edges,
                seconds,
            } => {
                self.with_bars(|b| b[0].finish(format!("{edges} edge tuples")));
                self.say(&format!(
                    "graph: {vertices} vertices, {edges} edge tuples ({seconds:.3} s); building the CSR"
                ));
            }
            Event::Building => {
                let bar = self.bar(1, "kernel 1");
                self.with_bars(|b| b[0] = bar);
            }
            Event::Built { seconds } => {
                self.with_bars(|b| {
                    b[0].inc(1);
                    b[0].finish(format!("{seconds:.3} s"));
                });
            }
            Event::Searching {
                searches,
                kernel,
                threads,
                validating,
            } => {
                self.say(&format!(
                    "{searches} searches with kernel {kernel} on {}",
                    count(threads, "thread")
                ));
                let levels = !kernel.starts_with(harness::report::SSSP_KERNEL);
                self.levels.store(levels, Ordering::Relaxed);
                let (search, validate) = (
                    self.bar(searches as u64, "searches"),
                    self.bar(if validating { searches as u64 } else { 0 }, "validations"),
                );
                self.with_bars(|b| {
                    b[1] = search;
                    b[2] = validate;
                });
            }
            Event::Searched {
                index,
                total,
                record: r,
            } => {
                self.with_bars(|b| {
                    b[1].inc(1);
                    b[1].message(format!("{:.3e} TEPS", r.teps));
                    if r.validate_time.is_some() {
                        b[2].inc(1);
                    }
                });
                let validated = match r.validate_time {
                    Some(t) => format!(", validated in {t:.4} s"),
                    None => String::new(),
                };
                let depth = if self.levels.load(Ordering::Relaxed) {
                    format!(", depth {}", r.depth)
                } else {
                    String::new()
                };
                self.detail(&format!(
                    "search {}/{total}: root {}, {} reached{depth}, nedge {}, {:.4} s, {:.3e} TEPS{validated}",
                    index + 1,
                    r.root,
                    r.reached,
                    r.nedge,
                    r.time,
                    r.teps
                ));
            }
            Event::Finished => self.with_bars(|b| {
                b[1].finish(String::new());
                b[2].finish("done".into());
            }),
        }
    }

    fn block_generated(&self) {
        self.with_bars(|b| b[0].inc(1));
    }

    fn stop_requested(&self) -> bool {
        crate::cli::interrupt::check().is_err()
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

/// `n` things in English: "1 thread", "8 threads" (`thing` in the
/// singular, made plural with an s).
pub(crate) fn count(n: usize, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}
