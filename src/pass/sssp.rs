//! Kernel 3 (SSSP) in the harness: each engine's delta-stepping as a
//! [`Searcher`] and the SSSP validator as its [`Checker`], and what kernel
//! 3 adds to a run's memory.
//!
//! A run of both kernels (`--sssp`) builds the weighted graph in kernel 1,
//! searches every key with the BFS, then every key again with
//! delta-stepping (kernel 3 uses nothing kernel 2 computed, as the
//! specification asks), and validates each SSSP result from the edge list
//! and its weights alone. [`SsspSearcher`] drives any [`SsspEngine`]: one
//! process's [`DeltaStepping`], or the ranks' [`DistSssp`] (`RankSssp`).
//! An SSSP search reports depth 0 (a shortest-path tree has no levels the
//! kernel counts) and its buckets, not levels, when traced.

use super::Waits;
use crate::budget;
use crate::report::{BucketTrace, SearchRecord};
use crate::searches::{Checker, Searcher};
use dist::{Comm, DistSssp, DistSsspValidator, Id, Partition, WeightedLocalGraph};
use generator::EdgeList;
use kernels::{
    Backend, BucketStep, DeltaStepping, SearchKey, SearchStats, SsspParams, SsspStats, WeightedCsr,
};
use std::sync::Arc;
use validate::{Invalid, SsspSummary, SsspValidator, TreeSummary};

/// A delta-stepping engine as [`SsspSearcher`] drives it.
pub trait SsspEngine {
    /// Clears the per-search state (untimed).
    fn reset(&mut self);
    /// Shortest paths from `root` (timed).
    fn search(&mut self, root: SearchKey) -> SsspStats;
    /// The nedge of the last search.
    fn nedge(&self) -> u64;
    /// The buckets of the last search (empty when not traced).
    fn steps(&self) -> &[BucketStep];
    /// Asks searches to record their buckets.
    fn set_tracing(&mut self, on: bool);
    /// Bytes each search so far sent between ranks (empty in one process).
    fn bytes_sent(&self) -> &[u64] {
        &[]
    }
    /// Nanoseconds this rank spent inside collectives in each search so
    /// far (empty in one process).
    fn comm_nanos(&self) -> &[u64] {
        &[]
    }
}

impl SsspEngine for DeltaStepping {
    fn reset(&mut self) {
        DeltaStepping::reset(self);
    }

    fn search(&mut self, root: SearchKey) -> SsspStats {
        DeltaStepping::search(self, root.vertex())
    }

    fn nedge(&self) -> u64 {
        DeltaStepping::nedge(self)
    }

    fn steps(&self) -> &[BucketStep] {
        DeltaStepping::steps(self)
    }

    fn set_tracing(&mut self, on: bool) {
        DeltaStepping::set_tracing(self, on);
    }
}

/// Fails if a graph of `num_vertices` (from the file at `path`) has more
/// vertices than one process's delta-stepping names
/// ([`DeltaStepping::MAX_VERTICES`], `2^31`; a generated graph of SCALE 31
/// has exactly that many); the ranks' engine has no such bound.
pub fn fits_one_process(num_vertices: u64, path: &std::path::Path) -> Result<(), crate::Error> {
    let most = DeltaStepping::MAX_VERTICES as u64;
    if num_vertices <= most {
        return Ok(());
    }
    Err(crate::Error::Refused(format!(
        "{}: {num_vertices} vertices, and one process's shortest-path search names at most {most} (2^31); run it over MPI ranks (mpirun -np P graph500 ..., built with --features mpi)",
        path.display()
    )))
}

/// A delta-stepping engine as the loop drives it.
pub struct SsspSearcher<E = DeltaStepping> {
    engine: E,
}

impl SsspSearcher {
    /// An engine for `graph` with `params`, its phases on `backend`.
    pub fn new(graph: Arc<WeightedCsr>, params: SsspParams, backend: Backend) -> Self {
        SsspSearcher {
            engine: DeltaStepping::on(backend, graph, params),
        }
    }
}

impl<E: SsspEngine> SsspSearcher<E> {
    /// `engine` as the loop drives it.
    pub fn with_engine(engine: E) -> Self {
        SsspSearcher { engine }
    }

    /// Asks searches to record their buckets.
    pub fn set_tracing(&mut self, on: bool) {
        self.engine.set_tracing(on);
    }

