//! The search loop: one warm-up search, then per key a reset, a timed
//! search, its nedge and, if validating, its timed validation. One loop for
//! every kernel, every engine and every command that runs searches,
//! generic over the kernel: a [`Searcher`] searches from a key and leaves a
//! result, a [`Checker`] validates that result independently.
//!
//! Timed regions: a search's time is [`Searcher::search`] alone (the
//! untimed [`Searcher::reset`] before it clears the per-search state, as
//! the reference code's `clean_pred` does); a validation's time is
//! [`Checker::check`] alone or, for a checker that holds several searches
//! and judges them in one pass, the search's own [`Checker::hold`] plus an
//! equal share of the [`Checker::settle`] that judged it. Preparing a
//! result for the checker ([`Checker::prepare`]) and counting nedge are
//! outside every timed region. The observer is told of each search between
//! timed regions and may stop the loop there.
//!
//! Invariants: records come out in key order; the first invalid search in
//! key order is the one reported, whichever pass of a batched checker found
//! it; a search's record reaches the observer only once it is validated.
//! Cost: the loop itself allocates one record per key.

use crate::observe::{self, Event, Observer};
use crate::report::SearchRecord;
use crate::{Error, Plan};
use kernels::{SearchKey, SearchStats};
use std::time::Instant;
use validate::{Invalid, TreeSummary};

/// A search kernel as the loop drives it.
pub trait Searcher {
    /// What a search leaves for the checker (a parent array, ...).
    type Output: ?Sized;
    /// Clears the per-search state (untimed).
    fn reset(&mut self);
    /// Searches from `key` (timed).
    fn search(&mut self, key: SearchKey) -> SearchStats;
    /// The result of the last search.
    fn output(&self) -> &Self::Output;
    /// The nedge of the last search, as the kernel's side counts it.
    fn nedge(&self) -> u64;
    /// Adds what the kernel recorded of the last search (its levels, its
    /// buckets) to `record`; called only when the run traces.
    fn trace(&self, record: &mut SearchRecord) {
        let _ = record;
    }
    /// Bytes each search so far sent between ranks, summed over the ranks,
    /// the warm-up's first; empty for a searcher of one process.
    fn bytes_sent(&self) -> &[u64] {
        &[]
    }
    /// Nanoseconds this rank spent inside collectives in each search so
    /// far (`dist::Comm::nanos_in_calls`), the warm-up's first; empty for a
    /// searcher of one process, or one that does not count them.
    fn comm_nanos(&self) -> &[u64] {
        &[]
    }
}

/// An independent check of a [`Searcher`]'s result.
pub trait Checker<O: ?Sized>: Send {
    /// Takes what it needs of `output` (untimed); nothing, for a checker
    /// that reads `output` as it lies.
    fn prepare(&mut self, output: &O) {
        let _ = output;
    }
    /// Checks the result of a search from `root` that claims `nedge`
    /// (timed): what [`Checker::prepare`] took of `output`, or `output`
    /// itself where the validator reads it as it lies.
    fn check(&mut self, output: &O, root: SearchKey, nedge: u64) -> Result<TreeSummary, Invalid>;
    /// How many searches the checker holds for one shared pass
    /// ([`Checker::hold`]); 1 for a checker that judges each alone.
    fn lanes(&self) -> usize {
        1
    }
    /// Checks what it can of a search's output at once and may keep the
    /// rest for [`Checker::settle`] (timed): `Some` when the search is
    /// validated, `None` when it waits. Errors are final. By default,
    /// [`Checker::check`].
    fn hold(
        &mut self,
        output: &O,
        root: SearchKey,
        nedge: u64,
    ) -> Result<Option<TreeSummary>, Invalid> {
        self.check(output, root, nedge).map(Some)
    }
    /// Validates the searches [`Checker::hold`] kept, in the order kept,
    /// and keeps none (timed).
    fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        Vec::new()
    }
    /// How many searches so far had checks 1 and 2 proven from the levels
    /// their kernel claimed, with no walk of the parent chains.
    fn certified(&self) -> u64 {
        0
    }
    /// Bytes each check so far sent between ranks, this rank's own; empty
    /// for a checker of one process.
    fn bytes_sent(&self) -> &[u64] {
        &[]
    }
    /// Nanoseconds this rank spent inside collectives in each check so far
    /// (shared out as [`Checker::bytes_sent`]); empty for a checker of one
    /// process.
    fn comm_nanos(&self) -> &[u64] {
        &[]
    }
}

