//! The run loop: graph, kernel 1, search keys, then per key a timed search,
//! its nedge and its timed validation. One loop for every command and test
//! that runs searches (`run`, `profile`, the kernel tests), generic over the
//! kernel: a [`Searcher`] searches from a key and leaves a result, a
//! [`Checker`] validates that result independently.
//!
//! Timed regions: `construction_time` is kernel 1 alone; a search's time is
//! [`Searcher::search`] alone (the untimed [`Searcher::reset`] before it
//! clears the per-search state, as the reference code's `clean_pred` does);
//! a validation's time is [`Checker::check`] alone, or, for a checker that
//! holds several searches and judges them in one pass (the BFS checker over
//! block-ordered tuples: [`validate::Batch`]), the search's own
//! [`Checker::hold`] plus an equal share of the [`Checker::settle`] that
//! judged it. Like the reference, one
//! untimed, unvalidated warm-up search from the first key comes first.
//! Preparing a result for the checker ([`Checker::prepare`], e.g. the SSSP
//! checker's `i64` copy of the parents; the BFS checker reads the kernel's
//! parents where they lie) and counting nedge are outside every timed
//! region. So is putting the tuples in block order for the validator
//! ([`TupleBlocks`]), done once after kernel 1 when a run
//! validates at least [`BLOCK_ORDER_MIN_KEYS`] searches (a read-only mapped
//! file, or the list of a run that also runs SSSP, whose validator reads
//! the list, is copied first when the copy fits in the available memory);
//! the checksum is taken before. The
//! observer is told of each step between timed regions and may
//! stop the run there.

use crate::kernel3::{self, SsspChecker, SsspSearcher};
use crate::observe::{self, Event, Observer};
use crate::plan::{GeneratorSpec, GraphSource, Plan};
use crate::report::{BucketTrace, MpiReport, SearchRecord, TraceStep};
use crate::{Error, budget};
use generator::EdgeList;
use kernels::{Bfs, Csr, Parents, SearchKey, SearchStats, WeightedCsr};
use std::sync::Arc;
use std::time::Instant;
use validate::{Batch, Hold, Invalid, TreeSummary, TupleBlocks, Tuples, Validator};

/// A search kernel as the loop drives it.
pub trait Searcher {
    /// What a search leaves for the checker (a parent array, ...).
    type Output: ?Sized;
    /// The kernel, as reports name it: `bfs` or `sssp`.
    const KERNEL: &'static str = "bfs";
    /// Clears the per-search state (untimed).
    fn reset(&mut self);
    /// Searches from `key` (timed).
    fn search(&mut self, key: SearchKey) -> SearchStats;
    /// The result of the last search.
    fn output(&self) -> &Self::Output;
    /// The nedge of the last search, as the kernel's side counts it.
    fn nedge(&self) -> u64;
    /// The levels of the last search, for kernels that record them.
    fn trace(&self) -> Vec<TraceStep> {
        Vec::new()
    }
    /// The buckets of the last search, for kernels that have them (SSSP).
    fn buckets(&self) -> Option<Vec<BucketTrace>> {
        None
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
}

/// A BFS engine and the graph it searches.
pub struct BfsSearcher {
    engine: Box<dyn Bfs>,
    graph: Arc<Csr>,
}

impl BfsSearcher {
    /// `engine`, which searches `graph`.
    pub fn new(engine: Box<dyn Bfs>, graph: Arc<Csr>) -> Self {
        BfsSearcher { engine, graph }
    }
}

impl Searcher for BfsSearcher {
    type Output = Parents;

    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, key: SearchKey) -> SearchStats {
        self.engine.search(key)
    }

    fn output(&self) -> &Parents {
        self.engine.parents()
    }

    fn nedge(&self) -> u64 {
        self.graph.nedge(self.engine.parents())
    }

    fn trace(&self) -> Vec<TraceStep> {
        self.engine.steps().iter().map(TraceStep::from).collect()
    }
}

/// The validator of BFS parent arrays over an edge list; it reads the
/// kernel's parent array where it lies (no `i64` copy). Over block-ordered
/// tuples of at most `2^26` vertices it holds up to [`validate::batch::LANES`]
/// searches and judges their tuples in one pass ([`Batch`]).
pub struct BfsChecker<'a> {
    judge: Judge<'a>,
}

