//! One driver for every engine: [`drive`] runs the Graph500 sequence, and
//! an [`Engine`] supplies what differs between one process and ranks.
//!
//! The sequence: admit the plan (refusals and the memory budget, before
//! any work), load the graph (timed: `graph_generation`), kernel 1 (timed:
//! `construction_time`), the search keys, the validator's preparation
//! (untimed), then each of the plan's [`Pass`]es over every key through
//! the one search loop ([`Searching`]), and the figures the engine adds.
//! The observer hears each step between timed regions and may stop the
//! run there.
//!
//! Engines: [`one::OneProcess`] (this process's threads) and
//! [`ranks::Ranks`] (P ranks of a [`dist::Comm`], 1-D or 2-D by the plan's
//! [`Partitioning`](crate::Partitioning)). A new engine
//! implements [`Engine`]; a new kernel is a [`Pass`] with its adapter
//! (`src/pass/`), and neither copies the sequence.

pub(crate) mod one;
pub(crate) mod ranks;

use crate::observe::{self, Event, Observer};
use crate::report::SearchRecord;
use crate::searches::{PassOutput, Searching, timed};
use crate::{Error, Pass, Plan};
use kernels::SearchKey;

/// What differs between ways of running the benchmark. [`drive`] calls
/// each method once, in the order listed, and [`Engine::pass`] and
/// [`Engine::passed`] once per pass. In an engine over ranks each method
/// is collective: every rank calls it in the same order, and failures are
/// agreed on, so every rank returns the same error.
pub trait Engine {
    /// Kernel 1's structures: what the passes search.
    type Graph;
    /// Refuses what this engine cannot run and checks the memory it can
    /// estimate before loading.
    fn admit(&mut self, plan: &Plan) -> Result<(), Error>;
    /// Generates or reads this engine's share of the tuples (and their
    /// weights, if a pass needs them); timed as `graph_generation`.
    fn load(&mut self, plan: &Plan, observer: &dyn Observer) -> Result<(), Error>;
    /// The whole graph's size and checksum, and the run's memory estimate,
    /// checked now that the input is known (untimed).
    fn loaded(&mut self, plan: &Plan) -> Result<Loaded, Error>;
    /// Kernel 1 (timed as `construction_time`).
    fn build(&mut self, plan: &Plan) -> Self::Graph;
    /// After kernel 1 (untimed): the search keys, the same for every
    /// engine.
    fn keys(&mut self, plan: &Plan, graph: &Self::Graph) -> Result<Vec<SearchKey>, Error>;
    /// Prepares the tuples for the validators (untimed) and says in which
    /// order they will read them.
    fn ready(&mut self, plan: &Plan, keys: usize) -> TupleOrder;
    /// The searcher and checker of pass `index` of the plan over `graph`.
    fn pass<'a>(
        &'a mut self,
        plan: &'a Plan,
        index: usize,
        graph: &'a Self::Graph,
        keys: usize,
    ) -> Box<dyn Searching + 'a>;
    /// After pass `index` (also an invalid one): completes its figures
    /// and releases what no later pass reads.
    fn passed(&mut self, plan: &Plan, index: usize, graph: &mut Self::Graph, out: &mut PassOutput);
    /// At the end of a valid run: what only ranks have.
    fn finish(&mut self) -> Option<RankFigures>;
}

/// The graph as [`Engine::loaded`] reports it.
#[derive(Clone, Copy, Debug)]
pub struct Loaded {
    /// `N`.
    pub num_vertices: u64,
    /// `M`.
    pub num_edges: u64,
    /// [`generator::EdgeList::checksum`] of the whole list in input order.
    pub checksum: u64,
    /// The estimated peak memory of the run (one rank's, over ranks).
    pub memory_estimate: u64,
}

/// Runs `plan` on `engine`: the Graph500 sequence, one pass per kernel of
/// the plan. Errors are bad input, too little memory, or a stop request; a
/// search that fails validation ends the run as [`Outcome::Invalid`].
pub fn drive<E: Engine>(
    engine: &mut E,
    plan: &Plan,
    observer: &dyn Observer,
) -> Result<Outcome, Error> {
    engine.admit(plan)?;
    let (loaded, graph_generation) = timed(|| engine.load(plan, observer));
    loaded?;
    let loaded = engine.loaded(plan)?;
    observer.event(Event::Loaded {
        vertices: usize::try_from(loaded.num_vertices).unwrap_or(usize::MAX),
        edges: usize::try_from(loaded.num_edges).unwrap_or(usize::MAX),
        seconds: graph_generation,
    });
    observe::check(observer)?;
    observer.event(Event::Building);
    let (mut graph, construction_time) = timed(|| engine.build(plan));
    let keys = engine.keys(plan, &graph)?;
    observer.event(Event::Built {
        seconds: construction_time,
    });
    observe::check(observer)?;
    let tuple_order = engine.ready(plan, keys.len());
    let mut passes = Vec::with_capacity(plan.passes.len());
    for (index, pass) in plan.passes.iter().enumerate() {
        let searching = engine.pass(plan, index, &graph, keys.len());
        let mut out = searching.run(&keys, plan, observer)?;
        engine.passed(plan, index, &mut graph, &mut out);
        match out.searches {
            Ok(searches) => passes.push(PassResult {
                kernel: pass.name(),
                searches,
                lanes: out.lanes,
                certified: out.certified,
                search_bytes: out.search_bytes,
                validate_bytes: out.validate_bytes,
                search_comm_nanos: out.search_comm_nanos,
                validate_comm_nanos: out.validate_comm_nanos,
            }),
            Err(invalid) => return Ok(Outcome::Invalid(invalid)),
        }
    }
    let ranks = engine.finish();
    observer.event(Event::Finished);
    Ok(Outcome::Valid(Measured {
        num_vertices: usize::try_from(loaded.num_vertices).unwrap_or(usize::MAX),
        num_edges: usize::try_from(loaded.num_edges).unwrap_or(usize::MAX),
        checksum: loaded.checksum,
        tuple_order,
        graph_generation,
        construction_time,
        memory_estimate: loaded.memory_estimate,
        passes,
        ranks,
    }))
}