/// Why a search's result was refused.
#[derive(Debug)]
pub enum Failure {
    /// The validator rejected the tree.
    Invalid(Invalid),
    /// The tree is valid but the kernel reported other figures for it.
    Misreported {
        /// `reached` or `depth`.
        what: &'static str,
        /// What the kernel said.
        kernel: u64,
        /// What the validator found.
        validator: u64,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Invalid(e) => e.fmt(f),
            Failure::Misreported {
                what,
                kernel,
                validator,
            } => write!(
                f,
                "the kernel reported {what} {kernel} but the validator found {validator}"
            ),
        }
    }
}

/// The search that failed validation.
#[derive(Debug)]
pub struct InvalidSearch {
    /// The kernel, as [`Pass::name`](crate::Pass::name) names it.
    pub kernel: &'static str,
    /// Which search (from 0).
    pub search: usize,
    /// Its root.
    pub root: u64,
    /// What was wrong.
    pub failure: Failure,
}

/// The searches of a run, or the first that failed validation.
pub type Searches = Result<Vec<SearchRecord>, InvalidSearch>;

/// One warm-up search, then per key: reset, timed search, nedge, and if
/// `checker` is given its timed validation; failures are reported as
/// `kernel`'s. A checker with several [`Checker::lanes`] holds searches
/// and validates them together when its lanes are full and after the last
/// key; a held search's validation time is its own [`Checker::hold`] plus
/// an equal share of the [`Checker::settle`] that judged it, and its record
/// reaches `observer` once it is validated. Stops at the first invalid
/// search (in key order), or when `observer` asks (checked between
/// searches).
///
/// Run it on a rayon worker ([`on_pool_worker`]) for searches that allocate
/// nothing.
pub fn search_all<S: Searcher>(
    kernel: &'static str,
    searcher: &mut S,
    mut checker: Option<&mut dyn Checker<S::Output>>,
    keys: &[SearchKey],
    trace: bool,
    observer: &dyn Observer,
) -> Result<Searches, Error> {
    if let Some(&first) = keys.first() {
        searcher.reset();
        searcher.search(first);
    }
    let mut done = Done {
        records: Vec::with_capacity(keys.len()),
        total: keys.len(),
        kernel,
        observer,
    };
    let mut waiting = Vec::new();
    for (i, &key) in keys.iter().enumerate() {
        observe::check(observer)?;
        let ((), reset_time) = timed(|| searcher.reset());
        let (stats, time) = timed(|| searcher.search(key));
        let nedge = searcher.nedge();
        let mut record = SearchRecord {
            root: key.id(),
            time,
            reset_time,
            nedge,
            teps: nedge as f64 / time,
            validate_time: None,
            depth: stats.depth,
            reached: stats.reached,
            trace: None,
            buckets: None,
        };
        if trace {
            searcher.trace(&mut record);
        }
        let Some(checker) = checker.as_deref_mut() else {
            done.push(i, record);
            continue;
        };
        let output = searcher.output();
        checker.prepare(output);
        let (verdict, seconds) = timed(|| checker.hold(output, key, nedge));
        let tree = match verdict {
            Ok(tree) => tree,
            Err(invalid) => {
                // Searches still held come first: the first invalid one is
                // reported.
                let earlier = done.settle(checker, &mut waiting).err();
                let this = || done.failure(i, key.id(), Failure::Invalid(invalid));
                return Ok(Err(earlier.unwrap_or_else(this)));
            }
        };
        waiting.push(Waiting {
            index: i,
            stats,
            record,
            seconds,
            tree,
        });
        let held = waiting.iter().filter(|w| w.tree.is_none()).count();
        let due = held == 0 || held == checker.lanes() || i + 1 == keys.len();
        if due && let Err(invalid) = done.settle(checker, &mut waiting) {
            return Ok(Err(invalid));
        }
    }
    Ok(Ok(done.records))
}