/// How a [`BfsChecker`] judges, and the tuples it reads.
enum Judge<'a> {
    /// Each search alone.
    Alone(Validator, Tuples<'a>),
    /// Searches held in a batch, judged together.
    Batched(Batch, &'a TupleBlocks),
}

impl<'a> BfsChecker<'a> {
    /// A checker for searches of the graph of `tuples` (an [`EdgeList`] or
    /// its [`TupleBlocks`]); allocates the validator
    /// ([`budget::run_bytes`]).
    pub fn new(tuples: impl Into<Tuples<'a>>) -> Self {
        let tuples = tuples.into();
        let n = tuples.num_vertices();
        let judge = match tuples {
            Tuples::Blocks(blocks) if Batch::suits(n) => Judge::Batched(Batch::new(n), blocks),
            _ => Judge::Alone(Validator::new(n), tuples),
        };
        BfsChecker { judge }
    }
}

impl Checker<Parents> for BfsChecker<'_> {
    /// Holds and settles at once: with no other search held, the verdict a
    /// single validation gives.
    fn check(
        &mut self,
        parents: &Parents,
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        match self.hold(parents, root, nedge)? {
            Some(tree) => Ok(tree),
            None => self.settle().pop().expect("the search just held"),
        }
    }

    fn lanes(&self) -> usize {
        match self.judge {
            Judge::Alone(..) => 1,
            Judge::Batched(..) => validate::batch::LANES,
        }
    }

    fn hold(
        &mut self,
        parents: &Parents,
        root: SearchKey,
        nedge: u64,
    ) -> Result<Option<TreeSummary>, Invalid> {
        match &mut self.judge {
            Judge::Batched(batch, blocks) => {
                let claims = parents.levels();
                match batch.hold(blocks, root.id(), parents.slots(), claims, Some(nedge))? {
                    Hold::Held => Ok(None),
                    Hold::Done(tree) => Ok(Some(tree)),
                }
            }
            Judge::Alone(validator, tuples) => validator
                .validate_any(*tuples, root.id(), parents.slots(), Some(nedge))
                .map(Some),
        }
    }

    fn settle(&mut self) -> Vec<Result<TreeSummary, Invalid>> {
        match &mut self.judge {
            Judge::Batched(batch, blocks) => batch.settle(blocks),
            Judge::Alone(..) => Vec::new(),
        }
    }

    fn certified(&self) -> u64 {
        match &self.judge {
            Judge::Batched(batch, _) => batch.certified(),
            Judge::Alone(..) => 0,
        }
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
    /// The kernel: `bfs` or `sssp`.
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
/// `checker` is given its timed validation. A checker with several
/// [`Checker::lanes`] holds searches and validates them together when its
/// lanes are full and after the last key; a held search's validation time
/// is its own [`Checker::hold`] plus an equal share of the
/// [`Checker::settle`] that judged it, and its record reaches `observer`
/// once it is validated. Stops at the first invalid search (in key order),
/// or when `observer` asks (checked between searches).
///
/// Run it on a rayon worker ([`on_pool_worker`]) for searches that allocate
/// nothing.
pub fn search_all<S: Searcher>(
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
        kernel: S::KERNEL,
        observer,
    };
    let mut waiting = Vec::new();
    for (i, &key) in keys.iter().enumerate() {
        observe::check(observer)?;
        let ((), reset_time) = timed(|| searcher.reset());
        let (stats, time) = timed(|| searcher.search(key));
        let nedge = searcher.nedge();
        // An SSSP search has buckets where a BFS has levels.
        let buckets = if trace { searcher.buckets() } else { None };
        let record = SearchRecord {
            root: key.id(),
            time,
            reset_time,
            nedge,
            teps: nedge as f64 / time,
            validate_time: None,
            depth: stats.depth,
            reached: stats.reached,
            trace: (trace && buckets.is_none()).then(|| searcher.trace()),
            buckets,
        };
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

/// One kernel's searches over `keys` as a run does them ([`search_all`]):
/// announced to `observer` as `kernel`, on a pool worker, each validated by
/// the checker that `checker` makes if the plan validates, traced if it
/// traces. Returns the searches (or the first invalid one) and the checker.
pub(crate) fn searches_of<S, C>(
    searcher: &mut S,
    checker: impl FnOnce() -> C + Send,
    keys: &[SearchKey],
    plan: &Plan,
    kernel: &str,
    observer: &dyn Observer,
) -> Result<(Searches, Option<C>), Error>
where
    S: Searcher + Send,
    C: Checker<S::Output>,
{
    observer.event(Event::Searching {
        searches: keys.len(),
        kernel,
        threads: rayon::current_num_threads(),
        validating: plan.validate,
    });
    on_pool_worker(|| {
        let mut checker = plan.validate.then(checker);
        let searches = search_all(
            searcher,
            checker.as_mut().map(|c| c as &mut dyn Checker<S::Output>),
            keys,
            plan.trace,
            observer,
        )?;
        Ok((searches, checker))
    })
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

/// The fewest validated searches for which a run puts the tuples in block
/// order first: at SCALE 20 on 2 threads (AMD EPYC) re-encoding them took
/// 0.23-0.24 s and saved about 50 ms per validation (69 ms a validation
/// in list order in a `graph500 --scale 20 --keys 32 --sssp` run, 16-17
/// ms in block order in `graph500 --scale 20 --keys 32`), so it pays
/// after about 5 validations; 16 leaves a margin for smaller graphs and
/// fewer threads.
pub const BLOCK_ORDER_MIN_KEYS: usize = 16;

/// The order the validator read the tuples in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TupleOrder {
    /// As generated or read.
    Input,
    /// Re-encoded in block order by [`TupleBlocks::from_tuples`], which
    /// took `seconds`; `copied` when the tuples were a read-only mapped
    /// file, copied first (included in `seconds`).
    Blocked {
        /// Seconds of the copy and the re-encoding.
        seconds: f64,
        /// Whether the tuples were copied from a mapped file first.
        copied: bool,
    },
}

impl TupleOrder {
    /// `input`, `blocked` or `blocked copy`, as the JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            TupleOrder::Input => "input",
            TupleOrder::Blocked { copied: false, .. } => "blocked",
            TupleOrder::Blocked { copied: true, .. } => "blocked copy",
        }
    }

    /// Seconds of the re-encoding; 0 for the input order.
    pub fn seconds(self) -> f64 {
        match self {
            TupleOrder::Input => 0.0,
            TupleOrder::Blocked { seconds, .. } => seconds,
        }
    }
}

/// The measurements of a whole valid run.
#[derive(Debug)]
pub struct Measured {
    /// Vertices.
    pub num_vertices: usize,
    /// Edge tuples.
    pub num_edges: usize,
    /// [`EdgeList::checksum`], of the tuples in their input order.
    pub checksum: u64,
    /// The order validation read the tuples in.
    pub tuple_order: TupleOrder,
    /// BFS searches validated together per pass over the tuples: 16 when
    /// batched ([`validate::Batch`]), 1 when each is validated alone, 0
    /// without validation.
    pub validation_lanes: usize,
    /// BFS searches whose checks 1 and 2 were proven from the levels the
    /// kernel claimed ([`validate::Batch::hold`]) instead of by walking.
    pub validation_certified: u64,
    /// Seconds to generate or read the edge list.
    pub graph_generation: f64,
    /// Seconds in kernel 1.
    pub construction_time: f64,
    /// The estimated peak memory of the run, bytes.
    pub memory_estimate: u64,
    /// One record per search, in key order.
    pub searches: Vec<SearchRecord>,
    /// One record per SSSP search, in key order, in a run of both kernels.
    pub sssp_searches: Option<Vec<SearchRecord>>,
    /// What a distributed run adds (`None` in one process).
    pub mpi: Option<MpiReport>,
}

/// How a run ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every search validated (or validation was off).
    Valid(Measured),
    /// A search failed validation; the run stopped there.
    Invalid(InvalidSearch),
}

