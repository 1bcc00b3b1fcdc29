//! The kernels a run times, as a list of passes over the same keys:
//! [`Pass`] names each, says what it needs of kernel 1 and of memory, and
//! makes its searcher and checker on each engine through its adapter
//! (`bfs.rs`, `sssp.rs`).
//!
//! Adding a kernel: its module in `kernels`, its validator in `validate`,
//! its adapter here (a [`Searcher`](crate::Searcher) and a
//! [`Checker`](crate::Checker) per engine, and its memory need), a
//! variant of [`Pass`] with its arms below, its flag in `src/cli/args.rs`,
//! and its lines in the block and the report if Graph500 defines them.

pub mod bfs;
pub mod sssp;

use crate::budget;
use crate::engine::one::OneView;
use crate::engine::ranks::{Metered, RankView};
use crate::searches::{Prepared, Searching};
use crate::{Error, Plan};
use bfs::{BfsChecker, BfsSearcher, RankBfs, RankBfsChecker, RankGridBfs};
use dist::{Comm, DistBfs, DistSssp, GridBfs, GridDirection, Id};
use kernels::{Kernel, SsspParams};
use sssp::{RankSssp, RankSsspChecker, SsspChecker, SsspSearcher};
use std::path::Path;
use std::sync::Arc;

/// One kernel of a run: every key searched and validated by it, in the
/// plan's order of passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Kernel 2: breadth-first search with this engine.
    Bfs(Kernel),
    /// Kernel 3: single-source shortest paths by delta-stepping (Graph500
    /// 3.0), over the same keys as the BFS, using nothing it computed.
    Sssp(SsspParams),
}

/// The refusal of `what` (`--sssp`, "a shortest-path search") on the
/// file at `path`, which has no weights: where weights come from, so that
/// a file whose values are not weights (a Matrix Market file with a
/// negative one) says why. Every command that needs weights uses it.
pub fn no_weights(path: &Path, what: &str) -> Error {
    Error::Refused(format!(
        "{}: {what} needs a weight per tuple, and this file has none (weights come from a binary file of version 2, a third column of a text list, the values of a real Matrix Market file when none is negative or not finite, or FILE.weights beside a .pe48 file)",
        path.display(),
    ))
}