    /// The engine.
    pub fn engine(&self) -> &E {
        &self.engine
    }
}

impl<E: SsspEngine> Searcher for SsspSearcher<E> {
    type Output = E;

    fn reset(&mut self) {
        self.engine.reset();
    }

    /// The search; its depth is 0 (a shortest-path tree has no levels the
    /// kernel counts).
    fn search(&mut self, key: SearchKey) -> SearchStats {
        let stats = self.engine.search(key);
        SearchStats {
            reached: stats.reached,
            depth: 0,
        }
    }

    fn output(&self) -> &E {
        &self.engine
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    /// The buckets (an empty list when not traced): an SSSP search has no
    /// levels.
    fn trace(&self, record: &mut SearchRecord) {
        record.buckets = Some(self.engine.steps().iter().map(BucketTrace::from).collect());
    }

    fn bytes_sent(&self) -> &[u64] {
        self.engine.bytes_sent()
    }

    fn comm_nanos(&self) -> &[u64] {
        self.engine.comm_nanos()
    }
}

/// The kernel's name in progress lines: `sssp/B (delta-stepping, delta D)`.
pub(crate) fn label(params: SsspParams, backend: Backend) -> String {
    format!(
        "sssp/{} (delta-stepping, delta {})",
        backend.name(),
        params.delta()
    )
}

/// An SSSP verdict as the loop compares it with the search's figures: a
/// [`TreeSummary`] of depth 0, as [`SsspSearcher`] reports.
fn summary(summary: SsspSummary) -> TreeSummary {
    TreeSummary {
        nedge: summary.nedge,
        reached: summary.reached,
        depth: 0,
    }
}

/// The SSSP validator over the edge list and its weights.
pub struct SsspChecker<'a> {
    edges: &'a [generator::Edge],
    weights: &'a [f32],
    validator: SsspValidator,
    parents: Vec<i64>,
    dist: Vec<f32>,
}

impl<'a> SsspChecker<'a> {
    /// A checker for searches of the graph of `edges` weighted by
    /// `weights`; allocates the validator, an `i64` parent array and an
    /// `f32` distance array ([`SsspChecker::bytes_for`]).
    pub fn new(num_vertices: usize, edges: &'a [generator::Edge], weights: &'a [f32]) -> Self {
        SsspChecker {
            edges,
            weights,
            validator: SsspValidator::new(num_vertices),
            parents: vec![0; num_vertices],
            dist: vec![0.0; num_vertices],
        }
    }

    /// Bytes of a checker for `n` vertices.
    pub fn bytes_for(n: u64) -> u64 {
        12 * n + SsspValidator::bytes_for(n)
    }
}

impl Checker<DeltaStepping> for SsspChecker<'_> {
    fn prepare(&mut self, engine: &DeltaStepping) {
        engine.write_results(&mut self.parents, &mut self.dist);
    }

    /// The SSSP verdict, as a [`TreeSummary`] of depth 0.
    fn check(
        &mut self,
        _: &DeltaStepping,
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        self.validator
            .validate(
                self.edges,
                self.weights,
                root.id(),
                &self.parents,
                &self.dist,
                Some(nedge),
            )
            .map(summary)
    }
}

/// The distributed delta-stepping engine as [`SsspSearcher`] drives it;
/// records the bytes each search sent (the warm-up's first) and this
/// rank's time inside collectives.
pub(crate) struct RankSssp<'c, I: Id> {
    engine: DistSssp<'c, I>,
    bytes: Vec<u64>,
    waits: Waits<'c>,
}

impl<'c, I: Id> RankSssp<'c, I> {
    /// `engine`, over `comm`, for `keys` searches (and the warm-up).
    pub(crate) fn new(engine: DistSssp<'c, I>, comm: &'c dyn Comm, keys: usize) -> Self {
        RankSssp {
            engine,
            bytes: Vec::with_capacity(keys + 1),
            waits: Waits::new(comm, keys),
        }
    }
}

impl<I: Id> SsspEngine for RankSssp<'_, I> {
    fn reset(&mut self) {
        self.engine.reset();
    }

    fn search(&mut self, root: SearchKey) -> SsspStats {
        let engine = &mut self.engine;
        let stats = self.waits.count(|| engine.search(root.id()));
        self.bytes.push(self.engine.bytes());
        stats
    }

    fn nedge(&self) -> u64 {
        self.engine.nedge()
    }

    fn steps(&self) -> &[BucketStep] {
        self.engine.steps()
    }

    fn set_tracing(&mut self, on: bool) {
        self.engine.set_tracing(on);
    }

    fn bytes_sent(&self) -> &[u64] {
        &self.bytes
    }

    fn comm_nanos(&self) -> &[u64] {
        self.waits.nanos()
    }
}