/// Runs the benchmark that `plan` describes. Errors are bad input
/// (unreadable file, too few keys), too little memory, or a stop request.
pub fn run(plan: &Plan, observer: &dyn Observer) -> Result<Outcome, Error> {
    run_with(plan, observer, |graph| {
        plan.kernel.engine_on(plan.backend, graph)
    })
}

/// [`run`] with the BFS engine made by `engine` (tests inject faults here).
pub fn run_with(
    plan: &Plan,
    observer: &dyn Observer,
    engine: impl FnOnce(Arc<Csr>) -> Box<dyn Bfs>,
) -> Result<Outcome, Error> {
    if let GraphSource::Generated(g) = &plan.source {
        g.fits_one_process()?;
        let bytes_at = |scale: u32| {
            let g = GeneratorSpec { scale, ..*g };
            plan.memory_estimate(g.num_edges(), g.num_vertices())
        };
        let what = format!(
            "a run at SCALE {} with edgefactor {}",
            g.scale, g.edgefactor
        );
        let hint = budget::scale_hint(g.edgefactor, bytes_at);
        budget::check(bytes_at(g.scale), &what, hint, plan.force)?;
    }
    let (loaded, graph_generation) = timed(|| plan.source.load(observer, plan.sssp.is_some()));
    let (edges, key_rule) = loaded?;
    let (m, n) = (edges.len() as u64, edges.num_vertices() as u64);
    let mut memory_estimate = plan.memory_estimate(m, n);
    if let GraphSource::File { path, .. } = &plan.source {
        memory_estimate += budget::reading(&edges, path);
        let what = format!("a run on {}", path.display());
        budget::check(memory_estimate, &what, None, plan.force)?;
    }
    observer.event(Event::Loaded {
        vertices: edges.num_vertices(),
        edges: edges.len(),
        seconds: graph_generation,
    });
    observe::check(observer)?;
    observer.event(Event::Building);
    // Kernel 1: with --sssp, the weighted graph, the BFS graph copied out
    // of it, and the weighted rows split light-first at delta, all timed.
    let backend = plan.backend;
    let ((graph, weighted), construction_time) = timed(|| match edges.weights() {
        Some(weights) if let Some(params) = plan.sssp => {
            let (n, tuples) = (edges.num_vertices(), edges.edges());
            let mut weighted = WeightedCsr::build_on(backend, n, tuples, weights);
            let graph = weighted.unweighted_on(backend);
            weighted.split_light_on(backend, params.delta());
            (Arc::new(graph), Some(Arc::new(weighted)))
        }
        _ => (
            Arc::new(Csr::build_on(backend, edges.num_vertices(), edges.edges())),
            None,
        ),
    });
    let keys = key_rule.choose(&graph, plan.keys)?;
    observer.event(Event::Built {
        seconds: construction_time,
    });
    observe::check(observer)?;
    let (num_vertices, num_edges, checksum) = (edges.num_vertices(), edges.len(), edges.checksum());
    // The SSSP validator reads the tuples in list order, beside their
    // weights: a run of both kernels keeps the list, and the BFS validator
    // gets a block-ordered copy when it fits.
    let blocking = plan.validate && keys.len() >= BLOCK_ORDER_MIN_KEYS;
    let (input, tuple_order) = if blocking {
        block_order(edges, weighted.is_some())
    } else {
        (Input::List(edges), TupleOrder::Input)
    };

    let mut engine = engine(Arc::clone(&graph));
    engine.set_tracing(plan.trace);
    let mut searcher = BfsSearcher::new(engine, Arc::clone(&graph));
    let kernel = plan.kernel.label(backend);
    let checker = || BfsChecker::new(input.tuples());
    let (searches, checker) = searches_of(&mut searcher, checker, &keys, plan, &kernel, observer)?;
    let validation_lanes = checker.as_ref().map_or(0, |c| c.lanes());
    let validation_certified = checker.as_ref().map_or(0, |c| c.certified());
    let searches = match searches {
        Ok(searches) => searches,
        Err(invalid) => return Ok(Outcome::Invalid(invalid)),
    };
    drop(searcher);
    let input = input.list_only();
    let sssp_searches = match (weighted, plan.sssp, &input) {
        (Some(weighted), Some(params), Input::List(list)) => {
            let weights = list.weights().expect("a weighted graph has weights");
            let mut searcher = SsspSearcher::new(weighted, params, backend);
            searcher.set_tracing(plan.trace);
            let checker = || SsspChecker::new(list.num_vertices(), list.edges(), weights);
            let kernel = kernel3::label(params, backend);
            match searches_of(&mut searcher, checker, &keys, plan, &kernel, observer)?.0 {
                Ok(searches) => Some(searches),
                Err(invalid) => return Ok(Outcome::Invalid(invalid)),
            }
        }
        _ => None,
    };
    observer.event(Event::Finished);
    Ok(Outcome::Valid(Measured {
        num_vertices,
        num_edges,
        checksum,
        tuple_order,
        validation_lanes,
        validation_certified,
        graph_generation,
        construction_time,
        memory_estimate,
        searches,
        sssp_searches,
        mpi: None,
    }))
}