/// A searched key whose record waits for its validation to end.
struct Waiting {
    index: usize,
    stats: SearchStats,
    record: SearchRecord,
    /// Seconds of its own [`Checker::hold`].
    seconds: f64,
    /// The verdict of `hold`; `None` while held.
    tree: Option<TreeSummary>,
}

/// The validated records of [`search_all`], and whom to tell of each.
struct Done<'a> {
    records: Vec<SearchRecord>,
    total: usize,
    kernel: &'static str,
    observer: &'a dyn Observer,
}

impl Done<'_> {
    /// Records search `index`, validated or not validated at all.
    fn push(&mut self, index: usize, record: SearchRecord) {
        self.observer.event(Event::Searched {
            index,
            total: self.total,
            record: &record,
        });
        self.records.push(record);
    }

    /// The failure of search `index` from `root`.
    fn failure(&self, index: usize, root: u64, failure: Failure) -> InvalidSearch {
        InvalidSearch {
            kernel: self.kernel,
            search: index,
            root,
            failure,
        }
    }

    /// Settles the held searches among `waiting` (timed), then records
    /// every waiting search in key order, or returns the first invalid.
    fn settle<O: ?Sized>(
        &mut self,
        checker: &mut dyn Checker<O>,
        waiting: &mut Vec<Waiting>,
    ) -> Result<(), InvalidSearch> {
        let held = waiting.iter().filter(|w| w.tree.is_none()).count();
        let (verdicts, seconds) = if held > 0 {
            timed(|| checker.settle())
        } else {
            (Vec::new(), 0.0)
        };
        let share = seconds / held.max(1) as f64;
        let mut verdicts = verdicts.into_iter();
        for w in waiting.drain(..) {
            let (verdict, seconds) = match w.tree {
                Some(tree) => (Ok(tree), w.seconds),
                None => {
                    let verdict = verdicts.next().expect("one verdict per held search");
                    (verdict, w.seconds + share)
                }
            };
            let failure = match verdict {
                Err(invalid) => Some(Failure::Invalid(invalid)),
                Ok(tree) => misreport(&w.stats, &tree),
            };
            if let Some(failure) = failure {
                return Err(self.failure(w.index, w.record.root, failure));
            }
            let record = SearchRecord {
                validate_time: Some(seconds),
                ..w.record
            };
            self.push(w.index, record);
        }
        Ok(())
    }
}

/// A kernel's figures that differ from the validator's.
fn misreport(stats: &SearchStats, tree: &TreeSummary) -> Option<Failure> {
    let pairs = [
        ("reached", stats.reached, tree.reached),
        ("depth", stats.depth.into(), tree.depth.into()),
    ];
    pairs
        .into_iter()
        .find(|(_, kernel, validator)| kernel != validator)
        .map(|(what, kernel, validator)| Failure::Misreported {
            what,
            kernel,
            validator,
        })
}