/// The order the validator read the tuples in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TupleOrder {
    /// As generated or read.
    Input,
    /// Re-encoded in block order ([`validate::TupleBlocks::from_tuples`]),
    /// which took `seconds`; `copied` when the tuples were a read-only
    /// mapped file, or a list a later pass reads, copied first (included
    /// in `seconds`).
    Blocked {
        /// Seconds of the copy and the re-encoding.
        seconds: f64,
        /// Whether the tuples were copied first.
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

/// One kernel's searches in a valid run.
#[derive(Clone, Debug)]
pub struct PassResult {
    /// The kernel, as [`Pass::name`] names it.
    pub kernel: &'static str,
    /// One record per search, in key order.
    pub searches: Vec<SearchRecord>,
    /// Searches validated together per pass over the tuples: 16 when
    /// batched ([`validate::Batch`]), 1 when each is validated alone, 0
    /// without validation.
    pub lanes: usize,
    /// Searches whose checks 1 and 2 were proven from the levels the
    /// kernel claimed ([`validate::Batch::hold`]) instead of by walking.
    pub certified: u64,
    /// Over ranks: bytes each search sent, summed over the ranks.
    pub search_bytes: Option<Vec<u64>>,
    /// Over ranks: bytes each validation sent, summed over the ranks.
    pub validate_bytes: Option<Vec<u64>>,
    /// Over ranks: the least nanoseconds any rank spent inside collectives
    /// in each search (its time less this is the slowest rank's compute).
    pub search_comm_nanos: Option<Vec<u64>>,
    /// Over ranks: the same for each validation.
    pub validate_comm_nanos: Option<Vec<u64>>,
}

/// What a run over ranks adds.
#[derive(Clone, Debug)]
pub struct RankFigures {
    /// Ranks (`num_mpi_processes`).
    pub ranks: usize,
    /// How the graph was laid over the ranks.
    pub partition: crate::Partitioning,
    /// The grid's shape `(R, C)`: `(1, P)` for the 1-D layout.
    pub grid: (usize, usize),
    /// Bytes of a global vertex id in the ranks' graphs and messages.
    pub id_bytes: usize,
    /// Each rank's peak resident memory, bytes, in rank order.
    pub peak_memory_bytes_per_rank: Vec<u64>,
    /// Bytes the ranks sent one another in kernel 1, summed.
    pub kernel1_bytes: u64,
    /// Of them, the pairs `(neighbour, hub)` that made the 2-D hubs' lists
    /// (`--partition 2d` only), summed.
    pub kernel1_hub_pairs: Option<u64>,
}

/// The measurements of a whole valid run.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Vertices.
    pub num_vertices: usize,
    /// Edge tuples.
    pub num_edges: usize,
    /// [`generator::EdgeList::checksum`], of the tuples in their input order.
    pub checksum: u64,
    /// The order validation read the tuples in.
    pub tuple_order: TupleOrder,
    /// Seconds to generate or read the edge list.
    pub graph_generation: f64,
    /// Seconds in kernel 1.
    pub construction_time: f64,
    /// The estimated peak memory of the run, bytes.
    pub memory_estimate: u64,
    /// One result per pass of the plan, in its order.
    pub passes: Vec<PassResult>,
    /// What a run over ranks adds (`None` in one process).
    pub ranks: Option<RankFigures>,
}

impl Measured {
    /// The records of the pass of `kernel` ([`Pass::name`]), if it ran.
    pub fn searches(&self, kernel: &str) -> Option<&[SearchRecord]> {
        let pass = self.passes.iter().find(|p| p.kernel == kernel)?;
        Some(&pass.searches)
    }

    /// The first pass's searches validated together per pass over the
    /// tuples (0 without validation).
    pub fn validation_lanes(&self) -> usize {
        self.passes.first().map_or(0, |p| p.lanes)
    }

    /// The first pass's searches certified by their claimed levels.
    pub fn validation_certified(&self) -> u64 {
        self.passes.first().map_or(0, |p| p.certified)
    }
}

/// How a run ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every search validated (or validation was off).
    Valid(Measured),
    /// A search failed validation; the run stopped there.
    Invalid(crate::InvalidSearch),
}

/// The passes after `index` in `plan`, which what [`Engine::passed`]
/// releases must not be read by.
pub(crate) fn later(plan: &Plan, index: usize) -> &[Pass] {
    &plan.passes[index + 1..]
}