/// Re-encodes the tuples in block order for the BFS validator: in place
/// when the run owns them and need not `keep` the list (the SSSP
/// validator reads it), as a copy when they are a read-only mapped file or
/// kept and the copy (8 bytes a tuple until re-encoded) fits in the
/// available memory; otherwise the list stays as it is.
fn block_order(edges: EdgeList, keep: bool) -> (Input, TupleOrder) {
    let n = edges.num_vertices();
    let start = Instant::now();
    let copy_of = |list: &EdgeList| {
        let copy = EdgeList::bytes_for(list.len() as u64);
        let fits = crate::system::available_memory_bytes().is_some_and(|a| a >= copy);
        fits.then(|| list.edges().to_vec())
    };
    let blocked = |tuples| on_pool_worker(|| TupleBlocks::from_tuples(n, tuples));
    let order = |copied| TupleOrder::Blocked {
        seconds: start.elapsed().as_secs_f64(),
        copied,
    };
    if keep {
        return match copy_of(&edges) {
            Some(tuples) => {
                let blocks = blocked(tuples);
                (Input::Both(edges, blocks), order(true))
            }
            None => (Input::List(edges), TupleOrder::Input),
        };
    }
    match edges.into_tuples() {
        Ok(tuples) => (Input::Blocks(blocked(tuples)), order(false)),
        Err(mapped) => match copy_of(&mapped) {
            Some(tuples) => (Input::Blocks(blocked(tuples)), order(true)),
            None => (Input::List(mapped), TupleOrder::Input),
        },
    }
}

