//! Kernel 3 in the run loop: the delta-stepping engine as a [`Searcher`]
//! and the SSSP validator as its [`Checker`].
//!
//! A run of both kernels (`--sssp`) builds the weighted graph in kernel 1,
//! searches every key with the BFS, then every key again with
//! delta-stepping (kernel 3 uses nothing kernel 2 computed, as the
//! specification asks), and validates each SSSP result from the edge list
//! and its weights alone.

use crate::report::BucketTrace;
use crate::run::{Checker, Searcher};
use kernels::{Backend, DeltaStepping, SearchKey, SearchStats, SsspParams, WeightedCsr};
use std::sync::Arc;
use validate::{Invalid, SsspValidator, TreeSummary};

/// The delta-stepping engine as the loop drives it.
pub struct SsspSearcher {
    engine: DeltaStepping,
}

impl SsspSearcher {
    /// An engine for `graph` with `params`, its phases on `backend`.
    pub fn new(graph: Arc<WeightedCsr>, params: SsspParams, backend: Backend) -> Self {
        SsspSearcher {
            engine: DeltaStepping::on(backend, graph, params),
        }
    }

    /// Asks searches to record their buckets.
    pub fn set_tracing(&mut self, on: bool) {
        self.engine.set_tracing(on);
    }
}

impl Searcher for SsspSearcher {
    type Output = DeltaStepping;
    const KERNEL: &'static str = "sssp";

    fn reset(&mut self) {
        self.engine.reset();
    }

    /// The search; its depth is 0 (a shortest-path tree has no levels the
    /// kernel counts).
    fn search(&mut self, key: SearchKey) -> SearchStats {
        let stats = self.engine.search(key.vertex());
        SearchStats {
            reached: stats.reached,
            depth: 0,
        }
    }

    fn output(&self) -> &DeltaStepping {
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
    fn check(&mut self, root: SearchKey, nedge: u64) -> Result<TreeSummary, Invalid> {
        let summary = self.validator.validate(
            self.edges,
            self.weights,
            root.id(),
            &self.parents,
            &self.dist,
            Some(nedge),
        )?;
        Ok(TreeSummary {
            nedge: summary.nedge,
            reached: summary.reached,
            depth: 0,
        })
    }
}
