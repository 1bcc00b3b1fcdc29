//! Kernel 3 in the run loop: a delta-stepping engine as a [`Searcher`]
//! and the SSSP validator as its [`Checker`].
//!
//! A run of both kernels (`--sssp`) builds the weighted graph in kernel 1,
//! searches every key with the BFS, then every key again with
//! delta-stepping (kernel 3 uses nothing kernel 2 computed, as the
//! specification asks), and validates each SSSP result from the edge list
//! and its weights alone. [`SsspSearcher`] drives any [`SsspEngine`]: one
//! process's [`DeltaStepping`], or the ranks' (`distributed.rs`).

use crate::report::BucketTrace;
use crate::run::{Checker, Searcher};
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

    /// The engine, for what the loop does not read from it.
    pub fn into_engine(self) -> E {
        self.engine
    }
}

impl<E: SsspEngine> Searcher for SsspSearcher<E> {
    type Output = E;
    const KERNEL: &'static str = "sssp";

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

    /// Always some (empty when not traced): an SSSP search has no levels.
    fn buckets(&self) -> Option<Vec<BucketTrace>> {
        Some(self.engine.steps().iter().map(BucketTrace::from).collect())
    }
}

/// The kernel's name in progress lines: `sssp (delta-stepping, delta D)`.
pub(crate) fn label(params: SsspParams, backend: Backend) -> String {
    format!(
        "sssp/{} (delta-stepping, delta {})",
        backend.name(),
        params.delta()
    )
}

/// An SSSP verdict as the loop compares it with the search's figures: a
/// [`TreeSummary`] of depth 0, as [`SsspSearcher`] reports.
pub(crate) fn summary(summary: SsspSummary) -> TreeSummary {
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
    /// `f32` distance array.
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