impl Pass {
    /// The kernel as reports name it: `bfs` or `sssp`.
    pub fn name(&self) -> &'static str {
        match self {
            Pass::Bfs(_) => "bfs",
            Pass::Sssp(_) => "sssp",
        }
    }

    /// The kernel and its backend, as progress lines name them.
    pub fn label(&self, backend: kernels::Backend) -> String {
        match self {
            Pass::Bfs(kernel) => kernel.label(backend),
            Pass::Sssp(params) => sssp::label(*params, backend),
        }
    }

    /// Whether it searches the weighted graph and its validator reads the
    /// edge list in input order beside the weights; otherwise it searches
    /// the unweighted graph and validates against tuples in any order.
    pub fn weighted(&self) -> bool {
        matches!(self, Pass::Sssp(_))
    }

    /// The weight below which it wants kernel 1 to put a row's arcs
    /// first (delta-stepping's light arcs), if any.
    pub fn light_split(&self) -> Option<f32> {
        match self {
            Pass::Bfs(_) => None,
            Pass::Sssp(params) => Some(params.delta()),
        }
    }

    /// The refusal of this pass on the file at `path`, which has no
    /// weights.
    pub fn no_weights(&self, path: &Path) -> Error {
        no_weights(path, &format!("--{}", self.name()))
    }

    /// What it holds in a run of one process on `m` tuples and `n`
    /// vertices besides the edge list: its graph, its engine and, if
    /// validating, its checker.
    pub fn one_process_bytes(&self, m: u64, n: u64, validate: bool) -> u64 {
        match self {
            Pass::Bfs(kernel) => budget::bfs_pass_bytes(m, n, *kernel, validate),
            Pass::Sssp(_) => sssp::bytes(m, n, validate),
        }
    }

    /// What its checker adds when it batches searches over block-ordered
    /// tuples of `n` vertices, with `cells` (0 for a checker that does not).
    pub fn batch_bytes(&self, n: u64, cells: budget::Cells) -> u64 {
        match self {
            Pass::Bfs(_) => budget::batch_bytes(n, cells),
            Pass::Sssp(_) => 0,
        }
    }

    /// The peak of its batched searches over block-ordered tuples, when
    /// the list itself is no longer held (0 for a checker that does not
    /// batch).
    pub fn batched_peak(&self, m: u64, n: u64, cells: budget::Cells) -> u64 {
        match self {
            Pass::Bfs(kernel) => budget::batched_search_bytes(m, n, *kernel, cells),
            Pass::Sssp(_) => 0,
        }
    }

    /// What it holds on one rank of `ranks` in a run on `m` tuples and `n`
    /// vertices, with ids `I`.
    pub fn rank_bytes<I: Id>(&self, m: u64, n: u64, ranks: u64, validate: bool) -> u64 {
        match self {
            Pass::Bfs(_) => budget::rank_bfs_bytes::<I>(m, n, ranks, validate),
            Pass::Sssp(_) => sssp::rank_bytes::<I>(m, n, ranks, validate),
        }
    }

    /// Its searcher and checker in one process.
    pub(crate) fn on_one_process<'a>(
        &self,
        plan: &'a Plan,
        view: OneView<'a>,
    ) -> Box<dyn Searching + 'a> {
        let (kernel, label, backend) = (self.name(), self.label(plan.backend), plan.backend);
        match *self {
            Pass::Bfs(bfs) => {
                let graph = Arc::clone(view.graph.graph.as_ref().expect("an unweighted graph"));
                let mut engine = match view.bfs_engine {
                    Some(make) => make(Arc::clone(&graph)),
                    None => bfs.engine_on(backend, Arc::clone(&graph)),
                };
                engine.set_tracing(plan.trace);
                let tuples = view.tuples;
                Box::new(Prepared {
                    kernel,
                    label,
                    searcher: BfsSearcher::new(engine, graph),
                    checker: move || BfsChecker::with_memory(tuples, plan.memory),
                })
            }
            Pass::Sssp(params) => {
                let graph = view.graph.weighted.as_ref().expect("a weighted graph");
                let list = view.list.expect("the list in input order");
                let weights = list.weights().expect("a weighted graph has weights");
                let mut searcher = SsspSearcher::new(Arc::clone(graph), params, backend);
                searcher.set_tracing(plan.trace);
                let checker = || SsspChecker::new(list.num_vertices(), list.edges(), weights);
                Box::new(Prepared {
                    kernel,
                    label,
                    searcher,
                    checker,
                })
            }
        }
    }

    /// Its searcher and checker on one of the ranks of `view`; checks are
    /// metered (bytes this rank sent in each).
    pub(crate) fn on_ranks<'a, I: Id>(
        &self,
        plan: &'a Plan,
        view: RankView<'a, I>,
    ) -> Box<dyn Searching + 'a> {
        let RankView {
            comm,
            part,
            graph,
            share,
            keys,
        } = view;
        let ranks = comm.size();
        let (kernel, backend) = (self.name(), plan.backend);
        let label = format!("{} over {ranks} ranks", self.label(backend));
        let first = share.first_tuple;
        match *self {
            Pass::Bfs(bfs) => {
                let Kernel::Dobfs(params) = bfs else {
                    unreachable!("refused by run_distributed")
                };
                let checker = move || {
                    let checker = RankBfsChecker::new(comm, part, &share.tuples, first);
                    Metered::new(checker, comm, keys)
                };
                if let Some(cell) = &graph.grid {
                    let grid = cell.grid();
                    let label = format!("{label}, a {} x {} grid", grid.rows(), grid.cols());
                    let direction = GridDirection::Optimizing(params);
                    let engine = GridBfs::on(backend, comm, Arc::clone(cell), direction);
                    return Box::new(Prepared {
                        kernel,
                        label,
                        searcher: RankGridBfs::new(engine, comm, keys),
                        checker,
                    });
                }
                let rows = Arc::clone(graph.graph.as_ref().expect("unweighted rows"));
                let index = Arc::clone(graph.bfs_index.as_ref().expect("kernel 1's index"));
                let engine = DistBfs::with_index(backend, comm, rows, index, params);
                Box::new(Prepared {
                    kernel,
                    label,
                    searcher: RankBfs::new(engine, comm, keys),
                    checker,
                })
            }
            Pass::Sssp(params) => {
                let rows = Arc::clone(graph.weighted.as_ref().expect("weighted rows"));
                let engine = DistSssp::on(backend, comm, rows, params);
                let mut searcher = SsspSearcher::with_engine(RankSssp::new(engine, comm, keys));
                searcher.set_tracing(plan.trace);
                let weights = share.weights.as_deref().expect("a weighted share");
                let checker = move || {
                    let tuples = &share.tuples;
                    let checker = RankSsspChecker::<I>::new(comm, part, tuples, weights, first);
                    Metered::new(checker, comm, keys)
                };
                Box::new(Prepared {
                    kernel,
                    label,
                    searcher,
                    checker,
                })
            }
        }
    }
}

impl Plan {
    /// Whether a pass needs a weight per tuple.
    pub fn needs_weights(&self) -> bool {
        self.weighted_pass().is_some()
    }

    /// The first pass that needs a weight per tuple, if any.
    pub fn weighted_pass(&self) -> Option<&Pass> {
        self.passes.iter().find(|p| p.weighted())
    }

    /// The weight below which kernel 1 puts a weighted row's arcs first,
    /// if a pass asks.
    pub fn light_split(&self) -> Option<f32> {
        self.passes.iter().find_map(Pass::light_split)
    }
}

/// This rank's nanoseconds inside collectives in each search
/// ([`Comm::nanos_in_calls`]), the warm-up's first.
pub(crate) struct Waits<'c> {
    comm: &'c dyn Comm,
    nanos: Vec<u64>,
}

impl<'c> Waits<'c> {
    /// For `keys` searches and the warm-up.
    pub(crate) fn new(comm: &'c dyn Comm, keys: usize) -> Self {
        Waits {
            comm,
            nanos: Vec::with_capacity(keys + 1),
        }
    }

    /// Runs `search`, recording its time inside collectives.
    pub(crate) fn count<R>(&mut self, search: impl FnOnce() -> R) -> R {
        let before = self.comm.nanos_in_calls();
        let out = search();
        self.nanos.push(self.comm.nanos_in_calls() - before);
        out
    }

    /// Each search's time inside collectives so far, the warm-up's first.
    pub(crate) fn nanos(&self) -> &[u64] {
        &self.nanos
    }
}