/// What one kernel's searches over every key gave: the records (or the
/// first invalid search), and what its checker and searcher counted.
#[derive(Debug)]
pub struct PassOutput {
    /// The searches, or the first that failed validation.
    pub searches: Searches,
    /// Searches validated together per pass over the tuples; 0 without
    /// validation.
    pub lanes: usize,
    /// Searches whose checks 1 and 2 were proven from claimed levels.
    pub certified: u64,
    /// Bytes each search sent between ranks, summed over the ranks, in key
    /// order (without the warm-up); `None` in one process.
    pub search_bytes: Option<Vec<u64>>,
    /// Bytes each validation sent between ranks, this rank's own, in key
    /// order; `None` in one process.
    pub validate_bytes: Option<Vec<u64>>,
    /// Nanoseconds this rank spent inside collectives in each search, in
    /// key order (without the warm-up); `None` where not counted.
    pub search_comm_nanos: Option<Vec<u64>>,
    /// The same for each validation; `None` where not counted.
    pub validate_comm_nanos: Option<Vec<u64>>,
}

/// A kernel's searches, ready to run: a searcher and the checker it will
/// get, with the kernel's name and label. An engine makes one per pass;
/// [`Searching::run`] is the same loop for all.
pub trait Searching {
    /// Runs every key ([`search_all`]) on a pool worker, announced to
    /// `observer`, validated if the plan validates, traced if it traces.
    fn run(
        self: Box<Self>,
        keys: &[SearchKey],
        plan: &Plan,
        observer: &dyn Observer,
    ) -> Result<PassOutput, Error>;
}

/// A [`Searcher`] with the maker of its [`Checker`]: what an adapter hands
/// the driver as a [`Searching`].
pub struct Prepared<S, F> {
    /// The kernel's name in reports (`bfs`, ...).
    pub kernel: &'static str,
    /// The kernel and its engine, as progress lines name them.
    pub label: String,
    /// The searcher.
    pub searcher: S,
    /// Makes the checker, called only when the run validates (on the pool
    /// worker that searches).
    pub checker: F,
}

impl<S, C, F> Searching for Prepared<S, F>
where
    S: Searcher + Send,
    C: Checker<S::Output>,
    F: FnOnce() -> C + Send,
{
    fn run(
        self: Box<Self>,
        keys: &[SearchKey],
        plan: &Plan,
        observer: &dyn Observer,
    ) -> Result<PassOutput, Error> {
        let Prepared {
            kernel,
            label,
            mut searcher,
            checker,
        } = *self;
        observer.event(Event::Searching {
            searches: keys.len(),
            kernel: &label,
            threads: rayon::current_num_threads(),
            validating: plan.validate,
        });
        on_pool_worker(|| {
            let mut checker = plan.validate.then(checker);
            let searches = search_all(
                kernel,
                &mut searcher,
                checker.as_mut().map(|c| c as &mut dyn Checker<S::Output>),
                keys,
                plan.trace,
                observer,
            )?;
            // The warm-up search's bytes come first.
            let search_bytes = (searcher.bytes_sent().split_first()).map(|(_, b)| b.to_vec());
            let validate_bytes = match &checker {
                Some(c) => search_bytes.as_ref().map(|_| c.bytes_sent().to_vec()),
                None => search_bytes.as_ref().map(|_| Vec::new()),
            };
            let search_comm_nanos = (searcher.comm_nanos().split_first()).map(|(_, t)| t.to_vec());
            let validate_comm_nanos = (search_comm_nanos.as_ref()).map(|_| {
                checker
                    .as_ref()
                    .map_or(Vec::new(), |c| c.comm_nanos().to_vec())
            });
            Ok(PassOutput {
                searches,
                lanes: checker.as_ref().map_or(0, |c| c.lanes()),
                certified: checker.as_ref().map_or(0, |c| c.certified()),
                search_bytes,
                validate_bytes,
                search_comm_nanos,
                validate_comm_nanos,
            })
        })
    }
}

/// Runs `f` on a worker of rayon's global pool. Parallel loops started from
/// a worker push their jobs onto its own deque, while loops started from
/// another thread inject them into the pool's shared queue, which allocates
/// a block every 63 jobs: searches run this way allocate nothing at all.
pub fn on_pool_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}

/// The value of `f` and the seconds it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64())
}