/// The tuples a run validates against: as loaded, in block order, or both
/// (a run of both kernels: block order for the BFS, the list for SSSP).
enum Input {
    List(EdgeList),
    Blocks(TupleBlocks),
    Both(EdgeList, TupleBlocks),
}

impl Input {
    /// The tuples the BFS validator reads: in block order if there is one.
    fn tuples(&self) -> Tuples<'_> {
        match self {
            Input::List(list) => list.into(),
            Input::Blocks(blocks) | Input::Both(_, blocks) => blocks.into(),
        }
    }

    /// The input without its block-ordered copy, whose memory is freed.
    fn list_only(self) -> Input {
        match self {
            Input::Both(list, _) => Input::List(list),
            other => other,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::Silent;
    use crate::plan::GeneratorKind;
    use kernels::Kernel;

    /// A kernel that searches correctly, then detaches one reached vertex.
    struct Detaching(Box<dyn Bfs>);

    impl Bfs for Detaching {
        fn reset(&mut self) {
            self.0.reset();
        }
        fn search(&mut self, root: SearchKey) -> SearchStats {
            let stats = self.0.search(root);
            let parents = self.0.parents();
            let n = u32::try_from(parents.len()).unwrap();
            let victim = (0..n)
                .find(|&v| v != root.vertex() && parents.is_reached(v))
                .unwrap();
            parents.set(victim, kernels::NO_PARENT);
            stats
        }
        fn parents(&self) -> &Parents {
            self.0.parents()
        }
    }

    /// A kernel that searches correctly but reports one level too many.
    struct Boasting(Box<dyn Bfs>);

    impl Bfs for Boasting {
        fn reset(&mut self) {
            self.0.reset();
        }
        fn search(&mut self, root: SearchKey) -> SearchStats {
            let stats = self.0.search(root);
            SearchStats {
                depth: stats.depth + 1,
                ..stats
            }
        }
        fn parents(&self) -> &Parents {
            self.0.parents()
        }
    }

    /// `plan` run with a kernel that leaves one reached vertex detached.
    fn run_detaching(plan: &Plan) -> Outcome {
        run_with(plan, &Silent, |g| {
            Box::new(Detaching(Kernel::Par.engine(g)))
        })
        .unwrap()
    }

    fn plan(validate: bool) -> Plan {
        Plan {
            keys: 4,
            kernel: Kernel::Par,
            validate,
            ..Plan::new(GraphSource::Generated(GeneratorSpec {
                kind: GeneratorKind::Xoshiro,
                scale: 8,
                edgefactor: 16,
                seed: Some(1),
            }))
        }
    }

    #[test]
    fn a_corrupted_tree_stops_the_run_at_its_search_naming_the_check() {
        let outcome = run_with(&plan(true), &Silent, |g| {
            Box::new(Detaching(Kernel::Par.engine(g)))
        });
        match outcome.unwrap() {
            Outcome::Invalid(InvalidSearch {
                search,
                failure: Failure::Invalid(error),
                ..
            }) => {
                assert_eq!(search, 0);
                assert_eq!(error.check(), 4, "{error}");
            }
            other => panic!("a detached vertex passed validation: {other:?}"),
        }
    }

    #[test]
    fn a_kernel_that_misreports_its_depth_is_caught() {
        let outcome = run_with(&plan(true), &Silent, |g| {
            Box::new(Boasting(Kernel::Seq.engine(g)))
        });
        match outcome.unwrap() {
            Outcome::Invalid(InvalidSearch {
                failure: Failure::Misreported { what, .. },
                ..
            }) => assert_eq!(what, "depth"),
            other => panic!("a wrong depth passed: {other:?}"),
        }
    }

    #[test]
    fn without_validation_every_search_is_reported() {
        let Outcome::Valid(m) = run(&plan(false), &Silent).unwrap() else {
            panic!("nothing to fail without validation");
        };
        assert_eq!(m.searches.len(), 4);
        assert_eq!(m.validation_lanes, 0);
        assert!(
            m.searches
                .iter()
                .all(|r| r.validate_time.is_none() && r.nedge > 0)
        );
    }

    /// Asks to stop once `after` searches are done.
    struct StopAfter(usize, std::sync::atomic::AtomicUsize);

    impl Observer for StopAfter {
        fn event(&self, event: Event<'_>) {
            if let Event::Searched { .. } = event {
                self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        fn stop_requested(&self) -> bool {
            self.1.load(std::sync::atomic::Ordering::SeqCst) >= self.0
        }
    }

    /// Guards the block order: a run that validates enough searches sorts
    /// its tuples first, yet reports the input order's checksum and the
    /// same searches as a run that keeps the input order; and a corrupted
    /// tree is still caught in the blocked order.
    #[test]
    fn block_order_changes_no_result_and_keeps_the_input_checksum() {
        let many = |validate| Plan {
            keys: BLOCK_ORDER_MIN_KEYS,
            ..plan(validate)
        };
        let Outcome::Valid(blocked) = run(&many(true), &Silent).unwrap() else {
            panic!("a correct kernel validates");
        };
        let Outcome::Valid(input) = run(&many(false), &Silent).unwrap() else {
            panic!("nothing to fail without validation");
        };
        assert!(matches!(blocked.tuple_order, TupleOrder::Blocked { .. }));
        assert_eq!(input.tuple_order, TupleOrder::Input);
        assert_eq!(blocked.checksum, input.checksum);
        let summary = |m: &Measured| -> Vec<(u64, u64, u32)> {
            m.searches
                .iter()
                .map(|s| (s.root, s.nedge, s.depth))
                .collect()
        };
        assert_eq!(summary(&blocked), summary(&input));
        assert_eq!(
            run(&plan(true), &Silent)
                .map(|o| matches!(o, Outcome::Valid(m)
                    if m.tuple_order == TupleOrder::Input && m.validation_lanes == 1))
                .ok(),
            Some(true),
            "few keys: input order"
        );

        assert!(
            matches!(run_detaching(&many(true)), Outcome::Invalid(_)),
            "caught in block order"
        );
    }

    /// Guards the BFS validation of a run of both kernels: the SSSP
    /// validator keeps the list, the BFS validator reads a block-ordered
    /// copy, with the results of a run that validates nothing, and a bad
    /// tree is still caught there.
    #[test]
    fn a_run_of_both_kernels_validates_its_bfs_on_a_block_ordered_copy() {
        let both = |validate| Plan {
            keys: BLOCK_ORDER_MIN_KEYS,
            sssp: Some(kernels::SsspParams::DEFAULT),
            ..plan(validate)
        };
        let Outcome::Valid(checked) = run(&both(true), &Silent).unwrap() else {
            panic!("correct kernels validate");
        };
        let Outcome::Valid(unchecked) = run(&both(false), &Silent).unwrap() else {
            panic!("nothing to fail without validation");
        };
        assert!(matches!(
            checked.tuple_order,
            TupleOrder::Blocked { copied: true, .. }
        ));
        assert_eq!(unchecked.tuple_order, TupleOrder::Input);
        let summary = |records: &[SearchRecord]| -> Vec<(u64, u64, u32)> {
            records.iter().map(|s| (s.root, s.nedge, s.depth)).collect()
        };
        assert_eq!(summary(&checked.searches), summary(&unchecked.searches));
        let sssp = |m: &Measured| summary(m.sssp_searches.as_deref().expect("SSSP searches"));
        assert_eq!(sssp(&checked), sssp(&unchecked));
        let validated = |r: &[SearchRecord]| r.iter().all(|s| s.validate_time.is_some());
        assert!(validated(&checked.searches));
        assert!(validated(checked.sssp_searches.as_deref().unwrap()));

        assert!(
            matches!(run_detaching(&both(true)), Outcome::Invalid(_)),
            "caught in block order"
        );
    }

    /// How [`Breaking`] breaks a search's tree.
    #[derive(Clone, Copy)]
    enum Break {
        /// A reached leaf marked unreached: check 4, which a batch finds
        /// in its shared pass.
        Detach,
        /// A reached vertex made its own parent: check 2, found at once.
        SecondRoot,
    }

    /// A kernel that searches correctly, then breaks the trees of the
    /// searches listed (numbered from the first after the warm-up).
    struct Breaking {
        inner: Box<dyn Bfs>,
        calls: usize,
        breaks: Vec<(usize, Break)>,
    }

    impl Bfs for Breaking {
        fn reset(&mut self) {
            self.inner.reset();
        }
        fn search(&mut self, root: SearchKey) -> SearchStats {
            let stats = self.inner.search(root);
            let search = self.calls.checked_sub(1);
            self.calls += 1;
            let Some(&(_, how)) = self.breaks.iter().find(|b| Some(b.0) == search) else {
                return stats;
            };
            let parents = self.inner.parents();
            let n = u32::try_from(parents.len()).unwrap();
            let mut has_child = vec![false; n as usize];
            for v in 0..n {
                if let Some(p) = parents.get(v).filter(|&p| p != v) {
                    has_child[p as usize] = true;
                }
            }
            let victim = (0..n)
                .find(|&v| v != root.vertex() && parents.is_reached(v) && !has_child[v as usize])
                .unwrap();
            match how {
                Break::Detach => parents.set(victim, kernels::NO_PARENT),
                Break::SecondRoot => parents.set(victim, victim),
            }
            stats
        }
        fn parents(&self) -> &Parents {
            self.inner.parents()
        }
    }

    /// The search and check that stop a batched run (20 keys: a full
    /// batch and a partial one) whose kernel breaks `breaks`.
    fn first_failure(breaks: &[(usize, Break)]) -> Option<(usize, u8)> {
        let plan = Plan {
            keys: 20,
            ..plan(true)
        };
        let outcome = run_with(&plan, &Silent, |g| {
            Box::new(Breaking {
                inner: Kernel::Par.engine(g),
                calls: 0,
                breaks: breaks.to_vec(),
            })
        });
        match outcome.unwrap() {
            Outcome::Valid(_) => None,
            Outcome::Invalid(InvalidSearch {
                search,
                failure: Failure::Invalid(error),
                ..
            }) => Some((search, error.check())),
            Outcome::Invalid(other) => panic!("not a validation failure: {other:?}"),
        }
    }

    /// Guards the batched validation's order: the first invalid search in
    /// key order is reported, whether it fails when held or in the shared
    /// pass, and whatever a later search in its batch does.
    #[test]
    fn a_batched_run_reports_its_first_invalid_search() {
        assert!(Batch::suits(1 << 8), "SCALE 8 runs batch");
        assert_eq!(first_failure(&[]), None);
        assert_eq!(first_failure(&[(3, Break::Detach)]), Some((3, 4)));
        assert_eq!(first_failure(&[(5, Break::SecondRoot)]), Some((5, 2)));
        let both = [(3, Break::Detach), (5, Break::SecondRoot)];
        assert_eq!(
            first_failure(&both),
            Some((3, 4)),
            "held 3 before 5's own failure"
        );
        let later = [(5, Break::Detach), (3, Break::SecondRoot)];
        assert_eq!(first_failure(&later), Some((3, 2)));
        assert_eq!(
            first_failure(&[(18, Break::Detach)]),
            Some((18, 4)),
            "partial batch"
        );
    }

    /// Records what it is told of each search.
    #[derive(Default)]
    struct Watching(std::sync::Mutex<Vec<(usize, Option<f64>)>>);

    impl Observer for Watching {
        fn event(&self, event: Event<'_>) {
            if let Event::Searched { index, record, .. } = event {
                self.0.lock().unwrap().push((index, record.validate_time));
            }
        }
    }

    /// dobfs claims its levels and the batch takes them as certificates:
    /// every search's checks 1 and 2 are proven without a walk. The kernel
    /// and the validator must agree on the unreached claim for that.
    #[test]
    fn dobfs_searches_are_certified_by_the_levels_they_claim() {
        assert_eq!(kernels::NO_LEVEL, validate::NO_LEVEL);
        let plan = Plan {
            keys: 20,
            kernel: Kernel::Dobfs(kernels::DoParams::DEFAULT),
            ..plan(true)
        };
        let Outcome::Valid(m) = run(&plan, &Silent).unwrap() else {
            panic!("a correct kernel validates");
        };
        assert_eq!(m.validation_lanes, validate::batch::LANES);
        assert_eq!(m.validation_certified, 20);
    }

    /// Batched searches reach the observer validated, in key order, each
    /// with its own validation time.
    #[test]
    fn batched_searches_are_announced_in_order_once_validated() {
        let plan = Plan {
            keys: 20,
            ..plan(true)
        };
        let watching = Watching::default();
        let Outcome::Valid(m) = run(&plan, &watching).unwrap() else {
            panic!("a correct kernel validates");
        };
        assert!(matches!(m.tuple_order, TupleOrder::Blocked { .. }));
        assert_eq!(m.validation_lanes, validate::batch::LANES);
        assert_eq!(m.validation_certified, 0, "par claims no levels");
        let seen = watching.0.into_inner().unwrap();
        assert_eq!(
            seen.iter().map(|s| s.0).collect::<Vec<_>>(),
            (0..20).collect::<Vec<_>>()
        );
        assert!(seen.iter().all(|s| s.1.is_some_and(|t| t > 0.0)));
        let times: Vec<Option<f64>> = m.searches.iter().map(|r| r.validate_time).collect();
        assert_eq!(times, seen.iter().map(|s| s.1).collect::<Vec<_>>());
    }

    #[test]
    fn a_stop_request_ends_the_run_between_searches() {
        let observer = StopAfter(2, 0.into());
        assert!(matches!(run(&plan(true), &observer), Err(Error::Stopped)));
        assert_eq!(observer.1.into_inner(), 2);
    }
}