/// The distributed SSSP validator as the loop drives it.
pub(crate) struct RankSsspChecker<'c, I: Id> {
    validator: DistSsspValidator<'c, I::Tuple>,
    parents: Vec<u64>,
    dist: Vec<f32>,
}

impl<'c, I: Id> RankSsspChecker<'c, I> {
    /// A checker of this rank's rows of `part`, over its share of the
    /// tuples and their weights, the first being tuple number `first`.
    pub(crate) fn new(
        comm: &'c dyn Comm,
        part: Partition,
        tuples: &'c [I::Tuple],
        weights: &'c [f32],
        first: u64,
    ) -> Self {
        let rows = part.count(comm.rank());
        RankSsspChecker {
            validator: DistSsspValidator::new(comm, part, tuples, weights, first),
            parents: vec![0; rows],
            dist: vec![0.0; rows],
        }
    }
}

impl<I: Id> Checker<RankSssp<'_, I>> for RankSsspChecker<'_, I> {
    fn prepare(&mut self, ranked: &RankSssp<'_, I>) {
        ranked
            .engine
            .write_results(&mut self.parents, &mut self.dist);
    }

    fn check(
        &mut self,
        _: &RankSssp<'_, I>,
        root: SearchKey,
        nedge: u64,
    ) -> Result<TreeSummary, Invalid> {
        (self.validator)
            .check(root.id(), &self.parents, &self.dist, Some(nedge))
            .map(summary)
    }
}

/// What kernel 3 adds to a run of one process on `m` tuples and `n`
/// vertices: the weights, the weighted graph (the BFS graph is copied out
/// of it, and both are held) and its renumbering by degree, the
/// delta-stepping engine and, if
/// validating, the SSSP checker (parents, distances, validator).
pub fn bytes(m: u64, n: u64, validate: bool) -> u64 {
    let checking = if validate {
        SsspChecker::bytes_for(n)
    } else {
        0
    };
    EdgeList::weight_bytes(m)
        + WeightedCsr::bytes_for(n, m)
        + WeightedCsr::relabel_bytes_for(n, m)
        + DeltaStepping::bytes_for(n)
        + checking
}

/// What kernel 3 adds to one rank's run on `m` tuples and `n` vertices
/// over `ranks`, as [`bytes`] to one process's: the share's weights, the
/// weighted rows (the BFS rows are copied out of them, and both are held
/// until the BFS searches end), the engine's per-vertex arrays and phase
/// buffers, and, if validating, the validator and the parent and distance
/// arrays it reads. The phase buffers are kept at the largest phase's
/// size: each offer takes `3 size_of::<I>()` bytes three times (a
/// worker's buffer, the outgoing run, the received run), and a phase
/// offers at most its queued vertices' arcs; the estimate allows a phase
/// three quarters of the rank's arcs, above the largest share measured
/// (docs/history-harness.md).
pub fn rank_bytes<I: Id>(m: u64, n: u64, ranks: u64, validate: bool) -> u64 {
    let (m_r, n_r) = (m.div_ceil(ranks), n.div_ceil(ranks));
    let offer = 3 * size_of::<I>() as u64;
    let phases = 3 * offer * (2 * m_r * 3 / 4) + 8 * n_r;
    let p = usize::try_from(ranks).expect("ranks fit usize");
    let engine = DistSssp::<I>::bytes_for(n_r, n, p) + phases;
    let checking = if validate {
        DistSsspValidator::<I::Tuple>::bytes_for(n_r, m_r, n) + 12 * n_r
    } else {
        0
    };
    EdgeList::weight_bytes(m_r)
        + WeightedLocalGraph::<I>::bytes_for(n_r, 2 * m_r)
        + engine
        + checking
}

/// Peak bytes of `graph500 sssp`: the weighted edge list, the weighted
/// graph, the engine, and the parent and distance arrays it writes.
pub fn search_bytes(m: u64, n: u64) -> u64 {
    EdgeList::bytes_for(m) + bytes(m, n, false) + budget::i64_parents(n) + 4 * n + budget::FIXED
}
