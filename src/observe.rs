//! `Observer`: how a caller watches a run (progress, logs) and stops it
//! (Ctrl-C). The harness never prints; it tells the observer what happened
//! at each step boundary and asks it whether to go on.
//!
//! No method is called inside a timed region: events come between phases
//! and between searches, and [`Observer::block_generated`] only during the
//! untimed generation.

use crate::report::SearchRecord;

/// A step boundary of a run.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// The edge list is being made: `what` describes the source.
    Loading {
        /// "generating a Kronecker graph: ..." or "reading FILE (format)".
        what: &'a str,
        /// Blocks the generator will report through
        /// [`Observer::block_generated`] (0 for a file).
        blocks: u64,
    },
    /// The edge list is ready.
    Loaded {
        /// `N`.
        vertices: usize,
        /// `M`.
        edges: usize,
        /// Seconds it took (`graph_generation`).
        seconds: f64,
    },
    /// Kernel 1 starts.
    Building,
    /// Kernel 1 finished and the search keys are chosen.
    Built {
        /// Seconds in kernel 1 (`construction_time`).
        seconds: f64,
    },
    /// The searches start.
    Searching {
        /// How many.
        searches: usize,
        /// The kernel and its backend, as reports name them (`seq`,
        /// `dobfs/rayon`, `par/pipes`).
        kernel: &'a str,
        /// Worker threads.
        threads: usize,
        /// Whether each is validated.
        validating: bool,
    },
    /// One search (and its validation, if any) is done.
    Searched {
        /// Which, from 0.
        index: usize,
        /// Of how many.
        total: usize,
        /// Its figures.
        record: &'a SearchRecord,
    },
    /// Every search is done and valid.
    Finished,
}

/// Watches a run. Every method has a do-nothing default.
pub trait Observer: Sync {
    /// A step boundary was reached.
    fn event(&self, _event: Event<'_>) {}

    /// One more block of edges was generated (called from worker threads).
    fn block_generated(&self) {}

    /// True once the run should stop at the next step boundary.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// An observer that watches nothing and never stops a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Observer for Silent {}

/// `Err(Stopped)` if `observer` asks to stop.
pub(crate) fn check(observer: &dyn Observer) -> Result<(), crate::Error> {
    if observer.stop_requested() {
        Err(crate::Error::Stopped)
    } else {
        Ok(())
    }
}
